"""Issue 14's bar for defaults, checked on every bundled data set.

For every CLI method with its defaults (``mlviz.cli.build_estimator``: default
hyperparameters, the default scaling ``auto``, ``random_state=0``) fitted on the
bundled train split and scored on its test split
(:func:`mlviz.data.load_sample_split`), this prints

- P@1 against ranking labels by their training frequency (the trivial ranking);
- Hamming loss of the method's own ``predict`` against 1.5 x BR-LR's and against
  predicting nothing;
- the decision rule that produced the labels, and ``converged_`` where the estimator has one
  (``-``: no iterative solver),

and flags every row that misses either bar.  Methods raising
:class:`mlviz.models.TooLargeError` are reported as such.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/check_defaults.py [--datasets emotions,yeast] [--methods br,mllem]
"""

import argparse
import time
import warnings

import numpy as np

from mlviz.cli import build_estimator
from mlviz.models.registry import METHODS
from mlviz.data import load_sample_split
from mlviz.metrics import evaluate
from mlviz.models import TooLargeError

DATASETS = ["emotions", "yeast", "scene", "enron", "medical"]
SKIP = {"cdn-lr", "cdn-cdn", "cdn-l1", "cdn-l21"}  # variants of "cdn": run with --methods


def frequency_p_at_1(Y_train, Y_test):
    """P@1 of ranking every test instance's labels by training frequency."""
    top = int(np.argmax(np.asarray(Y_train).sum(axis=0)))
    return float(np.asarray(Y_test)[:, top].mean())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--methods", default=",".join(m for m in METHODS if m not in SKIP))
    args = p.parse_args(argv)
    methods = args.methods.split(",")
    if "br" in methods:  # BR-LR first: the Hamming bar needs it
        methods = ["br"] + [m for m in methods if m != "br"]
    misses = 0
    for name in args.datasets.split(","):
        train, test = load_sample_split(name)
        p1_freq = frequency_p_at_1(train.Y, test.Y)
        ham_none = float(np.asarray(test.Y).mean())
        br_ham = None
        print(f"\n== {name}: {train.X.shape[0]} train / {test.X.shape[0]} test, {train.Y.shape[1]} labels; "
              f"frequency-ranking P@1 {p1_freq:.3f}, predicting-nothing Hamming {ham_none:.4f}")
        print(f"{'method':8s} {'P@1':>6s} {'Hamming':>8s} {'/BR':>5s} {'fit s':>7s}  flag  conv  decision rule")
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
            p1 = evaluate(test.Y, P, measures=["p@1"])["p@1"]
            ham = float(np.mean(Z != np.asarray(test.Y)))  # Hamming loss of the method's own predict
            if m == "br":
                br_ham = ham
            ratio = ham / br_ham if br_ham else float("nan")
            flag = []
            if p1 < p1_freq - 1e-12:
                flag.append("P@1<freq")
            if br_ham and ham > 1.5 * br_ham:
                flag.append("Ham>1.5xBR")
            misses += bool(flag)
            final = est.steps[-1][1] if hasattr(est, "steps") else est
            rule = getattr(final, "decision_rule_", "?")
            conv = {True: "yes", False: "NO"}.get(getattr(final, "converged_", None), "-")
            print(f"{m:8s} {p1:6.3f} {ham:8.4f} {ratio:5.2f} {seconds:7.1f}  {','.join(flag) or 'ok':4s}  {conv:4s}  "
                  f"{rule[:70]}")
    print(f"\nrows missing a bar: {misses}")


if __name__ == "__main__":
    main()
