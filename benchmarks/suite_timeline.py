"""A pytest plugin that records when and where each test ran: how the suite's workers are kept busy.

Load it with ``-p suite_timeline`` (``benchmarks`` on ``PYTHONPATH``) and name the output with
``MLVIZ_TIMELINE``; each process (the controller and every pytest-xdist worker) appends one JSON line
per test: ``{"id", "worker", "start", "stop", "cpu"}`` (wall-clock seconds since the epoch for setup to
teardown, and the CPU seconds of the worker process over that span, not its children's)::

    PYTHONPATH=.:benchmarks MLVIZ_TIMELINE=/tmp/timeline.jsonl OMP_NUM_THREADS=1 \\
        python -m pytest -q -p no:cacheprovider -p suite_timeline -n 3 --durations=40
    python benchmarks/suite_timeline.py /tmp/timeline.jsonl

The second command prints, per worker, its busy seconds, its first start and last stop, the run's span
(wall time of the tests, without start-up) and the longest tests with the second they started at.
"""

from __future__ import annotations

import json
import os
import sys
import time

_STARTED = {}
_CONFIG = []


def pytest_configure(config):
    _CONFIG.append(config)


def _controller():
    """The pytest-xdist controller (it sees every worker's reports: not a place where tests run)."""
    return bool(_CONFIG) and _CONFIG[0].pluginmanager.has_plugin("dsession")


def pytest_runtest_logstart(nodeid, location):
    if not _controller():
        _STARTED[nodeid] = (time.time(), time.process_time())


def pytest_runtest_logfinish(nodeid, location):
    out = os.environ.get("MLVIZ_TIMELINE")
    if not out or nodeid not in _STARTED:
        return
    t0, c0 = _STARTED.pop(nodeid)
    row = {"id": nodeid, "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "start": t0,
           "stop": time.time(), "cpu": time.process_time() - c0}
    with open(out, "a") as fh:
        fh.write(json.dumps(row) + "\n")


def summary(path, top=15):
    """The per-worker and longest-test summary of a timeline file, as text."""
    rows = [json.loads(line) for line in open(path)]
    t0 = min(r["start"] for r in rows)
    lines = [f"{len(rows)} tests, span {max(r['stop'] for r in rows) - t0:.1f} s"]
    for w in sorted({r["worker"] for r in rows}):
        mine = [r for r in rows if r["worker"] == w]
        busy = sum(r["stop"] - r["start"] for r in mine)
        lines.append(f"  {w}: {len(mine)} tests, busy {busy:.1f} s, cpu {sum(r['cpu'] for r in mine):.1f} s, "
                     f"from {min(r['start'] for r in mine) - t0:.1f} to {max(r['stop'] for r in mine) - t0:.1f} s")
    lines.append("longest (seconds, started at, worker):")
    for r in sorted(rows, key=lambda r: r["start"] - r["stop"])[:top]:
        lines.append(f"  {r['stop'] - r['start']:6.1f}  @{r['start'] - t0:6.1f}  {r['worker']}  {r['id']}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 15))
