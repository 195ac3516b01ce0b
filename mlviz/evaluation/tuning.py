"""Nested cross-validation: each method's key hyperparameters chosen inside each training fold.

:func:`tuning_grid` holds, per estimator class, the small grid of the
hyperparameters that matter most for that method (the ones the dashboard has
sliders for); :func:`tune_estimator` runs :func:`mlviz.evaluation.grid_search`
on a training set (inner iterative-stratified folds, micro-F1 of the model's own
``predict``) and refits the best candidate on the whole training set.
:func:`mlviz.evaluation.cross_validate` calls it per outer fold when
``tune=True``, so the outer test fold never influences the choice.

Cost: an inner search costs about ``n_candidates x inner_cv + 1`` fits per
outer fold (fewer where the model's ``refit`` hook reuses state); the
``tune_seconds`` column of the results reports it.

Grids are declared once per method, in the method registry
(:mod:`mlviz.models.registry`, ``MethodSpec.tuning``); a registered method
without a grid says why in its ``tuning_note``.
"""

import time
from dataclasses import dataclass

from .grid import grid_search

__all__ = ["TuneSpec", "tuning_grid", "tune_estimator", "format_params"]


@dataclass(frozen=True)
class TuneSpec:
    """What an inner search does: ``grid`` over ``cv`` inner folds, scored by ``measure``."""

    grid: object
    cv: int = 3
    random_state: object = None
    measure: str = "micro_f1"


def _final(estimator):
    steps = getattr(estimator, "steps", None)
    return (steps[-1][0], steps[-1][1]) if steps else (None, estimator)


def tuning_grid(estimator):
    """The key-hyperparameter grid of ``estimator`` (a Pipeline: of its last step, prefixed).

    Returns
    -------
    dict or None
        None when the class is not registered or has no tuning grid.
    """
    from mlviz.models.registry import spec_for_estimator

    step, final = _final(estimator)
    spec = spec_for_estimator(final)
    grid = None if spec is None else spec.tuning_grid()
    if grid is None:
        return None
    return grid if step is None else {f"{step}__{k}": v for k, v in grid.items()}


def format_params(params):
    """``{"model__k": 5}`` -> ``"k=5"``; estimators shown by their non-default parameters."""
    parts = []
    for k, v in params.items():
        name = k.split("__")[-1]
        if hasattr(v, "get_params"):
            text = repr(v).replace("\n", " ")
            text = " ".join(text.split())
        else:
            text = repr(v)
        parts.append(f"{name}={text}")
    return ", ".join(parts)


def tune_estimator(estimator, X, Y, spec):
    """Choose hyperparameters on (X, Y) by inner CV, refit the best on all of it.

    Parameters
    ----------
    estimator : estimator (unfitted)
    X : array-like or CSR, shape (n_samples, n_features)
    Y : ndarray, shape (n_samples, n_labels)
    spec : TuneSpec

    Returns
    -------
    fitted : estimator
        The best candidate fitted on all of (X, Y).
    best_params : dict
    seconds : float
        Wall-clock of the inner search (without the final refit).
    """
    t0 = time.perf_counter()
    result = grid_search(estimator, spec.grid, X, Y, cv=spec.cv, measure=spec.measure, threshold="predict",
                         random_state=spec.random_state, refit_best=False)
    seconds = time.perf_counter() - t0
    fitted = estimator.set_params(**result.best_params).fit(X, Y)
    return fitted, result.best_params, seconds
