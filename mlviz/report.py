"""Report pack: one zip that keeps an analysis working outside the app.

:func:`build_report_pack` writes a zip holding

* ``report.html`` -- a self-contained interactive report: plotly.js is
  embedded once, so it opens offline and fetches nothing over http(s);
* ``figures/<name>.svg`` and ``.png`` -- static copies of each figure when
  kaleido and a Chromium are available (``figures/README.txt`` says why they
  are missing otherwise);
* ``measures.csv`` (method, measure, value), ``posteriors/<method>.csv``
  (test rows × labels), ``edges.csv`` (learned label graphs) and
  ``tables/<caption>.csv`` (the tables the page showed, also drawn in
  ``report.html``), all passed through :func:`mlviz._text.csv_safe`;
* ``config.json`` -- data-set identity (name, :func:`content_hash`), seed,
  the train/test rows, scaling, decision rule, measures and every
  estimator's constructor parameters (:func:`estimator_spec`);
* ``reproduce.py`` -- a short script that checks ``config.json`` against the
  pack schema, reloads the data (a bundled sample by name, or ``data.npz``
  next to it), checks its SHA-256, refits every model with mlviz and prints
  the measures as CSV (the same numbers as ``measures.csv``; tested to 1e-6).
  A tampered pack is refused with one message (:mod:`mlviz.report_config`:
  estimators only from an allow-list, plain parameter values, bounded sizes);
* ``data.npz`` when the data set is not a bundled sample.

:func:`fit_and_measure` computes the results the way ``reproduce.py`` does
(split, scaling, fit, ``predict_proba``, decision rule, measures), so a page
that already holds fitted models can pass its own results, and a caller
without them can compute them here.
"""

from __future__ import annotations

import io
import json
import re
import warnings
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np
import pandas as pd

from ._text import csv_safe, escape_html, shorten
from .decision import apply_rule, describe_rule
from .metrics import DEFAULT_MEASURES, evaluate, get_measure
from .preprocessing import scale_split
from .report_config import (
    PackError,
    _encode,
    allowed_estimator_classes,
    check_config,
    content_hash,
    estimator_from_spec,
    estimator_spec,
)
from .report_load import load_pack

__all__ = ["PackSettings", "content_hash", "estimator_spec", "estimator_from_spec",
           "fit_and_measure", "build_report_pack", "REPRODUCE_SCRIPT", "PackError", "load_pack",
           "allowed_estimator_classes", "check_config"]
_LABEL_MEASURES = [m for m in DEFAULT_MEASURES]


# ------------------------------------------------------------ settings / fitting
@dataclass
class PackSettings:
    """Everything needed to refit and re-measure an analysis.

    Attributes
    ----------
    methods : dict name -> estimator
        Unfitted estimators (their constructor parameters are stored).
    train_index, test_index : array of int
        Rows of the data set used to train and to test.
    sample : str or None
        Name of a bundled sample (``mlviz.data.load_sample``); None means
        the data are written into the pack as ``data.npz``.
    seed : int
        The seed used for the split and every ``random_state``.
    split : str
        How the split was made, in words (e.g. "seeded 2/3-1/3 split, seed 0").
    scaling : str
        A key of :data:`mlviz.preprocessing.SCALINGS` ("standard", "l2",
        "tfidf", "maxabs", "none"), fitted on the training rows by
        :func:`mlviz.preprocessing.scale_split` (the one scaling rule).
    rule, rule_param, at_least_one_label
        Decision rule of :func:`mlviz.decision.apply_rule`.
    measures : list of str
        Keys of :data:`mlviz.metrics.MEASURES`.
    extra : dict
        Any other setting to record (page, slider values, ...).
    """

    methods: dict
    train_index: object
    test_index: object
    sample: str | None = None
    seed: int = 0
    split: str = ""
    scaling: str = "standard"
    rule: str = "threshold"
    rule_param: object = 0.5
    at_least_one_label: bool = False
    measures: list = field(default_factory=lambda: list(_LABEL_MEASURES))
    extra: dict = field(default_factory=dict)


