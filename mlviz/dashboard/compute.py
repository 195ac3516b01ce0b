"""Every slow dashboard result (fits, regularisation paths, posteriors, layouts, cross-validation) as a job of
one runner, keyed by its settings only.

A result is a pure function of the data set and the slider values in the URL:

* a method without a path: a **base model** per value of its slow sliders is
  fitted once (kernel eigendecompositions, kNN lists); a fast slider's result
  is ``deepcopy(base).refit(**fast)`` (the estimators' ``refit`` equals a fresh
  fit at those values), never a refit of whatever was shown before;
* a method with a path (the sparse CDN's γ): the **whole path** of the other
  sliders' values, from the top of the grid downwards with warm starts only
  along it (as ``sklearn.linear_model.lasso_path``), published point by point
  as it goes, so a γ move is a lookup and the same URL gives the same graph
  whoever asked before.

Pages call :func:`model_result` / :func:`task` with an ``owner`` (browser
session, page slot) and draw the job with :func:`mlviz.dashboard.progress.show`;
:func:`prefetch` prepares the neighbouring slider values at low priority.  No
Streamlit here.  Environment: ``MLVIZ_WORKERS`` (threads for the work users wait for, default 2),
``MLVIZ_PREFETCH_WORKERS`` (threads for work ahead of time, default: the CPU count less one, at
least 1 — a fit prepared ahead cannot pause mid-way, so on two cores one core stays for the page),
``MLVIZ_CACHE_MB`` (result cache, default 768 MB), ``MLVIZ_WAIT`` (seconds a
rerun waits for a job before answering without it, default 0.15).

The work runs as concurrent jobs, so each BLAS / OpenMP call gets one thread
(:func:`mlviz._threads.one_blas_thread`, called by every page, unless ``OMP_NUM_THREADS``,
``OPENBLAS_NUM_THREADS`` or ``MKL_NUM_THREADS`` is set): the jobs, not BLAS, use the cores.
"""

from __future__ import annotations

import copy
import math
import os
import time

import numpy as np

from . import jobs
from .methods import MethodSpec as Method
from .methods import Scale, key, median_distance


def _env_float(name, default):
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if math.isfinite(value) and value >= 0 else default


RUNNER = jobs.Runner(workers=max(1, int(_env_float("MLVIZ_WORKERS", 2))),
                     prefetch_workers=max(1, int(_env_float("MLVIZ_PREFETCH_WORKERS", (os.cpu_count() or 2) - 1))))
#: Above this fraction of the result cache's budget nothing new is prepared ahead (:func:`prefetch`).
PREFETCH_FILL = 0.5
#: Seconds a rerun waits for its job before it answers with the previous result and a notice.
WAIT = _env_float("MLVIZ_WAIT", 0.15)


def scale(ctx) -> Scale:
    """What slider values are relative to on ``ctx`` (median distance computed once per data set)."""
    def median():
        k = f"{ctx.key}|median-distance"
        value = RUNNER.peek(k)
        if value is None:
            value = median_distance(ctx.X_train)
            RUNNER.results.put(k, value)
        return value

    return Scale(n_train=int(ctx.Y_train.shape[0]), median_distance=median)


def finite(P) -> np.ndarray:
    """Probabilities as finite float64 in [0, 1] (NaN → 0, ±inf → 1 / 0)."""
    P = np.nan_to_num(np.asarray(P, dtype=np.float64), nan=0.0, posinf=1.0, neginf=0.0)
    return np.clip(P, 0.0, 1.0)


# ------------------------------------------------------------------- the units of work

def _progress(token):
    """An estimator's ``callback(stage, n_iter, objective)`` that reports to ``token`` (and may cancel)."""
    return lambda stage, n_iter, objective: token.report(stage=stage, n_iter=int(n_iter), objective=float(objective))


def _base_fn(ctx, method: Method, slow: dict):
    """Job: the base model of ``slow`` values (fast sliders at their defaults): ``(model, seconds)``."""
    def fn(token):
        values = {**method.defaults(), **slow}
        est = method.from_sliders(values, scale(ctx))
        token.check()
        t0 = time.perf_counter()
        model = est.fit(ctx.X_train, ctx.Y_train)
        return model, time.perf_counter() - t0
    return fn


