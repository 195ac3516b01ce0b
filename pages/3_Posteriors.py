"""Posteriors: P(y_l = 1 | x) of test instances per model, thresholds and live measures."""

import pandas as pd
import streamlit as st

from mlviz.dashboard import cache, compute, explain, methods, progress, state, widgets

ctx = state.init_page("Posteriors", ":material/grid_on:")
st.title(":material/grid_on: Posteriors — per-label probabilities on the test set")
st.caption(f"Models are fitted on the {ctx.Y_train.shape[0]} training instances of **{ctx.name}** and "
           f"evaluated on its {ctx.Y_test.shape[0]} test instances.")
explain.explain("posteriors")

HEADLINE = ["micro_f1", "macro_f1", "example_f1", "hamming_loss", "subset_accuracy", "macro_auc"]

chosen = st.multiselect(
    "Models", methods.POSTERIOR_METHODS, default=["mllspc"], key="post_models",
    format_func=lambda k: methods.METHODS[k].label, bind="query-params",
    help="Each model gets its own panel with its hyperparameter sliders; a slider move refits only that panel.",
)
with st.container(border=True):
    threshold, thr_text = widgets.threshold_control(ctx.label_names, key="thr")
reliability_on = st.toggle("Show reliability (calibration) plots", value=True, key="post_rel", bind="query-params")


def measures_table(P, threshold):
    from mlviz.metrics import MEASURES, evaluate

    vals = evaluate(ctx.Y_test, P, threshold=threshold)
    rows = [(MEASURES[k].label if k in MEASURES else k, "↑" if (k not in MEASURES or MEASURES[k].greater_is_better) else "↓",
             float(v)) for k, v in vals.items()]
    return vals, pd.DataFrame(rows, columns=["measure", "better", "value"])


def posterior_figures(m, fkey, P):
    """The heat map (and reliability plot) of posteriors ``P`` of method ``m`` (kept under ``fkey``)."""
    from mlviz import plotting

    heat = cache.figure("heat|" + fkey, lambda: plotting.posterior_heatmap(
        P, ctx.Y_test, ctx.label_names, title=f"{m.label}: P(y=1|x) beside the truth (rows grouped by true label set)"))
    rel = cache.figure("rel|" + fkey, lambda: plotting.reliability_figure(
        ctx.Y_test, P, ctx.label_names, title=f"{m.label}: reliability")) if reliability_on else None
    return heat, rel


def prepare(m):
    """``submit(values, owner, priority)``: posteriors and figures at ``values`` ahead of time."""
    def submit(values, owner, priority):
        def fn(token):
            P, _ = compute.need_posteriors(ctx, m, values, token)
            token.check()
            posterior_figures(m, compute.model_key(ctx, m, values, "figures"), P)
            return True
        return compute.task(ctx.key, f"post-figures|{m.key}|{reliability_on}", m.complete(values), fn,
                            owner=owner, priority=priority)
    return submit


@st.fragment
@progress.foreground  # this session's prefetch work waits for this rerun
def model_panel(key, threshold, thr_text, reliability_on):
    from mlviz.metrics import MEASURES, evaluate

    m = methods.METHODS[key]
    st.subheader(m.label)
    st.caption(m.description)
    keys = {p.name: f"post_{key}_{p.name}" for p in m.params}
    if m.params:
        cols = st.columns(len(m.params))
        values = {p.name: widgets.param_slider(p, keys[p.name], cols[i]) for i, p in enumerate(m.params)}
    else:
        values = {}
        st.caption("No hyperparameters to tune.")
    slot = f"posteriors|{key}"
    job = compute.posteriors(ctx, m, values, owner=progress.owner(slot))
    try:
        result, shown = progress.result(job, settings=values, slot=slot, label=f"Fitting {m.label}", widgets=keys)
    except Exception as exc:
        st.error(f"{m.label} could not be fitted with these settings: {exc}. "
                 "Try stronger regularisation or another data set.")
        return
    if result is None:
        return
    P, info = result
    vals = evaluate(ctx.Y_test, P, threshold=threshold, measures=HEADLINE)
    mcols = st.columns(len(HEADLINE))
    for col, k in zip(mcols, HEADLINE):
        meas = MEASURES[k]
        col.metric(f"{meas.label} {'↑' if meas.greater_is_better else '↓'}", f"{vals[k]:.3f}",
                   help=f"At threshold {thr_text}." if meas.needs == "labels" else "Uses the scores (threshold-free).")
    timing = f"full fit {info['fit_seconds']:.2f} s (cached)"
    if info.get("warm_start"):
        timing = f"fit {info['fit_seconds']:.2f} s, warm-started along the regularisation path (cached)"
    elif info.get("reused"):
        timing += f" · this slider setting: refit in {1000 * info['refit_seconds']:.0f} ms reusing the cached factorisation"
    st.caption(f":material/timer: {timing}. Threshold: {thr_text}.")
    for note in info.get("warnings", [])[:2]:
        st.caption(f":material/warning: {note[:300]}")
    heat, rel = posterior_figures(m, compute.model_key(ctx, m, shown, "figures"), P)
    left, right = st.columns([3, 2]) if reliability_on else (st.container(), None)
    with left:
        widgets.show_figure(heat, f"{ctx.name}_{key}_posteriors", key=f"fig_post_{key}")
    if right is not None:
        with right:
            widgets.show_figure(rel, f"{ctx.name}_{key}_reliability", key=f"fig_rel_{key}")
    if shown == values:  # ahead of the next move: neighbouring slider values (and the other γ of a path)
        compute.prefetch(m, values, progress.owner(slot), prepare(m), points=True)
    with st.expander("All measures, and the posterior matrix as CSV"):
        _, table = measures_table(P, threshold)
        st.dataframe(table, width="stretch", hide_index=True)
        c1, c2 = st.columns(2)
        with c1:
            widgets.download_table(table, f"{ctx.name}_{key}_measures", key=f"dl_meas_{key}", label="measures CSV")
        with c2:
            frame = pd.DataFrame(P, columns=[f"P({n})" for n in ctx.label_names])
            widgets.download_table(frame, f"{ctx.name}_{key}_posteriors", key=f"dl_P_{key}", label="posteriors CSV")


if not chosen:
    st.info("Pick at least one model above.")
for key in chosen:
    with st.container(border=True):
        model_panel(key, threshold, thr_text, reliability_on)
