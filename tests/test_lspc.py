"""LSPC family and kernel logistic regression, each checked against an independent reference."""

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from contract import check_estimator_contract
from scipy.optimize import check_grad
from scipy.spatial.distance import cdist
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from mlviz.models import LSPC, MLLSPC, MTLSPC, KernelLogisticRegression
from mlviz.models.klr import klr_objective
from mlviz.models.lspc import normalise_posteriors, pearson_label_similarity


def _data(n=50, d=4, L=4, seed=0, sparse_x=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X @ rng.normal(size=(d, L)) + 0.5 * rng.normal(size=(n, L)) > 0).astype(np.uint8)
    Y[:, 1] = Y[:, 0]  # strongly correlated pair
    if sparse_x:
        X[np.abs(X) < 0.5] = 0.0
        return sp.csr_matrix(X), Y
    return X, Y


def _ref_kernel(X, C, sigma):
    X = X.toarray() if sp.issparse(X) else X
    C = C.toarray() if sp.issparse(C) else C
    return np.exp(-cdist(X, C, "sqeuclidean") / (2 * sigma**2))


def _rel(A, B):
    return np.linalg.norm(A - B) / np.linalg.norm(B)


def _ref_similarity(Y):
    W = np.maximum(np.corrcoef(Y.T), 0.0)
    np.fill_diagonal(W, 0.0)
    return W


def _sylvester_ref(model, X, Y, Pi, lam, gamma):
    Phi = _ref_kernel(X, model.centers_, model.sigma_)
    W = _ref_similarity(Y)
    C = np.diag(lam + gamma * W.sum(1)) - gamma * W
    return scipy.linalg.solve_sylvester(Phi.T @ Phi, C, Phi.T @ Pi)


# --------------------------------------------------------------------------- LSPC
@pytest.mark.parametrize("n_centers", [None, 20])
def test_lspc_closed_form(n_centers):
    X, Y = _data()
    m = LSPC(lam=0.3, n_centers=n_centers, random_state=0).fit(X, Y)
    Phi = _ref_kernel(X, X[m.center_index_], m.sigma_)
    assert Phi.shape[1] == (50 if n_centers is None else 20)
    A = Phi.T @ Phi + 0.3 * np.eye(Phi.shape[1])
    th_pos = np.linalg.solve(A, Phi.T @ Y)
    th_neg = np.linalg.solve(A, Phi.T @ (1 - Y))
    assert _rel(m.coef_, th_pos) < 1e-6 and _rel(m.coef_neg_, th_neg) < 1e-6
    Xt = np.random.default_rng(1).normal(size=(7, 4))
    Pt = _ref_kernel(Xt, X[m.center_index_], m.sigma_)
    qp, qn = Pt @ th_pos, Pt @ th_neg
    np.testing.assert_allclose(m.decision_function(Xt), qp, rtol=1e-6, atol=1e-9)
    ref = np.where((np.maximum(qp, 0) + np.maximum(qn, 0)) > 0,
                   np.maximum(qp, 0) / np.maximum(np.maximum(qp, 0) + np.maximum(qn, 0), 1e-300), 0.5)
    np.testing.assert_allclose(m.predict_proba(Xt), ref, atol=1e-8)


def test_median_sigma_is_median_distance():
    X, Y = _data(n=40)
    m = LSPC().fit(X, Y)
    d = cdist(X, X)[np.triu_indices(40, 1)]
    assert m.sigma_ == pytest.approx(np.median(d))


def test_normalise_posteriors_edge_cases():
    qp = np.array([[0.3, -1.0, 0.0, 2.0]])
    qn = np.array([[0.1, -2.0, 0.0, -1.0]])
    np.testing.assert_allclose(normalise_posteriors(qp, qn), [[0.75, 0.5, 0.5, 1.0]])


