"""Laplacian eigenmaps: the generalized problem L E = λ D E of a weighted graph.

Used by MLLEM (Kimura et al., eq. (2)–(3)): minimise Tr(Eᵀ L E) subject to
Eᵀ D E = I, where W is a symmetric non-negative (n, n) affinity matrix,
D = diag(W 1) and L = D − W. The minimisers are the generalized eigenvectors
of the smallest eigenvalues, after the trivial (constant) one(s) are dropped.

How the problem is solved
-------------------------
With U = D^{1/2} E the generalized problem is the standard symmetric problem
of the normalised Laplacian L_sym = I − S, S = D^{-1/2} W D^{-1/2}:
L_sym U = λ U, and Eᵀ D E = Uᵀ U = I holds automatically. Three solvers:

* ``"dense"``: ``scipy.linalg.eigh(L_sym, subset_by_index=...)`` (LAPACK);
* ``"lanczos"``: ``scipy.sparse.linalg.eigsh(S, which="LA")`` — the largest
  eigenvalues μ of S are the smallest λ = 1 − μ of L_sym; only sparse
  mat-vecs, no factorisation;
* ``"shift-invert"``: ``eigsh(L_sym, sigma=-1e-3)`` (L_sym is singular, so
  the shift is small and negative; L_sym − σ I is positive definite and is
  factorised once by SuperLU with the symmetric MMD ordering).

All three return the same subspace (tested). ``"auto"`` is dense for small
graphs and Lanczos otherwise, falling back to shift-invert if Lanczos does not
converge. On scene (2407 + 6 nodes, K = 20) Lanczos takes ≈ 0.04 s, the
shift-invert path ≈ 0.4 s (the kNN graph's LU fill-in dominates) and the dense
path ≈ 1–1.5 s, which is why shift-invert is not the default (see
``benchmarks/bench_mllem.py``).

Degenerate graphs (documented convention)
-----------------------------------------
* **Isolated nodes** (degree 0, e.g. a label with no positives in a CV fold)
  are removed before solving and placed at the origin, which is the
  D-weighted centre of the embedding (every returned column is D-orthogonal to
  the constants). They do not enter the constraint Eᵀ D E = I (their D is 0).
* **Disconnected graphs**: a graph with c connected components (isolated
  nodes excluded) has c zero eigenvalues, whose eigenvectors are the
  per-component constants. All c are dropped (``n_trivial`` in the result):
  since L and D are block diagonal, each component is solved on its own (so a
  Lanczos run never has to resolve a repeated eigenvalue 0), its constant
  vector is dropped, and the non-trivial eigenpairs of all components are
  merged by eigenvalue. Each returned column lives on one component, every
  component is D-centred at the origin, and the components overlap there; a
  ``UserWarning`` says so when c > 1.
* If fewer than ``n_components`` non-trivial eigenvectors exist, the missing
  columns are zeros (with a ``UserWarning``). The result is never NaN.

Sign convention: each column is flipped so that its entry of largest absolute
value is positive (the first such entry on near-ties), which makes results
reproducible across solvers and runs.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh, splu
from sklearn.utils import check_random_state

METHODS = ("auto", "dense", "lanczos", "shift-invert")

DENSE_MAX_NODES = 600
"""``method="auto"`` solves graphs with at most this many non-isolated nodes densely."""

ARPACK_SIGMA = -1e-3
"""Shift used by the shift-invert ARPACK path (small, negative: L_sym is singular)."""


@dataclass
class EigenmapResult:
    """Output of :func:`laplacian_eigenmap`.

    Attributes
    ----------
    embedding : ndarray, shape (n_nodes, n_components)
        E with Eᵀ D E = I (zero columns excepted); isolated nodes at the origin.
    eigenvalues : ndarray, shape (n_components,)
        The generalized eigenvalues λ (ascending; NaN-free, 0 for padded columns).
    isolated : ndarray of bool, shape (n_nodes,)
        Nodes of degree 0.
    n_trivial : int
        Number of dropped zero eigenvalues (= connected components of the
        non-isolated part).
    method : str
        ``"dense"``, ``"lanczos"`` or ``"shift-invert"`` (joined by ``+``
        when components were solved by different methods).
    """

    embedding: np.ndarray
    eigenvalues: np.ndarray
    isolated: np.ndarray
    n_trivial: int
    method: str


def _fix_signs(E):
    """Flip columns so that the (first) largest-|entry| of each column is positive."""
    if E.size == 0:
        return E
    absE = np.abs(E)
    colmax = absE.max(axis=0)
    idx = np.argmax(absE >= colmax * (1.0 - 1e-9), axis=0)
    signs = np.sign(E[idx, np.arange(E.shape[1])])
    signs[signs == 0] = 1.0
    return E * signs


def _check_affinity(W):
    W = sp.csr_matrix(W, dtype=np.float64) if not sp.issparse(W) else W.tocsr().astype(np.float64)
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be square, got shape {W.shape}.")
    if W.nnz and (not np.isfinite(W.data).all() or W.data.min() < 0):
        raise ValueError("W must have finite, non-negative entries.")
    asym = abs(W - W.T)
    scale = max(abs(W).max(), 1e-300) if W.nnz else 1.0
    if asym.nnz and asym.max() > 1e-10 * scale:
        raise ValueError("W must be symmetric.")
    return W


def _start_vector(m, random_state):
    return check_random_state(random_state).uniform(-1.0, 1.0, size=m)


def _solve_lanczos(S, n_eig, random_state):
    """Smallest eigenpairs of I − S from the largest algebraic eigenpairs of S."""
    mu, U = eigsh(S.tocsr(), k=n_eig, which="LA", v0=_start_vector(S.shape[0], random_state))
    order = np.argsort(-mu)
    return 1.0 - mu[order], U[:, order]


def _solve_shift_invert(S, n_eig, random_state):
    """Smallest eigenpairs of L_sym = I − S by ARPACK shift-invert around σ < 0."""
    m = S.shape[0]
    Lsym = (sp.identity(m, format="csc") - S).tocsc()
    lu = splu((Lsym - ARPACK_SIGMA * sp.identity(m, format="csc")).tocsc(),
              permc_spec="MMD_AT_PLUS_A")
    OPinv = LinearOperator((m, m), matvec=lu.solve, dtype=np.float64)
    vals, U = eigsh(Lsym, k=n_eig, sigma=ARPACK_SIGMA, which="LM", OPinv=OPinv,
                    v0=_start_vector(m, random_state))
    order = np.argsort(vals)
    return vals[order], U[:, order]


def _solve_block(S, n_eig, method, random_state):
    """Smallest ``n_eig`` eigenpairs of I − S for one connected block.

    Returns
    -------
    vals : ndarray, shape (n_eig,), ascending
    U : ndarray, shape (m, n_eig), orthonormal
    method : str actually used
    """
    m = S.shape[0]
    requested = method
    if method == "auto":
        method = "dense" if m <= DENSE_MAX_NODES else "lanczos"
    if method != "dense" and n_eig >= m - 1:
        method = "dense"  # ARPACK needs k < n - 1
    if method == "lanczos":
        try:
            vals, U = _solve_lanczos(S, n_eig, random_state)
            return vals, U, method
        except ArpackNoConvergence:
            if requested != "auto":
                raise
            method = "shift-invert"
    if method == "shift-invert":
        vals, U = _solve_shift_invert(S, n_eig, random_state)
        return vals, U, method
    Lsym = np.eye(m) - S.toarray()
    Lsym = (Lsym + Lsym.T) / 2.0
    vals, U = la.eigh(Lsym, subset_by_index=[0, n_eig - 1])
    return vals, U, "dense"


def laplacian_eigenmap(W, n_components, *, method="auto", random_state=None):
    """Bottom non-trivial generalized eigenvectors of L E = λ D E (Kimura et al., eq. (3)).

    Parameters
    ----------
    W : array-like or sparse matrix, shape (n_nodes, n_nodes)
        Symmetric non-negative affinities (zero diagonal is usual; self-loops
        are allowed and cancel in L = D − W).
    n_components : int
        K, the number of non-trivial eigenvectors returned.
    method : {"auto", "dense", "lanczos", "shift-invert"}
        ``"auto"`` is dense for at most :data:`DENSE_MAX_NODES` non-isolated
        nodes, Lanczos otherwise (shift-invert if Lanczos fails to converge).
    random_state : int, RandomState or None
        Seeds the ARPACK start vector ``v0`` (the dense path is deterministic;
        ARPACK results agree across seeds to solver precision).

    Returns
    -------
    result : EigenmapResult
        ``embedding`` (n_nodes, K) with Eᵀ D E = I, ``eigenvalues`` (K,), etc.

    References
    ----------
    M. Belkin and P. Niyogi, "Laplacian eigenmaps for dimensionality reduction
    and data representation", Neural Computation 15, 2003; Kimura, Kudo, Sun,
    MLLEM, eq. (2)–(3).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> W = sp.diags([np.ones(9), np.ones(9)], [-1, 1])  # path graph on 10 nodes
    >>> res = laplacian_eigenmap(W, 2)
    >>> D = np.diag(np.asarray(W.sum(1)).ravel()); L = D - W.toarray()
    >>> E = res.embedding
    >>> bool(np.allclose(L @ E, D @ E * res.eigenvalues) and np.allclose(E.T @ D @ E, np.eye(2)))
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}.")
    n_components = int(n_components)
    if n_components < 1:
        raise ValueError(f"n_components must be >= 1, got {n_components}.")
    W = _check_affinity(W)
    n = W.shape[0]
    W = W - sp.diags(W.diagonal())  # self-loops cancel in L; drop them
    W.eliminate_zeros()
    degree = np.asarray(W.sum(axis=1)).ravel()
    isolated = degree <= 0
    active = np.flatnonzero(~isolated)
    E = np.zeros((n, n_components))
    eigenvalues = np.zeros(n_components)
    if active.size == 0:
        warnings.warn("Graph has no edges: embedding is all zeros.", UserWarning, stacklevel=2)
        return EigenmapResult(E, eigenvalues, isolated, 0, "dense")

    Wa = W[active][:, active]
    da = degree[active]
    n_cc, labels = connected_components(Wa, directed=False)
    if n_cc > 1:
        warnings.warn(
            f"Graph has {n_cc} connected components (isolated nodes excluded); their "
            f"{n_cc} constant eigenvectors are dropped and each component is centred "
            "at the origin.", UserWarning, stacklevel=2)
    m = active.size
    n_avail = m - n_cc  # non-trivial eigenvectors that exist
    k_use = min(n_components, n_avail)
    if k_use < n_components:
        warnings.warn(
            f"Only {max(n_avail, 0)} non-trivial eigenvectors exist; "
            f"{n_components - max(k_use, 0)} embedding column(s) set to zero.",
            UserWarning, stacklevel=2)
    if k_use <= 0:
        return EigenmapResult(E, eigenvalues, isolated, n_cc, "dense")

    inv_sqrt_d = 1.0 / np.sqrt(da)
    S = (sp.diags(inv_sqrt_d) @ Wa @ sp.diags(inv_sqrt_d)).tocsr()  # D^{-1/2} W D^{-1/2}
    # L_sym is block diagonal over components: solve each block, drop its
    # constant vector (its eigenvalue 0 is simple), merge by eigenvalue.
    # Each component's vectors are kept on its own nodes only (memory O(m K), not
    # O(m K n_cc)); the selected columns are scattered into U at the end.
    all_vals, pieces, used = [], [], set()
    by_component = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[by_component], np.arange(n_cc + 1))
    for c in range(n_cc):
        idx = by_component[bounds[c]:bounds[c + 1]]
        kc = min(k_use, idx.size - 1)
        if kc <= 0:
            continue
        S_c = S[idx][:, idx] if n_cc > 1 else S
        vals, U_c, used_method = _solve_block(S_c, kc + 1, method, random_state)
        used.add(used_method)
        all_vals.append(vals[1:])
        pieces.extend((idx, U_c[:, j]) for j in range(1, kc + 1))
    vals = np.concatenate(all_vals)
    order = np.argsort(vals, kind="stable")[:k_use]
    U = np.zeros((m, k_use))
    for col, p in enumerate(order):
        idx, vec = pieces[p]
        U[idx, col] = vec
    Ea = U * inv_sqrt_d[:, None]  # E = D^{-1/2} U
    E[active, :k_use] = _fix_signs(Ea)
    eigenvalues[:k_use] = np.maximum(vals[order], 0.0)
    method = "+".join(sorted(used))
    return EigenmapResult(E, eigenvalues, isolated, n_cc, method)
