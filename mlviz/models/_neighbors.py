"""k-nearest-neighbour lists for MLLEM and ML-kNN, exact or approximate, memory O(N·k).

Both methods need two things: the k nearest *other* training points of every
training point (the instance graph W_II of MLLEM, the neighbour label counts of
ML-kNN), and the k nearest training points of a query. :class:`NeighborIndex`
provides both and never forms an N × N matrix:

* ``algorithm="exact"``: dense inputs with at most :data:`TREE_MAX_FEATURES`
  features use scikit-learn's k-d / ball tree (``NearestNeighbors(algorithm="auto")``);
  other dense inputs with the euclidean metric use :func:`dense_knn` (float32 BLAS
  distances in row blocks, candidates checked in float64: the same lists as an
  exact search, up to ties); sparse inputs and the cosine metric scikit-learn's
  brute-force search in row chunks of :data:`WORKING_MEMORY_MB`. Peak memory
  O(chunk · N + N · k), time O(N² F).
* ``algorithm="approximate"``: NN-descent (``pynndescent.NNDescent``, installed
  with umap-learn; Dong, Charikar, Li 2011), seeded by ``random_state``, memory
  O(N · k), time roughly O(N^1.14 F). Its recall against the exact lists is
  measured by :func:`knn_recall` (``tests/test_baselines.py`` on a small set,
  ``benchmarks/bench_mllem.py`` at scale).
* ``algorithm="auto"``: exact up to :data:`EXACT_MAX_SAMPLES` training points,
  or while the brute-force cost N² × (features or non-zeros per row) stays
  below :data:`EXACT_MAX_COST`; approximate above.

Metrics: ``"euclidean"`` or ``"cosine"``. On L2-normalised rows (the default
scaling of sparse/count features in :mod:`mlviz.preprocessing`) both give the
same neighbour order, since ‖a − b‖² = 2 − 2 cos(a, b).

Ties: scikit-learn lists equidistant points in its own order, :func:`dense_knn` by index;
training lists never contain the query point itself (by index), so exact
duplicates of a point still count as its neighbours.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn import config_context
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state

__all__ = ["NeighborIndex", "dense_knn", "knn_recall", "ALGORITHMS", "METRICS", "EXACT_MAX_SAMPLES"]

ALGORITHMS = ("auto", "exact", "approximate")
METRICS = ("euclidean", "cosine")

EXACT_MAX_SAMPLES = 20_000
"""``algorithm="auto"`` searches exactly up to this many training points ..."""

EXACT_MAX_COST = 3e11
"""... or while N² × (features, or non-zeros per row if sparse) stays below this (≈ 20–60 s of
brute force on one core). Measured (``benchmarks/bench_mllem.py --knn``): 30,000 × 30 dense,
exact 18 s vs NN-descent 163 s (incl. ≈ 30 s numba compilation)."""

WORKING_MEMORY_MB = 128
"""Chunk size (MB) of scikit-learn's brute-force distance blocks (its default is 1024)."""

TREE_MAX_FEATURES = 15
"""Dense data with at most this many features uses a k-d/ball tree (exact)."""


