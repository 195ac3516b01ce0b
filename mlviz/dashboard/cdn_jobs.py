"""Sparse CDN fits the user waits for, without freezing the page.

A μ, λ, variant or γ move whose fit is not cached (:mod:`~mlviz.dashboard.sparse_cdn`:
no finished γ path, no earlier or prefetched fit) is a real FISTA refit: 0.1-0.3 s
on emotions, 0.3-1.5 s on scene.  So that every slider move answers at once,
:func:`request` runs that fit in a thread of its own and waits for it at most
:data:`WAIT` seconds:

* done within :data:`WAIT` (most moves on the small data sets): the page draws
  the new fit in the same rerun, as before;
* not yet: the page answers with the fit it showed before and a notice of the
  fit under way (stage, FISTA iteration, objective, seconds), which reruns the
  page by itself once the fit is there (:func:`pending_notice` polls it).

One fit per *owner* (a page of one browser session) is under way at a time: a
new request with other settings cancels the previous fit at its next FISTA
iteration (the model's ``callback`` raises :class:`FitCancelled`), so
back-to-back moves do not queue up refits nobody looks at.  While a fit runs,
background work (γ paths, figure pre-builds, neighbour prefetches) gives way
(:func:`mlviz.dashboard.cache.foreground`).  A finished fit is cached by
:func:`~mlviz.dashboard.sparse_cdn.current_step` like any other, so the rerun
that draws it is a lookup.  Only :func:`pending_notice` draws anything.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import OrderedDict

import streamlit as st

from . import cache, sparse_cdn


def _wait_from_env(default=0.15):
    try:
        value = float(os.environ.get("MLVIZ_CDN_WAIT", default))
    except ValueError:
        return default
    return value if math.isfinite(value) and value >= 0 else default


#: Seconds a request waits for its fit before the page answers without it
#: (environment variable ``MLVIZ_CDN_WAIT``; 0.15 s leaves the rerun room to draw in 300 ms).
WAIT = _wait_from_env()
#: Seconds between two looks of :func:`pending_notice` at a fit under way.
POLL = 0.3
MAX_OWNERS = 64

_GUARD = threading.Lock()
_JOBS: "OrderedDict[str, FitJob]" = OrderedDict()  # owner -> latest fit requested


class FitCancelled(Exception):
    """Raised in a fit's progress callback when nobody waits for it any more."""


class FitJob:
    """One sparse CDN fit in its own thread (see :func:`request`).

    Attributes
    ----------
    settings : dict
        ``lam``, ``mu`` (slider μ / N), ``variant``, ``ratio`` (γ / γ_max).
    stage, n_iter, objective : progress (``stage`` is ``"queued"``, ``"start"``,
        ``"main"`` or ``"posteriors"``; ``objective`` is eq. (4) of the stage).
    done : threading.Event
        Set when the fit finished, failed or was cancelled.
    step : dict or None
        The fit (see :func:`~mlviz.dashboard.sparse_cdn.current_step`).
    error : Exception or None
    """

    def __init__(self, key, settings):
        self.key, self.settings = key, settings
        self.stage, self.n_iter, self.objective = "queued", 0, math.nan
        self.started = time.monotonic()
        self.done = threading.Event()
        self.step = None
        self.error = None
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def _progress(self, stage, n_iter, objective):
        if self.cancelled:
            raise FitCancelled
        self.stage, self.n_iter, self.objective = stage, int(n_iter), float(objective)

    def progress_text(self) -> str:
        """What the fit is doing, for people: ``"main fit, FISTA iteration 85 (0.6 s)"``."""
        seconds = time.monotonic() - self.started
        what = {"queued": "starting", "start": "label-independent start model",
                "main": "main fit (eq. 4)", "posteriors": "Gibbs sampling of the test posteriors"}[self.stage]
        it = f", FISTA iteration {self.n_iter}" if self.stage in ("start", "main") and self.n_iter else ""
        return f"{what}{it} ({seconds:.1f} s)"


def _run(job, ctx, after):
    try:
        with cache.foreground(fit=True):
            s = job.settings
            step = sparse_cdn.current_step(ctx, lam=s["lam"], mu=s["mu"], variant=s["variant"], ratio=s["ratio"],
                                           callback=job._progress)
            if after is not None:
                job.stage = "posteriors"
                after(step)
        job.step = step
    except FitCancelled:
        pass
    except Exception as exc:  # shown by the page that asked
        job.error = exc
    finally:
        job.done.set()


