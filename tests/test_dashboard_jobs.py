"""The job runner through its public API: de-duplication, cancel by owner, priority,
per-session isolation, errors, bounded memory.  Threads are sequenced with Events
(timeouts below are safety nets against a hang, never what a test measures)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from mlviz.dashboard.jobs import PREFETCH, USER, Cancelled, Runner
from mlviz.dashboard.memory import ByteLRU, nbytes

T = 30  # safety timeout (s)


@pytest.fixture
def runner():
    r = Runner(workers=2, budget=10 * 2**20)
    yield r
    r.clear()
    r.wait_idle(T)


def gated(started, go, value, calls=None):
    """A job function: says it started, waits for ``go`` while checking its token, returns ``value``."""
    def fn(token):
        if calls is not None:
            calls.append(value)
        started.set()
        while not go.wait(0.01):
            token.check()
        token.check()
        return value
    return fn


def test_same_key_runs_once_and_is_then_a_lookup(runner):
    started, go, calls = threading.Event(), threading.Event(), []
    a = runner.submit("k", gated(started, go, 1, calls))
    b = runner.submit("k", gated(started, go, 2, calls))
    assert a is b
    go.set()
    assert a.result(T) == 1
    c = runner.submit("k", gated(started, go, 3, calls))
    assert c.result(T) == 1 and calls == [1]
    assert runner.peek("k") == 1 and runner.peek("other") is None


def test_newer_request_of_an_owner_cancels_its_stale_job(runner):
    started, go = threading.Event(), threading.Event()
    old = runner.submit("old", gated(started, go, "old"), owner=("s1", "graph"))
    assert started.wait(T)
    new = runner.submit("new", lambda token: "new", owner=("s1", "graph"))
    with pytest.raises(Cancelled):
        old.result(T)
    assert new.result(T) == "new"
    assert runner.peek("old") is None  # a cancelled job leaves nothing behind


def test_a_job_another_owner_waits_for_is_not_cancelled(runner):
    started, go = threading.Event(), threading.Event()
    shared = runner.submit("shared", gated(started, go, 7), owner=("s1", "graph"))
    assert runner.submit("shared", gated(started, go, 8), owner=("s2", "graph")) is shared
    assert started.wait(T)
    runner.submit("elsewhere", lambda token: 0, owner=("s1", "graph")).result(T)  # s1 moves on
    go.set()
    assert shared.result(T) == 7  # s2 still gets it


def test_cancel_releases_the_owner(runner):
    started, go = threading.Event(), threading.Event()
    job = runner.submit("k", gated(started, go, 1), owner=("s1", "posteriors"))
    assert started.wait(T)
    runner.cancel(("s1", "posteriors"))
    with pytest.raises(Cancelled):
        job.result(T)


def test_user_jobs_leave_the_queue_before_prefetch_jobs():
    r = Runner(workers=1, budget=2**20, prefetch_workers=1)
    order, started, go, started2, go2 = [], threading.Event(), threading.Event(), threading.Event(), threading.Event()
    blockers = [r.submit("prefetch blocker", gated(started2, go2, 0), priority=PREFETCH)]
    assert started2.wait(T)  # (first: a free prefetch thread would also take a user job)
    blockers.append(r.submit("user blocker", gated(started, go, 0)))
    assert started.wait(T)
    pre = r.submit("prefetch", lambda t: order.append("prefetch"), priority=PREFETCH)
    user = r.submit("user", lambda t: order.append("user"), priority=USER)
    go2.set()  # the prefetch thread is free first: it takes the user job first
    user.result(T), pre.result(T)
    go.set()
    [b.result(T) for b in blockers]
    assert order == ["user", "prefetch"]


def test_paused_prefetch_jobs_never_hold_up_that_sessions_user_job():
    r = Runner(workers=1, budget=2**20, prefetch_workers=2)
    started = [threading.Event(), threading.Event()]

    def prefetch(i):
        def fn(token):
            started[i].set()
            while True:
                token.check()  # paused while A is busy, cancelled at the end
        return fn

    for i in range(2):  # every prefetch thread busy with session A's work
        r.submit(f"p{i}", prefetch(i), owner=("A", f"prefetch{i}"), priority=PREFETCH)
    assert all(e.wait(T) for e in started)
    with r.busy("A"):  # A's rerun waits for A's user job
        assert r.submit("user", lambda token: "answer", owner=("A", "graph")).result(T) == "answer"
    r.clear()
    r.wait_idle(T)


def test_prefetch_of_a_session_pauses_for_that_sessions_user_work_only(runner):
    order = []
    started, go = threading.Event(), threading.Event()

    def prefetch(token):
        started.set()
        go.wait(T)
        token.check()  # pauses while session A is busy
        order.append("prefetch A")

    job = runner.submit("pa", prefetch, owner=("A", "prefetch"), priority=PREFETCH)
    assert started.wait(T)
    with runner.busy("A"):
        go.set()
        # another session's prefetch runs to the end meanwhile (not paused by A's work)
        other = runner.submit("pb", lambda token: (token.check(), "B")[1], owner=("B", "prefetch"),
                              priority=PREFETCH)
        assert other.result(T) == "B"
        order.append("A's rerun ends")
    job.result(T)
    assert order == ["A's rerun ends", "prefetch A"]


def test_a_user_request_for_a_running_prefetch_stops_its_yielding(runner):
    started, go = threading.Event(), threading.Event()

    def path(token):
        started.set()
        go.wait(T)
        token.check()
        return "path"

    runner.submit("path", path, owner=("A", "prefetch"), priority=PREFETCH)
    assert started.wait(T)
    with runner.busy("A"):
        job = runner.submit("path", path, owner=("A", "graph"), priority=USER)
        go.set()
        assert job.result(T) == "path"  # would wait for itself without the upgrade


def test_errors_reach_the_caller_and_are_not_cached(runner):
    calls = []

    def boom(token):
        calls.append(1)
        raise ValueError("bad setting")

    with pytest.raises(ValueError, match="bad setting"):
        runner.submit("k", boom).result(T)
    with pytest.raises(ValueError):
        runner.submit("k", boom).result(T)
    assert len(calls) == 2


def test_need_runs_a_queued_dependency_in_the_calling_thread():
    r = Runner(workers=1, budget=2**20)  # one worker: waiting for a queued job would never end
    calls = []

    def base(token):
        calls.append("base")
        return 10

    top = r.submit("top", lambda token: r.need("base", base, token) + 1)
    assert top.result(T) == 11
    assert r.submit("top2", lambda token: r.need("base", base, token) + 2).result(T) == 12
    assert calls == ["base"]


def test_partial_results_are_published(runner):
    seen, step, go = [], threading.Event(), threading.Event()

    def path(token):
        for i in range(3):
            token.publish(list(range(i + 1)))
            seen.append(i)
        step.set()
        go.wait(T)
        return "done"

    job = runner.submit("p", path)
    assert step.wait(T)
    assert job.partial == [0, 1, 2] and job.version == 3
    go.set()
    assert job.result(T) == "done"


def test_cache_is_bounded_by_bytes():
    lru = ByteLRU(budget=10_000)
    for i in range(10):
        lru.put(i, np.zeros(300))  # 2,400 bytes of data each
        assert lru.size <= 10_000
    assert len(lru) == 4 and lru.get(0) is None and lru.get(9) is not None
    lru.put("huge", np.zeros(5_000))  # larger than the budget: not kept
    assert lru.get("huge") is None


def test_runner_results_respect_the_budget():
    r = Runner(workers=1, budget=100_000)
    for i in range(20):
        r.submit(f"k{i}", lambda token: np.ones(5_000)).result(T)  # 40 kB each
    assert r.results.size <= 100_000
    assert r.peek("k0") is None and r.peek("k19") is not None


def test_nbytes_counts_arrays_inside_objects_once():
    a = np.zeros(1000)

    class Model:
        pass

    m = Model()
    m.coef_, m.same = a, a
    assert 8000 <= nbytes({"m": m, "list": [a]}) < 8000 + 2000


def test_nbytes_counts_the_buffers_of_scikit_learn_trees():
    """Fitted forests keep their nodes in compiled trees (no __dict__): their buffers are counted."""
    from sklearn.ensemble import RandomForestClassifier

    from mlviz.models.forest import RandomForestML

    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(200, 4)), (rng.random((200, 6)) < 0.3).astype(int)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, Y)
    buffers = sum(t.tree_.value.nbytes + 64 * t.tree_.node_count for t in forest.estimators_)
    assert buffers <= nbytes(forest) < buffers + 64_000
    ours = RandomForestML(n_estimators=5, random_state=0).fit(X, Y)
    kept = sum(72 * t.node_count for t in ours.trees_) + ours.leaf_proba_.data.nbytes
    assert kept <= nbytes(ours) < kept + ours.leaf_proba_.indices.nbytes + ours.leaf_proba_.indptr.nbytes + 64_000


def test_a_user_request_reaches_what_the_prefetch_job_it_joins_is_waiting_for():
    """Priority inheritance: the user's job waits for prefetch job K, K waits for prefetch job D
    (paused while the session works); raising K must raise D too, or the three wait forever."""
    r = Runner(workers=1, budget=2**20, prefetch_workers=2)
    d_started, k_started, busy = threading.Event(), threading.Event(), threading.Event()

    def d(token):
        d_started.set()
        busy.wait(T)
        token.check()  # pauses while session A is busy, unless raised to USER
        return 1

    def k(token):
        k_started.set()
        return r.need("D", d, token) + 1

    r.submit("D", d, owner=("A", "prefetch-d"), priority=PREFETCH)
    assert d_started.wait(T)
    r.submit("K", k, owner=("A", "prefetch-k"), priority=PREFETCH)
    assert k_started.wait(T)
    with r.busy("A"):
        busy.set()
        assert r.submit("K", k, owner=("A", "graph")).result(T) == 2
    r.clear()
    r.wait_idle(T)


def test_a_prefetch_result_never_evicts_what_is_kept():
    """A full cache keeps what users asked for: a prefetched value is kept only if it fits beside
    them (else dropped: it is recomputed when asked for); a user's value still makes room."""
    r = Runner(workers=1, budget=100_000)
    for i in range(2):
        r.submit(f"user{i}", lambda token: np.ones(5_000)).result(T)  # 40 kB each: 80 kB kept
    r.submit("ahead", lambda token: np.ones(5_000), priority=PREFETCH).result(T)
    assert r.peek("ahead") is None and r.peek("user0") is not None and r.peek("user1") is not None
    r.submit("small-ahead", lambda token: np.ones(1_000), priority=PREFETCH).result(T)  # 8 kB fits
    assert r.peek("small-ahead") is not None
    r.submit("user2", lambda token: np.ones(5_000)).result(T)
    assert r.peek("user2") is not None and r.peek("user0") is None  # the least recently used made room
    lru = ByteLRU(budget=10_000)
    assert lru.put("a", np.zeros(1000)) and not lru.put("b", np.zeros(300), evict=False)
    assert lru.get("a") is not None and lru.get("b") is None and lru.put("b", np.zeros(300))


