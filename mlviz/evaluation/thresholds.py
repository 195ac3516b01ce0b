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

With the at-least-one-label fallback (a fitted ``allow_empty_`` of False, on a Pipeline's last
step: a row with no label at or above its threshold gets its most probable label,
:func:`mlviz.decision.at_least_one`), the tuned rule is ``at_least_one(P, P >= t)``. Whether a
row is empty at ``t`` depends only on its highest score, so :func:`threshold_counts` with
``at_least_one_label=True`` stays exact per label and threshold, and the global mode (choice,
cross-fitted score, final threshold) is exact. The per-label rule is not separable: whether a
row is empty depends on every label's threshold. Its per-label *choice* stays SCut on the
rule-free counts of the other folds (and the final one on the pooled rule-free counts), but its
*cross-fitted score* is exact: :class:`FallbackCounts` keeps of each inner fold the scores
quantised to the grid (sparse: only scores reaching the lowest threshold) with the truth of
those entries and each row's top label, enough to count ``at_least_one(P, P >= t)`` for any
per-label threshold vector ``t`` of the grid (:meth:`FallbackCounts.counts_at`). Fold tables
come from :func:`fold_table`; :func:`crossfit_scores` and :func:`pooled_thresholds` take either
kind (a candidate may mix them when ``allow_empty_`` is learned from each fold's labels).

:class:`ThresholdedClassifier` is the estimator that results: any multi-label estimator with
``predict_proba``, predicting ``predict_proba(X) >= threshold`` with a fixed scalar or
per-label threshold, and the fallback when the wrapped estimator has it.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from ..metrics import AT_LEAST_ONE_TEXT, threshold_rule

__all__ = ["THRESHOLD_GRID", "THRESHOLD_MODES", "THRESHOLD_MEASURES", "threshold_counts", "choose_thresholds",
           "crossfit_scores", "FallbackCounts", "fold_table", "pooled_thresholds", "allows_empty",
           "ThresholdedClassifier"]

#: Candidate thresholds: 0.05, 0.10, ..., 0.95.
THRESHOLD_GRID = np.round(np.linspace(0.05, 0.95, 19), 2)
#: The modes tuned beside the method's own rule.
THRESHOLD_MODES = ("global", "label")
#: Measures a threshold can be chosen for (computable from per-label counts).
THRESHOLD_MEASURES = ("micro_f1", "macro_f1", "hamming_loss")


def threshold_counts(Y, P, grid=THRESHOLD_GRID, *, at_least_one_label=False):
    """True positives, false positives and false negatives of ``P >= t`` for every ``t`` and label.

    Parameters
    ----------
    Y : array-like, shape (n_samples, n_labels), 0/1
    P : array-like, shape (n_samples, n_labels)
        Scores (probabilities).
    grid : array-like, shape (n_thresholds,)
        Increasing when ``at_least_one_label``.
    at_least_one_label : bool, default False
        Count ``at_least_one(P, P >= t)`` instead (:func:`mlviz.decision.at_least_one`): a row
        whose highest score is below ``t`` predicts its top label (``argmax``, ties: the lower
        index). Exact, from a histogram of the rows' maxima over the grid.

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
    if at_least_one_label:
        out += _empty_row_counts(Yb, P, _increasing(grid))
    return out


def _increasing(grid):
    grid = np.asarray(grid, dtype=np.float64)
    if grid.ndim != 1 or np.any(np.diff(grid) <= 0):
        raise ValueError("The threshold grid must be one-dimensional and strictly increasing.")
    return grid


def _top(Yb, P):
    """Each row's top label (argmax: ties go to the lower index) and whether it is true."""
    top = np.argmax(P, axis=1)
    return top, Yb[np.arange(P.shape[0]), top]


def _empty_row_counts(Yb, P, grid):
    """What the fallback adds to the counts of ``P >= t``: shape (n_thresholds, n_labels, 3).

    Row i is empty at ``grid[k]`` iff ``k >= #{grid <= max_l P[i, l]}``; it then predicts its top
    label: one more prediction there (a TP and one FN fewer if the label is true, else a FP).
    """
    n, L = P.shape
    G = len(grid)
    extra = np.zeros((G, L, 3), dtype=np.int64)
    if n == 0 or L == 0:
        return extra
    top, true = _top(Yb, P)
    start = np.searchsorted(grid, P[np.arange(n), top], side="right")
    cell = start * L + top  # a row adds to its top label from grid position `start` on
    pred = np.bincount(cell, minlength=(G + 1) * L).reshape(G + 1, L)[:G].cumsum(axis=0)
    tp = np.bincount(cell[true], minlength=(G + 1) * L).reshape(G + 1, L)[:G].cumsum(axis=0)
    extra[..., 0], extra[..., 1], extra[..., 2] = tp, pred - tp, -tp
    return extra


class FallbackCounts:
    """Counts of one inner test fold for a method with the at-least-one-label fallback.

    Holds the rule-free :func:`threshold_counts` (``counts``, on which per-label thresholds are
    chosen), those of the fallback rule (``fallback``, the global mode), and, to count the
    fallback rule at any per-label threshold vector (:meth:`counts_at`), the scores quantised to
    the grid, ``q = #{grid <= P}`` (so ``P >= grid[k]`` iff ``q > k``), kept in CSR layout only
    where ``q > 0``, with the truth of those entries, each row's top label and whether it is
    true. About 3 bytes per kept entry (n_samples x n_labels at most, fewer the more scores lie
    below ``grid[0]``) and ``2 x n_thresholds x n_labels x 3`` int64 counts.

    Parameters
    ----------
    Y : array-like, shape (n_samples, n_labels), 0/1
    P : array-like, shape (n_samples, n_labels)
    grid : array-like, shape (n_thresholds,), increasing

    Attributes
    ----------
    counts, fallback : ndarray of int64, shape (n_thresholds, n_labels, 3)
    n_samples : int
    """

    def __init__(self, Y, P, grid=THRESHOLD_GRID):
        grid = _increasing(grid)
        Yb = np.asarray(Y).astype(bool)
        P = np.asarray(P, dtype=np.float64)
        n, L = P.shape
        self.n_samples = n
        self.counts = threshold_counts(Yb, P, grid)
        self.fallback = self.counts + _empty_row_counts(Yb, P, grid)
        code_type = np.uint8 if 2 * len(grid) + 1 <= np.iinfo(np.uint8).max else np.uint16
        q = np.zeros((n, L), dtype=code_type)
        for t in grid:
            q += P >= t  # q = #{grid <= P}
        rows, cols = np.nonzero(q)  # row-major: CSR order
        self._indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=n))].astype(np.int64)
        self._cols = cols.astype(np.uint16 if L <= np.iinfo(np.uint16).max else np.int64)
        self._code = (q[rows, cols] << 1) | Yb[rows, cols]  # q and the entry's truth, packed
        self._top, self._top_true = _top(Yb, P) if L else (np.zeros(n, np.intp), np.zeros(n, bool))
        self._pos = Yb.sum(axis=0)

    def counts_at(self, index):
        """(TP, FP, FN) per label of ``at_least_one(P, P >= grid[index])``, shape (n_labels, 3).

        Parameters
        ----------
        index : array of int, shape (n_labels,)
            Each label's threshold as an index into the grid.
        """
        index = np.asarray(index)
        L, n = len(self._pos), self.n_samples
        hit = (self._code >> 1) > index[self._cols]
        rows = np.repeat(np.arange(n), np.diff(self._indptr))
        empty = np.ones(n, dtype=bool)
        empty[rows[hit]] = False
        cols = self._cols[hit].astype(np.intp)
        pred = np.bincount(cols, minlength=L) + np.bincount(self._top[empty], minlength=L)
        tp = (np.bincount(cols[(self._code[hit] & 1).astype(bool)], minlength=L)
              + np.bincount(self._top[empty & self._top_true], minlength=L))
        return np.stack([tp, pred - tp, self._pos - tp], axis=-1).astype(np.int64)


