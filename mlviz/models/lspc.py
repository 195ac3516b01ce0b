"""Least-squares probabilistic classifiers: LSPC, MT-LSPC and ML-LSPC.

Model (paper 000 §2): for each label l and class y ∈ {+, −},
``q_y(x) = θ_{y,l}ᵀ φ(x)`` with Gaussian kernel features
``φ_b(x) = exp(-||x − c_b||² / (2σ²))`` on B centres (all training points
by default, B = N), fitted to the class indicator by regularised least squares;
the posterior is ``p(y_l = 1 | x) = max(0, q⁺) / (max(0, q⁺) + max(0, q⁻))``
(0.5 where both are ≤ 0).

All three estimators solve ``ΦᵀΦ Θ + Θ C = Φᵀ Π`` (paper 000 eq. (1)) for
Π = Y (positive class) and Π = 1 − Y (negative class), and differ only in C:

=========  ============================================  ======================
estimator  C (T × T)                                     paper
=========  ============================================  ======================
LSPC       λ I (labels independent)                      000 §2, 004 §2
MTLSPC     γ/T · (I − γ/(λ+γ) · 11ᵀ/T)                   004 §3 eq. (4)–(6)
MLLSPC     diag(λ + Γ1) − Γ, Γ = γ · max(0, Pearson)     000 §4–5 eq. (1)
=========  ============================================  ======================

**Reuse across sliders.** ``ΦᵀΦ = F diag(f) Fᵀ`` and ``R = Fᵀ Φᵀ Π`` depend
only on X, σ and the centres; they are computed once in ``fit``. C's
eigenvectors do not depend on λ or γ either (λ shifts, γ scales the label
Laplacian). ``refit(lam=, gamma=)`` therefore only forms the solution in F's
eigenbasis, ``Fᵀ Θ = [(R G) / (f + g)] Gᵀ`` — O(BL² + L³); ``coef_ = F (Fᵀ Θ)``
is materialised (O(B²L)) on first access. ``kernel_features(X)`` keeps the
last test kernel, keyed by a BLAKE2 checksum of X's bytes, together with
``Φ_test F``; ``predict_proba`` on that same X after a ``refit`` then costs
O(n B L) and never touches the kernel. For a grid,
``path_predict_proba(X, lams, gammas)`` computes ``Φ_test F`` once and then
O(n B L) per grid point. (Models shared between threads must serialise
``refit``: it updates the model in place.)
"""

from __future__ import annotations

import hashlib
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import squareform
from scipy.sparse.linalg import LinearOperator
from sklearn.utils import check_random_state

from ..solvers.sylvester import (SymmetricEig, solve_sylvester_cg, solve_sylvester_eig,
                                 solve_sylvester_naive)
from ._base import (BaseEstimator, MultiLabelClassifierMixin, NotFittedError, check_param,
                    check_X_Y)
from ._kernels import choose_centers, gaussian_kernel, median_sigma, squared_distances

_MEDIAN_MAX_SAMPLES = 1000  # rows used for the median-distance σ (as in median_sigma)

__all__ = ["LSPC", "MTLSPC", "MLLSPC", "pearson_label_similarity", "normalise_posteriors"]


def pearson_label_similarity(Y):
    """Label similarity ``W_tt' = max(0, ρ_tt')`` (paper 000 §6.1).

    Parameters
    ----------
    Y : array-like, shape (n_samples, n_labels), 0/1

    Returns
    -------
    W : ndarray, shape (n_labels, n_labels)
        Symmetric, in [0, 1], zero diagonal; rows/columns of constant labels
        are 0 (their correlation is undefined).
    """
    Y = np.asarray(Y, dtype=np.float64)
    Z = Y - Y.mean(axis=0)
    norms = np.sqrt((Z * Z).sum(axis=0))
    ok = norms > 1e-12 * max(1.0, np.sqrt(Y.shape[0]))
    Z[:, ok] /= norms[ok]
    Z[:, ~ok] = 0.0
    W = np.clip(Z.T @ Z, 0.0, 1.0)
    np.fill_diagonal(W, 0.0)
    return (W + W.T) / 2


