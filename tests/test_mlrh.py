"""MLRH against finite differences, scikit-learn multinomial LR, enumeration and itself (MM vs L-BFGS)."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from contract import check_estimator_contract
from scipy.special import logsumexp
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from mlviz.models.mlrh import MLRH, _augment


def make_data(n=120, d=4, K=4, M=2, seed=0, m0=1, shift=0.0):
    """Label sets of size m0..M drawn from a planted MLRH model (m0 = 0: ∅ included)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    S = X @ rng.normal(size=(d, K)) + rng.normal(size=K) + shift
    sets = np.array([y for y in itertools.product((0, 1), repeat=K) if m0 <= sum(y) <= M], dtype=float)
    logits = S @ sets.T
    p = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    idx = np.array([rng.choice(len(sets), p=pi) for pi in p])
    return X, sets[idx].astype(np.uint8)


def brute_objective(model, X, Y):
    """Mean NLL by enumerating all sets of size m0..M (m0 = 0: ∅ included), plus the ridge term."""
    S = model.decision_function(X)
    K, M, m0 = Y.shape[1], model.max_labels_, model.min_labels_
    sets = np.array([y for y in itertools.product((0, 1), repeat=K) if m0 <= sum(y) <= M], dtype=float)
    log_Z = logsumexp(S @ sets.T, axis=1)
    W = model._weights()
    return np.mean(log_Z - np.sum(Y * S, axis=1)) + model.reg * np.sum(W * W)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_gradient_matches_finite_differences(kernel):
    X, Y = make_data(n=40, d=3, K=4, M=3, seed=1)
    m = MLRH(kernel=kernel, reg=0.05, max_iter=3, tol=1e-12, n_centers=10, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(X, Y)
    Phi = _augment(m._features(X))
    rng = np.random.default_rng(0)
    W = rng.normal(scale=0.5, size=(Phi.shape[1], 4))
    f, G = m._objective_parts(Phi, Y.astype(float), W, 3)
    h = 1e-6
    fd = np.zeros_like(W)
    for idx in np.ndindex(*W.shape):
        E = np.zeros_like(W)
        E[idx] = h
        fd[idx] = (m._objective_parts(Phi, Y.astype(float), W + E, 3)[0]
                   - m._objective_parts(Phi, Y.astype(float), W - E, 3)[0]) / (2 * h)
    np.testing.assert_allclose(G, fd, rtol=1e-6, atol=1e-8)


def test_objective_matches_enumeration():
    X, Y = make_data(seed=2)
    m = MLRH(reg=0.01).fit(X, Y)
    assert m.objective(X, Y) == pytest.approx(brute_objective(m, X, Y), rel=1e-12)
    assert m.objective_ == pytest.approx(brute_objective(m, X, Y), rel=1e-12)


@pytest.mark.parametrize("kernel,M", [("linear", 1), ("linear", 2), ("linear", 4), ("rbf", 2)])
def test_mm_and_lbfgs_reach_the_same_objective(kernel, M):
    X, Y = make_data(n=100, K=4, M=M, seed=3)
    kw = dict(kernel=kernel, reg=1e-2, tol=1e-9, max_iter=20000, n_centers=30, random_state=0)
    mm = MLRH(solver="mm", **kw).fit(X, Y)
    plain = MLRH(solver="mm", **kw)
    plain._mm_accelerate = False
    plain.fit(X, Y)
    lb = MLRH(solver="lbfgs", **kw).fit(X, Y)
    assert mm.converged_ and plain.converged_ and lb.converged_
    assert mm.objective_ == pytest.approx(lb.objective_, rel=1e-6)
    assert plain.objective_ == pytest.approx(lb.objective_, rel=1e-6)
    assert mm.n_iter_ < plain.n_iter_
    np.testing.assert_allclose(mm.predict_proba(X), lb.predict_proba(X), atol=1e-5)


@pytest.mark.parametrize("accelerate", [False, True])
@pytest.mark.parametrize("kernel,M,reg", [("linear", 2, 1e-3), ("linear", 4, 1e-4), ("rbf", 3, 1e-3)])
def test_mm_objective_monotone_with_factor_two(kernel, M, reg, accelerate):
    X, Y = make_data(n=150, K=5, M=M, seed=4)
    m = MLRH(kernel=kernel, solver="mm", reg=reg, max_iter=300, tol=1e-12, n_centers=40, random_state=0)
    m._mm_accelerate = accelerate  # False: the paper's plain MM iteration
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=Warning)
        m.fit(X, Y)
    h = m.objective_history_
    assert len(h) > 10
    assert np.all(np.diff(h) <= 1e-13 * np.abs(h[:-1]))
    assert m.mm_curvature_ == 0.5  # the factor-2 majoriser never needed the safeguard


