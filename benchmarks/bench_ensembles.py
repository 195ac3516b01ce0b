"""The strong multi-label methods on the standard Mulan train/test splits (issue 27).

For each bundled standard split (``sample_data/NAME-{train,test}.arff.gz`` with
``NAME.xml``: emotions, enron, scene, yeast) the features are scaled as
:func:`mlviz.preprocessing.default_scaling` chooses, fitted on the training
half; every method is fitted on the training half at its method-registry
defaults (``METHODS[key].make()``: what the CLI and the dashboard fit, seed 0)
and scored on the test half with its own ``predict``.
Printed: micro-F1, Hamming loss, subset accuracy, fit seconds and the fit time
as a ratio to BinaryRelevance of per-label LogisticRegression (C = 1, the fixed-split
reference BR-LR) fitted in the same run, and the published micro-F1 of
Bogatinovski et al. (2022, Expert Systems with Applications 203:117215) on the
same splits where the paper has the method.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_ensembles.py [--quick] [--datasets emotions,scene]
        [--methods rf-pct,cc]

``--quick``: emotions and scene only, 30 trees / 3 chains. ``--svm``: also BR, CC
and CLR with an RBF-kernel SVM base learner (``SVC()`` defaults, untuned).
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

from mlviz.data import load_standard_split
from mlviz.metrics import evaluate
from mlviz.models import BinaryRelevance, TooLargeError
from mlviz.models.chains import CalibratedLabelRanking, ClassifierChain
from mlviz.models.registry import METHODS
from mlviz.preprocessing import default_scaling, scale_split

DATASETS = ["emotions", "enron", "scene", "yeast"]

#: published micro-F1 on the standard splits (Bogatinovski et al. 2022, ESWA 203:117215)
PUBLISHED = {
    "br": {"emotions": 0.685, "enron": 0.421, "scene": 0.741, "yeast": 0.601},
    "rf-pct": {"emotions": 0.719, "enron": 0.602, "scene": 0.762, "yeast": 0.682},
    "rf-br": {"emotions": 0.714, "enron": 0.605, "scene": 0.760, "yeast": 0.675},
    "cc": {"emotions": 0.692, "enron": 0.489, "scene": 0.768, "yeast": 0.589},
    "clr": {"scene": 0.792},
}
for _m in ("br", "cc", "clr"):
    PUBLISHED[_m + "-svm"] = PUBLISHED[_m]


def methods(quick):
    """Method name -> factory of the estimator at its registry defaults (``--quick``: fewer trees / chains)."""
    smaller = {"rf-pct": {"n_estimators": 30}, "et-pct": {"n_estimators": 30}, "rf-br": {"n_estimators": 30},
               "ecc": {"n_chains": 3}} if quick else {}
    out = {"br": lambda: BinaryRelevance(estimator=LogisticRegression(C=1.0, max_iter=2000))}
    for key in ("rf-pct", "et-pct", "rf-br", "gbt-br", "cc", "ecc", "rakel", "clr"):
        out[key] = lambda key=key: METHODS[key].make(**smaller.get(key, {}))
    return out


def svm_methods():
    """``--svm``: BR, CC and CLR with an RBF-kernel SVM base learner (scikit-learn's ``SVC()`` defaults,
    C = 1, gamma = "scale"; untuned), the kind of base learner the published BR / CC / CLR used."""
    from sklearn.svm import SVC

    return {
        "br-svm": lambda: BinaryRelevance(SVC()),
        "cc-svm": lambda: ClassifierChain(estimator=SVC()),
        "clr-svm": lambda: CalibratedLabelRanking(estimator=SVC()),
    }


def load_split(name):
    """Scaled (train X, train Y, test X, test Y, scaling name) of a standard split."""
    train, test = load_standard_split(name)
    Xtr, Xte = scale_split(train.X, test.X)
    return Xtr, train.Y, Xte, test.Y, default_scaling(train.X)


def run(name, factories, out=print):
    Xtr, Ytr, Xte, Yte, scaling = load_split(name)
    out(f"\n== {name}: {Xtr.shape[0]} train / {Xte.shape[0]} test, {Xtr.shape[1]} features, "
        f"{Ytr.shape[1]} labels, scaling {scaling}")
    out(f"{'method':8s} {'micro-F1':>8s} {'publ.':>6s} {'Hamming':>8s} {'subset':>7s} {'fit s':>7s} "
        f"{'/BR-LR':>7s}  decision rule")
    rows, br_time = [], None
    for key, make in factories.items():
        est = make()
        try:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(Xtr, Ytr)
            fit_s = time.perf_counter() - t0
        except TooLargeError as err:
            out(f"{key:8s} too large: {err}")
            continue
        P = est.predict_proba(Xte)
        Yp = est.predict(Xte)
        res = evaluate(Yte, P, y_pred=Yp, measures=["micro_f1", "hamming_loss", "subset_accuracy"])
        if key == "br":
            br_time = fit_s
        ratio = fit_s / br_time if br_time else float("nan")
        pub = PUBLISHED.get(key, {}).get(name)
        pub_s = f"{pub:.3f}" if pub is not None else "-"
        out(f"{key:8s} {res['micro_f1']:8.3f} {pub_s:>6s} {res['hamming_loss']:8.4f} "
            f"{res['subset_accuracy']:7.3f} {fit_s:7.2f} {ratio:7.1f}  {est.decision_rule_}")
        rows.append((name, key, res["micro_f1"], res["hamming_loss"], fit_s, ratio))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="emotions and scene, 30 trees, 3 chains")
    p.add_argument("--datasets", default=None)
    p.add_argument("--methods", default=None, help="comma list (br is always run first, for the ratio)")
    p.add_argument("--svm", action="store_true", help="also BR, CC and CLR with an RBF SVM base learner")
    args = p.parse_args(argv)
    factories = methods(args.quick)
    if args.svm:
        factories.update(svm_methods())
    if args.methods:
        keep = ["br"] + [m for m in args.methods.split(",") if m != "br"]
        factories = {k: factories[k] for k in keep}
    names = args.datasets.split(",") if args.datasets else (["emotions", "scene"] if args.quick else DATASETS)
    rows = []
    for name in names:
        rows += run(name, factories)
    print("\nmean over data sets:  method  micro-F1  Hamming  fit/BR-LR")
    for key in factories:
        sel = [r for r in rows if r[1] == key]
        if sel:
            print(f"  {key:8s} {np.mean([r[2] for r in sel]):.3f}  {np.mean([r[3] for r in sel]):.4f}  "
                  f"{np.mean([r[5] for r in sel]):.1f}")


if __name__ == "__main__":
    main()
