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

Decision thresholds are tuned the same way for every method whose ``predict`` is a
threshold on its probabilities (``MethodSpec.tunes_threshold``): on the same inner
folds, each grid candidate is also scored with a tuned global threshold and with
tuned per-label thresholds (:mod:`mlviz.evaluation.thresholds`, chosen on the other
inner folds), and the best of {own rule, global, per label} x grid wins. A tuned
threshold is reported with the other parameters (``threshold=0.3`` or
``threshold=per label 0.1–0.6 (median 0.3)``) and the refitted model is a
:class:`mlviz.evaluation.thresholds.ThresholdedClassifier`. Methods with their own
rule (LP's most probable label set, MLRH's winner-take-all) keep it. A method with the
at-least-one-label fallback (fitted ``allow_empty_`` False) is scored and refitted with it:
the tuned rule is then ``at_least_one(P, P >= t)``.
"""

import time
from dataclasses import dataclass

from .grid import grid_search
from .thresholds import THRESHOLD_MEASURES, THRESHOLD_MODES, ThresholdedClassifier, describe_thresholds

__all__ = ["TuneSpec", "tuning_grid", "tune_estimator", "format_params"]


@dataclass(frozen=True)
class TuneSpec:
    """What an inner search does: ``grid`` over ``cv`` inner folds, scored by ``measure``; ``thresholds``:
    the threshold modes tuned beside the grid where the method allows it (empty: none)."""

    grid: object
    cv: int = 3
    random_state: object = None
    measure: str = "micro_f1"
    thresholds: tuple = THRESHOLD_MODES


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


def threshold_modes(estimator, spec):
    """The threshold modes of ``spec`` that apply to ``estimator`` (empty when its rule is its own)."""
    from mlviz.models.registry import spec_for_estimator

    method = spec_for_estimator(_final(estimator)[1])
    if not spec.thresholds or method is None or not method.tunes_threshold or spec.measure not in THRESHOLD_MEASURES:
        return ()
    return tuple(spec.thresholds)


def format_params(params):
    """``{"model__k": 5}`` -> ``"k=5"``; estimators shown by their non-default parameters."""
    parts = []
    for k, v in params.items():
        name = k.split("__")[-1]
        if name == "threshold" and not isinstance(v, (int, float)):
            text = describe_thresholds(v) if not isinstance(v, str) else v
        elif hasattr(v, "get_params"):
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
        The chosen grid values, plus ``"threshold"`` (ndarray of shape (n_labels,)) when a tuned
        threshold beat the method's own rule.
    seconds : float
        Wall-clock of the inner search (without the final refit).
    """
    t0 = time.perf_counter()
    result = grid_search(estimator, spec.grid, X, Y, cv=spec.cv, measure=spec.measure, threshold="predict",
                         random_state=spec.random_state, refit_best=False,
                         threshold_modes=threshold_modes(estimator, spec))
    seconds = time.perf_counter() - t0
    estimator = estimator.set_params(**result.best_params)
    best = dict(result.best_params)
    if result.best_threshold is None:
        return estimator.fit(X, Y), best, seconds
    t = result.best_threshold
    best["threshold"] = t if result.threshold_mode == "label" else float(t[0])
    return ThresholdedClassifier(estimator, threshold=best["threshold"]).fit(X, Y), best, seconds