def test_one_label_per_instance_equals_multinomial_logistic_regression():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 3))
    cls = np.argmax(X @ rng.normal(size=(3, 4)) + rng.gumbel(size=(150, 4)), axis=1)
    Y = np.eye(4, dtype=np.uint8)[cls]
    reg = 1e-2
    m = MLRH(max_labels=1, reg=reg, tol=1e-10, max_iter=50000).fit(X, Y)
    # sklearn: C * sum(loss) + 0.5 ||W||²; ours: mean(loss) + reg ||W||² (bias penalised too)
    lr = LogisticRegression(C=1.0 / (2 * len(X) * reg), fit_intercept=False, tol=1e-12, max_iter=10000)
    lr.fit(np.hstack([X, np.ones((len(X), 1))]), cls)
    np.testing.assert_allclose(m.coef_, lr.coef_[:, :3].T, atol=1e-5)
    np.testing.assert_allclose(m.intercept_, lr.coef_[:, 3], atol=1e-5)
    np.testing.assert_allclose(m.predict_proba(X), lr.predict_proba(np.hstack([X, np.ones((150, 1))])), atol=1e-6)


def test_wta_prediction_is_bruteforce_argmax_and_marginal_is_threshold():
    X, Y = make_data(n=80, K=5, M=3, seed=6)
    m = MLRH(reg=1e-2).fit(X, Y)
    S = m.decision_function(X)
    sets = np.array([y for y in itertools.product((0, 1), repeat=5) if 1 <= sum(y) <= m.max_labels_])
    np.testing.assert_array_equal(m.predict(X), sets[np.argmax(S @ sets.T, axis=1)])
    mp = MLRH(reg=1e-2, prediction="marginal", threshold=0.3).fit(X, Y)
    np.testing.assert_array_equal(mp.predict(X), (mp.predict_proba(X) >= 0.3).astype(np.uint8))
    # marginals are those of the enumerated distribution
    p = np.exp(S @ sets.T - logsumexp(S @ sets.T, axis=1, keepdims=True))
    np.testing.assert_allclose(m.predict_proba(X), p @ sets, atol=1e-12)


@pytest.mark.parametrize("solver", ["mm", "lbfgs"])
def test_sparse_equals_dense_linear(solver):
    X, Y = make_data(n=90, d=6, K=4, M=2, seed=7)
    X[np.abs(X) < 0.7] = 0.0
    a = MLRH(solver=solver, reg=1e-2, tol=1e-9, max_iter=20000).fit(X, Y)
    b = MLRH(solver=solver, reg=1e-2, tol=1e-9, max_iter=20000).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)
    np.testing.assert_allclose(a.intercept_, b.intercept_, atol=1e-8)
    np.testing.assert_array_equal(a.predict(X), b.predict(sp.csr_matrix(X)))


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("prediction", ["wta", "marginal"])
def test_contract(kernel, prediction):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # contract data has empty rows: ∅ is a label set, nothing dropped
        est = check_estimator_contract(
            MLRH(kernel=kernel, prediction=prediction, reg=1e-2, n_centers=25, random_state=0), atol=1e-6)
    assert est.decision_function(np.zeros((2, 5))).shape == (2, 3)
    assert (hasattr(est, "coef_") and est.coef_.shape == (5, 3)) == (kernel == "linear")
    if kernel == "rbf":
        assert est.dual_coef_.shape == (25, 3) and est.sigma_ > 0


