"""Random forests for multi-label data: one forest for all labels (RF-PCT) or one per label (RF-BR).

In the largest published comparison of multi-label methods on the standard
Mulan train/test splits (Bogatinovski et al. 2022, 26 methods), a random forest
of predictive clustering trees (RF-PCT) -- one forest whose trees predict every
label at once -- had the best micro-F1 on emotions, enron and yeast, and a
forest per label (RF-BR, "RFDTBR" there) was close behind.

:class:`RandomForestML` is the scikit-learn counterpart of RF-PCT: a
multi-output :class:`~sklearn.ensemble.RandomForestClassifier` (or
:class:`~sklearn.ensemble.ExtraTreesClassifier` with ``kind="extra"``). Each
split minimises the Gini impurity *summed over the labels* (scikit-learn's
multi-output criterion). For a 0/1 label with frequency p the Gini index
2 p (1 - p) is twice its variance p (1 - p), so this is the variance
heuristic of PCTs except that PCTs divide each label's variance by its
variance on the whole training set (Kocev et al. 2013, §3.1): here a frequent
label weighs more in the choice of a split than a rare one. This difference
and CLUS's other settings are possible reasons why our RF-PCT stays below the
published numbers (benchmarks/RESULTS.md). :class:`RandomForestBR` fits one
single-output forest per label.

Both return P(y_l = 1 | x) as the mean over trees of the leaf's fraction of
positive training rows (scikit-learn's ``predict_proba``), thresholded at
``threshold`` (default 0.35, chosen by inner cross-validation on the training
halves; see :class:`RandomForestML`).

References
----------
.. [1] J. Bogatinovski, L. Todorovski, S. Dzeroski, D. Kocev, "Comprehensive
   comparative study of multi-label classification methods", Expert Systems
   with Applications 203:117215, 2022.
.. [2] D. Kocev, C. Vens, J. Struyf, S. Dzeroski, "Tree ensembles for predicting
   structured outputs", Pattern Recognition 46(3):817-833, 2013 (RF of PCTs).
.. [3] L. Breiman, "Random forests", Machine Learning 45:5-32, 2001.
.. [4] P. Geurts, D. Ernst, L. Wehenkel, "Extremely randomized trees", Machine
   Learning 63:3-42, 2006.
"""

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.utils import check_array, check_random_state

from ._base import (
    MAX_FIT_SECONDS,
    BaseEstimator,
    MultiLabelClassifierMixin,
    TooLargeError,
    check_param,
    check_X_Y,
    empty_set_param,
    fit_per_label,
    proba_per_label,
)
from ._forest_trees import (  # noqa: F401  (the cost model is part of this module's API)
    forest_bytes_estimate,
    forest_seconds_estimate,
    grow_projected,
    leaf_frequencies,
    structure_only,
)

__all__ = ["RandomForestML", "RandomForestBR", "forest_bytes_estimate", "forest_seconds_estimate",
           "FOREST_THRESHOLD", "AUTO_TREES", "AUTO_TREES_SECONDS", "AUTO_PROJECTION"]

_KINDS = {"random": RandomForestClassifier, "extra": ExtraTreesClassifier}
FOREST_THRESHOLD = 0.35
"""Default decision threshold of the forests' vote share (see :class:`RandomForestML`, ``threshold``)."""
_BATCH_BYTES = 2.5e8
"""Bound on the full value arrays :class:`RandomForestML` holds at once while growing trees (upper
estimate): trees are grown in batches this large, then compacted (see its Notes)."""
_MAX_SEED = np.iinfo(np.int32).max
AUTO_TREES = (300, 100)
"""``RandomForestML(n_estimators="auto")``: the first number of trees whose estimated fit is within
``AUTO_TREES_SECONDS``, else the last."""
AUTO_TREES_SECONDS = 10.0
AUTO_PROJECTION = 64
"""``RandomForestML(label_projection="auto")``: trees split on this many random projections of the labels
when there are more than four times as many labels, else on the labels themselves."""


