"""Problem-transformation ensembles: classifier chains, ECC, RAkEL and calibrated label ranking.

The methods MEKA and Mulan users compare against, each with a selectable base
learner (``estimator=None``: logistic regression whose C is given in units of
1 / mean ||x||², as :class:`~mlviz.models.PCC` and
:class:`~mlviz.models.LabelPowerset`; any scikit-learn classifier otherwise).

- :class:`ClassifierChain` (CC): the links of :class:`~mlviz.models.PCC`,
  predicted greedily along the chain;
- :class:`EnsembleClassifierChains` (ECC): chains in random orders on
  bootstrap samples, probabilities averaged;
- :class:`RAkEL` (RAkELo): label powersets on random overlapping k-labelsets,
  votes averaged;
- :class:`CalibratedLabelRanking` (CLR): pairwise preferences plus a virtual
  label separating relevant from irrelevant labels (defined in
  :mod:`mlviz.models.clr`, re-exported here).

References
----------
.. [1] J. Read, B. Pfahringer, G. Holmes, E. Frank, "Classifier chains for
   multi-label classification", Machine Learning 85(3):333-359, 2011.
.. [2] G. Tsoumakas, I. Katakis, I. Vlahavas, "Random k-labelsets for
   multilabel classification", IEEE TKDE 23(7):1079-1089, 2011.
.. [3] J. Fürnkranz, E. Hüllermeier, E. Loza Mencía, K. Brinker, "Multilabel
   classification via calibrated label ranking", Machine Learning
   73(2):133-153, 2008.
"""

import math

import numpy as np
from scipy.special import expit
from sklearn.base import clone

from ._base import BaseEstimator, MultiLabelClassifierMixin, check_param, check_X_Y, empty_set_param
from ._base_learner import N_COMPONENTS, RBF_GAMMA, _mapped, _positive_scores, base_learner_doc, fit_base_features
from ._warm_links import WarmLinks
from .clr import CalibratedLabelRanking
from .label_powerset import LabelPowerset
from .pcc import PCC

__all__ = ["ClassifierChain", "EnsembleClassifierChains", "RAkEL", "CalibratedLabelRanking", "CC_C", "RAKEL_TOL"]

RAKEL_TOL = 1e-4
"""Stopping tolerance of RAkEL's default multinomial models (max |∂F/∂θ| of the mean-scaled objective).

scikit-learn's lbfgs default; LabelPowerset alone stops at 1e-5 (``MULTINOMIAL_TOL``). RAkEL averages
2L small multinomials into votes, and the tighter stop doubled its fit for no measurable gain: at
the bibtex shape 22.1 s vs 13.6 s CPU, held-out micro-F1 0.5046 vs 0.5035; on the four standard
splits test micro-F1 within 0.003 either way (benchmarks/RESULTS.md, "RAkEL's stopping tolerance")."""

CC_C = 10.0
"""Default C of the chains' logistic-regression links, in units of 1 / mean ||x||² (``scale_C``).

Chosen by 3-fold inner cross-validation on the four standard training halves
(``benchmarks/tune_ensembles.py``; benchmarks/RESULTS.md, "strong baselines
(issue 27)"): over C in {1, 3, 10, 30, 100}, C = 10 had the best mean micro-F1
of greedy CC (0.618; C = 30, PCC's default for marginals, 0.612; C = 1 0.585)
and stayed within 2.6 % of the best C on every set.
"""


def _label_scale_note(label_scale):
    """The ``decision_rule_`` words for ``label_scale`` (none for Read et al.'s 1)."""
    return "" if float(label_scale) == 1.0 else f", earlier labels × {float(label_scale):g}"


