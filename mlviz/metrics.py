"""Multi-label evaluation measures, with the definition used for each.

Inputs everywhere are a true label matrix ``Y_true`` of shape
(n_samples, n_labels) with entries in {0, 1} and a real score matrix
``scores`` of the same shape (probabilities or any monotone scores; higher
means "more likely relevant"). Label-based measures are computed on
``binarize(scores, threshold)``; ranking measures on the scores themselves.

Conventions (all documented, all tested; no measure ever returns NaN)
--------------------------------------------------------------------
* **Zero denominators (Mulan convention).** A precision, recall or F1 whose
  denominator is zero equals 1 when truth and prediction agree completely
  (both sets empty) and 0 otherwise. This applies per instance (example-based
  P/R/F1: an instance with no true and no predicted label scores 1; an
  instance with no prediction but some truth has precision 0), per label
  (macro: a label absent from both truth and prediction counts as 1 in macro
  P/R/F1, it is *not* skipped) and to the pooled counts (micro).
  For F1 this equals scikit-learn's ``zero_division=1``.
* **Thresholds.** A label is predicted when ``score >= threshold`` (the rule of
  :class:`mlviz.models._base.MultiLabelClassifierMixin`). ``RCut(r)`` predicts
  the ``r`` highest-scored labels of each instance; ties are broken by the
  lower label index.
* **Hamming loss at p ≥ 0.5** (``hamming_loss_p05``): the Hamming loss of
  ``scores >= 0.5``, whatever ``threshold`` or ``y_pred`` says, so it is a
  measure of the scores (``needs="scores"``). When the scores are calibrated
  marginals P(y_l = 1 | x) this is the Bayes-optimal rule for Hamming loss,
  which decomposes into one 0/1 loss per (row, label) entry (its risk
  minimiser is each label's marginal mode; Dembczyński et al. 2012). A method
  whose own rule targets another measure (e.g. a lower threshold for
  micro-F1) is then scored on Hamming loss under Hamming loss's own rule as
  well as under its own.
* **AUC.** ``macro_auc`` is the mean over labels of the ROC AUC (Mann-Whitney
  statistic, ties count 1/2); labels whose truth has a single class are
  skipped and counted (``details["auc_skipped_labels"]``). ``micro_auc`` is
  the AUC of the flattened (n*L) problem. An AUC with nothing to average is
  0.5 (chance). ``instance_auc`` is the mean over instances of the AUC of the
  label ranking (MLLEM paper, section 5), skipping instances whose labels are
  all relevant or all irrelevant.
* **Ranking measures** (Tsoumakas, Katakis & Vlahavas, *Mining multi-label
  data*, 2010). With rank(l) = |{l' : s_l' >= s_l}| (ties pessimistic, as in
  scikit-learn):

  - ranking loss = |{(a, b) in Y x Ybar : s_b >= s_a}| / (|Y| |Ybar|)
    (= ``sklearn.metrics.label_ranking_loss``);
  - one-error = [argmax_l s_l not in Y] (ties: lowest label index);
  - coverage = max_{l in Y} rank(l) - 1 (**Tsoumakas' definition, which
    subtracts 1**; ``sklearn.metrics.coverage_error`` does not, so
    ``coverage == coverage_error - 1``);
  - average precision = mean_{l in Y} |{l' in Y : rank(l') <= rank(l)}| / rank(l)
    (= ``sklearn.metrics.label_ranking_average_precision_score``);
  - P@k = |top-k ∩ Y| / k and nDCG@k = sum_{r<=k} [l_r in Y]/log2(r+1) divided by
    its ideal value sum_{r<=min(k,|Y|)} 1/log2(r+1), where the top-k order sorts by
    decreasing score, ties by lower label index; k is capped at n_labels.

  **Rows where a ranking measure is undefined** -- no relevant label (every
  ranking measure) and, for ranking loss and instance AUC, every label
  relevant -- are **skipped** by default (counted in ``details``). Libraries
  differ here, so ``evaluate(..., undefined=...)`` and each per-measure
  function offer the other conventions:

  ========================  ===========  ===================================  ========================
  measure                   ``"skip"``   ``"best"``                           ``"worst"``
  ========================  ===========  ===================================  ========================
  ranking loss              mlviz        0: ``sklearn label_ranking_loss``    1
  one-error                 mlviz        0                                    1: Mulan, published tables
  coverage                  mlviz        0: Mulan; ``coverage_error`` [*]_    L - 1
  average precision         mlviz        1: sklearn LRAP                      0
  P@k                       mlviz        1                                    0: |top-k ∩ Y| / k as is
  nDCG@k                    mlviz        1                                    0: ``sklearn ndcg_score``
  instance AUC              mlviz        1                                    0
  ========================  ===========  ===================================  ========================

  .. [*] scikit-learn's ``coverage_error`` counts such rows as 0 in its own
     units (without the -1), so there ``coverage(undefined="best")`` equals
     ``coverage_error - (rows with a relevant label) / n``.

  If every row is skipped the measure takes its best value (0 for losses,
  1 for AP, P@k, nDCG@k; 0.5 for instance AUC).

References
----------
- G. Tsoumakas, I. Katakis, I. Vlahavas. Mining multi-label data. Data Mining and
  Knowledge Discovery Handbook, 2010 (example-based, label-based and ranking measures).
- Y. Guo, W. Xue. Probabilistic multi-label classification with sparse feature learning,
  IJCAI 2013, §4.1: Macro-F1 = (1/K) Σ_k 2 Σ_i y_ik ŷ_ik / (Σ_i y_ik + Σ_i ŷ_ik) and
  Micro-F1 (the same ratio of pooled counts) -- identical to ``macro_f1`` / ``micro_f1``.
- K. Kimura, M. Kudo, L. Sun. MLLEM, §4: AUC of the label ranking and top-1 precision
  (``instance_auc``, ``macro_auc``, ``p@1``).
- K. Dembczyński, W. Waegeman, W. Cheng, E. Hüllermeier. On label dependence and loss
  minimization in multi-label classification. Machine Learning 88:5-45, 2012
  (the risk minimiser of Hamming loss thresholds each marginal at 0.5: ``hamming_loss_p05``).
- K. Lee, A. Shajari (MLRH), §5: exact match (``subset_accuracy``) and Hamming loss.
- G. Tsoumakas et al. Mulan: a Java library for multi-label learning, JMLR 12, 2011
  (zero-denominator conventions: a ratio with nothing true and nothing predicted is 1).

Examples
--------
>>> import numpy as np
>>> Y = np.array([[1, 0, 1], [0, 1, 0]])
>>> S = np.array([[0.9, 0.2, 0.4], [0.1, 0.7, 0.6]])
>>> r = evaluate(Y, S, measures=["hamming_loss", "micro_f1", "coverage"])
>>> round(r["hamming_loss"], 4), round(r["micro_f1"], 4), r["coverage"]
(0.3333, 0.6667, 0.5)
"""

