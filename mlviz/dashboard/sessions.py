"""Memory returned when a browser session ends: its uploads, the results computed on them and its jobs.

An upload lives in its session's state (:func:`mlviz.dashboard.state.register_upload`), and every
result computed on it (statistics, fits, figures, cross-validation) sits in the runner's shared
cache under a key that starts with the upload's data key (:mod:`mlviz.dashboard.compute`). Streamlit
drops a session's state some time after the browser closes (``server.disconnectedSessionTTL``,
120 s by default), but the shared cache would keep that session's results until other work pushes
them out (up to ``MLVIZ_CACHE_MB``), and glibc keeps freed memory in its arenas.

:data:`LEDGER` records which session holds which upload. :func:`sweep` first shuts down the
sessions whose reconnect time is over (:func:`reap_expired`: Streamlit would keep them, and their
state, until its session store is next touched), then compares the ledger with the sessions the
Streamlit runtime still knows (active, or disconnected within the TTL) and, for each
session that is gone: cancels its jobs and forgets it in the runner
(:meth:`mlviz.dashboard.jobs.Runner.end_session`), drops the cache entries of the uploads that no
live session holds (:meth:`~mlviz.dashboard.jobs.Runner.drop`), runs the garbage collector and
returns the freed heap to the system with glibc's ``malloc_trim(0)`` (:func:`trim`). :func:`watch`
starts one daemon thread per server that sweeps every :data:`SWEEP_SECONDS` s
(``MLVIZ_SESSION_SWEEP``), so memory comes back even when nobody opens a page afterwards.

The ledger itself has no Streamlit in it (unit tests drive :meth:`Ledger.ended` with session ids).
Measured in ``benchmarks/bench_session_memory.py`` (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import threading
import time

__all__ = ["LEDGER", "Ledger", "SWEEP_SECONDS", "alive_sessions", "reap_expired", "sweep", "trim", "watch"]


def _env_seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


#: Seconds between two sweeps of the watcher thread.
SWEEP_SECONDS = _env_seconds("MLVIZ_SESSION_SWEEP", 15.0)


class Ledger:
    """The browser sessions seen and the uploaded data sets each holds (thread-safe)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._held: dict = {}  # runtime session id -> (mlviz session id, set of data keys)

    def see(self, session: str, runtime_id: str | None) -> None:
        """Session ``runtime_id`` (Streamlit's id; ``session`` is mlviz's id of it) is running."""
        if runtime_id is None:  # (outside a server: nothing will end it)
            return
        with self._lock:
            if runtime_id not in self._held:
                self._held[runtime_id] = (session, set())

    def hold(self, session: str, data_key: str, runtime_id: str | None) -> None:
        """Session ``runtime_id`` holds the upload ``data_key``."""
        if runtime_id is None:
            return
        with self._lock:
            self._held.setdefault(runtime_id, (session, set()))[1].add(data_key)

    def sessions(self) -> set:
        with self._lock:
            return set(self._held)

    def ended(self, alive) -> tuple:
        """Forget the sessions not in ``alive``; returns ``(their runtime ids, their mlviz session ids,
        the data keys no live session holds any more)``."""
        alive = set(alive)
        with self._lock:
            gone = [r for r in self._held if r not in alive]
            sessions = [self._held[r][0] for r in gone]
            keys = set().union(*(self._held.pop(r)[1] for r in gone)) if gone else set()
            still = set().union(*(v[1] for v in self._held.values())) if self._held else set()
        return gone, sessions, sorted(keys - still)

    def __len__(self):
        with self._lock:
            return len(self._held)


LEDGER = Ledger()


def trim() -> bool:
    """Give freed C-heap memory back to the system (glibc ``malloc_trim(0)``); False elsewhere or
    with ``MLVIZ_MALLOC_TRIM=0`` (to measure without it)."""
    if os.environ.get("MLVIZ_MALLOC_TRIM", "1") == "0":
        return False
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return False
    if libc is None or not hasattr(libc, "malloc_trim"):
        return False
    libc.malloc_trim(0)
    return True


def alive_sessions() -> set | None:
    """Ids of the sessions the Streamlit runtime keeps (active or waiting for a reconnect); None
    when no runtime runs (tests)."""
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return None
        manager = Runtime.instance()._session_mgr
        return {info.session.id for info in manager.list_sessions()}
    except Exception:  # noqa: BLE001 - a Streamlit internals change must not take the app down
        return None


