"""Sylvester solvers: eig vs CG vs naive Kronecker vs scipy.linalg.solve_sylvester."""

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator
from sklearn.exceptions import ConvergenceWarning

from mlviz.models._kernels import gaussian_kernel, median_sigma
from mlviz.solvers import SymmetricEig, solve_sylvester_cg, solve_sylvester_eig, solve_sylvester_naive


def _laplacian_C(rng, T, lam, gamma):
    """C = diag(λ + Γ1) − Γ for a random non-negative symmetric Γ (Nam et al., §4)."""
    W = np.abs(rng.normal(size=(T, T)))
    W = (W + W.T) / 2
    np.fill_diagonal(W, 0.0)
    G = gamma * W
    return np.diag(lam + G.sum(1)) - G


def _problem(seed, n=30, p=20, T=5, lam=0.5, gamma=1.0, sparse_x=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[X < 0.3] = 0.0
    Xk = sp.csr_matrix(X) if sparse_x else X
    centers = Xk[:p]
    Phi = gaussian_kernel(Xk, centers, median_sigma(Xk))
    A = Phi.T @ Phi
    C = _laplacian_C(rng, T, lam, gamma)
    Pi = (rng.random((n, T)) < 0.4).astype(float)
    return A, C, Phi.T @ Pi


def _rel(X, Y):
    return np.linalg.norm(X - Y) / np.linalg.norm(Y)


@pytest.mark.parametrize("seed,p,gamma,sparse_x", [
    (0, 20, 1.0, False),   # B < N (20 centres, 30 points)
    (1, 30, 1.0, False),   # B = N
    (2, 20, 0.0, False),   # gamma = 0: C = lam I
    (3, 25, 2.0, True),    # sparse X
])
def test_solvers_agree_with_scipy(seed, p, gamma, sparse_x):
    A, C, B = _problem(seed, p=p, gamma=gamma, sparse_x=sparse_x)
    ref = scipy.linalg.solve_sylvester(A, C, B)
    X_eig = solve_sylvester_eig(SymmetricEig.from_matrix(A), SymmetricEig.from_matrix(C), B)
    X_naive = solve_sylvester_naive(A, C, B)
    X_cg, info = solve_sylvester_cg(A, C, B, rtol=1e-13, maxiter=20000)
    assert info.converged
    for X in (X_eig, X_naive, X_cg):
        assert _rel(X, ref) < 1e-6
        # residual of the Sylvester equation itself
        assert np.linalg.norm(A @ X + X @ C - B) <= 1e-8 * np.linalg.norm(B)


def test_eig_bases_and_kernel_square():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 3))
    K = gaussian_kernel(X, X, 1.0)
    C = _laplacian_C(rng, 4, 0.3, 1.0)
    B = K @ (rng.random((25, 4)) < 0.5)
    eigK2, s = SymmetricEig.from_gram_of_symmetric(K)
    assert np.allclose(eigK2.values, s**2)
    np.testing.assert_allclose(eigK2.matrix(), K @ K, atol=1e-10)
    Ce = SymmetricEig.from_matrix(C)
    full = solve_sylvester_eig(eigK2, Ce, B)
    ref = scipy.linalg.solve_sylvester(K @ K, C, B)
    assert _rel(full, ref) < 1e-6
    # cached rotated rhs and eigenbasis output give the same solution
    rot = solve_sylvester_eig(eigK2, Ce, eigK2.vectors.T @ B, rhs_in_eigbasis=True,
                              return_eigbasis=True)
    np.testing.assert_allclose(eigK2.vectors @ rot, full, rtol=1e-12, atol=1e-12)
    # a shifted decomposition is the decomposition of C + shift I
    np.testing.assert_allclose(Ce.shifted(0.7).matrix(), C + 0.7 * np.eye(4), atol=1e-12)


