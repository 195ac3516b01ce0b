"""The report-pack widget: one button that builds :func:`mlviz.report.build_report_pack` for the current view.

Usable from any page (every page of :data:`mlviz.dashboard.pages.PAGES` has one)::

    from mlviz.dashboard import report_pack
    report_pack.section(ctx, {"br": values}, rule="threshold", rule_param=0.5,
                        figures={"Rule curves": fig}, tables={"Measures": frame}, key="dr_pack")

A page whose models or data are not the sidebar's data set (the Sandbox's planted data, the
Reference check's benchmark protocol) passes ``estimators`` (unfitted, by name) and a
:class:`Source` (data set, train/test rows, scaling); ``identity`` (JSON-able: what the page's
figures and tables are a function of) names the pack without serialising the figures.
In presentation mode with ``hide=downloads`` the section is not drawn (as every download).

The pack is built on the compute layer's runner (the page keeps answering):
the models are refitted from their constructor parameters on the page's
train/test rows exactly as the pack's ``reproduce.py`` will refit them
(:func:`mlviz.report.fit_and_measure`), so ``measures.csv`` and the script's
output agree.  A method with a regularisation path (the sparse CDN's γ as a
fraction of γ_max) is stored with its absolute γ, read from the path.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass

import numpy as np
import streamlit as st

from . import compute, progress
from .context import SPLIT_SEED, split_rows
from .methods import METHODS
from .methods import key as cache_key


@dataclass(frozen=True)
class Source:
    """The data a pack refits on when it is not the page's data context.

    Attributes
    ----------
    key : str
        Identifies the data (cache keys, ``config.json``'s ``extra.data``).
    dataset : mlviz.data.MultiLabelDataset
        The whole data set; rows are picked by the indices.
    train_index, test_index : array of int
    split : str
        How the rows were split, in words.
    scaling : str
        A key of :data:`mlviz.preprocessing.SCALINGS`.
    sample : str or None
        A bundled sample's name (the pack then names it), else None (``data.npz`` is written).
    """

    key: str
    dataset: object
    train_index: object
    test_index: object
    split: str
    scaling: str = "none"
    sample: str | None = None


def split_indices(ctx):
    """``(train_rows, test_rows, sample, description)`` of ``ctx`` within ``ctx.dataset``.

    The dashboard's split (:func:`mlviz.dashboard.context.sample_context`): a bundled set's standard
    train/test files where they are bundled (their rows in the bundled file,
    :func:`mlviz.data.standard_split_rows`), else the one seeded split
    (:func:`mlviz.dashboard.context.split_rows`), uploads included. ``sample`` = the bundled
    sample's name (whatever the scaling), or None for an upload (the pack then carries the data
    as ``data.npz``).

    Raises
    ------
    ValueError
        If the rows found do not give the context's label matrices (the pack
        could not reproduce the page's split).
    """
    from mlviz.data import list_samples, standard_split_rows

    from .context import standard_split_of

    key = ctx.data_key or ctx.key
    sample = key if key in list_samples() else None  # (an upload's key is never a sample's name)
    if standard_split_of(ctx):
        tr, te = standard_split_rows(key)
        text = (f"standard Mulan split: {key}-train / {key}-test ({len(tr)}/{len(te)}), as rows of the bundled "
                "file (mlviz.data.standard_split_rows)")
    else:
        tr, te = split_rows(ctx.dataset.n_samples)
        text = f"seeded {len(tr)}/{len(te)} split (mlviz.data.split_indices, random_state={SPLIT_SEED})"
    Y = np.asarray(ctx.dataset.Y)
    if not (np.array_equal(Y[tr], ctx.Y_train) and np.array_equal(Y[te], ctx.Y_test)):
        raise ValueError(f"Cannot locate the train/test rows of {ctx.name!r} in the data set; "
                         "a report pack would not reproduce this page.")
    return tr, te, sample, text


def pack_settings(ctx, estimators: dict, *, rule="threshold", rule_param=0.5, at_least_one_label=False,
                  extra=None):
    """:class:`mlviz.report.PackSettings` of the page: its split, the dashboard's scaling, the rule."""
    from mlviz.report import PackSettings

    tr, te, sample, text = split_indices(ctx)
    return PackSettings(methods=dict(estimators), train_index=tr, test_index=te, sample=sample, seed=SPLIT_SEED,
                        split=text, scaling=ctx.scaling, rule=rule, rule_param=rule_param,
                        at_least_one_label=bool(at_least_one_label), extra=dict(extra or {}))


