"""The report-pack widget: one button that builds :func:`mlviz.report.build_report_pack` for the current view.

Usable from any page::

    from mlviz.dashboard import report_pack
    report_pack.section(ctx, {"br": values}, rule="threshold", rule_param=0.5,
                        figures={"Rule curves": fig}, key="dr_pack")

The pack is built on the compute layer's runner (the page keeps answering):
the models are refitted from their constructor parameters on the page's
train/test rows exactly as the pack's ``reproduce.py`` will refit them
(:func:`mlviz.report.fit_and_measure`), so ``measures.csv`` and the script's
output agree.  A method with a regularisation path (the sparse CDN's γ as a
fraction of γ_max) is stored with its absolute γ, read from the path.
"""

from __future__ import annotations

import io

import numpy as np
import streamlit as st

from . import compute, progress
from .context import SPLIT_SEED, split_rows
from .methods import METHODS
from .methods import key as cache_key


def split_indices(ctx):
    """``(train_rows, test_rows, sample, description)`` of ``ctx`` within ``ctx.dataset``.

    The one split of mlviz (:func:`mlviz.dashboard.context.split_rows`), bundled and
    uploaded data alike; scene's official split (its pooled file holds train, then test).
    ``sample`` = the bundled sample's name, or None for an upload (the pack then carries
    the data as ``data.npz``).

    Raises
    ------
    ValueError
        If the rows found do not give the context's label matrices (the pack
        could not reproduce the page's split).
    """
    n = ctx.dataset.n_samples
    n_train = int(ctx.Y_train.shape[0])
    from mlviz.data import list_samples

    sample = ctx.key if (ctx.data_key or ctx.key) in list_samples() else None
    if sample == "scene":
        tr, te = np.arange(n_train), np.arange(n_train, n)
        text = "official scene-train / scene-test split (the pooled file holds train, then test)"
    else:
        tr, te = split_rows(n)
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
          figures=None, notes=(), extra=None, title=None):
    """``fn(token) -> bytes``: the report pack zip of ``method_values`` (``{method key: slider values}``)."""
    from mlviz.report import build_report_pack, fit_and_measure

    def fn(token):
        ests = {}
        for mkey, values in method_values.items():
            m = METHODS[mkey]
            token.report(stage=f"preparing {m.label}")
            ests[m.label] = compute.estimator(ctx, m, values, token)
        settings = pack_settings(ctx, ests, rule=rule, rule_param=rule_param,
                                 at_least_one_label=at_least_one_label,
                                 extra=dict(extra or {}, data=ctx.key,
                                            sliders={k: METHODS[k].complete(v) for k, v in method_values.items()}))
        pack_notes = list(notes)
        if any(METHODS[k].path is not None for k in method_values):
            pack_notes.append("A method with a regularisation path (sparse CDN) is refitted here cold at the "
                              "absolute γ of the page's γ / γ_max; the page's fit was warm-started along the path, "
                              "so its numbers can differ slightly from these (which reproduce.py matches).")
        token.report(stage="refitting every model as reproduce.py will")
        results = fit_and_measure(ctx.dataset, settings)
        token.report(stage="writing the zip")
        buf = io.BytesIO()
        build_report_pack(buf, ctx.dataset, settings, results, figures,
                          title=title or f"mlviz report: {ctx.name}", notes=pack_notes, images="never")
        return buf.getvalue()
    return fn


def _signature(ctx, method_values, rule, rule_param, at_least_one_label, figures):
    param = np.asarray(rule_param).round(12).tolist() if rule_param is not None else None
    parts = {"methods": {k: METHODS[k].complete(v) for k, v in method_values.items()}, "rule": rule,
             "param": param, "alo": bool(at_least_one_label), "figures": sorted(figures or {}),
             "drawn": sorted(id(f) for f in (figures or {}).values())}  # (a figure redrawn: a new pack)
    return cache_key(ctx.key, "report-pack", parts)


def section(ctx, method_values: dict, *, rule="threshold", rule_param=0.5, at_least_one_label=False,
            figures=None, notes=(), extra=None, key="report_pack", container=None):
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

    Returns
    -------
    bytes or None
        The zip once built (also offered as a download), else None.
    """
    where = container if container is not None else st
    with where.container(border=True):
        st.markdown("**:material/folder_zip: Report pack**")
        st.caption("One zip that keeps this analysis working outside the app: an interactive report.html "
                   "(works offline), the measures, posteriors and edges as CSV, config.json (data hash, split, "
                   "seed, every setting) and reproduce.py, which refits the same models with mlviz and prints "
                   "the same measures.")
        sig = _signature(ctx, method_values, rule, rule_param, at_least_one_label, figures)
        wanted = st.session_state.get(f"{key}|wanted") == sig
        if not wanted:
            if st.button("Prepare report pack", key=f"{key}_go", icon=":material/build:",
                         help="Refits the models (seconds to minutes on big data sets) and writes the zip."):
                st.session_state[f"{key}|wanted"] = sig
                wanted = True
        if not wanted:
            return None
        job = compute.RUNNER.submit(sig, build(ctx, method_values, rule=rule, rule_param=rule_param,
                                               at_least_one_label=at_least_one_label, figures=figures,
                                               notes=notes, extra=extra),
                                    owner=progress.owner(f"{key}|pack"))
        try:
            data, _ = progress.result(job, settings={"report pack": ctx.name}, slot=f"{key}|pack",
                                      label="Building the report pack")
        except Exception as exc:  # noqa: BLE001 - shown to the user, never a crash of the page
            from mlviz._text import escape_markdown

            st.error(f"The report pack could not be built: {escape_markdown(str(exc), 300)}")
            st.session_state.pop(f"{key}|wanted", None)
            return None
        if data is None or not job.done():  # (not the previous pack of other settings)
            return None
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in ctx.name)[:60]
        st.download_button("Download report pack (zip)", data=data, file_name=f"mlviz_{safe}_report.zip",
                           mime="application/zip", key=f"{key}_dl", on_click="ignore",
                           icon=":material/download:")
        st.caption(f"{len(data) / 1024:.0f} kB. Static PNG/SVG copies are not included (report.html holds every "
                   "figure, interactive); run `python reproduce.py` next to config.json to refit.")
        return data
