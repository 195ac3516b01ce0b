"""Reproduction of the MLLEM ranking experiment (Kimura, Kudo, Sun, §4, Table 2).

The paper reports mean AUC and top-1 precision of MLLEM-L and MLLEM-NL (K = 20,
other parameters tuned by 5-fold CV on the training set) on thirteen Mulan
data sets split 67 % / 33 % at random. Table 2 itself was lost in the text
conversion of the paper, so the ``paper`` column is NaN; the baselines we put
beside MLLEM are BR-LR and ML-kNN at mlviz's defaults.

``run()`` is the full protocol (≈ 1.5 CPU-minutes, a few minutes wall time on
a busy 2-core machine); ``run(quick=True)`` is a reduced version (one split,
tiny grid, single hold-out, ≈ 5 s).
"""

import itertools
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, ShuffleSplit
from sklearn.preprocessing import StandardScaler

from ..data import load_sample_split
from ..metrics import evaluate
from ..models import MLLEM, BinaryRelevance, MLkNN
from . import COLUMNS

TITLE = "MLLEM (Kimura, Kudo, Sun) §4: label ranking — top-1 precision and macro AUC"

PROTOCOL = """\
- Data: `emotions` (593 × 72, 6 labels), `scene` (official split 1211 / 1196, 294 features,
  6 labels), `yeast` (2417 × 103, 14 labels). emotions and yeast: seeded 2/3 – 1/3 splits
  (`mlviz.data.load_sample_split(name, random_state=s)`), s = `random_state`, +1, +2 in the full
  run (one split in the quick run); features standardised by a `StandardScaler` fitted on the
  training part (the paper does not say; kNN graphs need comparable feature scales).
- MLLEM: K = 20 as in the paper. k^(I) (`k_instances`, also used as `k_test` of the nonlinear
  mapping), k^(L) (`k_labels`), α, β and, for MLLEM-L, the ridge λ are tuned on the training set
  by 5-fold CV (quick: one 2/3 hold-out) maximising top-1 precision (ties: macro AUC). Grid
  (full): α ∈ {0.01, 0.1, 1}, β ∈ {0.1, 1, 10}, k^(I) ∈ {5, 10, 20}, k^(L) ∈ {2, 5},
  λ ∈ {1, 100}; quick: α ∈ {0.1, 1}, β = 1, k^(I) = 10, k^(L) = 5, λ = 1. Every candidate of a
  fold is reached by `MLLEM.refit` from one fit (cached kNN lists). Rows `MLLEM-NL (defaults)`
  use the constructor defaults (α = β = 0.1, k^(I) = k_test = 20, k^(L) = 5, 10 dimensions) untuned.
- Scores: MLLEM ranks labels by −‖g(x) − h_l‖ (`decision_function`); BR-LR
  (`BinaryRelevance(random_state=seed)`: a logistic regression per label, C = 30 / mean ‖x‖², on Nyström RBF-kernel
  features of these small dense sets, `base="auto"`) and ML-kNN (k = 10, s = 1) by
  `predict_proba`.
- Measures (`mlviz.metrics`): `p@1` = top-1 precision over test instances with at least one
  label; `macro_auc` = mean over labels of the ROC AUC of the label's column. Mean ± std over
  splits (std NaN for a single split). `paper` is NaN: Table 2 did not survive the paper's
  text conversion.
"""

DATASETS = ("emotions", "scene", "yeast")
GRID_FULL = {"alpha": (0.01, 0.1, 1.0), "beta": (0.1, 1.0, 10.0), "k_instances": (5, 10, 20),
             "k_labels": (2, 5), "ridge": (1.0, 100.0)}
GRID_QUICK = {"alpha": (0.1, 1.0), "beta": (1.0,), "k_instances": (10,), "k_labels": (5,),
              "ridge": (1.0,)}
MEASURES = ("p@1", "macro_auc")
N_COMPONENTS = 20


def _score(Y, S):
    return evaluate(Y, S, measures=list(MEASURES))


