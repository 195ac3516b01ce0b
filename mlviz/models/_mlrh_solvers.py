"""MLRH's solvers: the paper's MM iteration (accelerated) and preconditioned L-BFGS.

Both minimise the same objective ``f(W̃)`` (:class:`mlviz.models.mlrh.MLRH`, eq. (33) as a
mean plus ``reg ‖W̃‖²``), given as a callable ``objective(W̃, S=None) -> (f, ∇f)`` on the
(D, K) weights ``W̃ = [W; bᵀ]`` of the augmented features ``Φ̃ = [Φ, 1]`` (``S = Φ̃ W̃``
may be passed in when known).

MM algorithm and its majoriser (§4.2, Appendix A.3)
---------------------------------------------------
The Hessian of ``log Z(x)`` in ``s`` is the covariance of the label vector
``y ~ P(· | x)``.  Hence

    ∇² f = (1/n) Σ_i Cov_i(y) ⊗ φ̃_i φ̃_iᵀ + 2 reg I.

The paper's update ``w_k ← w_k - 4 (XᵀX)⁻¹ g_k`` (eq. (65)) uses only the
diagonal bound ``Var(y_k) <= 1/4`` and is therefore a valid majoriser only
for a *block* update of one label at a time.  For the *joint* update of all
labels used here the relevant bound is the largest eigenvalue of ``Cov(y)``:
it reaches 1/2 (two labels tied for one slot: ``[[¼, -¼], [-¼, ¼]]``), and a
numerical search over this model family (random and optimised scores,
K <= 10, several M; ``tests/test_esp.py`` repeats a smaller version) never
found more than 1/2 — for M = 1 this is Böhning's (1992) bound for
multinomial logistic regression; for M > 1 we have no proof.  (For an *arbitrary* distribution
on sets of size 1..M the tight bound is min(2M, K)/4, attained by two disjoint
M-sets with probability ½ each, a distribution this model cannot express.)
We therefore use the joint step

    W̃ ← W̃ - A⁻¹ ∇f(W̃),    A = Φ̃ᵀΦ̃ / (2n) + 2 reg I,

i.e. the paper's step with factor 2 instead of 4, with ``A`` Cholesky-factored
once per fit.  (The paper's factor 4 applied jointly uses
``A' = Φ̃ᵀΦ̃/(4n) + 2 reg I`` with ``∇²f ⪯ 2A'``, i.e. a step of 2/L in the
metric of ``A'``: by the descent lemma it cannot increase f either, but its
quadratic is not a majoriser and convergence is not guaranteed — the step may
oscillate along directions of maximal curvature.)  Including ∅ keeps the bound:
for sets of size <= M (∅ included) uᵀy ranges over an interval of length <= ‖u‖₁
restricted to 2M coordinates <= √(2M), so Var(uᵀy) <= M/2 = min(2M, K)/4 as
before (Popoviciu).

Plain MM converges linearly and needs hundreds of iterations (700–800 on
scene).  :func:`fit_mm` therefore takes each MM step from a Nesterov-extrapolated
point (FISTA momentum in the metric of ``A``) and falls back to a plain MM step
from the current iterate, resetting the momentum, whenever the extrapolated step
would increase f: accepted iterates stay monotone and the iteration count drops
4–8× (``accelerate=False`` is the plain iteration, used in the tests).  Every MM
iterate's objective is checked (it costs nothing: the next gradient needs the
same DP).  Should even a plain MM step increase it beyond round-off (i.e. should
the 1/2 bound fail), the step is rejected and the solver switches to the provably
safe curvature min(2M, K)/4, so the accepted sequence is monotone non-increasing
in every case.

:func:`fit_lbfgs` runs L-BFGS-B in variables preconditioned by a matrix of the
same form at the labels' mean variance instead of the bound (faster still, same
optimum; see its docstring and :func:`curvature_preconditioner`).

References
----------
J. Lee and H. Shajari, "A hidden variables approach to multilabel logistic
regression", §4.2 / Appendix A.3 (MM).
D. Böhning, "Multinomial logistic regression algorithm", Ann. Inst. Statist.
Math. 44 (1992) 197–200.
A. Frangella, J. A. Tropp, M. Udell, "Randomized Nyström preconditioning",
SIAM J. Matrix Anal. Appl. 44 (2023) 718–752 (the low-rank preconditioner).
"""

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve, cholesky, solve_triangular, svd
from scipy.optimize import minimize

from ..solvers.esp import esp_marginals

