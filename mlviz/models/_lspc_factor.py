"""Factorisations of the landmark design Φ (n × B) for the LSPC Sylvester solve.

Both return ``ΦᵀΦ = V diag(f) Vᵀ`` with per-eigenvalue error bounds and the rotated
right-hand sides ``Vᵀ Φᵀ [Π, 1]`` (Nam et al., eq. (1) in ΦᵀΦ's eigenbasis), without
forming an n × n array:

- :func:`factorise_design`: Householder QR of Φ and the SVD of R. Accurate for every
  spectrum (the eigenvalue errors scale with s_b, not with s_max²), O(n B² + B³) with
  a large constant (the SVD with both singular-vector sets).
- :func:`factorise_design_deflated`: the Gram eigendecomposition after splitting off
  Φ's dominant right singular direction. Gaussian kernel features at the median
  bandwidth are nearly constant (every k(x, c) near exp(−½)), so Φ ≈ κ 11ᵀ: one
  singular value carries almost all of ``||Φ||_F²`` (on a bibtex-shaped training split
  s₁² = 3.65·10⁶ against s₂² = 474). The Gram's round-off, B·eps·s₁², is what makes
  plain ``eigh(ΦᵀΦ)`` inaccurate in the small directions; after a Householder
  reflection that maps the dominant direction to the first coordinate, the trailing
  block is decomposed on its own with an error B·eps·(||Φ||_F² − s₁²).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.linalg.blas import dger

from ..solvers.sylvester import SymmetricEig

__all__ = ["factorise_design", "dominant_direction", "factorise_design_deflated"]

_EPS = np.finfo(float).eps


def _rhs_columns(Pi, n):
    """``[Π, 1]``, shape (n, L + 1)."""
    c = np.empty((n, Pi.shape[1] + 1))
    c[:, :-1] = Pi
    c[:, -1] = 1.0
    return c


def factorise_design(Phi, Pi, *, overwrite=False):
    """``ΦᵀΦ = V diag(s²) Vᵀ`` and ``Vᵀ Φᵀ [Π, 1]`` without forming ΦᵀΦ.

    Householder QR ``Φ = Q R`` (with ``Qᵀ[Π, 1]`` applied on the fly, Q never
    stored) and the SVD ``R = U diag(s) Vᵀ`` give ``ΦᵀΦ = V diag(s²) Vᵀ`` and
    ``Vᵀ Φᵀ Π = diag(s) Uᵀ Qᵀ Π``. Unlike ``eigh(Φᵀ Φ)`` this does not square the
    condition number: the computed s have absolute error ≲ B·eps·s_max, so an
    eigenvalue s² carries ``2 s δs + δs²`` (tiny for small s) instead of B·eps·s_max²
    for every eigenvalue — the small-eigenvalue directions the λ/γ coupling
    regularises stay accurate (the landmark analogue of decomposing K itself).
    Cost O(n B² + B³ + n B L), memory O(n B).

    Parameters
    ----------
    Phi : ndarray, shape (n, B), n >= B
    Pi : ndarray, shape (n, L)
    overwrite : bool
        Allow Phi's memory to be reused.

    Returns
    -------
    eig : SymmetricEig
        Of ``ΦᵀΦ`` (B × B), with per-eigenvalue error bounds.
    rhs : ndarray, shape (B, L + 1)
        ``Vᵀ Φᵀ [Π, 1]``.
    """
    n, B = Phi.shape
    c = np.empty((Pi.shape[1] + 1, n))
    c[:-1] = Pi.T
    c[-1] = 1.0
    cQ, R = scipy.linalg.qr_multiply(Phi, c, mode="right", overwrite_a=overwrite,
                                     overwrite_c=True)
    U, s, Vt = scipy.linalg.svd(R, full_matrices=False, check_finite=False)
    delta = B * _EPS * s.max(initial=0.0)
    eig = SymmetricEig(s * s, Vt.T, 2.0 * s * delta + delta * delta)
    rhs = s[:, None] * (U.T @ cQ.T)
    return eig, rhs


def dominant_direction(Phi, *, max_iter=25, tol=1e-14):
    """Dominant right singular vector of Φ by power iteration on ``ΦᵀΦ``.

    Starts from the constant vector (the dominant direction of a Gaussian kernel
    design at the median bandwidth) and costs two matrix–vector products with Φ
    per iteration; it stops when the iterate moves by less than ``tol`` or, the
    spectrum not being dominated, converges slower than halving its step.

    Parameters
    ----------
    Phi : ndarray, shape (n, B)
    max_iter : int
    tol : float

    Returns
    -------
    v : ndarray, shape (B,)
        Unit vector (any unit vector is a valid input of
        :func:`factorise_design_deflated`; a better one only makes its coupling
        term smaller).
    rho : float
        ``||Φ v||²`` (a lower bound on s₁²).
    """
    B = Phi.shape[1]
    v = np.full(B, 1.0 / np.sqrt(B))
    step = prev_step = np.inf
    for k in range(max_iter):
        z = Phi.T @ (Phi @ v)
        norm = np.linalg.norm(z)
        if norm == 0.0:
            break
        z /= norm
        step, prev_step = float(np.linalg.norm(z - v)), step
        v = z
        if step <= tol or (k >= 2 and step > 0.5 * prev_step):
            break
    u = Phi @ v
    return v, float(u @ u)


def _reflect(P, w, beta):
    """``P ← P (I − β w wᵀ)`` in place (P C-contiguous); returns P."""
    Pw = P @ w
    out = dger(-beta, w, Pw, a=P.T, overwrite_a=True)
    if not np.shares_memory(out, P):  # (never for a C-contiguous float64 P)
        P[...] = out.T
    return P


def factorise_design_deflated(Phi, Pi, v, *, overwrite=False, fro2=None, max_error=None):
    """``ΦᵀΦ = V diag(f) Vᵀ`` and ``Vᵀ Φᵀ [Π, 1]``, the dominant direction ``v`` split off.

    With the Householder reflection ``H = I − β w wᵀ`` (``H e₁ = ±v``), ``P = Φ H``
    has ``P e₁ = ±Φ v`` and ``P[:, 1:] = Φ V₂`` (V₂ an orthonormal basis of v's
    complement). Its Gram matrix ``PᵀP = [[a, bᵀ], [b, D]]`` is computed once
    (O(n B²), half a GEMM); ``D = W diag(d) Wᵀ`` is decomposed by ``eigh``, and the
    coupling ``b = V₂ᵀ ΦᵀΦ v`` (the residual of v as an eigenvector, ≈ 0 for the
    power-iteration vector) is neglected, which moves every eigenvalue by at most
    ``||b||`` (Weyl). Then ``V = H · diag(1, W)`` and ``Vᵀ Φᵀ [Π, 1] = diag(1, W)ᵀ
    Pᵀ [Π, 1]``. Cost O(n B² + B³ + n B L) at the constant of one Gram product and
    one symmetric eigendecomposition; memory O(n B) (in place if ``overwrite``).

    Error bound of each small eigenvalue ``d_b = s_b²``: ``2 s_b δ + δ²`` with
    ``δ = 3 B·eps·||Φ||_F`` (rounding in forming P, a backward error of Φ as in QR),
    plus ``B·eps·tr(D)`` (Gram rounding and ``eigh`` of D, where ``tr(D) =
    ||Φ||_F² − ||Φ v||²``), plus ``||b||``. The dominant eigenvalue ``a`` carries
    ``B·eps·||Φ||_F²``.

    Parameters
    ----------
    Phi : ndarray, shape (n, B), C-contiguous float64
    Pi : ndarray, shape (n, L)
    v : ndarray, shape (B,)
        Unit vector, e.g. from :func:`dominant_direction`.
    overwrite : bool
        Allow Phi's memory to be reused (Φ then holds P on return).
    fro2 : float, optional
        ``||Φ||_F²`` if already known.
    max_error : float, optional
        Give up (return None, before the eigendecomposition, with Φ restored if
        overwritten) when the Gram part of the bound, ``B·eps·tr(D) + ||b||``,
        exceeds it.

    Returns
    -------
    eig : SymmetricEig
        Of ``ΦᵀΦ`` (B × B), eigenvalues ascending with the dominant one last, with
        per-eigenvalue error bounds.
    rhs : ndarray, shape (B, L + 1)
        ``Vᵀ Φᵀ [Π, 1]``.
    coupling : float
        ``||b||`` (part of the error bounds).
    (or None if ``max_error`` was exceeded)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Phi = np.exp(-rng.uniform(size=(50, 20)))
    >>> v, _ = dominant_direction(Phi)
    >>> eig, rhs, _ = factorise_design_deflated(Phi, np.ones((50, 1)), v)
    >>> np.allclose(eig.matrix(), Phi.T @ Phi), np.allclose(eig.vectors @ rhs[:, 0], Phi.sum(0))
    (True, True)
    """
    n, B = Phi.shape
    if fro2 is None:
        fro2 = float(np.einsum("ij,ij->", Phi, Phi))
    v = np.asarray(v, dtype=np.float64) / np.linalg.norm(v)
    sign = -1.0 if v[0] >= 0 else 1.0
    w = -sign * v
    w[0] += 1.0                     # w = e₁ − sign·v, w₀ = 1 + |v₀| (no cancellation)
    beta = 2.0 / float(w @ w)       # H = I − β w wᵀ, H e₁ = sign·v
    P = Phi if overwrite and Phi.flags.c_contiguous else np.array(Phi, order="C")
    P = _reflect(P, w, beta)         # P = Φ H, in place
    G = P.T @ P
    a = float(G[0, 0])
    coupling = float(np.linalg.norm(G[1:, 0]))
    tail = float(np.trace(G[1:, 1:]))
    if max_error is not None and B * _EPS * tail + coupling > max_error:
        if P is Phi:
            _reflect(P, w, beta)     # H² = I: Φ back (to rounding)
        return None
    rhs_full = P.T @ _rhs_columns(np.asarray(Pi, dtype=np.float64), n)  # Hᵀ Φᵀ [Π, 1]
    d, W = np.linalg.eigh(G[1:, 1:])
    del G
    d = np.maximum(d, 0.0)
    # V = H · diag(1, W): columns [H[:, 1:] W, sign·v]; H[:, 1:] W = [0; W] − β w (w[1:]ᵀ W)
    V = np.empty((B, B))
    V[0, :-1] = 0.0
    V[1:, :-1] = W
    V[:, :-1] -= np.outer(beta * w, w[1:] @ W)
    V[:, -1] = sign * v
    rhs = np.empty_like(rhs_full)
    rhs[:-1] = W.T @ rhs_full[1:]
    rhs[-1] = rhs_full[0]
    delta = 3.0 * B * _EPS * np.sqrt(fro2)
    err = np.empty(B)
    err[:-1] = 2.0 * np.sqrt(d) * delta + delta * delta + B * _EPS * tail + coupling
    err[-1] = B * _EPS * fro2
    return SymmetricEig(np.append(d, a), V, err), rhs, coupling
