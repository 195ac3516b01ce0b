"""Label graph: the sparse conditional dependency network's label → label edges."""

import numpy as np
import streamlit as st

from mlviz._text import escape_markdown
from mlviz.dashboard import (
    cache,
    compute,
    explain,
    focus,
    graph_texts,
    jobs,
    methods,
    present,
    progress,
    state,
    urls,
    widgets,
)
from mlviz.models.cdn import VARIANTS

ctx = state.page_context(__file__)
st.title(":material/hub: Label graph — which labels depend on which (sparse CDN)")
st.caption("Guo & Xue's sparse conditional dependency network: every label is predicted from the features "
           "and the other labels.")
explain.explain("graph")

CDN = methods.METHODS["cdn"]
GRID = list(CDN.param("gamma").grid)
AUTO = graph_texts.AUTO
WIDGETS = {"gamma": "cdn_gamma", "mu": "cdn_mu", "lam": "cdn_lam", "variant": "cdn_variant"}
MAX_EDGES = [AUTO, 10, 20, 50, 100, 200, 500, "all"]
AUTO_MAX_EDGES_MANUAL = graph_texts.AUTO_MAX_EDGES_MANUAL
MIN_WEIGHT = [0.0, 0.01, 0.03, 0.1, 0.3, 1.0]
#: Width (px) of a graph's half-page column at a 1600 px wide window (~560 px): names are placed so
#: that none overlaps or leaves the plot at this width or wider.
WIDTH_HINT = 520
summary = cache.dataset_summary(ctx)
names = tuple(ctx.label_names)
L = len(names)
pos = cache.label_layout(ctx)
train_counts = np.asarray(ctx.Y_train.sum(axis=0), dtype=float).ravel()


def fig_key(values, what):
    return methods.key(ctx.key, CDN.key, CDN.complete(values), what)


def view_key(view):
    return "|".join(f"{k}={view[k]!r}" for k in sorted(view))


def step_communities(values, step, min_w):
    """The communities of a path point's graph (edges with |w| >= ``min_w``), kept per point."""
    return cache.memo(fig_key(values, f"communities|{float(min_w)!r}"),
                      lambda: focus.graph_communities(step["graph"], L, min_abs_weight=min_w or None))


def graph_kwargs(view):
    """``(graph filter, keyword arguments)`` of :func:`mlviz.plotting.label_graph_figure` for ``view``."""
    kw = dict(max_edges=view["max_edges"], min_abs_weight=view["min_w"] or None, communities=view["comm"])
    if view["focus"] is not None:
        kw.update(focus=view["focus"], radius=view["radius"], top_k=view["k"] if view["k"] < L else None)
        return None, kw
    return (None if len(view["labels"]) == L else list(view["labels"])), kw


def graph_fig(values, step, view):
    from mlviz import plotting

    def build():
        if view["collapse"]:
            return plotting.graph.community_graph_figure(
                step["graph"], pos, label_names=names, node_size=train_counts, min_abs_weight=view["min_w"] or None,
                max_edges=view["max_edges"], expand=None if view["expand"] < 0 else view["expand"],
                width_hint=WIDTH_HINT, groups=step_communities(values, step, view["min_w"]),
                title=f"Label graph by community ({values['variant']}, γ = {widgets.fmt_value(values['gamma'])}·γ_max)")
        subset, kw = graph_kwargs(view)
        graph = step["graph"] if subset is None else compute.step_subgraph(step, subset)
        return plotting.label_graph_figure(
            graph, pos, label_names=names, **kw, width_hint=WIDTH_HINT,
            totals=None if subset is None else (L, step["n_edges"]),  # (one count source: the whole graph's)
            # (short: whole in presentation mode's large text)
            title=f"Sparse CDN label graph, γ = {widgets.fmt_value(values['gamma'])}·γ_max"
                  + ("" if values["variant"] == "sparse" else f" ({values['variant']})"))

    return cache.figure(fig_key(values, "graph|" + view_key(view)), build)


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


def figures_ahead(values, view, all_points):
    """``fn(token)``: the figures at ``values`` (and, with ``all_points``, at every γ of its path)."""
    def fn(token):
        steps = compute.need_path(ctx, CDN, values, token)
        points = sorted(steps) if all_points else [values["gamma"]]
        for p in points:
            token.check()
            here = {**values, "gamma": p}
            _ = graph_fig(here, steps[p], view), path_fig(here, steps)  # (assigned: a bare expression is st.write'n)
            if len(steps[p]["history"]):
                _ = conv_fig(here, steps[p])
        return True
    return fn


