"""Tests for BinaryRelevance, LabelPowerset and MLkNN against independent references."""

import numpy as np
import pytest
import scipy.sparse as sp
from _multinomial_reference import fitted_tolerance, tight_reference
from contract import check_estimator_contract, contract_data
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import SVC, LinearSVC

from mlviz.models import BinaryRelevance, LabelPowerset, MLkNN
from mlviz.models._base_learner import ConstantProbability


# ---------------------------------------------------------------- BinaryRelevance
def test_br_equals_per_label_sklearn_fits():
    X, Y = contract_data(n=80, d=4, L=3, random_state=1)
    br = BinaryRelevance(base="lr").fit(X, Y)
    P = br.predict_proba(X)
    C = BinaryRelevance().C / np.mean(np.sum(X ** 2, axis=1))  # C in units of 1 / mean ||x||^2
    assert br.C_ == pytest.approx(C, rel=1e-12)
    for l in range(Y.shape[1]):
        ref = LogisticRegression(C=C, max_iter=2000).fit(X, Y[:, l])
        np.testing.assert_allclose(P[:, l], ref.predict_proba(X)[:, 1], atol=1e-12)
        np.testing.assert_allclose(br.estimators_[l].coef_, ref.coef_, atol=1e-12)
    np.testing.assert_array_equal(br.predict(X), (P >= 0.5).astype(np.uint8))


@pytest.mark.parametrize("scale_C", [True, False])
def test_br_scaled_C_equals_sklearn_on_sparse_rows(scale_C):
    X, Y = contract_data(n=90, d=6, L=3, random_state=4)
    Xs = sp.csr_matrix(np.where(np.abs(X) > 0.8, X, 0.0))
    br = BinaryRelevance(base="lr", C=3.0, scale_C=scale_C).fit(Xs, Y)
    r2 = Xs.multiply(Xs).sum() / Xs.shape[0]
    C = 3.0 / r2 if scale_C else 3.0
    for l in range(Y.shape[1]):
        ref = LogisticRegression(C=C, max_iter=2000).fit(Xs.toarray(), Y[:, l])
        np.testing.assert_allclose(br.predict_proba(Xs)[:, l], ref.predict_proba(Xs.toarray())[:, 1], atol=1e-7)
    assert br.x_scale_ == pytest.approx(r2, rel=1e-12)
    # the same C whatever the units of the features: scaling X by 10 leaves the scaled fit unchanged
    if scale_C:
        big = BinaryRelevance(base="lr", C=3.0).fit(Xs * 10.0, Y)
        assert big.C_ == pytest.approx(br.C_ / 100.0, rel=1e-12)


def test_br_C_validation_and_user_estimator_ignores_C():
    X, Y = contract_data(n=40, d=3, L=2, random_state=5)
    with pytest.raises(ValueError, match="The 'C' parameter of BinaryRelevance must be > 0"):
        BinaryRelevance(C=0).fit(X, Y)
    with pytest.raises(ValueError, match="The 'scale_C' parameter of BinaryRelevance must be one of"):
        BinaryRelevance(scale_C="yes").fit(X, Y)
    br = BinaryRelevance(LogisticRegression(C=0.5, max_iter=2000), C=99.0).fit(X, Y)
    assert br.C_ is None and br.estimators_[0].C == 0.5


def test_br_custom_estimator_and_decision_function_path():
    X, Y = contract_data(n=80, d=4, L=3, random_state=2)
    br = BinaryRelevance(LinearSVC(C=0.5)).fit(X, Y)
    P = br.predict_proba(X)
    for l in range(Y.shape[1]):
        ref = LinearSVC(C=0.5).fit(X, Y[:, l])
        np.testing.assert_allclose(P[:, l], expit(ref.decision_function(X)), atol=1e-10)
    br_svc = BinaryRelevance(SVC(C=2.0)).fit(X, Y)  # RBF SVC: decision_function path
    ref = SVC(C=2.0).fit(X, Y[:, 0])
    np.testing.assert_allclose(br_svc.predict_proba(X)[:, 0], expit(ref.decision_function(X)), atol=1e-10)
    br_nb = BinaryRelevance(GaussianNB()).fit(X, Y)  # predict_proba path, non-LR
    ref = GaussianNB().fit(X, Y[:, 2])
    np.testing.assert_allclose(br_nb.predict_proba(X)[:, 2], ref.predict_proba(X)[:, 1], atol=1e-12)


