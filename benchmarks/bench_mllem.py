"""MLLEM benchmark: ranking quality beside BR-LR / ML-kNN, embedding time and its growth.

Usage::

    .venv/bin/python benchmarks/bench_mllem.py [--quick]

Prints markdown tables:

1. Embedding time on scene (2407 pooled rows and the 1211-row training file):
   full ``fit`` and slider ``refit`` with each eigensolver, side by side.
2. Growth with N on the rotated toy data (300 features, 10 labels).
3. P@1 and macro AUC on emotions, scene, yeast (the ``mllem-ranking``
   reproduction: MLLEM-L / MLLEM-NL tuned by CV, plus untuned defaults,
   beside BR-LR and ML-kNN), and ML-kNN / BR-LR micro-F1 beside ANCHORS.md.

Timings are the best of ``--repeat`` runs with BLAS limited to one thread
(threadpoolctl), so ratios are comparable on a shared machine.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mlviz.data import load_sample, load_sample_split, make_rotated_toy  # noqa: E402
from mlviz.metrics import evaluate  # noqa: E402
from mlviz.models import MLLEM, BinaryRelevance, MLkNN  # noqa: E402
from mlviz.reproductions import mllem_ranking  # noqa: E402

SOLVERS = ("dense", "lanczos", "shift-invert")


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def accuracy_section(quick):
    print("## 3. Ranking quality (test split)\n")
    t0 = time.perf_counter()
    df = mllem_ranking.run(quick=quick)
    print("| data | method | P@1 | macro AUC | tuned parameters |\n|---|---|---|---|---|")
    for (ds, method), grp in df.groupby(["dataset", "method"], sort=False):
        cell = {}
        for _, r in grp.iterrows():
            sd = f" ± {r['ours_std']:.3f}" if np.isfinite(r["ours_std"]) else ""
            cell[r["measure"]] = f"{r['ours']:.3f}{sd}"
        print(f"| {ds} | {method} | {cell['p@1']} | {cell['macro_auc']} | {grp['params'].iloc[0]} |")
    print(f"\n(reproduction {'quick' if quick else 'full'} run: {time.perf_counter() - t0:.1f} s)\n")

    print("Baselines beside ANCHORS.md protocol P1 (micro-F1 at 0.5 / macro AUC):\n")
    anchors = {("emotions", "ML-kNN"): (0.687, 0.828), ("scene", "ML-kNN"): (0.715, 0.918),
               ("yeast", "ML-kNN"): (0.629, 0.673), ("emotions", "BR-LR"): (0.640, 0.832),
               ("scene", "BR-LR"): (0.636, 0.883), ("yeast", "BR-LR"): (0.603, 0.661)}
    print("| data | method | micro-F1 ours | anchor | macro AUC ours | anchor |\n|---|---|---|---|---|---|")
    for name in ("emotions", "scene", "yeast"):
        train, test = load_sample_split(name)
        sc = StandardScaler().fit(train.X)
        X, Xt = sc.transform(train.X), sc.transform(test.X)
        for method, est in (("ML-kNN", MLkNN(k=10)), ("BR-LR", BinaryRelevance())):
            r = evaluate(test.Y, est.fit(X, train.Y).predict_proba(Xt), measures=["micro_f1", "macro_auc"])
            a = anchors[(name, method)]
            print(f"| {name} | {method} | {r['micro_f1']:.3f} | {a[0]:.3f} | {r['macro_auc']:.3f} | {a[1]:.3f} |")
    print("\n(emotions and yeast: mlviz's seeded split need not be the anchors' split; scene is the official one.)\n")


def timing_section(repeat):
    print("## 1. Embedding time on scene (K = 20, k_instances = 10, k_labels = 5)\n")
    print("| data | N + L | solver | fit s (kNN + graph + eigen) | refit s (α changed) | refit vs dense |")
    print("|---|---|---|---|---|---|")
    for name in ("scene-train", "scene"):
        ds = load_sample(name)
        X = StandardScaler().fit_transform(ds.X)
        refit_times = {}
        for solver in SOLVERS:
            model = MLLEM(eigen_solver=solver, random_state=0)
            fit_s = best_of(lambda: model.fit(X, ds.Y), repeat)
            alphas = iter(np.linspace(0.5, 1.5, 10 * repeat))
            refit_s = best_of(lambda: model.refit(alpha=float(next(alphas))), repeat)
            refit_times[solver] = refit_s
            ratio = refit_times["dense"] / refit_s
            print(f"| {name} | {X.shape[0] + ds.Y.shape[1]} | {solver} | {fit_s:.3f} | {refit_s:.3f} | "
                  f"{ratio:.1f}× faster |")
    model = MLLEM(random_state=0).fit(X, ds.Y)
    map_s = best_of(lambda: model.refit(mapping="linear", ridge=float(np.random.uniform(1, 2))), repeat)
    print(f"\nscene, mapping-only refit (linear, new ridge; eigenproblem skipped): {map_s:.3f} s")
    model2d = MLLEM(n_components=2, random_state=0)
    fit2 = best_of(lambda: model2d.fit(X, ds.Y), repeat)
    re2 = best_of(lambda: model2d.refit(beta=float(np.random.uniform(0.5, 2))), repeat)
    print(f"scene, 2-D embedding for the figure: fit {fit2:.3f} s, refit {re2:.3f} s\n")


def growth_section(quick, repeat):
    sizes = (250, 500, 1000, 2000) if quick else (250, 500, 1000, 2000, 4000, 8000)
    print("## 2. Growth with N (rotated toy data, 300 features, 10 labels, K = 20)\n")
    print("| N | kNN query s | dense eigen s | Lanczos eigen s | dense / Lanczos |")
    print("|---|---|---|---|---|")
    rows = []
    for n in sizes:
        ds = make_rotated_toy(n_samples=n, n_features=300, n_labels=10, random_state=0)
        model = MLLEM(eigen_solver="lanczos", random_state=0).fit(ds.X, ds.Y)
        knn_s = best_of(lambda: model._training_neighbors(10), repeat)
        alphas = iter(np.linspace(0.5, 1.5, 10 * repeat))
        lan_s = best_of(lambda: model.refit(alpha=float(next(alphas))), repeat)
        dense_s = np.nan
        if n <= 4000:
            model.refit(eigen_solver="dense")
            dense_s = best_of(lambda: model.refit(alpha=float(next(alphas))), repeat)
        rows.append((n, knn_s, dense_s, lan_s))
        print(f"| {n} | {knn_s:.3f} | {dense_s:.3f} | {lan_s:.3f} | {dense_s / lan_s:.1f} |")
    df = pd.DataFrame(rows, columns=["n", "knn", "dense", "lanczos"])
    for col in ("knn", "dense", "lanczos"):
        ok = df[col].notna() & (df["n"] >= 500)
        slope = np.polyfit(np.log(df.loc[ok, "n"]), np.log(df.loc[ok, col]), 1)[0]
        print(f"\nlog-log slope of {col} time vs N (N >= 500): {slope:.2f}", end="")
    print("\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="quick reproduction, smaller N range")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"# MLLEM benchmark ({'quick' if args.quick else 'full'})\n")
    with threadpool_limits(1):
        timing_section(args.repeat)
        growth_section(args.quick, args.repeat)
        accuracy_section(args.quick)


if __name__ == "__main__":
    main()
