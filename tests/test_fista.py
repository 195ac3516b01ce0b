"""FISTA against independent solvers: scikit-learn Lasso, scipy L-BFGS-B, long ISTA."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso

from mlviz.solvers.fista import FistaResult, fista
from mlviz.solvers.prox import group_l21_norm, prox_group_l21, prox_identity, prox_l1


def _lasso_problem(n=60, d=15, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, d))
    w = np.zeros(d)
    w[:4] = [2.0, -1.5, 1.0, 0.5]
    b = A @ w + 0.1 * rng.normal(size=n)
    return A, b


@pytest.mark.parametrize("restart", ["adaptive", "monotone", None])
def test_lasso_matches_sklearn(restart):
    A, b = _lasso_problem()
    n = A.shape[0]
    alpha = 0.1

    def fg(x):
        r = A @ x - b
        return 0.5 * r @ r / n, A.T @ r / n

    res = fista(fg, lambda v, s: prox_l1(v, alpha * s), np.zeros(A.shape[1]),
                g=lambda x: alpha * np.abs(x).sum(), rtol=0, atol=1e-10, maxiter=5000,
                restart=restart)
    ref = Lasso(alpha=alpha, fit_intercept=False, tol=1e-14, max_iter=100000).fit(A, b)
    assert isinstance(res, FistaResult) and res.converged
    np.testing.assert_allclose(res.x, ref.coef_, atol=1e-7)
    assert np.all(res.x[np.abs(ref.coef_) == 0] == 0)  # exact zeros from the prox
    if restart is not None:
        assert np.all(np.diff(res.objective_history) <= 1e-12)


def test_smooth_logistic_matches_lbfgs_and_structured_x():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 4))
    Y = np.where(X @ rng.normal(size=(4, 2)) + rng.normal(size=(80, 2)) > 0, 1.0, -1.0)
    lam = 0.05

    def obj(Wb):  # Wb: (5, 2), last row the bias
        Z = X @ Wb[:4] + Wb[4]
        return np.mean(np.logaddexp(0, -Y * Z)) * 2 + 0.5 * lam * np.sum(Wb[:4] ** 2)

    def fg(Wb):
        Z = X @ Wb[:4] + Wb[4]
        R = -Y / (1 + np.exp(Y * Z)) / X.shape[0]
        G = np.vstack([X.T @ R + lam * Wb[:4], R.sum(0)])
        return obj(Wb), G

    x0 = np.zeros((5, 2))
    res = fista(fg, prox_identity, x0, rtol=0, atol=1e-9, maxiter=5000)
    ref = minimize(lambda w: obj(w.reshape(5, 2)), np.zeros(10), method="L-BFGS-B",
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 10000})
    assert res.x.shape == (5, 2)
    assert np.all(x0 == 0)  # x0 not mutated
    assert abs(res.fun - ref.fun) < 1e-10
    np.testing.assert_allclose(res.x.ravel(), ref.x, atol=1e-5)


def test_group_lasso_matches_long_ista():
    rng = np.random.default_rng(4)
    A = rng.normal(size=(50, 8))
    B = A[:, :3] @ rng.normal(size=(3, 3)) + 0.5 * rng.normal(size=(50, 3))
    mu = 0.4

    def fg(W):
        R = A @ W - B
        return 0.5 * np.sum(R ** 2) / 50, A.T @ R / 50

    res = fista(fg, lambda V, s: prox_group_l21(V, mu * s), np.zeros((8, 3)),
                g=lambda W: mu * group_l21_norm(W), rtol=0, atol=1e-10, maxiter=5000)
    # plain proximal gradient with the exact Lipschitz step, many iterations
    Lip = np.linalg.norm(A, 2) ** 2 / 50
    W = np.zeros((8, 3))
    for _ in range(20000):
        W = prox_group_l21(W - fg(W)[1] / Lip, mu / Lip)
    ista = fg(W)[0] + mu * group_l21_norm(W)
    assert abs(res.fun - ista) < 1e-9
    np.testing.assert_allclose(res.x, W, atol=1e-6)
    zero = np.linalg.norm(res.x, axis=1) == 0
    assert zero.any() and not zero.all()
    # KKT for zero rows: ||grad_j|| <= mu
    G = fg(res.x)[1]
    assert np.all(np.linalg.norm(G[zero], axis=1) <= mu + 1e-8)


def test_backtracking_from_huge_step_and_warm_start():
    A, b = _lasso_problem(seed=5)

    def fg(x):
        r = A @ x - b
        return 0.5 * r @ r, A.T @ r

    prox = lambda v, s: prox_l1(v, 2.0 * s)  # noqa: E731
    g = lambda x: 2.0 * np.abs(x).sum()  # noqa: E731
    res = fista(fg, prox, np.zeros(15), g=g, step0=1e3, eta=3.0, rtol=0, atol=1e-8, maxiter=5000)
    assert res.converged
    assert res.step < 1e3 / 3.0  # backtracking increased L
    warm = fista(fg, prox, res.x, g=g, step0=res.step, rtol=0, atol=1e-8, maxiter=5000)
    assert warm.converged and warm.n_iter <= 3
    assert abs(warm.fun - res.fun) < 1e-9


def test_convergence_warning_and_callback_stop():
    A, b = _lasso_problem()

    def fg(x):
        r = A @ x - b
        return 0.5 * r @ r, A.T @ r

    with pytest.warns(ConvergenceWarning):
        res = fista(fg, prox_identity, np.zeros(15), rtol=0, atol=1e-14, maxiter=3)
    assert not res.converged and res.n_iter == 3 and len(res.objective_history) == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = fista(fg, prox_identity, np.zeros(15), maxiter=100, callback=lambda it, x, F: it >= 2)
    assert res.n_iter == 2 and not res.converged
    with pytest.raises(ValueError, match="restart"):
        fista(fg, prox_identity, np.zeros(15), restart="sometimes")


def test_max_norm_stopping_rule_is_lbfgs_gtol():
    """norm="max" stops on the largest entry of the gradient mapping, which on a smooth
    problem is the gradient: the same rule as L-BFGS-B's gtol (scikit-learn's lbfgs)."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 30)) * np.geomspace(0.1, 10, 30)  # badly scaled columns
    y = np.where(X @ rng.normal(size=30) + rng.normal(size=200) > 0, 1.0, -1.0)
    lam = 1e-3

    def fg(w):
        z = y * (X @ w)
        grad = X.T @ (-y / (1.0 + np.exp(z))) / len(y) + lam * w
        return np.mean(np.logaddexp(0, -z)) + 0.5 * lam * w @ w, grad

    tol = 1e-6
    res = fista(fg, lambda v, s: v, np.zeros(30), rtol=0, atol=tol, maxiter=100000, norm="max")
    assert res.converged and res.grad_mapping_norm <= tol
    assert np.abs(fg(res.x)[1]).max() <= 10 * tol  # the point itself is nearly stationary
    ref = minimize(fg, np.zeros(30), jac=True, method="L-BFGS-B",
                   options=dict(gtol=1e-12, ftol=0, maxiter=100000))
    # strong convexity lam: |F(x) - F*| <= |grad|^2 / (2 lam) ~ d * (10 tol)^2 / lam
    assert res.fun - ref.fun <= 30 * (10 * tol) ** 2 / (2 * lam) + 1e-12
    # the l2 rule is stricter on the same problem (norm over 30 entries >= max entry)
    res2 = fista(fg, lambda v, s: v, np.zeros(30), rtol=0, atol=tol, maxiter=100000, norm="l2")
    assert res2.n_iter >= res.n_iter
    with pytest.raises(ValueError, match="norm"):
        fista(fg, lambda v, s: v, np.zeros(30), norm="l1")


