"""Trivial references for every table of numbers, and the notes of methods that miss them.

Two references need no features at all, and a method that does worse than them is not
learning anything useful from the features at its settings:

* **rank by training frequency** -- every test instance gets the same scores, each label's
  frequency in the training fold; its P@1 is the fraction of test instances (with at least
  one label, like every P@1 of :mod:`mlviz.metrics`) that have the label most frequent in
  training (ties broken by the lowest label index);
* **predict nothing** -- the empty label set for every test instance; its Hamming loss is the
  fraction of positive entries of the test fold (the label density) and its subset accuracy
  the fraction of test instances with no label.

:func:`trivial_baselines` computes them for one split, :func:`reference_results` per fold as
rows of a :func:`mlviz.evaluation.cross_validate` table (methods :data:`FREQUENCY` and
:data:`EMPTY`), and :func:`bar_notes` says, per method of a result table, which bar it misses
and why that can happen:

* P@1 below the frequency ranking;
* Hamming loss above predicting nothing;
* Hamming loss above 1.5 x BR-LR's, when BR-LR (method ``"br"`` or ``"BR-LR"``) is in the table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["FREQUENCY", "EMPTY", "REFERENCES", "BR_NAMES", "HAMMING_FACTOR", "trivial_baselines",
           "reference_results", "is_reference", "bar_notes"]

FREQUENCY = "ref: rank by training frequency"
"""Method name of the frequency-ranking reference rows (measure ``p@1``)."""
EMPTY = "ref: predict nothing"
"""Method name of the empty-prediction reference rows (``hamming_loss``, ``subset_accuracy``)."""
REFERENCES = (FREQUENCY, EMPTY)
BR_NAMES = ("br", "BR-LR")
"""Method names taken to be binary relevance with logistic regression (CLI and dashboard)."""
HAMMING_FACTOR = 1.5
"""A Hamming loss above this multiple of BR-LR's gets a note."""

_RULES = {
    FREQUENCY: "labels ranked by their training-fold frequency (same ranking for every instance)",
    EMPTY: "the empty label set for every instance",
}

# Why a method can miss a bar, by the start of its name (CLI key or dashboard label, lower case).
_WHY = [
    (("lp", "label powerset"), "LP-LR predicts only label sets seen in training (one class per set), so rare "
                               "combinations are out of reach and a wrong set costs every label of it"),
    (("mllem",), "MLLEM's scores come from distances in a low-dimensional joint label–instance embedding, "
                 "calibrated per label: where the embedding separates the labels poorly no threshold serves both "
                 "F1 and Hamming loss (its default 0.35, chosen by inner CV for micro-F1 on the standard training "
                 "halves, sets more labels than 0.5), and the ranking can fall below the base rates when one "
                 "label is on most rows; with strong instance or label weights (α, β) the embedding follows the "
                 "graphs more than the labels"),
    (("mlknn", "ml-knn"), "ML-kNN depends only on distances: a scaling that suits the features (l2 rows for "
                          "sparse/count data) and k matter more than for linear methods"),
    (("mlrh",), "MLRH decides through its hidden label-set variables; with few training sets per hidden "
                "state its marginals are coarse"),
    (("cdn", "sparse cdn"), "the sparse CDN's probabilities come from its label dependencies; a weak "
                            "penalty (small λ) overfits the label→label weights"),
    (("pcc",), "PCC chains one logistic regression per label; errors early in the chain propagate"),
    (("klr", "kernel lr"), "kernel logistic regression depends on the kernel width σ and λ"),
    (("mllspc", "ml-lspc", "lspc", "mtlspc"), "LSPC's probabilities are least-squares fits, clipped and "
                                              "normalised; a kernel width σ far from the data's scale "
                                              "flattens them"),
]


def _why(method: str) -> str:
    name = str(method).strip().lower()
    for prefixes, text in _WHY:
        if any(name == p or name.startswith(p + " ") or name.startswith(p + "-") or name.startswith(p + "(")
               for p in prefixes):
            return text
    return "its settings or its decision rule may not suit this data set"


def trivial_baselines(Y_train, Y_test):
    """P@1 of ranking labels by training frequency; Hamming loss and subset accuracy of predicting nothing.

    Parameters
    ----------
    Y_train : array-like, shape (n_train, n_labels), entries in {0, 1}
        The training fold (only its label frequencies are used).
    Y_test : array-like, shape (n_test, n_labels), entries in {0, 1}

    Returns
    -------
    values : dict[str, float]
        ``"frequency_p@1"``: among the test instances with at least one label (P@1 skips the
        others, as :func:`mlviz.metrics.evaluate` does; 1.0 if there are none), the fraction that
        have the label most frequent in ``Y_train`` (ties: the lowest label index);
        ``"empty_hamming_loss"``: mean of ``Y_test``;
        ``"empty_subset_accuracy"``: fraction of test rows with no label.

    Examples
    --------
    >>> trivial_baselines([[1, 0], [1, 1], [0, 0]], [[0, 1], [1, 0]])
    {'frequency_p@1': 0.5, 'empty_hamming_loss': 0.5, 'empty_subset_accuracy': 0.0}
    """
    Y_train = np.asarray(Y_train.toarray() if hasattr(Y_train, "toarray") else Y_train, dtype=float)
    Y_test = np.asarray(Y_test.toarray() if hasattr(Y_test, "toarray") else Y_test, dtype=float)
    if Y_train.ndim != 2 or Y_test.ndim != 2 or Y_train.shape[1] != Y_test.shape[1]:
        raise ValueError(f"Y_train and Y_test must be 2-D with the same number of labels, got shapes "
                         f"{Y_train.shape} and {Y_test.shape}.")
    if Y_test.shape[0] == 0 or Y_test.shape[1] == 0:
        raise ValueError("Y_test needs at least one instance and one label.")
    top = int(np.argmax(Y_train.sum(axis=0))) if Y_train.shape[0] else 0
    has_label = Y_test.sum(axis=1) > 0  # P@1 skips instances without a label (mlviz.metrics)
    return {"frequency_p@1": float(Y_test[has_label, top].mean()) if has_label.any() else 1.0,
            "empty_hamming_loss": float(Y_test.mean()),
            "empty_subset_accuracy": float((Y_test.sum(axis=1) == 0).mean())}


