"""Data-layer timings, side by side in one run (ratios, not absolute claims).

Usage: .venv/bin/python benchmarks/bench_data.py [--quick]

* load_arff (ours, liac-arff + validation/encoding) vs bare liac-arff decode
  and, for dense files, scipy.io.arff.loadarff (no sparse support);
* load_sample first call (parse) vs later calls (in-process cache + copy);
* load_libsvm (ours) vs sklearn.datasets.load_svmlight_file(multilabel=True);
* load_csv (ours) vs pandas.read_csv.
"""

import argparse
import gzip
import io
import sys
import tempfile
import time
from pathlib import Path

import arff as liac_arff
import pandas as pd
import scipy.io.arff as scipy_arff
from sklearn.datasets import load_svmlight_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mlviz.data import (  # noqa: E402
    load_arff, load_csv, load_libsvm, load_sample, save_csv, save_libsvm,
)
from mlviz.data.samples import SAMPLES, _cached, sample_dir  # noqa: E402


def best(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 1 if args.quick else 3
    names = ["emotions", "enron"] if args.quick else ["emotions", "scene-train", "yeast",
                                                      "enron", "medical"]
    root = sample_dir()
    print(f"{'data':12s} {'ours s':>8s} {'liac s':>8s} {'ours/liac':>9s} {'scipy s':>8s} "
          f"{'ours/scipy':>10s} {'cached s':>9s} {'parse/cached':>12s}")
    for name in names:
        arff_file, xml_file = SAMPLES[name]
        text = gzip.open(root / arff_file, "rt").read()
        ours = best(lambda: load_arff(root / arff_file, labels=root / xml_file), repeats)
        sparse = text.split("@data", 1)[-1].lstrip().startswith("{")
        kind = liac_arff.COO if sparse else liac_arff.DENSE
        liac = best(lambda: liac_arff.loads(text, return_type=kind), repeats)
        if sparse:
            scipy_s, ratio = float("nan"), "n/a (sparse)"
        else:
            scipy_s = best(lambda: scipy_arff.loadarff(io.StringIO(text)), repeats)
            ratio = f"{ours / scipy_s:.2f}"
        _cached.cache_clear()
        load_sample(name)
        cached = best(lambda: load_sample(name), max(repeats, 3))
        print(f"{name:12s} {ours:8.3f} {liac:8.3f} {ours / liac:9.2f} {scipy_s:8.3f} "
              f"{ratio:>10s} {cached:9.4f} {ours / cached:12.0f}")
    ds = load_sample("enron" if args.quick else "scene")
    with tempfile.TemporaryDirectory() as tmp:
        svm, csv = Path(tmp) / "d.svm", Path(tmp) / "d.csv"
        save_libsvm(ds, svm)
        save_csv(ds, csv)
        ours_svm = best(lambda: load_libsvm(svm), repeats)
        sk_svm = best(lambda: load_svmlight_file(str(svm), multilabel=True), repeats)
        ours_csv = best(lambda: load_csv(csv, label_columns=ds.label_names), repeats)
        pd_csv = best(lambda: pd.read_csv(csv), repeats)
    print(f"\nsvmlight ({ds.name}, {ds.n_samples}x{ds.n_features}): ours {ours_svm:.3f}s, "
          f"sklearn {sk_svm:.3f}s, ours/sklearn {ours_svm / sk_svm:.1f}")
    print(f"CSV      ({ds.name}): ours {ours_csv:.3f}s, pandas.read_csv {pd_csv:.3f}s, "
          f"ours/pandas {ours_csv / pd_csv:.1f}")


if __name__ == "__main__":
    main()