def test_br_constant_labels_smoothed():
    X, Y = contract_data(n=50, d=4, L=3, random_state=3)
    Y = Y.copy()
    Y[:, 1] = 0
    Y[:, 2] = 1
    br = BinaryRelevance(base="lr").fit(X, Y)
    P = br.predict_proba(X)
    assert np.isfinite(P).all()
    np.testing.assert_array_equal(br.constant_labels_, [False, True, True])
    assert isinstance(br.estimators_[1], ConstantProbability)
    np.testing.assert_allclose(P[:, 1], 1.0 / 52.0)
    np.testing.assert_allclose(P[:, 2], 51.0 / 52.0)


def test_br_contract():
    check_estimator_contract(BinaryRelevance(), sparse=True)


def test_br_bad_threshold():
    X, Y = contract_data()
    with pytest.raises(ValueError, match="'threshold' parameter of BinaryRelevance"):
        BinaryRelevance(threshold=2.0).fit(X, Y)


# ---------------------------------------------------------------- LabelPowerset
def _lp_reference(X, Y, Xt):
    """Independent LP: dict of label tuples -> class id, marginals by a loop."""
    sets = {}
    ids = np.empty(len(Y), dtype=int)
    for i, row in enumerate(map(tuple, Y)):
        ids[i] = sets.setdefault(row, len(sets))
    clf = tight_reference(X, ids, 1.0)  # the optimum of scikit-learn's objective
    proba = clf.predict_proba(Xt)
    marg = np.zeros((len(Xt), Y.shape[1]))
    best = []
    inv = {v: k for k, v in sets.items()}
    for i in range(len(Xt)):
        for j, c in enumerate(clf.classes_):
            marg[i] += proba[i, j] * np.array(inv[c])
        best.append(inv[clf.classes_[np.argmax(proba[i])]])
    return marg, np.array(best)


def test_lp_equals_independent_computation():
    X, Y = contract_data(n=90, d=4, L=3, random_state=4)
    rng = np.random.default_rng(0)
    Xt = rng.normal(size=(20, 4))
    lp = LabelPowerset(base="lr", C=1.0, scale_C=False).fit(X, Y)  # plain C = 1 (the reference's)
    marg, best = _lp_reference(X, Y, Xt)
    ids = np.ravel(np.unique(Y, axis=0, return_inverse=True)[1])  # LP's class ids (sorted sets)
    tol = fitted_tolerance(lp.estimator_, X, ids, 1.0, X_eval=Xt)  # from LP's stopping point
    np.testing.assert_allclose(lp.predict_proba(Xt), marg, atol=tol)
    np.testing.assert_array_equal(lp.predict(Xt), best)
    np.testing.assert_allclose(lp.predict_set_proba(Xt).sum(axis=1), 1.0)


def test_lp_single_observed_set():
    X, _ = contract_data(n=30)
    Y = np.tile([1, 0, 1], (30, 1))
    lp = LabelPowerset(base="lr").fit(X, Y)
    np.testing.assert_allclose(lp.predict_proba(X), np.tile([1.0, 0.0, 1.0], (30, 1)))
    np.testing.assert_array_equal(lp.predict(X[:2]), [[1, 0, 1], [1, 0, 1]])


def test_lp_contract():
    check_estimator_contract(LabelPowerset(), sparse=True)


