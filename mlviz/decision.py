"""Decision rules: from a score matrix P (n × L) to a 0/1 label matrix.

Every multi-label method here outputs scores (usually posteriors
``P(y_l = 1 | x)``); the label sets come from a *decision rule*, and the
numbers a paper reports depend on it as much as on the model.  Rules
(Yang 2001; Largeron et al. 2012; Tsoumakas et al. 2010):

=================  ==========================================================  ===========
rule               definition                                                  parameter
=================  ==========================================================  ===========
``threshold``      predict l iff ``P[i, l] >= t``                               t (float)
``per_label``      predict l iff ``P[i, l] >= t_l``                             t (L,)
``rcut``           the k highest-scored labels of each row (ties: lower index)  k (int)
``mcut``           cut each row at the largest gap between its sorted scores    none
``scut``           ``per_label`` with t_l tuned on training folds for a         t (L,)
                   per-label measure (:func:`scut_thresholds`, :func:`scut_cv`)
=================  ==========================================================  ===========

Any rule can be combined with ``at_least_one=True``: a row with no
predicted label gets its top-scored label (ties: lower index).

:func:`rule_curve` measures a rule along its parameter (Hamming loss,
micro/macro/example F1, subset accuracy, empty-prediction rate, from
:mod:`mlviz.metrics`) and :func:`best_parameters` / :func:`compare_rules`
give the best setting per measure (the "predict first, then reveal" step of
the decision-rule playground).

References
----------
- Y. Yang. A study of thresholding strategies for text categorization. SIGIR 2001
  (RCut, PCut, SCut: per-category thresholds tuned on a validation set).
- C. Largeron, C. Moulin, M. Géry. MCut: a thresholding strategy for multi-label
  classification. IDA 2012 (threshold in the middle of the largest gap of the
  sorted scores of an instance).
- G. Tsoumakas, I. Katakis, I. Vlahavas. Mining multi-label data, 2010.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._rule_counts import fast_rows
from .metrics import RCut, at_least_one, binarize, evaluate, get_measure

__all__ = [
    "RULES", "RULE_LABELS", "RULE_NAMES", "COMPARED_RULES", "CURVE_MEASURES", "apply_rule", "at_least_one", "mcut",
    "mcut_thresholds",
    "scut_thresholds", "scut_cv", "rule_curve", "best_parameters", "compare_rules",
    "empty_rate", "describe_rule",
]

RULES = ("threshold", "per_label", "rcut", "mcut", "scut")
#: each rule's short label (the Decision rules page's radio buttons and their URL values)
RULE_LABELS = {"threshold": "Threshold", "per_label": "Per label", "rcut": "RCut", "mcut": "MCut", "scut": "SCut"}
#: each rule's name in sentences and tables
RULE_NAMES = {"threshold": "Global threshold", "per_label": "Per-label threshold", "rcut": "RCut (top k)",
              "mcut": "MCut (largest gap)", "scut": "SCut (tuned on training folds)"}
#: the rules :func:`compare_rules` puts side by side (its rows; SCut when given its thresholds)
COMPARED_RULES = ("threshold", "rcut", "mcut", "scut")
#: measures drawn by the playground (``empty_rate`` is added by :func:`rule_curve`)
CURVE_MEASURES = ("hamming_loss", "micro_f1", "macro_f1", "example_f1", "subset_accuracy")
_SCUT_MEASURES = ("f1", "accuracy")


def _scores(P):
    P = P.toarray() if sp.issparse(P) else np.asarray(P, dtype=np.float64)
    if P.ndim != 2:
        raise ValueError(f"Scores must be a 2-D (n_samples, n_labels) array, got shape {P.shape}.")
    if not np.isfinite(P).all():
        raise ValueError("Scores contain NaN or infinite values.")
    return P




def mcut_thresholds(P):
    """Per-row MCut threshold: the middle of the largest gap between sorted scores.

    With the scores of row i sorted in decreasing order ``s_(1) >= ... >= s_(L)``,
    ``j* = argmax_j (s_(j) - s_(j+1))`` (first maximum, i.e. the fewest labels)
    and the threshold is ``(s_(j*) + s_(j*+1)) / 2`` (Largeron et al. 2012).
    A row with a single label, or all scores equal, gets ``-inf`` (every
    label predicted; there is no gap to cut).

    Returns
    -------
    ndarray, shape (n_samples,)
    """
    P = _scores(P)
    n, L = P.shape
    if L < 2:
        return np.full(n, -np.inf)
    S = -np.sort(-P, axis=1)
    gaps = S[:, :-1] - S[:, 1:]
    j = np.argmax(gaps, axis=1)
    rows = np.arange(n)
    t = 0.5 * (S[rows, j] + S[rows, j + 1])
    t[gaps[rows, j] <= 0] = -np.inf
    return t


def mcut(P):
    """MCut prediction: labels scored above the row's :func:`mcut_thresholds`."""
    P = _scores(P)
    return (P > mcut_thresholds(P)[:, None]).astype(np.uint8)


