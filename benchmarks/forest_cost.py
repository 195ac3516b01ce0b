"""Fit time and memory of RandomForestML per tree, beside its own estimates (issue 31).

For each shape, ``RandomForestML(n_estimators=T, random_state=0)`` (scikit-learn's
multi-output trees, kept compact) is fitted on the training rows with the default
feature scaling (``mlviz.preprocessing.scale_split``), one core. Printed: CPU seconds
per tree beside :func:`mlviz.models.forest.forest_seconds_estimate` for one tree
(their quotient is what ``_TREE_COST`` is calibrated on), the nodes and non-zero leaf
frequencies per tree, and the bytes the fitted forest keeps beside the compact
estimate (:func:`mlviz.models.forest.forest_bytes_estimate` with ``label_entries``)
and beside what scikit-learn's full value arrays would take (the full estimate).

Shapes: the standard training halves of emotions, scene, yeast, enron
(``load_standard_split``), medical's seeded training split, and the synthetic shapes
of ``benchmarks/bench_scale.py`` (``bibtex``, ``delicious``: first 2/3 of the rows)
and ``benchmarks/bench_pages_scale.py`` (``mediamill``: 29,000 of the 43,907 rows).

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/forest_cost.py [--sets emotions,bibtex] [--trees 10]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

SETS = ("emotions", "scene", "yeast", "enron", "medical", "bibtex", "delicious", "mediamill")
TREES = {"delicious": 2, "mediamill": 2}


def load(name):
    from mlviz.data import load_protocol_split
    from mlviz.preprocessing import scale_split

    if name in ("bibtex", "delicious"):
        from bench_scale import load_set

        X, Y = load_set(name)
    elif name == "mediamill":
        from bench_pages_scale import mediamill_101

        ds = mediamill_101()
        X, Y = ds.X[:29000], ds.Y[:29000]
    else:
        train, _ = load_protocol_split(name)
        X, Y = train.X, train.Y
    X, _ = scale_split(X, X[:2])
    return X, np.asarray(Y)


def measure(name, trees):
    from mlviz.models.forest import RandomForestML, forest_bytes_estimate, forest_seconds_estimate

    X, Y = load(name)
    n, L = Y.shape
    T = TREES.get(name, trees)
    t0 = time.process_time()
    m = RandomForestML(n_estimators=T, random_state=0).fit(X, Y)
    per_tree = (time.process_time() - t0) / T
    est = forest_seconds_estimate(n, X.shape[1], L, n_estimators=1, bootstrap=True, sparse=sp.issparse(X))
    V = m.leaf_proba_
    kept = sum(72 * t.node_count for t in m.trees_) + V.data.nbytes + V.indices.nbytes + V.indptr.nbytes
    compact = forest_bytes_estimate(n, L, n_estimators=T, bootstrap=True, label_entries=np.count_nonzero(Y))
    full = forest_bytes_estimate(n, L, n_estimators=T, bootstrap=True)
    print(f"| {name} | {n} × {X.shape[1]} {'sparse' if sp.issparse(X) else 'dense'} × {L} | {T} | {per_tree:.4f} | "
          f"{est:.4f} | {per_tree / est:.2f} | {sum(t.node_count for t in m.trees_) // T} | {V.nnz // T} | "
          f"{np.count_nonzero(Y)} | {kept / T / 2**20:.2f} | {compact / T / 2**20:.2f} | {full / T / 2**20:.1f} |",
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--trees", type=int, default=10, help="trees per fit (delicious and mediamill: 2)")
    args = ap.parse_args()
    print("| shape | training rows × features × labels | trees | CPU s / tree | estimate s / tree | measured / "
          "estimate | nodes / tree | leaf entries / tree | nnz(Y) | kept MB / tree | compact estimate MB / tree | "
          "full value arrays MB / tree (estimate) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.sets.split(","):
        measure(name, args.trees)


if __name__ == "__main__":
    main()
