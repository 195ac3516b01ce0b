"""Threshold tuning under the at-least-one-label fallback (``allow_empty_`` False), against brute force:
mlviz.decision.apply_rule(..., at_least_one_label=True) and mlviz.metrics.evaluate on tiny sets."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from mlviz.decision import apply_rule, at_least_one
from mlviz.evaluation import grid_search, multilabel_kfold
from mlviz.evaluation.thresholds import (
    THRESHOLD_GRID,
    FallbackCounts,
    ThresholdedClassifier,
    choose_thresholds,
    crossfit_scores,
    fold_table,
    pooled_thresholds,
    threshold_counts,
)
from mlviz.metrics import evaluate

MEASURES = ("micro_f1", "macro_f1", "hamming_loss")


def _tiny(n=40, L=4, seed=0):
    """Scores on the 0.01 grid (ties with grid values and within rows), many rows empty at 0.5."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < np.linspace(0.5, 0.1, L)).astype(np.uint8)
    P = np.round(np.clip(0.3 * Y + 0.55 * rng.random((n, L)), 0, 1), 2)
    P[:3] = 0.02  # rows below every threshold: all-equal maxima, top label 0
    P[3, :2] = 0.4  # a tie for the top label
    return Y, P


def _brute_counts(Y, Z):
    """(TP, FP, FN) per label of the 0/1 prediction Z, shape (n_labels, 3)."""
    Y, Z = Y.astype(bool), Z.astype(bool)
    return np.stack([(Z & Y).sum(0), (Z & ~Y).sum(0), (~Z & Y).sum(0)], axis=-1)


def _value(Y, Z, measure):
    return evaluate(Y, Z.astype(float), measures=[measure], y_pred=Z)[measure]


@pytest.mark.parametrize("seed", [0, 1])
def test_fallback_counts_equal_the_rule_at_every_grid_threshold(seed):
    Y, P = _tiny(seed=seed)
    got = threshold_counts(Y, P, at_least_one_label=True)
    plain = threshold_counts(Y, P)
    for k, t in enumerate(THRESHOLD_GRID):
        assert np.array_equal(got[k], _brute_counts(Y, apply_rule(P, "threshold", float(t), at_least_one_label=True)))
    assert not np.array_equal(got, plain)  # the fallback matters on this set


@pytest.mark.parametrize("seed", [0, 1])
def test_counts_at_any_per_label_vector_equal_the_rule(seed):
    Y, P = _tiny(seed=seed)
    table = FallbackCounts(Y, P)
    assert np.array_equal(table.counts, threshold_counts(Y, P))
    assert np.array_equal(table.fallback, threshold_counts(Y, P, at_least_one_label=True))
    rng = np.random.default_rng(seed)
    for _ in range(20):
        idx = rng.integers(0, len(THRESHOLD_GRID), size=Y.shape[1])
        Z = apply_rule(P, "per_label", THRESHOLD_GRID[idx], at_least_one_label=True)
        assert np.array_equal(table.counts_at(idx), _brute_counts(Y, Z))
    # only the scores reaching the lowest threshold are kept
    assert table._code.size == np.count_nonzero(P >= THRESHOLD_GRID[0])


def _brute_global(Y, P, measure):
    """Best grid threshold of the fallback rule on (Y, P); ties: nearest 0.5, then the lower."""
    values = [_value(Y, apply_rule(P, "threshold", float(g), at_least_one_label=True), measure)
              for g in THRESHOLD_GRID]
    values = -np.array(values) if measure == "hamming_loss" else np.array(values)
    ties = [g for g, v in zip(THRESHOLD_GRID, values) if abs(v - values.max()) < 1e-12]
    return min(ties, key=lambda g: (abs(g - 0.5), g))


