"""The models offered in the dashboard, their slider grids, and slider-fast fitting.

Each :class:`Method` names an estimator of :mod:`mlviz.models`, the
hyperparameters shown as sliders (each a fixed grid, so every position is a
cache key and a URL value), and which of them the estimator's ``refit`` can
change cheaply (``fast``).  :func:`fit_predict` then

1. fits a **base model** once per data set and *slow* parameters
   (``st.cache_resource``: kernel eigendecompositions, kNN lists, …);
2. on a slider move of a *fast* parameter calls ``model.refit(**fast)`` under a
   per-model lock and predicts (``st.cache_data`` keyed by all parameters),

so a λ/γ move of ML-LSPC or an α/β move of MLLEM costs a refit, not a fit.
Methods whose module has not landed are reported as unavailable instead of
breaking a page.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field

import numpy as np
import streamlit as st

from . import cache

LOG_SMALL = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0, 3.0, 10.0]
SEED = 0


@dataclass
class Param:
    """One slider: constructor argument ``name``, a grid of values and a default."""

    name: str
    label: str
    grid: list
    default: object
    help: str = ""


@dataclass
class Method:
    key: str
    label: str
    model: str
    params: list
    fixed: dict = field(default_factory=dict)
    fast: tuple = ()
    description: str = ""

    def param(self, name):
        return next(p for p in self.params if p.name == name)

    def defaults(self):
        return {p.name: p.default for p in self.params}


def _sigma_factor():
    return Param("sigma_factor", "σ (× median distance)", [0.25, 0.5, 1.0, 2.0, 4.0], 1.0,
                 "Gaussian kernel width as a multiple of the median pairwise distance of the training inputs.")


METHODS = {
    m.key: m
    for m in [
        Method(
            "mllspc", "ML-LSPC", "MLLSPC",
            [Param("lam", "λ (ridge)", LOG_SMALL, 0.1, "ℓ2 regularisation of every label's parameters."),
             Param("gamma", "γ (label coupling)", [0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0], 1.0,
                   "Strength of the pull between parameters of correlated labels (0 = independent LSPC)."),
             _sigma_factor()],
            fixed=dict(random_state=SEED), fast=("lam", "gamma"),
            description="Least-squares probabilistic classifier for all labels at once (paper 000).",
        ),
        Method(
            "lspc", "LSPC (per label)", "LSPC",
            [Param("lam", "λ (ridge)", LOG_SMALL, 0.1, "ℓ2 regularisation."), _sigma_factor()],
            fixed=dict(random_state=SEED), fast=("lam",), description="Plain LSPC, each label on its own (paper 004).",
        ),
        Method(
            "cdn", "Sparse CDN", "SparseCDN",
            [Param("gamma", "γ / γ_max (ℓ1 on label edges)", [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1.0], 0.1,
                   "Fraction of γ_max, the smallest γ with an empty graph (computed from the data). "
                   "Larger γ removes label→label edges; 1 = no edge."),
             Param("mu", "μ / N (ℓ2,1 on features)", [0.0, 0.001, 0.003, 0.01, 0.03, 0.1], 0.003,
                   "ℓ2,1 weight divided by the number of training instances N (the loss is a sum over "
                   "instances, eq. 4). Larger μ switches off features for all labels at once."),
             Param("lam", "λ1 = λ2 (ℓ2)", [1e-3, 1e-2, 0.1, 1.0], 0.1, "ℓ2 regularisation of W and V."),
             Param("variant", "Variant", ["sparse", "l1-cdn", "cdn", "l21-lr", "lr"], "sparse",
                   "sparse: ℓ1 on V + ℓ2,1 on W; l1-cdn: ℓ1 on V; cdn: ℓ2 only; l21-lr / lr: no label features.")],
            fixed=dict(random_state=SEED), fast=("gamma",),
            description="Sparse conditional dependency network, FISTA + Gibbs sampling (paper 001).",
        ),
        Method(
            "pcc", "PCC", "PCC", [], fixed=dict(random_state=SEED),
            description="Probabilistic classifier chain (baseline of paper 001).",
        ),
        Method(
            "mllem", "MLLEM", "MLLEM",
            [Param("k_instances", "k (instances)", [2, 3, 5, 8, 10, 15, 20, 30], 10, "Neighbours in the instance kNN graph."),
             Param("k_labels", "k (labels)", [0, 1, 2, 3, 5, 8, 10], 5, "Top co-occurring labels linked to each label."),
             Param("alpha", "α (instance–instance weight)", [0.0, 0.1, 0.3, 1.0, 3.0, 10.0], 1.0, "Weight of W_II."),
             Param("beta", "β (label–label weight)", [0.0, 0.1, 0.3, 1.0, 3.0, 10.0], 1.0, "Weight of W_LL."),
             Param("mapping", "Test mapping", ["nonlinear", "linear"], "nonlinear",
                   "nonlinear: mean of the k nearest training points' coordinates; linear: ridge regression.")],
            fixed=dict(n_components=20, random_state=SEED),
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
            [Param("C", "C (inverse ℓ2)", [0.01, 0.1, 1.0, 10.0, 100.0], 1.0, "Inverse regularisation of each logistic regression.")],
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
            [Param("lam", "λ (ℓ2)", [1e-3, 1e-2, 0.1, 1.0, 10.0], 0.1, "ℓ2 penalty on the kernel coefficients."),
             _sigma_factor()],
            fixed=dict(random_state=SEED, tol=1e-4, max_iter=300),
            description="Gaussian-kernel logistic regression per label (timing baseline of paper 004).",
        ),
    ]
}

POSTERIOR_METHODS = ["mllspc", "mlrh", "cdn", "mllem", "br", "mlknn", "lspc", "pcc", "lp", "klr"]


def availability(method: Method):
    """``None`` if the estimator can be imported, else a short reason."""
    try:
        models = importlib.import_module("mlviz.models")
        getattr(models, method.model)
    except Exception as exc:
        return f"{method.label} is not available yet ({type(exc).__name__}: {exc})"
    return None


def heavy_reason(ctx, method: Method):
    """A warning text when one fit of ``method`` on ``ctx`` is expected to take
    more than ~20 s on a 2-core machine (measured on the bundled sets), else None."""
    n, L = ctx.Y_train.shape
    d = ctx.dataset.n_features
    if method.key in ("cdn", "pcc", "mlrh", "br", "lp") and d * L > 20000:
        return f"{method.label} fits {L} labels on {d} features here: expect minutes per fit."
    if method.key in ("mllspc", "lspc") and n > 2000:
        return f"{method.label} factorises an {n} × {n} kernel matrix here: expect tens of seconds."
    if method.key == "klr" and n > 800:
        return f"Kernel LR runs L-BFGS on an {n} × {n} kernel for {L} labels here: expect minutes."
    return None


def confirm_heavy(ctx, method: Method, key: str) -> bool:
    """True if ``method`` is cheap on ``ctx`` or the user asked to fit it anyway.

    Heavy fits wait for a click instead of freezing a page on open; the choice
    is remembered for the session (per data set and method).
    """
    reason = heavy_reason(ctx, method)
    if reason is None:
        return True
    flag = f"mlviz_heavy_ok|{ctx.key}|{method.key}"
    if st.session_state.get(flag):
        return True
    st.warning(reason + " The result is cached once computed.", icon=":material/hourglass_top:")
    if st.button(f"Fit {method.label} anyway", key=f"{key}_heavy_{method.key}"):
        st.session_state[flag] = True
        return True
    return False


@st.cache_data(max_entries=16, show_spinner=False)
def median_distance(key: str, _X) -> float:
    from mlviz.models._kernels import median_sigma

    return float(median_sigma(_X, max_samples=1000, random_state=SEED))


def build_kwargs(ctx, method: Method, values: dict, *, with_fixed: bool = True) -> dict:
    """Constructor kwargs from slider values (σ factor → σ; BR's C → estimator)."""
    kw = dict(method.fixed) if with_fixed else {}
    for name, v in values.items():
        if name == "sigma_factor":
            kw["sigma"] = float(v) * median_distance(ctx.key, ctx.X_train)
        elif method.key == "br" and name == "C":
            from sklearn.linear_model import LogisticRegression

            kw["estimator"] = LogisticRegression(C=float(v), max_iter=2000)
        elif method.key == "cdn" and name == "lam":
            kw["lam1"] = kw["lam2"] = float(v)
        elif method.key == "cdn" and name == "mu":
            kw["mu"] = float(v) * ctx.Y_train.shape[0]
        elif method.key == "cdn" and name == "gamma":
            c = cdn_settings(values)
            kw["gamma"] = float(v) * cdn_gamma_max(ctx, c["lam"], c["mu"], c["variant"])
        else:
            kw[name] = v
    return kw


def make_estimator(ctx, method: Method, values: dict):
    import mlviz.models as models

    return getattr(models, method.model)(**build_kwargs(ctx, method, values))


def _split(method, values):
    has_refit = None
    fast = {k: v for k, v in values.items() if k in method.fast}
    slow = {k: v for k, v in values.items() if k not in method.fast}
    return fast, slow, has_refit


def base_model(ctx, method: Method, values: dict):
    """The cached base model for the *slow* parameters (fitted with the fast
    parameters at their current values the first time).  Returns (model, key, fit_seconds)."""
    fast, slow, _ = _split(method, values)
    key = cache.fit_key(ctx, method.key, slow)
    model, seconds = cache.fitted_model(
        key, lambda: make_estimator(ctx, method, values), ctx.X_train, ctx.Y_train
    )
    return model, key, seconds


def with_model(ctx, method: Method, values: dict, fn):
    """Run ``fn(model)`` on a model fitted with ``values``, reusing cached state.

    Returns ``(fn(model), info)`` with ``info = {"fit_seconds", "refit_seconds", "reused", "warnings"}``
    (and ``"warm_start": True`` for the sparse CDN, whose ``fit_seconds`` is its warm-started fit).
    The sparse CDN comes from :func:`mlviz.dashboard.sparse_cdn.current_step`
    (its γ path, or one warm-started refit).
    """
    fast, slow, _ = _split(method, values)
    if method.key == "cdn":
        from . import sparse_cdn

        step = sparse_cdn.current_step(ctx, **cdn_settings(values))
        return fn(step["model"]), _cdn_info(step)
    model, key, fit_seconds = base_model(ctx, method, values)
    with cache.lock_for(key):
        t0 = time.perf_counter()
        reused = False
        if fast and hasattr(model, "refit"):
            current = {k: getattr(model, k, None) for k in fast}
            if current != fast:
                model = model.refit(**build_kwargs(ctx, method, fast, with_fixed=False))  # MLLEM/ML-LSPC: in place
                reused = True
        elif fast and any(getattr(model, k, v) != v for k, v in fast.items()):
            model.set_params(**build_kwargs(ctx, method, fast, with_fixed=False)).fit(ctx.X_train, ctx.Y_train)
            fit_seconds = time.perf_counter() - t0
        refit_seconds = time.perf_counter() - t0
        out = fn(model)
        notes = list(getattr(model, "_dashboard_warnings", []))
    return out, {"fit_seconds": fit_seconds, "refit_seconds": refit_seconds, "reused": reused, "warnings": notes}


def values_key(ctx, method: Method, values: dict) -> str:
    return cache.fit_key(ctx, method.key, values)


def _finite(P):
    P = np.asarray(P, dtype=np.float64)
    if not np.all(np.isfinite(P)):
        P = np.nan_to_num(P, nan=0.0, posinf=1.0, neginf=0.0)
    return np.clip(P, 0.0, 1.0)


def cdn_settings(values: dict) -> dict:
    """Sparse CDN slider ``values`` (``gamma`` = γ / γ_max) as ``lam``, ``mu``, ``variant``, ``ratio``
    (the arguments of :mod:`.sparse_cdn` and :mod:`.cdn_jobs`; missing sliders at their defaults)."""
    p = {q.name: q.default for q in METHODS["cdn"].params}
    return dict(lam=values.get("lam", p["lam"]), mu=values.get("mu", p["mu"]),
                variant=values.get("variant", p["variant"]), ratio=values.get("gamma", p["gamma"]))


def _cdn_info(step, t0=None) -> dict:
    """The timing ``info`` of a sparse CDN fit (a warm-started refit, see :mod:`.sparse_cdn`)."""
    from .sparse_cdn import convergence_note

    note = convergence_note(step)
    info = {"fit_seconds": step["seconds"], "refit_seconds": 0.0, "reused": False, "warm_start": True,
            "warnings": [note] if note else []}
    if t0 is not None:
        info["total_seconds"] = time.perf_counter() - t0
    return info


def predict_test(ctx, method: Method, values: dict):
    """``(P_test (n_test, L), info)`` for ``method`` with ``values`` (cached)."""
    key = "proba|" + values_key(ctx, method, values)

    def compute():
        t0 = time.perf_counter()
        P, info = with_model(ctx, method, values, lambda m: m.predict_proba(ctx.X_test))
        info["total_seconds"] = time.perf_counter() - t0
        return _finite(P), info

    pre = cache.prebuilt(key)
    if pre is not None:
        return pre
    return cache.posterior(key, compute)


def prebuild_cdn_posteriors(ctx, values, figure_builders):
    """In the background, compute P (and figures) for every other γ of the CDN path,
    then for the neighbouring μ and λ values.

    The path of the current (λ, μ, variant) is computed in the background too
    (seeded by the current fit); the posteriors wait for it.  Then, at lowest
    priority, the fits at the neighbouring μ / λ slider values and their test
    posteriors and figures (:func:`mlviz.dashboard.cdn_prefetch.prefetch_neighbours`):
    on the larger data sets a μ / λ move's time is the refit (0.3-1 s on
    scene), then ``predict_proba`` (Gibbs sampling, ~0.1 s) and the two figures.
    ``figure_builders(holder, key)`` returns ``{figure key: build}`` for one
    posterior, ``holder["P"]`` being ``(P, info)`` once computed.
    """
    from . import cdn_prefetch, sparse_cdn

    method = METHODS["cdn"]
    here = cdn_settings(values)
    lam, mu, variant = here["lam"], here["mu"], here["variant"]
    try:  # background preparation never breaks the page (a failed path is reported where it is shown)
        # The fit on screen (a lookup: the page has just used it; None if it has left every cache).
        step = sparse_cdn.current_step(ctx, lam=lam, mu=mu, variant=variant, ratio=values["gamma"], fit=False)
        sparse_cdn.gamma_path(ctx, lam=lam, mu=mu, variant=variant, seed=step)  # under way, seeded by that fit
    except Exception:
        return
    builders = {}
    for g in method.param("gamma").grid:
        if g == values["gamma"]:
            continue
        vkey = values_key(ctx, method, {**values, "gamma": g})
        holder = {}

        def compute_p(g=g, holder=holder):
            t0 = time.perf_counter()
            path = sparse_cdn.wait_path(ctx, lam=lam, mu=mu, variant=variant)
            if path is None:
                raise RuntimeError("the γ path was not computed")
            step = path["steps"][path["gammas"].index(g)]
            holder["P"] = (_finite(step["model"].predict_proba(ctx.X_test)), _cdn_info(step, t0))
            return holder["P"]

        builders["proba|" + vkey] = compute_p
        for fkey, build in figure_builders(holder, vkey).items():
            builders[fkey] = build
    cache.prebuild(f"cdn-post|{ctx.key}|{values_key(ctx, method, {**values, 'gamma': None})}", builders)
    if step is None:
        return

    def neighbour_posteriors(lam_, mu_, s_):
        vkey = values_key(ctx, method, {**values, "lam": lam_, "mu": mu_})
        holder = {}
        pre = cache.prebuilt("proba|" + vkey)
        if pre is not None:
            holder["P"] = pre

        def compute_p():
            t0 = time.perf_counter()
            holder["P"] = (_finite(s_["model"].predict_proba(ctx.X_test)), _cdn_info(s_, t0))
            return holder["P"]

        return {"proba|" + vkey: compute_p, **figure_builders(holder, vkey)}

    cdn_prefetch.prefetch_neighbours(ctx, lam=lam, mu=mu, variant=variant, step=step, extras=neighbour_posteriors,
                                   tag="posteriors|" + ",".join(sorted(figure_builders({}, "").keys())))


def request_cdn(ctx, values: dict, owner: str):
    """The sparse CDN fit at ``values`` without freezing the page: ``(step, None)`` or
    ``(None, job)`` as :func:`mlviz.dashboard.cdn_jobs.request`.  A fit done in the
    background also computes its test posteriors there (stored for :func:`predict_test`)."""
    from . import cdn_jobs

    pkey = "proba|" + values_key(ctx, METHODS["cdn"], values)

    def posteriors(step):
        if cache.prebuilt(pkey) is None:
            t0 = time.perf_counter()
            cache.put_prebuilt(pkey, (_finite(step["model"].predict_proba(ctx.X_test)), _cdn_info(step, t0)))

    return cdn_jobs.request(ctx, **cdn_settings(values), owner=owner, after=posteriors)


# ------------------------------------------------------------ sparse CDN

def cdn_gamma_max(ctx, lam, mu, variant) -> float:
    """γ_max of the sparse CDN on the training split (see :mod:`~mlviz.dashboard.sparse_cdn`)."""
    from . import sparse_cdn

    return sparse_cdn.gamma_max(ctx, lam, mu, variant)