def test_scaled_stopping_rule_is_invariant_to_objective_scale():
    """With a tiny objective scale c the absolute rule accepts the first step (the issue's
    'converged after one iteration'); dividing the gradient mapping by c (``scale``) gives
    the same iterates and solution as the unscaled problem."""
    A, b = _lasso_problem(seed=2)
    n = A.shape[0]
    alpha = 0.05

    def make(c):
        def fg(x):
            r = A @ x - b
            return c * 0.5 * r @ r / n, c * A.T @ r / n
        return fg

    prox = lambda c: (lambda v, s: prox_l1(v, c * alpha * s))  # noqa: E731
    ref = fista(make(1.0), prox(1.0), np.zeros(15), rtol=0, atol=1e-9, maxiter=20000, step0=1.0)
    c = 1e-10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        naive = fista(make(c), prox(c), np.zeros(15), rtol=0, atol=1e-9, maxiter=20000, step0=1.0 / c)
    assert naive.n_iter == 1 and naive.converged  # the trap: "converged" at the start
    assert np.abs(naive.x - ref.x).max() > 0.1
    scaled = fista(make(c), prox(c), np.zeros(15), rtol=0, atol=1e-9, maxiter=20000, step0=1.0 / c,
                   scale=lambda y: c)
    assert scaled.converged and scaled.n_iter > 10
    np.testing.assert_allclose(scaled.x, ref.x, atol=1e-7)
    scaled_arr = fista(make(c), prox(c), np.zeros(15), rtol=0, atol=1e-9, maxiter=20000,
                       step0=1.0 / c, scale=np.full(15, c))
    np.testing.assert_allclose(scaled_arr.x, scaled.x, atol=1e-12)


