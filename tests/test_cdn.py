"""SparseCDN and PCC against independent references.

scikit-learn LogisticRegression (variant "lr"), scipy L-BFGS-B (smooth CDN),
KKT conditions with an independently written gradient (checked by finite
differences), the exact stationary distribution of the Gibbs chain, brute-force
enumeration of the chain rule for PCC, and graph recovery on data drawn from a
known sparse pairwise model.
"""

import copy
import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _cdn_reference import gibbs_kernel, stationary_marginals
from contract import check_estimator_contract
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from mlviz.models import PCC, SparseCDN
from mlviz.models.cdn import gamma_grid, gibbs_marginals, path_summary, sparse_cdn_path
from mlviz.solvers.fista import fista


def _data(n=120, d=6, L=3, seed=0, noise_features=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d + noise_features))
    W = rng.normal(size=(d, L))
    Z = X[:, :d] @ W + 0.8 * rng.normal(size=(n, L))
    Y = (Z > 0).astype(np.uint8)
    Y[:, -1] = np.where(rng.random(n) < 0.8, Y[:, 0], Y[:, -1])  # a dependent label
    return X, Y


def _objective_parts(X, Y, W, V, b, lam1, lam2):
    """Smooth part of eq. (4) (summed loss) and its gradient, written independently."""
    n, L = Y.shape
    S = 2.0 * Y - 1.0
    f = 0.5 * lam1 * np.sum(W ** 2) + 0.5 * lam2 * np.sum(V ** 2)
    gW, gV, gb = lam1 * W.copy(), lam2 * V.copy(), np.zeros(L)
    for k in range(L):
        z = X @ W[:, k] + b[k] + sum(S[:, t] * V[t, k] for t in range(L) if t != k)
        f += np.sum(np.log1p(np.exp(-S[:, k] * z)))
        r = -S[:, k] * expit(-S[:, k] * z)
        gW[:, k] += X.T @ r
        gb[k] = r.sum()
        for t in range(L):
            gV[t, k] = 0.0 if t == k else gV[t, k] + S[:, t] @ r
    return f, gW, gV, gb


def test_lr_variant_matches_sklearn():
    X, Y = _data()
    lam1 = 0.1
    m = SparseCDN(variant="lr", lam1=lam1, mu=0.0, tol=1e-10, max_iter=20000).fit(X, Y)
    assert not np.any(m.label_coef_) and m.label_graph_.number_of_edges() == 0
    for k in range(Y.shape[1]):
        ref = LogisticRegression(C=1.0 / lam1, tol=1e-12, max_iter=10000).fit(X, Y[:, k])
        np.testing.assert_allclose(m.coef_[:, k], ref.coef_[0], atol=1e-4)
        assert abs(m.intercept_[k] - ref.intercept_[0]) < 1e-4
    np.testing.assert_allclose(m.predict_proba(X), expit(X @ m.coef_ + m.intercept_))


def test_scale_lam_is_the_ridge_in_units_of_the_mean_squared_row_norm():
    """``scale_lam=True`` with λ equals ``scale_lam=False`` with λ · (1/n) Σ ||x_i||² (computed here by hand),
    and on its "lr" variant scikit-learn's LogisticRegression(C = 1 / that product), per label."""
    X, Y = _data()
    X = 3.0 * X  # (mean squared norm far from 1)
    r2 = float(np.mean(np.sum(X * X, axis=1)))
    scaled = SparseCDN(lam1=0.1, lam2=0.2, scale_lam=True, gamma=0.5, tol=1e-8, max_iter=5000).fit(X, Y)
    plain = SparseCDN(lam1=0.1 * r2, lam2=0.2 * r2, gamma=0.5, tol=1e-8, max_iter=5000).fit(X, Y)
    assert scaled.lam_scale_ == pytest.approx(r2, rel=1e-12) and plain.lam_scale_ == 1.0
    for a in ("coef_", "label_coef_", "intercept_"):
        np.testing.assert_allclose(getattr(scaled, a), getattr(plain, a), rtol=1e-10, atol=1e-12)
    assert scaled.gamma_max_ == pytest.approx(plain.gamma_max_, rel=1e-10)
    lr = SparseCDN(variant="lr", lam1=0.05, scale_lam=True, tol=1e-10, max_iter=20000).fit(X, Y)
    for k in range(Y.shape[1]):
        ref = LogisticRegression(C=1.0 / (0.05 * r2), tol=1e-12, max_iter=10000).fit(X, Y[:, k])
        np.testing.assert_allclose(lr.coef_[:, k], ref.coef_[0], atol=1e-4)


def test_independent_gradient_matches_finite_differences():
    X, Y = _data(n=30, d=3)
    rng = np.random.default_rng(1)
    W, V, b = rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=3)
    np.fill_diagonal(V, 0)
    f, gW, gV, gb = _objective_parts(X, Y, W, V, b, 0.3, 0.2)
    eps = 1e-6
    for (i, j) in [(0, 0), (2, 1)]:
        Wp = W.copy()
        Wp[i, j] += eps
        Wm = W.copy()
        Wm[i, j] -= eps
        fd = (_objective_parts(X, Y, Wp, V, b, 0.3, 0.2)[0] - _objective_parts(X, Y, Wm, V, b, 0.3, 0.2)[0]) / (2 * eps)
        assert abs(fd - gW[i, j]) < 1e-7
    Vp = V.copy()
    Vp[0, 2] += eps
    Vm = V.copy()
    Vm[0, 2] -= eps
    fd = (_objective_parts(X, Y, W, Vp, b, 0.3, 0.2)[0] - _objective_parts(X, Y, W, Vm, b, 0.3, 0.2)[0]) / (2 * eps)
    assert abs(fd - gV[0, 2]) < 1e-7


@pytest.fixture(params=["column", "fista"])
def solver(request, monkeypatch):
    """Both step-2 solvers of the fit (per-label L-BFGS then FISTA, or FISTA alone), whatever
    the size rule of ``_cdn_core._use_column`` would pick for the test's data."""
    from mlviz.models import _cdn_core

    monkeypatch.setattr(_cdn_core, "_SOLVER", request.param)
    return request.param


def test_kkt_at_sparse_solution(solver):
    X, Y = _data(n=150, d=4, L=4, noise_features=6, seed=2)
    gamma, mu, lam1, lam2 = 3.0, 4.5, 0.1, 0.1
    m = SparseCDN(gamma=gamma, mu=mu, lam1=lam1, lam2=lam2, tol=1e-9, max_iter=20000).fit(X, Y)
    assert m.converged_
    W, V, b = m.coef_, m.label_coef_, m.intercept_
    assert np.all(np.diag(V) == 0)
    _, gW, gV, gb = _objective_parts(X, Y, W, V, b, lam1, lam2)
    tol = 1e-6 * X.shape[0]  # the solver's tol applies to the gradient / n
    np.testing.assert_allclose(gb, 0, atol=tol)
    norms = np.linalg.norm(W, axis=1)
    zero_rows = norms == 0
    assert zero_rows.any() and not zero_rows.all()
    assert np.all(np.linalg.norm(gW[zero_rows], axis=1) <= mu + tol)
    nz = ~zero_rows
    np.testing.assert_allclose(gW[nz] + mu * W[nz] / norms[nz, None], 0, atol=tol)
    off = ~np.eye(4, dtype=bool)
    zeroV = off & (V == 0)
    assert zeroV.any() and (off & (V != 0)).any()
    assert np.all(np.abs(gV[zeroV]) <= gamma + tol)
    nzV = V != 0
    np.testing.assert_allclose(gV[nzV] + gamma * np.sign(V[nzV]), 0, atol=tol)
    np.testing.assert_array_equal(m.selected_features_, np.flatnonzero(nz))
    assert sorted(m.label_graph_.edges(data="weight")) == sorted(
        (int(t), int(k), float(V[t, k])) for t, k in zip(*np.nonzero(V)))
    assert "label_graph_" not in vars(m)  # built from V on access: not kept with the model
    assert not hasattr(SparseCDN(), "label_graph_")  # unfitted
    # adaptive restart: non-increasing up to the backtracking round-off slack 1e-12 * |f|
    assert np.all(np.diff(m.objective_history_) <= 2e-12 * max(1.0, m.objective_history_[0]))


