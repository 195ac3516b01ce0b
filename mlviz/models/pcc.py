"""Probabilistic classifier chain (PCC), the baseline (2) of Guo & Xue (2013).

The joint distribution is factorised along a chain order ``pi``:

.. math:: p(y \\mid x) = \\prod_j p(y_{\\pi_j} \\mid x, y_{\\pi_1}, \\dots, y_{\\pi_{j-1}}),

each factor being a probabilistic binary classifier (logistic regression by
default) trained on the features augmented with the 0/1 values of the
previous labels in the chain. Marginals ``P(y_k = 1 | x)`` are computed
exactly by enumerating all ``2^L`` label vectors (small L) or estimated by
ancestral sampling.

References
----------
K. Dembczynski, W. Cheng, E. Huellermeier, "Bayes optimal multilabel
classification via probabilistic classifier chains", ICML 2010.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from ._base import BaseEstimator, MultiLabelClassifierMixin, TooLargeError, check_param, check_X_Y, empty_set_param
from ._base_learner import mean_squared_norm
from ._cdn_inference import _inference_seed

__all__ = ["PCC", "TooLargeError"]

PCC_C = 30.0
"""Default C of PCC's links, in units of 1 / mean ||x||² (``scale_C``)."""

_EXACT_MAX_LABELS = 12
#: largest number of multiply-adds ancestral sampling may take in one predict_proba call
#: (n * n_samples * L^2 / 2 with logistic-regression links; ~10^11 is a few minutes)
_SAMPLING_MAX_WORK = 1e11


