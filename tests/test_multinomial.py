"""The multinomial L-BFGS (mlviz.solvers.multinomial) and MultinomialLR against scikit-learn's
LogisticRegression at a very tight tolerance (same objective), a hand-written loop and finite
differences."""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from _multinomial_reference import gradient_by_hand, least_curvature, probability_tolerance, tight_reference
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from mlviz.models._multinomial import MULTINOMIAL_TOL, MultinomialLR
from mlviz.solvers.multinomial import multinomial_lbfgs, multinomial_objective


def _data(n=120, d=5, K=4, seed=0, sparse=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + 0.5
    y = np.argmax(X[:, :K] + rng.normal(scale=1.0, size=(n, K)), axis=1) if d >= K else rng.integers(0, K, n)
    if sparse:
        X = sp.csr_matrix(np.where(rng.random((n, d)) < 0.4, X, 0.0))
    return X, y


def test_objective_equals_a_loop_and_gradient_finite_differences():
    X, y = _data(n=30, d=3, K=3, seed=1)
    rng = np.random.default_rng(2)
    W, b, C = rng.normal(size=(3, 3)), rng.normal(size=3), 0.7
    F, gW, gb = multinomial_objective(X, y, W, b, C)
    loop = 0.0
    for i in range(30):
        z = [float(X[i] @ W[:, k] + b[k]) for k in range(3)]
        loop += math.log(sum(math.exp(v) for v in z)) - z[y[i]]
    loop = loop / 30 + sum(W.ravel() ** 2) / (2 * C * 30)
    assert F == pytest.approx(loop, rel=1e-13)
    h = 1e-6
    for (j, k) in [(0, 0), (2, 1), (1, 2)]:
        E = np.zeros_like(W)
        E[j, k] = h
        fd = (multinomial_objective(X, y, W + E, b, C)[0] - multinomial_objective(X, y, W - E, b, C)[0]) / (2 * h)
        assert gW[j, k] == pytest.approx(fd, abs=1e-8)
    e = np.zeros(3)
    e[1] = h
    fd = (multinomial_objective(X, y, W, b + e, C)[0] - multinomial_objective(X, y, W, b - e, C)[0]) / (2 * h)
    assert gb[1] == pytest.approx(fd, abs=1e-8)


def test_reference_hessian_is_the_gradients_derivative():
    """The test helper's curvature: its least eigenvalue bounds the finite-difference curvature."""
    X, y = _data(n=40, d=3, K=3, seed=3)
    ref = tight_reference(X, y, 2.0)
    mu = least_curvature(X, 2.0, ref.coef_, ref.intercept_)
    rng = np.random.default_rng(0)
    for _ in range(5):
        v = rng.normal(size=(3, 4))
        v[:, -1] -= v[:, -1].mean()  # no common intercept shift
        v /= np.linalg.norm(v)
        h = 1e-5
        gp = gradient_by_hand(X, y, 2.0, ref.coef_ + h * v[:, :3], ref.intercept_ + h * v[:, 3])[1]
        gm = gradient_by_hand(X, y, 2.0, ref.coef_ - h * v[:, :3], ref.intercept_ - h * v[:, 3])[1]
        assert float(np.sum(v * (gp - gm)) / (2 * h)) >= mu * (1 - 1e-6) > 0


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("K", [3, 5])
def test_solver_reaches_the_sklearn_optimum(K, sparse):
    X, y = _data(K=K, seed=K, sparse=sparse)
    C = 0.5
    ref = tight_reference(X, y, C)
    F_ref, _ = gradient_by_hand(X, y, C, ref.coef_, ref.intercept_)
    res = multinomial_lbfgs(X, y, K, C, tol=1e-9, float32_phase=True)
    F, g = gradient_by_hand(X, y, C, res.coef.T, res.intercept)
    assert res.converged and res.n_iter_float32 > 0
    assert np.abs(g).max() <= 1e-9 * (1 + 1e-6)  # the stopping rule, checked by hand
    assert res.kkt == pytest.approx(np.abs(g).max(), rel=1e-6, abs=1e-14)
    assert res.objective == pytest.approx(F, rel=1e-13) and F == pytest.approx(F_ref, abs=1e-13)
    tol = probability_tolerance(X, y, C, res.coef.T, res.intercept, ref)
    assert tol < 1e-5
    np.testing.assert_allclose(res.coef.T, ref.coef_, atol=2 * tol)  # the bound holds for θ too
    np.testing.assert_allclose(res.intercept, ref.intercept_, atol=2 * tol)


def test_float32_phase_reaches_the_same_optimum():
    X, y = _data(n=200, d=8, K=6, seed=5, sparse=True)
    a = multinomial_lbfgs(X, y, 6, 3.0, tol=1e-8, float32_phase=True)
    b = multinomial_lbfgs(X, y, 6, 3.0, tol=1e-8, float32_phase=False)
    assert a.n_iter_float32 > 0 and b.n_iter_float32 == 0
    for r in (a, b):
        assert np.abs(gradient_by_hand(X, y, 3.0, r.coef.T, r.intercept)[1]).max() <= 1e-8 * (1 + 1e-6)
    assert a.objective == pytest.approx(b.objective, abs=1e-14)


def test_binary_is_sklearns_binomial_model():
    X, y = _data(n=90, d=4, K=2, seed=6)
    ref = tight_reference(X, y, 1.5)
    est = MultinomialLR(C=1.5, tol=1e-9).fit(X, y)
    assert est.coef_.shape == (1, 4) and est.intercept_.shape == (1,)
    assert np.abs(gradient_by_hand(X, y, 1.5, est.coef_, est.intercept_)[1]).max() <= 1e-9 * (1 + 1e-6)
    tol = probability_tolerance(X, y, 1.5, est.coef_, est.intercept_, ref)
    np.testing.assert_allclose(est.predict_proba(X), ref.predict_proba(X), atol=tol)
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))


