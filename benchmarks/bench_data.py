"""Data-layer timings, side by side in one run (ratios, not absolute claims).

Usage: .venv/bin/python benchmarks/bench_data.py [--quick] [--isolated] [--hostile]

* load_arff (ours, liac-arff + validation/encoding) vs bare liac-arff decode
  and, for dense files, scipy.io.arff.loadarff (no sparse support);
* load_sample first call (parse) vs later calls (in-process cache + copy);
* load_libsvm (ours) vs sklearn.datasets.load_svmlight_file(multilabel=True);
* load_csv (ours) vs pandas.read_csv.

``--isolated``: added latency of ``load_dataset_isolated`` (worker process)
over ``load_dataset`` for normal uploads, side by side, with the worker's
peak RSS.  ``--hostile``: the hostile corpus of ``tests/hostile.py`` at the
default limits (``MLVIZ_*``), through ``load_dataset`` (time, tracemalloc
peak) and ``load_dataset_isolated`` (time, worker peak RSS); also shows that
an unchecked out-of-range CSR crashes a plain Python process (the bug the
validation fixes).
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
    load_arff,
    load_csv,
    load_libsvm,
    load_sample,
    save_csv,
    save_libsvm,
)
from mlviz.data.samples import SAMPLES, _cached, sample_dir  # noqa: E402


def best(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _named(path_or_bytes, name=None):
    data = Path(path_or_bytes).read_bytes() if name is None else path_or_bytes
    buf = io.BytesIO(data)
    buf.name = name or Path(path_or_bytes).name
    return buf


def bench_isolated(repeats):
    """Median wall time of load_dataset vs load_dataset_isolated (spare worker warm)."""
    import statistics

    from mlviz.data import load_dataset, load_dataset_isolated, warm_up

    root = sample_dir()
    warm_up()
    time.sleep(3)
    print(f"{'upload':22s} {'in-process s':>12s} {'isolated s':>10s} {'added s':>8s} "
          f"{'worker peak MB':>14s}")
    for arff_file, xml_file in (("emotions.arff.gz", "emotions.xml"),
                                ("scene-train.arff.gz", "scene.xml"),
                                ("scene-test.arff.gz", "scene.xml"),
                                ("enron.arff.gz", "enron.xml")):
        local, iso, peaks = [], [], []
        for _ in range(repeats):
            start = time.perf_counter()
            load_dataset(_named(root / arff_file), labels=_named(root / xml_file))
            local.append(time.perf_counter() - start)
            report = {}
            start = time.perf_counter()
            load_dataset_isolated(_named(root / arff_file), labels=_named(root / xml_file),
                                  report=report)
            iso.append(time.perf_counter() - start)
            peaks.append(report["peak_rss_bytes"] / 2 ** 20)
            time.sleep(2.5)  # let the next spare worker finish its imports
        a, b = statistics.median(local), statistics.median(iso)
        print(f"{arff_file:22s} {a:12.3f} {b:10.3f} {b - a:8.3f} {max(peaks):14.0f}")


def _mulan_like_sparse_arff(n, d, L, feat_per_row, labels_per_row, seed=0):
    """Sparse ARFF + XML bytes shaped like a Mulan text set (binary features, labels last)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    head = ["@relation synthetic"] + [f"@attribute w{j} {{0,1}}" for j in range(d)] \
        + [f"@attribute TAG_{k}\\'x {{0,1}}" for k in range(L)] + ["@data"]
    rows = []
    for _ in range(n):
        f = np.sort(rng.choice(d, size=feat_per_row, replace=False))
        y = np.sort(rng.choice(L, size=labels_per_row, replace=False)) + d
        rows.append("{" + ",".join(f"{j} 1" for j in np.concatenate([f, y])) + "}")
    xml = "<labels>" + "".join(f'<label name="TAG_{k}\\\'x"/>' for k in range(L)) + "</labels>"
    return ("\n".join(head + rows) + "\n").encode(), xml.encode()


