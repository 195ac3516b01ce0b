"""Reference check: our BR, PCC and ML-kNN beside published / independently measured numbers.

For a bundled benchmark set, :func:`reference_check` runs binary relevance,
a probabilistic classifier chain and ML-kNN under a stated protocol and puts
each of our numbers beside a reference number with a within-band / off-by
flag.  Only numbers whose protocol we can reproduce are listed; each carries
its source.

Sources
-------
Every reference number and its citation live in one registry,
:mod:`mlviz.reproductions.references`:

``fixed-split``
    Not published: measured for mlviz with scikit-learn alone by
    ``benchmarks/reference_numbers.py`` (in this repository; rerun it with
    ``--check``). BR-LR = ``LogisticRegression(C=1, max_iter=2000)`` per
    label; ML-kNN k = 10, s = 1 (Zhang & Zhou 2007, written out in the
    script). Split: ``sklearn.model_selection.train_test_split(arange(n),
    test_size=1/3, random_state=0)``; scene: the official train/test files;
    StandardScaler (training statistics) on dense data, none on sparse.
    Its macro-F1 is scikit-learn's ``f1_score(average="macro",
    zero_division=0)``: a label with no positive in the test split and none
    predicted scores 0 (mlviz's ``macro_f1`` follows Mulan and scores it 1;
    enron has 2 such labels, medical 7, so the two differ there: enron
    0.200 vs 0.238, medical 0.322 vs 0.477). We compare the reference with
    the same convention (measure ``macro_f1_zero_division_0``).
``MLRH-T5``
    J. Lee, H. Shajari, "A hidden variables approach to multilabel logistic
    regression", Table 5: BR-SVM (RBF) exact-match ratio (%) and Hamming
    loss, 5-fold cross-validation, "tuned such that BR-SVM performs at its
    best" (grid not given; we tune C in {1, 10, 100} by an inner 3-fold CV,
    gamma = "scale").

Numbers deliberately *not* included (protocol not reproducible here):
Guo & Xue 2013 Tables 2-3 LR/PCC -- their Enron/Medical subsets
have 1302/785 instances, ours 1677/1569 (see ``cdn_tables.PROTOCOL``);
Nam et al., §6.2 ML-kNN "F-measure" 0.372 on Enron -- neither the
F-measure's averaging nor k is stated.

Bands
-----
* ``fixed-split``: deterministic protocol, numbers given to 3 decimals: within
  band if ``|ours - reference| <= 0.001`` (half a unit of the last digit given plus
  0.0005 for solver tolerance / library versions).
* ``MLRH-T5``: within band if the difference is at most two standard errors
  of our 5-fold mean (fold std / sqrt(5)) plus the paper's rounding
  (0.005 for %, 0.0005 for Hamming loss); the paper's fold assignment and
  tuning grid are unknown, so a small offset is expected.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from . import COLUMNS
from .references import REFERENCES, SOURCES, Reference, lookup  # noqa: F401

TITLE = "Reference check: BR, PCC and ML-kNN beside independently measured / published numbers"

PROTOCOL = """\
- fixed-split: `train_test_split(arange(n), test_size=1/3, random_state=0)`
  (scene: official split), StandardScaler on dense features; BR-LR =
  `BinaryRelevance(LogisticRegression(C=1, max_iter=2000))`, ML-kNN k = 10, s = 1, PCC with
  `LogisticRegression(C=1)` links in label order (no reference number: shown for comparison).
  Label measures at threshold 0.5; the reference macro-F1 is scikit-learn's (zero_division=0),
  compared as `macro_f1_zero_division_0` (mlviz's `macro_f1` scores a label absent from truth and
  prediction 1, Mulan's rule). Reference numbers: measured with scikit-learn alone by
  `benchmarks/reference_numbers.py` in this repository (not published; rerun it to check).
  Band: |ours - ref| <= 0.001.
- MLRH-T5 (Lee & Shajari, MLRH paper, Table 5; published): 5-fold iterative-stratification CV (seed `random_state`),
  StandardScaler on the training folds; BR-SVM (RBF, gamma "scale", C in {1, 10, 100} by inner
  3-fold CV on exact match); exact match (%) and Hamming loss. Band: 2 standard errors of our
  fold mean + rounding.
- Quick: fixed-split on emotions only.
"""

P1_TOLERANCE = 0.001


#: Protocol -> the bundled data sets it has reference numbers for.
PROTOCOLS = {"fixed-split": ("emotions", "scene", "yeast", "enron", "medical"),
             "MLRH-T5": ("emotions", "scene")}
#: The full citation of each source name shown beside the numbers (from the registry).
CITATIONS = {src.short: src.citation for src in SOURCES.values()}
_MACRO0 = "macro_f1_zero_division_0"
_P1_MEASURES = ("micro_f1", "macro_f1", "hamming_loss", "subset_accuracy", "macro_auc", "p@1")


def fixed_split_rows(name):
    """``(data set, train rows, test rows, description)`` of the fixed-split protocol on the bundled set
    ``name``: ``train_test_split(arange(n), test_size=1/3, random_state=0)``; scene: its official split
    (the pooled sample holds scene-train's rows, then scene-test's)."""
    from sklearn.model_selection import train_test_split

    from ..data import load_sample

    ds = load_sample(name)
    if name == "scene":
        n_train = load_sample("scene-train").n_samples
        return (ds, np.arange(n_train), np.arange(n_train, ds.n_samples),
                "official scene-train / scene-test split (the pooled file holds train, then test)")
    tr, te = train_test_split(np.arange(ds.n_samples), test_size=1 / 3, random_state=0)
    return ds, tr, te, "train_test_split(arange(n), test_size=1/3, random_state=0)"


def fixed_split_pack(name, random_state=0):
    """What a report pack needs to refit the fixed-split protocol on ``name``: ``dict(dataset, train_index,
    test_index, split, scaling, estimators)`` (scaling ``"standard"`` on dense features, ``"none"`` on sparse
    ones, as :func:`_scale`; the estimators of :func:`_p1_methods`, unfitted)."""
    ds, tr, te, text = fixed_split_rows(name)
    return dict(dataset=ds, train_index=tr, test_index=te, split=text,
                scaling="none" if sp.issparse(ds.X) else "standard",
                estimators=_p1_methods(ds.n_labels, random_state))


def _p1_split(name):
    from ..data import load_sample

    if name == "scene":
        train, test = load_sample("scene-train"), load_sample("scene-test")
        return train.X, train.Y, test.X, test.Y
    ds, tr, te, _ = fixed_split_rows(name)
    return ds.X[tr], ds.Y[tr], ds.X[te], ds.Y[te]


def _scale(Xtr, Xte):
    if sp.issparse(Xtr):
        return Xtr, Xte
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte)


def _p1_methods(n_labels, random_state, only=None):
    from sklearn.linear_model import LogisticRegression

    from ..models import PCC, BinaryRelevance, MLkNN

    methods = {"BR-LR": BinaryRelevance(LogisticRegression(C=1.0, max_iter=2000)),
               "ML-kNN": MLkNN(k=10, s=1.0)}
    if n_labels <= 20:  # PCC's sampler on 45-53 labels takes minutes; say so in the table
        methods["PCC"] = PCC(LogisticRegression(C=1.0, max_iter=2000), random_state=random_state)
    return {k: v for k, v in methods.items() if only is None or k in only}


def _macro_f1_zero_division_0(Y, Y_pred):
    """scikit-learn's macro F1 with zero_division=0 (the fixed-split references' convention)."""
    from sklearn.metrics import f1_score

    return float(f1_score(Y, Y_pred, average="macro", zero_division=0))


def _run_p1(name, random_state, methods=None, step=None):
    from ..metrics import evaluate

    Xtr, Ytr, Xte, Yte = _p1_split(name)
    Xtr, Xte = _scale(Xtr, Xte)
    rows = []
    for method, model in _p1_methods(Ytr.shape[1], random_state, methods).items():
        if step is not None:
            step()
        P = model.fit(Xtr, Ytr).predict_proba(Xte)
        values = evaluate(Yte, P, measures=list(_P1_MEASURES))
        values[_MACRO0] = _macro_f1_zero_division_0(Yte, (P >= 0.5).astype(np.uint8))
        for measure, value in values.items():
            rows.append(dict(protocol="fixed-split", dataset=name, method=method,
                             measure=measure, ours=value, ours_std=np.nan, n_runs=1))
    return rows


def _run_t5(name, random_state, step=None):
    from sklearn.svm import SVC

    from ..data import load_sample
    from ..evaluation import multilabel_kfold
    from ..models import BinaryRelevance

    ds = load_sample(name)
    X, Y = ds.X.toarray() if ds.sparse else ds.X, ds.Y

    def exact(Yt, Yp):
        return float(np.mean(np.all(Yt == Yp, axis=1)))

    per_fold = []
    for tr, te in multilabel_kfold(Y, n_splits=5, random_state=random_state):
        if step is not None:
            step()
        Xtr, Xte = _scale(X[tr], X[te])
        best_c, best = None, -1.0
        for C in (1.0, 10.0, 100.0):
            score = 0.0
            for itr, iva in multilabel_kfold(Y[tr], n_splits=3, random_state=random_state):
                Xi, Xv = _scale(X[tr][itr], X[tr][iva])
                model = BinaryRelevance(SVC(kernel="rbf", C=C, gamma="scale")).fit(Xi, Y[tr][itr])
                score += exact(Y[tr][iva], (model.predict_proba(Xv) >= 0.5).astype(np.uint8))
            if score > best:
                best_c, best = C, score
        model = BinaryRelevance(SVC(kernel="rbf", C=best_c, gamma="scale")).fit(Xtr, Y[tr])
        Yp = (model.predict_proba(Xte) >= 0.5).astype(np.uint8)
        per_fold.append((100 * exact(Y[te], Yp), float(np.mean(Y[te] != Yp))))
    arr = np.asarray(per_fold)
    return [dict(protocol="MLRH-T5", dataset=name, method="BR-SVM (RBF)", measure=m,
                 ours=float(arr[:, j].mean()), ours_std=float(arr[:, j].std(ddof=1)), n_runs=5)
            for j, m in enumerate(("exact_match_pct", "hamming_loss"))]


def p1_methods(dataset, methods=None):
    """The fixed-split methods run on ``dataset`` (PCC only up to 20 labels), in run order."""
    from ..data import load_sample

    n_labels = load_sample("scene-train" if dataset == "scene" else dataset).n_labels
    names = ["BR-LR", "ML-kNN"] + (["PCC"] if n_labels <= 20 else [])
    return [m for m in names if methods is None or m in methods]


def n_units(protocol, dataset, methods=None):
    """Units of work (progress steps) of ``protocol`` on ``dataset``: P1 one per method, T5 one per outer fold."""
    return len(p1_methods(dataset, methods)) if protocol == "fixed-split" else 5


def _band(row):
    if row["protocol"] == "fixed-split":
        return P1_TOLERANCE
    rounding = 0.005 if row["measure"] == "exact_match_pct" else 0.0005
    return 2 * row["ours_std"] / np.sqrt(row["n_runs"]) + rounding


def _status(row):
    if pd.isna(row["published"]):
        return "no reference number"
    diff = row["ours"] - row["published"]
    return "within band" if abs(diff) <= row["band"] + 1e-12 else f"off by {diff:+.4g}"


def reference_check(datasets=("emotions",), protocols=("fixed-split",), random_state=0,
                    progress=None, methods=None):
    """Our numbers beside the reference numbers, with a within-band / off-by flag.

    Parameters
    ----------
    datasets : sequence of str
        Bundled samples (see :data:`PROTOCOLS` for which protocol covers which).
    protocols : sequence of {"fixed-split", "MLRH-T5"}
    random_state : int
        Seeds PCC's sampler and the CV folds (MLRH-T5).
    progress : callable(done, total), optional
        Called before each unit of work (one method of fixed-split on one data set, one outer fold
        of MLRH-T5) and once at the end with ``done == total``; it may raise to stop the run
        (the dashboard's job token does so on cancel).
    methods : sequence of str, optional
        fixed-split only: a subset of ``"BR-LR", "ML-kNN", "PCC"`` (default all;
        PCC is skipped on data sets with more than 20 labels).

    Returns
    -------
    pandas.DataFrame
        Columns ``protocol, dataset, method, measure, ours, ours_std, n_runs,
        published, band, diff, status, source``; ``published`` is NaN (status
        "no reference number") for our extra rows such as PCC.
    """
    protocols = list(protocols)
    for p in protocols:
        if p not in PROTOCOLS:
            raise ValueError(f"Unknown protocol {p!r}; choose from {sorted(PROTOCOLS)}.")
    jobs = [(p, d) for p in protocols for d in datasets if d in PROTOCOLS[p]]
    if not jobs:
        raise ValueError(f"No protocol covers {list(datasets)}; coverage: {PROTOCOLS}.")
    total = sum(n_units(p, d, methods) for p, d in jobs)
    done = [0]

    def step():
        if progress is not None:
            progress(done[0], total)
        done[0] += 1

    rows = []
    for p, d in jobs:
        rows += _run_p1(d, random_state, methods, step) if p == "fixed-split" else _run_t5(d, random_state, step)
    if progress is not None:
        progress(total, total)
    frame = pd.DataFrame(rows)
    found = [lookup(r.protocol, r.dataset, r.method, r.measure) for r in frame.itertuples()]
    frame["published"] = [r.value if r else np.nan for r in found]
    frame["source"] = [r.source if r else "" for r in found]
    frame["band"] = frame.apply(_band, axis=1)
    frame["diff"] = frame["ours"] - frame["published"]
    frame["status"] = frame.apply(_status, axis=1)
    return frame[["protocol", "dataset", "method", "measure", "ours", "ours_std", "n_runs",
                  "published", "band", "diff", "status", "source"]]


def run(quick=False, random_state=0, progress=None):
    """The reference check as a reproduction (columns :data:`mlviz.reproductions.COLUMNS`).

    Quick: fixed-split on emotions. Full: fixed-split on every bundled set and
    MLRH-T5 on emotions and scene (several minutes on 2 cores).
    """
    if quick:
        frame = reference_check(("emotions",), ("fixed-split",), random_state, progress)
    else:
        frame = reference_check(("emotions", "scene", "yeast", "enron", "medical"),
                                ("fixed-split", "MLRH-T5"), random_state, progress)
    out = frame.rename(columns={"published": "paper"}).assign(
        experiment="reference-check", setting=frame["protocol"])
    return out[COLUMNS]