class PathStep(dict):
    """One point of a path (see :func:`_path_fn`): ``method.path.describe(model)`` plus ``model``,
    ``point``, ``seconds`` and ``path`` (the path's cache key).  Its ``"graph"`` (the model's
    ``label_graph_``) is not stored in the step: the networkx graph of a sparse CDN at 983 labels
    and γ = 0.001·γ_max has ~630k edges (~190 MB), and a path holds eight points.  It is built on
    the first ``step["graph"]`` (0.6 s at 630k edges) and kept in the result cache beside the path
    only while the budget has room: a graph, which can be rebuilt, never pushes another result
    out (the figures prepared ahead of time build the graph of every point)."""

    EDGE_BYTES = 300  # a DiGraph edge in both adjacency dicts with its attribute dict (measured: 294 B)

    def _graph_key(self):
        return f"{self.get('path', id(self['model']))}|graph|{self.get('point')!r}"

    def __missing__(self, name):
        if name != "graph" or "model" not in self:
            raise KeyError(name)
        k = self._graph_key()
        graph = RUNNER.results.get(k)
        if graph is None:
            graph = self["model"].label_graph_
            size = self.EDGE_BYTES * graph.number_of_edges() + 1000 * graph.number_of_nodes()
            RUNNER.results.put(k, graph, size=size, evict=False)  # (a byte walk would take 3 s at 630k edges)
        return graph

    def subgraph(self, nodes):
        """``self["graph"].subgraph(nodes)``; while that graph is not kept, the same graph read from
        the model's V[nodes][:, nodes] alone (the default view draws ≤ 50 labels: their graph needs
        no 630k-edge graph of all 983)."""
        if self._graph_key() in RUNNER.results:
            return self["graph"].subgraph(nodes)
        return self["model"]._make_graph(self["model"].label_coef_, sorted({int(v) for v in nodes}))


def step_subgraph(step, nodes):
    """The graph of path ``step`` restricted to ``nodes`` (:meth:`PathStep.subgraph`; for a plain
    step dict with a ``"graph"``, its subgraph)."""
    return step.subgraph(nodes) if isinstance(step, PathStep) else step["graph"].subgraph(nodes)


def _path_fn(ctx, method: Method, slow: dict):
    """Job: the path of ``slow`` values over the path slider's grid, top down; ``{point: step}``
    published as each point finishes.  A step is a :class:`PathStep`: ``method.path.describe(model)``
    plus ``model``, ``point``, ``seconds`` and ``path``.  A cancelled path keeps its points (``<key>|partial``)
    and a later request resumes from its last point: the same computations, so the same results."""
    grid = sorted(method.param(method.path_param).grid, reverse=True)
    k = key(ctx.key, method.key, slow, "path")

    def fn(token):
        cb = _progress(token)
        steps = dict(RUNNER.peek(k + "|partial") or {})
        t0 = time.perf_counter()
        if steps:
            model = steps[min(steps)]["model"]
        else:
            model = method.path.start(method.from_sliders(slow, scale(ctx)), ctx.X_train, ctx.Y_train, cb)
        extra = time.perf_counter() - t0
        token.publish(dict(steps))
        try:
            for point in grid:
                if point in steps:
                    continue
                t0 = time.perf_counter()
                model = method.path.step(model, point, cb, keep=(ctx.X_train, ctx.Y_train))
                steps[point] = PathStep(method.path.describe(model), model=model, point=point, path=k,
                                        seconds=time.perf_counter() - t0 + extra)
                extra = 0.0
                token.publish(dict(steps))
        except jobs.Cancelled:
            if steps:
                RUNNER.results.put(k + "|partial", dict(steps))
            raise
        RUNNER.results.pop(k + "|partial")
        return steps
    return fn


def path_key(ctx, method: Method, values: dict) -> str:
    slow, _, _ = method.split(values)
    return key(ctx.key, method.key, slow, "path")


def base_key(ctx, method: Method, values: dict) -> str:
    slow, _, _ = method.split(values)
    return key(ctx.key, method.key, slow, "base")


