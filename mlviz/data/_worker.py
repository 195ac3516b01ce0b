"""Entry point of the parse worker: ``python -m mlviz.data._worker``.

Started by :mod:`mlviz.data.isolated`.  The process imports the loaders,
then waits for one job on stdin (a :mod:`mlviz.data._wire` frame: options as
JSON, the file and optional XML as raw blobs), applies its resource limits
(``RLIMIT_AS``, ``RLIMIT_CPU``, no core files), parses with
:func:`mlviz.data.load_dataset`, writes one frame to the protocol pipe and
exits.  One job per process: whatever a hostile file does to it ends with it.
"""

from __future__ import annotations

import io
import os
import resource
import sys
import time


def _apply_limits(limits):
    from . import _limits

    memory = int(limits.worker_memory_bytes)
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    _limits.WORKER_MEMORY_LIMIT = memory
    cpu = max(1, int(limits.worker_cpu_seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _named(blob, name):
    buf = io.BytesIO(bytes(blob))
    buf.name = name
    return buf


def run_job(frame):
    """Parse the job in ``frame``; return the result frame (bytes)."""
    from ._errors import DataError
    from ._limits import Limits, memory_error_message
    from ._wire import encode_dataset, pack, unpack_header
    from .loader import load_dataset

    start = time.perf_counter()
    header, blobs = unpack_header(frame, "job")
    limits = Limits(**header["limits"])
    _apply_limits(limits)
    kind, value = header["labels"]["kind"], header["labels"].get("value")
    try:  # (from the first copy under the limits on: a MemoryError anywhere is the message below)
        data = _named(blobs[0], header["filename"])
        labels = _named(blobs[1], header["xml_name"]) if kind == "xml" else value
        ds = load_dataset(data, labels=labels, fmt=header.get("fmt"), limits=limits,
                          **header["options"])
        return encode_dataset(ds, {"seconds": time.perf_counter() - start,
                                   "peak_rss_kb": _peak_kb()})
    except MemoryError:
        exc = memory_error_message(header["filename"])
    except DataError as err:
        exc = err
    except Exception as err:  # noqa: BLE001 - a loader bug: still one message, no traceback
        from mlviz._text import shorten

        exc = DataError(f"could not read the file ({type(err).__name__}: {shorten(err, 120)})",
                        source=header["filename"])
    return pack({"ok": False, "reason": exc.reason, "source": exc.source, "line": exc.line,
                 "column": exc.column, "seconds": time.perf_counter() - start,
                 "peak_rss_kb": _peak_kb()})


def _peak_kb():
    """This process's peak resident memory (kB) since exec.

    ``VmHWM`` of the process's own address space; ``ru_maxrss`` would also
    count the parent's memory that a vfork/exec start inherits.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _read_exact(stream, n):
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def main():
    # The protocol goes to a private copy of stdout; fd 1 then points at
    # stderr so that a stray print in a library cannot corrupt a frame.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    import mlviz.data.loader  # noqa: F401 - warm: the spare process imports the parsers before a job arrives

    stdin = sys.stdin.buffer
    try:
        head = _read_exact(stdin, 8)
    except EOFError:
        return 0  # the parent shut a spare worker down
    n = int.from_bytes(head, "little")
    first = _read_exact(stdin, n)
    import json

    sizes = json.loads(first.decode("ascii"))["blob_sizes"]
    frame = head + first + _read_exact(stdin, sum(sizes))
    result = run_job(frame)
    out.write(result)
    out.flush()
    out.close()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)  # skip interpreter teardown: the result is out, nothing else to keep
