"""Sparse-CDN slider defaults of the dashboard, by evidence (issue 14, step 1).

Protocol
--------
For each bundled data set (``--datasets``): iteratively stratified ``--cv``-fold
cross-validation (:func:`mlviz.evaluation.multilabel_kfold`, seed 0), the features
scaled by the dashboard's default (``"auto"`` = :func:`mlviz.preprocessing.default_scaling`)
fitted on each training fold. The sparse CDN is built exactly as the dashboard builds it
(``METHODS["cdn"].from_sliders(values, scale)`` with ``scale.n_train`` = the training fold's
size, so μ / N means what the slider says) and γ / γ_max is reached as the dashboard
reaches it: the γ = ∞ start model (``CDN_PATH.start``), then warm-started steps down the
γ ratio grid (``CDN_PATH.step``). Label measures use the model's own ``predict``,
ranking measures its ``predict_proba`` -- the Compare page's rule (``predict`` of SparseCDN is
threshold 0.5 on ``predict_proba``, deterministic per fitted model, so it is applied to the one
``predict_proba`` call).

The reference is BR-LR (``METHODS["br"]`` at C = 1, the dashboard default) through
:func:`mlviz.evaluation.cross_validate` on the same folds with ``scaling="auto"``.

Printed: one row per data set x (λ, μ/N, γ ratio) with mean micro-F1, P@1 and Hamming loss
over the folds, their differences from BR-LR, and a summary per setting (mean rank over
the data sets, mean and worst difference from BR-LR, number of data sets where CDN ≥ BR-LR
on micro-F1 and on P@1), sorted by the worst difference (either measure, any data set):
the dashboard default is the first row, the setting that is nowhere far below BR-LR.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/sweep_cdn_dashboard.py \
        [--cv 3] [--datasets emotions,yeast,scene,enron,medical] [--folds 0] [--csv out.csv]
    ... --cv 3 --from-csv a.csv,b.csv      # merge runs (e.g. one per data set in parallel)
    ... --cv 5 --compare emotions          # what the Compare page's job shows at four settings
"""

import argparse
import itertools
import shlex
import sys
import time
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp

LAMS = [0.1, 1.0, 10.0]
MUS = [0.0, 0.003]
RATIOS = [0.5, 0.3, 0.1]  # top of the path first, as the dashboard computes it
MEASURES = ["micro_f1", "p@1", "hamming_loss"]


def _scaled(X, train, test):
    from mlviz.preprocessing import make_scaler, resolve_scaling

    Xtr, Xte = X[train], X[test]
    scaler = make_scaler(resolve_scaling("auto", X), sparse=sp.issparse(X))
    if scaler is None:
        return Xtr, Xte
    return scaler.fit_transform(Xtr), scaler.transform(Xte)


def cdn_rows(name, X, Y, folds, log=print, only=None):
    """Mean CV measures of every (λ, μ/N, γ ratio) on one data set, as a list of dicts (``only``: the
    indices of the folds to run, default all)."""
    from mlviz.dashboard.methods import CDN_PATH, METHODS, Scale
    from mlviz.evaluation.cross_validation import predict_scores
    from mlviz.metrics import evaluate

    cdn = METHODS["cdn"]
    acc = {}
    for f, (train, test) in enumerate(folds):
        if only is not None and f not in only:
            continue
        Xtr, Xte = _scaled(X, train, test)
        scale = Scale(n_train=len(train), median_distance=lambda: 1.0)
        for lam, mu in itertools.product(LAMS, MUS):
            t0 = time.perf_counter()
            est = cdn.from_sliders({"lam": lam, "mu": mu}, scale)
            model = CDN_PATH.start(est, Xtr, Y[train], None)
            for ratio in RATIOS:
                model = CDN_PATH.step(model, ratio, None)
                P = predict_scores(model, Xte)
                # SparseCDN.predict is exactly P >= 0.5 on these marginals (the sampler restarts from the
                # model's own seed on every call), so the second inference is skipped
                vals = evaluate(Y[test], P, measures=MEASURES, y_pred=(P >= 0.5).astype(np.uint8))
                vals["edges"] = model.label_graph_.number_of_edges()
                acc.setdefault((lam, mu, ratio), []).append(vals)
            log(f"  {name} fold {f} lam={lam:g} mu/N={mu:g}: {time.perf_counter() - t0:.1f} s")
    used = ",".join(str(f) for f in range(len(folds)) if only is None or f in only)
    return [{"dataset": name, "folds": used, "lam": lam, "mu_over_N": mu, "gamma_ratio": r,
             **{m: float(np.mean([v[m] for v in vals])) for m in MEASURES + ["edges"]}}
            for (lam, mu, r), vals in acc.items()]


