"""Shared pieces of the label-embedding baselines (CPLST, FaIE, LEML, SLEEC, InsDif).

Building blocks, numpy/scipy/scikit-learn only (X may be CSR: centring is
implicit, X − 1 μᵀ is never formed; :func:`centred_gram`):

* :class:`CenteredGram` — the eigendecomposition of the centred Gram matrix
  of X (primal F × F when F <= N, dual N × N otherwise), computed once and
  reused for ridge regressions with any λ and for the Kronecker-structured
  solves of LEML (the dual case).
* :class:`CenteredRidge` — one Cholesky factor of Xcᵀ Xc + λI (or the dual)
  for every right-hand side; ``whiten``/``unwhiten`` give the ridge hat
  matrix's quadratic forms (CPLST, FaIE) without any eigendecomposition.
* :class:`CenteredTridiagonal` and :func:`shifted_tridiagonal_solve` — the
  Householder tridiagonalisation Xcᵀ Xc = Z T Zᵀ (LAPACK ``dsytrd``, about a
  third of an eigendecomposition), in which LEML's shifted systems
  (s_k Xcᵀ Xc + λI) w = c cost O(F) each.
* :class:`ScoreCalibrationMixin` — turns a method's native real-valued label
  scores into probabilities. ``calibration="platt"`` reuses MLLEM's mechanism
  (:func:`mlviz.models.mllem.platt_fit` on cross-fitted training scores:
  ``calibration_folds`` shuffled folds, a clone fitted on the other folds
  scores each held-out fold, one monotone σ(a_l s + b_l) per label is fitted
  to the pooled held-out scores); ``calibration="clip"`` reads the score as a
  linear-probability estimate and clips it to [0, 1] (so ``threshold=0.5``
  is the paper's own rounding rule).
"""

import warnings

import numpy as np
import scipy.linalg as la
import scipy.linalg.lapack as lapack
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state

from .._validation import TooLargeError
from .mllem import _sigmoid, platt_fit

GRAM_MAX_BYTES = 1.5 * 2 ** 30
"""Largest min(N, F)² Gram (in bytes, float64, with its eigenvectors) a fit may form."""
EIGH_FLOPS_PER_SECOND = 2e9
"""Rough single-core rate of ``scipy.linalg.eigh`` used for the time estimate (≈ 9 n³ flops)."""
MAX_EIGH_SECONDS = 600.0


def resolve_n_components(owner, value, n_labels):
    """K from an int (used as is) or a fraction of L in (0, 1] (rounded, at least 1).

    Returns
    -------
    K : int, 1 <= K <= n_labels
    """
    if isinstance(value, (float, np.floating)) and 0.0 < value <= 1.0:
        return max(1, round(float(value) * n_labels))
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1:
        return int(min(value, n_labels))
    raise ValueError(f"The 'n_components' parameter of {owner} must be an int >= 1 or a float in "
                     f"(0, 1], got {value!r}.")


def check_gram_size(owner, n, flops, what):
    """Refuse (:class:`TooLargeError`) a fit whose n × n Gram factorisation needs too much memory or time.

    Parameters
    ----------
    owner : str
    n : int
        Order of the Gram matrix (min(N, F), or L + F for FaIE's eigenproblem).
    flops : float
        Floating-point operations of the factorisation (time estimate at
        :data:`EIGH_FLOPS_PER_SECOND`).
    what : str
        The factorisation, for the message.
    """
    nbytes = 3 * 8.0 * n * n
    seconds = flops / EIGH_FLOPS_PER_SECOND
    if nbytes > GRAM_MAX_BYTES or seconds > MAX_EIGH_SECONDS:
        raise TooLargeError(
            f"{owner} needs {what} of a {n} × {n} Gram matrix: about "
            f"{nbytes / 2 ** 30:.1f} GB and {seconds:.0f} s. Reduce the features (e.g. TruncatedSVD) "
            f"or the training rows, or use BinaryRelevance.",
            estimate_seconds=seconds, estimate_bytes=nbytes, alternative="reduce min(N, F)")


