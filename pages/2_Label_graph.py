"""Label graph: the sparse conditional dependency network's label → label edges."""

import numpy as np
import pandas as pd
import streamlit as st

from mlviz.dashboard import cache, compute, explain, jobs, methods, progress, state, widgets
from mlviz.models.cdn import VARIANTS

ctx = state.init_page("Label graph", ":material/hub:")
st.title(":material/hub: Label graph — which labels depend on which (sparse CDN)")
st.caption("Guo & Xue's sparse conditional dependency network: every label is predicted from the features and the other labels.")
explain.explain("graph")

CDN = methods.METHODS["cdn"]
WIDGETS = {"gamma": "cdn_gamma", "mu": "cdn_mu", "lam": "cdn_lam", "variant": "cdn_variant"}
summary = cache.dataset_summary(ctx)
names = tuple(ctx.label_names)
pos = cache.label_layout(ctx)


def fig_key(values, what):
    return methods.key(ctx.key, CDN.key, CDN.complete(values), what)


def graph_fig(values, step):
    from mlviz import plotting

    return cache.figure(fig_key(values, "graph"), lambda: plotting.label_graph_figure(
        step["graph"], pos, label_names=names,
        title=f"Sparse CDN label graph ({values['variant']}, γ = {widgets.fmt_value(values['gamma'])}·γ_max)"))


def conv_fig(values, step):
    from mlviz import plotting

    return cache.figure(fig_key(values, "convergence"), lambda: plotting.convergence_figure(
        step["history"], title=f"FISTA convergence at γ = {widgets.fmt_value(values['gamma'])}·γ_max"))


def path_fig(values, steps, note=None):
    from mlviz import plotting

    def build():
        known = [steps[p] for p in sorted(steps)]
        return plotting.regularization_path_figure(
            [s["gamma"] for s in known], [s["n_edges"] for s in known],
            current_gamma=steps[values["gamma"]]["gamma"] if values["gamma"] in steps else None,
            n_features=[s["n_features"] for s in known], title="Regularisation path: edges vs γ", note=note)

    if note is not None:  # a partial path: not kept
        return build()
    return cache.figure(fig_key(values, "path"), build)


def figures_ahead(values, all_points):
    """``fn(token)``: the figures at ``values`` (and, with ``all_points``, at every γ of its path)."""
    def fn(token):
        steps = compute.need_path(ctx, CDN, values, token)
        points = sorted(steps) if all_points else [values["gamma"]]
        for p in points:
            token.check()
            here = {**values, "gamma": p}
            _ = graph_fig(here, steps[p]), path_fig(here, steps)  # (assigned: a bare expression is st.write'n)
            if len(steps[p]["history"]):
                _ = conv_fig(here, steps[p])
        return True
    return fn


def prepare(values, owner, priority, all_points=False):
    return compute.task(ctx.key, "cdn-graph-figures", {**CDN.complete(values), "all": all_points},
                        figures_ahead(values, all_points), owner=owner, priority=priority)