def test_rows_outside_support_are_dropped_with_warning():
    X, Y = make_data(n=60, K=4, M=3, seed=8)
    Y[:5] = 0
    with pytest.warns(UserWarning, match="dropped 5 training rows whose label set is empty"):
        m = MLRH(reg=1e-2, empty_set=False).fit(X, Y)
    assert m.n_dropped_ == 5 and m.max_labels_ == 3 and m.min_labels_ == 1
    big = (Y.sum(1) > 2).sum()
    with pytest.warns(UserWarning, match=f"dropped {big} training rows whose label set has more"):
        m2 = MLRH(max_labels=2, reg=1e-2).fit(X, Y)
    assert m2.max_labels_ == 2 and m2.min_labels_ == 0 and m2.predict(X).sum(1).max() <= 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # default: ∅ is a label set, nothing dropped
        m3 = MLRH(reg=1e-2).fit(X, Y)
    assert m3.n_dropped_ == 0 and m3.min_labels_ == 0
    Y0 = np.zeros_like(Y)
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="no training row"):
        MLRH(empty_set=False).fit(X, Y0)
    assert MLRH().fit(X, Y0).predict(X).sum() == 0  # only ∅ seen: ∅ predicted


@pytest.mark.parametrize("solver", ["mm", "lbfgs"])
def test_empty_set_objective_gradient_and_wta_match_enumeration(solver):
    X, Y = make_data(n=150, d=3, K=4, M=3, seed=21, m0=0, shift=-1.0)
    assert (Y.sum(1) == 0).mean() > 0.1
    m = MLRH(reg=1e-2, solver=solver, tol=1e-8, max_iter=20000).fit(X, Y)
    assert m.min_labels_ == 0 and m.n_dropped_ == 0 and m.converged_
    assert m.objective_ == pytest.approx(brute_objective(m, X, Y), rel=1e-12)
    # optimality: gradient of the enumerated objective vanishes (finite differences)
    Phi = _augment(m._features(X))
    W = m._weights()
    f, G = m._objective_parts(Phi, Y.astype(float), W, 3)
    np.testing.assert_allclose(G, 0.0, atol=1e-7)
    rng = np.random.default_rng(1)
    W1 = rng.normal(scale=0.5, size=W.shape)
    _, G1 = m._objective_parts(Phi, Y.astype(float), W1, 3)
    h, fd = 1e-6, np.zeros_like(W1)
    for idx in np.ndindex(*W1.shape):
        E = np.zeros_like(W1)
        E[idx] = h
        fd[idx] = (m._objective_parts(Phi, Y.astype(float), W1 + E, 3)[0]
                   - m._objective_parts(Phi, Y.astype(float), W1 - E, 3)[0]) / (2 * h)
    np.testing.assert_allclose(G1, fd, rtol=1e-6, atol=1e-8)
    # WTA over sets including ∅, and marginals, by enumeration
    S = m.decision_function(X)
    sets = np.array([y for y in itertools.product((0, 1), repeat=4) if sum(y) <= 3], dtype=float)
    logits = S @ sets.T
    np.testing.assert_array_equal(m.predict(X), sets[np.argmax(logits, axis=1)])
    p = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    np.testing.assert_allclose(m.predict_proba(X), p @ sets, atol=1e-12)
    assert (m.predict(X).sum(1) == 0).any()
    assert "size 0..3" in m.decision_rule_


def test_empty_set_beats_predicting_nothing():
    """Issue 14: with ∅ dropped, subset accuracy 0.070 where predicting nothing scores 0.451."""
    X, Y = make_data(n=600, d=5, K=5, M=3, seed=22, m0=0, shift=-3.0)
    Xt, Yt = X[400:], Y[400:]
    X, Y = X[:400], Y[:400]
    empty_rate = (Yt.sum(1) == 0).mean()
    assert empty_rate > 0.3
    acc = (MLRH(reg=1e-3).fit(X, Y).predict(Xt) == Yt).all(1).mean()
    with pytest.warns(UserWarning, match="dropped"):
        acc_paper = (MLRH(reg=1e-3, empty_set=False).fit(X, Y).predict(Xt) == Yt).all(1).mean()
    assert acc > empty_rate + 0.1 and acc > acc_paper + 0.1  # measured: 0.525 vs 0.39 (empty), 0.345 (∅ dropped)


