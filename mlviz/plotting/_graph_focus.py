"""Focus and legibility for label graphs with 100-1,000 labels.

* :func:`select_edges` / :func:`select_nodes` -- which edges and labels a
  graph figure draws (edge-weight threshold, the strongest k edges, the top-k
  labels by weighted degree, the ego network of one label);
* :func:`communities` -- modularity communities (networkx) for colouring;
* :func:`collapse_communities` -- each community as one super-node (edges
  between communities = summed ``|w|`` of their member edges), with chosen
  communities expanded into their labels;
* :func:`place_names` -- which node names can be drawn without overlapping
  each other or other nodes, and on which side of their node;
* :func:`default_min_count` -- the co-occurrence graph's default minimum
  pair count, read from the PAIR counts so the default graph is non-empty.

Geometry: the figure keeps a 1:1 aspect ratio (``scaleanchor``), so one data
unit is ``min(plot_width / x_span, plot_height / y_span)`` pixels. Names are
placed for a plot area of at least ``width_hint`` x ``height`` pixels; on a
wider plot the nodes move apart while the names keep their pixel size, so
names that do not overlap at the hinted size never overlap on a larger one.
"""

from __future__ import annotations

import numpy as np

__all__ = ["select_edges", "select_nodes", "communities", "collapse_communities", "place_names", "text_box",
           "default_min_count", "CHAR_WIDTH", "LINE_HEIGHT", "NAME_GAP"]

#: Average glyph width / font size used to estimate a name's width (Arial and
#: Open Sans average ~0.55; 0.62 errs on the wide side).
CHAR_WIDTH = 0.62
#: Line height / font size.
LINE_HEIGHT = 1.3
#: Pixels between a node marker's edge and its name (plotly uses ~3 px).
NAME_GAP = 3.0

#: textposition -> unit direction of the name from its node (x right, y up).
_SIDES = {"middle right": (1, 0), "middle left": (-1, 0), "top center": (0, 1), "bottom center": (0, -1)}


def select_edges(weights, *, min_abs_weight=None, max_edges=None):
    """Boolean mask of the edges kept: ``|w| >= min_abs_weight`` and among the
    ``max_edges`` largest ``|w|`` (ties broken by input order).

    Parameters
    ----------
    weights : array-like, shape (m,)
    min_abs_weight : float, optional
    max_edges : int, optional

    Returns
    -------
    ndarray of bool, shape (m,)
    """
    a = np.abs(np.asarray(weights, dtype=float))
    keep = np.ones(a.shape, dtype=bool)
    if min_abs_weight is not None:
        keep &= a >= float(min_abs_weight)
    if max_edges is not None and keep.sum() > max(int(max_edges), 0):
        idx = np.flatnonzero(keep)
        order = idx[np.argsort(-a[idx], kind="stable")]
        keep[:] = False
        keep[order[:max(int(max_edges), 0)]] = True
    return keep


def select_nodes(n_nodes, src, dst, weights, *, focus=None, radius=1, top_k=None, score=None):
    """Boolean mask of the nodes kept: the ego network of ``focus`` (all nodes
    within ``radius`` hops, edges taken as undirected), then the ``top_k``
    by ``score`` (default: weighted degree, the sum of ``|w|`` over incident
    edges), always keeping ``focus``.

    Parameters
    ----------
    n_nodes : int
    src, dst : ndarray of int, shape (m,)
    weights : ndarray of float, shape (m,)
    focus : int, optional
    radius : int, default 1
    top_k : int, optional
    score : array-like, shape (n_nodes,), optional

    Returns
    -------
    ndarray of bool, shape (n_nodes,)
    """
    keep = np.ones(n_nodes, dtype=bool)
    src = np.asarray(src, dtype=int)
    dst = np.asarray(dst, dtype=int)
    if focus is not None:
        reach = np.zeros(n_nodes, dtype=bool)
        reach[int(focus)] = True
        for _ in range(max(int(radius), 0)):
            new = reach.copy()
            new[dst[reach[src]]] = True
            new[src[reach[dst]]] = True
            if (new == reach).all():
                break
            reach = new
        keep &= reach
    if top_k is not None and keep.sum() > int(top_k):
        if score is None:
            a = np.abs(np.asarray(weights, dtype=float))
            score = np.bincount(src, weights=a, minlength=n_nodes) + np.bincount(dst, weights=a, minlength=n_nodes)
        s = np.where(keep, np.asarray(score, dtype=float), -np.inf)
        if focus is not None:
            s[int(focus)] = np.inf
        chosen = np.argsort(-s, kind="stable")[:max(int(top_k), 0)]
        keep = np.zeros(n_nodes, dtype=bool)
        keep[chosen] = True
    return keep