# --------------------------------------------------------------------------- ML-LSPC
@pytest.mark.parametrize("n_centers,gamma,sparse_x", [
    (None, 1.0, False),  # B = N
    (25, 2.0, False),    # B < N
    (None, 0.0, False),  # gamma = 0
    (30, 1.0, True),     # sparse X
])
def test_mllspc_solvers_agree_with_scipy(n_centers, gamma, sparse_x):
    X, Y = _data(sparse_x=sparse_x)
    coefs = {}
    for solver in ("eig", "cg", "naive"):
        m = MLLSPC(lam=0.5, gamma=gamma, solver=solver, n_centers=n_centers, random_state=0)
        m.cg_rtol = 1e-13
        m.fit(X, Y)
        coefs[solver] = (m.coef_, m.coef_neg_)
        if solver == "cg":
            assert all(info.converged for info in m.cg_info_)
    ref_pos = _sylvester_ref(m, X, Y, Y, 0.5, gamma)
    ref_neg = _sylvester_ref(m, X, Y, 1.0 - Y, 0.5, gamma)
    for solver, (cp, cn) in coefs.items():
        assert _rel(cp, ref_pos) < 1e-6, solver
        assert _rel(cn, ref_neg) < 1e-6, solver


def test_mllspc_dense_equals_sparse():
    X, Y = _data(sparse_x=True)
    Pd = MLLSPC(lam=0.2, gamma=1.0).fit(X.toarray(), Y).predict_proba(X.toarray())
    Ps = MLLSPC(lam=0.2, gamma=1.0).fit(X, Y).predict_proba(X)
    np.testing.assert_allclose(Pd, Ps, atol=1e-8)


