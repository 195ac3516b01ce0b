"""Sparse CDN fits behind the label-graph and posteriors pages.

The γ slider holds γ / γ_max (γ_max: the smallest γ with an empty label graph;
it depends on λ, μ and the variant), so a γ move should be a lookup and a μ or
λ move one warm-started fit, not a whole γ path:

* :func:`current_step` — the model at one slider setting (λ, μ, variant, γ/γ_max).
  Taken from the finished γ path of these (λ, μ, variant) if there is one;
  otherwise fitted once with ``SparseCDN.refit(gamma_ratio=...)``, warm-started
  from the model last shown at the same γ ratio (or, failing that, the last one
  shown for this data split and variant), and cached under the explicit key
  ``(data set, λ, μ, variant, γ ratio)``.  Only the very first fit of a data
  split and variant starts cold.  The pages ask for it through
  :func:`mlviz.dashboard.cdn_jobs.request`, which runs a fit that is not cached
  in a thread of its own, so that a slider move never waits for it long.
* :func:`gamma_path` — the warm-started γ path over the slider grid, computed
  in a background thread *seeded by the model on screen* (refits up and down
  the grid from its γ ratio, so the path holds that very model), and returned
  once finished; ``None`` while it is being computed.
* :func:`~mlviz.dashboard.cdn_prefetch.prefetch_neighbours` — speculation on the next μ or λ move: once a
  page has shown a fit, the same background thread, when it has nothing else
  to do (no γ path pending, no figure pre-build under way, no foreground
  rerun), fits the neighbouring slider values at the same γ ratio and variant
  — μ one grid step down and up, λ one step down and up, then two steps away,
  and so on to the ends of both grids (every value one slider move can reach)
  — each warm-started from *the fit on screen*, the model a foreground move
  from there would start from; a move that lands on one is a lookup.  Pages
  may add their figures / test posteriors of each neighbour (``extras``).

Warm and cold starts converge to the same optimum of the convex objective
(paper 001, eq. 4): results agree to the solver tolerance (see
``tests/test_cdn.py`` and ``tests/test_app.py``).  A prefetched fit is the
refit a foreground move would have computed from the same start model; if
the user reached the neighbour another way (several moves, an intermediate
fit shown meanwhile) the foreground fit would have started elsewhere, and the
two then agree to the solver tolerance only.  Nothing here calls Streamlit,
since background threads use it too; :func:`clear` forgets every fit (tests,
benchmarks), and threads started before a clear drop their results.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict

import numpy as np

from . import cache

SEED = 0  # the dashboard's random_state (methods.SEED)
MAX_MODELS = 64  # single fits kept
MAX_PATHS = 16  # γ paths kept

_GUARD = threading.Lock()
_MODELS: "OrderedDict[str, dict]" = OrderedDict()  # model key -> step
_PATHS: "OrderedDict[str, _PathJob]" = OrderedDict()  # path key -> job
_SHOWN: "OrderedDict[tuple, object]" = OrderedDict()  # (data key, variant[, ratio]) -> model last shown there
MAX_SHOWN = 64
MAX_PREFETCHED = 32  # speculative neighbour fits kept (≤ 8 along the two sliders around ~4 positions)
_PREFETCHED: "OrderedDict[str, dict]" = OrderedDict()  # model key -> step, until shown (then in _MODELS)
_PREFETCH: "OrderedDict[tuple, _Prefetch]" = OrderedDict()  # (data key, variant) -> latest request
MAX_PREFETCH_JOBS = 8
_IDS = itertools.count(1)


def ratios() -> tuple:
    """The γ / γ_max positions of the slider (the path grid)."""
    from .methods import METHODS

    return tuple(METHODS["cdn"].param("gamma").grid)


def params(ctx, lam, mu, variant) -> dict:
    """SparseCDN keyword arguments from slider values (the μ slider holds μ / N)."""
    return dict(lam1=float(lam), lam2=float(lam), mu=float(mu) * ctx.Y_train.shape[0], variant=variant,
                random_state=SEED)


def _path_key(ctx, lam, mu, variant) -> str:
    return f"{ctx.key}|cdn|lam={lam!r}|mu={mu!r}|variant={variant}"


def _model_key(ctx, lam, mu, variant, ratio) -> str:
    return f"{_path_key(ctx, lam, mu, variant)}|ratio={ratio!r}"


def refit_step(source, ctx, lam, mu, variant, ratio, callback=None, t0=None) -> dict:
    """``source`` refitted at slider settings (warm start, :meth:`SparseCDN.refit`) as a step;
    its ``seconds`` count from ``t0`` (default: now)."""
    t0 = time.perf_counter() if t0 is None else t0
    p = params(ctx, lam, mu, variant)
    model = source.refit(gamma_ratio=ratio, callback=callback, lam1=p["lam1"], lam2=p["lam2"], mu=p["mu"])
    return _step(model, ratio, time.perf_counter() - t0)


def _start_worker() -> None:
    """Start the background worker unless it runs (caller holds ``_GUARD``)."""
    if _WORKER[0] is None:
        _WORKER[0] = threading.Thread(target=_work, name="mlviz-prebuild-cdn-paths", daemon=True)
        _WORKER[0].start()


def _step(model, ratio: float, seconds: float) -> dict:
    """What the pages show of one fit (``fit_id`` is unique per fitted model: a figure cache key)."""
    hist = np.asarray(getattr(model, "objective_history_", []), dtype=float)
    return dict(
        model=model, ratio=float(ratio), graph=model.label_graph_, n_edges=int(model.label_graph_.number_of_edges()),
        n_features=int(len(model.selected_features_)), n_iter=int(getattr(model, "n_iter_", len(hist))),
        history=hist[np.isfinite(hist)], seconds=float(seconds), gamma=float(model.gamma),
        gamma_max=float(getattr(model, "gamma_max_", 0.0)), fit_id=next(_IDS),
        converged=bool(getattr(model, "converged_", True)),
    )


def convergence_note(step: dict) -> str | None:
    """A warning for people when the fit stopped at ``max_iter`` before FISTA's tolerance, else None."""
    if step.get("converged", True):
        return None
    m = step["model"]
    return (f"FISTA stopped after {m.max_iter} iterations, before its tolerance (largest entry of the gradient "
            f"mapping ≤ {m.tol:g}): this fit is close to the optimum, not at it. Larger λ or μ converge faster.")


