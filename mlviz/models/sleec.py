"""SLEEC: sparse local embeddings for extreme multi-label classification (a baseline of Kimura et al.).

Bhatia, Jain, Kar, Varma & Jain, NIPS 2015. Per cluster of training points
(k-means on X), SLEEC

1. learns label-space embeddings Z (N_c × K) that preserve the inner products
   of each point's label vector with its nearest label-space neighbours only
   (Ω = the n̄-nearest-neighbour pairs):
   min_{rank(Z Zᵀ) <= K} ‖P_Ω(Y Yᵀ) − P_Ω(Z Zᵀ)‖²_F, solved by singular value
   projection (SVP: a gradient step on the Ω entries, then projection on the
   PSD matrices of rank K) — paper §3, the embedding step of Algorithm 1;
2. regresses the embeddings on the features,
   min_V ½‖Z − X V‖² + λ/2 ‖V‖² + μ ‖X V‖₁ (the sparse-embedding regressor,
   solved by ADMM; with μ = 0 it is ridge regression) — paper §3;
3. predicts by the k nearest training embeddings X V of the test point's
   embedding x V within its cluster, the label score being the fraction of
   these neighbours carrying the label (paper Algorithm 2). An ensemble of
   ``n_learners`` clusterings (different k-means seeds) averages the scores.

The MLLEM paper (§4.1) runs SLEEC with K = 100 (``n_components=100``, capped
at the cluster size) and tunes the test-time neighbours (``k_test``).

Deviations and conventions (documented, not from the paper): the regressor
has an unpenalised intercept (features centred); the eigen-projection of SVP is
exact (LAPACK) for clusters of at most ``DENSE_MAX`` points and otherwise a
block subspace iteration with Rayleigh–Ritz (K + 10 columns): SVP's first
step from a seeded Gaussian block (``N_POWER`` = 3 power steps), every later
step warm-started from the previous step's K + 10 Ritz vectors
(``N_POWER_WARM`` = 2 power steps; the standard way to run subspace
iteration inside an outer loop, as consecutive SVP operators differ little);
a label without training positives always scores 0.
"""

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state

from ._base import (
    BaseEstimator,
    MultiLabelClassifierMixin,
    TooLargeError,
    check_param,
    check_X_Y,
    empty_set_param,
)
from ._embedding_base import CenteredRidge, ScoreCalibrationMixin

__all__ = ["SLEEC", "label_neighbourhood", "svp_embedding"]

DENSE_MAX = 400
"""Clusters up to this size use a dense ``eigh`` in every SVP step."""
MAX_OMEGA_ENTRIES = 5e7
N_POWER = 3
"""Power steps of the subspace iteration in SVP's first step (from a Gaussian start block)."""
N_POWER_WARM = 2
"""Power steps in every later SVP step, started from the previous step's Ritz vectors."""


def label_neighbourhood(Y, n_neighbors, *, chunk=1024):
    """Ω: each row's ``n_neighbors`` nearest rows by cosine similarity of label vectors, symmetrised.

    Parameters
    ----------
    Y : ndarray of {0, 1}, shape (N, L)
    n_neighbors : int
        n̄ (the row itself is always included; n̄ >= N − 1 gives all pairs).
        A row without labels has similarity 0 to every row. Ties at the
        n̄-th place are resolved by ``numpy.argpartition`` (deterministic,
        not by row index).
    chunk : int
        Rows of the (chunk, N) similarity block held at once.

    Returns
    -------
    omega : csr_matrix of bool, shape (N, N), symmetric, diagonal set

    Notes
    -----
    The cosine similarity of 0/1 vectors is c_ij / (‖y_i‖ ‖y_j‖) with c_ij
    the number of common labels: c is one sparse product of the label matrix
    (O(Σ_l n_l²) for label counts n_l, instead of the dense O(N² L)), and the
    value is formed as (c_ij · 1/‖y_i‖) · 1/‖y_j‖, so pairs with equal
    counts and norms get bitwise-equal similarities.
    """
    N = Y.shape[0]
    k = min(int(n_neighbors), N - 1)
    if k >= N - 1:
        return sp.csr_matrix(np.ones((N, N), dtype=bool))
    Ys = sp.csr_matrix(np.asarray(Y) != 0, dtype=np.float64)
    counts = np.diff(Ys.indptr)
    inv_norm = np.divide(1.0, np.sqrt(counts), out=np.zeros(N), where=counts > 0)
    Yt = Ys.T.tocsr()
    cols = np.empty((N, k), dtype=np.int64)
    for s in range(0, N, chunk):
        D = (Ys[s:s + chunk] @ Yt).toarray()      # common labels of each pair (exact integers)
        D *= -inv_norm[s:s + chunk, None]          # −similarity: (−c · 1/‖y_i‖) · 1/‖y_j‖
        D *= inv_norm
        D[np.arange(D.shape[0]), np.arange(s, s + D.shape[0])] = np.inf   # self is added below
        cols[s:s + chunk] = np.argpartition(D, k - 1, axis=1)[:, :k]
    rows = np.repeat(np.arange(N), k)
    A = sp.csr_matrix((np.ones(rows.size, dtype=bool), (rows, cols.ravel())), shape=(N, N))
    A = (A + A.T + sp.identity(N, dtype=bool, format="csr")).tocsr()
    A.data[:] = True
    return A


