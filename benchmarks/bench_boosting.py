"""Do gradient-boosted trees earn a dependency? (issue 27)

Gradient-boosted trees beside the forests mlviz already has, on the standard Mulan
train/test splits (``sample_data/NAME-{train,test}.arff.gz`` + ``NAME.xml``):

- ``rf-pct``: mlviz's ``RandomForestML`` at its registry defaults (the reference);
- ``hgb-br``: scikit-learn's ``HistGradientBoostingClassifier`` per label (no new dependency);
- ``lgbm-br``: LightGBM's ``LGBMClassifier`` per label (``lightgbm`` package);
- ``xgb-mo``: XGBoost with multi-output trees (``multi_strategy="multi_output_tree"``, one
  tree ensemble for all labels, the boosted analogue of RF-PCT; ``xgboost`` package);
- ``br-lr``: per-label scikit-learn ``LogisticRegression()``, only for the fit-time ratio.

Every method gets the same decision rule, chosen on the *training half only*: one global
threshold on its probabilities maximising pooled micro-F1 over 3 inner folds
(:func:`mlviz.evaluation.thresholds.choose_thresholds`), then a refit on the whole training
half, scored once on the test half. The pooled inner micro-F1 of every method at a few
thresholds is printed too (the evidence for a default threshold). Printed: micro-F1, Hamming
loss, the chosen threshold, fit seconds (wall, one thread each, ``n_jobs=1``; features scaled
as the app scales them) and the ratio to BR-LR in the same run.

A package that is not installed is reported as such and skipped.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_boosting.py [--datasets emotions,scene]
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from mlviz.data.samples import load_standard_split
from mlviz.evaluation.splits import multilabel_kfold
from mlviz.evaluation.thresholds import THRESHOLD_GRID, choose_thresholds, measure_from_counts, threshold_counts
from mlviz.metrics import evaluate
from mlviz.models._base import fit_per_label, proba_per_label
from mlviz.models.registry import get_method
from mlviz.preprocessing import default_scaling, make_scaler

DATASETS = ["emotions", "enron", "scene", "yeast"]
SEED = 0


class PerLabel:
    """One binary classifier per label (``mlviz.models._base.fit_per_label``)."""

    def __init__(self, make):
        self.make = make

    def fit(self, X, Y):
        self.models_ = fit_per_label(lambda l: self.make(), X, Y)
        return self

    def predict_proba(self, X):
        return proba_per_label(self.models_, X)


class XGBMultiOutput:
    """XGBoost with multi-output trees: one booster predicting every label."""

    def fit(self, X, Y):
        import xgboost

        self.model_ = xgboost.XGBClassifier(tree_method="hist", multi_strategy="multi_output_tree", n_estimators=100,
                                            n_jobs=1, random_state=SEED, verbosity=0)
        self.model_.fit(X, Y)
        return self

    def predict_proba(self, X):
        return np.asarray(self.model_.predict_proba(X))


def _lgbm():
    import lightgbm

    return lightgbm.LGBMClassifier(n_estimators=100, n_jobs=1, random_state=SEED, verbose=-1)


class Registry:
    """A registry method at its defaults (its probabilities; the rule is chosen as for the others)."""

    def __init__(self, key):
        self.key = key

    def fit(self, X, Y):
        self.model_ = get_method(self.key).make(random_state=SEED).set_params(n_jobs=1).fit(X, Y)
        return self

    def predict_proba(self, X):
        return self.model_.predict_proba(X)


METHODS = {
    "br-lr": lambda: PerLabel(lambda: LogisticRegression(max_iter=2000)),
    "rf-pct": lambda: Registry("rf-pct"),
    "hgb-br": lambda: PerLabel(lambda: HistGradientBoostingClassifier(max_iter=100, early_stopping=False,
                                                                      random_state=SEED)),
    "lgbm-br": lambda: PerLabel(_lgbm),
    "xgb-mo": XGBMultiOutput,
}


def _dense(X):
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X)


def run_one(name, key):
    train, test = load_standard_split(name)
    Xtr, Xte = _dense(train.X), _dense(test.X)
    scaler = make_scaler(default_scaling(train.X), sparse=False)  # as the app scales them
    if scaler is not None:
        Xtr, Xte = scaler.fit_transform(Xtr), scaler.transform(Xte)
    Ytr, Yte = _dense(train.Y), _dense(test.Y)
    counts, n = 0, 0
    for itr, ite in multilabel_kfold(Ytr, n_splits=3, random_state=SEED):
        P = METHODS[key]().fit(Xtr[itr], Ytr[itr]).predict_proba(Xtr[ite])
        counts = counts + threshold_counts(Ytr[ite], P)
        n += len(ite)
    t = float(THRESHOLD_GRID[choose_thresholds(counts, n)[0]])
    inner = measure_from_counts(counts, n, "micro_f1")  # pooled inner micro-F1 at every threshold of the grid
    start = time.perf_counter()
    model = METHODS[key]().fit(Xtr, Ytr)
    fit_s = time.perf_counter() - start
    scores = evaluate(Yte, model.predict_proba(Xte), threshold=t, measures=["micro_f1", "hamming_loss"])
    return scores["micro_f1"], scores["hamming_loss"], t, fit_s, inner


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--methods", default=",".join(METHODS))
    args = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    keys = args.methods.split(",")
    for name in args.datasets.split(","):
        print(f"\n== {name}")
        print(f"{'method':8} {'micro-F1':>8} {'Hamming':>8} {'t':>5} {'fit s':>7} {'/BR-LR':>7}")
        rows = {}
        for key in keys:
            try:
                rows[key] = run_one(name, key)
            except ImportError as exc:
                print(f"{key:8} skipped: {exc}")
        base = rows.get("br-lr", (0, 0, 0, np.nan))[3]
        for key, (f1, hl, t, s, _) in rows.items():
            print(f"{key:8} {f1:8.3f} {hl:8.4f} {t:5.2f} {s:7.2f} {s / base:7.1f}")
        shown = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5]
        print("pooled inner micro-F1 by threshold: " + " ".join(f"{t:>5}" for t in shown))
        for key, row in rows.items():
            cells = " ".join(f"{row[4][np.argmin(np.abs(THRESHOLD_GRID - t))]:5.3f}" for t in shown)
            print(f"{key:8} {'':26} {cells}")


if __name__ == "__main__":
    main()