@pytest.mark.parametrize("measure", MEASURES)
def test_crossfit_scores_are_the_exact_fallback_scores(measure):
    Y, P = _tiny(n=45, seed=2)
    folds = [np.arange(0, 15), np.arange(15, 30), np.arange(30, 45)]
    tables = [fold_table(Y[f], P[f], at_least_one_label=True) for f in folds]
    glob = crossfit_scores(tables, [15] * 3, "global", measure)
    label = crossfit_scores(tables, [15] * 3, "label", measure)
    for k, f in enumerate(folds):
        rest = np.setdiff1d(np.arange(45), f)
        g = _brute_global(Y[rest], P[rest], measure)
        Z = apply_rule(P[f], "threshold", float(g), at_least_one_label=True)
        assert glob[k] == pytest.approx(_value(Y[f], Z, measure), abs=1e-12)
        # per label: chosen on the rule-free counts of the other folds, scored under the fallback
        t = THRESHOLD_GRID[choose_thresholds(threshold_counts(Y[rest], P[rest]), len(rest), "label", measure)]
        Z = apply_rule(P[f], "per_label", t, at_least_one_label=True)
        assert label[k] == pytest.approx(_value(Y[f], Z, measure), abs=1e-12)
    final = THRESHOLD_GRID[pooled_thresholds(tables, 45, "global", measure)]
    assert final[0] == _brute_global(Y, P, measure) and np.ptp(final) == 0


def test_crossfit_with_folds_of_both_rules():
    """``allow_empty_`` learned per fold: each fold is scored under its own rule; the global
    threshold is chosen on the other folds' predictions, each under its own rule."""
    Y, P = _tiny(n=45, seed=3)
    folds = [np.arange(0, 15), np.arange(15, 30), np.arange(30, 45)]
    rule = [True, False, True]  # at least one label?
    tables = [fold_table(Y[f], P[f], at_least_one_label=r) for f, r in zip(folds, rule)]
    got = crossfit_scores(tables, [15] * 3, "global", "micro_f1")
    for k, f in enumerate(folds):
        others = [j for j in range(3) if j != k]
        Yr = np.vstack([Y[folds[j]] for j in others])
        values = [_value(Yr, np.vstack([apply_rule(P[folds[j]], "threshold", float(g), at_least_one_label=rule[j])
                                        for j in others]), "micro_f1") for g in THRESHOLD_GRID]
        ties = [g for g, v in zip(THRESHOLD_GRID, values) if abs(v - max(values)) < 1e-12]
        g = min(ties, key=lambda g: (abs(g - 0.5), g))
        Z = apply_rule(P[f], "threshold", float(g), at_least_one_label=rule[k])
        assert got[k] == pytest.approx(_value(Y[f], Z, "micro_f1"), abs=1e-12)


class NonEmptyStub(BaseEstimator):
    """Least-squares scores squashed by a logistic; ``allow_empty_`` False unless ``empty``."""

    def __init__(self, *, scale=1.0, empty=False):
        self.scale = scale
        self.empty = empty

    def fit(self, X, Y):
        X = np.asarray(X, dtype=float)
        self.coef_ = np.linalg.lstsq(np.c_[X, np.ones(len(X))], 2.0 * np.asarray(Y) - 1, rcond=None)[0]
        self.allow_empty_ = bool(self.empty)
        self.decision_rule_ = "threshold 0.5 on stub scores" + (
            "" if self.empty else "; at least one label per row (the most probable where none passes)")
        return self

    def predict_proba(self, X):
        X = np.asarray(X, dtype=float)
        return 1.0 / (1.0 + np.exp(-self.scale * (np.c_[X, np.ones(len(X))] @ self.coef_ - 0.6)))

    def predict(self, X):
        P = self.predict_proba(X)
        Z = (P >= 0.5).astype(np.uint8)
        return Z if self.allow_empty_ else at_least_one(P, Z)