import re
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from ._ranks import positive_rank_sums, rank_max_rows
from ._validation import check_Y

__all__ = [
    "RCut", "Measure", "MEASURES", "DEFAULT_MEASURES", "UNDEFINED_CONVENTIONS", "AT_LEAST_ONE_TEXT",
    "at_least_one", "threshold_rule", "binarize", "evaluate", "get_measure", "ranking_loss", "one_error", "coverage",
    "average_precision", "precision_at_k", "ndcg_at_k", "instance_auc",
]


@dataclass(frozen=True)
class RCut:
    """Rank-cut threshold: predict the ``r`` highest-scored labels per instance."""

    r: int

    def __post_init__(self):
        if not isinstance(self.r, Integral) or isinstance(self.r, bool) or self.r < 0:
            raise ValueError(f"RCut needs a non-negative integer r, got {self.r!r}.")


@dataclass(frozen=True)
class Measure:
    """One registered measure.

    Attributes
    ----------
    name : str
        Key used in :func:`evaluate` results.
    label : str
        Human-readable name for tables and plots.
    greater_is_better : bool
    needs : {"labels", "scores"}
        Whether the measure uses binarized predictions or the raw scores.
    """

    name: str
    label: str
    greater_is_better: bool
    needs: str


# ---------------------------------------------------------------- validation
def _as_dense(a, name):
    if sp.issparse(a):
        a = a.toarray()
    a = np.asarray(a)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_labels), got shape {a.shape}.")
    return a


