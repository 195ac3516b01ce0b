"""A pytest plugin that records when and where each test ran: how the suite's workers are kept busy.

Load it with ``-p suite_timeline`` (``benchmarks`` on ``PYTHONPATH``) and name the output with
``MLVIZ_TIMELINE``; each process (the controller and every pytest-xdist worker) appends one JSON line
per test: ``{"id", "worker", "start", "stop", "cpu"}`` (wall-clock seconds since the epoch for setup to
teardown, and the CPU seconds of the worker process over that span, not its children's)::

    PYTHONPATH=.:benchmarks MLVIZ_TIMELINE=timeline.jsonl OMP_NUM_THREADS=1 \\
        python -m pytest -q -p no:cacheprovider -p suite_timeline -n 3 --durations=40
    python benchmarks/suite_timeline.py timeline.jsonl

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


def worksteal(seconds, n, min_pending=2):
    """The span of pytest-xdist's ``--dist worksteal`` over tests of these ``seconds`` (in collection
    order) on ``n`` workers, each test taking what it took in a measured run: equal contiguous first shares,
    then an idle worker (fewer than ``min_pending`` queued) takes half of the longest queue from its end.
    A model (no start-up, no messages): it compares two orders of the same tests."""
    queues, left = [], list(range(len(seconds)))
    for k in range(n):
        size = len(left) // (n - k)
        queues.append(left[:size])
        left = left[size:]
    clock = [0.0] * n
    while any(queues):
        k = min((j for j in range(n) if queues[j]), key=lambda j: clock[j])
        clock[k] += seconds[queues[k].pop(0)]
        for j in range(n):  # idle workers steal (from the end of the longest queue)
            if len(queues[j]) < min_pending and clock[j] <= clock[k]:
                donor = max(range(n), key=lambda i: len(queues[i]))
                take = min(len(queues[donor]) // 2, max(0, len(queues[donor]) - min_pending))
                if donor != j and take:
                    queues[j] += queues[donor][-take:]
                    del queues[donor][-take:]
    return max(clock)


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[2] == "--orders":
        # python benchmarks/suite_timeline.py TIMELINE --orders ORDER_A.txt ORDER_B.txt ...: the worksteal model's
        # span for each order (one node id per line) with the durations of TIMELINE, on 3 workers
        took = {}
        for line in open(sys.argv[1]):
            r = json.loads(line)
            took[r["id"]] = r["stop"] - r["start"]
        for path in sys.argv[3:]:
            ids = [x.strip() for x in open(path) if x.strip() in took]
            print(f"{path}: {len(ids)} tests, modelled span on 3 workers {worksteal([took[i] for i in ids], 3):.1f} s")
    else:
        print(summary(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 15))