def _split_scale(dataset, settings):
    tr = np.asarray(settings.train_index, dtype=int)
    te = np.asarray(settings.test_index, dtype=int)
    Xtr, Xte = scale_split(dataset.X[tr], dataset.X[te], settings.scaling)
    return Xtr, dataset.Y[tr], Xte, dataset.Y[te]


def _rule_param(value):
    return np.asarray(value, dtype=float) if isinstance(value, (list, tuple, np.ndarray)) else value


def _edges_of(name, model, label_names):
    graph = getattr(model, "label_graph_", None)
    if graph is None:
        return []
    return [dict(method=name, source=label_names[int(u)], target=label_names[int(v)],
                 weight=float(w if w is not None else np.nan))
            for u, v, w in graph.edges(data="weight")]


def fit_and_measure(dataset, settings):
    """Fit every method on the training rows and measure it on the test rows.

    The same steps as ``reproduce.py``: split, scaling, ``fit``,
    ``predict_proba``, decision rule, :func:`mlviz.metrics.evaluate` (ranking
    measures on the posteriors, label measures on the rule's prediction).

    Returns
    -------
    dict
        ``measures`` (DataFrame: index method, one column per measure),
        ``posteriors`` (dict method -> ndarray (n_test, L)), ``edges``
        (DataFrame: method, source, target, weight; label graphs of models
        with ``label_graph_``) and ``models`` (the fitted estimators).
    """
    from sklearn.base import clone

    Xtr, Ytr, Xte, Yte = _split_scale(dataset, settings)
    param = _rule_param(settings.rule_param)
    rows, posteriors, edges, models = {}, {}, [], {}
    for name, est in settings.methods.items():
        model = clone(est).fit(Xtr, Ytr)
        P = model.predict_proba(Xte)
        Y_pred = apply_rule(P, settings.rule, param, at_least_one_label=settings.at_least_one_label)
        rows[name] = evaluate(Yte, P, measures=list(settings.measures), y_pred=Y_pred)
        posteriors[name] = P
        edges += _edges_of(name, model, dataset.label_names)
        models[name] = model
    return dict(measures=pd.DataFrame.from_dict(rows, orient="index"), posteriors=posteriors,
                edges=pd.DataFrame(edges, columns=["method", "source", "target", "weight"]),
                models=models)


# ------------------------------------------------------------ pack
def _file_name(name, taken):
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name))[:60].strip("._") or "item"
    out, i = base, 2
    while out.lower() in taken:
        out, i = f"{base}_{i}", i + 1
    taken.add(out.lower())
    return out


def _config(dataset, settings):
    rule_param = settings.rule_param
    if isinstance(rule_param, np.ndarray):
        rule_param = rule_param.tolist()
    return {
        "mlviz_report_pack": 1,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "data": {"name": dataset.name, "sample": settings.sample,
                 "file": None if settings.sample else "data.npz",
                 "content_hash": content_hash(dataset), "n_samples": dataset.n_samples,
                 "n_features": dataset.n_features, "n_labels": dataset.n_labels,
                 "sparse": dataset.sparse, "label_names": list(dataset.label_names)},
        "seed": settings.seed,
        "split": {"description": settings.split,
                  "train": np.asarray(settings.train_index, dtype=int).tolist(),
                  "test": np.asarray(settings.test_index, dtype=int).tolist()},
        "scaling": settings.scaling,
        "decision_rule": {"rule": settings.rule, "param": _encode(rule_param),
                          "at_least_one_label": bool(settings.at_least_one_label),
                          "description": describe_rule(settings.rule, rule_param,
                                                       settings.at_least_one_label)},
        "measures": list(settings.measures),
        "methods": {name: estimator_spec(est) for name, est in settings.methods.items()},
        "extra": _encode_extra(settings.extra),
    }