def prepare(values, owner, priority, view, all_points=False):
    return compute.task(ctx.key, "cdn-graph-figures", {**CDN.complete(values), "all": all_points,
                                                       "view": view_key(view)},
                        figures_ahead(values, view, all_points), owner=owner, priority=priority)


AUTO_KEY = "cdn_gamma_auto"  # the "automatic γ" toggle (session state; the address says it through cdn_gamma)


def gamma_in_link(raw):
    """The γ grid value an address's ``cdn_gamma`` names, or None for automatic: no parameter, the old
    ``auto`` (when "auto" was the slider's left end) or a value not on the grid."""
    if raw is None or raw == AUTO:
        return None
    return next((v for v in GRID if raw in (widgets.fmt_value(v), str(v))), None)


def _chosen_by_hand():
    st.session_state[AUTO_KEY] = False  # a move of the γ slider chooses γ by hand


def penalty_controls(mu_col, lam_col, variant_col):
    """``(values, uses_gamma, uses_mu)`` of the variant, μ and λ controls (μ disabled where unused)."""
    variant = CDN.param("variant")
    values = {"variant": variant_col.selectbox(variant.label, variant.grid, key=WIDGETS["variant"],
                                               bind="query-params", help=variant.help)}
    _, uses_gamma, uses_mu = VARIANTS[values["variant"]]
    for name, col in (("mu", mu_col), ("lam", lam_col)):
        p = CDN.param(name)
        values[name] = col.select_slider(p.label, options=p.grid, value=p.default, key=WIDGETS[name],
                                         format_func=widgets.fmt_value, bind="query-params", help=p.help,
                                         disabled=name == "mu" and not uses_mu)
    return values, uses_gamma, uses_mu


def gamma_control(col, values, uses_gamma):
    """The γ slider and its "automatic" toggle; returns ``"auto"`` or the γ chosen by hand and keeps the
    address to ``cdn_gamma=<value>`` (by hand) or no ``cdn_gamma`` (automatic)."""
    gamma = CDN.param("gamma")
    url = st.query_params.get(WIDGETS["gamma"])
    if st.session_state.get("mlviz_cdn_gamma_url", "") != url:  # a link was opened (or the page entered)
        by_hand = gamma_in_link(url)
        st.session_state[AUTO_KEY] = by_hand is None
        if by_hand is not None:
            st.session_state[WIDGETS["gamma"]] = by_hand
    st.session_state.setdefault(AUTO_KEY, True)
    st.session_state.setdefault(WIDGETS["gamma"], gamma.default)
    automatic = bool(st.session_state[AUTO_KEY])
    if automatic:  # the slider sits where automatic γ is (known once the path has reached it)
        here = focus.auto_gamma(compute.known_steps(ctx, CDN, {**values, "gamma": gamma.default}), GRID,
                                uses_gamma=uses_gamma)
        if here is not None:
            st.session_state[WIDGETS["gamma"]] = here
    chosen = col.select_slider(
        gamma.label, options=GRID, key=WIDGETS["gamma"], format_func=widgets.fmt_value,
        disabled=not uses_gamma, on_change=_chosen_by_hand,
        help=gamma.help + " Moving it chooses γ by hand (automatic off).")
    col.toggle("automatic γ", key=AUTO_KEY, disabled=not uses_gamma,
               help=f"The largest γ of the slider whose graph keeps at least {focus.AUTO_MIN_EDGES} edges, drawing "
                    f"at most the {focus.AUTO_MAX_EDGES} strongest; the slider shows the γ it chose.")
    link = None if automatic else widgets.fmt_value(chosen)
    if link is None:
        if WIDGETS["gamma"] in st.query_params:
            del st.query_params[WIDGETS["gamma"]]
    elif st.query_params.get(WIDGETS["gamma"]) != link:
        st.query_params[WIDGETS["gamma"]] = link
    st.session_state["mlviz_cdn_gamma_url"] = link
    return AUTO if automatic else chosen


