"""ECC's link solver (mlviz.models._warm_links) against scipy and scikit-learn.

References: ``scipy.optimize.minimize(method="L-BFGS-B")`` one problem at a time
(the lockstep driver must take the same iterates), ``LogisticRegression`` on the
hand-built ``[X, earlier labels]`` matrix of each link (lbfgs, the same solver; and
newton-cholesky at a tight tolerance for the exact optimum), hand-written gradients.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from contract import check_clone_of_fitted, check_estimator_contract, check_random_state_determinism, contract_data
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

import mlviz.models._warm_links as wl
import mlviz.solvers.lbfgs_many as lm
from mlviz.models.chains import EnsembleClassifierChains


def _ridge_logistic_problems(seed=0):
    """Independent ridge logistic regressions of different sizes; fg evaluates each on its own."""
    rng = np.random.default_rng(seed)
    probs = []
    for p in (3, 5, 8, 2):
        A = rng.normal(size=(40, p))
        y = (A @ rng.normal(size=p) + rng.logistic(size=40) > 0).astype(float)
        probs.append((A, y))

    def fg(which, thetas):
        out = []
        for i, th in zip(which, thetas):
            A, y = probs[i]
            z = A @ th
            f = np.sum(np.logaddexp(0, z) - y * z) / 40 + 0.005 * th @ th
            out.append((f, A.T @ (expit(z) - y) / 40 + 0.01 * th))
        return out

    return fg, [np.zeros(A.shape[1]) for A, _ in probs]


@pytest.mark.parametrize("max_iter", [1000, 3])
@pytest.mark.parametrize("lockstep", [True, False])
def test_lbfgs_many_takes_scipys_iterates(monkeypatch, max_iter, lockstep):
    if not lockstep:
        monkeypatch.setattr(lm, "_setulb", lambda: None)  # the scipy < 1.15 fallback
    elif lm._setulb() is None:
        pytest.skip("scipy without the reverse-communication L-BFGS-B")
    monkeypatch.setattr(lm, "BLOCK", 3)  # two blocks
    monkeypatch.setattr(lm, "BLOCK_BYTES", 200.0 * 13)  # and by memory: (3, 5), (8), (2)
    fg, x0s = _ridge_logistic_problems()
    got = lm.lbfgs_many(fg, x0s, tol=1e-9, max_iter=max_iter)
    for i, (x, nit, ok, msg) in enumerate(got):
        ref = minimize(lambda th, i=i: fg([i], [th])[0], x0s[i], method="L-BFGS-B", jac=True,
                       options=dict(maxiter=max_iter, maxls=50, gtol=1e-9, ftol=lm.FTOL))
        np.testing.assert_array_equal(x, ref.x)
        assert (nit, ok, msg) == (ref.nit, ref.success, ref.message)
    assert all(not ok for _, _, ok, _ in got) == (max_iter == 3)


def _link_matrix(X, Y, order, j, s):
    prefix = s * Y[:, order[:j]].astype(float)
    return sp.hstack([X, sp.csr_matrix(prefix)], format="csr") if sp.issparse(X) else np.hstack([X, prefix])


@pytest.mark.parametrize("sparse", [False, True])
def test_cold_links_are_logistic_regressions_fits(sparse):
    X, Y = contract_data(n=70, d=5, L=4, random_state=2)
    Y = Y.copy()
    Y[:, 2] = 1  # a constant label: a float link
    X = sp.csr_matrix(X) if sparse else X
    order, C, s = np.array([3, 0, 2, 1]), 0.7, 0.3
    links = wl.WarmLinks(5, 4, warm=False).fit_chain(X, Y, order, C, s)
    assert links[2] == 1.0
    for j in (0, 1, 3):
        ref = LogisticRegression(C=C, max_iter=1000).fit(_link_matrix(X, Y, order, j, s), Y[:, order[j]])
        np.testing.assert_allclose(links[j].coef_, ref.coef_, atol=1e-9)
        np.testing.assert_allclose(links[j].intercept_, ref.intercept_, atol=1e-9)
        assert links[j].n_iter_[0] == ref.n_iter_[0]
        Z = _link_matrix(X, Y, order, j, s)
        np.testing.assert_allclose(links[j].predict_proba(Z), ref.predict_proba(Z), atol=1e-9)


def test_warm_start_is_the_last_solution_of_the_label(monkeypatch):
    X, Y = contract_data(n=60, d=4, L=4, random_state=3)
    X = X.copy()
    starts = []
    real = wl.lbfgs_many
    monkeypatch.setattr(wl, "lbfgs_many", lambda fg, x0s, **kw: (starts.append([x.copy() for x in x0s]),
                                                                 real(fg, x0s, **kw))[1])
    links = wl.WarmLinks(4, 4, warm=True)
    o1, o2 = np.array([0, 1, 2, 3]), np.array([2, 3, 1, 0])
    first = links.fit_chain(X, Y, o1, 1.0, 1.0)
    X2 = X.copy()
    X2[:, 1] = 0.0  # an all-zero column in the second sample: its optimal weight is exactly 0, so it starts at 0
    links.fit_chain(X2, Y, o2, 1.0, 1.0)
    for j, label in enumerate(o2):
        k = list(o1).index(label)  # the first chain's link of this label
        w1 = dict(zip([f"x{i}" for i in range(4)] + [f"y{l}" for l in o1[:k]], first[k].coef_[0]))
        want = [0.0 if i == 1 else w1[f"x{i}"] for i in range(4)] + [w1.get(f"y{l}", 0.0) for l in o2[:j]]
        np.testing.assert_array_equal(starts[1][j], np.array(want + [first[k].intercept_[0]]))
    assert all(np.all(x == 0) for x in starts[0])  # nothing stored before the first chain


def test_warm_links_reach_each_links_optimum():
    """Tight tolerance: warm-started links of three chains on different samples equal the exact optima."""
    X, Y = contract_data(n=90, d=5, L=4, random_state=4)
    rng = np.random.default_rng(0)
    tight = dict(tol=1e-10, max_iter=5000)
    warm, cold = wl.WarmLinks(5, 4, warm=True, **tight), wl.WarmLinks(5, 4, warm=False, **tight)
    for _ in range(3):
        order, rows = rng.permutation(4), np.sort(rng.permutation(90)[:60])
        got = warm.fit_chain(X[rows], Y[rows], order, 2.0, 0.5)
        cold.fit_chain(X[rows], Y[rows], order, 2.0, 0.5)
        for j in range(4):
            Z = _link_matrix(X[rows], Y[rows], order, j, 0.5)
            ref = LogisticRegression(C=2.0, solver="newton-cholesky", tol=1e-12, max_iter=100).fit(
                Z, Y[rows, order[j]])
            np.testing.assert_allclose(got[j].coef_, ref.coef_, atol=1e-6)
            np.testing.assert_allclose(got[j].intercept_, ref.intercept_, atol=1e-6)
    assert sum(warm.n_iter[4:]) < sum(cold.n_iter[4:])  # chains 2 and 3 start near their optima


@pytest.mark.parametrize("sparse", [False, True])
def test_ecc_warm_links_meet_the_stopping_rule(sparse):
    """Every warm-started link of ECC: the gradient of its objective (by hand) is within LogisticRegression's tol."""
    X, Y = contract_data(n=80, d=4, L=4, random_state=5)
    X = sp.csr_matrix(X) if sparse else X
    ecc = EnsembleClassifierChains(base="lr", n_chains=4, label_scale=0.3, warm_start=True, random_state=1).fit(X, Y)
    for cc, rows in zip(ecc.chains_, ecc.samples_):
        for j, link in enumerate(cc.estimators_):
            Z = _link_matrix(X[rows], Y[rows], cc.order_, j, 0.3)
            y, n = Y[rows, cc.order_[j]], len(rows)
            r = expit(Z @ link.coef_[0] + link.intercept_[0]) - y
            grad = np.append(Z.T @ r / n + link.coef_[0] / (cc.C_ * n), r.sum() / n)
            assert np.abs(grad).max() <= 1e-4


def test_ecc_warm_start_contract():
    est = EnsembleClassifierChains(n_chains=3, warm_start=True, random_state=0)
    check_estimator_contract(est, sparse=True)
    check_clone_of_fitted(est)
    check_random_state_determinism(est)
