"""Benchmark the figure builders and PNG export (mlviz.plotting).

Prints, side by side in one run:

* build time and JSON payload of the heaviest dashboard figures on the bundled
  enron data (1702 x 53 labels) — float32 vs float64 payload ratio, Scattergl
  vs SVG Scatter;
* PNG export time: kaleido cold (browser started per call), kaleido warm
  (persistent browser), and the headless-chromium screenshot fallback.

* with ``--scale``: build time and JSON payload at 1,000 labels and 20,000
  instances (synthetic, generated here): embedding, label graph (whole, top-k,
  ego network), co-occurrence graph at its default minimum count, posterior
  heatmap (50 labels at full width, 2,000 sampled rows, AUC/F1 strip over all
  1,000 labels, decision panel), three models side by side; and the size of an
  offline HTML export (plotly.js embedded).

Usage: .venv/bin/python benchmarks/bench_plotting.py [--quick] [--scale]
"""

from __future__ import annotations

import argparse
import statistics
import time

import networkx as nx
import numpy as np
import plotly.graph_objects as go

from mlviz import plotting as mp


def _timeit(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _data():
    try:
        from mlviz.data import load_sample
        ds = load_sample("enron")
        Y = np.asarray(ds.Y)
        names = list(ds.label_names)
        src = "enron (bundled)"
    except Exception:  # data layer unavailable: same shape, synthetic
        rng = np.random.default_rng(0)
        Y = (rng.random((1702, 53)) < 0.064).astype(np.uint8)
        names = [f"label_{j}" for j in range(53)]
        src = "synthetic 1702 x 53"
    return Y, names, src


def main(quick=False):
    repeat = 2 if quick else 5
    rng = np.random.default_rng(0)
    Y, names, src = _data()
    n, L = Y.shape
    print(f"data: {src}: n={n}, L={L}")
    P = np.clip(Y * 0.6 + rng.random(Y.shape) * 0.4, 0, 1)
    coords = rng.normal(size=(n, 2))
    label_coords = rng.normal(size=(L, 2))
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    for _ in range(250):
        a, b = rng.integers(0, L, 2)
        if a != b:
            G.add_edge(int(a), int(b), weight=float(rng.normal()))
    pos = nx.spring_layout(G, seed=0)
    G_small = nx.DiGraph()
    G_small.add_nodes_from(range(L))
    G_small.add_weighted_edges_from(list(G.edges(data="weight"))[:100])
    C = mp.cooccurrence_counts(Y)

    cases = {
        "embedding_scatter (n points, label count colour)":
            lambda: mp.embedding_scatter(coords, label_coords, names,
                                         color=Y.sum(1).astype(int)),
        "posterior_heatmap (n x L)":
            lambda: mp.posterior_heatmap(P, Y, names),
        f"label_graph_figure ({G_small.number_of_edges()} edges, arrow annotations)":
            lambda: mp.label_graph_figure(G_small, pos, label_names=names),
        f"label_graph_figure ({G.number_of_edges()} edges, arrow markers)":
            lambda: mp.label_graph_figure(G, pos, label_names=names),
        "cooccurrence_heatmap (L x L)":
            lambda: mp.cooccurrence_heatmap(C, names, normalize="jaccard"),
        "reliability_figure (10 labels)":
            lambda: mp.reliability_figure(Y, P, names),
    }
    print(f"\n{'figure':55s} {'build ms':>9s} {'JSON kB':>9s}")
    figs = {}
    for name, fn in cases.items():
        t, fig = _timeit(fn, repeat)
        figs[name] = fig
        print(f"{name:55s} {1e3 * t:9.1f} {len(fig.to_json()) / 1e3:9.1f}")

    # float32 vs float64 payload, and SVG vs WebGL scatter for the same points
    f32 = go.Figure(go.Scattergl(x=coords[:, 0].astype(np.float32),
                                 y=coords[:, 1].astype(np.float32)))
    f64 = go.Figure(go.Scattergl(x=coords[:, 0], y=coords[:, 1]))
    j32, j64 = len(f32.to_json()), len(f64.to_json())
    print(f"\nscatter payload of {n} points: float64 {j64 / 1e3:.1f} kB, "
          f"float32 {j32 / 1e3:.1f} kB, ratio float64/float32 = {j64 / j32:.2f}")

    print("\nPNG export of the label graph (800 x 600):")
    fig = figs[f"label_graph_figure ({G.number_of_edges()} edges, arrow markers)"]
    if mp.find_chromium() is None:
        print("  no Chrome/Chromium found: PNG export unavailable")
        return
    rows = []
    t, png = _timeit(lambda: mp.figure_to_png(fig, width=800, height=600,
                                              method="chromium"), repeat=2)
    rows.append(("chromium --screenshot (browser per call)", t, png))
    t, png = _timeit(lambda: mp.figure_to_png(fig, width=800, height=600,
                                              method="kaleido",
                                              keep_browser=False), repeat=2)
    rows.append(("kaleido, browser per call", t, png))
    mp.figure_to_png(fig, width=800, height=600, method="kaleido")  # start
    t, png = _timeit(lambda: mp.figure_to_png(fig, width=800, height=600,
                                              method="kaleido"), repeat=repeat)
    rows.append(("kaleido, persistent browser (warm)", t, png))
    mp.stop_png_browser()
    warm = rows[-1][1]
    for name, t, png in rows:
        ok = png is not None and png[:8] == mp.export.PNG_SIGNATURE
        print(f"  {name:42s} {t:6.2f} s  ({t / warm:5.1f}x warm kaleido)"
              f"  {'ok' if ok else 'FAILED'}")


def _scale_data(n=20_000, L=1_000, seed=0):
    """Synthetic multi-label data shaped like a large tagging set: power-law label
    frequencies (a few common tags, a long tail), ~4 labels per instance."""
    rng = np.random.default_rng(seed)
    freq = 0.25 / (1.0 + np.arange(L)) ** 0.8
    Y = (rng.random((n, L)) < freq[None, :]).astype(np.uint8)
    P = np.clip(0.55 * Y + 0.45 * rng.random((n, L)) ** 3, 0, 1)
    return Y, P, [f"tag_{j:04d}_name" for j in range(L)]


def scale(repeat=2):
    Y, P, names = _scale_data()
    n, L = Y.shape
    rng = np.random.default_rng(1)
    print(f"\nscale: synthetic n={n:,} instances, L={L:,} labels, {Y.sum() / n:.1f} labels per instance")
    coords = rng.normal(size=(n, 2)).astype(np.float32)
    label_coords = rng.normal(size=(L, 2))
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    while G.number_of_edges() < 3 * L:
        a, b = rng.integers(0, L, 2)
        if a != b:
            G.add_edge(int(a), int(b), weight=float(rng.normal()))
    t0 = time.perf_counter()
    pos = nx.spring_layout(G, seed=0, iterations=30)
    print(f"(networkx spring layout of {L} nodes, done once by the caller: {time.perf_counter() - t0:.1f} s)")
    t0 = time.perf_counter()
    C = mp.cooccurrence_counts(Y)
    print(f"(co-occurrence counts Y^T Y: {time.perf_counter() - t0:.2f} s)")
    freq = Y.sum(axis=0)
    t0 = time.perf_counter()
    scores = mp.per_label_scores(Y, P, 0.5)
    print(f"(per-label AUC and F1 over {n:,} x {L:,}, cacheable: {time.perf_counter() - t0:.2f} s)")
    cases = {
        "embedding_scatter (20k points, 30 of 1,000 labels named)":
            lambda: mp.embedding_scatter(coords, label_coords, names, color=P[:, 0],
                                         label_weights=freq),
        "label_graph_figure (1,000 labels, 3,000 edges)":
            lambda: mp.label_graph_figure(G, pos, label_names=names),
        "label_graph_figure (top 50 labels, strongest 150 edges)":
            lambda: mp.label_graph_figure(G, pos, label_names=names, top_k=50, max_edges=150),
        "label_graph_figure (ego network of one label, radius 1)":
            lambda: mp.label_graph_figure(G, pos, label_names=names, focus=0),
        "label_graph_figure (communities coloured)":
            lambda: mp.label_graph_figure(G, pos, label_names=names, communities=True),
        "cooccurrence_graph_figure (default min count)":
            lambda: mp.cooccurrence_graph_figure(C, names, pos, min_count=None),
        "posterior_heatmap (50 labels, 2,000 rows, strip, t=0.5)":
            lambda: mp.posterior_heatmap(P, Y, names, threshold=0.5, label_scores=scores),
        "posterior_heatmap (same, strip computed inside)":
            lambda: mp.posterior_heatmap(P, Y, names, threshold=0.5),
        "posterior_grid (3 models, 20 labels, 300 rows)":
            lambda: mp.posterior_grid({"A": P, "B": P[:, ::-1], "C": 1 - P}, Y, names, threshold=0.5),
    }
    print(f"\n{'figure':58s} {'build ms':>9s} {'JSON kB':>9s}")
    for name, fn in cases.items():
        t, fig = _timeit(fn, repeat)
        print(f"{name:58s} {1e3 * t:9.0f} {len(fig.to_json()) / 1e3:9.0f}")
    fig = mp.embedding_scatter(coords, label_coords, names, label_weights=freq)
    t0 = time.perf_counter()
    html = mp.figure_to_html(fig)
    t_html = time.perf_counter() - t0
    small = mp.figure_to_html(mp.convergence_figure([3.0, 2.0, 1.0]))
    print(f"\noffline HTML export: a small figure {len(small.encode()) / 1e6:.2f} MB (plotly.js embedded), "
          f"the 20k-point embedding {len(html.encode()) / 1e6:.2f} MB, written in {t_html:.2f} s")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scale", action="store_true", help="only the 1,000-label / 20,000-instance figures")
    args = ap.parse_args()
    if args.scale:
        scale(repeat=1 if args.quick else 2)
    else:
        main(args.quick)
