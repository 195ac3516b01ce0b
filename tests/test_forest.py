"""Tests for RandomForestML (RF-PCT family) and RandomForestBR against scikit-learn's own forests."""

import numpy as np
import pytest
import scipy.sparse as sp
from contract import (
    check_clone_of_fitted,
    check_decision_rule_attribute,
    check_default_score,
    check_estimator_contract,
    check_not_fitted,
    check_predict_follows_rule,
    check_random_state_determinism,
    contract_data,
    threshold_rule,
)
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.utils import check_random_state

from mlviz.models import TooLargeError
from mlviz.models.forest import RandomForestBR, RandomForestML, forest_bytes_estimate, forest_seconds_estimate

PARAMS = {"n_estimators": 15, "max_features": "sqrt", "min_samples_leaf": 2, "max_depth": 6}


def _sklearn_positive(proba_list, classes_list):
    return np.column_stack([p[:, list(c).index(1)] if 1 in c else np.zeros(len(p))
                            for p, c in zip(proba_list, classes_list)])


@pytest.mark.parametrize("kind, ref_cls", [("random", RandomForestClassifier), ("extra", ExtraTreesClassifier)])
def test_multioutput_forest_equals_sklearn(kind, ref_cls):
    X, Y = contract_data(n=90, d=6, L=4, random_state=1)
    Xt = np.random.default_rng(5).normal(size=(30, 6))
    est = RandomForestML(kind=kind, random_state=3, **PARAMS).fit(X, Y)
    ref = ref_cls(random_state=3, **PARAMS).fit(X, Y)
    proba = ref.predict_proba(Xt)
    expected = np.column_stack([p[:, 1] for p in proba])
    np.testing.assert_array_equal(est.predict_proba(Xt), expected)
    np.testing.assert_array_equal(est.predict(Xt), (expected >= est.threshold).astype(np.uint8))


def test_rf_br_equals_hand_loop_of_forests():
    X, Y = contract_data(n=90, d=6, L=4, random_state=2)
    Xt = np.random.default_rng(6).normal(size=(30, 6))
    est = RandomForestBR(random_state=11, **PARAMS).fit(X, Y)
    seeds = check_random_state(11).randint(2**31 - 1, size=Y.shape[1])
    for l in range(Y.shape[1]):
        ref = RandomForestClassifier(random_state=int(seeds[l]), **PARAMS).fit(X, Y[:, l])
        np.testing.assert_array_equal(est.predict_proba(Xt)[:, l], ref.predict_proba(Xt)[:, 1])


def test_constant_labels():
    X, Y = contract_data(n=70, d=5, L=4, random_state=3)
    Y = Y.copy()
    Y[:, 1] = 0
    Y[:, 3] = 1
    for est in (RandomForestML(random_state=0, **PARAMS), RandomForestBR(random_state=0, **PARAMS)):
        P = est.fit(X, Y).predict_proba(X)
        assert P.shape == Y.shape
        np.testing.assert_array_equal(P[:, 1], 0.0)
        np.testing.assert_array_equal(P[:, 3], 1.0)
    # the multi-output forest's other columns are still scikit-learn's
    ref = RandomForestClassifier(random_state=0, **PARAMS).fit(X, Y)
    np.testing.assert_array_equal(RandomForestML(random_state=0, **PARAMS).fit(X, Y).predict_proba(X),
                                  _sklearn_positive(ref.predict_proba(X), ref.classes_))
    # one label, all zero: a (n, 1) matrix of zeros
    P1 = RandomForestML(random_state=0, **PARAMS).fit(X, np.zeros((70, 1), dtype=int)).predict_proba(X)
    np.testing.assert_array_equal(P1, np.zeros((70, 1)))


def test_single_label_equals_sklearn():
    X, Y = contract_data(n=70, d=5, L=2, random_state=4)
    est = RandomForestML(random_state=1, **PARAMS).fit(X, Y[:, :1])
    ref = RandomForestClassifier(random_state=1, **PARAMS).fit(X, Y[:, 0])
    np.testing.assert_array_equal(est.predict_proba(X)[:, 0], ref.predict_proba(X)[:, 1])


