"""Calibrated label ranking (CLR): pairwise label preferences plus a virtual calibration label.

Also importable from :mod:`mlviz.models.chains` (the problem-transformation family).

For every pair of labels i < j a binary classifier learns P(i ≻ j | x) from the
training rows holding exactly one of the two (target 1 when it is i); for every
label i a binary classifier learns P(i ≻ v | x) = P(y_i = 1 | x) against the
virtual label v (the binary-relevance problem). Each of these L(L+1)/2 binary
models casts one vote per instance for the preferred of its two labels; the
labels that collect at least as many votes as v are predicted relevant
(Fürnkranz et al. 2008, §3-4).

References
----------
.. [1] J. Fürnkranz, E. Hüllermeier, E. Loza Mencía, K. Brinker, "Multilabel
   classification via calibrated label ranking", Machine Learning
   73(2):133-153, 2008.
"""

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from ._base import BaseEstimator, MultiLabelClassifierMixin, TooLargeError, check_param, check_X_Y, empty_set_param
from ._base_learner import (
    N_COMPONENTS,
    RBF_GAMMA,
    _mapped,
    _positive_scores,
    base_learner_doc,
    fit_base_features,
    mean_squared_norm,
)

__all__ = ["CalibratedLabelRanking", "CLR_C", "MAX_PAIRS"]

CLR_C = 10.0
"""Default C of CLR's logistic-regression models, in units of 1 / mean ||x||² (``scale_C``)."""

MAX_PAIRS = 5000
"""Default bound on the number of pairwise models (L(L-1)/2 <= 5000, i.e. L <= 100)."""


