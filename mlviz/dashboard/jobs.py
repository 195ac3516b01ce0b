"""Run every slow piece of dashboard work in background threads: one job per key, cancellable, cached by bytes.

No Streamlit here (tests drive it directly).  A job is ``fn(token)`` submitted
under a string ``key``:

* **de-duplicated** by key: while a job runs, or its result is cached, the same
  key returns the same :class:`Job`;
* **owned**: ``owner = (session, slot)``, e.g. a browser session and a page's
  panel.  An owner holds one job at a time; a newer request of the same owner
  for another key releases the old job, which is cancelled when nobody else
  (no other owner, no anonymous caller) wants it any more;
* **cancellable**: ``fn`` receives a :class:`Token`; ``token.check()`` (for
  example from an estimator's progress callback) raises :class:`Cancelled`;
* **prioritised per session**: :data:`USER` jobs (someone waits) leave the
  queue before :data:`PREFETCH` jobs and have threads of their own; a prefetch
  job *of the same session* pauses in ``token.check()`` while that session has
  user work running (a job or a rerun, see :meth:`Runner.busy`) and
  :attr:`Runner.SETTLE` s after it (other sessions' work never pauses it);
* **left behind**: a page calls :meth:`Runner.focus` when it opens; the user jobs a session
  asked for on another page then continue as prefetch jobs (they pause while this page's work
  runs) until some page asks for them again;
* **cached**: finished results live in a locked LRU bounded by bytes
  (:class:`~mlviz.dashboard.memory.ByteLRU`; budget ``MLVIZ_CACHE_MB``, default 768 MB per runner).

Jobs may need other jobs: :meth:`Runner.need` inside ``fn`` runs a queued
dependency in the calling thread (no worker waits for a job that has no
worker), or waits for it if it already runs.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from .memory import ByteLRU, budget_from_env

USER, PREFETCH = 0, 1

#: ``MLVIZ_JOB_LOG=path``: append one line per job start, end and priority change (benchmarks).
_LOG = os.environ.get("MLVIZ_JOB_LOG")
_T0 = time.monotonic()


def _log(event: str, job) -> None:
    if _LOG:
        line = (f"{time.monotonic() - _T0:9.2f} {event:<8} p{job.priority} "
                f"{time.monotonic() - job.started:7.2f}s {str(job.session)[:6]} {job.key[:160]}\n")
        with open(_LOG, "a", encoding="utf-8") as fh:
            fh.write(line)


class Cancelled(Exception):
    """Raised by :meth:`Token.check` once nobody wants the job's result."""


