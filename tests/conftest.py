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


# ------------------------------------------------------------------------------ scheduling
#: The pytest-xdist group of the real-browser tests (tests/e2e).  ``make test`` runs
#: ``pytest -n N --dist loadgroup``: the group runs on one worker, one test after the other, so one
#: Streamlit server and one chromium (the session fixtures of tests/e2e/conftest.py) serve them all
#: and the server's caches carry over from test to test; every other test is its own unit, handed to
#: whichever worker is free.
BROWSER_GROUP = "browser"


@pytest.hookimpl(tryfirst=True)  # (before pytest-xdist reads the group marks)
def pytest_collection_modifyitems(config, items):
    """Longest first, so that the workers finish together: the real-browser tests (one xdist group,
    :data:`BROWSER_GROUP`), then the tests marked ``slow(seconds=...)`` by their seconds, then the
    others in collection order (``benchmarks/RESULTS.md``, "the test suite's time")."""
    def seconds(item):
        mark = item.get_closest_marker("slow")
        return float(mark.kwargs.get("seconds", 0)) if mark else 0.0

    for item in items:
        if item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.xdist_group(BROWSER_GROUP))
    items.sort(key=lambda item: (item.get_closest_marker("e2e") is None, -seconds(item)))
