"""Can a forest default close the Hamming-loss gap? Inner CV on the training halves only (issue 27).

Hamming loss is minimised, label by label, by predicting y_l = 1 iff
P(y_l = 1 | x) >= 0.5 (the Bayes rule for a 0/1 loss per entry); micro-F1 wants
a lower threshold (the forests' default 0.35, benchmarks/RESULTS.md "strong
baselines on the standard splits"). For each forest setting below this script
computes the out-of-fold ``predict_proba`` of 3-fold iterative-stratified CV
(:func:`mlviz.evaluation.multilabel_kfold`, ``random_state=0``; features scaled
by :func:`mlviz.preprocessing.scale_split` fitted on each inner training fold)
of the standard *training* halves of emotions, enron, scene, yeast and of
medical's seeded training split, and scores every global threshold of
``THRESHOLDS`` on the pooled held-out rows: micro-F1 and Hamming loss. The test
halves are never read.

Printed per setting: inner micro-F1 at 0.35 (the default rule), inner Hamming
loss at 0.35 and at 0.5, the threshold of least inner Hamming loss, and the
number of sets on which the setting's Hamming loss at 0.5 beats the default's
(the first setting).

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/forest_hamming.py [--datasets emotions,yeast]
        [--settings rf,rf-300] [--n-jobs 2] [--csv out.csv]
    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/forest_hamming.py --summarize out.csv
"""

import argparse
import csv
import sys
import time
import warnings

import numpy as np
import pandas as pd

from mlviz.data import load_protocol_split
from mlviz.evaluation import multilabel_kfold
from mlviz.models.forest import RandomForestML
from mlviz.preprocessing import scale_split

DATASETS = ("emotions", "enron", "scene", "yeast", "medical")
THRESHOLDS = tuple(np.round(np.arange(0.25, 0.651, 0.05), 2))
#: setting name -> RandomForestML parameters (the first is the default)
SETTINGS = {
    "rf": {},
    "rf-300": {"n_estimators": 300},
    "rf-leaf3": {"min_samples_leaf": 3},
    "rf-leaf5": {"min_samples_leaf": 5},
    "et": {"kind": "extra"},
    "et-300": {"kind": "extra", "n_estimators": 300},
    "et-leaf3": {"kind": "extra", "min_samples_leaf": 3},
}


def threshold_curves(Y, P, thresholds):
    """Micro-F1 and Hamming loss of ``P >= t`` for each threshold t.

    Parameters
    ----------
    Y : ndarray, shape (n_samples, n_labels), 0/1
    P : ndarray, shape (n_samples, n_labels)
    thresholds : sequence of float

    Returns
    -------
    micro_f1, hamming : ndarray, shape (len(thresholds),)
        Micro-F1 = 2 TP / (2 TP + FP + FN) (1 when there is nothing to find or predict);
        Hamming loss = (FP + FN) / Y.size.
    """
    Y = np.asarray(Y).astype(bool)
    P = np.asarray(P, dtype=float)
    f1, ham = [], []
    for t in thresholds:
        pred = P >= t
        tp = np.sum(pred & Y)
        fp = np.sum(pred & ~Y)
        fn = np.sum(~pred & Y)
        den = 2 * tp + fp + fn
        f1.append(1.0 if den == 0 else 2 * tp / den)
        ham.append((fp + fn) / Y.size)
    return np.asarray(f1, dtype=float), np.asarray(ham, dtype=float)


def load_training(name):
    """Training half (X, Y) of a standard split, or of medical's seeded split."""
    train = load_protocol_split(name)[0]
    return train.X, np.asarray(train.Y)


def out_of_fold(X, Y, params, n_jobs, folds):
    """Pooled out-of-fold probabilities of ``RandomForestML(random_state=0, **params)`` and the fit seconds."""
    P = np.zeros(Y.shape)
    seconds = 0.0
    for tr, te in folds:
        Xtr, Xte = scale_split(X[tr], X[te])
        est = RandomForestML(random_state=0, n_jobs=n_jobs, **params)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(Xtr, Y[tr])
        seconds += time.perf_counter() - t0
        P[te] = est.predict_proba(Xte)
    return P, seconds


