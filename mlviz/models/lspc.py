"""Least-squares probabilistic classifiers: LSPC, MT-LSPC and ML-LSPC.

Model (Nam et al., §2): for each label l and class y ∈ {+, −},
``q_y(x) = θ_{y,l}ᵀ φ(x)`` with Gaussian kernel features
``φ_b(x) = exp(-||x − c_b||² / (2σ²))`` on B centres, fitted to the class
indicator by regularised least squares;
the posterior is ``p(y_l = 1 | x) = max(0, q⁺) / (max(0, q⁺) + max(0, q⁻))``
(0.5 where both are ≤ 0).

**Centres** (``n_centers="auto"``, the default): every training point while
N ≤ 2000 (the kernel model, B = N, Nam et al., §2), else 2000 landmark training
points chosen at random under ``random_state`` (Simm et al.'s "b basis functions";
``center_selection="kmeans++"`` for k-means++ seeding). Memory is O(N·B): the
landmark path factorises Φ (N × B) (:mod:`mlviz.models._lspc_factor`) and never
forms an N × N array.
``n_centers_``, ``centers_mode_`` and ``centers_note_`` report the choice. On the
bundled sets B = 1000 landmarks stay within 0.01 test micro-F1 of the exact
kernel (``benchmarks/bench_kernels.py accuracy``).

All three estimators solve ``ΦᵀΦ Θ + Θ C = Φᵀ Π`` (Nam et al., eq. (1)) for
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
``refit``: it updates the model in place.) That shared machinery lives in
:mod:`mlviz.models._lspc_base`; this module holds the three estimators.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ..solvers.sylvester import SymmetricEig, solve_sylvester_cg, solve_sylvester_naive
from ._base import check_param, empty_set_param
from ._lspc_base import _LSPCBase, normalise_posteriors, pearson_label_similarity

__all__ = ["LSPC", "MTLSPC", "MLLSPC", "pearson_label_similarity", "normalise_posteriors"]


@empty_set_param
class LSPC(_LSPCBase):
    """Gaussian-kernel least-squares probabilistic classifier, one per label ("plain LSPC").

    ``θ_y = (ΦᵀΦ + λ I)⁻¹ Φᵀ π_y`` for y ∈ {+, −} and each label independently
    (Nam et al., §2; Simm et al., eq. (3) with λN → λ).

    Parameters
    ----------
    lam : float > 0, default 0.1
        Ridge parameter λ (ρ in Nam et al.).
    sigma : "median" or float > 0, default "median"
        Kernel width in ``exp(-||x − c||²/(2σ²))``; "median" = median pairwise
        distance of the training inputs.
    n_centers : "auto", int or None, default "auto"
        Kernel centres B (Φ is n × B, memory O(n·B)). "auto": all training
        points while n ≤ 2000 (exact kernel model, B = N), else 2000 landmark
        centres (:data:`mlviz.models._kernels.AUTO_MAX_CENTERS`); int: that
        many (capped at n); None: all n points (exact; a ``TooLargeError`` is
        raised before fitting if it would exceed ``max_memory_bytes``).
    center_selection : {"random", "kmeans++"}, default "random"
        How B < n centres are chosen among the training points: uniformly
        without replacement, or by k-means++ seeding (see :mod:`._kernels`).
    random_state : int, RandomState or None
        For the centre choice and the σ subsample (n > 1000).
    {empty_set_parameter}

    Attributes
    ----------
    coef_ : ndarray, shape (B, L)
        Θ⁺ (positive class); ``coef_neg_`` holds Θ⁻.
    centers_ : ndarray or csr_matrix, shape (B, d)
    sigma_ : float
    n_centers_ : int
        B actually used.
    centers_mode_ : {"exact", "random", "kmeans++"}
        "exact": all training points are centres (kernel model).
    centers_note_ : str
        One line for a user ("2000 of 7395 training points as kernel centres, …").
    factorisation_ : str
        How ΦᵀΦ was decomposed: "eigh(K)" (exact model), "eigh(Phi'Phi)" (landmarks,
        when its round-off is negligible against min eig C), "deflated eigh(Phi'Phi)"
        (landmarks, Φ's dominant direction split off first: the round-off of the rest
        is negligible, the usual case for kernel features at the median σ) or
        "qr+svd(Phi)" (landmarks, stable for any coupling).
    decision_rule_ : str
        ``predict`` = ``predict_proba(X) >= 0.5``.

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

    def __init__(self, *, lam=0.1, sigma="median", n_centers="auto", center_selection="random",
                 random_state=None, empty_set=True):
        self.lam = lam
        self.sigma = sigma
        self.n_centers = n_centers
        self.center_selection = center_selection
        self.random_state = random_state
        self.empty_set = empty_set

    def _validate_params(self):
        check_param(self, "lam", self.lam, low=0, low_inclusive=False)

    def _coupling_eig(self, lam, gamma):
        T = self.n_labels_
        return SymmetricEig(np.full(T, float(lam)), np.eye(T))