#: L-BFGS-B memory (maxcor): 5-40 gave 76-82 iterations on the raw bibtex shape, the memory's cost grows
#: with it (benchmarks/RESULTS.md, "MLRH: a preconditioner at the labels' curvature")
LBFGS_MEMORY = 10
#: Floor of the L-BFGS preconditioner's curvature (the mean label variance)
MIN_CURVATURE = 1e-3
#: Nyström preconditioner: first rank tried (doubled while the sketch's smallest eigenvalue is above
#: the ridge), the subspace (power) iterations of the sketch, and the smallest D for which it is tried
#: (below it the Cholesky solves cost little).
NYSTROM_RANK = 64
NYSTROM_POWER = 2
NYSTROM_MIN_DIM = 512


def gram(Phi):
    """Dense ``Φ̃ᵀΦ̃`` (D, D)."""
    G = Phi.T @ Phi
    return G.toarray() if sp.issparse(G) else np.asarray(G)


def _jitter(Phi, c):
    """1e-10 of the mean diagonal of ``c Φ̃ᵀΦ̃/n`` (at least 1e-10): keeps the factor finite at reg = 0."""
    n, D = Phi.shape
    sq = float(Phi.multiply(Phi).sum()) if sp.issparse(Phi) else float(np.sum(Phi * Phi))
    return 1e-10 * max(c * sq / n / D, 1.0)


class CholeskyPreconditioner:
    """``V = Lᵀ W̃`` with ``A = L Lᵀ`` (dense D × D factor; two triangular solves per evaluation)."""

    def __init__(self, A):
        self.L = cholesky(A, lower=True, check_finite=False)

    def to_v(self, W):
        return self.L.T @ W

    def to_w(self, V):
        return solve_triangular(self.L, V, lower=True, trans="T", check_finite=False)

    def gradient(self, G):
        """``∇_V f = L⁻¹ ∇_W f``."""
        return solve_triangular(self.L, G, lower=True, check_finite=False)


class LowRankPreconditioner:
    """``V = T W̃`` with ``T = P^{1/2}``, ``P = lam I + U diag(ev) Uᵀ`` (U orthonormal, D × r).

    ``T = √lam I + U diag(√(ev + lam) - √lam) Uᵀ`` and ``T⁻¹`` likewise with reciprocals:
    each product costs 4 D r K flops against the Cholesky solve's D² K.
    """

    def __init__(self, U, ev, lam):
        self.U, self.lam = U, lam
        root = np.sqrt(ev + lam)
        self._up = (root - np.sqrt(lam))[:, None]
        self._down = (1.0 / root - 1.0 / np.sqrt(lam))[:, None]

    def to_v(self, W):
        return np.sqrt(self.lam) * W + self.U @ (self._up * (self.U.T @ W))

    def to_w(self, V):
        return V / np.sqrt(self.lam) + self.U @ (self._down * (self.U.T @ V))

    def gradient(self, G):
        """``∇_V f = T⁻ᵀ ∇_W f = T⁻¹ ∇_W f`` (T symmetric)."""
        return self.to_w(G)


def nystrom(matvec, D, rank, power, rng):
    """Randomised Nyström approximation ``U diag(ev) Uᵀ`` of a PSD operator (top ``rank`` eigenpairs).

    Gaussian test matrix refined by ``power`` subspace iterations, then the stable
    (shifted) Nyström formula of Tropp et al. (2017), Algorithm 3.

    Returns
    -------
    U : ndarray, shape (D, rank)
    ev : ndarray, shape (rank,), decreasing, >= 0
    """
    Om = np.linalg.qr(rng.standard_normal((D, rank)))[0]
    Y = matvec(Om)
    for _ in range(power):
        Om = np.linalg.qr(Y)[0]
        Y = matvec(Om)
    nu = np.sqrt(D) * np.finfo(float).eps * max(np.linalg.norm(Y), np.finfo(float).tiny)
    Y += nu * Om
    C = cholesky(Om.T @ Y, lower=False, check_finite=False)
    B = solve_triangular(C, Y.T, trans="T", lower=False, check_finite=False).T  # Y C⁻¹
    U, s, _ = svd(B, full_matrices=False, check_finite=False)
    return U, np.maximum(s * s - nu, 0.0)


