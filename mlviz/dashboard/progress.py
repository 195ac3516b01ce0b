"""Streamlit side of the job runner: who asks (browser session + slot), and one widget that shows a job under
way with the previous result, progress and cancel.

A page asks :mod:`~mlviz.dashboard.compute` for a job, waits for it a moment
(:data:`mlviz.dashboard.compute.WAIT`), then calls :func:`shown`:

* the result is there: :func:`shown` remembers its settings (per page slot and
  session) and returns them; the page draws it;
* not yet: :func:`shown` draws a notice (what runs, its progress, a *Cancel*
  button that puts the controls back) and returns the settings drawn last (or
  None); the notice reruns the page by itself once the job is done.

:func:`follow` redraws a partial result (e.g. a path computed point by point)
until its job is done.  :func:`foreground` marks a rerun as user work of its
session, so that session's prefetch jobs pause meanwhile (never other sessions').
:func:`enter_page` (from :func:`mlviz.dashboard.state.init_page`) turns the work of the pages
this session left into such prefetch work.
"""

from __future__ import annotations

import functools
import time

import streamlit as st

from .compute import RUNNER
from .jobs import Cancelled

#: Seconds between two looks of a notice at its job.
POLL = 0.3


def session_id() -> str:
    """An identifier of this browser session (kept in its session state; unique per session)."""
    import uuid

    return st.session_state.setdefault("mlviz_session_id", uuid.uuid4().hex)


def owner(slot: str) -> tuple:
    """The owner of a job: ``(this browser session, slot)`` (a newer job of the same owner cancels the older)."""
    return (session_id(), slot)


def enter_page(page: str) -> None:
    """This session now shows ``page``: the work it asked for on its other pages goes on as
    prefetch work, pausing while this page's runs (:meth:`~mlviz.dashboard.jobs.Runner.focus`)."""
    RUNNER.focus(session_id(), page)


def foreground(func):
    """Decorator (under ``@st.fragment``): this session's prefetch jobs pause while ``func`` runs."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with RUNNER.busy(session_id()):
            return func(*args, **kwargs)
    return wrapper


def failed(job) -> Exception | None:
    """The exception a finished job raised (None if it succeeded, runs, or was cancelled)."""
    if not job.done():
        return None
    exc = job.future.exception()
    return None if isinstance(exc, Cancelled) else exc


def describe(settings: dict) -> str:
    from .widgets import fmt_value

    return ", ".join(f"{k} = {fmt_value(v)}" for k, v in settings.items())


def shown(job, *, ready: bool, settings: dict, slot: str, label: str, widgets: dict | None = None,
          until=None):
    """The settings whose result the page draws now (see the module docstring).

    Parameters
    ----------
    job : mlviz.dashboard.jobs.Job
    ready : bool
        Whether the result at ``settings`` can be drawn now.
    settings : dict
        The settings asked for (a copy is remembered for this session and ``slot``).
    slot : str
        The page slot (one per panel).
    label : str
        What runs, for people: "Fitting the sparse CDN".
    widgets : dict, optional
        ``{setting name: widget key}``: *Cancel* sets these widgets back to the settings drawn last.
    until : callable ``job -> bool``, optional
        The notice reruns the page as soon as this holds (e.g. the path point shown is published),
        not only when the whole job is done.
    """
    state_key = f"mlviz_shown|{slot}"
    if ready:
        st.session_state[state_key] = dict(settings)
        st.session_state[state_key + "|key"] = job.key
        st.session_state[state_key + "|data"] = data_identity()
        return settings
    previous = _previous(slot)
    what = "" if previous is None else f" Below: the previous result ({describe(previous)})."
    _notice(job, f"**{label}** at {describe(settings)}", what, slot, previous, widgets or {}, until)
    return previous


def data_identity() -> tuple:
    """The data set this run shows: the sidebar's data set and feature scaling (session state)."""
    return (st.session_state.get("data"), st.session_state.get("scaling"))


def _previous(slot: str):
    """The settings drawn last in ``slot`` -- only if they were drawn for the data set of this run.

    A result of another data set (the one shown before an upload or a switch in the sidebar) is
    never offered as "the previous result": its shapes and names do not match this data set's
    (emotions' 6-label map met an upload's 159 names).
    """
    state_key = f"mlviz_shown|{slot}"
    if st.session_state.get(state_key + "|data") != data_identity():
        return None
    return st.session_state.get(state_key)


