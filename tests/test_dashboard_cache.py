"""The label layout's graph at many labels (``cache.layout_pairs``) against a brute-force selection."""

import numpy as np

from mlviz.dashboard import cache


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
