"""Server time of a slider move in the dashboard (Streamlit AppTest, no browser).

For each page and slider: open the page on a bundled data set, warm up (first
run fits the base models, γ path, layouts), then move the slider through every
position of its grid that has not been visited yet and time ``AppTest.run()``
(the script run of the slider's fragment, in-process, including figure
serialisation; browser rendering and network are not included).  On the
label-graph page (and for the sparse CDN on the posteriors page) the figures
and posteriors of the other γ positions are pre-built in a background thread
once the γ path is fitted; the benchmark waits for that (a user's first look
at the page) before moving γ.

A sparse CDN μ or λ move refits one model at the current γ ratio and leaves
the γ path of the new (λ, μ) to a background thread; the timed rerun is the
one the user waits for (metrics, graph, convergence curve, the path figure
with the points known so far).  Once a page has settled, the background also
fits (and, per page, draws / predicts) the neighbouring μ and λ values, one
and two grid steps away, so such a move is a lookup.  These sliders are timed
four ways:

* back to back: the previous move's background work still pending (it pauses
  while a rerun runs), so nothing is prefetched around the positions passed
  through; a move may still land on a value prefetched around the settled
  position the sweep started from (the graph page's μ sweep does);
* one move at a time after the page has settled (path, figures and
  neighbours of the previous move done, and the page's own rerun that shows
  the path; the quick grids move μ two steps, λ one step);
* far jumps after the page has settled: three or more grid steps, to settings
  with no cached fit (a refit, as without prefetch);
* one grid step every 2 s (a user exploring; the background gets ~1.5 s
  between moves, less than it needs to settle on the larger data sets).

Since session 3 an uncached sparse CDN fit runs in a thread of its own
(:mod:`mlviz.dashboard.cdn_jobs`): a move waits for it at most
``cdn_jobs.WAIT`` (0.15 s), otherwise it answers with the previous fit and a
notice of the fit under way, and the page reruns by itself when the fit is
done.  The table times the answer; a second table times, for the settled,
far-jump and paced moves, the wait until the new fit is on screen.

The time the background needs to settle after a move (γ path, γ figures /
posteriors, then the neighbours) is printed below the table: a user who
moves sooner than that may meet a refit.  Side by side
it times the same slider move with every Streamlit cache emptied first (a
full fit / path / figure build), so the ratio shows what the caches
(eigendecompositions, kNN lists, warm-started γ path, figures) buy.

Run:  .venv/bin/python benchmarks/bench_dashboard.py [--quick] [--dataset emotions]
Target (issue 7): ≤ 300 ms per slider move on the posterior and graph pages.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import logging  # noqa: E402

logging.getLogger("streamlit").setLevel(logging.ERROR)
warnings.simplefilter("ignore")

import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

PAGES = {"posteriors": "pages/3_Posteriors.py", "graph": "pages/2_Label_graph.py", "embedding": "pages/1_Embedding.py"}


def open_page(page, **query):
    at = AppTest.from_file(str(ROOT / PAGES[page]), default_timeout=600)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def settle(at):
    """Let background work finish, as while a user looks at the page: the γ path
    (and figures) computed after a μ/λ move, the rerun the page triggers by
    itself once they are there (``st.fragment(run_every=...)``, not run by AppTest),
    and the neighbour prefetch.  Returns the seconds that took."""
    from mlviz.dashboard import cache

    t0 = time.perf_counter()
    cache.wait_prebuilt()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    cache.wait_prebuilt()
    return time.perf_counter() - t0


def settled_moves(at, moves, settle_times, result_row=None):
    """Time each move ``(widget key, value)`` made after the page has settled."""
    times = []
    settle_times.append(settle(at))
    for key, v in moves:
        times += sweep(at, "select_slider", key, [v], result_row=result_row)
        settle_times.append(settle(at))
    return times


def clear_all():
    from mlviz.dashboard import cache

    st.cache_data.clear()
    st.cache_resource.clear()
    cache.clear_prebuilt()


RESULTS = {}  # row label -> seconds from a sparse CDN move to its new fit on screen (see sweep)
PENDING = {}  # row label -> [moves answered with a "fit under way" notice, moves]


def _notice(at):
    return any("Fitting the sparse CDN" in i.value for i in at.info)


def sweep(at, kind, key, values, uncached=False, result_row=None):
    """Time each move of widget ``key`` to the values not yet shown.

    ``uncached=True`` empties every Streamlit cache before each move: the same
    slider move without the dashboard's caches (full fit, path, figures).
    ``result_row``: also time each move until its new fit is on screen (a sparse CDN
    fit not done within ``cdn_jobs.WAIT`` answers with the previous fit and a notice;
    the page reruns by itself when the fit is done — here: wait for it, then rerun)
    and record it under ``RESULTS[result_row]``.
    """
    from mlviz.dashboard import cdn_jobs

    times = []
    for v in values:
        w = getattr(at, kind)(key=key)
        if w.value == v:
            continue
        w.set_value(v)
        if uncached:
            clear_all()
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        if result_row is not None:
            counts = PENDING.setdefault(result_row, [0, 0])
            counts[1] += 1
            if _notice(at):
                counts[0] += 1
                cdn_jobs.wait_all()
                at.run()
                assert not at.exception and not _notice(at)
            RESULTS.setdefault(result_row, []).append(time.perf_counter() - t0)
    return times


FAR_TARGETS = {}  # page prefix -> the far jumps made, "λ, μ -> λ', μ'" (printed: they depend on what is cached)


def far_jumps(at, ds, prefix, n=4, result_row=None):
    """Time ``n`` μ / λ moves (alternately) after the page settled, each three or more grid steps
    away to a setting with no cached fit, with the neighbour prefetch switched off (it would have
    fitted every value one move can reach): a warm-started refit, answered at once with a notice
    if it takes longer than ``cdn_jobs.WAIT`` — what a user meets who moves before the
    background has settled."""
    from mlviz.dashboard import cdn_prefetch, state

    ctx = state.sample_context(ds)
    times = []
    prefetch, cdn_prefetch.prefetch_neighbours = cdn_prefetch.prefetch_neighbours, lambda *a, **k: None
    try:
        at.select_slider(key=f"{prefix}cdn_gamma").set_value(0.03).run()  # a γ ratio the other moves did not use
        settle(at)
        _far_moves(at, ctx, prefix, n, result_row, times)
    finally:
        cdn_prefetch.prefetch_neighbours = prefetch
    return times


def _far_moves(at, ctx, prefix, n, result_row, times):
    from mlviz.dashboard import sparse_cdn
    from mlviz.dashboard.methods import METHODS

    for i in range(n):
        here = {k: at.select_slider(key=f"{prefix}cdn_{k}").value for k in ("lam", "mu", "gamma")}
        for name in (("mu", "lam") if i % 2 == 0 else ("lam", "mu")):
            g = list(METHODS["cdn"].param(name).grid)
            pos = g.index(here[name])
            far = [v for j, v in enumerate(g) if abs(j - pos) >= 3 and sparse_cdn.lookup(
                ctx, **{"lam": here["lam"], "mu": here["mu"], name: v}, variant="sparse", ratio=here["gamma"]) is None]
            if far:
                new = {**here, name: far[0]}
                FAR_TARGETS.setdefault(prefix, []).append(f"({here['lam']}, {here['mu']}) → ({new['lam']}, {new['mu']})")
                times += sweep(at, "select_slider", f"{prefix}cdn_{name}", far[:1], result_row=result_row)
                settle(at)
                break


def paced_moves(at, prefix, pace=2.0, result_row=None):
    """Time one-grid-step μ / λ moves made every ``pace`` seconds (no waiting for the background),
    from the settled default page (λ = 0.1, μ = 0.003): the first two land on values prefetched
    there, the other four on values the background may or may not have reached."""
    times = []
    settle(at)
    for name, v in [("mu", 0.01), ("mu", 0.03), ("lam", 1.0), ("mu", 0.1), ("lam", 0.1), ("lam", 0.01)]:
        t0 = time.perf_counter()
        times += sweep(at, "select_slider", f"{prefix}cdn_{name}", [v], result_row=result_row)
        time.sleep(max(0.0, pace - (time.perf_counter() - t0)))
    return times


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer slider positions")
    ap.add_argument("--dataset", default="emotions")
    args = ap.parse_args(argv)
    from mlviz.dashboard import cache
    from mlviz.dashboard.methods import METHODS

    ds = args.dataset
    rows = []
    settle_times = {}  # page -> seconds the background took to settle after a μ/λ move

    def record(page, slider, times, uncached=None):
        if not times:
            return
        med, worst = statistics.median(times), max(times)
        ref = statistics.median(uncached) if uncached else None
        rows.append((page, slider, len(times), 1000 * med, 1000 * worst, ref))

    def grid(method, name):
        g = list(METHODS[method].param(name).grid)
        return g[::2] if args.quick else g

    n_unc = 2 if args.quick else 3
    clear_all()
    at = open_page("posteriors", data=ds, post_rel="true")
    lam = grid("mllspc", "lam")
    cached = sweep(at, "select_slider", "post_mllspc_lam", lam)
    record("posteriors", "ML-LSPC λ", cached,
           sweep(at, "select_slider", "post_mllspc_lam", lam[::-1][1:n_unc + 1], uncached=True))
    record("posteriors", "ML-LSPC γ", sweep(at, "select_slider", "post_mllspc_gamma", grid("mllspc", "gamma")))
    record("posteriors", "global threshold", sweep(at, "slider", "thr_global", [0.3, 0.4, 0.6, 0.7, 0.8]))
    at.radio(key="thr_mode").set_value("rank cut").run()
    record("posteriors", "rank cut r", sweep(at, "slider", "thr_rank", [2, 3, 1]))

    clear_all()
    at = open_page("posteriors", data=ds, post_rel="false")
    record("posteriors", "ML-LSPC λ (no reliability)", sweep(at, "select_slider", "post_mllspc_lam", lam))

    clear_all()
    at = open_page("posteriors", data=ds, post_rel="true", post_models=["MLLEM"])
    record("posteriors", "MLLEM α", sweep(at, "select_slider", "post_mllem_alpha", grid("mllem", "alpha")))
    clear_all()
    at = open_page("posteriors", data=ds, post_rel="true", post_models=["Sparse CDN"])
    cache.wait_prebuilt()  # posteriors of the other γ on the cached path are prepared in the background
    record("posteriors", "Sparse CDN γ", sweep(at, "select_slider", "post_cdn_gamma", grid("cdn", "gamma")))
    # μ / λ: one warm-started refit each, moves back to back (the background work of the
    # previous move is still pending).
    mu, lam_cdn = grid("cdn", "mu"), METHODS["cdn"].param("lam").grid
    record("posteriors", "Sparse CDN μ (back to back)", sweep(at, "select_slider", "post_cdn_mu", mu))
    record("posteriors", "Sparse CDN λ (back to back)", sweep(at, "select_slider", "post_cdn_lam", lam_cdn))
    # one move at a time after the page settled (neighbours prefetched), then far jumps (not prefetched)
    st_post = settle_times.setdefault("posteriors", [])
    record("posteriors", "CDN μ, λ (page settled)", settled_moves(
        at, [("post_cdn_mu", v) for v in mu[::-1]] + [("post_cdn_lam", v) for v in lam_cdn[::-1]], st_post,
        result_row="posteriors CDN μ, λ (page settled)"))
    record("posteriors", "CDN μ, λ far jump (settled)", far_jumps(at, ds, "post_",
                                                                  result_row="posteriors CDN μ, λ far jump"))
    clear_all()
    at = open_page("posteriors", data=ds, post_rel="true", post_models=["Sparse CDN"])
    record("posteriors", "CDN μ, λ one step every 2 s", paced_moves(at, "post_",
                                                                  result_row="posteriors CDN one step every 2 s"))

    clear_all()
    at = open_page("graph", data=ds)
    settle(at)  # the γ path, then the other γ figures, are built while the user looks at the first
    g = grid("cdn", "gamma")
    cached = sweep(at, "select_slider", "cdn_gamma", g)
    record("graph", "γ (warm path)", cached, sweep(at, "select_slider", "cdn_gamma", g[::-1][1:n_unc + 1], uncached=True))
    at = open_page("graph", data=ds)
    settle(at)
    record("graph", "co-occurrence min count", sweep(at, "slider", "cooc_min", [1, 5, 10, 20]))
    # μ and λ: one warm-started refit at the current γ ratio, the γ path follows in the background.
    # First back to back (the previous move's background work is pending), then one move at a
    # time after the page has settled (path and figures of the previous move done).
    mu, lam = grid("cdn", "mu"), METHODS["cdn"].param("lam").grid
    record("graph", "μ (back to back)", sweep(at, "select_slider", "cdn_mu", mu))
    record("graph", "λ (back to back)", sweep(at, "select_slider", "cdn_lam", lam))
    record("graph", "γ (path still pending)", sweep(at, "select_slider", "cdn_gamma", g))
    st_graph = settle_times.setdefault("graph", [])
    record("graph", "μ, λ (page settled)", settled_moves(
        at, [("cdn_mu", v) for v in mu[::-1]] + [("cdn_lam", v) for v in lam[::-1]], st_graph,
        result_row="graph μ, λ (page settled)"))
    record("graph", "μ, λ far jump (settled)", far_jumps(at, ds, "", result_row="graph μ, λ far jump"))
    record("graph", "γ (path just computed)", sweep(at, "select_slider", "cdn_gamma", g))
    clear_all()
    at = open_page("graph", data=ds)
    record("graph", "μ, λ one step every 2 s", paced_moves(at, "", result_row="graph one step every 2 s"))

    clear_all()
    at = open_page("embedding", data=ds, emb_umap="false")
    b = grid("mllem", "beta")
    cached = sweep(at, "select_slider", "emb_mllem_beta", b)
    record("embedding", "MLLEM β (2-D)", cached,
           sweep(at, "select_slider", "emb_mllem_beta", b[::-1][1:n_unc + 1], uncached=True))
    record("embedding", "MLLEM k (labels)", sweep(at, "select_slider", "emb_mllem_k_labels", grid("mllem", "k_labels")))

    print(f"Dashboard slider moves on {ds} (AppTest server time, first visit of each position, caches warm)")
    import os as _os

    print(f"load average at the end: {', '.join(f'{v:.1f}' for v in _os.getloadavg())} (2 cores)")
    print(f"{'page':<11} {'slider':<28} {'moves':>5} {'median ms':>10} {'max ms':>8} {'no-cache ms':>12} {'speed-up':>9}")
    for page, slider, n, med, worst, unc in rows:
        ratio = f"{1000 * unc / med:.1f}×" if unc else ""
        unc_s = f"{1000 * unc:.0f}" if unc else ""
        print(f"{page:<11} {slider:<28} {n:>5} {med:>10.0f} {worst:>8.0f} {unc_s:>12} {ratio:>9}")
    for page, secs in settle_times.items():
        if secs:
            print(f"{page}: background work after a settled μ/λ move (γ path, γ figures/posteriors, neighbour "
                  f"fits): median {statistics.median(secs):.1f} s, max {max(secs):.1f} s")
    for prefix, moves in FAR_TARGETS.items():
        print(f"{'posteriors' if prefix else 'graph'} far jumps (λ, μ) at γ/γ_max = 0.03: {'; '.join(moves)}")
    from mlviz.dashboard import cdn_jobs

    print(f"\nSparse CDN moves: time until the new fit is on screen (a fit not done within "
          f"{1000 * cdn_jobs.WAIT:.0f} ms answers with the previous fit and a notice; not the answer time above)")
    print(f"{'moves':<40} {'answered with notice':>20} {'median ms':>10} {'max ms':>8}")
    for row, secs in RESULTS.items():
        print(f"{row:<40} {f'{PENDING[row][0]} of {PENDING[row][1]}':>20} {1000 * statistics.median(secs):>10.0f} "
              f"{1000 * max(secs):>8.0f}")
    targeted = [(slider, med) for page, slider, n, med, worst, _ in rows if page in ("posteriors", "graph")]
    missed = [f"{slider} ({med:.0f} ms)" for slider, med in targeted if med > 300]
    print(f"\nTarget ≤ 300 ms (median) on posterior and graph slider moves: "
          f"{'met' if not missed else 'NOT met for ' + ', '.join(missed)}")


if __name__ == "__main__":
    main()
