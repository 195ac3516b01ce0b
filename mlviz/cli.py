"""The ``mlviz`` command line.

Usage
-----
``mlviz describe FILE [--labels XML]``
    Dataset statistics. FILE is a path (ARFF/CSV/LIBSVM/NPZ, optionally
    gzipped) or the name of a bundled sample (``emotions``, ``scene``, ...).
    For ``foo.arff[.gz]`` a sibling ``foo.xml`` is used when ``--labels`` is
    not given.
``mlviz evaluate FILE [--labels XML] --methods br,mlknn [--cv 5] [--out results.csv]
[--n-jobs N] [--random-state 0] [--measures ...] [--threshold 0.5|predict] [--baseline NAME]
[--no-scale]``
    Cross-validates the methods (iterative stratification), shows a tqdm
    bar on stderr, prints the mean ± std summary and a paired Wilcoxon
    comparison against the baseline (default: the first method) on stdout,
    and writes the long-form table to ``--out``. Features are standardised
    inside each training fold (``StandardScaler``; without centring for
    sparse data) unless ``--no-scale``.
``mlviz reproduce {lspc-toy,lspc-enron,cdn-tables,mlrh-table,mllem-ranking,all}... [--quick] [--out-dir DIR]``
    Runs paper-reproduction protocols, prints our numbers beside the
    paper's and merges them into ``DIR/reproductions.md`` and ``.csv``.
    Full runs write to ``docs/`` by default; ``--quick`` runs write only
    when ``--out-dir`` is given, so a quick run never overwrites the full
    report.

Exit codes: 0 success; 2 usage errors, missing file, unknown method,
unreadable data (message on stderr, no traceback); 1 when an evaluation or
reproduction produced nothing (or an experiment crashed).
"""

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

__all__ = ["main", "METHODS", "build_estimator"]

METHODS = {
    "mllspc": ("MLLSPC", "ML-LSPC (Nam et al.)"),
    "lspc": ("LSPC", "LSPC per label"),
    "mtlspc": ("MTLSPC", "multi-task LSPC"),
    "klr": ("KernelLogisticRegression", "kernel logistic regression per label"),
    "cdn": ("SparseCDN", "sparse conditional dependency network (Guo & Xue)"),
    "pcc": ("PCC", "probabilistic classifier chain"),
    "mllem": ("MLLEM", "MLLEM label-instance embedding (Kimura et al.)"),
    "mlrh": ("MLRH", "multi-label logistic regression with hidden variables (Lee & Shajari)"),
    "br": ("BinaryRelevance", "binary relevance, logistic regression"),
    "lp": ("LabelPowerset", "label powerset, multinomial logistic regression"),
    "mlknn": ("MLkNN", "ML-kNN (k=10)"),
}
"""CLI method name -> (class name in :mod:`mlviz.models`, description)."""

EXPERIMENT_CHOICES = ["lspc-toy", "lspc-enron", "cdn-tables", "mlrh-table", "mllem-ranking", "all"]


class CLIError(Exception):
    """A user-facing error: printed without traceback, exit code 2."""


def build_estimator(name, *, scale=False, sparse=False, random_state=None):
    """The default estimator for CLI method ``name`` (lazy import of its family).

    Raises
    ------
    CLIError
        Unknown name, or the method's module cannot be imported.
    """
    if name not in METHODS:
        raise CLIError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
    import mlviz.models as models

    cls_name = METHODS[name][0]
    try:
        cls = getattr(models, cls_name)
    except Exception as exc:  # ImportError, AttributeError, or an error inside the module
        raise CLIError(f"method {name!r} ({cls_name}) is not available: {type(exc).__name__}: {exc}") from None
    est = cls()
    if random_state is not None and "random_state" in est.get_params(deep=False):
        est.set_params(random_state=random_state)
    if scale:
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        est = make_pipeline(StandardScaler(with_mean=not sparse), est)
    return est


# ------------------------------------------------------------------ data
def _load(path, labels):
    from mlviz.data import DataError, list_samples, load_dataset, load_sample

    p = Path(path)
    try:
        if not p.exists():
            if labels is None and path in list_samples():
                return load_sample(path)
            raise CLIError(f"no such file: {path}")
        if p.is_dir():
            raise CLIError(f"{path} is a directory, expected a data file")
        if labels is None:
            stem = p.name[:-3] if p.name.endswith(".gz") else p.name
            if stem.lower().endswith(".arff"):
                xml = p.with_name(stem[:-5] + ".xml")
                if xml.exists():
                    labels = str(xml)
        elif isinstance(labels, str) and labels.isdigit():
            labels = int(labels)
        elif isinstance(labels, str) and not Path(labels).exists() and labels.lower().endswith(".xml"):
            raise CLIError(f"no such label file: {labels}")
        return load_dataset(str(p), labels=labels)
    except (DataError, OSError) as exc:
        raise CLIError(f"cannot read {path}: {exc}") from None