def fold_table(Y, P, grid=THRESHOLD_GRID, *, at_least_one_label=False):
    """What the threshold search keeps of one inner test fold.

    Parameters
    ----------
    Y : array-like, shape (n_samples, n_labels), 0/1
    P : array-like, shape (n_samples, n_labels)
    grid : array-like, shape (n_thresholds,)
    at_least_one_label : bool, default False
        Whether the fold's model has the at-least-one-label fallback (``allow_empty_`` False).

    Returns
    -------
    ndarray of shape (n_thresholds, n_labels, 3) or FallbackCounts
        :func:`threshold_counts` when the method may predict empty rows, else
        :class:`FallbackCounts`.
    """
    return FallbackCounts(Y, P, grid) if at_least_one_label else threshold_counts(Y, P, grid)


def allows_empty(estimator):
    """Whether a fitted estimator (a Pipeline: its last step) may predict an empty row.

    False only when it has the fitted attribute ``allow_empty_`` and it is False.
    """
    steps = getattr(estimator, "steps", None)
    final = steps[-1][1] if steps else estimator
    value = getattr(final, "allow_empty_", True)
    return True if value is None else bool(value)


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


def _choice_counts(table, mode):
    """The counts a mode chooses on: the fallback's for the global mode, else the rule-free ones."""
    if isinstance(table, FallbackCounts):
        return table.fallback if mode == "global" else table.counts
    return table