def test_prefetch_stops_when_the_cache_is_half_full(monkeypatch):
    from mlviz.dashboard import compute, methods

    r = Runner(workers=1, budget=100_000)
    monkeypatch.setattr(compute, "RUNNER", r)
    asked = []
    M = methods.METHODS["mllem"]
    compute.prefetch(M, M.defaults(), ("s", "slot"), lambda v, owner, priority: asked.append(v))
    assert len(asked) == len(M.neighbours(M.defaults())) > 0
    r.results.put("big", np.ones(7_000))  # 56 kB > half of the budget
    asked.clear()
    compute.prefetch(M, M.defaults(), ("s", "slot"), lambda v, owner, priority: asked.append(v))
    assert asked == []


# ------------------------------------------------------------- leaving a page (Runner.focus)
def counting(started, go, ticks, value):
    """A job function counting its token checks until ``go`` (a paused job cannot count)."""
    def fn(token):
        started.set()
        while not go.is_set():
            token.check()
            ticks.append(1)
            go.wait(0.005)
        return value
    return fn


def paused(ticks, seconds=0.2) -> bool:
    """True if ``ticks`` did not grow in ``seconds`` (the job counts every ~5 ms when it runs)."""
    before = len(ticks)
    threading.Event().wait(seconds)
    return len(ticks) == before