def model_controls():
    """γ (a slider and an "automatic" toggle), μ, λ and the variant; a control the variant ignores is disabled.

    Automatic γ is a toggle, not a slider position: while it is on, the γ slider sits at the value it
    chose (once the path has reached it), so one step of the slider moves to a neighbouring γ (and
    turns automatic off). The address holds ``cdn_gamma=<value>`` for a γ chosen by hand and no
    ``cdn_gamma`` when automatic; an old link's ``cdn_gamma=auto`` still means automatic.
    """
    c = st.columns([1.2, 1, 1, 1.2])
    values, uses_gamma, uses_mu = penalty_controls(c[1], c[2], c[3])
    values["gamma"] = gamma_control(c[0], values, uses_gamma)
    return {k: values[k] for k in ("gamma", "mu", "lam", "variant")}, uses_gamma, uses_mu


def view_controls(degree, communities):
    """Which labels and edges the graphs draw (the shared label selector, a label's neighbourhood, filters,
    communities collapsed; ``communities``: a function of the minimum |weight| giving their member lists)."""
    sel = focus.label_selector(names, train_counts, prefix="labels", degree=degree)
    c = st.columns([1.5, 0.6, 1, 1, 1.2])
    centre = c[0].selectbox("Neighbourhood of a label", [-1] + list(range(L)), key="cdn_focus", bind="query-params",
                            format_func=lambda i: "— none —" if i == -1 else names[i],
                            help="Draw only the labels within the chosen number of edges of this label "
                                 "(in either direction), in both graphs.")
    radius = c[1].radio("Hops", [1, 2], key="cdn_radius", bind="query-params", horizontal=True,
                        disabled=centre == -1)
    max_edges = c[2].select_slider("Edges drawn at most", MAX_EDGES, value=AUTO, key="cdn_max_edges",
                                   bind="query-params",
                                   help="The strongest edges (by |weight| or count) are kept. 'auto': "
                                        f"{focus.AUTO_MAX_EDGES} at the automatic γ, "
                                        f"{AUTO_MAX_EDGES_MANUAL} otherwise.")
    min_w = c[3].select_slider("Minimum |weight|", MIN_WEIGHT, value=0.0, key="cdn_min_w", bind="query-params",
                               format_func=widgets.fmt_value, help="Hide label-graph edges weaker than this.")
    comm = c[4].toggle("Colour communities", value=False, key="cdn_comm", bind="query-params",
                       help="Colour labels by modularity community (networkx Louvain, seed 0).")
    collapse = c[4].toggle("Collapse communities", value=False, key="cdn_collapse", bind="query-params",
                           help="Draw each community as one node (size: its number of labels; links: the summed "
                                "|weight| of the label edges between two communities). Uses every label, "
                                "not only the labels chosen above.")
    expand = -1
    if collapse:
        groups = communities(float(min_w))
        e = st.columns([1, 2.5], vertical_alignment="bottom")
        expand = e[0].selectbox(
            "Expand one community into its labels", [-1] + list(range(len(groups))), key="cdn_expand",
            bind="query-params", format_func=lambda c: "— none —" if c == -1 else f"community {c + 1}",
            help="Communities are numbered by decreasing size (networkx Louvain, seed 0). The chosen one is "
                 "drawn as its labels, linked to the other communities.")
        if expand >= 0:
            top = groups[expand][np.argsort(-train_counts[groups[expand]], kind="stable")]
            e[1].caption(f"Community {expand + 1}: {len(top)} labels, the most frequent "
                         + ", ".join(escape_markdown(names[v], 30) for v in top[:5])
                         + (" …" if len(top) > 5 else "") + ".")
    view = dict(labels=tuple(int(i) for i in sel.indices), focus=None if centre == -1 else int(centre),
                radius=int(radius), k=sel.k,
                max_edges=None if max_edges == "all" else max_edges, min_w=float(min_w), comm=bool(comm),
                collapse=bool(collapse), expand=int(expand))
    return sel, view


