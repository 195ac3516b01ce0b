"""Server time of the Label graph and Embedding pages on many-label data (issue 16), with AppTest.

Two synthetic data sets with the shapes of the issue's examples (generated here, no download):

* ``dense-174``: 500 × 68 dense features, 174 labels (CAL500-like power-law frequencies, ~6 labels
  per instance), labels and features driven by 8 shared latent factors;
* ``sparse-159``: 7,000 × 1,836 sparse binary bag-of-words (~40 distinct words per row), 159
  labels (bibtex-like, ~2.4 labels per instance), topics driving both.

For each page: the **first useful view** (cold caches, the page waits for its result: the time a
user waits after opening the page on a fresh upload) and **slider moves** after the background
work has settled (γ, the number of labels drawn, the co-occurrence cut-off; MLLEM's k (labels)).
Times are AppTest ``run()`` wall-clock seconds, i.e. server time without the browser; "cpu" is the
CPU time of the whole process (every thread) over the same interval, less sensitive to a shared machine.  Slider
moves are timed while the background prepares the neighbouring μ / λ paths (as for a user), not
after it: on the sparse set each such path takes minutes.

A third set, ``delicious-983`` (16,105 × 500 binary features, ~23 distinct per row, 983 labels with
Zipf-ranked frequencies, cardinality 19; :func:`benchmarks.bench_scale.make_dataset`), is measured on
**every page** (Home, Embedding, Posteriors, Compare, Sandbox, Decision rules, Label graph): the first
useful view, one or two slider moves per page, and the peak resident memory of the process (the
AppTest "server"; ``ru_maxrss``, which includes the generated data).

Run::

    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_pages_scale.py [--only dense-174]
    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_pages_scale.py --only delicious-983
    OMP_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/bench_pages_scale.py --only sparse-159 --every-page
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_scale import make_dataset, sparse_159  # noqa: E402  (the data shapes live in bench_scale)


def dense_174(n=500, L=174, d=68, seed=0):
    from mlviz.data import MultiLabelDataset

    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 8))
    scores = Z @ rng.normal(size=(8, L)) / np.sqrt(8) + rng.normal(size=(n, L))
    freq = np.clip(0.6 * np.arange(1, L + 1) ** -0.8, 3 / n, 0.6)
    thr = np.array([np.quantile(scores[:, j], 1 - freq[j]) for j in range(L)])
    Y = (scores > thr).astype(np.uint8)
    X = Z @ rng.normal(size=(8, d)) + 0.5 * rng.normal(size=(n, d))
    return MultiLabelDataset(X, Y, label_names=[f"tag_{j:03d}" for j in range(L)], name="dense-174")


def delicious_983(seed=0):
    """16,105 × 500 binary bag of words (sparse CSR), 983 labels, cardinality 19 (bench_scale's shape)."""
    from mlviz.data import MultiLabelDataset

    X, Y = make_dataset("delicious", seed=seed)
    Y = np.asarray(Y.toarray(), dtype=np.uint8)
    return MultiLabelDataset(X.tocsr(), Y, label_names=[f"tag_{j:03d}" for j in range(Y.shape[1])],
                             name="delicious-983")


def mediamill_101(n=43_907, L=101, d=120, seed=0):
    """43,907 × 120 dense features in [0, 1], 101 labels: the shape of the public video-annotation set
    mediamill (Snoek et al. 2006), generated here (no download) by
    :func:`mlviz.data.synthetic.make_dense_like` with ``DENSE_LIKE_PRESETS["mediamill"]``.

    Label profile near the published one (mediamill: cardinality 4.38, density 0.043, 6,555 label sets,
    MeanIR 256, SCUMBLE 0.355; this set: 4.39, 0.043, 6,192, 246, 0.45): label sets drawn from
    3,500 Zipf-frequent prototype sets (10 % with one label flipped), features from a rank-30
    latent model of the labels and the set, skewed and clipped to [0, 1]. (Until 2026-11-27 an ad-hoc
    generator with near-duplicate shots, ~13k label sets; page timings recorded before then used it.)"""
    from mlviz.data import MultiLabelDataset
    from mlviz.data.synthetic import DENSE_LIKE_PRESETS, make_dense_like

    params = dict(DENSE_LIKE_PRESETS["mediamill"], n_samples=n, n_labels=L, n_features=d)
    ds = make_dense_like(**params, random_state=seed)
    return MultiLabelDataset(ds.X, ds.Y, label_names=[f"concept_{j:03d}" for j in range(L)], name="mediamill-101")


def peak_mb():
    """Peak resident memory of this process (the AppTest server) in MB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def fresh():
    import streamlit as st

    from mlviz.dashboard import compute

    st.cache_data.clear()
    st.cache_resource.clear()
    compute.RUNNER.clear()
    compute.RUNNER.wait_idle(600)


def open_page(page, ctx, **query):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=3600)
    at.session_state["mlviz_uploads"] = {ctx.key: ctx}
    at.session_state["data"] = ctx.key
    for k, v in query.items():
        at.query_params[k] = v
    return at


def path_done(ctx, values=None, timeout=3600):
    """Wait until the default settings' γ path is complete."""
    from mlviz.dashboard import compute, methods

    CDN = methods.METHODS["cdn"]
    values = values or CDN.defaults()
    t_end = time.monotonic() + timeout
    while len(compute.known_steps(ctx, CDN, values)) < len(CDN.param("gamma").grid) and time.monotonic() < t_end:
        time.sleep(0.2)


def first_answer(at):
    """What the Label graph's first answer shows: the learned graph, or the progress notice with
    (since session 7) the co-occurrence graph drawn while the sparse CDN is fitted."""
    notice = any("Fitting the sparse CDN" in i.value for i in at.info)
    n_charts = len(at.get("plotly_chart"))
    if not notice:
        return "learned graph"
    return "progress notice + co-occurrence graph" if n_charts else "progress notice only"


def timed(fn):
    t0 = time.perf_counter()
    at = fn()
    dt = time.perf_counter() - t0
    assert not at.exception, [e.value for e in at.exception]
    return dt, at


class Rows(list):
    """Rows printed as they are measured (a slow step shows where it is)."""

    def append(self, row):
        super().append(row)
        page, what, dt, note = row
        print(f"{self.name:<13} {page:<14} {what:<52} {dt:8.2f}  {note}", flush=True)


def bench(ds):
    from mlviz.dashboard import compute, state

    ctx = state.context_from_dataset(state.upload_id(ds.name, ds.Y.tobytes()), ds)
    rows = Rows()
    rows.name = ds.name
    # Label graph
    fresh()
    at = open_page("2_Label_graph.py", ctx)
    compute.WAIT = 0.15  # the dashboard's default: the first run answers with a notice if the fit takes longer
    answer, at = timed(at.run)
    rows.append(("Label graph", "first answer (WAIT = 0.15 s)", answer, first_answer(at)))
    compute.WAIT = 3600.0
    dt, at = timed(at.run)
    edges = {m.label: m.value for m in at.metric}.get("edges (non-zero V entries)")
    rows.append(("Label graph", "first useful view (cold: fit to the automatic γ)", answer + dt, f"edges {edges}"))
    t0 = time.perf_counter()
    path_done(ctx)  # the rest of the γ path (the neighbouring μ / λ paths are prepared meanwhile, not awaited)
    rows.append(("Label graph", "rest of the γ path (background, after the view)", time.perf_counter() - t0, ""))
    dt, at = timed(at.run)
    rows.append(("Label graph", "rerun once the path is complete", dt, "prefetch may run"))
    for key, value, kind in [("cdn_gamma", 0.3, "select_slider"), ("labels_k", 50, "slider"),
                             ("cooc_min", None, "slider"), ("cdn_max_edges", 100, "select_slider")]:
        w = getattr(at, kind)(key=key)
        if value is None:
            value = max(w.min, int(w.value) // 2)
        dt, at = timed(w.set_value(value).run)
        rows.append(("Label graph", f"move {key} → {value}", dt, ""))
    # Embedding
    fresh()
    at = open_page("1_Embedding.py", ctx, emb_umap="false")
    dt, at = timed(at.run)
    rows.append(("Embedding", "first useful view (cold: MLLEM fit)", dt, ""))
    compute.RUNNER.wait_idle(3600)
    for key, value, kind in [("emb_mllem_k_labels", 3, "select_slider"), ("labels_k", 50, "slider")]:
        dt, at = timed(getattr(at, kind)(key=key).set_value(value).run)
        rows.append(("Embedding", f"move {key} → {value}", dt, ""))
        compute.RUNNER.wait_idle(3600)
    return rows


PAGES_983 = [  # (page, file, query, [(widget key, value, kind)])
    ("Home", "app.py", {}, []),
    ("Embedding", "pages/1_Embedding.py", {"emb_umap": "false"},
     [("emb_mllem_k_labels", 3, "select_slider"), ("labels_k", 50, "slider")]),
    ("Posteriors", "pages/3_Posteriors.py", {}, [("post_labels", 30, "select_slider"),
                                                 ("post_rows", 1000, "select_slider")]),
    ("Compare", "pages/4_Compare.py", {}, [("cmp_folds", 5, "select_slider")]),
    ("Sandbox", "pages/5_Sandbox.py", {}, [("sb_coupling", 4.0, "slider")]),
    ("Decision rules", "pages/6_Decision_rules.py", {"dr_rule": "threshold"}, [("dr_t", 0.3, "slider")]),
]


def open_file(path, ctx, **query):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / path), default_timeout=3600)
    at.session_state["mlviz_uploads"] = {ctx.key: ctx}
    at.session_state["data"] = ctx.key
    for k, v in query.items():
        at.query_params[k] = v
    return at