def test_default_stopping_rule_and_probabilities_within_its_bound():
    X, y = _data(n=150, d=6, K=5, seed=7, sparse=True)
    est = MultinomialLR(C=2.0).fit(X, y)
    F, g = gradient_by_hand(X, y, 2.0, est.coef_, est.intercept_)
    assert np.abs(g).max() <= MULTINOMIAL_TOL * (1 + 1e-6)
    assert est.kkt_ == pytest.approx(np.abs(g).max(), rel=1e-6) and est.objective_ == pytest.approx(F, rel=1e-13)
    ref = tight_reference(X, y, 2.0)
    assert F >= gradient_by_hand(X, y, 2.0, ref.coef_, ref.intercept_)[0] - 1e-14
    Xt = sp.csr_matrix(np.random.default_rng(8).normal(size=(30, 6)))
    tol = probability_tolerance(X, y, 2.0, est.coef_, est.intercept_, ref, X_eval=Xt)
    np.testing.assert_allclose(est.predict_proba(Xt), ref.predict_proba(Xt), atol=tol)
    dense = MultinomialLR(C=2.0).fit(X.toarray(), y)  # dense X: another float32 rounding, same rule
    tol_dense = probability_tolerance(X, y, 2.0, dense.coef_, dense.intercept_, ref, X_eval=Xt)
    np.testing.assert_allclose(dense.predict_proba(Xt), ref.predict_proba(Xt), atol=tol_dense)


def test_warm_start_and_labels():
    X, y = _data(n=100, d=4, K=3, seed=9)
    labels = np.array(["a", "b", "c"])[y]
    est = MultinomialLR(C=1.0, tol=1e-8, warm_start=True).fit(X, labels)
    assert list(est.classes_) == ["a", "b", "c"] and est.n_iter_[0] > 5
    again = est.fit(X, labels)
    assert again.n_iter_[0] == 0  # already optimal
    cold = clone(est).set_params(warm_start=False, C=3.0).fit(X, labels)
    warm = est.set_params(C=3.0).fit(X, labels)
    assert warm.n_iter_[0] < cold.n_iter_[0]
    np.testing.assert_allclose(warm.predict_proba(X), cold.predict_proba(X), atol=1e-5)


def test_errors():
    X, y = _data(n=20, d=3, K=3)
    with pytest.raises(NotFittedError):
        MultinomialLR().predict_proba(X)
    with pytest.raises(ValueError, match="at least 2 classes"):
        MultinomialLR().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="'C' parameter of MultinomialLR must be > 0"):
        MultinomialLR(C=0.0).fit(X, y)
    with pytest.warns(Warning, match="did not converge"):
        MultinomialLR(max_iter=1).fit(X, y)
    with pytest.raises(ValueError, match="float32_phase must be"):
        multinomial_lbfgs(X, y, 3, 1.0, float32_phase="yes")
    with pytest.raises(ValueError, match="binary=True needs n_classes = 2"):
        multinomial_lbfgs(X, y, 3, 1.0, binary=True)
    assert multinomial_lbfgs(X, y, 3, 1.0).n_iter_float32 == 0  # "auto": 20 x 3 X, 3 classes: below the work bound