@pytest.mark.parametrize("cls", [RandomForestML, RandomForestBR])
def test_dense_equals_sparse(cls):
    X, Y = contract_data(n=80, d=6, L=3, random_state=5)
    X[X < 0.3] = 0.0
    a = cls(random_state=0, **PARAMS).fit(X, Y).predict_proba(X)
    b = cls(random_state=0, **PARAMS).fit(sp.csr_matrix(X), Y).predict_proba(sp.csr_matrix(X))
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("make", [lambda: RandomForestML(n_estimators=10, random_state=0),
                                  lambda: RandomForestML(n_estimators=10, label_projection=2, random_state=0),
                                  lambda: RandomForestML(kind="extra", n_estimators=10, random_state=0),
                                  lambda: RandomForestBR(n_estimators=10, random_state=0)])
def test_contract(make):
    est = make()
    check_estimator_contract(est, sparse=True)
    check_not_fitted(est)
    check_decision_rule_attribute(est)
    check_predict_follows_rule(est, threshold_rule)
    check_clone_of_fitted(est)
    check_random_state_determinism(est)
    check_default_score(est)


def _full_bytes(cls, X, Y, **params):
    """Bytes of scikit-learn's own fitted forest: every node's struct and value array."""
    ref = cls(random_state=0, **params).fit(X, Y)
    return sum(t.tree_.value.nbytes + 64 * t.tree_.node_count for t in ref.estimators_)


def _compact_bytes(est):
    """Bytes RandomForestML keeps: the trees' nodes (struct + empty value) and the leaf table."""
    V = est.leaf_proba_
    return sum((64 + 8) * t.node_count for t in est.trees_) + V.data.nbytes + V.indices.nbytes + V.indptr.nbytes


def test_memory_estimate_bounds_the_fitted_forest_and_guards():
    X, Y = contract_data(n=120, d=6, L=5, random_state=6)
    nnz = int(np.count_nonzero(Y))
    for msl, depth in ((1, None), (3, None), (1, 3)):
        shape = dict(n_estimators=8, min_samples_leaf=msl, max_depth=depth)
        # scikit-learn's full forests are bounded by the full estimate (the batch RandomForestML grows)
        assert 0 < _full_bytes(RandomForestClassifier, X, Y, **shape) <= forest_bytes_estimate(
            120, 5, bootstrap=True, **shape)
        assert _full_bytes(ExtraTreesClassifier, X, Y, **shape) <= forest_bytes_estimate(120, 5, **shape)
        # what RandomForestML keeps is bounded by the compact estimate; a tree has <= nnz(Y) leaf entries
        for kind, boot in (("random", True), ("extra", False)):
            est = RandomForestML(kind=kind, random_state=0, **shape).fit(X, Y)
            assert _compact_bytes(est) <= forest_bytes_estimate(120, 5, bootstrap=boot, label_entries=nnz, **shape)
            entries = np.diff(est.leaf_proba_.indptr)
            assert all(entries[a:b].sum() <= nnz for a, b in zip(est.tree_offsets_[:-1], est.tree_offsets_[1:]))
        br = RandomForestBR(random_state=0, **shape).fit(X, Y)
        used = sum(t.tree_.value.nbytes + 64 * t.tree_.node_count for f in br.forests_ for t in f.estimators_)
        minority = np.minimum(Y.sum(axis=0), 120 - Y.sum(axis=0))
        assert used <= sum(forest_bytes_estimate(120, 1, bootstrap=True, max_leaves=8 * m + 1, **shape)
                           for m in minority)
    one = forest_bytes_estimate(120, 5, n_estimators=1, bootstrap=True)
    need = forest_bytes_estimate(120, 5, n_estimators=100, bootstrap=True, label_entries=nnz) + 100 * one
    with pytest.raises(TooLargeError, match="max_model_bytes") as info:
        RandomForestML(max_model_bytes=need / 2).fit(X, Y)
    assert info.value.estimate_bytes == pytest.approx(need)
    with pytest.raises(TooLargeError):
        RandomForestBR(max_model_bytes=need / 2).fit(X, Y)
    # the compact forest at 983 labels x 10,737 rows (delicious-shaped, 19 labels a row) is < 1 GB,
    # where scikit-learn's full value arrays would take ~21 GB
    full = forest_bytes_estimate(10737, 983, n_estimators=100, bootstrap=True)
    compact = forest_bytes_estimate(10737, 983, n_estimators=100, bootstrap=True, label_entries=10737 * 19)
    assert compact < 1e9 < 2e10 < full


