"""Kernel logistic regression: convergence to a tight-tolerance reference (issue 14 item 2)."""

import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from mlviz.models import KernelLogisticRegression
from mlviz.models.klr import klr_objective


def _data(n, d=3, L=3, seed=0, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (np.sin(2 * X) @ rng.normal(size=(d, L)) + noise * rng.normal(size=(n, L)) > 0.3)
    Y = Y.astype(np.uint8)
    Y[:, -1] = 0
    Y[:3, -1] = 1  # rare label: near-separable, saturated probabilities
    return X, Y


def _phi(X, m):
    return np.exp(-cdist(X, X[m.center_index_], "sqeuclidean") / (2 * m.sigma_**2))


@pytest.mark.parametrize("lam", [1.0, 1e-3])
def test_converges_to_newton_cholesky_reference(lam):
    """Small λ is the case plain L-BFGS could not finish; the reference is sklearn's
    exact Newton (Cholesky) solver at tol 1e-12 on the explicit features."""
    X, Y = _data(150)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = KernelLogisticRegression(lam=lam, tol=1e-9).fit(X, Y)
    assert m.converged_ and (m.grad_max_ <= 1e-9).all() and m.n_iter_ < 100
    Phi = _phi(X, m)
    for t in range(Y.shape[1]):
        ref = LogisticRegression(C=1.0 / lam, solver="newton-cholesky", tol=1e-12,
                                 max_iter=1000).fit(Phi, Y[:, t])
        scale = max(1.0, np.abs(ref.coef_).max())
        np.testing.assert_allclose(m.coef_[:, t], ref.coef_[0], atol=1e-5 * scale)
        np.testing.assert_allclose(m.intercept_[t], ref.intercept_[0], atol=1e-5 * scale)
        np.testing.assert_allclose(m.predict_proba(X)[:, t], ref.predict_proba(Phi)[:, 1],
                                   atol=1e-6)


def test_converged_flag_is_the_kkt_gradient_test():
    X, Y = _data(120, seed=1)
    m = KernelLogisticRegression(lam=0.01, tol=1e-8).fit(X, Y)
    params = np.vstack([m.coef_, m.intercept_]).ravel()
    _, grad = klr_objective(params, _phi(X, m), Y.astype(float), 0.01)
    g = np.abs(grad.reshape(-1, Y.shape[1])).max(axis=0) / X.shape[0]
    np.testing.assert_allclose(m.grad_max_, g, rtol=1e-6, atol=1e-14)
    assert m.converged_ and (g <= 1e-8).all()


def test_not_converged_is_reported():
    X, Y = _data(120, seed=2)
    with pytest.warns(ConvergenceWarning, match="did not reach the gradient tolerance"):
        m = KernelLogisticRegression(lam=1e-3, tol=1e-12, max_iter=1).fit(X, Y)
    assert not m.converged_ and m.grad_max_.max() > 1e-12
    assert np.isfinite(m.predict_proba(X)).all()


def test_no_intercept_matches_reference():
    X, Y = _data(80, seed=3)
    m = KernelLogisticRegression(lam=0.1, fit_intercept=False, tol=1e-10).fit(X, Y)
    assert m.converged_ and np.all(m.intercept_ == 0)
    Phi = _phi(X, m)
    ref = LogisticRegression(C=10.0, fit_intercept=False, solver="newton-cholesky", tol=1e-12,
                             max_iter=1000).fit(Phi, Y[:, 0])
    np.testing.assert_allclose(m.coef_[:, 0], ref.coef_[0], atol=1e-5)


def test_landmark_centres_match_reference():
    X, Y = _data(150, seed=4)
    m = KernelLogisticRegression(lam=0.05, n_centers=30, random_state=0, tol=1e-10).fit(X, Y)
    assert m.n_centers_ == 30 and m.coef_.shape == (30, 3) and m.converged_
    Phi = _phi(X, m)
    ref = LogisticRegression(C=20.0, solver="newton-cholesky", tol=1e-12,
                             max_iter=1000).fit(Phi, Y[:, 1])
    np.testing.assert_allclose(m.coef_[:, 1], ref.coef_[0], atol=1e-5 * max(1, np.abs(ref.coef_).max()))


def _spd_problem(seed=0, n=60, p=12, m=4):
    rng = np.random.default_rng(seed)
    Psi = rng.normal(size=(n, p)) * np.logspace(0, -2, p)  # decaying column scales, as Ψ = Φ̃V
    Dw = rng.uniform(0.01, 0.25, size=(n, m))  # logistic weights p(1 - p)
    lam = 0.05

    def penalty(M):
        return lam * M

    H = [Psi.T @ (Dw[:, [c]] * Psi) + lam * np.eye(p) for c in range(m)]  # explicit Hessians
    return rng, Psi, Dw, penalty, H


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_hessian_product_float32_and_float64_paths_equal_explicit_hessian(fit_intercept):
    """Both paths against the explicit Hessian of ``klr_objective`` (Φ̃ᵀ D Φ̃ + λ diag(1, …, 1, 0))
    carried into the basis by its own change of variables T: (β, b') ↦ (Vβ, b' − μᵀVβ)."""
    from mlviz.models._klr_newton import _Basis, _hessian_product

    rng = np.random.default_rng(0)
    n, B, m, lam = 60, 12, 4, 0.05
    Phi = np.exp(-rng.uniform(0, 1.5, size=(n, B)))  # positive, correlated kernel-like features
    Dw = rng.uniform(0.01, 0.25, size=(n, m))  # logistic weights p(1 - p)
    basis = _Basis.build(Phi, fit_intercept)
    fi = int(fit_intercept)
    T = np.zeros((B + fi, B + fi))
    T[:B, :B] = basis.V
    if fi:
        T[B, :B] = -basis.mu @ basis.V
        T[B, B] = 1.0
    Phit = np.hstack([Phi, np.ones((n, fi))])
    pen = lam * np.diag([1.0] * B + [0.0] * fi)
    H = [T.T @ (Phit.T @ (Dw[:, [c]] * Phit) + pen) @ T for c in range(m)]
    hess = _hessian_product(Phi, basis, Dw, lam, fit_intercept)
    M = rng.normal(size=(B + fi, 2))
    cols = np.array([3, 1])
    exact = np.column_stack([H[c] @ M[:, j] for j, c in enumerate(cols)])
    loose, zl = hess(M, cols, np.array([0.5, 0.1]))  # float32 products (relative rounding ~1e-6)
    tight, zt = hess(M, cols, np.array([0.5, 1e-4]))  # any column with eta < 1e-3: float64
    np.testing.assert_allclose(tight, exact, rtol=1e-12, atol=1e-13 * np.abs(exact).max())
    np.testing.assert_allclose(loose, exact, rtol=0, atol=1e-5 * np.abs(exact).max())
    z = Phit @ (T @ M)  # the logit directions Φ̃ (T m) the products pass through
    np.testing.assert_allclose(zt, z, rtol=1e-12, atol=1e-13 * np.abs(z).max())
    np.testing.assert_allclose(zl, z, rtol=0, atol=1e-5 * np.abs(z).max())
    # the basis: Φ_c V ≈ Ψ, and the exact maps are the change of variables T and its adjoint
    np.testing.assert_allclose(basis.Psi32, (Phi - basis.mu) @ basis.V, atol=1e-5)
    dA, db = basis.to_original(M, fit_intercept)
    np.testing.assert_allclose(np.vstack([dA, db]) if fi else dA, T @ M, rtol=1e-13, atol=1e-14)
    g = rng.normal(size=(B + fi, 2))
    gt = basis.from_original(g[:B], g[B] if fi else None)
    np.testing.assert_allclose(gt, T.T @ g, rtol=1e-13, atol=1e-14)
    # the solver's float32 maps (every step, the CG right-hand sides): the same to ~1e-6
    dAs, dbs = basis.to_original(M, fit_intercept, single=True)
    np.testing.assert_allclose(dAs, dA, rtol=0, atol=1e-5 * np.abs(dA).max())
    if fi:
        np.testing.assert_allclose(dbs, db, rtol=0, atol=1e-5 * np.abs(db).max())
    gs = basis.from_original(g[:B], g[B] if fi else None, single=True)
    np.testing.assert_allclose(gs, gt, rtol=0, atol=1e-5 * np.abs(gt).max())


def test_batched_pcg_multiplies_only_live_systems_and_solves_each_alone():
    from mlviz.models._klr_newton import _batched_pcg

    rng, Psi, Dw, penalty, H = _spd_problem(seed=1)
    p, m = Psi.shape[1], Dw.shape[1]
    G = rng.normal(size=(p, m)) * np.array([1e-4, 1e-3, 10.0, 1e-2])  # column 2: eta = 0.5, stops first
    prec = np.ones((p, m))
    calls = []

    def hess(M, cols, eta):  # explicit float64 Hessians, recording which systems were multiplied
        calls.append(cols.copy())
        return np.column_stack([H[c] @ M[:, j] for j, c in enumerate(cols)])

    X, k = _batched_pcg(hess, G, prec, max_cg=200)
    assert k == len(calls) and all(len(c) >= 1 for c in calls)
    steps = np.array([sum(c in cols for cols in calls) for c in range(m)])
    assert steps[2] < steps.max()  # the loose system left the batch before the others
    for c in range(m):  # each column meets its own forcing term, batched and alone
        eta = min(0.5, np.sqrt(np.linalg.norm(G[:, c])))
        assert np.linalg.norm(H[c] @ X[:, c] + G[:, c]) <= eta * np.linalg.norm(G[:, c]) * (1 + 1e-9)
        Xc, kc = _batched_pcg(lambda M, cols, e, c=c: H[c] @ M, G[:, [c]], prec[:, [c]], 200)
        assert kc == steps[c]  # as many products as when solved alone
        assert np.linalg.norm(H[c] @ Xc[:, 0] + G[:, c]) <= eta * np.linalg.norm(G[:, c]) * (1 + 1e-9)
    # with n_rows, the solve also returns Ψ X, accumulated from the products' Ψ D
    X2, k2, PX = _batched_pcg(lambda M, cols, e: (hess(M, cols, e), Psi @ M), G, prec, 200,
                              n_rows=Psi.shape[0])
    np.testing.assert_array_equal(X2, X)
    assert k2 == k
    np.testing.assert_allclose(PX, Psi @ X, rtol=1e-10, atol=1e-12 * np.abs(Psi @ X).max())


@pytest.mark.parametrize("max_iter", [1, 3])
def test_stopped_early_reports_the_exact_gradient(max_iter):
    """Labels stopped in the float32 far phase get the float64 KKT measure of the returned point."""
    X, Y = _data(150, seed=5)
    with pytest.warns(ConvergenceWarning):
        m = KernelLogisticRegression(lam=1e-3, max_iter=max_iter, tol=1e-6).fit(X, Y)
    params = np.vstack([m.coef_, m.intercept_]).ravel()
    _, grad = klr_objective(params, _phi(X, m), Y.astype(float), 1e-3)
    g = np.abs(grad.reshape(-1, Y.shape[1])).max(axis=0) / X.shape[0]
    np.testing.assert_allclose(m.grad_max_, g, rtol=1e-6, atol=1e-14)


def test_label_chunks_solve_the_same_independent_problems(monkeypatch):
    """The labels are independent problems: chunks of one label give the all-labels solution."""
    from mlviz.models import _klr_newton as klr

    X, Y = _data(120, L=4, seed=6)
    m = KernelLogisticRegression(lam=0.01, tol=1e-10).fit(X, Y)
    Phi = _phi(X, m)
    monkeypatch.setattr(klr, "LABEL_CHUNK", 1)
    res = klr.newton_cg_klr(Phi, Y.astype(float), 0.01, gtol=1e-10 * X.shape[0])
    assert (res.grad_max <= 1e-10 * X.shape[0]).all()
    np.testing.assert_allclose(res.coef[:-1], m.coef_, rtol=1e-6, atol=1e-8 * np.abs(m.coef_).max())
    np.testing.assert_allclose(res.coef[-1], m.intercept_, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_reaches_a_tolerance_near_round_off(seed):
    """tol 1e-10 on 4,000 rows: the objective's decreases are then below its float64 rounding, so every
    line search must compare values summed the same way (a carried-over objective, summed otherwise,
    left one label of three at ~1.2e-10 on each of these seeds)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(4000, 5))
    Y = (X[:, :3] + 0.3 * rng.normal(size=(4000, 3)) > 0).astype(np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        m = KernelLogisticRegression(random_state=0, lam=0.5, tol=1e-10, n_centers=60).fit(X, Y)
    assert m.converged_ and (m.grad_max_ <= 1e-10).all()
