"""L-BFGS for ℓ2-regularised multinomial (softmax) logistic regression, float32 products far from the optimum.

Minimises scikit-learn's ``LogisticRegression(C)`` objective divided by C · n,

.. math:: F(W, b) = \\frac{1}{n} \\sum_i \\Big[\\log \\sum_k e^{z_{ik}} - z_{i y_i}\\Big]
          + \\frac{1}{2 C n} \\|W\\|_F^2, \\qquad z_i = W^T x_i + b,

(W: n_features × n_classes, b not penalised), the objective scikit-learn's ``lbfgs`` solver
minimises. With ``binary=True`` class 0's scores are held at 0 (W[:, 0] = 0, b[0] = 0): the
binomial model scikit-learn fits for two classes (one weight vector, penalty ‖w‖² / (2 C n)).

The algorithm is L-BFGS (Nocedal 1980; Nocedal & Wright, *Numerical Optimization*, Alg. 7.4,
two-loop recursion with the initial scaling γ = sᵀy / yᵀy of eq. 7.20) with an Armijo
backtracking line search. What makes it cheaper than scipy's L-BFGS-B on this problem:

- the scores are linear in the step, Z(α) = Z + α X D, so one product X D per iteration
  serves every trial step of the line search, and the gradient's product Xᵀ(P - Y) is the only
  other one;
- while the gradient is above the tolerance, both products run in float32 (X cast once, the
  direction and P - Y once per iteration; the scores Z are accumulated, the softmax, the loss
  and the L-BFGS memory stay float64). Rounding is ~1e-7 relative, far below what the early
  iterations need. When the float32 gradient meets the tolerance, or 100× the rounding scale
  1e-7 · max(1, max_j mean_i |x_ij|) if that is larger, or a float32 line search fails, the
  point is re-evaluated exactly in float64, Z recomputed from scratch, and the
  iterations continue in float64 with the same memory; convergence is only ever declared
  on a float64 gradient;
- the intercepts start at the log class frequencies (the exact minimiser over b at W = 0),
  not at 0;
- no bound-constraint machinery (scipy's ``setulb`` spent a third of the time at 200 classes
  × 1,837 coefficients).

The path differs from scikit-learn's; the optimum is the same (a strictly convex problem in W;
the intercepts are determined up to a common shift, which every step leaves unchanged
because every gradient's intercept part sums to 0).

Stopping rule: max |∂F/∂θ| ≤ ``tol`` over all coefficients and intercepts, in float64 (the
``gtol`` of scikit-learn's lbfgs on the same F).
"""

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

__all__ = ["multinomial_lbfgs", "multinomial_objective", "MultinomialResult", "FLOAT32_MIN_WORK"]

FLOAT32_MIN_WORK = 1e6
"""``float32_phase="auto"`` uses float32 products when nnz(X) × n_classes is at least this.

Below it a product takes well under a millisecond, so the float32 copies of X and the float64
re-evaluation at the switch cost about what they save; and small problems then follow one
float64 path whatever the storage of X (dense and CSR copies of X agree to rounding)."""


@dataclass
class MultinomialResult:
    """Outcome of :func:`multinomial_lbfgs`.

    Attributes
    ----------
    coef : ndarray, shape (n_features, n_classes)
    intercept : ndarray, shape (n_classes,)
    objective : float
        F at the returned point (float64).
    kkt : float
        max |∂F/∂θ| at the returned point (float64).
    n_iter : int
        L-BFGS iterations (float32 and float64 phases together).
    n_iter_float32 : int
        Of which with float32 products.
    converged : bool
    message : str
    """

    coef: np.ndarray
    intercept: np.ndarray
    objective: float
    kkt: float
    n_iter: int
    n_iter_float32: int
    converged: bool
    message: str = ""


