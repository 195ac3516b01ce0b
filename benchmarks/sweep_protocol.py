"""Defaults of BR (C) and ML-kNN (feature handling) chosen on the standard splits.

Protocol
--------
Data: the standard Mulan train/test splits of emotions, enron, scene and yeast
(``sample_data/NAME-{train,test}.arff.gz`` + ``NAME.xml``) and the seeded split of
medical (:func:`mlviz.data.load_sample_split`, ``random_state=0``).

For every candidate, ``--cv``-fold iterative-stratified CV *of the training half only*
(:func:`mlviz.evaluation.cross_validate`, ``random_state=0``, each method's own
``predict``) gives the inner micro-F1 the choice is made on; the test half is then
scored once per candidate (:func:`mlviz.evaluation.evaluate_split`) for the record,
never for the choice. Features: ``mlviz.preprocessing.default_scaling`` of the
training half, fitted inside each (inner or outer) training fold, except where a
candidate names another feature handling.

Choice: the candidate with the largest worst-case ratio min over data sets of
(inner micro-F1 / best inner micro-F1 on that set); the mean ratio is printed too.

Candidates
----------
- ``br``: ``BinaryRelevance(C=c)`` (C in units of 1 / mean ||x||², ``scale_C=True``)
  for c in ``BR_CS``, plus the old default ``C=1, scale_C=False``.
- ``mlknn``: ``MLkNN()`` (k = 10) after ``auto`` (the default scaling), ``minmax``
  (dense: MinMaxScaler; sparse: MaxAbsScaler, the same map on non-negative
  features), ``auto+minmax`` (min-max applied after the default scaling: what a
  min-max step inside the estimator does under the evaluation's default), ``l2|minmax``
  (the default's ``l2`` where it picks ``l2``, min-max where it picks ``standard``),
  ``maxabs``, ``l2`` and ``none``.
- ``br-svc``: ``BinaryRelevance(SVC(C=c, gamma="scale"))`` (RBF kernel, label on iff the
  decision function >= 0) for c in {1, 10}: the base learner of the published BR, for the
  record (not a candidate default of BR-LR).
- ``lp``: ``LabelPowerset(C=c)`` for c in ``LP_CS`` (units of 1 / mean ||x||²; the
  default is 10), for the record (LP's default was not revisited here).

Candidates of the second pass (branch ``fair``; the first candidate of each is the default
it would replace, and :func:`choose` also counts the data sets where a candidate's inner
micro-F1 beats that default's):

- ``br-thr``: ``BinaryRelevance(threshold=t)`` for t in ``THRESHOLDS``;
- ``mlknn-thr``: ``MLkNN(k=k, s=s, threshold=t)``, k in {10, 20}, s in {1, 0.5}, t in {0.5, 0.35, 0.25};
- ``mllem-thr``: ``MLLEM(threshold=t, random_state=0)`` for t in ``THRESHOLDS``;
- ``mllspc-lam``: ``MLLSPC(lam=l, random_state=0)`` for l in {0.01, 0.003, 0.001};
- ``cc-base``: ``ClassifierChain()`` (LR links, C = 10 / mean ||x||²), with C = 3 and 30, and with
  RBF-SVM links ``SVC(C=c, gamma="scale")`` for c in {1, 10} (the published CC's base learner);
- ``lp-base``: ``LabelPowerset()`` (C = 10), C = 3, and ``LabelPowerset(SVC(C=c, gamma="scale"))``
  for c in {1, 10} (softmax of the SVM's one-vs-rest scores over the label sets);
- ``rf-pct-size``: ``RandomForestML(n_estimators=n, max_features=f, random_state=0)``,
  n in {100, 300}, f in {"sqrt", 0.3}; ``rf-pct-trees``: n in {100, 300} with "sqrt" only.

Candidates of the base-learner pass (issue 27; :mod:`mlviz.models._base_learner`; the first
candidate is the linear base at the method's registry defaults):

- ``br-kernel``, ``cc-kernel``, ``lp-kernel``: the registry's BR (threshold 0.25), CC and LP with
  ``base="lr"``, and with ``base="rbf"`` (Nyström RBF features, logistic regression on them,
  ``random_state=0``) for γ in ``KERNEL_GAMMAS`` (× 1 / (d · var X); sparse text sets: γ = 1 only)
  and C in ``KERNEL_CS``;
- ``br-auto``, ``cc-auto``, ``lp-auto``: the registry's BR, CC and LP at their defaults (``base="auto"``);
- ``cc-thr``: the registry's CC with the greedy threshold t in ``THRESHOLDS`` (each link's ŷ = [p >= t]).
- ``cc-c``: the registry's CC (threshold 0.35, ``base="auto"``) with C in ``CC_CS`` (its default first).
- ``cc-ls``, ``ecc-ls``: the registry's CC and ECC with the earlier labels scaled by s in ``LABEL_SCALES``
  (``label_scale``: their weights' L2 penalty × 1 / s²; s = 1 is Read et al.'s chain).
- ``lp-cap``: the registry's LP with ``max_label_sets`` in ``LP_CAPS`` (its default first; issue 31:
  the multinomial fit's cost grows with the number of kept label sets).
- ``gbt-size``: the registry's GBT-BR with (``learning_rate``, ``max_iter``) in ``GBT_SIZES`` (its
  default, scikit-learn's (0.1, 100), first); ``gbt-joint``: the same with the threshold, (``learning_rate``,
  ``max_iter``, ``threshold``) in ``GBT_JOINT`` (the default (0.1, 100, 0.15) first); ``gbt-lr``: learning rate
  0.1 and 0.3 at 100 iterations only (the affordable part on the text sets).

Usage::

    OMP_NUM_THREADS=1 PYTHONPATH=. .venv/bin/python benchmarks/sweep_protocol.py [--methods br,mlknn] [--datasets ...]
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd

STANDARD = ["emotions", "enron", "scene", "yeast"]
DATASETS = [*STANDARD, "medical"]
BR_CS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)
LP_CS = (1.0, 3.0, 10.0, 30.0, 100.0)
MLKNN_FEATURES = ("auto", "minmax", "auto+minmax", "l2|minmax", "maxabs", "l2", "none")
THRESHOLDS = (0.5, 0.4, 0.35, 0.3, 0.25)
KERNEL_GAMMAS = (0.3, 1.0, 3.0)
KERNEL_CS = (1.0, 10.0, 100.0)
CC_CS = (10.0, 30.0, 100.0)
LABEL_SCALES = (1.0, 0.3, 0.1, 0.03)
LP_CAPS = (500, 200, 100)
GBT_SIZES = ((0.1, 100), (0.1, 200), (0.1, 400), (0.3, 100), (0.3, 200))
GBT_JOINT = tuple((lr, it, t) for lr, it in ((0.1, 100), (0.1, 200), (0.3, 100), (0.3, 200))
                  for t in (0.15, 0.25, 0.35))
#: candidate set -> (registry key, the one parameter swept, its values): cc-thr, cc-c, cc-ls, ecc-ls, lp-cap
REGISTRY_SWEEPS = {
    "cc-thr": ("cc", "threshold", THRESHOLDS),
    "cc-c": ("cc", "C", CC_CS),
    "cc-ls": ("cc", "label_scale", LABEL_SCALES),
    "ecc-ls": ("ecc", "label_scale", LABEL_SCALES),
    "lp-cap": ("lp", "max_label_sets", LP_CAPS),
}
PUBLISHED = {  # Bogatinovski et al. 2022, ESWA 203:117215, micro-F1 on the standard splits
    "br-svc": {"emotions": .685, "enron": .421, "scene": .741, "yeast": .601},
    "br": {"emotions": .685, "enron": .421, "scene": .741, "yeast": .601},
    "mlknn": {"emotions": .625, "enron": .479, "scene": .735, "yeast": .649},
    "lp": {"emotions": .665, "enron": .507, "scene": .776, "yeast": .612},
}
PUBLISHED.update({"br-thr": PUBLISHED["br"], "mlknn-thr": PUBLISHED["mlknn"], "lp-base": PUBLISHED["lp"],
                  "cc-base": {"emotions": .692, "enron": .489, "scene": .768, "yeast": .589},
                  "rf-pct-size": {"emotions": .719, "enron": .602, "scene": .762, "yeast": .682}})
PUBLISHED["rf-pct-trees"] = PUBLISHED["rf-pct-size"]
PUBLISHED.update({"br-kernel": PUBLISHED["br"], "cc-kernel": PUBLISHED["cc-base"], "lp-kernel": PUBLISHED["lp"],
                  "cc-c": PUBLISHED["cc-base"], "cc-ls": PUBLISHED["cc-base"], "lp-cap": PUBLISHED["lp"]})


def load_split(name):
    """(train, test) MultiLabelDataset: the standard split, or medical's seeded one."""
    from mlviz.data import load_protocol_split

    return load_protocol_split(name, random_state=0)


