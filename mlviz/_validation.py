"""Input validation shared by every estimator, the metrics and the evaluation engine.

One place for what a feature matrix ``X`` and a label matrix ``Y`` must look
like, so that a model's ``fit``, :func:`mlviz.metrics.evaluate`,
:func:`mlviz.evaluation.cross_validate` and :func:`mlviz.evaluation.multilabel_kfold`
accept and reject the same inputs with the same messages.  Also home of
:class:`TooLargeError`, the error an estimator raises *before* it starts when a
shape cannot be fitted within budget.

This module imports only numpy, scipy and scikit-learn (no other mlviz
module), so anything in mlviz may use it.  Public names are re-exported from
:mod:`mlviz.models` (``check_X``, ``check_Y``, ``check_X_Y``, ``check_param``,
``TooLargeError``); the models keep importing them from ``_base``.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

__all__ = ["check_X", "check_Y", "check_X_Y", "check_param", "TooLargeError", "MAX_FIT_SECONDS"]


MAX_FIT_SECONDS = 300.0
"""A fit whose own estimate (one core) exceeds this many seconds is refused with :class:`TooLargeError`
(InsDif, RandomForestML): five minutes is the longest a dashboard user waits for one fit."""


class TooLargeError(ValueError):
    """This shape cannot be fitted within budget; raised before any work starts.

    The message says what was asked, the estimate (seconds and/or bytes) and
    the alternative (a smaller setting or another method).

    Parameters
    ----------
    message : str
        Complete, user-facing message (estimate + alternative).
    estimate_seconds : float, optional
        Estimated wall-clock time of the fit.
    estimate_bytes : float, optional
        Estimated peak memory of the fit.
    alternative : str, optional
        What to do instead (e.g. ``"n_centers=2000"`` or ``"use MLkNN"``).

    Examples
    --------
    >>> err = TooLargeError("MLRH on 983 labels needs ~40 GB; use max_labelsets=5000",
    ...                     estimate_bytes=4e10, alternative="max_labelsets=5000")
    >>> isinstance(err, ValueError), err.alternative
    (True, 'max_labelsets=5000')
    """

    def __init__(self, message, *, estimate_seconds=None, estimate_bytes=None, alternative=None):
        super().__init__(message)
        self.estimate_seconds = estimate_seconds
        self.estimate_bytes = estimate_bytes
        self.alternative = alternative

    def __reduce__(self):  # keyword-only fields survive pickling (joblib workers)
        return (_rebuild_too_large, (self.args[0] if self.args else "", self.estimate_seconds,
                                     self.estimate_bytes, self.alternative))


def _rebuild_too_large(message, seconds, nbytes, alternative):
    return TooLargeError(message, estimate_seconds=seconds, estimate_bytes=nbytes, alternative=alternative)


def check_X(X, *, accept_sparse=True, name="X"):
    """Validate a feature matrix: 2-D, finite, float64; CSR if sparse.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    accept_sparse : bool
        Accept scipy.sparse input (converted to CSR).
    name : str
        Name used in error messages.

    Returns
    -------
    X : ndarray or scipy.sparse.csr_matrix, shape (n_samples, n_features), float64
    """
    return check_array(X, accept_sparse=["csr"] if accept_sparse else False, dtype=np.float64,
                       ensure_all_finite=True, input_name=name)


def check_Y(Y, *, n_samples=None, name="Y"):
    """Validate a multi-label target: a 2-D 0/1 matrix (a 1-D vector is one label).

    Parameters
    ----------
    Y : array-like or sparse matrix, shape (n_samples, n_labels) or (n_samples,)
        Entries in {0, 1} (bool, int or float 0.0/1.0).
    n_samples : int, optional
        Required number of rows (the rows of the matching ``X``).
    name : str
        Name used in error messages (``"Y"``, ``"Y_true"``).

    Returns
    -------
    Y : ndarray of uint8, shape (n_samples, n_labels)

    Raises
    ------
    ValueError
        ``"<name> must be a 2-D (n_samples, n_labels) 0/1 matrix, got shape ..."``,
        ``"X and <name> have different numbers of rows: a != b."`` or
        ``"<name> must contain only 0 and 1."``.

    Examples
    --------
    >>> check_Y([1, 0, 1]).shape
    (3, 1)
    >>> check_Y([[0, 2]])
    Traceback (most recent call last):
    ...
    ValueError: Y must contain only 0 and 1.
    """
    if sp.issparse(Y):
        Y = Y.toarray()
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (n_samples, n_labels) 0/1 matrix, got shape {Y.shape}.")
    if n_samples is not None and Y.shape[0] != n_samples:
        raise ValueError(f"X and {name} have different numbers of rows: {n_samples} != {Y.shape[0]}.")
    if Y.dtype == bool:
        return Y.astype(np.uint8)
    if Y.dtype.kind not in "biuf":
        raise ValueError(f"{name} must contain only 0 and 1.")
    if Y.size and not ((Y == 0) | (Y == 1)).all():
        raise ValueError(f"{name} must contain only 0 and 1.")
    return Y.astype(np.uint8)


def check_X_Y(X, Y, *, accept_sparse=True, min_samples=2):
    """Validate a multi-label training pair (:func:`check_X` and :func:`check_Y`).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    Y : array-like or sparse matrix, shape (n_samples, n_labels), entries in {0, 1}
    accept_sparse : bool
    min_samples : int
        Minimum number of rows.

    Returns
    -------
    X : ndarray or csr_matrix, float64, shape (n_samples, n_features)
    Y : ndarray of uint8, shape (n_samples, n_labels)

    Raises
    ------
    ValueError
        If shapes disagree, Y is not binary, or there are fewer than
        ``min_samples`` rows.
    """
    X = check_X(X, accept_sparse=accept_sparse)
    Y = check_Y(Y, n_samples=X.shape[0])
    if X.shape[0] < min_samples:
        raise ValueError(f"Need at least {min_samples} training samples, got {X.shape[0]}.")
    return X, Y


def check_param(owner, name, value, *, low=None, high=None, low_inclusive=True,
                high_inclusive=True, options=None, allow_none=False):
    """Validate one hyperparameter with a scikit-learn style message.

    Examples
    --------
    >>> check_param("MLLSPC", "gamma", -1, low=0)
    Traceback (most recent call last):
    ...
    ValueError: The 'gamma' parameter of MLLSPC must be >= 0, got -1.
    """
    owner_name = owner if isinstance(owner, str) else type(owner).__name__
    if value is None and allow_none:
        return value
    if options is not None:
        if value not in options:
            raise ValueError(
                f"The {name!r} parameter of {owner_name} must be one of "
                f"{sorted(map(str, options))}, got {value!r}."
            )
        return value
    if not isinstance(value, Real) or isinstance(value, bool) or not np.isfinite(value):
        raise ValueError(f"The {name!r} parameter of {owner_name} must be a finite number, got {value!r}.")
    if low is not None:
        bad = value < low if low_inclusive else value <= low
        if bad:
            op = ">=" if low_inclusive else ">"
            raise ValueError(f"The {name!r} parameter of {owner_name} must be {op} {low}, got {value!r}.")
    if high is not None:
        bad = value > high if high_inclusive else value >= high
        if bad:
            op = "<=" if high_inclusive else "<"
            raise ValueError(f"The {name!r} parameter of {owner_name} must be {op} {high}, got {value!r}.")
    return value