class _Problem:
    """Products, softmax, loss and gradient of F for one (X, y, C)."""

    def __init__(self, X, y, n_classes, C, binary):
        self.sparse = sp.issparse(X)
        self.X = sp.csr_matrix(X, dtype=np.float64) if self.sparse else np.asarray(X, dtype=np.float64)
        self.Xt = self.X.T.tocsr() if self.sparse else self.X.T
        self.n, self.d = self.X.shape
        self.K = int(n_classes)
        self.y = np.asarray(y, dtype=np.intp)
        self.rows = np.arange(self.n)
        self.lam = 1.0 / (float(C) * self.n)
        self.binary = bool(binary)
        self._X32 = self._Xt32 = None

    def nnz(self):
        """Stored entries of X (all of them for dense X)."""
        return self.X.nnz if self.sparse else self.X.size

    def max_column_mean(self):
        """max_j mean_i |x_ij|."""
        A = abs(self.X)
        return float(np.max(np.asarray(A.sum(axis=0)).ravel(), initial=0.0)) / max(self.n, 1)

    def product(self, A, single):
        """X @ A[:d] + A[d] (scores of the coefficient block A, shape (d + 1, K))."""
        W, b = A[:self.d], A[self.d]
        if single:
            if self._X32 is None:
                self._X32 = self.X.astype(np.float32)
            out = self._X32 @ W.astype(np.float32)
            out = np.asarray(out, dtype=np.float64)
        else:
            out = np.asarray(self.X @ W, dtype=np.float64)
        out += b
        return out

    def loss_prob(self, Z):
        """Mean softmax loss of the scores Z and the probabilities P (float64)."""
        m = Z.max(axis=1, keepdims=True)
        E = np.subtract(Z, m)
        np.exp(E, out=E)
        s = E.sum(axis=1, keepdims=True)
        loss = (float(np.log(s).sum() + m.sum()) - float(Z[self.rows, self.y].sum())) / self.n
        E /= s
        return loss, E

    def penalty(self, theta):
        W = theta[:self.d]
        return 0.5 * self.lam * float(np.vdot(W, W))

    def gradient(self, P, theta, single):
        """∂F/∂θ at the point θ whose probabilities are P, shape (d + 1, K); P is overwritten by P - Y."""
        G = P
        G[self.rows, self.y] -= 1.0
        g = np.empty((self.d + 1, self.K))
        if single:
            if self._Xt32 is None:
                self._Xt32 = self.Xt.astype(np.float32)
            g[:self.d] = self._Xt32 @ G.astype(np.float32)
        else:
            g[:self.d] = self.Xt @ G
        g[:self.d] /= self.n
        g[:self.d] += self.lam * theta[:self.d]
        g[self.d] = G.sum(axis=0) / self.n
        if self.binary:
            g[:, 0] = 0.0
        return g


def multinomial_objective(X, y, coef, intercept, C):
    """F and its gradient (module docstring) at one point, float64.

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (n_samples, n_features)
    y : ndarray of int, shape (n_samples,)
        Class ids 0 .. n_classes - 1.
    coef : ndarray, shape (n_features, n_classes)
    intercept : ndarray, shape (n_classes,)
    C : float > 0

    Returns
    -------
    F : float
    grad_coef : ndarray, shape (n_features, n_classes)
    grad_intercept : ndarray, shape (n_classes,)
    """
    coef = np.asarray(coef, dtype=np.float64)
    prob = _Problem(X, y, coef.shape[1], C, False)
    theta = np.vstack([coef, np.asarray(intercept, dtype=np.float64)[None, :]])
    loss, P = prob.loss_prob(prob.product(theta, False))
    g = prob.gradient(P, theta, False)
    return loss + prob.penalty(theta), g[:-1], g[-1]