@empty_set_param
class PCC(MultiLabelClassifierMixin, BaseEstimator):
    """Probabilistic classifier chain with marginals by enumeration or sampling.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``, default None
        Link classifier, cloned for each label; ``None`` means
        ``LogisticRegression(C=C_, max_iter=1000)`` with ``C_`` from ``C`` and
        ``scale_C``. Logistic-regression links use a vectorised fast path at
        prediction time.
    order : None, "random" or sequence of int, default None
        Chain order (a permutation of the label indices). ``None`` keeps
        the column order; ``"random"`` draws one from ``random_state``.
    n_samples : int >= 1, default 500
        Ancestral samples per instance (``inference="sampling"``).
    inference : {"auto", "exact", "sampling"}, default "auto"
        ``"exact"`` enumerates the ``2^L`` label vectors (L <= 12 only);
        ``"auto"`` uses exact enumeration when ``L <= 10``, else sampling.
    C : float > 0, default PCC_C
        Inverse ℓ2 penalty of the default links (ignored when ``estimator``
        is given), in units of 1 / mean ||x||² when ``scale_C``.
    scale_C : bool, default True
        ``C_ = C / mean_i ||x_i||²`` (:func:`~mlviz.models._base_learner.mean_squared_norm`
        of the training X, without the chained label features), as
        :class:`~mlviz.models.LabelPowerset`: the same penalty whatever the
        units of the features. Why: in the documented sweep
        (docs/reproductions.md, "defaults-sweep-extra"; 3-fold CV on the five
        bundled training splits) no raw C served both kinds of data — raw
        C = 0.1 was best on the standardised dense sets (mean ||x||² 72–294)
        and lost 80 % micro-F1 on medical (L2-normalised text, mean ||x||² = 1),
        raw C = 1 lost 21 % there, raw C = 10 cost 4–5 % on the dense sets.
        Scaled, C ∈ {1, 3, 10, 30}: C = 30 had the best mean rank and is
        within 2 % of the best micro-F1 on every set (C = 10: 2.4 %, with
        slightly better P@1 and Hamming loss; C = 30 is the grid's end).
        ``False``: ``C_ = C`` (the old default was raw C = 1).
    random_state : int, numpy Generator or None
        Seeds the random order and the sampler. ``fit`` fixes the sampler's
        seed (``inference_seed_``), and each ``predict_proba`` restarts from
        it, so ``predict`` equals ``predict_proba(X) >= 0.5`` for a fitted
        model even with ``random_state=None``.
    {empty_set_parameter}

    Attributes
    ----------
    order_ : ndarray of int, shape (n_labels,)
        Chain order used.
    estimators_ : list, length n_labels
        Link ``j`` (predicting label ``order_[j]``): a fitted classifier, or
        a float (0.0 or 1.0) when that label is constant in training.
    inference_seed_ : int
    C_ : float or None
        C of the default links (None with a user ``estimator``).
    x_scale_ : float
        mean_i ||x_i||² of the training X.
    decision_rule_ : str
        "threshold 0.5 on the chain's marginals (exact | sampled)".

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(40, 3)); Y = (X[:, :2] > 0).astype(int)
    >>> PCC(random_state=0).fit(X, Y).predict_proba(X).shape
    (40, 2)
    """

    def __init__(self, estimator=None, *, order=None, n_samples=500, inference="auto", random_state=None,
                 C=PCC_C, scale_C=True, empty_set=True):
        self.estimator = estimator
        self.C = C
        self.scale_C = scale_C
        self.order = order
        self.n_samples = n_samples
        self.inference = inference
        self.random_state = random_state
        self.empty_set = empty_set

    def fit(self, X, Y, link_init=None):
        """Fit one link per label along the chain.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
        Y : array-like, shape (n_samples, n_labels), 0/1
        link_init : WarmLinks or None
            Fits the default logistic-regression links from warm starts
            (:class:`~mlviz.models._warm_links.WarmLinks`; ignored with a user
            ``estimator``): each link's optimisation problem and stopping rule
            are the same, only the L-BFGS start moves.

        Returns
        -------
        self
        """
        check_param(self, "n_samples", self.n_samples, low=1)
        check_param(self, "inference", self.inference, options=("auto", "exact", "sampling"))
        check_param(self, "C", self.C, low=0.0, low_inclusive=False)
        check_param(self, "scale_C", self.scale_C, options=(True, False))
        X, Y = check_X_Y(X, Y)
        L = Y.shape[1]
        if self.order is None:
            order = np.arange(L)
        elif isinstance(self.order, str) and self.order == "random":
            order = np.random.default_rng(self.random_state).permutation(L)
        else:
            order = np.asarray(self.order, dtype=int)
            if sorted(order.tolist()) != list(range(L)):
                raise ValueError(f"The 'order' parameter of {type(self).__name__} must be a permutation of "
                                 f"0..{L - 1}, "
                                 f"got {self.order!r}.")
        self.n_features_in_ = X.shape[1]
        self.feature_map_, X, self.base_note_ = self._fit_features(X, L)
        self.x_scale_ = mean_squared_norm(X)
        self.C_ = None if self.estimator is not None else float(self.C) / (self.x_scale_ if self.scale_C else 1.0)
        base = self.estimator if self.estimator is not None else LogisticRegression(C=self.C_, max_iter=1000)
        Yf = Y[:, order].astype(float)
        # (sparse X: the label prefix as CSC columns, sliced per link in O(nnz) instead of converting an
        # n × j dense block per link, which made the chain O(n L²) at hundreds of labels)
        prefixes = sp.csc_matrix(Yf) if sp.issparse(X) else Yf
        if link_init is not None and self.estimator is None:
            self.estimators_ = link_init.fit_chain(X, Y, order, self.C_, float(self.label_scale))
        else:
            self.estimators_ = []
            for j in range(L):
                y = Y[:, order[j]]
                if y.min() == y.max():
                    self.estimators_.append(float(y[0]))
                    continue
                self.estimators_.append(clone(base).fit(self._augment(X, prefixes[:, :j]), y))
        self.order_ = order
        self.inference_seed_ = _inference_seed(self.random_state)
        exact = self.inference == "exact" or (self.inference == "auto" and L <= 10)
        self.decision_rule_ = ("threshold 0.5 on the chain's marginals (" + (
            "exact enumeration of the 2^L label vectors)" if exact else
            f"Rao-Blackwellised ancestral sampling, {int(self.n_samples)} samples)"))
        self._fit_empty_set(Y)
        return self

    def _fit_features(self, X, n_labels):
        """Feature map of the links: none for PCC (linear links); see :class:`~mlviz.models.ClassifierChain`.

        Returns
        -------
        feature_map : None
        X : the input
        note : str
        """
        return None, X, ""

    def _link_features(self, X):
        """Validated prediction X through ``feature_map_`` (the identity without one)."""
        X = self._check_predict_X(X)
        fmap = getattr(self, "feature_map_", None)
        return X if fmap is None else fmap.transform(X)

    #: Factor on the earlier labels appended to each link's features (1: Read et al.'s chain; a
    #: parameter of :class:`~mlviz.models.ClassifierChain`).
    label_scale = 1.0

    def _augment(self, X, prefix):
        """The link's features: X beside ``label_scale`` × the earlier labels ``prefix`` (array or sparse)."""
        scale = float(self.label_scale)
        if sp.issparse(X):
            prefix = sp.csr_matrix(prefix) if sp.issparse(prefix) else sp.csr_matrix(np.asarray(prefix, dtype=float))
            return sp.hstack([X, scale * prefix], format="csr")
        return np.hstack([X, scale * np.asarray(prefix, dtype=float)])

    def _link_proba(self, j, X, base, prefixes):
        """P(y_{order[j]} = 1) for prefixes of shape (m, j) (shared) or (n, m, j).

        Returns an (n, m) array.
        """
        n = X.shape[0]
        m = prefixes.shape[-2]
        est = self.estimators_[j]
        if isinstance(est, float):
            return np.full((n, m), est)
        if base[j] is not None:
            _, wy = base[j]
            return expit(base[j][0][:, None] + prefixes @ wy)
        if prefixes.ndim == 2:
            prefixes = np.broadcast_to(prefixes, (n, m, j))
        rows = np.repeat(np.arange(n), m)
        Xr = X[rows]
        Xa = self._augment(Xr, prefixes.reshape(n * m, j))
        pos = list(est.classes_).index(1)
        return est.predict_proba(Xa)[:, pos].reshape(n, m)

    def _linear_parts(self, X):
        """For logistic-regression links: (X w_x + b, w_y) per link, else None (X: the links' features).

        ``w_y`` acts on the 0/1 earlier labels (``label_scale`` folded in).
        """
        d = X.shape[1]
        parts = []
        for est in self.estimators_:
            if isinstance(est, LogisticRegression) and est.coef_.shape[0] == 1 and list(est.classes_) == [0, 1]:
                w = est.coef_[0]
                parts.append((np.asarray(X @ w[:d]).ravel() + est.intercept_[0], float(self.label_scale) * w[d:]))
            else:
                parts.append(None)
        return parts

    def predict_proba(self, X):
        """Marginals P(y_k = 1 | x) of the chain's joint distribution.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
        """
        self._check_fitted(["estimators_"])
        X = self._link_features(X)
        L = len(self.estimators_)
        method = self.inference
        if method == "auto":
            method = "exact" if L <= 10 else "sampling"
        if method == "exact" and L > _EXACT_MAX_LABELS:
            raise TooLargeError(f"PCC exact inference enumerates 2^L label vectors; L = {L} > "
                                f"{_EXACT_MAX_LABELS}. Use inference='sampling'.")
        work = X.shape[0] * float(self.n_samples) * L * L / 2
        if method == "sampling" and work > _SAMPLING_MAX_WORK:
            raise TooLargeError(
                f"PCC ancestral sampling on {X.shape[0]} instances x {L} labels x {self.n_samples} "
                f"samples needs ~{work:.1e} multiply-adds (> {_SAMPLING_MAX_WORK:.0e}, minutes); "
                "predict in batches of fewer instances or lower n_samples.")
        base = self._linear_parts(X)
        chain = self._exact(X, base) if method == "exact" else self._sampling(X, base)
        P = np.empty_like(chain)
        P[:, self.order_] = chain
        return np.clip(P, 0.0, 1.0)

    def joint_proba(self, X):
        """Exact joint distribution over all 2^L label vectors (small L).

        Returns
        -------
        configs : ndarray of uint8, shape (2^L, L)
            Label vectors (original label order).
        P : ndarray, shape (n_samples, 2^L)
        """
        self._check_fitted(["estimators_"])
        X = self._link_features(X)
        probs, configs = self._enumerate(X, self._linear_parts(X))
        out = np.zeros_like(configs)
        out[:, self.order_] = configs
        return out.astype(np.uint8), probs

    def _enumerate(self, X, base):
        n = X.shape[0]
        probs = np.ones((n, 1))
        configs = np.zeros((1, 0))
        for j in range(len(self.estimators_)):
            p1 = self._link_proba(j, X, base, configs)  # (n, 2^j)
            probs = np.concatenate([probs * (1.0 - p1), probs * p1], axis=1)
            m = configs.shape[0]
            configs = np.vstack([np.hstack([configs, np.zeros((m, 1))]),
                                 np.hstack([configs, np.ones((m, 1))])])
        return probs, configs

    def _exact(self, X, base):
        probs, configs = self._enumerate(X, base)
        return probs @ configs

    def _sampling(self, X, base):
        """Ancestral sampling, Rao-Blackwellised: average of the link probabilities."""
        rng = np.random.default_rng(self.inference_seed_)
        n, L, m = X.shape[0], len(self.estimators_), int(self.n_samples)
        out = np.empty((n, L))
        chunk = max(1, int(2_000_000 // max(1, m * L)))
        for start in range(0, n, chunk):
            sl = slice(start, min(n, start + chunk))
            Xc = X[sl]
            bc = [None if b is None else (b[0][sl], b[1]) for b in base]
            samples = np.zeros((Xc.shape[0], m, L))
            for j in range(L):
                p = self._link_proba(j, Xc, bc, samples[:, :, :j])
                out[sl, j] = p.mean(axis=1)
                samples[:, :, j] = rng.random(p.shape) < p
        return out
