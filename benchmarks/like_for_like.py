"""Like-for-like on the standard splits: BR, CC, LP, ML-kNN and the strongest methods, at their
defaults and with ``--tune``, beside the published values.

Protocol: the standard Mulan train/test files of emotions, enron, scene and yeast
(``mlviz.data.load_standard_split``); each method from the method registry (``MethodSpec.make()``,
the CLI's defaults), the default feature scaling (``auto``) fitted on the training file,
``random_state=0``; scored once on the test file with the method's own ``predict``. ``tuned``:
:func:`mlviz.evaluation.evaluate_split` with ``tune=True`` -- the registry grid and the decision
threshold (global / per label, :mod:`mlviz.evaluation.thresholds`) chosen by ``--inner-cv``-fold
CV of the training file only. The same numbers as, per data set,
``mlviz evaluate sample_data/NAME-train.arff.gz --test sample_data/NAME-test.arff.gz --methods ...
[--tune]``. Published: Bogatinovski et al. 2022 (ESWA 203:117215), micro-F1 and Hamming loss
(:data:`mlviz.reproductions.standard_splits.PUBLISHED`).

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/like_for_like.py \\
        [--datasets emotions,scene] [--methods br,cc,lp,mlknn,rf-pct,ecc] [--no-tune]
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd

METHODS = ["br", "cc", "lp", "mlknn", "rf-pct", "rf-br", "ecc"]
UNTUNED = {"rf-br"}  # one forest per label: its inner search costs ~7 fits of 15-80 s per set
DATASETS = ["emotions", "enron", "scene", "yeast"]


def run(datasets, methods, *, tune=True, inner_cv=3, log=print):
    from mlviz.data import load_standard_split
    from mlviz.evaluation import evaluate_split
    from mlviz.models.registry import METHODS as REGISTRY
    from mlviz.reproductions.standard_splits import LIKE_FOR_LIKE, published

    rows = []
    for name in datasets:
        train, test = load_standard_split(name)
        for key in methods:
            spec = REGISTRY[key]
            for setting in ("default", "tuned") if tune and key not in UNTUNED else ("default",):
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = evaluate_split({key: spec.make()}, train.X, train.Y, test.X, test.Y,
                                         measures=["micro_f1", "hamming_loss"], scaling="auto",
                                         tune=setting == "tuned", inner_cv=inner_cv, random_state=0)
                seconds = time.perf_counter() - t0
                vals = res.set_index("measure")["value"]
                pub = LIKE_FOR_LIKE.get(key, "")
                rows.append({"dataset": name, "method": key, "setting": setting,
                             "micro_f1": vals.get("micro_f1", np.nan),
                             "published": published(name, pub, "micro_f1") if pub else np.nan,
                             "hamming": vals.get("hamming_loss", np.nan),
                             "published_hamming": published(name, pub, "hamming_loss") if pub else np.nan,
                             "seconds": seconds, "tuned_params": res["tuned_params"].iloc[0],
                             "error": res["measure"].iloc[0] if res["measure"].iloc[0].startswith("error") else ""})
                log(f"{name} {key} {setting}: micro-F1 {rows[-1]['micro_f1']:.3f} ({seconds:.0f} s) "
                    f"{rows[-1]['tuned_params']}")
    return pd.DataFrame(rows)


def summary(table):
    """micro-F1: default / tuned / published / default − published per data set × method."""
    wide = table.pivot_table(index=["method", "dataset"], columns="setting", values="micro_f1", sort=False)
    pub = table.drop_duplicates(["method", "dataset"]).set_index(["method", "dataset"])["published"]
    wide["published"] = pub
    wide["default − publ."] = wide["default"] - wide["published"]
    if "tuned" in wide:
        wide["tuned − publ."] = wide["tuned"] - wide["published"]
    return wide.round(3)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--inner-cv", type=int, default=3)
    p.add_argument("--no-tune", action="store_true")
    p.add_argument("--csv")
    args = p.parse_args(argv)
    pd.set_option("display.width", 220)
    pd.set_option("display.max_colwidth", 90)
    table = run(args.datasets.split(","), args.methods.split(","), tune=not args.no_tune, inner_cv=args.inner_cv)
    if args.csv:
        table.to_csv(args.csv, index=False)
    print("\nmicro-F1 on the test files (published: Bogatinovski et al. 2022)")
    print(summary(table).to_string())
    tuned = table[table.setting == "tuned"]
    if len(tuned):
        print("\nchosen by inner CV of the training file (per data set)")
        print(tuned[["dataset", "method", "tuned_params", "seconds"]].to_string(index=False))
    return table


if __name__ == "__main__":
    main()
