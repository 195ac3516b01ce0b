"""Run one slow, pure function in a child process: it never holds the server's GIL, and a cancel ends it.

umap-learn's numba code keeps Python's global interpreter lock for long stretches.  Run in a
thread of the dashboard's server, a UMAP layout of 10.7k instances took 157 s instead of 18 s, and
the MLLEM fit the Embedding page waited for beside it 105 s instead of ~8 s (job traces in
``benchmarks/RESULTS.md``, the dashboard-at-scale measurements; in a plain process,
``benchmarks/bench_umap_isolation.py`` measures the fit 1.32× slower beside UMAP in a thread and
1.06× beside UMAP in a child).  :func:`run_in_child` runs it in a fresh Python process instead
(``spawn``: forking a threaded server is unsafe), polls a ``check`` callable meanwhile (e.g. a
job's :meth:`~mlviz.dashboard.jobs.Token.check`), kills the child as soon as that raises, and
stops it while the job is paused (a prefetch job while its session's page computes).

Arguments and results travel pickled through a pipe: they are arrays the server made itself
(never an uploaded file's bytes, which are only ever parsed, in :mod:`mlviz.data.isolated`).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal

__all__ = ["ChildError", "run_in_child"]

_CTX = mp.get_context("spawn")
_STOP = getattr(signal, "SIGSTOP", None)  # (none on Windows: the child then runs on while paused)


class ChildError(RuntimeError):
    """The child process raised (its message names the exception) or ended without an answer."""


def _child(conn, fn, args, kwargs):
    try:
        answer = (True, fn(*args, **kwargs))
    except BaseException as exc:  # (the exception object itself may not pickle)
        answer = (False, f"{type(exc).__name__}: {exc}")
    try:
        conn.send(answer)
    finally:
        conn.close()


def _signal(proc, sig) -> bool:
    try:
        os.kill(proc.pid, sig)
    except ProcessLookupError:  # (it has just ended)
        return False
    return True


def run_in_child(fn, *args, check=None, paused=None, poll: float = 0.2, **kwargs):
    """``fn(*args, **kwargs)`` computed in a child process.

    Parameters
    ----------
    fn : callable
        A module-level function (the child imports it by name).
    check : callable, optional
        Called every ``poll`` seconds while the child runs; whatever it raises ends the child
        (killed) and propagates.  It may also block for a while (a paused prefetch job).
    paused : callable, optional
        ``paused()`` true: the child is stopped (``SIGSTOP``) before ``check`` is called, and
        continued after it returns, so it uses no CPU while the caller's job is paused
        (e.g. :attr:`mlviz.dashboard.jobs.Token.paused`).
    poll : float
        Seconds between two calls of ``check``.

    Raises
    ------
    ChildError
        If ``fn`` raised in the child, or the child died without answering (e.g. out of memory).
    """
    receive, send = _CTX.Pipe(duplex=False)
    proc = _CTX.Process(target=_child, args=(send, fn, args, kwargs), daemon=True)
    proc.start()
    send.close()
    try:
        while not receive.poll(poll):
            stop = paused is not None and _STOP is not None and paused() and _signal(proc, _STOP)
            try:
                if check is not None:
                    check()
            finally:
                if stop:
                    _signal(proc, signal.SIGCONT)
            if not proc.is_alive() and not receive.poll(0):
                raise EOFError
        ok, value = receive.recv()
    except EOFError:
        proc.join(5)
        raise ChildError(f"the worker process ended without an answer (exit code {proc.exitcode})") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()
    if not ok:
        raise ChildError(value)
    return value