def _put(store: OrderedDict, key, value, limit: int) -> None:
    store[key] = value
    store.move_to_end(key)
    while len(store) > limit:
        store.popitem(last=False)


class _PathJob:
    """One γ path, computed step by step by the background worker (:func:`_work`)."""

    def __init__(self, key, group, grid, steps_iter):
        self.key, self.group, self.grid = key, group, grid
        self.steps: dict = {}  # ratio -> step, filled as the worker goes
        self.steps_iter = steps_iter  # generator: one refit per next()
        self.requested = time.monotonic()
        self.done = threading.Event()
        self.error = None
        self.result = None
        self.id = next(_IDS)

    def finish(self):
        steps = [self.steps[r] for r in self.grid]
        gamma_max = next((s["gamma_max"] for s in steps if s["gamma_max"] > 0), 1.0)
        self.result = {"gammas": list(self.grid), "gamma_abs": [float(r) * gamma_max for r in self.grid],
                       "gamma_max": gamma_max, "steps": steps, "models": [s["model"] for s in steps],
                       "id": self.id}

    def abandon(self):
        """Wake up waiters of a job that will not finish (cleared or evicted)."""
        self.done.set()


def _cold_start(ctx, lam, mu, variant, callback=None):
    """The γ → ∞ model (empty graph; its fit also yields γ_max): the start of a cold path."""
    from mlviz.models.cdn import SparseCDN

    return SparseCDN(gamma=1e12, **params(ctx, lam, mu, variant)).fit(ctx.X_train, ctx.Y_train, callback=callback)


def _path_steps(job: _PathJob, ctx, lam, mu, variant, seed):
    """Generator filling ``job.steps``, one warm-started refit per ``next()``."""
    if seed is None:  # cold: from the empty graph down the grid
        t0 = time.perf_counter()
        start = _cold_start(ctx, lam, mu, variant)
        chains, extra = [(start, sorted(job.grid, reverse=True))], time.perf_counter() - t0
        yield
    else:  # from the model on screen, up and down the grid
        job.steps[seed["ratio"]] = seed
        chains, extra = [(seed["model"], sorted(r for r in job.grid if r > seed["ratio"])),
                         (seed["model"], sorted((r for r in job.grid if r < seed["ratio"]), reverse=True))], 0.0
    for model, chain in chains:
        for r in chain:
            t0 = time.perf_counter()
            model = model.refit(gamma_ratio=float(r))
            job.steps[r] = _step(model, r, time.perf_counter() - t0 + extra)
            extra = 0.0
            yield


_WORKER = [None]


def _next_job():
    """The job to advance: the most recently requested one that is the latest request of its
    data set and variant (an older μ/λ of the same page waits until asked for again)."""
    latest = {}
    for job in _PATHS.values():
        if job.group not in latest or job.requested > latest[job.group].requested:
            latest[job.group] = job
    pending = [j for j in latest.values() if not j.done.is_set()]
    return max(pending, key=lambda j: j.requested) if pending else None