def _encode_extra(extra):
    try:
        return json.loads(json.dumps(extra, default=str))
    except (TypeError, ValueError):
        return {k: str(v) for k, v in extra.items()}


def _measures_long(measures):
    """(method, measure, value) rows, method by method (the order ``reproduce.py`` prints)."""
    rows = [(method, measure, float(value)) for method, row in measures.iterrows()
            for measure, value in row.items()]
    return pd.DataFrame(rows, columns=["method", "measure", "value"])


def _svg(fig):
    try:
        import kaleido

        from .plotting.export import find_chromium
        if find_chromium() is None:
            return None
        w = int(fig.layout.width or 1000)
        h = int(fig.layout.height or 500)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = kaleido.calc_fig_sync(fig.to_dict(), opts=dict(format="svg", width=w, height=h),
                                         kopts=dict(mathjax=False, timeout=60))
        return data if isinstance(data, bytes) and data.lstrip().startswith(b"<svg") else None
    except Exception:
        return None


#: Rows of a page table drawn in ``report.html`` (the CSV holds them all).
HTML_TABLE_ROWS = 200


def _named_index(frame):
    """Whether a table's index carries information (not a plain 0..n-1 row number)."""
    return not (isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0 and frame.index.step == 1
                and frame.index.name is None)


def _table_html(frame, digits=4, index=True):
    names = ([frame.index.name or ""] if index else []) + list(frame.columns)
    head = "".join(f"<th>{escape_html(c)}</th>" for c in names)
    body = []
    for idx, row in frame.iterrows():
        cells = [f"<th>{escape_html(idx)}</th>"] if index else []
        for v in row:
            if isinstance(v, (float, np.floating)):
                cells.append("<td>—</td>" if np.isnan(v) else f"<td>{v:.{digits}f}</td>")
            else:
                cells.append(f"<td>{escape_html('—' if v is None else v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _tables_html(tables, files):
    parts = []
    for caption, frame in tables.items():
        shown = frame.head(HTML_TABLE_ROWS)
        where = f"<code>{escape_html(files[caption])}</code>"
        more = (f"the first {HTML_TABLE_ROWS} of {len(frame)} rows; all in {where}" if len(frame) > HTML_TABLE_ROWS
                else where)
        parts.append(f"<h3>{escape_html(caption)}</h3><p><small>{more}</small></p>"
                     f"{_table_html(shown, index=_named_index(frame))}")
    return "".join(parts)


def _html(config, measures, figures, title, notes, tables=None, table_files=None):
    import plotly.io as pio

    data = config["data"]
    rule = config["decision_rule"]
    parts = []
    first = True
    for caption, fig in figures.items():
        div = pio.to_html(fig, include_plotlyjs=first, full_html=False,
                          config={"displaylogo": False, "responsive": True, "topojsonURL": ""})
        first = False
        parts.append(f"<figure>{div}<figcaption>{escape_html(caption)}</figcaption></figure>")
    shown = measures.copy()
    shown.columns = [get_measure(c).label for c in shown.columns]
    shown.index.name = "method"
    methods = "".join(f"<li><b>{escape_html(name)}</b>: <code>{escape_html(spec['class'])}"
                      f"({escape_html(json.dumps(spec['params'], default=str))})</code></li>"
                      for name, spec in config["methods"].items())
    notes_html = "".join(f"<li>{escape_html(n)}</li>" for n in notes)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape_html(title)}</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}
