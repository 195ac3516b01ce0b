"""MLLEM: joint label-instance embedding by a Laplacian eigenmap (Kimura et al.).

Kimura, Kudo, Sun, "MLLEM: simultaneous nonlinear label-instance embedding
for multi-label classification". Instances and labels are nodes of one graph
on N + L nodes (§2.1),

    W = [[α W_II, Y ], [Yᵀ, β W_LL]],

embedded by the generalized eigenproblem L E = λ D E (eq. (3)); the first N
rows of E are the instance coordinates G, the last L rows the label
coordinates H. Test points are mapped by ridge regression X → G (MLLEM-L) or
as the mean of their k nearest training instances' coordinates (MLLEM-NL,
§2.2); labels are ranked by distance to the label points.

Probabilities and the decision rule
-----------------------------------
Distances are similarities, not probabilities: thresholding them at 0.5 gave
Hamming loss 0.49 where predicting nothing gives 0.053.
``predict_proba`` is calibrated per label by Platt scaling fitted on
cross-fitted training distances (class Notes), and ``predict`` is
``predict_proba >= 0.5`` (``decision_rule_`` says so).

Large N
-------
Neighbour lists come from :class:`mlviz.models._neighbors.NeighborIndex`
(exact chunked brute force / k-d tree up to 20,000 training rows, NN-descent
above; memory O(N·k)), W is sparse and the eigenproblem is solved by ARPACK
Lanczos on the normalised affinity (memory O((N + L)(k + K))); distances to
the label points are computed in row chunks. The linear mapping switches from
a Cholesky-factored Gram matrix to LSQR when min(N, F)² doubles exceed 512 MB.
Nothing is O(N²) in memory. The label co-occurrence graph is L × L dense.

Slider-fast refits
------------------
The instance kNN lists are computed once in ``fit`` for ``k_instances``
neighbours and kept. :meth:`MLLEM.refit` changes ``alpha``, ``beta``,
``k_labels``, ``n_components``, ``k_test``, ``ridge``, ``mapping``,
``threshold``, the calibration (or a smaller ``k_instances``) IN PLACE and
rebuilds only W, the eigenproblem and the test mapping from the cached lists;
asking for more instance neighbours than cached recomputes them. If only
``mapping``, ``k_test``, ``ridge`` or ``threshold`` change, the eigenproblem is
skipped too (the ridge Gram factorisation is cached per ``ridge`` value). The
calibration's fold models are refitted the same way, lazily, on the next
``predict_proba``. ``refit(**p)`` gives exactly the same model as
``set_params(**p).fit(X, Y)`` on the training data.
"""

import warnings

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, lsqr
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state

from ..solvers.eigen import METHODS as EIGEN_METHODS
from ..solvers.eigen import laplacian_eigenmap
from ._base import BaseEstimator, MultiLabelClassifierMixin, check_param, check_X, check_X_Y, empty_set_param
from ._neighbors import ALGORITHMS, METRICS, NeighborIndex


class _Keep:
    """Sentinel for "leave this parameter unchanged" in :meth:`MLLEM.refit`."""

    def __repr__(self):
        return "KEEP"


KEEP = _Keep()


def instance_knn_graph(neighbors, n_samples):
    """Symmetric 0/1 kNN relation W_II (paper §2.1, OR rule).

    W_II[i, j] = 1 if i ∈ N_k(x_j) or j ∈ N_k(x_i).

    Parameters
    ----------
    neighbors : ndarray of int, shape (n_samples, k)
        Row i lists the k nearest training neighbours of i (i itself excluded).
    n_samples : int

    Returns
    -------
    W_II : csr_matrix, shape (n_samples, n_samples), symmetric, zero diagonal
    """
    k = neighbors.shape[1]
    rows = np.repeat(np.arange(n_samples), k)
    A = sp.csr_matrix((np.ones(n_samples * k), (rows, neighbors.ravel())), shape=(n_samples, n_samples))
    A.data[:] = 1.0  # duplicates (cannot occur with kneighbors) collapse to 1
    return A.maximum(A.T).tocsr()


