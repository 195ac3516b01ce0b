"""Evaluation engine: multi-label folds, cross-validation, summaries, grid search.

- :func:`multilabel_kfold` -- iterative stratification (Sechidis et al., 2011).
- :func:`cross_validate` -- any dict of estimators x folds x measures, in
  parallel with joblib (also on a Dask cluster), returning a tidy long table
  with exactly the columns :data:`RESULT_COLUMNS` (``method, fold, measure,
  value, fit_seconds, predict_seconds, decision_rule, scaling, tuned_params,
  tune_seconds``); by default each method's own ``predict`` decides the labels.
- :func:`evaluate_split` -- the standard protocol: fit on a fixed training set,
  score on its test set, into the same table (one "fold", ``fold`` = 0).
- :func:`summarize` -- mean ± std per method x measure and a paired
  comparison against a baseline (Wilcoxon signed-rank or paired t-test).
- :func:`grid_search` -- hyper-parameters by cross-validation, reusing a
  model's fitted state through its ``refit`` method when it has one.
- :func:`tuning_grid` / :func:`tune_estimator` -- nested CV: each method's key
  hyperparameters chosen inside each training fold (``cross_validate(tune=True)``).
- :func:`trivial_baselines` / :func:`reference_results` / :func:`bar_notes` -- the
  references that need no features (rank labels by training frequency, predict
  nothing; ``cross_validate(references=True)`` adds them as rows) and, per method,
  the bars it misses and why.

The result table also says, per row, which decision rule and which feature
scaling produced the numbers (``decision_rule``, ``scaling``).
"""

from ._common import resolve_cv
from .baselines import (
                        BR_NAMES,
                        EMPTY,
                        FREQUENCY,
                        HAMMING_FACTOR,
                        REFERENCES,
                        bar_notes,
                        is_reference,
                        reference_results,
                        trivial_baselines,
)
from .cross_validation import RESULT_COLUMNS, cross_validate, describe_rule, error_rows
from .fixed_split import evaluate_split, stack_split
from .grid import GridSearchResult, grid_search
from .splits import multilabel_kfold
from .summary import Summary, summarize
from .tuning import tune_estimator, tuning_grid

__all__ = [
    "RESULT_COLUMNS", "cross_validate", "evaluate_split", "stack_split", "error_rows", "resolve_cv", "multilabel_kfold",
    "summarize", "Summary", "grid_search", "GridSearchResult", "describe_rule",
    "tuning_grid", "tune_estimator", "trivial_baselines", "reference_results",
    "bar_notes", "is_reference", "FREQUENCY", "EMPTY", "REFERENCES", "BR_NAMES", "HAMMING_FACTOR",
]