def test_smooth_cdn_matches_lbfgs(solver):
    X, Y = _data(n=100, d=3, L=3, seed=3)
    lam1, lam2 = 5.0, 10.0
    m = SparseCDN(variant="cdn", lam1=lam1, lam2=lam2, tol=1e-10, max_iter=20000).fit(X, Y)
    off = ~np.eye(3, dtype=bool)

    def unpack(p):
        W = p[:9].reshape(3, 3)
        V = np.zeros((3, 3))
        V[off] = p[9:15]
        return W, V, p[15:]

    def fun(p):
        f, gW, gV, gb = _objective_parts(X, Y, *unpack(p), lam1, lam2)
        return f, np.concatenate([gW.ravel(), gV[off], gb])

    ref = minimize(fun, np.zeros(18), jac=True, method="L-BFGS-B",
                   options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 10000})
    f_ours = _objective_parts(X, Y, m.coef_, m.label_coef_, m.intercept_, lam1, lam2)[0]
    assert abs(f_ours - ref.fun) < 1e-8
    assert abs(m.objective_history_[-1] - ref.fun) < 1e-8
    W, V, b = unpack(ref.x)
    np.testing.assert_allclose(m.label_coef_, V, atol=1e-5)
    np.testing.assert_allclose(m.coef_, W, atol=1e-5)


def test_gamma_path_edges_and_warm_start():
    X, Y = _data(n=150, d=4, L=5, seed=4)
    gammas = [150.0, 15.0, 4.5, 1.5, 0.45, 0.15, 0.015]
    path = sparse_cdn_path(X, Y, gammas, mu=1.5, tol=1e-8, max_iter=5000)
    edges = [m.label_graph_.number_of_edges() for m in path]
    assert [m.gamma for m in path] == sorted(gammas, reverse=True)
    assert edges[0] == 0
    assert edges[-1] > 0
    assert all(a <= b for a, b in zip(edges, edges[1:]))  # gamma decreasing -> edges non-decreasing
    summary = path_summary(path)
    assert list(summary["n_edges"]) == edges
    # a warm-started model equals a cold fit at the same gamma
    assert path[0].gamma_max_ < gammas[0]
    g_max = path[-1].gamma_max_
    assert SparseCDN(gamma=1.01 * g_max, mu=1.5, tol=1e-8).fit(X, Y).label_graph_.number_of_edges() == 0
    assert SparseCDN(gamma=0.9 * g_max, mu=1.5, tol=1e-8).fit(X, Y).label_graph_.number_of_edges() > 0
    grid = gamma_grid(path[-1], n_points=5, min_ratio=1e-2)
    assert len(grid) == 5 and grid[0] == g_max and np.isclose(grid[-1], 1e-2 * g_max)
    cold = SparseCDN(gamma=1.5, mu=1.5, tol=1e-8, max_iter=5000).fit(X, Y)
    warm = path[3]
    assert abs(cold.objective_history_[-1] - warm.objective_history_[-1]) < 1e-8
    np.testing.assert_allclose(cold.label_coef_, warm.label_coef_, atol=1e-5)
    # path models are independent objects; a gamma-only refit (in place, returns self)
    # reuses the Gibbs start model and lands on the cold solution
    assert len({id(m) for m in path}) == len(path)
    source = copy.deepcopy(path[3])
    init_before = path[3].init_coef_
    again = path[3].refit(gamma=5.0)
    assert again is path[3] and again.gamma == 5.0
    assert again.init_coef_ is init_before
    cold5 = SparseCDN(gamma=5.0, mu=1.5, tol=1e-8, max_iter=5000).fit(X, Y)
    np.testing.assert_allclose(again.label_coef_, cold5.label_coef_, atol=1e-5)
    # a mu move refits the Gibbs start model too, and lands on the cold solution
    moved = source.refit(mu=3.0)
    cold_mu = SparseCDN(gamma=1.5, mu=3.0, tol=1e-8, max_iter=5000).fit(X, Y)
    assert moved.init_coef_ is not init_before
    assert abs(moved.objective_history_[-1] - cold_mu.objective_history_[-1]) < 1e-6
    np.testing.assert_allclose(moved.init_coef_, cold_mu.init_coef_, atol=1e-5)
    assert path[2].gamma == sorted(gammas, reverse=True)[2]  # neighbours untouched


def test_gibbs_matches_exact_stationary_distribution():
    lin = np.array([0.3, -0.5, 0.1])
    V = np.array([[0.0, 1.5, -1.0], [0.4, 0.0, 2.0], [-1.2, 0.8, 0.0]])  # asymmetric
    exact = stationary_marginals(lin, V)
    assert np.max(np.abs(exact - expit(lin))) > 0.05  # dependencies matter
    n = 3000
    P = gibbs_marginals(np.tile(lin, (n, 1)), V, np.full((n, 3), 0.5), 20, 150,
                        np.random.default_rng(0))
    np.testing.assert_allclose(P.mean(axis=0), exact, atol=6e-3)
    P2 = gibbs_marginals(np.tile(lin, (n, 1)), V, np.full((n, 3), 0.5), 20, 150,
                         np.random.default_rng(0))
    np.testing.assert_array_equal(P, P2)


