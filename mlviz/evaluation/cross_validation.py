"""Cross-validation of multi-label estimators into a tidy long table.

Result table
------------
Exactly the columns of :data:`RESULT_COLUMNS`:
``method`` (str), ``fold`` (int, 0-based), ``measure`` (str), ``value``
(float), ``fit_seconds`` and ``predict_seconds`` (float, wall-clock of
``fit`` -- including any inner tuning -- and of computing the test scores
(+ ``predict`` when ``threshold="predict"``)), ``decision_rule`` (str: which
rule turned scores into label sets for the label-based measures, e.g. the
model's ``decision_rule_`` or ``"threshold 0.5 on predict_proba"``),
``scaling`` (str: the feature scaling fitted on the training fold, e.g.
``"l2"``, ``"standard"``, ``"none"``), ``tuned_params`` (str: the
hyperparameters chosen by the inner search with ``tune``, "" otherwise) and
``tune_seconds`` (float: the inner search's wall-clock, NaN without
``tune``); every column but ``measure``/``value`` is repeated on each
measure row of a method x fold.
One row per method x fold x measure, ordered by method (in the order of the
``estimators`` dict), fold, then measure (in the order of ``measures``); with
``references=True`` the rows of the trivial references follow (methods
``"ref: rank by training frequency"`` and ``"ref: predict nothing"``, see
:mod:`mlviz.evaluation.baselines`).

Failure convention
------------------
If fitting, predicting or scoring raises inside one method x fold, that
method x fold gets a single row with ``measure = "error: <ExceptionType>:
<first line of the message>"`` and ``value = NaN`` (``fit_seconds`` is the
fit time if the fit itself succeeded, else NaN; ``predict_seconds`` NaN).
Every other method x fold is unaffected. :func:`error_rows` selects these
rows; :func:`mlviz.evaluation.summarize` ignores them in the statistics and
lists them in ``Summary.errors``.
"""

import time

import joblib
import numpy as np
import pandas as pd

from ..metrics import DEFAULT_MEASURES, RCut, evaluate, get_measure
from ..models import check_X, check_Y
from ..preprocessing import scaling_of, with_scaling
from ._common import ERROR_PREFIX, _error_text, _is_predict, _prepare, _seed_of, predict_scores, resolve_cv  # noqa: F401
from .tuning import TuneSpec, format_params, tune_estimator, tuning_grid

__all__ = ["RESULT_COLUMNS", "cross_validate", "error_rows", "resolve_cv", "predict_scores"]

from ._columns import RESULT_COLUMNS  # noqa: E402 (shared with .baselines without an import cycle)


def _final_step(estimator):
    steps = getattr(estimator, "steps", None)
    return steps[-1][1] if steps else estimator


def describe_rule(estimator, threshold):
    """How the label-based measures of a fitted ``estimator`` were binarized, as a short string.

    With ``threshold="predict"``: the model's ``decision_rule_`` when it has
    one, else ``"<Class>.predict"``; without a ``predict`` method,
    ``"threshold 0.5 on <scores>"``. Otherwise the threshold that was applied.
    """
    final = _final_step(estimator)
    source = next((n for n in ("predict_proba", "decision_function", "predict") if hasattr(final, n)),
                  "predict")
    if _is_predict(threshold):
        if not hasattr(estimator, "predict"):
            return f"threshold 0.5 on {source}"
        rule = getattr(final, "decision_rule_", None)
        if isinstance(rule, str) and rule.strip():
            return rule.strip()
        t = getattr(final, "threshold", None)
        mixin = getattr(type(final).predict, "__qualname__", "") == "MultiLabelClassifierMixin.predict"
        if mixin and isinstance(t, (int, float)) and not isinstance(t, bool):
            return f"threshold {t:g} on predict_proba"
        return f"{type(final).__name__}.predict"
    if isinstance(threshold, RCut):
        return f"top {threshold.r} labels by {source}"
    t = np.asarray(threshold)
    if t.ndim == 0:
        return f"threshold {float(t):g} on {source}"
    return f"per-label thresholds on {source}"


