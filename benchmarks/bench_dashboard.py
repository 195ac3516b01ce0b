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
with the points known so far).  These sliders are timed twice: back to back
(the previous move's background work still pending; it pauses while a rerun
runs) and one move at a time after the page has settled (path and figures of
the previous move done, and the page's own rerun that shows the path).  Side by side
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
    (and figures) computed after a μ/λ move, and the rerun the page triggers by
    itself once they are there (``st.fragment(run_every=...)``, not run by AppTest)."""
    from mlviz.dashboard import cache

    cache.wait_prebuilt()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    cache.wait_prebuilt()


def clear_all():
    from mlviz.dashboard import cache

    st.cache_data.clear()
    st.cache_resource.clear()
    cache.clear_prebuilt()


def sweep(at, kind, key, values, uncached=False):
    """Time each move of widget ``key`` to the values not yet shown.

    ``uncached=True`` empties every Streamlit cache before each move: the same
    slider move without the dashboard's caches (full fit, path, figures).
    """
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
    mu = grid("cdn", "mu")
    record("posteriors", "Sparse CDN μ", sweep(at, "select_slider", "post_cdn_mu", mu))
    record("posteriors", "Sparse CDN λ", sweep(at, "select_slider", "post_cdn_lam", METHODS["cdn"].param("lam").grid))
    cache.wait_prebuilt()

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
    settle(at)
    times = []
    for values, key in [(mu[::-1], "cdn_mu"), (lam[::-1], "cdn_lam")]:
        for v in values:
            times += sweep(at, "select_slider", key, [v])
            settle(at)
    record("graph", "μ, λ (page settled)", times)
    record("graph", "γ (path just computed)", sweep(at, "select_slider", "cdn_gamma", g))

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
    targeted = [(slider, med) for page, slider, n, med, worst, _ in rows if page in ("posteriors", "graph")]
    missed = [f"{slider} ({med:.0f} ms)" for slider, med in targeted if med > 300]
    print(f"\nTarget ≤ 300 ms (median) on posterior and graph slider moves: "
          f"{'met' if not missed else 'NOT met for ' + ', '.join(missed)}")


if __name__ == "__main__":
    main()
