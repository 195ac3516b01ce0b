"""Run one slow, pure function in a child process: it never holds the server's GIL, and a cancel ends it.

umap-learn's numba code keeps Python's global interpreter lock for long stretches.  Run in a
thread of the dashboard's server, a UMAP layout of 10.7k instances took 157 s instead of 18 s, and
the MLLEM fit the Embedding page waited for beside it 105 s instead of ~8 s (job traces in
``benchmarks/RESULTS.md``, the dashboard-at-scale measurements; in a plain process,
``benchmarks/bench_umap_isolation.py`` measures the fit 1.32× slower beside UMAP in a thread and
1.06× beside UMAP in a child).  :func:`run_in_child` runs it in a fresh Python process instead
(started afresh: forking a threaded server is unsafe), polls a ``check`` callable meanwhile (e.g. a
job's :meth:`~mlviz.dashboard.jobs.Token.check`), kills the child as soon as that raises, and
stops it while the job is paused (a prefetch job while its session's page computes).

Arguments and results travel pickled through pipes: they are arrays the server made itself
(never an uploaded file's bytes, which are only ever parsed, in :mod:`mlviz.data.isolated`).

The child is a plain ``python -c`` interpreter that imports this module, not a
:mod:`multiprocessing` ``spawn`` child: ``spawn`` re-runs the parent's ``__main__`` file in the
child, and in a Streamlit server ``__main__`` is the page script being run (Streamlit installs it
there), so every child would first run the whole page again, or fail in it.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
from multiprocessing.connection import Connection

__all__ = ["ChildError", "child_env", "run_in_child"]

_STOP = getattr(signal, "SIGSTOP", None)  # (none on Windows: the child then runs on while paused)
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ENTRY = "import sys; from mlviz._isolated import _serve; _serve(int(sys.argv[1]))"


class ChildError(RuntimeError):
    """The child process raised (its message names the exception) or ended without an answer."""


def _serve(fd: int) -> None:
    """(In the child) read ``sys.path`` and then ``(fn, args, kwargs)`` from stdin, answer on ``fd``."""
    conn = Connection(fd, readable=False)
    stdin = sys.stdin.buffer
    sys.path[:] = pickle.load(stdin)  # (before the call is unpickled: its functions import by name)
    try:
        fn, args, kwargs = pickle.load(stdin)
        answer = (True, fn(*args, **kwargs))
    except BaseException as exc:  # (the exception object itself may not pickle)
        answer = (False, f"{type(exc).__name__}: {exc}")
    try:
        conn.send(answer)
    finally:
        conn.close()


def child_env() -> dict:
    """This process's environment, with the directory holding :mod:`mlviz` first on ``PYTHONPATH``
    (so a child Python finds this copy of the package, installed or not)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    return env


def _signal(proc, sig) -> bool:
    try:
        os.kill(proc.pid, sig)
    except ProcessLookupError:  # (it has just ended)
        return False
    return True


def _start(fn, args, kwargs):
    """The child process and the read end of its answer pipe, the call already sent."""
    read_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-c", _ENTRY, str(write_fd)], stdin=subprocess.PIPE,
                                pass_fds=(write_fd,), env=child_env())
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    receive = Connection(read_fd, writable=False)
    try:
        pickle.dump(list(sys.path), proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump((fn, args, kwargs), proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        proc.stdin.close()
    except BrokenPipeError:  # (it ended before reading the call: the answer pipe tells the rest)
        pass
    except BaseException:
        proc.kill()
        proc.wait()
        receive.close()
        raise
    return proc, receive


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
    proc, receive = _start(fn, args, kwargs)
    try:
        while not receive.poll(poll):
            stop = paused is not None and _STOP is not None and paused() and _signal(proc, _STOP)
            try:
                if check is not None:
                    check()
            finally:
                if stop:
                    _signal(proc, signal.SIGCONT)
            if proc.poll() is not None and not receive.poll(0):
                raise EOFError
        ok, value = receive.recv()
    except EOFError:
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        raise ChildError(f"the worker process ended without an answer (exit code {proc.returncode})") from None
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        receive.close()
    if not ok:
        raise ChildError(value)
    return value
