"""Tests for mlviz.solvers.eigen.laplacian_eigenmap against dense generalized eigh."""

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp
from scipy.linalg import subspace_angles
from sklearn.neighbors import kneighbors_graph

from mlviz.solvers import laplacian_eigenmap


def knn_affinity(n, k=6, d=3, random_state=0, weighted=False):
    rng = np.random.default_rng(random_state)
    X = rng.normal(size=(n, d))
    A = kneighbors_graph(X, k, include_self=False)
    if weighted:
        A.data = rng.uniform(0.5, 2.0, size=A.nnz)
    return A.maximum(A.T).tocsr()


def laplacian(W):
    W = W.toarray() if sp.issparse(W) else np.asarray(W)
    D = np.diag(W.sum(axis=1))
    return D - W, D


def test_matches_generalized_eigh_reference():
    W = knn_affinity(80, weighted=True)
    K = 5
    res = laplacian_eigenmap(W, K, method="dense")
    L, D = laplacian(W)
    ref_vals, ref_vecs = la.eigh(L, D)  # independent: the generalized problem itself
    np.testing.assert_allclose(res.eigenvalues, ref_vals[1:K + 1], atol=1e-10)
    E = res.embedding
    np.testing.assert_allclose(L @ E, D @ E * res.eigenvalues, atol=1e-10)  # eq. (3)
    np.testing.assert_allclose(E.T @ D @ E, np.eye(K), atol=1e-10)  # constraint of eq. (2)
    np.testing.assert_allclose(E.T @ D @ np.ones(80), 0.0, atol=1e-10)  # trivial vector dropped
    angles = subspace_angles(np.sqrt(D) @ E, np.sqrt(D) @ ref_vecs[:, 1:K + 1])
    assert angles.max() < 1e-8
    np.testing.assert_allclose(L @ np.ones(80), 0.0, atol=1e-12)


def test_objective_is_minimal_among_feasible():
    # Tr(Eᵀ L E) = Σλ at the solution; any other D-orthonormal E ⟂_D 1 is no better.
    W = knn_affinity(60, random_state=1)
    L, D = laplacian(W)
    K = 3
    E = laplacian_eigenmap(W, K).embedding
    best = np.trace(E.T @ L @ E)
    rng = np.random.default_rng(0)
    d = np.diag(D)
    for _ in range(20):
        Z = rng.normal(size=(60, K))
        Z -= np.outer(np.ones(60), d @ Z / d.sum())  # D-orthogonal to constants
        R = la.cholesky(Z.T @ D @ Z)
        Z = Z @ la.inv(R)  # Zᵀ D Z = I
        assert np.trace(Z.T @ L @ Z) >= best - 1e-10


@pytest.mark.parametrize("method", ["lanczos", "shift-invert"])
def test_sparse_solvers_match_dense_subspace(method):
    W = knn_affinity(700, k=8, random_state=2)
    K = 8
    dense = laplacian_eigenmap(W, K, method="dense")
    other = laplacian_eigenmap(W, K, method=method, random_state=0)
    assert other.method == method
    np.testing.assert_allclose(other.eigenvalues, dense.eigenvalues, atol=1e-9)
    sqrt_d = np.sqrt(np.asarray(W.sum(axis=1)).ravel())[:, None]
    angles = subspace_angles(dense.embedding * sqrt_d, other.embedding * sqrt_d)
    assert angles.max() < 1e-6
    # distinct eigenvalues here, so the sign convention makes the vectors equal
    np.testing.assert_allclose(other.embedding, dense.embedding, atol=1e-7)


def test_auto_uses_lanczos_for_large_graphs():
    W = knn_affinity(700, k=8, random_state=3)
    assert laplacian_eigenmap(W, 3).method == "lanczos"
    assert laplacian_eigenmap(knn_affinity(100), 3).method == "dense"


def test_sign_convention():
    W = knn_affinity(50, random_state=4)
    E = laplacian_eigenmap(W, 4).embedding
    idx = np.argmax(np.abs(E), axis=0)
    assert (E[idx, np.arange(4)] > 0).all()
    E2 = laplacian_eigenmap(W.copy(), 4).embedding  # same graph, fresh solve
    np.testing.assert_array_equal(E, E2)