def _check_inputs(Y_true, scores):
    S = _as_dense(scores, "scores").astype(np.float64)
    Y = check_Y(Y_true, name="Y_true")
    if Y.shape != S.shape:
        raise ValueError(f"Y_true and scores have different shapes: {Y.shape} != {S.shape}.")
    if not np.isfinite(S).all():
        raise ValueError("scores contain NaN or infinite values.")
    return Y.astype(bool), S


#: What a decision rule's text (``decision_rule_``) gains when :func:`at_least_one` is part of it.
AT_LEAST_ONE_TEXT = "; at least one label per row"


def at_least_one(P, Y_pred):
    """Give every row with no predicted label its top-scored label (the "at least one label" rule).

    Parameters
    ----------
    P : ndarray, shape (n_samples, n_labels)
        Scores; an empty row gets its argmax (ties: the lower label index).
    Y_pred : ndarray of {0, 1}, shape (n_samples, n_labels)

    Returns
    -------
    ndarray of uint8, shape (n_samples, n_labels)
    """
    out = np.array(Y_pred, dtype=np.uint8, copy=True)
    if out.shape[1] == 0:
        return out
    empty = out.sum(axis=1) == 0
    out[np.flatnonzero(empty), np.argmax(np.asarray(P)[empty], axis=1)] = 1
    return out


def threshold_rule(P, threshold=0.5, allow_empty=True):
    """A threshold decision rule: ``P >= threshold``, and, where ``allow_empty`` is False, every
    empty row given its most probable label (:func:`at_least_one`).

    The rule behind the estimators' ``predict_from_proba`` (their ``predict`` where it thresholds
    the probabilities) and :class:`~mlviz.evaluation.thresholds.ThresholdedClassifier`.

    Parameters
    ----------
    P : array-like, shape (n_samples, n_labels)
        Probabilities (compared in their own dtype).
    threshold : float or ndarray of shape (n_labels,)
    allow_empty : bool

    Returns
    -------
    Y_pred : ndarray of uint8, shape (n_samples, n_labels)
    """
    P = np.asarray(P)
    Y_pred = (P >= threshold).astype(np.uint8)
    return Y_pred if allow_empty else at_least_one(P, Y_pred)


def binarize(scores, threshold=0.5):
    """Turn scores into a 0/1 prediction matrix.

    Parameters
    ----------
    scores : array-like, shape (n_samples, n_labels)
    threshold : float, array-like of shape (n_labels,), or RCut
        Scalar: predict ``scores >= threshold``. Vector: one threshold per
        label (column). ``RCut(r)``: the ``r`` highest scores of each row
        (ties broken by the lower label index; ``r`` capped at n_labels).

    Returns
    -------
    Y_pred : ndarray of uint8, shape (n_samples, n_labels)
    """
    S = _as_dense(scores, "scores").astype(np.float64)
    if isinstance(threshold, RCut):
        r = min(threshold.r, S.shape[1])
        P = np.zeros(S.shape, dtype=np.uint8)
        if r > 0:
            top = np.argsort(-S, axis=1, kind="stable")[:, :r]
            np.put_along_axis(P, top, 1, axis=1)
        return P
    t = np.asarray(threshold, dtype=np.float64)
    if t.ndim == 0:
        return (S >= t).astype(np.uint8)
    if t.shape != (S.shape[1],):
        raise ValueError(f"A per-label threshold must have shape ({S.shape[1]},), got {t.shape}.")
    return (S >= t[None, :]).astype(np.uint8)