def _data(n=60, seed=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    Y = (X[:, :3] + 0.9 * rng.normal(size=(n, 3)) > 0.8).astype(np.uint8)
    return X, Y


def test_thresholded_classifier_keeps_the_fallback():
    X, Y = _data()
    t = [0.3, 0.6, 0.8]
    m = ThresholdedClassifier(NonEmptyStub(), threshold=t).fit(X, Y)
    P = NonEmptyStub().fit(X, Y).predict_proba(X)
    want = at_least_one(P, (P >= t).astype(np.uint8))
    assert m.allow_empty_ is False and np.array_equal(m.predict(X), want)
    assert not np.array_equal(want, (P >= t).astype(np.uint8))  # some row was empty
    assert m.decision_rule_ == ("threshold per label 0.3–0.8 (median 0.6) (tuned by inner CV) on stub scores, "
                                "at least one label per row")
    pipe = ThresholdedClassifier(Pipeline([("scale", StandardScaler()), ("model", NonEmptyStub())]), threshold=0.7)
    pipe = clone(pipe).fit(X, Y)
    P = pipe.predict_proba(X)
    assert pipe.allow_empty_ is False and np.array_equal(pipe.predict(X), at_least_one(P, (P >= 0.7).astype(np.uint8)))
    free = ThresholdedClassifier(NonEmptyStub(empty=True), threshold=t).fit(X, Y)
    P = free.predict_proba(X)
    assert free.allow_empty_ is True and np.array_equal(free.predict(X), (P >= t).astype(np.uint8))
    assert free.decision_rule_.endswith("on stub scores")


def _f1(y, z):
    """Hand-written F1 of 0/1 arrays (pooled over every entry), 1 when nothing is true or predicted."""
    y, z = y.astype(bool), z.astype(bool)
    den = 2 * np.sum(y & z) + np.sum(z & ~y) + np.sum(y & ~z)
    return 2 * np.sum(y & z) / den if den else 1.0


def _brute_scut(Y, P, g):
    """Per-label F1-best grid threshold, ties nearest the global index ``g``; no positive: ``g``."""
    out = np.full(Y.shape[1], g)
    for lab in np.flatnonzero(Y.sum(0) > 0):
        f1 = np.array([_f1(Y[:, lab], P[:, lab] >= t) for t in THRESHOLD_GRID])
        ties = np.flatnonzero(np.abs(f1 - f1.max()) < 1e-12)
        out[lab] = min(ties, key=lambda k: (abs(k - g), k))
    return THRESHOLD_GRID[out]


def test_grid_search_scores_every_mode_under_the_fallback():
    X, Y = _data()
    res = grid_search(NonEmptyStub(), {"scale": [0.7, 3.0]}, X, Y, cv=3, random_state=0, refit_best=False,
                      threshold_modes=("global", "label"))
    folds = multilabel_kfold(Y, 3, random_state=0)
    for _, row in res.table.iterrows():
        oof = np.empty(Y.shape)
        own = []
        for tr, te in folds:
            model = NonEmptyStub(scale=row["scale"]).fit(X[tr], Y[tr])
            oof[te] = model.predict_proba(X[te])
            own.append(_value(Y[te], model.predict(X[te]), "micro_f1"))
        glob, label = [], []
        for _, te in folds:
            rest = np.setdiff1d(np.arange(len(Y)), te)
            g = _brute_global(Y[rest], oof[rest], "micro_f1")
            glob.append(_value(Y[te], apply_rule(oof[te], "threshold", float(g), at_least_one_label=True), "micro_f1"))
            # per-label choice: SCut on the rule-free scores of the other folds, tie-break by their global choice
            free = [_f1(Y[rest], oof[rest] >= t) for t in THRESHOLD_GRID]  # micro-F1
            ties = [k for k, v in enumerate(free) if abs(v - max(free)) < 1e-12]
            g_free = min(ties, key=lambda k: (abs(THRESHOLD_GRID[k] - 0.5), k))
            t = _brute_scut(Y[rest], oof[rest], g_free)
            label.append(_value(Y[te], apply_rule(oof[te], "per_label", t, at_least_one_label=True), "micro_f1"))
        assert row["mean_own_rule"] == pytest.approx(np.mean(own), abs=1e-12)
        assert row["mean_global"] == pytest.approx(np.mean(glob), abs=1e-12)
        assert row["mean_label"] == pytest.approx(np.mean(label), abs=1e-12)
        if row["scale"] == res.best_params["scale"] and res.threshold_mode == "global":
            assert res.best_threshold[0] == _brute_global(Y, oof, "micro_f1")
