"""The methods offered in the dashboard: their sliders, the one slider → estimator translation and the one cache-key format.

A :class:`Method` names an estimator of :mod:`mlviz.models` and its sliders
(:class:`Param`, each a fixed grid, so every position is a cache key and a URL
value).  Everything that knows what a slider value *means* is here:

* :meth:`Method.kwargs` — constructor arguments from slider values (σ factor →
  σ, μ / N → μ, λ → λ1 = λ2, C → a logistic regression, …); missing sliders take
  their default from :meth:`Method.complete`, the only place defaults are read;
* ``fast`` — parameters that the estimator's in-place ``refit`` changes cheaply
  (a base model per value of the others is fitted once);
* ``path`` — for the sparse CDN: the slider whose grid is one warm-started
  regularisation path (:class:`PathSpec`), computed from the top of the grid
  downwards, so a result depends only on its settings;
* :func:`key` — the cache key of every result that depends on a data set,
  a method and slider values.

No Streamlit and no computation here (see :mod:`mlviz.dashboard.compute`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

LOG_SMALL = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, 3.0, 10.0]
SEED = 0


@dataclass(frozen=True)
class Scale:
    """What a slider value may be relative to: the training-set size and the median distance."""

    n_train: int
    median_distance: Callable[[], float]


@dataclass
class Param:
    """One slider: a grid of values, a default, and ``convert(value, scale) -> {kwarg: value}``
    (None: the constructor argument ``name`` takes the value unchanged)."""

    name: str
    label: str
    grid: list
    default: object
    help: str = ""
    convert: Callable | None = None

    def kwargs(self, value, scale: Scale) -> dict:
        return {self.name: value} if self.convert is None else self.convert(value, scale)


@dataclass
class PathSpec:
    """A warm-started path over one slider's grid, from its largest value downwards.

    ``start(estimator, X, Y, callback)`` fits the top of the path cold; ``step(model, value,
    callback, keep)`` returns a new model at ``value`` warm-started from ``model`` (never modifying
    it; the objects in ``keep`` are shared, not copied); ``describe(model)`` the small summary the
    pages show (no large objects: a dashboard keeps one per point; the sparse CDN's graph is built on
    demand by :class:`mlviz.dashboard.compute.PathStep`), with the absolute value of the path parameter under its name (e.g. ``gamma``).
    """

    start: Callable
    step: Callable
    describe: Callable


@dataclass
class Method:
    key: str
    label: str
    model: str
    params: list
    fixed: dict = field(default_factory=dict)
    fast: tuple = ()
    path: PathSpec | None = None
    path_param: str | None = None
    description: str = ""

    def param(self, name) -> Param:
        return next(p for p in self.params if p.name == name)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}

    def complete(self, values: dict) -> dict:
        """Every slider's value: ``values`` with the defaults of the missing ones (unknown names dropped)."""
        return {p.name: values.get(p.name, p.default) for p in self.params}

    def kwargs(self, values: dict, scale: Scale, *, with_fixed: bool = True) -> dict:
        """Constructor keyword arguments for slider ``values`` (the path slider excluded)."""
        kw = dict(self.fixed) if with_fixed else {}
        for p in self.params:
            if p.name in values and p.name != self.path_param:
                kw.update(p.kwargs(values[p.name], scale))
        return kw

    def estimator(self, values: dict, scale: Scale):
        import mlviz.models as models

        return getattr(models, self.model)(**self.kwargs(self.complete(values), scale))

    def split(self, values: dict):
        """``(slow, fast, point)``: values of the base model, of ``refit``, and the path position."""
        values = self.complete(values)
        point = values.pop(self.path_param, None) if self.path_param else None
        fast = {k: v for k, v in values.items() if k in self.fast}
        slow = {k: v for k, v in values.items() if k not in self.fast}
        return slow, fast, point

    def neighbours(self, values: dict) -> list:
        """Slider values one grid step away in each non-path slider (the prefetch candidates)."""
        values = self.complete(values)
        out = []
        for p in self.params:
            if p.name == self.path_param or len(p.grid) < 2 or values[p.name] not in p.grid:
                continue
            i = p.grid.index(values[p.name])
            for j in (i + 1, i - 1):
                if 0 <= j < len(p.grid):
                    out.append((f"{p.name}{'+' if j > i else '-'}", {**values, p.name: p.grid[j]}))
        return out


