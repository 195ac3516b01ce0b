"""The label graphs' node layout: the layout graph at many labels (``layout_pairs``) against a brute-force
selection; the spread core (``spread_layout``) against its definition; the app's layout end to end."""

import networkx as nx
import numpy as np

from mlviz import plotting as mp
from mlviz.plotting import layout as cache


def _brute_pairs(C, m):
    L = C.shape[0]
    keep = set()
    for i in range(L):
        others = sorted((j for j in range(L) if j != i), key=lambda j: -C[i, j])[:m]
        keep.update((min(i, j), max(i, j)) for j in others if C[i, j] > 0)
    return keep


def test_layout_pairs_keep_each_labels_strongest_cooccurrences():
    rng = np.random.default_rng(0)
    L = 40
    W = rng.permutation(L * L).reshape(L, L).astype(float)  # distinct strengths (no ties at the cut)
    C = np.triu(W, 1)
    C = C + C.T
    C[rng.random((L, L)) < 0.3] = 0.0  # some pairs never co-occur
    C = np.minimum(C, C.T)
    np.fill_diagonal(C, 0.0)
    for m in (1, 3, 10):
        rows, cols = cache.layout_pairs(C, m)
        assert set(zip(rows.tolist(), cols.tolist())) == _brute_pairs(C, m)
        assert np.all(rows < cols)


def test_layout_pairs_without_a_cap_are_all_cooccurring_pairs():
    C = np.array([[0, 2, 0, 1], [2, 0, 3, 0], [0, 3, 0, 0], [1, 0, 0, 0]], dtype=float)
    rows, cols = cache.layout_pairs(C)
    assert set(zip(rows.tolist(), cols.tolist())) == {(0, 1), (0, 3), (1, 2)}
    rows, cols = cache.layout_pairs(C, per_label=3)  # ≥ L - 1: every pair
    assert set(zip(rows.tolist(), cols.tolist())) == {(0, 1), (0, 3), (1, 2)}


def test_spread_layout_keeps_directions_and_order_and_gives_equal_area_rings():
    rng = np.random.default_rng(3)
    core = rng.normal(scale=0.02, size=(40, 2))  # a crowded core ...
    rim = rng.normal(size=(10, 2))  # ... and a sparse rim
    P = np.vstack([core, rim]) + [5.0, -2.0]
    Q = mp.spread_layout(P, separation=0)
    c = P.mean(axis=0)
    d, e = P - c, Q - c
    # each node keeps its direction from the centroid (same angle, same side)
    cos = (d * e).sum(1) / (np.linalg.norm(d, axis=1) * np.linalg.norm(e, axis=1))
    np.testing.assert_allclose(cos, 1.0, atol=1e-12)
    # and its rank by distance; the radii are the equal-area rings sqrt((i + 1/2) / n)
    r_old, r_new = np.linalg.norm(d, axis=1), np.linalg.norm(e, axis=1)
    order = np.argsort(r_old)
    np.testing.assert_allclose(r_new[order], np.sqrt((np.arange(50) + 0.5) / 50), rtol=1e-12)
    # the core opened up: its nodes' median nearest-neighbour distance, relative to the whole
    # layout's size, grows many times
    def spacing(X):
        D = np.linalg.norm(X[:40, None] - X[None, :40], axis=2) + np.eye(40) * 1e9
        return np.median(D.min(axis=1)) / np.ptp(X, axis=0).max()
    assert spacing(Q) > 5 * spacing(P)


def test_spread_layout_separates_close_nodes_and_moves_the_others_little():
    from scipy.spatial.distance import pdist

    rng = np.random.default_rng(5)
    P = np.vstack([rng.normal(scale=1e-3, size=(6, 2)), rng.normal(size=(60, 2))])  # a tight knot
    rings = mp.spread_layout(P, separation=0)
    Q = mp.spread_layout(P)  # default separation 0.8: pairs at least 0.8 sqrt(pi / n) apart
    dmin = 0.8 * np.sqrt(np.pi / len(P))
    assert pdist(rings).min() < 0.5 * dmin  # the knot is still tight after the rings alone
    assert pdist(Q).min() >= 0.97 * dmin  # (50 rounds of pairwise pushes: close to, not exactly, dmin)
    assert np.median(np.linalg.norm(Q - rings, axis=1)) < 0.5 * dmin


def test_spread_layout_edge_cases():
    np.testing.assert_array_equal(mp.spread_layout(np.array([[1.0, 2.0]])), [[1.0, 2.0]])
    assert mp.spread_layout(np.zeros((0, 2))).shape == (0, 2)
    Q = mp.spread_layout(np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]]))  # coincident nodes, no NaN
    assert np.isfinite(Q).all()


def test_cooccurrence_layout_is_the_spread_spring_layout_of_the_weighted_pairs():
    rng = np.random.default_rng(2)
    Y = (rng.random((200, 12)) < 0.3).astype(float)
    C = Y.T @ Y
    pos = mp.cooccurrence_layout(C)
    g = nx.Graph()
    g.add_nodes_from(range(12))
    for i in range(12):
        for j in range(i + 1, 12):
            if C[i, j] > 0:
                g.add_edge(i, j, weight=C[i, j] / (C - np.diag(np.diag(C))).max())
    ref = nx.spring_layout(g, seed=0, weight="weight", k=1.5 / np.sqrt(12), iterations=50)
    P = mp.spread_layout(np.array([ref[i] for i in range(12)]))
    np.testing.assert_allclose(np.array([pos[i] for i in range(12)]), P, atol=1e-12)
    raw = mp.cooccurrence_layout(C, spread=False)
    np.testing.assert_allclose(np.array([raw[i] for i in range(12)]), np.array([ref[i] for i in range(12)]), atol=1e-12)
    circle = mp.cooccurrence_layout(np.diag([3.0, 2.0, 1.0]))  # nothing co-occurs
    np.testing.assert_allclose(np.linalg.norm(np.array(list(circle.values())), axis=1), 1.0)
