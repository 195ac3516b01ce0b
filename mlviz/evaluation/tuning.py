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

Grids (3-6 candidates each; centred on the defaults)
----------------------------------------------------
- BinaryRelevance, LabelPowerset, PCC: logistic regression ``C`` in {0.1, 1, 10}
- MLkNN: ``k`` in {5, 10, 20}
- LSPC, KernelLogisticRegression: ``lam`` in {0.01, 0.1, 1}
- MTLSPC, MLLSPC: ``lam`` in {0.01, 0.1, 1} x ``gamma`` in {0.1, 1}
- SparseCDN: ``gamma`` in {1e-3, 1e-2, 1e-1} x ``mu`` in {1e-3, 1e-1}
- MLLEM: ``alpha`` in {0.1, 1, 10} x ``beta`` in {0.1, 1}
- MLRH: ``reg`` in {1e-3, 1e-2, 1e-1}
"""

import time
from dataclasses import dataclass

from .grid import grid_search

__all__ = ["TUNING_GRIDS", "TuneSpec", "tuning_grid", "tune_estimator", "format_params"]


def _lr_grid(max_iter):
    from sklearn.linear_model import LogisticRegression

    return {"estimator": [LogisticRegression(C=c, max_iter=max_iter) for c in (0.1, 1.0, 10.0)]}


TUNING_GRIDS = {
    "BinaryRelevance": lambda: _lr_grid(2000),
    # C in units of 1 / mean ||x||^2 (scale_C=True, the defaults-sweep-extra choice): an LR object in
    # ``estimator`` would bypass that scaling.
    "LabelPowerset": lambda: {"C": [1.0, 3.0, 10.0]},
    "PCC": lambda: {"C": [3.0, 10.0, 30.0]},
    "MLkNN": lambda: {"k": [5, 10, 20]},
    "LSPC": lambda: {"lam": [0.01, 0.1, 1.0]},
    "KernelLogisticRegression": lambda: {"lam": [0.01, 0.1, 1.0]},
    "MTLSPC": lambda: {"lam": [0.01, 0.1, 1.0], "gamma": [0.1, 1.0]},
    "MLLSPC": lambda: {"lam": [0.01, 0.1, 1.0], "gamma": [0.1, 1.0]},
    "SparseCDN": lambda: {"gamma": [1e-3, 1e-2, 1e-1], "mu": [1e-3, 1e-1]},
    "MLLEM": lambda: {"alpha": [0.1, 1.0, 10.0], "beta": [0.1, 1.0]},
    "MLRH": lambda: {"reg": [1e-3, 1e-2, 1e-1]},
}
"""Estimator class name -> function returning a fresh parameter grid (module docstring)."""


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
        None when the class has no entry in :data:`TUNING_GRIDS`.
    """
    step, final = _final(estimator)
    make = TUNING_GRIDS.get(type(final).__name__)
    if make is None:
        return None
    grid = make()
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
