"""How far can a decision threshold take each method on a standard split? A ceiling, not a result.

Issue 27's targets on the standard Mulan splits are missed in two places: the Hamming loss on emotions
at the defaults (published RF-PCT 0.170) and micro-F1 on scene with ``--tune`` (published best of 26,
0.792). This script asks whether any *threshold* could close them: it fits each method at its registry
defaults (``MethodSpec.make()``, ``random_state`` 0, features scaled by
:func:`mlviz.preprocessing.scale_split` fitted on the training file) and then, **choosing on the test
file itself** -- which no reported number may do -- scores

- the method's own ``predict`` (its decision rule: the numbers ``mlviz reproduce standard-splits``
  reports);
- ``predict_proba >= t`` at the best single ``t`` in 0.05, 0.06, …, 0.80 (``global``), for micro-F1 and
  for Hamming loss;
- the same with at least one label per row (the row's most probable label added when none passes ``t``,
  the registry's ``empty_set="auto"`` rule), for micro-F1 (``global+1``);
- a threshold per label, each chosen on the test file (``per label``), for Hamming loss (which is a sum
  over labels, so per-label choices are separable and this is the exact per-label optimum on the grid).

A published value beyond every column of every method is out of reach of any decision rule on these
models at their defaults; closing it would need different models (hyperparameters or methods). Each
row's fit is one draw (``random_state`` 0).

``--tuning-grid`` goes one step further: every point of the method's registry tuning grid (what
``--tune`` searches on inner folds) is fitted and scored on the test file, and the row reports the best
point -- the most ``--tune`` could ever pick, with the threshold chosen on the test file too.

``--outside`` adds models mlviz does not offer, each over a small grid scored on the test file the same
way (own rule: ``predict_proba >= 0.5`` with at least one label a row): binary relevance with an RBF
support vector machine and Platt probabilities (scikit-learn's ``CalibratedClassifierCV(SVC(),
ensemble=False)``, sigmoid on 5-fold decision values; the base of the study's SVM-based methods),
label powerset with the same SVM (marginals of the label-set probabilities), and scikit-learn's
multi-label ``MLPClassifier``. They ask whether a *different model* could close a gap.

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/threshold_ceiling.py [--datasets emotions,scene]
        [--methods rf-pct,cc,...] [--tuning-grid] [--outside]
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.model_selection import ParameterGrid

from mlviz.data import load_standard_split
from mlviz.evaluation.thresholds import measure_from_counts, threshold_counts
from mlviz.metrics import evaluate, threshold_rule
from mlviz.models.registry import METHODS
from mlviz.preprocessing import scale_split
from mlviz.reproductions.standard_splits import published

THRESHOLDS = np.round(np.arange(0.05, 0.8001, 0.01), 2)
DEFAULT_METHODS = ("br", "cc", "ecc", "lp", "rakel", "clr", "mlknn", "klr", "insdif", "rf-pct", "et-pct",
                   "rf-br", "gbt-br", "mllspc", "mtlspc", "lspc")


def ceilings(P, Y):
    """Best scores over :data:`THRESHOLDS` chosen on (P, Y) themselves.

    Parameters
    ----------
    P : ndarray, shape (n_samples, n_labels)
        Probabilities.
    Y : ndarray of bool, shape (n_samples, n_labels)

    Returns
    -------
    dict
        ``f1_global``, ``f1_global1`` (at least one label a row), ``hl_global``, ``hl_per_label`` and
        the thresholds of the first three (``t_*``).
    """
    n = len(Y)
    counts = threshold_counts(Y, P, THRESHOLDS)  # (thresholds, labels, (TP, FP, FN))
    f1 = measure_from_counts(counts, n, "micro_f1")
    f1_1 = measure_from_counts(threshold_counts(Y, P, THRESHOLDS, at_least_one_label=True), n, "micro_f1")
    hl = measure_from_counts(counts, n, "hamming_loss")
    errors = counts[..., 1] + counts[..., 2]  # (thresholds, labels): FP + FN
    return {"f1_global": f1.max(), "t_f1": THRESHOLDS[int(np.argmax(f1))],
            "f1_global1": f1_1.max(), "t_f1_1": THRESHOLDS[int(np.argmax(f1_1))],
            "hl_global": hl.min(), "t_hl": THRESHOLDS[int(np.argmin(hl))],
            "hl_per_label": errors.min(axis=0).sum() / Y.size}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="emotions,scene")
    parser.add_argument("--methods", default=",".join(DEFAULT_METHODS))
    parser.add_argument("--tuning-grid", action="store_true",
                        help="every point of each method's registry tuning grid, the best on the test file")
    parser.add_argument("--outside", action="store_true",
                        help="also SVM-BR, SVM-LP and an MLP (not mlviz methods), best grid point on the test file")
    args = parser.parse_args(argv)
    for name in args.datasets.split(","):
        train, test = load_standard_split(name)
        X_train, X_test = scale_split(train.X, test.X)
        Y = np.asarray(test.Y.toarray() if hasattr(test.Y, "toarray") else test.Y).astype(bool)
        print(f"\n{name}: {train.X.shape[0]} / {test.X.shape[0]} rows; thresholds chosen on the TEST file "
              f"(a ceiling, not a result). Published best of 26: micro-F1 {published(name, 'best of 26', 'micro_f1')}, "
              f"Hamming loss {published(name, 'best of 26', 'hamming_loss')}; RF-PCT "
              f"{published(name, 'RF-PCT', 'micro_f1')} / {published(name, 'RF-PCT', 'hamming_loss')}")
        print("| method | micro-F1 own rule | global | global+1 | Hamming own rule | global | per label | fit s |")
        print("|---|---|---|---|---|---|---|---|")
        for key in args.methods.split(","):
            spec = METHODS[key]
            grid = [{}]
            if args.tuning_grid and spec.tuning:
                grid = list(ParameterGrid(spec.tuning() if callable(spec.tuning) else spec.tuning))
            rows = [_score(spec, params, X_train, train.Y, X_test, Y) for params in grid]
            print(_table_row(spec.label, rows, args.tuning_grid), flush=True)
        for label, fits in (OUTSIDE.items() if args.outside else ()):
            rows = [_score_outside(fit, params, X_train, train.Y, X_test, Y) for params, fit in fits]
            print(_table_row(f"{label} (outside mlviz)", rows, True), flush=True)


def _table_row(label, rows, named):
    """The markdown row of one method: each column's best over ``rows`` (grid points), with the point named
    when ``named``."""
    own = max(rows, key=lambda r: r["micro_f1"])
    f1_1 = max(rows, key=lambda r: r["f1_global1"])
    hl = min(rows, key=lambda r: r["hamming_loss"])
    hl_g = min(rows, key=lambda r: r["hl_global"])
    at = (lambda r: f" ({_params(r['params'])})") if named else (lambda r: "")
    return (f"| {label} | {own['micro_f1']:.4f}{at(own)} | {max(r['f1_global'] for r in rows):.4f} "
            f"| {f1_1['f1_global1']:.4f} @{f1_1['t_f1_1']:.2f}{at(f1_1)} | {hl['hamming_loss']:.4f}{at(hl)} "
            f"| {hl_g['hl_global']:.4f} @{hl_g['t_hl']:.2f}{at(hl_g)} "
            f"| {min(r['hl_per_label'] for r in rows):.4f} | {sum(r['seconds'] for r in rows):.1f} |")

def _params(params):
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"


def _score(spec, params, X_train, Y_train, X_test, Y):
    """Fit ``spec`` at its defaults updated by ``params``; its own-rule scores and :func:`ceilings`."""
    est = spec.make(**params)
    if "random_state" in est.get_params(deep=False):
        est.set_params(random_state=0)
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X_train, Y_train)
        own = est.predict(X_test)
        P = np.asarray(est.predict_proba(X_test), dtype=float)
    seconds = time.process_time() - t0
    return _row(params, seconds, P, own, Y)


def _row(params, seconds, P, own, Y):
    """One grid point's record: its own-rule micro-F1 and Hamming loss (prediction ``own``) and
    :func:`ceilings` of its probabilities ``P`` on the test labels ``Y``."""
    scores = evaluate(Y, P, measures=["micro_f1", "hamming_loss"], y_pred=own)
    return {"params": params, "seconds": seconds, "micro_f1": float(scores["micro_f1"]),
            "hamming_loss": float(scores["hamming_loss"]), **ceilings(P, Y)}


def _dense(M):
    return np.asarray(M.toarray() if hasattr(M, "toarray") else M, dtype=float)


def platt_svc(X, C, gamma):
    """An RBF ``SVC`` with Platt probabilities; ``gamma``: a multiple of scikit-learn's ``gamma="scale"``."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    return CalibratedClassifierCV(SVC(C=C, gamma=gamma / (X.shape[1] * X.var())), ensemble=False)