def br_row(name, X, Y, folds, only=None):
    from mlviz.dashboard.methods import METHODS, Scale
    from mlviz.evaluation import cross_validate

    folds = [fold for f, fold in enumerate(folds) if only is None or f in only]
    br = METHODS["br"].from_sliders({"C": 1.0}, Scale(n_train=len(folds[0][0]), median_distance=lambda: 1.0))
    res = cross_validate({"br": br}, X, Y, cv=folds, measures=MEASURES, scaling="auto", random_state=0)
    mean = res.groupby("measure")["value"].mean()
    return {"dataset": name, **{m: float(mean[m]) for m in MEASURES}}  # (mean over the folds run)


def run(datasets, cv, log=print, only=None):
    from mlviz.data import load_sample
    from mlviz.evaluation import multilabel_kfold

    rows, refs = [], []
    for name in datasets:
        ds = load_sample(name)
        X, Y = ds.X, np.asarray(ds.Y)
        folds = multilabel_kfold(Y, cv, random_state=0)
        log(f"{name}: {X.shape[0]} x {X.shape[1]}, {Y.shape[1]} labels")
        refs.append(br_row(name, X, Y, folds, only))
        rows += cdn_rows(name, X, Y, folds, log, only)
    return pd.DataFrame(rows), pd.DataFrame(refs).set_index("dataset")


COMPARE_SETTINGS = [dict(lam=0.1, mu=0.003, gamma=0.1), dict(lam=1.0, mu=0.0, gamma=0.5),
                    dict(lam=1.0, mu=0.0, gamma=0.3), dict(lam=10.0, mu=0.0, gamma=0.3)]


def compare_check(name, folds):
    """What the Compare page's own job (``compute.cross_validation_fn``) shows for the CDN and BR-LR."""
    from mlviz.dashboard import compute, state

    ctx = state.sample_context(name)
    rows = []
    for cdn in COMPARE_SETTINGS:
        req = {"settings": {"cdn": dict(cdn, variant="sparse"), "br": {"C": 1.0}}, "folds": folds,
               "scaling": ctx.scaling, "tune": False}
        res = compute.task(ctx.key, "cross-validation", req, compute.cross_validation_fn(ctx, req)).result(3600)
        mean = res.groupby(["method", "measure"])["value"].mean()
        rows.append({"setting (λ, μ/N, γ/γ_max)": f"{cdn['lam']:g}, {cdn['mu']:g}, {cdn['gamma']:g}",
                     **{f"CDN {m}": mean[("Sparse CDN", m)] for m in MEASURES},
                     **{f"BR-LR {m}": mean[("BR-LR", m)] for m in MEASURES}})
    return pd.DataFrame(rows)


def _pool(df):
    """Rows of one data set and setting from runs on disjoint folds -> one row, each run weighted by its
    number of folds (the mean over all the folds run)."""
    keys = ["dataset", "lam", "mu_over_N", "gamma_ratio"]
    df = df.assign(_w=df["folds"].map(lambda f: len(str(f).split(","))))
    out = []
    for key, g in df.groupby(keys, sort=False):
        folds = sorted({int(f) for fs in g["folds"] for f in str(fs).split(",")})
        if sum(g["_w"]) != len(folds):
            raise ValueError(f"{key}: runs on overlapping folds ({list(g['folds'])}).")
        row = dict(zip(keys, key), folds=",".join(map(str, folds)))
        row.update({m: float(np.average(g[m], weights=g["_w"])) for m in MEASURES + ["edges"]})
        out.append(row)
    return pd.DataFrame(out)