def test_gamma_zero_is_independent_lspc():
    X, Y = _data()
    ml = MLLSPC(lam=0.2, gamma=0.0).fit(X, Y)
    pl = LSPC(lam=0.2).fit(X, Y)
    np.testing.assert_allclose(ml.coef_, pl.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ml.predict_proba(X), pl.predict_proba(X), atol=1e-10)
    # and LSPC per label equals LSPC fitted on that single label
    single = LSPC(lam=0.2).fit(X, Y[:, 2])
    np.testing.assert_allclose(pl.coef_[:, 2], single.coef_[:, 0], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("Model", [LSPC, MTLSPC, MLLSPC])
def test_q_plus_plus_q_minus_is_fit_to_ones(Model):
    X, Y = _data()
    m = Model(lam=0.4).fit(X, Y)
    # reference: the same model's linear solve applied to an all-ones target
    Phi = _ref_kernel(X, m.centers_, m.sigma_)
    if Model is LSPC:
        C = 0.4 * np.eye(4)
    elif Model is MTLSPC:
        T, lam, g = 4, 0.4, m.gamma
        C = g / T * (np.eye(T) - g / (lam + g) * np.ones((T, T)) / T)
    else:
        W = _ref_similarity(Y)
        C = np.diag(0.4 + m.gamma * W.sum(1)) - m.gamma * W
    ref = scipy.linalg.solve_sylvester(Phi.T @ Phi, C, Phi.T @ np.ones_like(Y, dtype=float))
    assert _rel(m.coef_ + m.coef_neg_, ref) < 1e-6


def test_pearson_similarity_and_constant_labels():
    rng = np.random.default_rng(3)
    Y = (rng.random((40, 5)) < 0.4).astype(np.uint8)
    Y[:, 3] = 0  # constant
    Y[:, 4] = 1  # constant
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        W = pearson_label_similarity(Y)
    ref = np.corrcoef(Y[:, :3].T)
    np.testing.assert_allclose(W[:3, :3], np.maximum(ref, 0) - np.diag(np.diag(ref)), atol=1e-12)
    assert np.all(W[3:] == 0) and np.all(W[:, 3:] == 0)
    X = rng.normal(size=(40, 3))
    m = MLLSPC(gamma=5.0).fit(X, Y)
    P = m.predict_proba(X)
    assert np.isfinite(P).all()
    assert np.all(P[:, 3] == 0.0)  # no positives → q⁺ ≡ 0
    assert np.all(P[:, 4] == 1.0)  # no negatives → q⁻ ≡ 0 (where q⁺ > 0)


@pytest.mark.parametrize("density", [0.03, 0.4])
def test_pearson_from_counts_matches_corrcoef(density):
    """The 0/1 fast path (integer co-occurrence counts, sparse below 10 % density) against numpy's corrcoef."""
    rng = np.random.default_rng(7)
    Y = (rng.random((500, 30)) < density * rng.random(30) * 2).astype(np.uint8)
    Y[0, 2:], Y[1, 2:] = 1, 0  # every other label varies
    Y[:, 0], Y[:, 1] = 0, 1  # constant labels: 0 rows and columns
    W = pearson_label_similarity(Y)
    keep = slice(2, None)
    ref = np.corrcoef(Y[:, keep].T.astype(float))
    np.testing.assert_allclose(W[keep, keep], np.maximum(ref, 0) - np.diag(np.diag(ref)), atol=1e-13)
    assert np.all(W[:2] == 0) and np.all(W[:, :2] == 0)
    np.testing.assert_array_equal(W, W.T)


def test_user_similarity_matrix():
    X, Y = _data()
    W = pearson_label_similarity(Y)
    W_diag = W + np.diag([5.0, 1.0, 2.0, 3.0])  # diagonal ignored
    a = MLLSPC(gamma=2.0).fit(X, Y)
    b = MLLSPC(gamma=2.0, similarity=W_diag).fit(X, Y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-12)
    for bad, msg in [(np.ones((3, 3)), "shape"), (-W - 0.1 * (1 - np.eye(4)), "non-negative"),
                     (np.triu(W + 1, 1), "symmetric"), (np.full((4, 4), np.nan), "finite")]:
        with pytest.raises(ValueError, match=msg):
            MLLSPC(similarity=bad).fit(X, Y)


@pytest.mark.parametrize("Model,kwargs", [
    (LSPC, {}), (MTLSPC, {"gamma": 0.7}), (MLLSPC, {"gamma": 0.7}),
    (MLLSPC, {"gamma": 0.7, "solver": "cg"}), (MLLSPC, {"gamma": 0.7, "n_centers": 20})])
def test_refit_equals_fresh_fit(Model, kwargs):
    X, Y = _data()
    new = {"lam": 2.0} if Model is LSPC else {"lam": 2.0, "gamma": 3.0}
    m = Model(lam=0.1, random_state=0, **kwargs).fit(X, Y)
    if "solver" in kwargs:
        m.cg_rtol = 1e-13
    m.refit(**new)
    fresh = Model(random_state=0, **{**kwargs, **new})
    fresh.cg_rtol = 1e-13
    fresh.fit(X, Y)
    assert m.get_params() == fresh.get_params()
    np.testing.assert_allclose(m.coef_, fresh.coef_, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(m.predict_proba(X), fresh.predict_proba(X), atol=1e-8)


@pytest.mark.parametrize("Model", [LSPC, MTLSPC, MLLSPC])
def test_path_equals_refits(Model):
    X, Y = _data()
    Xt = _data(n=9, seed=5)[0]
    lams = [0.05, 1.0]
    gammas = None if Model is LSPC else [0.5, 4.0]
    m = Model().fit(X, Y)
    P = m.path_predict_proba(Xt, lams, gammas)
    path = list(m.solve_path(lams, gammas))
    assert P.shape == (2, 1 if gammas is None else 2, 9, 4)
    for i, lam in enumerate(lams):
        for j, gamma in enumerate(gammas or [None]):
            kw = {"lam": lam} if gamma is None else {"lam": lam, "gamma": gamma}
            ref = Model(**kw).fit(X, Y)
            np.testing.assert_allclose(P[i, j], ref.predict_proba(Xt), atol=1e-8)
            k = i * (1 if gammas is None else 2) + j
            np.testing.assert_allclose(path[k][2], ref.coef_, rtol=1e-7, atol=1e-10)


def test_path_cg_solver_matches_eig():
    X, Y = _data()
    a = MLLSPC(solver="eig").fit(X, Y).path_predict_proba(X[:5], [0.3, 1.0], [0.0, 2.0])
    m = MLLSPC(solver="cg")
    m.cg_rtol = 1e-13
    b = m.fit(X, Y).path_predict_proba(X[:5], [0.3, 1.0], [0.0, 2.0])
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_kernel_feature_cache():
    X, Y = _data()
    m = MLLSPC().fit(X, Y)
    Xt = np.random.default_rng(9).normal(size=(6, 4))
    F1 = m.kernel_features(Xt)
    assert m.kernel_features(Xt.copy()) is F1          # same content → cached
    np.testing.assert_allclose(F1, _ref_kernel(Xt, m.centers_, m.sigma_), atol=1e-12)
    assert not F1.flags.writeable
    Xt[0, 0] += 1.0                                     # in-place change detected
    F2 = m.kernel_features(Xt)
    assert F2 is not F1 and not np.allclose(F2[0], F1[0])
    np.testing.assert_allclose(m.predict_proba_from_features(F2), m.predict_proba(Xt))
    m.refit(gamma=3.0)
    P_fast = m.predict_proba(Xt)          # cached X after refit: (Φ_test F)(Fᵀ Θ) path
    assert "_coef" not in m.__dict__      # Θ was not materialised for this
    np.testing.assert_allclose(P_fast, MLLSPC(gamma=3.0).fit(X, Y).predict_proba(Xt), atol=1e-8)
    np.testing.assert_allclose(P_fast, m.predict_proba_from_features(m.kernel_features(Xt)),
                               atol=1e-10)


def test_pickle_round_trip_drops_cache():
    import pickle

    X, Y = _data()
    m = MLLSPC(gamma=2.0).fit(X, Y)
    P = m.predict_proba(X[:5])
    m.refit(lam=0.3)
    P2 = m.predict_proba(X[:5])
    m2 = pickle.loads(pickle.dumps(m))
    assert getattr(m2, "_feature_cache", None) is None
    np.testing.assert_allclose(m2.predict_proba(X[:5]), P2, atol=1e-12)
    assert not np.allclose(P, P2)  # the refit did change the model


def test_posteriors_in_unit_interval_extremes():
    X, Y = _data()
    for lam in (1e-8, 1e4):
        P = MLLSPC(lam=lam, gamma=10.0).fit(X, Y).predict_proba(np.vstack([X, 10 + X[:3]]))
        assert np.isfinite(P).all() and P.min() >= 0 and P.max() <= 1


def test_cg_non_convergence_is_reported():
    X, Y = _data()
    m = MLLSPC(lam=1e-4, solver="cg")
    m.cg_maxiter = 2
    with pytest.warns(ConvergenceWarning):
        m.fit(X, Y)
    assert not m.cg_info_[0].converged and m.cg_info_[0].n_iter == 2


def test_naive_refuses_large():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1300, 2))
    Y = (rng.random((1300, 4)) < 0.5).astype(int)
    with pytest.raises(ValueError, match="max_size"):
        MLLSPC(solver="naive").fit(X, Y)


