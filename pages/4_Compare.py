"""Compare: cross-validate several methods (each with its own decision rule and the chosen scaling) -- or, on a
bundled set with standard Mulan files, fit on the standard training file and score on its test file beside the
published numbers -- chart measures and timings; solver scaling."""

import re

import numpy as np
import pandas as pd
import streamlit as st

from mlviz._text import escape_markdown
from mlviz.dashboard import compute, explain, methods, present, progress, state, tour, widgets
from mlviz.dashboard.context import standard_split_of

PROTOCOL_CODES = {label: code for code, label in compute.COMPARE_PROTOCOLS.items()}  # (the labels are also the
# ``cmp_protocol`` address values)
#: what the run button, its progress, the titles and the CSV names say under each protocol
TEXT = {"cv": dict(run="Run cross-validation", running="Cross-validating", bars="Mean ± std over folds",
                   timing="Fit and predict time per fold: median and quartiles (log scale)",
                   summary="Summary (mean ± std over folds)", tag="cv"),
        "standard": dict(run="Run on the standard split",
                         running="Fitting on the training file, scoring on the test file",
                         bars="On the standard test file",
                         timing="Fit and predict time on the standard split (log scale)",
                         summary="Summary (the standard test file)", tag="split")}

ctx = state.page_context(__file__)
st.title(":material/bar_chart: Compare — cross-validation and timing")
explain.explain("compare")

LONG_RUN = 60.0  # seconds: above this estimate the page says so before the run

st.subheader("Compare the methods")
c1, c2, c4 = st.columns([3, 1, 1.2])
chosen = c1.multiselect(
    "Methods", methods.POSTERIOR_METHODS, default=["mllspc", "br", "mlknn"], key="cmp_methods",
    format_func=lambda k: methods.METHODS[k].label, bind="query-params",
)
# The field's protocol where this copy holds it: fit on the standard Mulan training file, score on its test file
protocol = "cv"
if standard_split_of(ctx):
    protocol = PROTOCOL_CODES[st.radio(
        "Protocol", list(PROTOCOL_CODES), key="cmp_protocol", bind="query-params", horizontal=True,
        help="k-fold cross-validation on all instances, or the standard train/test split the published "
             "comparisons use (Bogatinovski et al. 2022): one fit on the standard training file, scored once on "
             "its test file (the folds slider is then unused).")]
standard = protocol == "standard"
folds = c2.select_slider("Folds", [2, 3, 4, 5, 10], value=3, key="cmp_folds", bind="query-params",
                         disabled=standard, help="Unused by the standard train/test split." if standard else None)


# One source of truth: the sidebar's scaling (as resolved for this data set, e.g. auto -> standard).
scaling = ctx.scaling
chosen_scaling = state.scaling_choice()
tune = c4.checkbox("Tune (nested CV)", value=False, key="cmp_tune", bind="query-params",
                   help="Inside each training fold (the training file, under the standard split), choose each "
                        "method's key hyperparameters by an inner 3-fold "
                        "search (micro-F1 of its own predict; grids in the method registry, mlviz.models.registry), "
                        "then refit "
                        "the best. Costs about (candidates × 3 + 1) fits per fold; the cost is shown.")
if standard:  # (the dashboard's split of these bundled sets is that standard one: mlviz.dashboard.context)
    where = (f"Fits once on the standard training file of **{escape_markdown(ctx.name)}** ({ctx.Y_train.shape[0]} "
             f"instances) and scores on its test file ({ctx.Y_test.shape[0]}), the protocol of the published "
             "comparisons (Bogatinovski et al. 2022; their numbers are shown beside ours under the results)")
else:
    where = (f"Runs on all {ctx.dataset.n_samples} instances of **{escape_markdown(ctx.name)}** with iteratively "
             "stratified folds (seed 0)")
