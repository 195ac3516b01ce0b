"""Label graph: the sparse conditional dependency network's label → label edges."""

import numpy as np
import pandas as pd
import streamlit as st

from mlviz.dashboard import cache, cdn_jobs, cdn_prefetch, explain, methods, sparse_cdn, state, widgets
from mlviz.models.cdn import VARIANTS

ctx = state.init_page("Label graph", ":material/hub:")
st.title(":material/hub: Label graph — which labels depend on which (sparse CDN)")
st.caption("Guo & Xue's sparse conditional dependency network: every label is predicted from the features and the other labels.")
explain.explain("graph")

CDN = methods.METHODS["cdn"]
missing = methods.availability(CDN)
summary = cache.dataset_summary(ctx)
names = tuple(ctx.label_names)
pos = cache.label_layout(ctx.key, summary["cooccurrence"], names)


def graph_fig(variant, step):
    from mlviz import plotting

    return plotting.label_graph_figure(
        step["graph"], pos, label_names=names,
        title=f"Sparse CDN label graph ({variant}, γ = {widgets.fmt_value(step['ratio'])}·γ_max)")


def path_fig(steps, current, note=None):
    from mlviz import plotting

    return plotting.regularization_path_figure(
        [s["gamma"] for s in steps], [s["n_edges"] for s in steps], current_gamma=current["gamma"],
        n_features=[s["n_features"] for s in steps], title="Regularisation path: edges vs γ", note=note)


def conv_fig(step):
    from mlviz import plotting

    return plotting.convergence_figure(
        step["history"], title=f"FISTA convergence at γ = {widgets.fmt_value(step['ratio'])}·γ_max")


@st.fragment(run_every=1.0)
def pending_path_view(lam, mu, variant, step):
    """The γ path figure while the path is computed in the background: the γ values
    known so far; reruns itself every second and, once the path is there, the page."""
    try:
        done = sparse_cdn.gamma_path(ctx, lam=lam, mu=mu, variant=variant, seed=step) is not None
    except Exception:  # the rerun shows what went wrong
        done = True
    if done:
        st.rerun()  # a full rerun draws the finished path and stops this timer
    known, total = sparse_cdn.path_progress(ctx, lam=lam, mu=mu, variant=variant)
    known = known or [step]
    fig = path_fig(known, step, note=f"γ path being computed… ({len(known)} of {total} γ values)")
    widgets.show_figure(fig, f"{ctx.name}_cdn_path", key="fig_cdn_path")
    st.caption(":material/hourglass_top: The γ path for these settings is being computed in the background; "
               "it appears here by itself.")