def _model(ctx, method: Method, values: dict, token):
    """Inside a job: ``(model, info)`` fitted at ``values`` (see the module docstring)."""
    slow, fast, point = method.split(values)
    if method.path is not None:
        steps = RUNNER.need(path_key(ctx, method, values), _path_fn(ctx, method, slow), token)
        step = steps[point]
        return step["model"], {"fit_seconds": step["seconds"], "warm_start": True,
                               "warnings": [step["note"]] if step.get("note") else []}
    base, seconds = RUNNER.need(base_key(ctx, method, values), _base_fn(ctx, method, slow), token)
    info = {"fit_seconds": seconds, "warnings": []}
    defaults = method.defaults()
    if any(v != defaults.get(k) for k, v in fast.items()) and hasattr(base, "refit"):  # (the base
        # model is fitted at the fast sliders' defaults: no refit there, ~6 s of MLLEM at 983 labels)
        t0 = time.perf_counter()
        model = copy.deepcopy(base).refit(**method.kwargs(fast, scale(ctx), with_fixed=False))
        info.update(refit_seconds=time.perf_counter() - t0, reused=True)
        return model, info
    return base, info


def estimator(ctx, method: Method, values: dict, token):
    """Inside a job: an unfitted estimator at ``values`` (a path slider's value made absolute from
    the training path, e.g. γ = ratio · γ_max)."""
    est = method.from_sliders(values, scale(ctx))
    if method.path is not None:
        point = method.complete(values)[method.path_param]
        step = need_path(ctx, method, values, token)[point]
        est.set_params(**{method.path_param: step[method.path_param]})
    return est


def model_key(ctx, method: Method, values: dict, what: str) -> str:
    """The key of ``what`` (e.g. "proba") computed from the model at ``values``."""
    return key(ctx.key, method.key, method.complete(values), what)


def _result_fn(ctx, method: Method, values: dict, fn):
    def job(token):
        model, info = _model(ctx, method, values, token)
        t0 = time.perf_counter()
        out = fn(model)
        info["total_seconds"] = info.get("fit_seconds", 0.0) + time.perf_counter() - t0
        return out, info
    return job


def model_result(ctx, method: Method, values: dict, what: str, fn, *, owner=None,
                 priority=jobs.USER) -> jobs.Job:
    """The job computing ``(fn(model), info)`` for the model at ``values``; ``what`` names ``fn``
    in the cache key (same ``what`` ⇒ same ``fn``)."""
    if method.path is not None:  # the path itself is owned too: a move away cancels it
        path(ctx, method, values, owner=None if owner is None else (owner[0], owner[1] + "|path"),
             priority=priority)
    return RUNNER.submit(model_key(ctx, method, values, what), _result_fn(ctx, method, values, fn),
                         owner=owner, priority=priority)


def _proba(ctx):
    return lambda model: finite(model.predict_proba(ctx.X_test))


def posteriors(ctx, method: Method, values: dict, *, owner=None, priority=jobs.USER) -> jobs.Job:
    """Job: ``(P_test (n_test, L), info)``."""
    return model_result(ctx, method, values, "proba", _proba(ctx), owner=owner, priority=priority)


def describe_model(model) -> dict:
    """What a page says beside a fitted model's posteriors (every entry optional, read with ``getattr``):
    ``decision_rule`` (``decision_rule_``), ``centers`` (kernel models' ``centers_note_``),
    ``factorisation`` (``factorisation_``), ``converged`` / ``grad_max`` / ``n_iter`` (solvers that
    report them, e.g. kernel LR's Newton–CG), ``se_mean`` / ``se_max`` (the sparse CDN's Monte-Carlo
    standard error ``predict_proba_se_`` of its last ``predict_proba``), ``threshold`` (the
    probability cut of a model whose ``predict`` is ``predict_proba >= threshold``, else None)."""
    out = {}
    rule = getattr(model, "decision_rule_", None)
    if isinstance(rule, str) and rule.strip():
        out["decision_rule"] = rule.strip()
    for attr, name in (("centers_note_", "centers"), ("factorisation_", "factorisation")):
        v = getattr(model, attr, None)
        if isinstance(v, str) and v:
            out[name] = v
    if hasattr(model, "converged_"):
        out["converged"] = bool(model.converged_)
    g = getattr(model, "grad_max_", None)
    if g is not None and np.size(g):
        out["grad_max"] = float(np.max(g))
    if getattr(model, "n_iter_", None) is not None:
        try:
            out["n_iter"] = int(np.max(model.n_iter_))
        except (TypeError, ValueError):
            pass
    se = getattr(model, "predict_proba_se_", None)
    if se is not None and np.size(se):
        se = np.nan_to_num(np.asarray(se, dtype=float), nan=0.0)
        out["se_mean"], out["se_max"] = float(se.mean()), float(se.max())
    t = getattr(model, "threshold", None)
    # (the models' mixin predict is ``predict_proba >= threshold``; named as mlviz.evaluation.describe_rule does)
    mixin = getattr(getattr(type(model), "predict", None), "__qualname__", "") == "MultiLabelClassifierMixin.predict"
    out["threshold"] = float(t) if mixin and isinstance(t, (int, float)) and not isinstance(t, bool) else None
    return out