# ------------------------------------------------------------ label-based
def _ratio(num, den, perfect):
    """num/den elementwise; where den == 0 return 1 if ``perfect`` else 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.where(perfect, 1.0, 0.0)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _prf(tp, n_pred, n_true):
    """Precision, recall, F1 with the Mulan zero-denominator convention."""
    both_empty = (n_pred == 0) & (n_true == 0)
    p = _ratio(tp, n_pred, both_empty)
    r = _ratio(tp, n_true, both_empty)
    f = _ratio(2 * tp, n_pred + n_true, both_empty)
    return p, r, f


def _label_measures(Y, P, out, wanted):
    n, L = Y.shape
    TP = Y & P
    if "hamming_loss" in wanted:
        out["hamming_loss"] = float(np.mean(Y != P)) if Y.size else 0.0
    if "subset_accuracy" in wanted:
        out["subset_accuracy"] = float(np.mean(np.all(Y == P, axis=1))) if n else 0.0
    for kind, axis in (("micro", None), ("macro", 0), ("example", 1)):
        if not any(w.startswith(kind + "_") and w[len(kind) + 1:] in ("precision", "recall", "f1")
                   for w in wanted):
            continue
        p, r, f = _prf(TP.sum(axis=axis), P.sum(axis=axis), Y.sum(axis=axis))
        for key, v in (("precision", p), ("recall", r), ("f1", f)):
            out[f"{kind}_{key}"] = float(np.mean(v)) if np.size(v) else 1.0


# ---------------------------------------------------------------- AUC
def _auc_columns(Y, S):
    """ROC AUC of each column of S against Y (Mann-Whitney, ties 1/2).

    Returns (auc, valid) where ``valid`` marks columns with both classes.
    """
    n_pos = Y.sum(axis=0).astype(np.float64)
    n_neg = Y.shape[0] - n_pos
    valid = (n_pos > 0) & (n_neg > 0)
    rank_sum = positive_rank_sums(Y, S)  # (rankdata(S, "average", axis=0) summed over the positives)
    auc = np.full(Y.shape[1], 0.5)
    den = n_pos * n_neg
    np.divide(rank_sum - n_pos * (n_pos + 1) / 2, den, out=auc, where=valid)
    return auc, valid


# ------------------------------------------------------------ ranking-based
def _topk_order(S, k):
    return np.argsort(-S, axis=1, kind="stable")[:, :k]


UNDEFINED_CONVENTIONS = ("skip", "best", "worst")
"""How a ranking measure counts the rows on which it is undefined (the ``undefined`` keyword)."""


def _check_undefined(undefined, wanted):
    """``undefined`` as a dict measure -> convention (a str applies to every measure)."""
    if isinstance(undefined, str):
        undefined = dict.fromkeys(wanted, undefined)
    elif isinstance(undefined, dict):
        unknown = [k for k in undefined if k not in wanted]
        if unknown:
            raise ValueError(f"undefined names measures not requested: {', '.join(map(str, unknown))[:200]}.")
        undefined = {w: undefined.get(w, "skip") for w in wanted}
    else:
        raise TypeError(f"undefined must be one of {UNDEFINED_CONVENTIONS} or a dict, got {undefined!r}.")
    for w, how in undefined.items():
        if how not in UNDEFINED_CONVENTIONS:
            raise ValueError(f"undefined must be one of {UNDEFINED_CONVENTIONS} (for {w!r}), got {how!r}.")
    return undefined


def _row_mean(values, n_undefined, how, best, worst):
    """Mean of the per-row ``values`` of the defined rows, the undefined rows counted by ``how``.

    ``"skip"``: mean of ``values`` alone; ``"best"`` / ``"worst"``: each of the
    ``n_undefined`` rows adds the measure's best / worst value. Nothing to
    average gives ``best``.
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.size + (0 if how == "skip" else int(n_undefined))
    if n == 0:
        return float(best)
    fill = {"skip": 0.0, "best": best, "worst": worst}[how]
    return float((values.sum() + (n - values.size) * fill) / n)


