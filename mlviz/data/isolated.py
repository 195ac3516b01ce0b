"""Parse an untrusted file in a short-lived worker process.

:func:`load_dataset_isolated` is :func:`~mlviz.data.load_dataset` run in a
separate Python process (``python -m mlviz.data._worker``) under
``RLIMIT_AS`` (memory), ``RLIMIT_CPU`` and a wall-clock timeout.  A crash
(e.g. a segmentation fault in compiled code), a decompression bomb, a memory
blow-up or a hang there ends that process only; the caller gets one
:class:`~mlviz.data.DataError` naming what happened and carries on.

Nothing is unpickled on either side: the job goes to the worker as JSON plus
raw bytes, and only the parsed arrays come back (JSON header with names and
shapes, raw float64/int64/uint8 buffers), re-validated in the caller before
they become a :class:`~mlviz.data.MultiLabelDataset` (see
:mod:`mlviz.data._wire`).

Latency: one spare worker is kept started and imported, so a call pays for
moving the bytes and the parse, not for starting Python and importing
numpy/scipy; :func:`warm_up` starts the spare early (e.g. when the dashboard
starts).  Each call takes the spare and, once done, starts a new one.
"""

from __future__ import annotations

import atexit
import json
import numbers
import os
import selectors
import signal
import subprocess
import sys
import threading
import time

from mlviz._isolated import child_env
from mlviz._text import shorten

from ._errors import DataError
from ._limits import format_bytes, resolve
from ._wire import decode_dataset, pack, unpack_header

__all__ = ["load_dataset_isolated", "warm_up", "shutdown"]

_lock = threading.Lock()
_spare = None
_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: Command of a worker process (tests replace it to simulate crashes and hangs).
WORKER_COMMAND = (sys.executable, "-m", "mlviz.data._worker")


def _start_worker():
    env = child_env()
    for var in _THREAD_VARS:  # one thread: less address space, no CPU contention
        env[var] = "1"
    return subprocess.Popen(
        list(WORKER_COMMAND), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, close_fds=True,
        start_new_session=True,
    )


def warm_up():
    """Start the spare worker now (so the first upload does not wait for imports)."""
    global _spare
    with _lock:
        if _spare is None or _spare.poll() is not None:
            _spare = _start_worker()


def _take_worker():
    global _spare
    with _lock:
        worker, _spare = _spare, None
    if worker is None or worker.poll() is not None:
        worker = _start_worker()
    return worker


def shutdown():
    """Stop the spare worker (registered with :mod:`atexit`)."""
    global _spare
    with _lock:
        worker, _spare = _spare, None
    if worker is not None and worker.poll() is None:
        try:
            worker.stdin.close()
            worker.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            worker.kill()
            worker.wait()


atexit.register(shutdown)


# ---------------------------------------------------------------- job encoding


def _read_input(obj, limits, what):
    """(display name, raw bytes) of a path, bytes or file-like, bounded by the upload limit."""
    from ._source import _display_name, _read_bounded, read_path

    if isinstance(obj, (str, os.PathLike)):
        return read_path(obj, limits, what)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        data = bytes(obj)
        limits.check_upload(len(data), "<bytes>")
        return "<bytes>", data
    name = _display_name(obj)
    data = bytes(_read_bounded(obj, shorten(name), limits.max_upload_bytes))
    limits.check_upload(len(data), shorten(name))
    return name, data


def _labels_spec(labels, limits):
    """(JSON spec, optional XML blob) for the ``labels=`` argument."""
    if labels is None or isinstance(labels, bool):
        return {"kind": "none" if labels is None else "value", "value": labels}, None
    if isinstance(labels, numbers.Integral):
        return {"kind": "value", "value": int(labels)}, None
    if isinstance(labels, (bytes, bytearray)) or hasattr(labels, "read") \
            or hasattr(labels, "getvalue") or isinstance(labels, os.PathLike) \
            or (isinstance(labels, str) and not labels.lstrip().startswith("<")
                and os.path.exists(labels)):
        name, data = _read_input(labels, limits, "label file")
        return {"kind": "xml", "name": name}, data
    if isinstance(labels, str):
        return {"kind": "value", "value": labels}, None
    try:
        return {"kind": "value", "value": [str(v) for v in labels]}, None
    except TypeError:
        raise DataError(f"labels= of type {type(labels).__name__} is not supported") from None


def _job_frame(source, labels, fmt, limits, options):
    filename, data = _read_input(source, limits, "file")
    spec, xml = _labels_spec(labels, limits)
    header = {"filename": filename, "fmt": fmt, "labels": spec, "limits": limits.as_dict(),
              "xml_name": spec.get("name"), "options": options}
    try:
        json.dumps(options)
    except (TypeError, ValueError):
        raise DataError("options for an isolated load must be plain values (str, numbers, "
                        "lists)", source=shorten(filename)) from None
    return pack(header, [data] + ([xml] if xml is not None else [])), filename


# ---------------------------------------------------------------- running


def _exchange(worker, frame, limits, max_result):
    """Send the job, read the result with a deadline; (result bytes, timed_out)."""
    def feed():
        try:
            worker.stdin.write(frame)
            worker.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    deadline = time.monotonic() + float(limits.worker_timeout)
    out = bytearray()
    fd = worker.stdout.fileno()
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return out, True
            if not sel.select(timeout=min(left, 1.0)):
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return out, False
            out += chunk
            if len(out) > max_result:
                return bytearray(), False