def _report(ctx):
    """``fn(model)``: ``{"P": test posteriors, "pred": the model's own predict (uint8), "about": describe_model}``.

    A model whose ``predict`` is the mixin's ``predict_proba >= threshold`` is not asked twice (the
    same computation: for the sparse CDN a second Gibbs run); every other model's ``predict`` is called."""
    def fn(model):
        raw = np.asarray(model.predict_proba(ctx.X_test), dtype=np.float64)
        about = describe_model(model)  # (after predict_proba: the CDN's standard error is of this call)
        if about["threshold"] is not None:
            pred = model.predict_from_proba(raw)  # (the mixin's rule, "at least one label" included)
        else:
            pred = np.asarray(model.predict(ctx.X_test))
            pred = (pred.toarray() if hasattr(pred, "toarray") else pred).astype(np.uint8)
        return {"P": finite(raw), "pred": pred, "about": about}
    return fn


#: A kernel model whose exact factorisation costs more than this (~ n · B · (B + 2 L) flops, about
#: 1-2 s on one core) is shown first as a quick preview at :data:`PREVIEW_CENTERS` kernel centres.
PREVIEW_FLOPS = 2e10
#: Kernel centres of the quick preview (a value of the centres slider: the preview is exactly what
#: that setting shows).
PREVIEW_CENTERS = 500


def preview_values(ctx, method: Method, values: dict):
    """``(settings, text)`` of a quick preview to draw while the result at ``values`` is computed, or None.

    Only for methods with a kernel-centres slider (``n_centers``) whose exact fit is slow: B
    centres on n training rows and L labels cost ~n · B · (B + 2 L) flops (QR of the n × B design and
    its product with the labels; RESULTS.md, "first views at 983 labels"), 12 s at 10.7k × 2,000 ×
    983.  The preview is the same model with :data:`PREVIEW_CENTERS` centres: an exact result of
    that slider setting, ~15× cheaper there, which the page names on screen and replaces by the
    result at ``values`` when it is done.

    Returns
    -------
    tuple of (dict, str) or None
        The preview's slider values and a phrase saying how they differ ("500 kernel centres instead
        of 2,000").
    """
    from mlviz.models import resolve_n_centers

    values = method.complete(values)
    if "n_centers" not in values:
        return None
    n, L = (int(v) for v in ctx.Y_train.shape)
    wanted = method.param("n_centers").kwargs(values["n_centers"], None)["n_centers"]
    B = resolve_n_centers(n, wanted)
    if B <= PREVIEW_CENTERS or float(n) * B * (B + 2 * L) < PREVIEW_FLOPS:
        return None
    return {**values, "n_centers": PREVIEW_CENTERS}, f"{PREVIEW_CENTERS} kernel centres instead of {B:,}"


def report(ctx, method: Method, values: dict, *, owner=None, priority=jobs.USER) -> jobs.Job:
    """Job: ``({"P", "pred", "about"}, info)`` of the model at ``values`` (see :func:`_report`)."""
    return model_result(ctx, method, values, "report", _report(ctx), owner=owner, priority=priority)


def need_report(ctx, method: Method, values: dict, token):
    """Inside a job: what :func:`report` computes (computed here if nobody does yet)."""
    return RUNNER.need(model_key(ctx, method, values, "report"), _result_fn(ctx, method, values, _report(ctx)), token)


def path(ctx, method: Method, values: dict, *, owner=None, priority=jobs.USER) -> jobs.Job:
    """Job: the path of ``method`` (which has one) at the non-path ``values``; partial steps in ``job.partial``."""
    return RUNNER.submit(path_key(ctx, method, values), _path_fn(ctx, method, method.split(values)[0]),
                         owner=owner, priority=priority)


