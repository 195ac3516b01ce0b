"""The multi-label classifier mixin every estimator inherits.

Every estimator in :mod:`mlviz.models` inherits from
:class:`MultiLabelClassifierMixin` and :class:`sklearn.base.BaseEstimator`:
``__init__`` stores hyperparameters verbatim, ``fit`` validates them with
:func:`check_param`, learned attributes end in ``_``.

The estimator contract (tested by ``tests/contract.py``)
--------------------------------------------------------
- ``refit(**params)`` (where it exists) refits *in place* and returns ``self``;
- ``score(X, Y)`` is the default measure of :meth:`MultiLabelClassifierMixin.score`
  (micro-F1 of ``predict``; greater is better), so
  ``sklearn.model_selection.GridSearchCV(estimator, grid)`` works without a scorer;
- ``predict``/``predict_proba`` raise ``NotFittedError`` before ``fit``;
- ``random_state`` seeds every randomised step;
- ``predict(X)`` equals the documented decision rule applied to ``predict_proba(X)``,
  and the fitted estimator states it in ``decision_rule_`` (a short string such as
  ``"threshold 0.5 on calibrated probabilities"``);
- an estimator with the ``empty_set`` hyperparameter ({"auto", True, False}) resolves it
  on the training labels into ``allow_empty_`` (:meth:`MultiLabelClassifierMixin._fit_empty_set`);
  where that is False, a row its rule leaves empty is given its most probable label
  (:func:`mlviz.decision.at_least_one`) and ``decision_rule_`` says so. The classes
  default to ``True`` (the papers' rules); the method registry sets ``"auto"`` where inner
  cross-validation on the training halves shows the rule helps (benchmarks/RESULTS.md,
  "An 'at least one label' decision rule");
- a shape that cannot be fitted within budget raises :class:`TooLargeError`
  before any work starts, with an estimate and the alternative.

Validation (``check_X``, ``check_Y``, ``check_X_Y``, ``check_param``) and
:class:`TooLargeError` live in :mod:`mlviz._validation` and are
re-exported here so the model modules keep importing them from ``_base``.
"""

import functools

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: F401  (re-exported)
from sklearn.exceptions import NotFittedError  # noqa: F401  (re-exported)
from sklearn.utils.validation import check_is_fitted

from .._validation import MAX_FIT_SECONDS, TooLargeError, check_param, check_X, check_X_Y, check_Y  # noqa: F401
from ..metrics import AT_LEAST_ONE_TEXT, threshold_rule

#: The values of the ``empty_set`` hyperparameter.
EMPTY_SET_OPTIONS = ("auto", True, False)


_EMPTY_SET_PARAMETER = """\
    empty_set : {"auto", True, False}, default True
        Whether ``predict`` may return an empty label set. ``True``: the rule of ``decision_rule_`` (the
        paper's); ``False``: a row it leaves empty gets its most probable label; ``"auto"``:
        ``False`` when every training row has a label, else ``True`` (the method registry's
        default where inner CV supports it). Resolved in ``allow_empty_``.
"""


def empty_set_param(cls):
    """Class decorator for an estimator with the ``empty_set`` hyperparameter: fills the docstring's
    ``{empty_set_parameter}`` line (one text for every such estimator) and checks the value when
    ``fit`` starts, before any work (the resolution on the labels,
    :meth:`MultiLabelClassifierMixin._fit_empty_set`, comes at the end of the fit)."""
    marker = "    {empty_set_parameter}\n"
    if cls.__doc__ is not None:  # (python -OO strips docstrings)
        assert marker in cls.__doc__, f"{cls.__name__}'s docstring has no {{empty_set_parameter}} line"
        cls.__doc__ = cls.__doc__.replace(marker, _EMPTY_SET_PARAMETER)
    fit = cls.fit

    @functools.wraps(fit)
    def checked_fit(self, *args, **kwargs):
        check_param(self, "empty_set", self.empty_set, options=EMPTY_SET_OPTIONS)
        return fit(self, *args, **kwargs)

    cls.fit = checked_fit
    return cls


def allow_empty(empty_set, Y):
    """Resolve an ``empty_set`` setting on training labels.

    Parameters
    ----------
    empty_set : {"auto", True, False}
        ``True``: predictions may be empty; ``False``: never; ``"auto"``: only when some
        training row is empty (the training data then shows that "no label" happens).
    Y : ndarray or sparse matrix, shape (n_samples, n_labels)

    Returns
    -------
    bool
    """
    if empty_set == "auto":
        counts = Y.getnnz(axis=1) if hasattr(Y, "getnnz") else np.count_nonzero(np.asarray(Y), axis=1)
        return bool(np.any(counts == 0))
    return bool(empty_set)