def _ranking_measures(Y, S, out, details, wanted, undefined):
    n, L = Y.shape
    n_rel = Y.sum(axis=1)
    has_rel = n_rel > 0
    n_empty = int(np.sum(~has_rel))
    details["ranking_skipped_instances"] = n_empty

    def how(measure):
        return undefined.get(measure, "skip")

    need_ranks = any(w in wanted for w in ("ranking_loss", "coverage", "average_precision"))
    if need_ranks:
        # rank_all[i, l] = |{l': s_il' >= s_il}|; rank_rel counts only relevant l'.
        rank_all = rank_max_rows(-S)  # (= scipy.stats.rankdata(..., method="max", axis=1))
        rank_rel = rank_max_rows(np.where(Y, -S, np.inf))
    if "ranking_loss" in wanted:
        n_irr = L - n_rel
        ok = has_rel & (n_irr > 0)
        details["ranking_loss_skipped_instances"] = int(np.sum(~ok))
        bad_pairs = np.where(Y, rank_all - rank_rel, 0).sum(axis=1)
        loss = bad_pairs[ok] / (n_rel[ok] * n_irr[ok])
        out["ranking_loss"] = _row_mean(loss, np.sum(~ok), how("ranking_loss"), 0.0, 1.0)
    if "coverage" in wanted:
        cov = np.where(Y, rank_all, 0).max(axis=1, initial=0)[has_rel] - 1.0
        out["coverage"] = _row_mean(cov, n_empty, how("coverage"), 0.0, max(L - 1, 0))
    if "average_precision" in wanted:
        prec = np.where(Y, rank_rel / np.maximum(rank_all, 1), 0.0).sum(axis=1)
        ap = prec[has_rel] / n_rel[has_rel]
        out["average_precision"] = _row_mean(ap, n_empty, how("average_precision"), 1.0, 0.0)
    if "one_error" in wanted:
        if L:
            top = np.argmax(S, axis=1)
            err = ~Y[np.arange(n), top]
            out["one_error"] = _row_mean(err[has_rel], n_empty, how("one_error"), 0.0, 1.0)
        else:
            out["one_error"] = 0.0
    ks = sorted({_k_of(w) for w in wanted if _k_of(w) is not None})
    if ks:
        kmax = min(max(ks), L)
        order = _topk_order(S, kmax)
        hits = np.take_along_axis(Y, order, axis=1).astype(np.float64)
        discounts = 1.0 / np.log2(np.arange(2, kmax + 2))
        for w in wanted:
            k = _k_of(w)
            if k is None:
                continue
            kk = min(k, L)
            if kk == 0:
                out[w] = 1.0
                continue
            if w.startswith("p@"):
                vals = hits[has_rel, :kk].sum(axis=1) / kk
            else:
                dcg = hits[has_rel, :kk] @ discounts[:kk]
                ideal_len = np.minimum(n_rel[has_rel], kk)
                ideal = np.concatenate([[0.0], np.cumsum(discounts[:kk])])[ideal_len]
                vals = dcg / ideal
            out[w] = _row_mean(vals, n_empty, how(w), 1.0, 0.0)
    if "instance_auc" in wanted:
        auc, valid = _auc_columns(Y.T, S.T)
        details["instance_auc_skipped_instances"] = int(np.sum(~valid))
        how_auc = how("instance_auc")
        out["instance_auc"] = (_row_mean(auc[valid], np.sum(~valid), how_auc, 1.0, 0.0)
                               if valid.any() or how_auc != "skip" else 0.5)


_K_PATTERN = re.compile(r"^(p|ndcg)@([1-9][0-9]*)$")


def _k_of(name):
    m = _K_PATTERN.match(name)
    return int(m.group(2)) if m else None