def reference_results(Y, folds, measures=None):
    """The trivial references of each fold as rows of a :func:`mlviz.evaluation.cross_validate` table.

    Parameters
    ----------
    Y : array-like, shape (n_samples, n_labels), entries in {0, 1}
    folds : list of (train, test) index arrays
        The folds of the table they go with (fold ``f`` is ``folds[f]``).
    measures : list of str, optional
        Only these of ``p@1`` (method :data:`FREQUENCY`), ``hamming_loss`` and
        ``subset_accuracy`` (method :data:`EMPTY`) are given; default all three.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`mlviz.evaluation.RESULT_COLUMNS`; ``decision_rule`` says what the
        reference predicts, ``scaling`` is ``"—"`` (no features are used), timings are 0.
    """
    from ._columns import RESULT_COLUMNS

    Y = np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y)
    wanted = ["p@1", "hamming_loss", "subset_accuracy"] if measures is None else list(measures)
    rows = []
    for f, (train, test) in enumerate(folds):
        v = trivial_baselines(Y[train], Y[test])
        for method, measure, value in [(FREQUENCY, "p@1", v["frequency_p@1"]),
                                       (EMPTY, "hamming_loss", v["empty_hamming_loss"]),
                                       (EMPTY, "subset_accuracy", v["empty_subset_accuracy"])]:
            if measure in wanted:
                rows.append((method, f, measure, value, 0.0, 0.0, _RULES[method], "—", "", np.nan))
    df = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    return df.astype({"method": str, "fold": np.int64, "measure": str, "value": np.float64,
                      "fit_seconds": np.float64, "predict_seconds": np.float64, "decision_rule": str,
                      "scaling": str, "tuned_params": str, "tune_seconds": np.float64})


def is_reference(method) -> bool:
    """Whether ``method`` names a trivial-reference row of :func:`reference_results`."""
    return str(method) in REFERENCES


def _means(results):
    ok = results[~results["measure"].astype(str).str.startswith("error: ")]
    return ok.groupby(["method", "measure"], sort=False)["value"].mean()


def bar_notes(results):
    """Per method, the trivial bars it misses and why that can happen.

    Parameters
    ----------
    results : pandas.DataFrame
        A :func:`mlviz.evaluation.cross_validate` table that includes the
        :func:`reference_results` rows of the same folds. Means over folds are compared.

    Returns
    -------
    notes : dict[str, list[str]]
        Method -> sentences, in the table's method order; methods that clear every bar (and
        the references themselves) are absent. Bars: mean P@1 below :data:`FREQUENCY`'s; mean
        Hamming loss above :data:`EMPTY`'s; mean Hamming loss above :data:`HAMMING_FACTOR` x
        BR-LR's when a method of :data:`BR_NAMES` is in the table. The last sentence of each
        method's notes says why that can happen, with the decision rule and scaling of its rows.
    """
    means = _means(results)

    def mean(method, measure):
        return means.get((method, measure), np.nan)

    freq_p1 = mean(FREQUENCY, "p@1")
    empty_hl = mean(EMPTY, "hamming_loss")
    br = next((b for b in BR_NAMES if np.isfinite(mean(b, "hamming_loss"))), None)
    br_hl = mean(br, "hamming_loss") if br else np.nan
    notes = {}
    for method in dict.fromkeys(results["method"]):
        if is_reference(method):
            continue
        out = []
        p1, hl = mean(method, "p@1"), mean(method, "hamming_loss")
        if np.isfinite(p1) and np.isfinite(freq_p1) and p1 < freq_p1:
            out.append(f"P@1 {p1:.3f} is below ranking labels by their training frequency ({freq_p1:.3f}): "
                       "its scores order the labels worse than the base rates do.")
        if np.isfinite(hl) and np.isfinite(empty_hl) and hl > empty_hl:
            out.append(f"Hamming loss {hl:.3f} is above predicting nothing ({empty_hl:.3f}): its decision rule "
                       "sets more wrong labels than leaving every label off.")
        if (br is not None and method != br and np.isfinite(hl) and np.isfinite(br_hl)
                and hl > HAMMING_FACTOR * br_hl):
            out.append(f"Hamming loss {hl:.3f} is more than {HAMMING_FACTOR:g}× BR-LR's ({br_hl:.3f}).")
        if out:
            rows = results[results["method"] == method]
            rule = next((r for r in rows["decision_rule"].astype(str) if r), "")
            scaling = next((r for r in rows["scaling"].astype(str) if r), "") if "scaling" in rows else ""
            how = "; ".join(x for x in (f"decision rule: {rule}" if rule else "",
                                        f"scaling: {scaling}" if scaling else "") if x)
            out.append("Why this can happen: " + _why(method) + (f" ({how})." if how else "."))
            notes[method] = out
    return notes