class _ForestBase(MultiLabelClassifierMixin, BaseEstimator):
    """Shared validation, forest factory and memory guard."""

    def __init__(self, *, kind="random", n_estimators=100, max_features="sqrt", min_samples_leaf=1,
                 max_depth=None, threshold=FOREST_THRESHOLD, max_model_bytes=2e9, n_jobs=None, random_state=None,
                 empty_set=True):
        self.kind = kind
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.max_depth = max_depth
        self.threshold = threshold
        self.max_model_bytes = max_model_bytes
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.empty_set = empty_set

    def _check_n_estimators(self):
        check_param(self, "n_estimators", self.n_estimators, low=1)

    def _validate(self, X, Y):
        check_param(self, "kind", self.kind, options=tuple(_KINDS))
        self._check_n_estimators()
        check_param(self, "min_samples_leaf", self.min_samples_leaf, low=1)
        check_param(self, "max_depth", self.max_depth, low=1, allow_none=True)
        check_param(self, "threshold", self.threshold, low=0.0, high=1.0)
        check_param(self, "max_model_bytes", self.max_model_bytes, low=0.0, low_inclusive=False)
        mf = self.max_features
        if not (mf is None or mf in ("sqrt", "log2") or (isinstance(mf, (int, float)) and not isinstance(mf, bool)
                                                         and mf > 0)):
            raise ValueError(f"The 'max_features' parameter of {type(self).__name__} must be 'sqrt', 'log2', "
                             f"None, an int >= 1 or a float in (0, 1], got {mf!r}.")
        X, Y = check_X_Y(X, Y)
        return X, Y

    def _guard(self, nbytes, n, L, trees):
        if nbytes > self.max_model_bytes:
            raise TooLargeError(
                f"{type(self).__name__}: {int(trees)} trees on {n} rows x {L} labels may need "
                f"~{nbytes / 1e9:.1f} GB (upper estimate; max_model_bytes={self.max_model_bytes:.3g}); "
                "raise min_samples_leaf, lower n_estimators or set max_depth.",
                estimate_bytes=nbytes, alternative="min_samples_leaf=5")

    def _make_forest(self, random_state, n_estimators=None):
        trees = self.n_estimators if n_estimators is None else n_estimators
        return _KINDS[self.kind](n_estimators=int(trees), max_features=self.max_features,
                                 min_samples_leaf=int(self.min_samples_leaf), max_depth=self.max_depth,
                                 n_jobs=self.n_jobs, random_state=random_state)

    def _rule(self):
        what = "random forest" if self.kind == "random" else "extra-trees"
        return f"threshold {float(self.threshold):g} on the {what} vote share (mean leaf frequency of the label)"