# ---------------------------------------------------------------- registry
def _reg(*items):
    return {m.name: m for m in (Measure(*it) for it in items)}


MEASURES = _reg(
    ("hamming_loss", "Hamming loss", False, "labels"),
    ("hamming_loss_p05", "Hamming loss at p ≥ 0.5", False, "scores"),
    ("subset_accuracy", "Subset accuracy", True, "labels"),
    ("micro_precision", "Micro precision", True, "labels"),
    ("micro_recall", "Micro recall", True, "labels"),
    ("micro_f1", "Micro F1", True, "labels"),
    ("macro_precision", "Macro precision", True, "labels"),
    ("macro_recall", "Macro recall", True, "labels"),
    ("macro_f1", "Macro F1", True, "labels"),
    ("example_precision", "Example precision", True, "labels"),
    ("example_recall", "Example recall", True, "labels"),
    ("example_f1", "Example F1", True, "labels"),
    ("macro_auc", "Macro AUC", True, "scores"),
    ("micro_auc", "Micro AUC", True, "scores"),
    ("instance_auc", "Instance AUC", True, "scores"),
    ("ranking_loss", "Ranking loss", False, "scores"),
    ("one_error", "One-error", False, "scores"),
    ("coverage", "Coverage", False, "scores"),
    ("average_precision", "Average precision", True, "scores"),
    ("p@1", "P@1", True, "scores"),
    ("p@3", "P@3", True, "scores"),
    ("p@5", "P@5", True, "scores"),
    ("ndcg@1", "nDCG@1", True, "scores"),
    ("ndcg@3", "nDCG@3", True, "scores"),
    ("ndcg@5", "nDCG@5", True, "scores"),
)
"""Registry name -> :class:`Measure`. ``p@k`` / ``ndcg@k`` for any k >= 1 are
also accepted by :func:`evaluate` and :func:`get_measure`."""

DEFAULT_MEASURES = [
    "hamming_loss", "subset_accuracy", "micro_f1", "macro_f1", "example_f1",
    "macro_auc", "ranking_loss", "one_error", "coverage", "average_precision", "p@1",
]


def get_measure(name):
    """Return the :class:`Measure` for ``name`` (including any ``p@k``/``ndcg@k``)."""
    if name in MEASURES:
        return MEASURES[name]
    k = _k_of(name)
    if k is not None:
        kind = name.split("@")[0]
        return Measure(name, f"{'P' if kind == 'p' else 'nDCG'}@{k}", True, "scores")
    raise ValueError(f"Unknown measure {name!r}; choose from {sorted(MEASURES)} (or p@k / ndcg@k).")