def centred_gram(X):
    """The Gram matrix of the centred X without forming X − 1 μᵀ.

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (N, F)

    Returns
    -------
    mean : ndarray, shape (F,)
        μ, the column means.
    G : ndarray, shape (F, F) if primal else (N, N)
        Xcᵀ Xc (primal, F <= N) or Xc Xcᵀ (dual), exactly symmetric.
    primal : bool
    """
    N, F = X.shape
    mean = np.asarray(X.mean(axis=0)).ravel()
    primal = F <= N
    G = X.T @ X if primal else X @ X.T
    G = G.toarray() if sp.issparse(G) else np.asarray(G, dtype=np.float64)   # a fresh array either way
    if primal:
        G -= N * np.outer(mean, mean)
    else:
        Xmu = np.asarray(X @ mean).ravel()
        G -= Xmu[:, None]
        G -= Xmu[None, :]
        G += mean @ mean
    G += G.T            # numpy buffers the overlapping transpose: exact symmetrisation
    G *= 0.5
    return mean, G, primal


class CenteredGram:
    """Eigendecomposition of the centred Gram of X, for ridge solves with an intercept.

    With Xc = X − 1 μᵀ (μ the column means), the primal form (F <= N)
    decomposes Xcᵀ Xc = Q diag(ev) Qᵀ, the dual form (F > N)
    Xc Xcᵀ = U diag(ev) Uᵀ. Either way the ridge solution of
    min_W ‖Xc W − R‖² + λ‖W‖² is available for any λ and any R in
    O(min(N, F)·(N + F)·n_cols) after one O(min(N, F)³) eigendecomposition.

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (N, F)
    owner : str
        Estimator name for the :class:`TooLargeError` message.

    Attributes
    ----------
    mean : ndarray, shape (F,)
    primal : bool
    evals : ndarray, shape (r,), r = min(N, F), clipped at 0
    evecs : ndarray, shape (F, r) if primal else (N, r)
    """

    def __init__(self, X, owner="estimator"):
        n = min(X.shape)
        check_gram_size(owner, n, 9.0 * n ** 3, "the eigendecomposition")
        self.X = X
        self.mean, G, self.primal = centred_gram(X)
        ev, V = la.eigh(G)
        self.evals = np.clip(ev, 0.0, None)
        self.evecs = V

    # implicit centring -------------------------------------------------------
    def xc_dot(self, B, X=None):
        """(X − 1 μᵀ) B for the training X (or another X centred by the training μ)."""
        X = self.X if X is None else X
        return np.asarray(X @ B) - self.mean @ B

    def xct_dot(self, R):
        """Xcᵀ R, shape (F, n_cols)."""
        return np.asarray(self.X.T @ R) - np.outer(self.mean, R.sum(axis=0))

    def rotate(self, R):
        """G = Qᵀ Xcᵀ R (primal) or diag(√ev) Uᵀ R (dual), shape (r, n_cols).

        In these coordinates Xcᵀ Xc acts as diag(ev): for W = unrotate(Wr),
        (Xc W)ᵀ R = Wrᵀ G, (Xc W)ᵀ (Xc W) = Wrᵀ diag(ev) Wr and ‖W‖ = ‖Wr‖.
        """
        R = np.asarray(R, dtype=np.float64)
        if self.primal:
            return self.evecs.T @ self.xct_dot(R)
        return np.sqrt(self.evals)[:, None] * (self.evecs.T @ R)

    def unrotate(self, Wr):
        """The feature-space coefficients W (F, k) of rotated coefficients Wr (r, k)."""
        if self.primal:
            return self.evecs @ Wr
        inv = np.divide(1.0, np.sqrt(self.evals), out=np.zeros_like(self.evals), where=self.evals > 1e-12)
        return self.xct_dot(self.evecs @ (Wr * inv[:, None]))

    def ridge(self, R, lam):
        """W = argmin ‖Xc W − Rc‖² + λ‖W‖² with Rc = R − column means; shape (F, n_cols).

        Parameters
        ----------
        R : ndarray, shape (N, n_cols)
        lam : float > 0

        Returns
        -------
        W : ndarray, shape (F, n_cols)
            Predictions are ``xc_dot(W, X_new) + R.mean(axis=0)``.
        """
        R = np.asarray(R, dtype=np.float64)
        return self.unrotate(self.rotate(R - R.mean(axis=0)) / (self.evals + lam)[:, None])

    def hat_apply(self, u, lam):
        """B u for the square root B (N, r) of the ridge hat matrix, B Bᵀ = Xc (Xcᵀ Xc + λI)⁻¹ Xcᵀ.

        Primal: B = Xc Q diag((ev + λ)^{-1/2}); dual: B = U diag(√(ev / (ev + λ))).
        In both, Bᵀ B = diag(ev / (ev + λ)) and Bᵀ R = rotate(R) / √(ev + λ).
        """
        if self.primal:
            return self.xc_dot(self.evecs @ (u / np.sqrt(self.evals + lam)[:, None]))
        return self.evecs @ (u * np.sqrt(self.evals / (self.evals + lam))[:, None])