def normalise_posteriors(q_pos, q_neg):
    """``max(0, q⁺) / (max(0, q⁺) + max(0, q⁻))``, 0.5 where both are ≤ 0 (paper 000 §2)."""
    a = np.maximum(q_pos, 0.0)
    s = a + np.maximum(q_neg, 0.0)
    out = np.full(np.shape(a), 0.5)
    np.divide(a, s, out=out, where=s > 0)
    return np.clip(out, 0.0, 1.0)


def _fingerprint(X):
    h = hashlib.blake2b(digest_size=16)
    if sp.issparse(X):
        for arr in (X.data, X.indices, X.indptr):
            h.update(np.ascontiguousarray(arr).view(np.uint8))
    else:
        h.update(np.ascontiguousarray(X).view(np.uint8))
    return (X.shape, sp.issparse(X), h.hexdigest())


class _KernelFeaturesMixin:
    """Gaussian-kernel features with a one-entry test-kernel cache.

    ``kernel_features(X)`` returns Φ(X) (n, B). The last result is kept, keyed
    by the shape and a BLAKE2 checksum of X's bytes (so in-place changes of X
    are detected); ``fit`` clears it. Cached arrays are read-only.
    """

    _feature_cache_max_entries = 5_000_000

    def _setup_kernel(self, X):
        name = type(self).__name__
        if not (isinstance(self.sigma, str) and self.sigma == "median"):
            if isinstance(self.sigma, str):
                raise ValueError(f"The 'sigma' parameter of {name} must be 'median' or a "
                                 f"positive number, got {self.sigma!r}.")
            check_param(name, "sigma", self.sigma, low=0, low_inclusive=False)
        if self.n_centers is not None:
            if not isinstance(self.n_centers, Integral) or isinstance(self.n_centers, bool):
                raise ValueError(f"The 'n_centers' parameter of {name} must be None or an int "
                                 f">= 1, got {self.n_centers!r}.")
            check_param(name, "n_centers", self.n_centers, low=1)
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        kernel_model = self.n_centers is None or self.n_centers >= n
        D2 = None
        if isinstance(self.sigma, str) and kernel_model and n <= _MEDIAN_MAX_SAMPLES:
            # one distance matrix for both σ (same value as median_sigma) and K
            D2 = squared_distances(X, X)
            D2 = (D2 + D2.T) / 2
            np.fill_diagonal(D2, 0.0)
            d = np.sqrt(squareform(D2, checks=False))
            d = d[d > 0]
            sigma = float(np.median(d)) if d.size else 1.0
        elif isinstance(self.sigma, str):
            sigma = median_sigma(X, max_samples=_MEDIAN_MAX_SAMPLES, random_state=rng)
        else:
            sigma = float(self.sigma)
        centers, index = choose_centers(X, self.n_centers, random_state=rng)
        self.sigma_ = sigma
        self.centers_ = centers
        self.center_index_ = index
        self.n_features_in_ = X.shape[1]
        self._feature_cache = None
        self._kernel_model = index.shape[0] == n
        if D2 is not None:
            Phi = np.exp(D2 * (-1.0 / (2.0 * sigma * sigma)), out=D2)
        else:
            Phi = gaussian_kernel(X, centers, sigma)
            if self._kernel_model:  # Φ = K is symmetric up to round-off
                Phi = (Phi + Phi.T) / 2
        return Phi

    def __getstate__(self):
        # the test-kernel cache is a pure speed-up: never pickle or deep-copy it
        state = dict(super().__getstate__())
        state.pop("_feature_cache", None)
        return state

    def kernel_features(self, X):
        """Gaussian kernel features ``Φ[i, b] = k(x_i, c_b)``, shape (n, B), cached for the last X.

        Parameters
        ----------
        X : array-like or csr_matrix, shape (n_samples, n_features)

        Returns
        -------
        Phi : ndarray, shape (n_samples, n_centers), read-only
        """
        self._check_fitted(["centers_", "sigma_"])
        return self._cached_features(self._check_predict_X(X))[0]

    def _cached_features(self, X):
        """Return ``(Phi, entry, hit)``; ``entry`` is X's cache dict (None if too large)."""
        key = _fingerprint(X)
        cache = getattr(self, "_feature_cache", None)
        if cache is not None and cache["key"] == key:
            return cache["Phi"], cache, True
        Phi = gaussian_kernel(X, self.centers_, self.sigma_)
        Phi.flags.writeable = False
        entry = None
        if Phi.size <= self._feature_cache_max_entries:
            entry = self._feature_cache = {"key": key, "Phi": Phi}
        return Phi, entry, False


