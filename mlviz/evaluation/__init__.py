"""Evaluation engine: multi-label folds, cross-validation, summaries, grid search.

- :func:`multilabel_kfold` -- iterative stratification (Sechidis et al., 2011).
- :func:`cross_validate` -- any dict of estimators x folds x measures, in
  parallel with joblib (also on a Dask cluster), returning a tidy long table
  with exactly the columns ``method, fold, measure, value, fit_seconds,
  predict_seconds``.
- :func:`summarize` -- mean ± std per method x measure and a paired
  comparison against a baseline (Wilcoxon signed-rank or paired t-test).
- :func:`grid_search` -- hyper-parameters by cross-validation, reusing a
  model's fitted state through its ``refit`` method when it has one.
"""

from .cross_validation import RESULT_COLUMNS, cross_validate, error_rows, resolve_cv
from .grid import GridSearchResult, grid_search
from .splits import multilabel_kfold
from .summary import Summary, summarize

__all__ = [
    "RESULT_COLUMNS", "cross_validate", "error_rows", "resolve_cv", "multilabel_kfold",
    "summarize", "Summary", "grid_search", "GridSearchResult",
]
