"""Hyper-parameter search by multi-label cross-validation, with state reuse.

The ``refit`` hook
------------------
If ``estimator`` has a method ``refit(**params)`` and every parameter that
varies over the grid is a named argument of it, :func:`grid_search` fits
one model per fold (with the first candidate's parameters) and reaches every
other candidate by calling ``refit`` on that fitted model, instead of
fitting from scratch. ``refit`` must update the fitted model *in place* to
the state ``clone(est).set_params(**params).fit(X_train, Y_train)`` would
reach (e.g. ML-LSPC keeps its kernel eigendecompositions and only re-solves
for new lambda/gamma), keep ``get_params()`` consistent, and return
``self``. All candidates must then set the same parameter names (a plain
dict grid or a list of dicts with the same keys); otherwise the search falls
back to fitting each candidate.
"""

import inspect
from dataclasses import dataclass

import joblib
import numpy as np
import pandas as pd
from sklearn.model_selection import ParameterGrid

from ..metrics import evaluate, get_measure
from ..models import check_X, check_Y
from ._common import _error_text, _is_predict, _prepare, _seed_of, predict_scores, resolve_cv
from .thresholds import THRESHOLD_GRID, allows_empty, choose_thresholds, crossfit_scores, fold_table, pooled_thresholds

__all__ = ["GridSearchResult", "grid_search", "refit_parameters"]


@dataclass
class GridSearchResult:
    """Result of :func:`grid_search`.

    Attributes
    ----------
    best_params : dict
    best_score : float
        Mean CV score of ``best_params``.
    table : pandas.DataFrame
        One row per candidate, in grid order: one column per parameter,
        ``params`` (dict), ``mean``, ``std`` (ddof=1), ``rank`` (1 = best),
        ``fold_0 ... fold_{k-1}``, ``error`` ("" when every fold worked).
    measure : str
    used_refit : bool
        Whether the ``refit`` hook was used.
    best_estimator : estimator or None
        Refitted on all of (X, Y) when ``refit_best=True``.
    best_threshold : ndarray of shape (n_labels,) or None
        With ``threshold_modes``: the tuned per-label thresholds of the best candidate (all equal
        for the global mode), or None when its own ``predict`` was best (``best_estimator``
        then predicts with its own rule; otherwise threshold its ``predict_proba`` with these).
    threshold_mode : str
        ``"own rule"``, ``"global"`` or ``"label"``: the best candidate's decision rule.
    """

    best_params: dict
    best_score: float
    table: pd.DataFrame
    measure: str
    used_refit: bool
    best_estimator: object = None
    best_threshold: object = None
    threshold_mode: str = "own rule"


def refit_parameters(estimator):
    """Names accepted by ``estimator.refit`` (empty set when there is no such method).

    For a :class:`sklearn.pipeline.Pipeline` (e.g. a scaler in front of the
    model, :func:`mlviz.preprocessing.with_scaling`), the names of its last
    step's ``refit``, prefixed ``"<step>__"`` as in ``get_params``: the
    earlier steps do not depend on them, so the fitted pipeline is reused.
    """
    steps = getattr(estimator, "steps", None)
    if steps:
        return {f"{steps[-1][0]}__{n}" for n in refit_parameters(steps[-1][1])}
    refit = getattr(estimator, "refit", None)
    if not callable(refit):
        return set()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {n for n, p in inspect.signature(refit).parameters.items() if p.kind in kinds and n != "self"}


def _refit(est, params):
    """Call the (last step's) ``refit`` in place with ``params`` (names as in :func:`refit_parameters`)."""
    steps = getattr(est, "steps", None)
    if steps:
        prefix = f"{steps[-1][0]}__"
        steps[-1][1].refit(**{k[len(prefix):]: v for k, v in params.items()})
    else:
        est.refit(**params)


def _score(est, X, Y, measure, threshold, counts=False):
    """The fold's score; with ``counts``, ``(score, fold_table of the scores)`` (with the fallback
    rule when the fitted model has ``allow_empty_`` False)."""
    S = predict_scores(est, X)
    if _is_predict(threshold) and hasattr(est, "predict"):
        value = evaluate(Y, S, measures=[measure], y_pred=est.predict(X))[measure]
    else:
        value = evaluate(Y, S, threshold=0.5 if _is_predict(threshold) else threshold, measures=[measure])[measure]
    if not counts:
        return value
    return value, fold_table(Y, S, THRESHOLD_GRID, at_least_one_label=not allows_empty(est))


