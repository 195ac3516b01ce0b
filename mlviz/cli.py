"""The ``mlviz`` command line.

Usage
-----
``mlviz describe FILE [--labels XML|N|-N]``
    Dataset statistics and the loader's notes (which XML was used, one-hot
    encodings, dropped ID columns). FILE is a path (ARFF/CSV/LIBSVM/NPZ,
    optionally gzipped) or the name of a bundled sample (``emotions``,
    ``scene``, ...). For ``foo.arff[.gz]`` a sibling ``foo.xml`` is used when
    ``--labels`` is not given (for ``foo-train.arff``/``foo-test.arff`` also
    ``foo.xml``). ``--labels 7`` means the first 7 attributes
    are labels (MEKA), ``--labels -7`` the last 7 (CSV/LIBSVM: a count of
    label columns).
``mlviz evaluate FILE [--labels ...] --methods br,mlknn [--cv 5] [--out results.csv]
[--n-jobs N] [--random-state 0] [--measures ...] [--threshold predict|0.5]
[--scaling auto|standard|l2|tfidf|maxabs|none] [--tune [--inner-cv 3]] [--baseline NAME]``
    Cross-validates the methods (iterative stratification), shows a tqdm
    bar on stderr, prints, per method, the decision rule and the feature
    scaling that produced the numbers, the mean ± std summary with two
    trivial reference rows (``ref: rank by training frequency``: its P@1;
    ``ref: predict nothing``: its Hamming loss and subset accuracy; both per
    training fold), a footnote for every method whose P@1 is below the first
    or whose Hamming loss is above the second or above 1.5× BR-LR's (when
    ``br`` is in the run), saying which bar it misses and why that can
    happen, and a paired Wilcoxon comparison against the baseline (default:
    the first method) on stdout, and writes the long-form table (reference
    rows included) to ``--out``. Labels are decided
    by each method's own ``predict`` unless ``--threshold`` gives a number.
    Features are scaled inside each training fold by ``--scaling`` (default
    ``auto``: L2-normalised rows for sparse/count features, standardised
    features otherwise; see :mod:`mlviz.preprocessing`). ``--tune`` chooses
    each method's key hyperparameters by inner cross-validation within each
    training fold (nested CV), with a global or per-label decision threshold
    for every method whose rule is a probability threshold
    (:mod:`mlviz.evaluation.thresholds`), and prints what it chose and what it cost.
    The sparse CDN's variants are the methods ``cdn`` (sparse, the paper's),
    ``cdn-lr``, ``cdn-cdn``, ``cdn-l1`` and ``cdn-l21``.
``mlviz evaluate TRAIN --test TEST [--labels XML] [same options]``
    The standard protocol of multi-label benchmarks: fits every method on
    TRAIN and scores it once on TEST (:func:`mlviz.evaluation.evaluate_split`),
    with the same tables (how the numbers were made, the summary with the
    reference rows and footnotes, seconds) and the same ``--out`` CSV (one
    "fold", ``fold`` = 0). Scaling and ``--tune`` use TRAIN only. Without
    ``--labels``, ``NAME.xml`` beside ``NAME-train.arff[.gz]`` /
    ``NAME-test.arff[.gz]`` is found too. TEST must have TRAIN's features and
    labels (same names, same order).
``mlviz reproduce {lspc-toy,lspc-enron,cdn-tables,mlrh-table,mllem-ranking,reference-check,all}...``
``[--quick] [--out-dir DIR]``
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
import re
import shlex
import sys
import time
from pathlib import Path

from mlviz.models.registry import METHODS
from mlviz.reproductions import EXPERIMENTS

__all__ = ["main", "build_estimator"]

ERROR_LIMIT = 300
"""Longest error message the CLI prints (characters; longer ones are cut with "…")."""

SCALING_CHOICES = ["standard", "l2", "tfidf", "maxabs", "none"]

EXPERIMENT_CHOICES = [*EXPERIMENTS, "all"]


class CLIError(Exception):
    """A user-facing error: printed without traceback, exit code 2."""


def build_estimator(name, *, scaling=None, X=None, random_state=None):
    """The default estimator for CLI method ``name`` (lazy import of its family).

    Parameters
    ----------
    name : str
        A method of the registry (:data:`mlviz.models.registry.METHODS`).
    scaling : str or None
        A scaling of :mod:`mlviz.preprocessing` (``"auto"`` needs ``X``) put in
        front of the estimator in a Pipeline; None or ``"none"``: no scaling.
    X : array-like or sparse, optional
        The data, to choose and check the scaling.
    random_state : int or None

    Raises
    ------
    CLIError
        Unknown name, or the method's module cannot be imported.
    """
    if name not in METHODS:
        raise CLIError(f"unknown method {name!r}; choose from {', '.join(METHODS)}")
    spec = METHODS[name]
    try:
        est = spec.make()
    except Exception as exc:  # ImportError, AttributeError, or an error inside the module
        raise CLIError(f"method {name!r} ({spec.estimator}) is not available: {type(exc).__name__}: {exc}") from None
    if random_state is not None and "random_state" in est.get_params(deep=False):
        est.set_params(random_state=random_state)
    if scaling is not None:
        from mlviz.preprocessing import with_scaling

        try:
            est = with_scaling(est, scaling, X if X is not None else [[0.0]])
        except ValueError as exc:
            raise CLIError(str(exc)) from None
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
            labels = _sibling_labels(p)
        elif isinstance(labels, str) and re.fullmatch(r"[+-]?\d+", labels.strip()):
            labels = _label_count(int(labels), p)
        elif isinstance(labels, str) and labels.lower().endswith(".xml"):
            if not Path(labels).exists():
                raise CLIError(f"no such label file: {labels}")
        elif isinstance(labels, str) and "," in labels:
            labels = _split_list(labels)
        return load_dataset(str(p), labels=labels)
    except (DataError, OSError) as exc:
        raise CLIError(_read_error(path, exc)) from None


def _label_count(n, path):
    """``--labels N``: ARFF keeps the sign (MEKA: N first / -N last attributes);
    CSV and LIBSVM take a count of label columns (trailing), so -N means N."""
    if n == 0:
        raise CLIError("--labels must be a non-zero count (N: first N attributes, -N: last N)")
    stem = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
    return n if stem.lower().endswith(".arff") else abs(n)


def _read_error(path, exc):
    """One short line: the loader's message (which names the file already), else "cannot read FILE: ..."."""
    from mlviz._text import printable, shorten

    path = printable(path)
    message = " ".join(str(exc).split())
    name = Path(path).name
    if isinstance(exc, OSError) and getattr(exc, "strerror", None):
        message = exc.strerror
    if name and name in message:
        text = f"cannot read: {message}"
    else:
        text = f"cannot read {shorten(path, 80)}: {message}"
    return shorten(text, ERROR_LIMIT)