def need_path(ctx, method: Method, values: dict, token) -> dict:
    """Inside a job: the finished path ``{point: step}`` of ``values``."""
    return RUNNER.need(path_key(ctx, method, values), _path_fn(ctx, method, method.split(values)[0]), token)


def known_steps(ctx, method: Method, values: dict) -> dict:
    """The path steps of ``values`` known now (finished path, or the points published so far); never computes."""
    k = path_key(ctx, method, values)
    job = RUNNER.job(k)  # (first: a job stores its result before it leaves the list of jobs)
    steps = RUNNER.peek(k)
    if steps is None:
        steps = (job.partial if job is not None else None) or RUNNER.peek(k + "|partial") or {}
    return steps


def task(data_key: str, name: str, params: dict, fn, *, owner=None, priority=jobs.USER) -> jobs.Job:
    """Any other slow computation (UMAP, cross-validation, edge stability, figures ahead of time):
    ``fn(token)`` under the key of ``name`` and ``params`` on the data set ``data_key``."""
    return RUNNER.submit(key(data_key, name, params), fn, owner=owner, priority=priority)


def wait(job: jobs.Job, ready=None, timeout: float | None = None) -> bool:
    """Wait at most ``timeout`` (default :data:`WAIT`) s for ``job`` to finish (or ``ready(job)``)."""
    return RUNNER.wait(job, ready, WAIT if timeout is None else timeout)


def prefetch(method: Method, values: dict, owner: tuple, submit, *, points: bool = False) -> None:
    """Prepare at low priority what one slider move from ``values`` asks for:
    ``submit(other_values, owner=..., priority=PREFETCH)`` for the neighbouring value of each
    non-path slider and, with ``points``, for every other point of the current path.
    ``owner`` is ``(session, slot)``; each prefetch gets a slot of its own below it, so the next
    move cancels the stale ones."""
    if RUNNER.results.size > PREFETCH_FILL * RUNNER.results.budget:
        return  # the cache is filling up: keep it for what people look at (prefetch results never evict)
    todo = method.neighbours(values)
    if points and method.path is not None:
        current = method.complete(values)
        todo += [(f"point={p!r}", {**current, method.path_param: p})
                 for p in method.param(method.path_param).grid if p != current[method.path_param]]
    for name, other in todo:
        submit(other, owner=(owner[0], f"{owner[1]}|prefetch|{name}"), priority=jobs.PREFETCH)


def edge_stability(ctx, method: Method, values: dict, gamma: float, n_folds: int = 3):
    """``fn(token)``: fraction of ``n_folds`` training folds in which each edge t → k is present, (L, L)."""
    from sklearn.model_selection import KFold

    def fn(token):
        L = ctx.n_labels
        freq = np.zeros((L, L))
        folds = KFold(n_splits=n_folds, shuffle=True, random_state=0).split(np.arange(ctx.Y_train.shape[0]))
        for i, (tr, _) in enumerate(folds):
            est = method.from_sliders(values, scale(ctx)).set_params(gamma=float(gamma))
            m = est.fit(ctx.X_train[tr], ctx.Y_train[tr], callback=_progress(token))
            freq += np.asarray(m.label_coef_) != 0
            token.report(stage="folds", done=i + 1, total=n_folds)
        return freq / n_folds
    return fn


# ------------------------------------------------------------------ cross-validation (Compare page)

def cv_scale(ctx, scaling: str, folds: int, n_train: int | None = None) -> Scale:
    """What slider values mean inside cross-validation on the whole of ``ctx.dataset`` with ``scaling``:
    a training fold's size (``n_train`` if given: the standard split's training file), and the median
    distance of the rows after that scaling (fitted on all rows; used only for σ factors other than 1,
    which become ``sigma="median"`` per fold)."""
    from mlviz.preprocessing import make_scaler, resolve_scaling

    X = ctx.dataset.X
    n = int(ctx.dataset.n_samples)

    def median():
        k = f"{ctx.key}|median-distance|{scaling}"
        value = RUNNER.peek(k)
        if value is None:
            name = resolve_scaling(scaling, X)
            scaler = make_scaler(name, sparse=hasattr(X, "tocsr"))
            Xs = X if scaler is None else scaler.fit_transform(X)
            value = median_distance(Xs)
            RUNNER.results.put(k, value)
        return value

    return Scale(n_train=max(1, round(n * (folds - 1) / folds)) if n_train is None else int(n_train),
                 median_distance=median)