def _omega_values(Z, rows, cols, chunk=4096):
    """(Z Zᵀ)[rows, cols] without forming Z Zᵀ (in chunks small enough to stay in cache)."""
    out = np.empty(rows.size)
    for s in range(0, rows.size, chunk):
        out[s:s + chunk] = np.einsum("ij,ij->i", Z[rows[s:s + chunk]], Z[cols[s:s + chunk]])
    return out


def _orthonormal(B):
    """Orthonormal basis of the columns of B (CholeskyQR2; Householder QR if B is ill-conditioned).

    The result is accepted when max |Bᵀ B − I| <= 1e-8. That test is only
    computed when the Gram of the second pass is farther than 1e-6 from I:
    otherwise the second pass orthonormalises a matrix with condition number
    about 1 + 1e-6, which CholeskyQR does to rounding error (Yamamoto,
    Nakatsukasa, Yanagisawa, Fukaya, ETNA 44, 2015), far below 1e-8.
    """
    p = B.shape[1]
    for _ in range(2):
        G = B.T @ B
        try:
            R = la.cholesky((G + G.T) / 2.0, lower=False)
        except la.LinAlgError:
            return la.qr(B, mode="economic")[0]
        B = la.blas.dtrsm(1.0, R, B.T, trans_a=1).T     # B R⁻¹ = (R⁻ᵀ Bᵀ)ᵀ, C-ordered for the CSR products
    if np.abs(G - np.eye(p)).max() > 1e-6 and np.abs(B.T @ B - np.eye(p)).max() > 1e-8:
        return la.qr(B, mode="economic")[0]
    return B


def _top_psd(apply, n, K, basis, rng, n_power=3):
    """Top-K eigenpairs (positive part) of a symmetric operator given by ``apply`` (n × m → n × m).

    Exact (LAPACK ``eigh``) for n <= ``DENSE_MAX``; otherwise block subspace
    iteration with p = K + 10 columns and a Rayleigh–Ritz step, started from
    ``basis`` (orthonormal, n × p: the previous SVP step's Ritz vectors) or,
    when ``basis`` is None, from a Gaussian block drawn from ``rng``. From a
    Gaussian block every power step is orthonormalised; from ``basis`` the
    ``n_power`` products are taken first and orthonormalised once — the same
    subspace span(A^n_power Q₀): a warm start is close to the dominant
    subspace, so A^n_power Q₀ stays well conditioned (condition number below
    5e3 at SLEEC's defaults on the bibtex shape and on yeast, far inside
    CholeskyQR2's range; :func:`_orthonormal` falls back to Householder QR).

    Returns
    -------
    ev : ndarray, shape (K,), descending, clipped at 0
    U : ndarray, shape (n, K)
    ritz : ndarray, shape (n, p) or None
        All p Ritz vectors (orthonormal; the next call's ``basis``); None on the dense path.
    """
    ritz = None
    if n <= DENSE_MAX:
        M = apply(np.eye(n))
        ev, U = la.eigh((M + M.T) / 2.0, subset_by_index=[max(0, n - K), n - 1])
    else:
        if basis is None:
            Q = _orthonormal(rng.standard_normal((n, min(n, K + 10))))
            for _ in range(n_power):
                Q = _orthonormal(apply(Q))
        else:                        # A^n_power Q₀, then one orthonormalisation: the same subspace
            Q = basis
            for _ in range(n_power):
                Q = apply(Q)
            Q = _orthonormal(Q)
        T = Q.T @ apply(Q)
        ev, W = la.eigh((T + T.T) / 2.0)
        ritz = Q @ W
        ev, U = ev[-K:], ritz[:, -K:]
    order = np.argsort(-ev, kind="stable")
    ev, U = ev[order], U[:, order]
    return np.clip(ev, 0.0, None), U, ritz