def _cmd_describe(args, out):
    from mlviz.data import describe, describe_frame

    ds = _load(args.file, args.labels)
    stats = describe(ds)
    print(describe_frame(stats).to_string(index=False), file=out)
    notes = list(getattr(ds, "notes", []) or [])
    if notes:
        from mlviz._text import shorten

        print("\nLoader notes:", file=out)
        for note in notes:
            print(f"- {shorten(' '.join(str(note).split()), ERROR_LIMIT)}", file=out)
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


def _how_table(results, *, tuned=False):
    """Per method: the decision rule and scaling behind its numbers (and, tuned, what was chosen at what cost)."""
    from collections import Counter

    import pandas as pd

    first = results.drop_duplicates(["method", "fold"])
    rows = {}
    for method, part in first.groupby("method", sort=False):
        row = {"decision rule": "; ".join(v for v in dict.fromkeys(part["decision_rule"]) if v) or "(failed)",
               "scaling": "; ".join(dict.fromkeys(part["scaling"]))}
        if tuned:
            chosen = [v for v in part["tuned_params"] if v]
            counts = Counter(chosen)
            row["tuned (folds)"] = ("; ".join(f"{v} ×{c}" for v, c in counts.items()) if chosen
                                    else "(no grid: defaults)")
            row["tuning s/fold"] = round(float(part["tune_seconds"].mean()), 2) if chosen else 0.0
        rows[method] = row
    return pd.DataFrame.from_dict(rows, orient="index")