class CenteredRidge:
    """One ridge problem min_W ‖Xc W − Rc‖² + λ‖W‖² factorised once by Cholesky (any right-hand side).

    The primal (F <= N) or dual (F > N) system is factorised in
    O(min(N, F)³ / 3) — cheaper than :class:`CenteredGram`'s eigendecomposition
    when only one λ is needed (SLEEC's regressor and its ADMM steps).

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (N, F)
    lam : float > 0
    owner : str
    """

    def __init__(self, X, lam, owner="estimator", keep_gram=False):
        n = min(X.shape)
        nbytes = 2 * 8.0 * n * n
        seconds = n ** 3 / 3.0 / EIGH_FLOPS_PER_SECOND
        if nbytes > GRAM_MAX_BYTES or seconds > MAX_EIGH_SECONDS:
            raise TooLargeError(
                f"{owner} needs the Cholesky factor of a {n} × {n} Gram matrix: about "
                f"{nbytes / 2 ** 30:.1f} GB and {seconds:.0f} s. Reduce the features or the rows.",
                estimate_seconds=seconds, estimate_bytes=nbytes, alternative="reduce min(N, F)")
        self.X = X
        self.lam = float(lam)
        self.mean, G, self.primal = centred_gram(X)
        self.gram = G.copy() if keep_gram else None
        G[np.diag_indices(n)] += self.lam
        self.factor = la.cho_factor(G, overwrite_a=True)

    xc_dot = CenteredGram.xc_dot
    xct_dot = CenteredGram.xct_dot

    def solve(self, R):
        """W = argmin ‖Xc W − (R − column means)‖² + λ‖W‖², shape (F, n_cols)."""
        R = np.asarray(R, dtype=np.float64)
        Rc = R - R.mean(axis=0)
        if self.primal:
            return la.cho_solve(self.factor, self.xct_dot(Rc))
        return self.xct_dot(la.cho_solve(self.factor, Rc))

    def whiten(self, R):
        """U⁻ᵀ R for the Cholesky factor Uᵀ U = Xcᵀ Xc + λI (primal only), shape (F, n_cols).

        ``whiten(C)ᵀ whiten(C) = Cᵀ (Xcᵀ Xc + λI)⁻¹ C``; with C = Xcᵀ R this is
        Rᵀ H R for the ridge hat matrix H = Xc (Xcᵀ Xc + λI)⁻¹ Xcᵀ.
        """
        c, lower = self.factor
        return la.solve_triangular(c, R, lower=lower, trans="N" if lower else "T")

    def unwhiten(self, B):
        """U⁻¹ B (primal only): ``unwhiten(whiten(C)) = (Xcᵀ Xc + λI)⁻¹ C``, shape (F, n_cols)."""
        c, lower = self.factor
        return la.solve_triangular(c, B, lower=lower, trans="T" if lower else "N")