def svp_embedding(Y, omega, n_components, *, n_iter=8, step=1.0, random_state=None):
    """SVP for min_{Z (N × K)} ‖P_Ω(Y Yᵀ) − P_Ω(Z Zᵀ)‖²_F (SLEEC §3).

    Each iteration: M = Z Zᵀ − η P_Ω(Z Zᵀ − Y Yᵀ), Z = U_K diag(√s_K)₊ from the
    top-K eigenpairs of M (projection on PSD matrices of rank <= K). Starts
    from Z = 0 (so the first iterate is the projection of η P_Ω(Y Yᵀ)).

    Parameters
    ----------
    Y : ndarray of {0, 1}, shape (N, L)
    omega : csr_matrix of bool, shape (N, N), symmetric
    n_components : int
        K (capped at N).
    n_iter : int
    step : float
        η.
    random_state : int, RandomState or None
        Start block of the subspace iteration in the first step (clusters >
        ``DENSE_MAX``); later steps start from the previous step's Ritz vectors.

    Returns
    -------
    Z : ndarray, shape (N, K)
    residuals : list of float
        ‖P_Ω(Z Zᵀ − Y Yᵀ)‖_F after each iteration.
    """
    N = Y.shape[0]
    K = min(int(n_components), N)
    rng = check_random_state(random_state)
    upper = sp.triu(omega, format="coo")          # Ω is symmetric: work on i <= j only
    rows, cols = upper.row, upper.col
    weight = np.where(rows == cols, 1.0, 2.0)     # off-diagonal entries count twice in ‖·‖_F
    Yf = Y.astype(np.float64)
    target = _omega_values(Yf, rows, cols)
    Z = np.zeros((N, K))
    residuals = []
    basis = None
    diff = -target
    for _ in range(int(n_iter)):
        S = sp.csr_matrix((diff, (rows, cols)), shape=(N, N))
        S = (S + S.T - sp.diags(S.diagonal())).tocsr()

        zero = not Z.any()

        def apply(B, Z=Z, S=S, zero=zero):
            out = np.zeros((B.shape[0], B.shape[1])) if zero else Z @ (Z.T @ B)   # +0.0 like the GEMM
            SB = S @ B
            SB *= step
            out -= SB          # Z Zᵀ B − η (S B), in place
            return out

        ev, U, basis = _top_psd(apply, N, K, basis, rng, N_POWER if basis is None else N_POWER_WARM)
        Z = U * np.sqrt(ev)
        diff = _omega_values(Z, rows, cols) - target
        residuals.append(float(np.sqrt(np.sum(weight * diff * diff))))
        if residuals[-1] <= 1e-12 * max(1.0, np.sqrt(np.sum(weight * target * target))):
            break
    return Z, residuals


def _admm_regression(ridge, Z, mu, n_iter):
    """V, b minimising ½‖Z − (Xc V + 1bᵀ)‖² + λ/2‖V‖² + μ‖Xc V + 1bᵀ‖₁ (SLEEC's regressor) by ADMM.

    Splitting A = Xc V + 1 bᵀ with penalty ρ = 1: the V step is a ridge
    regression onto A − U (λ, intercept free; one Cholesky factor reused), the
    A step soft-thresholding; μ = 0 is plain ridge.

    Parameters
    ----------
    ridge : CenteredRidge
        Factorised ridge problem of X with λ.
    """
    if mu == 0.0:
        return ridge.solve(Z), Z.mean(axis=0)
    A, U = Z.copy(), np.zeros_like(Z)
    for _ in range(int(n_iter)):
        R = A - U
        V = ridge.solve(R)
        b = R.mean(axis=0)
        XV = ridge.xc_dot(V) + b
        T = (Z + XV + U) / 2.0
        A = np.sign(T) * np.maximum(np.abs(T) - mu / 2.0, 0.0)
        U += XV - A
    return V, b