class NeighborIndex:
    """k-NN search over a fixed training set, exact or approximate.

    Parameters
    ----------
    metric : {"euclidean", "cosine"}
    algorithm : {"auto", "exact", "approximate"}
    n_neighbors : int
        Largest k the approximate index is built for (it can answer up to this
        many; larger requests rebuild it). Ignored by the exact search.
    random_state : int, RandomState or None
        Seeds NN-descent (the exact search is deterministic).

    Attributes
    ----------
    algorithm_ : str
        ``"exact"`` or ``"approximate"``, the search actually used.
    n_samples_ : int
    """

    def __init__(self, metric="euclidean", algorithm="auto", n_neighbors=10, random_state=None):
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}.")
        if algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, got {algorithm!r}.")
        self.metric = metric
        self.algorithm = algorithm
        self.n_neighbors = int(n_neighbors)
        self.random_state = random_state

    def fit(self, X):
        """Index the training rows X, shape (N, F), dense or CSR. Returns self."""
        self.X_ = X
        self.n_samples_ = X.shape[0]
        algo = self.algorithm
        if algo == "auto":
            N = self.n_samples_
            width = X.nnz / max(N, 1) if sp.issparse(X) else X.shape[1]  # cost of one distance
            exact = N <= EXACT_MAX_SAMPLES or N * N * width <= EXACT_MAX_COST
            algo = "exact" if exact else "approximate"
        self.algorithm_ = algo
        self._train_lists = None
        self._blas = False
        if algo == "exact":
            tree_ok = (not sp.issparse(X)) and X.shape[1] <= TREE_MAX_FEATURES and self.metric == "euclidean"
            self._dense_queries = tree_ok
            if not tree_ok and not sp.issparse(X) and self.metric == "euclidean":
                self._blas = True  # dense_knn
                self._X64 = np.ascontiguousarray(X, dtype=np.float64)
                return self
            self._nn = NearestNeighbors(metric=self.metric, algorithm="auto" if tree_ok else "brute").fit(X)
        else:
            self._build_approximate(self.n_neighbors)
        return self

    def _build_approximate(self, k):
        from pynndescent import NNDescent  # numba-compiled; import only when needed

        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        # graph degree 2k + 1 (at least 30): on a 10,737-row sparse set recall@10 was 0.56 with
        # degree 15, 0.88 with 30, 0.97 with 60 (build 25 s incl. compilation, 13 s, 42 s)
        k_build = min(max(2 * k + 1, 30), self.n_samples_ - 1)
        X = self.X_.tocsr().astype(np.float32) if sp.issparse(self.X_) else np.asarray(self.X_, np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pynndescent warns about its own numba internals
            self._nnd = NNDescent(X, metric=self.metric, n_neighbors=k_build, random_state=seed,
                                  low_memory=True, n_jobs=1, compressed=False)
        self._k_built = k_build - 1
        self._train_lists = None

    def training_neighbors(self, k):
        """The k nearest other training points of every training point.

        Returns
        -------
        neighbors : ndarray of int, shape (N, k)
            Row i, nearest first; i itself is never listed.
        """
        k = int(k)
        if k > self.n_samples_ - 1:
            raise ValueError(f"k={k} must be < n_samples={self.n_samples_}.")
        if self._blas:
            return dense_knn(self._X64, self._X64, k, exclude_self=True)
        if self.algorithm_ == "exact":
            with config_context(working_memory=WORKING_MEMORY_MB):
                return self._nn.kneighbors(n_neighbors=k, return_distance=False)
        if k > self._k_built:
            self._build_approximate(k)
        if self._train_lists is None:
            idx, _ = self._nnd.neighbor_graph
            self._train_lists = _drop_self(idx)
        return self._train_lists[:, :k].copy()

    def query(self, X, k):
        """The k nearest training points of each row of X (shape (n, F)).

        Returns
        -------
        neighbors : ndarray of int, shape (n, k), nearest first
        """
        k = int(min(k, self.n_samples_))
        if self._blas:
            Xq = X.toarray() if sp.issparse(X) else X
            return dense_knn(np.asarray(Xq, dtype=np.float64), self._X64, k)
        if self.algorithm_ == "exact":
            if self._dense_queries and sp.issparse(X):
                X = X.toarray()  # trees take dense queries; F <= TREE_MAX_FEATURES here
            with config_context(working_memory=WORKING_MEMORY_MB):
                return self._nn.kneighbors(X, n_neighbors=k, return_distance=False)
        if k > self._k_built + 1:
            self._build_approximate(k)
        Xq = X.tocsr().astype(np.float32) if sp.issparse(X) else np.asarray(X, np.float32)
        idx, _ = self._nnd.query(Xq, k=k)
        return np.asarray(idx, dtype=np.int64)


#: float32 unit roundoff (bounds the error of the candidate distances in :func:`dense_knn`)
_U32 = 2.0 ** -24
#: bytes of one block of float32 distances in :func:`dense_knn`
BLAS_BLOCK_BYTES = 32 * 2 ** 20
#: :func:`dense_knn` preselects each row's candidates with a threshold from this many of its columns
_SAMPLE_COLUMNS = 4096


def _smallest(D, m):
    """Column indices of the m smallest entries of each row of D (in no order), shape (R, m).

    Rows wider than 2 :data:`_SAMPLE_COLUMNS`: the m-th smallest of every ``step``-th column
    is >= the row's m-th smallest, so the entries at or below it hold the m smallest (about
    m · N / :data:`_SAMPLE_COLUMNS` of them); one ``argpartition`` of those (6 ns per entry
    for a full row, against ~0.5 ns for the comparison and ``flatnonzero``).
    """
    R, N = D.shape
    if N <= 2 * _SAMPLE_COLUMNS:
        return np.argpartition(D, m - 1, axis=1)[:, :m]
    tau = np.partition(D[:, ::N // _SAMPLE_COLUMNS], m - 1, axis=1)[:, m - 1]
    rows, cols = np.divmod(np.flatnonzero(D <= tau[:, None]), N)
    counts = np.bincount(rows, minlength=R)
    pos = np.arange(rows.size) - (np.cumsum(counts) - counts)[rows]
    vals = np.full((R, int(counts.max())), np.inf, dtype=D.dtype)
    idx = np.zeros(vals.shape, dtype=np.int64)
    vals[rows, pos] = D[rows, cols]
    idx[rows, pos] = cols
    return np.take_along_axis(idx, np.argpartition(vals, m - 1, axis=1)[:, :m], 1)


def dense_knn(Q, A, k, *, exclude_self=False):
    """Exact euclidean k nearest rows of A for every row of Q: float32 BLAS, float64 check.

    For a block of query rows the float32 values ``|a|^2 - 2 q.a`` (one GEMM against all
    of A) select each row's ``m = 2k`` candidates; their squared distances are recomputed in
    float64 as ``sum((q - a)^2)`` and sorted (ties by index). The result is certified per
    row: every float32 value differs from its float64 counterpart by at most
    ``e = 3 (F + 4) u (2 |q| max|a| + max|a|^2)`` (u = 2^-24, a bound on the rounding of the
    inputs, of the dot product and of the sum), so a row whose k-th distance is below
    ``|q|^2 + (its m-th float32 value) - e`` has no closer point outside its candidates.
    Rows that fail (near-ties across that gap) are searched again in float64 over all of A.

    Parameters
    ----------
    Q : ndarray, shape (n, F)
    A : ndarray, shape (N, F)
    k : int, 1 <= k <= N (N - 1 with ``exclude_self``)
    exclude_self : bool
        Q is A: row i never lists i (by index; exact duplicates of i still count).

    Returns
    -------
    neighbors : ndarray of int, shape (n, k), nearest first

    Notes
    -----
    Memory: blocks of :data:`BLAS_BLOCK_BYTES` float32 distances plus a float32 copy of A.
    Time: the GEMM, O(n N F), at float32 speed (~2x float64), plus ~1 ns per distance for
    the selection.
    """
    Q = np.asarray(Q, dtype=np.float64)
    A = np.asarray(A, dtype=np.float64)
    n, N, F = Q.shape[0], A.shape[0], A.shape[1]
    avail = N - 1 if exclude_self else N
    m = min(avail, 2 * k)
    A32m2T = np.ascontiguousarray(-2.0 * A.T, dtype=np.float32)
    an = np.einsum("ij,ij->i", A, A)
    an32 = an.astype(np.float32)
    qn = np.einsum("ij,ij->i", Q, Q)
    amax = np.sqrt(an.max()) if N else 0.0
    err = 3.0 * (F + 4) * _U32 * (2.0 * np.sqrt(qn) * amax + amax ** 2)
    out = np.empty((n, k), dtype=np.int64)
    R = max(1, min(n, BLAS_BLOCK_BYTES // (4 * max(N, 1))))
    redo = []
    for s in range(0, n, R):
        e = min(n, s + R)
        D = np.ascontiguousarray(Q[s:e], dtype=np.float32) @ A32m2T
        D += an32
        if exclude_self:
            D[np.arange(e - s), np.arange(s, e)] = np.inf
        cand = _smallest(D, m)
        last = np.take_along_axis(D, cand, 1).max(axis=1).astype(np.float64)
        diff = Q[s:e, None, :] - A[cand]
        d64 = np.einsum("ijk,ijk->ij", diff, diff)
        order = np.lexsort((cand, d64), axis=1)
        cand, d64 = np.take_along_axis(cand, order, 1), np.take_along_axis(d64, order, 1)
        out[s:e] = cand[:, :k]
        if m < avail:
            redo.extend(s + np.flatnonzero(~(d64[:, k - 1] < qn[s:e] + last - err[s:e])))
    for i in redo:  # float64 over all of A (rare)
        d = np.einsum("ij,ij->i", A - Q[i], A - Q[i])
        if exclude_self:
            d[i] = np.inf
        out[i] = np.lexsort((np.arange(N), d))[:k]
    return out


def _drop_self(idx):
    """Remove each row's own index from a (N, k+1) neighbour list -> (N, k)."""
    N, m = idx.shape
    own = idx == np.arange(N)[:, None]
    # rows where self is missing (possible for duplicates): drop the last column instead
    missing = ~own.any(axis=1)
    own[missing, m - 1] = True
    return idx[~own].reshape(N, m - 1).astype(np.int64)


def knn_recall(approx, exact):
    """Mean fraction of the exact k-NN lists recovered by approximate lists.

    Parameters
    ----------
    approx, exact : ndarray of int, shape (N, k)

    Returns
    -------
    recall : float in [0, 1]
        (1 / (N k)) Σ_i |approx_i ∩ exact_i|.
    """
    approx = np.asarray(approx)
    exact = np.asarray(exact)
    if approx.shape != exact.shape:
        raise ValueError(f"shapes differ: {approx.shape} vs {exact.shape}.")
    N, k = exact.shape
    hits = sum(np.intersect1d(a, e).size for a, e in zip(approx, exact))
    return hits / float(N * k)
