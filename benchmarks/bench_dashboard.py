"""Server time of a slider move in the dashboard (Streamlit AppTest, in process, no browser).

For each page and slider, on a bundled data set:

* **settled** — the page has shown its result and the background has finished what it
  prepares ahead (the γ path, the neighbouring μ / λ / … values one grid step away, their
  posteriors and figures); then one move by one grid step, timed (``AppTest.run()``: the
  fragment's script run including figure serialisation; browser and network not included);
* **back to back** — every position of the grid in a row, the background still busy;
* **cold** — the same move with the result cache emptied first: the answer (a rerun waits
  at most ``compute.WAIT`` = 0.15 s, then answers with the previous result and a notice) and,
  separately, the time until the new result is on screen;
* **same URL** — the label graph reached from several previous settings: the number of
  distinct (edges, selected features) seen (1 = the result depends on the settings only).

Run:  .venv/bin/python benchmarks/bench_dashboard.py [--quick] [--dataset emotions]
Target (issue 7/13): ≤ 300 ms per slider move on the posterior and graph pages.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore")

import logging  # noqa: E402

logging.getLogger("streamlit").setLevel(logging.ERROR)

from streamlit.testing.v1 import AppTest  # noqa: E402

from mlviz.dashboard import compute, methods  # noqa: E402

PAGES = {"graph": "pages/2_Label_graph.py", "posteriors": "pages/3_Posteriors.py",
         "embedding": "pages/1_Embedding.py"}


def open_page(page, **query):
    at = AppTest.from_file(str(ROOT / PAGES[page]), default_timeout=600)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def settle(at):
    """Wait for the background, rerun (the page then asks for what it prepares ahead), wait again."""
    compute.RUNNER.wait_idle(600)
    at.run()
    compute.RUNNER.wait_idle(600)


def timed(at, widget, value):
    t0 = time.perf_counter()
    widget.set_value(value).run()
    if at.exception:
        raise RuntimeError([e.value for e in at.exception])
    return time.perf_counter() - t0


def widget_of(at, key, grid):
    return at.select_slider(key=key) if len(grid) > 4 or all(isinstance(v, (int, float)) for v in grid) \
        else (at.selectbox(key=key) if key == "cdn_variant" else at.radio(key=key))


def sweep(page, query, key, grid, mode, limit):
    """Times (s) of moves of ``key`` through ``grid`` (``mode``: settled, back-to-back, cold)."""
    compute.RUNNER.clear()
    at = open_page(page, **query)
    settle(at)
    out, waits = [], []
    current = widget_of(at, key, grid).value
    order = [v for v in grid if v != current][:limit]
    for v in order:
        if mode == "cold":
            compute.RUNNER.clear()
            compute.RUNNER.wait_idle(600)
        out.append(timed(at, widget_of(at, key, grid), v))
        if mode == "cold":  # until the result is on screen: the job, then the page's own rerun
            t0 = time.perf_counter()
            compute.RUNNER.wait_idle(600)
            at.run()
            waits.append(out[-1] + time.perf_counter() - t0)
        if mode == "settled":
            settle(at)
    return out, waits


def same_url(n_starts):
    target = dict(cdn_gamma=0.1, cdn_mu=0.01, cdn_lam=0.1, cdn_variant="sparse")
    starts = [dict(cdn_mu="0.1"), dict(cdn_gamma="0.001", cdn_mu="0.0"), dict(cdn_lam="1.0"),
              dict(cdn_variant="l1-cdn"), dict(cdn_lam="0.001", cdn_gamma="0.5"), {}][:n_starts]
    seen = set()
    for start in starts:
        at = open_page("graph", **start)
        for k, v in target.items():
            (at.selectbox(key=k) if k == "cdn_variant" else at.select_slider(key=k)).set_value(v).run()
        m = {x.label: x.value for x in at.metric}
        seen.add((m["edges (non-zero V entries)"], m["selected features"]))
    return seen


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer slider positions and sliders")
    ap.add_argument("--dataset", default="emotions")
    args = ap.parse_args(argv)
    limit = 3 if args.quick else 99
    CDN, M = methods.METHODS["cdn"], methods.METHODS
    cases = [("graph", {}, f"cdn_{p}", CDN.param(p).grid) for p in ("gamma", "mu", "lam")]
    for mk in (["cdn", "mllspc"] if args.quick else ["cdn", "mllspc", "mllem", "br", "mlknn"]):
        label = M[mk].label
        cases += [("posteriors", {"post_models": [label], "post_rel": "false"}, f"post_{mk}_{p.name}", p.grid)
                  for p in M[mk].sliders[: (2 if args.quick else None)]]
    print(f"data set: {args.dataset}; WAIT = {1000 * compute.WAIT:.0f} ms; times in ms (AppTest.run of one move)")
    print(f"{'page':<11}{'slider':<22}{'settled med':>12}{'max':>7}{'b2b med':>9}{'max':>7}"
          f"{'cold answer':>12}{'cold result':>12}{'>300ms':>8}")
    for page, query, key, grid in cases:
        query = {"data": args.dataset, **query}
        settled, _ = sweep(page, query, key, grid, "settled", limit)
        b2b, _ = sweep(page, query, key, grid, "back-to-back", limit)
        cold, result = sweep(page, query, key, grid, "cold", 2 if args.quick else 3)
        slow = sum(t > 0.3 for t in settled + b2b + cold)
        print(f"{page:<11}{key:<22}{1000 * statistics.median(settled):>12.0f}{1000 * max(settled):>7.0f}"
              f"{1000 * statistics.median(b2b):>9.0f}{1000 * max(b2b):>7.0f}{1000 * statistics.median(cold):>12.0f}"
              f"{1000 * statistics.median(result):>12.0f}{slow:>8}", flush=True)
    seen = same_url(3 if args.quick else 6)
    print(f"\nlabel graph at γ=0.1, μ/N=0.01, λ=0.1 reached from {3 if args.quick else 6} previous settings: "
          f"{len(seen)} distinct (edges, selected features): {sorted(seen)}")


if __name__ == "__main__":
    main()