code{{font-size:90%;word-break:break-all}}figcaption{{color:#555;margin-bottom:2em}}</style>
</head><body>
<h1>{escape_html(title)}</h1>
<p>Data set <b>{escape_html(shorten(data['name']))}</b>: {data['n_samples']} instances,
{data['n_features']} features, {data['n_labels']} labels; content hash
<code>{escape_html(data['content_hash'])}</code>.
Split: {escape_html(config['split']['description'])} ({len(config['split']['train'])} train /
{len(config['split']['test'])} test); seed {escape_html(config['seed'])};
scaling: {escape_html(config['scaling'])}. Decision rule: {escape_html(rule['description'])}.</p>
<h2>Measures on the test rows</h2>
{_table_html(shown)}
<h2>Methods</h2><ul>{methods}</ul>
<h2>Figures</h2>
{''.join(parts) or '<p>No figures on this page.</p>'}
{f'<h2>Tables</h2>{_tables_html(tables, table_files)}' if tables else ''}
<h2>Reproduce</h2>
<p>Unzip the pack and run <code>python reproduce.py</code> (needs mlviz); it refits every
method and prints the measures above (also in <code>measures.csv</code>).</p>
{f'<h2>Notes</h2><ul>{notes_html}</ul>' if notes else ''}
<p><small>Created by mlviz {escape_html(_version())} at {escape_html(config['created'])}.</small></p>
</body></html>"""


def _version():
    from . import __version__

    return __version__


REPRODUCE_SCRIPT = '''\
"""Refit the models of this mlviz report pack and print its measures as CSV.

Run from anywhere:  python reproduce.py
Needs the mlviz package (the pack was made with mlviz {version}).
Every setting is read from config.json next to this file; the output matches
measures.csv (method, measure, value).  Before anything is fitted,
mlviz.report.load_pack checks config.json against the pack schema (estimators
only from mlviz's allow-list, plain parameter values, bounded sizes) and the
data's SHA-256; a pack that fails a check is refused with one message.
"""
import csv
import sys
from pathlib import Path

from mlviz._threads import one_blas_thread
from mlviz.decision import apply_rule
from mlviz.metrics import evaluate
from mlviz.preprocessing import scale_split
from mlviz.report import PackError, load_pack

here = Path(__file__).resolve().parent
one_blas_thread()  # one BLAS thread per call, as in the app, unless OMP_NUM_THREADS or the like is set

# 1. config.json checked, the data loaded (a bundled sample by name, or data.npz in the pack)
#    and its SHA-256 compared with the one recorded
try:
    pack = load_pack(here)
except PackError as exc:
    sys.exit(f"Refusing to run this report pack: {{exc}}")
config, ds = pack.config, pack.dataset

# 2. the same train/test rows and feature scaling
train, test = pack.train_index, pack.test_index
X_train, X_test, Y_train, Y_test = ds.X[train], ds.X[test], ds.Y[train], ds.Y[test]
X_train, X_test = scale_split(X_train, X_test, config["scaling"])

# 3. refit every method, apply the decision rule, measure
rule = config["decision_rule"]
out = csv.writer(sys.stdout, lineterminator="\\n")
out.writerow(["method", "measure", "value"])
for name, model in pack.estimators.items():
    try:
        model.fit(X_train, Y_train)
        P = model.predict_proba(X_test)
        Y_pred = apply_rule(P, rule["rule"], pack.rule_param, at_least_one_label=rule["at_least_one_label"])
        values = evaluate(Y_test, P, measures=config["measures"], y_pred=Y_pred)
    except Exception as exc:  # one line, no traceback
        sys.exit(f"reproduce.py: method {{name[:80]!r}} failed: {{type(exc).__name__}}: {{str(exc)[:300]}}")
    for measure, value in values.items():
        out.writerow([name, measure, repr(float(value))])
'''


def build_report_pack(target, dataset, settings, results=None, figures=None, *,
                      title="mlviz report", notes=(), images="auto", tables=None):
    """Write the report pack zip.

    Parameters
    ----------
    target : str, os.PathLike or binary file-like (e.g. ``io.BytesIO`` for a
        download button)
    dataset : MultiLabelDataset
        The whole data set (rows are picked by ``settings``' indices).
    settings : PackSettings
    results : dict, optional
        :func:`fit_and_measure` output (keys ``measures``, ``posteriors``,
        optional ``edges``); computed here when None.
    figures : dict caption -> plotly Figure, optional
        In the order they should appear.
    title : str
    notes : sequence of str
        Shown in the report (e.g. "γ chosen by the slider, not by CV").
    images : {"auto", "never"}
        "auto" writes SVG and PNG of each figure when kaleido and Chromium
        work (the first export starts a browser, a few seconds); "never"
        skips them. Either way ``figures/README.txt`` lists what is missing.
    tables : dict caption -> DataFrame, optional
        The tables the page showed: each written whole as
        ``tables/<caption>.csv`` and drawn in ``report.html`` (its first
        :data:`HTML_TABLE_ROWS` rows).

    Returns
    -------
    dict
        ``files`` (names written), ``images`` (figures exported as images),
        ``skipped_images`` (captions without a static copy), ``config``.
    """
    figures = dict(figures or {})
    tables = {str(k): v for k, v in (tables or {}).items() if v is not None}
    if results is None:
        results = fit_and_measure(dataset, settings)
    config = _config(dataset, settings)
    try:  # a pack this function writes is one reproduce.py accepts (the same schema)
        check_config(json.loads(json.dumps(config, allow_nan=False)))
    except (PackError, ValueError) as exc:
        raise ValueError(f"This report pack could not be reproduced from its config.json: {exc}") from None
    measures = results["measures"]
    written, exported, skipped = [], [], []
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        def put(name, data):
            zf.writestr(name, data)
            written.append(name)

        put("config.json", json.dumps(config, indent=1, allow_nan=False))
        put("reproduce.py", REPRODUCE_SCRIPT.format(version=_version()))
        # pandas writes floats in their shortest round-trip form: the CSV is exact
        put("measures.csv", csv_safe(_measures_long(measures)).to_csv(index=False))
        taken = set()
        for name, P in results.get("posteriors", {}).items():
            frame = pd.DataFrame(np.asarray(P), columns=list(dataset.label_names))
            frame.insert(0, "row", np.asarray(settings.test_index, dtype=int))
            put(f"posteriors/{_file_name(name, taken)}.csv",
                csv_safe(frame).to_csv(index=False))
        edges = results.get("edges")
        if edges is not None and len(edges):
            put("edges.csv", csv_safe(edges).to_csv(index=False))
        if not settings.sample:
            from .data import to_npz

            buf = io.BytesIO()
            to_npz(dataset, buf)
            put("data.npz", buf.getvalue())
        taken, table_files = set(), {}
        for caption, frame in tables.items():
            frame = frame.reset_index() if _named_index(frame) else frame
            table_files[caption] = f"tables/{_file_name(caption, taken)}.csv"
            put(table_files[caption], csv_safe(frame).to_csv(index=False))
        put("report.html", _html(config, measures, figures, title, list(notes), tables, table_files))
        taken = set()
        for caption, fig in figures.items():
            stem = _file_name(caption, taken)
            if images == "never":
                skipped.append(caption)
                continue
            from .plotting.export import figure_to_png

            png = figure_to_png(fig)
            svg = _svg(fig) if png is not None else None
            if png is None and svg is None:
                skipped.append(caption)
                continue
            exported.append(caption)
            if png is not None:
                put(f"figures/{stem}.png", png)
            if svg is not None:
                put(f"figures/{stem}.svg", svg)
        if figures:
            reason = ("static images were not requested" if images == "never" else
                      "kaleido or a Chromium browser was not available")
            lines = [f"Static copies of {len(exported)} of {len(figures)} figures."]
            if skipped:
                lines.append(f"Missing ({reason}): " + "; ".join(shorten(c) for c in skipped))
            lines.append("report.html holds every figure, interactive, and works offline.")
            put("figures/README.txt", "\n".join(lines) + "\n")
    return dict(files=written, images=exported, skipped_images=skipped, config=config)