def apply_rule(P, rule="threshold", param=0.5, *, at_least_one_label=False):
    """Apply a decision rule to a score matrix.

    Parameters
    ----------
    P : array-like, shape (n_samples, n_labels)
    rule : {"threshold", "per_label", "rcut", "mcut", "scut"}
    param : float, array of shape (n_labels,), int or None
        ``threshold``: t; ``per_label`` / ``scut``: the L thresholds (SCut's
        come from :func:`scut_thresholds` or :func:`scut_cv`); ``rcut``: k;
        ``mcut``: ignored.
    at_least_one_label : bool, default False
        Predict the top label in rows where the rule predicts nothing.

    Returns
    -------
    Y_pred : ndarray of uint8, shape (n_samples, n_labels)

    Examples
    --------
    >>> P = np.array([[0.9, 0.8, 0.1], [0.4, 0.1, 0.35]])
    >>> apply_rule(P, "threshold", 0.5).tolist()
    [[1, 1, 0], [0, 0, 0]]
    >>> apply_rule(P, "threshold", 0.5, at_least_one_label=True).tolist()
    [[1, 1, 0], [1, 0, 0]]
    >>> apply_rule(P, "mcut").tolist()
    [[1, 1, 0], [1, 0, 1]]
    """
    P = _scores(P)
    if rule == "threshold":
        if not isinstance(param, Real) or isinstance(param, bool):
            raise ValueError(f"The 'threshold' rule needs a number, got {param!r}.")
        Y_pred = binarize(P, float(param))
    elif rule in ("per_label", "scut"):
        t = np.asarray(param, dtype=np.float64)
        if t.shape != (P.shape[1],):
            raise ValueError(f"The {rule!r} rule needs {P.shape[1]} thresholds, got shape {t.shape}.")
        Y_pred = (P >= t[None, :]).astype(np.uint8)
    elif rule == "rcut":
        if not isinstance(param, Integral) or isinstance(param, bool) or param < 0:
            raise ValueError(f"The 'rcut' rule needs an integer k >= 0, got {param!r}.")
        Y_pred = binarize(P, RCut(int(param)))
    elif rule == "mcut":
        Y_pred = mcut(P)
    else:
        raise ValueError(f"Unknown decision rule {rule!r}; choose from {list(RULES)}.")
    return at_least_one(P, Y_pred) if at_least_one_label else Y_pred


def describe_rule(rule, param=None, at_least_one_label=False):
    """Short human string for a rule (like an estimator's ``decision_rule_``)."""
    text = {"threshold": lambda: f"threshold {float(param):g} on every label",
            "per_label": lambda: "one threshold per label",
            "scut": lambda: "SCut: per-label thresholds tuned on training folds",
            "rcut": lambda: f"RCut: the top {int(param)} labels of each instance",
            "mcut": lambda: "MCut: cut at the largest gap of each instance's sorted scores"}
    if rule not in text:
        raise ValueError(f"Unknown decision rule {rule!r}; choose from {list(RULES)}.")
    return text[rule]() + (", at least one label" if at_least_one_label else "")


