"""MLRH benchmarks, measured side by side in one run.

1. Partition function: log-space ESP DP vs brute-force enumeration of all
   label sets (K = 20, M = 10: 616,645 sets), same scores, ratio of times.
2. MLRH fit time (plain MM, accelerated MM, L-BFGS; linear and RBF) vs BR-LR
   (``BinaryRelevance(base="lr")`` = per-label scikit-learn LogisticRegression) on
   scene and emotions (standardised, full data).

3. ``--scale``: many labels / many instances (issue 15). Synthetic sets
   shaped like the Mulan text/tag collections, generated in code:
   ``bibtex-like`` 7,395 × 1,836 sparse binary × 159 labels (cardinality
   ≈ 2.4, Zipf label frequencies) and ``delicious-like`` 16,105 × 500 × 983
   labels (cardinality ≈ 19), each split 2/3 : 1/3, rows L2-normalised.
   Each estimator (defaults) is fitted in a fresh process: fit + predict
   seconds, ratio to ``BinaryRelevance(base="lr")`` (per-label scikit-learn
   LogisticRegression) in the same run, peak RSS increase of the fit
   (``getrusage``), micro-F1, P@1, or the ``TooLargeError`` raised before
   starting.

Usage::

    .venv/bin/python benchmarks/bench_mlrh.py [--quick]
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_mlrh.py --scale [--set bibtex-like] [--method MLRH]
"""

import argparse
import itertools
import json
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mlviz.data import load_sample  # noqa: E402
from mlviz.models import MLRH, BinaryRelevance  # noqa: E402
from mlviz.solvers.esp import log_partition  # noqa: E402


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def bench_partition(K, M, n, repeat):
    rng = np.random.default_rng(0)
    S = rng.normal(scale=2.0, size=(n, K))
    sets = np.array([y for y in itertools.product((0, 1), repeat=K) if 1 <= sum(y) <= M], dtype=np.float32)

    def brute():
        return np.array([logsumexp(sets @ s.astype(np.float32)) for s in S])

    t_dp, z_dp = best_of(lambda: log_partition(S, M), repeat)
    t_bf, z_bf = best_of(brute, 1)
    err = np.max(np.abs(z_dp - z_bf) / np.abs(z_bf))
    print(f"partition K={K} M={M} n={n} ({len(sets)} sets): DP {t_dp * 1e3:.2f} ms, "
          f"brute force {t_bf * 1e3:.1f} ms, ratio {t_bf / t_dp:.0f}x (max rel diff {err:.1e}, float32 brute)")


def bench_fit(name, repeat):
    ds = load_sample(name)
    X = StandardScaler().fit_transform(np.asarray(ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X))
    Y = np.asarray(ds.Y)
    t_br, _ = best_of(lambda: BinaryRelevance(base="lr").fit(X, Y), repeat)
    print(f"{name} (n={X.shape[0]}, d={X.shape[1]}, L={Y.shape[1]}): BR-LR fit {t_br:.2f} s")
    for kernel in ("linear", "rbf"):
        for label, solver, accelerate in (("mm-plain", "mm", False), ("mm", "mm", True),
                                          ("lbfgs", "lbfgs", True)):
            model = MLRH(kernel=kernel, solver=solver, reg=1e-3, max_iter=5000, random_state=0)
            model._mm_accelerate = accelerate  # False: the paper's plain MM iteration
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t, m = best_of(lambda: model.fit(X, Y), 1 if kernel == "rbf" else repeat)
            print(f"  MLRH {kernel:6s} {label:8s}: {t:6.2f} s ({t / t_br:5.1f}x BR-LR), "
                  f"{m.n_iter_} it, objective {m.objective_:.6f}, converged {m.converged_}")


SHAPES = {"bibtex-like": dict(n=7395, F=1836, L=159, card=2.4, nnz_row=54),
          "delicious-like": dict(n=16105, F=500, L=983, card=19.0, nnz_row=18)}
METHODS = ("BR-LR", "MLkNN", "MLLEM", "LabelPowerset", "MLRH")


