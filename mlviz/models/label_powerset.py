"""Label Powerset: one multi-class problem over the label sets seen in training.

The baseline of the MLRH paper's comparison. It follows the mlviz estimator
contract: ``predict_proba(X)`` is one dense (n_samples, n_labels) array of
P(y_l = 1 | x), the marginals of the predicted label-set distribution.

References
----------
.. [1] G. Tsoumakas, I. Katakis, I. Vlahavas, "Mining multi-label data",
   Data Mining and Knowledge Discovery Handbook, 2010.
"""

import warnings

import numpy as np
from scipy.special import softmax
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from ._base import (
    BaseEstimator,
    MultiLabelClassifierMixin,
    TooLargeError,
    check_param,
    check_X_Y,
)
from ._base_learner import N_COMPONENTS, RBF_GAMMA, _mapped, base_learner_doc, fit_base_features, mean_squared_norm
from ._multinomial import MULTINOMIAL_TOL, MultinomialLR

LP_CS = (0.1, 0.3, 1.0, 3.0, 10.0)
"""Default grid of LabelPowerset's inner choice of C (``C="cv"``), in the units of ``scale_C``."""


def marginal_log_loss(Y, P, eps=1e-15):
    """Mean binary cross-entropy of marginals ``P`` against 0/1 labels ``Y`` (every entry counts once).

    Parameters
    ----------
    Y : ndarray of {0, 1}, shape (n_samples, n_labels)
    P : ndarray, shape (n_samples, n_labels)
        P(y_l = 1 | x), clipped to [eps, 1 - eps] (as ``sklearn.metrics.log_loss``).

    Returns
    -------
    loss : float
    """
    P = np.clip(np.asarray(P, dtype=np.float64), eps, 1.0 - eps)
    Y = np.asarray(Y, dtype=np.float64)
    return float(-np.mean(Y * np.log(P) + (1.0 - Y) * np.log1p(-P)))