# ------------------------------------------------------------------ SCut
def _best_cut(y, s, measure):
    """Threshold maximising a per-label measure of ``s >= t`` (ties: the higher t)."""
    order = np.argsort(-s, kind="stable")
    s_sorted, y_sorted = s[order], y[order].astype(np.float64)
    n, n_pos = len(s), y.sum()
    # candidate cuts: predict nothing, or everything down to the end of a tie group
    ends = np.flatnonzero(np.r_[s_sorted[1:] != s_sorted[:-1], True])
    tp = np.r_[0.0, np.cumsum(y_sorted)[ends]]
    n_pred = np.r_[0.0, ends + 1.0]
    if measure == "f1":
        den = n_pred + n_pos
        value = np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 1.0)
    else:
        value = (tp + (n - n_pos) - (n_pred - tp)) / n
    best = int(np.argmax(value))
    if best == 0:
        return float(np.nextafter(s_sorted[0], np.inf)), float(value[0])
    lo = ends[best - 1]
    if lo + 1 < n:
        return float(0.5 * (s_sorted[lo] + s_sorted[lo + 1])), float(value[best])
    return float(s_sorted[lo]), float(value[best])


def scut_thresholds(Y, P, measure="f1"):
    """SCut: for each label the threshold that maximises its own measure on (Y, P).

    Exhaustive over every distinct cut of the label's sorted scores (so it is
    the exact optimum, not a grid search). The threshold returned lies in the
    middle between the last predicted and the first unpredicted score;
    "predict nothing" is a threshold just above the highest score. Ties in
    the measure go to the higher threshold (fewer predictions).

    Parameters
    ----------
    Y : array-like of {0, 1}, shape (n_samples, n_labels)
        Truth on the tuning rows (training folds: use :func:`scut_cv` for
        out-of-fold scores).
    P : array-like, shape (n_samples, n_labels)
    measure : {"f1", "accuracy"}
        Per-label F1 (Mulan convention: 1 when nothing is true or predicted;
        maximising each label's F1 maximises macro-F1) or per-label accuracy
        (maximising it minimises Hamming loss).

    Returns
    -------
    thresholds : ndarray, shape (n_labels,)
    """
    if measure not in _SCUT_MEASURES:
        raise ValueError(f"The 'measure' parameter of scut_thresholds must be one of "
                         f"{list(_SCUT_MEASURES)}, got {measure!r}.")
    P = _scores(P)
    Y = np.asarray(Y.toarray() if sp.issparse(Y) else Y)
    if Y.shape != P.shape:
        raise ValueError(f"Y has shape {Y.shape} but the scores have shape {P.shape}.")
    if P.shape[0] == 0:
        raise ValueError("SCut needs at least one tuning row.")
    return np.array([_best_cut(Y[:, l], P[:, l], measure)[0] for l in range(P.shape[1])])


def scut_cv(estimator, X, Y, *, measure="f1", n_splits=3, random_state=0):
    """SCut thresholds tuned on out-of-fold scores of the training data only.

    Each of ``n_splits`` iterative-stratification folds of (X, Y) is scored
    by a clone of ``estimator`` fitted on the other folds; the thresholds are
    :func:`scut_thresholds` of the pooled out-of-fold scores.  Test data are
    never touched.

    Parameters
    ----------
    estimator : unfitted mlviz estimator (``fit``, ``predict_proba``)
    X : array-like or CSR, shape (n_samples, n_features)
    Y : array-like of {0, 1}, shape (n_samples, n_labels)
    measure : {"f1", "accuracy"}
    n_splits : int >= 2
    random_state : int

    Returns
    -------
    thresholds : ndarray, shape (n_labels,)
    oof_scores : ndarray, shape (n_samples, n_labels)
    """
    from sklearn.base import clone

    from .evaluation import multilabel_kfold

    Y = np.asarray(Y)
    oof = np.zeros(Y.shape, dtype=np.float64)
    for train, test in multilabel_kfold(Y, n_splits=n_splits, random_state=random_state):
        model = clone(estimator).fit(X[train], Y[train])
        oof[test] = model.predict_proba(X[test])
    return scut_thresholds(Y, oof, measure), oof


