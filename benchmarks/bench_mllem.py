"""MLLEM benchmark: ranking quality beside BR-LR / ML-kNN, embedding time and its growth.

Usage::

    .venv/bin/python benchmarks/bench_mllem.py [--quick]

Prints markdown tables:

1. Embedding time on scene (2407 pooled rows and the 1211-row training file):
   full ``fit`` and slider ``refit`` with each eigensolver, side by side.
2. Growth with N on the rotated toy data (300 features, 10 labels).
3. P@1 and macro AUC on emotions, scene, yeast (the ``mllem-ranking``
   reproduction: MLLEM-L / MLLEM-NL tuned by CV, plus untuned defaults,
   beside BR-LR and ML-kNN), and ML-kNN / BR-LR micro-F1 beside the fixed-split
   reference numbers (mlviz.reproductions.references).

Timings are the best of ``--repeat`` runs with BLAS limited to one thread
(threadpoolctl), so ratios are comparable on a shared machine.
"""

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.preprocessing import StandardScaler, normalize
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mlviz.data import load_sample, load_sample_split, make_rotated_toy  # noqa: E402
from mlviz.metrics import evaluate  # noqa: E402
from mlviz.models import MLLEM, BinaryRelevance, MLkNN  # noqa: E402
from mlviz.reproductions import mllem_ranking  # noqa: E402
from mlviz.reproductions.references import lookup  # noqa: E402

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

    print("Baselines beside the fixed-split reference numbers (micro-F1 at 0.5 / macro AUC):\n")
    print("| data | method | micro-F1 ours | reference | macro AUC ours | reference |\n|---|---|---|---|---|---|")
    for name in ("emotions", "scene", "yeast"):
        train, test = load_sample_split(name)
        sc = StandardScaler().fit(train.X)
        X, Xt = sc.transform(train.X), sc.transform(test.X)
        for method, est in (("ML-kNN", MLkNN(k=10)), ("BR-LR", BinaryRelevance(base="lr", C=1.0, scale_C=False))):
            r = evaluate(test.Y, est.fit(X, train.Y).predict_proba(Xt), measures=["micro_f1", "macro_auc"])
            a = [lookup("fixed-split", name, method, m).value for m in ("micro_f1", "macro_auc")]
            print(f"| {name} | {method} | {r['micro_f1']:.3f} | {a[0]:.3f} | {r['macro_auc']:.3f} | {a[1]:.3f} |")
    print("\n(emotions and yeast: mlviz's seeded split need not be the split of benchmarks/reference_numbers.py; "
          "scene is the official one.)\n")


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


SWEEP_DATASETS = ("emotions", "yeast", "scene", "enron", "medical")
SWEEP_GRID = {"alpha": (0.01, 0.1, 1.0), "beta": (0.1, 1.0, 10.0), "k_instances": (5, 10, 20),
              "n_components": (10, 20, 50)}


def scaled_split(name):
    """Bundled train/test split, scaled as ``mlviz.preprocessing`` does by default:
    L2-normalised rows for sparse (count) features, standardised columns otherwise."""
    train, test = load_sample_split(name)
    if sp.issparse(train.X):
        return normalize(train.X), train.Y, normalize(test.X), test.Y
    sc = StandardScaler().fit(train.X)
    return sc.transform(train.X), train.Y, sc.transform(test.X), test.Y


def frequency_p_at_1(Y_train, Y_test):
    """P@1 of ranking every test row's labels by training frequency."""
    return float(Y_test[:, int(np.argmax(Y_train.sum(axis=0)))].mean())


