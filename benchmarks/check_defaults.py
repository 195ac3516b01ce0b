"""The bar for defaults, checked on every bundled data set against yardsticks that are not BR.

For every CLI method with its defaults (``mlviz.cli.build_estimator``: default
hyperparameters, the default scaling ``auto`` fitted on the training half,
``random_state=0``) fitted on the training half and scored on the test half --
the standard Mulan splits of emotions, enron, scene and yeast
(``sample_data/NAME-{train,test}.arff.gz``) and the seeded split of medical
(:func:`mlviz.data.load_sample_split`) -- this prints P@1, Hamming loss and
micro-F1 of the method's own ``predict``, the decision rule, and
``converged_`` where the estimator has one (``-``: no iterative solver), and
flags every row that misses a bar. The yardsticks are fixed, so a weak
baseline cannot lower them:

- the trivial references: P@1 of ranking labels by their training frequency
  (``P@1<freq``) and the Hamming loss of predicting nothing (``Ham>none``);
- a strong reference, scikit-learn's multi-output
  ``RandomForestClassifier(n_estimators=200, max_features="sqrt",
  random_state=0)`` on the unscaled features (one forest for all labels, the
  RF-PCT family that leads Bogatinovski et al. 2022): a method is flagged when
  its micro-F1 is below ``F1_FRACTION`` x the forest's (``F1<0.8xRF``) or its
  Hamming loss above ``HAMMING_FACTOR`` x the forest's (``Ham>1.5xRF``).

Methods raising :class:`mlviz.models.TooLargeError` are reported as such.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/check_defaults.py \\
        [--datasets emotions,yeast] [--methods br,mllem]
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from mlviz.cli import build_estimator
from mlviz.metrics import evaluate
from mlviz.models import TooLargeError
from mlviz.models.registry import METHODS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sweep_protocol import load_split  # the same splits as the defaults' evidence

DATASETS = ["emotions", "yeast", "scene", "enron", "medical"]
SKIP = {"cdn-lr", "cdn-cdn", "cdn-l1", "cdn-l21"}  # variants of "cdn": run with --methods
F1_FRACTION = 0.8
HAMMING_FACTOR = 1.5


def frequency_p_at_1(Y_train, Y_test):
    """P@1 of ranking every test instance's labels by training frequency."""
    top = int(np.argmax(np.asarray(Y_train).sum(axis=0)))
    return float(np.asarray(Y_test)[:, top].mean())


def forest_reference(X_train, Y_train, X_test):
    """(P(y_l = 1 | x), 0/1 prediction) of the fixed multi-output random forest; shapes (n_test, n_labels)."""
    from sklearn.ensemble import RandomForestClassifier

    rf = RandomForestClassifier(n_estimators=200, max_features="sqrt", random_state=0, n_jobs=1)
    rf.fit(X_train, np.asarray(Y_train))
    probas = rf.predict_proba(X_test)
    P = np.column_stack([p[:, list(c).index(1)] if 1 in c else np.zeros(X_test.shape[0])
                         for p, c in zip(probas, rf.classes_)])
    return P, (P > 0.5).astype(np.uint8)  # the forest's majority vote (a tie 0.5 predicts 0, as rf.predict)


def _scores(Y, P, Z):
    r = evaluate(Y, P, measures=["p@1", "micro_f1"], y_pred=Z)
    return r["p@1"], float(np.mean(Z != np.asarray(Y))), r["micro_f1"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--methods", default=",".join(m for m in METHODS if m not in SKIP))
    args = p.parse_args(argv)
    methods = args.methods.split(",")
    misses = 0
    for name in args.datasets.split(","):
        train, test = load_split(name)
        p1_freq = frequency_p_at_1(train.Y, test.Y)
        ham_none = float(np.asarray(test.Y).mean())
        t0 = time.perf_counter()
        rf_p1, rf_ham, rf_f1 = _scores(test.Y, *forest_reference(train.X, train.Y, test.X))
        rf_s = time.perf_counter() - t0
        print(f"\n== {name}: {train.X.shape[0]} train / {test.X.shape[0]} test, {train.Y.shape[1]} labels; "
              f"frequency-ranking P@1 {p1_freq:.3f}, predicting-nothing Hamming {ham_none:.4f}")
        print(f"{'method':8s} {'P@1':>6s} {'Hamming':>8s} {'/RF':>5s} {'micro-F1':>8s} {'/RF':>5s} {'fit s':>7s}  "
              "flag  conv  decision rule")
        print(f"{'RF ref':8s} {rf_p1:6.3f} {rf_ham:8.4f} {1:5.2f} {rf_f1:8.3f} {1:5.2f} {rf_s:7.1f}  ref   -     "
              "majority vote of RandomForestClassifier(200 trees, sqrt features, seed 0)")
        for m in methods:
            est = build_estimator(m, scaling="auto", X=train.X, random_state=0)
            t0 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(train.X, train.Y)
                    P = np.asarray(est.predict_proba(test.X))
                    Z = np.asarray(est.predict(test.X))
            except TooLargeError as exc:
                print(f"{m:8s} TooLargeError: {str(exc)[:120]}")
                continue
            seconds = time.perf_counter() - t0
            p1, ham, f1 = _scores(test.Y, P, Z)
            flag = []
            if p1 < p1_freq - 1e-12:
                flag.append("P@1<freq")
            if ham > ham_none + 1e-12:
                flag.append("Ham>none")
            if f1 < F1_FRACTION * rf_f1:
                flag.append(f"F1<{F1_FRACTION:g}xRF")
            if ham > HAMMING_FACTOR * rf_ham:
                flag.append(f"Ham>{HAMMING_FACTOR:g}xRF")
            misses += bool(flag)
            final = est.steps[-1][1] if hasattr(est, "steps") else est
            rule = getattr(final, "decision_rule_", "?")
            conv = {True: "yes", False: "NO"}.get(getattr(final, "converged_", None), "-")
            print(f"{m:8s} {p1:6.3f} {ham:8.4f} {ham / rf_ham:5.2f} {f1:8.3f} {f1 / rf_f1:5.2f} {seconds:7.1f}  "
                  f"{','.join(flag) or 'ok':4s}  {conv:4s}  {rule[:70]}")
    print(f"\nrows missing a bar: {misses}")


if __name__ == "__main__":
    main()