st.caption(
    f"{where}. Features: **{escape_markdown(scaling)}**"
    + (f" (the sidebar's *{escape_markdown(chosen_scaling)}* for these features)" if chosen_scaling != scaling
       else " (chosen in the sidebar)")
    + (", fitted on the training file" if standard else ", fitted on each training fold")
    + ". Label measures use **each method's own decision rule** (its predict; "
    "listed with the results); ranking measures use its probabilities. Hyperparameters: those set on the "
    "Posteriors page (in this session or in the link), else the dashboard defaults, which come from a "
    "documented sweep over the "
    "five bundled data sets (docs/reproductions.md, section “defaults-sweep”; the sparse CDN's: "
    "benchmarks/RESULTS.md, “sparse-CDN slider defaults”); tick *Tune* for a comparison "
    "where every method gets the same inner model selection. Two reference rows need no features: "
    "**ranking labels by their training-fold frequency** (its P@1) and **predicting nothing** (its Hamming loss "
    "and subset accuracy); a method below them gets a note under the table."
)


def _posteriors_value(key: str, p):
    """A Posteriors slider's value: as set in this session, else as the link says (the URL holds the value as
    the slider writes it, widgets.fmt_value), else its default."""
    if key in st.session_state:
        return st.session_state[key]
    raw = st.query_params.get(key)
    return next((v for v in p.grid if raw in (widgets.fmt_value(v), str(v))), p.default)


def settings_of(keys) -> dict:
    """Each method's slider values as set on the Posteriors page (this session or the link; defaults otherwise)."""
    return {k: methods.METHODS[k].complete({p.name: _posteriors_value(f"post_{k}_{p.name}", p)
                                            for p in methods.METHODS[k].sliders}) for k in keys}


def estimate(request) -> pd.DataFrame:
    """Expected seconds per method: the fit time measured on the page's training split (if fitted in this
    server) × folds × (fold size / split size), × the inner search's fits with *Tune*."""
    from mlviz.evaluation import tuning_grid

    n_fold = ctx.dataset.n_samples * (request["folds"] - 1) / request["folds"]
    ratio = 1.0 if standard else n_fold / max(1, ctx.Y_train.shape[0])  # (standard: the page's split is the fold)
    rows = []
    for k, values in request["settings"].items():
        m = methods.METHODS[k]
        seconds = compute.known_fit_seconds(ctx, m, values)
        fits = 1
        if request["tune"]:
            try:
                grid = tuning_grid(m.from_sliders(values, compute.scale(ctx))) or {}
            except Exception:  # noqa: BLE001 - an estimate only
                grid = {}
            fits += int(np.prod([len(v) for v in grid.values()])) * 3 if grid else 0
        total = None if seconds is None else seconds * ratio * fits * request["folds"]
        rows.append({"method": m.label, "fit s (page split)": seconds, "fits per fold": fits, "expected s": total})
    return pd.DataFrame(rows)


request = {"settings": settings_of(sorted(chosen)), "folds": 1 if standard else int(folds), "scaling": scaling,
           "tune": bool(tune), "protocol": protocol}
if chosen:
    est = estimate(request)
    known = est["expected s"].dropna()
    unknown = est.loc[est["expected s"].isna(), "method"].tolist()
    text = (f"Expected time: about {known.sum():.2g} s for {', '.join(est.loc[known.index, 'method'])} "
            "(fit time measured on this data set × folds × fold size)") if len(known) else ""
    if unknown:
        text += ("; " if text else "") + (f"no estimate yet for {', '.join(unknown)} (not fitted on this data set "
                                          "in this server: open them on Posteriors first, or just run)")
    long_ones = est[est["expected s"] > LONG_RUN]
    if len(long_ones):
        st.warning(":material/schedule: This run will take long: "
                   + ", ".join(f"{name} ≈ {sec:.0f} s"
                               for name, sec in zip(long_ones["method"], long_ones["expected s"]))
                   + ". It runs in the background (folds appear as they finish) and can be cancelled.")
    st.caption(f":material/schedule: {text}." if text else "")
b1, b2 = st.columns([2.2, 2.8])  # (room for the longer label at a 1024-pixel projector width)
if b1.button(f":material/play_arrow: {TEXT[protocol]['run']}", type="primary", key="cmp_run", disabled=not chosen):
    st.session_state["cmp_request"] = request