def _fold_with_refit(fold, estimator, candidates, varying, X, Y, train, test, measure, threshold, counts=False):
    """Fit once, refit for the other candidates. Returns (fold, scores, errors, counts per candidate)."""
    scores = np.full(len(candidates), np.nan)
    errors = [""] * len(candidates)
    tables = [None] * len(candidates)
    X_test, Y_test = X[test], Y[test]  # one object, so models may cache test-side features
    try:
        est = estimator.set_params(**candidates[0])
        est.fit(X[train], Y[train])
    except Exception as exc:  # noqa: BLE001
        return fold, scores, [_error_text(exc)] * len(candidates), tables
    for i, params in enumerate(candidates):
        try:
            if i > 0:
                _refit(est, {k: params[k] for k in varying})
            out = _score(est, X_test, Y_test, measure, threshold, counts)
            scores[i], tables[i] = out if counts else (out, None)
        except Exception as exc:  # noqa: BLE001
            errors[i] = _error_text(exc)
    return fold, scores, errors, tables


def _fold_one_candidate(key, estimator, params, X, Y, train, test, measure, threshold, counts=False):
    try:
        est = estimator.set_params(**params)
        est.fit(X[train], Y[train])
        out = _score(est, X[test], Y[test], measure, threshold, counts)
        return (key, *out, "") if counts else (key, out, None, "")
    except Exception as exc:  # noqa: BLE001
        return key, np.nan, None, _error_text(exc)


