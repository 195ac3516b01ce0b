"""Line-search Newton–CG for kernel logistic regression, every label at once (the solver of
:class:`~mlviz.models.KernelLogisticRegression`; the method and its basis are described there).

References
----------
J. Nocedal, S. J. Wright. Numerical Optimization, 2nd ed., Springer 2006, §7.1 (Alg. 7.1).
C.-J. Lin, R. C. Weng, S. S. Keerthi. Trust region Newton method for logistic
regression, JMLR 9 (2008) 627–650.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import eigh
from scipy.linalg.blas import dsyrk, ssyrk
from scipy.special import expit

__all__ = ["newton_cg_klr", "NewtonCGResult", "LABEL_CHUNK"]

@dataclass(frozen=True)
class NewtonCGResult:
    """Outcome of :func:`newton_cg_klr`.

    Attributes
    ----------
    coef : ndarray, shape (B + fit_intercept, L)
        ``[α; b]`` per label.
    n_iter : int
        Newton iterations (the most of any chunk of labels).
    n_cg : int
        Batched Hessian products (CG steps), summed over the chunks of labels.
    grad_max : ndarray, shape (L,)
        ``max_j |∂f_l/∂w_j|`` per label at ``coef`` (original variables).
    """

    coef: np.ndarray
    n_iter: int
    n_cg: int
    grad_max: np.ndarray


def _label_objectives(Z, S, pen):
    """Per-label objective ``Σ_n log(1 + exp(−s z)) + pen``, shape (L,)."""
    return np.logaddexp(0.0, -S * Z).sum(axis=0) + pen


@dataclass(frozen=True)
class _Basis:
    """The preconditioning basis of :func:`newton_cg_klr`.

    With the column means ``μ`` of Φ (zero without an intercept) and the centred features
    ``Φ_c = Φ − 1μᵀ``, the variables are ``(β, b')`` with ``α = V β`` and ``b' = b + μᵀα``,
    so ``Φα + b = Φ_c V β + b'``; ``Φ_cᵀΦ_c ≈ V diag(s²) Vᵀ``. Centring decouples the
    intercept from the Gram matrix and removes its dominant (near-constant) direction, so
    the eigendecomposition is taken in float32; ``V`` is then only orthogonal to ~1e-6, which
    the solver never assumes for anything exact (gradients and steps are mapped with ``V``
    itself), only for the CG's Hessian model and preconditioner.
    """

    mu: np.ndarray  # (B,)
    V: np.ndarray  # (B, B) float64 copy of the eigenvectors
    s2: np.ndarray  # (B,)
    Psi32: np.ndarray  # (n, B) float32, Φ_c V
    V32: np.ndarray  # (B, B) float32 V

    @classmethod
    def build(cls, Phi, fit_intercept):
        n, B = Phi.shape
        mu = Phi.mean(axis=0) if fit_intercept else np.zeros(B)
        # without an intercept Φ keeps its dominant direction: float64 eigenvalues then
        dt = np.float32 if fit_intercept else np.float64
        Phc = np.empty((n, B), dtype=dt)
        np.subtract(Phi, mu, out=Phc, casting="same_kind")
        gram = (ssyrk if dt is np.float32 else dsyrk)(1.0, Phc.T)  # upper triangle
        s2, V = eigh(gram, lower=False, driver="evd", overwrite_a=True, check_finite=False)
        del gram
        Psi32 = (Phc @ V).astype(np.float32, copy=False)
        return cls(mu=mu, V=V.astype(np.float64), s2=np.maximum(s2.astype(np.float64), 0.0),
                   Psi32=Psi32, V32=V.astype(np.float32, copy=False))

    def to_original(self, Mb, fit_intercept, single=False):
        """``(dα, db)`` of basis directions ``Mb`` (rows β, then b'); ``single``: the product in
        float32. The solver maps every step that way: a step is any direction, its logits are then
        recomputed exactly from the ``dα`` it returns (or were accumulated in float32 by the far
        phase's CG)."""
        B = self.V.shape[0]
        if single:
            dA = (self.V32 @ Mb[:B].astype(np.float32)).astype(np.float64)
        else:
            dA = self.V @ Mb[:B]
        db = Mb[B] - self.mu @ dA if fit_intercept else None
        return dA, db

    def from_original(self, gA, gb, single=False):
        """Basis gradient ``[Vᵀ(g_α − μ g_b); g_b]`` of the original gradient ``(g_α, g_b)``;
        ``single``: the product in float32 (a CG right-hand side, ~1e-7 relative)."""
        G = gA if gb is None else gA - np.outer(self.mu, gb)
        GV = (self.V32.T @ G.astype(np.float32)).astype(np.float64) if single else self.V.T @ G
        return GV if gb is None else np.vstack([GV, gb])


def newton_cg_klr(Phi, Y, lam, *, fit_intercept=True, gtol=1e-6, max_iter=100, max_cg=250):
    """Minimise :func:`~mlviz.models.klr.klr_objective` for every label by preconditioned Newton–CG.

    Parameters
    ----------
    Phi : ndarray, shape (n, B)
        Kernel features (not modified).
    Y : ndarray, shape (n, L), 0/1 floats
    lam : float > 0
    fit_intercept : bool
    gtol : float
        Stop a label when ``max_j |∂f_l/∂w_j| <= gtol`` (original variables).
    max_iter, max_cg : int
        Newton iterations; CG steps per Newton iteration.

    Returns
    -------
    NewtonCGResult
    """
    Phi = np.asarray(Phi, dtype=np.float64)
    n, B = Phi.shape
    fi = bool(fit_intercept)
    Bp = B + int(fi)
    basis = _Basis.build(Phi, fi)
    L = Y.shape[1]
    # labels in chunks of at most LABEL_CHUNK: the per-label state is a few n × chunk arrays
    # (the labels are independent problems; the chunks share Φ and the basis)
    chunks = np.array_split(np.arange(L), -(-L // LABEL_CHUNK)) if L else [np.arange(0)]
    coef = np.empty((Bp, L))
    grad_max = np.empty(L)
    n_iter = n_cg = 0
    for cols in chunks:
        c, it, k, g = _newton_labels(Phi, basis, np.asarray(Y[:, cols], dtype=np.float64), lam,
                                     fi, gtol, max_iter, max_cg)
        coef[:, cols], grad_max[cols] = c, g
        n_iter, n_cg = max(n_iter, it), n_cg + k
    return NewtonCGResult(coef=coef, n_iter=int(n_iter), n_cg=int(n_cg), grad_max=grad_max)


#: labels solved together by :func:`newton_cg_klr` (memory: ~12 float64 arrays of n × chunk)
LABEL_CHUNK = 256


def _newton_labels(Phi, basis, Y, lam, fi, gtol, max_iter, max_cg):
    """The Newton–CG loop of :func:`newton_cg_klr` for the labels (columns) of Y."""
    n, B = Phi.shape
    Bp = B + int(fi)
    mu, s2, Psi32 = basis.mu, basis.s2, basis.Psi32
    mu_norm = float(np.linalg.norm(mu))
    L = Y.shape[1]
    S = 2.0 * Y - 1.0
    A = np.zeros((B, L))  # α, original variables (exact)
    b = np.zeros(L)
    Beta = np.zeros((B, L))  # β ≈ Vᵀα, tracked for the float32 gradients of the far phase
    Z = np.zeros((n, L))
    n_cg = 0
    grad_max = np.full(L, np.inf)
    act = np.arange(L)
    # Far phase, per label: its gradient runs in float32 on Ψ = Φ_c V, its logit steps are
    # those the CG accumulated, and the exact gradient is skipped. A label leaves it when its
    # largest gradient component (original variables), estimated in float32 through V, is
    # within 2 × gtol of the test (the estimate is only formed once the lower bound
    # ‖g‖₂/√p <= max|g_j| is), once that bound is below 1e-6 × its first value (float32
    # rounding would start to show), and after a step without decrease. On leaving it, Z is
    # recomputed exactly and everything is float64, so a label is declared converged only by
    # the exact test.
    far = np.ones(L, bool)
    far_floor = np.zeros(L)
    it = 0
    for it in range(max_iter + 1):
        P = expit(Z[:, act])
        f = far[act]
        Gt = np.empty((Bp, act.size))
        if f.any():  # basis gradient in float32, and a lower bound of the original ‖g‖/√p
            Rf = P[:, f] - Y[:, act[f]]
            Gt[:B, f] = (Psi32.T @ Rf.astype(np.float32)) + lam * Beta[:, act[f]]
            gb = Rf.sum(axis=0) if fi else np.zeros(int(f.sum()))
            if fi:
                Gt[B, f] = gb
            lower = np.sqrt(np.maximum(np.linalg.norm(Gt[:B, f], axis=0) - mu_norm * np.abs(gb), 0)
                            ** 2 + gb ** 2) / np.sqrt(Bp)
            if it == 0:
                far_floor[act[f]] = 1e-6 * lower
            leave = lower <= far_floor[act[f]]
            near = np.flatnonzero(~leave & (lower <= 2 * gtol))
            if near.size:  # max|g_j| estimated in float32 through V: near the test only then
                cf = np.flatnonzero(f)[near]
                est = basis.V32 @ Gt[:B, cf].astype(np.float32)
                if fi:
                    est += np.outer(mu, Gt[B, cf]).astype(np.float32)
                est_max = np.maximum(np.abs(est).max(axis=0), np.abs(gb[near]))
                leave[near] = est_max <= 2 * gtol
            if leave.any():  # leave the far phase: exact Z from here on
                cols = act[f][leave]
                far[cols] = False
                Z[:, cols] = Phi @ A[:, cols] + (b[cols] if fi else 0.0)
                P[:, np.flatnonzero(f)[leave]] = expit(Z[:, cols])
                f = far[act]
        gm = np.full(act.size, np.inf)  # far labels: not converged
        if not f.all():  # exact gradient in the original variables: the KKT test
            cols = act[~f]
            R = P[:, ~f] - Y[:, cols]
            gA = Phi.T @ R + lam * A[:, cols]
            gb = R.sum(axis=0) if fi else None
            gm[~f] = np.abs(gA).max(axis=0, initial=0.0)
            if fi:
                gm[~f] = np.maximum(gm[~f], np.abs(gb))
            Gt[:, ~f] = basis.from_original(gA, gb, single=True)
        grad_max[act] = gm
        keep = gm > gtol
        act, Gt, P, f = act[keep], Gt[:, keep], P[:, keep], f[keep]
        if act.size == 0 or it == max_iter:
            break
        Dw = P * (1.0 - P)
        c = Dw.mean(axis=0)
        prec = np.empty((Bp, act.size))
        prec[:B] = s2[:, None] * c + lam
        if fi:
            prec[B] = n * c
        step, k, ZS = _batched_pcg(_hessian_product(Phi, basis, Dw, lam, fi), Gt, prec, max_cg,
                                   n_rows=n)
        n_cg += k
        dA, db = basis.to_original(step, fi, single=True)
        # far: ZS = Ψ dβ + db' as the CG accumulated it from its products' Ψ d (float32 rounding)
        if not f.all():
            ZS[:, ~f] = Phi @ dA[:, ~f]
            if fi:
                ZS[:, ~f] += db[~f]
        # Armijo backtracking per label (the objective is separable across labels)
        Aa, Za, Sa = A[:, act], Z[:, act], S[:, act]
        aa, ad, dd = (np.sum(Aa * Aa, axis=0), np.sum(Aa * dA, axis=0), np.sum(dA * dA, axis=0))
        # (recomputed, not carried over from the last line search: that value sums the penalty as
        # ‖α‖² + 2t αᵀd + t²‖d‖², whose rounding decides Armijo tests near round-off, 1e-10 tolerances)
        f0 = _label_objectives(Za, Sa, 0.5 * lam * aa)
        slope = np.sum(Gt * step, axis=0)
        t = np.ones(act.size)
        todo = np.ones(act.size, bool)
        for _ in range(50):
            ft = _label_objectives(Za + t * ZS, Sa, 0.5 * lam * (aa + 2 * t * ad + t * t * dd))
            todo &= ~(ft <= f0 + 1e-4 * t * slope)
            if not todo.any():
                break
            t = np.where(todo, 0.5 * t, t)
        t = np.where(todo, 0.0, t)  # no decrease found (round-off level): keep the point
        A[:, act] = Aa + t * dA
        if fi:
            b[act] += t * db
        Beta[:, act] += t * step[:B]
        Z[:, act] = Za + t * ZS
        stuck = t == 0
        if stuck.all() and not f.any():
            break
        back = act[stuck & f]  # a float32 step that found no decrease: retry in float64
        far[back] = False
        Z[:, back] = Phi @ A[:, back] + (b[back] if fi else 0.0)
    rest = np.flatnonzero(np.isinf(grad_max))  # stopped while still far: the exact measure
    if rest.size:
        R = expit(Phi @ A[:, rest] + (b[rest] if fi else 0.0)) - Y[:, rest]
        gm = np.abs(Phi.T @ R + lam * A[:, rest]).max(axis=0, initial=0.0)
        grad_max[rest] = np.maximum(gm, np.abs(R.sum(axis=0))) if fi else gm
    return (np.vstack([A, b]) if fi else A), it, n_cg, grad_max


def _hessian_product(Phi, basis, Dw, lam, fit_intercept):
    """``hess(M, cols, eta)``: Hessian products in the basis of :class:`_Basis`, for
    :func:`_batched_pcg`.

    For a basis direction ``m = (m_β, m_b')`` and logistic weights ``d`` (a column of ``Dw``)
    the product is ``[Ψᵀ(d ∘ z) + λ VᵀV m_β; 1ᵀ(d ∘ z)]`` with ``z = Ψ m_β + m_b'``
    (``Ψ = Φ_c V``; without an intercept the last row and ``m_b'`` are absent). While every
    column's CG stopping ratio ``eta`` is at least ``1e-3`` (the usual case: the forcing term
    is ``min(0.5, √‖g‖)``) it runs in float32 on the stored ``Ψ`` with ``VᵀV = I``: right to
    ~1e-6 relative, far below the residual the CG has to reach, and a step is still accepted
    only by the float64 line search and gradient. Tighter solves run in float64 through
    ``Φ`` and ``V`` (``Ψ m = Φ(V m) − 1 μᵀ(V m)``), the exact Hessian in the basis.
    """
    B = basis.V.shape[0]
    Dw32 = Dw.astype(np.float32)

    def hess(M, cols, eta):
        out = np.empty_like(M)
        if eta.min(initial=1.0) >= 1e-3:
            Zd = basis.Psi32 @ M[:B].astype(np.float32)
            if fit_intercept:
                Zd += M[B].astype(np.float32)
            Wd = Dw32[:, cols] * Zd
            out[:B] = basis.Psi32.T @ Wd + lam * M[:B]
        else:
            dA = basis.V @ M[:B]
            Zd = Phi @ dA + ((M[B] - basis.mu @ dA) if fit_intercept else 0.0)
            Wd = Dw[:, cols] * Zd
            sw = Wd.sum(axis=0)
            out[:B] = basis.V.T @ (Phi.T @ Wd - np.outer(basis.mu, sw) + lam * dA)
        if fit_intercept:
            out[B] = Wd.sum(axis=0)
        return out, Zd

    return hess


def _batched_pcg(hess, G, prec, max_cg, n_rows=None):
    """Solve ``H_l x_l = −g_l`` for every column l by preconditioned CG, to ‖r‖ ≤ η‖g‖.

    Parameters
    ----------
    hess : callable
        ``hess(M, cols, eta)`` returns the Hessian products of the columns of M, shape
        (p, len(cols)), for the systems ``cols``, whose relative residual targets are ``eta``.
        Only the systems whose CG has not stopped are multiplied.
    G : ndarray, shape (p, m)
        Gradients.
    prec : ndarray, shape (p, m)
        Positive diagonal preconditioner per column.
    n_rows : int or None
        If given, ``hess`` returns ``(HM, ZM)`` with ``ZM = Ψ̃ M``, shape (n_rows, len(cols)), the
        inner products the Hessian product ``Ψ̃ᵀ D Ψ̃ M`` computes on the way, and the solve also
        returns ``Ψ̃ X``, accumulated from them as X is from the directions (no extra product).

    Returns
    -------
    X : ndarray, shape (p, m)
    n_steps : int
    ZX : ndarray, shape (n_rows, m)
        Only if ``n_rows`` is given.
    """
    gnorm = np.linalg.norm(G, axis=0)
    eta = np.minimum(0.1, np.sqrt(gnorm))  # Nocedal & Wright Alg. 7.1, capped at 0.1
    X = np.zeros_like(G)
    ZX = None if n_rows is None else np.zeros((n_rows, G.shape[1]))
    R = -G
    Zr = R / prec
    D = Zr.copy()
    rz = np.sum(R * Zr, axis=0)
    live = gnorm > 0
    k = 0
    while live.any() and k < max_cg:
        # only the live systems: every update below is column-wise, so each system follows
        # exactly the iteration it would alone
        cols = np.flatnonzero(live)
        Dc = D[:, cols]
        out = hess(Dc, cols, eta[cols])
        if ZX is not None:
            out, ZD = out
        k += 1
        dHd = np.sum(Dc * out, axis=0)
        pos = dHd > 0
        alpha = np.where(pos, rz[cols] / np.where(pos, dHd, 1.0), 0.0)
        X[:, cols] += alpha * Dc
        if ZX is not None:
            ZX[:, cols] += alpha * ZD
        Rc = R[:, cols] - alpha * out
        R[:, cols] = Rc
        go = (np.linalg.norm(Rc, axis=0) > eta[cols] * gnorm[cols]) & pos
        live[cols] = go
        Zc = Rc / prec[:, cols]
        rz_new = np.sum(Rc * Zc, axis=0)
        rzc = rz[cols]
        beta = np.where(go, rz_new / np.where(rzc > 0, rzc, 1.0), 0.0)
        D[:, cols] = Zc + beta * Dc
        rz[cols] = rz_new
    return (X, k) if ZX is None else (X, k, ZX)
