"""Decision rules (mlviz.decision) against their definitions / brute force."""

import itertools

import numpy as np
import pytest

from mlviz.decision import (
    apply_rule,
    at_least_one,
    best_parameters,
    compare_rules,
    describe_rule,
    empty_rate,
    mcut,
    mcut_thresholds,
    rule_curve,
    scut_cv,
    scut_thresholds,
)
from mlviz.metrics import evaluate
from mlviz.models import BinaryRelevance


def _data(n=60, L=5, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < 0.4).astype(np.uint8)
    P = np.clip(0.5 * Y + 0.6 * rng.random((n, L)), 0, 1)
    if ties:
        P = np.round(P, 1)
    return Y, P


def test_threshold_and_per_label_by_definition():
    Y, P = _data()
    t = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    for i, l in itertools.product(range(P.shape[0]), range(P.shape[1])):
        assert apply_rule(P, "threshold", 0.4)[i, l] == int(P[i, l] >= 0.4)
        assert apply_rule(P, "per_label", t)[i, l] == int(P[i, l] >= t[l])
    with pytest.raises(ValueError, match="5 thresholds"):
        apply_rule(P, "per_label", [0.5])
    with pytest.raises(ValueError, match="Unknown decision rule"):
        apply_rule(P, "pcut", 1)


@pytest.mark.parametrize("ties", [False, True])
def test_rcut_is_top_k_with_lower_index_first(ties):
    Y, P = _data(ties=ties)
    for k in range(P.shape[1] + 2):
        got = apply_rule(P, "rcut", k)
        for i in range(P.shape[0]):
            # brute force: rank labels by (-score, index), take the first k
            ranked = sorted(range(P.shape[1]), key=lambda l: (-P[i, l], l))[:k]
            assert set(np.flatnonzero(got[i])) == set(ranked)


@pytest.mark.parametrize("ties", [False, True])
def test_mcut_is_the_largest_gap(ties):
    Y, P = _data(ties=ties, seed=1)
    got = mcut(P)
    for i in range(P.shape[0]):
        s = sorted(P[i], reverse=True)
        gaps = [s[j] - s[j + 1] for j in range(len(s) - 1)]
        if max(gaps) == 0:
            assert got[i].all()
            continue
        j = gaps.index(max(gaps))  # first largest gap
        t = (s[j] + s[j + 1]) / 2
        assert mcut_thresholds(P)[i] == pytest.approx(t)
        np.testing.assert_array_equal(got[i], (P[i] > t).astype(np.uint8))
        assert got[i].sum() == j + 1
    assert mcut(np.array([[0.3, 0.3]])).tolist() == [[1, 1]]
    assert mcut(np.array([[0.3], [0.8]])).tolist() == [[1], [1]]


def test_at_least_one_label():
    Y, P = _data(seed=2)
    base = apply_rule(P, "threshold", 0.8)
    got = apply_rule(P, "threshold", 0.8, at_least_one_label=True)
    assert empty_rate(base) > 0 and empty_rate(got) == 0
    for i in range(P.shape[0]):
        if base[i].any():
            np.testing.assert_array_equal(got[i], base[i])
        else:
            assert np.flatnonzero(got[i]).tolist() == [int(np.argmax(P[i]))]
    np.testing.assert_array_equal(at_least_one(np.array([[0.2, 0.2]]), np.zeros((1, 2))), [[1, 0]])


def _label_f1(y, pred):
    tp, den = np.sum(y & pred), pred.sum() + y.sum()
    return 1.0 if den == 0 else 2 * tp / den


@pytest.mark.parametrize("measure", ["f1", "accuracy"])
@pytest.mark.parametrize("ties", [False, True])
def test_scut_matches_exhaustive_threshold_search(measure, ties):
    Y, P = _data(seed=3, ties=ties)
    Y[:, 4] = 0  # a label with no positive: F1 best when nothing is predicted
    t = scut_thresholds(Y, P, measure)
    score = (lambda y, p: _label_f1(y, p)) if measure == "f1" else (lambda y, p: np.mean(y == p))
    for l in range(P.shape[1]):
        y = Y[:, l].astype(bool)
        # every distinct cut: each score as threshold, plus "predict nothing"
        candidates = list(np.unique(P[:, l])) + [np.inf]
        brute = max(score(y, P[:, l] >= c) for c in candidates)
        assert score(y, P[:, l] >= t[l]) == pytest.approx(brute)
    if measure == "f1":
        assert not (P[:, 4] >= t[4]).any()
        # maximising each label's F1 maximises macro-F1 over all per-label threshold vectors
        macro = evaluate(Y, P, threshold=t, measures=["macro_f1"])["macro_f1"]
        for c in np.linspace(0, 1, 11):
            assert macro >= evaluate(Y, P, threshold=c, measures=["macro_f1"])["macro_f1"] - 1e-12
    with pytest.raises(ValueError, match="measure"):
        scut_thresholds(Y, P, "micro_f1")