def _minmax(X):
    import scipy.sparse as sp
    from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler

    return MaxAbsScaler() if sp.issparse(X) else MinMaxScaler()


def candidates(method, X):
    """Candidate name -> estimator (with its own feature handling in a Pipeline)."""
    import scipy.sparse as sp
    from sklearn.pipeline import Pipeline

    from mlviz.models import BinaryRelevance, LabelPowerset, MLkNN
    from mlviz.preprocessing import default_scaling, make_scaler

    auto = default_scaling(X)
    sparse = sp.issparse(X)

    def scaled(steps, model):
        steps = [(f"s{i}", s) for i, s in enumerate(steps) if s is not None]
        return Pipeline([*steps, ("model", model)]) if steps else model

    if method == "br":
        out = {f"C={c:g}": scaled([make_scaler(auto, sparse=sparse)], BinaryRelevance(C=c)) for c in BR_CS}
        out["raw C=1 (old)"] = scaled([make_scaler(auto, sparse=sparse)], BinaryRelevance(C=1.0, scale_C=False))
        return out
    if method == "br-svc":  # the base learner of the published BR (RBF SVM), for the record
        from sklearn.svm import SVC

        return {f"SVC rbf C={c:g}": scaled([make_scaler(auto, sparse=sparse)], BinaryRelevance(SVC(C=c, gamma="scale")))
                for c in (1.0, 10.0)}
    if method == "mlknn":
        out = {}
        for f in MLKNN_FEATURES:
            if f == "auto":
                steps = [make_scaler(auto, sparse=sparse)]
            elif f == "minmax":
                steps = [_minmax(X)]
            elif f == "auto+minmax":
                steps = [make_scaler(auto, sparse=sparse), _minmax(X)]
            elif f == "l2|minmax":  # the default's l2 for sparse/count X, min-max instead of standard
                steps = [make_scaler("l2", sparse=sparse) if auto == "l2" else _minmax(X)]
            else:
                steps = [make_scaler(f, sparse=sparse)]
            out[f] = scaled(steps, MLkNN())
        return out
    if method == "lp":
        return {f"C={c:g}": scaled([make_scaler(auto, sparse=sparse)], LabelPowerset(C=c)) for c in LP_CS}
    return _second_pass(method, [make_scaler(auto, sparse=sparse)], scaled, X)


