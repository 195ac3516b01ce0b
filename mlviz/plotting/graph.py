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

from ._style import (
    NEGATIVE_COLOR, NEUTRAL_EDGE_COLOR, NODE_COLOR, POSITIVE_COLOR, layout_dict,
    note_annotation,
)

__all__ = ["label_graph_figure", "cooccurrence_graph_figure",
           "MAX_ARROW_ANNOTATIONS"]

#: Up to this many directed edges, arrows are plotly annotations (nicer
#: heads); above, rotated markers. plotly validates each annotation (~1 ms),
#: so this bound keeps a graph figure well under 0.2 s to build.
MAX_ARROW_ANNOTATIONS = 120
_N_WIDTH_BUCKETS = 5
_MIN_WIDTH, _MAX_WIDTH = 1.0, 6.0


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
            opacity=0.75, name=legend_name, legendgroup=legend_name,
            showlegend=first,
            meta={"kind": "edges", "sign": sign, "n_edges": int(sel.size)},
        ))
        first = False
    return traces


def _layout_extent(P):
    if len(P) == 0:
        return 1.0
    span = np.ptp(P, axis=0)
    return float(max(span.max(), 1e-9))


def _hidden_axes(P):
    """Layout of hidden axes, 1:1 aspect, padded so node names fit."""
    xaxis = dict(visible=False, showgrid=False, zeroline=False)
    yaxis = dict(visible=False, showgrid=False, zeroline=False, scaleanchor="x", scaleratio=1)
    if len(P):
        lo, hi = P.min(axis=0), P.max(axis=0)
        pad = 0.18 * max(float((hi - lo).max()), 1e-9)
        xaxis["range"] = [lo[0] - pad, hi[0] + pad]
        yaxis["range"] = [lo[1] - pad, hi[1] + pad]
    return dict(xaxis=xaxis, yaxis=yaxis)


def _node_sizes(values):
    v = np.sqrt(np.maximum(np.asarray(values, dtype=float), 0.0))
    if v.size == 0 or np.ptp(v) == 0:
        return np.full(v.shape, 16.0)
    return 10.0 + 22.0 * (v - v.min()) / np.ptp(v)


def _text_positions(P):
    """Put node names on the side facing away from the layout centre."""
    if len(P) <= 12:
        return "top center"
    d = P - P.mean(axis=0)
    ang = np.degrees(np.arctan2(d[:, 1], d[:, 0]))
    out = []
    for a in ang:
        if -45 <= a < 45:
            out.append("middle right")
        elif 45 <= a < 135:
            out.append("top center")
        elif -135 <= a < -45:
            out.append("bottom center")
        else:
            out.append("middle left")
    return out


def _node_trace(P, names, sizes, hover):
    n = len(names)
    return go.Scatter(
        x=P[:, 0], y=P[:, 1], mode="markers+text", text=names,
        textposition=_text_positions(P), hovertext=hover, hoverinfo="text",
        textfont=dict(size=12 if n <= 20 else (10 if n <= 40 else 9)),
        marker=dict(size=sizes, color=NODE_COLOR,
                    line=dict(width=1.5, color="white")),
        name="labels", meta={"kind": "nodes"}, showlegend=False,
        cliponaxis=False,
    )


def _strongest(items, k=3):
    items = sorted(items, key=lambda t: -abs(t[1]))[:k]
    return ", ".join(f"{name} ({w:+.3g})" for name, w in items) or "none"