def result(job, *, settings: dict, slot: str, label: str, widgets: dict | None = None, preview=None):
    """``(value, settings)`` of a job that computes one value: its own once done (after waiting
    :data:`~mlviz.dashboard.compute.WAIT`), else the one drawn last in ``slot`` (``(None, None)``
    if none) with the notice of :func:`shown`.  Raises what the job raised.

    ``preview``: a function returning ``(job, settings, text)`` or None: a cheaper job at other
    settings (e.g. fewer kernel centres, :func:`mlviz.dashboard.compute.preview_values`), asked for
    only while nothing has been drawn in ``slot`` yet (a slider move shows the previous result
    instead). Its value and settings are returned once it is done, the notice says that what is
    drawn is the preview (``text`` says how it differs), and the page reruns when the preview and
    again when the result is done."""
    from .compute import wait

    wait(job)
    error = failed(job)
    if error is not None:
        raise error
    ready = job.done() and job.future.exception() is None
    if not ready and preview is not None and _previous(slot) is None:
        quick = preview()
        if quick is not None:
            return _preview(job, quick, settings=settings, slot=slot, label=label)
    drawn = shown(job, ready=ready, settings=settings, slot=slot, label=label, widgets=widgets)
    if ready:
        return job.result(), settings
    if drawn is None:  # (nothing drawn yet in this slot for this data set)
        return None, None
    value = RUNNER.peek(st.session_state.get(f"mlviz_shown|{slot}|key", ""))
    return (value, drawn) if value is not None else (None, None)


def _preview(job, preview, *, settings, slot, label):
    """:func:`result` while ``job`` runs and ``preview`` stands in for it: ``(value, settings)`` of the
    finished preview, else ``(None, None)``, under a notice naming what is drawn."""
    pjob, psettings, text = preview
    what = f"**{label}** at {describe(settings)}"
    if pjob.done() and pjob.future.exception() is None:
        _notice(job, what, f" Below: a **quick preview** with {text} (every figure and number below is "
                           "that model's); it is replaced by the full result when it is done.", slot, None, {})
        return pjob.result(), psettings
    _notice(job, what, f" A quick preview with {text} is drawn first.", slot, None, {},
            until=lambda j: pjob.done())
    return None, None


def _cancel(slot, previous, widget_keys):
    RUNNER.cancel(owner(slot))
    for name, wkey in widget_keys.items():
        if previous is not None and name in previous:
            st.session_state[wkey] = previous[name]


def progress_text(job) -> str:
    """``"main fit, iteration 85 (0.6 s)"`` from what the job reported."""
    p = job.progress
    seconds = time.monotonic() - job.started
    if not p:
        return f"starting ({seconds:.1f} s)"
    what = {"start": "label-independent start model", "main": "main fit (eq. 4)", "fold": "fold"}.get(
        p.get("stage"), str(p.get("stage", "")))
    if "done" in p and "total" in p:
        return f"{p['done']} of {p['total']} {what or 'steps'} done ({seconds:.1f} s)"
    it = f", iteration {p['n_iter']}" if p.get("n_iter") else ""
    steps = f", {len(job.partial)} points done" if isinstance(job.partial, dict) else ""
    return f"{what}{it}{steps} ({seconds:.1f} s)"


@st.fragment(run_every=POLL)
def _notice(job, what, previous_text, slot, previous, widget_keys, until=None):
    if job.done() or (until is not None and until(job)):
        st.rerun()
    st.info(f":material/hourglass_top: {what}: {progress_text(job)}.{previous_text} "
            "The page updates by itself when it is done; moving a control again cancels this work.")
    if previous is not None and widget_keys:
        st.button("Cancel", key=f"cancel|{slot}", on_click=_cancel, args=(slot, previous, widget_keys),
                  icon=":material/close:")


@st.fragment(run_every=1.0)
def follow(job, draw) -> None:
    """Draw ``draw(job)`` (e.g. the partial path) every second until ``job`` is done, then rerun the page."""
    if job.done():
        st.rerun()
    draw(job)