class CenteredTridiagonal:
    """Householder tridiagonalisation Xcᵀ Xc = Z T Zᵀ of the centred primal Gram (F <= N).

    T is symmetric tridiagonal (diagonal ``d``, off-diagonal ``e``) and Z
    orthogonal, kept as LAPACK's Householder reflectors (``dsytrd``) and
    applied by ``dormqr`` — the eigenvectors are never formed. In the
    coordinates W = Z Ŵ, Xcᵀ Xc acts as T and ‖W‖ = ‖Ŵ‖, so a family of
    shifted systems (s_k Xcᵀ Xc + λI) w_k = c_k (LEML's W step) costs one
    O(F) tridiagonal solve per column (:func:`shifted_tridiagonal_solve`)
    after one O(F³) reduction (about a third of a full eigendecomposition).

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (N, F), F <= N
    owner : str

    Attributes
    ----------
    mean : ndarray, shape (F,)
    d : ndarray, shape (F,); e : ndarray, shape (F − 1,)
    """

    def __init__(self, X, owner="estimator"):
        n = X.shape[1]
        if n > X.shape[0]:
            raise ValueError("CenteredTridiagonal needs F <= N (the primal Gram).")
        check_gram_size(owner, n, 3.0 * n ** 3, "the tridiagonal reduction")
        self.X = X
        self.mean, G, _ = centred_gram(X)
        self.n = n
        if n == 1:
            self.d, self.e = G[0].copy(), np.zeros(0)
            return
        lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
        c, self.d, self.e, self._tau, info = lapack.dsytrd(G, lower=1, lwork=lwork, overwrite_a=1)
        if info != 0:
            raise la.LinAlgError(f"dsytrd failed (info={info})")
        self._reflectors = np.asfortranarray(c[1:, :n - 1])   # Z = diag(1, Ẑ), Ẑ's vectors below the diagonal

    xc_dot = CenteredGram.xc_dot
    xct_dot = CenteredGram.xct_dot

    def _apply(self, M, trans):
        M = np.array(M, dtype=np.float64, order="F")
        if self.n == 1:
            return M
        lwork = 64 * M.shape[1] + 65 * 64          # LAPACK's optimal NW·NB + TSIZE for dormqr
        out, _, info = lapack.dormqr(b"L", trans, self._reflectors, self._tau, M[1:], lwork)
        if info != 0:
            raise la.LinAlgError(f"dormqr failed (info={info})")
        M[1:] = out
        return M

    def rotate(self, R):
        """Zᵀ Xcᵀ R, shape (F, n_cols): Xcᵀ R in the tridiagonal coordinates."""
        return self._apply(self.xct_dot(np.asarray(R, dtype=np.float64)), b"T")

    def unrotate(self, W):
        """Z W: feature-space coefficients of coordinates W (F, k)."""
        return self._apply(W, b"N")

    def t_dot(self, W):
        """T W, shape (F, k)."""
        out = self.d[:, None] * W
        out[:-1] += self.e[:, None] * W[1:]
        out[1:] += self.e[:, None] * W[:-1]
        return out


def shifted_tridiagonal_solve(d, e, shifts, lam, R):
    """Columns w_k = (s_k T + λ I)⁻¹ r_k for the symmetric tridiagonal T = tridiag(e, d, e).

    All columns are solved by one LAPACK ``dptsv`` call on the block-diagonal
    system of the K tridiagonal blocks (uncoupled: the off-diagonal entry
    between blocks is 0); ``dgtsv`` (partial pivoting) if rounding made a
    block not numerically positive definite.

    Parameters
    ----------
    d : ndarray, shape (n,); e : ndarray, shape (n − 1,)
    shifts : ndarray, shape (K,), >= 0
    lam : float > 0
    R : ndarray, shape (n, K)

    Returns
    -------
    W : ndarray, shape (n, K)
    """
    n, K = R.shape
    diag = np.outer(shifts, d).ravel() + lam                       # block k = s_k d + λ
    off = np.outer(shifts, np.append(e, 0.0)).ravel()[:-1]         # block k = s_k e, then a 0 coupling
    rhs = np.ascontiguousarray(R.T).reshape(-1, 1)
    _, _, x, info = lapack.dptsv(diag, off, rhs)
    if info != 0:
        x, info = lapack.dgtsv(off, diag, off, rhs)[3:5]
        if info != 0:
            raise la.LinAlgError(f"singular shifted tridiagonal system (info={info})")
    return x.reshape(K, n).T


