"""The shared base learner: fit time of ``base="auto"`` against the linear base, and what auto picks at scale.

1. On the standard training files (``mlviz.data.load_standard_split``, default scaling fitted on the
   training file) BR, CC and LP from the method registry (``MethodSpec.make()``) are fitted with the
   default ``base="auto"`` and with ``base="lr"`` side by side in one run; printed: the base auto
   resolved to, the fit seconds of each and their ratio (timings on a shared machine are noisy; only
   the ratio within one run means anything).
2. For the shapes of ``benchmarks/bench_pages_scale.py`` (``dense-174``, ``sparse-159``,
   ``delicious-983``, ``mediamill-101``): the base ``base="auto"`` resolves to, decided up front from
   the shape and the density of X (:func:`mlviz.models._base_learner.resolve_base`; no fit).

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/bench_base.py [--datasets emotions,scene]
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))


def fit_times(datasets, methods=("br", "cc", "lp")):
    from mlviz.data import load_standard_split
    from mlviz.models._base_learner import resolve_base
    from mlviz.models.registry import METHODS
    from mlviz.preprocessing import scale_split

    rows = []
    for name in datasets:
        train, test = load_standard_split(name)
        Xtr, _ = scale_split(train.X, test.X, "auto")
        for key in methods:
            t = {}
            for base in ("auto", "lr"):
                est = METHODS[key].make(base=base)
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(Xtr, train.Y)
                t[base] = time.perf_counter() - t0
            rows.append({"dataset": name, "method": key, "auto →": resolve_base("auto", Xtr, train.n_labels)[0],
                         "auto s": round(t["auto"], 2), "lr s": round(t["lr"], 2),
                         "ratio auto / lr": round(t["auto"] / t["lr"], 1)})
    return pd.DataFrame(rows)


def scale_rule():
    import bench_pages_scale as bps

    from mlviz.models._base_learner import resolve_base

    rows = []
    for make in (bps.dense_174, bps.sparse_159, bps.delicious_983, bps.mediamill_101):
        ds = make()
        kind, reason = resolve_base("auto", ds.X, ds.n_labels)
        rows.append({"shape": ds.name, "rows": ds.n_samples, "features": ds.n_features, "labels": ds.n_labels,
                     "auto →": kind, "why": reason})
    return pd.DataFrame(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default="emotions,scene,yeast,enron")
    args = p.parse_args(argv)
    pd.set_option("display.width", 200)
    print(fit_times(args.datasets.split(",")).to_string(index=False))
    print()
    print(scale_rule().to_string(index=False))


if __name__ == "__main__":
    main()