DEFAULT_SCORE = "micro_f1"
"""The measure of :meth:`MultiLabelClassifierMixin.score` (a key of :data:`mlviz.metrics.MEASURES`)."""


def fit_per_label(make, X, Y):
    """One binary classifier per label (binary relevance with any scikit-learn classifier).

    Parameters
    ----------
    make : callable
        ``make(l)`` returns the unfitted classifier of label ``l``.
    X : array-like or CSR matrix, shape (n_samples, n_features)
    Y : ndarray, shape (n_samples, n_labels), 0/1

    Returns
    -------
    models : list, length n_labels
        The fitted classifier of each label, or a float (0.0 or 1.0) for a label constant in
        training: no model is fitted and its probability is that constant.
    """
    models = []
    for l in range(Y.shape[1]):
        y = Y[:, l]
        models.append(float(y[0]) if y.min() == y.max() else make(l).fit(X, y))
    return models


def proba_per_label(models, X):
    """P(y_l = 1 | x) of :func:`fit_per_label`'s models, shape (n_samples, n_labels)."""
    P = np.empty((X.shape[0], len(models)))
    for l, m in enumerate(models):
        P[:, l] = m if isinstance(m, float) else m.predict_proba(X)[:, list(m.classes_).index(1)]
    return P


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
        return self.predict_from_proba(self.predict_proba(X))

    def predict_from_proba(self, P):
        """The threshold rule on probabilities already computed: ``P >= threshold``, and, where
        ``allow_empty_`` is False, every empty row given its most probable label.

        Parameters
        ----------
        P : ndarray, shape (n_samples, n_labels)
            ``predict_proba`` of the rows (the argmax of an empty row picks its label; ties: the
            lower index).

        Returns
        -------
        Y_pred : ndarray of uint8, shape (n_samples, n_labels)
        """
        return threshold_rule(P, getattr(self, "threshold", 0.5), getattr(self, "allow_empty_", True))

    def _fit_empty_set(self, Y):
        """Set ``allow_empty_`` from ``empty_set`` and ``Y``; state the rule in ``decision_rule_``.

        Call at the end of ``fit``, after ``decision_rule_`` is set (and again after a
        ``refit`` that rewrites it).
        """
        check_param(self, "empty_set", self.empty_set, options=EMPTY_SET_OPTIONS)
        self.allow_empty_ = allow_empty(self.empty_set, Y)
        self._state_empty_rule()

    def _state_empty_rule(self):
        """Append the at-least-one rule to ``decision_rule_`` when it applies (idempotent)."""
        rule = getattr(self, "decision_rule_", "")
        if not getattr(self, "allow_empty_", True) and not rule.endswith(AT_LEAST_ONE_TEXT):
            self.decision_rule_ = rule + AT_LEAST_ONE_TEXT

    def score(self, X, Y, sample_weight=None):
        """Micro-averaged F1 of ``predict(X)`` against ``Y`` (greater is better).

        The default measure of every mlviz estimator, used by
        ``sklearn.model_selection.GridSearchCV`` and ``cross_val_score`` when
        no scorer is given. It scores the estimator's own decision rule
        (``decision_rule_``), pools true/false positives over all labels and
        instances (Guo & Xue 2013, §4.1) and follows the Mulan convention: 1
        when nothing is relevant and nothing is predicted, 0 when only one of
        them is empty (:func:`mlviz.metrics.evaluate`, ``"micro_f1"``).

        Parameters
        ----------
        X : array-like or sparse matrix, shape (n_samples, n_features)
        Y : array-like, shape (n_samples, n_labels), entries in {0, 1}
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative instance weights on the pooled counts.

        Returns
        -------
        score : float in [0, 1]
        """
        Y = check_Y(Y, n_samples=check_X(X).shape[0])
        P = check_Y(self.predict(X), n_samples=Y.shape[0], name="predict(X)")
        if Y.shape != P.shape:
            raise ValueError(f"Y has {Y.shape[1]} labels, but the model predicts {P.shape[1]}.")
        w = np.ones(Y.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        if w.shape != (Y.shape[0],) or not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError(f"sample_weight must be {Y.shape[0]} finite non-negative numbers.")
        Yb, Pb = Y.astype(bool), P.astype(bool)
        tp = float(w @ (Yb & Pb).sum(axis=1))
        den = float(w @ (Yb.sum(axis=1) + Pb.sum(axis=1)))
        if den == 0.0:
            return 1.0
        return 2.0 * tp / den

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