def test_reaches_tolerance_below_round_off_of_the_objective():
    """A lasso whose objective carries a large constant: near the optimum, F differences
    fall below round-off long before the gradient mapping reaches atol. Function-value
    restart and backtracking are then decided by rounding; the solver must still converge
    (gradient restart, no step growth on a round-off-decided test) to the solution of the
    same problem without the constant, and the history stays non-increasing up to the
    round-off tolerance (1e-13 |F|)."""
    A, b = _lasso_problem(seed=3)
    A = A * np.linspace(0.2, 3.0, A.shape[1])  # ill-conditioned columns: momentum oscillates
    alpha, C = 1.0, 1e6

    def fg(x, c):
        r = A @ x - b
        return 0.5 * r @ r + c, A.T @ r

    prox = lambda v, s: prox_l1(v, alpha * s)  # noqa: E731
    g = lambda x: alpha * np.abs(x).sum()  # noqa: E731
    ref = fista(lambda x: fg(x, 0.0), prox, np.zeros(15), g=g, rtol=0, atol=1e-10, maxiter=100000)
    assert ref.converged
    res = fista(lambda x: fg(x, C), prox, np.zeros(15), g=g, rtol=0, atol=1e-10, maxiter=100000,
                shrink=0.9, norm="max")
    assert res.converged and res.n_iter < 2000
    np.testing.assert_allclose(res.x, ref.x, atol=1e-9)
    sk = Lasso(alpha=alpha / A.shape[0], fit_intercept=False, tol=1e-14, max_iter=200000).fit(A, b)
    np.testing.assert_allclose(res.x, sk.coef_, atol=1e-7)
    assert np.all(np.diff(res.objective_history) <= 1e-13 * C * 1.0001)
    assert res.n_restarts >= 1


def test_start_value_and_gradient_skip_the_first_evaluation_with_the_same_iterates():
    """``start=(f(x0), grad f(x0))``: no evaluation at x0, and the same iterates and answer as without
    it (the Lasso optimum of scikit-learn)."""
    A, b = _lasso_problem(seed=1)
    n, alpha = A.shape[0], 0.1
    points = []

    def fg(x):
        points.append(x.copy())
        r = A @ x - b
        return 0.5 * r @ r / n, A.T @ r / n

    kw = dict(g=lambda x: alpha * np.abs(x).sum(), rtol=0, atol=1e-10, maxiter=5000)
    x0 = np.full(A.shape[1], 0.3)
    plain = fista(fg, lambda v, s: prox_l1(v, alpha * s), x0, **kw)
    first, points[:] = points[0], []
    warm = fista(fg, lambda v, s: prox_l1(v, alpha * s), x0, start=fg(x0), **kw)
    assert not any(np.array_equal(p, first) for p in points[1:])  # (points[0]: the start given)
    np.testing.assert_array_equal(warm.x, plain.x)
    np.testing.assert_array_equal(warm.objective_history, plain.objective_history)
    assert warm.n_f_evals == plain.n_f_evals - 1
    ref = Lasso(alpha=alpha, fit_intercept=False, tol=1e-14, max_iter=100000).fit(A, b)
    np.testing.assert_allclose(warm.x, ref.coef_, atol=1e-7)