def _bar_footnotes(results):
    """Footnote lines for the methods below a trivial bar (:func:`mlviz.evaluation.bar_notes`), or ""."""
    from mlviz.evaluation import EMPTY, FREQUENCY, bar_notes

    notes = bar_notes(results)
    lines = [f"Reference rows: {FREQUENCY!r} = the same label ranking (training-fold frequencies) for every "
             f"instance; {EMPTY!r} = the empty label set (no features used)."]
    for i, (method, sentences) in enumerate(notes.items(), start=1):
        lines.append(f"[{i}] {method}: " + " ".join(sentences))
    return "\n".join(lines)


def _sibling_labels(path):
    """The Mulan XML beside an ARFF file: ``foo.xml`` for ``foo.arff[.gz]``, else, for a split file
    ``foo-train.arff`` / ``foo-test.arff`` (also ``_train``/``_test``), ``foo.xml``; None if there is none."""
    p = Path(path)
    stem = p.name.removesuffix(".gz")
    if not stem.lower().endswith(".arff"):
        return None
    stem = stem[:-5]
    candidates = [stem] + [stem[: -len(s)] for s in ("-train", "-test", "_train", "_test")
                           if stem.lower().endswith(s)]
    for name in candidates:
        xml = p.with_name(name + ".xml")
        if xml.exists():
            return str(xml)
    return None


def _check_same_columns(train, test, args):
    """The test file must have the training file's features and labels, by name and in order."""
    if list(train.label_names) != list(test.label_names):
        raise CLIError(f"{args.test} has labels {', '.join(map(str, test.label_names))[:120]}; "
                       f"{args.file} has {', '.join(map(str, train.label_names))[:120]}")
    if list(train.feature_names) != list(test.feature_names):
        diff = next((i for i, (a, b) in enumerate(zip(train.feature_names, test.feature_names)) if a != b),
                    min(len(train.feature_names), len(test.feature_names)))
        raise CLIError(f"{args.test} has {test.n_features} features and {args.file} {train.n_features}; "
                       f"they differ from feature {diff} on (a nominal value missing in one file changes "
                       "its one-hot columns)")


