"""Per-column L-BFGS (mlviz.solvers.column_lbfgs) against independent solvers: scipy's
L-BFGS-B column by column (smooth), and a tight plain FISTA run on the same objective
(l1 and row-group terms); KKT at the returned point, monotone objective."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from mlviz.solvers.column_lbfgs import column_lbfgs
from mlviz.solvers.fista import fista
from mlviz.solvers.prox import prox_group_l21, prox_l1


def _problem(seed=0, n=120, P=6, K=4):
    """Column k: a ridge logistic regression of y_k on A (the columns share A)."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, P))
    A[:, 1] *= 10.0  # badly scaled column: one step size for all would be slow
    B = rng.normal(size=(P, K)) * (rng.random((P, K)) < 0.6)
    Y = (A @ B + rng.logistic(size=(n, K)) > 0).astype(float)
    S = 2 * Y - 1
    lam = 0.05

    def cols_fg(x, cols):
        Z = A @ x
        M = S[:, cols] * Z
        loss = np.logaddexp(0.0, -M).mean(axis=0) + 0.5 * lam * (x * x).sum(axis=0)
        R = -S[:, cols] * expit(-M) / n
        return loss, A.T @ R + lam * x, None

    def full_fg(x):
        v, g, _ = cols_fg(x, np.arange(K))
        return v.sum(), g

    return cols_fg, full_fg, P, K


def test_smooth_equals_scipy_lbfgs_per_column():
    cols_fg, _, P, K = _problem()
    res = column_lbfgs(cols_fg, np.zeros((P, K)), tol=1e-10, maxiter=2000)
    assert res.converged and res.kkt <= 1e-10
    assert np.all(np.diff(res.objective_history) <= 1e-12 * abs(res.objective_history[0]))
    for k in range(K):
        ref = minimize(lambda w, k=k: (cols_fg(w[:, None], np.array([k]))[0][0],
                                       cols_fg(w[:, None], np.array([k]))[1][:, 0]),
                       np.zeros(P), jac=True, method="L-BFGS-B",
                       options=dict(gtol=1e-12, ftol=1e-15, maxiter=10000))
        np.testing.assert_allclose(res.x[:, k], ref.x, atol=1e-7)


@pytest.mark.parametrize("with_group", [False, True])
@pytest.mark.slow(seconds=3)
def test_l1_and_group_reach_the_fista_optimum(with_group):
    cols_fg, full_fg, P, K = _problem(seed=1)
    rng = np.random.default_rng(2)
    l1 = 0.02 * rng.random((P, K))
    group = np.full(P, 0.004) if with_group else None

    def g(x):
        out = float((l1 * np.abs(x)).sum())
        return out + (float(group @ np.linalg.norm(x, axis=1)) if with_group else 0.0)

    def prox(v, s):
        # the prox of the sum: l1 then group is exact for this composition (Yuan et al. 2011,
        # sparse-group lasso: soft-threshold, then group shrinkage)
        z = prox_l1(v, s * l1)
        return prox_group_l21(z, s * group) if with_group else z

    ref = fista(full_fg, prox, np.zeros((P, K)), g=g, rtol=0.0, atol=1e-12, maxiter=200000,
                restart="monotone")
    assert ref.converged
    assert (ref.x == 0).any() and (ref.x != 0).any()  # the l1 term is active
    if with_group:
        assert np.all(np.linalg.norm(ref.x, axis=1) > 0)  # no row at zero: the majoriser is exact
    x0 = np.full((P, K), 0.01)  # non-zero rows, so none is frozen
    res = column_lbfgs(cols_fg, x0, l1=l1, group=group, tol=1e-9, maxiter=5000)
    assert res.converged
    np.testing.assert_allclose(res.x, ref.x, atol=1e-6)
    np.testing.assert_array_equal(res.x == 0, ref.x == 0)
    F = full_fg(res.x)[0] + g(res.x)
    assert abs(F - ref.fun) <= 1e-10 * abs(ref.fun)
    assert np.all(np.diff(res.objective_history) <= 1e-12 * abs(res.objective_history[0]))
    # independent KKT: minimum-norm subgradient of the l1 part on every entry
    _, grad = full_fg(res.x)
    if with_group:
        grad = grad + group[:, None] * res.x / np.linalg.norm(res.x, axis=1, keepdims=True)
    nz = res.x != 0
    assert np.abs(grad[nz] + l1[nz] * np.sign(res.x[nz])).max() <= 1e-8
    assert np.all(np.abs(grad[~nz]) <= l1[~nz] + 1e-8)


def test_fixed_entries_and_zero_rows_stay_put_and_callback_sees_every_iteration():
    cols_fg, _, P, K = _problem(seed=3)
    x0 = np.zeros((P, K))
    x0[1:] = 0.1  # row 0 is zero: with a group term it stays zero (the majoriser is infinite)
    fixed = np.zeros((P, K), dtype=bool)
    fixed[2, 1] = True
    seen = []
    res = column_lbfgs(cols_fg, x0, group=np.full(P, 1e-3), fixed=fixed, tol=1e-6,
                       callback=lambda it, F: seen.append((it, F)))
    assert np.all(res.x[0] == 0) and res.x[2, 1] == 0.1
    assert [it for it, _ in seen] == list(range(1, res.n_iter + 1))
    np.testing.assert_allclose([F for _, F in seen], res.objective_history[1:])