asked = st.session_state.get("cmp_request")
if asked is not None and set(asked) != set(request):  # (a request of an older version of this page)
    asked = None
res = job = None
if asked is not None:
    job = compute.task(ctx.key, "cross-validation", asked, compute.cross_validation_fn(ctx, asked),
                       owner=progress.owner("compare"))
    try:
        res, _ = progress.result(job, settings={"methods": ", ".join(methods.METHODS[k].label
                                                                     for k in asked["settings"]),
                                                "folds": asked["folds"], "scaling": asked["scaling"],
                                                "tune": asked["tune"]},
                                 slot="compare", label=TEXT[asked["protocol"]]["running"])
    except Exception as exc:  # noqa: BLE001 - shown, never a traceback
        st.error(f"The comparison failed: {escape_markdown(str(exc), 300)}")
    if not job.done():
        if b2.button("Cancel", key="cmp_cancel", icon=":material/close:"):
            compute.RUNNER.cancel(progress.owner("compare"))
            st.session_state.pop("cmp_request", None)
            st.rerun()


@st.cache_data(max_entries=16, show_spinner=False)
def _references(data_key: str, n_folds: int, protocol: str) -> pd.DataFrame:
    """The trivial references on the Compare folds (the same splits as the cross-validation job)."""
    from mlviz.evaluation import reference_results

    _, Y, splits, _ = compute.comparison_data(ctx, {"folds": n_folds, "protocol": protocol})
    return reference_results(np.asarray(Y), splits)


def with_references(res, request):
    """``res`` and, for the folds and measures it has, the rows of the trivial references."""
    refs = _references(ctx.key, int(request["folds"]), request["protocol"])
    refs = refs[refs["fold"].isin(res["fold"].unique()) & refs["measure"].isin(res["measure"].unique())]
    return pd.concat([res, refs], ignore_index=True) if len(refs) else res


def show_bar_notes(res):
    """A warning under the table for every method below a trivial bar (which bar, and why that can happen)."""
    from mlviz.evaluation import bar_notes

    for method, sentences in bar_notes(res).items():
        st.warning(f":material/info: **{escape_markdown(method)}**: " + escape_markdown(" ".join(sentences)))


def show_errors(res):
    """Methods refused before they started (too large) and failed method × fold fits, as warnings."""
    from mlviz.evaluation import error_rows

    errors = error_rows(res)
    too_large = errors[errors["measure"].str.contains("TooLargeError")]
    for r in too_large.drop_duplicates("method").itertuples():
        st.warning(f":material/memory: **{escape_markdown(r.method)}** was not run: "
                   f"{escape_markdown(str(r.measure).split(':', 2)[-1].strip(), 600)}")
    other = errors[~errors.index.isin(too_large.index)]
    if len(other):
        st.warning(f"{len(other)} method × fold fits failed and are excluded: "
                   + "; ".join(f"{escape_markdown(r.method)} fold {r.fold}: {escape_markdown(str(r.measure), 120)}"
                               for r in other.itertuples()))


def show_downloads(res, summary, timing, tag):
    """The result CSVs, named ``<data set>_<tag>_*.csv`` (``tag``: the protocol's, :data:`TEXT`)."""
    from mlviz.plotting.tables import to_csv_bytes

    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", ctx.key)  # data set (+ "_scaling_<name>" when not its default)
    d1, d2, d3 = st.columns(3)
    d1.download_button("summary CSV", data=to_csv_bytes(summary), file_name=f"{stem}_{tag}_summary.csv",
                       mime="text/csv", key="dl_cv_summary", on_click="ignore", icon=":material/download:",
                       help="method, measure (code), measure_name, higher_is_better, mean, std, n_folds: numbers.")
    d2.download_button("timing CSV", data=to_csv_bytes(timing), file_name=f"{stem}_{tag}_timing.csv",
                       mime="text/csv", key="dl_cv_timing", on_click="ignore", icon=":material/download:")
    d3.download_button("per-fold results CSV", data=to_csv_bytes(res),
                       file_name=f"{stem}_{tag}_results.csv", mime="text/csv",
                       key="dl_cv_results", on_click="ignore", icon=":material/download:")


