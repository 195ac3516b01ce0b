"""Seed spread of the randomised strong methods on the standard Mulan splits (issue 27).

The forests (``rf-pct``, ``et-pct``, ``rf-br``) and ECC are random: their test
micro-F1 and Hamming loss at ``random_state=0`` are one draw. This script fits
each of them at its registry defaults (``MethodSpec.make``; forests with
``n_jobs``, which does not change a prediction) with ``random_state`` = 0, 1,
…, ``--seeds`` − 1 on each standard training half (features scaled by
:func:`mlviz.preprocessing.scale_split`, fitted on the training half) and scores
the test half:

- micro-F1 and Hamming loss of the method's own ``predict`` (its default
  threshold 0.35 on the vote share / mean chain probability);
- Hamming loss and micro-F1 of ``predict_proba >= 0.5`` (the Bayes rule for
  Hamming loss if the probabilities were calibrated), labelled ``@0.5``.

It prints mean ± sd (ddof = 1) and min–max over the seeds beside the published
value of Bogatinovski et al. (2022, ESWA 203:117215; RF-PCT / RF-BR where the
study has the method, else RF-PCT's, marked) and whether the published value
lies inside the seed range [min, max]; and the fit time as a ratio to
BinaryRelevance of per-label ``LogisticRegression(C=1)`` (the fixed-split reference BR-LR)
fitted in the same run for the same seed. Nothing is chosen here: the test
half is only scored.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/seed_spread.py [--seeds 10] [--n-jobs 2]
        [--datasets emotions,scene] [--methods rf-pct,ecc] [--csv out.csv]
    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/seed_spread.py --summarize out.csv
"""

import argparse
import csv
import sys
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

from mlviz.data import load_standard_split
from mlviz.metrics import evaluate
from mlviz.models import BinaryRelevance
from mlviz.models.registry import METHODS
from mlviz.preprocessing import scale_split
from mlviz.reproductions.standard_splits import published

DATASETS = ("emotions", "enron", "scene", "yeast")
METHOD_KEYS = ("rf-pct", "et-pct", "rf-br", "ecc")
FORESTS = ("rf-pct", "et-pct", "rf-br")
#: registry key -> the study's method compared with (RF-PCT for the methods the study does not have)
STUDY = {"rf-pct": "RF-PCT", "et-pct": "RF-PCT", "rf-br": "RF-BR", "ecc": "RF-PCT"}
FIELDS = ("dataset", "method", "seed", "micro_f1", "hamming_loss", "micro_f1_at_05", "hamming_loss_at_05",
          "fit_seconds", "br_seconds")


def spread(values, reference):
    """Mean, sample sd, min, max of ``values`` and whether ``reference`` lies in [min, max].

    Parameters
    ----------
    values : sequence of float, length >= 1
    reference : float (NaN: no reference)

    Returns
    -------
    dict
        ``mean``, ``sd`` (ddof = 1; NaN for one value), ``min``, ``max``, ``inside`` (bool, or None
        without a reference).
    """
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        raise ValueError("spread needs at least one value")
    lo, hi = float(v.min()), float(v.max())
    inside = None if not np.isfinite(reference) else bool(lo <= reference <= hi)
    return dict(mean=float(v.mean()), sd=float(v.std(ddof=1)) if v.size > 1 else float("nan"),
                min=lo, max=hi, inside=inside)


def score(Y_true, P, Y_pred):
    """Micro-F1 and Hamming loss of ``Y_pred`` and of ``P >= 0.5``.

    Parameters
    ----------
    Y_true, Y_pred : ndarray, shape (n_samples, n_labels), 0/1
    P : ndarray, shape (n_samples, n_labels)
        P(y_l = 1 | x).

    Returns
    -------
    dict with ``micro_f1``, ``hamming_loss``, ``micro_f1_at_05``, ``hamming_loss_at_05``
    """
    own = evaluate(Y_true, P, y_pred=Y_pred, measures=["micro_f1", "hamming_loss"])
    half = evaluate(Y_true, P, threshold=0.5, measures=["micro_f1", "hamming_loss"])
    return dict(micro_f1=float(own["micro_f1"]), hamming_loss=float(own["hamming_loss"]),
                micro_f1_at_05=float(half["micro_f1"]), hamming_loss_at_05=float(half["hamming_loss"]))


def _fit(est, X, Y):
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, Y)
    return time.perf_counter() - t0