#: Seconds between two reruns while a page shows a progress notice and no figure (the browser's
#: notice looks at its job every 0.3 s and reruns the page when it is done; a rerun here costs more).
POLL = 0.5


def first_figure(at, page, rows, timeout=3600.0):
    """Open a page with cold caches as a browser does: the first answer (``WAIT`` = 0.15 s, the
    dashboard's default), reruns every :data:`POLL` s until a figure is drawn (a quick preview,
    when one is drawn, is named in the note), then one run that waits for every result (the
    complete view; what earlier sessions called the first useful view)."""
    from mlviz.dashboard import compute

    def state(at):
        n = len(at.get("plotly_chart"))
        preview = any("quick preview" in i.value for i in at.info)
        waiting = any("updates by itself" in i.value for i in at.info)  # a progress notice is on screen
        if n:
            return n, f"{n} figures" + (", quick preview" if preview else "")
        return (0, "notice, no figure") if waiting else (-1, "no figure before an action (e.g. Run)")

    compute.WAIT = 0.15
    t0, c0 = time.perf_counter(), time.process_time()
    dt, at = timed(at.run)
    n, note = state(at)
    rows.append((page, "first answer (WAIT = 0.15 s)", dt, note))
    while n == 0 and time.perf_counter() - t0 < timeout:
        time.sleep(POLL)
        _, at = timed(at.run)
        n, note = state(at)
    rows.append((page, "first figure (cold caches)", time.perf_counter() - t0,
                 f"{note}; cpu {time.process_time() - c0:.1f} s"))
    compute.WAIT = 3600.0
    _, at = timed(at.run)
    rows.append((page, "complete view (waits for every result)", time.perf_counter() - t0,
                 f"cpu {time.process_time() - c0:.1f} s; peak {peak_mb():,.0f} MB"))
    return at