def _svm_br(X, Y, Xt, C, gamma):
    return np.column_stack([platt_svc(X, C, gamma).fit(X, Y[:, j]).predict_proba(Xt)[:, 1]
                            if 0 < Y[:, j].sum() < len(Y) else np.full(len(Xt), Y[0, j])
                            for j in range(Y.shape[1])])


def _svm_lp(X, Y, Xt, C, gamma):
    sets, y = np.unique(Y, axis=0, return_inverse=True)
    svc = platt_svc(X, C, gamma).fit(X, y.ravel())
    return svc.predict_proba(Xt) @ sets[svc.classes_]


def _mlp(X, Y, Xt, hidden, alpha):
    from sklearn.neural_network import MLPClassifier

    return MLPClassifier((hidden,), alpha=alpha, max_iter=500, random_state=0).fit(X, Y).predict_proba(Xt)


#: models outside mlviz (``--outside``): label -> [(params, fit(X, Y, X_test, **params) -> P)]
OUTSIDE = {
    "SVM-BR": [({"C": C, "gamma": g}, _svm_br) for C in (0.5, 1, 2, 4) for g in (0.5, 1, 2)],
    "SVM-LP": [({"C": C, "gamma": g}, _svm_lp) for C in (1, 4, 16) for g in (0.5, 1, 2)],
    "MLP": [({"hidden": h, "alpha": a}, _mlp) for h in (100, 256, 512) for a in (1e-4, 1e-2, 1.0)],
}


def _score_outside(fit, params, X_train, Y_train, X_test, Y):
    """An :data:`OUTSIDE` model: its own rule (p >= 0.5, at least one label a row) and :func:`ceilings`."""
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        P = fit(_dense(X_train), _dense(Y_train), _dense(X_test), **params)
    seconds = time.process_time() - t0
    return _row(params, seconds, P, threshold_rule(P, 0.5, allow_empty=False), Y)

if __name__ == "__main__":
    main()