def key(data_key: str, method_key: str, values: dict, *extra) -> str:
    """The cache key of a result: data set, method, sorted slider values, then ``extra`` parts."""
    parts = [data_key, method_key, ",".join(f"{k}={values[k]!r}" for k in sorted(values))]
    return "|".join(parts + [str(e) for e in extra])


# ------------------------------------------------------------------ conversions

def _sigma(value, scale):
    return {"sigma": float(value) * scale.median_distance()}


def _cdn_mu(value, scale):  # the loss is a sum over N instances (paper 001, eq. 4)
    return {"mu": float(value) * scale.n_train}


def _cdn_lam(value, scale):
    return {"lam1": float(value), "lam2": float(value)}


def _br_c(value, scale):
    from sklearn.linear_model import LogisticRegression

    return {"estimator": LogisticRegression(C=float(value), max_iter=2000)}


def median_distance(X, max_samples=1000, random_state=SEED) -> float:
    """Median Euclidean distance between distinct rows of ``X`` (a seeded subset of
    ``max_samples`` rows; 1.0 if all rows coincide) — the σ of the kernel methods' "median"."""
    from mlviz.models import median_sigma

    return median_sigma(X, max_samples=max_samples, random_state=random_state)


# --------------------------------------------------------------- sparse CDN path

def _cdn_start(estimator, X, Y, callback):
    """The γ → ∞ model (V = 0: the label-independent start model; it also yields γ_max)."""
    return estimator.set_params(gamma=1e12).fit(X, Y, callback=callback)


def _cdn_step(model, ratio, callback, keep=()):
    """``model`` refitted at γ = ratio · γ_max, warm-started; ``model`` itself is left as it was
    (a deep copy is refitted, sharing the objects in ``keep``, e.g. the training features, and the
    model's own validated training data, which a refit reads and never changes: 10.5 MB of labels
    per point at 10.7k × 983)."""
    shared = (*keep, *getattr(model, "_train", ()))
    return copy.deepcopy(model, {id(x): x for x in shared}).refit(gamma_ratio=float(ratio), callback=callback)


def _cdn_describe(model) -> dict:
    hist = np.asarray(getattr(model, "objective_history_", []), dtype=float)
    return dict(n_edges=int(np.count_nonzero(model.label_coef_)),  # (the graph: PathStep["graph"], on demand)
                n_features=int(len(model.selected_features_)), n_iter=int(getattr(model, "n_iter_", len(hist))),
                history=hist[np.isfinite(hist)], gamma=float(model.gamma),
                gamma_max=float(getattr(model, "gamma_max_", 0.0)), converged=bool(getattr(model, "converged_", True)),
                note=None if getattr(model, "converged_", True) else (
                    f"FISTA stopped after {model.max_iter} iterations, before its tolerance (largest entry of the "
                    f"gradient mapping ≤ {model.tol:g}): this fit is close to the optimum, not at it. "
                    "Larger λ or μ converge faster."))


CDN_PATH = PathSpec(start=_cdn_start, step=_cdn_step, describe=_cdn_describe)


def _n_centers(value, scale):
    return {"n_centers": None if value == "all" else value}


def _centres():
    """Kernel centres B (landmarks): the kernel estimators' ``n_centers``."""
    return Param("n_centers", "Kernel centres B", [250, 500, 1000, 2000, "auto", "all"], "auto",
                 "Training points used as kernel centres. auto (the estimators' default) = all of them up to "
                 "2,000 training points (the exact kernel model on every bundled data set), else 2,000 chosen at "
                 "random: memory n × B instead of n × n. all = the exact model at any size (may be refused as too "
                 "large). Fewer centres are faster; 1,000 were within 0.01 micro-F1 of the exact model on the "
                 "five bundled sets (benchmarks/RESULTS.md, kernels section).", convert=_n_centers)


def _sigma_factor():
    return Param("sigma_factor", "σ (× median distance)", [0.25, 0.5, 1.0, 2.0, 4.0], 1.0,
                 "Gaussian kernel width as a multiple of the median pairwise distance of the training inputs.",
                 convert=_sigma)


