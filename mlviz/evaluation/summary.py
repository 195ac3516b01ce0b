"""Summaries of a cross-validation table: mean ± std and paired tests."""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from ..metrics import get_measure
from ._common import ERROR_PREFIX

__all__ = ["Summary", "summarize"]

COMPARISON_COLUMNS = ["method", "baseline", "measure", "n_folds", "mean_diff", "std_diff",
                      "wins", "ties", "losses", "statistic", "p_value", "test"]


@dataclass
class Summary:
    """Result of :func:`summarize`.

    Attributes
    ----------
    mean, std, n_folds : pandas.DataFrame, shape (n_methods, n_measures)
        Per method (rows, in order of first appearance) and measure (columns,
        in order of first appearance): mean over folds, sample standard
        deviation over folds (``ddof=1``; NaN with a single fold) and number
        of folds without error.
    table : pandas.DataFrame of str
        ``"mean ± std"`` with ``digits`` decimals, ready for display.
    comparison : pandas.DataFrame or None
        With a baseline: one row per (method != baseline, measure) with the
        columns ``method, baseline, measure, n_folds, mean_diff, std_diff,
        wins, ties, losses, statistic, p_value, test``. ``mean_diff`` is the
        mean of the per-fold differences method - baseline over the folds
        both have; wins/losses count folds where the method is better/worse
        (taking ``greater_is_better`` into account).
    errors : pandas.DataFrame
        The error rows of the input (see :mod:`mlviz.evaluation.cross_validation`).
    """

    mean: pd.DataFrame
    std: pd.DataFrame
    n_folds: pd.DataFrame
    table: pd.DataFrame
    comparison: pd.DataFrame = None
    errors: pd.DataFrame = field(default_factory=pd.DataFrame)

    def to_string(self):
        """Plain-text rendering: the mean ± std table, then the comparison and errors if any."""
        parts = [self.table.to_string()]
        if self.comparison is not None and len(self.comparison):
            cmp = self.comparison.copy()
            cmp["mean_diff"] = cmp["mean_diff"].map(lambda v: f"{v:+.4f}")
            cmp["p_value"] = cmp["p_value"].map(lambda v: f"{v:.4g}")
            cmp["statistic"] = cmp["statistic"].map(lambda v: f"{v:.4g}")
            cols = ["method", "measure", "mean_diff", "wins", "ties", "losses", "statistic", "p_value"]
            parts.append(f"Paired {self.comparison['test'].iloc[0]} test against "
                         f"{self.comparison['baseline'].iloc[0]!r}:\n" + cmp[cols].to_string(index=False))
        if len(self.errors):
            parts.append("Errors:\n" + self.errors[["method", "fold", "measure"]].to_string(index=False))
        return "\n\n".join(parts)

    def __str__(self):
        return self.to_string()


def _greater_is_better(measure):
    try:
        return get_measure(measure).greater_is_better
    except ValueError:  # a measure unknown to mlviz.metrics: assume a score
        return True


def _paired_test(diffs, test):
    """(statistic, p_value) of a two-sided paired test on fold differences."""
    if diffs.size == 0:
        return np.nan, np.nan
    if np.all(diffs == 0):
        return 0.0, 1.0
    if test == "wilcoxon":
        res = stats.wilcoxon(diffs, alternative="two-sided")
    else:
        if diffs.size < 2:
            return np.nan, np.nan
        res = stats.ttest_1samp(diffs, 0.0, alternative="two-sided")
    return float(res.statistic), float(res.pvalue)


def summarize(results, baseline=None, *, test="wilcoxon", digits=3):
    """Mean ± std per method x measure and a paired comparison with a baseline.

    Parameters
    ----------
    results : pandas.DataFrame
        A :func:`mlviz.evaluation.cross_validate` table (columns ``method,
        fold, measure, value, ...``). Error rows are excluded from the
        statistics and reported in ``Summary.errors``.
    baseline : str, optional
        Method to compare every other method with, fold by fold.
    test : {"wilcoxon", "ttest"}
        ``"wilcoxon"``: two-sided Wilcoxon signed-rank test on the per-fold
        differences (``scipy.stats.wilcoxon`` with its defaults: zero
        differences dropped, exact distribution for small n without ties).
        With n folds its smallest attainable p-value is 2 / 2**n, i.e.
        0.0625 for 5 folds and 0.00195 for 10: 5-fold CV can never reach
        p < 0.05 with this test. ``"ttest"``: two-sided paired t-test
        (``scipy.stats.ttest_1samp`` of the differences against 0, identical
        to ``ttest_rel``), which assumes normal differences. If every
        difference is 0 the statistic is 0 and p = 1.
    digits : int
        Decimals in ``Summary.table``.

    Returns
    -------
    Summary
    """
    if test not in ("wilcoxon", "ttest"):
        raise ValueError(f"test must be 'wilcoxon' or 'ttest', got {test!r}.")
    is_error = results["measure"].astype(str).str.startswith(ERROR_PREFIX)
    errors = results[is_error].reset_index(drop=True)
    ok = results[~is_error]
    methods = list(dict.fromkeys(results["method"]))
    measures = list(dict.fromkeys(ok["measure"]))
    grouped = ok.groupby(["method", "measure"], sort=False)["value"]
    mean = grouped.mean().unstack().reindex(index=methods, columns=measures)
    std = grouped.std(ddof=1).unstack().reindex(index=methods, columns=measures)
    count = grouped.count().unstack().reindex(index=methods, columns=measures).fillna(0).astype(int)
    for frame in (mean, std, count):
        frame.index.name, frame.columns.name = "method", None

    def fmt(m, s):
        if np.isnan(m):
            return "—"
        return f"{m:.{digits}f}" if np.isnan(s) else f"{m:.{digits}f} ± {s:.{digits}f}"

    table = pd.DataFrame([[fmt(mean.iat[i, j], std.iat[i, j]) for j in range(len(measures))]
                          for i in range(len(methods))], index=mean.index, columns=measures)
    comparison = None
    if baseline is not None:
        if baseline not in methods:
            raise ValueError(f"baseline {baseline!r} is not a method of the results; choose from {methods}.")
        wide = ok.pivot_table(index=["measure", "fold"], columns="method", values="value", aggfunc="first")
        records = []
        from .baselines import is_reference

        for method in methods:
            if method == baseline or is_reference(method):  # the trivial references: no paired test
                continue
            for measure in measures:
                if measure not in wide.index.get_level_values(0) or method not in wide:
                    continue
                pair = wide.loc[measure, [method, baseline]].dropna()
                diffs = (pair[method] - pair[baseline]).to_numpy(dtype=float)
                sign = 1.0 if _greater_is_better(measure) else -1.0
                stat, p = _paired_test(diffs, test)
                records.append({
                    "method": method, "baseline": baseline, "measure": measure,
                    "n_folds": int(diffs.size),
                    "mean_diff": float(diffs.mean()) if diffs.size else np.nan,
                    "std_diff": float(diffs.std(ddof=1)) if diffs.size > 1 else np.nan,
                    "wins": int(np.sum(sign * diffs > 0)), "ties": int(np.sum(diffs == 0)),
                    "losses": int(np.sum(sign * diffs < 0)),
                    "statistic": stat, "p_value": p, "test": test,
                })
        comparison = pd.DataFrame(records, columns=COMPARISON_COLUMNS)
    return Summary(mean=mean, std=std, n_folds=count, table=table, comparison=comparison, errors=errors)