@pytest.mark.parametrize("est,msg", [
    (MLLSPC(lam=0), "'lam' parameter of MLLSPC must be > 0"),
    (MLLSPC(gamma=-1), "'gamma' parameter of MLLSPC must be >= 0, got -1"),
    (MLLSPC(solver="lu"), "'solver' parameter"),
    (MLLSPC(similarity="cosine"), "'similarity' parameter"),
    (LSPC(sigma="mean"), "'sigma' parameter"),
    (LSPC(sigma=-1.0), "'sigma' parameter"),
    (LSPC(n_centers=0), "'n_centers' parameter"),
    (MTLSPC(gamma=0), "'gamma' parameter of MTLSPC must be > 0"),
    (KernelLogisticRegression(lam=-1), "'lam' parameter"),
])
def test_parameter_errors(est, msg):
    X, Y = _data(n=20)
    with pytest.raises(ValueError, match=msg):
        est.fit(X, Y)


def test_refit_validates():
    X, Y = _data(n=20)
    m = LSPC().fit(X, Y)
    with pytest.raises(ValueError, match="no 'gamma'"):
        m.refit(gamma=1.0)
    with pytest.raises(ValueError, match="'lam' parameter of LSPC must be > 0"):
        m.refit(lam=-1.0)


# --------------------------------------------------------------------------- MT-LSPC
def _mt_primal(Phi, Pi, lam, gamma):
    """Explicit (B(T+1)) normal equations of Simm et al., eq. (4) (sum loss), independent of the dual."""
    B, T = Phi.shape[1], Pi.shape[1]
    G = Phi.T @ Phi
    H = np.zeros((B * (T + 1), B * (T + 1)))
    rhs = np.zeros(B * (T + 1))
    blk = lambda i: slice(i * B, (i + 1) * B)  # noqa: E731
    H[blk(0), blk(0)] = T * G + lam * np.eye(B)
    rhs[blk(0)] = Phi.T @ Pi.sum(1)
    for t in range(1, T + 1):
        H[blk(0), blk(t)] = H[blk(t), blk(0)] = G
        H[blk(t), blk(t)] = G + gamma / T * np.eye(B)
        rhs[blk(t)] = Phi.T @ Pi[:, t - 1]
    beta = np.linalg.solve(H, rhs).reshape(T + 1, B)
    return beta[0][:, None] + beta[1:].T, beta[0]