@empty_set_param
@base_learner_doc('all links (link j: on [φ(x), earlier labels])')
class ClassifierChain(PCC):
    """Classifier chain with greedy inference (CC; Read et al. 2011, §4).

    Link j is a binary classifier for label ``order_[j]`` trained on the
    features augmented with the true 0/1 values of the labels before it in
    the chain -- the same links as :class:`~mlviz.models.PCC`, whose ``fit``
    this class reuses. At prediction time each label is predicted in turn,
    ``ŷ_{π_j} = [p_j >= t]`` (t = ``threshold``, 0.5 in the paper) with
    ``p_j = P(y_{π_j} = 1 | x, ŷ_{π_1}, ..., ŷ_{π_{j-1}})``, and the 0/1
    prediction (not the true value) is fed to the next link.

    Parameters
    ----------
    estimator : scikit-learn binary classifier or None, default None
        Link classifier; ``None``: ``LogisticRegression(C=C_, max_iter=1000)``.
        Without ``predict_proba``, ``sigmoid(decision_function)`` is used.
    order : None, "random" or sequence of int, default None
        Chain order: column order, a permutation drawn from ``random_state``,
        or a given permutation of 0..n_labels-1.
    C : float > 0, default CC_C (10)
        C of the default links in units of 1 / mean ||x||² when ``scale_C``
        (:data:`CC_C`: chosen by inner CV on the training halves).
    scale_C : bool, default True
    threshold : float in [0, 1], default 0.5
        Each link predicts ``ŷ = [p_j >= threshold]``, fed to the next link;
        ``predict`` is ``predict_proba >= threshold``, the same greedy path
        (Read et al. use 0.5).
    label_scale : float > 0, default 1.0
        The earlier labels enter each link multiplied by this factor, so with
        the links' L2 penalty their weights are penalised ``1 / label_scale²``
        times as strongly as a feature's of the same size (1: Read et al.'s
        chain, the labels appended as they are). The method registry's CC uses
        0.1: in 3-fold inner cross-validation on five training halves it beat
        1 on four of them (benchmarks/RESULTS.md, "CC: how strongly the chain
        leans on earlier labels").
    {base_parameters}
    random_state : int, Generator or None
        Draws ``order="random"`` and the Nyström landmarks of ``base="rbf"``.
    {empty_set_parameter}

    Attributes
    ----------
    order_ : ndarray of int, shape (n_labels,)
    estimators_ : list, length n_labels
        Link j (label ``order_[j]``): a fitted classifier, or a float 0.0/1.0
        for a label constant in training.
    C_, x_scale_ : float
    decision_rule_ : str

    Notes
    -----
    ``predict_proba[:, l]`` is the conditional probability of label l given x
    *and the greedy predictions of the labels before it in the chain*, not a
    marginal P(y_l = 1 | x) (for marginals use :class:`~mlviz.models.PCC`).
    ``predict`` is ``predict_proba >= threshold``, which is exactly the greedy path.
    ``joint_proba`` (inherited from PCC) gives the joint distribution of the
    same links over all 2^L label vectors.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> ClassifierChain().fit(X, Y).predict(X).shape
    (40, 2)
    """

    # PCC.fit validates these; greedy inference uses neither.
    n_samples = 1
    inference = "exact"

    def __init__(self, *, estimator=None, order=None, C=CC_C, scale_C=True, threshold=0.5, label_scale=1.0,
                 base="auto", gamma=RBF_GAMMA, n_components=N_COMPONENTS, random_state=None, empty_set=True):
        self.estimator = estimator
        self.threshold = threshold
        self.label_scale = label_scale
        self.order = order
        self.C = C
        self.scale_C = scale_C
        self.base = base
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state
        self.empty_set = empty_set

    def _fit_features(self, X, n_labels):
        """The base feature map (:func:`~mlviz.models._base_learner.fit_base_features`); none with ``estimator``.

        Returns
        -------
        feature_map : Nystroem or None
        X : the links' input features (before the label prefix is appended)
        note : str
        """
        if self.estimator is not None:
            return None, X, ""
        fmap, Xf, note = fit_base_features(self, X, n_labels)
        return fmap, Xf, f"; {note}"

    def fit(self, X, Y, link_init=None):
        """Fit one link per label along the chain (:meth:`PCC.fit`).

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
        Y : array-like, shape (n_samples, n_labels), 0/1
        link_init : WarmLinks or None
            Warm starts of the default links (:class:`~mlviz.models._warm_links.WarmLinks`,
            as :class:`EnsembleClassifierChains` passes them); same optima.

        Returns
        -------
        self
        """
        check_param(self, "threshold", self.threshold, low=0.0, high=1.0)
        check_param(self, "label_scale", self.label_scale, low=0.0, low_inclusive=False)
        super().fit(X, Y, link_init=link_init)
        scale = _label_scale_note(self.label_scale)
        self.decision_rule_ = (f"threshold {float(self.threshold):g} on each link, predictions fed down the chain "
                               "(greedy CC)" + scale + self.base_note_)
        self._fit_empty_set(Y)
        return self

    def predict_proba(self, X):
        """The links' probabilities along the greedy path.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
            ``P[i, order_[j]] = P(y_{order_[j]} = 1 | x_i, ŷ_i of order_[:j])``.
        """
        self._check_fitted(["estimators_"])
        X = self._link_features(X)
        n, L = X.shape[0], len(self.estimators_)
        base = self._linear_parts(X)  # logistic-regression links: X w_x + b once, then w_y · ŷ
        path = np.zeros((n, L))
        chain = np.empty((n, L))
        for j, est in enumerate(self.estimators_):
            if isinstance(est, float):
                p = np.full(n, est)
            elif base[j] is not None:
                p = expit(base[j][0] + path[:, :j] @ base[j][1])
            else:
                p = _positive_scores(est, self._augment(X, path[:, :j]))
            chain[:, j] = p
            path[:, j] = p >= self.threshold
        P = np.empty_like(chain)
        P[:, self.order_] = chain
        return np.clip(P, 0.0, 1.0)


