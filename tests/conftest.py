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
#: what the real-browser tests (tests/e2e) take together on a quiet 2-core machine, in seconds: one
#: worker runs them all (its session fixtures start one Streamlit server and one chromium for them,
#: and the server's caches carry over from test to test)
BROWSER_SECONDS = 130.0


def _seconds(item):
    mark = item.get_closest_marker("slow")
    return float(mark.kwargs.get("seconds", 0)) if mark else 0.0


def pytest_collection_modifyitems(config, items):
    """Long tests first on every worker, so that the workers finish together (``benchmarks/RESULTS.md``,
    "the test suite's time").

    ``make test`` runs ``pytest -n N --dist worksteal``: each worker first gets an equal contiguous share
    of the collected tests (the first N-th, the next, ...), and an idle worker later takes half of the
    longest queue *from its end*.  The order is made here (in every worker alike): the first share starts
    with the real-browser tests, the others with the tests marked ``slow(seconds=...)``, dealt longest
    first to the share with the fewest seconds so far; every other test keeps its collection order.
    Without pytest-xdist: the browser tests, then the slow ones, then the rest.
    """
    n = int(getattr(config, "workerinput", {}).get("workercount", 1))
    browser = [it for it in items if it.get_closest_marker("e2e") is not None]
    slow = sorted((it for it in items if it.get_closest_marker("e2e") is None and _seconds(it) > 0),
                  key=lambda it: -_seconds(it))
    chosen = {id(it) for it in browser + slow}
    rest = [it for it in items if id(it) not in chosen]
    sizes, left = [], len(items)
    for k in range(n):  # (pytest-xdist's first distribution: len(pending) // nodes_remaining each)
        sizes.append(left // (n - k))
        left -= sizes[-1]
    heads, load = [list(browser)] + [[] for _ in range(n - 1)], [BROWSER_SECONDS if browser else 0.0] + [0.0] * (n - 1)
    for it in slow:
        k = min(range(n), key=lambda j: (load[j], j))
        heads[k].append(it)
        load[k] += _seconds(it)
    if n == 1 or any(len(h) > size for h, size in zip(heads, sizes)):
        items[:] = browser + slow + rest
        return
    ordered = []
    for head, size in zip(heads, sizes):
        ordered += head + rest[:size - len(head)]
        rest = rest[size - len(head):]
    items[:] = ordered + rest
