"""Sparse conditional dependency network (Guo & Xue, IJCAI 2013).

Each label has a logistic regression on the input features *and* on the
other labels (eq. (1), labels coded +-1):

.. math:: p(y_k \\mid x, y_{-k}) = \\sigma\\big(y_k (w_k^\\top x + v_k^\\top y_{-k} + b_k)\\big).

All labels are trained jointly by minimising (eq. (4), with the loss scale
explained below)

.. math:: \\sum_{i,k} \\log\\big(1 + e^{-y^i_k z^i_k}\\big)
          + \\frac{\\lambda_1}{2}\\|W\\|_F^2 + \\frac{\\lambda_2}{2}\\|V\\|_F^2
          + \\gamma \\sum_k \\|V_{:k}\\|_1 + \\mu \\|W\\|_{2,1}

with :func:`mlviz.solvers.fista` (Algorithm 1) and the proximal operators of
:mod:`mlviz.solvers.prox` (eqs. (14)-(16), corrected); the objective lives in
:mod:`mlviz.models._cdn_core`, the sampler in :mod:`mlviz.models._cdn_inference`. The non-zero pattern
of ``V`` is a directed label graph: edge ``t -> k`` when label ``t`` is used
to predict label ``k``. Test-time marginals are those of the stationary
distribution of the Gibbs sampler: exact per connected component of the graph
up to ``max_exact_labels`` labels, multi-chain Gibbs sampling with a stated
Monte-Carlo standard error (``predict_proba_se_``) above.

Loss scale
----------
As in eq. (4), the log-loss is a *sum* over the N training instances, so
lambda, gamma and mu are on the paper's scale: with its lambda1 = lambda2 = 0.1
and gamma, mu <= 0.1, the penalties are mild on a few hundred instances (we
checked the alternative, a mean loss: lambda = 0.1 then over-regularises so
much that Macro-F1 on the paper's Medical subset falls from ~76 % to ~12 %).
Consequences: to keep a fit comparable across training sizes, scale the
penalties with N; the graph empties for gamma >= ``gamma_max_`` (about 2 on the
paper's 200-instance Enron/Medical subsets, where its gamma <= 0.1 removes about
half of the edges). Internally everything is divided by N (mean loss,
penalties / N), ``tol`` applies to a relative KKT residual (the gradient
mapping over its Cauchy-Schwarz data scale, see ``tol`` below), and FISTA runs
on centred features/labels with a rescaled intercept (exact
reparameterisations, see ``_CDNProblem``). The intercept ``b`` is never
penalised.

Constant labels (no positive or no negative training example) are not
optimised: their intercept is fixed at the logit of the smoothed frequency
``(n_pos + 0.5) / (N + 1)``, and they get no features and no edges.
"""

import networkx as nx
import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.special import expit
from sklearn.base import clone

from ..solvers.fista import FistaResult
from ._base import BaseEstimator, MultiLabelClassifierMixin, check_param, check_X, check_X_Y, empty_set_param
from ._base_learner import mean_squared_norm
from ._cdn_core import _solve
from ._cdn_inference import _inference_seed, exact_marginals, gibbs_marginals, gibbs_marginals_se

try:
    from ._base import TooLargeError
except ImportError:  # until the shared definition is merged
    class TooLargeError(ValueError):
        """The requested computation exceeds the size this estimator handles."""

__all__ = ["SparseCDN", "sparse_cdn_path", "path_summary", "gamma_grid", "gibbs_marginals"]

#: variant -> (label features V, l1 on V, l2,1 on W); the paper's methods (1), (3)-(6).
VARIANTS = {
    "lr": (False, False, False),
    "cdn": (True, False, False),
    "l1-cdn": (True, True, False),
    "l21-lr": (False, False, True),
    "sparse": (True, True, True),
}
#: variant -> variant of the label-independent model that starts the Gibbs chains.
_INIT_VARIANT = {"cdn": "lr", "l1-cdn": "lr", "sparse": "l21-lr"}
#: ``gamma=None`` means ``DEFAULT_GAMMA_RATIO * gamma_max_``: the dashboard's γ / γ_max slider default
#: (``mlviz.models.registry.CDN_DEFAULTS``, chosen by benchmarks/sweep_cdn_dashboard.py), so that the
#: library, the command line and every page fit the same model by default (a test keeps them equal)
DEFAULT_GAMMA_RATIO = 0.5
#: bytes of one block of margins in ``SparseCDN._gamma_max``
_GAMMA_MAX_BLOCK_BYTES = 1 << 22
#: memory of the Gibbs chains of one chunk of test instances (bytes)
_GIBBS_CHUNK_BYTES = 256 * 2 ** 20


def _stage(callback, stage, n):
    """``callback(stage, it, objective)`` as a ``_solve`` callback ``(it, objective / n)``."""
    if callback is None:
        return None
    return lambda it, F: callback(stage, it, F * n)


