"""The seed papers' comparison systems (issue 30): accuracy and fit time as ratios, side by side in one run.

Parts (all by default; ``--parts embed,scale,insdif`` to choose):

``embed``
    MLLEM, LEML, FaIE, CPLST, SLEEC and ML-kNN (and BR-LR, the time unit) on the
    bundled standard Mulan splits (``sample_data/NAME-{train,test}.arff.gz`` with
    ``NAME.xml``), every method with its defaults and ``random_state=0``, features
    scaled by :func:`mlviz.preprocessing.default_scaling` fitted on the training
    split. Reports macro AUC and P@1 of each method's native label scores
    (``decision_function`` where the method has one: MLLEM's −distance, the
    decoded scores of LEML/FaIE/CPLST, SLEEC's neighbour votes — what the papers
    rank by) and of ``predict_proba``, micro-F1 of ``predict`` on the test split
    (:func:`mlviz.metrics.evaluate`), and the time of
    fit + predict_proba(test) as a ratio to per-label ``LogisticRegression``
    (``BinaryRelevance(base="lr")``) on the same data in the same run. This is the MLLEM
    paper's comparison (§4.1) on the standard splits instead of its 67/33 random
    splits, and with default hyperparameters instead of 5-fold CV tuning.
``scale``
    A synthetic 7,395 × 1,836 sparse bag-of-words × 159-label problem
    (``bench_pages_scale.sparse_159``, bibtex's shape), L2-normalised rows: fit
    time of every estimator as a ratio to per-label LR (target <= 10×), or the
    ``TooLargeError`` it raises with its estimate.
``insdif``
    InsDif vs ML-LSPC on Enron, random 1,000 training / 702 test e-mails (ML-LSPC
    paper §6.2): micro-F1 ("F-score") and fit + predict time, InsDif with its
    paper rule (f_l > 0, ``calibration="clip"``) and with the default Platt
    calibration; ML-LSPC with its defaults (λ = 0.01, γ = 0.1, σ = median
    distance), plain LSPC and ML-kNN beside them. Binary features unscaled.

``--quick``: emotions and scene only, the synthetic problem at 1/6 of the rows,
one Enron split (full: three).

Usage: ``PYTHONPATH=. OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_label_embedding.py [--quick]``
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
# run as a script from any directory: the checkout (and benchmarks/) must be importable before mlviz is imported
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from mlviz.data import load_dataset  # noqa: E402
from mlviz.metrics import evaluate  # noqa: E402
from mlviz.models import LSPC, MLLEM, MLLSPC, BinaryRelevance, MLkNN, TooLargeError  # noqa: E402
from mlviz.models.insdif import InsDif  # noqa: E402
from mlviz.models.label_embedding import CPLST, LEML, FaIE  # noqa: E402
from mlviz.models.sleec import SLEEC  # noqa: E402
from mlviz.preprocessing import default_scaling, make_scaler  # noqa: E402

DATA = ROOT / "sample_data"


def embedding_methods():
    return {
        "MLLEM": lambda: MLLEM(random_state=0),
        "LEML": lambda: LEML(random_state=0),
        "FaIE": lambda: FaIE(random_state=0),
        "CPLST": lambda: CPLST(random_state=0),
        "SLEEC": lambda: SLEEC(random_state=0),
        "ML-kNN": lambda: MLkNN(),
    }


def load_split(name):
    xml = DATA / f"{name}.xml"
    train = load_dataset(DATA / f"{name}-train.arff.gz", labels=str(xml))
    test = load_dataset(DATA / f"{name}-test.arff.gz", labels=str(xml))
    return train.X, np.asarray(train.Y), test.X, np.asarray(test.Y)


def scale(X_train, X_test):
    scaler = make_scaler(default_scaling(X_train), sparse=sp.issparse(X_train))
    if scaler is None:
        return X_train, X_test
    return scaler.fit_transform(X_train), scaler.transform(X_test)


def timed(make, X, Y, X_test):
    """(model, P_test, seconds of fit + predict_proba(X_test)) or (None, error message, seconds)."""
    t0 = time.perf_counter()
    try:
        model = make().fit(X, Y)
        P = model.predict_proba(X_test)
    except TooLargeError as err:
        return None, f"TooLargeError: {err}", time.perf_counter() - t0
    return model, P, time.perf_counter() - t0


def part_embed(quick):
    sets = ["emotions", "scene"] if quick else ["emotions", "scene", "yeast", "enron"]
    print("\n### Embedding baselines on the standard splits (test split; time = fit + predict_proba)\n")
    print("| data | N train × F, L | method | macro AUC (native) | P@1 (native) | macro AUC (proba) | "
          "P@1 (proba) | micro-F1 | seconds | × BR-LR |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    summary = {}
    for name in sets:
        Xtr, Ytr, Xte, Yte = load_split(name)
        Xtr, Xte = scale(Xtr, Xte)
        shape = f"{Xtr.shape[0]} × {Xtr.shape[1]}, {Ytr.shape[1]}"
        _, P, t_lr = timed(lambda: BinaryRelevance(base="lr"), Xtr, Ytr, Xte)
        rows = [("BR-LR", P, None, t_lr)]
        for method, make in embedding_methods().items():
            model, P, t = timed(make, Xtr, Ytr, Xte)
            rows.append((method, P, model, t))
        for method, P, model, t in rows:
            if isinstance(P, str):
                print(f"| {name} | {shape} | {method} | {P} | | | | | {t:.2f} | {t / t_lr:.1f} |")
                continue
            pred = model.predict(Xte) if model is not None else (P >= 0.5).astype(np.uint8)
            ev = evaluate(Yte, P, measures=["macro_auc", "p@1", "micro_f1"], y_pred=pred)
            native = P if model is None or not hasattr(model, "decision_function") \
                else model.decision_function(Xte)
            nat = evaluate(Yte, native, measures=["macro_auc", "p@1"], y_pred=pred)
            summary.setdefault(name, {})[method] = (nat["macro_auc"], nat["p@1"])
            print(f"| {name} | {shape} | {method} | {nat['macro_auc']:.3f} | {nat['p@1']:.3f} | "
                  f"{ev['macro_auc']:.3f} | {ev['p@1']:.3f} | {ev['micro_f1']:.3f} | {t:.2f} | "
                  f"{t / t_lr:.1f} |", flush=True)
    print("\nBest per data set by the native scores (ties: all listed):\n")
    for name, res in summary.items():
        auc = max(v[0] for v in res.values())
        p1 = max(v[1] for v in res.values())
        best_auc = [m for m, v in res.items() if v[0] >= auc - 1e-12]
        best_p1 = [m for m, v in res.items() if v[1] >= p1 - 1e-12]
        print(f"- {name}: macro AUC {', '.join(best_auc)} ({auc:.3f}); P@1 {', '.join(best_p1)} ({p1:.3f})")
    return summary


def part_scale(quick):
    from bench_pages_scale import sparse_159
    from sklearn.preprocessing import normalize

    n = 7395 // 6 if quick else 7395
    ds = sparse_159(n=n)
    X, Y = normalize(ds.X.tocsr()), np.asarray(ds.Y)
    print(f"\n### Scale: synthetic {X.shape[0]} × {X.shape[1]} sparse (nnz/row "
          f"{X.nnz / X.shape[0]:.0f}) × {Y.shape[1]} labels\n")
    print("| method | fit + first predict_proba s | × per-label LR | note |")
    print("|---|---|---|---|")
    t0 = time.perf_counter()
    BinaryRelevance(base="lr").fit(X, Y).predict_proba(X[:100])
    t_lr = time.perf_counter() - t0
    print(f"| BR-LR (per-label LogisticRegression) | {t_lr:.1f} | 1.0 | |", flush=True)
    makes = dict(embedding_methods())
    makes["InsDif"] = lambda: InsDif(random_state=0)
    for method, make in makes.items():
        t0 = time.perf_counter()
        try:
            make().fit(X, Y).predict_proba(X[:100])  # MLLEM calibrates lazily, on first use
            t = time.perf_counter() - t0
            print(f"| {method} | {t:.1f} | {t / t_lr:.1f} | |", flush=True)
        except TooLargeError as err:
            t = time.perf_counter() - t0
            print(f"| {method} | refused after {t:.2f} | — | {err} |", flush=True)


def part_insdif(quick):
    ds = load_dataset(DATA / "enron.arff.gz", labels=str(DATA / "enron.xml"))
    X, Y = ds.X, np.asarray(ds.Y)
    runs = 1 if quick else 3
    makes = {
        "ML-LSPC": lambda: MLLSPC(random_state=0),
        "LSPC": lambda: LSPC(random_state=0),
        "InsDif (paper rule f > 0)": lambda: InsDif(calibration="clip", random_state=0),
        "InsDif (Platt)": lambda: InsDif(random_state=0),
        "ML-kNN": lambda: MLkNN(),
    }
    res = {m: [] for m in makes}
    for r in range(runs):
        perm = np.random.default_rng(r).permutation(X.shape[0])
        tr, te = np.sort(perm[:1000]), np.sort(perm[1000:])
        for method, make in makes.items():
            t0 = time.perf_counter()
            model = make().fit(X[tr], Y[tr])
            pred = model.predict(X[te])
            P = model.predict_proba(X[te])
            t = time.perf_counter() - t0
            ev = evaluate(Y[te], P, measures=["micro_f1", "example_f1", "macro_auc"], y_pred=pred)
            res[method].append((ev["micro_f1"], ev["example_f1"], ev["macro_auc"], t))
            print(f"  split {r} {method}: micro-F1 {ev['micro_f1']:.3f}, {t:.1f} s", file=sys.stderr, flush=True)
    t_ref = np.mean([v[3] for v in res["ML-LSPC"]])
    print(f"\n### InsDif vs ML-LSPC on Enron, 1000 train / 702 test, {runs} random split(s) "
          "(time = fit + predict)\n")
    print("| method | micro-F1 | example-F1 | macro AUC | seconds | × ML-LSPC | paper F / s |")
    print("|---|---|---|---|---|---|---|")
    paper = {"ML-LSPC": "0.561 / 5.5", "LSPC": "0.556 / 3.3", "InsDif (paper rule f > 0)": "0.526 / 470.7",
             "ML-kNN": "0.372 / 9.6"}
    for method, vals in res.items():
        v = np.asarray(vals)
        sd = f" ± {v[:, 0].std():.3f}" if runs > 1 else ""
        print(f"| {method} | {v[:, 0].mean():.3f}{sd} | {v[:, 1].mean():.3f} | {v[:, 2].mean():.3f} | "
              f"{v[:, 3].mean():.1f} | {v[:, 3].mean() / t_ref:.1f} | {paper.get(method, '')} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--parts", default="embed,scale,insdif")
    args = ap.parse_args()
    parts = args.parts.split(",")
    print(f"bench_label_embedding.py{' --quick' if args.quick else ''} --parts {args.parts}")
    if "embed" in parts:
        part_embed(args.quick)
    if "scale" in parts:
        part_scale(args.quick)
    if "insdif" in parts:
        part_insdif(args.quick)


if __name__ == "__main__":
    main()
