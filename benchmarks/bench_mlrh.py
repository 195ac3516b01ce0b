"""MLRH benchmarks, measured side by side in one run.

1. Partition function: log-space ESP DP vs brute-force enumeration of all
   label sets (K = 20, M = 10: 616,645 sets), same scores, ratio of times.
2. MLRH fit time (plain MM, accelerated MM, L-BFGS; linear and RBF) vs BR-LR
   (``BinaryRelevance()`` = per-label scikit-learn LogisticRegression) on
   scene and emotions (standardised, full data).

Usage::

    .venv/bin/python benchmarks/bench_mlrh.py [--quick]
"""

import argparse
import itertools
import time
import warnings

import numpy as np
from scipy.special import logsumexp
from sklearn.preprocessing import StandardScaler

from mlviz.data import load_sample
from mlviz.models import MLRH, BinaryRelevance
from mlviz.solvers.esp import log_partition


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
    t_br, _ = best_of(lambda: BinaryRelevance().fit(X, Y), repeat)
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


def main():
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