# ------------------------------------------------------------------ curves
def empty_rate(Y_pred):
    """Fraction of rows with no predicted label."""
    Y_pred = np.asarray(Y_pred)
    return float(np.mean(Y_pred.sum(axis=1) == 0)) if Y_pred.shape[0] else 0.0


def _row(Y, P, Y_pred, measures):
    values = evaluate(Y, P, measures=list(measures), y_pred=Y_pred)
    values["empty_rate"] = empty_rate(Y_pred)
    return values


def rule_curve(Y, P, rule="threshold", params=None, *, measures=CURVE_MEASURES,
               at_least_one_label=False, label=None, base=None):
    """Measures of a rule along its parameter (the playground's linked curves).

    Parameters
    ----------
    Y : array-like of {0, 1}, shape (n_samples, n_labels)
    P : array-like, shape (n_samples, n_labels)
    rule : {"threshold", "per_label", "rcut", "mcut", "scut"}
    params : sequence, optional
        ``threshold``: thresholds (default 0, 0.01, ..., 1); ``rcut``: k values
        (default 0..L); ``per_label``: thresholds of label ``label`` while the
        others keep ``base`` (default 0.5 each); ``scut``: offsets added to
        the thresholds ``base`` (default -0.3..0.3); ``mcut``: ignored (one row).
    measures : sequence of str
        Keys of :data:`mlviz.metrics.MEASURES` (label-based ones).
    at_least_one_label : bool
    label : int, optional
        The label moved by a ``per_label`` curve (default 0).
    base : array of shape (n_labels,), optional
        Thresholds of the other labels (``per_label``) or the tuned SCut
        thresholds (``scut``, required).

    Returns
    -------
    pandas.DataFrame
        Column ``param`` then one column per measure and ``empty_rate``.
    """
    P = _scores(P)
    settings, label, base = _curve_settings(P.shape[1], rule, params, label, base)
    fast = None
    if rule in ("threshold", "rcut", "per_label", "scut"):
        # the rule's parameter: t or k (threshold, rcut), the moved value (per_label, scut)
        values = [v if rule in ("threshold", "rcut") else shown for shown, v in settings]
        fast = fast_rows(Y, P, rule, values, measures, at_least_one_label=at_least_one_label,
                         base=base, label=label)
    if fast is None:
        return _curve_loop(Y, P, rule, settings, measures, at_least_one_label)
    rows = [{"param": shown, **values} for (shown, _), values in zip(settings, fast)]
    return pd.DataFrame(rows, columns=["param", *measures, "empty_rate"])


def _curve_settings(L, rule, params, label, base):
    """``[(shown_param, rule_param), ...]`` of a curve, and the checked ``label`` / ``base``."""
    if rule == "threshold":
        params = np.round(np.linspace(0, 1, 101), 2) if params is None else params
        settings = [(p, float(p)) for p in params]
    elif rule == "rcut":
        params = range(L + 1) if params is None else params
        settings = [(int(k), int(k)) for k in params]
    elif rule == "mcut":
        settings = [(np.nan, None)]
    elif rule == "per_label":
        label = 0 if label is None else int(label)
        if not 0 <= label < L:
            raise ValueError(f"label must be in 0..{L - 1}, got {label}.")
        base = np.full(L, 0.5) if base is None else np.asarray(base, dtype=np.float64)
        params = np.round(np.linspace(0, 1, 101), 2) if params is None else params
        settings = []
        for p in params:
            t = base.copy()
            t[label] = p
            settings.append((float(p), t))
    elif rule == "scut":
        if base is None:
            raise ValueError("An 'scut' curve needs the tuned thresholds as base= (scut_thresholds).")
        base = np.asarray(base, dtype=np.float64)
        params = np.round(np.linspace(-0.3, 0.3, 61), 2) if params is None else params
        settings = [(float(p), base + p) for p in params]
    else:
        raise ValueError(f"Unknown decision rule {rule!r}; choose from {list(RULES)}.")
    return settings, label, base