def _second_pass(method, steps, scaled, X=None):
    """Candidates of the second pass (module docstring); the first is the current default."""
    import scipy.sparse as sp
    from sklearn.svm import SVC

    from mlviz.models import MLLEM, MLLSPC, BinaryRelevance, ClassifierChain, LabelPowerset, MLkNN, RandomForestML

    if method == "br-thr":
        return {f"threshold={t:g}": scaled(steps, BinaryRelevance(threshold=t)) for t in THRESHOLDS}
    if method == "mlknn-thr":
        return {f"k={k}, s={s:g}, threshold={t:g}": scaled(steps, MLkNN(k=k, s=s, threshold=t))
                for k in (10, 20) for s in (1.0, 0.5) for t in (0.5, 0.35, 0.25)}
    if method == "mllem-thr":
        return {f"threshold={t:g}": scaled(steps, MLLEM(threshold=t, random_state=0)) for t in THRESHOLDS}
    if method == "mllspc-lam":
        return {f"lam={lam:g}": scaled(steps, MLLSPC(lam=lam, random_state=0)) for lam in (0.01, 0.003, 0.001)}
    if method == "cc-base":
        out = {f"LR C={c:g}": scaled(steps, ClassifierChain(C=c)) for c in (10.0, 3.0, 30.0)}
        out.update({f"SVC rbf C={c:g}": scaled(steps, ClassifierChain(estimator=SVC(C=c, gamma="scale")))
                    for c in (1.0, 10.0)})
        return out
    if method == "lp-base":
        out = {f"LR C={c:g}": scaled(steps, LabelPowerset(C=c)) for c in (10.0, 3.0)}
        out.update({f"SVC rbf C={c:g}": scaled(steps, LabelPowerset(SVC(C=c, gamma="scale")))
                    for c in (1.0, 10.0)})
        return out
    if method in REGISTRY_SWEEPS:  # a registry method with one parameter swept (its default first)
        from mlviz.models.registry import METHODS

        key, param, values = REGISTRY_SWEEPS[method]
        return {f"{param}={v:g}": scaled(steps, METHODS[key].make(**{param: v})) for v in values}
    if method in ("br-auto", "cc-auto", "lp-auto"):  # the registry default, base="auto"
        from mlviz.models.registry import METHODS

        return {"auto (registry default)": scaled(steps, METHODS[method.split("-")[0]].make())}
    if method in ("br-kernel", "cc-kernel", "lp-kernel"):
        from mlviz.models.registry import METHODS

        spec = METHODS[method.split("-")[0]]
        out = {"lr (registry default)": scaled(steps, spec.make(base="lr"))}
        dense = not sp.issparse(X)  # text: the kernel at γ = 1 only (the linear base is the question there)
        out.update({f"rbf γ={g:g} C={c:g}": scaled(steps, spec.make(base="rbf", gamma=g, C=c, random_state=0))
                    for g in (KERNEL_GAMMAS if dense else (1.0,)) for c in KERNEL_CS})
        return out
    if method in ("gbt-size", "gbt-lr"):
        from mlviz.models.registry import METHODS

        sizes = GBT_SIZES if method == "gbt-size" else ((0.1, 100), (0.3, 100))
        return {f"learning_rate={lr:g}, max_iter={it}": scaled(steps, METHODS["gbt-br"].make(learning_rate=lr,
                                                                                             max_iter=it))
                for lr, it in sizes}
    if method == "gbt-joint":
        from mlviz.models.registry import METHODS

        return {f"learning_rate={lr:g}, max_iter={it}, threshold={t:g}": scaled(
            steps, METHODS["gbt-br"].make(learning_rate=lr, max_iter=it, threshold=t)) for lr, it, t in GBT_JOINT}
    if method == "rf-pct-trees":  # the affordable part of rf-pct-size: more trees only
        return {f"n_estimators={n}": scaled(steps, RandomForestML(n_estimators=n, random_state=0)) for n in (100, 300)}
    if method == "rf-pct-size":
        return {f"n_estimators={n}, max_features={f}": scaled(steps, RandomForestML(n_estimators=n, max_features=f,
                                                                                     random_state=0))
                for n in (100, 300) for f in ("sqrt", 0.3)}
    raise ValueError(method)