def test_isolated_nodes_at_origin():
    W = knn_affinity(40, random_state=5).toarray()
    Wbig = np.zeros((43, 43))
    keep = np.r_[0:10, 11:25, 26:40, 41:43]  # 10, 25, 40 isolated
    Wbig[np.ix_(keep, keep)] = W
    res = laplacian_eigenmap(sp.csr_matrix(Wbig), 3)
    assert np.isfinite(res.embedding).all()
    np.testing.assert_array_equal(res.isolated, np.isin(np.arange(43), [10, 25, 40]))
    np.testing.assert_array_equal(res.embedding[[10, 25, 40]], 0.0)
    sub = laplacian_eigenmap(W, 3)
    np.testing.assert_allclose(res.embedding[keep], sub.embedding, atol=1e-10)
    np.testing.assert_allclose(res.eigenvalues, sub.eigenvalues, atol=1e-12)


def test_disconnected_graph_drops_all_trivial_vectors():
    A = knn_affinity(30, random_state=6).toarray()
    B = knn_affinity(25, random_state=7).toarray()
    W = la.block_diag(A, B)
    L, D = laplacian(W)
    with pytest.warns(UserWarning, match="2 connected components"):
        res = laplacian_eigenmap(W, 4)
    assert res.n_trivial == 2
    E = res.embedding
    assert np.isfinite(E).all()
    ref_vals = la.eigh(L, D, eigvals_only=True)
    np.testing.assert_allclose(ref_vals[:2], 0.0, atol=1e-10)
    np.testing.assert_allclose(res.eigenvalues, ref_vals[2:6], atol=1e-10)
    np.testing.assert_allclose(L @ E, D @ E * res.eigenvalues, atol=1e-10)
    np.testing.assert_allclose(E.T @ D @ E, np.eye(4), atol=1e-10)
    d = np.diag(D)
    for block in (slice(0, 30), slice(30, 55)):  # each component D-centred at the origin
        np.testing.assert_allclose(d[block] @ E[block], 0.0, atol=1e-10)


@pytest.mark.parametrize("method", ["lanczos", "shift-invert"])
def test_disconnected_graph_sparse_solvers(method):
    # Repeated eigenvalue 0 would trouble a single Lanczos run; per-component solves do not.
    blocks = [knn_affinity(n, random_state=s).toarray() for n, s in ((120, 8), (90, 9), (60, 10))]
    W = sp.csr_matrix(la.block_diag(*blocks))
    with pytest.warns(UserWarning, match="3 connected components"):
        dense = laplacian_eigenmap(W, 6, method="dense")
    with pytest.warns(UserWarning, match="3 connected components"):
        other = laplacian_eigenmap(W, 6, method=method, random_state=0)
    L, D = laplacian(W)
    ref_vals = la.eigh(L, D, eigvals_only=True)
    np.testing.assert_allclose(other.eigenvalues, ref_vals[3:9], atol=1e-9)
    np.testing.assert_allclose(other.embedding, dense.embedding, atol=1e-7)


def test_too_few_eigenvectors_padded_with_zeros():
    W = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    with pytest.warns(UserWarning, match="Only 2 non-trivial"):
        res = laplacian_eigenmap(W, 4)
    assert np.isfinite(res.embedding).all()
    np.testing.assert_array_equal(res.embedding[:, 2:], 0.0)
    L, D = laplacian(W)
    np.testing.assert_allclose(res.eigenvalues[:2], la.eigh(L, D, eigvals_only=True)[1:])


def test_empty_graph_and_bad_input():
    with pytest.warns(UserWarning, match="no edges"):
        res = laplacian_eigenmap(np.zeros((4, 4)), 2)
    np.testing.assert_array_equal(res.embedding, 0.0)
    with pytest.raises(ValueError, match="symmetric"):
        laplacian_eigenmap(np.array([[0, 1.0], [0, 0]]), 1)
    with pytest.raises(ValueError, match="non-negative"):
        laplacian_eigenmap(np.array([[0, -1.0], [-1.0, 0]]), 1)
    with pytest.raises(ValueError, match="method"):
        laplacian_eigenmap(np.eye(3), 1, method="magic")
