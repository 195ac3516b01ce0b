"""Helpers shared by cross-validation, grid search and nested tuning.

Imports only :mod:`.splits`, so no import circle.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils import check_random_state

from .splits import multilabel_kfold

__all__ = ["ERROR_PREFIX", "resolve_cv", "predict_scores"]

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


def _is_predict(threshold):
    return isinstance(threshold, str) and threshold == "predict"