class Token:
    """What a job's ``fn`` gets: :meth:`check` to stop early, :meth:`report` / :meth:`publish` for progress."""

    def __init__(self, runner, job):
        self._runner, self._job = runner, job

    @property
    def cancelled(self) -> bool:
        return self._job.cancel_event.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` if nobody wants the result; a prefetch job also waits here
        while its session has user work running."""
        job = self._job
        if job.priority == PREFETCH:
            self._runner._yield_to_session(job)
        if job.cancel_event.is_set():
            raise Cancelled(job.key)

    @property
    def paused(self) -> bool:
        """Whether :meth:`check` would wait now (a prefetch job while its session has user work)."""
        job, runner = self._job, self._runner
        with runner._cond:
            return job.priority != USER and not job.cancel_event.is_set() and (
                bool(runner._busy.get(job.session)) or runner._quiet_from.get(job.session, 0.0) > time.monotonic())

    def report(self, **progress) -> None:
        """Record progress (e.g. ``stage``, ``n_iter``, ``objective``) and :meth:`check`."""
        self._job.progress = dict(progress)
        self.check()

    def publish(self, partial) -> None:
        """Make a partial result readable as ``job.partial`` (e.g. the γ points computed so far)."""
        with self._runner._cond:
            self._job.partial = partial
            self._job.version += 1
            self._runner._cond.notify_all()
        self.check()


class Job:
    """One unit of work: ``key``, ``future`` (its result or exception), ``progress``, ``partial``."""

    def __init__(self, key, fn, priority, session, seq):
        self.key, self.fn, self.priority, self.session, self.seq = key, fn, priority, session, seq
        self.future: Future = Future()
        self.cancel_event = threading.Event()
        self.cancelled = Future()  # done once cancelled (to wait for "result or cancel" without polling)
        self.owners: set = set()
        self.anonymous = False  # wanted by a caller without owner: never cancelled by owners
        self.progress: dict = {}
        self.partial = None
        self.version = 0
        self.claimed = False
        self.waiting_on = None  # the job this one needs (see Runner.need): it inherits a higher priority
        self.running = False
        self.holds_slot = False  # runs in one of the Runner's ``workers`` user slots
        self.busy_session = None  # the session whose Runner.busy count this job adds to while it runs
        self.started = time.monotonic()  # (submitted; for "running for 3.2 s" notices)

    def done(self) -> bool:
        return self.future.done()

    def cancel(self) -> None:
        """Ask ``fn`` to stop at its next :meth:`Token.check`."""
        self.cancel_event.set()
        if not self.cancelled.done():
            self.cancelled.set_result(None)

    def result(self, timeout=None):
        return self.future.result(timeout)

    def __lt__(self, other):  # heap order: priority, then submission order
        return (self.priority, self.seq) < (other.priority, other.seq)


class Runner:
    """Threads running :class:`Job` s (see the module docstring): ``workers`` user jobs at a time run
    in threads that take user jobs only, ``prefetch_workers`` more threads take any job, so a user
    job never waits for a thread held by a paused prefetch job (nor by a left-behind job: one that
    :meth:`focus` turns into a prefetch job frees its user slot, and a spare thread takes it)."""

    #: Seconds a session's prefetch jobs keep pausing after its last user work (the next move may follow).
    SETTLE = 0.3

    def __init__(self, workers: int = 2, budget: int | None = None, prefetch_workers: int = 2):
        self.results = ByteLRU(budget_from_env() if budget is None else budget)
        self._workers = workers
        self._user_running = 0  # jobs holding a user slot
        self._pools = {USER: ThreadPoolExecutor(max_workers=3 * workers, thread_name_prefix="mlviz-job"),
                       PREFETCH: ThreadPoolExecutor(max_workers=prefetch_workers, thread_name_prefix="mlviz-prefetch")}
        self._cond = threading.Condition()
        self._heap: list = []
        self._jobs: dict = {}  # key -> Job not finished
        self._owned: dict = {}  # owner -> key
        self._busy: dict = {}  # session -> count of user jobs / reruns running
        self._quiet_from: dict = {}  # session -> monotonic time its prefetch jobs may go on
        self._page: dict = {}  # session -> the page it shows (see focus)
        self._owner_page: dict = {}  # owner -> the page it asked from
        self._seq = itertools.count()

    # ------------------------------------------------------------------ public
    def submit(self, key: str, fn, *, owner=None, priority: int = USER) -> Job:
        """The job computing ``fn(token)`` under ``key`` (an existing one if any; see module docstring).

        ``owner``: ``(session, slot)`` or None (anonymous: the job is never cancelled by owners).
        """
        session = owner[0] if owner is not None else None
        with self._cond:
            if owner is not None and self._owned.get(owner) not in (None, key):
                self._release(owner)
            if key in self.results:
                job = Job(key, fn, priority, session, next(self._seq))
                job.future.set_result(self.results.get(key))
                return job
            job = self._jobs.get(key)
            if job is None or job.cancel_event.is_set():  # (a cancelled job still running is left to end)
                job = Job(key, fn, priority, session, next(self._seq))
                self._jobs[key] = job
                heapq.heappush(self._heap, job)
                self._pools[priority].submit(self._work, priority)
            elif priority < job.priority:  # someone waits now: up the queue, and no more yielding
                self._raise(job, priority, session)
            if owner is None:
                job.anonymous = True
            else:
                job.owners.add(owner)
                self._owned[owner] = key
                self._owner_page[owner] = self._page.get(session)
            return job

    def peek(self, key: str):
        """The cached result of ``key`` or None (never computes)."""
        return self.results.get(key)

    def job(self, key: str):
        """The unfinished job of ``key`` or None."""
        with self._cond:
            return self._jobs.get(key)

    def need(self, key: str, fn, token: Token, priority: int | None = None):
        """Inside a job: the result of ``key``, computed here if queued, awaited if running elsewhere.
        Raises :class:`Cancelled` if the calling job is cancelled meanwhile."""
        cached = self.results.get(key)
        if cached is not None:
            return cached
        caller = token._job
        job = self.submit(key, fn, priority=caller.priority if priority is None else priority)
        with self._cond:
            if job.session is None:  # (its session's user work pauses it too, if it is prefetch work)
                job.session = caller.session
            claim = not job.claimed and not job.done()
            if claim:
                job.claimed = True
            caller.waiting_on = job  # (a later raise of the caller's priority reaches this job too)
            if caller.priority < job.priority:
                self._raise(job, caller.priority, caller.session)
        try:
            if claim:
                self._run(job)
            else:
                wait([job.future, caller.cancelled], return_when=FIRST_COMPLETED)
                if not job.done():
                    raise Cancelled(caller.key)
        finally:
            with self._cond:
                caller.waiting_on = None
        return job.result()

    def wait(self, job: Job, ready=None, timeout: float | None = None) -> bool:
        """Wait at most ``timeout`` s until ``job`` is done or ``ready(job)`` (e.g. a partial result
        arrived); True if so."""
        with self._cond:
            return self._cond.wait_for(lambda: job.done() or (ready is not None and ready(job)), timeout)

    def cancel(self, owner) -> None:
        """``owner`` no longer waits for its job (cancelled if nobody else wants it)."""
        with self._cond:
            self._release(owner)

    def focus(self, session: str, page: str) -> None:
        """``session`` now shows ``page``: the user jobs it asked for only from its other pages
        become prefetch jobs (with what they wait for), so they pause while this page's work runs
        and go on after it; asking for one again (from any page) makes it a user job again."""
        with self._cond:
            if self._page.get(session) == page:
                return
            self._page[session] = page
            for job in list(self._jobs.values()):
                if job.priority == USER and job.owners and not job.anonymous and self._left(job, session):
                    self._demote(job, session)
            heapq.heapify(self._heap)
            self._cond.notify_all()

    def busy(self, session: str):
        """Context manager: user work of ``session`` runs (its prefetch jobs pause meanwhile)."""
        runner = self

        class _Busy:
            def __enter__(self):
                with runner._cond:
                    runner._busy[session] = runner._busy.get(session, 0) + 1

            def __exit__(self, *exc):
                with runner._cond:
                    runner._idle(session)

        return _Busy()

    def clear(self) -> None:
        """Cancel every job and empty the cache (tests, benchmarks)."""
        with self._cond:
            for job in self._jobs.values():
                job.cancel()
            self._owned.clear()
            self._cond.notify_all()
        self.results.clear()

    def end_session(self, session) -> None:
        """``session`` has ended: its jobs are given up (cancelled if nobody else wants them) and
        what the runner kept about it is forgotten."""
        with self._cond:
            for owner in [o for o in self._owned if o[0] == session]:
                self._release(owner)
            for table in (self._busy, self._quiet_from, self._page):
                table.pop(session, None)
            for owner in [o for o in self._owner_page if o[0] == session]:
                self._owner_page.pop(owner, None)
            self._cond.notify_all()

    def drop(self, prefixes) -> int:
        """Cancel the jobs and drop the results whose keys start with one of ``prefixes`` (a data set
        that is gone); returns the bytes the cache gave back."""
        prefixes = tuple(prefixes)
        if not prefixes:
            return 0
        with self._cond:
            for job in self._jobs.values():
                if job.key.startswith(prefixes):
                    job.cancel()
            self._cond.notify_all()
        return self.results.discard_prefix(prefixes)

    def wait_idle(self, timeout: float | None = None) -> None:
        """Wait until no job is queued or running (tests, benchmarks)."""
        with self._cond:
            self._cond.wait_for(lambda: not self._jobs, timeout)

    # ----------------------------------------------------------------- private
    def _idle(self, session) -> None:
        """One piece of ``session``'s user work ended (caller holds the lock)."""
        self._busy[session] -= 1
        if not self._busy[session]:
            del self._busy[session]
            now = time.monotonic()
            self._quiet_from = {s: t for s, t in self._quiet_from.items() if t > now}
            self._quiet_from[session] = now + self.SETTLE
        self._cond.notify_all()

    def _count_busy(self, job, on: bool) -> None:
        """Add a running user job to its session's busy count, or take it off (caller holds the lock)."""
        if on and job.busy_session is None and job.session is not None:
            job.busy_session = job.session
            self._busy[job.session] = self._busy.get(job.session, 0) + 1
        elif not on and job.busy_session is not None:
            session, job.busy_session = job.busy_session, None
            self._idle(session)

    def _left(self, job, session) -> bool:
        """Whether every owner of ``job`` is ``session`` on a page it no longer shows."""
        page = self._page.get(session)
        return all(o[0] == session and self._owner_page.get(o) not in (None, page) for o in job.owners)

    def _demote(self, job, session) -> None:
        """Make ``job``, and what it waits for that no other user job waits for, prefetch jobs of
        ``session`` (caller holds the lock, then heapifies)."""
        while job is not None and job.priority == USER:
            job.priority, job.session = PREFETCH, job.session or session
            _log("demote", job)
            self._count_busy(job, False)
            if job.holds_slot:  # a spare thread takes the slot
                job.holds_slot = False
                self._user_running -= 1
                self._pools[USER].submit(self._work, USER)
            if not job.claimed:
                self._pools[PREFETCH].submit(self._work, PREFETCH)
            sub = job.waiting_on
            if sub is None or not self._left(sub, session) or any(
                    other.priority == USER and other.waiting_on is sub for other in self._jobs.values()):
                return
            job = sub

    def _release(self, owner) -> None:
        self._owner_page.pop(owner, None)
        key = self._owned.pop(owner, None)
        job = self._jobs.get(key)
        if job is not None:
            job.owners.discard(owner)
            if not job.owners and not job.anonymous:
                job.cancel()
                self._cond.notify_all()

    def _raise(self, job, priority, session) -> None:
        """Give ``job`` and every job it waits for (transitively) ``priority`` (caller holds the lock)."""
        while job is not None and priority < job.priority:
            job.priority = priority
            job.session = session if session is not None else job.session
            if job.running and priority == USER:
                self._count_busy(job, True)
            if not job.claimed:
                self._pools[priority].submit(self._work, priority)
            job = job.waiting_on
        heapq.heapify(self._heap)
        self._cond.notify_all()

    def _forget(self, job) -> None:
        if self._jobs.get(job.key) is job:
            del self._jobs[job.key]

    def _yield_to_session(self, job) -> None:
        """Wait while ``job``'s session has user work running, or finished it less than SETTLE s ago."""
        with self._cond:
            while not job.cancel_event.is_set() and job.priority != USER:
                if self._busy.get(job.session):
                    self._cond.wait()
                    continue
                quiet_in = self._quiet_from.get(job.session, 0.0) - time.monotonic()
                if quiet_in <= 0:
                    return
                self._cond.wait(quiet_in)

    def _work(self, pool: int) -> None:
        """Run queued jobs, best first, until none is left that this pool takes (USER: user jobs only)."""
        while True:
            with self._cond:
                while self._heap and (self._heap[0].claimed or self._heap[0].done()):
                    heapq.heappop(self._heap)
                if not self._heap or self._heap[0].priority > pool:
                    return
                if pool == USER and self._user_running >= self._workers:
                    return  # (the thread whose job ends next takes it)
                job = heapq.heappop(self._heap)
                job.claimed = True
                if pool == USER:
                    job.holds_slot = True
                    self._user_running += 1
            try:
                self._run(job)
            finally:
                with self._cond:
                    if job.holds_slot:
                        job.holds_slot = False
                        self._user_running -= 1

    def _run(self, job) -> None:
        _log("start", job)
        try:
            Token(self, job).check()  # (a prefetch job starts when its session is quiet)
            with self._cond:
                job.running = True
                if job.priority == USER:
                    self._count_busy(job, True)
            try:
                value = job.fn(Token(self, job))
            finally:
                with self._cond:
                    job.running = False
                    self._count_busy(job, False)
        except BaseException as exc:  # delivered to whoever waits (Cancelled included); never cached
            _log("failed" if not isinstance(exc, Cancelled) else "cancel", job)
            with self._cond:
                self._forget(job)
                job.future.set_exception(exc)
                self._cond.notify_all()
            return
        _log("end", job)
        # (also when cancelled after its last check: results are pure). A prefetch result never
        # evicts others: at ~1,000 labels one γ path holds ~260 MB, and the neighbouring paths
        # prepared ahead would push out the one a page is showing, which it would then refit.
        self.results.put(job.key, value, evict=job.priority == USER)
        with self._cond:
            self._forget(job)
            job.future.set_result(value)
            self._cond.notify_all()