@st.fragment
@progress.foreground  # this session's prefetch work waits for this rerun
def resolved_step(values, uses_gamma):
    """``(shown, step, job)``: the slider values on screen and their γ path step (None, None, job while the
    path has nothing to show; the co-occurrence graph is drawn meanwhile)."""
    choice = values["gamma"]
    job = compute.path(ctx, CDN, {**values, "gamma": CDN.param("gamma").default}, owner=progress.owner("graph"))

    def point(steps):
        return focus.auto_gamma(steps, GRID, uses_gamma=uses_gamma) if choice == AUTO else choice

    compute.wait(job, ready=lambda j: point(j.partial or {}) in (j.partial or {}))
    error = progress.failed(job)
    if error is not None:
        st.error(f"The sparse CDN could not be fitted with these settings: {escape_markdown(error, 200)}. "
                 "Try a larger λ or μ.")
        return None, None, job
    resolved = point(compute.known_steps(ctx, CDN, values))
    if resolved is not None:
        values["gamma"] = resolved
        if choice == AUTO and uses_gamma and st.session_state.get(WIDGETS["gamma"]) != resolved:
            st.rerun(scope="fragment")  # (automatic γ became known in this run: the slider moves there)
    ready = resolved is not None and resolved in compute.known_steps(ctx, CDN, values)
    shown = progress.shown(job, ready=ready, settings=values, slot="graph", label="Fitting the sparse CDN γ path",
                           widgets=WIDGETS if choice != AUTO else {k: v for k, v in WIDGETS.items() if k != "gamma"},
                           until=lambda j: point(j.partial or {}) in (j.partial or {}))  # (not the whole path)
    steps = compute.known_steps(ctx, CDN, shown) if shown is not None else {}
    if shown is None or shown["gamma"] not in steps:
        if shown is None:  # nothing learned yet to show: the co-occurrence graph needs no fit
            waiting_view()
        return None, None, job
    return shown, steps[shown["gamma"]], job


def fit_summary(shown, step, view, uses_gamma, uses_mu, automatic):
    """The metrics, the takeaway and the caption of the fit on screen."""
    m = st.columns(4)
    m[0].metric("edges (non-zero V entries)", step["n_edges"],
                help="Directed label → label dependencies kept at this γ.")
    m[1].metric("selected features", f"{step['n_features']} / {ctx.dataset.n_features}",
                help="Features with a non-zero row in W (used by at least one label).")
    m[2].metric("FISTA iterations", step["n_iter"])
    m[3].metric("fit time (this γ, warm start along the path)", f"{step['seconds']:.2f} s")
    present.takeaway(graph_texts.takeaway(shown["gamma"], step["n_edges"], step["n_features"],
                                          ctx.dataset.n_features, uses_gamma=uses_gamma))
    kw = CDN.kwargs(shown, compute.scale(ctx), with_fixed=False)
    st.caption(graph_texts.fit_caption(step, shown, kw, n_train=ctx.Y_train.shape[0], uses_gamma=uses_gamma,
                                       uses_mu=uses_mu, automatic=automatic, drawn_max=view["max_edges"]))
    if step.get("note"):
        st.caption(f":material/warning: {step['note']}")


def graph_figures(shown, step, sel, view):
    """The learned graph beside the co-occurrence graph, with their counts."""
    if no_labels(sel, view):
        return
    left, right = st.columns(2)
    with left:
        fig = graph_fig(shown, step, view)
        widgets.show_figure(fig, f"{ctx.name}_cdn_graph", key="fig_cdn_graph")
        if view["collapse"]:
            meta = next(t.meta for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "nodes")
            st.caption(focus.collapsed_caption(meta, L, step["n_edges"], focus.graph_counts(fig)["edges"]))
        else:
            st.caption(focus.counts_caption(focus.graph_counts(fig)))
    with right:
        cooccurrence_view(view)


def path_figures(shown, step, values, job):
    """The γ path (point by point while it is computed) beside the FISTA convergence of the fit on screen."""
    left, right = st.columns(2)
    with left:
        steps = compute.known_steps(ctx, CDN, shown)
        if len(steps) == len(GRID):
            widgets.show_figure(path_fig(shown, steps), f"{ctx.name}_cdn_path", key="fig_cdn_path")
        elif shown == values:
            def partial(j):
                known = compute.known_steps(ctx, CDN, shown)
                fig = path_fig(shown, known, note=f"γ path being computed… ({len(known)} of {len(GRID)} γ values)")
                widgets.show_figure(fig, f"{ctx.name}_cdn_path", key="fig_cdn_path")
            progress.follow(job, partial)
        else:
            st.caption("The γ path follows the new fit.")
    with right:
        if len(step["history"]):
            widgets.show_figure(conv_fig(shown, step), f"{ctx.name}_fista", key="fig_fista")
        else:
            st.info("No objective history recorded for this fit.")