# ---------------------------------------------------------------- evaluate
def evaluate(Y_true, scores, threshold=0.5, measures=None, *, y_pred=None, return_details=False,
             undefined="skip"):
    """Compute multi-label measures.

    Parameters
    ----------
    Y_true : array-like or sparse, shape (n_samples, n_labels), entries in {0, 1}
    scores : array-like or sparse, shape (n_samples, n_labels)
        Real scores (e.g. ``predict_proba``). A 0/1 prediction matrix is also
        accepted (ranking measures then see many ties).
    threshold : float, array-like of shape (n_labels,), or RCut
        Used by label-based measures, see :func:`binarize`.
    measures : list of str, optional
        Keys of :data:`MEASURES` (or ``p@k``/``ndcg@k``); default
        :data:`DEFAULT_MEASURES`.
    y_pred : array-like, shape (n_samples, n_labels), optional
        A 0/1 prediction to use for the label-based measures instead of
        ``binarize(scores, threshold)`` (for methods with their own decision
        rule, e.g. a winner-take-all ``predict``).
    undefined : {"skip", "best", "worst"} or dict[str, str], default "skip"
        How ranking measures count the rows on which they are undefined
        (no relevant label; for ranking loss and instance AUC also every label
        relevant): left out of the mean (``"skip"``, mlviz's default), or
        counted with the measure's best value (``"best"``: loss 0, AP/P@k/
        nDCG@k/AUC 1 -- scikit-learn's ``label_ranking_loss``,
        ``coverage_error`` and ``label_ranking_average_precision_score``) or
        its worst value (``"worst"``: one-error 1 as in Mulan and the published
        tables, coverage L - 1, AP/P@k/nDCG@k/AUC 0 -- the plain P@k and
        scikit-learn's ``ndcg_score``). A dict sets it per measure (others
        ``"skip"``). See the module docstring and the per-measure functions
        (:func:`ranking_loss`, :func:`one_error`, ...).
    return_details : bool
        Also return a dict of counts of skipped labels / instances:
        ``auc_skipped_labels``, ``ranking_skipped_instances`` (no relevant
        label), ``ranking_loss_skipped_instances``,
        ``instance_auc_skipped_instances``, ``n_samples``, ``n_labels``.

    Returns
    -------
    values : dict[str, float]
        In the order of ``measures``; never NaN (see module docstring).
    details : dict[str, int]
        Only if ``return_details``.
    """
    Y, S = _check_inputs(Y_true, scores)
    wanted = list(DEFAULT_MEASURES if measures is None else measures)
    for w in wanted:
        get_measure(w)
    undefined = _check_undefined(undefined, wanted)
    out, details = {}, {"n_samples": int(Y.shape[0]), "n_labels": int(Y.shape[1])}
    if any(get_measure(w).needs == "labels" for w in wanted):
        if y_pred is None:
            P = binarize(S, threshold).astype(bool)
        else:
            P = check_Y(y_pred, name="y_pred")
            if P.shape != S.shape:
                raise ValueError(f"y_pred has shape {P.shape}, expected {S.shape}.")
            P = P.astype(bool)
        _label_measures(Y, P, out, wanted)
    if "hamming_loss_p05" in wanted:
        out["hamming_loss_p05"] = float(np.mean(Y != (S >= 0.5))) if Y.size else 0.0
    if "macro_auc" in wanted:
        auc, valid = _auc_columns(Y, S)
        details["auc_skipped_labels"] = int(np.sum(~valid))
        out["macro_auc"] = float(auc[valid].mean()) if valid.any() else 0.5
    if "micro_auc" in wanted:
        auc, _ = _auc_columns(Y.reshape(-1, 1), S.reshape(-1, 1))
        out["micro_auc"] = float(auc[0])
    _ranking_measures(Y, S, out, details, wanted, undefined)
    values = {w: out[w] for w in wanted}
    return (values, details) if return_details else values


# ------------------------------------------------- one ranking measure each
def _one(name, Y_true, scores, undefined):
    return evaluate(Y_true, scores, measures=[name], undefined=undefined)[name]


def ranking_loss(Y_true, scores, *, undefined="skip"):
    """Ranking loss: the fraction of (relevant, irrelevant) label pairs ordered wrongly, averaged over rows.

    rloss_i = |{(a, b) in Y_i x Ybar_i : s_ib >= s_ia}| / (|Y_i| |Ybar_i|) (ties count as errors).

    Parameters
    ----------
    Y_true : array-like, shape (n_samples, n_labels), entries in {0, 1}
    scores : array-like, shape (n_samples, n_labels)
    undefined : {"skip", "best", "worst"}
        Rows with no relevant or no irrelevant label: skipped (mlviz), counted
        as 0 (``"best"``: ``sklearn.metrics.label_ranking_loss``) or as 1.

    Returns
    -------
    loss : float in [0, 1]
    """
    return _one("ranking_loss", Y_true, scores, undefined)