def _counts_at(table, index):
    if isinstance(table, FallbackCounts):
        return _at(table.fallback, index) if np.all(index == index[:1]) else table.counts_at(index)
    return _at(table, index)


def crossfit_scores(fold_counts, fold_sizes, mode="global", measure="micro_f1", grid=THRESHOLD_GRID):
    """Per-fold ``measure`` with the threshold(s) of each fold chosen on the other folds.

    Parameters
    ----------
    fold_counts : sequence of ndarray of shape (n_thresholds, n_labels, 3), or of FallbackCounts
        :func:`fold_table` of each inner test fold.
    fold_sizes : sequence of int
        Rows of each inner test fold.
    mode, measure, grid
        As :func:`choose_thresholds`. The global mode chooses on the counts of each fold's rule
        (with the fallback where the fold has it), the per-label mode on the rule-free counts;
        each fold is scored exactly under its own rule.

    Returns
    -------
    scores : ndarray, shape (n_folds,)
        With one fold, the threshold is chosen on that fold itself.
    """
    if mode not in THRESHOLD_MODES:
        raise ValueError(f"mode must be one of {THRESHOLD_MODES}, got {mode!r}.")
    choice = [_choice_counts(t, mode) for t in fold_counts]
    total = np.sum(choice, axis=0)
    n_total = int(np.sum(fold_sizes))
    out = np.empty(len(fold_counts))
    for f, (c, n) in enumerate(zip(choice, fold_sizes)):
        rest, n_rest = (total - c, n_total - n) if len(fold_counts) > 1 else (total, n_total)
        idx = choose_thresholds(rest, n_rest, mode, measure, grid)
        out[f] = measure_from_counts(_counts_at(fold_counts[f], idx), n, measure)
    return out


def pooled_thresholds(fold_counts, n_samples, mode="global", measure="micro_f1", grid=THRESHOLD_GRID):
    """The final thresholds: :func:`choose_thresholds` on the counts pooled over all folds.

    The global mode pools the counts of each fold's rule (with the fallback where it has one),
    the per-label mode the rule-free counts (SCut).

    Returns
    -------
    index : ndarray of int, shape (n_labels,)
    """
    pooled = np.sum([_choice_counts(t, mode) for t in fold_counts], axis=0)
    return choose_thresholds(pooled, n_samples, mode, measure, grid)


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
    at a scalar or at one value per label. When the fitted estimator (a Pipeline: its last step)
    has ``allow_empty_`` False, its at-least-one-label fallback is kept: a row with nothing at or
    above its threshold gets its most probable label (:func:`mlviz.decision.at_least_one`).

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
    allow_empty_ : bool
        False when the fitted estimator has the fallback (then ``predict`` applies it).
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
        self.allow_empty_ = allows_empty(self.estimator_)
        steps = getattr(self.estimator_, "steps", None)
        final = steps[-1][1] if steps else self.estimator_
        own = getattr(final, "decision_rule_", "")
        of = own.split(" on ", 1)[1] if own.startswith("threshold ") and " on " in own else "predict_proba"
        of = of.split(AT_LEAST_ONE_TEXT, 1)[0]  # stated once, below
        self.decision_rule_ = f"threshold {describe_thresholds(self.threshold_)} (tuned by inner CV) on {of}"
        if not self.allow_empty_:
            self.decision_rule_ += ", " + AT_LEAST_ONE_TEXT.lstrip("; ")
        return self

    def predict_proba(self, X):
        """The fitted estimator's ``predict_proba(X)``, shape (n_samples, n_labels)."""
        check_is_fitted(self, ["estimator_", "threshold_"])
        return self.estimator_.predict_proba(X)

    def predict(self, X):
        """``predict_proba(X) >= threshold_`` as uint8, shape (n_samples, n_labels).

        With ``allow_empty_`` False, ``at_least_one(P, P >= threshold_)``: an empty row gets its
        top label (ties: the lower index).
        """
        return threshold_rule(self.predict_proba(X), self.threshold_, getattr(self, "allow_empty_", True))