# ---------------------------------------------------------------- MLkNN
def test_mlknn_hand_computed_example():
    # 1-D points 0,1,2 | 10,11,12, one label y = 1,1,0,0,0,1, k = 2, s = 1.
    # Neighbours (self excluded): 0:{1,2} 1:{0,2} 2:{1,0} 10:{11,12} 11:{10,12} 12:{11,10}
    # Counts C = 1,1,2,1,1,0.  Positives have C = 1,1,0 -> c1 = [1,2,0];
    # negatives have C = 2,1,1 -> c0 = [0,2,1].  prior = (1+3)/(2+6) = 1/2.
    # like1 = (1+c1)/(3+3) = [2,3,1]/6, like0 = [1,3,2]/6
    # posterior(j) = like1/(like1+like0) = [2/3, 1/2, 1/3].
    X = np.array([[0.0], [1.0], [2.0], [10.0], [11.0], [12.0]])
    Y = np.array([[1], [1], [0], [0], [0], [1]])
    m = MLkNN(k=2, s=1.0).fit(X, Y)
    np.testing.assert_allclose(m.prior_, [0.5])
    np.testing.assert_allclose(m.posterior_, [[2 / 3, 1 / 2, 1 / 3]])
    Xt = np.array([[0.4], [10.2], [11.6], [5.0]])
    # neighbours: {0,1}->2 positives, {10,11}->0, {12,11}->1, {2,1}->1
    np.testing.assert_allclose(m.predict_proba(Xt)[:, 0], [1 / 3, 2 / 3, 1 / 2, 1 / 2])
    np.testing.assert_array_equal(m.predict(Xt)[:, 0], [0, 1, 1, 1])