TRUE_EMPTY = {}


def run(datasets, methods, *, cv=3, inner=True, with_test=True, log=print):
    from sklearn.base import clone

    from mlviz.evaluation import cross_validate, evaluate_split

    rows = []
    for name in datasets:
        train, test = load_split(name)
        TRUE_EMPTY[name] = float(np.mean(np.asarray(test.Y).sum(axis=1) == 0))
        log(f"== {name}: {train.n_samples} train / {test.n_samples} test, {train.n_features} features, "
            f"{train.n_labels} labels")
        for method in methods:
            ests = candidates(method, train.X)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                cvres = (cross_validate(ests, train.X, train.Y, cv=cv, measures=["micro_f1", "hamming_loss"],
                                        random_state=0) if inner else None)
                t1 = time.perf_counter()
                if not with_test:
                    t2 = t1
                    for cand in ests:
                        f1 = float(cvres.loc[(cvres.method == cand) & (cvres.measure == "micro_f1"), "value"].mean())
                        rows.append({"dataset": name, "method": method, "candidate": cand, "inner_micro_f1": f1,
                                     "inner_hamming": np.nan, "inner_empty_hamming": np.nan,
                                     "test_micro_f1": np.nan, "test_hamming": np.nan, "test_p@1": np.nan,
                                     "test_empty_rows": np.nan, "fit_seconds": np.nan,
                                     "published": PUBLISHED.get(method, {}).get(name, np.nan)})
                    log(f"   {method}: inner CV {t1 - t0:.0f} s; "
                        + "; ".join(f"{r['candidate']}: {r['inner_micro_f1']:.3f}" for r in rows[-len(ests):]))
                    continue
                test_res = evaluate_split(ests, train.X, train.Y, test.X, test.Y,
                                          measures=["micro_f1", "hamming_loss", "p@1"], random_state=0)
                empty, fit_s = {}, {}
                for c, e in ests.items():
                    t_fit = time.perf_counter()
                    fitted = clone(e).fit(train.X, train.Y)
                    fit_s[c] = time.perf_counter() - t_fit
                    empty[c] = float(np.mean(np.asarray(fitted.predict(test.X)).sum(axis=1) == 0))
                t2 = time.perf_counter()
            for cand in ests:
                inner_f1 = (float(cvres.loc[(cvres.method == cand) & (cvres.measure == "micro_f1"), "value"].mean())
                            if cvres is not None else np.nan)
                t = test_res[test_res.method == cand].set_index("measure")["value"]
                inner_ham = np.nan if cvres is None else float(
                    cvres.loc[(cvres.method == cand) & (cvres.measure == "hamming_loss"), "value"].mean())
                rows.append({"dataset": name, "method": method, "candidate": cand, "inner_micro_f1": inner_f1,
                             "inner_hamming": inner_ham, "inner_empty_hamming": float(np.asarray(train.Y).mean()),
                             "test_micro_f1": t.get("micro_f1", np.nan), "test_hamming": t.get("hamming_loss"),
                             "test_p@1": t.get("p@1"), "test_empty_rows": empty[cand], "fit_seconds": fit_s[cand],
                             "published": PUBLISHED.get(method, {}).get(name, np.nan)})
            log(f"   {method}: inner CV {t1 - t0:.0f} s, test {t2 - t1:.0f} s")
    return pd.DataFrame(rows)