def graph_view():
    values, uses_gamma, uses_mu = model_controls()
    choice = values["gamma"]
    shown, step, job = resolved_step(values, uses_gamma)
    if step is None:
        return None
    degree = focus.weighted_degree(step["model"].label_coef_, L)  # (V: no graph built for this)
    sel, view = view_controls(degree, lambda min_w: step_communities(shown, step, min_w))
    automatic = choice == AUTO and shown == values
    view["max_edges"] = graph_texts.max_edges(view["max_edges"], collapse=view["collapse"], automatic=automatic,
                                              uses_gamma=uses_gamma)
    fit_summary(shown, step, view, uses_gamma, uses_mu, automatic)
    graph_figures(shown, step, sel, view)
    path_figures(shown, step, values, job)
    edge_list(step)
    if shown == values and job.done():  # ahead of the next move: other γ figures, neighbouring μ / λ paths
        owner = progress.owner("graph")
        prepare(values, (owner[0], "graph|prefetch|here"), jobs.PREFETCH, view, all_points=True)
        compute.prefetch(CDN, values, owner, lambda v, owner, priority: prepare(v, owner, priority, view))
    return shown, sel


def no_labels(sel, view) -> bool:
    """Whether the label selector chose no label (nothing picked yet, a search without a match) for
    graphs that draw the selected labels; says so on the page."""
    if len(view["labels"]) or view["focus"] is not None or view["collapse"]:
        return False
    st.info(":material/label_off: No labels " + ("picked" if sel.mode == "picked" else "match")
            + f" ({sel.description}): choose labels in “Labels drawn” above to draw the graphs.")
    return True


def waiting_view():
    """While the first sparse CDN of this data set is fitted (tens of seconds at ~1,000 labels ×
    10k instances): the plain co-occurrence graph of the selected labels, which needs no fit."""
    sel = focus.label_selector(names, train_counts, prefix="labels")
    view = dict(labels=tuple(int(i) for i in sel.indices), focus=None, radius=1, k=sel.k,
                max_edges=AUTO_MAX_EDGES_MANUAL, min_w=0.0, comm=False, collapse=False, expand=-1)
    if no_labels(sel, view):
        return
    left, right = st.columns(2)
    with left:
        cooccurrence_view(view)
    right.caption("The learned label graph appears beside it when the fit above is done: the co-occurrence "
                  "graph links labels that merely occur together; the sparse CDN keeps the dependencies "
                  "that remain once the features are taken into account.")


def cooccurrence_view(view):
    """The plain co-occurrence graph of the same labels, for contrast (default cut-off from the pair counts)."""
    from mlviz import plotting

    C = np.asarray(summary["cooccurrence"])
    off = C[~np.eye(L, dtype=bool)] if L > 1 else np.zeros(1)
    top = int(max(off.max(initial=0), 2))
    default = min(int(plotting.default_min_count(C)), top)
    min_count = st.slider("Co-occurrence graph: minimum count per pair", 1, top, default, key="cooc_min",
                          bind="query-params",
                          help="Draw a pair of labels when at least this many instances carry both. "
                               "Default: the strongest few pairs (from the pair counts).")
    kw = dict(max_edges=view["max_edges"], communities=view["comm"])
    if view["focus"] is not None or len(view["labels"]) == L:
        args = (C, names, pos)
        if view["focus"] is not None:
            kw.update(focus=view["focus"], radius=view["radius"], top_k=view["k"] if view["k"] < L else None)
    else:
        idx = np.asarray(view["labels"], dtype=int)
        args = (C[np.ix_(idx, idx)], [names[i] for i in idx], np.array([pos[i] for i in idx]))
    n_pairs = int((np.triu(C, 1) >= max(min_count, 1)).sum())
    fig = cache.figure(f"{ctx.key}|cooc-graph|{min_count}|{view_key(view)}", lambda: plotting.cooccurrence_graph_figure(
        *args, min_count=min_count, title="Plain co-occurrence graph (for contrast)", width_hint=WIDTH_HINT,
        totals=(L, n_pairs), **kw))
    widgets.show_figure(fig, f"{ctx.name}_cooccurrence_graph", key="fig_cooc_graph")
    st.caption(focus.counts_caption(focus.graph_counts(fig)))