def communities(n_nodes, src, dst, weights, *, seed=0, singletons=False):
    """Community index per node (modularity, networkx Louvain with a fixed seed).

    Edges are taken as undirected with weight ``|w|``. Communities are numbered
    by decreasing size (ties: smallest member first); nodes without edges get
    -1, and so do Louvain's one-label communities unless ``singletons``.

    Returns
    -------
    ndarray of int64, shape (n_nodes,)
    """
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(n_nodes))
    for a, b, w in zip(np.asarray(src).tolist(), np.asarray(dst).tolist(), np.abs(weights).tolist()):
        if a != b:
            G.add_edge(a, b, weight=G[a][b]["weight"] + w if G.has_edge(a, b) else w)
    out = np.full(n_nodes, -1, dtype=np.int64)
    if G.number_of_edges() == 0:
        return out
    groups = nx.community.louvain_communities(G, weight="weight", seed=seed)
    groups = sorted((sorted(g) for g in groups if len(g) > 1 or (singletons and G.degree(next(iter(g))) > 0)),
                    key=lambda g: (-len(g), g[0]))
    for k, g in enumerate(groups):
        out[g] = k
    return out


def collapse_communities(n_nodes, src, dst, weights, community, *, expand=()):
    """Quotient of a label graph by its communities: one super-node per community.

    Parameters
    ----------
    n_nodes : int
    src, dst : ndarray of int, shape (m,)
        Edges (directed or not; self-loops ignored).
    weights : ndarray of float, shape (m,)
    community : ndarray of int, shape (n_nodes,)
        Community per node (:func:`communities`); -1 = not drawn (no edges).
    expand : iterable of int
        Communities drawn as their member labels instead of one super-node.

    Returns
    -------
    dict
        ``groups`` : list of int arrays, the member nodes of each drawn node,
        communities first (in community order, expanded ones left out), then
        one single-node group per member of an expanded community;
        ``community`` : int array (len(groups),), the community of each drawn node;
        ``expanded`` : bool array (len(groups),), True for the members of an expanded community;
        ``node_of`` : int array (n_nodes,), the drawn node holding each label (-1: not drawn);
        ``src``, ``dst`` : int arrays (k,), ``src < dst``, drawn-node pairs with an edge;
        ``weight`` : float array (k,), the summed ``|w|`` of the original edges between them
        (both directions);
        ``n_edges`` : int array (k,), how many original edges that is;
        ``inner_edges`` : int, original edges inside a collapsed community (not drawn).
    """
    community = np.asarray(community, dtype=np.int64)
    expand = {int(c) for c in expand}
    groups, comm_of, expanded = [], [], []
    n_comm = int(community.max()) + 1 if community.size else 0
    for c in range(n_comm):
        members = np.flatnonzero(community == c)
        if members.size and c not in expand:
            groups.append(members)
            comm_of.append(c)
            expanded.append(False)
    for c in sorted(expand):
        for v in np.flatnonzero(community == c):
            groups.append(np.array([v]))
            comm_of.append(c)
            expanded.append(True)
    node_of = np.full(n_nodes, -1, dtype=np.int64)
    for g, members in enumerate(groups):
        node_of[members] = g
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    a = np.abs(np.asarray(weights, dtype=float))
    ok = (src != dst) & (node_of[src] >= 0) & (node_of[dst] >= 0) if src.size else np.zeros(0, bool)
    gs, gd, a = node_of[src[ok]], node_of[dst[ok]], a[ok]
    inner = int((gs == gd).sum())
    between = gs != gd
    lo, hi, a = np.minimum(gs, gd)[between], np.maximum(gs, gd)[between], a[between]
    k = len(groups)
    pair = lo * max(k, 1) + hi
    uniq, inv = np.unique(pair, return_inverse=True)
    return dict(groups=groups, community=np.asarray(comm_of, dtype=np.int64),
                expanded=np.asarray(expanded, dtype=bool), node_of=node_of,
                src=(uniq // max(k, 1)).astype(np.int64), dst=(uniq % max(k, 1)).astype(np.int64),
                weight=np.bincount(inv, weights=a, minlength=uniq.size),
                n_edges=np.bincount(inv, minlength=uniq.size).astype(np.int64), inner_edges=inner)


def text_box(x_px, y_px, radius_px, name, font_size, side):
    """Pixel box ``(x0, y0, x1, y1)`` (y up) of a name drawn at ``side`` of a node."""
    w = CHAR_WIDTH * font_size * max(len(name), 1)
    h = LINE_HEIGHT * font_size
    dx, dy = _SIDES[side]
    off = radius_px + NAME_GAP
    if dx > 0:
        return (x_px + off, y_px - h / 2, x_px + off + w, y_px + h / 2)
    if dx < 0:
        return (x_px - off - w, y_px - h / 2, x_px - off, y_px + h / 2)
    if dy > 0:
        return (x_px - w / 2, y_px + off, x_px + w / 2, y_px + off + h)
    return (x_px - w / 2, y_px - off - h, x_px + w / 2, y_px - off)


def _clashes(box, anchor, boxes, anchors):
    """True when ``box`` overlaps one of ``boxes`` now or could on a wider plot.

    Boxes are fixed pixel offsets from their anchor (node centre); on a wider
    plot anchors move apart by a common factor >= 1. Two boxes stay apart at
    every such scale iff they are apart along an axis on which their anchors
    are in the same order as the boxes (or level).
    """
    if not len(boxes):
        return False
    b, c = np.asarray(boxes), np.asarray(anchors)
    left = (box[2] <= b[:, 0]) & (anchor[0] <= c[:, 0])
    right = (b[:, 2] <= box[0]) & (c[:, 0] <= anchor[0])
    below = (box[3] <= b[:, 1]) & (anchor[1] <= c[:, 1])
    above = (b[:, 3] <= box[1]) & (c[:, 1] <= anchor[1])
    return bool(np.any(~(left | right | below | above)))


def place_names(xy_px, names, sizes_px, priority, *, font_size, plot_size, max_names=50):
    """Choose which names to draw, and where, so that no two drawn names overlap.

    Greedy in order of ``priority`` (highest first): each name tries the side
    facing away from the layout centre, then the other three sides, and is
    drawn at the first one whose box lies inside the plot and overlaps no
    drawn name and no marker of the ``max_names`` most important nodes
    (names may cover the small markers of minor nodes -- in a dense graph of
    hundreds of labels every box touches some node); otherwise it is left to
    hover.

    Parameters
    ----------
    xy_px : ndarray, shape (n, 2)
        Node centres in pixels of the plot area (origin bottom left).
    names : sequence of str, length n
        Names as displayed (unescaped: their length is what counts).
    sizes_px : ndarray, shape (n,)
        Marker diameters in pixels.
    priority : ndarray, shape (n,)
    font_size : float
    plot_size : (float, float)
        Width and height of the plot area in pixels.
    max_names : int, default 50

    Returns
    -------
    positions : list of str or None, length n
        A plotly ``textposition`` per node, None where the name is not drawn.
    """
    n = len(names)
    positions = [None] * n
    if n == 0:
        return positions
    W, H = plot_size
    r = np.asarray(sizes_px, dtype=float) / 2
    markers = np.column_stack([xy_px[:, 0] - r, xy_px[:, 1] - r, xy_px[:, 0] + r, xy_px[:, 1] + r])
    centre = xy_px.mean(axis=0)
    placed, anchors = [], []
    order = np.argsort(-np.asarray(priority, dtype=float), kind="stable")
    important = np.zeros(n, dtype=bool)
    important[order[:max_names]] = True
    named = np.zeros(n, dtype=bool)
    for i in order:
        if len(placed) >= max_names:
            break
        d = xy_px[i] - centre
        if abs(d[0]) >= abs(d[1]):
            first = "middle right" if d[0] >= 0 else "middle left"
        else:
            first = "top center" if d[1] >= 0 else "bottom center"
        sides = [first] + [s for s in _SIDES if s != first]
        if not important[i] and _clashes(markers[i], xy_px[i], placed, anchors):
            continue          # its node lies under a name already written: leave it to hover
        keep = important | named         # named nodes stay visible
        keep[i] = False
        others, other_xy = markers[keep], xy_px[keep]
        for side in sides:
            box = text_box(xy_px[i, 0], xy_px[i, 1], r[i], str(names[i]), font_size, side)
            if box[0] < 0 or box[1] < 0 or box[2] > W or box[3] > H:
                continue
            if _clashes(box, xy_px[i], placed, anchors) or _clashes(box, xy_px[i], others, other_xy):
                continue
            placed.append(box)
            anchors.append(xy_px[i])
            positions[i] = side
            named[i] = True
            break
    return positions


def default_min_count(cooccurrence, *, target_edges=None):
    """Default minimum pair count of the co-occurrence graph, from PAIR counts.

    The threshold is the ``k``-th largest off-diagonal count, ``k =
    target_edges`` (default ``clip(L, 5, 40)`` edges: about one per label, a
    readable graph), raised to the next distinct count while ties would
    draw more than twice ``k`` edges, as long as an edge remains. So the
    default graph keeps the strongest few pairs and is never empty when any
    two labels co-occur (the old default, from single-label counts, drew no
    edge on scene).

    Parameters
    ----------
    cooccurrence : array-like, shape (L, L)
    target_edges : int, optional

    Returns
    -------
    int
        >= 1.
    """
    C = np.asarray(cooccurrence, dtype=float)
    L = C.shape[0]
    iu = np.triu_indices(L, k=1)
    pairs = C[iu]
    pairs = np.sort(pairs[pairs > 0])[::-1]
    if pairs.size == 0:
        return 1
    k = int(np.clip(L, 5, 40)) if target_edges is None else max(int(target_edges), 1)
    t = pairs[min(k, pairs.size) - 1]
    distinct = np.unique(pairs)
    while (pairs >= t).sum() > 2 * k:
        higher = distinct[distinct > t]
        if higher.size == 0:
            break
        t = higher[0]
    return max(int(t), 1)
