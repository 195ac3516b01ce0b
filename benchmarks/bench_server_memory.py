"""Where the dashboard server's memory goes at 983 labels × 16k (issue 16: "under 3 GB with one session").

One process plays the server (AppTest, as ``bench_pages_scale.py``), on
:func:`bench_pages_scale.delicious_983` (16,105 × 500 sparse, 983 labels).  It opens Embedding,
Posteriors and the Label graph one after the other, waits for the Label graph's whole γ path and
the figures prepared ahead, then moves γ to its smallest value (0.001·γ_max: ~630k edges at these
shapes).  After each step it prints:

* the process's resident memory (``psutil``), and again after ``malloc_trim(0)`` (glibc: what the
  C heap gives back; the rest is live objects or Python's own arenas);
* the bytes the result cache accounts for (``compute.RUNNER.results``; budget ``MLVIZ_CACHE_MB``);
* with ``--entries``, the cache's largest entries.

The browser benchmark (``bench_browser_scale.py``) measures the same server with chromium beside
it; this one shows which step holds what, without the browser's noise.

Run::

    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_server_memory.py [--entries 8]
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entries", type=int, default=0, help="print the cache's largest entries after each step")
    args = ap.parse_args(argv)

    import psutil
    from bench_pages_scale import delicious_983, open_file, path_done

    from mlviz.dashboard import compute, state

    proc = psutil.Process()
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None

    def report(what, t0):
        cache = compute.RUNNER.results
        rss = proc.memory_info().rss / 2**20
        if libc is not None and hasattr(libc, "malloc_trim"):
            libc.malloc_trim(0)
        trimmed = proc.memory_info().rss / 2**20
        print(f"{what:<44} {time.perf_counter() - t0:7.1f} s   RSS {rss:6.0f} MB   after malloc_trim {trimmed:6.0f} MB"
              f"   cache {cache._bytes / 2**20:5.0f} MB", flush=True)
        if args.entries:
            for key, (_, size) in sorted(cache._data.items(), key=lambda kv: -kv[1][1])[:args.entries]:
                print(f"    {size / 2**20:8.1f} MB  …{str(key)[-100:]}")

    ds = delicious_983()
    ctx = state.context_from_dataset(state.upload_id(ds.name, ds.Y.tobytes()), ds)
    t0 = time.perf_counter()
    report("data generated", t0)
    for page in ("pages/1_Embedding.py", "pages/3_Posteriors.py"):
        compute.WAIT = 600.0
        t = time.perf_counter()
        open_file(page, ctx).run()
        compute.RUNNER.wait_idle(90)
        report(f"{Path(page).stem} (+ 90 s of its prefetch)", t)
    compute.WAIT = 0.15
    t = time.perf_counter()
    at = open_file("pages/2_Label_graph.py", ctx)
    at.run()
    path_done(ctx)
    compute.RUNNER.wait_idle(600)
    report("Label graph: whole γ path done", t)
    compute.WAIT = 600.0
    t = time.perf_counter()
    at.run()
    compute.RUNNER.wait_idle(600)
    report("Label graph: automatic γ drawn, idle", t)
    t = time.perf_counter()
    at.select_slider(key="cdn_gamma").set_value(0.001).run()
    report("Label graph: γ → 0.001·γ_max drawn", t)
    compute.RUNNER.wait_idle(600)
    report("  … and idle", t)


if __name__ == "__main__":
    main()
