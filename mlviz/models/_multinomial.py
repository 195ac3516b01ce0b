"""Multinomial logistic regression fitted by :func:`mlviz.solvers.multinomial.multinomial_lbfgs`.

The multi-class model of :class:`~mlviz.models.LabelPowerset` (and RAkEL's label powersets):
scikit-learn's ``LogisticRegression(C)`` model and objective (softmax over the classes, ℓ2 on
the weights, intercepts not penalised; the binomial model for two classes), minimised by the
mlviz L-BFGS with float32 products far from the optimum (at 200 classes × 1,837 features 2.4×
faster than scikit-learn's lbfgs at the same tolerance, benchmarks/RESULTS.md, "LabelPowerset at
the bibtex shape").
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import check_param
from ..solvers.multinomial import multinomial_lbfgs

__all__ = ["MultinomialLR", "MULTINOMIAL_TOL"]

MULTINOMIAL_TOL = 1e-5
"""Default stopping tolerance of :class:`MultinomialLR`: max |∂F/∂θ| of the mean-scaled objective.

scikit-learn's lbfgs stops at 1e-4 on the same gradient; at the bibtex shape (200 classes) that
point was 1.0e-4 above the optimum in F with training probabilities up to 0.022 off; 1e-5 is 6e-6
above it (within 0.006) and costs 1.4× the 1e-4 fit. On the four bundled standard splits
LabelPowerset's test micro-F1 at 1e-5 equals that of the optimum (scikit-learn at tol 1e-8), where
scikit-learn's 1e-4 stop was 0.0013 off on enron (benchmarks/RESULTS.md, "LabelPowerset at the
bibtex shape")."""


class MultinomialLR(ClassifierMixin, BaseEstimator):
    """ℓ2-regularised multinomial logistic regression (scikit-learn's model, mlviz's solver).

    Minimises F(W, b) = (1/n) Σ_i [log Σ_k exp(z_ik) − z_{i,y_i}] + ‖W‖² / (2 C n),
    z_i = Wᵀ x_i + b: scikit-learn's ``LogisticRegression(C=C)`` objective divided by C · n,
    with two classes its binomial model (one weight vector). Same optimum as scikit-learn's;
    the solver's path differs (:mod:`mlviz.solvers.multinomial`).

    Parameters
    ----------
    C : float > 0, default 1.0
        Inverse ℓ2 penalty (scikit-learn's units).
    tol : float > 0, default MULTINOMIAL_TOL
        Stop when max |∂F/∂θ| ≤ tol (float64).
    max_iter : int >= 1, default 2000
    memory : int >= 1, default 10
        L-BFGS pairs.
    warm_start : bool, default False
        Start from the previous fit's ``coef_`` / ``intercept_`` when the classes and features
        are the same.

    Attributes
    ----------
    classes_ : ndarray, shape (n_classes,)
    coef_ : ndarray, shape (n_classes, n_features), or (1, n_features) for two classes
    intercept_ : ndarray, shape (n_classes,) or (1,)
    n_iter_ : ndarray of int, shape (1,)
    objective_ : float
        F at the fitted point.
    kkt_ : float
        max |∂F/∂θ| at the fitted point.
    n_features_in_ : int

    Examples
    --------
    >>> rng = np.random.default_rng(0); X = rng.normal(size=(50, 3)); y = rng.integers(0, 3, 50)
    >>> MultinomialLR(C=1.0).fit(X, y).predict_proba(X).shape
    (50, 3)
    """

    def __init__(self, *, C=1.0, tol=MULTINOMIAL_TOL, max_iter=2000, memory=10, warm_start=False):
        self.C = C
        self.tol = tol
        self.max_iter = max_iter
        self.memory = memory
        self.warm_start = warm_start

    def fit(self, X, y):
        """Fit on class labels ``y`` (any sortable values; at least two distinct).

        Parameters
        ----------
        X : ndarray or csr_matrix, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)

        Returns
        -------
        self
        """
        check_param(self, "C", self.C, low=0.0, low_inclusive=False)
        check_param(self, "tol", self.tol, low=0.0, low_inclusive=False)
        check_param(self, "max_iter", self.max_iter, low=1)
        check_param(self, "memory", self.memory, low=1)
        X = sp.csr_matrix(X, dtype=np.float64) if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        classes, codes = np.unique(np.asarray(y), return_inverse=True)
        if len(classes) < 2:
            raise ValueError(f"MultinomialLR needs at least 2 classes, got {len(classes)}.")
        binary = len(classes) == 2
        coef0 = b0 = None
        if self.warm_start and hasattr(self, "coef_") and np.array_equal(getattr(self, "classes_", None), classes) \
                and self.coef_.shape[1] == X.shape[1]:
            if binary:
                coef0 = np.column_stack([np.zeros(X.shape[1]), self.coef_[0]])
                b0 = np.array([0.0, self.intercept_[0]])
            else:
                coef0, b0 = self.coef_.T, self.intercept_
        res = multinomial_lbfgs(X, np.ravel(codes), len(classes), float(self.C), tol=float(self.tol),
                                max_iter=int(self.max_iter), memory=int(self.memory), coef_init=coef0,
                                intercept_init=b0, binary=binary)
        self.classes_ = classes
        if binary:
            self.coef_, self.intercept_ = res.coef[:, 1][None, :].copy(), res.intercept[1:].copy()
        else:
            self.coef_, self.intercept_ = np.ascontiguousarray(res.coef.T), res.intercept
        self.n_iter_ = np.array([res.n_iter])
        self.objective_, self.kkt_ = res.objective, res.kkt
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X):
        """Scores X Wᵀ + b; shape (n_samples, n_classes), or (n_samples,) for two classes."""
        check_is_fitted(self, "coef_")
        scores = np.asarray(X @ self.coef_.T, dtype=np.float64) + self.intercept_
        return scores[:, 0] if len(self.classes_) == 2 else scores

    def predict_proba(self, X):
        """Class probabilities (softmax of the scores; logistic for two classes), shape (n_samples, n_classes)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        return softmax(scores, axis=1)

    def predict(self, X):
        """The most probable class."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