@empty_set_param
@base_learner_doc('all L(L+1)/2 models')
class CalibratedLabelRanking(MultiLabelClassifierMixin, BaseEstimator):
    """Calibrated label ranking by pairwise comparison (CLR; Fürnkranz et al. 2008).

    Parameters
    ----------
    estimator : scikit-learn binary classifier or None, default None
        Cloned for each of the L(L-1)/2 pairs and each of the L calibration
        problems; ``None``: ``LogisticRegression(C=C_, max_iter=1000)``.
        Without ``predict_proba``, ``sigmoid(decision_function)`` is used.
    voting : {"hard", "soft"}, default "hard"
        ``"hard"``: each model gives one vote to the label it prefers
        (P(i ≻ j) > 0.5; half a vote each at exactly 0.5), as in the paper;
        ``"soft"``: label i receives P(i ≻ j) and j receives 1 - P(i ≻ j).
    C : float > 0, default CLR_C (10)
        C of the default logistic regressions, in units of 1 / mean ||x||²
        when ``scale_C`` (as :class:`~mlviz.models.LabelPowerset`).
    scale_C : bool, default True
    max_pairs : int >= 1, default MAX_PAIRS (5000)
        Bound on L(L-1)/2; above it ``fit`` raises
        :class:`~mlviz.models.TooLargeError` before fitting.
    {base_parameters}
    random_state : int, RandomState or None
        Draws the Nyström landmarks of ``base="rbf"``.
    {empty_set_parameter}

    Attributes
    ----------
    pairs_ : ndarray of int, shape (n_pairs, 2)
        (i, j) with i < j, in ``itertools.combinations`` order.
    pair_models_ : list, length n_pairs
        Fitted classifier of P(i ≻ j | x), or a float: 0.5 when no training row
        holds exactly one of i, j; 1.0 / 0.0 when i (resp. j) always wins.
    calibration_models_ : list, length n_labels
        Classifier of P(y_i = 1 | x) (label i vs the virtual label), or a float
        0.0 / 1.0 for a label constant in training.
    C_, x_scale_ : float
    decision_rule_ : str

    Notes
    -----
    ``predict_proba`` returns the calibrated score

    .. math:: s_i(x) = \\frac{1}{2} + \\frac{v_i(x) - v_0(x)}{2L} \\in [0, 1],

    where v_i is label i's vote total (its L - 1 pairwise duels and its duel
    with the virtual label, so 0 <= v_i <= L) and v_0 = Σ_i (1 - w_i0) the
    virtual label's (w_i0 = label i's vote against it, 0 <= v_0 <= L). It is
    a ranking score, not a probability: it orders the labels as the vote
    counts do (for one instance v_0 is common to all labels), and
    ``predict`` = ``s >= 0.5`` = the labels with at least as many votes as
    the virtual label (a tie counts as relevant). There are L(L+1)/2 binary
    models in all; each pairwise model is trained only on the rows where
    exactly one of its two labels is present, Σ_x |Y_x| (L - |Y_x|) rows in
    total (about cardinality × the rows of binary relevance).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3)); Y = (X > 0).astype(int)
    >>> CalibratedLabelRanking().fit(X, Y).predict_proba(X).shape
    (40, 3)
    """

    def __init__(self, *, estimator=None, voting="hard", C=CLR_C, scale_C=True, max_pairs=MAX_PAIRS, base="auto",
                 gamma=RBF_GAMMA, n_components=N_COMPONENTS, random_state=None, empty_set=True):
        self.base = base
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state
        self.estimator = estimator
        self.voting = voting
        self.C = C
        self.scale_C = scale_C
        self.max_pairs = max_pairs
        self.empty_set = empty_set

    def fit(self, X, Y):
        """Fit the L(L-1)/2 pairwise and L calibration models.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
        Y : array-like, shape (n_samples, n_labels), 0/1

        Returns
        -------
        self

        Raises
        ------
        TooLargeError
            If L(L-1)/2 > ``max_pairs``.
        """
        check_param(self, "voting", self.voting, options=("hard", "soft"))
        check_param(self, "C", self.C, low=0.0, low_inclusive=False)
        check_param(self, "scale_C", self.scale_C, options=(True, False))
        check_param(self, "max_pairs", self.max_pairs, low=1)
        X, Y = check_X_Y(X, Y)
        L = Y.shape[1]
        n_pairs = L * (L - 1) // 2
        if n_pairs > self.max_pairs:
            card = Y.sum(axis=1, dtype=np.int64)
            rows = int(np.sum(card * (L - card)))
            nbytes = 8.0 * (n_pairs + L) * (X.shape[1] + 1)
            raise TooLargeError(
                f"CalibratedLabelRanking on {L} labels fits {n_pairs:,} pairwise models (> max_pairs="
                f"{int(self.max_pairs):,}) on {rows:,} training rows in all, with ~{nbytes / 1e9:.2g} GB of "
                "linear coefficients; use BinaryRelevance or RAkEL.",
                estimate_bytes=nbytes, alternative="BinaryRelevance")
        self.n_features_in_ = X.shape[1]
        self.feature_map_, note = None, ""
        if self.estimator is None:  # one map for all L(L+1)/2 models
            self.feature_map_, X, note = fit_base_features(self, X, L)
            note = f"; {note}"
        self.x_scale_ = mean_squared_norm(X)
        self.C_ = None if self.estimator is not None else float(self.C) / (self.x_scale_ if self.scale_C else 1.0)
        base = self.estimator if self.estimator is not None else LogisticRegression(C=self.C_, max_iter=1000)
        self.calibration_models_ = [self._fit_binary(base, X, Y[:, i]) for i in range(L)]
        self.pairs_ = np.array([(i, j) for i in range(L) for j in range(i + 1, L)], dtype=int).reshape(-1, 2)
        self.pair_models_ = []
        for i, j in self.pairs_:
            rows = np.flatnonzero(Y[:, i] != Y[:, j])
            self.pair_models_.append(0.5 if rows.size == 0 else self._fit_binary(base, X[rows], Y[rows, i]))
        self.n_labels_ = L
        self.decision_rule_ = (f"labels with at least as many {self.voting} pairwise votes as the virtual "
                               f"label (calibrated score >= 0.5){note}")
        self._fit_empty_set(Y)
        return self

    @staticmethod
    def _fit_binary(base, X, y):
        if y.min() == y.max():
            return float(y[0])
        return clone(base).fit(X, y)

    @staticmethod
    def _scores(models, X):
        """P(first ≻ second | x) of each model; shape (n_samples, n_models)."""
        n = X.shape[0]
        out = np.empty((n, len(models)))
        linear = [k for k, m in enumerate(models) if isinstance(m, LogisticRegression)
                  and m.coef_.shape[0] == 1 and list(m.classes_) == [0, 1]]
        if linear:  # one matrix product for every logistic-regression model
            W = np.column_stack([models[k].coef_[0] for k in linear])
            b = np.array([models[k].intercept_[0] for k in linear])
            out[:, linear] = expit(np.asarray(X @ W) + b)
        done = set(linear)
        for k, m in enumerate(models):
            if k in done:
                continue
            out[:, k] = m if isinstance(m, float) else _positive_scores(m, X)
        return out

    def _votes(self, p):
        if self.voting == "soft":
            return p
        return np.where(p > 0.5, 1.0, np.where(p < 0.5, 0.0, 0.5))

    def vote_counts(self, X):
        """Vote totals of the labels and of the virtual label.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        label_votes : ndarray, shape (n_samples, n_labels)
            v_i, in [0, n_labels].
        virtual_votes : ndarray, shape (n_samples,)
            v_0, in [0, n_labels].
        """
        self._check_fitted("pair_models_")
        X = _mapped(self, self._check_predict_X(X))
        L = self.n_labels_
        w_cal = self._votes(self._scores(self.calibration_models_, X))  # (n, L): label i beats virtual
        votes = w_cal.copy()
        if len(self.pairs_):
            w = self._votes(self._scores(self.pair_models_, X))  # (n, n_pairs): i beats j
            for col, (i, j) in enumerate(self.pairs_):
                votes[:, i] += w[:, col]
                votes[:, j] += 1.0 - w[:, col]
        return votes, (1.0 - w_cal).sum(axis=1) if L else np.zeros(X.shape[0])

    def predict_proba(self, X):
        """Calibrated score s_i = 1/2 + (v_i - v_0) / (2L) (class Notes); ``predict`` is ``s >= 0.5``.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        S : ndarray, shape (n_samples, n_labels), in [0, 1]
        """
        votes, virtual = self.vote_counts(X)
        return np.clip(0.5 + (votes - virtual[:, None]) / (2.0 * self.n_labels_), 0.0, 1.0)
