"""Cross-validation of multi-label estimators into a tidy long table.

Result table
------------
Exactly the columns of :data:`RESULT_COLUMNS`:
``method`` (str), ``fold`` (int, 0-based), ``measure`` (str), ``value``
(float), ``fit_seconds`` and ``predict_seconds`` (float, wall-clock of
``fit`` and of computing the test scores (+ ``predict`` when
``threshold="predict"``), repeated on each measure row of a method x fold).
One row per method x fold x measure, ordered by method (in the order of the
``estimators`` dict), fold, then measure (in the order of ``measures``).

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
from numbers import Integral

import joblib
import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import check_random_state

from ..metrics import DEFAULT_MEASURES, evaluate, get_measure
from ..models import check_X, check_Y
from .splits import multilabel_kfold

__all__ = ["RESULT_COLUMNS", "cross_validate", "error_rows", "resolve_cv", "predict_scores"]

RESULT_COLUMNS = ["method", "fold", "measure", "value", "fit_seconds", "predict_seconds"]
ERROR_PREFIX = "error: "


def resolve_cv(cv, X, Y, random_state=None):
    """Turn ``cv`` into a list of (train_index, test_index) pairs.

    Parameters
    ----------
    cv : int, scikit-learn splitter or iterable of (train, test) index pairs
        An int gives :func:`multilabel_kfold` with that many folds; an object
        with a ``split`` method is called as ``cv.split(X, Y)``.
    X : array-like or sparse, shape (n_samples, n_features)
    Y : ndarray, shape (n_samples, n_labels)
    random_state : int, RandomState or None
        Used only when ``cv`` is an int.

    Returns
    -------
    folds : list of (ndarray, ndarray)
    """
    n = Y.shape[0]
    if isinstance(cv, Integral) and not isinstance(cv, bool):
        return multilabel_kfold(Y, n_splits=int(cv), random_state=random_state)
    if isinstance(cv, (str, bytes, bool)) or cv is None:
        pairs = None
    elif hasattr(cv, "split"):
        pairs = cv.split(X, Y)
    elif hasattr(cv, "__iter__"):
        pairs = cv
    else:
        pairs = None
    if pairs is None:
        raise ValueError(f"cv must be an int, a splitter with .split or a list of (train, test) pairs, got {cv!r}.")
    folds = []
    for pair in pairs:
        try:
            train, test = pair
        except (TypeError, ValueError):
            raise ValueError("Each cv element must be a (train_index, test_index) pair.") from None
        train, test = np.asarray(train), np.asarray(test)
        if train.dtype == bool:
            train = np.flatnonzero(train)
        if test.dtype == bool:
            test = np.flatnonzero(test)
        for idx in (train, test):
            if idx.size and (idx.dtype.kind not in "iu" or idx.min() < -n or idx.max() >= n):
                raise ValueError(f"cv indices must be integers in [0, {n}).")
        if train.size == 0 or test.size == 0:
            raise ValueError("Every cv fold needs a non-empty training and test set.")
        folds.append((train.astype(np.intp), test.astype(np.intp)))
    if not folds:
        raise ValueError("cv produced no folds.")
    return folds


def predict_scores(estimator, X):
    """Dense (n_samples, n_labels) float scores of a fitted multi-label estimator.

    Uses ``predict_proba``, else ``decision_function``, else ``predict``.
    scikit-learn's list-of-(n, 2)-arrays multi-output probabilities are
    turned into the positive-class columns.
    """
    for name in ("predict_proba", "decision_function", "predict"):
        method = getattr(estimator, name, None)
        if method is not None:
            break
    S = method(X)
    if isinstance(S, list):
        S = np.column_stack([s[:, -1] if np.ndim(s) == 2 else s for s in S])
    if sp.issparse(S):
        S = S.toarray()
    S = np.asarray(S, dtype=np.float64)
    return S[:, None] if S.ndim == 1 else S


def _seed_of(random_state):
    if random_state is None:
        return None
    if isinstance(random_state, Integral):
        return int(random_state)
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _prepare(estimator, seed):
    """Clone; give ``seed`` to every (nested) ``random_state`` parameter that is None."""
    est = clone(estimator)
    if seed is not None:
        unset = {k: seed for k, v in est.get_params(deep=True).items()
                 if (k == "random_state" or k.endswith("__random_state")) and v is None}
        if unset:
            est.set_params(**unset)
    return est


def _error_text(exc):
    msg = str(exc).strip().splitlines()
    text = f"{ERROR_PREFIX}{type(exc).__name__}: {msg[0] if msg else ''}".rstrip(": ")
    return text[:300]


def _fit_and_score(key, estimator, X, Y, train, test, measures, threshold):
    """Fit on ``train``, score on ``test``; returns (key, list of row tuples)."""
    method, fold = key
    fit_s = np.nan
    try:
        t0 = time.perf_counter()
        estimator.fit(X[train], Y[train])
        fit_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        S = predict_scores(estimator, X[test])
        y_pred = estimator.predict(X[test]) if _is_predict(threshold) else None
        pred_s = time.perf_counter() - t0
        values = evaluate(Y[test], S, threshold=0.5 if y_pred is not None else threshold,
                          measures=measures, y_pred=y_pred)
    except Exception as exc:  # noqa: BLE001 -- reported as an error row by design
        return key, [(method, fold, _error_text(exc), np.nan, fit_s, np.nan)]
    return key, [(method, fold, m, float(v), fit_s, pred_s) for m, v in values.items()]


def _is_predict(threshold):
    return isinstance(threshold, str) and threshold == "predict"


def cross_validate(estimators, X, Y, *, cv=5, measures=None, threshold=0.5, n_jobs=1,
                   random_state=None, progress=None):
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
    threshold : float, (n_labels,) array, RCut or "predict"
        How label-based measures binarize the test scores (see
        :func:`mlviz.metrics.binarize`); ``"predict"`` uses each estimator's
        own ``predict`` (e.g. MLRH winner-take-all, MLLEM rank cut).
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

    Returns
    -------
    results : pandas.DataFrame
        Columns exactly :data:`RESULT_COLUMNS`; see the module docstring for
        row order and the error-row convention. Values do not depend on
        ``n_jobs`` or the backend (timings do).

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> res = cross_validate({"knn": KNeighborsClassifier(3)}, X, Y, cv=3,
    ...                      measures=["hamming_loss"], random_state=0)
    >>> list(res.columns), len(res)
    (['method', 'fold', 'measure', 'value', 'fit_seconds', 'predict_seconds'], 3)
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
    folds = resolve_cv(cv, X, Y, random_state=random_state)
    seed = _seed_of(random_state)
    thr = "predict" if _is_predict(threshold) else threshold

    names = list(estimators)
    tasks = [((name, f), _prepare(estimators[name], seed), train, test)
             for name in names for f, (train, test) in enumerate(folds)]
    total = len(tasks)
    if progress is not None:
        progress(0, total)
    collected = {}
    parallel = joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    jobs = (joblib.delayed(_fit_and_score)(key, est, X, Y, tr, te, measures, thr)
            for key, est, tr, te in tasks)
    for key, rows in parallel(jobs):
        collected[key] = rows
        if progress is not None:
            progress(len(collected), total)
    rows = [row for key, _, _, _ in tasks for row in collected[key]]
    df = pd.DataFrame(rows, columns=RESULT_COLUMNS)
    return df.astype({"method": str, "fold": np.int64, "measure": str, "value": np.float64,
                      "fit_seconds": np.float64, "predict_seconds": np.float64})


def error_rows(results):
    """The error rows of a :func:`cross_validate` table (``measure`` starting with ``"error: "``)."""
    return results[results["measure"].str.startswith(ERROR_PREFIX)]
