"""Proximal operators against their definition (brute-force argmin)."""

import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar

from mlviz.solvers.prox import group_l21_norm, l1_norm, prox_group_l21, prox_identity, prox_l1


@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, 2.5])
def test_prox_l1_equals_scalar_argmin(t):
    rng = np.random.default_rng(0)
    v = rng.normal(scale=2.0, size=25)
    u = prox_l1(v, t)
    for vi, ui in zip(v, u):
        res = minimize_scalar(lambda x: 0.5 * (x - vi) ** 2 + t * abs(x),
                              bounds=(-10, 10), method="bounded", options={"xatol": 1e-10})
        assert abs(res.x - ui) < 1e-7


def test_prox_l1_grid_multivariate_and_per_entry_weights():
    rng = np.random.default_rng(1)
    v = rng.normal(size=(3, 2))
    t = np.array([[0.0, 0.5], [1.0, 0.2], [3.0, 0.1]])
    u = prox_l1(v, t)
    grid = np.linspace(-4, 4, 80001)  # spacing 1e-4
    for i in range(3):
        for j in range(2):
            obj = 0.5 * (grid - v[i, j]) ** 2 + t[i, j] * np.abs(grid)
            assert abs(grid[np.argmin(obj)] - u[i, j]) <= 1e-4
    assert u[2, 0] == 0.0 and u[0, 0] == v[0, 0]


def _group_obj(U, W, t):
    return 0.5 * np.sum((U - W) ** 2) + t * group_l21_norm(U)


@pytest.mark.parametrize("t", [0.1, 0.8, 2.0])
def test_prox_group_l21_equals_numerical_argmin(t):
    rng = np.random.default_rng(2)
    W = rng.normal(size=(5, 3))
    W[1] *= 0.1  # a row that must vanish for t >= 0.1 * norm
    U = prox_group_l21(W, t)
    # brute force, row by row (the objective separates over rows)
    for j in range(W.shape[0]):
        best = None
        for start in (W[j], np.zeros(3) + 1e-3, -W[j]):
            res = minimize(lambda u: 0.5 * np.sum((u - W[j]) ** 2) + t * np.linalg.norm(u),
                           start, method="Nelder-Mead",
                           options={"xatol": 1e-11, "fatol": 1e-14, "maxiter": 20000})
            if best is None or res.fun < best.fun:
                best = res
        val_prox = 0.5 * np.sum((U[j] - W[j]) ** 2) + t * np.linalg.norm(U[j])
        assert val_prox <= best.fun + 1e-12
        # 1-strong convexity: objective gap bounds the distance
        assert np.linalg.norm(best.x - U[j]) <= np.sqrt(2 * max(best.fun - val_prox, 0)) + 1e-5
    # no random perturbation beats it
    base = _group_obj(U, W, t)
    for _ in range(200):
        assert _group_obj(U + 1e-3 * rng.normal(size=U.shape), W, t) >= base - 1e-15


def test_prox_group_l21_zeroes_small_rows_and_does_not_mutate():
    W = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    W0 = W.copy()
    U = prox_group_l21(W, 1.0)
    np.testing.assert_allclose(U, [[2.4, 3.2], [0.0, 0.0], [0.0, 0.0]])
    np.testing.assert_array_equal(W, W0)
    assert np.isfinite(U).all()


def test_prox_identity_and_norms():
    v = np.arange(4.0)
    u = prox_identity(v, 3.0)
    np.testing.assert_array_equal(u, v)
    assert u is not v
    assert l1_norm([-1.0, 2.0]) == 3.0
    assert group_l21_norm(np.array([[3.0, 4.0], [0.0, 1.0]])) == 6.0


def test_prox_group_l21_per_row_thresholds():
    rng = np.random.default_rng(7)
    W = rng.normal(size=(4, 3))
    t = np.array([0.0, 0.5, 1.0, 10.0])
    U = prox_group_l21(W, t)
    for j in range(4):  # each row is the scalar-threshold prox of that row
        np.testing.assert_allclose(U[j], prox_group_l21(W[j:j + 1], t[j])[0])
    np.testing.assert_array_equal(U[0], W[0])
    assert np.all(U[3] == 0)
