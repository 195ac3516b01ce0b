"""Node layouts for the label graphs: where each label sits, computed once per data set.

:func:`cooccurrence_layout` places the labels by a spring layout of their co-occurrence graph
(so labels that occur together sit together) and then opens up its crowded core with
:func:`spread_layout`. The positions depend on the data only, never on γ, so the nodes stay put
while the sparse CDN's edges come and go.
"""

from __future__ import annotations

import numpy as np

__all__ = ["cooccurrence_layout", "spread_layout", "layout_pairs", "LAYOUT_SPARSE_ABOVE", "LAYOUT_PAIRS"]

#: Above this many labels the layout graph keeps each label's strongest co-occurrences only
#: (:data:`LAYOUT_PAIRS` per label) and runs fewer iterations: all 303k co-occurring pairs of a
#: 983-label set cost 5 s of spring layout, the 10 strongest per label ~1.3 s (RESULTS.md).
LAYOUT_SPARSE_ABOVE = 200
LAYOUT_PAIRS = 10


def layout_pairs(C, per_label=None):
    """``(rows, cols)`` with ``rows < cols`` of the pairs the label layout links: every co-occurring
    pair, or with ``per_label`` the union over labels of each label's ``per_label`` strongest ones."""
    C = np.asarray(C)
    if per_label is None or per_label >= C.shape[0] - 1:
        return np.nonzero(np.triu(C, 1))
    L = C.shape[0]
    top = np.argpartition(-C, per_label, axis=1)[:, :per_label]
    keep = np.zeros(C.shape, dtype=bool)
    keep[np.repeat(np.arange(L), per_label), top.ravel()] = True
    keep &= C > 0
    keep |= keep.T
    return np.nonzero(np.triu(keep, 1))


def cooccurrence_layout(cooccurrence, *, spread=True):
    """Positions of ``L`` labels: a spring layout (``networkx``, seed 0) of the co-occurrence
    graph, with pair weights ``C[i, j] / max C`` (above :data:`LAYOUT_SPARSE_ABOVE` labels only
    :func:`layout_pairs`' strongest pairs, and 20 instead of 50 iterations), then
    :func:`spread_layout` unless ``spread=False``. No co-occurring pair: a circle.

    Parameters
    ----------
    cooccurrence : array-like, shape (L, L)
        Pair counts (the diagonal is ignored).
    spread : bool, default True

    Returns
    -------
    dict
        ``{label index: ndarray (2,)}``.
    """
    import networkx as nx

    C = np.array(cooccurrence, dtype=float)
    np.fill_diagonal(C, 0.0)
    L = C.shape[0]
    many = L > LAYOUT_SPARSE_ABOVE
    g = nx.Graph()
    g.add_nodes_from(range(L))
    rows, cols = layout_pairs(C, LAYOUT_PAIRS if many else None)
    top = max(C.max(initial=0.0), 1.0)  # once, not per edge (per edge it is O(L^4))
    g.add_weighted_edges_from(zip(rows.tolist(), cols.tolist(), (C[rows, cols] / top).tolist()))
    if g.number_of_edges() == 0:
        return nx.circular_layout(g)
    pos = nx.spring_layout(g, seed=0, weight="weight", k=1.5 / np.sqrt(max(L, 1)), iterations=20 if many else 50)
    P = np.array([pos[i] for i in range(L)])
    if spread:
        P = spread_layout(P)
    return {i: P[i] for i in range(L)}


def spread_layout(P, *, separation=0.8, max_rounds=50):
    """Even out a layout's crowded centre: each node keeps its direction from the centroid and its
    rank by distance, and the ``i``-th nearest of ``n`` moves to radius ``sqrt((i + 1/2) / n)``.

    A spring layout of a co-occurrence graph packs the frequent labels, which co-occur with
    everything, into a dense core, where the learned edges (between frequent labels, mostly) and
    their names overlap. Equal-area rings (the radii above) give every node the same share of
    the disc, so the core opens up while neighbours stay neighbours. Nodes still closer than
    ``separation · sqrt(π / n)`` (that fraction of the spacing of ``n`` nodes spread evenly over
    the disc) are then pushed apart, pair by pair, for at most ``max_rounds`` rounds.

    Parameters
    ----------
    P : array-like, shape (n, 2)
        Node positions.
    separation : float >= 0, default 0.8
        0: the rings alone.
    max_rounds : int, default 50
        Rounds of pushes (each a KD-tree pair search, O(n log n)); the closest pair then
        ends near, not exactly at, the separation.

    Returns
    -------
    ndarray, shape (n, 2)
        Positions around the centroid of ``P``, within about the unit disc (a node at the
        centroid stays there with ``separation=0``); ``n < 2`` returns ``P`` unchanged.
    """
    P = np.asarray(P, dtype=float)
    n = len(P)
    if n < 2:
        return P.copy()
    c = P.mean(axis=0)
    d = P - c
    r = np.hypot(d[:, 0], d[:, 1])
    rank = np.empty(n, dtype=float)
    rank[np.argsort(r, kind="stable")] = np.arange(n)
    scale = np.divide(np.sqrt((rank + 0.5) / n), r, out=np.zeros(n), where=r > 0)
    Q = d * scale[:, None]
    if separation > 0:
        Q = _separate(Q, separation * np.sqrt(np.pi / n), max_rounds)
    return c + Q


def _separate(P, dmin, max_rounds):
    """Push apart every pair of nodes closer than ``dmin``, each by half the shortfall along
    their line (averaged over a node's pairs), for up to ``max_rounds`` rounds."""
    from scipy.spatial import cKDTree

    P = P.copy()
    for _ in range(max_rounds):
        pairs = cKDTree(P).query_pairs(dmin, output_type="ndarray")
        if len(pairs) == 0:
            break
        i, j = pairs[:, 0], pairs[:, 1]
        d = P[j] - P[i]
        r = np.hypot(d[:, 0], d[:, 1])
        u = np.where(r[:, None] > 0, d / np.where(r > 0, r, 1.0)[:, None], [1.0, 0.0])  # coincident: along x
        push = 0.5 * (dmin - r)[:, None] * u
        move = np.zeros_like(P)
        np.add.at(move, i, -push)
        np.add.at(move, j, push)
        P += move / np.maximum(np.bincount(pairs.ravel(), minlength=len(P)), 1)[:, None]
    return P