def curvature_preconditioner(Phi, c, reg):
    """Change of variables for L-BFGS from ``A = c Φ̃ᵀΦ̃/n + (2 reg + jitter) I``.

    When ``D >= NYSTROM_MIN_DIM``, a seeded Nyström sketch of ``H = c Φ̃ᵀΦ̃/n`` of rank
    64, 128, ... (while 8 r <= D) is accepted as soon as its smallest eigenvalue is <= the
    ridge ``lam = 2 reg + jitter``: ``P = lam I + Û Λ̂ Ûᵀ`` then has all of A's spectrum
    above 2 lam in its range and leaves the rest within a factor ~2 (the bibtex shape:
    38 of 1,837 eigenvalues of A above 2 lam raw, 1 with L2 rows). Otherwise (slowly
    decaying spectra, e.g. raw enron; small D; reg = 0) the exact Cholesky factor of A.
    Any fixed invertible T gives the same objective and minimiser; the choice only
    changes the path (benchmarks/RESULTS.md, "MLRH: a low-rank preconditioner").

    Returns
    -------
    CholeskyPreconditioner or LowRankPreconditioner
    """
    n, D = Phi.shape
    lam = 2.0 * reg + _jitter(Phi, c)
    if D >= NYSTROM_MIN_DIM and reg > 0:
        if sp.issparse(Phi):
            def matvec(X):
                return (c / n) * np.asarray(Phi.T @ np.asarray(Phi @ X))
        else:
            G = (c / n) * gram(Phi)

            def matvec(X):
                return G @ X
        rng = np.random.default_rng(0)
        rank = NYSTROM_RANK
        while 8 * rank <= D:
            U, ev = nystrom(matvec, D, rank, NYSTROM_POWER, rng)
            if ev[-1] <= lam:
                return LowRankPreconditioner(U, ev, lam)
            rank *= 2
    A = (c / n) * gram(Phi)
    A[np.diag_indices(D)] += lam
    return CholeskyPreconditioner(A)


def intercept_start(Yf, M, m0, reg, tol):
    """Cold start ``W̃ = [0; b*]``: the optimum of the intercept-only model.

    With W = 0 every row has the scores ``b``, so the objective is
    ``log Z(b) - ȳᵀb + reg ‖b‖²`` (ȳ the label frequencies): a K-variable problem
    with a one-row DP, solved here by L-BFGS-B to ``tol / 10``.

    Returns
    -------
    b : ndarray, shape (K,)
    """
    ybar = Yf.mean(axis=0)

    def fun(b):
        P, log_Z = esp_marginals(b[None, :], M, min_labels=m0, return_log_partition=True)
        return log_Z[0] - ybar @ b + reg * (b @ b), P[0] - ybar + 2.0 * reg * b

    res = minimize(fun, np.zeros(Yf.shape[1]), jac=True, method="L-BFGS-B",
                   options=dict(maxiter=500, gtol=0.1 * tol, ftol=0.0, maxcor=LBFGS_MEMORY))
    return res.x if np.all(np.isfinite(res.x)) else np.zeros(Yf.shape[1])


def fit_mm(objective, Phi, M, K, W0, *, reg, tol, max_iter, accelerate=True):
    """MM iterations ``W ← P - A⁻¹ ∇f(P)``; P = W (plain) or an extrapolated point.

    Plain MM (``P = W``) decreases f at every step because the quadratic with
    matrix A majorises f.  The accelerated variant (default) takes the MM
    step from ``P = W + β (W - W_prev)`` (Nesterov / FISTA momentum in the
    metric of A); whenever that would increase f, the momentum is reset and
    a plain MM step from W is taken instead, so the accepted sequence is
    monotone non-increasing in both variants.

    Returns
    -------
    W : ndarray, shape (D, K)
    info : dict
        converged, n_iter, objective, history, grad_max, curvature.
    """
    n, D = Phi.shape
    G_phi = gram(Phi) / n
    jitter = 1e-10 * max(np.trace(G_phi) / D, 1.0)  # only enlarges the majoriser

    def factor(curvature):
        A = curvature * G_phi
        A[np.diag_indices(D)] += 2.0 * reg + jitter
        return cho_factor(A, lower=True, check_finite=False)

    curvature, safe = 0.5, max(0.5, min(2 * M, K) / 4.0)
    chol = factor(curvature)
    W = np.array(W0, dtype=np.float64)
    S = np.asarray(Phi @ W)
    f, G = objective(W, S)
    P, S_P, G_P, t = W, S, G, 1.0  # extrapolated point, its scores and gradient
    history, converged, it = [f], False, 0
    for it in range(1, max_iter + 1):
        if np.max(np.abs(G)) <= tol:
            converged, it = True, it - 1
            break
        step = cho_solve(chol, G_P, check_finite=False)
        W_new = P - step
        S_new = np.asarray(Phi @ W_new)
        f_new, G_new = objective(W_new, S_new)
        # Increases within 1e-13·|f| are round-off of f and accepted as ties.
        if f_new > f + 1e-13 * abs(f):
            if P is not W:  # momentum overshoot: restart from W with a plain MM step
                P, S_P, G_P, t = W, S, G, 1.0
                continue
            if curvature < safe:  # safeguard: provably valid bound min(2M, K)/4
                curvature = safe
                chol = factor(curvature)
                continue
            converged = 0.5 * np.sum(G * step) <= 1e-13 * max(1.0, abs(f))
            break
        if accelerate:
            t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            beta = (t - 1.0) / t_new
            if beta > 0:
                P = W_new + beta * (W_new - W)
                S_P = S_new + beta * (S_new - S)
                G_P = objective(P, S_P)[1]
            else:
                P, S_P, G_P = W_new, S_new, G_new
            t = t_new
        else:
            P, S_P, G_P = W_new, S_new, G_new
        W, S, f, G = W_new, S_new, f_new, G_new
        history.append(f)
    else:
        converged = np.max(np.abs(G)) <= tol
        it = max_iter
    return W, dict(converged=bool(converged), n_iter=it, objective=float(f), history=history,
                   grad_max=float(np.max(np.abs(G))), curvature=curvature)


