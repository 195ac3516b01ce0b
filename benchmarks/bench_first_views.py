"""CPU seconds behind the first views at 983 labels (issue 31), robust to a shared machine.

Two measurements on ``delicious-983`` (:func:`bench_pages_scale.delicious_983`, the training split the
dashboard uses):

* ``--what path``: the Label graph's sparse-CDN γ path up to its first view, as the page's job runs
  it (``CDN_PATH.start``, then the steps γ = γ_max and γ = 0.5·γ_max, each warm-started), in one
  thread: CPU seconds (``process_time``) of each part, the number of edges, FISTA / L-BFGS
  iterations and the objective at 0.5·γ_max (the same numbers before and after a speed-up that keeps
  the maths).
* ``--what posteriors``: the Posteriors page (AppTest, cold caches, ``WAIT`` = 0.15 s) rerun every
  0.5 s until it draws a figure; the CPU seconds of every script run, measured per thread
  (``thread_time``), so the background fits running beside it are not counted. The last run is
  the one that draws the quick preview.

Run (repeat, and alternate with the code you compare against)::

    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_first_views.py --what path
    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_first_views.py --what posteriors
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))


def context():
    import bench_pages_scale as B

    from mlviz.dashboard import state

    ds = B.delicious_983()
    return state.context_from_dataset(state.upload_id(ds.name, ds.Y.tobytes()), ds)


def path(ctx):
    import numpy as np

    from mlviz.dashboard import compute, methods

    cdn = methods.METHODS["cdn"]
    slow = cdn.split(cdn.defaults())[0]
    X, Y = ctx.X_train, ctx.Y_train
    t = time.process_time()
    model = cdn.path.start(cdn.from_sliders(slow, compute.scale(ctx)), X, Y, None)
    out = {"start": time.process_time() - t}
    for point in (1.0, 0.5):
        t = time.process_time()
        model = cdn.path.step(model, point, None, keep=(X, Y))
        out[f"gamma={point:g}"] = time.process_time() - t
    total = sum(out.values())
    print("cpu s: " + ", ".join(f"{k} {v:.2f}" for k, v in out.items()) + f"; total {total:.2f}; "
          f"edges {int(np.count_nonzero(model.label_coef_))}, iterations {model.n_iter_}, "
          f"objective {float(model.objective_history_[-1]):.10g}", flush=True)


def posteriors(ctx):
    import bench_pages_scale as B

    from mlviz.dashboard import compute

    runs = []
    run = threading.Thread.run

    def timed_run(self):  # CPU of each script run, in its own thread
        t0 = time.thread_time()
        try:
            run(self)
        finally:
            if self.name.startswith("ScriptRunner"):
                runs.append(time.thread_time() - t0)

    threading.Thread.run = timed_run
    B.fresh()
    at = B.open_file("pages/3_Posteriors.py", ctx)
    compute.WAIT = 0.15
    t0, c0 = time.perf_counter(), time.process_time()
    at.run()
    while not at.get("plotly_chart"):
        time.sleep(B.POLL)
        at.run()
    preview = any("quick preview" in i.value for i in at.info)
    print(f"first figure{' (quick preview)' if preview else ''}: wall {time.perf_counter() - t0:.2f} s, "
          f"process cpu {time.process_time() - c0:.2f} s; {len(runs)} script runs, cpu {sum(runs):.2f} s "
          f"(first {runs[0]:.2f} s, the drawing run {runs[-1]:.2f} s)", flush=True)


def main(argv=None):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--what", choices=["path", "posteriors"], required=True)
    args = p.parse_args(argv)
    {"path": path, "posteriors": posteriors}[args.what](context())
    os._exit(0)  # (the dashboard's background jobs are not awaited)


if __name__ == "__main__":
    main()