def label_graph_figure(graph, pos, *, label_names=None, title=None,
                       node_size=None):
    """The directed, signed label-dependency graph of a sparse CDN.

    Parameters
    ----------
    graph : networkx.DiGraph
        Nodes are labels (ints ``0..L-1`` or names); each edge ``u -> v`` has
        a ``weight`` attribute (e.g. the entry of V linking label u to label
        v, paper 001 eq. (5)). Zero-weight edges and self-loops are ignored.
    pos : dict node -> (x, y), or array-like (L, 2)
        Node layout (e.g. ``networkx.spring_layout``, cached by the caller).
    label_names : sequence of str, optional
        Names for integer nodes.
    title : str, optional
    node_size : array-like (L,), optional
        Node size driver in node order (e.g. label frequencies); default:
        total degree.

    Returns
    -------
    plotly.graph_objects.Figure
        Edge line traces (one per sign and width bucket; widths ∝ |weight|
        scaled to [1, 6] px; blue = positive, red = negative), an invisible
        marker trace at the edge midpoints carrying the edge hover, arrow
        annotations (<= 120 edges) or an ``"arrow"`` marker trace per sign,
        and a node trace whose hover shows in/out degree and the strongest
        in/out edges. With no edges: the nodes and a note. An undirected
        ``networkx.Graph`` is drawn the same way without arrows.
    """
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    P = _positions(nodes, pos)
    names = _node_names(nodes, label_names, dict(graph.nodes(data=True)))
    edges = [(index[u], index[v], float(d.get("weight", 1.0)))
             for u, v, d in graph.edges(data=True)
             if u != v and float(d.get("weight", 1.0)) != 0.0
             and np.isfinite(float(d.get("weight", 1.0)))]
    src = np.array([e[0] for e in edges], dtype=int)
    dst = np.array([e[1] for e in edges], dtype=int)
    w = np.array([e[2] for e in edges], dtype=float)

    # Offset reciprocal edges (u->v and v->u) to the right of their direction.
    Pe_src = P[src].copy() if len(src) else np.zeros((0, 2))
    Pe_dst = P[dst].copy() if len(dst) else np.zeros((0, 2))
    pairs = set(zip(src.tolist(), dst.tolist()))
    extent = _layout_extent(P)
    for k, (a, b) in enumerate(zip(src, dst)):
        if (b, a) in pairs:
            d = P[b] - P[a]
            norm = np.hypot(*d)
            if norm > 0:
                off = 0.012 * extent * np.array([d[1], -d[0]]) / norm
                Pe_src[k] += off
                Pe_dst[k] += off
    # Build the segment end points as a stacked position array.
    Q = np.vstack([Pe_src, Pe_dst]) if len(src) else np.zeros((0, 2))
    qs, qd = np.arange(len(src)), np.arange(len(src)) + len(src)

    # Traces and layout are collected and the figure is built in one call: plotly validates
    # that several times faster than a figure updated trace by trace.
    allw = edge_widths(np.abs(w))
    pos_mask, neg_mask = w > 0, w < 0
    data = _signed_edge_traces(Q, qs, qd, allw, pos_mask, neg_mask)
    annotations = []
    if len(src):
        mid = 0.5 * (Pe_src + Pe_dst)
        hover = [f"{names[a]} → {names[b]}<br>weight = {x:+.4g}"
                 for a, b, x in zip(src, dst, w)]
        data.append(go.Scatter(
            x=mid[:, 0], y=mid[:, 1], mode="markers", hovertext=hover,
            hoverinfo="text", marker=dict(size=10, opacity=0),
            showlegend=False, name="edge info", meta={"kind": "edge-hover"}))
        if graph.is_directed():
            arrow_annotations, arrow_traces = _arrows(Pe_src, Pe_dst, w, allw)
            annotations += arrow_annotations
            data += arrow_traces

    indeg = np.bincount(dst, minlength=len(nodes))
    outdeg = np.bincount(src, minlength=len(nodes))
    node_hover = []
    for i, name in enumerate(names):
        ins = [(names[a], x) for a, b, x in zip(src, dst, w) if b == i]
        outs = [(names[b], x) for a, b, x in zip(src, dst, w) if a == i]
        node_hover.append(
            f"<b>{name}</b><br>in-degree {indeg[i]}: strongest {_strongest(ins)}"
            f"<br>out-degree {outdeg[i]}: strongest {_strongest(outs)}")
    sizes = _node_sizes(indeg + outdeg if node_size is None else node_size)
    data.append(_node_trace(P, names, sizes, node_hover))
    if not len(src):
        annotations.append(note_annotation("No edges: every label is modelled independently "
                                           "(try a smaller γ)", y=0.02))
    layout = dict(annotations=annotations, **_hidden_axes(P),
                  legend=dict(title=dict(text="edges (width ∝ |weight|)"),
                              orientation="h", y=-0.02, yanchor="top"))
    return go.Figure(data=data, layout=layout_dict(title=title, height=600, **layout))


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
                line=dict(width=float(levels[b]), color=color), opacity=0.75,
                name=label, legendgroup=label, showlegend=first,
                meta={"kind": "edges", "sign": sign, "n_edges": int(sel.size)}))
            first = False
    return new