def show_published(summary):
    """The study's numbers beside ours for the chosen methods it reports like for like (standard split only);
    returns ``{title: table}`` for the report pack (empty when none of the methods is in the study)."""
    from mlviz.plotting.tables import for_display
    from mlviz.reproductions import standard_splits

    keys = {methods.METHODS[k].label: k for k in asked["settings"]}
    table = standard_splits.beside_published(summary, ctx.data_key, keys)
    title = "Beside the published numbers (Bogatinovski et al. 2022)"
    if table.empty:
        st.caption("None of these methods is reported on this split by Bogatinovski et al. 2022 like for like "
                   f"({', '.join(sorted(set(standard_splits.LIKE_FOR_LIKE.values())))}); the Reference check page "
                   "shows the study's best beside mlviz's.")
        return {}
    st.markdown(f"**{title}**")
    shown = for_display(table, digits=standard_splits.OURS_DIGITS)
    st.dataframe(shown, width="stretch", hide_index=True,
                 column_config={c: st.column_config.NumberColumn(format=f"%.{standard_splits.column_digits(c)}f")
                                for c in shown.columns if pd.api.types.is_float_dtype(shown[c])})
    st.caption(f"Published: {escape_markdown(standard_splits.CITATION)}, the same training and test files; their "
               "base learners and parameter selection differ from mlviz's defaults (docs/reproductions.md, "
               "standard-splits, says how).")
    return {title: table}


def show_results(res, done=True):
    """Measures (with the trivial reference rows and the notes of methods below them), decision rules and
    scalings, timings and CSVs of a (partial) result table; returns the tables shown (for the report pack),
    or None when there is nothing to show."""
    from mlviz import plotting
    from mlviz.evaluation import is_reference
    from mlviz.plotting.tables import for_display, measure_label, rules_table, summary_table, timing_table, wide_summary

    methods_res = res
    one_split = asked["protocol"] == "standard"
    res = with_references(res, asked)
    show_errors(res)
    summary = summary_table(res)
    if summary.empty:
        return None
    codes = list(dict.fromkeys(summary["measure"]))
    shown = st.multiselect("Measures to chart", codes, key="cmp_measures", format_func=measure_label,
                           default=[m for m in ["micro_f1", "macro_f1", "hamming_loss", "macro_auc", "ranking_loss",
                                                "p@1"] if m in codes])
    present.takeaway(lambda: tour.comparison_text(tour.comparison_summary(summary, int(res["fold"].nunique()),
                                                                          one_split)))
    text = TEXT[asked["protocol"]]
    fig = plotting.measure_bars(res, measures=shown or None, title=text["bars"])
    widgets.show_figure(fig, f"{ctx.name}_cv_measures", key="fig_cv_measures")
    fig = plotting.timing_bars(methods_res, title=text["timing"])
    widgets.show_figure(fig, f"{ctx.name}_cv_timing", key="fig_cv_timing")
    title = text["summary"]
    st.markdown(f"**{title}**")
    wide = wide_summary(summary)
    st.dataframe(wide, width="stretch")
    show_bar_notes(res)
    tables = {title: wide}
    if one_split:
        tables.update(show_published(summary))
    st.markdown("**Which rule and which scaling produced these numbers**")
    rules = rules_table(res)
    st.dataframe(for_display(rules, digits=2), width="stretch", hide_index=True)  # ("—" if not tuned)
    timing = timing_table(methods_res[~methods_res["method"].map(is_reference)])
    st.caption("Fit and predict seconds are in the timing CSV." if one_split else
               "Fit and predict seconds per fold (median, quartiles) are in the timing CSV; "
               + (f"{int(res['fold'].nunique())} of {int(asked['folds'])} folds done so far." if not done else
                  "all folds done."))
    show_downloads(res, summary, timing, text["tag"])
    return {**tables, "Decision rule and scaling per method": rules,
            "Timing per method (fit and predict seconds per fold)": timing, "Per-fold results": res}


