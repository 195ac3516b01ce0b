"""Compare: cross-validate several methods, chart measures and timings; solver scaling."""


import scipy.sparse as sp
import streamlit as st

from mlviz.dashboard import compute, explain, methods, progress, state, widgets

ctx = state.init_page("Compare", ":material/bar_chart:")
st.title(":material/bar_chart: Compare — cross-validation and timing")
explain.explain("compare")

st.subheader("Cross-validation")
c1, c2, c3 = st.columns([3, 1, 1.4])
chosen = c1.multiselect(
    "Methods", methods.POSTERIOR_METHODS, default=["mllspc", "br", "mlknn"], key="cmp_methods",
    format_func=lambda k: methods.METHODS[k].label, bind="query-params",
)
folds = c2.select_slider("Folds", [2, 3, 4, 5, 10], value=3, key="cmp_folds", bind="query-params")
rule = c3.radio("Label decision", ["threshold 0.5", "each method's own rule"], key="cmp_rule", bind="query-params",
                help="Own rule: MLRH winner-take-all, MLLEM rank cut, … (the estimator's predict).")
st.caption(
    f"Runs on all {ctx.dataset.n_samples} instances of **{ctx.name}** with iteratively stratified folds; "
    "dense features are standardised inside each fold. Hyperparameters: those set on the Posteriors page in this "
    "session (defaults otherwise)."
)


def settings_of(keys) -> dict:
    """Each method's slider values as set on the Posteriors page in this session (defaults otherwise)."""
    return {k: methods.METHODS[k].complete({p.name: st.session_state.get(f"post_{k}_{p.name}", p.default)
                                            for p in methods.METHODS[k].params}) for k in keys}


def cross_validation(request):
    """``fn(token)`` of the cross-validation job for ``request`` (methods, their settings, folds, rule)."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from mlviz.evaluation import cross_validate

    sparse = sp.issparse(ctx.dataset.X)  # bag-of-words features are used as they are (see state.py)

    def fn(token):
        ests = {}
        for k, values in request["settings"].items():
            m = methods.METHODS[k]
            est = compute.estimator(ctx, m, values, token)
            ests[m.label] = est if sparse else make_pipeline(StandardScaler(), est)
        return cross_validate(ests, ctx.dataset.X, ctx.dataset.Y, cv=int(request["folds"]), random_state=0,
                              threshold="predict" if request["rule"] != "threshold 0.5" else 0.5,
                              progress=lambda d, t: token.report(stage="method × fold fits", done=d, total=t))
    return fn


request = {"settings": settings_of(sorted(chosen)), "folds": int(folds), "rule": rule}
if st.button(":material/play_arrow: Run cross-validation", type="primary", key="cmp_run", disabled=not chosen):
    st.session_state["cmp_request"] = request
asked = st.session_state.get("cmp_request")
res = None
if asked is not None:
    job = compute.task(ctx.key, "cross-validation", asked, cross_validation(asked), owner=progress.owner("compare"))
    try:
        res, _ = progress.result(job, settings=asked, slot="compare", label="Cross-validating")
    except Exception as exc:
        st.error(f"Cross-validation failed: {exc}")


def _measure_label(name):
    from mlviz.metrics import get_measure

    try:
        m = get_measure(name)
        return f"{m.label} {'↑' if m.greater_is_better else '↓'}"
    except Exception:
        return str(name)


if res is None and asked is None:
    st.info("Pick methods and folds, then press **Run cross-validation** (a few seconds to a minute).")
elif res is not None:
    if asked != request:
        st.caption(":material/warning: Results below are from a previous run with other settings; press Run to update.")
    from mlviz import plotting
    from mlviz.evaluation import summarize

    summary = summarize(res)
    if len(summary.errors):
        st.warning(
            f"{len(summary.errors)} method × fold fits failed and are excluded: "
            + "; ".join(f"{r.method} fold {r.fold}: {str(r.measure)[:120]}" for r in summary.errors.itertuples())
        )
    shown = st.multiselect("Measures to chart", list(summary.mean.columns),
                           default=[m for m in ["micro_f1", "macro_f1", "hamming_loss", "macro_auc", "ranking_loss",
                                                "p@1"] if m in summary.mean.columns], key="cmp_measures",
                           format_func=_measure_label)
    fig = plotting.measure_bars(res, measures=shown or None, title="Mean ± std over folds")
    widgets.show_figure(fig, f"{ctx.name}_cv_measures", key="fig_cv_measures")
    fig = plotting.timing_bars(res, title="Fit and predict time per fold (log scale)")
    widgets.show_figure(fig, f"{ctx.name}_cv_timing", key="fig_cv_timing")
    st.markdown("**Summary (mean ± std over folds)**")
    st.dataframe(summary.table, width="stretch")
    c1, c2 = st.columns(2)
    with c1:
        widgets.download_table(summary.table, f"{ctx.name}_cv_summary", key="dl_cv_summary", label="summary CSV")
    with c2:
        widgets.download_table(res, f"{ctx.name}_cv_results", key="dl_cv_results", label="per-fold results CSV")

st.divider()
st.subheader("Why ML-LSPC is fast: solver scaling and LSPC vs kernel logistic regression")


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
    timing_panel("scaling", "Paper 000, Fig. 1(b): fit time of the naive Kronecker solve, CG and eigendecomposition "
                 "against the number of labels.", "Run solver scaling", "Timing the Sylvester solvers…",
                 "solver_scaling_figure", "solver_scaling", quick)
with c2:
    timing_panel("klr", "Paper 004: how many times faster LSPC trains than kernel logistic regression.",
                 "Run LSPC vs KLR", "Timing LSPC and kernel logistic regression…",
                 "time_ratio_figure", "lspc_vs_klr", quick)
