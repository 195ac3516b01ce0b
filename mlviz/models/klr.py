"""Gaussian-kernel logistic regression per label — the baseline of paper 004's timing claim.

For each label l (0/1 targets ``y_nl``)::

    minimise_{α_l, b_l}  Σ_n log(1 + exp(−s_nl (φ(x_n)ᵀ α_l + b_l))) + λ/2 ||α_l||²

with ``s_nl = 2 y_nl − 1``, the same Gaussian features φ as :class:`~mlviz.models.LSPC`
and an unpenalised intercept. This is scikit-learn's ``LogisticRegression(C=1/λ)``
on the explicit features Φ. All labels are optimised in one L-BFGS call
(:func:`scipy.optimize.minimize`, method "L-BFGS-B"): the objective is a sum of
independent per-label terms, so the minimiser is that of the per-label problems.

References
----------
J. Simm, M. Sugiyama, T. Kato. Computationally efficient multi-task learning with
least-squares probabilistic classifiers, IPSJ TCVA 3 (2011), §2 and §4 (KLR by
L-BFGS, "minFunc").
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning

from ._base import BaseEstimator, MultiLabelClassifierMixin, check_param, check_X_Y
from ._lspc_base import _KernelFeaturesMixin

__all__ = ["KernelLogisticRegression", "klr_objective"]


def klr_objective(params, Phi, Y, lam, fit_intercept=True):
    """Objective and gradient of the per-label L2 kernel logistic loss, summed over labels.

    Parameters
    ----------
    params : ndarray, shape ((B + fit_intercept) * L,)
        Row-major ``[α; b]`` of shape (B + 1, L) (or (B, L) without intercept).
    Phi : ndarray, shape (n, B)
    Y : ndarray, shape (n, L), 0/1
    lam : float >= 0

    Returns
    -------
    value : float
    grad : ndarray, same shape as ``params``
    """
    n, B = Phi.shape
    L = Y.shape[1]
    W = params.reshape(B + int(fit_intercept), L)
    alpha = W[:B]
    Z = Phi @ alpha
    if fit_intercept:
        Z = Z + W[B]
    S = 2.0 * Y - 1.0
    value = np.logaddexp(0.0, -S * Z).sum() + 0.5 * lam * np.sum(alpha * alpha)
    R = expit(Z) - Y  # d loss / d z
    grad = np.empty_like(W)
    grad[:B] = Phi.T @ R + lam * alpha
    if fit_intercept:
        grad[B] = R.sum(axis=0)
    return value, grad.ravel()


class KernelLogisticRegression(_KernelFeaturesMixin, MultiLabelClassifierMixin, BaseEstimator):
    """L2-regularised Gaussian-kernel logistic regression, one per label, by L-BFGS.

    Parameters
    ----------
    lam : float > 0, default 0.1
        L2 penalty λ on the kernel coefficients (``C = 1/λ`` in scikit-learn).
    sigma : "median" or float > 0, default "median"
        Kernel width, as in :class:`~mlviz.models.LSPC`.
    n_centers : int or None
        Number of random training points used as centres; None = all (B = N).
    fit_intercept : bool, default True
        Unpenalised per-label intercept.
    max_iter : int, default 500
        L-BFGS iterations.
    tol : float, default 1e-6
        Stop when the largest gradient component ≤ ``tol · max(1, n)``.
    random_state : int, RandomState or None

    Attributes
    ----------
    coef_ : ndarray, shape (B, L)
    intercept_ : ndarray, shape (L,)
    centers_, sigma_ : as in LSPC
    n_iter_ : int
        L-BFGS iterations used (a ``ConvergenceWarning`` is raised when the
        tolerance was not met).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 2)); Y = (X > 0).astype(int)
    >>> KernelLogisticRegression(lam=1.0).fit(X, Y).predict_proba(X).shape
    (50, 2)
    """

    def __init__(self, lam=0.1, sigma="median", n_centers=None, fit_intercept=True, max_iter=500,
                 tol=1e-6, random_state=None):
        self.lam = lam
        self.sigma = sigma
        self.n_centers = n_centers
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, Y):
        """Fit on X (n, d) dense or CSR and a 0/1 label matrix Y (n, L); returns self."""
        X, Y = check_X_Y(X, Y)
        check_param(self, "lam", self.lam, low=0, low_inclusive=False)
        check_param(self, "tol", self.tol, low=0, low_inclusive=False)
        if not isinstance(self.max_iter, Integral) or self.max_iter < 1:
            raise ValueError(f"The 'max_iter' parameter of KernelLogisticRegression must be an "
                             f"int >= 1, got {self.max_iter!r}.")
        check_param(self, "fit_intercept", self.fit_intercept, options=(True, False))
        Phi = self._setup_kernel(X)
        Yf = Y.astype(np.float64)
        n, B = Phi.shape
        L = Y.shape[1]
        fi = bool(self.fit_intercept)
        x0 = np.zeros((B + int(fi)) * L)
        res = minimize(klr_objective, x0, args=(Phi, Yf, float(self.lam), fi), jac=True,
                       method="L-BFGS-B",
                       options={"maxiter": int(self.max_iter), "gtol": float(self.tol) * max(1, n),
                                "ftol": 0.0, "maxcor": 20})
        W = res.x.reshape(B + int(fi), L)
        self.coef_ = W[:B].copy()
        self.intercept_ = W[B].copy() if fi else np.zeros(L)
        self.n_iter_ = int(res.nit)
        self.n_labels_ = L
        if not res.success:
            warnings.warn(f"KernelLogisticRegression L-BFGS stopped without converging after "
                          f"{res.nit} iterations: {res.message}", ConvergenceWarning, stacklevel=2)
        return self

    def decision_function(self, X):
        """Logits ``Φ(x) α + b``, shape (n, L)."""
        self._check_fitted(["coef_"])
        return self.kernel_features(X) @ self.coef_ + self.intercept_

    def predict_proba(self, X):
        """``σ(Φ(x) α + b)``, shape (n, L)."""
        return expit(self.decision_function(X))
