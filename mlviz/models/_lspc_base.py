"""Shared machinery of the least-squares probabilistic classifiers (:mod:`mlviz.models.lspc`):
kernel features with a test-kernel cache, the Sylvester factorisation of Nam et al., eq. (1)
reused across λ/γ, posterior normalisation and the Pearson label similarity.
"""

from __future__ import annotations

import hashlib
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import squareform
from sklearn.utils import check_random_state

from ..solvers.sylvester import SymmetricEig, solve_sylvester_eig
from ._base import BaseEstimator, MultiLabelClassifierMixin, NotFittedError, TooLargeError, check_param, check_X_Y
from ._kernels import (
    AUTO_MAX_CENTERS,
    CENTER_SELECTIONS,
    gaussian_kernel,
    median_sigma,
    resolve_n_centers,
    select_centers,
    squared_distances,
)
from ._lspc_factor import dominant_direction, factorise_design, factorise_design_deflated

_MEDIAN_MAX_SAMPLES = 1000  # rows used for the median-distance σ (as in median_sigma)

__all__ = ["pearson_label_similarity", "normalise_posteriors", "TooLargeError"]


def pearson_label_similarity(Y):
    """Label similarity ``W_tt' = max(0, ρ_tt')`` (Nam et al., §6.1).

    For a 0/1 label matrix the correlation is computed from exact integer counts,
    ``ρ_tt' = (n c_tt' − c_t c_t') / sqrt(c_t (n − c_t) c_t' (n − c_t'))`` with ``c_t`` the
    positives of label t and ``c_tt'`` the rows carrying both (a sparse product when the
    labels are sparse: O(n · cardinality²) instead of O(n L²) at 983 labels).

    Parameters
    ----------
    Y : array-like, shape (n_samples, n_labels), 0/1

    Returns
    -------
    W : ndarray, shape (n_labels, n_labels)
        Symmetric, in [0, 1], zero diagonal; rows/columns of constant labels
        are 0 (their correlation is undefined).
    """
    Y = np.asarray(Y)
    if Y.ndim == 2 and Y.size and bool(((Y == 0) | (Y == 1)).all()):
        return _pearson_binary(Y)
    Y = np.asarray(Y, dtype=np.float64)
    Z = Y - Y.mean(axis=0)
    norms = np.sqrt((Z * Z).sum(axis=0))
    ok = norms > 1e-12 * max(1.0, np.sqrt(Y.shape[0]))
    Z[:, ok] /= norms[ok]
    Z[:, ~ok] = 0.0
    W = np.clip(Z.T @ Z, 0.0, 1.0)
    np.fill_diagonal(W, 0.0)
    return (W + W.T) / 2


def _pearson_binary(Y):
    """:func:`pearson_label_similarity` of a 0/1 matrix from its integer co-occurrence counts."""
    n = Y.shape[0]
    B = Y.astype(bool)
    if B.mean() < 0.1:
        S = sp.csr_matrix(B, dtype=np.int64)
        both = np.asarray((S.T @ S).toarray(), dtype=np.int64)
    else:  # (float64 BLAS: the counts are integers far below 2**53, so exact)
        F = B.astype(np.float64)
        both = np.rint(F.T @ F).astype(np.int64)
    c = np.diag(both).copy()
    num = (n * both - np.outer(c, c)).astype(np.float64)  # n² · covariance, exact in int64
    root = np.sqrt((c * (n - c)).astype(np.float64))      # n · standard deviation
    ok = root > 0
    W = np.zeros(num.shape)
    W[np.ix_(ok, ok)] = num[np.ix_(ok, ok)] / np.outer(root[ok], root[ok])
    W = np.clip(W, 0.0, 1.0)
    np.fill_diagonal(W, 0.0)
    return (W + W.T) / 2