def tune_mllem(X, Y, grid, *, cv=5, random_state=0):
    """Choose MLLEM parameters for both mappings by CV top-1 precision.

    Parameters
    ----------
    X : ndarray, shape (n, F)
    Y : ndarray of {0, 1}, shape (n, L)
    grid : dict
        Lists for ``alpha``, ``beta``, ``k_instances``, ``k_labels``, ``ridge``.
    cv : int
        Folds; ``1`` means a single 2/3 – 1/3 hold-out.
    random_state : int

    Returns
    -------
    best : dict
        ``{"nonlinear": params, "linear": params}``, each a dict for ``MLLEM``.
    """
    if cv == 1:
        splitter = ShuffleSplit(n_splits=1, test_size=1 / 3, random_state=random_state)
    else:
        splitter = KFold(n_splits=cv, shuffle=True, random_state=random_state)
    graph_grid = list(itertools.product(grid["alpha"], grid["beta"], grid["k_instances"], grid["k_labels"]))
    candidates = {("nonlinear", g, None): [] for g in graph_grid}
    candidates.update({("linear", g, r): [] for g in graph_grid for r in grid["ridge"]})
    k_max = max(grid["k_instances"])
    for train, val in splitter.split(X):
        model = MLLEM(n_components=N_COMPONENTS, k_instances=k_max, k_test=k_max,
                      random_state=random_state).fit(X[train], Y[train])
        for g in graph_grid:
            alpha, beta, k_i, k_l = g
            model.refit(alpha=alpha, beta=beta, k_instances=k_i, k_labels=k_l,
                        mapping="nonlinear", k_test=k_i)
            s = _score(Y[val], model.decision_function(X[val]))
            candidates[("nonlinear", g, None)].append((s["p@1"], s["macro_auc"]))
            for r in grid["ridge"]:
                model.refit(mapping="linear", ridge=r)  # eigenproblem reused
                s = _score(Y[val], model.decision_function(X[val]))
                candidates[("linear", g, r)].append((s["p@1"], s["macro_auc"]))
    best = {}
    for mapping in ("nonlinear", "linear"):
        keys = [k for k in candidates if k[0] == mapping]
        means = [tuple(np.mean(candidates[k], axis=0)) for k in keys]
        _, g, r = keys[max(range(len(keys)), key=lambda i: means[i])]  # first max wins ties
        alpha, beta, k_i, k_l = g
        params = {"alpha": alpha, "beta": beta, "k_instances": k_i, "k_labels": k_l,
                  "mapping": mapping, "n_components": N_COMPONENTS}
        if mapping == "linear":
            params["ridge"] = r
        else:
            params["k_test"] = k_i
        best[mapping] = params
    return best


def _methods(best, random_state):
    return {
        "BR-LR": BinaryRelevance(random_state=random_state),
        "ML-kNN": MLkNN(k=10, s=1.0, random_state=random_state),
        "MLLEM-NL (defaults)": MLLEM(n_components=N_COMPONENTS, random_state=random_state),
        "MLLEM-NL": MLLEM(random_state=random_state, **best["nonlinear"]),
        "MLLEM-L": MLLEM(random_state=random_state, **best["linear"]),
    }


def run(quick=False, random_state=0, progress=None):
    """Run the protocol of :data:`PROTOCOL`.

    Parameters
    ----------
    quick : bool
        One split, the quick grid and a single hold-out instead of 5-fold CV.
    random_state : int
    progress : callable(done, total), optional

    Returns
    -------
    pandas.DataFrame
        Columns :data:`mlviz.reproductions.COLUMNS`; extra columns ``fit_seconds``
        (mean) and ``params`` (the tuned MLLEM parameters of the last split).
    """
    grid = GRID_QUICK if quick else GRID_FULL
    cv = 1 if quick else 5
    n_rep = 1 if quick else 3
    tasks = [(name, s) for name in DATASETS for s in range(1 if name == "scene" else n_rep)]
    if progress is not None:
        progress(0, len(tasks))
    records = {}
    for done, (name, rep) in enumerate(tasks, start=1):
        seed = random_state + rep
        train, test = load_sample_split(name, random_state=seed) if name != "scene" else load_sample_split(name)
        scaler = StandardScaler().fit(train.X)
        X, Xt = scaler.transform(train.X), scaler.transform(test.X)
        best = tune_mllem(X, train.Y, grid, cv=cv, random_state=seed)
        for method, est in _methods(best, seed).items():
            t0 = time.perf_counter()
            est.fit(X, train.Y)
            fit_s = time.perf_counter() - t0
            S = est.decision_function(Xt) if isinstance(est, MLLEM) else est.predict_proba(Xt)
            scores = _score(test.Y, S)
            params = best["linear" if method == "MLLEM-L" else "nonlinear"] if method in ("MLLEM-L", "MLLEM-NL") else {}
            for measure, value in scores.items():
                rec = records.setdefault((name, method, measure), {"values": [], "fit": [], "params": ""})
                rec["values"].append(value)
                rec["fit"].append(fit_s)
                rec["params"] = ", ".join(f"{k}={v}" for k, v in params.items() if k not in ("mapping", "n_components"))
        if progress is not None:
            progress(done, len(tasks))
    rows = []
    for (name, method, measure), rec in records.items():
        v = np.asarray(rec["values"])
        rows.append({
            "experiment": "mllem-ranking", "dataset": name,
            "setting": f"{'official split' if name == 'scene' else f'{len(v)} random 2/3 splits'}, K={N_COMPONENTS}",
            "method": method, "measure": measure, "ours": float(v.mean()),
            "ours_std": float(v.std(ddof=1)) if len(v) > 1 else np.nan, "paper": np.nan,
            "fit_seconds": float(np.mean(rec["fit"])), "params": rec["params"],
        })
    return pd.DataFrame(rows, columns=COLUMNS + ["fit_seconds", "params"])