def build(ctx, method_values: dict, *, rule="threshold", rule_param=0.5, at_least_one_label=False,
          figures=None, notes=(), extra=None, title=None, tables=None, estimators=None, source=None):
    """``fn(token) -> bytes``: the report pack zip of ``method_values`` (``{method key: slider values}``)
    and ``estimators`` (``{name: unfitted estimator}``) on ``source`` (default: ``ctx``'s data and split)."""
    from mlviz.report import PackSettings, build_report_pack, fit_and_measure

    def fn(token):
        ests = {}
        for mkey, values in method_values.items():
            m = METHODS[mkey]
            token.report(stage=f"preparing {m.label}")
            ests[m.label] = compute.estimator(ctx, m, values, token)
        ests.update(estimators or {})
        more = dict(extra or {}, data=source.key if source is not None else ctx.key,
                    sliders={k: METHODS[k].complete(v) for k, v in method_values.items()})
        if source is None:
            dataset = ctx.dataset
            settings = pack_settings(ctx, ests, rule=rule, rule_param=rule_param,
                                     at_least_one_label=at_least_one_label, extra=more)
        else:
            dataset = source.dataset
            settings = PackSettings(methods=ests, train_index=source.train_index, test_index=source.test_index,
                                    sample=source.sample, seed=SPLIT_SEED, split=source.split,
                                    scaling=source.scaling, rule=rule, rule_param=rule_param,
                                    at_least_one_label=bool(at_least_one_label), extra=more)
        pack_notes = list(notes)
        if any(METHODS[k].path is not None for k in method_values):
            pack_notes.append("A method with a regularisation path (sparse CDN) is refitted here cold at the "
                              "absolute γ of the page's γ / γ_max; the page's fit was warm-started along the path, "
                              "so its numbers can differ slightly from these (which reproduce.py matches).")
        token.report(stage="refitting every model as reproduce.py will")
        results = fit_and_measure(dataset, settings)
        token.report(stage="writing the zip")
        buf = io.BytesIO()
        name = dataset.name if source is not None else ctx.name
        build_report_pack(buf, dataset, settings, results, figures, title=title or f"mlviz report: {name}",
                          notes=pack_notes, images="never", tables=tables)
        return buf.getvalue()
    return fn


def _table_digest(frame) -> str:
    """A content hash of a table (its columns, index and cells)."""
    import pandas as pd

    h = hashlib.sha256(repr((list(map(str, frame.columns)), frame.shape)).encode())
    h.update(pd.util.hash_pandas_object(frame.astype(str), index=True).to_numpy().tobytes())
    return h.hexdigest()[:24]


def _signature(ctx, method_values, rule, rule_param, at_least_one_label, figures, tables=None, estimators=None,
               source=None, identity=None):
    from mlviz.report_config import estimator_spec

    param = np.asarray(rule_param).round(12).tolist() if rule_param is not None else None
    parts = {"methods": {k: METHODS[k].complete(v) for k, v in method_values.items()}, "rule": rule,
             "param": param, "alo": bool(at_least_one_label), "figures": sorted(figures or {}),
             "estimators": json.dumps({k: estimator_spec(v) for k, v in (estimators or {}).items()},
                                      sort_keys=True, default=str),
             "tables": {k: _table_digest(v) for k, v in (tables or {}).items() if v is not None}}
    if identity is None:  # (what the figures show: a page may rebuild equal figures on every rerun)
        digest = hashlib.sha256()
        for caption, fig in (figures or {}).items():
            digest.update(caption.encode() + b"\x1f" + fig.to_json().encode())
        parts["drawn"] = digest.hexdigest()[:24]
    else:  # (named by what they show, without serialising them)
        parts["identity"] = json.dumps(identity, sort_keys=True, default=str)
    return cache_key(source.key if source is not None else ctx.key, "report-pack", parts)


def _request(data_key, method_values, rule, rule_param, at_least_one_label, estimators):
    """What *Prepare* asked for: the data and the models and rule refitted (not the figures): a figure
    that arrives or is redrawn after the click (UMAP beside the map, a fold of a run) rebuilds the
    pack by itself instead of asking again."""
    from mlviz.report_config import estimator_spec

    param = np.asarray(rule_param).round(12).tolist() if rule_param is not None else None
    return cache_key(data_key, "report-pack-request",
                     {"methods": {k: METHODS[k].complete(v) for k, v in method_values.items()}, "rule": rule,
                      "param": param, "alo": bool(at_least_one_label),
                      "estimators": json.dumps({k: estimator_spec(v) for k, v in (estimators or {}).items()},
                                               sort_keys=True, default=str)})