def _mt_literal_dual(Phi_train, Phi_test, Pi, lam, gamma):
    """Simm et al., Lemma 1 with explicit Ψ over all (sample, task) pairs."""
    n, B = Phi_train.shape
    T = Pi.shape[1]

    def psi(Phi, t):
        blocks = [np.sqrt(gamma / (T * lam)) * Phi] + [Phi if s == t else 0 * Phi for s in range(T)]
        return np.hstack(blocks)

    Psi = np.vstack([psi(Phi_train, t) for t in range(T)])        # (nT, B(T+1))
    z = Pi.T.ravel()                                               # task-major
    mu = np.linalg.solve(Psi @ Psi.T + gamma / T * np.eye(n * T), z)
    return np.column_stack([psi(Phi_test, t) @ (Psi.T @ mu) for t in range(T)])


@pytest.mark.parametrize("n_centers", [None, 15])
def test_mtlspc_primal_equals_dual(n_centers):
    X, Y = _data(n=30, L=3)
    Xt = _data(n=6, L=3, seed=4)[0]
    m = MTLSPC(lam=0.3, gamma=2.0, n_centers=n_centers, random_state=1).fit(X, Y)
    Phi = _ref_kernel(X, m.centers_, m.sigma_)
    theta, beta0 = _mt_primal(Phi, Y.astype(float), 0.3, 2.0)
    assert _rel(m.coef_, theta) < 1e-6
    assert _rel(m.common_coef_, beta0) < 1e-6
    theta_neg, _ = _mt_primal(Phi, 1.0 - Y, 0.3, 2.0)
    assert _rel(m.coef_neg_, theta_neg) < 1e-6
    q_dual = _mt_literal_dual(Phi, _ref_kernel(Xt, m.centers_, m.sigma_), Y.astype(float), 0.3, 2.0)
    np.testing.assert_allclose(m.decision_function(Xt), q_dual, rtol=1e-6, atol=1e-9)


def test_mtlspc_limits():
    X, Y = _data(n=30, L=3)
    # large λ: independent tasks with ridge γ/T; large γ: one common model with ridge λ/T
    ind = MTLSPC(lam=1e9, gamma=0.6).fit(X, Y)
    np.testing.assert_allclose(ind.coef_, LSPC(lam=0.2).fit(X, Y).coef_, rtol=1e-5, atol=1e-8)
    com = MTLSPC(lam=0.6, gamma=1e9).fit(X, Y)
    Phi = _ref_kernel(X, com.centers_, com.sigma_)
    ref = np.linalg.solve(Phi.T @ Phi + 0.2 * np.eye(30), Phi.T @ Y.mean(1))
    for t in range(3):
        assert _rel(com.coef_[:, t], ref) < 1e-4