def summarise(df, br):
    df = df.copy()
    for m in MEASURES:
        df[f"{m} - BR"] = df[m] - df["dataset"].map(br[m])
    df["rank"] = df.groupby("dataset")["micro_f1"].rank(ascending=False)
    keys = ["lam", "mu_over_N", "gamma_ratio"]
    summary = df.groupby(keys).agg(
        mean_rank=("rank", "mean"), mean_micro_f1_minus_BR=("micro_f1 - BR", "mean"),
        mean_p1_minus_BR=("p@1 - BR", "mean"),
        worst_micro_f1_minus_BR=("micro_f1 - BR", "min"), worst_p1_minus_BR=("p@1 - BR", "min"),
        sets_micro_f1_ge_BR=("micro_f1 - BR", lambda v: int((v >= -1e-9).sum())),
        sets_p1_ge_BR=("p@1 - BR", lambda v: int((v >= -1e-9).sum()))).reset_index()
    # the dashboard default: the setting whose worst difference from BR-LR (either measure, any data set)
    # is smallest -- a default must not look broken anywhere; mean rank breaks ties
    summary["worst_of_both"] = summary[["worst_micro_f1_minus_BR", "worst_p1_minus_BR"]].min(axis=1)
    return df, summary.sort_values(["worst_of_both", "mean_rank"], ascending=[False, True])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cv", type=int, default=3)
    ap.add_argument("--datasets", default="emotions,yeast,scene,enron,medical")
    ap.add_argument("--csv", default=None, help="write the per-setting table here")
    ap.add_argument("--folds", default=None,
                    help="comma-separated indices of the --cv folds to run (default all; for the slowest sets)")
    ap.add_argument("--from-csv", default=None,
                    help="comma-separated CSVs of earlier runs (--csv, e.g. one per data set run in parallel): "
                         "summarise their CDN rows; BR-LR is recomputed on the same folds")
    ap.add_argument("--compare", default=None, metavar="DATASET",
                    help="instead: the Compare page's own job at the old, new and two other settings on DATASET "
                         "(--cv folds)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.compare:
        pd.set_option("display.width", 200)
        print(compare_check(args.compare, args.cv).round(3).to_string(index=False))
        return
    t0 = time.perf_counter()
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    if args.from_csv:
        from mlviz.data import load_sample
        from mlviz.evaluation import multilabel_kfold

        df = pd.concat([pd.read_csv(p, dtype={"folds": str}) for p in args.from_csv.split(",")],
                       ignore_index=True)
        if "folds" not in df:
            df["folds"] = np.nan
        df["folds"] = df["folds"].fillna(",".join(map(str, range(args.cv))))  # (no column: every fold)
        df = _pool(df)  # several runs of one data set (disjoint folds): fold-weighted means
        df = df[["dataset", "folds", "lam", "mu_over_N", "gamma_ratio", *MEASURES, "edges"]]
        refs = []
        for name in dict.fromkeys(df["dataset"]):
            Y = np.asarray(load_sample(name).Y)
            used = [int(f) for f in str(df.loc[df["dataset"] == name, "folds"].iloc[0]).split(",")]
            refs.append({**br_row(name, load_sample(name).X, Y, multilabel_kfold(Y, args.cv, random_state=0),
                                  used), "folds": ",".join(map(str, used))})
        br = pd.DataFrame(refs).set_index("dataset")
    else:
        only = None if args.folds is None else [int(f) for f in args.folds.split(",")]
        df, br = run(args.datasets.split(","), args.cv, log=log, only=only)
    df, summary = summarise(df, br)
    pd.set_option("display.width", 200)
    print(f"command: {' '.join(shlex.quote(a) for a in sys.argv)}  ({time.perf_counter() - t0:.0f} s)")
    print("\nBR-LR (C = 1), same folds and scaling:")
    print(br.round(3).to_string())
    print("\nSparse CDN, every setting (mean over folds):")
    print(df.round(3).to_string(index=False))
    print("\nPer setting over the data sets (rank 1 = best micro-F1 on a data set; sorted by worst_of_both):")
    print(summary.round(3).to_string(index=False))
    if args.csv:
        df.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