@empty_set_param
@base_learner_doc('all chains, each chain linear on it')
class EnsembleClassifierChains(MultiLabelClassifierMixin, BaseEstimator):
    """Ensemble of classifier chains (ECC; Read et al. 2011, §4.3).

    Chain m is a :class:`ClassifierChain` with its own random order, trained
    on its own sample of the training rows; the ensemble averages the chains'
    ``predict_proba`` (``voting="soft"``) or their 0/1 predictions
    (``voting="hard"``, Read et al.'s vote count divided by the number of
    chains) and thresholds the average.

    Parameters
    ----------
    estimator : classifier or None, default None
        Link classifier of every chain (as :class:`ClassifierChain`).
    n_chains : int >= 1, default 10
        Number of chains (Read et al. use 10).
    bootstrap : bool, default False
        Draw each chain's rows with replacement (bagging); ``False``: a
        random subset without replacement (all rows when ``max_samples=1``).
    max_samples : float in (0, 1], default 0.67
        Rows per chain as a fraction of the training rows. The default is
        MEKA's ECC (67 % of the rows, no replacement): in the inner CV below
        it had mean micro-F1 0.659 at t = 0.35, bagging all rows 0.655.
    voting : {"soft", "hard"}, default "soft"
    threshold : float in [0, 1], default 0.35
        ``predict`` is ``predict_proba >= threshold``. Why not 0.5: averaging
        chains shrinks the probabilities of the (mostly rare) labels towards
        their frequency, as a forest's votes. In 3-fold inner cross-validation
        on the four standard training halves (``benchmarks/tune_ensembles.py``;
        benchmarks/RESULTS.md, "strong baselines (issue 27)") mean micro-F1 was
        0.651 / 0.660 / 0.659 / 0.654 / 0.641 / 0.626 at t = 0.25 / 0.3 / 0.35 /
        0.4 / 0.45 / 0.5; 0.3 and 0.35 tie (0.35 is within 0.6 % of the
        best setting on every set, and the forests' threshold).
    C : float > 0, default CC_C (10)
    scale_C : bool, default True
        As :class:`ClassifierChain`; each chain scales by its own sample.
    label_scale : float > 0, default 1.0
        Factor on the earlier labels in every chain's links (as :class:`ClassifierChain`).
    {base_parameters}
    warm_start : bool, default False
        The default links are fitted by :class:`~mlviz.models._warm_links.WarmLinks`
        (``LogisticRegression``'s L-BFGS, one matrix per chain). ``True``: each link
        starts at the last solution for its label instead of at 0 -- same objective
        and stopping rule, half the iterations at the bibtex shape, but that rule
        (gradient ≤ 1e-4) is loose here and a warm link stops elsewhere within it
        (a rare label may keep the previous chain's solution); micro-F1 on the
        standard splits moved by up to 0.002 (benchmarks/RESULTS.md, "ECC and RAkEL
        at the bibtex shape").
    random_state : int, Generator or None
        Seeds the orders and the samples (``numpy.random.default_rng``): chain
        m's order is drawn first, then its rows; also the Nyström landmarks.
    {empty_set_parameter}

    Attributes
    ----------
    chains_ : list of ClassifierChain
    samples_ : list of ndarray of int
        Training rows of each chain.
    decision_rule_ : str

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> EnsembleClassifierChains(n_chains=3, random_state=0).fit(X, Y).predict_proba(X).shape
    (40, 2)
    """

    def __init__(self, *, estimator=None, n_chains=10, bootstrap=False, max_samples=0.67, voting="soft",
                 threshold=0.35, C=CC_C, scale_C=True, label_scale=1.0, base="auto", gamma=RBF_GAMMA,
                 n_components=N_COMPONENTS, warm_start=False, random_state=None, empty_set=True):
        self.label_scale = label_scale
        self.warm_start = warm_start
        self.base = base
        self.gamma = gamma
        self.n_components = n_components
        self.estimator = estimator
        self.n_chains = n_chains
        self.bootstrap = bootstrap
        self.max_samples = max_samples
        self.voting = voting
        self.threshold = threshold
        self.C = C
        self.scale_C = scale_C
        self.random_state = random_state
        self.empty_set = empty_set

    def fit(self, X, Y):
        """Fit ``n_chains`` chains.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
        Y : array-like, shape (n_samples, n_labels), 0/1

        Returns
        -------
        self
        """
        check_param(self, "n_chains", self.n_chains, low=1)
        check_param(self, "bootstrap", self.bootstrap, options=(True, False))
        check_param(self, "max_samples", self.max_samples, low=0.0, high=1.0, low_inclusive=False)
        check_param(self, "voting", self.voting, options=("soft", "hard"))
        check_param(self, "threshold", self.threshold, low=0.0, high=1.0)
        check_param(self, "label_scale", self.label_scale, low=0.0, low_inclusive=False)
        check_param(self, "warm_start", self.warm_start, options=(True, False))
        X, Y = check_X_Y(X, Y)
        n, L = Y.shape
        self.n_features_in_ = X.shape[1]
        self.feature_map_, note = None, ""
        if self.estimator is None:  # one map for all chains; the chains are linear on it
            self.feature_map_, X, note = fit_base_features(self, X, L)
            note = f"; {note}"
        rng = np.random.default_rng(self.random_state)
        m = max(1, round(float(self.max_samples) * n))
        self.chains_, self.samples_ = [], []
        link_init = WarmLinks(X.shape[1], L, warm=self.warm_start) if self.estimator is None else None
        for _ in range(int(self.n_chains)):
            order = rng.permutation(L)
            rows = rng.integers(0, n, size=m) if self.bootstrap else np.sort(rng.permutation(n)[:m])
            cc = ClassifierChain(estimator=self.estimator, order=order, C=self.C, scale_C=self.scale_C,
                                 label_scale=self.label_scale, base="lr")
            self.chains_.append(cc.fit(X[rows], Y[rows], link_init=link_init))
            self.samples_.append(rows)
        self.n_labels_ = L
        what = "mean link probability" if self.voting == "soft" else "vote share"
        scale = _label_scale_note(self.label_scale)
        self.decision_rule_ = (f"threshold {float(self.threshold):g} on the {what} of {int(self.n_chains)} "
                               f"greedy chains{scale}{note}")
        self._fit_empty_set(Y)
        return self

    def predict_proba(self, X):
        """Mean over chains of their probabilities (soft) or 0/1 predictions (hard).

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
        """
        self._check_fitted("chains_")
        X = _mapped(self, self._check_predict_X(X))
        P = np.zeros((X.shape[0], self.n_labels_))
        for cc in self.chains_:
            p = cc.predict_proba(X)
            P += p if self.voting == "soft" else (p >= 0.5)
        return P / len(self.chains_)