def _cmd_evaluate(args, out):
    from mlviz._text import shorten
    from mlviz.evaluation import bar_notes, cross_validate, error_rows, is_reference, summarize
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
    if args.cv < 2 and args.test is None:
        raise CLIError(f"--cv must be at least 2, got {args.cv}")
    if args.baseline is not None and args.baseline not in methods:
        raise CLIError(f"--baseline {args.baseline!r} is not one of --methods")
    if args.inner_cv < 2:
        raise CLIError(f"--inner-cv must be at least 2, got {args.inner_cv}")
    scaling = "none" if args.no_scale else args.scaling
    ds = _load(args.file, args.labels)
    test = None
    if args.test is not None:
        labels = args.labels
        if labels is None and _sibling_labels(args.test) is None:
            labels = _sibling_labels(args.file)  # e.g. the training file's --labels-less XML
        test = _load(args.test, labels)
        _check_same_columns(ds, test, args)
    elif args.cv > ds.n_samples:
        raise CLIError(f"--cv {args.cv} exceeds the number of instances ({ds.n_samples})")
    estimators, unavailable = {}, []
    for m in methods:
        try:
            estimators[m] = build_estimator(m, scaling=scaling, X=ds.X, random_state=args.random_state)
        except CLIError as exc:
            unavailable.append(str(exc))
            print(f"mlviz evaluate: {shorten(str(exc), ERROR_LIMIT)}", file=sys.stderr)
    if not estimators:
        raise CLIError("none of the requested methods is available")
    tuned = f"; hyperparameters tuned by {args.inner_cv}-fold inner CV" if args.tune else ""
    if test is None:
        print(f"{ds.name}: {ds.n_samples} instances, {ds.n_features} features, {ds.n_labels} labels; "
              f"{args.cv}-fold iterative-stratified CV, seed {args.random_state}"
              + (f"{tuned} (nested)" if args.tune else ""), file=out)
        results = cross_validate(estimators, ds.X, ds.Y, cv=args.cv, measures=measures,
                                 threshold=args.threshold, tune=args.tune, inner_cv=args.inner_cv,
                                 n_jobs=args.n_jobs, random_state=args.random_state,
                                 progress=_tqdm_progress(f"evaluate {ds.name}"), references=True)
    else:
        from mlviz.evaluation import evaluate_split

        print(f"{ds.name} -> {test.name}: trained on {ds.n_samples}, tested on {test.n_samples} instances; "
              f"{ds.n_features} features, {ds.n_labels} labels; fixed train/test split, seed "
              f"{args.random_state}" + (f"{tuned} of the training set" if args.tune else ""), file=out)
        results = evaluate_split(estimators, ds.X, ds.Y, test.X, test.Y, measures=measures,
                                 threshold=args.threshold, tune=args.tune, inner_cv=args.inner_cv,
                                 n_jobs=args.n_jobs, random_state=args.random_state,
                                 progress=_tqdm_progress(f"evaluate {ds.name}"), references=True)
    methods_only = results[~results["method"].map(is_reference)]
    print("\nHow the numbers were made (per method):\n" + _how_table(results, tuned=args.tune).to_string(),
          file=out)
    baseline = args.baseline or next(iter(estimators))
    paired = len(estimators) > 1 and test is None  # one fixed split: no folds to pair
    summary = summarize(results, baseline=baseline if paired else None)
    marks = {m: f"{m} [{i}]" for i, m in enumerate(bar_notes(results), start=1)}  # the footnotes' numbers
    summary.table.index = [marks.get(m, m) for m in summary.table.index]
    print(summary.to_string(), file=out)
    if test is not None and len(estimators) > 1:
        print("\n(one fixed train/test split: no paired comparison across folds)", file=out)
    if test is not None:
        _print_published(ds, test, results, estimators, out)
    print("\n" + _bar_footnotes(results), file=out)
    timing = methods_only.drop_duplicates(["method", "fold"]).groupby("method", sort=False)[
        ["fit_seconds", "predict_seconds"]].mean()
    print("\nMean seconds per fold:\n" + timing.round(3).to_string(), file=out)
    if args.out:
        out_path = Path(args.out)
        if out_path.parent and not out_path.parent.exists():
            raise CLIError(f"cannot write {args.out}: directory {out_path.parent} does not exist")
        results.to_csv(out_path, index=False)
        print(f"\nwrote {len(results)} rows to {out_path}", file=out)
    n_err = len(error_rows(methods_only))
    return 1 if n_err == len(methods_only) else 0


def _print_published(train, test, results, estimators, out):
    """On the standard files of a bundled set: the study's numbers beside ours for the methods it reports."""
    from mlviz.plotting.tables import summary_table
    from mlviz.reproductions import standard_splits

    name = standard_splits.identify(train, test)
    if name is None:
        return
    table = standard_splits.beside_published(summary_table(results), name, {k: k for k in estimators})
    if table.empty:
        return
    print(f"\nThese are the standard {name} files. Beside the published numbers ({standard_splits.CITATION}; "
          "their base learners and parameter selection differ from mlviz's defaults):\n"
          + table.round(4).to_string(index=False), file=out)


