"""Default-hyperparameter sweep and tuned-vs-default tables (issue 14, item 5).

Protocol (documented; the tables in ``docs/reproductions.md`` come from this script)
----------------------------------------------------------------------------------
For every bundled data set and method (CLI names, :func:`mlviz.cli.build_estimator`
defaults, the default scaling of :mod:`mlviz.preprocessing`, ``random_state``):

1. **Sweep.** Each candidate of the method's key-hyperparameter grid
   (:data:`mlviz.evaluation.TUNING_GRIDS`) is cross-validated (``--cv`` folds,
   iterative stratification, the method's own ``predict``); reported: mean micro-F1
   per data set and the mean rank of each candidate over the data sets. The
   candidate with the best mean rank is the evidence-based default.
2. **Tuned vs default.** :func:`mlviz.evaluation.cross_validate` on the same outer
   folds with the defaults and with ``tune=True`` (nested CV: the grid searched by
   ``--inner-cv``-fold CV inside each training fold); reported: micro-F1, Hamming
   loss and P@1, mean ± std over the outer folds, and the tuning cost (seconds per
   outer fold).

``--quick`` runs emotions only, methods br, mlknn, mllem, 3 outer / 2 inner folds --
a couple of minutes on one core. ``--max-rows`` subsamples (stratification keeps the
label profile) for tests. ``--write`` replaces the ``defaults-sweep`` section of
``docs/reproductions.md`` (delimited like the ``mlviz reproduce`` sections, so a
``mlviz reproduce`` run keeps it).

Usage: ``PYTHONPATH=. .venv/bin/python benchmarks/sweep_defaults.py --quick [--write]``
"""

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

SECTION = "defaults-sweep"
TITLE = "Defaults by evidence: hyperparameter sweep and tuned (nested CV) vs default"
MEASURES = ["micro_f1", "hamming_loss", "p@1"]
QUICK = {"datasets": ["emotions"], "methods": ["br", "mlknn", "mllem"], "cv": 3, "inner_cv": 2}
FULL = {"datasets": ["emotions", "scene", "yeast", "enron", "medical"],
        "methods": ["br", "mlknn", "mllem", "mllspc", "cdn", "mlrh", "pcc", "lp"], "cv": 5, "inner_cv": 3}


def _data(name, max_rows, random_state):
    from mlviz.data import load_sample
    from mlviz.evaluation import multilabel_kfold

    ds = load_sample(name)
    X, Y = ds.X, ds.Y
    if max_rows and X.shape[0] > max_rows:  # one stratified fold of the right size keeps the profile
        k = int(np.ceil(X.shape[0] / max_rows))
        rows = np.sort(multilabel_kfold(Y, k, random_state=random_state)[0][1])
        X, Y = X[rows], Y[rows]
    return X, Y


def sweep(datasets, methods, *, cv=3, max_rows=None, random_state=0, log=print):
    """Step 1: one row per data set x method x candidate with the mean CV micro-F1."""
    from mlviz.cli import build_estimator
    from mlviz.evaluation import cross_validate, multilabel_kfold, tuning_grid
    from sklearn.model_selection import ParameterGrid

    rows = []
    for name in datasets:
        X, Y = _data(name, max_rows, random_state)
        folds = multilabel_kfold(Y, cv, random_state=random_state)
        for method in methods:
            est = build_estimator(method, scaling="auto", X=X, random_state=random_state)
            grid = tuning_grid(est)
            if not grid:
                continue
            candidates = list(ParameterGrid(grid))
            ests = {str(i): build_estimator(method, scaling="auto", X=X, random_state=random_state)
                    .set_params(**c) for i, c in enumerate(candidates)}
            t0 = time.perf_counter()
            res = cross_validate(ests, X, Y, cv=folds, measures=["micro_f1"], random_state=random_state)
            from mlviz.evaluation.tuning import format_params

            ok = res[res.measure == "micro_f1"].groupby("method")["value"].mean()
            for i, c in enumerate(candidates):
                rows.append({"dataset": name, "method": method, "candidate": format_params(c),
                             "micro_f1": float(ok.get(str(i), np.nan))})
            log(f"sweep {name} {method}: {len(candidates)} candidates, {time.perf_counter() - t0:.0f} s")
    table = pd.DataFrame(rows)
    if len(table):
        table["rank"] = table.groupby(["dataset", "method"])["micro_f1"].rank(ascending=False, method="min")
    return table


def best_defaults(table):
    """Per method, the candidate with the best mean rank over the data sets (ties: higher mean F1)."""
    agg = table.groupby(["method", "candidate"], sort=False).agg(mean_rank=("rank", "mean"),
                                                                 mean_micro_f1=("micro_f1", "mean"))
    agg = agg.reset_index().sort_values(["method", "mean_rank", "mean_micro_f1"], ascending=[True, True, False])
    return agg.groupby("method", sort=False).head(1).reset_index(drop=True)