@st.fragment
@progress.foreground  # this session's prefetch work waits for this rerun
def graph_view():
    c = st.columns([1, 1, 1, 1.4])
    values = {name: widgets.param_slider(CDN.param(name), WIDGETS[name], col)
              for name, col in zip(["gamma", "mu", "lam"], c)}
    variant = CDN.param("variant")
    values["variant"] = c[3].selectbox(variant.label, variant.grid, key=WIDGETS["variant"], bind="query-params",
                                       help=variant.help)
    job = compute.path(ctx, CDN, values, owner=progress.owner("graph"))
    compute.wait(job, ready=lambda j: values["gamma"] in (j.partial or {}))
    error = progress.failed(job)
    if error is not None:
        st.error(f"The sparse CDN could not be fitted with these settings: {error}. Try a larger λ or μ.")
        return
    ready = values["gamma"] in compute.known_steps(ctx, CDN, values)
    shown = progress.shown(job, ready=ready, settings=values, slot="graph", label="Fitting the sparse CDN γ path",
                           widgets=WIDGETS)
    steps = compute.known_steps(ctx, CDN, shown) if shown is not None else {}
    if shown is None or shown["gamma"] not in steps:
        return
    step = steps[shown["gamma"]]
    m = st.columns(4)
    m[0].metric("edges (non-zero V entries)", step["n_edges"], help="Directed label → label dependencies kept at this γ.")
    m[1].metric("selected features", f"{step['n_features']} / {ctx.dataset.n_features}",
                help="Features with a non-zero row in W (used by at least one label).")
    m[2].metric("FISTA iterations", step["n_iter"])
    m[3].metric("fit time (this γ, warm start along the path)", f"{step['seconds']:.2f} s")
    _, uses_gamma, uses_mu = VARIANTS[shown["variant"]]
    kw = CDN.kwargs(shown, compute.scale(ctx), with_fixed=False)
    st.caption((f"γ = {step['gamma']:.3g} (γ_max = {step['gamma_max']:.3g} for these data), " if uses_gamma else
                f"γ is not used by the {shown['variant']} variant (no ℓ1 penalty on V), ")
               + (f"μ = {kw['mu']:.3g}, " if uses_mu else
                  f"μ is not used by the {shown['variant']} variant (no ℓ2,1 penalty on W), ")
               + f"λ₁ = λ₂ = {kw['lam1']:g}; the loss is summed over the "
               f"{ctx.Y_train.shape[0]} training instances (paper 001, eq. 4).")
    if step.get("note"):
        st.caption(f":material/warning: {step['note']}")
    left, right = st.columns(2)
    with left:
        widgets.show_figure(graph_fig(shown, step), f"{ctx.name}_cdn_graph", key="fig_cdn_graph")
    with right:
        from mlviz import plotting

        min_count = st.slider("Co-occurrence graph: minimum count per edge", 1, max(2, int(summary["counts"].max() // 4)),
                              max(1, int(np.median(summary["counts"]) // 4)), key="cooc_min", bind="query-params")
        fig = cache.figure(f"{ctx.key}|cooc-graph|{min_count}", lambda: plotting.cooccurrence_graph_figure(
            summary["cooccurrence"], names, pos, min_count=min_count, title="Plain co-occurrence graph (for contrast)"))
        widgets.show_figure(fig, f"{ctx.name}_cooccurrence_graph", key="fig_cooc_graph")
    left, right = st.columns(2)
    with left:
        steps = compute.known_steps(ctx, CDN, shown)
        if len(steps) == len(CDN.param("gamma").grid):
            widgets.show_figure(path_fig(shown, steps), f"{ctx.name}_cdn_path", key="fig_cdn_path")
        elif shown == values:
            def partial(j):
                known = compute.known_steps(ctx, CDN, shown)
                fig = path_fig(shown, known, note=f"γ path being computed… ({len(known)} of "
                                                  f"{len(CDN.param('gamma').grid)} γ values)")
                widgets.show_figure(fig, f"{ctx.name}_cdn_path", key="fig_cdn_path")
            progress.follow(job, partial)
        else:
            st.caption("The γ path follows the new fit.")
    with right:
        if len(step["history"]):
            widgets.show_figure(conv_fig(shown, step), f"{ctx.name}_fista", key="fig_fista")
        else:
            st.info("No objective history recorded for this fit.")
    edges = pd.DataFrame([(names[u], names[v], float(d.get("weight", 0.0))) for u, v, d in step["graph"].edges(data=True)],
                         columns=["from label", "to label", "weight"])
    with st.expander(f"Edge list ({len(edges)} edges)"):
        st.dataframe(edges.sort_values("weight", key=np.abs, ascending=False), width="stretch", hide_index=True)
        widgets.download_table(edges, f"{ctx.name}_cdn_edges", key="dl_edges")
    if shown == values and job.done():  # ahead of the next move: other γ figures, neighbouring μ / λ paths
        owner = progress.owner("graph")
        prepare(values, (owner[0], "graph|prefetch|here"), jobs.PREFETCH, all_points=True)
        compute.prefetch(CDN, values, owner, prepare)
    return shown


shown = graph_view()
if shown is None:
    st.stop()

st.divider()
st.subheader("Edge stability across folds (optional)")
st.caption("Refit the network on k cross-validation training folds at the current settings and count how often each edge appears.")
here = CDN.complete(shown)
steps = compute.known_steps(ctx, CDN, shown)
if shown["gamma"] in steps and (st.button("Compute edge stability", key="cdn_stability")
                                or st.session_state.get("cdn_stability_for") == here):
    st.session_state["cdn_stability_for"] = here
    job = compute.task(ctx.key, "cdn-edge-stability", here,
                       compute.edge_stability(ctx, CDN, here, steps[here["gamma"]]["gamma"], n_folds=3),
                       owner=progress.owner("stability"))
    compute.wait(job)
    error = progress.failed(job)
    if error is not None:
        st.error(f"Edge stability failed: {error}")
    elif not job.done():
        progress.shown(job, ready=False, settings=here, slot="stability", label="Refitting on 3 folds")
    else:
        from mlviz import plotting

        fig = plotting.cooccurrence_heatmap(job.result(), list(names), normalize=None)
        fig.update_layout(title="Fraction of folds in which edge row → column is present")
        widgets.show_figure(fig, f"{ctx.name}_edge_stability", key="fig_stability")