def _direction(g, S, Yd, rho, count, head):
    """Two-loop recursion: -H g from the ``count`` newest pairs (ring buffers ending at ``head``).

    The updates are numpy's own in-place operations, not scipy's ``daxpy``: scipy and numpy each
    ship an OpenBLAS with its own thread pool, and calls alternating between the two pools made a
    label powerset on emotions take 12.5 s instead of 0.1 s with two BLAS threads
    (benchmarks/RESULTS.md, "BLAS threads in the dashboard").
    """
    q = g.ravel().copy()
    tmp = np.empty_like(q)
    order = [(head - 1 - j) % len(rho) for j in range(count)]
    alphas = []
    for i in order:  # newest first
        a = rho[i] * float(S[i] @ q)
        q -= np.multiply(Yd[i], a, out=tmp)
        alphas.append(a)
    if count:
        newest = order[0]
        q *= float(S[newest] @ Yd[newest]) / float(Yd[newest] @ Yd[newest])
    else:
        q /= max(float(np.linalg.norm(q)), 1e-300)  # first step: unit length (as L-BFGS-B)
    for i, a in zip(reversed(order), reversed(alphas)):
        beta = rho[i] * float(Yd[i] @ q)
        q += np.multiply(S[i], a - beta, out=tmp)
    return -q.reshape(g.shape)