def one_error(Y_true, scores, *, undefined="skip"):
    """One-error: the fraction of rows whose top-scored label is not relevant (ties: lowest index).

    Parameters
    ----------
    Y_true, scores : array-like, shape (n_samples, n_labels)
    undefined : {"skip", "best", "worst"}
        Rows with no relevant label: skipped (mlviz), counted as 0, or as an
        error (``"worst"``: Mulan's ``OneError`` and the published tables,
        e.g. Bogatinovski et al. 2022). scikit-learn has no one-error.

    Returns
    -------
    error : float in [0, 1]
    """
    return _one("one_error", Y_true, scores, undefined)


def coverage(Y_true, scores, *, undefined="skip"):
    """Coverage (Tsoumakas et al. 2010): how far down the ranking to go to cover every relevant label, minus 1.

    cov_i = max_{l in Y_i} rank_i(l) - 1, rank_i(l) = |{l' : s_il' >= s_il}|
    (``sklearn.metrics.coverage_error`` omits the -1).

    Parameters
    ----------
    Y_true, scores : array-like, shape (n_samples, n_labels)
    undefined : {"skip", "best", "worst"}
        Rows with no relevant label: skipped (mlviz), counted as 0
        (``"best"``: Mulan's ``Coverage``; scikit-learn's ``coverage_error``
        also gives such rows 0, in its units without the -1), or as
        n_labels - 1.

    Returns
    -------
    coverage : float in [0, n_labels - 1]
    """
    return _one("coverage", Y_true, scores, undefined)


def average_precision(Y_true, scores, *, undefined="skip"):
    """Label-ranking average precision, averaged over rows.

    AP_i = (1/|Y_i|) Σ_{l in Y_i} |{l' in Y_i : rank_i(l') <= rank_i(l)}| / rank_i(l).

    Parameters
    ----------
    Y_true, scores : array-like, shape (n_samples, n_labels)
    undefined : {"skip", "best", "worst"}
        Rows with no relevant label: skipped (mlviz), counted as 1
        (``"best"``: ``sklearn.metrics.label_ranking_average_precision_score``)
        or as 0.

    Returns
    -------
    ap : float in [0, 1]
    """
    return _one("average_precision", Y_true, scores, undefined)


def precision_at_k(Y_true, scores, k, *, undefined="skip"):
    """P@k = |top-k ∩ Y_i| / k (top-k by decreasing score, ties by lower index; k capped at n_labels).

    Parameters
    ----------
    Y_true, scores : array-like, shape (n_samples, n_labels)
    k : int >= 1
    undefined : {"skip", "best", "worst"}
        Rows with no relevant label: skipped (mlviz), counted as 1, or as 0
        (``"worst"``: the formula taken as it is).

    Returns
    -------
    precision : float in [0, 1]
    """
    return _one(f"p@{int(k)}", Y_true, scores, undefined)


def ndcg_at_k(Y_true, scores, k, *, undefined="skip"):
    """nDCG@k with binary gains: Σ_{r<=k} [l_r in Y_i] / log2(r + 1) over its ideal value.

    Parameters
    ----------
    Y_true, scores : array-like, shape (n_samples, n_labels)
    k : int >= 1
    undefined : {"skip", "best", "worst"}
        Rows with no relevant label (ideal value 0): skipped (mlviz), counted
        as 1, or as 0 (``"worst"``: ``sklearn.metrics.ndcg_score``).

    Returns
    -------
    ndcg : float in [0, 1]
    """
    return _one(f"ndcg@{int(k)}", Y_true, scores, undefined)


def instance_auc(Y_true, scores, *, undefined="skip"):
    """Mean over rows of the ROC AUC of the row's label ranking (ties 1/2; MLLEM paper, section 5).

    Parameters
    ----------
    Y_true, scores : array-like, shape (n_samples, n_labels)
    undefined : {"skip", "best", "worst"}
        Rows with no relevant or no irrelevant label: skipped (mlviz; 0.5 if
        every row is), counted as 1, or as 0. (``sklearn.metrics.roc_auc_score``
        with ``average="samples"`` refuses such rows.)

    Returns
    -------
    auc : float in [0, 1]
    """
    return _one("instance_auc", Y_true, scores, undefined)