def choose(table, method):
    """Inner micro-F1 per candidate x data set, its ratio to the best, worst-case and mean ratio."""
    part = table[table.method == method]
    inner = part.pivot(index="candidate", columns="dataset", values="inner_micro_f1")
    inner = inner.loc[list(dict.fromkeys(part.candidate))]
    ratio = inner / inner.max(axis=0)
    summary = inner.round(3)
    summary["worst ratio"] = ratio.min(axis=1).round(3)
    summary["mean ratio"] = ratio.mean(axis=1).round(3)
    summary["sets > first"] = (inner.sub(inner.iloc[0], axis=1) > 0).sum(axis=1)  # beats the first (the default)
    best = summary["worst ratio"].idxmax()
    return summary, best


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--methods", default="br,mlknn")
    p.add_argument("--cv", type=int, default=3)
    p.add_argument("--csv", help="also write the long table here")
    p.add_argument("--no-test", action="store_true", help="inner CV only (no test-half record, no fit timing)")
    args = p.parse_args(argv)
    pd.set_option("display.width", 200)
    table = run(args.datasets.split(","), args.methods.split(","), cv=args.cv, with_test=not args.no_test)
    if args.csv:
        table.to_csv(args.csv, index=False)
    for method in args.methods.split(","):
        part = table[table.method == method]
        if part.inner_micro_f1.notna().any():
            summary, best = choose(table, method)
            print(f"\n{method}: inner {args.cv}-fold CV micro-F1 on the training halves (choice: {best!r})")
            print(summary.to_string())
        if args.no_test:
            continue
        ham = part.pivot(index="candidate", columns="dataset", values="inner_hamming")
        if ham.notna().any().any():
            ham = ham.loc[list(dict.fromkeys(part.candidate))].round(4)
            ham.loc["predict nothing"] = part.drop_duplicates("dataset").set_index("dataset")["inner_empty_hamming"]
            print(f"\n{method}: inner {args.cv}-fold CV Hamming loss on the training halves")
            print(ham.round(4).to_string())
        test = part.pivot(index="candidate", columns="dataset", values="test_micro_f1")
        test = test.loc[list(dict.fromkeys(part.candidate))].round(3)
        pub = part.drop_duplicates("dataset").set_index("dataset")["published"]
        test.loc["published"] = pub.reindex(test.columns)
        print(f"\n{method}: test micro-F1 (record only, not used for the choice)")
        print(test.to_string())
        fit = part.pivot(index="candidate", columns="dataset", values="fit_seconds")
        fit = fit.loc[list(dict.fromkeys(part.candidate))]
        print(f"\n{method}: fit seconds on the training half, ratio to the first candidate (same run)")
        print((fit / fit.iloc[0]).round(2).to_string())
        empty = part.pivot(index="candidate", columns="dataset", values="test_empty_rows")
        print(f"\n{method}: fraction of test rows predicted empty (truth: "
              + ", ".join(f"{d} {v:.3f}" for d, v in TRUE_EMPTY.items() if d in empty.columns) + ")")
        print(empty.loc[list(dict.fromkeys(part.candidate))].round(3).to_string())


if __name__ == "__main__":
    main()
