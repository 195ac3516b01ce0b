"""Decision thresholds tuned on inner folds: one global threshold, or one per label.

A method whose ``predict`` is a threshold on its probabilities (``predict_proba >= t``; the
registry's ``MethodSpec.tunes_threshold``) can have ``t`` chosen by the nested search of
:func:`mlviz.evaluation.tune_estimator`, beside its other hyperparameters and on the same inner
folds of the training data only:

- ``"global"``: one ``t`` for every label, the value of :data:`THRESHOLD_GRID` with the best
  pooled inner measure. For micro-F1 with calibrated probabilities a shared threshold is the
  optimal form of classifier (Koyejo, Natarajan, Ravikumar, Dhillon, *Consistent multilabel
  classification*, NIPS 2015, Theorem 4);
- ``"label"``: each label its own ``t_l``, maximising that label's F1 (for F-measures) or
  minimising its errors (Hamming loss) on the pooled inner folds: the SCut strategy (Yang,
  *A study of thresholding strategies for text categorization*, SIGIR 2001), optimal for
  macro-F1 (Koyejo et al. 2015, Theorem 5) and exact for Hamming loss; labels with no positive
  inner row keep the global threshold. This is :func:`mlviz.decision.scut_thresholds` (the
  Decision rules page's SCut, exact over every cut of one model's scores) restricted to
  :data:`THRESHOLD_GRID`, so that the nested search needs only per-fold counts.

Everything is computed from counts: :func:`threshold_counts` gives, for every threshold of
the grid and label, the true positives, false positives and false negatives of one inner test
fold, so no model is refitted for a threshold. Whether a threshold (and which mode) beats the
method's own rule is decided *cross-fitted*: the threshold used on inner fold f is chosen on
the other inner folds' counts (:func:`crossfit_scores`), so the more flexible per-label mode
does not win by fitting the fold it is scored on. The final thresholds are chosen on all
inner folds' counts (:func:`choose_thresholds`).

:class:`ThresholdedClassifier` is the estimator that results: any multi-label estimator with
``predict_proba``, predicting ``predict_proba(X) >= threshold`` with a fixed scalar or
per-label threshold.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

__all__ = ["THRESHOLD_GRID", "THRESHOLD_MODES", "THRESHOLD_MEASURES", "threshold_counts", "choose_thresholds",
           "crossfit_scores", "ThresholdedClassifier"]

#: Candidate thresholds: 0.05, 0.10, ..., 0.95.
THRESHOLD_GRID = np.round(np.linspace(0.05, 0.95, 19), 2)
#: The modes tuned beside the method's own rule.
THRESHOLD_MODES = ("global", "label")
#: Measures a threshold can be chosen for (computable from per-label counts).
THRESHOLD_MEASURES = ("micro_f1", "macro_f1", "hamming_loss")


def threshold_counts(Y, P, grid=THRESHOLD_GRID):
    """True positives, false positives and false negatives of ``P >= t`` for every ``t`` and label.

    Parameters
    ----------
    Y : array-like, shape (n_samples, n_labels), 0/1
    P : array-like, shape (n_samples, n_labels)
        Scores (probabilities).
    grid : array-like, shape (n_thresholds,)

    Returns
    -------
    counts : ndarray of int64, shape (n_thresholds, n_labels, 3)
        ``counts[t, l] = (TP, FP, FN)`` of label ``l`` at threshold ``grid[t]``.
    """
    Yb = np.asarray(Y).astype(bool)
    P = np.asarray(P, dtype=np.float64)
    pos = Yb.sum(axis=0)
    out = np.empty((len(grid), Yb.shape[1], 3), dtype=np.int64)
    for i, t in enumerate(grid):
        Z = P >= t
        tp = np.count_nonzero(Z & Yb, axis=0)
        out[i, :, 0] = tp
        out[i, :, 1] = np.count_nonzero(Z, axis=0) - tp
        out[i, :, 2] = pos - tp
    return out


def _f1(tp, fp, fn):
    """2TP / (2TP + FP + FN), 1 where the denominator is 0 (nothing relevant, nothing predicted)."""
    den = 2.0 * tp + fp + fn
    return np.where(den > 0, 2.0 * tp / np.maximum(den, 1), 1.0)


def measure_from_counts(counts, n_samples, measure):
    """``measure`` of the label counts ``counts`` (shape (..., n_labels, 3)) of ``n_samples`` rows.

    micro-F1 pools the counts over labels, macro-F1 averages the labels' F1 (1 for a label with
    nothing relevant and nothing predicted), Hamming loss is (FP + FN) / (n_samples · n_labels);
    the conventions of :func:`mlviz.metrics.evaluate`.
    """
    tp, fp, fn = counts[..., 0], counts[..., 1], counts[..., 2]
    if measure == "micro_f1":
        return _f1(tp.sum(-1), fp.sum(-1), fn.sum(-1))
    if measure == "macro_f1":
        return _f1(tp, fp, fn).mean(-1)
    if measure == "hamming_loss":
        return (fp + fn).sum(-1) / float(n_samples * counts.shape[-2])
    raise ValueError(f"thresholds can be tuned for {', '.join(THRESHOLD_MEASURES)}, not {measure!r}.")


def _nearest(candidates, target):
    """The candidate index nearest ``target`` (the smaller on a tie)."""
    candidates = np.asarray(candidates)
    return int(candidates[np.argmin(np.abs(candidates - target))])


def choose_thresholds(counts, n_samples, mode="global", measure="micro_f1", grid=THRESHOLD_GRID):
    """The threshold(s) of ``mode`` that optimise ``measure`` on pooled ``counts``.

    Parameters
    ----------
    counts : ndarray, shape (n_thresholds, n_labels, 3)
        :func:`threshold_counts` (summed over the folds the choice is made on).
    n_samples : int
        Rows behind ``counts``.
    mode : {"global", "label"}
    measure : {"micro_f1", "macro_f1", "hamming_loss"}
    grid : array-like, shape (n_thresholds,)

    Returns
    -------
    index : ndarray of int, shape (n_labels,)
        Per label, the index into ``grid`` of its threshold (all equal for ``"global"``).
        Ties go to the threshold nearest 0.5 (global) or nearest the global choice (label).
    """
    grid = np.asarray(grid, dtype=np.float64)
    L = counts.shape[1]
    lower = measure == "hamming_loss"
    score = measure_from_counts(counts, n_samples, measure)
    score = -score if lower else score
    best = np.flatnonzero(np.isclose(score, score.max(), rtol=0, atol=1e-12))
    g = _nearest(best, np.argmin(np.abs(grid - 0.5)))
    if mode == "global":
        return np.full(L, g, dtype=np.intp)
    if mode != "label":
        raise ValueError(f"mode must be one of {THRESHOLD_MODES}, got {mode!r}.")
    tp, fp, fn = counts[..., 0], counts[..., 1], counts[..., 2]
    per = -(fp + fn).astype(np.float64) if lower else _f1(tp, fp, fn)  # (n_thresholds, n_labels)
    out = np.full(L, g, dtype=np.intp)
    has_pos = (tp[0] + fn[0]) > 0
    for lab in np.flatnonzero(has_pos):
        col = per[:, lab]
        out[lab] = _nearest(np.flatnonzero(np.isclose(col, col.max(), rtol=0, atol=1e-12)), g)
    return out


def _at(counts, index):
    """The (n_labels, 3) counts of each label at its own threshold index."""
    return counts[index, np.arange(counts.shape[1])]


def crossfit_scores(fold_counts, fold_sizes, mode="global", measure="micro_f1", grid=THRESHOLD_GRID):
    """Per-fold ``measure`` with the threshold(s) of each fold chosen on the other folds.

    Parameters
    ----------
    fold_counts : sequence of ndarray, each shape (n_thresholds, n_labels, 3)
        :func:`threshold_counts` of each inner test fold.
    fold_sizes : sequence of int
        Rows of each inner test fold.
    mode, measure, grid
        As :func:`choose_thresholds`.

    Returns
    -------
    scores : ndarray, shape (n_folds,)
        With one fold, the threshold is chosen on that fold itself.
    """
    total = np.sum(fold_counts, axis=0)
    n_total = int(np.sum(fold_sizes))
    out = np.empty(len(fold_counts))
    for f, (c, n) in enumerate(zip(fold_counts, fold_sizes)):
        rest, n_rest = (total - c, n_total - n) if len(fold_counts) > 1 else (total, n_total)
        idx = choose_thresholds(rest, n_rest, mode, measure, grid)
        out[f] = measure_from_counts(_at(c, idx), n, measure)
    return out


def describe_thresholds(threshold):
    """Short text of a tuned threshold: ``0.3`` or ``per label 0.15–0.6 (median 0.3)``."""
    t = np.asarray(threshold, dtype=np.float64)
    if t.ndim == 0 or np.ptp(t) == 0:
        return f"{float(t.flat[0]):g}"
    return f"per label {t.min():g}–{t.max():g} (median {np.median(t):g})"


class ThresholdedClassifier(BaseEstimator):
    """A multi-label estimator whose ``predict`` is ``predict_proba(X) >= threshold``.

    The estimator :func:`mlviz.evaluation.tune_estimator` returns when it tuned a decision
    threshold (module docstring): ``estimator`` fitted as given, its probabilities thresholded
    at a scalar or at one value per label.

    Parameters
    ----------
    estimator : estimator
        Any multi-label estimator with ``fit(X, Y)`` and ``predict_proba(X)`` of shape
        (n_samples, n_labels) (a Pipeline too); cloned in ``fit``.
    threshold : float or array-like of shape (n_labels,), default 0.5
        In [0, 1].

    Attributes
    ----------
    estimator_ : the fitted clone
    threshold_ : ndarray, shape (n_labels,)
    decision_rule_ : str

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from mlviz.models import BinaryRelevance
    >>> X = np.random.default_rng(0).normal(size=(40, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> m = ThresholdedClassifier(BinaryRelevance(), threshold=[0.3, 0.7]).fit(X, Y)
    >>> bool(np.all(m.predict(X) == (m.predict_proba(X) >= [0.3, 0.7])))
    True
    """

    def __init__(self, estimator, *, threshold=0.5):
        self.estimator = estimator
        self.threshold = threshold

    def fit(self, X, Y):
        """Fit a clone of ``estimator`` on (X, Y); returns ``self``."""
        t = np.asarray(self.threshold, dtype=np.float64)
        if not np.all(np.isfinite(t)) or np.any(t < 0) or np.any(t > 1) or t.ndim > 1:
            raise ValueError(f"The 'threshold' parameter of ThresholdedClassifier must be a number or one number "
                             f"per label in [0, 1], got {self.threshold!r}.")
        self.estimator_ = clone(self.estimator).fit(X, Y)
        L = np.asarray(Y).shape[1]
        if t.ndim == 1 and t.shape[0] != L:
            raise ValueError(f"threshold has {t.shape[0]} values, but Y has {L} labels.")
        self.threshold_ = np.broadcast_to(t, (L,)).copy()
        steps = getattr(self.estimator_, "steps", None)
        final = steps[-1][1] if steps else self.estimator_
        own = getattr(final, "decision_rule_", "")
        of = own.split(" on ", 1)[1] if own.startswith("threshold ") and " on " in own else "predict_proba"
        self.decision_rule_ = f"threshold {describe_thresholds(self.threshold_)} (tuned by inner CV) on {of}"
        return self

    def predict_proba(self, X):
        """The fitted estimator's ``predict_proba(X)``, shape (n_samples, n_labels)."""
        check_is_fitted(self, ["estimator_", "threshold_"])
        return self.estimator_.predict_proba(X)

    def predict(self, X):
        """``predict_proba(X) >= threshold_`` as uint8, shape (n_samples, n_labels)."""
        return (np.asarray(self.predict_proba(X)) >= self.threshold_).astype(np.uint8)