shown_tables = None
if res is None and asked is None:
    st.info(f"Pick methods{'' if standard else ' and folds'}, then press **{TEXT[protocol]['run']}**: seconds on the "
            "bundled sets, minutes on thousands of instances × hundreds of labels (the expected time above counts the "
            "methods already fitted on this data set; folds appear as they finish, and the run can be cancelled).")
elif res is not None:
    if asked != request:
        st.caption(":material/warning: Results below are from a previous run with other settings; press Run to update.")
    shown_tables = show_results(res)
elif job is not None and not job.done():
    def draw_partial(j):
        if j.partial is not None and len(j.partial):
            st.caption(":material/hourglass_top: Folds finished so far (the rest follow):")
            show_results(j.partial, done=False)

    progress.follow(job, draw_partial)

st.divider()
st.subheader("Solver timing: ML-LSPC's Sylvester solvers, and LSPC beside kernel logistic regression")


@st.cache_data(max_entries=4, show_spinner=False)
def _timing(kind: str, quick: bool):
    from mlviz.reproductions import timing

    run = timing.solver_scaling if kind == "scaling" else timing.lspc_vs_klr_timing
    return run(quick=quick)


def timing_panel(kind, caption, button, spinner, figure, name, quick):
    """One timing experiment: a run button, then its figure and table (kept across reruns)."""
    from mlviz import plotting

    st.caption(caption)
    done_key = f"cmp_{kind}_done"
    if st.button(f":material/play_arrow: {button}", key=f"cmp_{kind}") or st.session_state.get(done_key) == quick:
        with st.spinner(spinner):
            try:
                df = _timing(kind, quick)
            except Exception as exc:
                st.error(f"The timing run failed: {exc}")
                return
        st.session_state[done_key] = quick
        widgets.show_figure(getattr(plotting, figure)(df), name, key=f"fig_{kind}")
        widgets.download_table(df, name, key=f"dl_{kind}")


quick = st.toggle("Quick version (smaller sizes)", value=True, key="cmp_quick", bind="query-params")
c1, c2 = st.columns(2)
with c1:
    timing_panel("scaling", "Nam et al., Fig. 1(b): fit time of the naive Kronecker solve, CG and eigendecomposition "
                 "against the number of labels.", "Run solver scaling", "Timing the Sylvester solvers…",
                 "solver_scaling_figure", "solver_scaling", quick)
with c2:
    timing_panel("klr", "Simm et al. (LSPC 2–100× faster than kernel logistic regression by L-BFGS), timed against "
                 "mlviz's Newton–CG kernel LR: above 1 LSPC trains faster, below 1 KLR does.",
                 "Run LSPC vs KLR", "Timing LSPC and kernel logistic regression…",
                 "time_ratio_figure", "lspc_vs_klr", quick)


# ------------------------------------------------------------------ report pack (every page's figures and tables)
def report_section(tables):
    from mlviz.dashboard import report_pack

    st.divider()
    report_pack.section(
        ctx, asked["settings"], key="cmp_pack", tables=tables,
        figures=widgets.figures_drawn(["fig_cv_measures", "fig_cv_timing", "fig_scaling", "fig_klr"]),
        identity={"request": asked, "rows": len(tables["Per-fold results"])},
        extra={"page": "compare", "folds": asked["folds"], "tune": asked["tune"], "protocol": asked["protocol"]},
        notes=[("The figures and tables are the page's run on the standard training and test files (one fit, "
                "scored once on the test file" if asked["protocol"] == "standard" else
                f"The figures and tables are the page's {asked['folds']}-fold cross-validation (iteratively "
                "stratified folds, seed 0")
               + ", each method's own decision rule"
               + (", hyperparameters tuned by nested CV" if asked["tune"] else "") + "). measures.csv and "
               "reproduce.py refit the same methods at the same settings once on the dashboard's train/test split "
               "and apply threshold 0.5, so their numbers are a single split's, not the folds' means."])


if shown_tables is not None:
    report_section(shown_tables)