class _LSPCBase(_KernelFeaturesMixin, MultiLabelClassifierMixin, BaseEstimator):
    """Shared machinery: cached eigendecomposition of ΦᵀΦ, refit, λ/γ paths.

    Subclasses implement ``_validate_params()`` and ``_coupling_eig(lam, gamma)``
    returning the SymmetricEig of C (T × T).
    """

    _has_gamma = True

    # ---- fitting -----------------------------------------------------------
    def fit(self, X, Y):
        """Fit on X (n, d) dense or CSR and a 0/1 label matrix Y (n, L); returns self."""
        X, Y = check_X_Y(X, Y)
        self._validate_params()
        for attr in ("_E", "_coef"):
            self.__dict__.pop(attr, None)
        Phi = self._setup_kernel(X)
        self.n_labels_ = Y.shape[1]
        self._prepare_labels(Y)
        self._factorise(Phi, Y)
        self._store_solution()
        return self

    def _prepare_labels(self, Y):
        pass

    def _gamma_value(self):
        return self.gamma if self._has_gamma else 0.0

    def _factorise(self, Phi, Y):
        """Cache ``ΦᵀΦ = F diag(f) Fᵀ`` and the rotated right-hand sides ``Fᵀ Φᵀ Π``."""
        Yf = Y.astype(np.float64)
        if self._kernel_model:
            # B = N: ΦᵀΦ = K², decompose K itself (paper 000 §5: "eig of K suffices")
            eig, s = SymmetricEig.from_gram_of_symmetric(Phi, check_symmetric=False)
            FtY = eig.vectors.T @ Yf
            rhs_pos = s[:, None] * FtY
            rhs_ones = s * eig.vectors.sum(axis=0)
        else:
            eig = SymmetricEig.from_matrix(Phi.T @ Phi, check_symmetric=False)
            eig = SymmetricEig(np.maximum(eig.values, 0.0), eig.vectors)
            rhs_pos = eig.vectors.T @ (Phi.T @ Yf)
            rhs_ones = eig.vectors.T @ Phi.sum(axis=0)
        self._eig = eig
        self._rhs_pos = rhs_pos
        self._rhs_neg = rhs_ones[:, None] - rhs_pos

    def _solve_eigbasis(self, lam, gamma):
        """Return ``(Fᵀ Θ⁺, Fᵀ Θ⁻)`` for (λ, γ), O(B L² + L³) given the caches."""
        C_eig = self._coupling_eig(lam, gamma)
        E_pos = solve_sylvester_eig(self._eig, C_eig, self._rhs_pos,
                                    rhs_in_eigbasis=True, return_eigbasis=True)
        E_neg = solve_sylvester_eig(self._eig, C_eig, self._rhs_neg,
                                    rhs_in_eigbasis=True, return_eigbasis=True)
        return E_pos, E_neg

    def _solve(self, lam, gamma):
        """Return ``(Θ⁺, Θ⁻)``, each (B, L): one (B × B)·(B × 2L) product."""
        E_pos, E_neg = self._solve_eigbasis(lam, gamma)
        L = E_pos.shape[1]
        both = self._eig.vectors @ np.hstack([E_pos, E_neg])
        return both[:, :L], both[:, L:]

    def _store_solution(self):
        """Solve for the current (lam, gamma); keep ``Fᵀ Θ`` and materialise Θ lazily."""
        self.__dict__.pop("_coef", None)
        self._E = self._solve_eigbasis(self.lam, self._gamma_value())

    def _check_solved(self):
        if "_E" not in self.__dict__ and "_coef" not in self.__dict__:
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet. "
                                 "Call 'fit' with appropriate arguments first.")

    def _coefs(self):
        """``(Θ⁺, Θ⁻)``, materialising ``F (Fᵀ Θ)`` on first use after a (re)fit."""
        self._check_solved()
        if "_coef" not in self.__dict__:
            E_pos, E_neg = self._E
            both = self._eig.vectors @ np.hstack([E_pos, E_neg])
            L = E_pos.shape[1]
            self._coef = (both[:, :L], both[:, L:])
        return self._coef

    @property
    def coef_(self):
        """Θ⁺ of the positive class, shape (B, L) (computed on first access after a refit)."""
        if "_E" not in self.__dict__ and "_coef" not in self.__dict__:
            raise AttributeError("coef_")
        return self._coefs()[0]

    @property
    def coef_neg_(self):
        """Θ⁻ of the negative class, shape (B, L)."""
        if "_E" not in self.__dict__ and "_coef" not in self.__dict__:
            raise AttributeError("coef_neg_")
        return self._coefs()[1]

    def refit(self, lam=None, gamma=None):
        """Re-solve for new λ (and γ) reusing the cached kernel eigendecomposition.

        Equivalent to ``set_params(lam=lam, gamma=gamma).fit(X, Y)`` on the same
        training data, at O(B²L) instead of O(B³ + nBd). Updates the parameters.

        Parameters
        ----------
        lam : float > 0, optional
        gamma : float >= 0, optional (not for LSPC)

        Returns
        -------
        self
        """
        self._check_solved()
        if lam is not None:
            self.lam = lam
        if gamma is not None:
            if not self._has_gamma:
                raise ValueError(f"{type(self).__name__} has no 'gamma' parameter.")
            self.gamma = gamma
        self._validate_params()
        self._store_solution()
        return self

    # ---- grids ---------------------------------------------------------------
    def _grid(self, lams, gammas):
        name = type(self).__name__
        lams = [check_param(name, "lam", float(v), low=0, low_inclusive=False)
                for v in np.atleast_1d(lams)]
        if gammas is None:
            gammas = [self._gamma_value()]
        elif not self._has_gamma:
            raise ValueError(f"{name} has no 'gamma' parameter; pass gammas=None.")
        else:
            gammas = [self._check_gamma(float(v)) for v in np.atleast_1d(gammas)]
        return lams, gammas

    def _check_gamma(self, gamma):
        return check_param(type(self).__name__, "gamma", gamma, low=0)

    def solve_path(self, lams, gammas=None):
        """Coefficients over a λ × γ grid, reusing the cached eigendecompositions.

        Parameters
        ----------
        lams : sequence of float > 0
        gammas : sequence of float >= 0, optional
            Defaults to the current ``gamma`` (LSPC: must be None).

        Yields
        ------
        lam, gamma : float
        coef_pos, coef_neg : ndarray, shape (B, L)
            Equal to ``coef_`` / ``coef_neg_`` of a fresh fit with (lam, gamma).
        """
        self._check_solved()
        lams, gammas = self._grid(lams, gammas)
        for lam in lams:
            for gamma in gammas:
                yield (lam, gamma, *self._solve(lam, gamma))

    def _eigbasis_features(self, X):
        """``Φ(X) F`` (n, B), cached with the test kernel."""
        Phi, entry, _ = self._cached_features(self._check_predict_X(X))
        if entry is not None and entry.get("PF") is not None:
            return entry["PF"]
        PF = Phi @ self._eig.vectors
        PF.flags.writeable = False
        if entry is not None:
            entry["PF"] = PF
        return PF

    def path_decision(self, X, lams, gammas=None):
        """Un-normalised outputs ``(q⁺, q⁻)`` over a grid, each (n_lams, n_gammas, n, L).

        The test kernel and ``Φ_test F`` are computed once; each grid point then
        costs O(n B L).
        """
        self._check_solved()
        lams, gammas = self._grid(lams, gammas)
        P = self._eigbasis_features(X)
        n, L = P.shape[0], self.n_labels_
        q_pos = np.empty((len(lams), len(gammas), n, L))
        q_neg = np.empty_like(q_pos)
        for i, lam in enumerate(lams):
            for j, gamma in enumerate(gammas):
                E_pos, E_neg = self._solve_eigbasis(lam, gamma)
                both = P @ np.hstack([E_pos, E_neg])
                q_pos[i, j], q_neg[i, j] = both[:, :L], both[:, L:]
        return q_pos, q_neg

    def path_predict_proba(self, X, lams, gammas=None):
        """Posteriors over a λ × γ grid, shape (n_lams, n_gammas, n_samples, n_labels).

        Entry ``[i, j]`` equals ``predict_proba(X)`` after ``refit(lams[i], gammas[j])``.
        Used for cross-validating λ and γ at the cost of one fit per fold.
        """
        return normalise_posteriors(*self.path_decision(X, lams, gammas))

    # ---- prediction ------------------------------------------------------------
    def _decision_pair(self, X):
        """``(q⁺, q⁻)`` for X, each (n, L).

        If X is the cached test input and the current solution has not been
        materialised (i.e. after ``refit``), use ``(Φ_test F)(Fᵀ Θ)`` with
        ``Φ_test F`` cached: a slider move then costs O(n B L) in total.
        """
        self._check_solved()
        X = self._check_predict_X(X)
        Phi, entry, hit = self._cached_features(X)
        L = self.n_labels_
        if hit and "_E" in self.__dict__ and "_coef" not in self.__dict__:
            both = self._eigbasis_features(X) @ np.hstack(self._E)
        else:
            both = Phi @ np.hstack(self._coefs())
        return both[:, :L], both[:, L:]

    def decision_function(self, X):
        """Un-normalised positive-class output ``q⁺(x) = Φ(x) Θ⁺``, shape (n, L)."""
        return self._decision_pair(X)[0]

    def predict_proba_from_features(self, Phi):
        """Posteriors from precomputed ``Phi = kernel_features(X)`` (n, B) → (n, L)."""
        coef_pos, coef_neg = self._coefs()
        Phi = np.asarray(Phi)
        if Phi.ndim != 2 or Phi.shape[1] != coef_pos.shape[0]:
            raise ValueError(f"Phi must have shape (n, {coef_pos.shape[0]}), got {Phi.shape}.")
        return normalise_posteriors(Phi @ coef_pos, Phi @ coef_neg)

    def predict_proba(self, X):
        """``p(y_l = 1 | x) = max(0, q⁺)/(max(0, q⁺) + max(0, q⁻))`` (paper 000 §2), shape (n, L)."""
        return normalise_posteriors(*self._decision_pair(X))