def test_inputs_not_mutated():
    A, C, B = _problem(5)
    copies = [M.copy() for M in (A, C, B)]
    x0 = np.ones_like(B)
    solve_sylvester_eig(SymmetricEig.from_matrix(A), SymmetricEig.from_matrix(C), B)
    solve_sylvester_cg(A, C, B, x0=x0, rtol=1e-10)
    solve_sylvester_naive(A, C, B)
    for M, Mc in zip((A, C, B), copies):
        assert np.array_equal(M, Mc)
    assert np.array_equal(x0, np.ones_like(B))


def test_cg_matrix_free_operator_and_warm_start():
    rng = np.random.default_rng(6)
    Phi = rng.random((40, 15))
    C = _laplacian_C(rng, 3, 0.2, 0.5)
    B = Phi.T @ (rng.random((40, 3)) < 0.5)
    A_op = LinearOperator((15, 15), matvec=lambda v: Phi.T @ (Phi @ v),
                          matmat=lambda V: Phi.T @ (Phi @ V), dtype=float)
    history = []
    X, info = solve_sylvester_cg(A_op, C, B, rtol=1e-12, maxiter=5000,
                                 callback=lambda Xk: history.append(
                                     np.linalg.norm(Phi.T @ (Phi @ Xk) + Xk @ C - B)))
    assert info.converged and info.n_iter == len(history)
    assert _rel(X, scipy.linalg.solve_sylvester(Phi.T @ Phi, C, B)) < 1e-8
    assert history[-1] < history[0]
    # warm start at the solution: converged at once
    X2, info2 = solve_sylvester_cg(A_op, C, B, x0=X, rtol=1e-6)
    assert info2.converged and info2.n_iter <= 1
    np.testing.assert_allclose(X2, X, rtol=1e-6, atol=1e-10)


def test_cg_reports_non_convergence():
    A, C, B = _problem(7, lam=1e-3)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        X, info = solve_sylvester_cg(A, C, B, rtol=1e-14, maxiter=2)
    assert not info.converged
    assert info.n_iter == 2
    true_rel = np.linalg.norm(A @ X + X @ C - B) / np.linalg.norm(B)
    assert info.residual_norm == pytest.approx(true_rel)
    assert info.residual_norm > 1e-14