def _curve_loop(Y, P, rule, settings, measures, at_least_one_label):
    rows = []
    for shown, value in settings:
        Y_pred = apply_rule(P, rule, value, at_least_one_label=at_least_one_label)
        rows.append({"param": shown, **_row(Y, P, Y_pred, measures)})
    return pd.DataFrame(rows, columns=["param", *measures, "empty_rate"])


def _rule_curve_loop(Y, P, rule="threshold", params=None, *, measures=CURVE_MEASURES,
                     at_least_one_label=False, label=None, base=None):
    """:func:`rule_curve` by applying the rule and calling :func:`evaluate` at every parameter.

    The reference for the count-based path (:mod:`mlviz._rule_counts`), which
    :func:`rule_curve` uses for every rule but MCut and falls back from to
    this loop for measures it does not cover.
    """
    P = _scores(P)
    settings, _, _ = _curve_settings(P.shape[1], rule, params, label, base)
    return _curve_loop(Y, P, rule, settings, measures, at_least_one_label)


def best_parameters(curve):
    """Best parameter of a :func:`rule_curve` for each measure.

    Ties go to the first (smallest) parameter.  ``empty_rate`` is treated
    as a loss.

    Returns
    -------
    pandas.DataFrame
        Index: measure; columns ``param``, ``value``.
    """
    out = {}
    for col in curve.columns:
        if col == "param":
            continue
        values = curve[col].to_numpy()
        better = col == "empty_rate" or not get_measure(col).greater_is_better
        i = int(np.argmin(values) if better else np.argmax(values))
        out[col] = dict(param=curve["param"].iloc[i], value=float(values[i]))
    return pd.DataFrame.from_dict(out, orient="index")


def compare_rules(Y, P, *, target="subset_accuracy", scut=None, measures=CURVE_MEASURES,
                  at_least_one_label=False):
    """Each rule at its best parameter for one target measure, side by side.

    For the "predict first, then reveal" step: ask which rule maximises
    (say) subset accuracy, then show this table.  The threshold and RCut
    parameters are optimised *on (Y, P)* here (an oracle choice that shows
    what each rule can reach); MCut has no parameter; SCut applies the given
    thresholds, tuned on training folds (:func:`scut_cv`) -- the only honest
    test number in the table.

    Parameters
    ----------
    Y, P : arrays, shape (n_samples, n_labels)
    target : str, default "subset_accuracy"
        Measure whose best value picks each rule's parameter (``empty_rate``
        or any key of ``measures``).
    scut : array of shape (n_labels,), optional
        Tuned SCut thresholds; adds an ``scut`` row.
    measures : sequence of str
    at_least_one_label : bool

    Returns
    -------
    pandas.DataFrame
        Index: rule; columns ``param`` (the chosen parameter, NaN for MCut,
        0.0 = no offset for SCut), every measure and ``empty_rate`` at that
        parameter, and ``best`` (True for the rule(s) with the best target).
    """
    curves = {"threshold": rule_curve(Y, P, "threshold", measures=measures,
                                      at_least_one_label=at_least_one_label),
              "rcut": rule_curve(Y, P, "rcut", measures=measures,
                                 at_least_one_label=at_least_one_label),
              "mcut": rule_curve(Y, P, "mcut", measures=measures,
                                 at_least_one_label=at_least_one_label)}
    if scut is not None:
        curves["scut"] = rule_curve(Y, P, "scut", [0.0], measures=measures, base=scut,
                                    at_least_one_label=at_least_one_label)
    if target not in curves["mcut"].columns:
        raise ValueError(f"target {target!r} is not among the measures {list(measures)}.")
    rows = {}
    for rule, curve in curves.items():
        param = best_parameters(curve).loc[target, "param"]
        i = int(np.flatnonzero((curve["param"] == param) | (curve["param"].isna() & pd.isna(param)))[0])
        rows[rule] = curve.iloc[i].to_dict()
    table = pd.DataFrame.from_dict(rows, orient="index")
    values = table[target].to_numpy()
    lower = target == "empty_rate" or not get_measure(target).greater_is_better
    best = values.min() if lower else values.max()
    table["best"] = values == best
    return table