def cv_estimator(ctx, method: Method, values: dict, token, cv: Scale):
    """Inside a job: the unfitted estimator of ``values`` for cross-validation: σ factor 1 is the
    estimator's own ``sigma="median"`` (computed on each training fold), a path slider (the sparse
    CDN's γ / γ_max) is made absolute from the page's training path."""
    values = method.complete(values)
    est = method.from_sliders(values, cv)
    if values.get("sigma_factor") == 1.0 and "sigma" in est.get_params():
        est.set_params(sigma="median")
    if method.path is not None:
        step = need_path(ctx, method, values, token)[values[method.path_param]]
        est.set_params(**{method.path_param: step[method.path_param]})
    return est


def known_fit_seconds(ctx, method: Method, values: dict):
    """Seconds the fit at ``values`` took on the page's training split, if it was done (else None; never computes)."""
    if method.path is not None:
        steps = known_steps(ctx, method, values)
        return float(sum(s["seconds"] for s in steps.values())) if steps else None
    base = RUNNER.peek(base_key(ctx, method, values))
    return None if base is None else float(base[1])


#: the Compare page's protocols: request code -> label (the label is also the ``cmp_protocol`` address value)
COMPARE_PROTOCOLS = {"cv": "k-fold cross-validation", "standard": "standard train/test split"}


def comparison_data(ctx, request: dict):
    """``(X, Y, splits, n_train)`` a Compare request is evaluated on: the whole of ``ctx.dataset`` with
    ``request["folds"]`` iteratively stratified folds (seed 0), or with ``request["protocol"] ==
    "standard"`` the standard Mulan training and test files of a bundled set stacked as one fold
    (:func:`mlviz.evaluation.stack_split`, as ``mlviz evaluate TRAIN --test TEST`` does); ``n_train``
    is that training file's size (None for folds)."""
    from mlviz.evaluation import resolve_cv

    if request.get("protocol", "cv") == "standard":
        from mlviz.data import load_standard_split
        from mlviz.evaluation.fixed_split import stack_split

        train, test = load_standard_split(ctx.data_key or ctx.key)
        X, Y, splits = stack_split(train.X, train.Y, test.X, test.Y)
        return X, Y, splits, train.n_samples
    X, Y = ctx.dataset.X, np.asarray(ctx.dataset.Y)
    return X, Y, resolve_cv(int(request["folds"]), X, Y, random_state=0), None


def cross_validation_fn(ctx, request: dict):
    """``fn(token)`` of a cross-validation: ``request`` = ``{"settings": {method key: values}, "folds",
    "scaling", "tune"}`` and optionally ``"protocol"`` (``"cv"``, or ``"standard"``: the standard train/test
    files as one fold, :func:`comparison_data`).  Runs fold by fold (the same folds and seeds as one
    :func:`mlviz.evaluation.cross_validate` call) and publishes the rows of the folds done so far as
    ``job.partial``; returns the whole table."""
    import pandas as pd

    from mlviz.evaluation import cross_validate

    from .methods import METHODS

    def fn(token):
        X, Y, splits, n_train = comparison_data(ctx, request)
        folds = len(splits)
        cv = cv_scale(ctx, request["scaling"], folds, n_train=n_train)
        ests = {}
        for k, values in request["settings"].items():
            m = METHODS[k]
            token.report(stage=f"preparing {m.label}")
            ests[m.label] = cv_estimator(ctx, m, values, token, cv)
        parts = []
        per_fold = len(ests)
        for f, split in enumerate(splits):
            def report(done, total, f=f):
                token.report(stage="method × fold fits", done=f * per_fold + done, total=folds * per_fold)
            import copy as _copy

            from mlviz.evaluation.cluster import compute_backend

            with compute_backend() as n_jobs:  # this process, or the Dask cluster of MLVIZ_DASK_SCHEDULER
                part = cross_validate(_copy.deepcopy(ests), X, Y, cv=[split], random_state=0, threshold="predict",
                                      scaling=request["scaling"], tune=bool(request["tune"]), progress=report,
                                      n_jobs=n_jobs)
            part["fold"] = f
            parts.append(part)
            token.publish(pd.concat(parts, ignore_index=True))
        return pd.concat(parts, ignore_index=True)
    return fn