@empty_set_param
class SparseCDN(MultiLabelClassifierMixin, BaseEstimator):
    """Sparse conditional dependency network with shared sparse features.

    Parameters
    ----------
    lam1 : float >= 0, default 1.0
        Ridge weight on the feature weights W (lambda_1 in eq. (4)), on the
        summed-loss scale: ``lam1 = 1`` is scikit-learn's
        ``LogisticRegression(C=1)`` (the BR-LR baseline), which the "lr"
        variant reproduces. The paper uses 0.1 on 200-400 training
        instances; the default 1.0 (with ``gamma=None`` and ``mu=0``) is the
        dashboard's default, chosen by the sweep recorded in ``benchmarks/RESULTS.md``
        ("sparse-CDN slider defaults of the dashboard": λ ∈ {0.1, 1, 10} × μ / N ∈ {0, 0.003} ×
        γ / γ_max ∈ {0.1, 0.3, 0.5} on the five bundled sets, the setting whose worst difference
        from BR-LR is smallest), where the paper's values lost to BR-LR on emotions.
    lam2 : float >= 0, default 1.0
        Ridge weight on the label weights V (lambda_2).
    scale_lam : bool, default False
        Multiply ``lam1`` and ``lam2`` by the training rows' mean squared norm
        (1/n) Σ_i ||x_i||² (``lam_scale_``): the units in which BR's and LP's C are
        given (``scale_C``), so that one value means a comparable penalty on
        L2-normalised text rows (mean ||x||² = 1) and on standardised dense
        features (mean ||x||² = their number). The method registry's sparse CDN
        (the command line, every page) sets it with ``lam1 = lam2 = 0.1``.
    gamma : float >= 0 or None, default None
        l1 weight on V (sparse label graph); used by "l1-cdn" and "sparse".
        ``None`` means ``0.5 * gamma_max_`` (``DEFAULT_GAMMA_RATIO``; gamma_max_ is the
        smallest gamma with an empty graph, which grows with N on the summed-loss scale):
        chosen with ``lam1`` (0.3 had the same mean and a worse worst case). The value
        used is ``gamma_``.
    mu : float >= 0, default 0.0
        l2,1 weight on the rows of W (features shared by all labels); used by
        "l21-lr" and "sparse". The default 0 keeps every feature: in the same sweep
        μ / N = 0.003 lost 0.06-0.11 micro-F1 on the text sets (L2-normalised rows),
        whose features are on a far smaller scale. Larger values select features
        for all labels at once (the Label graph page's μ slider).
    variant : {"sparse", "lr", "cdn", "l1-cdn", "l21-lr"}, default "sparse"
        The paper's methods: LR (no label features, ridge), CDN (label
        features, ridge), l1-CDN (+ l1 on V, eq. (3)), l2,1-LR (no label
        features, l2,1 on W), Sparse (eq. (4)). Penalties a variant does not
        use are ignored.
    max_iter : int, default 1000
        Solver iterations (per-label L-BFGS lockstep iterations and FISTA iterations
        together, see ``tol``).
    tol : float > 0, default 1e-3
        Optimality tolerance on a *relative* KKT residual: FISTA stops when
        every entry of the gradient mapping of objective (4) (the gradient,
        corrected for the l1 / l2,1 subgradients; zero exactly at the
        optimum) divided by its data scale is <= tol. The scale of the entry
        for ``W[j, k]`` is ``std(x_j) * rms(r_k)`` (``r_k`` the residuals
        ``y - p`` of label k at the current point), for ``V[t, k]``
        ``std(y_t) * rms(r_k)``, for ``b_k`` ``rms(r_k)``: by Cauchy-Schwarz
        the gradient of the mean loss never exceeds it, so the measure is a
        correlation between residuals and features, unchanged by the feature
        units and by how small the residuals are. (An absolute rule stops at
        once on nearly separable data, e.g. sparse text with more features
        than instances, where every raw gradient entry is tiny although the
        label weights are far from optimal.) ``converged_`` is True only when
        the rule held; ``kkt_violation_`` is the measure at the returned
        point; a ``ConvergenceWarning`` is issued when ``max_iter`` is
        reached first. The default 1e-3 (every feature's correlation with the
        residuals, net of the penalties, below 0.001) reached the
        tight-tolerance (1e-7) label weights within 0.1 % on the nearly
        separable test problem; 1e-4 costs several times more iterations
        on dense, correlated features (scene).

        Solver, on diagonally preconditioned coordinates (W and V
        divided by the inverse square root of the Hessian diagonal at the label
        frequencies, ``p(1-p) var(x_j) + lam``; one scale per feature row when mu > 0):
        a fixed change of variables, same objective and minimiser, the stopping rule
        evaluated as the same scaled measure in the original units.

        1. Per-label L-BFGS in lockstep (:func:`mlviz.solvers.column_lbfgs`): objective
           (4) separates over labels except for the l2,1 term, so every label gets its
           own curvature memory, line search and stopping test, while all labels are
           evaluated with one blocked product per step (only the labels still moving).
           The l1 term on V is handled as in OWL-QN (orthant-wise), the l2,1 term by its
           quadratic majoriser at the current point (exact there; rows that are zero stay
           zero). It stops at ``tol / 2`` on the same scaled KKT measure. On a cold
           start with mu > 0 two proximal (FISTA) steps first open the rows of W.
        2. FISTA with backtracking and adaptive restart from that point certifies the
           result by the gradient-mapping rule of ``tol`` (it also opens or closes rows
           of W and entries of V if needed); usually one iteration.

        A single FISTA (or joint L-BFGS) run moves all labels with one step size: on
        raw word counts, where ~3 % digest e-mails make the Jacobi-scaled Gram matrix
        ill-conditioned (largest eigenvalue 404 on enron), the main fit took 233 FISTA
        iterations and ~12x the per-label LogisticRegression time; per-label L-BFGS
        needs ~50 lockstep iterations (``benchmarks/RESULTS.md``, "fast on real text"). When the
        objective is smooth (mu = 0 and no l1 term acting: the label-independent start
        model, the "lr" and "cdn" variants) step 1 alone is the solver, stopped by the
        rule of ``tol`` itself. ``n_iter_`` counts the iterations of both steps.

        Small problems (nnz(X) x labels <= 1e6) whose preconditioner is undamped skip step
        1: FISTA alone needs 2-4x more iterations there but each costs less than the
        per-label bookkeeping (measured 0.67-0.94x the CPU time on the bundled medical, up
        to the full set; on the paper's 200-row protocol the per-label solver was ~3x
        slower than FISTA alone, ``benchmarks/RESULTS.md``, "SparseCDN: the solver by
        problem size"). The per-label L-BFGS also hands over to FISTA when its largest
        violation has not halved in 30 iterations (rows the l2,1 term is zeroing).
    inference : {"auto", "exact", "gibbs"}, default "auto"
        How ``predict_proba`` computes the marginals of the stationary
        distribution of the Gibbs sampler (the CDN's test-time distribution,
        Guo & Gu 2011). The label graph splits into weakly connected
        components, which the sampler treats independently (its stationary
        distribution is the product over components), so each component is
        handled on its own: labels without edges get ``sigma(x w_k + b_k)``
        exactly; ``"auto"`` computes components of at most
        ``max_exact_labels`` labels *exactly* (their 2^size-state Markov
        chain, see :func:`mlviz.models._cdn_inference.exact_marginals`) and larger
        ones by Gibbs sampling to the standard error ``se_target``;
        ``"exact"`` raises :class:`TooLargeError` when a component has more
        than ``max_exact_labels`` labels; ``"gibbs"`` samples every
        component with edges.
    max_exact_labels : int in [1, 16], default 12
        Largest component solved exactly (cost ``O(size 2^size)`` per
        instance and power-iteration sweep: 0.15 s CPU for 300 instances of a
        random 10-label component; memory bounded by ~1 MB blocks of
        distributions plus their conditionals; see ``benchmarks/RESULTS.md``,
        "the CDN's exact inference 8x cheaper").
    se_target : float > 0, default 0.005
        Gibbs stops, per instance, when the Monte-Carlo standard error of
        every marginal of that instance is <= se_target (or at
        ``max_sweeps``); the errors are in ``predict_proba_se_``.
    n_chains : int >= 2, default 10
        Independent Gibbs chains per instance; the standard error is that of
        the mean of the chain means (valid under autocorrelation).
    n_burn : int >= 0, default 50
        Gibbs burn-in sweeps per chain.
    n_samples : int >= 1, default 100
        Collected sweeps per chain at the first error check; the length
        doubles until ``se_target`` or ``max_sweeps`` is reached.
    max_sweeps : int >= 1, default 6400
        Most collected sweeps per chain.
    random_state : int, numpy Generator or None
        Seeds the Gibbs sampler. ``fit`` fixes one seed (``inference_seed_``;
        drawn from the generator or from fresh entropy when not an int), and
        every ``predict_proba`` call restarts from it, so ``predict`` always
        equals ``predict_proba(X) >= 0.5`` for a fitted model.
    {empty_set_parameter}

    Attributes
    ----------
    coef_ : ndarray, shape (n_features, n_labels)
        W; column k predicts label k.
    label_coef_ : ndarray, shape (n_labels, n_labels)
        V with zero diagonal; ``[t, k]`` is the weight of label t in the
        predictor of label k (labels coded +-1).
    intercept_ : ndarray, shape (n_labels,)
    label_graph_ : networkx.DiGraph
        Nodes ``0..L-1``; an edge ``t -> k`` with attribute ``weight`` for
        every non-zero ``V[t, k]``. Built from ``label_coef_`` on each access,
        not stored: at 983 labels and a small gamma V has ~630k non-zeros, a
        ~200 MB DiGraph, and a dashboard keeps a model per point of a gamma
        path. Keep the returned graph if you use it more than once.
    selected_features_ : ndarray of int
        Indices of the non-zero rows of W.
    gamma_ : float
        The gamma used (``gamma``, or ``0.5 * gamma_max_`` when None; 0 for
        variants without the l1 term).
    lam_scale_ : float
        The factor on ``lam1`` and ``lam2``: the training rows' mean squared norm with
        ``scale_lam``, else 1.
    gamma_max_ : float
        Smallest gamma whose optimal graph is empty (KKT at V = 0, computed
        from the label-independent model; exact up to ``tol``). A useful
        upper end for a gamma slider; edges appear below it. For
        ``gamma >= gamma_max_`` ("l1-cdn", "sparse") the fit returns that
        model with ``V = 0`` (``n_iter_ = 0``): it is then the minimiser.
    init_coef_, init_intercept_ : ndarray
        The label-independent model ("lr" for CDN/l1-CDN, "l2,1-lr" for
        Sparse, same lam1/mu) whose probabilities start the Gibbs chains.
    n_iter_ : int
        Solver iterations of the main fit (per-label L-BFGS + FISTA, see ``tol``).
    objective_history_ : ndarray
        Objective (4) after each FISTA iteration.
    converged_ : bool
        True only when the optimality test of ``tol`` held (see ``tol``).
    kkt_violation_ : float
        The scaled optimality measure at the returned point (<= tol when
        converged).
    inference_seed_ : int
        Seed of the Gibbs sampler (from ``random_state``).
    decision_rule_ : str
        "threshold 0.5 on the stationary marginals (...)" (``predict``).
    predict_proba_se_ : ndarray, shape (n_samples, n_labels)
        Set by every ``predict_proba`` call: the standard error of each
        returned probability (Gibbs: Monte-Carlo SE; exact: 0, or the power
        iteration's error estimate, <= 1e-9).
    inference_ : dict
        Set by ``predict_proba``: ``{"exact_labels", "gibbs_labels",
        "components", "max_se", "mean_sweeps"}``, what was computed how.

    References
    ----------
    Y. Guo and W. Xue, "Probabilistic multi-label classification with sparse
    feature learning", IJCAI 2013, eqs. (1)-(16), Algorithm 1.

    Examples
    --------
    >>> from mlviz.data import load_sample
    >>> ds = load_sample("emotions")                          # doctest: +SKIP
    >>> m = SparseCDN(gamma=1.0, mu=1.0, random_state=0).fit(ds.X, ds.Y)  # doctest: +SKIP
    >>> m.label_graph_.number_of_edges(), m.gamma_max_        # doctest: +SKIP
    >>> m.refit(gamma=0.5 * m.gamma_max_)  # in place, warm start  # doctest: +SKIP
    >>> path = sparse_cdn_path(ds.X, ds.Y, [m.gamma_max_ * f for f in (1, .3, .1, .03)])  # doctest: +SKIP
    >>> path_summary(path)[["gamma", "n_edges"]]              # doctest: +SKIP
    """

    def __init__(self, *, lam1=1.0, lam2=1.0, scale_lam=False, gamma=None, mu=0.0, variant="sparse",
                 max_iter=1000, tol=1e-3, inference="auto", max_exact_labels=12, se_target=0.005, n_chains=10,
                 n_burn=50, n_samples=100, max_sweeps=6400, random_state=None, empty_set=True):
        self.lam1 = lam1
        self.lam2 = lam2
        self.scale_lam = scale_lam
        self.gamma = gamma
        self.mu = mu
        self.variant = variant
        self.max_iter = max_iter
        self.tol = tol
        self.inference = inference
        self.max_exact_labels = max_exact_labels
        self.se_target = se_target
        self.n_chains = n_chains
        self.n_burn = n_burn
        self.n_samples = n_samples
        self.max_sweeps = max_sweeps
        self.random_state = random_state
        self.empty_set = empty_set

    # ------------------------------------------------------------------ fit
    def _validate_params(self):
        for name in ("lam1", "lam2", "gamma", "mu"):
            check_param(self, name, getattr(self, name), low=0, allow_none=name == "gamma")
        check_param(self, "scale_lam", self.scale_lam, options=(True, False))
        check_param(self, "variant", self.variant, options=tuple(VARIANTS))
        check_param(self, "max_iter", self.max_iter, low=1)
        check_param(self, "tol", self.tol, low=0, low_inclusive=False)
        check_param(self, "inference", self.inference, options=("auto", "exact", "gibbs"))
        check_param(self, "max_exact_labels", self.max_exact_labels, low=1, high=16)
        check_param(self, "se_target", self.se_target, low=0, low_inclusive=False)
        check_param(self, "n_chains", self.n_chains, low=2)
        check_param(self, "n_burn", self.n_burn, low=0)
        check_param(self, "n_samples", self.n_samples, low=1)
        check_param(self, "max_sweeps", self.max_sweeps, low=1)

    def fit(self, X, Y, callback=None):
        """Fit W, V, b by FISTA on objective (4).

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)
        Y : array-like, shape (n_samples, n_labels), 0/1
        callback : callable ``(stage, n_iter, objective) -> None``, optional
            Progress report after every FISTA iteration: ``stage`` is
            ``"start"`` (the label-independent start model) or ``"main"``
            (objective (4)), ``objective`` its current value (summed loss). It
            may raise an exception to abort the fit (e.g. a dashboard
            cancelling a fit the user no longer waits for); the exception
            propagates, and the estimator must be fitted again before use
            (:meth:`refit` leaves ``self`` unchanged).

        Returns
        -------
        self
        """
        return self._fit(X, Y, warm_from=None, callback=callback)

    def _fit(self, X, Y, warm_from, gamma_ratio=None, callback=None):
        self._validate_params()
        if warm_from is None:  # (a refit reuses the data validated by the first fit, not a copy of it)
            X, Y = check_X_Y(X, Y)
        self._check_fit_size(X, Y)
        use_V, use_l1, use_l21 = VARIANTS[self.variant]
        gamma = float(self.gamma) if use_l1 and self.gamma is not None else 0.0
        mu = float(self.mu) if use_l21 else 0.0
        n, L = Y.shape
        S = 2.0 * Y - 1.0
        active = Y.min(axis=0) != Y.max(axis=0)
        freq = (Y.sum(axis=0) + 0.5) / (n + 1.0)
        b0 = np.log(freq) - np.log1p(-freq)
        # objective (4) / n: mean loss, penalties divided by n (same minimiser); with scale_lam the ridge
        # weights in units of the mean squared row norm
        self.lam_scale_ = mean_squared_norm(X) if self.scale_lam else 1.0
        lam1, lam2 = float(self.lam1) * self.lam_scale_, float(self.lam2) * self.lam_scale_
        common = dict(lam1=lam1 / n, tol=float(self.tol), max_iter=int(self.max_iter))
        # 1. label-independent model that starts the Gibbs chains (Guo & Gu 2011); it
        #    is also the gamma = infinity solution, hence the cold start of the main fit.
        init_variant = _INIT_VARIANT.get(self.variant, self.variant)
        init_mu = mu if VARIANTS[init_variant][2] else 0.0
        key = (init_variant, lam1, init_mu, float(self.tol), int(self.max_iter))
        same_start = warm_from is not None and getattr(warm_from, "_init_key", None) == key
        if same_start:
            self.init_coef_, self.init_intercept_ = warm_from.init_coef_, warm_from.init_intercept_
            self._init_step, self._init_converged = warm_from._init_step, warm_from._init_converged
            self._init_kkt = warm_from._init_kkt
            self._init_objective = warm_from._init_objective
        elif use_V:
            iwarm = None
            if warm_from is not None:
                iwarm = (warm_from.init_coef_, np.zeros((L, L)), warm_from.init_intercept_,
                         warm_from._init_step)
            Wi, _, bi, ires = _solve(X, S, active, b0, lam2=0.0, gamma=0.0, mu=init_mu / n,
                                     use_V=False, warm=iwarm, callback=_stage(callback, "start", n), **common)
            self.init_coef_, self.init_intercept_, self._init_step = Wi, bi, ires.step
            self._init_converged = ires.converged
            self._init_kkt = float(ires.grad_mapping_norm)
            self._init_objective = float(ires.objective_history[-1])  # objective (4) / n at V = 0
        self._init_key = key
        if use_V:  # gamma_max_ depends on the start model (and the data) only: a refit on the same start reuses it
            self.gamma_max_ = (warm_from.gamma_max_ if same_start and hasattr(warm_from, "gamma_max_")
                               else self._gamma_max(X, S, active, L))
            if gamma_ratio is not None:
                self.gamma = float(gamma_ratio) * self.gamma_max_
                gamma = float(self.gamma) if use_l1 else 0.0
            elif self.gamma is None and use_l1:
                gamma = DEFAULT_GAMMA_RATIO * self.gamma_max_
        self.gamma_ = gamma
        # 2. the model itself, objective (4)
        if warm_from is not None:
            warm = (warm_from.coef_, warm_from.label_coef_, warm_from.intercept_, warm_from._step)
        elif use_V:
            warm = (self.init_coef_, np.zeros((L, L)), self.init_intercept_, self._init_step)
        else:
            warm = None
        if use_l1 and gamma >= self.gamma_max_:
            # V = 0 is optimal iff |d loss / d V| <= gamma at the start model (KKT; this is
            # the definition of gamma_max_), and the start model is then the solution: return
            # it exactly instead of re-solving (no spurious tiny edges from the tolerance).
            # Its objective (4) is the start model's own (V = 0: no lam2 or gamma term; the start
            # model has the same lam1 and mu), so no problem is built here.
            res = FistaResult(x=None, n_iter=0, converged=self._init_converged,
                              objective_history=np.array([self._init_objective]), grad_mapping_norm=np.nan,
                              step=self._init_step)
            W, V, b = self.init_coef_.copy(), np.zeros((L, L)), self.init_intercept_.copy()
        else:
            W, V, b, res = _solve(X, S, active, b0, lam2=lam2 / n, gamma=gamma / n,
                                  mu=mu / n, use_V=use_V, warm=warm, callback=_stage(callback, "main", n),
                                  **common)
        self.coef_, self.label_coef_, self.intercept_ = W, V, b
        self.n_iter_ = res.n_iter
        self.objective_history_ = res.objective_history * n  # eq. (4), summed loss
        self.converged_ = res.converged
        self.kkt_violation_ = (float(res.grad_mapping_norm) if np.isfinite(res.grad_mapping_norm)
                               else self._init_kkt)
        self._step = res.step
        if not use_V:
            self.init_coef_, self.init_intercept_, self._init_step = W, b, res.step
            self._init_converged, self._init_kkt = res.converged, self.kkt_violation_
            self._init_objective = float(res.objective_history[-1])
        if not use_V:  # the model is its own start model; no graph, gamma is unused
            self.gamma_max_ = self._gamma_max(X, S, active, L)
            if gamma_ratio is not None:
                self.gamma = float(gamma_ratio) * self.gamma_max_
        self.selected_features_ = np.flatnonzero(np.abs(W).sum(axis=1) > 0)
        self.n_features_in_ = X.shape[1]
        self.n_labels_ = L
        self.inference_seed_ = _inference_seed(self.random_state)
        self.decision_rule_ = self._decision_rule()
        self._fit_empty_set(Y)
        self._train = (X, Y)  # kept (by reference) for warm-started refits
        return self

    #: most memory a fit may plan to use (bytes); above it fit raises TooLargeError first
    _MAX_FIT_BYTES = 4 * 2 ** 30

    def _check_fit_size(self, X, Y):
        """Raise :class:`TooLargeError` before any work if FISTA's arrays would not fit.

        FISTA keeps ~8 vectors of the parameter size ``d L + L^2 + L``, the per-label L-BFGS
        its memory pairs (2 x 10 of that size) and, while only some labels move, a gathered
        copy of their pairs (up to as much again), plus ~6 dense (N, L) arrays (labels,
        logits, residuals, ...), all float64.
        """
        from ._cdn_core import _LBFGS_MEMORY

        (n, d), L = X.shape, Y.shape[1]
        need = 8.0 * ((8 + 4 * _LBFGS_MEMORY) * (d * L + L * L + L) + 6 * n * L)
        if need > self._MAX_FIT_BYTES:
            raise TooLargeError(
                f"SparseCDN on {n} instances x {d} features x {L} labels needs ~{need / 2 ** 30:.1f} GB "
                f"(dense W of {d} x {L}, V of {L} x {L}, (N, L) work arrays; limit "
                f"{self._MAX_FIT_BYTES / 2 ** 30:.0f} GB). Reduce the features (e.g. feature "
                "selection or hashing) or fit label subsets; variant='lr' has the same W.")

    def _gamma_max(self, X, S, active, L):
        """Smallest gamma with an empty graph: max |d loss / d V| at the V = 0 optimum.

        By blocks of labels (:data:`_GAMMA_MAX_BLOCK_BYTES` of margins, ~50 labels at 10k rows): the
        (n, L) margins and residuals of a 983-label set would be ~80 MB arrays each; entry by entry the
        same operations."""
        n = S.shape[0]
        Ysp = sp.csr_matrix(S > 0, dtype=float).T.tocsr() if (S > 0).mean() < 0.25 else None
        G = np.empty((L, L))
        step = max(1, _GAMMA_MAX_BLOCK_BYTES // max(8 * n, 1))
        for lo in range(0, L, step):
            c = slice(lo, lo + step)
            Sc = S[:, c]
            M = Sc * (np.asarray(X @ self.init_coef_[:, c]) + self.init_intercept_[c])
            R = -Sc * expit(-M) * active[c]  # summed-loss residuals, (n, labels of the block)
            # S^T R = 2 Y^T R - 1^T R with the sparse 0/1 labels
            G[:, c] = S.T @ R if Ysp is None else 2.0 * np.asarray(Ysp @ R) - R.sum(axis=0)
        mask = active[:, None] & active[None, :] & ~np.eye(L, dtype=bool)
        return float(np.abs(G[mask]).max()) if mask.any() else 0.0

    @property
    def label_graph_(self):
        """The learned label graph (see the class docstring), built from ``label_coef_``."""
        if "label_coef_" not in self.__dict__:
            raise AttributeError("label_graph_: this SparseCDN is not fitted yet")
        return self._make_graph(self.label_coef_)

    @staticmethod
    def _make_graph(V, nodes=None):
        """The graph of V (an edge ``t -> k`` per non-zero ``V[t, k]``), or with ``nodes`` (sorted
        labels) of ``V[nodes][:, nodes]`` alone, nodes named as in the whole graph."""
        idx = np.arange(V.shape[0]) if nodes is None else np.asarray(nodes, dtype=np.int64)
        if nodes is not None:
            V = np.asarray(V)[np.ix_(idx, idx)]
        G = nx.DiGraph()
        G.add_nodes_from(idx.tolist())
        t, k = np.nonzero(V)
        G.add_weighted_edges_from(zip(idx[t].tolist(), idx[k].tolist(), V[t, k].tolist()))
        return G

    def refit(self, gamma_ratio=None, callback=None, **params):
        """Refit IN PLACE on the same training data, warm-started from the current fit.

        For a slider move: ``m.refit(gamma=0.05)`` (any constructor parameter
        may change). FISTA starts from the current ``coef_``, ``label_coef_``,
        ``intercept_`` and step size; the Gibbs start model is reused when
        ``lam1``/``mu``/``variant`` are unchanged (e.g. a gamma-only move).
        The new fit is built on a copy and installed only when it succeeds, so
        an exception (bad parameter, a callback aborting) leaves ``self`` as
        it was. Keep a ``copy.deepcopy`` if the previous model is needed.

        Parameters
        ----------
        gamma_ratio : float >= 0, optional
            Set ``gamma = gamma_ratio * gamma_max_`` of the *new* fit
            (``gamma_max_`` depends on ``lam1``, ``mu`` and the variant, so a
            slider on gamma / gamma_max can keep its position while mu moves,
            in one warm-started fit). Overrides ``gamma`` in ``params``.
        callback : callable, optional
            Progress report / abort hook, as in :meth:`fit`.
        **params
            Constructor parameters to change.

        Returns
        -------
        self
        """
        new = self._warm_fit(gamma_ratio, callback, params)
        self.__dict__.clear()
        self.__dict__.update(new.__dict__)
        return self

    def _warm_fit(self, gamma_ratio, callback, params):
        """A new fitted model at ``params``, warm-started from this one (self unchanged)."""
        self._check_fitted(["coef_"])
        if gamma_ratio is not None and not float(gamma_ratio) >= 0:
            raise ValueError(f"gamma_ratio must be >= 0, got {gamma_ratio!r}.")
        new = clone(self).set_params(**params)
        return new._fit(*self._train, warm_from=self, gamma_ratio=gamma_ratio, callback=callback)

    # -------------------------------------------------------------- predict
    def decision_function(self, X, Y_given=None):
        """Label logits ``X W + b`` (+ ``y V`` if 0/1 labels ``Y_given`` are given).

        Returns
        -------
        Z : ndarray, shape (n_samples, n_labels)
        """
        self._check_fitted(["coef_"])
        X = self._check_predict_X(X)
        Z = np.asarray(X @ self.coef_) + self.intercept_
        if Y_given is not None:
            Z = Z + (2.0 * np.asarray(Y_given, dtype=float) - 1.0) @ self.label_coef_
        return Z

    def _decision_rule(self):
        how = {"auto": f"exact for label-graph components of <= {self.max_exact_labels} labels, "
                       f"Gibbs sampling (Monte-Carlo SE <= {self.se_target:g}) above",
               "exact": "exact", "gibbs": f"Gibbs sampling, Monte-Carlo SE <= {self.se_target:g}"}
        return f"threshold 0.5 on the CDN's stationary marginals ({how[self.inference]})"

    def _components(self):
        """Weakly connected components of the label graph: list of label-index arrays."""
        n_comp, lab = connected_components(sp.csr_matrix(self.label_coef_ != 0), directed=True,
                                           connection="weak")
        return [np.flatnonzero(lab == c) for c in range(n_comp)]

    def check_inference_size(self):
        """Raise :class:`TooLargeError` if ``inference="exact"`` cannot handle the graph."""
        self._check_fitted(["coef_"])
        if self.inference != "exact":
            return
        big = max((len(c) for c in self._components()), default=0)
        if big > self.max_exact_labels:
            raise TooLargeError(
                f"Exact CDN inference on a connected label-graph component of {big} labels needs "
                f"2^{big} states per instance (~{2.0 ** big * 8 * (big + 4) / 2 ** 20:.0f} MB, "
                f"> max_exact_labels={self.max_exact_labels}); use inference='auto' (Gibbs sampling "
                "with a stated standard error for that component) or a larger gamma.")

    def predict_proba_with_error(self, X):
        """Marginals P(y_k = 1 | x) and their standard errors.

        The marginals are those of the stationary distribution of the Gibbs
        sampler (systematic scan, labels 0..L-1, eq. (1)); see ``inference``.
        Each weakly connected component of the label graph is computed on its
        own: single labels exactly, components of <= ``max_exact_labels``
        labels exactly (2^size states), larger ones by multi-chain Gibbs to the
        standard error ``se_target``. The sampler restarts from
        ``inference_seed_`` on every call (deterministic per fitted model).

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
        se : ndarray, shape (n_samples, n_labels)
            Standard error of each entry (0 where exact).
        """
        linear = self.decision_function(X)
        self.check_inference_size()
        n, L = linear.shape
        P, se = expit(linear), np.zeros((n, L))
        info = dict(exact_labels=0, gibbs_labels=0, components=0, max_se=0.0, mean_sweeps=0.0)
        if not np.any(self.label_coef_):
            self.inference_ = info
            return P, se
        X = check_X(X)
        p_init = expit(np.asarray(X @ self.init_coef_) + self.init_intercept_)
        rng = np.random.default_rng(self.inference_seed_)
        sampled = []
        for comp in self._components():
            if comp.size == 1:
                continue
            info["components"] += 1
            if self.inference == "gibbs" or comp.size > self.max_exact_labels:
                sampled.append(comp)
                continue
            ix = np.ix_(comp, comp)
            P[:, comp], err = exact_marginals(linear[:, comp], self.label_coef_[ix], p_init[:, comp])
            se[:, comp] = err[:, None]
            info["exact_labels"] += comp.size
        if sampled:
            labels = np.concatenate(sampled)
            V = self.label_coef_[np.ix_(labels, labels)]
            V = sp.csr_matrix(V) if V.shape[0] > 64 else V
            # chains of a chunk of instances: ~5 float arrays of (rows * chains, labels)
            chunk = max(1, _GIBBS_CHUNK_BYTES // (40 * int(self.n_chains) * labels.size))
            sweeps = np.zeros(n)
            for start in range(0, n, chunk):
                rows = slice(start, min(n, start + chunk))
                Pg, seg, sweeps[rows] = gibbs_marginals_se(
                    linear[rows][:, labels], V, p_init[rows][:, labels], n_chains=int(self.n_chains),
                    n_burn=int(self.n_burn), min_sweeps=int(self.n_samples),
                    max_sweeps=max(int(self.max_sweeps), int(self.n_samples)),
                    se_target=float(self.se_target), rng=rng)
                P[rows, labels], se[rows, labels] = Pg, seg
            info.update(gibbs_labels=int(labels.size), mean_sweeps=float(sweeps.mean()))
        info["max_se"] = float(se.max()) if se.size else 0.0
        self.inference_ = info
        return np.clip(P, 0.0, 1.0), se

    def predict_proba(self, X):
        """Marginals P(y_k = 1 | x) (see :meth:`predict_proba_with_error`).

        Also sets ``predict_proba_se_`` (standard errors, same shape) and
        ``inference_``.

        Parameters
        ----------
        X : array-like or CSR matrix, shape (n_samples, n_features)

        Returns
        -------
        P : ndarray, shape (n_samples, n_labels)
        """
        P, se = self.predict_proba_with_error(X)
        self.predict_proba_se_ = se
        return P


def sparse_cdn_path(X, Y, gammas, **params):
    """Warm-started regularisation path over gamma (large to small).

    The first model (largest gamma, usually an empty or tiny graph) is fitted
    cold; each next one starts from the previous solution, so edges appear
    as gamma decreases and every step costs a few FISTA iterations.

    Parameters
    ----------
    X : array-like or CSR matrix, shape (n_samples, n_features)
    Y : array-like, shape (n_samples, n_labels)
    gammas : sequence of float
        Values of gamma (any order; fitted in decreasing order).
    **params
        Other :class:`SparseCDN` parameters (``mu``, ``lam1``, ``variant`` ...).

    Returns
    -------
    models : list of SparseCDN
        Fitted models in decreasing order of gamma.
    """
    gammas = sorted((float(g) for g in gammas), reverse=True)
    if not gammas:
        return []
    model = SparseCDN(**{**params, "gamma": gammas[0]}).fit(X, Y)
    models = [model]
    for g in gammas[1:]:
        model = model._warm_fit(None, None, dict(gamma=g))
        models.append(model)
    return models


def gamma_grid(model, n_points=8, min_ratio=1e-3):
    """A log-spaced gamma grid for a slider: ``gamma_max_ * logspace(0, log10(min_ratio))``.

    gamma is on the summed-loss scale, so useful values grow with N (emotions
    ~70, yeast ~800 at the paper's lambda): derive the grid from a fitted model.

    Parameters
    ----------
    model : fitted SparseCDN
    n_points : int
    min_ratio : float in (0, 1)

    Returns
    -------
    gammas : list of float, decreasing (the first gives an empty graph)
    """
    top = max(float(model.gamma_max_), 1e-12)
    return [float(g) for g in top * np.logspace(0.0, np.log10(min_ratio), int(n_points))]


def path_summary(models):
    """One row per fitted model: gamma, mu, n_edges, n_features, n_iter, objective.

    Returns
    -------
    summary : pandas.DataFrame
    """
    rows = [dict(gamma=m.gamma_, mu=m.mu, n_edges=int(np.count_nonzero(m.label_coef_)),
                 n_features=len(m.selected_features_), n_iter=m.n_iter_,
                 objective=float(m.objective_history_[-1])) for m in models]
    return pd.DataFrame(rows, columns=["gamma", "mu", "n_edges", "n_features", "n_iter", "objective"])
