"""Speculation on the next sparse CDN μ or λ move (see :mod:`mlviz.dashboard.sparse_cdn`).

Once a page has shown a fit, the background worker of :mod:`~mlviz.dashboard.sparse_cdn`,
when it has nothing else to do, fits every μ and λ slider value one move can reach (one grid
step away first, in the direction of the last move, then further out), each warm-started from
the fit on screen, and pages may add the figures / test posteriors of each (``extras``).  A
speculative fit gives way at once to a fit the user waits for (:mod:`~mlviz.dashboard.cdn_jobs`).
The state (requests, prefetched fits) is kept by :mod:`~mlviz.dashboard.sparse_cdn`, which
serves the fits (:func:`~mlviz.dashboard.sparse_cdn.lookup`, ``current_step``).
"""

from __future__ import annotations

import time

from . import cache
from . import sparse_cdn as _s
from .sparse_cdn import _GUARD, _PREFETCH, _PREFETCHED, _model_key, _put, lookup, refit_step

__all__ = ["neighbours", "prefetch_neighbours"]


def neighbours(lam, mu, first=("mu", 1)) -> list:
    """``[ring 1, ring 2, …]``: the (λ, μ) one, two, … grid steps away along each slider.

    Rings go out to the ends of both grids (empty rings left out), so together they
    hold every setting one μ or λ move can reach.

    ``first = (slider, direction)`` orders each ring: that slider before the
    other, that direction (+1 up, -1 down) before the opposite one (the
    dashboard passes the direction of the last move).  Values off the grid
    have no neighbours.
    """
    from .methods import METHODS

    grids = {name: list(METHODS["cdn"].param(name).grid) for name in ("lam", "mu")}
    here = {"lam": lam, "mu": mu}
    axis, direction = first
    order = [axis, "lam" if axis == "mu" else "mu"]
    rings = []
    for k in range(1, max(len(g) for g in grids.values())):
        ring = []
        for name in order:
            if here[name] not in grids[name]:
                continue
            i = grids[name].index(here[name])
            for j in (i + direction * k, i - direction * k):
                if 0 <= j < len(grids[name]):
                    ring.append({**here, name: grids[name][j]})
        if ring:
            rings.append([(v["lam"], v["mu"]) for v in ring])
    return rings


class _Prefetch:
    """One page's request: fit the neighbours of the fit on screen (see :func:`prefetch_neighbours`)."""

    def __init__(self, signature, lam, mu, first):
        self.signature, self.lam, self.mu, self.first = signature, lam, mu, first
        self.units = None  # generator: one fit or one extra per next()
        self.requested = time.monotonic()
        self.done = False
        self.cancelled = False  # replaced by a newer request, evicted or cleared


def _next_prefetch():
    pending = [s for s in _PREFETCH.values() if not s.done and not s.cancelled]
    return max(pending, key=lambda s: s.requested) if pending else None


class _GaveWay(Exception):
    """A speculative fit stopped for a fit the user waits for."""


def _give_way(stage, it, objective):
    """Progress callback of speculative fits: stop as soon as a foreground fit runs (2 cores)."""
    if cache.foreground_fit_running():
        raise _GaveWay


def _prefetch_units(spec, ctx, variant, ratio, seed, extras):
    """Generator: the neighbour fits (and their extras), one unit of work per ``next()``."""
    for ring in neighbours(spec.lam, spec.mu, spec.first):
        for lam, mu in ring:
            if spec.cancelled:
                return
            key = _model_key(ctx, lam, mu, variant, ratio)
            step = lookup(ctx, lam=lam, mu=mu, variant=variant, ratio=ratio)
            while step is None:
                gave_way = False
                with cache.lock_for(key):  # a foreground move to this value waits for this fit
                    step = lookup(ctx, lam=lam, mu=mu, variant=variant, ratio=ratio)
                    if step is None:
                        try:
                            step = refit_step(seed, ctx, lam, mu, variant, ratio, callback=_give_way)
                        except _GaveWay:  # retried from scratch once the worker may go on
                            gave_way = True
                        except Exception:  # the page shows the error if the user goes there
                            step = None
                        else:
                            with _GUARD:
                                if spec.cancelled:
                                    return
                                _put(_PREFETCHED, key, step, _s.MAX_PREFETCHED)
                if not gave_way:
                    break
                yield  # (not holding the lock: the foreground fit may want this very key)
                if spec.cancelled:
                    return
            yield
            if step is None:
                continue
            for fkey, build in (extras(lam, mu, step) if extras is not None else {}).items():
                if spec.cancelled:
                    return
                if cache.prebuilt(fkey) is not None:
                    continue
                try:
                    value = build()
                except Exception:  # built on demand then
                    value = None
                with _GUARD:
                    if spec.cancelled:
                        return
                    if value is not None:
                        cache.put_prebuilt(fkey, value)
                yield


def prefetch_neighbours(ctx, *, lam, mu, variant, step, extras=None, tag: str = "") -> None:
    """Fit the neighbouring μ and λ slider values of the fit on screen, in the background.

    Lowest priority: the background worker of the γ paths does it when no path
    is pending and no figure pre-build is under way, one fit (or one extra) at
    a time, pausing while a foreground rerun runs.  The neighbours (see
    :func:`neighbours`: ±1, then ±2, … grid steps of μ, then of λ, or λ first if λ
    moved last) are fitted at ``step``'s γ ratio, each warm-started from
    ``step["model"]``, and kept (at most ``sparse_cdn.MAX_PREFETCHED``) until
    :func:`current_step` is asked for one.  A new request of the same data set
    and variant replaces the previous one; asking again for the same one is free.

    Parameters
    ----------
    ctx : DataContext
    lam, mu, variant : slider values of the fit on screen (μ as μ / N).
    step : dict
        That fit (from :func:`current_step`).
    extras : callable, optional
        ``extras(lam, mu, neighbour_step) -> {key: build}``: objects to build
        after a neighbour's fit (figures, test posteriors), each stored with
        :func:`cache.put_prebuilt` under its key unless already there.
    tag : str
        Names the kind of ``extras`` (a request with other extras is a new request).
    """
    group = (ctx.key, variant)
    signature = (lam, mu, float(step["ratio"]), step["fit_id"], tag)
    with _GUARD:
        old = _PREFETCH.get(group)
        if old is not None and old.signature == signature:
            old.requested = time.monotonic()
            spec = old
        else:
            first = old.first if old is not None else ("mu", 1)
            if old is not None:  # the direction of the last move is the likeliest next one
                if old.lam == lam and old.mu != mu:
                    first = ("mu", 1 if mu > old.mu else -1)
                elif old.mu == mu and old.lam != lam:
                    first = ("lam", 1 if lam > old.lam else -1)
                old.cancelled = True
            spec = _Prefetch(signature, lam, mu, first)
            spec.units = _prefetch_units(spec, ctx, variant, float(step["ratio"]), step["model"], extras)
            _PREFETCH[group] = spec
            _PREFETCH.move_to_end(group)
            while len(_PREFETCH) > _s.MAX_PREFETCH_JOBS:
                _PREFETCH.popitem(last=False)[1].cancelled = True
        if not spec.done:
            _s._start_worker()