class LSPC(_LSPCBase):
    """Gaussian-kernel least-squares probabilistic classifier, one per label ("plain LSPC").

    ``θ_y = (ΦᵀΦ + λ I)⁻¹ Φᵀ π_y`` for y ∈ {+, −} and each label independently
    (paper 000 §2; paper 004 eq. (3) with λN → λ).

    Parameters
    ----------
    lam : float > 0, default 0.1
        Ridge parameter λ (ρ in paper 000).
    sigma : "median" or float > 0, default "median"
        Kernel width in ``exp(-||x − c||²/(2σ²))``; "median" = median pairwise
        distance of the training inputs.
    n_centers : int or None
        Use this many random training points as centres (Φ is n × B); None = all.
    random_state : int, RandomState or None
        For the centre choice and the σ subsample (n > 1000).

    Attributes
    ----------
    coef_ : ndarray, shape (B, L)
        Θ⁺ (positive class); ``coef_neg_`` holds Θ⁻.
    centers_ : ndarray or csr_matrix, shape (B, d)
    sigma_ : float

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2)); Y = (X > 0).astype(int)
    >>> model = LSPC(lam=0.1).fit(X, Y)
    >>> model.predict_proba(X).shape
    (40, 2)
    """

    _has_gamma = False

    def __init__(self, lam=0.1, sigma="median", n_centers=None, random_state=None):
        self.lam = lam
        self.sigma = sigma
        self.n_centers = n_centers
        self.random_state = random_state

    def _validate_params(self):
        check_param(self, "lam", self.lam, low=0, low_inclusive=False)

    def _coupling_eig(self, lam, gamma):
        T = self.n_labels_
        return SymmetricEig(np.full(T, float(lam)), np.eye(T))