@base_learner_doc('the inner CV of ``C="cv"``')
class LabelPowerset(MultiLabelClassifierMixin, BaseEstimator):
    """One multi-class classifier over the label sets observed in training.

    Parameters
    ----------
    estimator : scikit-learn classifier or None
        ``None`` means multinomial (softmax) logistic regression over label
        sets (LP-LR): scikit-learn's ``LogisticRegression(C=C_)`` model and
        objective, fitted by :class:`~mlviz.models._multinomial.MultinomialLR`
        (L-BFGS with float32 products far from the optimum, stopped at max
        |gradient| ≤ 1e-5 of the mean-scaled objective, ten times tighter than
        scikit-learn's lbfgs default), with ``C_``
        from ``C`` and ``scale_C`` below. Without ``predict_proba`` the
        ``decision_function`` is passed through a softmax (uncalibrated).
    C : float > 0 or "cv", default 10.0
        Inverse ℓ2 penalty of the default logistic regression (ignored when
        ``estimator`` is given), in units of 1 / mean ||x||² when ``scale_C``.
        10 by the documented sweep (docs/reproductions.md, "defaults-sweep-extra": C ∈ {0.1,
        0.3, 1, 3, 10} scaled and the old unscaled 1, 3-fold CV on the five
        bundled training splits): C = 3 and 10 were the only values within
        10 % of the best micro-F1 on every set, 10 with the higher mean
        micro-F1 (C = 1, the SVMlight value, lost 17 % on enron).
        ``"cv"``: chosen from ``Cs`` by ``cv``-fold cross-validation on the
        training data, scored by the held-out mean binary cross-entropy of the
        marginals (:func:`marginal_log_loss`, a proper score of what
        ``predict_proba`` returns); ties go to the smaller C; then refitted on
        all training rows. The folds are ``KFold(cv, shuffle=True,
        random_state=random_state)``; in each fold the C path is fitted from the
        smallest C up, warm-started. It costs about cv · len(Cs) · 2/3 fits.
    scale_C : bool, default True
        Use ``C_ = C / mean_i ||x_i||²`` (:func:`mean_squared_norm` of the
        training X), the default of Joachims's SVMlight (C = 1 / avg x·x): the
        penalty then does not depend on the units of the features. Why: the
        same C = 1 is a ~100× weaker penalty on standardised dense features
        (mean ||x||² = number of features: 72 on emotions, 103 on yeast, 294 on
        scene) than on L2-normalised text rows (1), and a multinomial LR with
        one weight vector per label set, most of them rare, overfits when the
        penalty is weak: with the raw C = 1 LP ranked yeast's labels below
        their training frequency (test P@1 0.731 < 0.738), while C = 0.1 fixed
        yeast but cost 0.05–0.33 P@1 on the text sets
        (benchmarks/RESULTS.md, "LP below the frequency bar fixed"). ``False``: ``C_ = C``.
    Cs : sequence of float > 0, default (0.1, 0.3, 1.0, 3.0, 10.0)
        Grid of ``C="cv"`` (scaled like ``C``).
    cv : int >= 2, default 3
        Inner folds of ``C="cv"``.
    max_label_sets : int >= 1 or None, default 200
        Cap on the number of classes. With more distinct training sets than
        this, the ``max_label_sets`` most frequent sets are kept (ties: first
        seen) and every training row whose set was not kept is relabelled as
        the kept set nearest to it in Hamming distance (ties: the more
        frequent set), so no training row is lost. ``None``: no cap. The number
        of relabelled rows is ``n_relabelled_``. 200 by the documented sweep
        (benchmarks/RESULTS.md, "KLR and LP at the bibtex shape": caps 500, 200, 100,
        3-fold CV on the five bundled training splits): 200 binds on enron only (545
        training sets), where it was no worse in inner micro-F1 than 500 (0.500 vs
        0.496); 100 (which also binds on yeast, 164 sets) scored 0.516 on enron but lost
        0.031 held-out micro-F1 at the bibtex shape (1,989 sets), where 200 lost 0.008.
        The multinomial fit's cost grows with the number of classes: at the bibtex shape
        500 took 9× the per-label LR's time, 200 3.5× (2.2× on raw word counts).
    max_coef_bytes : float, default 2e9
        Upper bound on the multinomial coefficient matrix (n_classes ×
        n_features doubles, times 4 for the solver's work arrays); above it
        ``fit`` raises :class:`TooLargeError` before fitting.
    tol : float > 0, default MULTINOMIAL_TOL (1e-5)
        Stopping tolerance of the default multinomial model (max |gradient| of its
        mean-scaled objective; :class:`~mlviz.models._multinomial.MultinomialLR`);
        ignored when ``estimator`` is given. :class:`~mlviz.models.RAkEL` passes 1e-4.
    {base_parameters}
    random_state : int, RandomState or None
        Shuffles the inner folds of ``C="cv"`` and draws the Nyström landmarks of ``base="rbf"``.

    Attributes
    ----------
    label_sets_ : ndarray of uint8, shape (n_sets, n_labels)
        The kept label sets; class c of the estimator is row c.
    set_counts_ : ndarray of int, shape (n_sets,)
        Training rows per kept set after relabelling.
    n_observed_sets_ : int
        Distinct training label sets before the cap.
    n_relabelled_ : int
    estimator_ : fitted classifier (or ``None`` if only one set was kept)
    C_ : float or None
        The C given to the default logistic regression (after ``scale_C``; None
        with a user ``estimator``).
    x_scale_ : float
        mean_i ||x_i||² of the training X (the divisor of ``scale_C``).
    cv_scores_ : ndarray, shape (len(Cs),) or None
        Mean held-out :func:`marginal_log_loss` per candidate of ``Cs`` (``C="cv"`` only).
    decision_rule_ : str

    Notes
    -----
    ``predict_proba`` returns the marginals
    P(y_l = 1 | x) = Σ_{c : label_sets_[c, l] = 1} P(c | x), so its columns
    are consistent with one joint distribution over label sets. ``predict``
    does *not* threshold the marginals: it returns the single most probable
    label set argmax_c P(c | x) (the LP decision rule, which maximises the
    expected exact-match ratio). Label sets not kept cannot be predicted.
    No probability mass is lost to the cap: rows of pruned sets are
    relabelled to kept sets before the fit, so the kept sets' probabilities
    sum to one.
    """

    def __init__(self, estimator=None, *, C=10.0, scale_C=True, Cs=LP_CS, cv=3, max_label_sets=200,
                 max_coef_bytes=2e9, tol=MULTINOMIAL_TOL, base="auto", gamma=RBF_GAMMA, n_components=N_COMPONENTS,
                 random_state=None):
        self.estimator = estimator
        self.tol = tol
        self.C = C
        self.scale_C = scale_C
        self.Cs = Cs
        self.cv = cv
        self.max_label_sets = max_label_sets
        self.max_coef_bytes = max_coef_bytes
        self.base = base
        self.gamma = gamma
        self.n_components = n_components
        self.random_state = random_state

    def _encode(self, Y):
        """Kept label sets and each row's class id (the cap and the relabelling of the class docstring).

        Returns
        -------
        sets : ndarray, shape (n_kept, n_labels)
        ids : ndarray of int, shape (n_samples,)
        n_observed : int
        n_relabelled : int
        """
        sets, first, set_ids, counts = np.unique(Y, axis=0, return_index=True, return_inverse=True,
                                                 return_counts=True)
        set_ids = np.asarray(set_ids).ravel()
        cap = len(sets) if self.max_label_sets is None else int(self.max_label_sets)
        order = np.lexsort((first, -counts))  # most frequent first, ties: first seen
        kept = np.sort(order[:cap])
        remap = np.full(len(sets), -1)
        remap[kept] = np.arange(len(kept))
        dropped = np.flatnonzero(remap < 0)
        if dropped.size:
            # nearest kept set in Hamming distance; ties -> the more frequent kept set
            K = sets[kept].astype(np.float64)
            rank = np.empty(len(kept))
            rank[np.argsort(np.lexsort((first[kept], -counts[kept])))] = np.arange(len(kept))
            for lo in range(0, dropped.size, 1024):
                D = sets[dropped[lo:lo + 1024]].astype(np.float64)
                ham = D.sum(1)[:, None] + K.sum(1)[None, :] - 2.0 * D @ K.T
                remap[dropped[lo:lo + 1024]] = np.lexsort((np.broadcast_to(rank, ham.shape), ham), axis=1)[:, 0]
        return sets[kept], remap[set_ids], len(sets), int(np.isin(set_ids, dropped).sum())

    def _check_params(self):
        check_param(self, "max_label_sets", self.max_label_sets, low=1, allow_none=True)
        check_param(self, "max_coef_bytes", self.max_coef_bytes, low=0.0, low_inclusive=False)
        check_param(self, "tol", self.tol, low=0.0, low_inclusive=False)
        check_param(self, "scale_C", self.scale_C, options=(True, False))
        if not (isinstance(self.C, str) and self.C == "cv"):
            if isinstance(self.C, str):
                raise ValueError(f"The 'C' parameter of LabelPowerset must be 'cv' or a positive number, "
                                 f"got {self.C!r}.")
            check_param(self, "C", self.C, low=0.0, low_inclusive=False)
            return
        check_param(self, "cv", self.cv, low=2)
        try:
            Cs = [float(c) for c in self.Cs]
        except TypeError:
            raise ValueError(f"The 'Cs' parameter of LabelPowerset must be a sequence of positive numbers, "
                             f"got {self.Cs!r}.") from None
        if not Cs:
            raise ValueError("The 'Cs' parameter of LabelPowerset must not be empty.")
        for c in Cs:
            check_param(self, "Cs", c, low=0.0, low_inclusive=False)

    def _choose_C(self, X, Y, unit):
        """Inner CV of ``C="cv"``: the C of ``Cs`` with the least held-out marginal log-loss.

        Parameters
        ----------
        unit : float
            Multiplier of ``Cs`` (1 / mean ||x||² with ``scale_C``, else 1).

        Returns
        -------
        best : float
            The chosen entry of ``Cs`` (unscaled).
        scores : ndarray, shape (len(Cs),)
            Mean held-out :func:`marginal_log_loss`, in the order of ``Cs``.
        """
        from sklearn.model_selection import KFold

        Cs = np.array([float(c) for c in self.Cs])
        n = X.shape[0]
        folds = int(self.cv)
        if n < folds:
            raise ValueError(f"LabelPowerset: C='cv' needs at least cv={folds} training rows, got {n}; "
                             "give a number for C.")
        losses = np.zeros((folds, len(Cs)))
        path = np.argsort(Cs, kind="stable")  # smallest C first: each fit warm-starts the next
        splitter = KFold(folds, shuffle=True, random_state=self.random_state)
        for f, (tr, te) in enumerate(splitter.split(np.zeros((n, 1)))):
            sets, ids, _, _ = self._encode(Y[tr])
            Ks = sets.astype(np.float64)
            if len(sets) == 1:
                losses[f] = marginal_log_loss(Y[te], np.tile(Ks, (len(te), 1)))
                continue
            lr = MultinomialLR(tol=float(self.tol), warm_start=True)
            for j in path:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    lr.set_params(C=float(Cs[j]) * unit).fit(X[tr], ids)
                losses[f, j] = marginal_log_loss(Y[te], lr.predict_proba(X[te]) @ Ks)
        scores = losses.mean(axis=0)
        best = float(Cs[np.lexsort((Cs, np.round(scores, 12)))[0]])  # least loss, ties: smaller C
        return best, scores

    def fit(self, X, Y):
        """Fit the multi-class model on label-set ids.

        Parameters
        ----------
        X : ndarray or csr_matrix, shape (n_samples, n_features)
        Y : ndarray of {0, 1}, shape (n_samples, n_labels)

        Returns
        -------
        self

        Raises
        ------
        TooLargeError
            If the coefficient matrix would exceed ``max_coef_bytes``.
        """
        self._check_params()
        X, Y = check_X_Y(X, Y)
        self.n_features_in_ = X.shape[1]
        self.feature_map_, note = None, ""
        if self.estimator is None:
            self.feature_map_, X, note = fit_base_features(self, X, Y.shape[1])
            note = f"; {note}"
        sets, ids, n_observed, n_relabelled = self._encode(Y)
        self.n_observed_sets_ = n_observed
        need = 4.0 * 8.0 * len(sets) * (X.shape[1] + 1)
        if len(sets) > 1 and self.estimator is None and need > self.max_coef_bytes:
            raise TooLargeError(
                f"LabelPowerset: {len(sets)} label sets × {X.shape[1]} features needs ~{need / 1e9:.1f} GB "
                f"for the multinomial fit (max_coef_bytes={self.max_coef_bytes:.3g}); lower max_label_sets "
                "or use BinaryRelevance.", estimate_bytes=need, alternative="max_label_sets=100")
        self.n_relabelled_ = n_relabelled
        self.label_sets_ = sets.astype(np.uint8)
        self.set_counts_ = np.bincount(ids, minlength=len(sets))
        self.C_, self.cv_scores_ = None, None
        self.x_scale_ = mean_squared_norm(X)
        unit = 1.0 / self.x_scale_ if self.scale_C else 1.0
        how = ""
        if self.estimator is None:
            if isinstance(self.C, str):
                c = 1.0
                if len(sets) > 1:
                    c, self.cv_scores_ = self._choose_C(X, Y, unit)
                    how = f"; C chosen by {int(self.cv)}-fold inner CV"
            else:
                c = float(self.C)
            self.C_ = c * unit
            how = (f"; LR C = {c:g} / mean‖x‖² = {self.C_:.3g}" if self.scale_C else f"; LR C = {self.C_:g}") + how
        if len(self.label_sets_) == 1:
            self.estimator_ = None
        else:
            base = MultinomialLR(C=self.C_, tol=float(self.tol)) if self.estimator is None else self.estimator
            with warnings.catch_warnings():  # many label sets are the rule for LP, not a sign of regression
                warnings.filterwarnings("ignore", message="The number of unique classes is greater than 50%")
                self.estimator_ = clone(base).fit(X, ids)
        self.n_labels_ = Y.shape[1]
        self.decision_rule_ = (f"most probable of the {len(sets)} kept training label sets "
                               f"(argmax of the multi-class probabilities{how}{note})")
        return self

    def predict_set_proba(self, X):
        """P(label set c | x) over the kept sets.

        Returns
        -------
        P_sets : ndarray, shape (n_samples, n_sets); rows sum to 1
        """
        self._check_fitted("label_sets_")
        X = _mapped(self, self._check_predict_X(X))
        n_sets = len(self.label_sets_)
        if self.estimator_ is None:
            return np.ones((X.shape[0], 1))
        est = self.estimator_
        if hasattr(est, "predict_proba"):
            proba = est.predict_proba(X)
        else:
            scores = np.asarray(est.decision_function(X), dtype=np.float64)
            if scores.ndim == 1:  # two sets: score of class 1
                scores = np.column_stack([-scores, scores]) / 2.0
            proba = softmax(scores, axis=1)
        P_sets = np.zeros((X.shape[0], n_sets))
        P_sets[:, np.asarray(est.classes_, dtype=np.int64)] = proba
        return P_sets

    def predict_proba(self, X):
        """Marginals P(y_l = 1 | x) = Σ_{sets ∋ l} P(set | x); shape (n_samples, n_labels)."""
        P = self.predict_set_proba(X) @ self.label_sets_.astype(np.float64)
        return np.clip(P, 0.0, 1.0)

    def predict(self, X):
        """The most probable kept label set; uint8 array, shape (n_samples, n_labels)."""
        P_sets = self.predict_set_proba(X)  # NotFittedError before label_sets_ is touched
        return self.label_sets_[np.argmax(P_sets, axis=1)].copy()