def grid_search(estimator, param_grid, X, Y, *, cv=5, measure="micro_f1", threshold="predict",
                random_state=None, n_jobs=1, refit_best=True, use_refit=True, progress=None, threshold_modes=()):
    """Choose hyper-parameters by multi-label cross-validation.

    Parameters
    ----------
    estimator : estimator
        Unfitted; cloned for each task.
    param_grid : dict or list of dicts
        As for :class:`sklearn.model_selection.ParameterGrid`.
    X : array-like or CSR, shape (n_samples, n_features)
    Y : array-like, shape (n_samples, n_labels)
    cv : int, splitter or list of (train, test) pairs
        See :func:`mlviz.evaluation.resolve_cv` (int = iterative stratification).
    measure : str
        Key of :data:`mlviz.metrics.MEASURES`; its ``greater_is_better``
        decides the direction. Ties go to the earlier candidate.
    threshold : "predict" (default), float, array or RCut
        Binarization for label-based measures: ``"predict"`` is the model's
        own ``predict`` (its documented decision rule; 0.5 on the scores when
        it has none), as in :func:`mlviz.evaluation.cross_validate`.
    random_state : int, RandomState or None
        Seeds the folds and estimators whose ``random_state`` is None.
    n_jobs : int
        joblib parallelism over folds (refit hook) or fold x candidate tasks.
    refit_best : bool
        Fit the best candidate on all data into ``best_estimator``.
    use_refit : bool
        Allow the ``refit`` hook (module docstring); False forces fitting
        every candidate from scratch.
    progress : callable(done, total), optional
    threshold_modes : tuple of {"global", "label"}
        Also tune a decision threshold on ``predict_proba`` (:mod:`mlviz.evaluation.thresholds`):
        each candidate is scored with its own rule (``threshold``) and with the tuned
        threshold(s) of each mode, cross-fitted over the folds (the threshold scored on a fold
        is chosen on the others); the candidate's ``mean`` is its best variant, named in the
        table's ``decision`` column (means of every variant in ``mean_<variant>``). Only for
        estimators whose ``predict`` thresholds probabilities, and measures of
        :data:`mlviz.evaluation.thresholds.THRESHOLD_MEASURES`. A fitted model with
        ``allow_empty_`` False is scored under its at-least-one-label fallback
        (:class:`mlviz.evaluation.thresholds.FallbackCounts`).

    Returns
    -------
    GridSearchResult
        Candidates with an error in any fold get ``mean = NaN`` and are not
        eligible; if every candidate fails a ``RuntimeError`` is raised.
    """
    get_measure(measure)
    modes = tuple(threshold_modes or ())
    if modes:
        choose_thresholds(np.zeros((len(THRESHOLD_GRID), 1, 3), dtype=np.int64), 1, modes[0], measure)  # validates
    X = check_X(X)
    Y = check_Y(Y, n_samples=X.shape[0])
    candidates = list(ParameterGrid(param_grid))
    folds = resolve_cv(cv, X, Y, random_state=random_state)
    seed = _seed_of(random_state)
    keys = {frozenset(c) for c in candidates}
    varying = sorted({k for c in candidates for k in c
                      if len({repr(d.get(k)) for d in candidates}) > 1})
    hook = (use_refit and len(candidates) > 1 and len(keys) == 1
            and set(varying) <= refit_parameters(estimator))
    n_c, n_f = len(candidates), len(folds)
    scores = np.full((n_c, n_f), np.nan)
    errors = [[""] * n_f for _ in range(n_c)]
    tables = [[None] * n_f for _ in range(n_c)]
    counts = bool(modes)
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    if hook:
        jobs = (joblib.delayed(_fold_with_refit)(f, _prepare(estimator, seed), candidates, varying,
                                                 X, Y, tr, te, measure, threshold, counts)
                for f, (tr, te) in enumerate(folds))
        total = n_f
    else:
        jobs = (joblib.delayed(_fold_one_candidate)((i, f), _prepare(estimator, seed), c,
                                                    X, Y, tr, te, measure, threshold, counts)
                for i, c in enumerate(candidates) for f, (tr, te) in enumerate(folds))
        total = n_c * n_f
    if progress is not None:
        progress(0, total)
    for done, out in enumerate(parallel(jobs), start=1):
        if hook:
            f, s, e, c = out
            scores[:, f] = s
            for i in range(n_c):
                errors[i][f], tables[i][f] = e[i], c[i]
        else:
            (i, f), s, c, e = out
            scores[i, f], tables[i][f], errors[i][f] = s, c, e
        if progress is not None:
            progress(done, total)

    failed = np.array([any(row) for row in errors])
    greater = get_measure(measure).greater_is_better
    variants = {"own rule": scores}
    sizes = [len(te) for _, te in folds]
    for mode in modes:
        v = np.full((n_c, n_f), np.nan)
        for i in range(n_c):
            if not failed[i]:
                v[i] = crossfit_scores(tables[i], sizes, mode, measure)
        variants[mode] = v
    means = {k: np.where(failed, np.nan, v.mean(axis=1)) for k, v in variants.items()}
    stacked = np.stack([means[k] if greater else -means[k] for k in variants])  # (n_variants, n_c)
    pick = np.argmax(np.where(np.isnan(stacked), -np.inf, stacked), axis=0)  # ties: the own rule first
    decision = [list(variants)[j] for j in pick]
    scores = np.stack([variants[decision[i]][i] for i in range(n_c)]) if modes else scores
    mean = np.where(failed, np.nan, scores.mean(axis=1))
    std = np.where(failed | (n_f < 2), np.nan, scores.std(axis=1, ddof=1) if n_f > 1 else 0.0)
    if np.all(np.isnan(mean)):
        first = next(e for row in errors for e in row if e)
        raise RuntimeError(f"Every candidate failed in grid_search; first error: {first}")
    key = np.where(np.isnan(mean), -np.inf, mean if greater else -mean)
    best = int(np.argmax(key))  # first maximum: ties go to the earlier candidate
    order = np.argsort(-key, kind="stable")
    rank = np.empty(n_c, dtype=int)
    rank[order] = np.arange(1, n_c + 1)

    names = list(dict.fromkeys(k for c in candidates for k in c))
    table = pd.DataFrame({name: [c.get(name) for c in candidates] for name in names})
    table["params"] = candidates
    table["mean"], table["std"], table["rank"] = mean, std, rank
    for f in range(n_f):
        table[f"fold_{f}"] = scores[:, f]
    table["error"] = ["; ".join(sorted({e for e in row if e})) for row in errors]
    best_threshold, mode = None, "own rule"
    if modes:
        table["decision"] = decision
        for k, v in means.items():
            table[f"mean_{k.replace(' ', '_')}"] = v
        mode = decision[best]
        if mode != "own rule":
            best_threshold = THRESHOLD_GRID[pooled_thresholds(tables[best], X.shape[0], mode, measure)]
    best_est = None
    if refit_best:
        best_est = _prepare(estimator, seed).set_params(**candidates[best]).fit(X, Y)
    return GridSearchResult(best_params=dict(candidates[best]), best_score=float(mean[best]),
                            table=table, measure=measure, used_refit=bool(hook),
                            best_estimator=best_est, best_threshold=best_threshold, threshold_mode=mode)