def _fit_and_score(key, estimator, X, Y, train, test, measures, threshold, tune):
    """Fit (after inner tuning when ``tune``) on ``train``, score on ``test``.

    Returns (key, list of row tuples in :data:`RESULT_COLUMNS` order).
    """
    method, fold = key
    fit_s = tune_s = np.nan
    rule, tuned = "", ""
    scaling = scaling_of(estimator)
    try:
        t0 = time.perf_counter()
        if tune is not None:
            estimator, best, tune_s = tune_estimator(estimator, X[train], Y[train], tune)
            tuned = format_params(best)
        else:
            estimator.fit(X[train], Y[train])
        fit_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        S = predict_scores(estimator, X[test])
        own = _is_predict(threshold) and hasattr(estimator, "predict")
        y_pred = estimator.predict(X[test]) if own else None
        pred_s = time.perf_counter() - t0
        rule = describe_rule(estimator, threshold)
        values = evaluate(Y[test], S, threshold=0.5 if _is_predict(threshold) else threshold,
                          measures=measures, y_pred=y_pred)
    except Exception as exc:  # noqa: BLE001 -- reported as an error row by design
        return key, [(method, fold, _error_text(exc), np.nan, fit_s, np.nan, rule, scaling, tuned, tune_s)]
    return key, [(method, fold, m, float(v), fit_s, pred_s, rule, scaling, tuned, tune_s)
                 for m, v in values.items()]


def _per_method(value, names, what):
    """Broadcast a setting to every method, or check a dict name -> setting."""
    if isinstance(value, dict):
        unknown = [k for k in value if k not in names]
        if unknown:
            raise ValueError(f"{what} names unknown methods: {', '.join(map(str, unknown))[:200]}.")
        return {n: value.get(n) for n in names}
    return dict.fromkeys(names, value)