def summarize(rows, out=print):
    """Print the per-setting summary of rows (dataset, setting, threshold, micro_f1, hamming, seconds)."""
    df = pd.DataFrame(rows).astype({"threshold": float, "micro_f1": float, "hamming": float, "seconds": float})
    order = list(dict.fromkeys(df.setting))
    sets = list(dict.fromkeys(df.dataset))

    def at(t, col):
        part = df[np.isclose(df.threshold, t)]
        return part.pivot(index="setting", columns="dataset", values=col).loc[order, sets]

    pd.set_option("display.width", 200)
    out("inner micro-F1 at 0.35 (the default rule)")
    out(at(0.35, "micro_f1").round(3).to_string())
    out("\ninner Hamming loss at 0.35 (the default rule)")
    out(at(0.35, "hamming").round(4).to_string())
    h5 = at(0.5, "hamming")
    table = h5.round(4)
    table["sets better than first"] = (h5.lt(h5.iloc[0], axis=1)).sum(axis=1)
    out("\ninner Hamming loss at 0.5 (the Bayes rule for Hamming loss on calibrated probabilities)")
    out(table.to_string())
    best = df.loc[df.groupby(["setting", "dataset"]).hamming.idxmin()]
    out("\nthreshold of least inner Hamming loss (its Hamming loss)")
    cell = best.assign(cell=best.threshold.map("{:.2f}".format) + " (" + best.hamming.map("{:.4f}".format) + ")")
    out(cell.pivot(index="setting", columns="dataset", values="cell").loc[order, sets].to_string())
    f1best = df.loc[df.groupby(["setting", "dataset"]).micro_f1.idxmax()]
    cell = f1best.assign(cell=f1best.threshold.map("{:.2f}".format) + " (" + f1best.micro_f1.map("{:.3f}".format)
                         + ")")
    out("\nthreshold of largest inner micro-F1 (its micro-F1)")
    out(cell.pivot(index="setting", columns="dataset", values="cell").loc[order, sets].to_string())
    secs = at(0.35, "seconds")
    out("\nfit seconds of the 3 inner fits, ratio to the first setting (same run)")
    out((secs / secs.iloc[0]).round(2).to_string())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--settings", default=",".join(SETTINGS))
    p.add_argument("--n-jobs", type=int, default=2)
    p.add_argument("--csv", default=None)
    p.add_argument("--summarize", default=None)
    args = p.parse_args(argv)
    if args.summarize:
        with open(args.summarize, newline="") as fh:
            summarize(list(csv.DictReader(fh)))
        return
    fields = ("dataset", "setting", "threshold", "micro_f1", "hamming", "seconds")
    fh = open(args.csv, "a", newline="") if args.csv else None
    writer = csv.DictWriter(fh, fields) if fh else None
    if writer is not None and fh.tell() == 0:
        writer.writeheader()
    rows = []
    for name in args.datasets.split(","):
        X, Y = load_training(name)
        folds = multilabel_kfold(Y, n_splits=3, random_state=0)
        for setting in args.settings.split(","):
            P, seconds = out_of_fold(X, Y, SETTINGS[setting], args.n_jobs, folds)
            f1, ham = threshold_curves(Y, P, THRESHOLDS)
            for t, f, h in zip(THRESHOLDS, f1, ham):
                row = dict(dataset=name, setting=setting, threshold=float(t), micro_f1=float(f), hamming=float(h),
                           seconds=seconds)
                rows.append(row)
                if writer is not None:
                    writer.writerow(row)
            if fh is not None:
                fh.flush()
            print(f"  {name} {setting}: F1@0.35 {f1[2]:.3f}, Hamming@0.35 {ham[2]:.4f}, @0.5 {ham[5]:.4f}, "
                  f"{seconds:.1f} s", file=sys.stderr, flush=True)
    summarize(rows)


if __name__ == "__main__":
    main()