def label_cooccurrence_graph(Y, k_labels):
    """Symmetric 0/1 top-k co-occurrence relation W_LL (paper §2.1).

    Label l is a neighbour of m when l is among the ``k_labels`` labels that
    co-occur most often with m (count Yᵀ Y, ties broken by lower index) and
    co-occurs with it at least once; W_LL is the OR-symmetrisation, the same
    "symmetric k-nearest-neighbour relation" the paper uses for W_II.

    Parameters
    ----------
    Y : ndarray of {0, 1}, shape (n_samples, n_labels)
    k_labels : int

    Returns
    -------
    W_LL : csr_matrix, shape (n_labels, n_labels), symmetric, zero diagonal
    """
    L = Y.shape[1]
    C = (Y.T.astype(np.float64) @ Y.astype(np.float64))
    np.fill_diagonal(C, 0.0)
    k = min(int(k_labels), L - 1)
    R = np.zeros((L, L))
    if k > 0:
        order = np.argsort(-C, axis=1, kind="stable")[:, :k]
        rows = np.repeat(np.arange(L), k)
        R[rows, order.ravel()] = 1.0
        R[C <= 0] = 0.0
    return sp.csr_matrix(np.maximum(R, R.T))


def mllem_affinity(W_II, Y, W_LL, alpha, beta):
    """The joint affinity W = [[α W_II, Y], [Yᵀ, β W_LL]] on N + L nodes (eq. (1)).

    Returns
    -------
    W : csr_matrix, shape (N + L, N + L)
    """
    Ys = sp.csr_matrix(Y.astype(np.float64))
    return sp.bmat([[alpha * W_II, Ys], [Ys.T, beta * W_LL]], format="csr")


def _sigmoid(z):
    return np.exp(-np.logaddexp(0.0, -z))


def platt_targets(Y):
    """Platt's smoothed targets: (n₊ + 1)/(n₊ + 2) for positives, 1/(n₋ + 2) for negatives.

    Parameters
    ----------
    Y : ndarray of {0, 1}, shape (N, L)

    Returns
    -------
    T : ndarray, shape (N, L)
    """
    Y = np.asarray(Y, dtype=np.float64)
    n_pos = Y.sum(axis=0)
    n_neg = Y.shape[0] - n_pos
    return np.where(Y > 0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))


def platt_fit(scores, Y, *, max_iter=100, tol=1e-10):
    """Per-label Platt scaling P(y_l = 1 | s) = σ(a_l s + b_l), all labels at once.

    Minimises, for every label l independently, the cross-entropy against
    Platt's smoothed targets (:func:`platt_targets`) by Newton's method with
    step halving, vectorised over labels. Smoothed targets keep the optimum
    finite even for separable scores; ``a_l`` is constrained to be >= 0 (a
    higher score never lowers the probability): where the unconstrained
    optimum has a_l < 0 the constrained one is a_l = 0,
    b_l = logit(mean target).

    Parameters
    ----------
    scores : ndarray, shape (N, L)
        Held-out (cross-fitted) scores, larger = more likely.
    Y : ndarray of {0, 1}, shape (N, L)

    Returns
    -------
    a, b : ndarray, shape (L,) each

    References
    ----------
    J. Platt, "Probabilistic outputs for support vector machines", 1999;
    H.-T. Lin, C.-J. Lin, R. Weng, "A note on Platt's probabilistic outputs
    for support vector machines", Machine Learning 68, 2007.
    """
    S = np.asarray(scores, dtype=np.float64)
    T = platt_targets(Y)
    N, L = S.shape
    ridge = 1e-10 * N  # only matters when a label's scores are constant

    def loss(a, b):
        Z = S * a + b
        return (np.logaddexp(0.0, Z) - T * Z).sum(axis=0) + 0.5 * ridge * a * a

    prior = np.log(T.mean(axis=0)) - np.log1p(-T.mean(axis=0))
    a, b = np.zeros(L), prior.copy()
    f = loss(a, b)
    for _ in range(max_iter):
        P = _sigmoid(S * a + b)
        R = P - T
        W = P * (1.0 - P)
        ga = (R * S).sum(axis=0) + ridge * a
        gb = R.sum(axis=0)
        if max(np.abs(ga).max(), np.abs(gb).max()) <= tol * N:
            break
        haa = (W * S * S).sum(axis=0) + ridge
        hab = (W * S).sum(axis=0)
        hbb = W.sum(axis=0) + 1e-300
        det = np.maximum(haa * hbb - hab * hab, 1e-300)
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        step = np.ones(L)
        for _ in range(40):
            a_new, b_new = a - step * da, b - step * db
            f_new = loss(a_new, b_new)
            bad = f_new > f + 1e-12 * np.abs(f)
            if not bad.any():
                break
            step[bad] *= 0.5
        keep = f_new <= f + 1e-12 * np.abs(f)
        a[keep], b[keep], f[keep] = a_new[keep], b_new[keep], f_new[keep]
    neg = a < 0
    a[neg], b[neg] = 0.0, prior[neg]
    return a, b