# --------------------------------------------------------------------------- KLR
def test_klr_gradient_finite_differences():
    rng = np.random.default_rng(0)
    Phi = rng.random((15, 6))
    Y = (rng.random((15, 3)) < 0.5).astype(float)
    for fi in (True, False):
        x = rng.normal(size=(6 + fi) * 3)
        err = check_grad(lambda p: klr_objective(p, Phi, Y, 0.7, fi)[0],
                         lambda p: klr_objective(p, Phi, Y, 0.7, fi)[1], x)
        assert err < 1e-5 * max(1.0, np.linalg.norm(klr_objective(x, Phi, Y, 0.7, fi)[1]))


def test_klr_matches_sklearn_logistic_regression():
    X, Y = _data(n=60)
    lam = 0.5
    m = KernelLogisticRegression(lam=lam, tol=1e-10, max_iter=5000).fit(X, Y)
    Phi = _ref_kernel(X, X, m.sigma_)
    for t in range(Y.shape[1]):
        lr = LogisticRegression(C=1.0 / lam, tol=1e-12, max_iter=10000).fit(Phi, Y[:, t])
        np.testing.assert_allclose(m.coef_[:, t], lr.coef_[0], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(m.predict_proba(X)[:, t], lr.predict_proba(Phi)[:, 1], atol=1e-6)


def test_klr_constant_label_finite():
    X, Y = _data(n=30)
    Y[:, 2] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        P = KernelLogisticRegression(lam=1.0).fit(X, Y).predict_proba(X)
    assert np.isfinite(P).all() and P[:, 2].max() < 0.01


# --------------------------------------------------------------------------- contract
@pytest.mark.parametrize("est", [
    LSPC(lam=0.1), LSPC(lam=0.1, n_centers=30, random_state=0), MTLSPC(lam=0.1, gamma=1.0),
    MLLSPC(lam=0.1, gamma=1.0), MLLSPC(lam=0.1, gamma=1.0, n_centers=30, random_state=0),
    KernelLogisticRegression(lam=1.0, tol=1e-8),
], ids=["lspc", "lspc-centres", "mtlspc", "mllspc", "mllspc-centres", "klr"])
def test_contract(est):
    check_estimator_contract(est, sparse=True, deterministic=True)


# --------------------------------------------------------------------------- reproductions
def test_path_cv_matches_brute_force():
    from sklearn.base import clone

    from mlviz.evaluation import multilabel_kfold
    from mlviz.models._kernels import median_sigma
    from mlviz.reproductions.lspc_toy import misclassification, path_cv

    X, Y = _data(n=45)
    lams, gammas, factors = (0.01, 1.0), (0.0, 2.0), (0.5, 1.0)
    score = lambda Yv, P: -misclassification(Yv, P)  # noqa: E731
    S = path_cv(X, Y, lams=lams, gammas=gammas, sigma_factors=factors, score=score,
                n_splits=3, random_state=0)
    ref = np.zeros_like(S)
    for tr, va in multilabel_kfold(Y, n_splits=3, random_state=0):
        base = median_sigma(X[tr], random_state=0)
        for k, f in enumerate(factors):
            for i, lam in enumerate(lams):
                for j, g in enumerate(gammas):
                    m = clone(MLLSPC(lam=lam, gamma=g, sigma=f * base)).fit(X[tr], Y[tr])
                    ref[k, i, j] += score(Y[va], m.predict_proba(X[va])) / 3
    np.testing.assert_allclose(S, ref, atol=1e-12)


def test_reproductions_quick():
    """Quick lspc-toy and lspc-enron: LSPC levels; the registry baselines (ML-kNN, InsDif) against
    direct fits of their classes; the enron F-scores against scikit-learn; the time-ratio row."""
    from sklearn.metrics import f1_score

    from mlviz.data import load_sample, make_rotated_toy
    from mlviz.models import MLkNN
    from mlviz.models.insdif import InsDif
    from mlviz.reproductions import COLUMNS, get_experiment

    toy = get_experiment("lspc-toy").run(quick=True)
    assert list(toy.columns) == COLUMNS and np.isfinite(toy["ours"]).all()
    mis = toy[toy.measure == "misclassification"].set_index(["setting", "method"])["ours"]
    assert (mis.loc[:, ["LSPC", "ML-LSPC"]] < 0.4).all()  # far better than chance (0.5) on the rotated toy
    # the quick run's T = 8 baselines, refitted here from the classes (seed = random_state + run = 0)
    train = make_rotated_toy(300, 300, 8, random_state=0)
    test = make_rotated_toy(300, 300, 8, random_state=10_000)
    for method, model in {"InsDif": InsDif(calibration="clip", random_state=0), "ML-kNN": MLkNN()}.items():
        pred = model.fit(train.X, train.Y).predict(test.X)
        assert mis.loc[("T=8, 1 run(s)", method)] == pytest.approx(np.mean(pred != test.Y), abs=1e-12)
    assert set(mis.index.get_level_values("method")) == {"LSPC", "ML-LSPC", "ML-kNN", "InsDif"}

    enron = get_experiment("lspc-enron").run(quick=True)
    assert list(enron.columns) == COLUMNS
    rows = enron.set_index(["method", "measure"])
    Y_test = load_sample("enron").Y[enron.attrs["last_test_rows"]]
    for method, pred in enron.attrs["last_predictions"].items():  # one split: the mean is this split
        assert rows.loc[(method, "micro_f1"), "ours"] == pytest.approx(
            f1_score(Y_test, pred, average="micro", zero_division=0), abs=1e-12)
    assert set(enron.attrs["last_predictions"]) == {"LSPC", "ML-LSPC", "ML-kNN", "InsDif"}
    assert (rows.loc[[("LSPC", "micro_f1"), ("ML-LSPC", "micro_f1")], "ours"] > 0.45).all()
    assert rows.loc[("InsDif / ML-LSPC", "fit_seconds_ratio"), "ours"] == pytest.approx(
        rows.loc[("InsDif", "fit_seconds"), "ours"] / rows.loc[("ML-LSPC", "fit_seconds"), "ours"], rel=1e-12)
    assert rows.loc[("InsDif / ML-LSPC", "fit_seconds_ratio"), "paper"] == pytest.approx(470.7 / 5.5)
    assert rows.loc[("InsDif", "micro_f1"), "paper"] == 0.526 and rows.loc[("ML-kNN", "micro_f1"), "paper"] == 0.372


def test_reproduction_findings_from_rows():
    """mean_se against the textbook standard error; the toy's verdicts follow the ranks in the rows."""
    import pandas as pd

    from mlviz.reproductions.lspc_toy import findings, mean_se

    rng = np.random.default_rng(0)
    rows = []
    levels = {"LSPC": 0.3, "ML-LSPC": 0.1, "ML-kNN": 0.4, "InsDif": 0.2}  # InsDif second, ML-kNN last
    draws = {}
    for T in (2, 5):
        for method, level in levels.items():
            v = level + 0.01 * rng.normal(size=4)
            draws[(T, method)] = v
            for measure, vals in (("misclassification", v), ("fit_seconds", 1.0 + v)):
                rows.append(dict(experiment="lspc-toy", dataset="rotated-toy", setting=f"T={T}, 4 run(s)",
                                 method=method, measure=measure, ours=vals.mean(), ours_std=vals.std(),
                                 paper=np.nan))
    frame = pd.DataFrame(rows)
    mean, se = mean_se(frame, "InsDif", "misclassification", "T=5, 4 run(s)")
    assert mean == pytest.approx(draws[(5, "InsDif")].mean()) and se == pytest.approx(
        np.std(draws[(5, "InsDif")], ddof=1) / 2.0)  # s / √n, n = 4
    text = findings(frame)
    assert "for InsDif **reproduced**" in text and "for ML-kNN **reproduced**" in text
    assert "for plain LSPC **reproduced**" in text and "| ML-LSPC, InsDif |" in text
    frame.loc[(frame.method == "InsDif") & (frame.measure == "misclassification"), "ours"] = 0.5
    assert "for InsDif **not reproduced**" in findings(frame)