#: The sparse CDN's slider defaults, chosen by the documented sweep of benchmarks/sweep_cdn_dashboard.py
#: (benchmarks/RESULTS.md, "defaults (session 6): sparse-CDN slider defaults of the dashboard").
CDN_DEFAULTS = {"gamma": 0.5, "mu": 0.0, "lam": 1.0}
CDN_EVIDENCE = ("Defaults λ = 1, μ / N = 0, γ / γ_max = 0.5 (before: 0.1, 0.003, 0.1) from a documented sweep "
                "(λ ∈ {0.1, 1, 10} × μ / N ∈ {0, 0.003} × γ / γ_max ∈ {0.1, 0.3, 0.5}, 3-fold CV, default scaling, "
                "against BR-LR C = 1 on the same folds; benchmarks/RESULTS.md, “sparse-CDN slider defaults”): "
                "the setting whose worst difference from BR-LR over the five bundled sets is smallest (micro-F1 and "
                "P@1 within 0.003 of BR-LR on every set). Stronger penalties (λ = 10 or μ / N = 0.003) gain up to "
                "+0.05 micro-F1 on the dense sets but lose up to 0.39 on the text sets (L2-normalised rows), so no "
                "single value serves both: tick Tune on Compare for per-set selection.")
CDN_EVIDENCE_SHORT = ("Default chosen jointly with the other sliders by a documented sweep "
                      "(benchmarks/RESULTS.md, “sparse-CDN slider defaults”; see the λ slider's help).")