def tuned_vs_default(datasets, methods, *, cv=3, inner_cv=2, max_rows=None, random_state=0, log=print):
    """Step 2: rows in the ``mlviz.reproductions`` COLUMNS format (setting = default / tuned)."""
    from mlviz.cli import build_estimator
    from mlviz.evaluation import cross_validate, multilabel_kfold

    out = []
    for name in datasets:
        X, Y = _data(name, max_rows, random_state)
        folds = multilabel_kfold(Y, cv, random_state=random_state)
        ests = {m: build_estimator(m, scaling="auto", X=X, random_state=random_state) for m in methods}
        for setting, tune in (("default", False), ("tuned (nested CV)", True)):
            t0 = time.perf_counter()
            res = cross_validate(ests, X, Y, cv=folds, measures=MEASURES, tune=tune, inner_cv=inner_cv,
                                 random_state=random_state)
            log(f"{name} {setting}: {time.perf_counter() - t0:.0f} s")
            for method, part in res.groupby("method", sort=False):
                for measure in MEASURES:
                    v = part[part.measure == measure]["value"]
                    out.append({"experiment": SECTION, "dataset": f"{name} ({X.shape[0]}×{Y.shape[1]})",
                                "setting": setting, "method": method, "measure": measure,
                                "ours": v.mean() if len(v) else np.nan,
                                "ours_std": v.std(ddof=1) if len(v) > 1 else np.nan, "paper": np.nan})
                first = part.drop_duplicates("fold")
                cost = first["tune_seconds"].mean() if tune else first["fit_seconds"].mean()
                out.append({"experiment": SECTION, "dataset": f"{name} ({X.shape[0]}×{Y.shape[1]})",
                            "setting": setting, "method": method,
                            "measure": "tuning s/fold" if tune else "fit s/fold",
                            "ours": cost, "ours_std": np.nan, "paper": np.nan})
    return pd.DataFrame(out)


def protocol_text(cfg, best, quick):
    lines = [
        f"- Script: `benchmarks/sweep_defaults.py` ({'quick' if quick else 'full'}); data: "
        f"{', '.join(cfg['datasets'])}; methods: {', '.join(cfg['methods'])}; "
        f"{cfg['cv']}-fold iterative-stratified CV, seed 0, default scaling (`auto`), each method's own `predict`.",
        "- `default`: the CLI defaults. `tuned (nested CV)`: inside each outer training fold the grid of "
        f"`mlviz.evaluation.TUNING_GRIDS` is searched by {cfg['inner_cv']}-fold inner CV (micro-F1), "
        "the best refitted on the training fold; `tuning s/fold` is the inner search's cost per outer fold.",
        "- Sweep (best mean rank of micro-F1 over the data sets, per method): "
        + "; ".join(f"{r.method}: {r.candidate} (mean rank {r.mean_rank:.1f})" for r in best.itertuples()),
    ]
    return "\n".join(lines)


def write_section(frame, protocol, *, command, quick, seconds, path="docs/reproductions.md"):
    """Replace (or append) this script's section of ``docs/reproductions.md``; other sections untouched."""
    import re

    from mlviz.reproductions.report import render_section

    text = render_section(SECTION, TITLE, protocol, frame, command=command, quick=quick, seconds=seconds)
    path = Path(path)
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    pattern = re.compile(rf"<!-- experiment: {SECTION} -->\n.*?<!-- end: {SECTION} -->\n?", re.S)
    new = pattern.sub(lambda _: text.rstrip("\n") + "\n", old) if pattern.search(old) else \
        old.rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n"
    path.write_text(new, encoding="utf-8")
    return path


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--datasets")
    p.add_argument("--methods")
    p.add_argument("--cv", type=int)
    p.add_argument("--inner-cv", type=int)
    p.add_argument("--max-rows", type=int)
    p.add_argument("--write", action="store_true", help="update docs/reproductions.md")
    args = p.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    for key in ("datasets", "methods"):
        if getattr(args, key):
            cfg[key] = [s for s in getattr(args, key).split(",") if s]
    cfg["cv"] = args.cv or cfg["cv"]
    cfg["inner_cv"] = args.inner_cv or cfg["inner_cv"]
    t0 = time.perf_counter()
    table = sweep(cfg["datasets"], cfg["methods"], cv=cfg["cv"], max_rows=args.max_rows)
    best = best_defaults(table)
    print("\nSweep (mean CV micro-F1 per candidate):")
    print(table.to_string(index=False))
    print("\nBest candidate per method (mean rank over data sets):")
    print(best.to_string(index=False))
    frame = tuned_vs_default(cfg["datasets"], cfg["methods"], cv=cfg["cv"], inner_cv=cfg["inner_cv"],
                             max_rows=args.max_rows)
    pivot = frame.pivot_table(index=["dataset", "method", "measure"], columns="setting", values="ours",
                              sort=False)
    print("\nTuned vs default:")
    print(pivot.round(4).to_string())
    seconds = time.perf_counter() - t0
    if args.write:
        command = "PYTHONPATH=. python benchmarks/sweep_defaults.py " + " ".join(shlex.quote(a) for a in argv)
        path = write_section(frame, protocol_text(cfg, best, args.quick), command=command.strip(),
                             quick=args.quick, seconds=seconds)
        print(f"\nupdated {path}")
    return table, best, frame


if __name__ == "__main__":
    main()