def sweep_section():
    """Default choice for α, β, k_instances, n_components.

    Protocol: on each bundled training split, a 2/3 : 1/3 inner split
    (seed 0); every grid point is fitted on the inner training part and
    scored on the validation part by P@1, micro-F1 and Hamming loss of the
    calibrated ``predict_proba`` / ``predict`` (the per-label calibration
    changes the ranking across labels, so P@1 is measured on it). Score of a
    grid point: its P@1 minus the P@1 of ranking by training frequency,
    averaged over the five sets (ties: higher mean micro-F1). The test split
    is used only to report the chosen defaults (section 5).
    """
    print("## 4. Default sweep (α, β, k_instances, n_components; k_labels = 5, nonlinear mapping)\n")
    keys = list(SWEEP_GRID)
    grid = list(itertools.product(*SWEEP_GRID.values()))
    gains, f1s, hams = np.zeros(len(grid)), np.zeros(len(grid)), np.zeros(len(grid))
    t0 = time.perf_counter()
    nd = len(SWEEP_DATASETS)
    for name in SWEEP_DATASETS:
        X, Y, _, _ = scaled_split(name)
        idx = np.random.default_rng(0).permutation(X.shape[0])
        cut = int(round(2 * X.shape[0] / 3))
        tr, va = idx[:cut], idx[cut:]
        base = frequency_p_at_1(Y[tr], Y[va])
        model = MLLEM(k_instances=max(SWEEP_GRID["k_instances"]), random_state=0).fit(X[tr], Y[tr])
        best = (-1, None)
        for g, values in enumerate(grid):
            params = dict(zip(keys, values))
            model.refit(**params, k_test=params["k_instances"])
            r = evaluate(Y[va], model.predict_proba(X[va]), y_pred=model.predict(X[va]),
                         measures=["p@1", "micro_f1", "hamming_loss"])
            gains[g] += (r["p@1"] - base) / nd
            f1s[g] += r["micro_f1"] / nd
            hams[g] += (r["hamming_loss"] / Y[va].mean()) / nd
            best = max(best, (r["p@1"], values))
        print(f"- {name}: frequency P@1 {base:.3f}; best grid P@1 {best[0]:.3f} at "
              f"{dict(zip(keys, best[1]))}")
    order = np.lexsort((-f1s, -gains))
    print(f"\n({len(grid)} grid points × {nd} sets, {time.perf_counter() - t0:.1f} s)\n")
    print("| rank | " + " | ".join(keys) + " | mean P@1 − freq P@1 | mean micro-F1 | mean Hamming / empty Hamming |")
    print("|---" * (len(keys) + 4) + "|")
    for rank, g in enumerate(order[:10], 1):
        print(f"| {rank} | " + " | ".join(f"{v:g}" for v in grid[g])
              + f" | {gains[g]:+.3f} | {f1s[g]:.3f} | {hams[g]:.3f} |")
    for label, params in (("old default α=β=1", dict(alpha=1.0, beta=1.0, k_instances=10, n_components=20)),):
        g = grid.index(tuple(params[k] for k in keys))
        print(f"| {label} | " + " | ".join(f"{params[k]:g}" for k in keys)
              + f" | {gains[g]:+.3f} | {f1s[g]:.3f} | {hams[g]:.3f} |")
    print()


