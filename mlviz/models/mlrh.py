"""MLRH: multilabel logistic regression with hidden variables (Lee & Shajari).

Model (eqs. (30)–(31)): for label scores ``s_k(x) = w_kᵀφ(x) + b_k``,

    P(y | x) = exp(Σ_k y_k s_k(x)) / Z(x),     Z(x) = Σ_{m=m₀}^{M} e_m(exp(s(x))),

a distribution over the label sets of size m₀..M.  The paper has m₀ = 1; when
the training data has rows with no label (common in real data: 46 % of one
Mulan set), the empty set ∅ is a label set too (m₀ = 0, e_0 = 1, i.e. Z gains
the term 1), so ∅ is learned and can be predicted (``empty_set="auto"``).  ``Z`` and the marginals
``P(y_k = 1 | x) = ∂ log Z / ∂ s_k`` come from the log-space
elementary-symmetric-polynomial DP in :mod:`mlviz.solvers.esp` (O(K·M) per
instance, never enumerating sets).  φ is the identity (``kernel="linear"``) or
Gaussian kernel features on centres (``kernel="rbf"``, §3.3.2).

Training objective (eq. (33) as a *mean*, plus a ridge term)::

    f(W, b) = (1/n) Σ_i [log Z(x_i) - Σ_k y_ik s_k(x_i)] + reg (‖W‖²_F + ‖b‖²).

The bias is penalised too (with the same ``reg``): this keeps the optimum
finite when a label has no positives (or only positives) in the training
data, e.g. in a CV fold; with standardised features the effect on the other
coefficients is negligible.

Solvers (§4.2, Appendix A.3; :mod:`mlviz.models._mlrh_solvers`)
---------------------------------------------------------------
``solver="mm"`` is the paper's MM iteration as a *joint* update of all labels with
the factor-2 majoriser ``A = Φ̃ᵀΦ̃/(2n) + 2 reg I`` (``Φ̃ = [Φ, 1]``; the paper's
factor 4 is valid only label by label), Nesterov-accelerated with monotone restarts
and a provably safe fallback curvature min(2M, K)/4 (recorded in
``mm_curvature_``), so the accepted objective sequence is non-increasing (the
private switch ``MLRH._mm_accelerate = False`` gives the plain iteration).
``solver="lbfgs"`` runs L-BFGS-B in variables preconditioned by a matrix of the same
form at the labels' mean variance (its Cholesky factor, or a low-rank-plus-ridge
Nyström approximation when that captures it) and is faster still (same optimum; see
``benchmarks/bench_mlrh.py``).  Both start cold fits from the intercept-only optimum.

Sets larger than M (and, with ``empty_set=False``, empty sets) have
probability zero under the model: such training rows are dropped with a
``UserWarning`` (``max_labels=None`` takes M as the largest set size in the
training data, so by default no row is dropped).

References
----------
J. Lee and H. Shajari, "A hidden variables approach to multilabel logistic
regression": eqs. (30)–(33) (model, objective), §3.3.2 (kernels), §3.4 and
Appendix A.2 (WTA and marginal prediction), §4.2 / A.3 (MM).
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from ..solvers.esp import best_subset, esp_marginals
from ._base import BaseEstimator, MultiLabelClassifierMixin, TooLargeError, check_param, check_X_Y
from ._kernels import choose_centers, gaussian_kernel, median_sigma
from ._mlrh_solvers import fit_lbfgs, fit_mm, intercept_start

#: The up-front time estimate (used only there) is ESTIMATE_EVALUATIONS objective evaluations of
#: three measured parts, each constant about twice its value measured on one thread
#: (benchmarks/RESULTS.md, "MLRH's up-front estimate: three measured parts"): the DP, seconds per cell
#: (instance × label × set size; 2.6e-9 on the bibtex shape, 4.4e-9 for a whole evaluation at
#: 983 labels) ...
SECONDS_PER_DP_CELL = 5e-9
#: ... the two products with the features, seconds per multiply-add (nnz × labels; 3.1e-10) ...
SECONDS_PER_PRODUCT = 6e-10
#: ... and the two triangular solves with the D × D factor, seconds per flop (2 D² K; 3.0e-11).
SECONDS_PER_SOLVE_FLOP = 6e-11
#: Objective evaluations assumed by the estimate: with the curvature preconditioner L-BFGS used
#: 17-46 at the app's scaling or on raw bibtex-shaped words, 45 at 983 labels, 144 on raw enron.
ESTIMATE_EVALUATIONS = 150
#: Largest MM/L-BFGS preconditioner (D × D doubles, D = features + 1 or centres + 1).
MAX_GRAM_BYTES = 2e9

__all__ = ["MLRH"]


def _augment(Phi):
    """Append a column of ones (bias); keeps CSR sparse."""
    n = Phi.shape[0]
    if sp.issparse(Phi):
        return sp.hstack([Phi, np.ones((n, 1))], format="csr")
    return np.hstack([Phi, np.ones((n, 1))])


class MLRH(MultiLabelClassifierMixin, BaseEstimator):
    """Multilabel logistic regression with hidden variables (MLRH).

    Parameters
    ----------
    max_labels : int >= 1 or None
        M, the largest label-set size with positive probability; ``None`` takes
        the largest set size seen in the training data (Table 4: 3 on scene and
        emotions).  Training rows with more labels are dropped with a warning.
    empty_set : {"auto", True, False}
        Whether ∅ is a label set (Z over sizes 0..M): ``"auto"`` = iff the
        training data has an empty row; ``False`` is the paper's model (empty
        training rows are dropped with a warning).
    reg : float >= 0
        Ridge weight on all coefficients including the bias (objective above,
        loss averaged over instances).
    kernel : {"linear", "rbf"}
        Identity features or Gaussian kernel features ``exp(-‖x - c‖²/(2σ²))``
        on the centres (§3.3.2; coefficients ``dual_coef_`` penalised by
        ``reg ‖α‖²``).
    sigma : "median" or float > 0
        RBF width; "median" = median pairwise training distance.
    n_centers : int or None
        RBF centres: all training points (None) or this many random ones.
    solver : {"lbfgs", "mm"}, default "lbfgs"
        scipy L-BFGS-B on the objective, preconditioned by a matrix of the MM
        matrix's form at the labels' mean variance (default: fastest; same
        optimum as MM), or the paper's joint
        MM with the factor-2 quadratic majoriser, accelerated with monotone
        restarts (see module docstring).
    prediction : {"wta", "marginal"}
        ``predict`` rule: the most probable label set of size m₀..M
        (winner-take-all, Appendix A.2) or marginals >= ``threshold`` (§3.4.2).
    threshold : float in [0, 1]
        Threshold for ``prediction="marginal"``.
    max_iter : int >= 1
        Maximum MM or L-BFGS iterations.
    tol : float > 0
        Stop when the largest absolute gradient entry is <= tol.
    random_state : int, RandomState or None
        Centre selection and the σ subsample (RBF only).
    time_budget : float > 0, default 900
        Seconds. ``fit`` estimates its time before starting
        (:data:`ESTIMATE_EVALUATIONS` objective evaluations, each the DP's
        n·K·(M + 1) cells × :data:`SECONDS_PER_DP_CELL`, the products with the
        features × :data:`SECONDS_PER_PRODUCT` and the solves ×
        :data:`SECONDS_PER_SOLVE_FLOP`) and its preconditioner
        memory (D² doubles) and raises :class:`TooLargeError` with the
        estimate and an alternative when either is over budget
        (time_budget, 2 GB).

    Attributes
    ----------
    coef_ : ndarray, shape (n_features, n_labels)
        Linear kernel only.
    dual_coef_ : ndarray, shape (n_centers, n_labels)
        RBF kernel only; ``centers_`` (n_centers, n_features) and ``sigma_``.
    intercept_ : ndarray, shape (n_labels,)
    max_labels_ : int
    min_labels_ : int
        m₀: 0 if ∅ is a label set, else 1.
    decision_rule_ : str
        What ``predict`` does, in words.
    n_iter_ : int
    converged_ : bool
    objective_ : float
        Final value of the training objective.
    objective_history_ : ndarray
        Objective after each iteration (MM: non-increasing).
    mm_curvature_ : float or None
        Curvature constant of the MM majoriser finally used (0.5 unless the
        safeguard fired).
    n_dropped_ : int
        Training rows dropped (more than M labels, or empty with ``empty_set=False``).

    Notes
    -----
    ``refit(reg=..., prediction=..., threshold=...)`` changes those parameters of
    a fitted model in place (warm start for ``reg``; nothing to re-solve for the
    other two), the hook used by :func:`mlviz.evaluation.grid_search` and by the
    dashboard sliders.  The training features are kept for it (for RBF, the
    n × n_centers kernel matrix).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 4)); Y = (X[:, :3] > 0).astype(int); Y[Y.sum(1) == 0, 0] = 1
    >>> m = MLRH(reg=1e-2).fit(X, Y)
    >>> P = m.predict_proba(X)
    >>> bool(np.all(P.sum(1) >= 1 - 1e-9)), m.predict(X).shape
    (True, (80, 3))
    """

    def __init__(self, *, max_labels=None, reg=1e-3, kernel="linear", sigma="median", n_centers=None,
                 solver="lbfgs", prediction="wta", threshold=0.5, max_iter=2000, tol=1e-5,
                 random_state=None, empty_set="auto", time_budget=900.0):
        self.max_labels = max_labels
        self.time_budget = time_budget
        self.empty_set = empty_set
        self.reg = reg
        self.kernel = kernel
        self.sigma = sigma
        self.n_centers = n_centers
        self.solver = solver
        self.prediction = prediction
        self.threshold = threshold
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    # ------------------------------------------------------------------ fit
    def _validate_params(self):
        name = type(self).__name__
        if self.max_labels is not None:
            check_param(name, "max_labels", self.max_labels, low=1)
            if int(self.max_labels) != self.max_labels:
                raise ValueError(f"The 'max_labels' parameter of {name} must be an integer, got {self.max_labels!r}.")
        check_param(name, "reg", self.reg, low=0)
        check_param(name, "empty_set", self.empty_set, options=("auto", True, False))
        check_param(name, "time_budget", self.time_budget, low=0, low_inclusive=False)
        check_param(name, "kernel", self.kernel, options=("linear", "rbf"))
        if not (isinstance(self.sigma, str) and self.sigma == "median"):
            check_param(name, "sigma", self.sigma, low=0, low_inclusive=False)
        if self.n_centers is not None:
            check_param(name, "n_centers", self.n_centers, low=1)
        check_param(name, "solver", self.solver, options=("mm", "lbfgs"))
        check_param(name, "prediction", self.prediction, options=("wta", "marginal"))
        check_param(name, "threshold", self.threshold, low=0, high=1)
        check_param(name, "max_iter", self.max_iter, low=1)
        check_param(name, "tol", self.tol, low=0, low_inclusive=False)

    def _features(self, X):
        """Model features φ(X): X itself or the Gaussian kernel on the centres."""
        if self.kernel == "linear":
            return X
        return gaussian_kernel(X, self.centers_, self.sigma_)

    def fit(self, X, Y):
        """Fit by minimising the regularised negative log-likelihood (eq. (33)).

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
        Y : array-like of {0, 1}, shape (n_samples, n_labels)

        Returns
        -------
        self
        """
        self._validate_params()
        X, Y = check_X_Y(X, Y)
        n_features = X.shape[1]
        sizes = Y.sum(axis=1)
        K = Y.shape[1]
        M = int(self.max_labels) if self.max_labels is not None else int(max(sizes.max(), 1))
        M = min(M, K)
        has_empty = bool((sizes == 0).any())
        m0 = 0 if (self.empty_set is True or (self.empty_set == "auto" and has_empty)) else 1
        keep = (sizes >= m0) & (sizes <= M)
        n_dropped = int((~keep).sum())
        if n_dropped:
            what = "is empty or has" if m0 == 1 and has_empty else "has"
            warnings.warn(
                f"MLRH: dropped {n_dropped} training rows whose label set {what} more than "
                f"max_labels={M} labels (probability zero under the model).", UserWarning, stacklevel=2)
            X, Y = X[keep], Y[keep]
        if X.shape[0] == 0:
            raise ValueError(f"MLRH: no training row has between {m0} and max_labels={M} labels.")
        self._check_size(X.shape[0], n_features, K, M, sizes, X.nnz if sp.issparse(X) else X.size)
        self.min_labels_ = m0

        if self.kernel == "rbf":
            self.centers_, _ = choose_centers(X, self.n_centers, random_state=self.random_state)
            self.sigma_ = (median_sigma(X, random_state=self.random_state)
                           if isinstance(self.sigma, str) else float(self.sigma))
        Phi = _augment(self._features(X))
        self.max_labels_ = M
        self.n_features_in_ = n_features
        self.n_labels_ = K
        self.n_dropped_ = n_dropped
        self._train = (Phi, Y.astype(np.float64))  # kept for refit (warm start)
        self._solve(np.zeros((Phi.shape[1], K)))
        self.decision_rule_ = self._describe_rule()
        return self

    @staticmethod
    def _estimate_seconds(n, nnz, D, K, M):
        """Up-front fit time: evaluations × (DP + products with the features + solves)."""
        return ESTIMATE_EVALUATIONS * (SECONDS_PER_DP_CELL * n * K * (M + 1) + SECONDS_PER_PRODUCT * 2.0 * (nnz + n) * K
                                       + SECONDS_PER_SOLVE_FLOP * 2.0 * D * D * K)

    def _check_size(self, n, n_features, K, M, sizes, nnz):
        """Raise TooLargeError before fitting if the estimate exceeds the time or memory budget."""
        D = (n_features if self.kernel == "linear" else min(n, self.n_centers or n)) + 1
        if self.kernel != "linear":
            nnz = n * (D - 1)
        gram = 8.0 * D * D
        seconds = self._estimate_seconds(n, nnz, D, K, M)
        if gram <= MAX_GRAM_BYTES and seconds <= self.time_budget:
            return
        # the alternative: the largest M that fits the time budget, and how many rows it would drop
        rest = self._estimate_seconds(n, nnz, D, K, -1)  # everything but the DP
        m_fit = int((self.time_budget - rest) / (SECONDS_PER_DP_CELL * n * K * ESTIMATE_EVALUATIONS)) - 1
        why = (f"its {D} × {D} preconditioner needs {gram / 1e9:.1f} GB" if gram > MAX_GRAM_BYTES else
               f"~{seconds:.0f} s estimated ({n} rows × {K} labels × sets up to M={M}; "
               f"time_budget={self.time_budget:g} s)")
        if gram > MAX_GRAM_BYTES:
            alt = "kernel='rbf' with n_centers=2000, or reduce the features, or use BinaryRelevance"
        elif m_fit >= 1 and (sizes > m_fit).mean() <= 0.1:  # suggest a smaller M only if it keeps 90 % of rows
            alt = (f"max_labels={m_fit} (drops {int((sizes > m_fit).sum())} training rows with more labels), "
                   "or BinaryRelevance / MLkNN")
        else:
            alt = "BinaryRelevance or MLkNN (MLRH's DP is O(n·K·M) per iteration)"
        raise TooLargeError(f"MLRH cannot fit this within budget: {why}. Alternative: {alt}.",
                            estimate_seconds=seconds, estimate_bytes=gram, alternative=alt)

    def _describe_rule(self):
        sizes = f"{self.min_labels_}..{self.max_labels_}"
        if self.prediction == "wta":
            return f"most probable label set of size {sizes} (winner-take-all)"
        return f"threshold {float(self.threshold):g} on marginal probabilities (sets of size {sizes})"

    def refit(self, reg=None, prediction=None, threshold=None):
        """Change ``reg``, ``prediction`` or ``threshold`` of a fitted model in place.

        ``prediction`` and ``threshold`` need no re-optimisation.  A new ``reg``
        re-solves the same problem warm-started from the current weights,
        reusing the training features (for RBF, the kernel matrix), so a slider
        move costs a few iterations instead of a full fit.  The result equals
        ``clone(self).set_params(...).fit(X, Y)`` up to the solver tolerance.

        Returns
        -------
        self
        """
        self._check_fitted(["intercept_"])
        params = {k: v for k, v in dict(reg=reg, prediction=prediction, threshold=threshold).items()
                  if v is not None}
        old = {k: getattr(self, k) for k in params}
        self.set_params(**params)
        try:
            self._validate_params()
        except ValueError:
            self.set_params(**old)
            raise
        old_reg = old.get("reg", self.reg)
        if self.reg != old_reg:
            self._solve(self._weights())
        self.decision_rule_ = self._describe_rule()
        return self

    def _solve(self, W0):
        Phi, Yf = self._train
        M = self.max_labels_
        if not W0.any():  # cold start: the intercept-only optimum (all rows share the scores b)
            W0 = W0.copy()
            W0[-1] = intercept_start(Yf, M, self.min_labels_, self.reg, self.tol)

        def objective(W, S=None):
            return self._objective_parts(Phi, Yf, W, M, S)

        kw = dict(reg=self.reg, tol=self.tol, max_iter=self.max_iter)
        if self.solver == "mm":
            W, info = fit_mm(objective, Phi, M, Yf.shape[1], W0, accelerate=self._mm_accelerate, **kw)
        else:
            W, info = fit_lbfgs(objective, Phi, Yf, W0, **kw)
        if not info["converged"]:
            warnings.warn(f"MLRH ({self.solver}) did not converge in {info['n_iter']} iterations "
                          f"(max |gradient| {info['grad_max']:.2e} > tol={self.tol}).",
                          ConvergenceWarning, stacklevel=3)
        self.intercept_ = W[-1].copy()
        if self.kernel == "linear":
            self.coef_ = W[:-1].copy()
        else:
            self.dual_coef_ = W[:-1].copy()
        self.n_iter_ = info["n_iter"]
        self.converged_ = info["converged"]
        self.objective_ = info["objective"]
        self.objective_history_ = np.asarray(info["history"])
        self.mm_curvature_ = info.get("curvature")

    #: Nesterov extrapolation of the MM map (with restart); False = plain MM.
    _mm_accelerate = True

    def _objective_parts(self, Phi, Yf, W, M, S=None):
        """Objective value and its gradient (D, K); ``S = Φ̃ W`` may be passed in."""
        n = Phi.shape[0]
        if S is None:
            S = np.asarray(Phi @ W)
        marg, log_Z = esp_marginals(S, M, min_labels=getattr(self, "min_labels_", 1), return_log_partition=True)
        f = (log_Z.sum() - np.sum(Yf * S)) / n + self.reg * np.sum(W * W)
        G = np.asarray(Phi.T @ (marg - Yf)) / n + 2.0 * self.reg * W
        return f, G

    # ------------------------------------------------------------- predict
    def objective(self, X, Y):
        """Training objective f(W, b) (mean NLL + ridge) of the fitted weights on (X, Y).

        Rows outside the support (fewer than ``min_labels_`` or more than M labels) are ignored, as in ``fit``.

        Returns
        -------
        f : float
        """
        self._check_fitted(["intercept_"])
        X, Y = check_X_Y(X, Y)
        sizes = Y.sum(axis=1)
        keep = (sizes >= self.min_labels_) & (sizes <= self.max_labels_)
        Phi = _augment(self._features(X[keep]))
        return float(self._objective_parts(Phi, Y[keep].astype(np.float64), self._weights(), self.max_labels_)[0])

    def _weights(self):
        top = self.coef_ if self.kernel == "linear" else self.dual_coef_
        return np.vstack([top, self.intercept_[None, :]])

    def decision_function(self, X):
        """Label scores ``s_k(x) = w_kᵀφ(x) + b_k``.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        S : ndarray, shape (n_samples, n_labels)
        """
        self._check_fitted(["intercept_"])
        X = self._check_predict_X(X)
        top = self.coef_ if self.kernel == "linear" else self.dual_coef_
        return np.asarray(self._features(X) @ top) + self.intercept_

    def predict_proba(self, X):
        """Marginal probabilities ``P(y_k = 1 | x)`` (§3.4.2), computed exactly by the DP.

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
            Each row sums to the expected set size, in [min_labels_, max_labels_].
        """
        return esp_marginals(self.decision_function(X), self.max_labels_, min_labels=self.min_labels_)

    def predict(self, X):
        """Predicted label sets.

        ``prediction="wta"``: the most probable set of size m₀..M (Appendix A.2; ∅ if m₀ = 0
        and no score is positive);
        ``"marginal"``: labels whose marginal probability is >= ``threshold``
        (may be empty or larger than M).

        Returns
        -------
        Y_pred : ndarray of uint8, shape (n_samples, n_labels)
        """
        if self.prediction == "wta":
            return best_subset(self.decision_function(X), self.max_labels_, min_labels=self.min_labels_)
        return (self.predict_proba(X) >= self.threshold).astype(np.uint8)