def test_batches_grow_the_same_forest(monkeypatch):
    """Trees grown one batch at a time (warm start) are scikit-learn's one-fit trees, for any seed type."""
    from mlviz.models import forest

    X, Y = contract_data(n=90, d=6, L=4, random_state=7)
    sparse = sp.csr_matrix(np.where(X > 0.2, X, 0.0))
    whole = RandomForestML(random_state=4, **PARAMS).fit(sparse, Y).predict_proba(sparse)
    ref = RandomForestClassifier(random_state=4, **PARAMS).fit(sparse, Y)
    np.testing.assert_array_equal(whole, _sklearn_positive(ref.predict_proba(sparse), ref.classes_))
    monkeypatch.setattr(forest, "_BATCH_BYTES", 1.0)  # one tree per batch
    np.testing.assert_array_equal(RandomForestML(random_state=4, **PARAMS).fit(sparse, Y).predict_proba(sparse),
                                  whole)
    a = RandomForestML(random_state=np.random.RandomState(2), **PARAMS).fit(X, Y).predict_proba(X)
    monkeypatch.setattr(forest, "_BATCH_BYTES", 1e12)  # one batch
    b = RandomForestML(random_state=np.random.RandomState(2), **PARAMS).fit(X, Y).predict_proba(X)
    np.testing.assert_array_equal(a, b)


def test_time_estimate_and_guard(monkeypatch):
    """The estimate follows its formula; a fit beyond the budget is refused before any tree is grown."""
    from mlviz.models import _forest_trees, forest

    rows = 0.632 * 1000
    a, b = _forest_trees._TREE_COST["dense"]
    assert forest_seconds_estimate(1000, 400, 7, n_estimators=10, bootstrap=True) == pytest.approx(
        10 * rows * np.log2(rows) * 20 * (a + 7 * b))
    a, b = _forest_trees._TREE_COST["sparse"]
    assert forest_seconds_estimate(1000, 400, 7, n_estimators=10, max_features=0.5, sparse=True) == pytest.approx(
        10 * 1000 * np.log2(1000) * 200 * (a + 7 * b))
    # the delicious shape (sparse, 983 labels, 100 trees) fits within the budget on the 2/3 split only;
    # the 44k-row mediamill shape (dense, 101 labels) on its 2/3 split too
    assert forest_seconds_estimate(10737, 500, 983, n_estimators=100, bootstrap=True, sparse=True) < \
        forest.MAX_FIT_SECONDS < forest_seconds_estimate(16105, 500, 983, n_estimators=100, bootstrap=True, sparse=True)
    assert forest_seconds_estimate(29000, 120, 101, n_estimators=100, bootstrap=True) < forest.MAX_FIT_SECONDS
    X, Y = contract_data(n=60, d=5, L=3, random_state=8)
    monkeypatch.setattr(forest, "MAX_FIT_SECONDS", 1e-9)
    with pytest.raises(TooLargeError, match="would take about") as info:
        RandomForestML(n_estimators=5).fit(X, Y)
    assert info.value.estimate_seconds == pytest.approx(
        forest_seconds_estimate(60, 5, 3, n_estimators=5, bootstrap=True))
    with pytest.raises(TooLargeError, match="would take about") as info:
        RandomForestML(n_estimators=5).fit(sp.csr_matrix(X), Y)
    assert info.value.estimate_seconds == pytest.approx(
        forest_seconds_estimate(60, 5, 3, n_estimators=5, bootstrap=True, sparse=True))


def test_auto_number_of_trees(monkeypatch):
    """"auto": 300 trees within the time budget (and the same forest as n_estimators=300), else 100."""
    from mlviz.models import forest

    X, Y = contract_data(n=80, d=5, L=3, random_state=9)
    auto = RandomForestML(n_estimators="auto", random_state=0).fit(X, Y)
    assert auto.n_estimators_ == 300 == len(auto.trees_)
    np.testing.assert_array_equal(auto.predict_proba(X),
                                  RandomForestML(n_estimators=300, random_state=0).fit(X, Y).predict_proba(X))
    assert forest_seconds_estimate(80, 5, 3, n_estimators=300, bootstrap=True) <= forest.AUTO_TREES_SECONDS
    monkeypatch.setattr(forest, "AUTO_TREES_SECONDS", 0.0)
    assert RandomForestML(n_estimators="auto", random_state=0).fit(X, Y).n_estimators_ == 100
    with pytest.raises(ValueError, match="'n_estimators'"):
        RandomForestBR(n_estimators="auto").fit(X, Y)
    with pytest.raises(ValueError, match="'n_estimators'"):
        RandomForestML(n_estimators="many").fit(X, Y)