class MTLSPC(_LSPCBase):
    """Multi-task LSPC with common + individual parts (paper 004 §3), tasks = labels.

    θ_t = β_0 + β_t minimises, for each class y (paper 004 eq. (4), sum loss)::

        Σ_t [½||Φ(β_0 + β_t)||² − (β_0 + β_t)ᵀ Φᵀ π_t] + λ/2 ||β_0||² + γ/(2T) Σ_t ||β_t||²

    Large λ → independent tasks; large γ → one common classifier.

    **Dual form** (paper 004 Lemma 1, eq. (5)–(6)): with
    ``ψ(x, t) = (√(γ/(Tλ)) φ(x), 0, …, φ(x), …, 0)`` the Gram matrix over all
    (sample, task) pairs is ``ΨΨᵀ = (I_T + γ/(Tλ) 11ᵀ) ⊗ ΦΦᵀ``; the dual
    coefficients ``μ = (ΨΨᵀ + γ/T I)⁻¹ z`` solve ``ΦΦᵀ μ M + (γ/T) μ = Z``
    with ``M = I + γ/(Tλ) 11ᵀ``, and ``Θ = Φᵀ μ M``. M's eigenvectors are the
    constant vector (eigenvalue 1 + γ/λ) and its complement (1), and ΦΦᵀ
    shares its non-zero spectrum with ΦᵀΦ, so one eigendecomposition of size
    min(N, B) suffices: the cost does not grow with T, and ``refit`` is O(B²T).
    This equals paper 000's Sylvester form with
    ``C = γ/T · (I − γ/(λ+γ) 11ᵀ/T)``.

    Parameters
    ----------
    lam : float > 0, default 0.1
        Regularisation λ of the common part β_0.
    gamma : float > 0, default 1.0
        Multi-task parameter γ (individual parts are penalised by γ/(2T)).
    sigma, n_centers, random_state
        As in :class:`LSPC`.

    Attributes
    ----------
    coef_, coef_neg_ : ndarray, shape (B, L)
        θ_t = β_0 + β_t for the positive / negative class.
    common_coef_ : ndarray, shape (B,)
        β_0 of the positive class.
    centers_, sigma_
    """

    def __init__(self, lam=0.1, gamma=1.0, sigma="median", n_centers=None, random_state=None):
        self.lam = lam
        self.gamma = gamma
        self.sigma = sigma
        self.n_centers = n_centers
        self.random_state = random_state

    def _validate_params(self):
        check_param(self, "lam", self.lam, low=0, low_inclusive=False)
        check_param(self, "gamma", self.gamma, low=0, low_inclusive=False)

    def _check_gamma(self, gamma):
        return check_param(type(self).__name__, "gamma", gamma, low=0, low_inclusive=False)

    def _prepare_labels(self, Y):
        T = Y.shape[1]
        # orthonormal basis whose first column is 1/√T (eigenvectors of 11ᵀ, fixed)
        basis = np.eye(T)
        basis[:, 0] = 1.0
        Q, _ = np.linalg.qr(basis)
        self._task_basis = Q * np.sign(Q[0, 0])

    def _coupling_eig(self, lam, gamma):
        """Eigenpairs of C: ``c / m_j`` with c = γ/T, m = eig(I + γ/(Tλ) 11ᵀ)."""
        T = self.n_labels_
        c = gamma / T
        m = np.ones(T)
        m[0] = 1.0 + gamma / lam
        return SymmetricEig(c / m, self._task_basis)

    @property
    def common_coef_(self):
        """β_0 of the positive class, shape (B,): γ/(T(λ+γ)) Σ_t θ_t (the penalty's minimiser)."""
        coef_pos = self.coef_
        lam, gamma, T = self.lam, self.gamma, self.n_labels_
        return gamma / (T * (lam + gamma)) * coef_pos.sum(axis=1)