def run(datasets, methods, seeds, n_jobs, write):
    """Fit and score every (data set, seed, method); ``write(row)`` is called after each fit."""
    for name in datasets:
        train, test = load_standard_split(name)
        X_train, X_test = scale_split(train.X, test.X)
        Y_train, Y_test = np.asarray(train.Y), np.asarray(test.Y)
        for seed in seeds:
            br_s = _fit(BinaryRelevance(estimator=LogisticRegression(C=1.0, max_iter=2000)), X_train, Y_train)
            for key in methods:
                extra = {"n_jobs": n_jobs} if key in FORESTS else {}
                est = METHODS[key].make(random_state=seed, **extra)
                fit_s = _fit(est, X_train, Y_train)
                row = score(Y_test, est.predict_proba(X_test), est.predict(X_test))
                write(dict(dataset=name, method=key, seed=seed, fit_seconds=fit_s, br_seconds=br_s, **row))


def summarize(rows, out=print):
    """Print the per-(data set, method) spread table of ``rows`` (dicts with :data:`FIELDS`)."""
    out("n = seeds (random_state 0..n-1); 'in' = the published value lies in [min, max] of the seeds; "
        "publ.* = RF-PCT's (the study has no such method); 'met' = the seed mean is at least as good as the "
        "published value (micro-F1 >=, Hamming loss <=)")
    head = (f"{'data':9s}{'method':8s}{'n':>3s}{'micro-F1 mean ± sd':>19s} {'min–max':>12s} {'publ.':>6s} {'in':>3s} "
            f"{'Hamming mean ± sd':>19s} {'min–max':>14s} {'publ.':>6s} {'in':>3s} "
            f"{'Hamming@0.5 mean ± sd':>22s} {'min–max':>14s} {'in':>3s} {'F1@0.5':>7s} {'fit/BR-LR':>9s}"
            "  met (F1, Ham, Ham@0.5)")
    out(head)
    keys = []
    for r in rows:
        if (r["dataset"], r["method"]) not in keys:
            keys.append((r["dataset"], r["method"]))
    for name, key in keys:
        sel = [r for r in rows if r["dataset"] == name and r["method"] == key]
        col = {f: [float(r[f]) for r in sel] for f in FIELDS[3:]}
        pf, ph = (published(name, STUDY[key], m) for m in ("micro_f1", "hamming_loss"))
        star = "" if key in ("rf-pct", "rf-br") else "*"
        f, h, h5 = spread(col["micro_f1"], pf), spread(col["hamming_loss"], ph), spread(col["hamming_loss_at_05"], ph)
        ratio = np.mean(np.asarray(col["fit_seconds"]) / np.asarray(col["br_seconds"]))

        def yn(s):
            return "yes" if s["inside"] else "no"

        def ok(flag):
            return "met" if flag else "-"

        out(f"{name:9s}{key:8s}{len(sel):3d}{f['mean']:11.3f} ± {f['sd']:.3f} {f['min']:.3f}–{f['max']:.3f} "
            f"{pf:5.3f}{star:1s} "
            f"{yn(f):>3s} {h['mean']:10.4f} ± {h['sd']:.4f} {h['min']:.4f}–{h['max']:.4f} {ph:5.3f}{star:1s} "
            f"{yn(h):>3s} {h5['mean']:13.4f} ± {h5['sd']:.4f} {h5['min']:.4f}–{h5['max']:.4f} {yn(h5):>3s} "
            f"{np.mean(col['micro_f1_at_05']):7.3f} {ratio:9.1f}  {ok(f['mean'] >= pf)} {ok(h['mean'] <= ph)} "
            f"{ok(h5['mean'] <= ph)}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--n-jobs", type=int, default=2, help="forests' n_jobs (does not change a prediction)")
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--methods", default=",".join(METHOD_KEYS))
    p.add_argument("--csv", default=None, help="also append every (data set, method, seed) row to this CSV")
    p.add_argument("--summarize", default=None, help="only print the table of a CSV written by --csv")
    args = p.parse_args(argv)
    if args.summarize:
        with open(args.summarize, newline="") as fh:
            summarize(list(csv.DictReader(fh)))
        return
    rows = []
    fh = open(args.csv, "a", newline="") if args.csv else None
    writer = csv.DictWriter(fh, FIELDS) if fh else None
    if writer is not None and fh.tell() == 0:
        writer.writeheader()

    def write(row):
        rows.append(row)
        if writer is not None:
            writer.writerow(row)
            fh.flush()
        print(f"  {row['dataset']} {row['method']} seed {row['seed']}: micro-F1 {row['micro_f1']:.3f} "
              f"Hamming {row['hamming_loss']:.4f} (@0.5 {row['hamming_loss_at_05']:.4f}) "
              f"fit {row['fit_seconds']:.1f} s", file=sys.stderr, flush=True)

    run(args.datasets.split(","), args.methods.split(","), range(args.seeds), args.n_jobs, write)
    summarize(rows)


if __name__ == "__main__":
    main()