def test_label_without_positives_gives_finite_model():
    X, Y = make_data(n=80, K=4, M=2, seed=9)
    Y[:, 3] = 0
    Y[Y.sum(1) == 0, 0] = 1
    for solver in ("mm", "lbfgs"):
        m = MLRH(solver=solver, reg=1e-3, max_iter=5000).fit(X, Y)
        P = m.predict_proba(X)
        assert np.isfinite(P).all() and np.isfinite(m.intercept_).all()
        assert P[:, 3].max() < 0.05


def test_large_scores_stay_finite():
    X, Y = make_data(n=60, K=3, M=2, seed=10)
    m = MLRH(reg=1e-2).fit(X, Y)
    P = m.predict_proba(1e3 * X)
    assert np.isfinite(P).all() and P.min() >= 0 and P.max() <= 1
    np.testing.assert_array_equal(m.predict(1e3 * X).sum(1) >= 1, True)


@pytest.mark.parametrize("param,value,match", [
    ("reg", -1.0, "'reg' parameter of MLRH must be >= 0"),
    ("kernel", "poly", "'kernel' parameter"),
    ("solver", "newton", "'solver' parameter"),
    ("prediction", "topk", "'prediction' parameter"),
    ("max_labels", 0, "'max_labels' parameter"),
    ("sigma", -2.0, "'sigma' parameter"),
    ("tol", 0.0, "'tol' parameter"),
])
def test_bad_parameters_raise(param, value, match):
    X, Y = make_data(n=30, seed=11)
    with pytest.raises(ValueError, match=match):
        MLRH(**{param: value}).fit(X, Y)


def test_unfitted_and_wrong_width():
    X, Y = make_data(n=30, seed=12)
    with pytest.raises(NotFittedError):
        MLRH().decision_function(X)
    m = MLRH(reg=1e-2).fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        m.predict_proba(X[:, :2])


def test_reproduction_quick_runs():
    from mlviz.reproductions import COLUMNS, get_experiment

    mod = get_experiment("mlrh-table")
    assert mod.TITLE and "5-fold" in mod.PROTOCOL
    calls = []
    df = mod.run(quick=True, progress=lambda done, total: calls.append((done, total)))
    assert list(df.columns[: len(COLUMNS)]) == COLUMNS
    assert calls[-1][0] == calls[-1][1]
    assert set(df["measure"]) == {"exact_match_%", "hamming_loss"}
    assert np.isfinite(df["ours"]).all()
    hl = df[df.measure == "hamming_loss"]
    assert (hl["ours"] > 0).all() and (hl["ours"] < 0.35).all()
    # the RBF WTA row carries the paper's number for comparison
    row = df[(df.method == "MLRH-WTA (RBF)") & (df.measure == "exact_match_%")]
    assert row["paper"].iloc[0] == pytest.approx(33.37)


@pytest.mark.parametrize("kernel,solver", [("linear", "mm"), ("rbf", "lbfgs"), ("linear", "lbfgs")])
def test_refit_equals_fresh_fit(kernel, solver):
    X, Y = make_data(n=100, K=4, M=2, seed=13)
    kw = dict(kernel=kernel, solver=solver, tol=1e-9, max_iter=20000, n_centers=30, random_state=0)
    m = MLRH(reg=1e-1, **kw).fit(X, Y)
    cold_iters = MLRH(reg=3e-2, **kw).fit(X, Y)
    assert m.refit(reg=3e-2) is m
    assert m.get_params()["reg"] == 3e-2
    assert m.objective_ == pytest.approx(cold_iters.objective_, rel=1e-8)
    np.testing.assert_allclose(m.predict_proba(X), cold_iters.predict_proba(X), atol=1e-6)
    P = m.predict_proba(X)
    m.refit(prediction="marginal", threshold=0.3)
    np.testing.assert_array_equal(m.predict(X), (P >= 0.3).astype(np.uint8))
    np.testing.assert_array_equal(m.predict_proba(X), P)
    with pytest.raises(ValueError, match="'reg' parameter"):
        m.refit(reg=-1.0)
    assert m.reg == 3e-2  # a rejected value leaves the model unchanged
    with pytest.raises(NotFittedError):
        MLRH().refit(reg=1.0)