class MLLSPC(_LSPCBase):
    """Multi-label LSPC (paper 000 §5): labels coupled through a similarity graph.

    Solves ``ΦᵀΦ Θ + Θ C = Φᵀ Π`` (paper 000 eq. (1)) for Π = Y and Π = 1 − Y
    with ``C = diag(λ + Γ1) − Γ``, ``Γ = γ W`` (paper 000 §4), minimising
    ``Σ_t [½||Φθ_t||² − θ_tᵀΦᵀπ_t + λ/2||θ_t||²] + ¼ Σ_tt' Γ_tt' ||θ_t − θ_t'||²``.
    Since ``C = λ I + γ Lap(W)``, C's eigenvectors are those of the label
    Laplacian for every λ and γ.

    Parameters
    ----------
    lam : float > 0, default 0.1
    gamma : float >= 0, default 1.0
        γ = 0 gives plain :class:`LSPC` per label.
    sigma : "median" or float > 0
    similarity : "pearson" or array-like (L, L)
        "pearson": ``W = max(0, Pearson correlation of label columns)``
        (constant labels → 0). A user matrix must be finite, symmetric and
        non-negative; its diagonal is ignored (it cancels in C).
    n_centers : int or None
    solver : {"eig", "cg", "naive"}, default "eig"
        "eig": cached eigendecompositions (refit O(B²L)); "cg": matrix-free
        Kronecker conjugate gradient, warm-started on refit (``cg_info_`` holds
        convergence, ``ConvergenceWarning`` if not converged); "naive": dense
        (BL × BL) solve, refused above BL = 5000 (verification/timing only).
    random_state : int, RandomState or None

    Attributes
    ----------
    coef_, coef_neg_ : ndarray, shape (B, L)
    label_similarity_ : ndarray, shape (L, L)
        W (before scaling by γ), zero diagonal.
    centers_, sigma_

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); Y = (X[:, :2] + X[:, 2:] > 0).astype(int)
    >>> m = MLLSPC(lam=0.1, gamma=1.0).fit(X, Y)
    >>> P1 = m.refit(lam=1.0).predict_proba(X)   # reuses the kernel eigendecomposition
    >>> np.allclose(P1, MLLSPC(lam=1.0, gamma=1.0).fit(X, Y).predict_proba(X))
    True
    """

    #: solver settings (class-level, not estimator parameters; may be set on an instance)
    cg_rtol = 1e-10
    cg_maxiter = None
    naive_max_size = 5000

    def __init__(self, lam=0.1, gamma=1.0, sigma="median", similarity="pearson", n_centers=None,
                 solver="eig", random_state=None):
        self.lam = lam
        self.gamma = gamma
        self.sigma = sigma
        self.similarity = similarity
        self.n_centers = n_centers
        self.solver = solver
        self.random_state = random_state

    def _validate_params(self):
        check_param(self, "lam", self.lam, low=0, low_inclusive=False)
        check_param(self, "gamma", self.gamma, low=0)
        check_param(self, "solver", self.solver, options=("eig", "cg", "naive"))

    def _prepare_labels(self, Y):
        L = Y.shape[1]
        if isinstance(self.similarity, str):
            check_param(self, "similarity", self.similarity, options=("pearson",))
            W = pearson_label_similarity(Y)
        else:
            W = np.array(self.similarity, dtype=np.float64)
            if W.shape != (L, L):
                raise ValueError(f"The 'similarity' matrix of MLLSPC must have shape ({L}, {L}) "
                                 f"(n_labels x n_labels), got {W.shape}.")
            np.fill_diagonal(W, 0.0)
            if not np.isfinite(W).all():
                raise ValueError("The 'similarity' matrix of MLLSPC must be finite.")
            if (W < 0).any():
                raise ValueError("The 'similarity' matrix of MLLSPC must be non-negative.")
            if np.abs(W - W.T).max(initial=0.0) > 1e-10 * max(1.0, np.abs(W).max(initial=0.0)):
                raise ValueError("The 'similarity' matrix of MLLSPC must be symmetric.")
            W = (W + W.T) / 2
        self.label_similarity_ = W
        laplacian = np.diag(W.sum(axis=1)) - W
        self._laplacian = laplacian
        self._lap_eig = SymmetricEig.from_matrix(laplacian, check_symmetric=False)

    def coupling_matrix(self, lam=None, gamma=None):
        """``C = diag(λ + Γ1) − Γ = λ I + γ Lap(W)``, shape (L, L)."""
        self._check_fitted(["label_similarity_"])
        lam = self.lam if lam is None else lam
        gamma = self.gamma if gamma is None else gamma
        return lam * np.eye(self.n_labels_) + gamma * self._laplacian

    def _coupling_eig(self, lam, gamma):
        return self._lap_eig.scaled(gamma, lam)

    def _factorise(self, Phi, Y):
        if self.solver == "eig":
            super()._factorise(Phi, Y)
            return
        self._Phi = Phi
        Yf = Y.astype(np.float64)
        self._rhs_pos_raw = Phi.T @ Yf
        self._rhs_neg_raw = Phi.sum(axis=0)[:, None] - self._rhs_pos_raw

    def _solve(self, lam, gamma):
        if self.solver == "eig":
            return super()._solve(lam, gamma)
        C = self.coupling_matrix(lam, gamma)
        Phi = self._Phi
        if self.solver == "naive":
            A = Phi.T @ Phi
            return (solve_sylvester_naive(A, C, self._rhs_pos_raw, max_size=self.naive_max_size),
                    solve_sylvester_naive(A, C, self._rhs_neg_raw, max_size=self.naive_max_size))
        B = Phi.shape[1]
        A = LinearOperator((B, B), matvec=lambda v: Phi.T @ (Phi @ v),
                           matmat=lambda V: Phi.T @ (Phi @ V), dtype=np.float64)
        warm = self.__dict__.get("_coef", (None, None))
        pos, info_pos = solve_sylvester_cg(A, C, self._rhs_pos_raw, rtol=self.cg_rtol,
                                           maxiter=self.cg_maxiter, x0=warm[0])
        neg, info_neg = solve_sylvester_cg(A, C, self._rhs_neg_raw, rtol=self.cg_rtol,
                                           maxiter=self.cg_maxiter, x0=warm[1])
        self.cg_info_ = (info_pos, info_neg)
        return pos, neg

    def _store_solution(self):
        if self.solver == "eig":
            super()._store_solution()
            return
        self.__dict__.pop("_E", None)
        self._coef = self._solve(self.lam, self.gamma)  # cg warm-starts from the previous _coef

    def path_decision(self, X, lams, gammas=None):
        if self.solver == "eig":
            return super().path_decision(X, lams, gammas)
        self._check_solved()
        Phi = self.kernel_features(X)
        lams_, gammas_ = self._grid(lams, gammas)
        n, L = Phi.shape[0], self.n_labels_
        q_pos = np.empty((len(lams_), len(gammas_), n, L))
        q_neg = np.empty_like(q_pos)
        for k, (lam, gamma, cp, cn) in enumerate(self.solve_path(lams_, gammas_)):
            i, j = divmod(k, len(gammas_))
            q_pos[i, j], q_neg[i, j] = Phi @ cp, Phi @ cn
        return q_pos, q_neg

    path_decision.__doc__ = _LSPCBase.path_decision.__doc__


def __getattr__(name):
    # KernelLogisticRegression lives in klr.py (it imports this module); keep the old path working.
    if name == "KernelLogisticRegression":
        from .klr import KernelLogisticRegression
        return KernelLogisticRegression
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
