"""Network figures: the sparse-CDN label graph and the co-occurrence graph.

Performance: edges are drawn as a handful of line traces (one per sign and
width bucket, segments separated by ``None``), never one trace per edge.
Direction is shown by arrow annotations for at most
:data:`MAX_ARROW_ANNOTATIONS` edges and by rotated ``"arrow"`` markers at 3/4
of each edge above that. Axes use a 1:1 aspect ratio so the layout (and the
marker angles) are not distorted.

Every line trace carries ``meta = {"kind": "edges", "sign": "+"|"-"|"0",
"n_edges": k}`` so the drawn edges can be counted without parsing ``None``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from . import _graph_focus as _focus
from ._style import (
    NEGATIVE_COLOR,
    NEUTRAL_EDGE_COLOR,
    NODE_COLOR,
    POSITIVE_COLOR,
    esc,
    esc_all,
    layout_dict,
    note_annotation,
    qualitative_colors,
)

__all__ = ["label_graph_figure", "community_graph_figure", "cooccurrence_graph_figure", "default_min_count",
           "MAX_ARROW_ANNOTATIONS"]

#: Up to this many directed edges, arrows are plotly annotations (nicer
#: heads); above, rotated markers. plotly validates each annotation (~1 ms),
#: so this bound keeps a graph figure well under 0.2 s to build.
MAX_ARROW_ANNOTATIONS = 120
_N_WIDTH_BUCKETS = 5
_MIN_WIDTH, _MAX_WIDTH = 1.0, 6.0
_AXIS_PAD = 0.15


def _positions(nodes, pos):
    """Return an (n_nodes, 2) float array of node positions."""
    nodes = list(nodes)
    if isinstance(pos, dict):
        missing = [v for v in nodes if v not in pos]
        if missing:
            raise ValueError(f"pos has no position for node(s) {missing[:5]}.")
        return np.array([np.asarray(pos[v], dtype=float)[:2] for v in nodes],
                        dtype=float).reshape(len(nodes), 2)
    arr = np.asarray(pos, dtype=float)
    if arr.ndim != 2 or arr.shape[1] < 2:
        raise ValueError(f"pos must be a dict or an (n, 2) array, got {arr.shape}.")
    if all(isinstance(v, (int, np.integer)) and 0 <= v < len(arr) for v in nodes):
        return arr[np.asarray(nodes, dtype=int), :2]
    if len(arr) != len(nodes):
        raise ValueError(f"pos has {len(arr)} rows for {len(nodes)} nodes.")
    return arr[:, :2]


def _node_names(graph_nodes, label_names, node_attrs=None):
    names = []
    for v in graph_nodes:
        if label_names is not None and isinstance(v, (int, np.integer)) \
                and 0 <= v < len(label_names):
            names.append(str(label_names[v]))
        elif node_attrs is not None and node_attrs.get(v, {}).get("name"):
            names.append(str(node_attrs[v]["name"]))
        else:
            names.append(str(v))
    return names


#: Widest shaft (px) of an arrow annotation: its head is drawn over lines up to 6 px wide.
_HEAD_WIDTH = 2.5
#: Opacity of the edges' lines.
EDGE_OPACITY = 0.75


def _on_white(color, opacity):
    """The opaque colour ``color`` (``#rrggbb``) shows at ``opacity`` over white."""
    rgb = [int(color[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - opacity * (255 - c)):02x}" for c in rgb)


#: the arrow annotations' colours: each sign's line colour as it shows on white
_ARROW_POSITIVE, _ARROW_NEGATIVE = _on_white(POSITIVE_COLOR, EDGE_OPACITY), _on_white(NEGATIVE_COLOR, EDGE_OPACITY)


def edge_widths(magnitudes):
    """Scale |weights| linearly to line widths in [1, 6] px.

    Parameters
    ----------
    magnitudes : array-like of float >= 0, shape (m,)

    Returns
    -------
    ndarray, shape (m,)
        Widths; all equal to 3.5 when the magnitudes are all equal.
    """
    a = np.abs(np.asarray(magnitudes, dtype=float))
    if a.size == 0:
        return a
    lo, hi = float(a.min()), float(a.max())
    if hi - lo <= 1e-12 * max(hi, 1.0):
        return np.full(a.shape, 0.5 * (_MIN_WIDTH + _MAX_WIDTH))
    return _MIN_WIDTH + (a - lo) / (hi - lo) * (_MAX_WIDTH - _MIN_WIDTH)


def _bucket(widths):
    """Snap widths to a few levels so edges fit in a few traces."""
    levels = np.linspace(_MIN_WIDTH, _MAX_WIDTH, _N_WIDTH_BUCKETS)
    idx = np.abs(widths[:, None] - levels[None, :]).argmin(axis=1)
    return idx, levels


def _segments(P, src, dst):
    """x and y lists "x0, x1, None, ..." for the given index pairs."""
    m = len(src)
    xs = np.full(3 * m, np.nan)
    ys = np.full(3 * m, np.nan)
    xs[0::3], xs[1::3] = P[src, 0], P[dst, 0]
    ys[0::3], ys[1::3] = P[src, 1], P[dst, 1]
    to_list = lambda a: [None if np.isnan(v) else float(v) for v in a]  # noqa: E731
    return to_list(xs), to_list(ys)


def _edge_line_traces(P, src, dst, magnitudes, *, sign, color, legend_name):
    """One line trace per width bucket for edges of one style."""
    traces = []
    if len(src) == 0:
        return traces
    idx, levels = _bucket(edge_widths(magnitudes))
    first = True
    for b in range(len(levels)):
        sel = np.flatnonzero(idx == b)
        if sel.size == 0:
            continue
        xs, ys = _segments(P, src[sel], dst[sel])
        traces.append(go.Scatter(
            x=xs, y=ys, mode="lines", hoverinfo="skip",
            line=dict(width=float(levels[b]), color=color),
            opacity=EDGE_OPACITY, name=legend_name, legendgroup=legend_name,
            showlegend=first,
            meta={"kind": "edges", "sign": sign, "n_edges": int(sel.size)},
        ))
        first = False
    return traces


def _hidden_axes(P):
    """Layout of hidden axes, 1:1 aspect, padded so node names fit."""
    xaxis = dict(visible=False, showgrid=False, zeroline=False)
    yaxis = dict(visible=False, showgrid=False, zeroline=False, scaleanchor="x", scaleratio=1)
    if len(P):
        lo, hi = P.min(axis=0), P.max(axis=0)
        pad = _AXIS_PAD * max(float((hi - lo).max()), 1e-9)
        xaxis["range"] = [float(lo[0] - pad), float(hi[0] + pad)]
        yaxis["range"] = [float(lo[1] - pad), float(hi[1] + pad)]
    return dict(xaxis=xaxis, yaxis=yaxis)


def _node_sizes(values):
    """Marker diameters: 10-32 px up to 30 nodes, shrinking as sqrt(30 / n) (to
    35 %) for more, so hundreds of nodes do not merge into one blot."""
    v = np.sqrt(np.maximum(np.asarray(values, dtype=float), 0.0))
    f = float(np.clip(np.sqrt(30.0 / max(v.size, 1)), 0.35, 1.0))
    if v.size == 0 or np.ptp(v) == 0:
        return np.full(v.shape, 16.0 * f)
    return f * (10.0 + 22.0 * (v - v.min()) / np.ptp(v))


def _to_pixels(P, axes, plot_w, plot_h):
    """Node centres in plot-area pixels for a 1:1 figure whose plot area is plot_w x plot_h."""
    xr, yr = axes["xaxis"]["range"], axes["yaxis"]["range"]
    s = min(plot_w / max(xr[1] - xr[0], 1e-12), plot_h / max(yr[1] - yr[0], 1e-12))
    xc, yc = 0.5 * (xr[0] + xr[1]), 0.5 * (yr[0] + yr[1])
    return np.column_stack([plot_w / 2 + (P[:, 0] - xc) * s, plot_h / 2 + (P[:, 1] - yc) * s])


def _node_trace(P, names, sizes, hover, *, positions, font_size, colors=None, meta=None):
    shown = [esc(nm) if p is not None else "" for nm, p in zip(names, positions)]
    return go.Scatter(
        x=P[:, 0], y=P[:, 1], mode="markers+text", text=shown,
        textposition=[p or "top center" for p in positions], hovertext=hover, hoverinfo="text",
        textfont=dict(size=font_size, color="#111111", shadow="auto"),
        # opacity 1: plotly.js gives markers of varying size 0.7 by default (a "bubble" chart), and the edges'
        # ends then showed through every node
        marker=dict(size=sizes, color=NODE_COLOR if colors is None else colors, opacity=1.0,
                    line=dict(width=1.5, color="white")),
        name="labels", meta=meta or {"kind": "nodes"}, showlegend=False,
        cliponaxis=False,
    )


def _top3(node, other, w, n, names, fmt="{:+.3g}"):
    """Per node: "name (+w), ..." of its 3 strongest edges (node -> other)."""
    out = ["none"] * n
    if len(node) == 0:
        return out
    order = np.lexsort((-np.abs(w), node))
    node, other, w = node[order], other[order], w[order]
    starts = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
    ends = np.r_[starts[1:], len(node)]
    for a, b in zip(starts, ends):
        out[node[a]] = ", ".join(f"{esc(names[o])} ({fmt.format(x)})" for o, x in zip(other[a:b][:3], w[a:b][:3]))
    return out


def _view(n, src, dst, w, *, focus, radius, top_k, score, min_abs_weight, max_edges):
    """Apply the filters -- edge threshold, then the labels (ego network, top-k),
    then the strongest ``max_edges`` edges among the kept labels: (kept node
    indices, src, dst, w remapped)."""
    ek = _focus.select_edges(w, min_abs_weight=min_abs_weight)
    src, dst, w = src[ek], dst[ek], w[ek]
    nk = _focus.select_nodes(n, src, dst, w, focus=focus, radius=radius, top_k=top_k, score=score)
    ek = nk[src] & nk[dst]
    src, dst, w = src[ek], dst[ek], w[ek]
    ek = _focus.select_edges(w, max_edges=max_edges)
    kept = np.flatnonzero(nk)
    remap = np.full(n, -1, dtype=int)
    remap[kept] = np.arange(len(kept))
    return kept, remap[src[ek]], remap[dst[ek]], w[ek]


def _resolve_focus(focus, nodes, names):
    if focus is None:
        return None
    if isinstance(focus, (int, np.integer)) and 0 <= int(focus) < len(nodes) and focus in nodes:
        return nodes.index(focus)
    if isinstance(focus, (int, np.integer)) and 0 <= int(focus) < len(nodes):
        return int(focus)
    if str(focus) in names:
        return names.index(str(focus))
    raise ValueError(f"focus label {str(focus)[:60]!r} is not in the graph.")


def _names_and_notes(P, names, sizes, priority, axes, *, height, width_hint, max_names,
                     title, n_total, n_kept, e_total, e_kept):
    """Name placement for the drawn nodes, the margins it assumed and the status note."""
    margin = dict(l=10, r=10, t=(70 if title else 40) + 14, b=40)   # room for a two-line note
    plot_w = max(width_hint - margin["l"] - margin["r"], 100)
    plot_h = max(height - margin["t"] - margin["b"], 100)
    font = 12 if len(names) <= 30 else 11
    px = _to_pixels(P, axes, plot_w, plot_h) if len(P) else np.zeros((0, 2))
    positions = _focus.place_names(px, names, sizes, priority, font_size=font,
                                   plot_size=(plot_w, plot_h), max_names=max_names)
    n_named = sum(p is not None for p in positions)
    parts = []
    if n_kept < n_total or e_kept < e_total:
        parts.append(f"showing {n_kept} of {n_total} labels and {e_kept} of {e_total} edges")
    if n_named < len(names):
        parts.append(f"names of {n_named} of {len(names)} drawn labels shown; hover a node for the others")
    note = None
    if parts:
        note = dict(text="<br>".join(esc(p) for p in parts), xref="paper", yref="paper", x=0.0, y=1.0,
                    xanchor="left", yanchor="bottom", align="left", showarrow=False,
                    font=dict(size=11, color="#555555"))
    meta = {"kind": "nodes", "names_hidden": len(names) - n_named, "labels_hidden": n_total - n_kept,
            "edges_hidden": e_total - e_kept, "labels_total": int(n_total), "edges_total": int(e_total),
            "width_hint": int(width_hint), "font_size": font}
    return positions, font, margin, note, meta


def _name_priority(driver, src, dst, n):
    """Who is named first: the endpoints of drawn edges (by ``driver``), then the other labels
    (by ``driver``) -- an isolated label's name never takes the place of an edge's end."""
    driver = np.asarray(driver, dtype=float)
    on_edge = np.zeros(n, dtype=bool)
    on_edge[np.asarray(src, dtype=int)] = True
    on_edge[np.asarray(dst, dtype=int)] = True
    finite = driver[np.isfinite(driver)]
    span = (float(np.abs(finite).max()) if finite.size else 0.0) * 2 + 1.0
    return driver + span * on_edge


def _totals(totals, n_labels, n_edges):
    """``(labels, edges)`` of the whole graph: ``totals`` when the one drawn from is a part of it."""
    if totals is None:
        return n_labels, n_edges
    t_labels, t_edges = (int(t) for t in totals)
    if t_labels < n_labels or t_edges < n_edges:
        raise ValueError(f"totals {tuple(totals)} are smaller than the graph given ({n_labels} labels, "
                         f"{n_edges} edges).")
    return t_labels, t_edges


def _community_colors(comm):
    palette = qualitative_colors(max(int(comm.max()) + 1, 1)) if len(comm) else []
    return [palette[c] if c >= 0 else "#BBBBBB" for c in comm.tolist()]


def label_graph_figure(graph, pos, *, label_names=None, title=None,
                       node_size=None, focus=None, radius=1, top_k=None,
                       min_abs_weight=None, max_edges=None, communities=False,
                       max_names=50, width_hint=650, totals=None):
    """The directed, signed label-dependency graph of a sparse CDN.

    Parameters
    ----------
    graph : networkx.DiGraph
        Nodes are labels (ints ``0..L-1`` or names); each edge ``u -> v`` has
        a ``weight`` attribute (e.g. the entry of V linking label u to label
        v, Guo & Xue, eq. (5)). Zero-weight edges and self-loops are ignored.
    pos : dict node -> (x, y), or array-like (L, 2)
        Node layout (e.g. ``networkx.spring_layout``, cached by the caller).
    label_names : sequence of str, optional
        Names for integer nodes.
    title : str, optional
    node_size : array-like (L,), optional
        Node size driver in node order (e.g. label frequencies); default:
        total degree. Also ranks the labels for ``top_k`` and name placement.
    focus : node or label name, optional
        Draw only the ego network of this label: the labels within
        ``radius`` edges of it (either direction).
    radius : int, default 1
    top_k : int, optional
        Draw only the ``top_k`` labels by ``node_size`` (default: weighted
        degree ``sum |w|``), keeping ``focus``.
    min_abs_weight : float, optional
        Draw only edges with ``|w| >= min_abs_weight``.
    max_edges : int, optional
        Draw only the ``max_edges`` strongest edges.
    communities : bool, default False
        Colour nodes by modularity community (networkx Louvain, seed 0).
    max_names : int, default 50
        At most this many names are written on the figure.
    width_hint : int, default 650
        Smallest expected plot width in pixels: names are placed so that no
        two overlap at this width (or any wider one) and the figure height.
        Endpoints of drawn edges are named before labels without a drawn edge.
    totals : (int, int), optional
        ``(labels, edges)`` of the whole graph when ``graph`` is a part of it
        (e.g. the subgraph of the labels chosen on the page): the note and the
        node trace's ``meta`` (``labels_total``, ``edges_total``) then count
        against the whole graph, so figure, caption and page text agree.

    Returns
    -------
    plotly.graph_objects.Figure
        Edge line traces (one per sign and width bucket; widths ∝ |weight|
        scaled to [1, 6] px; blue = positive, red = negative), an invisible
        marker trace at the edge midpoints carrying the edge hover, arrow
        annotations (<= 120 edges) or an ``"arrow"`` marker trace per sign,
        and a node trace last. Node names are drawn only where they fit
        (``text`` is ``""`` for the others, whose name is on hover); the node
        trace's ``meta`` counts the hidden names, labels and edges, and a note
        above the plot says what is hidden. Every name is HTML-escaped. With
        no edges: the nodes and a note. An undirected ``networkx.Graph`` is
        drawn the same way without arrows.
    """
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    P_all = _positions(nodes, pos)
    names_all = _node_names(nodes, label_names, dict(graph.nodes(data=True)))
    edges = [(index[u], index[v], float(d.get("weight", 1.0)))
             for u, v, d in graph.edges(data=True)
             if u != v and float(d.get("weight", 1.0)) != 0.0
             and np.isfinite(float(d.get("weight", 1.0)))]
    src = np.array([e[0] for e in edges], dtype=int)
    dst = np.array([e[1] for e in edges], dtype=int)
    w = np.array([e[2] for e in edges], dtype=float)
    score = None if node_size is None else np.asarray(node_size, dtype=float)
    kept, src, dst, w = _view(len(nodes), src, dst, w, focus=_resolve_focus(focus, nodes, names_all),
                              radius=radius, top_k=top_k, score=score,
                              min_abs_weight=min_abs_weight, max_edges=max_edges)
    P = P_all[kept]
    names = [names_all[i] for i in kept]

    # Offset reciprocal edges (u->v and v->u) to the right of their direction.
    Pe_src = P[src].copy() if len(src) else np.zeros((0, 2))
    Pe_dst = P[dst].copy() if len(dst) else np.zeros((0, 2))
    if len(src):
        key = src.astype(np.int64) * len(P) + dst
        rev = dst.astype(np.int64) * len(P) + src
        recip = np.isin(rev, key)
        d = P[dst] - P[src]
        norm = np.hypot(d[:, 0], d[:, 1])
        ok = recip & (norm > 0)
        off = np.zeros_like(d)
        off[ok] = 0.012 * _layout_extent(P) * np.column_stack([d[ok, 1], -d[ok, 0]]) / norm[ok, None]
        Pe_src += off
        Pe_dst += off
    Q = np.vstack([Pe_src, Pe_dst]) if len(src) else np.zeros((0, 2))
    qs, qd = np.arange(len(src)), np.arange(len(src)) + len(src)

    # Traces and layout are collected and the figure is built in one call: plotly validates
    # that several times faster than a figure updated trace by trace.
    allw = edge_widths(np.abs(w))
    data = _signed_edge_traces(Q, qs, qd, allw, w > 0, w < 0)
    annotations = []
    if len(src):
        mid = 0.5 * (Pe_src + Pe_dst)
        en = esc_all(names)
        hover = [f"{en[a]} → {en[b]}<br>weight = {x:+.4g}" for a, b, x in zip(src, dst, w)]
        data.append(go.Scatter(
            x=mid[:, 0], y=mid[:, 1], mode="markers", hovertext=hover,
            hoverinfo="text", marker=dict(size=10, opacity=0),
            showlegend=False, name="edge info", meta={"kind": "edge-hover"}))
        if graph.is_directed():
            arrow_annotations, arrow_traces = _arrows(Pe_src, Pe_dst, w, allw)
            annotations += arrow_annotations
            data += arrow_traces

    n = len(names)
    indeg = np.bincount(dst, minlength=n)
    outdeg = np.bincount(src, minlength=n)
    ins, outs = _top3(dst, src, w, n, names), _top3(src, dst, w, n, names)
    comm = _focus.communities(n, src, dst, w) if communities else None
    node_hover = [
        f"<b>{esc(name)}</b><br>in-degree {indeg[i]}: strongest {ins[i]}"
        f"<br>out-degree {outdeg[i]}: strongest {outs[i]}"
        + ("" if comm is None else (f"<br>community {comm[i] + 1}" if comm[i] >= 0 else "<br>no community"))
        for i, name in enumerate(names)]
    driver = indeg + outdeg if node_size is None else np.asarray(node_size, dtype=float)[kept]
    sizes = _node_sizes(driver)
    axes = _hidden_axes(P)
    strength = np.bincount(src, weights=np.abs(w), minlength=n) + np.bincount(dst, weights=np.abs(w), minlength=n)
    priority = _name_priority(np.asarray(driver, dtype=float) + 1e-9 * strength, src, dst, n)
    if focus is not None:
        priority[list(kept).index(_resolve_focus(focus, nodes, names_all))] = np.inf
    height = 600
    n_total, e_total = _totals(totals, len(nodes), len(edges))
    positions, font, margin, note, meta = _names_and_notes(
        P, names, sizes, priority, axes, height=height, width_hint=width_hint, max_names=max_names,
        title=title, n_total=n_total, n_kept=n, e_total=e_total, e_kept=len(src))
    data.append(_node_trace(P, names, sizes, node_hover, positions=positions, font_size=font,
                            colors=None if comm is None else _community_colors(comm), meta=meta))
    if note:
        annotations.append(note)
    if not len(src):
        annotations.append(note_annotation("No edges: every label is modelled independently "
                                           "(try a smaller γ)" if not len(edges) else
                                           "No edge passes the filters", y=0.02))
    layout = dict(annotations=annotations, **axes,
                  legend=dict(title=dict(text="edges (width ∝ |weight|)", side="top"),
                              orientation="h", y=-0.02, yanchor="top"))
    lay = layout_dict(title=title, height=height, **layout)
    lay["margin"] = margin
    return go.Figure(data=data, layout=lay)


def community_graph_figure(graph, pos, *, label_names=None, title=None, node_size=None,
                           min_abs_weight=None, max_edges=None, expand=None, top_members=5,
                           max_names=50, width_hint=650, groups=None):
    """The label graph with each modularity community collapsed into one node.

    Communities are those of ``label_graph_figure(..., communities=True)``
    (networkx Louvain, seed 0, edges undirected with weight ``|w|``), here with
    Louvain's one-label communities kept (drawn as that label). Each community
    is drawn as one super-node at the centroid of its members' positions, its
    marker diameter growing with the square root of its number of labels;
    ``expand`` draws one community as its member labels instead.

    Parameters
    ----------
    graph : networkx.DiGraph or networkx.Graph
        As in :func:`label_graph_figure`.
    pos : dict node -> (x, y), or array-like (L, 2)
    label_names : sequence of str, optional
    title : str, optional
    node_size : array-like (L,), optional
        Ranks the members listed on a community's hover (default: weighted
        degree ``sum |w|``), e.g. label frequencies.
    min_abs_weight : float, optional
        Only edges with ``|w| >= min_abs_weight`` count (for the communities too).
    max_edges : int, optional
        Draw only the ``max_edges`` strongest community-to-community edges.
    expand : int, optional
        Index of the community (0-based, in the order of the hover's
        "community k" minus one: by decreasing size) drawn as its labels.
    top_members : int, default 5
        Member names listed on a community's hover.
    max_names, width_hint
        As in :func:`label_graph_figure`.
    groups : list of int arrays, optional
        The communities (member node indices, by decreasing size) when the
        caller has them already (``mlviz.dashboard.focus.graph_communities``
        of the same graph and ``min_abs_weight``): Louvain is not rerun.

    Returns
    -------
    plotly.graph_objects.Figure
        Grey undirected line traces (width ∝ summed ``|w|`` of the member
        edges between two drawn nodes, both directions; ``meta["kind"] ==
        "edges"``), an invisible edge-hover trace, and a node trace whose
        ``meta`` holds ``collapsed=True``, ``n_communities``, ``members``
        (labels per drawn node), ``labels_hidden`` (labels not drawn as their
        own node: inside a collapsed community or without edges),
        ``labels_isolated``, ``inner_edges`` (edges inside collapsed
        communities), ``names_hidden`` and ``edges_hidden``. A note above the
        plot states these counts.
    """
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    P_all = _positions(nodes, pos)
    names_all = _node_names(nodes, label_names, dict(graph.nodes(data=True)))
    n_all = len(nodes)
    edges = [(index[u], index[v], float(d.get("weight", 1.0))) for u, v, d in graph.edges(data=True)
             if u != v and float(d.get("weight", 1.0)) != 0.0 and np.isfinite(float(d.get("weight", 1.0)))]
    src = np.array([e[0] for e in edges], dtype=int)
    dst = np.array([e[1] for e in edges], dtype=int)
    w = np.array([e[2] for e in edges], dtype=float)
    keep = _focus.select_edges(w, min_abs_weight=min_abs_weight)
    src, dst, w = src[keep], dst[keep], w[keep]
    if groups is None:
        comm = _focus.communities(n_all, src, dst, w, singletons=True)
    else:
        comm = np.full(n_all, -1, dtype=np.int64)
        for c, members in enumerate(groups):
            comm[np.asarray(members, dtype=int)] = c
    n_comm = int(comm.max()) + 1 if n_all else 0
    expand_set = [int(expand)] if expand is not None and 0 <= int(expand) < n_comm else []
    q = _focus.collapse_communities(n_all, src, dst, w, comm, expand=expand_set)
    groups, gcomm, gexp = q["groups"], q["community"], q["expanded"]
    counts = np.array([len(g) for g in groups], dtype=int)
    P = np.array([P_all[g].mean(axis=0) for g in groups]).reshape(len(groups), 2)
    score = (np.bincount(src, weights=np.abs(w), minlength=n_all) + np.bincount(dst, weights=np.abs(w), minlength=n_all)
             if node_size is None else np.asarray(node_size, dtype=float))
    names, hover = [], []
    for _g, members, c, ex in zip(range(len(groups)), groups, gcomm, gexp):
        if len(members) == 1:
            v = int(members[0])
            names.append(names_all[v])
            hover.append(f"<b>{esc(names_all[v])}</b><br>community {c + 1}"
                         + (" (expanded)" if ex else " (one label)"))
            continue
        top = members[np.argsort(-score[members], kind="stable")][:top_members]
        more = len(members) - len(top)
        names.append(f"C{c + 1} · {len(members)} labels")
        hover.append(f"<b>community {c + 1}</b>: {len(members)} labels<br>top: "
                     + ", ".join(esc(names_all[v]) for v in top) + (f" (+{more} more)" if more else ""))
    kept_e = _focus.select_edges(q["weight"], max_edges=max_edges)
    es, ed, ew, ek = q["src"][kept_e], q["dst"][kept_e], q["weight"][kept_e], q["n_edges"][kept_e]
    data = _edge_line_traces(P, es, ed, ew, sign="0", color=NEUTRAL_EDGE_COLOR,
                             legend_name="summed |weight| between communities")
    if len(es):
        en = esc_all(names)
        mid = 0.5 * (P[es] + P[ed])
        data.append(go.Scatter(
            x=mid[:, 0], y=mid[:, 1], mode="markers", hoverinfo="text", marker=dict(size=10, opacity=0),
            hovertext=[f"{en[a]} – {en[b]}<br>summed |weight| = {x:.4g} over {k} edge{'s' if k != 1 else ''}"
                       for a, b, x, k in zip(es, ed, ew, ek)],
            showlegend=False, name="edge info", meta={"kind": "edge-hover"}))
    sizes = np.clip(8.0 + 6.0 * np.sqrt(counts), 8.0, 60.0) if len(counts) else np.zeros(0)
    axes = _hidden_axes(P)
    priority = counts + 1e-9 * np.bincount(np.r_[es, ed], weights=np.r_[ew, ew], minlength=len(groups))
    height = 600
    margin = dict(l=10, r=10, t=(70 if title else 40) + 28, b=40)
    plot_w, plot_h = max(width_hint - 20, 100), max(height - margin["t"] - margin["b"], 100)
    font = 12 if len(names) <= 30 else 11
    px = _to_pixels(P, axes, plot_w, plot_h) if len(P) else np.zeros((0, 2))
    positions = _focus.place_names(px, names, sizes, priority, font_size=font, plot_size=(plot_w, plot_h),
                                   max_names=max_names)
    n_named = sum(p is not None for p in positions)
    collapsed = int((~gexp & (counts > 1)).sum())
    in_collapsed = int(counts[~gexp & (counts > 1)].sum())
    isolated = int((comm < 0).sum())
    parts = [f"{collapsed} communities of {in_collapsed} labels drawn as one node each"
             f" (hover one for its members, or expand it)"]
    if isolated:
        parts.append(f"{isolated} of {n_all} labels have no edge and are not drawn")
    if len(es) < len(q["src"]):
        parts.append(f"{len(es)} of {len(q['src'])} links between communities drawn")
    if n_named < len(names):
        parts.append(f"names of {n_named} of {len(names)} nodes shown; hover a node for the others")
    note = dict(text="<br>".join(esc(p) for p in parts), xref="paper", yref="paper", x=0.0, y=1.0,
                xanchor="left", yanchor="bottom", align="left", showarrow=False,
                font=dict(size=11, color="#555555"))
    meta = {"kind": "nodes", "collapsed": True, "n_communities": n_comm, "members": counts.tolist(),
            "labels_hidden": n_all - int(counts[gexp | (counts == 1)].sum()), "labels_isolated": isolated,
            "inner_edges": int(q["inner_edges"]), "names_hidden": len(names) - n_named,
            "edges_hidden": int(len(q["src"]) - len(es)), "width_hint": int(width_hint), "font_size": font}
    colors = _community_colors(gcomm) if len(gcomm) else []
    data.append(_node_trace(P, names, sizes, hover, positions=positions, font_size=font, colors=colors, meta=meta))
    annotations = [note]
    if not len(groups):
        annotations.append(note_annotation("No edges: no communities to draw (try a smaller γ or |weight|)",
                                           y=0.02))
    lay = layout_dict(title=title, height=height, annotations=annotations, **axes, showlegend=False)
    lay["margin"] = margin
    return go.Figure(data=data, layout=lay)


def _signed_edge_traces(Q, qs, qd, widths, pos_mask, neg_mask):
    """Line traces per sign and width bucket (widths on the global |w| scale)."""
    new = []
    idx, levels = _bucket(widths)
    for mask, sign, color, label in (
            (pos_mask, "+", POSITIVE_COLOR, "positive weight"),
            (neg_mask, "-", NEGATIVE_COLOR, "negative weight")):
        first = True
        for b in range(len(levels)):
            sel = np.flatnonzero(mask & (idx == b))
            if sel.size == 0:
                continue
            xs, ys = _segments(Q, qs[sel], qd[sel])
            new.append(go.Scatter(
                x=xs, y=ys, mode="lines", hoverinfo="skip",
                line=dict(width=float(levels[b]), color=color), opacity=EDGE_OPACITY,
                name=label, legendgroup=label, showlegend=first,
                meta={"kind": "edges", "sign": sign, "n_edges": int(sel.size)}))
            first = False
    return new


def _arrows(A, B, w, widths):
    """Arrow heads at 3/4 of each edge: ``(annotations, traces)`` (annotations
    up to :data:`MAX_ARROW_ANNOTATIONS` edges, else rotated marker traces)."""
    head = A + 0.75 * (B - A)
    if len(w) <= MAX_ARROW_ANNOTATIONS:
        # The shaft (from 55 %: plotly hides an arrow shorter than its head) is at most _HEAD_WIDTH px wide and
        # of the colour the line shows on white (its colour at the lines' opacity), so it disappears into
        # the line instead of darkening a fifth of it. The head grows slowly with the line (plotly's head
        # is arrowwidth × arrowsize): 2.5 units on a 1-px line, 4 on a 6-px one (was 5.8, and covered
        # short thick edges).
        tail = A + 0.55 * (B - A)
        aw = np.clip(widths, 1.0, _HEAD_WIDTH)
        arrows = [dict(
            x=float(hx), y=float(hy), ax=float(tx), ay=float(ty), xref="x",
            yref="y", axref="x", ayref="y", text="", showarrow=True,
            arrowhead=2, arrowwidth=float(a), arrowsize=float((2.2 + 0.3 * max(lw, 1.0)) / a),
            arrowcolor=_ARROW_POSITIVE if x > 0 else _ARROW_NEGATIVE)
            for (hx, hy), (tx, ty), x, lw, a in zip(head, tail, w, widths, aw)]
        return arrows, []
    d = B - A
    angle = np.degrees(np.arctan2(d[:, 0], d[:, 1]))  # clockwise from up
    traces = []
    for mask, color, sign in ((w > 0, POSITIVE_COLOR, "+"),
                              (w < 0, NEGATIVE_COLOR, "-")):
        if not mask.any():
            continue
        traces.append(go.Scatter(
            x=head[mask, 0], y=head[mask, 1], mode="markers", hoverinfo="skip",
            marker=dict(symbol="arrow", size=9 + 0.8 * widths[mask],
                        angle=angle[mask], color=color),
            showlegend=False, name=f"direction {sign}",
            meta={"kind": "arrows", "sign": sign}))
    return [], traces


def cooccurrence_graph_figure(cooccurrence, label_names, pos, *, min_count=1,
                              title=None, focus=None, radius=1, top_k=None, max_edges=None,
                              communities=False, max_names=50, width_hint=650, totals=None):
    """Undirected graph of label co-occurrence counts, for contrast.

    Parameters
    ----------
    cooccurrence : array-like, shape (L, L)
        Counts ``Y^T Y`` (diagonal = label frequencies).
    label_names : sequence of str, length L
    pos : dict (label index or name) -> (x, y), or array-like (L, 2)
        Layout, ideally the same as the label graph's.
    min_count : int or None, default 1
        Draw an edge i - j when ``C_ij >= max(min_count, 1)``; ``None`` uses
        :func:`default_min_count` (from the pair counts: the strongest few
        pairs, never empty when two labels co-occur).
    title : str, optional
    focus, radius, top_k, max_edges, communities, max_names, width_hint, totals
        As in :func:`label_graph_figure` (``top_k`` ranks labels by frequency;
        ``totals`` counts the pairs of the whole data set at ``min_count``).

    Returns
    -------
    plotly.graph_objects.Figure
        Grey line traces (one per width bucket, width ∝ count in [1, 6] px,
        ``meta["sign"] == "0"``), an invisible edge-hover trace and a node
        trace sized by label frequency, names placed as in
        :func:`label_graph_figure`. With no edges: nodes and a note.
    """
    C = np.asarray(cooccurrence, dtype=float)
    names_all = [str(s) for s in label_names]
    L = len(names_all)
    if C.shape != (L, L):
        raise ValueError(f"cooccurrence must be ({L}, {L}), got {C.shape}.")
    if min_count is None:
        min_count = _focus.default_min_count(C)
    if isinstance(pos, dict) and pos and all(isinstance(k, str) for k in pos):
        where = {nm: i for i, nm in enumerate(names_all)}
        pos = {where[k]: v for k, v in pos.items() if k in where}
    P_all = _positions(range(L), pos)
    iu, ju = np.triu_indices(L, k=1)
    cut = max(min_count, 1)
    keep = C[iu, ju] >= cut
    src, dst, cnt = iu[keep], ju[keep], C[iu, ju][keep]
    freq_all = np.diag(C)
    kept, src, dst, cnt = _view(L, src, dst, cnt, focus=_resolve_focus(focus, list(range(L)), names_all),
                                radius=radius, top_k=top_k, score=freq_all, min_abs_weight=None,
                                max_edges=max_edges)
    P = P_all[kept]
    names = [names_all[i] for i in kept]
    n = len(names)
    en = esc_all(names)
    data = _edge_line_traces(P, src, dst, cnt, sign="0", color=NEUTRAL_EDGE_COLOR,
                             legend_name="co-occurrence")
    if len(src):
        mid = 0.5 * (P[src] + P[dst])
        data.append(go.Scatter(
            x=mid[:, 0], y=mid[:, 1], mode="markers",
            hovertext=[f"{en[a]} – {en[b]}<br>{int(c):,} instances with both"
                       for a, b, c in zip(src, dst, cnt)],
            hoverinfo="text", marker=dict(size=10, opacity=0), showlegend=False,
            name="edge info", meta={"kind": "edge-hover"}))
    freq = freq_all[kept]
    deg = np.bincount(np.concatenate([src, dst]), minlength=n)
    both_src, both_dst = np.r_[src, dst], np.r_[dst, src]
    top = _top3(both_src, both_dst, np.r_[cnt, cnt], n, names, fmt="{:,.0f}")
    comm = _focus.communities(n, src, dst, cnt) if communities else None
    hover = [f"<b>{en[i]}</b><br>{int(freq[i]):,} instances"
             f"<br>degree {deg[i]}; most with: {top[i]}"
             + ("" if comm is None else (f"<br>community {comm[i] + 1}" if comm[i] >= 0 else "<br>no community"))
             for i in range(n)]
    sizes = _node_sizes(freq)
    axes = _hidden_axes(P)
    priority = _name_priority(freq.astype(float), src, dst, n)
    if focus is not None:
        priority[list(kept).index(_resolve_focus(focus, list(range(L)), names_all))] = np.inf
    height = 600
    n_total, e_total = _totals(totals, L, int(keep.sum()))
    positions, font, margin, note, meta = _names_and_notes(
        P, names, sizes, priority, axes, height=height, width_hint=width_hint, max_names=max_names,
        title=title, n_total=n_total, n_kept=n, e_total=e_total, e_kept=len(src))
    data.append(_node_trace(P, names, sizes, hover, positions=positions, font_size=font,
                            colors=None if comm is None else _community_colors(comm), meta=meta))
    annotations = [note] if note else []
    if not len(src):
        annotations.append(note_annotation(f"No pair of labels co-occurs at least {cut:,}"
                                           " time(s)", y=0.02))
    lay = layout_dict(title=title, height=height, annotations=annotations, **axes, showlegend=False)
    lay["margin"] = margin
    return go.Figure(data=data, layout=lay)


def default_min_count(cooccurrence, *, target_edges=None):
    """Default minimum pair count for :func:`cooccurrence_graph_figure`
    (see :func:`mlviz.plotting._graph_focus.default_min_count`)."""
    return _focus.default_min_count(cooccurrence, target_edges=target_edges)


def _layout_extent(P):
    if len(P) == 0:
        return 1.0
    span = np.ptp(P, axis=0)
    return float(max(span.max(), 1e-9))


def label_communities(n_labels, src, dst, weight, *, singletons=False):
    """Louvain communities of a label graph given as edge arrays (the public name of
    :func:`mlviz.plotting._graph_focus.communities`, used by the dashboard's collapsed view)."""
    return _focus.communities(n_labels, src, dst, weight, singletons=singletons)
