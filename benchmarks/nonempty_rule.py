"""Would an "at least one label" decision rule be fairer? Inner CV on the training halves only.

Every training row of the bundled standard splits (emotions, enron, scene, yeast)
and of medical's seeded split carries at least one label, yet several methods'
own rule (a threshold on P(y_l = 1 | x)) predicts the empty set for 5-25 % of
rows. Given that the training sets are never empty, the most probable non-empty
set under independent marginals is the thresholded set when it is non-empty and
the single most probable label otherwise; MLRH already excludes the empty set in
that case (``empty_set="auto"``). This script measures, for each method of the
method registry at its defaults, the out-of-fold predictions of 3-fold
iterative-stratified CV (:func:`mlviz.evaluation.multilabel_kfold`,
``random_state=0``; :func:`mlviz.preprocessing.scale_split` fitted on each inner
training fold) pooled over the folds: micro-F1 and Hamming loss of the method's
own ``predict`` and of the same predictions with every empty row given its
most probable label (``argmax predict_proba``). The test halves are never read.

With ``--thresholds CSV`` it also re-runs each fitted inner model's own ``predict`` at every
threshold of :data:`mlviz.evaluation.thresholds.THRESHOLD_GRID` (``threshold`` is read at
predict time, so nothing is refitted), with and without the rule, and reports per method the
threshold of best mean rank over the data sets under the rule: the evidence for re-choosing the
default thresholds that were chosen without it.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/nonempty_rule.py [--datasets emotions,scene]
        [--methods br,mllspc] [--csv out.csv] [--thresholds curves.csv]
"""

import argparse
import sys
import time
import warnings

import numpy as np
import pandas as pd

from mlviz.data import load_protocol_split
from mlviz.evaluation import multilabel_kfold
from mlviz.evaluation.thresholds import THRESHOLD_GRID
from mlviz.metrics import at_least_one
from mlviz.models._base import MultiLabelClassifierMixin
from mlviz.models.registry import METHODS
from mlviz.preprocessing import scale_split

DATASETS = ("emotions", "enron", "scene", "yeast", "medical")


def micro_f1_hamming(Y, P):
    """Micro-F1 (1 when nothing is relevant or predicted) and Hamming loss of 0/1 predictions."""
    Y, P = np.asarray(Y).astype(bool), np.asarray(P).astype(bool)
    tp, fp, fn = np.sum(P & Y), np.sum(P & ~Y), np.sum(~P & Y)
    den = 2 * tp + fp + fn
    return (1.0 if den == 0 else 2 * tp / den), (fp + fn) / Y.size


def load_training(name):
    """Training half (X, Y) of a standard split, or of medical's seeded split."""
    train = load_protocol_split(name)[0]
    return train.X, np.asarray(train.Y)


def _own_rule(est):
    """``est`` with its own rule only: ``empty_set=True`` where it has that parameter (the registry
    may set ``"auto"``, which is the rule measured here)."""
    return est.set_params(empty_set=True) if "empty_set" in est.get_params() else est


def _curve(est, Xte, proba, grid):
    """The fitted model's own ``predict(Xte)`` at each threshold of ``grid``, shape (n_grid, n, L).

    A model whose ``predict`` is the mixin's ``predict_proba >= threshold`` is not asked again (for the
    sparse CDN each call is a Gibbs run): its curve is ``proba >= t``, the same computation.
    """
    if type(est).predict is MultiLabelClassifierMixin.predict:
        return np.stack([proba >= t for t in grid])
    saved = est.threshold
    try:
        out = []
        for t in grid:
            est.threshold = float(t)
            out.append(np.asarray(est.predict(Xte)).astype(bool))
        return np.stack(out)
    finally:
        est.threshold = saved