def defaults_section():
    """Test-split numbers of the default MLLEM beside BR-LR, ML-kNN and the trivial rules."""
    print("## 5. Defaults on the test splits (calibrated predict_proba, predict = threshold 0.5)\n")
    print("| data | method | P@1 | freq P@1 | Hamming | empty Hamming | micro-F1 | macro AUC | fit s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in SWEEP_DATASETS:
        X, Y, Xt, Yt = scaled_split(name)
        freq = frequency_p_at_1(Y, Yt)
        for method, est in (("MLLEM (defaults)", MLLEM(random_state=0)),
                            ("MLLEM old defaults (α=β=1, k=10, K=20)",
                             MLLEM(alpha=1.0, beta=1.0, k_instances=10, k_test=10, n_components=20,
                                   random_state=0)),
                            ("ML-kNN", MLkNN()), ("BR-LR", BinaryRelevance(base="lr", C=1.0, scale_C=False))):
            t = time.perf_counter()
            est.fit(X, Y)
            P = est.predict_proba(Xt)  # MLLEM: includes the lazy calibration
            fit_s = time.perf_counter() - t
            r = evaluate(Yt, P, y_pred=est.predict(Xt), measures=["p@1", "hamming_loss", "micro_f1", "macro_auc"])
            print(f"| {name} | {method} | {r['p@1']:.3f} | {freq:.3f} | {r['hamming_loss']:.3f} | "
                  f"{Yt.mean():.3f} | {r['micro_f1']:.3f} | {r['macro_auc']:.3f} | {fit_s:.2f} |")
    print()


def knn_section():
    """Approximate (NN-descent) vs exact training kNN lists: recall@10 and time; MLLEM / ML-kNN on each."""
    from bench_mlrh import SHAPES, make_text_like, split

    from mlviz.models._neighbors import NeighborIndex, knn_recall

    print("## 6. Approximate vs exact nearest neighbours (k = 10, rows L2-normalised)\n")
    print("| data | N train | exact s | NN-descent s | recall@10 | method | P@1 exact | P@1 approx | "
          "micro-F1 exact | micro-F1 approx |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=3.0, size=(40, 30))
    lab = rng.integers(0, 40, size=45000)
    Xd = centres[lab] + rng.normal(size=(45000, 30))
    Yd = (np.stack([lab % 8 == j for j in range(8)], axis=1) | (rng.random((45000, 8)) < 0.05)).astype(np.uint8)
    sets = {name: split(normalize(make_text_like(**SHAPES[name])[0]), make_text_like(**SHAPES[name])[1])
            for name in ("bibtex-like", "delicious-like")}
    sets["mixture-45k (dense, 30 features)"] = (normalize(Xd[:30000]), Yd[:30000], normalize(Xd[30000:]), Yd[30000:])
    for name, (X, Y, Xt, Yt) in sets.items():
        t = time.perf_counter()
        exact = NeighborIndex(algorithm="exact").fit(X).training_neighbors(10)
        t_exact = time.perf_counter() - t
        t = time.perf_counter()
        approx = NeighborIndex(algorithm="approximate", random_state=0).fit(X).training_neighbors(10)
        t_approx = time.perf_counter() - t
        recall = knn_recall(approx, exact)
        for mname, make in (("ML-kNN", lambda a: MLkNN(neighbors=a, random_state=0)),
                            ("MLLEM", lambda a: MLLEM(neighbors=a, random_state=0))):
            row = {}
            for algo in ("exact", "approximate"):
                est = make(algo).fit(X, Y)
                row[algo] = evaluate(Yt, est.predict_proba(Xt), y_pred=est.predict(Xt), measures=["p@1", "micro_f1"])
            print(f"| {name} | {X.shape[0]} | {t_exact:.1f} | {t_approx:.1f} | {recall:.3f} | {mname} | "
                  f"{row['exact']['p@1']:.3f} | {row['approximate']['p@1']:.3f} | "
                  f"{row['exact']['micro_f1']:.3f} | {row['approximate']['micro_f1']:.3f} |", flush=True)
    print("\n(NN-descent times include numba compilation, ≈ 30 s on first use in a process.)\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="quick reproduction, smaller N range")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sweep", action="store_true", help="only the default sweep and the defaults table")
    parser.add_argument("--defaults", action="store_true", help="only the defaults table")
    parser.add_argument("--knn", action="store_true", help="only approximate vs exact kNN")
    args = parser.parse_args(argv)
    print(f"# MLLEM benchmark ({'quick' if args.quick else 'full'})\n")
    with threadpool_limits(1):
        if args.defaults:
            defaults_section()
            return
        if args.knn:
            knn_section()
            return
        if args.sweep:
            sweep_section()
            defaults_section()
            return
        timing_section(args.repeat)
        growth_section(args.quick, args.repeat)
        accuracy_section(args.quick)


if __name__ == "__main__":
    main()