def _cmd_describe(args, out):
    from mlviz.data import describe, describe_frame

    ds = _load(args.file, args.labels)
    stats = describe(ds)
    print(describe_frame(stats).to_string(index=False), file=out)
    per_label = stats["label_frequency"].to_frame("positives")
    per_label["frequency"] = (per_label["positives"] / max(stats["n_samples"], 1)).round(4)
    per_label["IRLbl"] = stats["irlbl"].round(3)
    print("\nPer label:", file=out)
    print(per_label.to_string(), file=out)
    return 0


def _tqdm_progress(desc):
    from tqdm import tqdm

    bar = {"bar": None}

    def progress(done, total):
        if bar["bar"] is None:
            bar["bar"] = tqdm(total=total, desc=desc, file=sys.stderr, leave=False,
                              disable=os.environ.get("MLVIZ_NO_PROGRESS") == "1")
        bar["bar"].n = done
        bar["bar"].refresh()
        if done >= total:
            bar["bar"].close()

    return progress


def _split_list(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def _cmd_evaluate(args, out):
    import scipy.sparse as sp

    from mlviz.evaluation import cross_validate, error_rows, summarize
    from mlviz.metrics import DEFAULT_MEASURES, get_measure

    methods = _split_list(args.methods)
    if not methods:
        raise CLIError("--methods needs at least one method name")
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise CLIError(f"unknown method(s) {', '.join(map(repr, unknown))}; choose from {', '.join(METHODS)}")
    measures = _split_list(args.measures) if args.measures else list(DEFAULT_MEASURES)
    for m in measures:
        try:
            get_measure(m)
        except ValueError as exc:
            raise CLIError(str(exc)) from None
    if args.cv < 2:
        raise CLIError(f"--cv must be at least 2, got {args.cv}")
    if args.baseline is not None and args.baseline not in methods:
        raise CLIError(f"--baseline {args.baseline!r} is not one of --methods")
    ds = _load(args.file, args.labels)
    if args.cv > ds.n_samples:
        raise CLIError(f"--cv {args.cv} exceeds the number of instances ({ds.n_samples})")
    estimators, unavailable = {}, []
    for m in methods:
        try:
            estimators[m] = build_estimator(m, scale=not args.no_scale, sparse=sp.issparse(ds.X),
                                            random_state=args.random_state)
        except CLIError as exc:
            unavailable.append(str(exc))
            print(f"mlviz evaluate: {exc}", file=sys.stderr)
    if not estimators:
        raise CLIError("none of the requested methods is available")
    print(f"{ds.name}: {ds.n_samples} instances, {ds.n_features} features, {ds.n_labels} labels; "
          f"{args.cv}-fold iterative-stratified CV, seed {args.random_state}", file=out)
    results = cross_validate(estimators, ds.X, ds.Y, cv=args.cv, measures=measures,
                             threshold=args.threshold, n_jobs=args.n_jobs,
                             random_state=args.random_state,
                             progress=_tqdm_progress(f"evaluate {ds.name}"))
    baseline = args.baseline or next(iter(estimators))
    summary = summarize(results, baseline=baseline if len(estimators) > 1 else None)
    print(summary.to_string(), file=out)
    timing = results.drop_duplicates(["method", "fold"]).groupby("method", sort=False)[
        ["fit_seconds", "predict_seconds"]].mean()
    print("\nMean seconds per fold:\n" + timing.round(3).to_string(), file=out)
    if args.out:
        out_path = Path(args.out)
        if out_path.parent and not out_path.parent.exists():
            raise CLIError(f"cannot write {args.out}: directory {out_path.parent} does not exist")
        results.to_csv(out_path, index=False)
        print(f"\nwrote {len(results)} rows to {out_path}", file=out)
    n_err = len(error_rows(results))
    return 1 if n_err == len(results) else 0


def _cmd_reproduce(args, out, argv):
    import pandas as pd

    from mlviz.reproductions import EXPERIMENTS, get_experiment
    from mlviz.reproductions.report import format_table, write_report

    names = list(EXPERIMENTS) if "all" in args.experiments else list(dict.fromkeys(args.experiments))
    results, crashed = {}, []
    out_dir = args.out_dir if args.out_dir is not None else (None if args.quick else "docs")
    command = "mlviz " + " ".join(shlex.quote(a) for a in argv)
    for name in names:
        try:
            module = get_experiment(name)
        except ImportError as exc:
            print(f"mlviz reproduce: experiment {name!r} is not available yet ({exc})", file=sys.stderr)
            continue
        t0 = time.perf_counter()
        try:
            frame = module.run(quick=args.quick, random_state=args.random_state,
                               progress=_tqdm_progress(name))
        except Exception as exc:  # noqa: BLE001 -- report and go on with the others
            crashed.append(name)
            print(f"mlviz reproduce: experiment {name!r} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        seconds = time.perf_counter() - t0
        frame = pd.DataFrame(frame)
        results[name] = {"title": getattr(module, "TITLE", name), "protocol": getattr(module, "PROTOCOL", ""),
                         "frame": frame, "seconds": seconds}
        print(f"\n== {results[name]['title']} ({name}, {'quick' if args.quick else 'full'}, {seconds:.0f} s)",
              file=out)
        print(format_table(frame).to_string(index=False), file=out)
        if out_dir is not None:  # write after each experiment, so finished work survives an interruption
            md, csv = write_report({name: results[name]}, out_dir, command=command, quick=args.quick)
            print(f"updated {md} and {csv}", file=out)
        out.flush()
    if not results:
        print("mlviz reproduce: no experiment ran", file=sys.stderr)
        return 1
    if out_dir is None:
        print("\n(quick run: report not written; pass --out-dir to write it)", file=out)
    return 1 if crashed else 0


# ------------------------------------------------------------------ parser
def _threshold(text):
    if text == "predict":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1] or 'predict', got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1] or 'predict', got {text!r}")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own errors: usage + message, exit code 2
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser():
    """The argparse parser of ``mlviz``."""
    parser = _Parser(prog="mlviz", description="Multi-label learning: data statistics, "
                     "cross-validated comparisons and paper reproductions.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("describe", help="dataset statistics")
    p.add_argument("file", help="data file (ARFF/CSV/LIBSVM/NPZ, .gz ok) or a bundled sample name")
    p.add_argument("--labels", help="Mulan XML label file, or a label count")

    p = sub.add_parser("evaluate", help="cross-validate methods on a data set")
    p.add_argument("file", help="data file or bundled sample name")
    p.add_argument("--labels", help="Mulan XML label file, or a label count")
    p.add_argument("--methods", default="br,mlknn",
                   help=f"comma-separated, from: {','.join(METHODS)} (default br,mlknn)")
    p.add_argument("--cv", type=int, default=5, help="number of folds (default 5)")
    p.add_argument("--out", help="write the long-form results CSV here")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel jobs (joblib; default 1)")
    p.add_argument("--random-state", type=int, default=0, help="seed for folds and models (default 0)")
    p.add_argument("--measures", help="comma-separated measure keys (default: mlviz.metrics.DEFAULT_MEASURES)")
    p.add_argument("--threshold", type=_threshold, default=0.5,
                   help="probability threshold for label-based measures (default 0.5), or 'predict' "
                   "to use each method's own decision rule (e.g. MLLEM rank cut, MLRH winner-take-all)")
    p.add_argument("--baseline", help="method for the paired comparison (default: the first)")
    p.add_argument("--no-scale", action="store_true", help="do not standardise features")

    p = sub.add_parser("reproduce", help="run paper-reproduction protocols and write the report")
    p.add_argument("experiments", nargs="+", choices=EXPERIMENT_CHOICES, metavar="EXPERIMENT",
                   help=f"one or more of {', '.join(EXPERIMENT_CHOICES)}")
    p.add_argument("--quick", action="store_true", help="reduced protocol (about a minute)")
    p.add_argument("--out-dir", help="where to write reproductions.md/.csv "
                   "(default: docs for full runs; quick runs write only when given)")
    p.add_argument("--random-state", type=int, default=0)
    return parser


def main(argv=None):
    """Entry point of the ``mlviz`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return int(exc.code or 0)
    out = sys.stdout
    try:
        if args.command == "describe":
            return _cmd_describe(args, out)
        if args.command == "evaluate":
            if args.n_jobs == 0:
                raise CLIError("--n-jobs must be a non-zero integer")
            return _cmd_evaluate(args, out)
        return _cmd_reproduce(args, out, argv)
    except CLIError as exc:
        print(f"mlviz {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mlviz: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