def section(ctx, method_values: dict, *, rule="threshold", rule_param=0.5, at_least_one_label=False,
            figures=None, notes=(), extra=None, key="report_pack", container=None, tables=None, estimators=None,
            source=None, identity=None, title=None):
    """Draw the report-pack section: a *Prepare* button, progress, then a download button.

    Parameters
    ----------
    ctx : DataContext
    method_values : dict method key -> slider values
        The methods of the page (keys of :data:`mlviz.dashboard.methods.METHODS`).
    rule, rule_param, at_least_one_label
        The decision rule of the page (:func:`mlviz.decision.apply_rule`).
    figures : dict caption -> plotly Figure, optional
        The page's figures, embedded (interactive) in ``report.html``.
    notes : sequence of str
        Shown in the report.
    extra : dict, optional
        Further settings to record in ``config.json`` (e.g. the page's URL query).
    key : str
        Widget-key prefix (one section per key).
    container : Streamlit container, optional (default: the main area)
    tables : dict caption -> DataFrame, optional
        The page's tables: ``tables/<caption>.csv`` in the zip, drawn in ``report.html``.
    estimators : dict name -> unfitted estimator, optional
        Models that are not dashboard methods with sliders (refitted as ``reproduce.py`` will).
    source : Source, optional
        The data and split to refit on when they are not ``ctx``'s.
    identity : JSON-able, optional
        What the page's figures and tables show (its settings and results): when given, the pack is
        named by it instead of by the figures' content (which is serialised to name it otherwise).
    title : str, optional
        The report's title (default "mlviz report: <data set>").

    Returns
    -------
    bytes or None
        The zip once built (also offered as a download), else None.
    """
    from . import present

    if present.hidden("downloads"):  # (presentation mode: downloads are not drawn at all)
        return None
    where = container if container is not None else st
    with where.container(border=True):
        st.markdown("**:material/folder_zip: Report pack**")
        st.caption("One zip that keeps this analysis working outside the app: an interactive report.html "
                   "(works offline) with the page's figures and tables, the tables, measures, posteriors and edges "
                   "as CSV, config.json (data hash, split, "
                   "seed, every setting) and reproduce.py, which refits the same models with mlviz and prints "
                   "the same measures.")
        asked = _request(source.key if source is not None else ctx.key, method_values, rule, rule_param,
                         at_least_one_label, estimators)
        wanted = st.session_state.get(f"{key}|wanted") == asked
        if not wanted:
            if st.button("Prepare report pack", key=f"{key}_go", icon=":material/build:",
                         help="Refits the models (seconds to minutes on big data sets) and writes the zip."):
                st.session_state[f"{key}|wanted"] = asked
                wanted = True
        if not wanted:
            return None
        sig = _signature(ctx, method_values, rule, rule_param, at_least_one_label, figures, tables, estimators,
                         source, identity)  # (only once asked: it serialises the figures)
        job = compute.RUNNER.submit(sig, build(ctx, method_values, rule=rule, rule_param=rule_param,
                                               at_least_one_label=at_least_one_label, figures=figures,
                                               notes=notes, extra=extra, title=title, tables=tables,
                                               estimators=estimators, source=source),
                                    owner=progress.owner(f"{key}|pack"))
        try:
            data, _ = progress.result(job, settings={"report pack": source.key if source is not None else ctx.name},
                                      slot=f"{key}|pack",
                                      label="Building the report pack")
        except Exception as exc:  # noqa: BLE001 - shown to the user, never a crash of the page
            from mlviz._text import escape_markdown

            st.error(f"The report pack could not be built: {escape_markdown(str(exc), 300)}")
            st.session_state.pop(f"{key}|wanted", None)
            return None
        if data is None or not job.done():  # (not the previous pack of other settings)
            return None
        name = source.dataset.name if source is not None else ctx.name
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:60]
        st.download_button("Download report pack (zip)", data=data, file_name=f"mlviz_{safe}_report.zip",
                           mime="application/zip", key=f"{key}_dl", on_click="ignore",
                           icon=":material/download:")
        st.caption(f"{len(data) / 1024:.0f} kB. Static PNG/SVG copies are not included (report.html holds every "
                   "figure, interactive); run `python reproduce.py` next to config.json to refit.")
        return data
