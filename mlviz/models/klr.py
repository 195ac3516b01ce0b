"""Gaussian-kernel logistic regression per label — the baseline of paper 004's timing claim.

For each label l (0/1 targets ``y_nl``)::

    minimise_{α_l, b_l}  Σ_n log(1 + exp(−s_nl (φ(x_n)ᵀ α_l + b_l))) + λ/2 ||α_l||²

with ``s_nl = 2 y_nl − 1``, the same Gaussian features φ as :class:`~mlviz.models.LSPC`
and an unpenalised intercept. This is scikit-learn's ``LogisticRegression(C=1/λ)``
on the explicit features Φ. All labels are optimised in one L-BFGS call
(:func:`scipy.optimize.minimize`, method "L-BFGS-B"): the objective is a sum of
independent per-label terms, so the minimiser is that of the per-label problems.

**Preconditioning.** Gaussian kernel features are very ill-conditioned (the
spectrum of ΦᵀΦ decays fast, and every feature is positive, so it is strongly
correlated with the intercept); plain L-BFGS on (α, b) stalls at its iteration
limit. With ``Φ̃ = [Φ, 1]`` and ``R = diag(λ, …, λ, 0)`` we factor
``M = Φ̃ᵀΦ̃/4 + R = L Lᵀ`` (Cholesky; M is the Hessian at the origin, where every
logistic weight σ'(0) = 1/4) and run L-BFGS in ``u = Lᵀ w``: the Hessian there
is ``L⁻¹ (Φ̃ᵀ D Φ̃ + R) L⁻ᵀ``, the identity at D = I/4 and well-conditioned as
long as the fitted probabilities are not all saturated (Nocedal & Wright,
*Numerical Optimization*, 2nd ed., §7.2 on preconditioned quasi-Newton; the
same change of variables as a Gauss–Newton step at w = 0).
The stopping rule is an optimality measure in the original variables:
``converged_`` is True iff every label's gradient satisfies
``max_j |∂f/∂w_j| ≤ tol · n`` (i.e. ``tol`` on the gradient of the mean loss,
scikit-learn's scaling).

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
from scipy.linalg import cholesky, solve_triangular
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
    """L2-regularised Gaussian-kernel logistic regression, one per label, by preconditioned L-BFGS.

    Parameters
    ----------
    lam : float > 0, default 0.1
        L2 penalty λ on the kernel coefficients (``C = 1/λ`` in scikit-learn).
    sigma : "median" or float > 0, default "median"
        Kernel width, as in :class:`~mlviz.models.LSPC`.
    n_centers : "auto", int or None, default "auto"
        Kernel centres B, as in :class:`~mlviz.models.LSPC` (all training
        points up to 2000, else 2000 landmarks; memory O(n·B)).
    center_selection : {"random", "kmeans++"}, default "random"
    fit_intercept : bool, default True
        Unpenalised per-label intercept.
    max_iter : int, default 500
        L-BFGS iterations.
    tol : float, default 1e-6
        Converged when the largest gradient component of every label is
        ≤ ``tol · max(1, n)`` (KKT of the smooth problem).
    random_state : int, RandomState or None

    Attributes
    ----------
    coef_ : ndarray, shape (B, L)
    intercept_ : ndarray, shape (L,)
    centers_, sigma_, n_centers_, centers_mode_, centers_note_ : as in LSPC
    n_iter_ : int
        L-BFGS iterations used.
    converged_ : bool
        The gradient criterion above holds at the returned solution (a
        ``ConvergenceWarning`` says which labels missed it otherwise).
    grad_max_ : ndarray, shape (L,)
        ``max_j |∂f_l/∂w_j| / max(1, n)`` per label at the solution.
    decision_rule_ : str
        ``predict`` = ``predict_proba(X) >= 0.5``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 2)); Y = (X > 0).astype(int)
    >>> m = KernelLogisticRegression(lam=1.0).fit(X, Y)
    >>> m.predict_proba(X).shape, m.converged_
    ((50, 2), True)
    """

    #: L-BFGS memory (correction pairs); each costs 2·(B+1)·L floats
    maxcor = 10
    #: memory budget checked before fitting (TooLargeError above it), bytes
    max_memory_bytes = 4e9

    def __init__(self, lam=0.1, sigma="median", n_centers="auto", center_selection="random",
                 fit_intercept=True, max_iter=500, tol=1e-6, random_state=None):
        self.lam = lam
        self.sigma = sigma
        self.n_centers = n_centers
        self.center_selection = center_selection
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _memory_estimate(self, n, b, L):
        return 8.0 * (3 * n * b + 3 * b * b + 6 * n * L + (4 * self.maxcor + 8) * (b + 1) * L)

    def fit(self, X, Y):
        """Fit on X (n, d) dense or CSR and a 0/1 label matrix Y (n, L); returns self."""
        X, Y = check_X_Y(X, Y)
        check_param(self, "lam", self.lam, low=0, low_inclusive=False)
        check_param(self, "tol", self.tol, low=0, low_inclusive=False)
        if not isinstance(self.max_iter, Integral) or self.max_iter < 1:
            raise ValueError(f"The 'max_iter' parameter of KernelLogisticRegression must be an "
                             f"int >= 1, got {self.max_iter!r}.")
        check_param(self, "fit_intercept", self.fit_intercept, options=(True, False))
        Phi = self._setup_kernel(X, Y.shape[1])
        Yf = Y.astype(np.float64)
        n, B = Phi.shape
        L = Y.shape[1]
        fi = bool(self.fit_intercept)
        lam = float(self.lam)
        Psi, chol, pen = _preconditioned_features(Phi, lam, fi)
        del Phi
        scale = max(1, n)
        gtol = float(self.tol) * scale
        state = {}

        def fun(u):
            U = u.reshape(-1, L)
            Z = Psi @ U
            S = 2.0 * Yf - 1.0
            PU = pen @ U
            value = np.logaddexp(0.0, -S * Z).sum() + 0.5 * np.sum(U * PU)
            G = Psi.T @ (expit(Z) - Yf) + PU
            state["u"], state["G"] = u.copy(), G
            return value, G.ravel()

        def original_grad(G):  # ∇_w f = L ∇_u f  (u = Lᵀ w)
            return chol @ G

        def callback(intermediate_result):
            u = intermediate_result.x
            if "u" in state and np.array_equal(u, state["u"]):
                if np.abs(original_grad(state["G"])).max(initial=0.0) <= gtol:
                    raise StopIteration

        res = minimize(fun, np.zeros((B + int(fi)) * L), jac=True, method="L-BFGS-B",
                       callback=callback,
                       options={"maxiter": int(self.max_iter), "gtol": 0.0, "ftol": 0.0,
                                "maxcor": int(self.maxcor)})
        U = res.x.reshape(-1, L)
        if not ("u" in state and np.array_equal(res.x, state["u"])):
            fun(res.x)
        grad_w = original_grad(state["G"])
        W = solve_triangular(chol, U, trans="T", lower=True)
        self.coef_ = W[:B].copy()
        self.intercept_ = W[B].copy() if fi else np.zeros(L)
        self.n_iter_ = int(res.nit)
        self.n_labels_ = L
        self.grad_max_ = np.abs(grad_w).max(axis=0) / scale
        self.converged_ = bool((self.grad_max_ <= float(self.tol)).all())
        self.decision_rule_ = f"threshold {self.threshold:g} on the logistic probabilities"
        if not self.converged_:
            bad = np.flatnonzero(self.grad_max_ > float(self.tol))
            warnings.warn(
                f"KernelLogisticRegression did not reach the gradient tolerance {self.tol:g} for "
                f"{bad.size} of {L} labels after {res.nit} L-BFGS iterations (largest scaled "
                f"gradient {self.grad_max_.max():.3g}, label {int(bad[0])}; L-BFGS: "
                f"{res.message}). Increase max_iter or lam.", ConvergenceWarning, stacklevel=2)
        return self

    def decision_function(self, X):
        """Logits ``Φ(x) α + b``, shape (n, L)."""
        self._check_fitted(["coef_"])
        return self.kernel_features(X) @ self.coef_ + self.intercept_

    def predict_proba(self, X):
        """``σ(Φ(x) α + b)``, shape (n, L)."""
        return expit(self.decision_function(X))


def _preconditioned_features(Phi, lam, fit_intercept):
    """Change of variables for L-BFGS: ``Ψ = Φ̃ L⁻ᵀ`` with ``L Lᵀ = Φ̃ᵀΦ̃/4 + R``.

    Parameters
    ----------
    Phi : ndarray, shape (n, B)
    lam : float > 0
    fit_intercept : bool

    Returns
    -------
    Psi : ndarray, shape (n, B + fit_intercept)
        Features in the new variables u = Lᵀ w (``Φ̃ w = Ψ u``).
    chol : ndarray, shape (B', B'), lower triangular L
    penalty : ndarray, shape (B', B')
        ``L⁻¹ R L⁻ᵀ`` (the ridge term is ½ uᵀ penalty u).
    """
    n, B = Phi.shape
    if fit_intercept:
        Phi = np.hstack([Phi, np.ones((n, 1))])
    Bp = Phi.shape[1]
    reg = np.full(Bp, lam)
    if fit_intercept:
        reg[-1] = 0.0
    M = Phi.T @ Phi
    M *= 0.25
    M[np.diag_indices(Bp)] += reg
    # M is positive definite for lam > 0 (its intercept block is a Schur complement of a PD
    # matrix); a tiny jitter guards against round-off with duplicate centres
    M[np.diag_indices(Bp)] += 1e-12 * np.trace(M) / Bp
    chol = cholesky(M, lower=True, overwrite_a=True, check_finite=False)
    Psi = solve_triangular(chol, Phi.T, lower=True, check_finite=False).T
    Linv = solve_triangular(chol, np.eye(Bp), lower=True, check_finite=False)
    penalty = (Linv * reg) @ Linv.T
    penalty = (penalty + penalty.T) / 2
    return np.ascontiguousarray(Psi), chol, penalty
