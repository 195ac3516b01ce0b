"""Solvers for the continuous Sylvester equation ``A Θ + Θ C = B``.

The ML-LSPC training problem of Nam, Hachiya & Sugiyama (Nam et al., eq. (1))
is ``ΦᵀΦ Θ + Θ C = Φᵀ Π`` with ``A = ΦᵀΦ`` symmetric positive semi-definite
(B × B), ``C = diag(λ + Γ1) − Γ`` symmetric (T × T, positive definite for
λ > 0) and a right-hand side of shape (B, T). Three solvers are provided:

- :func:`solve_sylvester_eig` — from cached eigendecompositions of ``A`` and
  ``C`` (the closed form after Nam et al., eq. (1)). Given the caches the cost
  is two (B × B)·(B × T) products plus an elementwise division, O(B²T); with
  the right-hand side already rotated into A's eigenbasis only one.
- :func:`solve_sylvester_cg` — conjugate gradient on the Kronecker system
  ``H vec(Θ) = vec(B)``, ``H = I_T ⊗ A + C ⊗ I_B``, through a matrix-free
  :class:`scipy.sparse.linalg.LinearOperator` with
  ``[Hθ]_t = A θ_t + Σ_t' C_tt' θ_t'`` (Nam et al., §5), warm-startable.
- :func:`solve_sylvester_naive` — the dense (BT × BT) Kronecker solve, for
  verification and timing only; refuses above a size limit.

None of them mutates its inputs.

References
----------
H. Nam, H. Hachiya, M. Sugiyama. Computationally efficient multi-label
classification by least-squares probabilistic classifiers, §5, eq. (1).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, aslinearoperator, cg
from sklearn.exceptions import ConvergenceWarning

#: :func:`solve_sylvester_eig` warns when an eigenvalue error bound exceeds this
#: fraction of a denominator |f_b + g_t| (the solution may then be off by that much)
ILL_CONDITIONED_RTOL = 1e-2

__all__ = [
    "SymmetricEig",
    "SylvesterCGInfo",
    "solve_sylvester_eig",
    "solve_sylvester_cg",
    "solve_sylvester_naive",
]


@dataclass(frozen=True)
class SymmetricEig:
    """Eigendecomposition ``M = V diag(w) Vᵀ`` of a symmetric matrix.

    Attributes
    ----------
    values : ndarray, shape (n,)
        Eigenvalues ``w`` (not necessarily sorted).
    vectors : ndarray, shape (n, n)
        Orthonormal eigenvectors ``V`` as columns.

    Examples
    --------
    >>> import numpy as np
    >>> M = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> e = SymmetricEig.from_matrix(M)
    >>> np.allclose(e.vectors @ np.diag(e.values) @ e.vectors.T, M)
    True
    """

    values: np.ndarray
    vectors: np.ndarray
    #: absolute error bound of each computed eigenvalue (None: only the rounding of ``values``)
    abs_error: np.ndarray | None = None

    @property
    def n(self):
        """Order of the decomposed matrix."""
        return self.values.shape[0]

    @classmethod
    def from_matrix(cls, M, *, check_symmetric=True):
        """Decompose a symmetric matrix with :func:`numpy.linalg.eigh`.

        Parameters
        ----------
        M : array-like, shape (n, n)
            Symmetric matrix (only its lower triangle is read by LAPACK).
        check_symmetric : bool
            Raise ``ValueError`` if ``M`` is not symmetric up to 1e-8 relative.
        """
        M = np.asarray(M, dtype=np.float64)
        if M.ndim != 2 or M.shape[0] != M.shape[1]:
            raise ValueError(f"Expected a square matrix, got shape {M.shape}.")
        if check_symmetric:
            scale = max(np.abs(M).max(initial=0.0), 1.0)
            if np.abs(M - M.T).max(initial=0.0) > 1e-8 * scale:
                raise ValueError("Matrix is not symmetric.")
        w, V = np.linalg.eigh(M)
        # backward-stable eigh: |w_computed - w| <= n·eps·||M||_2 (Golub & Van Loan §8.1)
        err = np.full(w.shape, w.shape[0] * np.finfo(float).eps * np.abs(w).max(initial=0.0))
        return cls(w, V, err)

    @classmethod
    def from_gram_of_symmetric(cls, K, *, check_symmetric=True):
        """Decomposition of ``KᵀK = K²`` from the eigendecomposition of symmetric ``K``.

        For the kernel model (B = N centres = training points) Φ = K is symmetric
        and ``ΦᵀΦ = K²`` has the eigenvectors of K and the squared eigenvalues;
        tiny negative eigenvalues of K (round-off) square to non-negative ones.
        This is both cheaper and more accurate than decomposing ``K @ K``.

        Returns
        -------
        eig : SymmetricEig
            Decomposition of ``K²`` (values ``s²``).
        signed_values : ndarray, shape (n,)
            Eigenvalues ``s`` of ``K`` itself (same order as the vectors).
        """
        e = cls.from_matrix(K, check_symmetric=check_symmetric)
        # f = s² with |δs| <= err_s: |δf| <= 2|s|·err_s + err_s² (tiny for small s)
        err = 2.0 * np.abs(e.values) * e.abs_error + e.abs_error**2
        return cls(e.values**2, e.vectors, err), e.values

    def shifted(self, shift):
        """Decomposition of ``M + shift·I`` (same vectors, values + shift)."""
        return SymmetricEig(self.values + shift, self.vectors, self.abs_error)

    def scaled(self, factor, shift=0.0):
        """Decomposition of ``factor·M + shift·I``."""
        err = None if self.abs_error is None else abs(factor) * self.abs_error
        return SymmetricEig(factor * self.values + shift, self.vectors, err)

    def error_bound(self):
        """Absolute error bound per eigenvalue, shape (n,) (at least the rounding of ``values``)."""
        own = np.finfo(float).eps * np.abs(self.values)
        return own if self.abs_error is None else np.maximum(own, self.abs_error)

    def matrix(self):
        """Reassemble ``V diag(w) Vᵀ``, shape (n, n)."""
        return (self.vectors * self.values) @ self.vectors.T


def _as_eig(obj, name):
    if isinstance(obj, SymmetricEig):
        return obj
    if isinstance(obj, tuple) and len(obj) == 2:
        return SymmetricEig(np.asarray(obj[0], float), np.asarray(obj[1], float))
    raise TypeError(f"{name} must be a SymmetricEig (e.g. SymmetricEig.from_matrix({name[:1]})), "
                    f"got {type(obj).__name__}.")


def solve_sylvester_eig(A_eig, C_eig, B, *, rhs_in_eigbasis=False, return_eigbasis=False):
    """Solve ``A Θ + Θ C = B`` from eigendecompositions of symmetric A and C.

    With ``A = F diag(f) Fᵀ`` and ``C = G diag(g) Gᵀ`` the solution is
    ``Θ = F Q Gᵀ`` with ``Q_bt = [Fᵀ B G]_bt / (f_b + g_t)`` (Nam et al., the
    closed form after eq. (1)).

    Parameters
    ----------
    A_eig : SymmetricEig
        Decomposition of A, shape (p, p) (e.g. ``ΦᵀΦ``; cache it — it does not
        depend on λ or γ).
    C_eig : SymmetricEig
        Decomposition of C, shape (T, T).
    B : ndarray, shape (p, T)
        Right-hand side; or ``Fᵀ B`` if ``rhs_in_eigbasis``.
    rhs_in_eigbasis : bool, default False
        ``B`` is already ``Fᵀ B`` (cache it across λ/γ: one (p × p)·(p × T)
        product is saved).
    return_eigbasis : bool, default False
        Return ``Fᵀ Θ = Q Gᵀ`` instead of Θ (saves the final product; useful when
        the caller multiplies by ``Φ_test F`` itself).

    Returns
    -------
    Theta : ndarray, shape (p, T)
        Solution (or ``Fᵀ Θ`` if ``return_eigbasis``).

    Raises
    ------
    numpy.linalg.LinAlgError
        If some ``f_b + g_t`` is exactly zero (A and −C share an eigenvalue:
        the equation is singular).

    Warns
    -----
    scipy.linalg.LinAlgWarning
        If the eigenvalue error bounds (``SymmetricEig.error_bound()``: n·eps·||M||
        for a backward-stable eigh, 2|s|δs + δs² for ``from_gram_of_symmetric``)
        exceed :data:`ILL_CONDITIONED_RTOL` of some ``|f_b + g_t|``: the computed
        solution may then be wrong by that fraction in those directions. (A large
        ratio max|f+g| / min|f+g| alone is not a problem: the division is exact
        up to rounding.)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> P = rng.normal(size=(6, 4)); A = P.T @ P
    >>> C = np.array([[1.5, -0.5], [-0.5, 1.5]])
    >>> B = rng.normal(size=(4, 2))
    >>> X = solve_sylvester_eig(SymmetricEig.from_matrix(A), SymmetricEig.from_matrix(C), B)
    >>> np.allclose(A @ X + X @ C, B)
    True
    """
    A_eig = _as_eig(A_eig, "A_eig")
    C_eig = _as_eig(C_eig, "C_eig")
    B = np.asarray(B, dtype=np.float64)
    if B.ndim != 2 or B.shape != (A_eig.n, C_eig.n):
        raise ValueError(f"B must have shape ({A_eig.n}, {C_eig.n}), got {B.shape}.")
    denom = A_eig.values[:, None] + C_eig.values[None, :]
    abs_denom = np.abs(denom)
    if abs_denom.size and abs_denom.min() == 0.0:
        raise np.linalg.LinAlgError(
            "Singular Sylvester equation: A and -C share an eigenvalue (f_b + g_t = 0); "
            "increase the regularisation (lam > 0).")
    if abs_denom.size:
        # forward error of Q_bt = r_bt / (f_b + g_t): the eigenvalue errors δf, δg (from the
        # decompositions) change each denominator by at most δf_b + δg_t
        rel = (A_eig.error_bound()[:, None] + C_eig.error_bound()[None, :]) / abs_denom
        worst = float(rel.max())
        if worst > ILL_CONDITIONED_RTOL:
            b, t = np.unravel_index(np.argmax(rel), rel.shape)
            warnings.warn(
                "Ill-conditioned Sylvester equation: eigenvalue round-off may change the "
                f"solution by up to {worst:.0%} in some directions (|f + g| = "
                f"{abs_denom[b, t]:.3g} against an eigenvalue error of "
                f"{rel[b, t] * abs_denom[b, t]:.3g}); increase the regularisation.",
                scipy.linalg.LinAlgWarning, stacklevel=2)
    FtB = B if rhs_in_eigbasis else A_eig.vectors.T @ B
    Q = (FtB @ C_eig.vectors) / denom
    QGt = Q @ C_eig.vectors.T
    if return_eigbasis:
        return QGt
    return A_eig.vectors @ QGt


@dataclass(frozen=True)
class SylvesterCGInfo:
    """Outcome of :func:`solve_sylvester_cg`.

    Attributes
    ----------
    converged : bool
        ``True`` iff scipy's CG reached ``||r|| <= max(rtol·||B||, atol)``.
    n_iter : int
        Number of CG iterations performed.
    residual_norm : float
        Final relative residual ``||B − AΘ − ΘC||_F / ||B||_F`` (recomputed).
    """

    converged: bool
    n_iter: int
    residual_norm: float


def _kron_operator(A_op, C, p, T):
    def matmat_blocks(Theta):
        return A_op.matmat(Theta) + Theta @ C

    def matvec(v):
        return matmat_blocks(np.reshape(v, (p, T))).ravel()

    return LinearOperator((p * T, p * T), matvec=matvec, rmatvec=matvec, dtype=np.float64), matmat_blocks


def solve_sylvester_cg(A, C, B, *, x0=None, rtol=1e-8, atol=0.0, maxiter=None, M=None,
                       callback=None):
    """Solve ``A Θ + Θ C = B`` by conjugate gradient on the Kronecker system.

    The system ``H θ = h`` with ``H = I_T ⊗ A + C ⊗ I_B`` (Nam et al., §5) is
    never formed: the :class:`~scipy.sparse.linalg.LinearOperator` applies
    ``[Hθ]_t = A θ_t + Σ_t' C_tt' θ_t'`` in O(cost(A·X) + pT²) per iteration.
    H must be symmetric positive definite (A symmetric PSD, C symmetric, all
    ``eig(A) + eig(C) > 0``).

    Parameters
    ----------
    A : ndarray, sparse matrix or LinearOperator, shape (p, p)
        Symmetric PSD; a LinearOperator lets ``ΦᵀΦ`` be applied as ``Φᵀ(ΦX)``
        without forming it.
    C : ndarray, shape (T, T)
        Symmetric.
    B : ndarray, shape (p, T)
        Right-hand side.
    x0 : ndarray, shape (p, T), optional
        Warm start (not modified).
    rtol, atol : float
        Stop when ``||h − Hθ||_2 <= max(rtol·||h||_2, atol)``.
    maxiter : int, optional
        Maximum number of iterations (scipy default ``10·p·T``).
    M : LinearOperator, optional
        Preconditioner for H (passed to :func:`scipy.sparse.linalg.cg`).
    callback : callable, optional
        Called as ``callback(Theta_k)`` with the current iterate, shape (p, T),
        after each iteration (e.g. to record a convergence history).

    Returns
    -------
    Theta : ndarray, shape (p, T)
    info : SylvesterCGInfo
        ``converged``, ``n_iter`` and the final relative residual.

    Warns
    -----
    sklearn.exceptions.ConvergenceWarning
        If the tolerance was not reached within ``maxiter`` iterations.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> P = rng.normal(size=(8, 5)); A = P.T @ P
    >>> C = np.array([[2.0, -1.0], [-1.0, 2.0]])
    >>> B = rng.normal(size=(5, 2))
    >>> X, info = solve_sylvester_cg(A, C, B, rtol=1e-12)
    >>> info.converged and np.allclose(A @ X + X @ C, B)
    True
    """
    B = np.asarray(B, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    if B.ndim != 2:
        raise ValueError(f"B must be 2-D (p, T), got shape {B.shape}.")
    p, T = B.shape
    if C.shape != (T, T):
        raise ValueError(f"C must have shape ({T}, {T}), got {C.shape}.")
    if A.shape != (p, p):
        raise ValueError(f"A must have shape ({p}, {p}), got {A.shape}.")
    A_op = aslinearoperator(A)
    H, matmat_blocks = _kron_operator(A_op, C, p, T)
    h = B.ravel().copy()
    x_start = None
    if x0 is not None:
        x0 = np.asarray(x0, dtype=np.float64)
        if x0.shape != (p, T):
            raise ValueError(f"x0 must have shape ({p}, {T}), got {x0.shape}.")
        x_start = x0.ravel().copy()
    n_iter = 0

    def _cb(xk):
        nonlocal n_iter
        n_iter += 1
        if callback is not None:
            callback(np.reshape(xk, (p, T)).copy())

    x, status = cg(H, h, x0=x_start, rtol=rtol, atol=atol, maxiter=maxiter, M=M, callback=_cb)
    Theta = x.reshape(p, T)
    b_norm = np.linalg.norm(B)
    res = np.linalg.norm(B - matmat_blocks(Theta))
    rel = float(res / b_norm) if b_norm > 0 else float(res)
    converged = status == 0
    if status < 0:
        raise np.linalg.LinAlgError(f"CG breakdown (scipy info={status}).")
    if not converged:
        warnings.warn(f"Sylvester CG did not converge in {n_iter} iterations "
                      f"(relative residual {rel:.3g} > rtol {rtol:g}).",
                      ConvergenceWarning, stacklevel=2)
    return Theta, SylvesterCGInfo(converged=bool(converged), n_iter=int(n_iter), residual_norm=rel)


def solve_sylvester_naive(A, C, B, *, max_size=5000):
    """Solve ``A Θ + Θ C = B`` by a dense LU solve of the (pT × pT) Kronecker system.

    ``vec(AΘ + ΘC) = (I_T ⊗ A + Cᵀ ⊗ I_p) vec(Θ)`` (column-major vec); this is
    the O(p³T³) "mldivide" baseline of Nam et al., Fig. 1(b). For verification
    and timing only.

    Parameters
    ----------
    A : ndarray or sparse matrix, shape (p, p)
    C : ndarray, shape (T, T)
    B : ndarray, shape (p, T)
    max_size : int, default 5000
        Largest allowed ``p·T`` (the dense matrix has ``(p·T)²`` entries).

    Returns
    -------
    Theta : ndarray, shape (p, T)

    Raises
    ------
    ValueError
        If ``p·T > max_size``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[2.0, 0.5], [0.5, 1.0]]); C = np.array([[1.0]])
    >>> B = np.array([[1.0], [2.0]])
    >>> X = solve_sylvester_naive(A, C, B)
    >>> np.allclose(A @ X + X @ C, B)
    True
    """
    B = np.asarray(B, dtype=np.float64)
    if B.ndim != 2:
        raise ValueError(f"B must be 2-D (p, T), got shape {B.shape}.")
    p, T = B.shape
    size = p * T
    if size > max_size:
        gb = size * size * 8 / 1e9
        raise ValueError(
            f"solve_sylvester_naive would build a dense ({size} x {size}) Kronecker matrix "
            f"(p={p} x T={T}; {gb:.2f} GB, O((pT)^3) work), above max_size={max_size}. "
            "Use solve_sylvester_eig or solve_sylvester_cg, or raise max_size deliberately.")
    A = A.toarray() if sp.issparse(A) else np.asarray(A, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    if A.shape != (p, p) or C.shape != (T, T):
        raise ValueError(f"Shapes do not match: A {A.shape}, C {C.shape}, B {B.shape}.")
    H = np.kron(np.eye(T), A) + np.kron(C.T, np.eye(p))
    x = scipy.linalg.solve(H, B.ravel(order="F"), overwrite_a=True, check_finite=True)
    return x.reshape((p, T), order="F")