def make_text_like(n, F, L, card, nnz_row, seed=0):
    """Topic-style multi-label data: each label owns ~F/L·3 indicative features.

    Label sets: size 1 + Poisson(card − 1), labels drawn by a Zipf(1.1)
    frequency profile; each present label switches on a few of its own
    features, plus uniform noise features. Returns (X csr float64, Y uint8).
    """
    rng = np.random.default_rng(seed)
    freq = 1.0 / np.arange(1, L + 1) ** 1.1
    freq /= freq.sum()
    own = [rng.choice(F, size=max(3, 3 * F // L), replace=False) for _ in range(L)]
    rows, cols = [], []
    Y = np.zeros((n, L), dtype=np.uint8)
    for i in range(n):
        size = min(L, 1 + rng.poisson(card - 1))
        labels = rng.choice(L, size=size, replace=False, p=freq)
        Y[i, labels] = 1
        feats = [rng.choice(own[l], size=min(len(own[l]), max(1, nnz_row // (2 * size))), replace=False)
                 for l in labels]
        feats.append(rng.choice(F, size=nnz_row // 2, replace=False))
        f = np.unique(np.concatenate(feats))
        rows.append(np.full(f.size, i))
        cols.append(f)
    r, c = np.concatenate(rows), np.concatenate(cols)
    X = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, F))
    return X, Y


def split(X, Y, seed=0):
    idx = np.random.default_rng(seed).permutation(X.shape[0])
    cut = int(round(2 * X.shape[0] / 3))
    return X[idx[:cut]], Y[idx[:cut]], X[idx[cut:]], Y[idx[cut:]]


def estimator(name):
    from mlviz.models import MLLEM, MLRH, BinaryRelevance, LabelPowerset, MLkNN

    return {"BR-LR": lambda: BinaryRelevance(base="lr"), "MLkNN": MLkNN, "MLLEM": lambda: MLLEM(random_state=0),
            "LabelPowerset": LabelPowerset, "MLRH": MLRH}[name]()


def run_one(shape, method):
    """Fit one estimator in this process; print one JSON line."""
    from sklearn.preprocessing import normalize

    from mlviz.metrics import evaluate

    X, Y = make_text_like(**SHAPES[shape])
    Xtr, Ytr, Xte, Yte = split(normalize(X), Y)
    base_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    est = estimator(method)
    out = {"set": shape, "method": method}
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(Xtr, Ytr)
            P = est.predict_proba(Xte)  # MLLEM: includes its (lazy) calibration fits
            out["fit_s"] = time.perf_counter() - t0
            r = evaluate(Yte, P, y_pred=est.predict(Xte), measures=["micro_f1", "p@1"])
        out.update(r)
        out["extra"] = {k: getattr(est, k) for k in ("n_observed_sets_", "n_relabelled_", "max_labels_",
                                                     "n_iter_", "neighbor_algorithm_") if hasattr(est, k)}
        out["extra"] = {k: (v.item() if hasattr(v, "item") else v) for k, v in out["extra"].items()}
    except ValueError as err:  # TooLargeError is a ValueError
        out["error"] = f"{type(err).__name__}: {err}"
        out["fit_s"] = time.perf_counter() - t0
    out["peak_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_kb) / 1024.0
    print(json.dumps(out))


def scale_main(argv=None):
    ap = argparse.ArgumentParser(description="many labels / many instances beside per-label LR")
    ap.add_argument("--scale", action="store_true")
    ap.add_argument("--set", choices=list(SHAPES), action="append")
    ap.add_argument("--method", choices=METHODS, action="append")
    ap.add_argument("--one", nargs=2, metavar=("SET", "METHOD"), help=argparse.SUPPRESS)
    ap.add_argument("--timeout", type=float, default=900.0)
    args = ap.parse_args(argv)
    if args.one:
        return run_one(*args.one)
    print("| set | method | fit+predict s | × BR-LR | peak MB (fit) | micro-F1 | P@1 | notes |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in args.set or list(SHAPES):
        base = None
        for method in args.method or METHODS:
            cmd = [sys.executable, "-W", "ignore", __file__, "--scale", "--one", shape, method]
            try:
                line = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                      check=False).stdout.strip().splitlines()[-1]
                r = json.loads(line)
            except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError) as err:
                print(f"| {shape} | {method} | > {args.timeout:.0f} | | | | | {type(err).__name__} |")
                continue
            if method == "BR-LR":
                base = r["fit_s"]
            ratio = f"{r['fit_s'] / base:.1f}" if base else ""
            note = r.get("error", "") or json.dumps(r.get("extra", {}))
            print(f"| {shape} | {method} | {r['fit_s']:.1f} | {ratio} | {r['peak_mb']:.0f} | "
                  f"{r.get('micro_f1', float('nan')):.3f} | {r.get('p@1', float('nan')):.3f} | {note[:300]} |",
                  flush=True)


def main():
    if "--scale" in sys.argv[1:]:
        return scale_main(sys.argv[1:])
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        bench_partition(14, 7, 50, 3)
        bench_fit("emotions", 1)
    else:
        bench_partition(20, 10, 20, 3)
        for name in ("emotions", "scene"):
            bench_fit(name, 3)


if __name__ == "__main__":
    main()