def test_a_left_page_job_gives_way_to_the_new_page_and_finishes_after():
    r = Runner(workers=1, budget=2**20, prefetch_workers=1)
    r.focus("A", "Posteriors")
    started, go, ticks = threading.Event(), threading.Event(), []
    old = r.submit("report", counting(started, go, ticks, "report"), owner=("A", "posteriors"))
    assert started.wait(T) and not paused(ticks)  # a user job: runs
    r.focus("A", "Decision rules")
    assert old.priority == PREFETCH
    new_started, new_go, new_ticks = threading.Event(), threading.Event(), []
    new = r.submit("proba", counting(new_started, new_go, new_ticks, "proba"), owner=("A", "decision"))
    # one user slot, held by the old job until focus: the new job starts now and the old one pauses
    assert new_started.wait(T) and paused(ticks) and not paused(new_ticks)
    new_go.set()
    assert new.result(T) == "proba"
    threading.Event().wait(r.SETTLE + 0.1)
    assert not paused(ticks)  # the session is quiet again: the old job goes on
    go.set()
    assert old.result(T) == "report" and r.peek("report") == "report"


def test_asking_again_for_a_left_job_makes_it_a_user_job_again(runner):
    runner.focus("A", "Posteriors")
    started, go, ticks = threading.Event(), threading.Event(), []
    job = runner.submit("report", counting(started, go, ticks, 1), owner=("A", "posteriors"))
    assert started.wait(T)
    runner.focus("A", "Sandbox")
    with runner.busy("A"):  # Sandbox's rerun
        assert paused(ticks)
        runner.focus("A", "Posteriors")  # back: the page asks for its job again
        assert runner.submit("report", counting(started, go, ticks, 2), owner=("A", "posteriors")) is job
        assert job.priority == USER and not paused(ticks)
    go.set()
    assert job.result(T) == 1