def _mlknn_loop_reference(X, Y, Xt, k, s):
    """Literal Zhang & Zhou (2007) Fig. 1 with explicit loops and a full distance matrix."""
    N, L = Y.shape
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    nbr = [np.argsort(D[i], kind="stable")[:k] for i in range(N)]
    out = np.zeros((len(Xt), L))
    Dt = ((Xt[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    tnbr = [np.argsort(Dt[i], kind="stable")[:k] for i in range(len(Xt))]
    for l in range(L):
        ph1 = (s + Y[:, l].sum()) / (s * 2 + N)
        c = np.zeros(k + 1)
        cp = np.zeros(k + 1)
        for i in range(N):
            delta = int(sum(Y[j, l] for j in nbr[i]))
            if Y[i, l] == 1:
                c[delta] += 1
            else:
                cp[delta] += 1
        for t in range(len(Xt)):
            j = int(sum(Y[m, l] for m in tnbr[t]))
            pe1 = (s + c[j]) / (s * (k + 1) + c.sum())
            pe0 = (s + cp[j]) / (s * (k + 1) + cp.sum())
            out[t, l] = ph1 * pe1 / (ph1 * pe1 + (1 - ph1) * pe0)
    return out


@pytest.mark.parametrize("k,s", [(1, 1.0), (5, 0.5), (10, 2.0)])
def test_mlknn_equals_loop_reference(k, s):
    X, Y = contract_data(n=70, d=3, L=3, random_state=5)
    Xt = np.random.default_rng(1).normal(size=(25, 3))
    m = MLkNN(k=k, s=s).fit(X, Y)
    np.testing.assert_allclose(m.predict_proba(Xt), _mlknn_loop_reference(X, Y, Xt, k, s), atol=1e-12)
    np.testing.assert_allclose(m.predict_proba(sp.csr_matrix(Xt)), m.predict_proba(Xt), atol=1e-12)


def test_mlknn_self_not_neighbour_with_duplicates():
    # Two identical points: each must count the *other* copy, not itself.
    X = np.array([[0.0], [0.0], [5.0], [6.0]])
    Y = np.array([[1], [0], [0], [0]])
    m = MLkNN(k=1).fit(X, Y)
    neighbours = m.nn_.training_neighbors(1)
    np.testing.assert_array_equal(neighbours[:2, 0], [1, 0])


def test_mlknn_k_capped_and_empty_label_finite():
    X, Y = contract_data(n=8, d=2, L=3)
    Y = Y.copy()
    Y[:, 0] = 0
    with pytest.warns(UserWarning, match="k=20"):
        m = MLkNN(k=20).fit(X, Y)
    assert m.k_ == 7
    P = m.predict_proba(X)
    assert np.isfinite(P).all() and (P[:, 0] < 0.5).all()


def test_mlknn_bad_params():
    X, Y = contract_data()
    with pytest.raises(ValueError, match="'k' parameter of MLkNN must be >= 1"):
        MLkNN(k=0).fit(X, Y)
    with pytest.raises(ValueError, match="'s' parameter of MLkNN must be > 0"):
        MLkNN(s=0.0).fit(X, Y)


def test_mlknn_contract():
    check_estimator_contract(MLkNN(k=5), sparse=True)


# ----------------------------------------------------- anchors (fixed-split references, mlviz.reproductions.references)
def test_scene_anchors_br_lr_and_mlknn():
    """scene official split, StandardScaler: numbers measured independently (benchmarks/reference_numbers.py)."""
    from sklearn.preprocessing import StandardScaler

    from mlviz.data import load_sample_split
    from mlviz.metrics import evaluate

    train, test = load_sample_split("scene")
    scaler = StandardScaler().fit(train.X)
    X, Xt = scaler.transform(train.X), scaler.transform(test.X)
    measures = ["micro_f1", "subset_accuracy", "macro_auc"]
    knn = evaluate(test.Y, MLkNN(k=10).fit(X, train.Y).predict_proba(Xt), measures=measures)
    assert knn["micro_f1"] == pytest.approx(0.715, abs=0.006)
    assert knn["subset_accuracy"] == pytest.approx(0.594, abs=0.006)
    assert knn["macro_auc"] == pytest.approx(0.918, abs=0.006)
    br_lr = BinaryRelevance(base="lr", C=1.0, scale_C=False)  # the anchors' BR-LR: LogisticRegression(C=1) per label
    br = evaluate(test.Y, br_lr.fit(X, train.Y).predict_proba(Xt), measures=measures + ["p@1"])
    assert br["micro_f1"] == pytest.approx(0.636, abs=0.006)
    assert br["macro_auc"] == pytest.approx(0.883, abs=0.006)
    assert br["p@1"] == pytest.approx(0.707, abs=0.006)


# ---------------------------------------------------------------- session 5: caps, metrics, rules
def test_lp_cap_keeps_most_frequent_sets_and_relabels_to_nearest():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    base = np.array([[1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 1]])
    Y = base[rng.integers(0, 3, size=60)].copy()
    Y[:3] = [[1, 1, 0, 0], [0, 1, 1, 1], [1, 0, 0, 1]]  # rare sets, one row each
    Y[3:6] = [0, 1, 1, 0]  # make {1,2} clearly the most frequent
    lp = LabelPowerset(base="lr", max_label_sets=3, C=1.0, scale_C=False).fit(X, Y)
    assert lp.n_observed_sets_ == 6 and lp.n_relabelled_ == 3
    # independent: the three frequent sets; Hamming-nearest (ties -> more frequent) for the rest
    sets, counts = np.unique(Y, axis=0, return_counts=True)
    keep = sets[counts > 1]
    np.testing.assert_array_equal(lp.label_sets_, keep)
    freq = {tuple(r): c for r, c in zip(sets, counts)}
    target = []
    for row in Y:
        d = np.abs(keep - row).sum(1)
        cand = [j for j in range(len(keep)) if d[j] == d.min()]
        target.append(max(cand, key=lambda j: (freq[tuple(keep[j])], -j)))
    ref = tight_reference(X, target, 1.0)
    tol = fitted_tolerance(lp.estimator_, X, target, 1.0)
    np.testing.assert_allclose(lp.predict_set_proba(X), ref.predict_proba(X), atol=tol)
    np.testing.assert_array_equal(lp.set_counts_, np.bincount(target))
    assert "3 kept" in lp.decision_rule_


def test_lp_not_fitted_and_too_large():
    from sklearn.exceptions import NotFittedError

    from mlviz.models import TooLargeError

    X, Y = contract_data()
    for call in (LabelPowerset().predict, LabelPowerset().predict_proba, LabelPowerset().predict_set_proba):
        with pytest.raises(NotFittedError):
            call(X)
    with pytest.raises(TooLargeError, match="lower max_label_sets") as err:
        LabelPowerset(max_coef_bytes=100).fit(X, Y)
    assert err.value.estimate_bytes > 100 and isinstance(err.value, ValueError)


def _text_like(n=80, F=40, L=3, seed=7):
    rng = np.random.default_rng(seed)
    X = sp.random(n, F, density=0.15, random_state=seed, format="csr",
                  data_rvs=lambda m: rng.integers(1, 5, size=m).astype(float))
    Y = (np.asarray(X[:, :L].todense()) > 0).astype(np.uint8)
    return X, Y


@pytest.mark.parametrize("k", [3, 7])
def test_mlknn_cosine_and_l2_rows_equal_loop_reference(k):
    """Issue 14: text features; cosine = Euclidean on L2-normalised rows = the literal algorithm."""
    from sklearn.preprocessing import normalize

    X, Y = _text_like()
    X = X[np.asarray(X.sum(1)).ravel() > 0]
    Y = Y[: X.shape[0]]
    Xt, Xtr, Yt = X[:20], X[20:], Y[20:]
    ref = _mlknn_loop_reference(normalize(Xtr).toarray(), Yt, normalize(Xt).toarray(), k, 1.0)
    P_cos = MLkNN(k=k, metric="cosine").fit(Xtr, Yt).predict_proba(Xt)
    P_l2 = MLkNN(k=k).fit(normalize(Xtr), Yt).predict_proba(normalize(Xt))
    np.testing.assert_allclose(P_l2, ref, atol=1e-12)
    # cosine may order exact distance ties differently; compare where the reference has no tie
    np.testing.assert_allclose(P_cos, P_l2, atol=1e-12)


def test_decision_rules_and_neighbor_algorithm():
    X, Y = contract_data()
    r2 = float(np.mean(np.sum(np.asarray(X) ** 2, axis=1)))
    assert BinaryRelevance(base="lr").fit(X, Y).decision_rule_ == (
        f"threshold 0.5 on per-label probabilities; LR C = 30 / mean‖x‖² = {30 / r2:.3g}; linear base (base='lr')")
    assert BinaryRelevance(base="lr", C=1, scale_C=False).fit(X, Y).decision_rule_ == (
        "threshold 0.5 on per-label probabilities; LR C = 1; linear base (base='lr')")
    assert BinaryRelevance(SVC()).fit(X, Y).decision_rule_ == (
        "threshold 0.5 on per-label sigmoid of decision_function")
    m = MLkNN(k=3).fit(X, Y)
    assert m.decision_rule_ == "threshold 0.5 on the ML-kNN posterior" and m.neighbor_algorithm_ == "exact"
    with pytest.raises(ValueError, match="'metric' parameter of MLkNN"):
        MLkNN(metric="manhattan").fit(X, Y)


def test_drop_self_and_recall_helpers():
    from mlviz.models._neighbors import _drop_self, knn_recall

    idx = np.array([[0, 2, 1], [2, 1, 0], [1, 0, 2]])  # row 2 lacks itself -> last column dropped
    np.testing.assert_array_equal(_drop_self(idx), [[2, 1], [2, 0], [1, 0]])
    assert knn_recall(np.array([[1, 2], [0, 3]]), np.array([[2, 1], [0, 2]])) == 0.75


def test_auto_neighbour_search_switch(monkeypatch):
    import mlviz.models._neighbors as nb

    X = np.random.default_rng(0).normal(size=(50, 4))
    assert nb.NeighborIndex().fit(X).algorithm_ == "exact"
    monkeypatch.setattr(nb, "EXACT_MAX_SAMPLES", 10)
    assert nb.NeighborIndex().fit(X).algorithm_ == "exact"  # 50² × 4 = 1e4 <= EXACT_MAX_COST
    monkeypatch.setattr(nb, "EXACT_MAX_COST", 9_999)
    monkeypatch.setattr(nb.NeighborIndex, "_build_approximate", lambda self, k: None)
    assert nb.NeighborIndex().fit(X).algorithm_ == "approximate"



def _sorted_sq_dists(Q, A, idx):
    return np.sort(((Q[:, None, :] - A[idx]) ** 2).sum(-1), axis=1)


@pytest.mark.parametrize("force_redo", [False, True])
def test_dense_knn_equals_sklearn_brute_force(monkeypatch, force_redo):
    """float32 candidates + float64 check (blocks of rows, sampled-column threshold, the
    float64 redo of uncertified rows) against scikit-learn's NearestNeighbors: the same
    neighbours, up to ties (exact duplicates: the same distances)."""
    from sklearn.neighbors import NearestNeighbors

    import mlviz.models._neighbors as nb

    rng = np.random.default_rng(0)
    A = rng.normal(size=(400, 20)) * 3.0 + 5.0
    A[300:330] = A[:30]                      # exact duplicates (ties, never certified)
    Q = np.vstack([rng.normal(size=(60, 20)) * 3.0 + 5.0, A[:10]])
    monkeypatch.setattr(nb, "BLAS_BLOCK_BYTES", 4 * 400 * 16)  # blocks of 16 rows
    monkeypatch.setattr(nb, "_SAMPLE_COLUMNS", 50)              # the thresholded selection
    if force_redo:
        monkeypatch.setattr(nb, "_U32", 1.0)                    # no row certified: all in float64
    ref = NearestNeighbors(algorithm="brute").fit(A)
    for k in (1, 7):
        got = nb.dense_knn(Q, A, k)
        want = ref.kneighbors(Q, n_neighbors=k, return_distance=False)
        np.testing.assert_allclose(_sorted_sq_dists(Q, A, got), _sorted_sq_dists(Q, A, want), rtol=1e-12)
        assert sum(set(g) != set(w) for g, w in zip(got[:60], want[:60])) == 0
        got = nb.dense_knn(A, A, k, exclude_self=True)
        want = ref.kneighbors(n_neighbors=k, return_distance=False)
        assert not np.any(got == np.arange(400)[:, None])     # self excluded by index
        np.testing.assert_allclose(_sorted_sq_dists(A, A, got), _sorted_sq_dists(A, A, want), rtol=1e-12)
    idx = nb.NeighborIndex(algorithm="exact").fit(A)          # > TREE_MAX_FEATURES: dense_knn
    assert idx._blas
    np.testing.assert_array_equal(idx.query(Q, 5), nb.dense_knn(Q, A, 5))
    np.testing.assert_array_equal(idx.training_neighbors(5), nb.dense_knn(A, A, 5, exclude_self=True))

# ---------------------------------------------------------------- session 6: LP's C (issue 14)
def test_lp_scaled_C_equals_sklearn_with_svmlight_C():
    """Default C = 1 / mean ||x||² (SVMlight's rule): same model as scikit-learn's LR at that C."""
    X, Y = contract_data(n=90, d=4, L=3, random_state=4)
    X = 7.0 * X  # units matter: mean ||x||² ≈ 196
    r2 = np.mean(np.sum(X ** 2, axis=1))
    lp = LabelPowerset(base="lr", C=1.0).fit(X, Y)  # SVMlight's C = 1 / avg x·x
    assert lp.x_scale_ == pytest.approx(r2, rel=1e-12) and lp.C_ == pytest.approx(1.0 / r2, rel=1e-12)
    ref = LabelPowerset(base="lr", C=1.0 / r2, scale_C=False).fit(X, Y)
    np.testing.assert_allclose(lp.predict_proba(X), ref.predict_proba(X), atol=1e-10)
    sets, ids = np.unique(Y, axis=0, return_inverse=True)
    clf = tight_reference(X, np.ravel(ids), 1.0 / r2)
    tol = fitted_tolerance(lp.estimator_, X, np.ravel(ids), 1.0 / r2)
    np.testing.assert_allclose(lp.predict_set_proba(X), clf.predict_proba(X), atol=tol)
    # invariant to the units of X: the same penalty relative to the data
    np.testing.assert_allclose(LabelPowerset(base="lr", C=1.0).fit(X / 7.0, Y).predict_proba(X / 7.0),
                               lp.predict_proba(X), atol=1e-3)  # same minimiser; lbfgs tol 1e-4
    # sparse input: the same scale
    assert LabelPowerset(base="lr").fit(sp.csr_matrix(X), Y).x_scale_ == pytest.approx(r2, rel=1e-12)
    assert "1 / mean‖x‖²" in lp.decision_rule_


def test_lp_inner_cv_equals_gridsearchcv():
    """C="cv" picks what scikit-learn's GridSearchCV picks on the same folds and score."""
    from sklearn.metrics import log_loss
    from sklearn.model_selection import GridSearchCV, KFold

    X, Y = contract_data(n=120, d=5, L=4, random_state=2)
    X = X + 0.8 * np.random.default_rng(5).normal(size=X.shape)  # noisy: the grid's ends differ
    Cs = (0.01, 0.1, 1.0, 10.0)
    lp = LabelPowerset(base="lr", C="cv", Cs=Cs, cv=3, scale_C=False, random_state=0).fit(X, Y)

    def score(est, Xv, Yv):  # mean binary cross-entropy over all entries, negated
        return -log_loss(np.ravel(Yv), np.ravel(est.predict_proba(Xv)), labels=[0, 1])

    grid = GridSearchCV(LabelPowerset(base="lr", scale_C=False), {"C": list(Cs)},
                        cv=KFold(3, shuffle=True, random_state=0), scoring=score).fit(X, Y)
    np.testing.assert_allclose(lp.cv_scores_, -grid.cv_results_["mean_test_score"], rtol=2e-3)
    assert lp.C_ == grid.best_params_["C"]
    assert len(set(np.round(lp.cv_scores_, 3))) == len(Cs)  # a real choice, not a tie
    np.testing.assert_allclose(lp.predict_proba(X), grid.best_estimator_.predict_proba(X), atol=1e-8)
    assert "3-fold inner CV" in lp.decision_rule_


def test_lp_c_errors():
    X, Y = contract_data()
    with pytest.raises(ValueError, match="'C' parameter of LabelPowerset must be 'cv' or a positive"):
        LabelPowerset(C="auto").fit(X, Y)
    with pytest.raises(ValueError, match="'C' parameter of LabelPowerset must be > 0"):
        LabelPowerset(C=0.0).fit(X, Y)
    with pytest.raises(ValueError, match="'Cs' parameter of LabelPowerset must not be empty"):
        LabelPowerset(C="cv", Cs=()).fit(X, Y)
    with pytest.raises(ValueError, match="'cv' parameter of LabelPowerset must be >= 2"):
        LabelPowerset(C="cv", cv=1).fit(X, Y)
    with pytest.raises(ValueError, match="'scale_C' parameter"):
        LabelPowerset(scale_C="yes").fit(X, Y)


def test_pcc_scaled_C_equals_explicit_logistic_links():
    """PCC's default links: LogisticRegression(C = PCC_C / mean ||x||²), the same model given explicitly."""
    from mlviz.models import PCC
    from mlviz.models.pcc import PCC_C

    X, Y = contract_data(n=80, d=4, L=3, random_state=6)
    X = 5.0 * X
    r2 = np.mean(np.sum(X ** 2, axis=1))
    m = PCC(random_state=0).fit(X, Y)
    assert m.x_scale_ == pytest.approx(r2, rel=1e-12) and m.C_ == pytest.approx(PCC_C / r2, rel=1e-12)
    ref = PCC(estimator=LogisticRegression(C=PCC_C / r2, max_iter=1000), random_state=0).fit(X, Y)
    np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(X), atol=1e-10)
    raw = PCC(C=0.5, scale_C=False, random_state=0).fit(X, Y)
    assert raw.C_ == 0.5 and ref.C_ is None
    ref_raw = PCC(estimator=LogisticRegression(C=0.5, max_iter=1000), random_state=0).fit(X, Y)
    np.testing.assert_allclose(raw.predict_proba(X), ref_raw.predict_proba(X), atol=1e-10)
    with pytest.raises(ValueError, match="'C' parameter of PCC must be > 0"):
        PCC(C=-1.0).fit(X, Y)