def bench_scale():
    """Synthetic delicious- and bibtex-shaped uploads: in-process vs worker, worker peak RSS."""
    from mlviz.data import load_dataset, load_dataset_isolated, warm_up

    warm_up()
    print(f"\n{'synthetic upload':34s} {'MB':>5s} {'in-process s':>12s} {'isolated s':>10s} "
          f"{'worker peak MB':>14s}")
    for label, shape in (("bibtex-like 7395x1836, 159 labels", (7395, 1836, 159, 68, 2)),
                         ("delicious-like 16105x500, 983 labels", (16105, 500, 983, 18, 19))):
        data, xml = _mulan_like_sparse_arff(*shape)
        time.sleep(3)
        start = time.perf_counter()
        a = load_dataset(_named(data, "s.arff"), labels=_named(xml, "s.xml"))
        local = time.perf_counter() - start
        report = {}
        start = time.perf_counter()
        b = load_dataset_isolated(_named(data, "s.arff"), labels=_named(xml, "s.xml"),
                                  report=report)
        iso = time.perf_counter() - start
        assert (a.X != b.X).nnz == 0 and (a.Y == b.Y).all() and a.label_names == b.label_names
        print(f"{label:34s} {len(data) / 2 ** 20:5.1f} {local:12.2f} {iso:10.2f} "
              f"{report['peak_rss_bytes'] / 2 ** 20:14.0f}")


def bench_hostile():
    """The hostile corpus at the default limits: time and peak memory per case."""
    import subprocess
    import tracemalloc

    from mlviz.data import DataError, Limits, load_dataset, load_dataset_isolated

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from hostile import cases

    crash = ("import numpy as np, scipy.sparse as sp\n"
             "X = sp.csr_matrix((np.ones(2), np.array([0, 10**9]), np.array([0, 1, 2])), "
             "shape=(2, 3))\nprint((X @ np.ones(3)).sum())")
    code = subprocess.run([sys.executable, "-c", crash], capture_output=True).returncode
    print(f"unchecked CSR with an out-of-range index, X @ v in a plain process: exit status "
          f"{code} (negative = killed by signal {-code if code < 0 else ''})\n")
    limits = Limits.from_env()
    print(f"limits: {limits}\n")
    start = time.perf_counter()
    corpus = cases(limits)
    print(f"corpus of {len(corpus)} cases generated in {time.perf_counter() - start:.1f} s\n")
    print(f"{'case':32s} {'file kB':>8s} {'local s':>8s} {'local peak MB':>13s} "
          f"{'worker s':>8s} {'worker peak MB':>14s}  ok")
    worst = [0.0, 0.0, 0.0, 0.0]
    for case in corpus:
        xml = None if case.xml is None else (case.xml, case.xml_filename)
        tracemalloc.start()
        start = time.perf_counter()
        try:
            load_dataset(_named(case.data, case.filename),
                         labels=None if xml is None else _named(*xml), limits=limits)
            local_ok = False
        except DataError as exc:
            local_ok = bool(__import__("re").search(case.match, str(exc)))
        local_s = time.perf_counter() - start
        local_peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
        tracemalloc.stop()
        report = {}
        start = time.perf_counter()
        try:
            load_dataset_isolated(_named(case.data, case.filename),
                                  labels=None if xml is None else _named(*xml), limits=limits,
                                  report=report)
            iso_ok = False
        except DataError as exc:
            iso_ok = bool(__import__("re").search(case.match, str(exc)))
        iso_s = time.perf_counter() - start
        iso_peak = (report.get("peak_rss_bytes") or 0) / 2 ** 20
        time.sleep(2.5)  # uploads are seconds apart: let the next spare worker import
        worst = [max(worst[0], local_s), max(worst[1], local_peak), max(worst[2], iso_s),
                 max(worst[3], iso_peak)]
        print(f"{case.name:32s} {len(case.data) / 1024:8.0f} {local_s:8.3f} {local_peak:13.1f} "
              f"{iso_s:8.3f} {iso_peak:14.0f}  {'yes' if local_ok and iso_ok else 'NO'}")
    print(f"\nworst: local {worst[0]:.2f} s, {worst[1]:.0f} MB traced; worker {worst[2]:.2f} s, "
          f"{worst[3]:.0f} MB peak RSS")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--isolated", action="store_true", help="worker-process latency only")
    parser.add_argument("--hostile", action="store_true", help="hostile corpus only")
    args = parser.parse_args()
    if args.isolated or args.hostile:
        if args.isolated:
            bench_isolated(1 if args.quick else 5)
            bench_scale()
        if args.hostile:
            bench_hostile()
        return
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