@empty_set_param
class SLEEC(ScoreCalibrationMixin, MultiLabelClassifierMixin, BaseEstimator):
    """Sparse local embeddings + kNN (Bhatia et al., NIPS 2015).

    Parameters
    ----------
    n_components : int, default 100
        K, embedding dimension (MLLEM paper §4.1: 100), capped at the cluster size.
    n_clusters : int, default 1
        k-means clusters of the training points (one local embedding each).
    n_learners : int, default 1
        Ensemble size (k-means seeds); only useful with ``n_clusters > 1``.
    n_neighbors : int, default 25
        n̄, label-space neighbours per point defining Ω.
    k_test : int, default 10
        Nearest training embeddings voting at prediction.
    lam : float > 0, default 1.0
        λ of the regressor.
    mu : float >= 0, default 0.0
        μ of the ‖X V‖₁ sparsity term (ADMM when > 0).
    n_svp_iter, n_admm_iter : int, defaults 8 and 20
    calibration : {"platt", "clip"}, default "platt"
        The native score is the neighbour vote in [0, 1]; ``"clip"`` uses it
        as is (``threshold=0.5`` = majority vote).
    calibration_folds : int, default 3
    threshold : float in [0, 1], default 0.5
    random_state : int, RandomState or None
        Seeds k-means, the subspace iteration and the calibration folds.
    {empty_set_parameter}

    Attributes
    ----------
    embedding_ : ndarray, shape (N, K)
        x_i V + b of every training row in its own cluster's space (learner 0).
    target_embedding_ : ndarray, shape (N, K)
        The SVP embeddings Z (learner 0).
    label_codes_ : ndarray, shape (L, K) or None
        Mean ``embedding_`` of each label's positive rows (a derived summary,
        not part of SLEEC; zero for a label without positives); None when
        ``n_clusters > 1`` (the clusters' spaces differ).
    cluster_labels_ : ndarray of int, shape (N,)
        Cluster of each training row (learner 0).
    svp_residuals_ : list of list of float
        Per cluster of learner 0, ‖P_Ω(Z Zᵀ − Y Yᵀ)‖_F per SVP iteration.
    learners_ : list
        Per learner: (KMeans or None, list of per-cluster models).
    calibration_, decision_rule_

    Notes
    -----
    Special case (tested): one cluster, n̄ >= N − 1 (Ω = all pairs) and
    K >= rank(Y) make SVP's fixed point Z Zᵀ = Y Yᵀ (Z = the scaled top
    eigenvectors of Y Yᵀ); with μ = 0 the regressor is ridge regression of Z
    on X and the scores are the k-nearest-neighbour label vote in the ridge
    predictions' space.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 4)); Y = (X[:, :3] > 0).astype(int)
    >>> m = SLEEC(n_components=5, random_state=0).fit(X, Y)
    >>> m.embedding_.shape, m.label_codes_.shape, m.predict_proba(X[:2]).shape
    ((60, 5), (3, 5), (2, 3))
    """

    def __init__(self, *, n_components=100, n_clusters=1, n_learners=1, n_neighbors=25, k_test=10,
                 lam=1.0, mu=0.0, n_svp_iter=8, n_admm_iter=20, calibration="platt",
                 calibration_folds=3, threshold=0.5, random_state=None, empty_set=True):
        self.n_components = n_components
        self.n_clusters = n_clusters
        self.n_learners = n_learners
        self.n_neighbors = n_neighbors
        self.k_test = k_test
        self.lam = lam
        self.mu = mu
        self.n_svp_iter = n_svp_iter
        self.n_admm_iter = n_admm_iter
        self.calibration = calibration
        self.calibration_folds = calibration_folds
        self.threshold = threshold
        self.random_state = random_state
        self.empty_set = empty_set

    def _validate_params(self):
        for name in ("n_components", "n_clusters", "n_learners", "n_neighbors", "k_test",
                     "n_svp_iter", "n_admm_iter"):
            check_param(self, name, getattr(self, name), low=1)
        check_param(self, "lam", self.lam, low=0.0, low_inclusive=False)
        check_param(self, "mu", self.mu, low=0.0)
        self._validate_calibration(check_param)

    def fit(self, X, Y):
        """Cluster, embed each cluster by SVP, fit the regressors, calibrate.

        Parameters
        ----------
        X : ndarray or csr_matrix, shape (N, F)
        Y : ndarray of {0, 1}, shape (N, L)

        Returns
        -------
        self
        """
        self._validate_params()
        X, Y = check_X_Y(X, Y, min_samples=2)
        N = X.shape[0]
        n_clusters = min(int(self.n_clusters), N)
        omega_entries = N * (2 * int(self.n_neighbors) + 1) if n_clusters == 1 else \
            N * (2 * min(int(self.n_neighbors), N) + 1)
        if omega_entries > MAX_OMEGA_ENTRIES:
            raise TooLargeError(
                f"SLEEC with n_neighbors={self.n_neighbors} on {N} rows keeps ~{omega_entries:.2g} "
                f"label-neighbour pairs (~{omega_entries * 24 / 2 ** 30:.1f} GB); use fewer n_neighbors.",
                estimate_bytes=omega_entries * 24.0, alternative="smaller n_neighbors")
        self.n_features_in_ = X.shape[1]
        self.n_labels_ = Y.shape[1]
        self.Y_train_ = Y
        rng = check_random_state(self.random_state)
        self.learners_ = []
        for learner in range(int(self.n_learners)):
            seed = rng.randint(np.iinfo(np.int32).max)
            if n_clusters > 1:
                km = KMeans(n_clusters=n_clusters, n_init=1, random_state=seed).fit(X)
                assign = km.labels_
            else:
                km, assign = None, np.zeros(N, dtype=int)
            models = [self._fit_cluster(X, Y, np.flatnonzero(assign == c), seed + c)
                      for c in range(n_clusters)]
            self.learners_.append((km, models))
            if learner == 0:
                self.cluster_labels_ = assign
                self.embedding_ = np.zeros((N, max(m["V"].shape[1] for m in models)))
                self.target_embedding_ = np.zeros_like(self.embedding_)
                for m in models:
                    k = m["V"].shape[1]
                    self.embedding_[m["rows"], :k] = m["E"]
                    self.target_embedding_[m["rows"], :k] = m["Z"]
                self.svp_residuals_ = [m["residuals"] for m in models]
        if n_clusters == 1:
            counts = Y.sum(axis=0).astype(np.float64)
            self.label_codes_ = (Y.T @ self.embedding_) / np.maximum(counts, 1.0)[:, None]
        else:
            self.label_codes_ = None
        self.decision_rule_ = self._describe_rule("k-nearest-neighbour label votes")
        self._fit_empty_set(Y)
        self._fit_calibration(X, Y)
        return self

    def _fit_cluster(self, X, Y, rows, seed):
        Xc, Yc = X[rows], Y[rows]
        omega = label_neighbourhood(Yc, self.n_neighbors)
        Z, residuals = svp_embedding(Yc, omega, self.n_components, n_iter=self.n_svp_iter,
                                     random_state=seed)
        ridge = CenteredRidge(Xc, float(self.lam), owner="SLEEC")
        W, b = _admm_regression(ridge, Z, float(self.mu), self.n_admm_iter)  # W acts on centred features
        E = ridge.xc_dot(W) + b
        nn = NearestNeighbors(n_neighbors=min(int(self.k_test), len(rows))).fit(E)
        return {"rows": rows, "Z": Z, "V": W, "b": b, "mean": ridge.mean, "E": E, "nn": nn,
                "residuals": residuals}

    def transform(self, X):
        """Embeddings x V + b of new rows in their cluster's space (learner 0), shape (n, K)."""
        self._check_fitted("learners_")
        X = self._check_predict_X(X)
        km, models = self.learners_[0]
        assign = np.zeros(X.shape[0], dtype=int) if km is None else km.predict(X)
        out = np.zeros((X.shape[0], self.embedding_.shape[1]))
        for c, m in enumerate(models):
            sel = np.flatnonzero(assign == c)
            if sel.size:
                out[sel, :m["V"].shape[1]] = np.asarray(X[sel] @ m["V"]) - m["mean"] @ m["V"] + m["b"]
        return out

    def decision_function(self, X):
        """Neighbour-vote label scores in [0, 1], averaged over learners; shape (n, L)."""
        self._check_fitted("learners_")
        X = self._check_predict_X(X)
        S = np.zeros((X.shape[0], self.n_labels_))
        for km, models in self.learners_:
            assign = np.zeros(X.shape[0], dtype=int) if km is None else km.predict(X)
            for c, m in enumerate(models):
                sel = np.flatnonzero(assign == c)
                if not sel.size:
                    continue
                E = np.asarray(X[sel] @ m["V"]) - m["mean"] @ m["V"] + m["b"]
                idx = m["nn"].kneighbors(E, return_distance=False)
                S[sel] += self.Y_train_[m["rows"][idx]].mean(axis=1)
        return S / len(self.learners_)

    def _clip_probability(self, S):
        return S
