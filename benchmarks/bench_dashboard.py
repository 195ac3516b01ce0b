"""Server time of a slider move in the dashboard (Streamlit AppTest, no browser).

For each page and slider: open the page on a bundled data set, warm up (first
run fits the base models, γ path, layouts), then move the slider through every
position of its grid that has not been visited yet and time ``AppTest.run()``
(the script run of the slider's fragment, in-process, including figure
serialisation; browser rendering and network are not included).  On the
label-graph page the figures of the other γ positions are pre-built in a
background thread once the path is fitted; the benchmark waits for that
(a user's first look at the page) before moving γ.  Side by side
it times a cold full fit of the same model, so the ratio shows what the caches
(eigendecompositions, kNN lists, warm-started γ path) buy.

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


def sweep(at, kind, key, values):
    times = []
    for v in values:
        w = getattr(at, kind)(key=key)
        if w.value == v:
            continue
        w.set_value(v)
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
    return times


def cold_fit_seconds(method_key, dataset):
    """A full fit + predict of the method with default parameters, no cache."""
    from mlviz import data
    from mlviz.dashboard import methods, state

    tr, te = data.load_sample_split(dataset)
    Xtr, Xte = state.standardise(tr.X, te.X)
    ctx = state.DataContext(dataset, data.load_sample(dataset), Xtr, tr.Y, Xte, te.Y)
    m = methods.METHODS[method_key]
    if method_key == "cdn":  # one fit at the default γ (the page computes a whole warm path)
        from mlviz.models import SparseCDN

        t0 = time.perf_counter()
        SparseCDN(lam1=0.1, lam2=0.1, gamma=m.param("gamma").default, mu=m.param("mu").default,
                  random_state=0).fit(Xtr, tr.Y).predict_proba(Xte)
        return time.perf_counter() - t0
    est = methods.make_estimator(ctx, m, m.defaults())
    t0 = time.perf_counter()
    est.fit(Xtr, tr.Y)
    est.predict_proba(Xte)
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer slider positions")
    ap.add_argument("--dataset", default="emotions")
    args = ap.parse_args(argv)
    from mlviz.dashboard.methods import METHODS

    ds = args.dataset
    rows = []

    def record(page, slider, times, reference=None):
        if not times:
            return
        med, worst = statistics.median(times), max(times)
        rows.append((page, slider, len(times), 1000 * med, 1000 * worst, reference))

    def grid(method, name):
        g = list(METHODS[method].param(name).grid)
        return g[::2] if args.quick else g

    st.cache_data.clear(); st.cache_resource.clear()
    at = open_page("posteriors", data=ds, post_rel="true")
    ref = cold_fit_seconds("mllspc", ds)
    record("posteriors", "ML-LSPC λ", sweep(at, "select_slider", "post_mllspc_lam", grid("mllspc", "lam")), ref)
    record("posteriors", "ML-LSPC γ", sweep(at, "select_slider", "post_mllspc_gamma", grid("mllspc", "gamma")), ref)
    record("posteriors", "global threshold", sweep(at, "slider", "thr_global", [0.3, 0.4, 0.6, 0.7, 0.8]), ref)
    at.radio(key="thr_mode").set_value("rank cut").run()
    record("posteriors", "rank cut r", sweep(at, "slider", "thr_rank", [2, 3, 1]), ref)

    at = open_page("posteriors", data=ds, post_rel="true", post_models=["MLLEM"])
    ref = cold_fit_seconds("mllem", ds)
    record("posteriors", "MLLEM α", sweep(at, "select_slider", "post_mllem_alpha", grid("mllem", "alpha")), ref)
    at = open_page("posteriors", data=ds, post_rel="true", post_models=["Sparse CDN"])
    ref = cold_fit_seconds("cdn", ds)
    record("posteriors", "Sparse CDN γ", sweep(at, "select_slider", "post_cdn_gamma", grid("cdn", "gamma")), ref)

    from mlviz.dashboard import cache

    at = open_page("graph", data=ds)
    cache.wait_prebuilt()  # the page pre-builds the other γ figures while the user looks at the first
    record("graph", "γ (warm path)", sweep(at, "select_slider", "cdn_gamma", grid("cdn", "gamma")), ref)
    record("graph", "co-occurrence min count", sweep(at, "slider", "cooc_min", [1, 5, 10, 20]), ref)
    mu_times = sweep(at, "select_slider", "cdn_mu", grid("cdn", "mu")[:3])
    record("graph", "μ (recomputes the γ path)", mu_times, ref)
    cache.wait_prebuilt()

    at = open_page("embedding", data=ds, emb_umap="false")
    ref = cold_fit_seconds("mllem", ds)
    record("embedding", "MLLEM β (2-D)", sweep(at, "select_slider", "emb_mllem_beta", grid("mllem", "beta")), ref)
    record("embedding", "MLLEM k (labels)", sweep(at, "select_slider", "emb_mllem_k_labels", grid("mllem", "k_labels")), ref)

    print(f"Dashboard slider moves on {ds} (AppTest server time, first visit of each position, caches warm)")
    print(f"{'page':<11} {'slider':<28} {'moves':>5} {'median ms':>10} {'max ms':>8} {'cold fit ms':>12} {'cold/median':>12}")
    for page, slider, n, med, worst, reference in rows:
        ratio = f"{1000 * reference / med:.1f}×" if reference else ""
        cold = f"{1000 * reference:.0f}" if reference else ""
        print(f"{page:<11} {slider:<28} {n:>5} {med:>10.0f} {worst:>8.0f} {cold:>12} {ratio:>12}")
    ok = all(med <= 300 for page, slider, n, med, worst, _ in rows if page in ("posteriors", "graph") and "μ" not in slider)
    print(f"\nTarget ≤ 300 ms (median) on posterior and graph slider moves: {'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
