"""Shared validation and the multi-label classifier mixin.

Every estimator in :mod:`mlviz.models` inherits from
:class:`MultiLabelClassifierMixin` and :class:`sklearn.base.BaseEstimator`:
``__init__`` stores hyperparameters verbatim, ``fit`` validates them with
:func:`check_param`, learned attributes end in ``_``.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: F401  (re-exported)
from sklearn.exceptions import NotFittedError  # noqa: F401  (re-exported)
from sklearn.utils.validation import check_array, check_is_fitted


def check_X(X, *, accept_sparse=True, name="X"):
    """Validate a feature matrix: 2-D, finite, float64; CSR if sparse.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)

    Returns
    -------
    X : ndarray or scipy.sparse.csr_matrix, shape (n_samples, n_features), float64
    """
    X = check_array(
        X,
        accept_sparse=["csr"] if accept_sparse else False,
        dtype=np.float64,
        ensure_all_finite=True,
        input_name=name,
    )
    return X


def check_X_Y(X, Y, *, accept_sparse=True, min_samples=2):
    """Validate a multi-label training pair.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (n_samples, n_features)
    Y : array-like or sparse matrix, shape (n_samples, n_labels), entries in {0, 1}

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
    if sp.issparse(Y):
        Y = Y.toarray()
    Y = np.asarray(Y)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise ValueError(f"Y must be a 2-D (n_samples, n_labels) 0/1 matrix, got shape {Y.shape}.")
    if Y.shape[0] != X.shape[0]:
        raise ValueError(f"X and Y have different numbers of rows: {X.shape[0]} != {Y.shape[0]}.")
    if X.shape[0] < min_samples:
        raise ValueError(f"Need at least {min_samples} training samples, got {X.shape[0]}.")
    if Y.size and not np.isin(Y, (0, 1)).all():
        raise ValueError("Y must contain only 0 and 1.")
    return X, Y.astype(np.uint8)


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


class MultiLabelClassifierMixin:
    """Mixin giving ``predict`` by thresholding ``predict_proba``.

    Subclasses implement ``fit`` and ``predict_proba`` returning a dense
    (n_samples, n_labels) array of P(y_l = 1 | x); they may override
    ``predict`` when the method defines its own decision rule.
    """

    threshold = 0.5

    def predict(self, X):
        """Predict a 0/1 label matrix by thresholding ``predict_proba`` at ``self.threshold``.

        Returns
        -------
        Y_pred : ndarray of uint8, shape (n_samples, n_labels)
        """
        proba = self.predict_proba(X)
        return (proba >= getattr(self, "threshold", 0.5)).astype(np.uint8)

    def _check_fitted(self, attributes=None):
        check_is_fitted(self, attributes)

    def _check_predict_X(self, X):
        """Validate prediction input: as :func:`check_X`, with the training feature count.

        Returns
        -------
        X : ndarray or csr_matrix, float64, shape (n_samples, n_features_in_)
        """
        X = check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} was fitted "
                             f"with {self.n_features_in_}.")
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.input_tags.sparse = True
        return tags