EDGE_ROWS = 1000  # rows of the edge list drawn (all of them go to the CSV)


def edge_list(step):
    """The edge list, strongest first, filtered by a label-name search, as a CSV-safe download."""
    from mlviz import plotting

    edges = plotting.tables.edge_table(step["model"].label_coef_, names)  # (V: no graph built for this)
    with st.expander(f"Edge list ({len(edges):,} edges)"):
        q = st.text_input("Show edges whose label names contain", key="cdn_edge_q", bind="query-params",
                          max_chars=urls.text_limit("cdn_edge_q"), placeholder="part of a label name")
        shown = edges
        if q.strip():
            hit = edges["source"].str.contains(q.strip(), case=False, regex=False) | \
                edges["target"].str.contains(q.strip(), case=False, regex=False)
            shown = edges[hit]
            st.caption(f"{len(shown)} of {len(edges)} edges involve a label containing “{escape_markdown(q, 40)}”.")
        if len(shown) > EDGE_ROWS:  # (630k rows at 983 labels and a small γ: ~2 GB in the server and browser)
            st.caption(f"The {EDGE_ROWS:,} strongest of these {len(shown):,} edges are listed; the CSV has all "
                       f"{len(shown):,}. Search for a label to list its edges.")
        st.dataframe(shown.head(EDGE_ROWS), width="stretch", hide_index=True)
        st.download_button("CSV", data=lambda: plotting.tables.to_csv_bytes(shown),
                           file_name="".join(ch if ch.isalnum() or ch in "-_." else "_"
                                             for ch in f"{ctx.name}_cdn_edges") + ".csv",
                           mime="text/csv",
                           key="dl_edges", on_click="ignore", icon=":material/download:",
                           help="The edges listed above; cells that a spreadsheet would run as formulas "
                                "are neutralised.")


out = graph_view()
if out is None:
    st.stop()
shown, sel = out

st.divider()
st.subheader("Edge stability across folds (optional)")
N_FOLDS = 3
st.caption(f"Refit the network on {N_FOLDS} cross-validation training folds at the current settings and count "
           "how often each edge appears" + ("." if sel.everything else f" (drawn for {sel.description})."))
here = CDN.complete(shown)
steps = compute.known_steps(ctx, CDN, shown)
if shown["gamma"] in steps and (st.button("Compute edge stability", key="cdn_stability")
                                or st.session_state.get("cdn_stability_for") == here):
    st.session_state["cdn_stability_for"] = here
    job = compute.task(ctx.key, "cdn-edge-stability", here,
                       compute.edge_stability(ctx, CDN, here, steps[here["gamma"]]["gamma"], n_folds=N_FOLDS),
                       owner=progress.owner("stability"))
    compute.wait(job)
    error = progress.failed(job)
    if error is not None:
        st.error(f"Edge stability failed: {escape_markdown(error, 200)}")
    elif not job.done():
        progress.shown(job, ready=False, settings=here, slot="stability", label=f"Refitting on {N_FOLDS} folds")
    else:
        from mlviz import plotting

        idx = sel.indices
        freq = np.asarray(job.result())[np.ix_(idx, idx)]
        fig = plotting.edge_stability_heatmap(freq, [names[i] for i in idx], n_folds=N_FOLDS)
        widgets.show_figure(fig, f"{ctx.name}_edge_stability", key="fig_stability")

# Linked views: pick an edge A → B here; its effect on P(B | x) is shown on every page.
if shown["gamma"] in steps:
    from mlviz.dashboard import linked

    linked.graph_hook(ctx, shown, steps[shown["gamma"]])


# ------------------------------------------------------------------ report pack (every page's figures)
def report_section():
    from mlviz.dashboard import report_pack

    values = {k: shown[k] for k in ("gamma", "mu", "lam", "variant")}
    report_pack.section(ctx, {"cdn": CDN.complete(values)}, key="cdn_pack",
                        figures=widgets.figures_drawn(["fig_cdn_graph", "fig_cooc_graph", "fig_cdn_path", "fig_fista",
                                                       "fig_stability"]),
                        notes=["The measures are the sparse CDN's posteriors on the test rows at threshold 0.5; the "
                               "figures are the page's (label graph, co-occurrence graph, γ path, convergence)."])


report_section()