@st.fragment
@cache.in_foreground  # background work waits for this rerun
def graph_view():
    from mlviz import plotting

    c = st.columns([1, 1, 1, 1.4])
    with c[0]:
        gamma = widgets.param_slider(CDN.param("gamma"), "cdn_gamma")
    with c[1]:
        mu = widgets.param_slider(CDN.param("mu"), "cdn_mu")
    with c[2]:
        lam = widgets.param_slider(CDN.param("lam"), "cdn_lam")
    with c[3]:
        variant = st.selectbox("Variant", CDN.param("variant").grid, key="cdn_variant", bind="query-params",
                               help=CDN.param("variant").help)
    if not methods.confirm_heavy(ctx, CDN, key="graph"):
        return
    try:
        step, job = cdn_jobs.request(ctx, lam=lam, mu=mu, variant=variant, ratio=gamma, owner=state.owner("graph"))
    except Exception as exc:
        st.error(f"The sparse CDN could not be fitted with these settings: {exc}. Try a larger λ or μ.")
        return
    # a fit that takes longer: answer now with the previous fit and a notice; the page updates by itself
    shown = cdn_jobs.shown_settings(job, dict(lam=lam, mu=mu, variant=variant, ratio=gamma), "cdn_graph_shown")
    if job is not None:
        step = sparse_cdn.lookup(ctx, **shown) if shown else None
        if step is None:
            return gamma, mu, lam, variant
        lam, mu, variant, gamma = shown["lam"], shown["mu"], shown["variant"], shown["ratio"]
    path_error = None
    try:
        # None: in the background (not started for a previous fit shown while a new one is under way)
        path = sparse_cdn.gamma_path(ctx, lam=lam, mu=mu, variant=variant, seed=step, start=job is None)
    except Exception as exc:
        path, path_error = None, exc
    if path is not None:
        step = path["steps"][path["gammas"].index(gamma)]
    gkey = f"{ctx.key}|{lam}|{mu}|{variant}"
    m = st.columns(4)
    m[0].metric("edges (non-zero V entries)", step["n_edges"], help="Directed label → label dependencies kept at this γ.")
    m[1].metric("selected features", f"{step['n_features']} / {ctx.dataset.n_features}",
                help="Features with a non-zero row in W (used by at least one label).")
    m[2].metric("FISTA iterations", step["n_iter"])
    m[3].metric("fit time (this γ, warm start)", f"{step['seconds']:.2f} s")
    _, uses_gamma, uses_mu = VARIANTS[variant]
    st.caption((f"γ = {step['gamma']:.3g} (γ_max = {step['gamma_max']:.3g} for these data), " if uses_gamma else
                f"γ is not used by the {variant} variant (no ℓ1 penalty on V), ")
               + (f"μ = {mu * ctx.Y_train.shape[0]:.3g}, " if uses_mu else
                  f"μ is not used by the {variant} variant (no ℓ2,1 penalty on W), ")
               + f"λ₁ = λ₂ = {lam}; the loss is summed over the "
               f"{ctx.Y_train.shape[0]} training instances (paper 001, eq. 4).")
    note = sparse_cdn.convergence_note(step)
    if note:
        st.caption(f":material/warning: {note}")
    left, right = st.columns(2)
    with left:
        fig = cache.figure(f"cdn-graph|{gkey}|{step['fit_id']}", lambda: graph_fig(variant, step))
        widgets.show_figure(fig, f"{ctx.name}_cdn_graph", key="fig_cdn_graph")
    with right:
        min_count = st.slider("Co-occurrence graph: minimum count per edge", 1, max(2, int(summary["counts"].max() // 4)),
                              max(1, int(np.median(summary["counts"]) // 4)), key="cooc_min", bind="query-params")
        fig = cache.figure(f"cooc-graph|{ctx.key}|{min_count}", lambda: plotting.cooccurrence_graph_figure(
            summary["cooccurrence"], names, pos, min_count=min_count, title="Plain co-occurrence graph (for contrast)"))
        widgets.show_figure(fig, f"{ctx.name}_cooccurrence_graph", key="fig_cooc_graph")
    left, right = st.columns(2)
    with left:
        if path_error is not None:
            st.warning(f"The γ path could not be computed for these settings: {path_error}")
        elif path is None and job is not None:
            st.caption("The γ path follows the new fit.")
        elif path is None:
            pending_path_view(lam, mu, variant, step)
        else:
            fig = cache.figure(f"cdn-path|{gkey}|{gamma}|{path['id']}", lambda: path_fig(path["steps"], step))
            widgets.show_figure(fig, f"{ctx.name}_cdn_path", key="fig_cdn_path")
    with right:
        if len(step["history"]):
            fig = cache.figure(f"cdn-conv|{gkey}|{step['fit_id']}", lambda: conv_fig(step))
            widgets.show_figure(fig, f"{ctx.name}_fista", key="fig_fista")
        else:
            st.info("No objective history recorded for this fit.")
    edges = pd.DataFrame(
        [(names[u] if isinstance(u, (int, np.integer)) else u, names[v] if isinstance(v, (int, np.integer)) else v,
          float(d.get("weight", 0.0))) for u, v, d in step["graph"].edges(data=True)],
        columns=["from label", "to label", "weight"],
    )
    with st.expander(f"Edge list ({len(edges)} edges)"):
        st.dataframe(edges.sort_values("weight", key=np.abs, ascending=False), width="stretch", hide_index=True)
        widgets.download_table(edges, f"{ctx.name}_cdn_edges", key="dl_edges")
    if path is not None:  # after this γ's figures are on screen, build the other γ's in the background
        builders = {}
        for g, s_ in zip(path["gammas"], path["steps"]):
            if g == gamma:
                continue
            builders[f"cdn-graph|{gkey}|{s_['fit_id']}"] = (lambda s_=s_: graph_fig(variant, s_))
            builders[f"cdn-path|{gkey}|{g}|{path['id']}"] = (lambda s_=s_: path_fig(path["steps"], s_))
            if len(s_["history"]):
                builders[f"cdn-conv|{gkey}|{s_['fit_id']}"] = (lambda s_=s_: conv_fig(s_))
        cache.prebuild(f"cdn|{gkey}|{path['id']}", builders)

    def neighbour_figures(lam_, mu_, s_):  # fits at the next μ / λ values, then their figures
        nkey = f"{ctx.key}|{lam_}|{mu_}|{variant}"
        out = {f"cdn-graph|{nkey}|{s_['fit_id']}": lambda: graph_fig(variant, s_)}
        if len(s_["history"]):
            out[f"cdn-conv|{nkey}|{s_['fit_id']}"] = lambda: conv_fig(s_)
        return out

    if job is None:  # (not around a previous fit while the new one is under way)
        cdn_prefetch.prefetch_neighbours(ctx, lam=lam, mu=mu, variant=variant, step=step, extras=neighbour_figures,
                                         tag="graph")
    return gamma, mu, lam, variant


if missing:
    st.info(missing + " — the label graph appears once it lands. Meanwhile, the co-occurrence graph:")
    from mlviz import plotting

    fig = plotting.cooccurrence_graph_figure(summary["cooccurrence"], names, pos, title="Plain co-occurrence graph")
    widgets.show_figure(fig, f"{ctx.name}_cooccurrence_graph", key="fig_cooc_graph")
else:
    params = graph_view()
    if params is None:
        st.stop()

    st.divider()
    st.subheader("Edge stability across folds (optional)")
    st.caption("Refit the network on k cross-validation training folds at the current settings and count how often each edge appears.")
    if st.button("Compute edge stability", key="cdn_stability"):
        ratio = st.session_state.get("cdn_gamma", CDN.param("gamma").default)
        mu = st.session_state.get("cdn_mu", CDN.param("mu").default)
        lam = st.session_state.get("cdn_lam", CDN.param("lam").default)
        variant = st.session_state.get("cdn_variant", "sparse")
        bar = st.progress(0.0, text="Fitting folds…")
        try:
            g = ratio * methods.cdn_gamma_max(ctx, lam, mu, variant)
            freq = sparse_cdn.edge_stability(ctx, gamma=g, mu=mu, lam=lam, variant=variant, n_folds=3,
                                              progress=lambda d, t: bar.progress(d / t, text=f"fold {d}/{t}"))
        except Exception as exc:
            st.error(f"Edge stability failed: {exc}")
        else:
            bar.empty()
            from mlviz import plotting

            fig = plotting.cooccurrence_heatmap(freq, list(names), normalize=None)
            fig.update_layout(title="Fraction of folds in which edge row → column is present")
            widgets.show_figure(fig, f"{ctx.name}_edge_stability", key="fig_stability")
