"""Fixtures shared by the dashboard tests that run without a page."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def ctx():
    """The dashboard's data context of the emotions split (standardised features), without Streamlit:
    the app's own context builder, under its own cache key."""
    import dataclasses

    from mlviz.dashboard.context import sample_context

    return dataclasses.replace(sample_context("emotions", "standard"), key="test-emotions", data_key="test-emotions")


class JobToken:
    """A stand-in for a job's token (:class:`mlviz.dashboard.jobs.Token`): never cancelled, keeps what
    the job publishes."""

    def __init__(self):
        self.published = []

    def report(self, **progress):
        pass

    def check(self):
        pass

    def publish(self, partial):
        self.published.append(partial.copy())


@pytest.fixture
def job_token():
    return JobToken()


@pytest.fixture
def fresh_dashboard(monkeypatch):
    """Empty Streamlit caches and job runner around an AppTest (and after it, so background work of
    one test ends before the next starts). A rerun waits for its job (``WAIT`` = 600 s, as on a fast
    machine), so what a run shows does not depend on the machine's speed; the tests of the
    answer-before-the-result view set ``WAIT`` = 0 themselves. Yields :mod:`mlviz.dashboard.compute`."""
    import streamlit as st

    from mlviz.dashboard import compute

    monkeypatch.setattr(compute, "WAIT", 600.0)
    st.cache_data.clear()
    st.cache_resource.clear()
    compute.RUNNER.clear()
    compute.RUNNER.wait_idle(60)
    yield compute
    compute.RUNNER.clear()
    compute.RUNNER.wait_idle(60)


@pytest.fixture
def dashboard_no_prefetch(fresh_dashboard, monkeypatch):
    """:func:`fresh_dashboard` with the background preparation of neighbouring slider values
    turned off, so a page does only the work asked for. Yields :mod:`mlviz.dashboard.compute`."""
    monkeypatch.setattr(fresh_dashboard, "prefetch", lambda *a, **k: None)
    yield fresh_dashboard