@empty_set_param
class RandomForestML(_ForestBase):
    """One multi-output forest predicting all labels at once (the RF-PCT family).

    Parameters
    ----------
    kind : {"random", "extra"}, default "random"
        ``"random"``: :class:`~sklearn.ensemble.RandomForestClassifier` (bootstrap
        samples, best split of ``max_features`` features; Breiman 2001).
        ``"extra"``: :class:`~sklearn.ensemble.ExtraTreesClassifier` (whole
        training set, random thresholds; Geurts et al. 2006).
    n_estimators : int >= 1 or "auto", default 100
        Number of trees. ``"auto"``: 300 when :func:`forest_seconds_estimate` puts
        300 trees within ``AUTO_TREES_SECONDS`` (10 s of one core), else 100. In
        3-fold inner CV on the five bundled training halves 300 trees beat 100 on
        every set (micro-F1 +0.003 to +0.009, Hamming loss lower on every set;
        ``benchmarks/sweep_protocol.py --methods rf-pct-trees``, benchmarks/RESULTS.md)
        at 3× the fit time, which large data cannot afford. The method registry
        uses ``"auto"``; the class keeps scikit-learn's 100.
    max_features : {"sqrt", "log2"}, int, float or None, default "sqrt"
        Features tried at each split (scikit-learn's meaning).
    min_samples_leaf : int >= 1, default 1
        Fewest training rows in a leaf.
    max_depth : int >= 1 or None, default None
    threshold : float in [0, 1], default FOREST_THRESHOLD (0.35)
        ``predict`` is ``predict_proba >= threshold``. Why not 0.5: the vote
        share of a forest is shrunk towards the label's frequency (a leaf
        that is pure in one bootstrap sample is mixed in others), so most
        labels, which are rare, seldom reach 0.5. In 3-fold inner
        cross-validation on the four standard training halves (emotions,
        enron, scene, yeast; ``benchmarks/tune_ensembles.py``,
        benchmarks/RESULTS.md "strong baselines (issue 27)") the mean
        micro-F1 over t in {0.25, 0.3, ..., 0.5} peaked at t = 0.35 for both
        forests (RF-PCT 0.673 against 0.603 at 0.5; RF-BR 0.671 against 0.624),
        within 1.4 % (RF-BR 1.3 %) of the best (max_features, t) on every set; ``max_features`` "sqrt",
        "log2" and 0.3 were within 0.003 of each other at their best t. The price is Hamming loss,
        whose Bayes rule on calibrated marginals is t = 0.5; the vote share is not calibrated, and
        the t of least inner Hamming loss was 0.40-0.45 on emotions, enron, scene and yeast and
        0.30-0.35 on medical (benchmarks/RESULTS.md "honest comparisons"). The evaluation reports
        both: ``hamming_loss`` of this rule and ``hamming_loss_p05`` (:mod:`mlviz.metrics`).
    label_projection : None, int >= 1 or "auto", default None
        What a split's impurity is measured on. None: every label (scikit-learn's
        multi-output Gini impurity; the forest equals scikit-learn's). An int k:
        a random projection of the labels to k dimensions, one per tree, under
        the variance criterion (Joly, Geurts & Wehenkel 2014; see
        :mod:`mlviz.models._forest_trees`); the leaves still keep the original
        labels' frequencies. A split then costs k instead of n_labels updates per
        row. ``"auto"``: k = ``AUTO_PROJECTION`` (64) when there are more than
        4k = 256 labels, else None. Measured on held-out rows
        (``benchmarks/forest_projection.py``, benchmarks/RESULTS.md "RF-PCT on
        projected labels"): at 983 labels k = 64 had the exact forest's
        micro-F1 (0.4420 both, 3 seeds) in 1/12 of its time; at 159 labels it
        lost 0.005 (0.4392 against 0.4446) for 1/2.5 of the time, so there the
        exact forest stays. The method registry uses ``"auto"``; the class keeps
        the exact forest.
    max_model_bytes : float, default 2e9
        Bound on the memory of the fit: :func:`forest_bytes_estimate` of the
        compact forest (``label_entries`` = the non-zeros of Y) plus the trees
        grown at once before they are compacted (a batch of at most
        ``_BATCH_BYTES``, or one tree); above it ``fit`` raises
        :class:`~mlviz.models.TooLargeError` before fitting. So does a fit that
        :func:`forest_seconds_estimate` puts beyond ``MAX_FIT_SECONDS`` (300 s of
        one core).
    n_jobs : int or None
        Parallel tree fits (scikit-learn's meaning; results do not depend on it).
    random_state : int, RandomState or None
        Passed to the scikit-learn forest unchanged.
    {empty_set_parameter}

    Attributes
    ----------
    n_estimators_ : int
        Trees grown (``n_estimators``, or what ``"auto"`` chose).
    n_components_ : int or None
        The projection's dimension k each tree split on (None: every label).
    trees_ : list of sklearn.tree._tree.Tree, length n_estimators_
        The fitted trees' structure (``apply`` gives a row's leaf), without value arrays.
    leaf_proba_ : scipy.sparse.csr_matrix, shape (total nodes, n_labels)
        Row ``tree_offsets_[t] + node``: the fraction of positive (bootstrap-weighted)
        training rows of each label in that leaf of tree t; empty for internal nodes.
    tree_offsets_ : ndarray of int, shape (n_estimators_ + 1,)
    n_labels_, n_features_in_ : int
    decision_rule_ : str

    Notes
    -----
    ``predict_proba[:, l]`` equals scikit-learn's ``predict_proba(X)[l][:, 1]`` of the
    same forest (same ``kind``, parameters and an int ``random_state``; mean over
    trees of the fraction of positive training rows in the leaf). A label constant
    in training has one class in scikit-learn, and gets probability exactly 1
    (always present) or 0 (never present).

    **Compact storage.** A scikit-learn multi-output tree keeps ``n_labels × 2``
    doubles at every node (2.5 KB at 159 labels): 1.3 GB for 100 trees on
    4,930 rows × 159 labels. Only the leaves' frequencies are needed, and most are
    zero: a leaf's rows carry few labels, and the leaves of one tree partition its
    (bootstrap) training rows, so a tree has at most as many non-zero leaf
    frequencies as Y has non-zeros. ``fit`` therefore grows the trees in batches
    (scikit-learn's ``warm_start``, which draws the same tree seeds as one fit),
    keeps each tree's structure and its leaves' non-zero frequencies (a sparse
    matrix), and drops the value arrays before growing the next batch.
    ``predict_proba`` sums the rows of the leaves a sample reaches, one sparse
    product.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(60, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> RandomForestML(n_estimators=10, random_state=0).fit(X, Y).predict_proba(X).shape
    (60, 2)
    """

    def __init__(self, *, kind="random", n_estimators=100, max_features="sqrt", min_samples_leaf=1,
                 max_depth=None, threshold=FOREST_THRESHOLD, label_projection=None, max_model_bytes=2e9,
                 n_jobs=None, random_state=None, empty_set=True):
        super().__init__(kind=kind, n_estimators=n_estimators, max_features=max_features,
                         min_samples_leaf=min_samples_leaf, max_depth=max_depth, threshold=threshold,
                         max_model_bytes=max_model_bytes, n_jobs=n_jobs, random_state=random_state,
                         empty_set=empty_set)
        self.label_projection = label_projection

    def _check_n_estimators(self):  # also "auto" (AUTO_TREES)
        if not (isinstance(self.n_estimators, str) and self.n_estimators == "auto"):
            super()._check_n_estimators()

    def _components(self, L):
        """The projection dimension k for L labels, or None (every label)."""
        p = self.label_projection
        if p is None:
            return None
        if isinstance(p, str) and p == "auto":
            return AUTO_PROJECTION if L > 4 * AUTO_PROJECTION else None
        if isinstance(p, bool) or not isinstance(p, Integral) or p < 1:
            raise ValueError(f"The 'label_projection' parameter of {type(self).__name__} must be None, 'auto' or an "
                             f"int >= 1, got {p!r}.")
        return int(p)

    def _grow_exact(self, X, Y, T, batch, seed):
        """scikit-learn's multi-output forest, grown ``batch`` trees at a time and compacted (Notes)."""
        forest = self._make_forest(seed, T).set_params(warm_start=True)
        L = Y.shape[1]
        target = Y if L > 1 else Y[:, 0]
        trees, tables = [], []
        while len(trees) < T:
            forest.set_params(n_estimators=min(T, len(trees) + batch)).fit(X, target)
            classes = forest.classes_ if L > 1 else [forest.classes_]
            positive = np.array([list(c).index(1) if 1 in c else -1 for c in classes])
            for est in forest.estimators_[len(trees):]:
                tables.append(leaf_frequencies(est.tree_, positive))
                trees.append(structure_only(est.tree_))
                est.tree_ = trees[-1]  # frees the value array; warm_start only counts the trees
        return trees, tables

    def fit(self, X, Y):
        """Fit the multi-output forest.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
        Y : array-like, shape (n_samples, n_labels), 0/1

        Returns
        -------
        self

        Raises
        ------
        TooLargeError
            If the memory estimate exceeds ``max_model_bytes`` or :func:`forest_seconds_estimate`
            exceeds ``MAX_FIT_SECONDS``, before any tree is grown.
        """
        X, Y = self._validate(X, Y)
        n, L = Y.shape
        k = self._components(L)
        split_on = L if k is None else k  # the outputs a split updates
        shape = dict(min_samples_leaf=int(self.min_samples_leaf), max_depth=self.max_depth,
                     bootstrap=self.kind == "random")
        cost = dict(max_features=self.max_features, bootstrap=shape["bootstrap"], sparse=sp.issparse(X))
        if isinstance(self.n_estimators, str):  # "auto"
            T = next((t for t in AUTO_TREES if forest_seconds_estimate(n, X.shape[1], split_on, n_estimators=t,
                                                                       **cost) <= AUTO_TREES_SECONDS), AUTO_TREES[-1])
        else:
            T = int(self.n_estimators)
        one_tree = forest_bytes_estimate(n, split_on, n_estimators=1, **shape)
        batch = 1 if k is not None else int(min(T, max(1, _BATCH_BYTES // one_tree)))
        self._guard(forest_bytes_estimate(n, L, n_estimators=T, label_entries=int(np.count_nonzero(Y)), **shape)
                    + batch * one_tree, n, L, T)
        seconds = forest_seconds_estimate(n, X.shape[1], split_on, n_estimators=T, **cost)
        if seconds > MAX_FIT_SECONDS:
            raise TooLargeError(
                f"{type(self).__name__}: {T} trees on {n} rows x {L} labels would take about {seconds:.0f} s "
                f"of one core (estimate; every split updates {split_on} outputs per row); use fewer trees, "
                "label_projection=32, a subsample of the rows, or BR / ML-kNN for many labels.",
                estimate_seconds=seconds, alternative="n_estimators=20")
        seed = self.random_state
        if not isinstance(seed, Integral):  # one seed, so the trees do not depend on the batches
            seed = int(check_random_state(seed).randint(_MAX_SEED))
        X = check_array(X, accept_sparse="csc", dtype=np.float32)  # the trees' input, converted once
        if k is not None:
            trees, tables = grow_projected(
                X, X.tocsr() if sp.issparse(X) else X, Y, n_trees=T, n_components=k, kind=self.kind,
                max_features=self.max_features, min_samples_leaf=int(self.min_samples_leaf),
                max_depth=self.max_depth, random_state=check_random_state(seed))
        else:
            trees, tables = self._grow_exact(X, Y, T, batch, seed)
        self.n_estimators_ = T
        self.n_components_ = k
        self.trees_ = trees
        self.leaf_proba_ = sp.vstack(tables, format="csr")
        self.tree_offsets_ = np.concatenate([[0], np.cumsum([t.node_count for t in trees])])
        self.n_labels_ = L
        self.n_features_in_ = X.shape[1]
        self.decision_rule_ = self._rule() + ("" if k is None else f"; trees split on {k} random projections "
                                                                    "of the labels")
        self._fit_empty_set(Y)
        return self

    def predict_proba(self, X):
        """P(y_l = 1 | x): the trees' mean leaf frequency of each label.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
        """
        self._check_fitted("trees_")
        X = self._check_predict_X(X)
        # the dtype and layout scikit-learn's trees read (its forests' own conversion)
        X = check_array(X, accept_sparse="csr", dtype=np.float32)
        if sp.issparse(X):
            X = sp.csr_matrix((X.data, X.indices.astype(np.intc), X.indptr.astype(np.intc)), shape=X.shape)
        n, T = X.shape[0], len(self.trees_)
        leaves = np.empty((n, T), dtype=np.int64)
        for t, tree in enumerate(self.trees_):
            leaves[:, t] = tree.apply(X) + self.tree_offsets_[t]
        reach = sp.csr_matrix((np.ones(n * T), leaves.ravel(), np.arange(0, n * T + 1, T)),
                              shape=(n, self.leaf_proba_.shape[0]))
        return (reach @ self.leaf_proba_).toarray() / T


@empty_set_param
class RandomForestBR(_ForestBase):
    """One single-output forest per label (RF-BR; "RFDTBR" in Bogatinovski et al. 2022).

    Parameters
    ----------
    kind, n_estimators, max_features, min_samples_leaf, max_depth, threshold, max_model_bytes, n_jobs, \
random_state
        As for :class:`RandomForestML` (``n_estimators`` an integer).
    {empty_set_parameter}

    Attributes
    ----------
    forests_ : list, length n_labels
        Fitted forest of each label, or a float (0.0 or 1.0) for a label
        constant in training (no forest is fitted; its probability is that
        constant, as scikit-learn's would be).
    seeds_ : ndarray of int, shape (n_labels,)
    n_labels_, n_features_in_ : int
    decision_rule_ : str

    Notes
    -----
    ``max_model_bytes`` bounds the sum over the ``n_labels`` forests of :func:`forest_bytes_estimate`
    with at most 8 m + 1 leaves per tree, m = min(#positives, #negatives) of
    the label. That cap is empirical, not a bound: a single-label tree stops
    at pure nodes, and on enron and yeast (10 trees per label) a label's
    trees had on average at most 3.8 (2m + 1) nodes, i.e. about 3.8 m + 2
    leaves; the fitted forests used 7 % (enron) and 14 % (yeast) of the
    estimate without this cap. Forest ``l`` is seeded with
    ``check_random_state(random_state).randint(2**31 - 1, size=n_labels)[l]``
    (drawn for every label, so a label's forest does not depend on which
    other labels are constant).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(60, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> RandomForestBR(n_estimators=10, random_state=0).fit(X, Y).predict_proba(X).shape
    (60, 2)
    """

    def fit(self, X, Y):
        """Fit one forest per non-constant label.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
        Y : array-like, shape (n_samples, n_labels), 0/1

        Returns
        -------
        self

        Raises
        ------
        TooLargeError
            If :func:`forest_bytes_estimate` of the ``n_labels`` forests exceeds ``max_model_bytes``.
        """
        X, Y = self._validate(X, Y)
        n, L = Y.shape
        minority = np.minimum(Y.sum(axis=0, dtype=np.int64), n - Y.sum(axis=0, dtype=np.int64))
        self._guard(sum(forest_bytes_estimate(n, 1, n_estimators=int(self.n_estimators),
                                              min_samples_leaf=int(self.min_samples_leaf), max_depth=self.max_depth,
                                              bootstrap=self.kind == "random", max_leaves=8 * m + 1)
                        for m in minority.tolist() if m > 0), n, L, self.n_estimators)
        self.seeds_ = check_random_state(self.random_state).randint(np.iinfo(np.int32).max, size=L)
        self.forests_ = fit_per_label(lambda l: self._make_forest(int(self.seeds_[l])), X, Y)
        self.n_labels_ = L
        self.n_features_in_ = X.shape[1]
        self.decision_rule_ = self._rule()
        self._fit_empty_set(Y)
        return self

    def predict_proba(self, X):
        """P(y_l = 1 | x) from label l's forest.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
        """
        self._check_fitted("forests_")
        X = self._check_predict_X(X)
        return proba_per_label(self.forests_, X)