def cross_validate(estimators, X, Y, *, cv=5, measures=None, threshold="predict", scaling=None,
                   tune=False, inner_cv=3, n_jobs=1, random_state=None, progress=None, references=False):
    """Cross-validate several multi-label estimators on the same folds.

    Parameters
    ----------
    estimators : dict[str, estimator]
        Name -> unfitted estimator with ``fit(X, Y)`` and ``predict_proba``
        (or ``decision_function`` / ``predict``); cloned for every fold.
    X : array-like or CSR matrix, shape (n_samples, n_features)
    Y : array-like, shape (n_samples, n_labels), entries in {0, 1}
    cv : int, splitter or list of (train, test) pairs
        An int means iterative stratification (:func:`multilabel_kfold`).
    measures : list of str, optional
        Keys of :data:`mlviz.metrics.MEASURES`; default ``DEFAULT_MEASURES``.
    threshold : "predict" (default), float, (n_labels,) array or RCut
        How label-based measures binarize the test predictions. ``"predict"``
        uses each estimator's own ``predict`` -- its documented decision rule
        (threshold 0.5 on calibrated probabilities, MLRH winner-take-all,
        MLLEM threshold 0.5 on calibrated probabilities, ...) -- and falls back to 0.5 on ``predict_proba`` for
        an estimator without ``predict``. A number, array or RCut applies that
        rule to every method's scores (see :func:`mlviz.metrics.binarize`);
        meaningful only where those scores are probabilities. Ranking measures
        always use ``predict_proba`` (else ``decision_function``).
    scaling : str, dict[str, str] or None
        Feature scaling put in front of each estimator and fitted on the
        training fold only (:mod:`mlviz.preprocessing`): ``"auto"`` (the
        documented default for X), ``"standard"``, ``"l2"``, ``"tfidf"``,
        ``"maxabs"`` or ``"none"``; a dict gives one per method. None (the
        default) uses the estimators as given (a Pipeline keeps its own
        scaler, reported in the ``scaling`` column).
    tune : bool or dict[str, dict]
        Nested cross-validation: within each training fold, choose the
        method's key hyperparameters by ``inner_cv``-fold
        :func:`mlviz.evaluation.grid_search` (micro-F1 of ``predict``) over
        :func:`mlviz.evaluation.tuning_grid` (or the grid given per method in
        a dict), then refit the best on the whole training fold. The chosen
        parameters are in ``tuned_params`` and the inner search time in
        ``tune_seconds`` (also included in ``fit_seconds``): the cost of a
        tuned comparison. Methods without a grid are fitted as given.
    inner_cv : int
        Folds of the inner search (iterative stratification).
    n_jobs : int
        Parallel method x fold tasks through joblib; the active joblib
        backend is used, so ``with joblib.parallel_config(backend="dask"):``
        runs the tasks on a Dask cluster.
    random_state : int, RandomState or None
        Seeds the folds (when ``cv`` is an int) and is passed as
        ``random_state`` to every estimator whose own ``random_state`` is
        None (also nested ones, e.g. ``estimator__random_state`` in a
        pipeline), so the same value gives the same table.
    progress : callable(done, total), optional
        Called in the calling process with (0, total) first and after each
        finished method x fold task.
    references : bool
        Also append the trivial references of each fold
        (:func:`mlviz.evaluation.reference_results`: P@1 of ranking labels by
        training-fold frequency, Hamming loss and subset accuracy of predicting
        nothing; methods ``"ref: ..."``), for those of these measures that are
        in ``measures``.

    Returns
    -------
    results : pandas.DataFrame
        Columns exactly :data:`RESULT_COLUMNS`; see the module docstring for
        row order, the error-row convention and the ``decision_rule``,
        ``scaling``, ``tuned_params`` and ``tune_seconds`` columns. Values do
        not depend on ``n_jobs`` or the backend (timings do).

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> res = cross_validate({"knn": KNeighborsClassifier(3)}, X, Y, cv=3,
    ...                      measures=["hamming_loss"], scaling="standard", random_state=0)
    >>> len(res), res["scaling"].iloc[0], res["decision_rule"].iloc[0]
    (3, 'standard', 'KNeighborsClassifier.predict')
    """
    if not isinstance(estimators, dict) or not estimators:
        raise ValueError("estimators must be a non-empty dict name -> estimator.")
    X = check_X(X)
    Y = check_Y(Y, n_samples=X.shape[0])
    measures = list(DEFAULT_MEASURES if measures is None else measures)
    for m in measures:
        get_measure(m)
    if not _is_predict(threshold) and isinstance(threshold, str):
        raise ValueError(f"threshold must be a number, a per-label array, RCut or 'predict', got {threshold!r}.")
    names = list(estimators)
    scalings = _per_method(scaling, names, "scaling")
    tunes = _per_method(tune, names, "tune")
    folds = resolve_cv(cv, X, Y, random_state=random_state)
    seed = _seed_of(random_state)
    thr = "predict" if _is_predict(threshold) else threshold
    models = {}
    for name in names:
        est = estimators[name]
        if scalings[name] is not None:
            est = with_scaling(est, scalings[name], X)
        grid = tunes[name]
        if grid is True:
            grid = tuning_grid(est)
        spec = None if not grid else TuneSpec(grid=grid, cv=inner_cv, random_state=seed)
        models[name] = (est, spec)

    tasks = [((name, f), _prepare(models[name][0], seed), models[name][1], train, test)
             for name in names for f, (train, test) in enumerate(folds)]
    total = len(tasks)
    if progress is not None:
        progress(0, total)
    collected = {}
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    jobs = (joblib.delayed(_fit_and_score)(key, est, X, Y, tr, te, measures, thr, spec)
            for key, est, spec, tr, te in tasks)
    for key, rows in parallel(jobs):
        collected[key] = rows
        if progress is not None:
            progress(len(collected), total)
    rows = [row for key, *_ in tasks for row in collected[key]]
    df = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    df = df.astype({"method": str, "fold": np.int64, "measure": str, "value": np.float64,
                    "fit_seconds": np.float64, "predict_seconds": np.float64,
                    "decision_rule": str, "scaling": str, "tuned_params": str,
                    "tune_seconds": np.float64})
    if references:
        from .baselines import reference_results

        refs = reference_results(Y, folds, measures)
        if len(refs):
            df = pd.concat([df, refs], ignore_index=True)
    return df


def error_rows(results):
    """The error rows of a :func:`cross_validate` table (``measure`` starting with ``"error: "``)."""
    return results[results["measure"].str.startswith(ERROR_PREFIX)]