class ScoreCalibrationMixin:
    """``predict_proba`` from a native score by cross-fitted Platt scaling or clipping.

    Subclasses implement ``decision_function(X)`` (native scores, larger = more
    likely, shape (n, L)), ``_clip_probability(scores)`` (the ``"clip"`` map),
    ``_fit_core(X, Y)`` and call :meth:`_fit_calibration` at the end of ``fit``.
    Parameters used: ``calibration``, ``calibration_folds``, ``threshold``,
    ``random_state``.
    """

    def _validate_calibration(self, check_param):
        check_param(self, "calibration", self.calibration, options=("platt", "clip"))
        check_param(self, "calibration_folds", self.calibration_folds, low=2)
        check_param(self, "threshold", self.threshold, low=0.0, high=1.0)

    def cross_fitted_scores(self, X, Y):
        """Held-out native scores of the training rows, shape (N, L).

        Each of ``calibration_folds`` shuffled folds (``KFold``, seeded from
        ``random_state``) is scored by a clone fitted on the other folds with
        ``calibration="clip"`` (no nested calibration).
        """
        N = X.shape[0]
        n_folds = min(int(self.calibration_folds), N // 2)
        if n_folds < 2:
            raise ValueError(f"{type(self).__name__}: Platt calibration needs at least 4 training rows, got {N}.")
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        S = np.empty(Y.shape)
        for train, held in KFold(n_splits=n_folds, shuffle=True, random_state=seed).split(np.zeros(N)):
            sub = clone(self).set_params(calibration="clip")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sub.fit(X[train], Y[train])
            S[held] = sub.decision_function(X[held])
        return S

    def _fit_calibration(self, X, Y):
        if self.calibration == "clip":
            self.calibration_ = None
            return
        S = self.cross_fitted_scores(X, Y)
        scale = float(np.std(S))
        scale = scale if np.isfinite(scale) and scale > 0 else 1.0
        a, b = platt_fit(S / scale, Y)
        self.calibration_ = {"a": a, "b": b, "scale": scale}

    def _probability_from_scores(self, S):
        if self.calibration_ is None:
            return np.clip(self._clip_probability(S), 0.0, 1.0)
        cal = self.calibration_
        return _sigmoid(S / cal["scale"] * cal["a"] + cal["b"])

    def predict_proba(self, X):
        """P(y_l = 1 | x), shape (n, L): the calibrated native score (class Notes).

        Parameters
        ----------
        X : ndarray or csr_matrix, shape (n, F)

        Returns
        -------
        P : ndarray, shape (n, L), in [0, 1]
        """
        return self._probability_from_scores(self.decision_function(X))

    def predict(self, X):
        """``predict_proba(X) >= threshold``, at least one label per row where ``allow_empty_`` is False.

        Returns
        -------
        Y_pred : ndarray of uint8, shape (n, L)
        """
        return self.predict_from_proba(self.predict_proba(X))

    def _describe_rule(self, native):
        if self.calibration == "clip":
            return f"threshold {float(self.threshold):g} on {native} clipped to [0, 1]"
        return (f"threshold {float(self.threshold):g} on per-label Platt-calibrated {native} "
                f"({int(self.calibration_folds)}-fold cross-fitted)")


def code_subspace(W):
    """Orthonormal basis (K, r) of the row space of W (r, K), r < K, that LEML's rounds never leave.

    With W = W B Bᵀ for B = this basis: the W step's right-hand side
    Xcᵀ Yc H and its solution lie in span(B) whenever the rows of H do (the
    component orthogonal to B solves λ W⊥ = 0), and the H step
    H = Ycᵀ Xc W (Wᵀ Xcᵀ Xc W + λI)⁻¹ = Ycᵀ Xc (Xcᵀ Xc W Wᵀ + λI)⁻¹ W (push-through
    identity) has its rows in the row space of W. So from the first W step on,
    W = W_B Bᵀ and H = H_B Bᵀ with the same rounds on (W_B, H_B) in r < K
    dimensions: the same iterates, objective values and fixed points (in exact
    arithmetic) at O(r³) instead of O(K³) per round.
    """
    return la.qr(W.T, mode="economic")[0]