def test_weighted_leaf_means_equal_a_hand_loop():
    from mlviz.models._forest_trees import _weighted_leaf_means

    rng = np.random.default_rng(3)
    Y = (rng.random((40, 5)) < 0.3).astype(float)
    leaf = rng.integers(0, 7, size=40)
    w = rng.integers(0, 3, size=40).astype(float)
    got = _weighted_leaf_means(leaf, w, sp.csr_matrix(Y), 9).toarray()
    for node in range(9):
        rows = (leaf == node) & (w > 0)
        want = (w[rows] @ Y[rows]) / w[rows].sum() if rows.any() else np.zeros(5)
        np.testing.assert_allclose(got[node], want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("sparse", [False, True])
def test_projected_extra_trees_keep_each_leafs_label_frequencies(sparse):
    """Trees split on projected labels; a leaf predicts the mean of the original labels of the training rows
    reaching it (extra-trees: every row once), averaged over the trees -- checked by a hand loop."""
    X, Y = contract_data(n=90, d=6, L=8, random_state=10)
    Xf = sp.csr_matrix(np.where(X > 0, X, 0.0)) if sparse else X
    Xt = np.random.default_rng(7).normal(size=(25, 6))
    Xt = sp.csr_matrix(np.where(Xt > 0, Xt, 0.0)) if sparse else Xt
    m = RandomForestML(kind="extra", n_estimators=6, label_projection=3, random_state=2).fit(Xf, Y)
    assert m.n_components_ == 3 and "3 random projections" in m.decision_rule_
    want = np.zeros((25, 8))
    for tree in m.trees_:
        train_leaf = tree.apply(sp.csr_matrix(Xf, dtype=np.float32) if sparse else Xf.astype(np.float32))
        test_leaf = tree.apply(sp.csr_matrix(Xt, dtype=np.float32) if sparse else Xt.astype(np.float32))
        for i, leaf in enumerate(test_leaf):
            want[i] += Y[train_leaf == leaf].mean(axis=0)
    np.testing.assert_allclose(m.predict_proba(Xt), want / 6, rtol=1e-12, atol=1e-15)
    # dense and sparse input grow the same trees
    dense = RandomForestML(kind="extra", n_estimators=6, label_projection=3, random_state=2).fit(
        Xf.toarray() if sparse else Xf, Y)
    np.testing.assert_allclose(dense.predict_proba(Xt.toarray() if sparse else Xt), m.predict_proba(Xt), atol=1e-12)


def test_label_projection_auto_and_validation():
    from mlviz.models import forest

    X, Y = contract_data(n=60, d=5, L=4, random_state=11)
    exact = RandomForestML(n_estimators=5, random_state=0).fit(X, Y)
    auto = RandomForestML(n_estimators=5, random_state=0, label_projection="auto").fit(X, Y)
    assert auto.n_components_ is None and exact.n_components_ is None
    np.testing.assert_array_equal(auto.predict_proba(X), exact.predict_proba(X))
    rng = np.random.default_rng(0)
    wide = (rng.random((60, 4 * forest.AUTO_PROJECTION + 1)) < 0.1).astype(int)
    m = RandomForestML(n_estimators=3, random_state=0, label_projection="auto").fit(X, wide)
    assert m.n_components_ == forest.AUTO_PROJECTION and m.predict_proba(X).shape == wide.shape
    again = RandomForestML(n_estimators=3, random_state=0, label_projection="auto").fit(X, wide)
    np.testing.assert_array_equal(again.predict_proba(X), m.predict_proba(X))
    for bad in (0, "all", 1.5):
        with pytest.raises(ValueError, match="'label_projection'"):
            RandomForestML(n_estimators=3, label_projection=bad).fit(X, Y)


@pytest.mark.parametrize("params, match", [({"kind": "gbm"}, "'kind' parameter of RandomForestML"),
                                           ({"n_estimators": 0}, "'n_estimators'"),
                                           ({"min_samples_leaf": 0}, "'min_samples_leaf'"),
                                           ({"max_depth": 0}, "'max_depth'"),
                                           ({"max_features": "all"}, "'max_features'"),
                                           ({"threshold": 1.5}, "'threshold'")])
def test_bad_parameters(params, match):
    X, Y = contract_data()
    with pytest.raises(ValueError, match=match):
        RandomForestML(**params).fit(X, Y)