def _reap(worker, grace):
    """Wait up to ``grace`` s for the worker to exit, then kill its process group.

    Returns the exit status (as ``Popen.returncode``).
    """
    deadline = time.monotonic() + grace
    while True:
        try:
            pid, status = os.waitpid(worker.pid, os.WNOHANG)
        except ChildProcessError:  # already reaped elsewhere
            return worker.returncode
        if pid:
            break
        if time.monotonic() >= deadline:
            try:
                os.killpg(worker.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                worker.kill()
            _, status = os.waitpid(worker.pid, 0)
            break
        time.sleep(0.002)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    worker.returncode = code
    return code


def _failure(code, timed_out, limits, name):
    if timed_out:
        return DataError(f"reading the file took longer than {limits.worker_timeout:g} s, the "
                         "time limit (MLVIZ_WORKER_TIMEOUT); the parse was stopped", source=name)
    if code == -signal.SIGXCPU or (code == -signal.SIGKILL and limits.worker_cpu_seconds):
        return DataError(f"reading the file used more than {limits.worker_cpu_seconds:g} s of "
                         "CPU time, the limit (MLVIZ_WORKER_CPU_SECONDS), or was killed",
                         source=name)
    if code is not None and code < 0:
        try:
            signame = signal.Signals(-code).name
        except ValueError:
            signame = f"signal {-code}"
        return DataError(f"the parser crashed on this file ({signame}); the file is malformed "
                         "in a way the checks did not catch. Nothing else was affected",
                         source=name)
    return DataError(f"the parse worker stopped without a result (exit status {code}); "
                     f"possibly out of memory (limit {format_bytes(limits.worker_memory_bytes)},"
                     " MLVIZ_WORKER_MEMORY_MB)", source=name)


def load_dataset_isolated(path_or_file, *, labels=None, fmt=None, limits=None, report=None,
                          keep_spare=True, **options):
    """:func:`~mlviz.data.load_dataset` in a short-lived, resource-limited worker process.

    Parameters
    ----------
    path_or_file : str, os.PathLike, bytes or file-like
        As for :func:`~mlviz.data.load_dataset` (a Streamlit ``UploadedFile``
        works); read here, bounded by ``limits.max_upload_bytes``.
    labels : optional
        As for :func:`~mlviz.data.load_dataset`: a Mulan XML (path, bytes,
        file-like or XML text), a list of names, an int, or None.
    fmt : str, optional
        Force the format.
    limits : Limits, optional
        Default :meth:`~mlviz.data.Limits.from_env`; ``worker_memory_bytes``
        (``RLIMIT_AS``), ``worker_cpu_seconds`` (``RLIMIT_CPU``) and
        ``worker_timeout`` (wall clock) bound the worker, the other fields
        bound the parse as in the in-process loaders.
    report : dict, optional
        Filled with ``seconds`` (wall time of the call), ``exit_status`` and
        ``peak_rss_bytes`` (the worker's peak resident memory, ``VmHWM`` as
        the worker reports it; None if it reported nothing, e.g. crashed).
    keep_spare : bool, default True
        Start the next spare worker when this call is done (hides the
        start-up of the next call).
    **options
        Plain-valued loader options (``name``, ``drop_ids``, ``zero_based``, ...).

    Returns
    -------
    MultiLabelDataset

    Raises
    ------
    DataError
        Everything the loaders raise, plus: the worker crashed (signal named),
        ran past the time or CPU limit, or ran out of memory (limit named).

    Examples
    --------
    >>> ds = load_dataset_isolated("sample_data/emotions.arff.gz",
    ...                            labels="sample_data/emotions.xml")  # doctest: +SKIP
    >>> ds.X.shape                                                     # doctest: +SKIP
    (593, 72)
    """
    start = time.perf_counter()
    limits = resolve(limits)
    frame, filename = _job_frame(path_or_file, labels, fmt, limits, options)
    display = shorten(filename)
    max_result = 9 * limits.max_dense_cells + 4 * limits.max_inflated_bytes + (64 << 20)
    worker = _take_worker()
    out, timed_out = bytearray(), True
    try:
        out, timed_out = _exchange(worker, frame, limits, max_result)
    finally:
        # (no result: the worker has closed its pipe on the way out; a moment for its real exit status)
        code = _reap(worker, 0.0 if timed_out else 5.0 if out else 1.0)
        if keep_spare:  # started after the parse so its imports do not compete with it
            warm_up()
        for stream in (worker.stdout, worker.stdin):
            try:
                stream.close()
            except OSError:
                pass
    if report is not None:
        report.update(seconds=time.perf_counter() - start, peak_rss_bytes=None,
                      exit_status=code)
    if timed_out or not out or code != 0:
        raise _failure(code, timed_out, limits, display)
    header, blobs = unpack_header(out)
    peak = header.get("peak_rss_kb")
    if report is not None and isinstance(peak, int) and peak >= 0:
        report["peak_rss_bytes"] = peak * 1024
    if header.get("ok") is True:
        return decode_dataset(header, blobs, limits, display)
    reason = header.get("reason")
    line, column = header.get("line"), header.get("column")
    raise DataError(str(reason) if isinstance(reason, str) else "could not read the file",
                    source=header.get("source") if isinstance(header.get("source"), str)
                    else display,
                    line=line if isinstance(line, int) else None,
                    column=column if isinstance(column, (int, str)) else None)