def test_graph_recovery_from_pairwise_model():
    """Labels drawn exactly from p(y|x) ~ exp(sum_k y_k h_k(x) + sum_{t<k} J_tk y_t y_k).

    Then p(y_k | x, y_-k) = sigma(y_k (2 h_k(x) + 2 sum_t J_tk y_t)): true CDN edges are
    the non-zero J_tk, in both directions. Asserted: precision and recall >= 0.8.
    The ridge on W is weak (lam1 = 1.5 for n = 1500): a strong ridge under-fits the
    x-driven part and lets shared x-dependence leak into V as spurious edges.
    """
    rng = np.random.default_rng(5)
    n, d, L = 1500, 4, 6
    X = rng.normal(size=(n, d))
    H = 0.5 * X @ rng.normal(size=(d, L))
    J = np.zeros((L, L))
    for t, k, w in [(0, 1, 0.9), (2, 3, -0.8), (3, 4, 0.7), (1, 5, 0.8)]:
        J[t, k] = J[k, t] = w
    states = np.array(list(itertools.product([-1.0, 1.0], repeat=L)))
    logp = H @ states.T + 0.5 * np.einsum("sk,kt,st->s", states, J, states)[None, :]
    prob = np.exp(logp - logp.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    draw = (prob.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
    Y = (states[draw] > 0).astype(np.uint8)
    m = SparseCDN(gamma=45.0, mu=1.5, lam1=1.5, lam2=15.0, random_state=0).fit(X, Y)
    true = {(t, k) for t, k in zip(*np.nonzero(J))}
    found = set(m.label_graph_.edges())
    precision = len(true & found) / max(1, len(found))
    recall = len(true & found) / len(true)
    assert precision >= 0.8 and recall >= 0.8, (precision, recall, sorted(found))
    for t, k in true & found:
        assert np.sign(m.label_coef_[t, k]) == np.sign(J[t, k])


def test_dense_equals_sparse_and_constant_labels():
    X, Y = _data(n=80, d=5, L=4, seed=6)
    Y[:, 1] = 0
    Y[:, 2] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = SparseCDN(gamma=0.8, mu=0.8, tol=1e-9, max_iter=5000, random_state=0).fit(X, Y)
        ms = SparseCDN(gamma=0.8, mu=0.8, tol=1e-9, max_iter=5000, random_state=0).fit(sp.csr_matrix(X), Y)
    # dense and sparse X take different BLAS paths, so the iterates differ by rounding and
    # FISTA may stop one iteration apart: equal up to the solver tolerance, not bit for bit
    np.testing.assert_allclose(m.coef_, ms.coef_, atol=1e-6)
    np.testing.assert_allclose(m.label_coef_, ms.label_coef_, atol=1e-6)
    assert ((m.label_coef_ == 0) == (ms.label_coef_ == 0)).all()
    P = m.predict_proba(X)
    np.testing.assert_allclose(P, ms.predict_proba(sp.csr_matrix(X)), atol=1e-6)
    assert np.isfinite(P).all()
    assert np.all(P[:, 1] < 0.02) and np.all(P[:, 2] > 0.98)
    assert not np.any(m.label_coef_[[1, 2], :]) and not np.any(m.label_coef_[:, [1, 2]])
    Pp = PCC(random_state=0).fit(X, Y).predict_proba(X)
    assert np.isfinite(Pp).all()
    np.testing.assert_allclose(Pp[:, 1], 0, atol=1e-12)
    np.testing.assert_allclose(Pp[:, 2], 1, atol=1e-12)


@pytest.mark.parametrize("variant", ["sparse", "lr", "cdn", "l1-cdn", "l21-lr"])
def test_contract_sparsecdn(variant):
    check_estimator_contract(SparseCDN(variant=variant, gamma=0.5, mu=0.5, tol=1e-8,
                                       n_burn=10, n_samples=50, random_state=0))


def test_contract_pcc():
    check_estimator_contract(PCC(random_state=0))
    check_estimator_contract(PCC(inference="sampling", order="random", n_samples=200, random_state=3))


def test_parameter_errors():
    X, Y = _data(n=30)
    with pytest.raises(ValueError, match="'gamma' parameter of SparseCDN must be >= 0"):
        SparseCDN(gamma=-1).fit(X, Y)
    with pytest.raises(ValueError, match="'variant' parameter of SparseCDN"):
        SparseCDN(variant="dense").fit(X, Y)
    with pytest.raises(ValueError, match="'order' parameter of PCC"):
        PCC(order=[0, 0, 1]).fit(X, Y)
    m = SparseCDN().fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        m.predict_proba(X[:, :2])


def _brute_force_chain(pcc, X):
    """Joint over all label vectors from the links' own predict_proba (no fast path)."""
    L = len(pcc.order_)
    P = np.zeros((X.shape[0], L))
    for config in itertools.product([0, 1], repeat=L):  # in chain order
        joint = np.ones(X.shape[0])
        for j in range(L):
            prefix = np.tile(np.array(config[:j], dtype=float), (X.shape[0], 1))
            est = pcc.estimators_[j]
            p1 = est if isinstance(est, float) else est.predict_proba(np.hstack([X, prefix]))[:, 1]
            joint *= p1 if config[j] else 1 - p1
        for j in range(L):
            if config[j]:
                P[:, pcc.order_[j]] += joint
    return P


@pytest.mark.parametrize("estimator", [None, GaussianNB()])
def test_pcc_exact_equals_brute_force_and_sampling(estimator):
    X, Y = _data(n=100, d=4, L=4, seed=7)
    pcc = PCC(estimator=estimator, order=[2, 0, 3, 1], inference="exact").fit(X, Y)
    exact = pcc.predict_proba(X[:20])
    np.testing.assert_allclose(exact, _brute_force_chain(pcc, X[:20]), atol=1e-12)
    configs, joint = pcc.joint_proba(X[:20])
    np.testing.assert_allclose(joint.sum(axis=1), 1.0)
    np.testing.assert_allclose(joint @ configs, exact, atol=1e-12)
    samp = PCC(estimator=estimator, order=[2, 0, 3, 1], inference="sampling", n_samples=3000,
               random_state=0).fit(X, Y).predict_proba(X[:20])
    assert np.max(np.abs(samp - exact)) < 0.03


@pytest.mark.slow(seconds=7)
def test_reproduction_quick(monkeypatch):
    import functools

    from mlviz.reproductions import COLUMNS, cdn_tables

    # a smoke test of the table, not of inference accuracy: the paper's weak penalties give
    # one large, slowly mixing label graph on medical, so cap the Gibbs cost here
    monkeypatch.setattr(cdn_tables, "SparseCDN", functools.partial(SparseCDN, se_target=0.02,
                                                                   max_sweeps=400))
    df = cdn_tables.run(quick=True)
    assert list(df.columns[:len(COLUMNS)]) == COLUMNS
    assert set(df["method"]) == set(cdn_tables.METHODS)
    assert df["ours"].notna().all() and df["paper"].notna().all()
    # medical, 200 training: every method is far above chance (paper: 70-87 % micro-F1)
    micro = df[df["measure"] == "micro_f1"].set_index("method")["ours"]
    assert (micro > 60).all(), micro


def test_refit_gamma_ratio_matches_cold_fit_at_new_gamma_max():
    """refit(gamma_ratio=r, mu=...) == a cold fit at gamma = r * gamma_max_ of the new mu."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((120, 6))
    Y = (X[:, :3] + 0.5 * rng.standard_normal((120, 3)) > 0).astype(int)
    base = SparseCDN(gamma=1.0, mu=2.0, tol=1e-9, max_iter=20000, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="gamma_ratio"):
        base.refit(gamma_ratio=-1.0)
    assert base.mu == 2.0 and base.gamma == 1.0  # a failed refit leaves the model as it was
    new = base.refit(gamma_ratio=0.3, mu=5.0)
    assert new is base
    probe = SparseCDN(gamma=1e9, mu=5.0, tol=1e-9, max_iter=20000).fit(X, Y)
    assert new.gamma == pytest.approx(0.3 * probe.gamma_max_, rel=1e-6)
    assert new.gamma_max_ == pytest.approx(probe.gamma_max_, rel=1e-6)
    cold = SparseCDN(gamma=new.gamma, mu=5.0, tol=1e-9, max_iter=20000).fit(X, Y)
    np.testing.assert_allclose(new.label_coef_, cold.label_coef_, atol=1e-5)
    np.testing.assert_allclose(new.coef_, cold.coef_, atol=1e-5)


def test_gamma_at_gamma_max_returns_start_model_and_satisfies_kkt():
    """At gamma >= gamma_max_ the graph is exactly empty and the model is the start model;
    checked against an independent KKT evaluation of objective (4) at that point."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((150, 5))
    Y = (X[:, :3] + rng.standard_normal((150, 3)) > 0).astype(int)
    probe = SparseCDN(gamma=1e9, mu=3.0, random_state=0).fit(X, Y)
    m = SparseCDN(gamma=probe.gamma_max_, mu=3.0, random_state=0).fit(X, Y)
    assert m.label_graph_.number_of_edges() == 0 and m.n_iter_ == 0
    np.testing.assert_array_equal(m.coef_, m.init_coef_)
    S = 2.0 * Y - 1.0
    Z = X @ m.coef_ + m.intercept_
    R = -S * expit(-S * Z)  # summed-loss residuals
    gV = S.T @ R
    np.fill_diagonal(gV, 0.0)
    assert np.abs(gV).max() <= m.gamma * (1 + 1e-9)  # KKT for V = 0
    # just below gamma_max_ an edge appears
    below = m.refit(gamma=0.9 * probe.gamma_max_)
    assert below.label_graph_.number_of_edges() >= 1


def test_callback_reports_every_iteration_and_can_abort_a_refit():
    """The progress callback sees each FISTA iteration of both stages, with the objective the
    fit records (eq. 4, summed loss, computed independently here); raising in it aborts a
    refit and leaves the source model as it was."""
    X, Y = _data()
    seen = []
    m = SparseCDN(gamma=0.5, mu=1.0, lam1=0.1, lam2=0.1, random_state=0).fit(
        X, Y, callback=lambda stage, it, F: seen.append((stage, it, F)))
    main = [(it, F) for stage, it, F in seen if stage == "main"]
    assert [s for s, _, _ in seen[:1]] == ["start"] and {s for s, _, _ in seen} == {"start", "main"}
    assert [it for it, _ in main] == list(range(1, m.n_iter_ + (not m.converged_)))
    np.testing.assert_allclose([F for _, F in main], m.objective_history_[1:len(main) + 1], rtol=1e-12)
    f, *_ = _objective_parts(X, Y, m.coef_, m.label_coef_, m.intercept_, 0.1, 0.1)
    F_indep = f + 0.5 * np.abs(m.label_coef_).sum() + 1.0 * np.linalg.norm(m.coef_, axis=1).sum()
    assert m.objective_history_[-1] == pytest.approx(F_indep, rel=1e-10)

    class Abort(Exception):
        pass

    def stop_after_3(stage, it, F):
        if it >= 3:
            raise Abort

    before = (m.coef_.copy(), m.label_coef_.copy(), m.mu)
    with pytest.raises(Abort):
        m.refit(mu=0.1, callback=stop_after_3)
    np.testing.assert_array_equal(m.coef_, before[0])
    np.testing.assert_array_equal(m.label_coef_, before[1])
    assert m.mu == before[2]


# ------------------------------------------------------------ inference with a stated accuracy
@pytest.mark.parametrize("L", [3, 4])
@pytest.mark.parametrize("direct", [True, False])
def test_exact_marginals_equal_brute_force_stationary_distribution(L, direct, monkeypatch):
    """Both exact paths (dense solve; power iteration) against the eigenvector of the explicit
    2^L x 2^L kernel, for asymmetric strong label weights (slow mixing)."""
    import mlviz.models._cdn_inference as core
    from mlviz.models._cdn_inference import exact_marginals

    if not direct:
        monkeypatch.setattr(core, "_DIRECT_MAX_LABELS", 0)
    rng = np.random.default_rng(L)
    lin = rng.normal(size=(5, L))
    V = 2.5 * rng.normal(size=(L, L))
    np.fill_diagonal(V, 0.0)
    P, err = exact_marginals(lin, V, np.full((5, L), 0.5))
    for i in range(5):
        T, _ = gibbs_kernel(lin[i], V)
        np.testing.assert_allclose(T.sum(axis=1), 1.0)
        np.testing.assert_allclose(P[i], stationary_marginals(lin[i], V), atol=1e-8)
    assert np.all(err <= 1e-9)


def _dependent_data(n=300, L=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    Y = (X @ rng.normal(size=(4, L)) + rng.normal(size=(n, L)) > 0).astype(np.uint8)
    Y[:, 3] = np.where(rng.random(n) < 0.85, Y[:, 0], Y[:, 3])
    Y[:, 4] = np.where(rng.random(n) < 0.85, 1 - Y[:, 1], Y[:, 4])
    return X, Y


def test_predict_proba_exact_per_component_and_gibbs_within_stated_error():
    X, Y = _dependent_data()
    m = SparseCDN(gamma=5.0, mu=0.5, lam2=1.0, tol=1e-8, random_state=0).fit(X, Y)
    V = m.label_coef_
    assert m.label_graph_.number_of_edges() >= 2
    P = m.predict_proba(X[:25])
    assert m.inference_["exact_labels"] >= 2 and m.inference_["gibbs_labels"] == 0
    assert np.all(m.predict_proba_se_ <= 1e-9)
    lin = m.decision_function(X[:25])
    for i in range(25):  # the whole L-label chain by brute force (components are independent)
        np.testing.assert_allclose(P[i], stationary_marginals(lin[i], V), atol=1e-8)
    # Gibbs on the same model: within 5 stated standard errors, SE at the target
    g = SparseCDN(**{**m.get_params(), "inference": "gibbs", "se_target": 0.01}).fit(X, Y)
    Pg = g.predict_proba(X[:25])
    se = g.predict_proba_se_
    assert g.inference_["gibbs_labels"] >= 2 and g.inference_["exact_labels"] == 0
    assert se.max() <= 0.01 + 1e-12
    # 5 stated SEs; the 1e-3 floor covers events too rare to occur in any chain's run (a
    # parent flipping with probability < 1e-4 per sweep): there the chain means agree and the
    # SE reads 0 although the estimate is off by up to that probability times the effect
    assert np.all(np.abs(Pg - P) <= 5 * se + 1e-3)
    assert np.abs(Pg - P).max() <= 0.03
    # different seeds agree to the stated accuracy; the same seed reproduces exactly
    g2 = SparseCDN(**{**g.get_params(), "random_state": 1}).fit(X, Y)
    P2 = g2.predict_proba(X[:25])
    assert np.all(np.abs(P2 - Pg) <= 5 * np.hypot(se, g2.predict_proba_se_) + 1e-3)
    np.testing.assert_array_equal(g.predict_proba(X[:25]), Pg)


def test_predict_equals_threshold_of_predict_proba_without_random_state():
    X, Y = _dependent_data(seed=1)
    m = SparseCDN(gamma=5.0, mu=0.5, lam2=1.0, inference="gibbs", se_target=0.05, n_samples=20,
                  random_state=None).fit(X, Y)
    assert isinstance(m.inference_seed_, int)
    np.testing.assert_array_equal(m.predict(X), (m.predict_proba(X) >= 0.5).astype(np.uint8))
    assert "threshold 0.5" in m.decision_rule_
    g = np.random.default_rng(3)
    m2 = SparseCDN(gamma=5.0, mu=0.5, lam2=1.0, random_state=g).fit(X, Y)
    np.testing.assert_array_equal(m2.predict(X), (m2.predict_proba(X) >= 0.5).astype(np.uint8))


def test_exact_inference_too_large_raises_before_work():
    from mlviz.models.cdn import TooLargeError

    X, Y = _dependent_data()
    m = SparseCDN(gamma=0.5, mu=0.5, lam2=0.1, inference="exact", max_exact_labels=2,
                  random_state=0).fit(X, Y)
    assert max(len(c) for c in m._components()) > 2
    with pytest.raises(TooLargeError, match="inference='auto'"):
        m.predict_proba(X)
    with pytest.raises(ValueError, match="max_exact_labels"):
        SparseCDN(max_exact_labels=30).fit(X, Y)


def test_not_fitted_errors():
    from sklearn.exceptions import NotFittedError

    X, Y = _data(n=30)
    for call in (lambda m: m.predict_proba(X), lambda m: m.predict(X), lambda m: m.refit(gamma=1.0),
                 lambda m: m.predict_proba_with_error(X)):
        with pytest.raises(NotFittedError):
            call(SparseCDN())


def test_default_tol_on_nearly_separable_sparse_data_reaches_the_tight_solution():
    """Issue 14: 3,125 sparse standardised features, more features than instances, so the
    start model nearly separates the data and every raw gradient entry is tiny. The old
    absolute rule stopped after a few iterations with V far from the optimum; the scaled
    KKT rule (gradient mapping / (std(feature) * rms(residual))) must reach the
    tight-tolerance solution at the default tol, and satisfy KKT there (independent
    gradient)."""
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    n, d, L = 120, 3125, 5
    X = sp.random(n, d, density=0.005, random_state=1, format="csr",
                  data_rvs=lambda k: rng.poisson(1, k) + 1.0)
    Z = X @ (3.0 * sp.random(d, L, density=0.05, random_state=2).toarray())
    Y = (Z - np.median(Z, axis=0) - 1 + rng.logistic(size=(n, L)) > 0).astype(np.uint8)
    Y[:, 3:] = np.where(rng.random((n, 2)) < 0.7, Y[:, :2], Y[:, 3:])
    X = StandardScaler(with_mean=False).fit_transform(X).tocsr()
    m = SparseCDN(lam1=0.1, lam2=0.1, gamma=1e-3, random_state=0).fit(X, Y)  # default tol
    assert m.converged_ and m.kkt_violation_ <= m.tol
    tight = SparseCDN(lam1=0.1, lam2=0.1, gamma=1e-3, tol=1e-7, max_iter=5000, random_state=0).fit(X, Y)
    assert np.abs(tight.label_coef_).max() > 0.3  # label dependencies are there to learn
    assert m.n_iter_ > 5
    np.testing.assert_allclose(m.label_coef_, tight.label_coef_, atol=0.02 * np.abs(tight.label_coef_).max())
    assert m.objective_history_[-1] - tight.objective_history_[-1] <= 1e-3 * tight.objective_history_[-1]
    # KKT of objective (4) with the independent gradient: V entries, relative to the data scale
    Xd = X.toarray()
    _, gW, gV, gb = _objective_parts(Xd, Y, m.coef_, m.label_coef_, m.intercept_, m.lam1, m.lam2)
    off = ~np.eye(L, dtype=bool)
    nz = (m.label_coef_ != 0) & off
    scale = n * 0.05  # summed-loss gradient of a V entry is at most n * rms(residual) * std(label)
    assert np.all(np.abs(gV[off & ~nz]) <= m.gamma + 1e-3 * scale)
    np.testing.assert_allclose(gV[nz] + m.gamma * np.sign(m.label_coef_[nz]), 0, atol=1e-3 * scale)


def test_pcc_predict_matches_proba_without_random_state_and_too_large():
    import mlviz.models.pcc as pcc_module
    from mlviz.models.pcc import TooLargeError

    X, Y = _data(n=80, d=4, L=4, seed=8)
    p = PCC(inference="sampling", n_samples=30, random_state=None).fit(X, Y)
    np.testing.assert_array_equal(p.predict(X), (p.predict_proba(X) >= 0.5).astype(np.uint8))
    assert "sampling" in p.decision_rule_ and "exact" in PCC().fit(X, Y).decision_rule_
    with pytest.raises(TooLargeError, match="2\\^L"):
        PCC(inference="exact").fit(np.tile(X, (1, 1)), np.tile(Y, (1, 4))).predict_proba(X)
    old = pcc_module._SAMPLING_MAX_WORK
    try:
        pcc_module._SAMPLING_MAX_WORK = 1e3
        with pytest.raises(TooLargeError, match="multiply-adds"):
            p.predict_proba(X)
    finally:
        pcc_module._SAMPLING_MAX_WORK = old


def test_fit_too_large_raises_before_work_and_gibbs_chunks_agree(monkeypatch):
    from mlviz.models.cdn import TooLargeError

    X, Y = _dependent_data(n=120)
    monkeypatch.setattr(SparseCDN, "_MAX_FIT_BYTES", 1000)
    with pytest.raises(TooLargeError, match="GB"):
        SparseCDN().fit(X, Y)
    monkeypatch.undo()
    m = SparseCDN(gamma=0.5, inference="gibbs", se_target=0.05, n_samples=20, random_state=0).fit(X, Y)
    P = m.predict_proba(X[:7])
    se = m.predict_proba_se_
    # chunked over instances (one at a time): same sampler, so same estimates to the stated SE
    import mlviz.models.cdn as cdn_module
    monkeypatch.setattr(cdn_module, "_GIBBS_CHUNK_BYTES", 1)
    P2 = m.predict_proba(X[:7])
    assert not np.array_equal(P, P2)  # the random streams differ ...
    assert np.all(np.abs(P - P2) <= 5 * np.hypot(se, m.predict_proba_se_) + 1e-3)  # ... not the answer


# ------------------------------------------------------------------ solver (issue 15)
def _text_data(n=240, d=80, L=5, seed=0):
    """Sparse binary bag of words with Zipf word frequencies (rare features, as in text) and
    labels driven by topic words plus one label that copies another."""
    rng = np.random.default_rng(seed)
    p_word = 0.6 / np.arange(1, d + 1) ** 0.9
    X = (rng.random((n, d)) < p_word).astype(float)
    B = np.where(rng.random((d, L)) < 0.15, rng.normal(0, 2.5, (d, L)), 0.0)
    Z = X @ B + rng.logistic(size=(n, L)) - 1.0
    Y = (Z > 0).astype(np.uint8)
    Y[:, -1] = np.where(rng.random(n) < 0.75, Y[:, 0], Y[:, -1])
    return sp.csr_matrix(X), Y


def _mean_objective(X, Y, lam1, lam2, gamma, mu):
    """Objective (4) / n on the original (W, V, b), vectorised and written independently of
    ``_CDNProblem`` (no centring, no preconditioning): f, grad f, g, prox of g."""
    n, L = Y.shape
    d = X.shape[1]
    S = 2.0 * Y - 1.0
    off = ~np.eye(L, dtype=bool)

    def split(x):
        return x[: d * L].reshape(d, L), x[d * L: d * L + L * L].reshape(L, L), x[d * L + L * L:]

    def f_and_grad(x):
        W, V, b = split(x)
        M = S * (np.asarray(X @ W) + S @ V + b)
        loss = np.logaddexp(0.0, -M).sum() / n
        R = -S * expit(-M) / n
        gW = np.asarray(X.T @ R) + lam1 / n * W
        gV = np.where(off, S.T @ R + lam2 / n * V, 0.0)
        f = loss + 0.5 * lam1 / n * np.sum(W ** 2) + 0.5 * lam2 / n * np.sum(V ** 2)
        return f, np.concatenate([gW.ravel(), gV.ravel(), R.sum(axis=0)])

    def g(x):
        W, V, _ = split(x)
        return gamma / n * np.abs(V).sum() + mu / n * np.linalg.norm(W, axis=1).sum()

    def prox(x, s):
        W, V, b = split(x)
        nrm = np.linalg.norm(W, axis=1, keepdims=True)
        W = W * np.maximum(0.0, 1.0 - s * mu / n / np.maximum(nrm, 1e-300))
        V = np.where(off, np.sign(V) * np.maximum(np.abs(V) - s * gamma / n, 0.0), 0.0)
        return np.concatenate([W.ravel(), V.ravel(), b])

    return f_and_grad, g, prox, split


def _relative_kkt(X, Y, m):
    """Largest entry of the minimum-norm subgradient of objective (4) / n at the fitted
    (W, V, b), each divided by its documented data scale std(x_j) rms(r_k) (W),
    std(y_t) rms(r_k) (V), rms(r_k) (b): the KKT residual the ``tol`` documentation
    promises, computed independently and without any step size. As documented, W and V are
    varied at a fixed intercept of the centred features and labels (c = b + mean(x) W +
    mean(s) V): their gradients are the raw ones minus mean(x_j) (resp. mean(s_t)) grad(b_k)."""
    n, L = Y.shape
    S = 2.0 * Y - 1.0
    mu = m.mu if m.variant in ("sparse", "l21-lr") else 0.0
    fg, _, _, split = _mean_objective(X, Y, m.lam1, m.lam2, m.gamma_, mu)
    W, V, b = m.coef_, m.label_coef_, m.intercept_
    _, grad = fg(np.concatenate([W.ravel(), V.ravel(), b]))
    gW, gV, gb = split(grad)
    gW = gW - np.outer(np.asarray(X.mean(axis=0)).ravel(), gb)
    gV = gV - np.outer(S.mean(axis=0), gb)
    nrm = np.linalg.norm(W, axis=1, keepdims=True)
    gnrm = np.linalg.norm(gW, axis=1, keepdims=True)
    GW = np.where(nrm > 0, gW + mu / n * W / np.maximum(nrm, 1e-300),
                  gW * np.maximum(0.0, 1.0 - mu / n / np.maximum(gnrm, 1e-300)))
    gam = m.gamma_ / n
    GV = np.where(V != 0, gV + gam * np.sign(V), np.sign(gV) * np.maximum(np.abs(gV) - gam, 0.0))
    GV[np.eye(L, dtype=bool)] = 0.0
    if m.variant in ("lr", "l21-lr"):
        GV[:] = 0.0
    Xd = X.toarray() if sp.issparse(X) else X
    P = expit(Xd @ W + S @ V + b)
    rms = np.sqrt(np.mean((Y - P) ** 2, axis=0))
    def ratio(G, scale):  # a never-occurring feature has scale 0 and gradient 0
        return np.abs(G / np.maximum(scale, 1e-300)).max()

    return max(ratio(GW, np.outer(Xd.std(axis=0), rms)), ratio(GV, np.outer(S.std(axis=0), rms)),
               ratio(gb, rms))


@pytest.mark.parametrize("mu, step2", [(0.0, "column"), (2.0, "column"), (2.0, "fista")])
def test_preconditioned_solver_reaches_plain_fista_optimum_and_kkt(mu, step2, monkeypatch):
    """Issue 15: the fit on rare sparse features (preconditioned FISTA; L-BFGS for the smooth
    mu = 0 start model) at the default tol is certified by an independent, step-free KKT
    residual, and reaches the optimum of a plain (unpreconditioned, uncentred) monotone FISTA
    run to a gradient-mapping norm of 1e-10 on the independently written objective."""
    from mlviz.models import _cdn_core

    monkeypatch.setattr(_cdn_core, "_SOLVER", step2)  # step 2 of the fit (FISTA alone: also smooth_cdn)
    X, Y = _text_data()
    n, L = Y.shape
    d = X.shape[1]
    m = SparseCDN(lam1=1.0, lam2=1.0, mu=mu, random_state=0).fit(X, Y)  # default tol, gamma
    assert m.converged_ and m.kkt_violation_ <= m.tol
    assert 0 < m.label_graph_.number_of_edges()
    if mu > 0:
        assert 0 < len(m.selected_features_) < d  # the l2,1 term is active
    assert _relative_kkt(X, Y, m) <= 2 * m.tol
    fg, g, prox, _ = _mean_objective(X, Y, 1.0, 1.0, m.gamma_, mu)
    x0 = np.concatenate([np.zeros(d * L + L * L), m.init_intercept_])
    ref = fista(fg, prox, x0, g=g, rtol=0.0, atol=1e-10, maxiter=200000, restart="monotone")
    assert ref.converged
    def F(mod):
        x = np.concatenate([mod.coef_.ravel(), mod.label_coef_.ravel(), mod.intercept_])
        return fg(x)[0] + g(x)

    assert ref.fun <= F(m) + 1e-12
    assert F(m) - ref.fun <= 1e-5 * ref.fun  # default tol: near the optimum
    tight = SparseCDN(lam1=1.0, lam2=1.0, mu=mu, gamma=m.gamma_, tol=1e-9, max_iter=20000).fit(X, Y)
    assert tight.converged_ and abs(F(tight) - ref.fun) <= 1e-11
    W, V, b = ref.x[: d * L].reshape(d, L), ref.x[d * L: d * L + L * L].reshape(L, L), ref.x[-L:]
    np.testing.assert_allclose(tight.coef_, W, atol=1e-6)
    np.testing.assert_allclose(tight.label_coef_, V, atol=1e-6)
    np.testing.assert_allclose(tight.intercept_, b, atol=1e-6)
    # adaptive restart keeps the history non-increasing up to round-off
    assert np.all(np.diff(m.objective_history_) <= 1e-12 * m.objective_history_[0])


def test_smooth_label_independent_fit_matches_sklearn_per_label():
    """gamma >= gamma_max, mu = 0 (the dashboard's first fit, V = 0): the problem separates
    into per-label ridge logistic regressions, solved by L-BFGS and stopped by the scaled
    KKT rule. Tight tol equals scikit-learn LogisticRegression(C = 1 / lam1) per label; the
    default tol satisfies the independent KKT residual."""
    X, Y = _text_data(seed=1)
    m = SparseCDN(lam1=1.0, lam2=1.0, mu=0.0, gamma=1e12, random_state=0).fit(X, Y)
    assert m.converged_ and m.label_graph_.number_of_edges() == 0 and m.n_iter_ == 0
    assert _relative_kkt(X, Y, m) <= m.tol * (1 + 1e-6)  # smooth: the rule is this residual
    tight = SparseCDN(variant="lr", lam1=1.0, mu=0.0, tol=1e-9).fit(X, Y)
    assert tight.converged_
    for k in range(Y.shape[1]):
        ref = LogisticRegression(C=1.0, tol=1e-12, max_iter=10000).fit(X, Y[:, k])
        np.testing.assert_allclose(tight.coef_[:, k], ref.coef_[0], atol=1e-6)
        assert abs(tight.intercept_[k] - ref.intercept_[0]) < 1e-6
    # the dashboard's next step: a warm refit at 0.3 gamma_max equals a cold fit there
    step = copy.deepcopy(m).refit(gamma_ratio=0.3, tol=1e-9, max_iter=20000)
    cold = SparseCDN(lam1=1.0, lam2=1.0, mu=0.0, gamma=step.gamma, tol=1e-9, max_iter=20000).fit(X, Y)
    np.testing.assert_allclose(step.label_coef_, cold.label_coef_, atol=1e-6)
    np.testing.assert_allclose(step.coef_, cold.coef_, atol=1e-6)


def test_jacobi_eigenvalue_and_damped_preconditioner_on_co_occurring_rare_features(monkeypatch):
    """The preconditioner's guard: the largest eigenvalue of the Jacobi-scaled Gram matrix
    (power iteration) equals a dense eigensolver's; data where every document carries many
    words of its own (raw counts, as e-mail) exceed the threshold, get the damped scaling,
    and the fit still satisfies the independent KKT residual."""
    from mlviz.models import _cdn_core
    from mlviz.models._cdn_core import _JACOBI_MAX_EIG, _CDNProblem, _jacobi_eig, _use_column

    X, Y = _text_data(n=120, d=40, seed=2)
    n = X.shape[0]
    xm = np.asarray(X.mean(axis=0)).ravel()
    xv = np.asarray(X.multiply(X).mean(axis=0)).ravel() - xm ** 2
    q, lam = 0.2, 1.0 / n
    Xc = X.toarray() - xm
    D = 1.0 / np.sqrt(q * xv + lam)
    M = D[:, None] * (q * Xc.T @ Xc / n + lam * np.eye(X.shape[1])) * D[None, :]
    assert _jacobi_eig(X, xm, xv, q, lam, n_iter=500) == pytest.approx(np.linalg.eigvalsh(M)[-1], rel=1e-6)
    # raw counts with large blocks of words that always occur together (300 per block, each
    # block in a random 30 % of 60 documents): Jacobi scaling gives each word curvature ~1,
    # so a block's direction has curvature ~300 x 0.7
    rng = np.random.default_rng(0)
    m_docs = 60
    blocks = (rng.random((m_docs, 3)) < 0.3).astype(float)
    Xr = sp.csr_matrix(np.hstack([np.repeat(blocks, 300, axis=1), (rng.random((m_docs, 10)) < 0.3)]))
    Yr = np.column_stack([blocks[:, 0] + rng.logistic(size=m_docs) > 0.8,
                          rng.random(m_docs) < 0.4, rng.random(m_docs) < 0.5]).astype(np.uint8)
    S = 2.0 * Yr - 1.0
    prob = _CDNProblem(Xr, S, np.ones(3, bool), 1.0 / m_docs, 1.0 / m_docs, 0.0, 0.0, True)
    assert prob.precond_eig > _JACOBI_MAX_EIG
    # damped: the 1/4 power (not the square root) of the Hessian diagonal at the frequencies
    pk = np.clip(Yr.mean(axis=0), 1.0 / m_docs, 1.0 - 1.0 / m_docs)
    h = np.outer(prob.x_std ** 2, pk * (1.0 - pk)) + 1.0 / m_docs
    np.testing.assert_allclose(prob.w_scale, h ** -0.25, rtol=1e-12)
    m = SparseCDN(lam1=1.0, lam2=1.0, mu=0.0, random_state=0).fit(Xr, Yr)
    assert m.converged_ and _relative_kkt(Xr, Yr, m) <= 2 * m.tol
    # the solver rule: the per-label L-BFGS where the scaling is damped or the problem is
    # large (work = nnz(X) x labels), FISTA alone on small undamped problems
    small = _CDNProblem(X, 2.0 * Y - 1.0, np.ones(Y.shape[1], bool), 1.0 / n, 1.0 / n, 0.0, 0.0, True)
    assert small.precond_eig <= _JACOBI_MAX_EIG and small.work == X.nnz * Y.shape[1]
    assert _use_column(prob) and not _use_column(small)
    monkeypatch.setattr(_cdn_core, "_FISTA_MAX_WORK", small.work - 1)
    assert _use_column(small)


@pytest.mark.parametrize("density", [0.1, 0.5])  # sparse 0/1 label products (< 0.25) or dense S
@pytest.mark.parametrize("dense", [False, True])
@pytest.mark.parametrize("block_bytes", [8 * 7 * 5, 1 << 20])
def test_problem_value_and_gradient_by_blocks_and_sparse_V_equal_the_independent_objective(
        dense, block_bytes, density, monkeypatch):
    """``_CDNProblem.f`` / ``f_and_grad`` (loss by blocks of the margins, S V over V's used
    columns only) equal objective (4) / n written independently, with the gradient mapped to
    the solver's coordinates by the chain rule (W = θ_W w_scale, V = θ_V v_scale, centred
    intercept c = θ_b b_scale): several blocks (rows for sparse X, columns for dense X) and one."""
    from mlviz.models import _cdn_core
    from mlviz.models._cdn_core import _CDNProblem

    monkeypatch.setattr(_cdn_core, "_BLOCK_BYTES", block_bytes)
    X, _ = _text_data(n=60, d=12, L=5, seed=3)
    X = sp.csr_matrix(X)
    X = X.toarray() if dense else X
    Y = (np.random.default_rng(1).random((60, 5)) < density).astype(np.uint8)
    n, L = Y.shape
    d = X.shape[1]
    S = 2.0 * Y - 1.0
    lam1, lam2 = 0.7, 0.3
    prob = _CDNProblem(X, S, np.ones(L, bool), lam1 / n, lam2 / n, 0.5 / n, 0.0, True)
    n_blocks = len(prob._blocks(np.empty((n, L), order="F" if dense else "C")))
    assert (prob.Ysp is not None) == (density < 0.25) and (n_blocks > 1) == (block_bytes < 1000)
    fg, _, _, split = _mean_objective(X, Y, lam1, lam2, 0.5, 0.0)
    rng = np.random.default_rng(0)
    x_mean = np.asarray(X.mean(axis=0)).ravel()
    for used_cols in ([], [1, 3], list(range(L))):
        W, b = rng.normal(size=(d, L)), rng.normal(size=L)
        V = np.zeros((L, L))
        for j in used_cols:
            V[:, j] = rng.normal(size=L)
        np.fill_diagonal(V, 0.0)
        theta = prob.to_internal(W, V, b)
        f_ref, grad_ref = fg(np.concatenate([W.ravel(), V.ravel(), b]))
        gW, gV, gb = split(grad_ref)
        value, grad = prob.f_and_grad(theta)
        np.testing.assert_allclose(prob.f(theta), f_ref, rtol=1e-12)
        np.testing.assert_allclose(value, f_ref, rtol=1e-12)
        expected = np.concatenate([((gW - np.outer(x_mean, gb)) * prob.w_scale).ravel(),
                                   (np.where(np.eye(L, dtype=bool), 0.0, gV - np.outer(S.mean(axis=0), gb))
                                    * prob.v_scale).ravel(),  # (no self-loops: V's diagonal stays 0)
                                   gb * prob.b_scale])
        np.testing.assert_allclose(grad, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("variant, mu", [("l1-cdn", 0.0), ("sparse", 0.5), ("lr", 0.0)])
@pytest.mark.parametrize("max_iter", [1, 2, 3, 7])
def test_max_iter_bounds_every_solver_step_together(variant, mu, max_iter, solver):
    """The per-label L-BFGS and the FISTA certification share one budget: n_iter_ <= max_iter."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 5))
    Y = (X[:, :3] + rng.normal(size=(40, 3)) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SparseCDN(variant=variant, gamma=0.05, mu=mu, max_iter=max_iter, random_state=0).fit(X, Y)
    assert 1 <= model.n_iter_ <= max_iter


def test_refit_along_gamma_keeps_the_start_model_and_its_gamma_max():
    """A refit at another γ (same λ1, μ: the same start model) reuses gamma_max_, which equals the one a
    cold fit computes from the data (max |∂loss/∂V| at the start model)."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((100, 5))
    Y = (X[:, :4] + 0.7 * rng.standard_normal((100, 4)) > 0).astype(int)
    m = SparseCDN(gamma=1.0, mu=2.0, tol=1e-9, max_iter=20000, random_state=0).fit(X, Y)
    g_max = m.gamma_max_
    m.refit(gamma_ratio=0.4)
    cold = SparseCDN(gamma=m.gamma, mu=2.0, tol=1e-9, max_iter=20000, random_state=0).fit(X, Y)
    assert m.gamma_max_ == g_max == pytest.approx(cold.gamma_max_, rel=1e-12)
    assert m.gamma == pytest.approx(0.4 * cold.gamma_max_, rel=1e-12)
    np.testing.assert_allclose(m.label_coef_, cold.label_coef_, atol=1e-5)


@pytest.mark.parametrize("mu", [0.0, 2.0])
def test_gamma_max_point_returns_the_start_model_and_its_objective_without_a_solve(mu, monkeypatch):
    """The γ ≥ γ_max points (the dashboard path's first two) are the start model exactly, with objective (4)
    equal to an independent evaluation there, and neither solves nor builds a problem (a refit at γ_max too)."""
    from mlviz.models import _cdn_core, cdn

    X, Y = _text_data(n=150, d=30, L=4, seed=4)
    n = Y.shape[0]
    lam1 = lam2 = 1.0
    m = SparseCDN(lam1=lam1, lam2=lam2, mu=mu, gamma=1e12, random_state=0).fit(X, Y)
    calls = []
    monkeypatch.setattr(cdn, "_solve", lambda *a, **k: calls.append(1))
    monkeypatch.setattr(_cdn_core._CDNProblem, "__init__", lambda *a, **k: calls.append(1))
    at_max = copy.deepcopy(m).refit(gamma_ratio=1.0)
    assert not calls
    fg, g, _, _ = _mean_objective(X, Y, lam1, lam2, 1.0, mu)
    for model in (m, at_max):
        np.testing.assert_array_equal(model.coef_, model.init_coef_)
        np.testing.assert_array_equal(model.intercept_, model.init_intercept_)
        assert not np.any(model.label_coef_) and model.n_iter_ == 0
        x = np.concatenate([model.coef_.ravel(), np.zeros(Y.shape[1] ** 2), model.intercept_])
        assert model.objective_history_.shape == (1,)
        assert model.objective_history_[0] == pytest.approx(n * (fg(x)[0] + g(x)), rel=1e-12)


@pytest.mark.parametrize("dense", [False, True])
def test_column_view_without_label_features_equals_the_flat_gradient(dense):
    """Without label features the per-label solver's column view has no V rows: values, gradient and the
    stopping rule's scale equal the flat problem's (checked itself against the independent objective)."""
    from mlviz.models._cdn_core import _CDNProblem

    X, Y = _text_data(n=60, d=12, L=5, seed=3)
    X = X.toarray() if dense else X
    n, L = Y.shape
    d = X.shape[1]
    S = 2.0 * Y - 1.0
    prob = _CDNProblem(X, S, np.ones(L, bool), 0.7 / n, 0.3 / n, 0.0, 0.4 / n, False)
    np.testing.assert_allclose(prob.s_std, S.std(axis=0), rtol=1e-12)
    rng = np.random.default_rng(0)
    theta = prob.to_internal(rng.normal(size=(d, L)), np.zeros((L, L)), rng.normal(size=L))
    M = prob.to_columns(theta)
    assert M.shape == (d + 1, L) and prob.column_l1().shape == M.shape
    np.testing.assert_array_equal(prob.from_columns(M), theta)
    value, grad = prob.f_and_grad(theta)
    for cols in (np.arange(L), np.array([1, 3])):
        values, G, SC = prob.f_and_grad_columns(M[:, cols], cols)
        full = prob.to_columns(grad)
        np.testing.assert_allclose(G, full[:, cols], rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(SC, prob.to_columns(prob.kkt_scale(theta))[:, cols], rtol=1e-12)
        if cols.size == L:
            np.testing.assert_allclose(values.sum(), value, rtol=1e-12)


@pytest.mark.parametrize("use_V", [False, True])
def test_fista_start_from_the_column_solver_equals_the_flat_evaluation(use_V):
    """FISTA's certification step starts from the per-label solver's last evaluation: its value, gradient
    and stopping-rule scale equal the flat problem's own evaluation at that point."""
    from mlviz.models._cdn_core import _CDNProblem, _column_start
    from mlviz.solvers.column_lbfgs import column_lbfgs

    X, Y = _text_data(n=80, d=15, L=4, seed=6)
    n, L = Y.shape
    d = X.shape[1]
    prob = _CDNProblem(X, 2.0 * Y - 1.0, np.ones(L, bool), 1.0 / n, 1.0 / n, 0.3 / n, 0.0, use_V)
    theta0 = prob.to_internal(np.zeros((d, L)), np.zeros((L, L)), np.zeros(L))
    fixed = np.zeros_like(prob.to_columns(theta0), dtype=bool)
    fixed[d: d + prob.n_col_V] = ~prob.V_mask[: prob.n_col_V]
    col = column_lbfgs(prob.f_and_grad_columns, prob.to_columns(theta0), fixed=fixed,
                       l1=prob.column_l1() if use_V else None, tol=1e-3, maxiter=5)
    value, grad = _column_start(prob, col)
    scale = prob.kkt_scale(None).copy()
    ref_value, ref_grad = prob.f_and_grad(prob.from_columns(col.x))
    assert value == pytest.approx(ref_value, rel=1e-12)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-9, atol=1e-15)
    moving = np.ones(d * L + L * L + L, bool)
    moving[d * L: d * L + L * L] = prob.V_mask.ravel()  # (entries that never move: any scale)
    np.testing.assert_allclose(scale[moving], prob.kkt_scale(None)[moving], rtol=1e-12)


@pytest.mark.parametrize("density", [0.1, 0.5])  # sparse 0/1 label products (< 0.25) or dense S
@pytest.mark.parametrize("block_bytes", [8 * 90 * 2, 1 << 22])
def test_gamma_max_by_blocks_of_labels_equals_the_independent_gradient(density, block_bytes, monkeypatch):
    """gamma_max_ = max |∂ loss / ∂ V| (off the diagonal, active labels) at the start model, written
    independently; blocks of two labels and one block; a constant label is left out."""
    from mlviz.models import cdn

    monkeypatch.setattr(cdn, "_GAMMA_MAX_BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(2)
    X = rng.standard_normal((90, 4))
    Y = (X[:, :1] + rng.standard_normal((90, 5)) > 1.5 - 3.0 * density).astype(np.uint8)
    Y[:, 2] = 0  # constant label: no edges
    assert (Y.mean() < 0.25) == (density < 0.25)
    m = SparseCDN(gamma=1e12, random_state=0).fit(X, Y)
    S = 2.0 * Y - 1.0
    R = -S * expit(-S * (X @ m.init_coef_ + m.init_intercept_))
    G = np.abs(S.T @ R)
    active = Y.min(axis=0) != Y.max(axis=0)
    assert not active[2] and active.sum() == 4
    G[~(active[:, None] & active[None, :]) | np.eye(5, dtype=bool)] = 0.0
    assert m.gamma_max_ == pytest.approx(G.max(), rel=1e-12)


def test_power_iteration_in_blocks_with_packing_and_dense_fallback(monkeypatch):
    """The states-first power iteration (blocks of a few instances, running instances packed as
    others stop, the dense solve for those past ``max_sweeps``) against the eigenvector of the
    explicit kernel, on instances that mix at very different speeds."""
    import mlviz.models._cdn_inference as core

    rng = np.random.default_rng(7)
    n, L = 24, 6
    lin = rng.normal(size=(n, L)) * np.linspace(0.2, 4.0, n)[:, None]
    V = 2.0 * rng.normal(size=(L, L))
    np.fill_diagonal(V, 0.0)
    widths = []
    sweep = core._sweep_states_first
    monkeypatch.setattr(core, "_sweep_states_first",
                        lambda pi, *a: (widths.append(pi.shape[1]), sweep(pi, *a))[1])
    monkeypatch.setattr(core, "_POWER_BLOCK_BYTES", 8 * 2 ** L * 10)  # blocks of 10 instances
    P, err = core.exact_marginals(lin, V, np.full((n, L), 0.5))
    assert max(widths) == 10 and len(set(widths)) > 3  # blocks, then packed running instances
    for i in range(n):
        np.testing.assert_allclose(P[i], stationary_marginals(lin[i], V), atol=1e-8)
    assert np.all((err > 0) & (err <= 1e-9))
    P3, err3 = core.exact_marginals(lin, V, np.full((n, L), 0.5), max_sweeps=30)
    slow = err3 == 0.0  # not converged in 30 sweeps: solved densely
    assert 0 < slow.sum() < n
    np.testing.assert_allclose(P3[slow], P[slow], atol=1e-8)