def release_app_session(session) -> None:
    """Shut a Streamlit ``AppSession`` down and empty its state and fragments.

    The shutdown releases its uploaded files, media and downloads; emptying its state (uploads,
    scaled copies, widget values) and its fragments (which hold the page's globals) frees the rest
    even while something in the server still refers to the session object itself (an asyncio
    coroutine of its closed websocket did, in ``benchmarks/bench_session_memory.py``).
    """
    for step in (lambda: session.shutdown(), lambda: session._session_state.clear(),
                 lambda: session._fragment_storage.clear()):
        try:
            step()
        except Exception:  # noqa: BLE001 - internals of another Streamlit version: do what can be done
            pass


def reap_expired() -> int:
    """Shut down the sessions whose reconnect time (``server.disconnectedSessionTTL``) is over.

    Streamlit keeps a disconnected session in a TTL cache that drops an expired entry only when the
    cache is next changed or counted, and never shuts it down: until then the session's state (its
    uploads), its uploaded files and its downloads stay referenced. Returns how many were reaped.
    """
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return 0
        storage = getattr(Runtime.instance()._session_mgr, "_session_storage", None)
        expire = getattr(getattr(storage, "_cache", None), "expire", None)
        removed = expire() if expire is not None else []
    except Exception:  # noqa: BLE001 - internals of another Streamlit version
        return 0
    for _, info in removed:
        release_app_session(info.session)
    n = len(removed)
    del removed
    return n


def sweep(alive=None) -> dict:
    """Release what the sessions that are gone held (see the module docstring).

    Parameters
    ----------
    alive : collection of str, optional
        Runtime session ids still alive (default: :func:`alive_sessions`; nothing is released when
        it is unknown).

    Returns
    -------
    dict
        ``sessions`` (ended), ``data_keys`` (released), ``freed_bytes`` (cache bytes dropped),
        ``trimmed`` (malloc_trim ran), ``reaped`` (expired sessions shut down).
    """
    reaped = 0
    if alive is None:
        reaped = reap_expired()
        alive = alive_sessions()

    if alive is None or not len(LEDGER):
        return {"sessions": [], "data_keys": [], "freed_bytes": 0, "trimmed": False, "reaped": reaped}
    runtime_ids, sessions, keys = LEDGER.ended(alive)
    if not runtime_ids:
        return {"sessions": [], "data_keys": [], "freed_bytes": 0, "trimmed": False, "reaped": reaped}
    from .compute import RUNNER

    for r in runtime_ids:
        _streamlit_files(r)
    for s in sessions:
        RUNNER.end_session(s)
    freed = RUNNER.drop(keys)
    gc.collect()
    return {"sessions": runtime_ids, "data_keys": keys, "freed_bytes": freed, "trimmed": trim(), "reaped": reaped}


def _streamlit_files(runtime_id: str) -> None:
    """What Streamlit's own session shutdown releases, for a session its reconnect storage let expire
    without a shutdown: the session's uploaded files (the bytes of every file put in an uploader),
    its media and deferred downloads (closures holding tables and figures), its data-frame sources."""
    try:
        from streamlit.runtime import Runtime

        rt = Runtime.instance()
        rt.uploaded_file_mgr.remove_session_files(runtime_id)
        rt.media_file_mgr.clear_session_refs(runtime_id)
        rt.media_file_mgr.remove_orphaned_files()
        clear = getattr(getattr(rt, "dataframe_source_mgr", None), "clear_all_for_session", None)
        if clear is not None:
            clear(runtime_id)
    except Exception:  # noqa: BLE001 - internals of another Streamlit version: the rest still runs
        pass


_watcher: threading.Thread | None = None
_watch_lock = threading.Lock()


def _loop() -> None:
    while True:
        time.sleep(SWEEP_SECONDS)
        try:
            sweep()
        except Exception:  # noqa: BLE001 - keep sweeping
            pass


def watch() -> None:
    """Start the sweeping thread once per server (called by every page; cheap after the first)."""
    global _watcher
    if _watcher is not None:
        return
    with _watch_lock:
        if _watcher is None and alive_sessions() is not None:
            _watcher = threading.Thread(target=_loop, name="mlviz-session-sweep", daemon=True)
            _watcher.start()
