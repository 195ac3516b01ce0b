"""Inner cross-validation on the standard *training* halves, for the defaults of issue 27's methods.

For each standard split (emotions, enron, scene, yeast) only the training half
is used: 3-fold ``KFold(shuffle=True, random_state=0)``, the scaling of
:func:`mlviz.preprocessing.default_scaling` fitted on each inner training fold,
micro-F1 of the pooled held-out folds. Printed per data set and as the mean
over the four, for

- ``rf-pct`` / ``rf-br``: ``max_features`` x the decision threshold on the vote share;
- ``cc``, ``clr``: C (units of 1 / mean ||x||²) at threshold 0.5 / their own rule;
- ``ecc``: bagging (bootstrap, all rows) against MEKA's 67 % subsample x the threshold.

The test halves are never read. Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/tune_ensembles.py [--only rf-pct,cc] [--datasets yeast]
"""

import argparse
import warnings

import numpy as np
import scipy.sparse as sp
from bench_ensembles import DATA, DATASETS
from sklearn.model_selection import KFold

from mlviz.data import load_dataset
from mlviz.metrics import evaluate
from mlviz.models.chains import CalibratedLabelRanking, ClassifierChain, EnsembleClassifierChains
from mlviz.models.forest import RandomForestBR, RandomForestML
from mlviz.preprocessing import default_scaling, make_scaler

THRESHOLDS = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
CS = (1.0, 3.0, 10.0, 30.0, 100.0)


def grids():
    """Name -> list of (setting label, factory, thresholds or None = the estimator's own predict)."""
    return {
        "rf-pct": [(f"max_features={mf}", lambda mf=mf: RandomForestML(max_features=mf, random_state=0), THRESHOLDS)
                   for mf in ("sqrt", "log2", 0.3)],
        "rf-br": [("max_features=sqrt", lambda: RandomForestBR(random_state=0), THRESHOLDS)],
        "cc": [(f"C={c:g}", lambda c=c: ClassifierChain(C=c), None) for c in CS],
        "clr": [(f"C={c:g}", lambda c=c: CalibratedLabelRanking(C=c), None) for c in CS],
        "ecc": [("bootstrap, 100 % rows", lambda: EnsembleClassifierChains(random_state=0), THRESHOLDS),
                ("no bootstrap, 67 % rows", lambda: EnsembleClassifierChains(bootstrap=False, max_samples=0.67,
                                                                             random_state=0), THRESHOLDS)],
    }


def inner_cv(X, Y, make, thresholds, folds=3):
    """Pooled held-out micro-F1 per threshold (or of ``predict``)."""
    P = np.zeros(Y.shape)
    Yp = np.zeros(Y.shape, dtype=np.uint8)
    for tr, te in KFold(folds, shuffle=True, random_state=0).split(np.zeros((Y.shape[0], 1))):
        scaler = make_scaler(default_scaling(X[tr]), sparse=sp.issparse(X))
        Xtr, Xte = (X[tr], X[te]) if scaler is None else (scaler.fit_transform(X[tr]), None)
        if scaler is not None:
            Xte = scaler.transform(X[te])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = make().fit(Xtr, Y[tr])
        P[te] = est.predict_proba(Xte)
        Yp[te] = est.predict(Xte)
    if thresholds is None:
        return {"own rule": evaluate(Y, P, y_pred=Yp, measures=["micro_f1"])["micro_f1"]}
    return {f"t={t:g}": evaluate(Y, P, threshold=t, measures=["micro_f1"])["micro_f1"] for t in thresholds}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", default=None)
    p.add_argument("--datasets", default=",".join(DATASETS))
    args = p.parse_args(argv)
    g = grids()
    names = args.only.split(",") if args.only else list(g)
    table = {}
    for ds in args.datasets.split(","):
        d = load_dataset(DATA / f"{ds}-train.arff.gz", labels=str(DATA / f"{ds}.xml"))
        for m in names:
            for label, make, thr in g[m]:
                for col, f1 in inner_cv(d.X, d.Y, make, thr).items():
                    table.setdefault((m, label, col), {})[ds] = f1
                    print(f"{ds:9s} {m:7s} {label:22s} {col:9s} micro-F1 {f1:.3f}", flush=True)
    print("\nmean inner-CV micro-F1 over the data sets (worst relative gap to the per-set best in brackets)")
    best = {}
    for (m, _, _), v in table.items():
        for ds, f1 in v.items():
            best[m, ds] = max(best.get((m, ds), 0.0), f1)
    for (m, label, col), v in table.items():
        gap = max(1.0 - f1 / best[m, ds] for ds, f1 in v.items())
        print(f"  {m:7s} {label:22s} {col:9s} {np.mean(list(v.values())):.3f}  (worst gap {100 * gap:.1f} %)")


if __name__ == "__main__":
    main()