def test_scut_cv_uses_out_of_fold_scores_only():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 4))
    Y = (X[:, :3] + 0.5 * rng.normal(size=(90, 3)) > 0.3).astype(np.uint8)
    t, oof = scut_cv(BinaryRelevance(), X, Y, n_splits=3, random_state=0)
    from mlviz.evaluation import multilabel_kfold
    for train, test in multilabel_kfold(Y, n_splits=3, random_state=0):
        np.testing.assert_allclose(oof[test], BinaryRelevance().fit(X[train], Y[train]).predict_proba(X[test]))
    np.testing.assert_array_equal(t, scut_thresholds(Y, oof))


@pytest.mark.parametrize("at_least", [False, True])
def test_rule_curve_rows_equal_evaluate_and_best_is_the_argmax(at_least):
    Y, P = _data(seed=4)
    curve = rule_curve(Y, P, "threshold", [0.2, 0.4, 0.6, 0.8], at_least_one_label=at_least)
    for _, row in curve.iterrows():
        pred = apply_rule(P, "threshold", row["param"], at_least_one_label=at_least)
        ev = evaluate(Y, P, measures=["hamming_loss", "micro_f1", "macro_f1", "example_f1",
                                      "subset_accuracy"], y_pred=pred)
        for k, v in ev.items():
            assert row[k] == pytest.approx(v)
        assert row["empty_rate"] == pytest.approx(np.mean(pred.sum(1) == 0))
    best = best_parameters(curve)
    assert best.loc["hamming_loss", "param"] == curve["param"][curve["hamming_loss"].idxmin()]
    assert best.loc["micro_f1", "param"] == curve["param"][curve["micro_f1"].idxmax()]
    assert best.loc["empty_rate", "value"] == curve["empty_rate"].min()
    rc = rule_curve(Y, P, "rcut")
    assert rc["param"].tolist() == list(range(P.shape[1] + 1))
    assert rc.loc[0, "empty_rate"] == 1.0
    one = rule_curve(Y, P, "mcut")
    assert len(one) == 1 and one.loc[0, "subset_accuracy"] == pytest.approx(
        evaluate(Y, P, measures=["subset_accuracy"], y_pred=mcut(P))["subset_accuracy"])
    pl = rule_curve(Y, P, "per_label", [0.0, 1.0], label=2)
    t = np.full(5, 0.5)
    t[2] = 1.0
    assert pl.loc[1, "macro_f1"] == pytest.approx(
        evaluate(Y, P, threshold=t, measures=["macro_f1"])["macro_f1"])
    sc = rule_curve(Y, P, "scut", [0.0, 0.1], base=np.full(5, 0.4))
    assert sc.loc[1, "micro_f1"] == pytest.approx(
        evaluate(Y, P, threshold=0.5, measures=["micro_f1"])["micro_f1"])


def test_compare_rules_reports_each_rule_at_its_best_parameter():
    Y, P = _data(seed=5)
    table = compare_rules(Y, P, scut=scut_thresholds(Y, P))
    assert list(table.index) == ["threshold", "rcut", "mcut", "scut"]
    th = rule_curve(Y, P, "threshold")
    assert table.loc["threshold", "subset_accuracy"] == th["subset_accuracy"].max()
    # every measure is read at the chosen parameter (brute force: re-evaluate there)
    for rule in ("threshold", "rcut"):
        param = table.loc[rule, "param"]
        pred = apply_rule(P, rule, int(param) if rule == "rcut" else float(param))
        ev = evaluate(Y, P, measures=["subset_accuracy", "micro_f1", "hamming_loss"], y_pred=pred)
        for k, v in ev.items():
            assert table.loc[rule, k] == pytest.approx(v)
        assert table.loc[rule, "empty_rate"] == pytest.approx(empty_rate(pred))
    rc = rule_curve(Y, P, "rcut")
    assert table.loc["rcut", "subset_accuracy"] == rc["subset_accuracy"].max()
    assert table["best"].sum() >= 1
    assert table.loc[table["best"], "subset_accuracy"].iloc[0] == table["subset_accuracy"].max()
    ham = compare_rules(Y, P, target="hamming_loss")
    assert ham.loc["threshold", "hamming_loss"] == th["hamming_loss"].min()
    with pytest.raises(ValueError, match="target"):
        compare_rules(Y, P, target="coverage")
    assert "at least one" in describe_rule("rcut", 2, True)