def request(ctx, *, lam, mu, variant, ratio, owner: str, after=None, wait: float | None = None):
    """The sparse CDN fit at one slider setting, or the fit under way.

    Parameters
    ----------
    ctx : DataContext
    lam, mu, variant, ratio : slider values (μ as μ / N, ``ratio`` = γ / γ_max).
    owner : str
        Who asks (a page of one browser session): a new request of the same
        owner with other settings cancels its previous fit.
    after : callable ``step -> None``, optional
        Run in the fit's thread after the fit (e.g. test posteriors); its time
        counts as the fit's.
    wait : float, optional
        Seconds to wait for the fit (default :data:`WAIT`).

    Returns
    -------
    (step, None) when the fit is there (cached, or finished within ``wait``),
    ``(None, job)`` with the :class:`FitJob` under way otherwise.

    Raises
    ------
    Exception
        What the fit raised (once; the next request fits again).
    """
    wait = WAIT if wait is None else float(wait)
    settings = dict(lam=lam, mu=mu, variant=variant, ratio=float(ratio))
    key = sparse_cdn._model_key(ctx, lam, mu, variant, float(ratio))
    with _GUARD:
        job = _JOBS.get(owner)
        if job is not None and (job.key != key or (job.done.is_set() and job.step is None)):
            job.cancel()  # other settings: a fit nobody waits for any more (no-op if it ended)
            del _JOBS[owner]
            if job.key == key and job.error is not None:
                raise job.error
            job = None
    if job is None and sparse_cdn.lookup(ctx, lam=lam, mu=mu, variant=variant, ratio=ratio) is not None:
        step = sparse_cdn.current_step(ctx, lam=lam, mu=mu, variant=variant, ratio=ratio, fit=False)
        if step is not None:  # (None only if evicted meanwhile)
            return step, None
    with _GUARD:
        job = _JOBS.get(owner)
        if job is None or job.key != key:
            job = FitJob(key, settings)
            _JOBS[owner] = job
            _JOBS.move_to_end(owner)
            while len(_JOBS) > MAX_OWNERS:
                _JOBS.popitem(last=False)[1].cancel()
            threading.Thread(target=_run, args=(job, ctx, after), name="mlviz-cdn-fit", daemon=True).start()
    if not job.done.wait(wait):
        return None, job
    with _GUARD:
        if _JOBS.get(owner) is job:
            del _JOBS[owner]
    if job.error is not None:
        raise job.error
    if job.step is None:  # cancelled meanwhile (cleared): the page asks again
        return None, job
    # the fit is cached now; this also makes it the one on screen (warm start of the next move)
    return sparse_cdn.current_step(ctx, lam=lam, mu=mu, variant=variant, ratio=ratio, fit=False) or job.step, None


def pending(owner: str) -> FitJob | None:
    """The fit under way for ``owner``, if any."""
    with _GUARD:
        job = _JOBS.get(owner)
    return job if job is not None and not job.done.is_set() else None


def clear() -> None:
    """Cancel every fit under way (tests, benchmarks)."""
    with _GUARD:
        for job in _JOBS.values():
            job.cancel()
        _JOBS.clear()


def wait_all(timeout: float = 60.0) -> None:
    """Wait for the fits under way (tests, benchmarks)."""
    deadline = time.monotonic() + timeout
    with _GUARD:
        jobs = list(_JOBS.values())
    for job in jobs:
        job.done.wait(max(0.0, deadline - time.monotonic()))


def describe(lam, mu, variant, ratio) -> str:
    """Slider settings for people: ``"μ/N = 0.003, λ = 0.1, γ = 0.1·γ_max (sparse)"``."""
    return f"μ/N = {float(mu):g}, λ = {float(lam):g}, γ = {float(ratio):g}·γ_max ({variant})"


def shown_settings(job: FitJob | None, settings: dict, state_key: str) -> dict | None:
    """Streamlit: the settings whose fit a page draws, and the notice of a fit under way.

    ``job`` is None (the fit at ``settings`` is there): remembered under
    ``st.session_state[state_key]`` and returned.  Otherwise the page keeps
    drawing the settings it drew last (returned; None if there are none) and
    :func:`pending_notice` says so.  ``settings``: ``lam``, ``mu``, ``variant``, ``ratio``.
    """
    if job is None:
        st.session_state[state_key] = dict(settings)
        return settings
    shown = st.session_state.get(state_key)
    pending_notice(job, "" if shown is None else f"Below: the previous fit ({describe(**shown)}).")
    return shown


@st.fragment(run_every=POLL)
def pending_notice(job: FitJob, shown: str) -> None:
    """Streamlit: the notice of a fit under way, refreshed every :data:`POLL` s; reruns
    the page once the fit is done (which draws it, or its error, and ends this timer).

    ``shown`` says what the page draws meanwhile (e.g. "Below: the previous fit (…)").
    """
    if job.done.is_set():
        st.rerun()
    st.info(f":material/hourglass_top: **Fitting the sparse CDN** at {describe(**job.settings)}: "
            f"{job.progress_text()}. {shown} "
            "The page updates by itself when the fit is done; moving a slider again cancels this fit.")