def bench_every_page(ds, graph_timeout=1800.0, settle=30.0, pages=None):
    """Every page on one (large) data set: first useful view, slider moves, peak memory."""
    from mlviz.dashboard import compute, state

    ctx = state.context_from_dataset(state.upload_id(ds.name, ds.Y.tobytes()), ds)
    rows = Rows()
    rows.name = ds.name
    compute.WAIT = 3600.0
    for page, path, query, moves in PAGES_983:
        if pages and page not in pages:
            continue
        fresh()
        at = first_figure(open_file(path, ctx, **query), page, rows)
        compute.RUNNER.wait_idle(settle)   # background work of the view; prefetch is not awaited longer
        for key, value, kind in moves:
            try:
                w = getattr(at, kind)(key=key)
            except KeyError:
                rows.append((page, f"move {key}: widget not shown", float("nan"), ""))
                continue
            dt, at = timed(w.set_value(value).run)
            rows.append((page, f"move {key} → {value}", dt, f"peak {peak_mb():,.0f} MB"))
            compute.RUNNER.wait_idle(settle)
    # Label graph last: its first view waits for the sparse CDN (start fit + top of the γ path).
    if pages and "Label graph" not in pages:
        return rows
    fresh()
    at = open_file("pages/2_Label_graph.py", ctx)
    compute.WAIT = 0.15
    c0 = time.process_time()
    answer, at = timed(at.run)
    rows.append(("Label graph", "first answer (WAIT = 0.15 s)", answer, first_answer(at)))
    compute.WAIT = graph_timeout
    dt, at = timed(at.run)
    edges = {m.label: m.value for m in at.metric}.get("edges (non-zero V entries)")
    rows.append(("Label graph", "first useful view (cold: fit to the automatic γ)", answer + dt,
                 f"edges {edges}; cpu {time.process_time() - c0:.1f} s; peak {peak_mb():,.0f} MB" if edges is not None
                 else f"NOT SHOWN after {graph_timeout:.0f} s; peak {peak_mb():,.0f} MB"))
    if edges is not None:
        for key, value, kind in [("labels_k", 50, "slider"), ("cooc_min", None, "slider"),
                                 ("cdn_max_edges", 100, "select_slider"), ("cdn_comm", True, "toggle"),
                                 ("cdn_collapse", True, "toggle"), ("cdn_expand", 0, "selectbox")]:
            try:
                w = getattr(at, kind)(key=key)
            except KeyError:
                rows.append(("Label graph", f"move {key}: widget not shown", float("nan"), ""))
                continue
            if value is None:
                value = max(w.min, int(w.value) // 2)
            dt, at = timed(w.set_value(value).run)
            rows.append(("Label graph", f"move {key} → {value}", dt, f"peak {peak_mb():,.0f} MB"))
    else:
        bench_graph_figures(ctx, rows)
    rows.append(("(process)", "peak resident memory, MB", peak_mb(), "ru_maxrss incl. the generated data"))
    return rows


def bench_graph_figures(ctx, rows, n_edges_per_label=3, seed=0):
    """The Label graph's figure builds at this many labels on a random signed graph with
    ``n_edges_per_label · L`` edges (what a slider move on the page rebuilds), while the
    page's own sparse CDN fit still runs in the background."""
    import networkx as nx

    from mlviz import plotting
    from mlviz.dashboard import cache, focus

    L = ctx.n_labels
    rng = np.random.default_rng(seed)
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    while G.number_of_edges() < n_edges_per_label * L:
        a, b = (int(v) for v in rng.integers(0, L, 2))
        if a != b:
            G.add_edge(a, b, weight=float(rng.normal()))
    names = list(ctx.label_names)
    counts = np.asarray(ctx.Y_train.sum(axis=0), dtype=float).ravel()
    pos = cache.label_layout(ctx)
    C = np.asarray(cache.dataset_summary(ctx)["cooccurrence"])
    what = f"(random graph, {G.number_of_edges()} edges)"
    for label, fn in [
        ("figure: 30 most frequent labels, ≤ 50 edges", lambda: plotting.label_graph_figure(
            G.subgraph(np.argsort(-counts)[:30].tolist()), pos, label_names=names, max_edges=50, width_hint=520)),
        ("figure: all labels, top 50 by degree", lambda: plotting.label_graph_figure(
            G, pos, label_names=names, top_k=50, max_edges=50, communities=True, width_hint=520)),
        ("communities (expand list)", lambda: focus.graph_communities(G, L)),
        ("figure: communities collapsed", lambda: plotting.graph.community_graph_figure(
            G, pos, label_names=names, node_size=counts, width_hint=520)),
        ("figure: communities collapsed, #1 expanded", lambda: plotting.graph.community_graph_figure(
            G, pos, label_names=names, node_size=counts, expand=0, width_hint=520)),
        ("figure: co-occurrence, default cut, 30 labels", lambda: plotting.cooccurrence_graph_figure(
            C, names, pos, min_count=None, top_k=30, max_edges=50, width_hint=520)),
    ]:
        t0 = time.perf_counter()
        fn()
        rows.append(("Label graph", label, time.perf_counter() - t0, what))


def main(argv=None):
    import os

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.path.insert(0, str(ROOT))
    from mlviz.dashboard import compute

    compute.WAIT = 3600.0  # a run waits for its result: its time is the time to the useful view
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", choices=["dense-174", "sparse-159", "delicious-983", "mediamill-101"])
    p.add_argument("--graph-timeout", type=float, default=1800.0,
                   help="seconds the Label graph's first view may wait for the sparse CDN (delicious-983)")
    p.add_argument("--pages", help="comma-separated page names (every-page runs), e.g. 'Home,Label graph'")
    p.add_argument("--every-page", action="store_true",
                   help="measure every page (as for delicious-983) on the other sets too")
    args = p.parse_args(argv)
    sets = {"dense-174": dense_174, "sparse-159": sparse_159, "delicious-983": delicious_983,
            "mediamill-101": mediamill_101}
    print(f"{'data':<13} {'page':<14} {'what':<52} {'seconds':>8}  note")
    for name, make in sets.items():
        if args.only and name != args.only:
            continue
        t0 = time.perf_counter()
        ds = make()
        print(f"{name:<13} {'(generate)':<14} {ds.n_samples} x {ds.n_features}, {ds.n_labels} labels"
              f"{'':<20} {time.perf_counter() - t0:8.2f}")
        if name in ("delicious-983", "mediamill-101") or args.every_page:
            bench_every_page(ds, graph_timeout=args.graph_timeout,
                             pages=set(args.pages.split(",")) if args.pages else None)
        else:
            bench(ds)


if __name__ == "__main__":
    main()