def draw_labelsets(n_labels, k, n_models, rng):
    """Distinct random k-labelsets (RAkELo), then a singleton for every label left uncovered.

    Parameters
    ----------
    n_labels, k, n_models : int
    rng : numpy Generator

    Returns
    -------
    labelsets : list of tuple of int
        ``n_models`` distinct sorted k-subsets of 0..n_labels-1 drawn uniformly
        (all C(n_labels, k) of them, in random order, when there are no more
        than ``n_models``), followed by ``(l,)`` for each label in none of them.
    """
    k = min(int(k), n_labels)
    total = math.comb(n_labels, k)
    if n_models >= total:
        from itertools import combinations

        sets = list(combinations(range(n_labels), k))
        sets = [sets[i] for i in rng.permutation(len(sets))]
    else:
        seen, sets = set(), []
        while len(sets) < n_models:
            s = tuple(sorted(int(v) for v in rng.choice(n_labels, size=k, replace=False)))
            if s not in seen:
                seen.add(s)
                sets.append(s)
    covered = np.zeros(n_labels, dtype=bool)
    for s in sets:
        covered[list(s)] = True
    return sets + [(l,) for l in np.flatnonzero(~covered).tolist()]


@empty_set_param
@base_learner_doc('all label powersets, each linear on it')
class RAkEL(MultiLabelClassifierMixin, BaseEstimator):
    """Random k-labelsets, overlapping (RAkELo; Tsoumakas et al. 2011, §4).

    ``n_models`` distinct labelsets of size ``k`` are drawn at random; on each a
    :class:`~mlviz.models.LabelPowerset` is trained. For label l,
    ``predict_proba[:, l]`` is the mean over the models whose labelset holds l
    of their vote for l: the 0/1 bit of the label set they predict
    (``voting="hard"``, the paper) or their marginal P(y_l = 1 | x)
    (``voting="soft"``). ``predict`` is ``predict_proba >= threshold`` (0.5 in
    the paper; Mulan's implementation also uses ``>=``, so a tie of votes
    counts as relevant). A label in no drawn labelset (possible when
    n_models · k is small against n_labels) gets a single-label model of its
    own, where Mulan would predict 0.

    Parameters
    ----------
    estimator : classifier or None, default None
        Multi-class classifier of each label powerset (as
        :class:`~mlviz.models.LabelPowerset`; ``None``: multinomial logistic
        regression with ``C`` scaled by ``scale_C``).
    k : int >= 1, default 3
        Labelset size (the paper's recommendation).
    n_models : int >= 1 or None, default None
        Number of labelsets; ``None``: 2 · n_labels (the paper's
        recommendation for k = 3), capped at C(n_labels, k).
    voting : {"hard", "soft"}, default "hard"
    threshold : float in [0, 1], default 0.5
    C : float > 0, default 10.0
        C of the default multinomial logistic regression (LabelPowerset's default), fitted by
        :class:`~mlviz.models._multinomial.MultinomialLR` to max |gradient| ≤ ``RAKEL_TOL`` (1e-4).
    scale_C : bool, default True
    {base_parameters}
    random_state : int, Generator or None
        Draws the labelsets (``numpy.random.default_rng``) and the Nyström landmarks.
    {empty_set_parameter}

    Attributes
    ----------
    labelsets_ : list of tuple of int
        See :func:`draw_labelsets`.
    models_ : list of LabelPowerset
    decision_rule_ : str

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3)); Y = (X > 0).astype(int)
    >>> RAkEL(k=2, random_state=0).fit(X, Y).predict_proba(X).shape
    (40, 3)
    """

    def __init__(self, *, estimator=None, k=3, n_models=None, voting="hard", threshold=0.5, C=10.0,
                 scale_C=True, base="auto", gamma=RBF_GAMMA, n_components=N_COMPONENTS, random_state=None,
                 empty_set=True):
        self.base = base
        self.gamma = gamma
        self.n_components = n_components
        self.estimator = estimator
        self.k = k
        self.n_models = n_models
        self.voting = voting
        self.threshold = threshold
        self.C = C
        self.scale_C = scale_C
        self.random_state = random_state
        self.empty_set = empty_set

    def fit(self, X, Y):
        """Draw the labelsets and fit one label powerset on each.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
        Y : array-like, shape (n_samples, n_labels), 0/1

        Returns
        -------
        self
        """
        check_param(self, "k", self.k, low=1)
        check_param(self, "n_models", self.n_models, low=1, allow_none=True)
        check_param(self, "voting", self.voting, options=("hard", "soft"))
        check_param(self, "threshold", self.threshold, low=0.0, high=1.0)
        check_param(self, "C", self.C, low=0.0, low_inclusive=False)
        X, Y = check_X_Y(X, Y)
        L = Y.shape[1]
        self.n_features_in_ = X.shape[1]
        self.feature_map_, note = None, ""
        if self.estimator is None:  # one map for all label powersets; each is linear on it
            self.feature_map_, X, note = fit_base_features(self, X, L)
            note = f"; {note}"
        m = 2 * L if self.n_models is None else int(self.n_models)
        self.labelsets_ = draw_labelsets(L, int(self.k), m, np.random.default_rng(self.random_state))
        lp = LabelPowerset(estimator=self.estimator, C=self.C, scale_C=self.scale_C, max_label_sets=None, base="lr",
                           tol=RAKEL_TOL)
        self.models_ = [clone(lp).fit(X, Y[:, list(s)]) for s in self.labelsets_]
        self.n_labels_ = L
        what = "share of label-powerset votes" if self.voting == "hard" else "mean label-powerset marginal"
        self.decision_rule_ = (f"threshold {float(self.threshold):g} on the {what} over "
                               f"{len(self.labelsets_)} random {min(int(self.k), L)}-labelsets (RAkELo){note}")
        self._fit_empty_set(Y)
        return self

    def predict_proba(self, X):
        """Average vote of the labelsets containing each label.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_labels)

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
        """
        self._check_fitted("models_")
        X = _mapped(self, self._check_predict_X(X))
        votes = np.zeros((X.shape[0], self.n_labels_))
        counts = np.zeros(self.n_labels_)
        for s, lp in zip(self.labelsets_, self.models_):
            idx = list(s)
            votes[:, idx] += lp.predict(X) if self.voting == "hard" else lp.predict_proba(X)
            counts[idx] += 1
        return np.clip(votes / counts, 0.0, 1.0)