def normalise_posteriors(q_pos, q_neg):
    """``max(0, q⁺) / (max(0, q⁺) + max(0, q⁻))``, 0.5 where both are ≤ 0 (Nam et al., §2)."""
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

    #: memory budget checked before fitting (TooLargeError above it), bytes
    max_memory_bytes = 4e9

    def _validate_kernel_params(self):
        name = type(self).__name__
        if not (isinstance(self.sigma, str) and self.sigma == "median"):
            if isinstance(self.sigma, str):
                raise ValueError(f"The 'sigma' parameter of {name} must be 'median' or a "
                                 f"positive number, got {self.sigma!r}.")
            check_param(name, "sigma", self.sigma, low=0, low_inclusive=False)
        nc = self.n_centers
        if isinstance(nc, str):
            if nc != "auto":
                raise ValueError(f"The 'n_centers' parameter of {name} must be 'auto', None or "
                                 f"an int >= 1, got {nc!r}.")
        elif nc is not None:
            if not isinstance(nc, Integral) or isinstance(nc, bool):
                raise ValueError(f"The 'n_centers' parameter of {name} must be 'auto', None or "
                                 f"an int >= 1, got {nc!r}.")
            check_param(name, "n_centers", nc, low=1)
        check_param(name, "center_selection", self.center_selection, options=CENTER_SELECTIONS)

    def _memory_estimate(self, n, b, L):
        """Peak bytes of a fit with n points, b centres, L labels (subclasses refine)."""
        return 8.0 * (2 * n * b + 4 * b * b + n * L + 8 * b * L + 4 * L * L)

    def _check_size(self, n, d_eff, b, L):
        """Raise :class:`TooLargeError` before any work if the fit would exceed the budget."""
        need = self._memory_estimate(n, b, L)
        if need <= self.max_memory_bytes:
            return
        flops = n * b * max(d_eff, 1) + n * b * b + 10.0 * b**3 + 2.0 * n * b * L + 10.0 * L**3
        raise TooLargeError(
            f"{type(self).__name__} with {b} kernel centres on {n} samples x {L} labels needs "
            f"about {need / 1e9:.1f} GB (budget {self.max_memory_bytes / 1e9:.1f} GB) and "
            f"~{flops / 5e9:.0f} s at 5 GFlop/s. Use fewer centres (n_centers='auto' uses at "
            f"most {AUTO_MAX_CENTERS}, or pass a smaller int), fewer labels, or a linear "
            "method (BR logistic regression).")

    def _setup_kernel(self, X, n_labels=1):
        """Choose σ and the centres; return the training design matrix Φ (n, B).

        B follows ``n_centers`` (:func:`~mlviz.models._kernels.resolve_n_centers`);
        memory O(n·B): no n × n array unless B = n. Sets ``sigma_``, ``centers_``,
        ``center_index_``, ``n_centers_``, ``centers_mode_`` and ``centers_note_``.
        """
        self._validate_kernel_params()
        rng = check_random_state(self.random_state)
        n = X.shape[0]
        b = resolve_n_centers(n, self.n_centers)
        d_eff = X.nnz / max(n, 1) if sp.issparse(X) else X.shape[1]
        self._check_size(n, d_eff, b, n_labels)
        kernel_model = b == n
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
        centers, index = select_centers(X, b, method=self.center_selection, random_state=rng)
        self.sigma_ = sigma
        self.centers_ = centers
        self.center_index_ = index
        self.n_centers_ = int(index.shape[0])
        self.n_features_in_ = X.shape[1]
        self._feature_cache = None
        self._kernel_model = self.n_centers_ == n and bool(np.array_equal(index, np.arange(n)))
        if self._kernel_model:
            self.centers_mode_ = "exact"
            self.centers_note_ = (f"exact kernel model: all {n} training points are centres "
                                  f"(n x n kernel, {8 * n * n / 1e6:.1f} MB)")
        else:
            how = ("chosen uniformly at random" if self.center_selection == "random"
                   else "chosen by k-means++ seeding")
            why = (f" (n_centers='auto': more than {AUTO_MAX_CENTERS} training points)"
                   if isinstance(self.n_centers, str) else "")
            self.centers_mode_ = self.center_selection
            self.centers_note_ = (f"{self.n_centers_} of {n} training points as kernel centres, "
                                  f"{how}{why}; n x {self.n_centers_} features, "
                                  f"{8 * n * self.n_centers_ / 1e6:.1f} MB")
        if D2 is not None and not self._kernel_model:
            D2 = None  # centres are all points but in another order: Φ is not K
        if D2 is not None:
            Phi = np.exp(D2 * (-1.0 / (2.0 * sigma * sigma)), out=D2)
        else:
            Phi = gaussian_kernel(X, centers, sigma)
            if self._kernel_model:  # Φ = K is symmetric up to round-off
                Phi += Phi.T
                Phi *= 0.5
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
    #: landmark path: eigh(ΦᵀΦ) when B·eps·||Φ||_F² <= _gram_rtol · min eig(C), else the
    #: deflated eigh when B·eps·(||Φ||_F² − s₁²) + coupling is, else QR + SVD
    _gram_rtol = 1e-4

    # ---- fitting -----------------------------------------------------------
    def fit(self, X, Y):
        """Fit on X (n, d) dense or CSR and a 0/1 label matrix Y (n, L); returns self."""
        X, Y = check_X_Y(X, Y)
        self._validate_params()
        for attr in ("_E", "_coef"):
            self.__dict__.pop(attr, None)
        Phi = self._setup_kernel(X, Y.shape[1])
        self.n_labels_ = Y.shape[1]
        self._prepare_labels(Y)
        self._factorise(Phi, Y)
        del Phi
        self._store_solution()
        self.decision_rule_ = (f"threshold {self.threshold:g} on the LSPC posterior "
                               "max(0,q+)/(max(0,q+)+max(0,q-))")
        self._fit_empty_set(Y)
        return self

    def _prepare_labels(self, Y):
        pass

    def _gamma_value(self):
        return self.gamma if self._has_gamma else 0.0

    def _factorise(self, Phi, Y):
        """Cache ``ΦᵀΦ = F diag(f) Fᵀ`` and the rotated right-hand sides ``Fᵀ Φᵀ Π``."""
        Yf = Y.astype(np.float64)
        if self._kernel_model:
            # B = N: ΦᵀΦ = K², decompose K itself (Nam et al., §5: "eig of K suffices")
            self.factorisation_ = "eigh(K)"
            eig, s = SymmetricEig.from_gram_of_symmetric(Phi, check_symmetric=False)
            FtY = eig.vectors.T @ Yf
            rhs_pos = s[:, None] * FtY
            rhs_ones = s * eig.vectors.sum(axis=0)
        else:
            # eigh(ΦᵀΦ) is ~3x cheaper than QR + SVD of Φ but its eigenvalues carry an
            # absolute error up to B·eps·||Φ||²; use it only when that is negligible
            # (< GRAM_RTOL) against the smallest coupling eigenvalue g_min = min eig(C),
            # which bounds every Sylvester denominator f + g from below. Else split off
            # Φ's dominant direction (kernel features at the median σ are nearly
            # constant) and decompose the rest, whose error is B·eps·(||Φ||² − s₁²);
            # QR + SVD only when that is not negligible either
            g_min = float(np.abs(self._coupling_eig(self.lam, self._gamma_value()).values).min())
            B = Phi.shape[1]
            fro2 = float(np.einsum("ij,ij->", Phi, Phi))
            max_error = self._gram_rtol * g_min
            found = None
            if B * np.finfo(float).eps * fro2 <= max_error:
                self.factorisation_ = "eigh(Phi'Phi)"
                eig = SymmetricEig.from_matrix(Phi.T @ Phi, check_symmetric=False)
                eig = SymmetricEig(np.maximum(eig.values, 0.0), eig.vectors, eig.abs_error)
                rhs_pos = eig.vectors.T @ (Phi.T @ Yf)
                rhs_ones = eig.vectors.T @ Phi.sum(axis=0)
            else:
                v, rho = dominant_direction(Phi)
                if B * np.finfo(float).eps * (fro2 - rho) <= max_error:
                    # Phi is fit's own array, dropped after this call: reuse its memory
                    found = factorise_design_deflated(Phi, Yf, v, overwrite=True, fro2=fro2,
                                                      max_error=max_error)
                if found is not None:
                    self.factorisation_ = "deflated eigh(Phi'Phi)"
                    eig, rhs = found[:2]
                else:
                    self.factorisation_ = "qr+svd(Phi)"
                    eig, rhs = factorise_design(Phi, Yf)
                rhs_pos, rhs_ones = rhs[:, :-1], rhs[:, -1]
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
        """``p(y_l = 1 | x) = max(0, q⁺)/(max(0, q⁺) + max(0, q⁻))`` (Nam et al., §2), shape (n, L)."""
        return normalise_posteriors(*self._decision_pair(X))