def _arrows(A, B, w, widths):
    """Arrow heads at 3/4 of each edge: ``(annotations, traces)`` (annotations
    up to :data:`MAX_ARROW_ANNOTATIONS` edges, else rotated marker traces)."""
    head = A + 0.75 * (B - A)
    if len(w) <= MAX_ARROW_ANNOTATIONS:
        tail = A + 0.55 * (B - A)
        arrows = [dict(
            x=float(hx), y=float(hy), ax=float(tx), ay=float(ty), xref="x",
            yref="y", axref="x", ayref="y", text="", showarrow=True,
            arrowhead=2, arrowwidth=float(max(lw, 1.0)),
            arrowsize=float(np.clip(2.2 / max(lw, 1.0) + 0.6, 0.8, 2.2)),
            arrowcolor=POSITIVE_COLOR if x > 0 else NEGATIVE_COLOR, opacity=0.9)
            for (hx, hy), (tx, ty), x, lw in zip(head, tail, w, widths)]
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
                              title=None):
    """Undirected graph of label co-occurrence counts, for contrast.

    Parameters
    ----------
    cooccurrence : array-like, shape (L, L)
        Counts ``Y^T Y`` (diagonal = label frequencies).
    label_names : sequence of str, length L
    pos : dict (label index or name) -> (x, y), or array-like (L, 2)
        Layout, ideally the same as the label graph's.
    min_count : int, default 1
        Draw an edge i - j when ``C_ij >= max(min_count, 1)``.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Grey line traces (one per width bucket, width ∝ count in [1, 6] px,
        ``meta["sign"] == "0"``), an invisible edge-hover trace and a node
        trace sized by label frequency. With no edges: nodes and a note.
    """
    C = np.asarray(cooccurrence, dtype=float)
    names = [str(s) for s in label_names]
    L = len(names)
    if C.shape != (L, L):
        raise ValueError(f"cooccurrence must be ({L}, {L}), got {C.shape}.")
    if isinstance(pos, dict) and pos and all(isinstance(k, str) for k in pos):
        pos = {names.index(k): v for k, v in pos.items() if k in names}
    P = _positions(range(L), pos)
    iu, ju = np.triu_indices(L, k=1)
    keep = C[iu, ju] >= max(min_count, 1)
    src, dst, cnt = iu[keep], ju[keep], C[iu, ju][keep]
    data = _edge_line_traces(P, src, dst, cnt, sign="0", color=NEUTRAL_EDGE_COLOR,
                             legend_name="co-occurrence")
    if len(src):
        mid = 0.5 * (P[src] + P[dst])
        data.append(go.Scatter(
            x=mid[:, 0], y=mid[:, 1], mode="markers",
            hovertext=[f"{names[a]} – {names[b]}<br>{int(c)} instances with both"
                       for a, b, c in zip(src, dst, cnt)],
            hoverinfo="text", marker=dict(size=10, opacity=0), showlegend=False,
            name="edge info", meta={"kind": "edge-hover"}))
    freq = np.diag(C)
    deg = np.bincount(np.concatenate([src, dst]), minlength=L)
    hover = []
    for i in range(L):
        row = [(names[j], C[i, j]) for j in range(L)
               if j != i and C[i, j] >= max(min_count, 1)]
        top = sorted(row, key=lambda t: -t[1])[:3]
        top_s = ", ".join(f"{n} ({int(c)})" for n, c in top) or "none"
        hover.append(f"<b>{names[i]}</b><br>{int(freq[i])} instances"
                     f"<br>degree {deg[i]}; most with: {top_s}")
    data.append(_node_trace(P, names, _node_sizes(freq), hover))
    annotations = []
    if not len(src):
        annotations.append(note_annotation(f"No pair of labels co-occurs at least {max(min_count, 1)}"
                                           " time(s)", y=0.02))
    layout = dict(annotations=annotations, **_hidden_axes(P), showlegend=False)
    return go.Figure(data=data, layout=layout_dict(title=title, height=600, **layout))
