"""Why the dashboard's UMAP runs in a child process: a UMAP layout in a thread slows the server's other work.

Three measurements side by side, in one run:

* ``work`` alone: an MLLEM fit on a 983-label × 10.7k-row training split (the Embedding page's
  main job at the delicious shape; :func:`bench_pages_scale.delicious_983`, training rows only);
* the same fit while UMAP of the same rows runs in a **thread** of this process (as the dashboard
  did before session 8);
* the same fit while UMAP runs in a **child process** (:func:`mlviz._isolated.run_in_child`, as now).

Printed: seconds and the ratio to ``alone``, and UMAP's own seconds in each case.  numba is
compiled first (a small UMAP in this process and in a child) so compile time is not counted.

Run::

    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_umap_isolation.py [--rows 10737]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10737)
    args = ap.parse_args(argv)

    from bench_pages_scale import delicious_983

    from mlviz._isolated import run_in_child
    from mlviz.models import MLLEM
    from mlviz.preprocessing import make_scaler
    from mlviz.projections import umap_2d

    ds = delicious_983()
    X = make_scaler("l2", sparse=True).fit_transform(ds.X[: args.rows])
    Y = ds.Y[: args.rows]
    umap_2d(X[:300]), run_in_child(umap_2d, X[:300])  # (compile numba here; the child's cache is on disk)

    def fit():
        t = time.perf_counter()
        MLLEM(random_state=0).fit(X, Y)
        return time.perf_counter() - t

    alone = fit()
    rows = [("MLLEM fit alone", alone, None)]
    for where in ("thread", "child"):
        out = {}

        def layout(where=where, out=out):
            t = time.perf_counter()
            umap_2d(X) if where == "thread" else run_in_child(umap_2d, X)
            out["umap"] = time.perf_counter() - t

        th = threading.Thread(target=layout)
        th.start()
        time.sleep(1.0)  # (UMAP under way)
        seconds = fit()
        th.join()
        rows.append((f"MLLEM fit beside UMAP in a {where}", seconds, out["umap"]))
    print(f"{X.shape[0]} rows × {X.shape[1]} features, {Y.shape[1]} labels")
    print("| what | MLLEM fit s | ratio to alone | UMAP s |\n|---|---|---|---|")
    for what, s, u in rows:
        print(f"| {what} | {s:.2f} | {s / alone:.2f} | {'—' if u is None else f'{u:.1f}'} |")


if __name__ == "__main__":
    main()
