"""Gradient-boosted trees per label (GBT-BR): scikit-learn's histogram gradient boosting.

One :class:`~sklearn.ensemble.HistGradientBoostingClassifier` per label
(binary relevance; Friedman 2001, with LightGBM's histogram splits, Ke et al.
2017). It adds no dependency: the issue asked whether xgboost's multi-output
trees or LightGBM per label earn a dependency, and ``benchmarks/bench_boosting.py``
measured on the standard splits that neither beats this estimator or
:class:`~mlviz.models.forest.RandomForestML` by enough to justify one
(benchmarks/RESULTS.md, "gradient-boosted trees").

P(y_l = 1 | x) is label l's boosted log-odds through the logistic function
(the model is fitted by log-loss, so these are its own probabilities),
thresholded at ``threshold``. The default 0.15 is low on purpose: the pooled
inner-fold micro-F1 on the training halves of emotions, scene and yeast peaked
at 0.10-0.15 on all three (boosting's probabilities of the many rare labels are
small), and 0.5 lost 3-4 %; Hamming loss, whose Bayes rule is 0.5 on calibrated
marginals, is better served by ``threshold=0.5``.

The fit time grows as labels x iterations x rows x features (dense histograms:
sparse input is densified). :meth:`GradientBoostingBR.estimate_seconds` gives
the estimate, and a fit estimated above ``max_seconds`` is refused before any
work (:class:`TooLargeError`), with the forests as the alternative.

References
----------
.. [1] J. H. Friedman, "Greedy function approximation: a gradient boosting
   machine", Annals of Statistics 29(5):1189-1232, 2001.
.. [2] G. Ke et al., "LightGBM: a highly efficient gradient boosting decision
   tree", NIPS 2017 (histogram-based splits).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.utils import check_random_state

from ._base import (
    BaseEstimator,
    MultiLabelClassifierMixin,
    TooLargeError,
    check_param,
    check_X_Y,
    empty_set_param,
    fit_per_label,
    proba_per_label,
)

__all__ = ["GradientBoostingBR", "GBT_THRESHOLD"]

GBT_THRESHOLD = 0.15
"""Default decision threshold of :class:`GradientBoostingBR` (see the module docstring)."""
_SECONDS_PER_ITERATION = 2.5e-3
"""Measured fixed cost of one boosting iteration of one label (one core)."""
_SECONDS_PER_CELL = 1.9e-8
"""Measured cost per training row x feature of one boosting iteration (one core)."""


@empty_set_param
class GradientBoostingBR(MultiLabelClassifierMixin, BaseEstimator):
    """Binary relevance with histogram gradient-boosted trees.

    Parameters
    ----------
    max_iter : int >= 1, default 100
        Boosting iterations (trees) per label.
    learning_rate : float > 0, default 0.1
    max_leaf_nodes : int >= 2, default 31
    min_samples_leaf : int >= 1, default 20
    l2_regularization : float >= 0, default 0.0
    threshold : float in [0, 1], default 0.15
        ``predict`` is ``predict_proba(X) >= threshold``.
    max_seconds : float > 0, default 300
        A fit whose :meth:`estimate_seconds` exceeds this is refused.
    random_state : int, RandomState or None
        Label l's model gets ``check_random_state(random_state).randint(2**31 - 1, size=n_labels)[l]``.
    {empty_set_parameter}

    Attributes
    ----------
    models_ : list, length n_labels
        Fitted classifier of each label, or a float (0.0 or 1.0) for a label
        constant in training (its probability is that constant).
    n_labels_, n_features_in_ : int
    decision_rule_ : str

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(80, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> GradientBoostingBR(max_iter=10, random_state=0).fit(X, Y).predict_proba(X).shape
    (80, 2)
    """

    def __init__(self, *, max_iter=100, learning_rate=0.1, max_leaf_nodes=31, min_samples_leaf=20,
                 l2_regularization=0.0, threshold=GBT_THRESHOLD, max_seconds=300.0, random_state=None,
                 empty_set=True):
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.threshold = threshold
        self.max_seconds = max_seconds
        self.random_state = random_state
        self.empty_set = empty_set

    def estimate_seconds(self, n_samples, n_features, n_labels):
        """Estimated one-core fit time: labels x iterations x (fixed + per row x feature cost).

        Parameters
        ----------
        n_samples, n_features, n_labels : int

        Returns
        -------
        float
            Seconds (measured constants; within about 2x on the standard splits).
        """
        per_iteration = _SECONDS_PER_ITERATION + _SECONDS_PER_CELL * n_samples * n_features
        return float(n_labels) * int(self.max_iter) * per_iteration

    def _validate(self, X, Y):
        check_param(self, "max_iter", self.max_iter, low=1)
        check_param(self, "learning_rate", self.learning_rate, low=0.0, low_inclusive=False)
        check_param(self, "max_leaf_nodes", self.max_leaf_nodes, low=2)
        check_param(self, "min_samples_leaf", self.min_samples_leaf, low=1)
        check_param(self, "l2_regularization", self.l2_regularization, low=0.0)
        check_param(self, "threshold", self.threshold, low=0.0, high=1.0)
        check_param(self, "max_seconds", self.max_seconds, low=0.0, low_inclusive=False)
        return check_X_Y(X, Y)

    def fit(self, X, Y):
        """Fit one boosted model per non-constant label.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
            Sparse input is densified (the histograms are dense).
        Y : array-like, shape (n_samples, n_labels), 0/1

        Returns
        -------
        self

        Raises
        ------
        TooLargeError
            If :meth:`estimate_seconds` exceeds ``max_seconds``.
        """
        X, Y = self._validate(X, Y)
        n, L = Y.shape
        seconds = self.estimate_seconds(n, X.shape[1], L)
        if seconds > self.max_seconds:
            raise TooLargeError(
                f"GradientBoostingBR: {int(self.max_iter)} boosting iterations for each of {L} labels on "
                f"{n} rows x {X.shape[1]} features take about {seconds:.0f} s (max_seconds="
                f"{float(self.max_seconds):g}); use RF-PCT (one forest for all labels) or fewer iterations.",
                estimate_seconds=seconds, alternative="RandomForestML")
        X = X.toarray() if sp.issparse(X) else X
        seeds = check_random_state(self.random_state).randint(np.iinfo(np.int32).max, size=L)

        def make(l):
            return HistGradientBoostingClassifier(
                max_iter=int(self.max_iter), learning_rate=float(self.learning_rate),
                max_leaf_nodes=int(self.max_leaf_nodes), min_samples_leaf=int(self.min_samples_leaf),
                l2_regularization=float(self.l2_regularization), early_stopping=False, random_state=int(seeds[l]))

        self.models_ = fit_per_label(make, X, Y)
        self.n_labels_ = L
        self.n_features_in_ = X.shape[1]
        self.decision_rule_ = (f"threshold {float(self.threshold):g} on per-label probabilities of "
                               "gradient-boosted trees")
        self._fit_empty_set(Y)
        return self

    def predict_proba(self, X):
        """P(y_l = 1 | x) from label l's boosted model.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
        """
        self._check_fitted("models_")
        X = self._check_predict_X(X)
        X = X.toarray() if sp.issparse(X) else X
        return proba_per_label(self.models_, X)