def test_cg_zero_rhs():
    A, C, B = _problem(8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X, info = solve_sylvester_cg(A, C, np.zeros_like(B))
    assert info.converged and np.array_equal(X, np.zeros_like(B))


def test_naive_refuses_large_and_sparse_ok():
    A, C, B = _problem(9)
    with pytest.raises(ValueError, match=r"dense \(100 x 100\) Kronecker matrix.*max_size=50"):
        solve_sylvester_naive(A, C, B, max_size=50)
    X = solve_sylvester_naive(sp.csr_matrix(A), C, B)
    assert _rel(X, scipy.linalg.solve_sylvester(A, C, B)) < 1e-8


def test_eig_singular_and_shape_errors():
    A = np.diag([0.0, 1.0])
    C = np.zeros((1, 1))
    with pytest.raises(np.linalg.LinAlgError, match="Singular"):
        solve_sylvester_eig(SymmetricEig.from_matrix(A), SymmetricEig.from_matrix(C),
                            np.ones((2, 1)))
    with pytest.raises(ValueError, match="shape"):
        solve_sylvester_eig(SymmetricEig.from_matrix(A), SymmetricEig.from_matrix(C),
                            np.ones((3, 1)))
    with pytest.raises(ValueError, match="not symmetric"):
        SymmetricEig.from_matrix(np.array([[1.0, 2.0], [0.0, 1.0]]))
    with pytest.raises(TypeError, match="SymmetricEig"):
        solve_sylvester_eig(A, C, np.ones((2, 1)))


def test_nonsymmetric_C_naive_vs_scipy():
    # the naive and CG-free paths also handle a general (non-symmetric) C
    rng = np.random.default_rng(10)
    A, _, B = _problem(10, T=3)
    C = np.eye(3) + 0.3 * rng.random((3, 3))
    X = solve_sylvester_naive(A, C, B)
    assert _rel(X, scipy.linalg.solve_sylvester(A, C, B)) < 1e-8


def _kernel_ridge_problem(n=200, g_small=1e-10):
    """K (n × n Gaussian, 1-D inputs: eigenvalues decay to round-off), C = diag(g)."""
    rng = np.random.default_rng(11)
    x = np.sort(rng.uniform(0, 10, size=(n, 1)), axis=0)
    K = gaussian_kernel(x, x, 1.0)
    K = (K + K.T) / 2
    Pi = (np.sin(x) + 0.3 * rng.normal(size=(n, 2)) > 0).astype(float)
    g = np.array([g_small, 1.0])
    return K, g, Pi


def _ridge_lstsq(K, g, Pi):
    """Column t solves min ||Kθ − π_t||² + g_t ||θ||² by a stacked least-squares QR/SVD."""
    n = K.shape[0]
    cols = []
    for t in range(g.size):
        M = np.vstack([K, np.sqrt(g[t]) * np.eye(n)])
        rhs = np.concatenate([Pi[:, t], np.zeros(n)])
        cols.append(np.linalg.lstsq(M, rhs, rcond=None)[0])
    return np.column_stack(cols)


def test_wide_spectrum_kernel_path_is_accurate_without_warning():
    """max|f+g| / min|f+g| ~ 1e14 (the old criterion warned) but the eig-of-K path is exact
    to its error bound: no warning, and the solution matches a backward-stable
    least-squares reference of the same ridge problem (K² + gI) θ = K π."""
    K, g, Pi = _kernel_ridge_problem()
    eig, s = SymmetricEig.from_gram_of_symmetric(K)
    denom = eig.values[:, None] + g[None, :]
    assert denom.min() < K.shape[0] * 2 * np.finfo(float).eps * denom.max()  # old rule: warn
    C_eig = SymmetricEig(g, np.eye(2))
    rhs = s[:, None] * (eig.vectors.T @ Pi)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        theta = solve_sylvester_eig(eig, C_eig, rhs, rhs_in_eigbasis=True)
    ref = _ridge_lstsq(K, g, Pi)
    # compare predictions Kθ (what the classifier outputs); θ itself is ill-determined
    assert _rel(K @ theta, K @ ref) < 1e-6


def test_ill_conditioned_warning_when_eigenvalue_error_dominates():
    """Decomposing ΦᵀΦ = K² explicitly loses the small eigenvalues (absolute error
    ~ n·eps·||K||²); with g = 1e-12 that error exceeds 1 % of f + g, and the solver says so."""
    K, g, Pi = _kernel_ridge_problem(g_small=1e-12)
    eig = SymmetricEig.from_matrix(K @ K)
    with pytest.warns(scipy.linalg.LinAlgWarning, match="Ill-conditioned Sylvester"):
        solve_sylvester_eig(eig, SymmetricEig(g, np.eye(2)), K @ Pi)
    # with a regularisation above the error bound it is silent
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solve_sylvester_eig(eig, SymmetricEig(np.array([1e-3, 1.0]), np.eye(2)), K @ Pi)


def test_error_bounds_propagate():
    rng = np.random.default_rng(0)
    M = rng.normal(size=(6, 6))
    M = M + M.T
    e = SymmetricEig.from_matrix(M)
    bound = 6 * np.finfo(float).eps * np.abs(e.values).max()
    np.testing.assert_allclose(e.error_bound(), bound)
    np.testing.assert_allclose(e.scaled(-3.0, 2.0).error_bound(), np.maximum(
        3 * bound, np.finfo(float).eps * np.abs(-3 * e.values + 2)))
    assert SymmetricEig(np.array([2.0]), np.eye(1)).error_bound()[0] == 2 * np.finfo(float).eps