def multinomial_lbfgs(X, y, n_classes, C, *, tol=1e-4, max_iter=2000, memory=10, coef_init=None,
                      intercept_init=None, binary=False, float32_phase="auto", warn=True):
    """Minimise F (module docstring) by L-BFGS.

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (n_samples, n_features)
    y : ndarray of int, shape (n_samples,)
        Class ids 0 .. n_classes - 1; every class should occur (a class without rows has no
        finite optimum of its intercept).
    n_classes : int >= 2
    C : float > 0
        Inverse ℓ2 penalty in scikit-learn's units.
    tol : float > 0, default 1e-4
        Stop when max |∂F/∂θ| ≤ tol (float64 gradient).
    max_iter : int, default 2000
    memory : int, default 10
        L-BFGS pairs kept.
    coef_init : ndarray, shape (n_features, n_classes), optional
        Start (warm start). Default 0.
    intercept_init : ndarray, shape (n_classes,), optional
        Default: the log class frequencies (centred), the minimiser over b at W = 0 when
        ``coef_init`` is None, else 0.
    binary : bool, default False
        Hold class 0's coefficients and intercept at 0 (needs n_classes = 2).
    float32_phase : bool or "auto", default "auto"
        Run the products in float32 until the float32 gradient meets ``tol`` (module
        docstring); ``"auto"``: when nnz(X) × n_classes ≥ :data:`FLOAT32_MIN_WORK`.
    warn : bool, default True
        ``ConvergenceWarning`` when ``max_iter`` is reached or the line search fails.

    Returns
    -------
    MultinomialResult

    Examples
    --------
    >>> rng = np.random.default_rng(0); X = rng.normal(size=(60, 3)); y = rng.integers(0, 3, 60)
    >>> res = multinomial_lbfgs(X, y, 3, C=1.0, tol=1e-8)
    >>> bool(res.converged and res.kkt <= 1e-8)
    True
    """
    prob = _Problem(X, y, n_classes, C, binary)
    d, K = prob.d, prob.K
    if binary and K != 2:
        raise ValueError(f"binary=True needs n_classes = 2, got {K}.")
    theta = np.zeros((d + 1, K))
    if coef_init is not None:
        theta[:d] = coef_init
    if intercept_init is not None:
        theta[d] = intercept_init
    elif coef_init is None:
        logf = np.log(np.maximum(np.bincount(prob.y, minlength=K), 0.5))
        theta[d] = logf - logf[0] if binary else logf - logf.mean()
    if binary:
        theta[:, 0] = 0.0
    if isinstance(float32_phase, str):
        if float32_phase != "auto":
            raise ValueError(f"float32_phase must be True, False or 'auto', got {float32_phase!r}.")
        single = prob.nnz() * K >= FLOAT32_MIN_WORK
    else:
        single = bool(float32_phase)
    # float32 products round at ~1e-7 relative; a gradient entry is at most max_j mean_i |x_ij|
    # (|P - Y| <= 1; 1 for the intercepts), so the float32 phase ends 100x above that rounding
    float32_tol = max(tol, 1e-5 * max(1.0, prob.max_column_mean()))
    n_single = 0
    Z = np.zeros((prob.n, K)) + theta[d] if coef_init is None else prob.product(theta, False)
    loss, P = prob.loss_prob(Z)
    f = loss + prob.penalty(theta)
    g = prob.gradient(P, theta, single)
    N = (d + 1) * K
    m = max(int(memory), 1)
    S, Yd, rho = np.zeros((m, N)), np.zeros((m, N)), np.zeros(m)
    count = head = 0
    it, converged, message = 0, False, ""

    def to_double():
        nonlocal Z, loss, P, f, g, single
        single = False
        Z = prob.product(theta, False)
        loss, P = prob.loss_prob(Z)
        f = loss + prob.penalty(theta)
        g = prob.gradient(P, theta, False)

    while True:
        kkt = float(np.abs(g).max())
        if single and kkt <= float32_tol:
            to_double()
            continue
        if kkt <= tol:  # float64 here (float32_tol >= tol)
            converged = True
            break
        if it >= max_iter:
            message = f"max_iter={max_iter} reached (max |gradient| {kkt:.3g} > tol {tol:g})"
            break
        D = _direction(g, S, Yd, rho, count, head)
        gd = float(np.vdot(g, D))
        if not gd < 0.0:  # not a descent direction (float32 noise): restart the memory
            count = 0
            D = _direction(g, S, Yd, rho, 0, head)
            gd = float(np.vdot(g, D))
        XD = prob.product(D, single)
        W, DW = theta[:d], D[:d]
        WD, DD = float(np.vdot(W, DW)), float(np.vdot(DW, DW))
        base_pen = prob.penalty(theta)
        XDy = float(XD[prob.rows, prob.y].sum())
        step, accepted, Zt = 1.0, False, None
        for _ in range(40):  # Armijo backtracking; secant on φ'(α) (cheap: XD is known)
            Zt = np.multiply(XD, step, out=Zt if Zt is not None else None)
            Zt += Z
            lt, Pt = prob.loss_prob(Zt)
            ft = lt + base_pen + prob.lam * (step * WD + 0.5 * step * step * DD)
            slope = (float(np.vdot(Pt, XD)) - XDy) / prob.n + prob.lam * (WD + step * DD)  # φ'(α)
            if ft <= f + 1e-4 * step * gd:
                accepted = True
                break
            if abs(ft - f) <= 1e-12 * max(1.0, abs(f)) and slope <= -(1.0 - 2e-4) * gd:
                # the decrease is below the rounding of F: Armijo on the quadratic model
                # F(α) - F(0) ≈ α (φ'(0) + φ'(α)) / 2 instead
                accepted = True
                break
            trial = step * gd / (gd - slope) if slope > gd else 0.5 * step
            step = min(max(trial, 0.1 * step), 0.5 * step)
        if not accepted:
            if single:
                to_double()
                continue
            message = "line search failed (no decrease along the L-BFGS direction)"
            break
        s = step * D
        theta = theta + s
        gn = prob.gradient(Pt, theta, single)
        yv = (gn - g).ravel()
        sv = s.ravel()
        sy = float(sv @ yv)
        if sy > 1e-10 * float(yv @ yv):  # curvature pair (always, up to rounding: F is convex)
            S[head], Yd[head], rho[head] = sv, yv, 1.0 / sy
            head = (head + 1) % m
            count = min(count + 1, m)
        Z, loss, P, f, g = Zt, lt, Pt, ft, gn
        it += 1
        n_single += single
    if single:  # stopped in the float32 phase (max_iter): report exact values
        to_double()
        kkt = float(np.abs(g).max())
    if not converged and warn:
        warnings.warn(f"multinomial_lbfgs did not converge: {message}.", ConvergenceWarning, stacklevel=2)
    return MultinomialResult(theta[:d].copy(), theta[d].copy(), float(f), kkt, it, n_single, converged, message)