def _work():
    """The background worker: advances one path step (or, with no path pending, one
    neighbour prefetch unit) at a time, pausing for foreground runs; exits when
    nothing is left to do (restarted by the next request)."""
    from .cdn_prefetch import _next_prefetch  # (its requests are kept here, in _PREFETCH)

    try:
        while True:
            cache.pause_for_foreground()
            with _GUARD:
                job = _next_job()
                spec = _next_prefetch() if job is None else None
                if job is None and spec is None:  # decided under the lock a new request takes to start a worker
                    _WORKER[0] = None
                    return
            if job is None:  # speculation: lowest priority, also after figure pre-builds
                if cache.prebuilding():
                    time.sleep(0.05)
                    continue
                try:
                    next(spec.units)
                except StopIteration:
                    spec.done = True
                except Exception:  # a failed speculation only means a fit on demand later
                    spec.done = True
                continue
            try:
                next(job.steps_iter)
                continue
            except StopIteration:
                try:
                    job.finish()
                except Exception as exc:
                    job.error = exc
            except Exception as exc:  # shown by the page that asks for the path
                job.error = exc
            job.done.set()
    finally:  # (also if something unexpected was raised)
        with _GUARD:
            if _WORKER[0] is threading.current_thread():
                _WORKER[0] = None


def current_step(ctx, *, lam, mu, variant, ratio, fit: bool = True, callback=None) -> dict | None:
    """The fit at one slider setting; see the module docstring.

    The returned fit is remembered as the one on screen (the warm start of the
    next move, the seed of the γ path and of neighbour prefetches).
    ``fit=False``: None instead of fitting when the setting is not cached.
    ``callback(stage, n_iter, objective)``: progress of the fit, if one is
    needed (see :meth:`SparseCDN.fit`); an exception it raises aborts the fit
    and propagates, and nothing is cached (:mod:`~mlviz.dashboard.cdn_jobs`
    cancels a fit the user no longer waits for this way).

    Returns
    -------
    step : dict
        ``model`` (fitted SparseCDN), ``graph``, ``n_edges``, ``n_features``,
        ``n_iter``, ``history`` (objective per iteration), ``seconds`` (this
        fit, warm-started, in the foreground or ahead of time), ``ratio``
        (γ / γ_max), ``gamma`` (absolute), ``gamma_max``, ``fit_id``.
    """
    ratio = float(ratio)
    path = gamma_path(ctx, lam=lam, mu=mu, variant=variant, start=False)
    if path is not None and ratio in path["gammas"]:
        step = path["steps"][path["gammas"].index(ratio)]
    else:
        key = _model_key(ctx, lam, mu, variant, ratio)
        with cache.lock_for(key):  # also waits for a prefetch of this very fit under way
            with _GUARD:
                step = _MODELS.get(key)
                if step is None and key in _PREFETCHED:  # speculation hit: now a fit that was shown
                    step = _PREFETCHED.pop(key)
                    _put(_MODELS, key, step, MAX_MODELS)
                source = _SHOWN.get((ctx.key, variant, ratio)) or _SHOWN.get((ctx.key, variant))
            if step is None and not fit:
                return None
            if step is None:
                t0 = time.perf_counter()
                if source is None:  # the first fit of this data split and variant
                    source = _cold_start(ctx, lam, mu, variant, callback=callback)
                step = refit_step(source, ctx, lam, mu, variant, ratio, callback=callback, t0=t0)
                with _GUARD:
                    _put(_MODELS, key, step, MAX_MODELS)
    with _GUARD:  # the warm start of the next move
        _put(_SHOWN, (ctx.key, variant, ratio), step["model"], MAX_SHOWN)
        _put(_SHOWN, (ctx.key, variant), step["model"], MAX_SHOWN)
    return step


def gamma_path(ctx, *, lam, mu, variant, seed: dict | None = None, start: bool = True):
    """The γ path of (λ, μ, variant) over the slider grid if finished, else None.

    Parameters
    ----------
    ctx : DataContext
    lam, mu, variant : slider values (μ as μ / N).
    seed : dict, optional
        A step of :func:`current_step` at these (λ, μ, variant): the path is
        refitted up and down the grid from it (and contains it).
    start : bool
        Start computing the path in a background thread if it is not under way.

    Returns
    -------
    path : dict or None
        ``{"gammas": slider ratios, "gamma_abs", "gamma_max", "steps": [step per
        ratio], "models", "id"}`` in slider order.

    Raises
    ------
    Exception
        What the path's fit raised.
    """
    key = _path_key(ctx, lam, mu, variant)
    with _GUARD:
        job = _PATHS.get(key)
        if job is None and start:
            grid = ratios()
            if seed is None:  # the latest single fit at these settings, if any
                prefix = key + "|"
                seed = next((s for k, s in reversed(_MODELS.items()) if k.startswith(prefix)), None)
            if seed is not None and seed["ratio"] not in grid:
                seed = None
            job = _PathJob(key, (ctx.key, variant), grid, None)
            job.steps_iter = _path_steps(job, ctx, lam, mu, variant, seed)
            _PATHS[key] = job
            while len(_PATHS) > MAX_PATHS:
                _PATHS.popitem(last=False)[1].abandon()
        if job is not None and start:
            job.requested = time.monotonic()
            if not job.done.is_set():
                _start_worker()
    if job is None or not job.done.is_set():
        return None
    if job.error is not None:
        raise job.error
    return job.result