def fit_lbfgs(objective, Phi, Yf, W0, *, reg, tol, max_iter):
    """L-BFGS-B on the same objective, preconditioned by a curvature model.

    With ``A = c Φ̃ᵀΦ̃/n + 2 reg I`` and a fixed T with ``TᵀT ≈ A``
    (:func:`curvature_preconditioner`: A's Cholesky factor or a low-rank-plus-ridge
    approximation) the variables are ``V = T W̃`` (a fixed change of variables: same
    objective, same minimiser), which removes the ill-conditioning of raw word counts
    and kernel features.  ``c`` is the mean label variance ``mean_k p_k(1 - p_k)`` at the
    training label frequencies (floored at :data:`MIN_CURVATURE`): the Hessian's label
    blocks are ``(1/n) Σ_i Var_i(y_k) φ̃_i φ̃_iᵀ + 2 reg I``, so the MM matrix's curvature
    1/2 (a bound, needed for MM's monotone steps but not by L-BFGS) overstates the data
    term of most labels 10-50× against the ridge. Measured (``benchmarks/RESULTS.md``,
    "MLRH: a preconditioner at the labels' curvature"): iterations 81 → 46 on the raw
    bibtex shape, 207 → 144 raw enron, 50 → 28 raw medical, 31-32 → 17-22 with L2 rows.
    Stops when ``max |∇_W f| <= tol`` (the criterion used by MM).

    Returns
    -------
    W : ndarray, shape (D, K)
    info : dict
        converged, n_iter, objective, history, grad_max, curvature (None).
    """
    D, K = W0.shape
    p = Yf.mean(axis=0)
    c = max(float(np.mean(p * (1.0 - p))), MIN_CURVATURE)
    T = curvature_preconditioner(Phi, c, reg)
    history, last = [], {}

    def fun(v):
        W = T.to_w(v.reshape(D, K))
        f, G = objective(W)
        last.update(v=v.copy(), f=f, gmax=float(np.max(np.abs(G))))
        return f, T.gradient(G).ravel()

    def callback(intermediate_result):
        history.append(float(intermediate_result.fun))
        if np.array_equal(intermediate_result.x, last.get("v")) and last["gmax"] <= tol:
            raise StopIteration

    res = minimize(fun, T.to_v(W0).ravel(), jac=True, method="L-BFGS-B", callback=callback,
                   options=dict(maxiter=max_iter, gtol=0.0, ftol=0.0, maxcor=LBFGS_MEMORY))
    W = T.to_w(res.x.reshape(D, K))
    f, G = objective(W)
    gmax = float(np.max(np.abs(G)))
    # Stopping early with a predicted decrease ½‖∇_V f‖² below the
    # resolution of f means nothing more is attainable in double precision.
    at_precision = 0.5 * float(res.jac @ res.jac) <= 1e-15 * max(1.0, abs(f))
    converged = gmax <= tol or (at_precision and res.nit < max_iter)
    return W, dict(converged=bool(converged), n_iter=int(res.nit), objective=float(f),
                   history=history or [float(f)], grad_max=gmax, curvature=None)