def _cmd_reproduce(args, out, argv):
    import pandas as pd

    from mlviz._threads import blas_threads
    from mlviz.reproductions import EXPERIMENTS, REPRODUCE_BLAS_THREADS, get_experiment
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
            # one BLAS thread: a threaded sum adds in another order, and a borderline prediction can flip
            # (scene RAkEL micro-F1 0.7673 on one thread, 0.7678 on two), so the tables would depend on
            # the machine's core count (also for the libraries an experiment loads: mlviz._threads.blas_threads)
            with blas_threads(REPRODUCE_BLAS_THREADS):
                frame = module.run(quick=args.quick, random_state=args.random_state,
                                   progress=_tqdm_progress(name))
        except Exception as exc:  # noqa: BLE001 -- report and go on with the others
            crashed.append(name)
            print(f"mlviz reproduce: experiment {name!r} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        seconds = time.perf_counter() - t0
        try:  # before pd.DataFrame drops the frame's attrs; a failure here must not lose the run
            findings = module.findings(frame) if hasattr(module, "findings") else ""
        except Exception as exc:  # noqa: BLE001
            findings = ""
            print(f"mlviz reproduce: findings of {name!r} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        frame = pd.DataFrame(frame)
        results[name] = {"title": getattr(module, "TITLE", name), "protocol": getattr(module, "PROTOCOL", ""),
                         "frame": frame, "seconds": seconds, "findings": findings}
        print(f"\n== {results[name]['title']} ({name}, {'quick' if args.quick else 'full'}, {seconds:.0f} s)",
              file=out)
        print(format_table(frame).to_string(index=False), file=out)
        if findings:
            print("\n" + findings, file=out)
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
        from mlviz._text import shorten

        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {shorten(message, ERROR_LIMIT)}\n")


def build_parser():
    """The argparse parser of ``mlviz``."""
    parser = _Parser(prog="mlviz", description="Multi-label learning: data statistics, "
                     "cross-validated comparisons and paper reproductions.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("describe", help="dataset statistics")
    p.add_argument("file", help="data file (ARFF/CSV/LIBSVM/NPZ, .gz ok) or a bundled sample name")
    p.add_argument("--labels", help="Mulan XML label file, comma-separated label names, or a label count: "
                   "N = first N attributes, -N = last N (CSV/LIBSVM: N label columns)")

    p = sub.add_parser("evaluate", help="cross-validate methods on a data set, or train/test on a fixed split")
    p.add_argument("file", help="data file or bundled sample name (with --test: the training file)")
    p.add_argument("--test", help="test file: fit on FILE, score once on this file (the standard train/test "
                   "protocol) instead of cross-validating; --labels applies to both (default: FILE's XML, "
                   "also NAME.xml beside NAME-train.arff)")
    p.add_argument("--labels", help="Mulan XML label file, comma-separated label names, or a label count: "
                   "N = first N attributes, -N = last N (CSV/LIBSVM: N label columns)")
    p.add_argument("--methods", default="br,mlknn",
                   help=f"comma-separated, from: {','.join(METHODS)} (default br,mlknn)")
    p.add_argument("--cv", type=int, default=5, help="number of folds (default 5; ignored with --test)")
    p.add_argument("--out", help="write the long-form results CSV here")
    p.add_argument("--n-jobs", type=int, default=1, help="parallel jobs (joblib; default 1)")
    p.add_argument("--random-state", type=int, default=0, help="seed for folds and models (default 0)")
    p.add_argument("--measures", help="comma-separated measure keys (default: mlviz.metrics.DEFAULT_MEASURES)")
    p.add_argument("--threshold", type=_threshold, default="predict",
                   help="'predict' (default): each method's own decision rule (its predict: threshold 0.5 "
                   "on calibrated probabilities, MLRH winner-take-all, MLLEM threshold on calibrated probabilities, "
                   "...); or a number "
                   "in [0, 1] applied to every method's predict_proba")
    p.add_argument("--scaling", default="auto", choices=["auto", *SCALING_CHOICES],
                   help="feature scaling fitted inside each training fold (default auto: 'l2' rows for "
                   "sparse/count features, 'standard' otherwise)")
    p.add_argument("--tune", action="store_true",
                   help="nested CV: tune each method's key hyperparameters (and its decision threshold, global or "
                        "per label, where its rule is a probability threshold) by inner CV in every training fold")
    p.add_argument("--inner-cv", type=int, default=3, help="folds of the inner search with --tune (default 3)")
    p.add_argument("--baseline", help="method for the paired comparison (default: the first)")
    p.add_argument("--no-scale", action="store_true", help="same as --scaling none")

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
            from mlviz._threads import one_blas_thread

            one_blas_thread()  # (unless OMP_NUM_THREADS & co. say otherwise: see mlviz._threads)
            return _cmd_evaluate(args, out)
        return _cmd_reproduce(args, out, argv)
    except CLIError as exc:
        from mlviz._text import printable, shorten

        # one line, whatever the encoding of a file name in it (non-UTF-8 bytes, newlines)
        print(f"mlviz {args.command}: error: {shorten(printable(exc), ERROR_LIMIT)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mlviz: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