METHODS = {
    m.key: m
    for m in [
        Method(
            "mllspc", "ML-LSPC", "MLLSPC",
            [Param("lam", "λ (ridge)", LOG_SMALL, 0.01,
                   "ℓ2 regularisation of every label's parameters. Default 0.01 (also the estimator's): the "
                   "documented sweep (docs/reproductions.md, “defaults-sweep”: 3-fold CV on emotions, scene, yeast, "
                   "enron, medical) ranked λ = 0.01, γ = 0.1 first on all five data sets."),
             Param("gamma", "γ (label coupling)", [0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0], 0.1,
                   "Strength of the pull between parameters of correlated labels (0 = independent LSPC). "
                   "Default 0.1 (also the estimator's): best with λ = 0.01 on all five bundled data sets in the "
                   "documented sweep (docs/reproductions.md, “defaults-sweep”)."),
             _sigma_factor(), _centres()],
            fixed=dict(random_state=SEED), fast=("lam", "gamma"),
            description="Least-squares probabilistic classifier for all labels at once (paper 000).",
        ),
        Method(
            "lspc", "LSPC (per label)", "LSPC",
            [Param("lam", "λ (ridge)", LOG_SMALL, 0.1, "ℓ2 regularisation."), _sigma_factor(), _centres()],
            fixed=dict(random_state=SEED), fast=("lam",), description="Plain LSPC, each label on its own (paper 004).",
        ),
        Method(
            "cdn", "Sparse CDN", "SparseCDN",
            [Param("gamma", "γ / γ_max (ℓ1 on label edges)", [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1.0],
                   CDN_DEFAULTS["gamma"],
                   "Fraction of γ_max, the smallest γ with an empty graph (computed from the data). "
                   "Larger γ removes label→label edges; 1 = no edge. " + CDN_EVIDENCE_SHORT),
             Param("mu", "μ / N (ℓ2,1 on features)", [0.0, 0.001, 0.003, 0.01, 0.03, 0.1], CDN_DEFAULTS["mu"],
                   "ℓ2,1 weight divided by the number of training instances N (the loss is a sum over "
                   "instances, eq. 4). Larger μ switches off features for all labels at once. " + CDN_EVIDENCE_SHORT,
                   convert=_cdn_mu),
             Param("lam", "λ1 = λ2 (ℓ2)", [1e-3, 1e-2, 0.1, 1.0, 10.0], CDN_DEFAULTS["lam"],
                   "ℓ2 regularisation of W and V (λ = 1 is scikit-learn's C = 1, BR-LR's default). " + CDN_EVIDENCE,
                   convert=_cdn_lam),
             Param("variant", "Variant", ["sparse", "l1-cdn", "cdn", "l21-lr", "lr"], "sparse",
                   "sparse: ℓ1 on V + ℓ2,1 on W; l1-cdn: ℓ1 on V; cdn: ℓ2 only; l21-lr / lr: no label features.")],
            fixed=dict(random_state=SEED), path=CDN_PATH, path_param="gamma",
            description="Sparse conditional dependency network, FISTA + Gibbs sampling (paper 001).",
        ),
        Method(
            "pcc", "PCC", "PCC", [], fixed=dict(random_state=SEED),
            description="Probabilistic classifier chain (baseline of paper 001).",
        ),
        Method(
            "mllem", "MLLEM", "MLLEM",
            [Param("k_instances", "k (instances)", [2, 3, 5, 8, 10, 15, 20, 30], 20, "Neighbours in the instance kNN graph."),
             Param("k_labels", "k (labels)", [0, 1, 2, 3, 5, 8, 10], 5, "Top co-occurring labels linked to each label."),
             Param("alpha", "α (instance–instance weight)", [0.0, 0.1, 0.3, 1.0, 3.0, 10.0], 0.1, "Weight of W_II."),
             Param("beta", "β (label–label weight)", [0.0, 0.1, 0.3, 1.0, 3.0, 10.0], 0.1, "Weight of W_LL."),
             Param("mapping", "Test mapping", ["nonlinear", "linear"], "nonlinear",
                   "nonlinear: mean of the k nearest training points' coordinates; linear: ridge regression."),
             Param("n_components", "Dimensions", [2, 3, 10, 20], 10, "Embedding dimensions.")],
            fixed=dict(random_state=SEED),
            fast=("k_instances", "k_labels", "alpha", "beta", "mapping", "n_components"),
            description="Joint label–instance Laplacian eigenmap (paper 002).",
        ),
        Method(
            "mlrh", "MLRH", "MLRH",
            [Param("reg", "regularisation", [1e-4, 1e-3, 1e-2, 0.1, 1.0], 1e-3, "ℓ2 penalty on the weights."),
             Param("kernel", "Features", ["linear", "rbf"], "linear", "linear inputs or Gaussian-kernel features.")],
            fixed=dict(prediction="marginal"),
            description="Multi-label logistic regression with hidden variables; Z by a DP (paper 003).",
        ),
        Method(
            "br", "BR-LR", "BinaryRelevance",
            [Param("C", "C (inverse ℓ2)", [0.01, 0.1, 1.0, 10.0, 100.0], 1.0,
                   "Inverse regularisation of each logistic regression.", convert=_br_c)],
            description="Binary relevance: one logistic regression per label.",
        ),
        Method(
            "mlknn", "ML-kNN", "MLkNN",
            [Param("k", "k (neighbours)", [1, 3, 5, 8, 10, 15, 20, 30], 10, "Number of neighbours."),
             Param("s", "s (smoothing)", [0.1, 0.5, 1.0, 2.0], 1.0, "Laplace smoothing of the counts.")],
            description="Bayesian kNN (Zhang & Zhou 2007).",
        ),
        Method(
            "lp", "LP-LR", "LabelPowerset", [], description="Label powerset: one multinomial LR over observed label sets.",
        ),
        Method(
            "klr", "Kernel LR", "KernelLogisticRegression",
            [Param("lam", "λ (ℓ2)", [1e-3, 1e-2, 0.1, 1.0, 10.0], 0.01,
                   "ℓ2 penalty on the kernel coefficients. Default 0.01 (the estimator's): chosen by the documented "
                   "sweep (docs/reproductions.md, “defaults-sweep-extra”: 3-fold CV on the five bundled sets)."),
             _sigma_factor(), _centres()],
            fixed=dict(random_state=SEED),
            description="Gaussian-kernel logistic regression per label (timing baseline of paper 004); Newton–CG "
                        "until every label's scaled gradient is below 1e-6 (its convergence is shown).",
        ),
    ]
}

#: Methods with test posteriors, in the order the pages offer them.
POSTERIOR_METHODS = ["mllspc", "mlrh", "cdn", "mllem", "br", "mlknn", "lspc", "pcc", "lp", "klr"]
