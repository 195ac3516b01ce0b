"""The trees of :class:`~mlviz.models.forest.RandomForestML`: their compact storage, their cost model
(:func:`forest_bytes_estimate`, :func:`forest_seconds_estimate`, re-exported by
:mod:`mlviz.models.forest`), and trees grown on a random projection of the labels.

A fitted tree is kept as its structure (a scikit-learn ``Tree`` with an empty value array, for
``apply``) and a sparse matrix of its leaves' label frequencies; see the Notes of
:class:`~mlviz.models.forest.RandomForestML`.

**Trees on projected labels** (Joly, Geurts & Wehenkel 2014). A multi-output split costs one
update per label for every row it moves, so at hundreds of labels the labels dominate a tree's
cost. Joly et al. grow each tree on ``Z = Y R``, a random projection of the label matrix to
``k`` dimensions (here Rademacher: ``R_lj = ±1``, one R per tree), with the variance
(squared-error) criterion: by the Johnson–Lindenstrauss lemma the variance of Z in a node
approximates the summed variance of the labels -- which is the Gini impurity summed over the
labels up to a factor 2 (both are Σ_l p_l (1 − p_l)) -- so the splits approximate those of the
exact multi-output tree. The leaves then keep the frequencies of the *original* labels among
the (bootstrap-weighted) training rows that reach them, exactly as the exact forest does. (The
usual 1/√k scale of R would scale every impurity alike and change no split; without it Z and the
bootstrap weights are integers, so the criterion's sums are exact in floating point whatever
order the rows are added in, and sparse and dense input grow the same trees.)

References
----------
A. Joly, P. Geurts, L. Wehenkel. Random forests with random projections of the output space for
high dimensional multi-label classification. ECML PKDD 2014, LNCS 8724, 607-622.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.tree import DecisionTreeRegressor, ExtraTreeRegressor
from sklearn.tree._tree import Tree

__all__ = ["structure_only", "leaf_frequencies", "grow_projected", "forest_bytes_estimate",
           "forest_seconds_estimate"]


_NODE_BYTES = 64
"""Bytes of one scikit-learn tree node besides its value array (the ``Node`` struct)."""
_TREE_COST = {"sparse": (0.0, 1.45e-9), "dense": (9.6e-8, 6.25e-9)}
"""Seconds (a, b) of one tree per unit of (distinct rows × log2 of them × features tried) and per
(unit × label): a tree costs units × (a + b × labels) on one core. Sparse (CSR) features: measured at
983 labels (10,737 × 500 rows, 2.7 s a tree); the 159-label bibtex shape takes 0.6 of it, enron 1.5×
(0.02 s a tree), medical 0.5. Dense features (every value a candidate threshold, a sort per feature): measured on the
44k-row mediamill shape (29,000 × 120 × 101, 1.7 s a tree) and emotions; scene and yeast take 0.6–0.8
of it (benchmarks/RESULTS.md, "RF-PCT in compact storage")."""


def forest_bytes_estimate(n_samples, n_outputs, *, n_estimators, min_samples_leaf=1, max_depth=None,
                          n_forests=1, bootstrap=False, max_leaves=None, label_entries=None):
    """Upper estimate of the memory of fitted scikit-learn forests.

    A tree grown on ``m`` distinct rows with leaves of at least
    ``min_samples_leaf`` rows has at most ``m / min_samples_leaf`` leaves (and
    at most ``2^max_depth``), so at most ``2 * leaves - 1`` nodes; each node
    stores a 64-byte struct and a value array of ``n_outputs × 2`` doubles.
    Without bootstrap m = n; a bootstrap sample holds 1 - (1 - 1/n)^n ≈ 63.2 %
    distinct rows (copies of one row cannot be split apart), counted here as
    64 %. On enron (1,123 rows, 53 labels, 20 trees) the fitted RF-PCT used
    0.86 of this estimate with ``min_samples_leaf=1``.

    Parameters
    ----------
    n_samples, n_outputs : int
    n_estimators, min_samples_leaf : int
    max_depth : int or None
    n_forests : int
        Number of forests (one per label for RF-BR).
    bootstrap : bool
        Trees grown on bootstrap samples (RandomForestClassifier's default).
    max_leaves : float or None
        A further cap on the leaves of one tree (RF-BR's empirical one, see
        :class:`~mlviz.models.forest.RandomForestBR`).
    label_entries : float or None
        The compact storage of :class:`~mlviz.models.forest.RandomForestML`: instead of the value
        arrays, each node keeps 16 bytes (an empty value and a row pointer) and
        each tree at most ``label_entries`` non-zero leaf frequencies of 12 bytes
        (its leaves' labels; at most the non-zeros of Y, see ``RandomForestML``).

    Returns
    -------
    nbytes : float
    """
    distinct = 0.64 * n_samples if bootstrap else float(n_samples)
    leaves = max(1.0, distinct / float(min_samples_leaf))
    if max_depth is not None:
        leaves = min(leaves, 2.0 ** int(max_depth))
    if max_leaves is not None:
        leaves = min(leaves, max(1.0, float(max_leaves)))
    nodes = 2.0 * leaves - 1.0
    if label_entries is not None:
        per_tree = nodes * (_NODE_BYTES + 16.0) + 12.0 * min(float(label_entries), leaves * n_outputs)
        return float(n_forests) * n_estimators * per_tree
    return float(n_forests) * n_estimators * nodes * (_NODE_BYTES + 16.0 * n_outputs)


def _features_tried(max_features, n_features):
    """scikit-learn's number of features tried at a split for ``max_features``."""
    if max_features == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if max_features == "log2":
        return max(1, int(np.log2(n_features)))
    if max_features is None:
        return n_features
    if isinstance(max_features, Integral):
        return int(max_features)
    return max(1, int(float(max_features) * n_features))


def forest_seconds_estimate(n_samples, n_features, n_outputs, *, n_estimators, max_features="sqrt",
                            bootstrap=False, sparse=False):
    """Estimate of the CPU seconds (one core) of growing a multi-output forest of scikit-learn trees.

    A split tries ``max_features`` features, each sorting the node's rows and moving them one by
    one through the criterion, whose cost per row is one update per label; summed over a tree's
    levels (about log2 of the rows deep) that is u = rows × log2(rows) × features tried units,
    and a tree costs u × (a + b × labels) seconds, (a, b) measured for sparse and for dense
    features (``_TREE_COST``). A bootstrap tree sees 63.2 % distinct rows.

    Parameters
    ----------
    n_samples, n_features, n_outputs : int
    n_estimators : int
    max_features : as for :class:`~mlviz.models.forest.RandomForestML`
    bootstrap : bool
    sparse : bool
        CSR features (a split of a sparse column is cheaper: zeros are not sorted).

    Returns
    -------
    seconds : float
    """
    rows = max(2.0, (0.632 if bootstrap else 1.0) * n_samples)
    units = rows * np.log2(rows) * _features_tried(max_features, n_features)
    a, b = _TREE_COST["sparse" if sparse else "dense"]
    return float(n_estimators) * units * (a + b * max(1, n_outputs))


def structure_only(tree):
    """A copy of a fitted scikit-learn ``Tree`` with its nodes and an empty value array (for ``apply``)."""
    state = tree.__getstate__()
    state["values"] = np.zeros((state["node_count"], 1, 1))
    out = Tree(tree.n_features, np.ones(1, dtype=np.intp), 1)
    out.__setstate__(state)
    return out


def leaf_frequencies(tree, positive):
    """P(y_l = 1) in each leaf of a fitted multi-output classification ``Tree``, as CSR (node_count, L).

    ``positive[l]`` is the index of class 1 among label l's classes (-1 if label l had no
    positives). The frequencies are those of ``DecisionTreeClassifier.predict_proba``: the
    leaf's (weighted) class fractions normalised over the label's classes; internal nodes
    have empty rows.
    """
    leaves = np.flatnonzero(tree.children_left == -1)
    V = tree.value[leaves]  # (leaves, L, max classes); classes a label lacks are zero
    norm = V.sum(axis=2)
    norm[norm == 0.0] = 1.0
    L = V.shape[1]
    freq = V[:, np.arange(L), np.maximum(positive, 0)] / norm
    freq[:, positive < 0] = 0.0
    rows, cols = np.nonzero(freq)
    return sp.csr_matrix((freq[rows, cols], (leaves[rows], cols)), shape=(tree.node_count, L))


def _weighted_leaf_means(leaf_of_row, weights, Y, n_nodes):
    """CSR (n_nodes, L): the ``weights``-weighted mean of the rows of Y (CSR) reaching each leaf."""
    n = Y.shape[0]
    hit = weights > 0
    W = sp.csr_matrix((weights[hit], (leaf_of_row[hit], np.flatnonzero(hit))), shape=(n_nodes, n))
    total = np.asarray(W.sum(axis=1)).ravel()
    total[total == 0.0] = 1.0
    means = sp.csr_matrix(sp.diags(1.0 / total) @ (W @ Y))
    means.eliminate_zeros()
    return means


def grow_projected(X_fit, X_apply, Y, *, n_trees, n_components, kind, max_features, min_samples_leaf,
                   max_depth, random_state):
    """Grow ``n_trees`` regression trees on random label projections; return their compact storage.

    Parameters
    ----------
    X_fit : ndarray or CSC matrix of float32, shape (n, d)
        Training features as scikit-learn's trees read them for fitting.
    X_apply : ndarray or CSR matrix of float32, shape (n, d)
        The same rows as the trees read them for ``apply``.
    Y : ndarray of {0, 1}, shape (n, L)
    n_trees, n_components : int
        Trees, and the dimension k of each tree's projection ``Y R``.
    kind : {"random", "extra"}
        ``"random"``: best splits, each tree on a bootstrap sample (as weights: the number of
        times a row is drawn); ``"extra"``: random thresholds, every row once.
    max_features, min_samples_leaf, max_depth : as for scikit-learn's trees
    random_state : numpy.random.RandomState
        Draws, per tree, the bootstrap counts, the projection and the tree's seed.

    Returns
    -------
    trees : list of sklearn.tree._tree.Tree
        Structure only (:func:`structure_only`).
    tables : list of scipy.sparse.csr_matrix, shape (node_count, L)
        Each tree's leaves' (bootstrap-weighted) frequencies of the original labels.
    """
    n, L = Y.shape
    Ys = sp.csr_matrix(Y, dtype=np.float64)
    grower = DecisionTreeRegressor if kind == "random" else ExtraTreeRegressor
    trees, tables = [], []
    for _ in range(int(n_trees)):
        if kind == "random":
            weights = np.bincount(random_state.randint(0, n, n), minlength=n).astype(np.float64)
        else:
            weights = np.ones(n)
        R = random_state.choice([-1.0, 1.0], size=(L, int(n_components)))  # (integer Z: module notes)
        tree = grower(max_features=max_features, min_samples_leaf=min_samples_leaf, max_depth=max_depth,
                      random_state=random_state.randint(np.iinfo(np.int32).max))
        tree.fit(X_fit, np.asarray(Ys @ R), sample_weight=weights)
        tables.append(_weighted_leaf_means(tree.apply(X_apply), weights, Ys, tree.tree_.node_count))
        trees.append(structure_only(tree.tree_))
    return trees, tables
