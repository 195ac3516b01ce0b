"""RF-PCT on projected labels against the exact multi-output forest, at many labels (issue 31).

For each shape, ``RandomForestML(n_estimators=T, label_projection=p, random_state=s)`` is fitted
on the first 70 % of the rows of the synthetic set of ``benchmarks/bench_scale.py`` (``bibtex``:
7,395 × 1,836 sparse × 159 labels; ``delicious``: 16,105 × 500 sparse × 983 labels;
``make_text_like``, L2-normalised rows) and scored on the other 30 %: micro-F1 of the forests'
default rule (vote share >= 0.35), Hamming loss at 0.5, and CPU seconds per tree (one core), for
p = None (every label: scikit-learn's forest) and each projection dimension k, over several seeds.
The held-out rows decide nothing in the library; the registry's ``label_projection="auto"``
(k = 64 above 128 labels) is what this table checks.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/forest_projection.py [--sets bibtex,delicious]
        [--trees 100] [--seeds 0,1,2] [--k 32,64]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def run(name, trees, seeds, ks):
    from bench_scale import load_set
    from sklearn.metrics import f1_score, hamming_loss

    from mlviz.models.forest import RandomForestML
    from mlviz.preprocessing import scale_split

    X, Y = load_set(name)
    X, _ = scale_split(X, X[:2])
    n = X.shape[0]
    cut = int(0.7 * n)
    rows = []
    for k in [None] + ks:
        for seed in seeds:
            t0 = time.process_time()
            m = RandomForestML(n_estimators=trees, label_projection=k, random_state=seed).fit(X[:cut], Y[:cut])
            dt = time.process_time() - t0
            P = m.predict_proba(X[cut:])
            rows.append((k, seed, dt / trees, f1_score(Y[cut:], P >= 0.35, average="micro"),
                         hamming_loss(Y[cut:], P >= 0.5)))
            print(f"  {name} k={k} seed={seed}: {dt / trees:.3f} s/tree, micro-F1 {rows[-1][3]:.4f}, "
                  f"Hamming@0.5 {rows[-1][4]:.5f}", flush=True)
    print(f"\n{name}: {cut} training rows × {X.shape[1]} × {Y.shape[1]} labels, {trees} trees, seeds {seeds}")
    print("| labels split on | CPU s / tree | micro-F1 (mean ± sd) | Hamming loss @0.5 | time / exact |")
    print("|---|---|---|---|---|")
    exact = np.mean([r[2] for r in rows if r[0] is None])
    for k in [None] + ks:
        r = np.array([x[2:] for x in rows if x[0] == k])
        label = f"all {Y.shape[1]} (exact)" if k is None else f"{k} projections"
        print(f"| {label} | {r[:, 0].mean():.3f} | {r[:, 1].mean():.4f} ± {r[:, 1].std():.4f} | "
              f"{r[:, 2].mean():.5f} | {r[:, 0].mean() / exact:.2f} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", default="bibtex,delicious")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--k", default="32,64")
    args = ap.parse_args()
    for name in args.sets.split(","):
        run(name, args.trees, [int(s) for s in args.seeds.split(",")], [int(k) for k in args.k.split(",")])


if __name__ == "__main__":
    main()
