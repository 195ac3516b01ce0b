"""How legible the Label graph page's graphs are with and without the spread layout.

For each bundled data set (and the 983-label shape of ``bench_pages_scale.py``), the page's
default view: the 30 most frequent labels, drawn at the node positions of
:func:`mlviz.plotting.cooccurrence_layout` with ``spread=False`` (the plain spring layout) and
``spread=True`` (its core spread by :func:`mlviz.plotting.spread_layout`, the app's layout).
Two figures per layout: the plain co-occurrence graph at its default cut-off (no fit needed) and
the sparse CDN label graph at 0.5·γ_max (the slider's top, where the page's automatic γ sits on
these sets; estimator defaults otherwise, μ = 0 as on the page; at most 12 edges drawn). Printed per figure:

* ``names``: label names written on the figure / labels drawn (the figure writes a name only
  where it overlaps no other name or node);
* ``overlapping nodes``: pairs of drawn node markers that overlap, at the page's figure width
  (520 px) and the figure's own height, margins and marker sizes;
* ``nn spacing``: the drawn nodes' median nearest-neighbour distance in pixels.

Run::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/graph_layout_legibility.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

WIDTH = 520  # the Label graph page's width hint (pages/2_Label_graph.py)
K = 30  # labels drawn by default (mlviz.dashboard.focus.DEFAULT_K)


def _nodes_px(fig):
    """Centres (px) and marker diameters of the figure's node trace (``meta.kind == "nodes"``)."""
    node = next(t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "nodes")
    lay, m = fig.layout, fig.layout.margin
    w = WIDTH - (m.l or 0) - (m.r or 0)
    h = lay.height - (m.t or 0) - (m.b or 0)
    xr, yr = lay.xaxis.range, lay.yaxis.range
    s = min(w / (xr[1] - xr[0]), h / (yr[1] - yr[0]))  # 1:1 aspect: the tighter axis decides
    P = np.column_stack([np.asarray(node.x, float), np.asarray(node.y, float)]) * s
    size = np.broadcast_to(np.asarray(node.marker.size, float), (len(P),))
    return P, size


def measure(fig):
    from mlviz.plotting.legibility import names_written

    P, size = _nodes_px(fig)
    D = np.linalg.norm(P[:, None] - P[None], axis=2)
    np.fill_diagonal(D, np.inf)
    overlap = int((np.triu(D < (size[:, None] + size[None]) / 2, 1)).sum())
    written = sum(v[0] for k, v in names_written(fig).items() if k.startswith("text:"))
    return written, len(P), overlap, float(np.median(D.min(axis=1)))


def datasets(names):
    from mlviz.data import load_sample

    for name in names:
        if name == "delicious-983":
            from bench_pages_scale import delicious_983

            yield name, delicious_983()
        else:
            yield name, load_sample(name)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sets", default="emotions,enron,medical,scene,yeast,delicious-983")
    p.add_argument("--no-cdn", action="store_true", help="only the co-occurrence graph (no sparse CDN fit)")
    args = p.parse_args(argv)
    import scipy.sparse as sp

    from mlviz import plotting
    from mlviz.data import list_samples, load_protocol_split, split_dataset
    from mlviz.models import SparseCDN
    from mlviz.preprocessing import default_scaling, scale_split

    print("| data | labels | figure | layout | names written / drawn | overlapping node pairs | nn spacing px |")
    print("|---|---|---|---|---|---|---|")
    for name, ds in datasets(args.sets.split(",")):
        Y = np.asarray(ds.Y)
        Ys = sp.csr_matrix(Y, dtype=np.int64)
        C = np.asarray((Ys.T @ Ys).toarray())
        L = C.shape[0]
        idx = np.sort(np.argsort(-Y.sum(axis=0), kind="stable")[:K])
        names = [str(ds.label_names[i]) for i in idx]
        Cs = C[np.ix_(idx, idx)]
        graph = None
        if not args.no_cdn:
            # the page's split: the standard files where bundled, else the seeded split
            tr, te = load_protocol_split(name) if name in list_samples() else split_dataset(ds)
            Xtr, _ = scale_split(tr.X, te.X, default_scaling(tr.X))
            t0 = time.perf_counter()
            cdn = SparseCDN(mu=0.0).fit(Xtr, tr.Y)
            cdn.refit(gamma=0.5 * cdn.gamma_max_)
            graph = cdn.label_graph_.subgraph(idx.tolist())
            fit_s = time.perf_counter() - t0
        for spread in (False, True):
            pos = plotting.cooccurrence_layout(C, spread=spread)
            P = np.array([pos[i] for i in idx])
            lay = "spread (app)" if spread else "spring only"
            fig = plotting.cooccurrence_graph_figure(Cs, names, P, min_count=int(plotting.default_min_count(C)),
                                                     width_hint=WIDTH)
            w, n, ov, nn = measure(fig)
            print(f"| {name} | {L} | co-occurrence | {lay} | {w} / {n} | {ov} | {nn:.0f} |", flush=True)
            if graph is not None:
                fig = plotting.label_graph_figure(graph, pos, label_names=list(ds.label_names), max_edges=12,
                                                  width_hint=WIDTH)
                w, n, ov, nn = measure(fig)
                print(f"| {name} | {L} | sparse CDN, {graph.number_of_edges()} edges (fit {fit_s:.1f} s) | {lay} | "
                      f"{w} / {n} | {ov} | {nn:.0f} |", flush=True)


if __name__ == "__main__":
    main()