@empty_set_param
class MLLEM(MultiLabelClassifierMixin, BaseEstimator):
    """Multi-label classification by a joint Laplacian eigenmap (MLLEM-L / MLLEM-NL).

    Parameters
    ----------
    n_components : int, default 10
        K, embedding dimension (paper uses 20; 2 or 3 for figures).
    k_instances : int, default 20
        k^(I), neighbours of the instance graph W_II.
    k_labels : int, default 5
        k^(L), top co-occurring labels per label in W_LL (0: no label edges).
    alpha, beta : float, defaults 0.1 and 0.1
        Weights of W_II and W_LL (eq. (1)), >= 0. Chosen by the sweep in
        ``benchmarks/bench_mllem.py --sweep`` (see Notes).
    mapping : {"nonlinear", "linear"}
        Test-point mapping (§2.2): mean of the ``k_test`` nearest training
        instances' coordinates (MLLEM-NL), or ridge regression X → G (MLLEM-L).
    k_test : int, default 20
        Neighbours of the nonlinear mapping.
    ridge : float, default 1.0
        λ of the ridge regression ‖X V + 1 bᵀ − G‖² + λ‖V‖² (an unpenalised
        intercept b is added because G is D-centred, not mean-centred).
    calibration : {"platt", "none"}, default "platt"
        How ``predict_proba`` turns distances into probabilities (Notes).
    calibration_folds : int, default 3
        Folds of the cross-fitting that produces held-out training scores.
    threshold : float in [0, 1] or None, default 0.5
        ``predict`` = ``predict_proba >= threshold``; ``None``: the top-r
        labels by ``predict_proba``, r = training label cardinality rounded.
    metric : {"euclidean", "cosine"}
        Instance distance of the kNN graph and of the nonlinear mapping.
    neighbors : {"auto", "exact", "approximate"}
        kNN search (:mod:`mlviz.models._neighbors`): exact up to 20,000
        training points, NN-descent above (memory O(N·k) either way).
    random_state : int, RandomState or None
        Seeds the ARPACK start vector, the calibration folds and NN-descent.
    eigen_solver : {"auto", "dense", "lanczos", "shift-invert"}
        Passed to :func:`mlviz.solvers.laplacian_eigenmap` (sparse ARPACK
        above 600 nodes; memory O((N + L)·(k + K))).
    {empty_set_parameter}

    Attributes
    ----------
    embedding_ : ndarray, shape (N, K)
        Training-instance coordinates G.
    label_embedding_ : ndarray, shape (L, K)
        Label coordinates H (a label with no training positives is an
        isolated node and sits at the origin; it always gets the lowest score).
    eigenvalues_ : ndarray, shape (K,)
    affinity_ : csr_matrix, shape (N + L, N + L)
        W.
    neighbors_ : ndarray of int, shape (N, k_instances)
        Cached training kNN lists (self excluded).
    neighbor_algorithm_ : str
        ``"exact"`` or ``"approximate"``.
    label_isolated_ : ndarray of bool, shape (L,)
    coef_, intercept_ : ndarray, shapes (F, K) and (K,), or None
        Ridge map V, b of ``mapping="linear"`` (None for the nonlinear mapping).
    calibration_ : dict
        ``{"a": (L,), "b": (L,), "scale": float}`` of the Platt maps (computed
        on first use after ``fit``/``refit`` and cached; see Notes).
    cardinality_ : int
        r of the rank cut.
    decision_rule_ : str
        What ``predict`` does, in words.

    Notes
    -----
    ``decision_function`` is −‖g(x) − h_l‖ (closer = higher), a similarity,
    not a probability. ``predict_proba`` (``calibration="platt"``) is

        P(y_l = 1 | x) = σ(a_l · (−‖g(x) − h_l‖ / (u c)) + b_l),

    with u = 1/√vol(W) (``distance_unit_``: the constraint Eᵀ D E = I scales
    coordinates by 1/√vol, so a model fitted on fewer rows has longer
    distances; dividing by u makes fold and full models comparable), c the
    median held-out distance in these units, and (a_l, b_l) fitted per label by
    :func:`platt_fit` on **cross-fitted** training scores: the training set is
    split into ``calibration_folds`` folds (``KFold``, shuffled with
    ``random_state``); for each fold an MLLEM with the same parameters is fitted
    on the other folds and scores the held-out fold, so every training row gets
    a score from a model that did not see its labels (the in-sample embedding
    would place each instance next to its own labels and give overconfident
    maps). The held-out scores of all folds are pooled and one (a_l, b_l) per
    label is fitted to them (Platt's smoothed targets, a_l >= 0). So the map is
    monotone per label, ``predict_proba`` ranks like ``decision_function``
    within a label, and threshold 0.5 is the Bayes rule for Hamming loss if the
    calibration holds. The fold models are refitted with the model (``refit``
    reuses their kNN lists); the maps are computed lazily on the first
    ``predict_proba``/``predict`` after ``fit``/``refit``, so parameter sweeps
    that use only ``decision_function`` do not pay for them.
    ``calibration="none"`` gives the uncalibrated similarity
    exp(−‖g(x) − h_l‖² / (2σ²)), σ² = median squared training instance-to-own-
    label distance (``proba_scale_``).

    Defaults (α = β = 0.1, k_instances = k_test = 20, K = 10, k_labels = 5)
    are the best of an 81-point grid (α, β ∈ {0.01, 0.1, 1(0)}, k ∈ {5, 10,
    20}, K ∈ {10, 20, 50}) by mean validation P@1 gain over ranking labels by
    training frequency on the five bundled sets (inner 2/3 : 1/3 split of each
    training split; ``benchmarks/bench_mllem.py --sweep``, table in
    ``benchmarks/RESULTS.md``, "MLLEM decision rule and defaults"). α = β = 1 ranks
    below it on every measure of the sweep (P@1 gain +0.244 vs +0.283, micro-F1
    0.463 vs 0.551).

    References
    ----------
    Kimura, Kudo, Sun, MLLEM, PAKDD 2016: eq. (1)–(3), §2.2.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 4)); Y = (X[:, :3] > 0).astype(int)
    >>> m = MLLEM(n_components=2, random_state=0).fit(X, Y)
    >>> m.embedding_.shape, m.label_embedding_.shape, m.decision_function(X[:5]).shape
    ((60, 2), (3, 2), (5, 3))
    >>> P = m.predict_proba(X[:5]); bool(np.array_equal(m.predict(X[:5]), (P >= 0.5).astype(np.uint8)))
    True
    """

    def __init__(self, *, n_components=10, k_instances=20, k_labels=5, alpha=0.1, beta=0.1,
                 mapping="nonlinear", k_test=20, ridge=1.0, calibration="platt", calibration_folds=3,
                 threshold=0.5, metric="euclidean", neighbors="auto", random_state=None,
                 eigen_solver="auto", empty_set=True):
        self.n_components = n_components
        self.k_instances = k_instances
        self.k_labels = k_labels
        self.alpha = alpha
        self.beta = beta
        self.mapping = mapping
        self.k_test = k_test
        self.ridge = ridge
        self.calibration = calibration
        self.calibration_folds = calibration_folds
        self.threshold = threshold
        self.metric = metric
        self.neighbors = neighbors
        self.random_state = random_state
        self.eigen_solver = eigen_solver
        self.empty_set = empty_set

    # ------------------------------------------------------------------ fit
    def _validate_params(self):
        check_param(self, "n_components", self.n_components, low=1)
        check_param(self, "k_instances", self.k_instances, low=1)
        check_param(self, "k_labels", self.k_labels, low=0)
        check_param(self, "alpha", self.alpha, low=0.0)
        check_param(self, "beta", self.beta, low=0.0)
        check_param(self, "mapping", self.mapping, options=("nonlinear", "linear"))
        check_param(self, "k_test", self.k_test, low=1)
        check_param(self, "ridge", self.ridge, low=0.0, low_inclusive=False)
        check_param(self, "calibration", self.calibration, options=("platt", "none"))
        check_param(self, "calibration_folds", self.calibration_folds, low=2)
        check_param(self, "threshold", self.threshold, low=0.0, high=1.0, allow_none=True)
        check_param(self, "metric", self.metric, options=METRICS)
        check_param(self, "neighbors", self.neighbors, options=ALGORITHMS)
        check_param(self, "eigen_solver", self.eigen_solver, options=EIGEN_METHODS)

    def fit(self, X, Y):
        """Build the joint graph, embed it and prepare the test mapping.

        Parameters
        ----------
        X : ndarray or csr_matrix, shape (N, F)
        Y : ndarray of {0, 1}, shape (N, L)

        Returns
        -------
        self
        """
        self._validate_params()
        X, Y = check_X_Y(X, Y, min_samples=3)
        self.X_train_ = X
        self.Y_train_ = Y
        k_index = max(int(self.k_instances), int(self.k_test))
        self.nn_ = NeighborIndex(metric=self.metric, algorithm=self.neighbors, n_neighbors=k_index,
                                 random_state=self.random_state).fit(X)
        self.neighbor_algorithm_ = self.nn_.algorithm_
        self.neighbors_ = self._training_neighbors(int(self.k_instances))
        self._gram_cache = {}
        self._embedded_key = None
        self._folds = None
        self.n_features_in_ = X.shape[1]
        return self._embed()

    def _training_neighbors(self, k):
        N = self.X_train_.shape[0]
        if k > N - 1:
            warnings.warn(f"MLLEM: k_instances={k} >= n_samples={N}; using {N - 1}.", UserWarning, stacklevel=2)
            k = N - 1
        return self.nn_.training_neighbors(k)

    def refit(self, *, n_components=KEEP, k_instances=KEEP, k_labels=KEEP, alpha=KEEP, beta=KEEP,
              mapping=KEEP, k_test=KEEP, ridge=KEEP, threshold=KEEP, eigen_solver=KEEP,
              calibration=KEEP, calibration_folds=KEEP, random_state=KEEP):
        """Change parameters and re-embed IN PLACE, reusing the cached instance kNN lists.

        Parameters
        ----------
        n_components, k_instances, k_labels, alpha, beta, mapping, k_test, ridge, threshold, \
eigen_solver, calibration, calibration_folds, random_state
            New values; arguments left at ``KEEP`` are unchanged. A
            ``k_instances`` larger than the cached lists triggers one new kNN
            query; changing only ``mapping``, ``k_test``, ``ridge``,
            ``threshold`` or the calibration skips the eigenproblem.
            (``metric`` and ``neighbors`` change the kNN search: use ``fit``.)

        Returns
        -------
        self
            Identical to ``set_params(**changed).fit(X_train, Y_train)``. The
            named arguments make this usable by the ``refit`` hook of
            :func:`mlviz.evaluation.grid_search`.
        """
        params = {k: v for k, v in locals().items() if k != "self" and v is not KEEP}
        self._check_fitted("embedding_")
        old = self.get_params(deep=False)
        self.set_params(**params)
        try:
            self._validate_params()
        except ValueError:
            self.set_params(**old)
            raise
        k = int(self.k_instances)
        if k > self.neighbors_.shape[1] and self.neighbors_.shape[1] < self.X_train_.shape[0] - 1:
            self.neighbors_ = self._training_neighbors(k)
            self._embedded_key = None
        if "calibration_folds" in params or "random_state" in params:
            self._folds = None
        return self._embed()

    def _graph_key(self):
        return (int(self.n_components), int(self.k_instances), int(self.k_labels), float(self.alpha),
                float(self.beta), self.eigen_solver, self.random_state)

    def _calibration_key(self):
        return self._graph_key() + (self.mapping, int(self.k_test), float(self.ridge),
                                    int(self.calibration_folds))

    def _embed(self):
        """Rebuild W and solve the eigenproblem unless only mapping parameters changed."""
        if getattr(self, "_embedded_key", None) != self._graph_key():
            self._embed_graph()
            self._embedded_key = self._graph_key()
        if self.mapping == "linear":
            self.coef_, self.intercept_ = self._ridge_fit(self.embedding_)
        else:
            self.coef_ = self.intercept_ = None
        self.decision_rule_ = self._describe_rule()
        self._fit_empty_set(self.Y_train_)
        return self

    def _describe_rule(self):
        proba = ("probabilities calibrated by per-label Platt scaling on "
                 f"{int(self.calibration_folds)}-fold cross-fitted distances"
                 if self.calibration == "platt" else "uncalibrated similarities exp(-d²/2σ²)")
        if self.threshold is None:
            return f"top-{self.cardinality_} labels (training cardinality) by {proba}"
        return f"threshold {float(self.threshold):g} on {proba}"

    def _embed_graph(self):
        Y = self.Y_train_
        N, L = Y.shape
        k = min(int(self.k_instances), self.neighbors_.shape[1])
        W_II = instance_knn_graph(self.neighbors_[:, :k], N)
        W_LL = label_cooccurrence_graph(Y, self.k_labels)
        self.affinity_ = mllem_affinity(W_II, Y, W_LL, float(self.alpha), float(self.beta))
        res = laplacian_eigenmap(self.affinity_, int(self.n_components), method=self.eigen_solver,
                                 random_state=self.random_state)
        self.embedding_ = res.embedding[:N]
        self.label_embedding_ = res.embedding[N:]
        self.eigenvalues_ = res.eigenvalues
        self.eigen_method_ = res.method
        self.label_isolated_ = res.isolated[N:]
        self.n_graph_components_ = res.n_trivial
        self.cardinality_ = max(1, int(np.round(Y.sum(axis=1).mean())))
        self.n_labels_ = L
        # Eᵀ D E = I puts coordinates at scale 1/√vol(W): distances × √vol are
        # comparable between the full model and the smaller fold models.
        self.distance_unit_ = 1.0 / np.sqrt(max(float(self.affinity_.sum()), 1e-300))
        # σ² of the uncalibrated similarity: median squared instance-to-own-label distance
        rows, cols = np.nonzero(Y)
        d2 = ((self.embedding_[rows] - self.label_embedding_[cols]) ** 2).sum(axis=1)
        d2 = d2[d2 > 0]
        scale = float(np.median(d2)) if d2.size else 0.0
        if not np.isfinite(scale) or scale <= 0:
            scale = float(np.mean(self.embedding_ ** 2) * self.embedding_.shape[1]) or 1.0
        self.proba_scale_ = scale

    # ------------------------------------------------------------------ mapping
    def _ridge_fit(self, G):
        """V, b minimising ‖X V + 1 bᵀ − G‖² + λ‖V‖² (§2.2).

        Closed form (primal F × F or dual N × N Cholesky, cached per ridge
        value) when min(N, F)² doubles fit in :data:`RIDGE_DENSE_MAX_BYTES`;
        otherwise LSQR on the centred operator (memory O(nnz(X) + (N + F) K)).
        """
        X = self.X_train_
        N, F = X.shape
        lam = float(self.ridge)
        mu = np.asarray(X.mean(axis=0)).ravel()
        Gc = G - G.mean(axis=0)
        if 8.0 * min(N, F) ** 2 > RIDGE_DENSE_MAX_BYTES:
            V = _ridge_lsqr(X, mu, Gc, lam)
            return V, G.mean(axis=0) - mu @ V
        key = lam
        if key not in self._gram_cache:
            if F <= N:  # (Xcᵀ Xc + λ I) V = Xcᵀ Gc
                XtX = X.T @ X
                XtX = XtX.toarray() if sp.issparse(XtX) else XtX
                A = XtX - N * np.outer(mu, mu) + lam * np.eye(F)
            else:  # V = Xcᵀ (Xc Xcᵀ + λ I)^{-1} Gc
                XXt = X @ X.T
                XXt = XXt.toarray() if sp.issparse(XXt) else XXt
                Xmu = np.asarray(X @ mu).ravel()
                A = (XXt - Xmu[:, None] - Xmu[None, :] + mu @ mu) + lam * np.eye(N)
            self._gram_cache = {key: la.cho_factor((A + A.T) / 2.0)}
        factor = self._gram_cache[key]
        if F <= N:
            rhs = np.asarray(X.T @ Gc)  # Xcᵀ Gc = Xᵀ Gc since Gc has zero column means
            V = la.cho_solve(factor, rhs)
        else:
            alpha_dual = la.cho_solve(factor, Gc)
            V = np.asarray(X.T @ alpha_dual) - np.outer(mu, alpha_dual.sum(axis=0))
        b = G.mean(axis=0) - mu @ V
        return V, b

    def transform(self, X):
        """Map instances into the embedding (§2.2).

        Parameters
        ----------
        X : ndarray or csr_matrix, shape (n, F)

        Returns
        -------
        G_test : ndarray, shape (n, K)
            ``mapping="linear"``: X V + b; ``"nonlinear"``: mean coordinates of
            the ``k_test`` nearest training instances (a training point is its
            own nearest neighbour here; use ``embedding_`` for training coordinates).
        """
        self._check_fitted("embedding_")
        X = check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, MLLEM was fitted with {self.n_features_in_}.")
        if self.mapping == "linear":
            return np.asarray(X @ self.coef_) + self.intercept_
        k = min(int(self.k_test), self.X_train_.shape[0])
        nbrs = self.nn_.query(X, k)
        return self.embedding_[nbrs].mean(axis=1)

    # ------------------------------------------------------------------ scores
    def _distances(self, G):
        """Squared distances ‖g_i − h_l‖², shape (n, L), in row chunks (memory O(n L))."""
        H = self.label_embedding_
        n, K = G.shape
        out = np.empty((n, H.shape[0]))
        step = max(1, int(4_000_000 // max(1, H.shape[0] * K)))
        for s in range(0, n, step):
            diff = G[s:s + step, None, :] - H[None, :, :]
            out[s:s + step] = np.einsum("ilk,ilk->il", diff, diff)
        return out

    def _scores_from_embedding(self, G):
        """(−distance, squared distance) with isolated labels pushed to the bottom."""
        d2 = self._distances(G)
        scores = -np.sqrt(d2)
        iso = self.label_isolated_
        if iso.any():
            live = ~iso
            floor = scores[:, live].min(axis=1) if live.any() else np.zeros(len(G))
            scores[:, iso] = floor[:, None] - 1.0
            d2[:, iso] = (1.0 - floor[:, None]) ** 2
        return scores, d2

    def decision_function(self, X):
        """Label scores −‖g(x) − h_l‖ (closer = higher); shape (n, L).

        Labels without training positives score one unit below the row's minimum.
        """
        return self._scores_from_embedding(self.transform(X))[0]

    # ------------------------------------------------------------ calibration
    def _fold_models(self):
        """Cross-fitting models (one per fold), fitted once and refitted in place."""
        params = {k: v for k, v in self.get_params(deep=False).items()}
        params.update(calibration="none", threshold=0.5)
        if self._folds is None:
            N = self.X_train_.shape[0]
            n_folds = min(int(self.calibration_folds), N // 3)
            if n_folds < 2:
                raise ValueError(f"MLLEM: calibration needs at least 6 training rows, got {N}.")
            seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
            splits = KFold(n_splits=n_folds, shuffle=True, random_state=seed).split(np.zeros(N))
            self._folds = []
            for train, held in splits:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    sub = MLLEM(**params).fit(self.X_train_[train], self.Y_train_[train])
                self._folds.append((sub, held))
        else:
            graph = {k: params[k] for k in ("n_components", "k_instances", "k_labels", "alpha", "beta",
                                            "mapping", "k_test", "ridge", "eigen_solver")}
            for sub, _ in self._folds:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    sub.refit(**graph)
        return self._folds

    def cross_fitted_scores(self):
        """Held-out training scores −‖g(x_i) − h_l‖ / u from the fold models; shape (N, L).

        u = ``distance_unit_`` = 1/√vol(W) of the fold model that scored the row
        (see Notes of the class).
        """
        self._check_fitted("embedding_")
        S = np.empty(self.Y_train_.shape)
        for sub, held in self._fold_models():
            S[held] = sub.decision_function(self.X_train_[held]) / sub.distance_unit_
        return S

    def _calibration(self):
        key = self._calibration_key()
        if getattr(self, "_calibrated_key", None) != key:
            S = self.cross_fitted_scores()
            scale = float(np.median(-S[S < 0])) if (S < 0).any() else 1.0
            a, b = platt_fit(S / scale, self.Y_train_)
            self.calibration_ = {"a": a, "b": b, "scale": scale}
            self._calibrated_key = key
        return self.calibration_

    def predict_proba(self, X):
        """P(y_l = 1 | x); shape (n, L).

        ``calibration="platt"``: σ(a_l · score_l(x) / (u c) + b_l) (class Notes);
        ``"none"``: the similarity exp(−‖g(x) − h_l‖² / (2σ²)), σ² = ``proba_scale_``.
        """
        self._check_fitted("embedding_")
        scores, d2 = self._scores_from_embedding(self.transform(X))
        if self.calibration == "none":
            return np.exp(-d2 / (2.0 * self.proba_scale_))
        cal = self._calibration()
        return _sigmoid(scores / (self.distance_unit_ * cal["scale"]) * cal["a"] + cal["b"])

    def predict(self, X):
        """``predict_proba >= threshold``, or the top-``cardinality_`` labels if ``threshold`` is None.

        With ``allow_empty_`` False, a row the threshold leaves empty gets its most probable label.

        Returns
        -------
        Y_pred : ndarray of uint8, shape (n, L)
        """
        P = self.predict_proba(X)
        if self.threshold is not None:
            return self.predict_from_proba(P)
        r = min(self.cardinality_, P.shape[1])
        top = np.argsort(-P, axis=1, kind="stable")[:, :r]
        out = np.zeros(P.shape, dtype=np.uint8)
        np.put_along_axis(out, top, 1, axis=1)
        return out


RIDGE_DENSE_MAX_BYTES = 512 * 2 ** 20
"""The linear mapping solves by Cholesky when its min(N, F)² Gram matrix fits in this many bytes."""


def _ridge_lsqr(X, mu, Gc, lam):
    """Ridge V = argmin ‖(X − 1μᵀ) V − Gc‖² + λ‖V‖² column by column with LSQR (never forms XᵀX)."""
    N, F = X.shape
    op = LinearOperator((N, F), dtype=np.float64,
                        matvec=lambda v: np.asarray(X @ v).ravel() - mu @ v,
                        rmatvec=lambda u: np.asarray(X.T @ u).ravel() - mu * u.sum())
    V = np.empty((F, Gc.shape[1]))
    for j in range(Gc.shape[1]):
        V[:, j] = lsqr(op, Gc[:, j], damp=np.sqrt(lam), atol=1e-12, btol=1e-12, iter_lim=10 * F)[0]
    return V