def wait_path(ctx, *, lam, mu, variant, timeout: float = 600.0):
    """The path of (λ, μ, variant) once finished, for background threads.

    Waits for a path started by :func:`gamma_path` (it neither starts one nor
    asks for it again); None if there is none, or it was superseded (a newer
    path of the same data set and variant was asked for: it would not be
    computed before that one).
    """
    deadline = time.monotonic() + timeout
    with _GUARD:
        job = _PATHS.get(_path_key(ctx, lam, mu, variant))
    while job is not None and not job.done.is_set() and time.monotonic() < deadline:
        with _GUARD:
            if any(j.group == job.group and j.requested > job.requested for j in _PATHS.values()):
                return None
        job.done.wait(0.25)
    return gamma_path(ctx, lam=lam, mu=mu, variant=variant, start=False)


def path_progress(ctx, *, lam, mu, variant) -> tuple[list, int]:
    """``(steps computed so far, sorted by γ; grid size)`` of a path under way."""
    with _GUARD:
        job = _PATHS.get(_path_key(ctx, lam, mu, variant))
    if job is None:
        return [], len(ratios())
    steps = dict(job.steps)
    return [steps[r] for r in sorted(steps)], len(job.grid)


def gamma_max(ctx, lam, mu, variant) -> float:
    """γ_max of these (λ, μ, variant) on the training split (from any fit at them)."""
    path = gamma_path(ctx, lam=lam, mu=mu, variant=variant, start=False)
    if path is not None:
        return path["gamma_max"]
    with _GUARD:
        prefix = _path_key(ctx, lam, mu, variant) + "|"
        known = [s for k, s in _MODELS.items() if k.startswith(prefix)]
    if known:
        return known[-1]["gamma_max"] or 1.0
    from .methods import METHODS

    default = METHODS["cdn"].param("gamma").default
    return current_step(ctx, lam=lam, mu=mu, variant=variant, ratio=default)["gamma_max"] or 1.0


def clear() -> None:
    """Forget every fit, path and prefetch (tests, benchmarks)."""
    with _GUARD:
        for job in _PATHS.values():
            job.abandon()
        for spec in _PREFETCH.values():
            spec.cancelled = True
        _MODELS.clear()
        _PATHS.clear()
        _SHOWN.clear()
        _PREFETCH.clear()
        _PREFETCHED.clear()


def lookup(ctx, *, lam, mu, variant, ratio) -> dict | None:
    """The cached fit at one slider setting (finished path, shown or prefetched fit), or None; never fits."""
    ratio = float(ratio)
    with _GUARD:
        job = _PATHS.get(_path_key(ctx, lam, mu, variant))
        if job is not None and job.done.is_set() and job.result is not None and ratio in job.result["gammas"]:
            return job.result["steps"][job.result["gammas"].index(ratio)]
        key = _model_key(ctx, lam, mu, variant, ratio)
        return _MODELS.get(key) or _PREFETCHED.get(key)


def edge_stability(ctx, *, gamma, mu, lam, variant, n_folds=3, progress=None):
    """Fraction of ``n_folds`` training folds in which each edge t → k is present, shape (L, L).

    ``gamma`` is the absolute γ; ``mu`` the slider's μ / N.
    """
    from sklearn.model_selection import KFold

    from mlviz.models.cdn import SparseCDN

    L = ctx.n_labels
    freq = np.zeros((L, L))
    folds = list(KFold(n_splits=n_folds, shuffle=True, random_state=SEED).split(np.arange(ctx.Y_train.shape[0])))
    for i, (tr, _) in enumerate(folds):
        m = SparseCDN(gamma=float(gamma), **params(ctx, lam, mu, variant)).fit(ctx.X_train[tr], ctx.Y_train[tr])
        freq += (np.asarray(m.label_coef_) != 0)
        if progress is not None:
            progress(i + 1, len(folds))
    return freq / len(folds)