def _surrogate(m, Phi, Yf, W0, W, M, curvature):
    """Quadratic MM surrogate f(W0) + <G, W - W0> + ½ <W - W0, A (W - W0)>, A = c Φ̃ᵀΦ̃/n + 2 reg I."""
    f0, G = m._objective_parts(Phi, Yf, W0, M)
    A = curvature * (Phi.T @ Phi) / Phi.shape[0] + 2 * m.reg * np.eye(Phi.shape[1])
    E = W - W0
    return f0 + np.sum(G * E) + 0.5 * np.sum(E * (A @ E))


def test_factor_two_majorises_and_joint_factor_four_does_not():
    # random problems: f <= surrogate(c = 1/2) at random points around random W0
    rng = np.random.default_rng(14)
    for M in (1, 2, 3):
        X, Y = make_data(n=50, d=3, K=4, M=M, seed=M)
        m = MLRH(reg=1e-2)
        Phi, Yf = _augment(X), Y.astype(float)
        for _ in range(30):
            W0 = rng.normal(scale=rng.choice([0.1, 1.0, 3.0]), size=(4, 4))
            W = W0 + rng.normal(scale=rng.choice([0.1, 1.0, 5.0]), size=(4, 4))
            assert m._objective_parts(Phi, Yf, W, M)[0] <= _surrogate(m, Phi, Yf, W0, W, M, 0.5) + 1e-12
    # the same bound with ∅ as a label set (sizes 0..M)
    for M in (1, 2, 3):
        X, Y = make_data(n=50, d=3, K=4, M=M, seed=M, m0=0)
        m = MLRH(reg=1e-2)
        m.min_labels_ = 0
        Phi, Yf = _augment(X), Y.astype(float)
        for _ in range(30):
            W0 = rng.normal(scale=rng.choice([0.1, 1.0, 3.0]), size=(4, 4))
            W = W0 + rng.normal(scale=rng.choice([0.1, 1.0, 5.0]), size=(4, 4))
            assert m._objective_parts(Phi, Yf, W, M)[0] <= _surrogate(m, Phi, Yf, W0, W, M, 0.5) + 1e-12
    # two labels tied for one slot (bias only, y = label 1): along (t, -t) the
    # curvature is 1/2, so the paper's joint factor 4 (c = 1/4) is not a majoriser
    m = MLRH(reg=0.0)
    Phi, Yf, W0 = np.ones((1, 1)), np.array([[1.0, 0.0]]), np.zeros((1, 2))
    W = np.array([[0.1, -0.1]])
    f = m._objective_parts(Phi, Yf, W, 1)[0]
    assert f > _surrogate(m, Phi, Yf, W0, W, 1, 0.25)
    assert f <= _surrogate(m, Phi, Yf, W0, W, 1, 0.5)


def test_too_large_raises_before_fitting_with_estimate():
    from mlviz.models.mlrh import (
        ESTIMATE_EVALUATIONS,
        SECONDS_PER_DP_CELL,
        SECONDS_PER_PRODUCT,
        SECONDS_PER_SOLVE_FLOP,
        TooLargeError,
    )

    def estimate(n, d, K, M):  # dense X: every entry is a multiply-add; D = d + 1 with the bias
        return ESTIMATE_EVALUATIONS * (SECONDS_PER_DP_CELL * n * K * (M + 1)
                                       + SECONDS_PER_PRODUCT * 2 * (n * d + n) * K
                                       + SECONDS_PER_SOLVE_FLOP * 2 * (d + 1) ** 2 * K)

    X, Y = make_data(n=200, K=5, M=3, seed=30)
    M = int(Y.sum(1).max())
    with pytest.raises(TooLargeError, match="BinaryRelevance or MLkNN") as err:
        MLRH(time_budget=1e-3).fit(X, Y)
    assert err.value.estimate_seconds == pytest.approx(estimate(200, X.shape[1], 5, M))
    # a budget that fits M = 1 (but not M = 3) suggests max_labels=1 when that keeps >= 90 % of rows
    X1, Y1 = make_data(n=200, K=5, M=1, seed=31)
    Y1[:5] = [1, 1, 1, 0, 0]
    e1, e3 = estimate(200, X1.shape[1], 5, 1), estimate(200, X1.shape[1], 5, 3)
    budget = e1 + 0.25 * (e3 - e1)  # between M = 1 and M = 2
    with pytest.raises(TooLargeError, match="max_labels=1 \\(drops 5 training rows"):
        MLRH(time_budget=budget).fit(X1, Y1)
    m = MLRH(time_budget=1e-3)
    with pytest.raises(TooLargeError):
        m.fit(X, Y)
    assert not hasattr(m, "intercept_")
    Xw = sp.csr_matrix((200, 20_000))  # 20k features: 3.2 GB preconditioner
    with pytest.raises(TooLargeError, match="preconditioner"):
        MLRH().fit(Xw, Y)