def test_focus_leaves_other_sessions_and_shared_jobs_alone(runner):
    runner.focus("A", "Posteriors"), runner.focus("B", "Posteriors")
    evs = {k: (threading.Event(), threading.Event(), []) for k in ("shared", "own", "anon")}
    shared = runner.submit("shared", counting(*evs["shared"], 1), owner=("A", "posteriors"))
    runner.submit("shared", counting(*evs["shared"], 1), owner=("B", "posteriors"))
    anon = runner.submit("anon", counting(*evs["anon"], 3), priority=PREFETCH)  # (no owner)
    runner.focus("A", "Sandbox")
    own = runner.submit("own", counting(*evs["own"], 2), owner=("A", "sandbox"))
    runner.focus("A", "Decision rules")  # own's page left, shared still wanted by B
    assert shared.priority == USER and own.priority == PREFETCH and anon.priority == PREFETCH
    runner.focus("A", "Decision rules")  # (the same page again changes nothing)
    assert own.priority == PREFETCH
    for _started, go, _ in evs.values():
        go.set()
    assert (shared.result(T), own.result(T), anon.result(T)) == (1, 2, 3)


def test_what_a_left_job_waits_for_is_left_too_unless_a_user_job_waits_for_it():
    r = Runner(workers=2, budget=2**20, prefetch_workers=1)
    r.focus("A", "Posteriors")
    d_started, d_go, d_ticks = threading.Event(), threading.Event(), []
    d = r.submit("fit", counting(d_started, d_go, d_ticks, 10), owner=("A", "posteriors|path"))
    assert d_started.wait(T)
    top = r.submit("report", lambda token: r.need("fit", None, token) + 1, owner=("A", "posteriors"))
    while d not in [j.waiting_on for j in r._jobs.values()]:  # top is waiting for the fit
        threading.Event().wait(0.01)
    r.focus("A", "Sandbox")
    assert top.priority == PREFETCH and d.priority == PREFETCH
    with r.busy("A"):
        assert paused(d_ticks)
    d_go.set()
    assert top.result(T) == 11


def test_a_dependency_another_user_job_waits_for_keeps_its_priority():
    r = Runner(workers=3, budget=2**20, prefetch_workers=1)
    r.focus("A", "Posteriors"), r.focus("B", "Decision rules")
    d_started, d_go, d_ticks = threading.Event(), threading.Event(), []
    d = r.submit("fit", counting(d_started, d_go, d_ticks, 10))  # (anonymous: a shared model fit)
    assert d_started.wait(T)
    a = r.submit("report", lambda token: r.need("fit", None, token) + 1, owner=("A", "posteriors"))
    b = r.submit("proba", lambda token: r.need("fit", None, token) + 2, owner=("B", "decision"))
    while sum(j.waiting_on is d for j in list(r._jobs.values())) < 2:
        threading.Event().wait(0.01)
    r.focus("A", "Sandbox")
    assert a.priority == PREFETCH and d.priority == USER  # B still waits for the fit
    d_go.set()
    assert (a.result(T), b.result(T)) == (11, 12)


def test_what_a_prefetch_job_needs_pauses_for_its_sessions_user_work_too():
    """A dependency run by need() (e.g. a model's base fit) belongs to the caller's session: before,
    it had none, so a prefetch job's base fit started while its session's page computed."""
    r = Runner(workers=1, budget=2**20, prefetch_workers=1)
    order, busy, entered = [], threading.Event(), threading.Event()

    def base(token):
        order.append("base starts")
        return 1

    def top(token):
        entered.set()
        busy.wait(T)  # the session's user work begins before the dependency is asked for
        return r.need("base", base, token) + 1

    job = r.submit("report", top, owner=("A", "prefetch"), priority=PREFETCH)
    assert entered.wait(T)
    with r.busy("A"):
        busy.set()
        threading.Event().wait(0.3)
        order.append("A's rerun ends")
    assert job.result(T) == 2
    assert order == ["A's rerun ends", "base starts"]


def test_a_classroom_asking_the_same_result_at_once_computes_it_once(runner):
    """30 sessions (owners) ask for one key in the same instant, from 30 threads (a class opening the
    same link; benchmarks/bench_classroom.py): one computation, one job, the same value for all."""
    started, go, calls = threading.Event(), threading.Event(), []
    barrier = threading.Barrier(30)
    jobs = [None] * 30

    def ask(i):
        barrier.wait(T)
        jobs[i] = runner.submit("emotions|mllem|defaults", gated(started, go, i, calls), owner=(f"s{i}", "embedding"))

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(T)
    go.set()
    values = {job.result(T) for job in jobs}
    assert len({id(job) for job in jobs}) == 1 and len(calls) == 1 and values == {calls[0]}
