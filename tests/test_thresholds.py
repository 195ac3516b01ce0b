"""Tuned decision thresholds (mlviz.evaluation.thresholds) against brute force on tiny sets."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import f1_score

from mlviz.evaluation import grid_search, multilabel_kfold
from mlviz.evaluation.thresholds import (
    THRESHOLD_GRID,
    ThresholdedClassifier,
    choose_thresholds,
    crossfit_scores,
    threshold_counts,
)
from mlviz.evaluation.tuning import TuneSpec, tune_estimator


def _tiny(n=24, L=3, seed=0):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < [0.5, 0.3, 0.15][:L]).astype(np.uint8)
    P = np.clip(0.35 * Y + 0.65 * rng.random((n, L)), 0, 1)  # informative, not calibrated
    return Y, np.round(P, 3)


def _micro(Y, Z):
    return f1_score(Y, Z, average="micro", zero_division=1.0)


def test_counts_equal_a_naive_loop():
    Y, P = _tiny()
    counts = threshold_counts(Y, P)
    for i, t in enumerate(THRESHOLD_GRID):
        for lab in range(Y.shape[1]):
            tp = sum(1 for r in range(len(Y)) if P[r, lab] >= t and Y[r, lab] == 1)
            fp = sum(1 for r in range(len(Y)) if P[r, lab] >= t and Y[r, lab] == 0)
            fn = sum(1 for r in range(len(Y)) if P[r, lab] < t and Y[r, lab] == 1)
            assert tuple(counts[i, lab]) == (tp, fp, fn)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_global_threshold_is_the_brute_force_best_micro_f1(seed):
    Y, P = _tiny(seed=seed)
    t = THRESHOLD_GRID[choose_thresholds(threshold_counts(Y, P), len(Y), "global", "micro_f1")]
    assert np.ptp(t) == 0
    scores = [_micro(Y, (P >= g).astype(int)) for g in THRESHOLD_GRID]
    best = max(scores)
    assert _micro(Y, (P >= t[0]).astype(int)) == pytest.approx(best, abs=1e-12)
    ties = [g for g, s in zip(THRESHOLD_GRID, scores) if abs(s - best) < 1e-12]
    assert t[0] == min(ties, key=lambda g: (abs(g - 0.5), g))  # the documented tie-break


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_label_thresholds_are_each_labels_brute_force_best(seed):
    Y, P = _tiny(seed=seed)
    counts = threshold_counts(Y, P)
    t = THRESHOLD_GRID[choose_thresholds(counts, len(Y), "label", "micro_f1")]
    for lab in range(Y.shape[1]):
        f1 = [f1_score(Y[:, lab], P[:, lab] >= g, zero_division=1.0) for g in THRESHOLD_GRID]
        assert f1_score(Y[:, lab], P[:, lab] >= t[lab], zero_division=1.0) == pytest.approx(max(f1), abs=1e-12)
    # Hamming loss is separable: per-label thresholds minimise the total errors
    h = THRESHOLD_GRID[choose_thresholds(counts, len(Y), "label", "hamming_loss")]
    for lab in range(Y.shape[1]):
        errs = [np.sum((P[:, lab] >= g) != Y[:, lab]) for g in THRESHOLD_GRID]
        assert np.sum((P[:, lab] >= h[lab]) != Y[:, lab]) == min(errs)


def test_label_without_positives_keeps_the_global_threshold():
    Y, P = _tiny()
    Y[:, 2] = 0
    counts = threshold_counts(Y, P)
    g = choose_thresholds(counts, len(Y), "global", "micro_f1")
    assert choose_thresholds(counts, len(Y), "label", "micro_f1")[2] == g[2]


def test_crossfit_chooses_on_the_other_folds():
    Y, P = _tiny(n=30)
    folds = [np.arange(0, 10), np.arange(10, 20), np.arange(20, 30)]
    got = crossfit_scores([threshold_counts(Y[f], P[f]) for f in folds], [10, 10, 10], "global", "micro_f1")
    for k, f in enumerate(folds):
        rest = np.setdiff1d(np.arange(30), f)
        scores = [_micro(Y[rest], (P[rest] >= g).astype(int)) for g in THRESHOLD_GRID]
        best = max(scores)
        g = min((g for g, s in zip(THRESHOLD_GRID, scores) if abs(s - best) < 1e-12), key=lambda g: abs(g - 0.5))
        assert got[k] == pytest.approx(_micro(Y[f], (P[f] >= g).astype(int)), abs=1e-12)


def test_grid_search_tunes_the_threshold_on_out_of_fold_probabilities():
    """The chosen threshold is the brute-force best on the pooled out-of-fold probabilities of the
    winning candidate, refitted by hand fold by fold; its mean score is the hand cross-fitted one."""
    from mlviz.models import BinaryRelevance

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    Y = (X[:, :3] + 0.8 * rng.normal(size=(60, 3)) > 0.7).astype(np.uint8)
    grid = {"C": [0.1, 10.0]}
    res = grid_search(BinaryRelevance(), grid, X, Y, cv=3, random_state=0, refit_best=False,
                      threshold_modes=("global",))
    folds = multilabel_kfold(Y, 3, random_state=0)
    C = res.best_params["C"]
    oof = np.empty(Y.shape)
    for tr, te in folds:
        oof[te] = BinaryRelevance(C=C).fit(X[tr], Y[tr]).predict_proba(X[te])
    scores = [_micro(Y, (oof >= g).astype(int)) for g in THRESHOLD_GRID]
    own = np.mean([_micro(Y[te], BinaryRelevance(C=C).fit(X[tr], Y[tr]).predict(X[te])) for tr, te in folds])
    row = res.table[res.table.C == C].iloc[0]
    assert row["mean_own_rule"] == pytest.approx(own, abs=1e-12)
    if res.threshold_mode == "global":
        assert _micro(Y, (oof >= res.best_threshold[0]).astype(int)) == pytest.approx(max(scores), abs=1e-12)
        assert row["mean_global"] >= row["mean_own_rule"]
    else:
        assert res.best_threshold is None and row["mean_own_rule"] >= row["mean_global"]


def test_tune_estimator_wraps_threshold_methods_only():
    from mlviz.models import BinaryRelevance, LabelPowerset

    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 4))
    Y = (X[:, :3] + 0.8 * rng.normal(size=(60, 3)) > 0.9).astype(np.uint8)  # rare labels: 0.5 is too high
    spec = TuneSpec(grid={"C": [0.3, 3.0]}, cv=3, random_state=0)
    fitted, best, _ = tune_estimator(BinaryRelevance(), X, Y, spec)
    assert isinstance(fitted, ThresholdedClassifier) == ("threshold" in best)
    if "threshold" in best:
        assert np.array_equal(fitted.predict(X), (fitted.predict_proba(X) >= fitted.threshold_).astype(np.uint8))
        assert "tuned by inner CV" in fitted.decision_rule_
    fitted, best, _ = tune_estimator(LabelPowerset(), X, Y, TuneSpec(grid={"C": [1.0]}, cv=3, random_state=0))
    assert isinstance(fitted, LabelPowerset) and "threshold" not in best  # its own rule: the most probable set


def test_thresholded_classifier_contract():
    from mlviz.models import BinaryRelevance

    X = np.random.default_rng(0).normal(size=(30, 3))
    Y = (X[:, :2] > 0).astype(np.uint8)
    m = ThresholdedClassifier(BinaryRelevance(), threshold=[0.2, 0.8])
    with pytest.raises(NotFittedError):
        m.predict(X)
    c = clone(m).fit(X, Y)
    assert np.array_equal(c.predict(X), (c.estimator_.predict_proba(X) >= [0.2, 0.8]).astype(np.uint8))
    assert c.decision_rule_.startswith("threshold per label 0.2–0.8 (median 0.5) (tuned by inner CV) on per-label")
    with pytest.raises(ValueError, match="'threshold' parameter of ThresholdedClassifier"):
        ThresholdedClassifier(BinaryRelevance(), threshold=1.5).fit(X, Y)
    with pytest.raises(ValueError, match="3 values, but Y has 2 labels"):
        ThresholdedClassifier(BinaryRelevance(), threshold=[0.5, 0.5, 0.5]).fit(X, Y)