def run(datasets, methods, log=print, grid=None):
    """Per (data set, method): own rule vs the rule; with ``grid``, also ``(rows, curve rows)``."""
    rows, curves = [], []
    for name in datasets:
        X, Y = load_training(name)
        folds = list(multilabel_kfold(Y, n_splits=3, random_state=0))
        log(f"== {name}: {X.shape[0]} training rows, {int((Y.sum(axis=1) == 0).sum())} of them empty")
        for key in methods:
            P, proba = np.zeros(Y.shape, dtype=bool), np.zeros(Y.shape)
            sweep = grid is not None and METHODS[key].tunes_threshold
            C = np.zeros((len(grid),) + Y.shape, dtype=bool) if sweep else None
            t0 = time.process_time()
            try:
                for tr, te in folds:
                    Xtr, Xte = scale_split(X[tr], X[te])
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est = _own_rule(METHODS[key].make()).fit(Xtr, Y[tr])
                        P[te], proba[te] = np.asarray(est.predict(Xte)).astype(bool), est.predict_proba(Xte)
                        if sweep:
                            C[:, te] = _curve(est, Xte, proba[te], grid)
            except Exception as exc:  # a method that refuses this shape: say so, go on
                log(f"  {key:8s} {type(exc).__name__}: {str(exc)[:90]}")
                continue
            f1, ham = micro_f1_hamming(Y, P)
            f1b, hamb = micro_f1_hamming(Y, at_least_one(proba, P))
            rows.append(dict(dataset=name, method=key, empty_predicted=float((~P.any(axis=1)).mean()),
                             micro_f1=f1, micro_f1_nonempty=f1b, hamming=ham, hamming_nonempty=hamb,
                             cpu_s=time.process_time() - t0))
            r = rows[-1]
            log(f"  {key:8s} empty {r['empty_predicted']:.3f}  micro-F1 {f1:.4f} -> {f1b:.4f}  "
                f"Hamming {ham:.4f} -> {hamb:.4f}  ({r['cpu_s']:.1f} s)")
            for t, Pt in zip(grid if sweep else (), C if sweep else ()):
                a, h = micro_f1_hamming(Y, Pt)
                b, hb = micro_f1_hamming(Y, at_least_one(proba, Pt))
                curves.append(dict(dataset=name, method=key, threshold=float(t), micro_f1=a, hamming=h,
                                   micro_f1_nonempty=b, hamming_nonempty=hb))
    df = pd.DataFrame(rows)
    return df if grid is None else (df, pd.DataFrame(curves))


def summarize_thresholds(curves, out=print):
    """Per method: the threshold of best mean rank of inner micro-F1 over the data sets, with and
    without the rule (ties: the threshold nearest 0.5), and its mean micro-F1; also the threshold of
    best mean micro-F1 and the mean micro-F1 at the registry default.

    Returns
    -------
    DataFrame, one row per method
    """
    rows = []
    for key, d in curves.groupby("method", sort=False):
        row = dict(method=key, sets=d.dataset.nunique(), default=float(METHODS[key].make().threshold))
        for col, tag in (("micro_f1", "own"), ("micro_f1_nonempty", "rule")):
            rank = d.groupby("dataset")[col].rank(ascending=False, method="average")
            m = d.assign(rank=rank).groupby("threshold").agg(rank=("rank", "mean"), f1=(col, "mean"))
            best = m[np.isclose(m["rank"], m["rank"].min())]
            t = float(best.index[np.argmin(np.abs(best.index.to_numpy() - 0.5))])
            at_default = m.f1.get(row["default"], np.nan)
            by_f1 = m.f1[np.isclose(m.f1, m.f1.max(), rtol=0, atol=1e-12)].index.to_numpy()
            row.update({f"best t ({tag})": t, f"mean F1 at best ({tag})": round(float(m.f1[t]), 4),
                        f"mean F1 at default ({tag})": round(float(at_default), 4),
                        f"best t by mean F1 ({tag})": float(by_f1[np.argmin(np.abs(by_f1 - 0.5))]),
                        f"best mean F1 ({tag})": round(float(m.f1.max()), 4)})
        rows.append(row)
    table = pd.DataFrame(rows).set_index("method")
    out("\nthreshold of best mean rank (inner 3-fold CV micro-F1, training halves), own rule vs the rule")
    out(table.to_string())
    return table


def summarize(df, out=print):
    """Per method: sets where the rule raises / lowers inner micro-F1, mean and worst change."""
    d = df.assign(df1=df.micro_f1_nonempty - df.micro_f1, dham=df.hamming_nonempty - df.hamming)
    g = d.groupby("method", sort=False)
    table = pd.DataFrame({"sets": g.size(), "F1 up": g.df1.apply(lambda s: int((s > 1e-12).sum())),
                          "F1 down": g.df1.apply(lambda s: int((s < -1e-12).sum())),
                          "mean dF1": g.df1.mean().round(4), "worst dF1": g.df1.min().round(4),
                          "best dF1": g.df1.max().round(4), "mean dHamming": g.dham.mean().round(4),
                          "mean empty share": g.empty_predicted.mean().round(3)})
    out("\nthe 'at least one label' rule vs each method's own predict (inner 3-fold CV, training halves)")
    out(table.to_string())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--methods", default=",".join(k for k in METHODS if k not in ("insdif", "gbt-br", "rf-br")))
    p.add_argument("--csv")
    p.add_argument("--thresholds", metavar="CSV", help="also sweep each model's threshold; write the curves here")
    args = p.parse_args(argv)
    grid = THRESHOLD_GRID if args.thresholds else None
    out = run(args.datasets.split(","), args.methods.split(","), grid=grid)
    df, curves = out if grid is not None else (out, None)
    if args.csv:
        df.to_csv(args.csv, index=False)
    summarize(df)
    if curves is not None:
        curves.to_csv(args.thresholds, index=False)
        summarize_thresholds(curves)
    return df


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