@empty_set_param
class MTLSPC(_LSPCBase):
    """Multi-task LSPC with common + individual parts (Simm et al., §3), tasks = labels.

    θ_t = β_0 + β_t minimises, for each class y (Simm et al., eq. (4), sum loss)::

        Σ_t [½||Φ(β_0 + β_t)||² − (β_0 + β_t)ᵀ Φᵀ π_t] + λ/2 ||β_0||² + γ/(2T) Σ_t ||β_t||²

    Large λ → independent tasks; large γ → one common classifier.

    **Dual form** (Simm et al., Lemma 1, eq. (5)–(6)): with
    ``ψ(x, t) = (√(γ/(Tλ)) φ(x), 0, …, φ(x), …, 0)`` the Gram matrix over all
    (sample, task) pairs is ``ΨΨᵀ = (I_T + γ/(Tλ) 11ᵀ) ⊗ ΦΦᵀ``; the dual
    coefficients ``μ = (ΨΨᵀ + γ/T I)⁻¹ z`` solve ``ΦΦᵀ μ M + (γ/T) μ = Z``
    with ``M = I + γ/(Tλ) 11ᵀ``, and ``Θ = Φᵀ μ M``. M's eigenvectors are the
    constant vector (eigenvalue 1 + γ/λ) and its complement (1), and ΦΦᵀ
    shares its non-zero spectrum with ΦᵀΦ, so one eigendecomposition of size
    min(N, B) suffices: the cost does not grow with T, and ``refit`` is O(B²T).
    This equals Nam et al.'s Sylvester form with
    ``C = γ/T · (I − γ/(λ+γ) 11ᵀ/T)``.

    Parameters
    ----------
    lam : float > 0, default 1.0
        Regularisation λ of the common part β_0. 1.0 by the
        documented sweep (docs/reproductions.md, "defaults-sweep-extra": λ ∈ {0.01, 0.1, 1} ×
        γ ∈ {0.1, 1, 10}, 3-fold CV on the five bundled training splits):
        best mean rank; every λ was within 0.2 % mean micro-F1 at γ = 1.
    gamma : float > 0, default 1.0
        Multi-task parameter γ (individual parts are penalised by γ/(2T)).
    sigma, n_centers, center_selection, random_state
        As in :class:`LSPC`.
    {empty_set_parameter}

    Attributes
    ----------
    coef_, coef_neg_ : ndarray, shape (B, L)
        θ_t = β_0 + β_t for the positive / negative class.
    common_coef_ : ndarray, shape (B,)
        β_0 of the positive class.
    centers_, sigma_, n_centers_, centers_mode_, centers_note_, decision_rule_
        As in :class:`LSPC`.
    """

    def __init__(self, *, lam=1.0, gamma=1.0, sigma="median", n_centers="auto",
                 center_selection="random", random_state=None, empty_set=True):
        self.lam = lam
        self.gamma = gamma
        self.sigma = sigma
        self.n_centers = n_centers
        self.center_selection = center_selection
        self.random_state = random_state
        self.empty_set = empty_set

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


@empty_set_param
class MLLSPC(_LSPCBase):
    """Multi-label LSPC (Nam et al., §5): labels coupled through a similarity graph.

    Solves ``ΦᵀΦ Θ + Θ C = Φᵀ Π`` (Nam et al., eq. (1)) for Π = Y and Π = 1 − Y
    with ``C = diag(λ + Γ1) − Γ``, ``Γ = γ W`` (Nam et al., §4), minimising
    ``Σ_t [½||Φθ_t||² − θ_tᵀΦᵀπ_t + λ/2||θ_t||²] + ¼ Σ_tt' Γ_tt' ||θ_t − θ_t'||²``.
    Since ``C = λ I + γ Lap(W)``, C's eigenvectors are those of the label
    Laplacian for every λ and γ.

    Parameters
    ----------
    lam : float > 0, default 0.01
    gamma : float >= 0, default 0.1
        γ = 0 gives plain :class:`LSPC` per label. λ = 0.01, γ = 0.1 by the
        documented sweep (docs/reproductions.md, "defaults-sweep":
        λ ∈ {0.01, 0.1, 1} × γ ∈ {0.1, 1}, 3-fold CV on the five bundled
        sets): ranked first on all five; also the dashboard's defaults.
    sigma : "median" or float > 0
    similarity : "pearson" or array-like (L, L)
        "pearson": ``W = max(0, Pearson correlation of label columns)``
        (constant labels → 0). A user matrix must be finite, symmetric and
        non-negative; its diagonal is ignored (it cancels in C).
    n_centers, center_selection : as in :class:`LSPC`
    solver : {"eig", "cg", "naive"}, default "eig"
        "eig": cached eigendecompositions (refit O(B²L)); "cg": matrix-free
        Kronecker conjugate gradient, warm-started on refit (``cg_info_`` holds
        convergence, ``ConvergenceWarning`` if not converged); "naive": dense
        (BL × BL) solve, refused above BL = 5000 (verification/timing only).
    random_state : int, RandomState or None
    {empty_set_parameter}

    Attributes
    ----------
    coef_, coef_neg_ : ndarray, shape (B, L)
    label_similarity_ : ndarray, shape (L, L)
        W (before scaling by γ), zero diagonal.
    centers_, sigma_, n_centers_, centers_mode_, centers_note_, decision_rule_
        As in :class:`LSPC`.

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

    def __init__(self, *, lam=0.01, gamma=0.1, sigma="median", similarity="pearson", n_centers="auto",
                 center_selection="random", solver="eig", random_state=None, empty_set=True):
        self.lam = lam
        self.gamma = gamma
        self.sigma = sigma
        self.similarity = similarity
        self.n_centers = n_centers
        self.center_selection = center_selection
        self.solver = solver
        self.random_state = random_state
        self.empty_set = empty_set

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
        for k, (_lam, _gamma, cp, cn) in enumerate(self.solve_path(lams_, gammas_)):
            i, j = divmod(k, len(gammas_))
            q_pos[i, j], q_neg[i, j] = Phi @ cp, Phi @ cn
        return q_pos, q_neg

    path_decision.__doc__ = _LSPCBase.path_decision.__doc__