def test_nystrom_recovers_a_low_rank_operator_and_the_change_of_variables_is_exact():
    from mlviz.models._mlrh_solvers import LowRankPreconditioner, nystrom

    rng = np.random.default_rng(40)
    B = rng.normal(size=(60, 7))
    H = B @ B.T  # PSD, rank 7
    U, ev = nystrom(lambda V: H @ V, 60, 10, 1, rng)
    np.testing.assert_allclose(U @ np.diag(ev) @ U.T, H, atol=1e-8 * np.abs(H).max())
    np.testing.assert_allclose(ev[:7], np.linalg.eigvalsh(H)[::-1][:7], rtol=1e-9)
    T = LowRankPreconditioner(U, ev, 0.3)
    W = rng.normal(size=(60, 4))
    np.testing.assert_allclose(T.to_w(T.to_v(W)), W, atol=1e-12)
    root = T.to_v(np.eye(60))  # the matrix T: symmetric, T² = P = lam I + U diag(ev) Uᵀ
    np.testing.assert_allclose(root, root.T, atol=1e-12)
    np.testing.assert_allclose(root @ root, 0.3 * np.eye(60) + U @ np.diag(ev) @ U.T, atol=1e-9)
    np.testing.assert_allclose(T.gradient(W), np.linalg.solve(root, W), atol=1e-9)


def test_low_rank_and_cholesky_preconditioners_reach_the_same_optimum(monkeypatch):
    from mlviz.models import _mlrh_solvers as solvers

    # sparse 0/1 words with D >= NYSTROM_MIN_DIM and fewer rows than the sketch's rank: the
    # low-rank preconditioner is chosen (and exact on the data's span)
    rng = np.random.default_rng(41)
    n, d, K = 60, 600, 4
    X = sp.random(n, d, density=0.05, format="csr", random_state=rng, data_rvs=np.ones)
    Y = (np.asarray(X[:, :K].sum(axis=1)) + rng.random((n, K)) > 0.9).astype(np.uint8)
    p = Y.mean(0)
    T = solvers.curvature_preconditioner(_augment(X), float(np.mean(p * (1 - p))), 1e-3)
    assert isinstance(T, solvers.LowRankPreconditioner)
    low = MLRH(tol=1e-8).fit(X, Y)
    monkeypatch.setattr(solvers, "NYSTROM_MIN_DIM", 10 ** 9)
    chol = MLRH(tol=1e-8).fit(X, Y)
    assert low.converged_ and chol.converged_
    assert low.objective_ == pytest.approx(chol.objective_, rel=1e-10)
    np.testing.assert_allclose(low.coef_, chol.coef_, atol=1e-5)


@pytest.mark.parametrize("m0", [0, 1])
def test_intercept_start_is_the_enumerated_intercept_only_optimum(m0):
    from scipy.optimize import minimize

    from mlviz.models._mlrh_solvers import intercept_start

    _, Y = make_data(n=90, K=4, M=2, seed=42, m0=m0)
    Yf, reg = Y.astype(float), 1e-2
    sets = np.array([y for y in itertools.product((0, 1), repeat=4) if m0 <= sum(y) <= 2], dtype=float)

    def brute(b):  # mean NLL of the rows under scores b for every row, enumerated, plus the ridge
        return logsumexp(sets @ b) - Yf.mean(0) @ b + reg * b @ b

    ref = minimize(brute, np.zeros(4), method="BFGS", options=dict(gtol=1e-11)).x
    np.testing.assert_allclose(intercept_start(Yf, 2, m0, reg, 1e-9), ref, atol=1e-6)
