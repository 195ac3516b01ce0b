"""Measure the fixed-split reference numbers of the Reference check with scikit-learn alone.

The "fixed split" rows of :mod:`mlviz.reproductions.references` (BR-LR and ML-kNN on the
bundled emotions, scene, yeast, enron and medical sets) are not published anywhere: they were
measured with this script, whose models and measures use no mlviz code (mlviz only loads the
bundled files). Anyone can rerun it and compare with the registry::

    python benchmarks/reference_numbers.py                 # every data set (about a minute)
    python benchmarks/reference_numbers.py emotions scene  # some of them
    python benchmarks/reference_numbers.py --check         # exit 1 if a number differs from the registry

Protocol (the same as ``mlviz reproduce reference-check``):

* split: ``sklearn.model_selection.train_test_split(arange(n), test_size=1/3, random_state=0)``;
  scene: its official train/test files;
* features: ``StandardScaler`` fitted on the training part for dense data, none for sparse;
* BR-LR: one ``sklearn.linear_model.LogisticRegression(C=1, max_iter=2000)`` per label
  (a label constant in training predicts its training value);
* ML-kNN: k = 10, smoothing s = 1, Euclidean neighbours of ``sklearn.neighbors.NearestNeighbors``
  (a training point is not its own neighbour), posterior as in M.-L. Zhang and Z.-H. Zhou,
  "ML-KNN: A lazy learning approach to multi-label learning", Pattern Recognition 40(7),
  2038-2048, 2007, eqs. (2)-(4) -- written out below;
* label decisions at probability 0.5; measures from ``sklearn.metrics``: micro-F1, macro-F1
  (``zero_division=0``), Hamming loss, subset accuracy, macro ROC AUC over the labels with both
  classes in the test part; P@1 by hand over test instances with at least one label.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import scipy.sparse as sp

MEASURES = ("micro_f1", "macro_f1_zero_division_0", "hamming_loss", "subset_accuracy", "macro_auc", "p@1")
DATASETS = ("emotions", "scene", "yeast", "enron", "medical")


def split(name):
    """(X_train, Y_train, X_test, Y_test) of the fixed-split protocol, features scaled."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from mlviz.data import load_sample

    if name == "scene":
        tr, te = load_sample("scene-train"), load_sample("scene-test")
        Xtr, Ytr, Xte, Yte = tr.X, tr.Y, te.X, te.Y
    else:
        ds = load_sample(name)
        i_tr, i_te = train_test_split(np.arange(ds.n_samples), test_size=1 / 3, random_state=0)
        Xtr, Ytr, Xte, Yte = ds.X[i_tr], ds.Y[i_tr], ds.X[i_te], ds.Y[i_te]
    if not sp.issparse(Xtr):
        scaler = StandardScaler().fit(Xtr)
        Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    dense = lambda Y: np.asarray(Y.toarray() if sp.issparse(Y) else Y, dtype=int)  # noqa: E731
    return Xtr, dense(Ytr), Xte, dense(Yte)


def br_lr(Xtr, Ytr, Xte):
    """P(y_l = 1 | x) of one scikit-learn logistic regression per label."""
    from sklearn.linear_model import LogisticRegression

    P = np.empty((Xte.shape[0], Ytr.shape[1]))
    for j in range(Ytr.shape[1]):
        if Ytr[:, j].min() == Ytr[:, j].max():
            P[:, j] = float(Ytr[0, j])
        else:
            P[:, j] = LogisticRegression(C=1.0, max_iter=2000).fit(Xtr, Ytr[:, j]).predict_proba(Xte)[:, 1]
    return P


def ml_knn(Xtr, Ytr, Xte, k=10, s=1.0):
    """ML-kNN posteriors (Zhang & Zhou 2007, eqs. 2-4), a plain loop over labels."""
    from sklearn.neighbors import NearestNeighbors

    n, L = Ytr.shape
    nn = NearestNeighbors(n_neighbors=k + 1).fit(Xtr)
    own = nn.kneighbors(Xtr, return_distance=False)
    # drop each training point itself (the first neighbour, or wherever it appears among ties)
    own = np.array([[j for j in row if j != i][:k] for i, row in enumerate(own)])
    test = nn.kneighbors(Xte, n_neighbors=k, return_distance=False)
    prior1 = (s + Ytr.sum(axis=0)) / (2 * s + n)
    P = np.empty((Xte.shape[0], L))
    for lab in range(L):
        c_train = Ytr[own, lab].sum(axis=1)  # neighbours with the label, per training point
        has = Ytr[:, lab] == 1
        kappa1 = np.bincount(c_train[has], minlength=k + 1)
        kappa0 = np.bincount(c_train[~has], minlength=k + 1)
        like1 = (s + kappa1) / (s * (k + 1) + kappa1.sum())
        like0 = (s + kappa0) / (s * (k + 1) + kappa0.sum())
        c = Ytr[test, lab].sum(axis=1)
        a, b = prior1[lab] * like1[c], (1 - prior1[lab]) * like0[c]
        P[:, lab] = a / (a + b)
    return P


def measures(Y, P):
    """The six measures of the protocol (scikit-learn, except P@1)."""
    from sklearn.metrics import accuracy_score, f1_score, hamming_loss, roc_auc_score

    D = (P >= 0.5).astype(int)
    both = [j for j in range(Y.shape[1]) if 0 < Y[:, j].sum() < Y.shape[0]]
    rows = Y.sum(axis=1) > 0
    top = np.argmax(P[rows], axis=1)
    return {"micro_f1": f1_score(Y, D, average="micro", zero_division=0),
            "macro_f1_zero_division_0": f1_score(Y, D, average="macro", zero_division=0),
            "hamming_loss": hamming_loss(Y, D),
            "subset_accuracy": accuracy_score(Y, D),
            "macro_auc": float(np.mean([roc_auc_score(Y[:, j], P[:, j]) for j in both])),
            "p@1": float(Y[rows][np.arange(rows.sum()), top].mean())}


def measure(name):
    """``{(method, measure): value}`` on data set ``name`` under the fixed-split protocol."""
    Xtr, Ytr, Xte, Yte = split(name)
    out = {}
    for method, fit in (("BR-LR", br_lr), ("ML-kNN", ml_knn)):
        for m, v in measures(Yte, fit(Xtr, Ytr, Xte)).items():
            out[(method, m)] = float(v)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--check", action="store_true",
                        help="compare with mlviz.reproductions.references (exit 1 on a difference)")
    args = parser.parse_args(argv)
    from mlviz.reproductions.references import lookup, rounding_of

    bad = 0
    print("data set | method | measure | measured | registry")
    for name in args.datasets:
        for (method, m), v in measure(name).items():
            ref = lookup("fixed-split", name, method, m)
            shown = "—" if ref is None else ref.text
            ok = ref is None or abs(v - ref.value) <= rounding_of(ref.text) + 0.0005  # + library versions
            bad += not ok
            print(f"{name} | {method} | {m} | {v:.4f} | {shown}{'' if ok else '  <- differs'}")
    if args.check and bad:
        print(f"{bad} numbers differ from the registry", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
