"""BLAS threads in the dashboard: every Posteriors method fitted as the app does, with the BLAS
library's own thread count and with one thread per call (``mlviz._threads.one_blas_thread``, what the
app and ``mlviz evaluate`` set unless ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS``
is given).

Each configuration runs in a fresh child process with those variables removed from its
environment: the registry's Posteriors methods at their dashboard defaults fitted on the bundled
data set's training split and asked for ``predict_proba`` on its test split -- one after the other,
and two at a time in threads (the app runs two user jobs at once, ``MLVIZ_WORKERS``). Conditions:
the machine as it is, and with one core kept busy by another process (a pure-Python loop: another
session's fit, the browser drawing). Configurations alternate (A B A B) and the ratio of the
medians is printed.

Run::

    PYTHONPATH=. python benchmarks/bench_blas_threads.py [--data emotions] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def child(data, limit, threads):
    from concurrent.futures import ThreadPoolExecutor

    from mlviz._threads import one_blas_thread
    from mlviz.dashboard.context import sample_context
    from mlviz.dashboard.methods import METHODS, POSTERIOR_METHODS

    if limit:
        one_blas_thread()
    ctx = sample_context(data)

    def run(key):
        t = time.perf_counter()
        est = METHODS[key].make()
        est.fit(ctx.X_train, ctx.Y_train)
        est.predict_proba(ctx.X_test)
        return key, time.perf_counter() - t

    METHODS["br"].make().fit(ctx.X_train, ctx.Y_train)  # imports and first-call costs outside the clock
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        per = dict(pool.map(run, POSTERIOR_METHODS))
    from threadpoolctl import threadpool_info

    blas = sorted({f"{i['internal_api']}:{i['num_threads']}" for i in threadpool_info()})
    print(json.dumps({"total": time.perf_counter() - t0, "per": per, "blas": blas}))


def _spin():
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def measure(data, limit, threads, busy):
    env = {k: v for k, v in os.environ.items() if k not in VARS}
    env["PYTHONPATH"] = str(ROOT)
    spinner = _spin() if busy else None
    try:
        out = subprocess.run([sys.executable, __file__, "_child", data, str(int(limit)), str(threads)],
                             capture_output=True, text=True, env=env, timeout=3600)
    finally:
        if spinner:
            spinner.kill()
            spinner.wait()
    line = (out.stdout.strip().splitlines() or [""])[-1]
    if not line.startswith("{"):
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(line)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="emotions")
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args(argv)
    import statistics

    print(f"== {args.data}: every Posteriors method, fit + predict_proba; {os.cpu_count()} CPUs; "
          f"medians of {args.repeats} alternating runs")
    for busy in (False, True):
        for threads in (1, 2):
            runs = {False: [], True: []}
            for _ in range(args.repeats):
                for limit in (False, True):
                    runs[limit].append(measure(args.data, limit, threads, busy))
            lib, one = (statistics.median(r["total"] for r in runs[x]) for x in (False, True))
            slow = max(runs[False][-1]["per"].items(), key=lambda kv: kv[1])
            quick = runs[True][-1]["per"][slow[0]]
            print(f"  {'one core busy' if busy else 'idle machine '}  {threads} job(s) at a time:  "
                  f"library's threads {lib:7.2f} s ({', '.join(runs[False][-1]['blas'])}; slowest {slow[0]} "
                  f"{slow[1]:.2f} s, {quick:.2f} s on one thread)   one thread {one:6.2f} s   ratio {lib / one:6.1f}x",
                  flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        child(sys.argv[2], sys.argv[3] == "1", int(sys.argv[4]))
    else:
        main()
