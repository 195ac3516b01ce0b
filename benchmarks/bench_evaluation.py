"""Evaluation-engine benchmarks, printed as ratios measured side by side in one run.

1. ``grid_search`` with the ``refit`` hook (one ML-LSPC fit per fold, the
   other lambda/gamma by ``refit``) vs fitting every candidate (``use_refit=False``):
   same table, time ratio.
2. ``cross_validate`` with ``n_jobs=2`` vs ``n_jobs=1`` (same values).
3. ``mlviz.metrics.evaluate`` (all 23 measures at once) vs the scikit-learn
   calls computing the measures it shares with scikit-learn.
4. ``mlviz.decision.rule_curve`` (counts over the whole parameter grid) vs the
   row-by-row loop (``apply_rule`` + ``evaluate`` per parameter) on a
   delicious-sized score matrix; for RCut the loop is timed on 20 of the
   k values and extrapolated to all of them.

Usage: ``.venv/bin/python benchmarks/bench_evaluation.py [--quick] [--only curve]``
"""

import argparse
import time

import numpy as np
from sklearn import metrics as skm
from sklearn.preprocessing import StandardScaler

from mlviz.data import load_sample
from mlviz.decision import _rule_curve_loop, rule_curve
from mlviz.evaluation import cross_validate, grid_search
from mlviz.metrics import MEASURES, binarize, evaluate
from mlviz.models import MLLSPC, BinaryRelevance, MLkNN


def timed(fn, repeat=1):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_grid(quick):
    ds = load_sample("emotions" if quick else "yeast")
    X = StandardScaler().fit_transform(ds.X)
    grid = {"lam": [0.01, 0.1, 1.0], "gamma": [0.0, 1.0, 10.0]}
    kw = dict(cv=3, random_state=0, refit_best=False)
    t_hook, a = timed(lambda: grid_search(MLLSPC(random_state=0), grid, X, ds.Y, **kw))
    t_brute, b = timed(lambda: grid_search(MLLSPC(random_state=0), grid, X, ds.Y, use_refit=False, **kw))
    cols = [c for c in a.table if c.startswith("fold_")]
    diff = float(np.abs(a.table[cols].to_numpy() - b.table[cols].to_numpy()).max())
    print(f"grid_search MLLSPC 3x3 grid, 3 folds, {ds.name} {ds.X.shape}: refit hook {t_hook:.2f} s, "
          f"brute force {t_brute:.2f} s, speed-up x{t_brute / t_hook:.1f}, max |score diff| {diff:.1e}")


def bench_parallel(quick):
    ds = load_sample("emotions" if quick else "scene")
    ests = {"br": BinaryRelevance(base="lr"), "mlknn": MLkNN()}
    X = StandardScaler().fit_transform(ds.X)
    kw = dict(cv=4, measures=["micro_f1", "macro_auc"], random_state=0)
    for n_jobs in (1, 2):  # warm up imports and the worker pool
        cross_validate(ests, X[:50], ds.Y[:50], cv=2, n_jobs=n_jobs)
    t1, r1 = timed(lambda: cross_validate(ests, X, ds.Y, n_jobs=1, **kw), repeat=2)
    t2, r2 = timed(lambda: cross_validate(ests, X, ds.Y, n_jobs=2, **kw), repeat=2)
    same = r1["value"].equals(r2["value"])
    print(f"cross_validate BR+MLkNN, 4 folds, {ds.name} {ds.X.shape}: n_jobs=1 {t1:.2f} s, n_jobs=2 {t2:.2f} s, "
          f"speed-up x{t1 / t2:.2f}, identical values: {same}")


def bench_metrics(quick):
    rng = np.random.default_rng(0)
    n, L = (2000, 50) if quick else (20000, 100)
    Y = (rng.random((n, L)) < 0.1).astype(np.uint8)
    S = np.clip(0.3 * Y + rng.random((n, L)) * 0.8, 0, 1)
    names = list(MEASURES)

    def sklearn_calls():
        P = binarize(S, 0.5)
        out = [skm.hamming_loss(Y, P), skm.accuracy_score(Y, P)]
        for avg in ("micro", "macro", "samples"):
            out.append(skm.precision_recall_fscore_support(Y, P, average=avg, zero_division=1))
        out += [skm.roc_auc_score(Y, S, average="macro"), skm.roc_auc_score(Y.ravel(), S.ravel()),
                skm.label_ranking_loss(Y, S), skm.coverage_error(Y, S),
                skm.label_ranking_average_precision_score(Y, S)]
        out += [skm.ndcg_score(Y, S, k=k) for k in (1, 3, 5)]
        return out

    t_ours, _ = timed(lambda: evaluate(Y, S, measures=names), repeat=3)
    t_sk, _ = timed(sklearn_calls, repeat=3)
    print(f"metrics on ({n}, {L}): mlviz evaluate (all {len(names)} measures) {t_ours:.3f} s, "
          f"scikit-learn (the 17 shared measures) {t_sk:.3f} s, ratio sklearn/mlviz x{t_sk / t_ours:.1f}")


def bench_rule_curve(quick):
    rng = np.random.default_rng(0)
    n, L = (1000, 200) if quick else (5368, 983)  # delicious test split: 5,368 x 983
    Y = (rng.random((n, L)) < 0.02).astype(np.uint8)
    P = np.clip(0.3 * Y + 0.5 * rng.random((n, L)), 0, 1) ** 2
    for at_least in (False, True):
        kw = dict(at_least_one_label=at_least)
        t_new, new = timed(lambda: rule_curve(Y, P, "threshold", **kw))
        t_old, old = timed(lambda: _rule_curve_loop(Y, P, "threshold", **kw))
        print(f"rule_curve threshold (101 t) on ({n}, {L}), at_least_one={at_least}: loop {t_old:.2f} s, "
              f"counts {t_new:.3f} s, speed-up x{t_old / t_new:.0f}, identical: {new.equals(old)}")
        ks = np.linspace(0, L, 20).round().astype(int).tolist()
        t_new, new = timed(lambda: rule_curve(Y, P, "rcut", **kw))
        t_sub, old = timed(lambda: _rule_curve_loop(Y, P, "rcut", ks, **kw))
        same = new.set_index("param").loc[ks].reset_index().equals(old)
        t_old = t_sub * (L + 1) / len(ks)
        print(f"rule_curve rcut (k = 0..{L}, {L + 1} rows) on ({n}, {L}), at_least_one={at_least}: "
              f"loop {t_sub:.2f} s on {len(ks)} k values -> ~{t_old:.0f} s extrapolated to {L + 1}, "
              f"counts {t_new:.2f} s (all {L + 1}), speed-up ~x{t_old / t_new:.0f}, "
              f"identical on the {len(ks)} k values: {same}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["metrics", "grid", "parallel", "curve"])
    args = parser.parse_args()
    benches = {"metrics": bench_metrics, "grid": bench_grid, "parallel": bench_parallel,
               "curve": bench_rule_curve}
    for name, bench in benches.items():
        if args.only in (None, name):
            bench(args.quick)


if __name__ == "__main__":
    main()
