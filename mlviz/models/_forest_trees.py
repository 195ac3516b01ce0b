"""Compact tree storage for :class:`~mlviz.models.forest.RandomForestML`, and its trees grown on a
random projection of the labels.

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

import numpy as np
import scipy.sparse as sp
from sklearn.tree import DecisionTreeRegressor, ExtraTreeRegressor
from sklearn.tree._tree import Tree

__all__ = ["structure_only", "leaf_frequencies", "grow_projected"]


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
