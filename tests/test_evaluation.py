"""Tests of mlviz.evaluation: folds, cross_validate, summarize, grid_search, dask backend."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import KFold

from mlviz.evaluation import RESULT_COLUMNS, cross_validate, error_rows, grid_search, multilabel_kfold, summarize
from mlviz.evaluation.grid import refit_parameters
from mlviz.metrics import evaluate

MEASURES = ["hamming_loss", "micro_f1", "macro_auc", "coverage"]


# ----------------------------------------------------------------- stand-ins
class CentroidBR(BaseEstimator):
    """Tiny deterministic multi-label model: per label, logistic of centroid distances."""

    def __init__(self, scale=1.0, random_state=None, noise=0.0):
        self.scale = scale
        self.random_state = random_state
        self.noise = noise

    def fit(self, X, Y):
        Y = np.asarray(Y, bool)
        mean = X.mean(axis=0)
        self.pos_ = np.array([X[Y[:, l]].mean(0) if Y[:, l].any() else mean for l in range(Y.shape[1])])
        self.neg_ = np.array([X[~Y[:, l]].mean(0) if (~Y[:, l]).any() else mean for l in range(Y.shape[1])])
        # a randomised step (to check that random_state is forwarded): jitter the centroids
        rng = np.random.default_rng(self.random_state)
        self.pos_ = self.pos_ + self.noise * rng.normal(size=self.pos_.shape)
        return self

    def predict_proba(self, X):
        d_pos = ((X[:, None, :] - self.pos_[None]) ** 2).sum(-1)
        d_neg = ((X[:, None, :] - self.neg_[None]) ** 2).sum(-1)
        return 1.0 / (1.0 + np.exp(-self.scale * (d_neg - d_pos)))


class FailsOnRow(CentroidBR):
    """Raises in predict_proba when the test set contains the row whose first feature equals ``marker``."""

    def __init__(self, marker=0.0, scale=1.0, random_state=None, noise=0.0):
        super().__init__(scale=scale, random_state=random_state, noise=noise)
        self.marker = marker

    def predict_proba(self, X):
        if np.any(X[:, 0] == self.marker):
            raise ArithmeticError("boom on the marker row\nsecond line")
        return super().predict_proba(X)


FIT_CALLS = []


class RidgeScores(BaseEstimator):
    """Ridge regression of Y on X with an eigendecomposition reused by ``refit``."""

    def __init__(self, alpha=1.0, offset=0.0):
        self.alpha = alpha
        self.offset = offset

    def fit(self, X, Y):
        FIT_CALLS.append(("fit", self.alpha, self.offset))
        self.evals_, self.evecs_ = np.linalg.eigh(X.T @ X)
        self.XtY_ = X.T @ np.asarray(Y, float)
        return self._solve()

    def _solve(self):
        coef = self.evecs_ @ ((self.evecs_.T @ self.XtY_) / (self.evals_ + self.alpha)[:, None])
        self.coef_ = coef
        return self

    def refit(self, alpha=None, offset=None):
        FIT_CALLS.append(("refit", alpha, offset))
        if alpha is not None:
            self.alpha = alpha
        if offset is not None:
            self.offset = offset
        return self._solve()

    def predict_proba(self, X):
        return X @ self.coef_ + self.offset


def _toy(n=90, d=4, L=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(d, L))
    Y = (X @ W + 0.5 * rng.normal(size=(n, L)) > 0.3).astype(np.uint8)
    return X, Y


# ----------------------------------------------------------------- folds
def test_folds_partition_and_handle_rare_and_empty_labels():
    rng = np.random.default_rng(1)
    Y = (rng.random((53, 4)) < 0.3).astype(int)
    Y[:10] = 0  # empty label sets
    Y[:, 3] = 0
    Y[20, 3] = 1  # a label with a single positive
    folds = multilabel_kfold(Y, n_splits=5, random_state=0)
    tests = np.concatenate([te for _, te in folds])
    assert np.array_equal(np.sort(tests), np.arange(53))
    for tr, te in folds:
        assert np.intersect1d(tr, te).size == 0 and tr.size + te.size == 53
    assert max(len(te) for _, te in folds) - min(len(te) for _, te in folds) <= 1
    again = multilabel_kfold(Y, n_splits=5, random_state=0)
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(folds, again))
    one_col = multilabel_kfold(Y[:, :1], n_splits=3, random_state=0)
    assert np.array_equal(np.sort(np.concatenate([te for _, te in one_col])), np.arange(53))
    with pytest.raises(ValueError, match="Cannot make"):
        multilabel_kfold(Y[:3], n_splits=5)


def test_stratification_beats_random_on_skewed_labels():
    rng = np.random.default_rng(2)
    freqs = np.array([0.02, 0.04, 0.08, 0.15, 0.3, 0.5])
    Y = (rng.random((400, 6)) < freqs).astype(int)
    whole = Y.mean(0)

    def deviation(folds):
        return np.mean([np.abs(Y[te].mean(0) - whole).mean() for _, te in folds])

    strat = np.mean([deviation(multilabel_kfold(Y, 5, random_state=s)) for s in range(3)])
    rand = np.mean([deviation(list(KFold(5, shuffle=True, random_state=s).split(Y))) for s in range(3)])
    assert strat < 0.5 * rand


# ----------------------------------------------------------------- cross_validate
def test_cross_validate_table_matches_direct_computation():
    X, Y = _toy()
    folds = multilabel_kfold(Y, 3, random_state=0)
    ests = {"a": CentroidBR(scale=1.0), "b": CentroidBR(scale=0.3)}
    seen = []
    res = cross_validate(ests, X, Y, cv=3, measures=MEASURES, random_state=0,
                         progress=lambda done, total: seen.append((done, total)))
    assert list(res.columns) == RESULT_COLUMNS
    assert len(res) == 2 * 3 * len(MEASURES)
    assert res[["method", "fold", "measure"]].drop_duplicates().shape[0] == len(res)
    assert seen[0] == (0, 6) and seen[-1] == (6, 6) and [d for d, _ in seen] == list(range(7))
    assert (res["fit_seconds"] >= 0).all() and (res["predict_seconds"] >= 0).all()
    for f, (tr, te) in enumerate(folds):
        model = clone(ests["b"]).fit(X[tr], Y[tr])
        expected = evaluate(Y[te], model.predict_proba(X[te]), measures=MEASURES)
        got = res[(res.method == "b") & (res.fold == f)].set_index("measure")["value"]
        assert got.to_dict() == pytest.approx(expected, abs=1e-12)


def test_cross_validate_cv_forms_and_threshold_predict():
    X, Y = _toy(n=40)
    pairs = [(np.arange(20, 40), np.arange(20)), (np.arange(20), np.arange(20, 40))]
    r_pairs = cross_validate({"a": CentroidBR()}, X, Y, cv=pairs, measures=["micro_f1"])
    r_split = cross_validate({"a": CentroidBR()}, X, Y, cv=KFold(2), measures=["micro_f1"])
    assert np.allclose(r_pairs["value"], r_split["value"])
    model = CentroidBR().fit(X[20:], Y[20:])
    P = (model.predict_proba(X[:20]) >= 0.9).astype(int)

    class WithPredict(CentroidBR):
        def predict(self, X):
            return (self.predict_proba(X) >= 0.9).astype(int)

    r = cross_validate({"p": WithPredict()}, X, Y, cv=pairs[:1], measures=["micro_f1"], threshold="predict")
    assert r["value"].iloc[0] == pytest.approx(evaluate(Y[:20], P.astype(float), measures=["micro_f1"])["micro_f1"])
    with pytest.raises(ValueError, match="cv must be"):
        cross_validate({"a": CentroidBR()}, X, Y, cv="five")
    with pytest.raises(ValueError, match="Unknown measure"):
        cross_validate({"a": CentroidBR()}, X, Y, measures=["nope"])


def test_error_row_and_other_methods_intact():
    X, Y = _toy(n=60)
    X[:, 0] = np.arange(60)  # the marker row is row 7
    folds = multilabel_kfold(Y, 3, random_state=0)
    bad_fold = next(f for f, (_, te) in enumerate(folds) if 7 in te)
    ests = {"good": CentroidBR(scale=0.1), "flaky": FailsOnRow(marker=7.0, scale=0.1)}
    res = cross_validate(ests, X, Y, cv=folds, measures=MEASURES)
    errs = error_rows(res)
    assert len(errs) == 1
    row = errs.iloc[0]
    assert (row.method, row.fold) == ("flaky", bad_fold)
    assert row.measure == "error: ArithmeticError: boom on the marker row"
    assert np.isnan(row.value) and row.fit_seconds >= 0 and np.isnan(row.predict_seconds)
    assert len(res) == 2 * 3 * len(MEASURES) - (len(MEASURES) - 1)
    alone = cross_validate({"good": CentroidBR(scale=0.1)}, X, Y, cv=folds, measures=MEASURES)
    good = res[res.method == "good"].reset_index(drop=True)
    assert good[["fold", "measure", "value"]].equals(alone[["fold", "measure", "value"]])
    flaky_ok = res[(res.method == "flaky") & (res.fold != bad_fold)]
    assert len(flaky_ok) == 2 * len(MEASURES) and flaky_ok["value"].notna().all()
    s = summarize(res)
    assert len(s.errors) == 1 and s.n_folds.loc["flaky", "micro_f1"] == 2


@pytest.mark.slow(seconds=3)
def test_same_random_state_same_results_and_njobs_invariance():
    X, Y = _toy(n=80)
    ests = {"noisy": CentroidBR(noise=0.5), "plain": CentroidBR()}
    cols = ["method", "fold", "measure", "value"]
    r1 = cross_validate(ests, X, Y, cv=4, measures=MEASURES, random_state=3, n_jobs=1)
    r2 = cross_validate(ests, X, Y, cv=4, measures=MEASURES, random_state=3, n_jobs=2)
    r3 = cross_validate(ests, X, Y, cv=4, measures=MEASURES, random_state=3, n_jobs=1)
    assert r1[cols].equals(r2[cols]) and r1[cols].equals(r3[cols])
    r4 = cross_validate(ests, X, Y, cv=4, measures=MEASURES, random_state=4, n_jobs=1)
    assert not r1[cols].equals(r4[cols])


def test_dask_backend_gives_same_results():
    distributed = pytest.importorskip("distributed")
    import joblib

    X, Y = _toy(n=60)
    ests = {"noisy": CentroidBR(noise=0.5), "plain": CentroidBR()}
    cols = ["method", "fold", "measure", "value"]
    ref = cross_validate(ests, X, Y, cv=3, measures=MEASURES, random_state=0)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        with joblib.parallel_config(backend="dask"):
            got = cross_validate(ests, X, Y, cv=3, measures=MEASURES, random_state=0, n_jobs=2)
    assert got[cols].equals(ref[cols])


# ----------------------------------------------------------------- summarize
def _hand_table():
    a = {"micro_f1": [0.5, 0.6, 0.7, 0.8, 0.9], "hamming_loss": [0.2, 0.2, 0.3, 0.1, 0.2]}
    b = {"micro_f1": [0.6, 0.4, 1.0, 1.2, 1.4], "hamming_loss": [0.1, 0.2, 0.1, 0.3, 0.1]}
    rows = [(m, f, meas, vals[f], 0.0, 0.0) for m, d in (("A", a), ("B", b))
            for meas, vals in d.items() for f in range(5)]
    rows.append(("B", 5, "error: ValueError: nope", np.nan, np.nan, np.nan))
    return pd.DataFrame(rows, columns=RESULT_COLUMNS[:6])  # summarize needs only the first six


def test_summarize_hand_computed():
    s = summarize(_hand_table(), baseline="A")
    assert s.mean.loc["A", "micro_f1"] == pytest.approx(0.7)
    assert s.std.loc["A", "micro_f1"] == pytest.approx(np.sqrt(0.025))  # sum sq dev .1 / 4
    assert s.mean.loc["B", "hamming_loss"] == pytest.approx(0.16)
    assert s.std.loc["B", "hamming_loss"] == pytest.approx(np.sqrt(0.032 / 4))
    assert s.table.loc["A", "micro_f1"] == "0.700 ± 0.158"
    assert len(s.errors) == 1 and s.n_folds.loc["B", "micro_f1"] == 5
    cmp = s.comparison.set_index("measure")
    f1 = cmp.loc["micro_f1"]
    # differences B - A = [.1, -.2, .3, .4, .5]: W+ = 1+3+4+5 = 13, W- = 2, statistic = min = 2;
    # exact two-sided p = 2 * #{subsets of {1..5} with rank sum <= 2} / 32 = 2 * 3 / 32
    assert f1.statistic == pytest.approx(2.0) and f1.p_value == pytest.approx(6 / 32)
    assert f1.mean_diff == pytest.approx(0.22) and (f1.wins, f1.ties, f1.losses) == (4, 0, 1)
    assert f1.test == "wilcoxon" and f1.n_folds == 5
    # hamming (lower is better): B - A = [-.1, 0, -.2, .2, -.1]: B better on 3 folds, worse on 1
    hl = cmp.loc["hamming_loss"]
    assert (hl.wins, hl.ties, hl.losses) == (3, 1, 1)
    ref = stats.wilcoxon(np.array([0.1, 0.2, 0.1, 0.3, 0.1]) - np.array([0.2, 0.2, 0.3, 0.1, 0.2]))
    assert hl.statistic == pytest.approx(ref.statistic) and hl.p_value == pytest.approx(ref.pvalue)
    t = summarize(_hand_table(), baseline="A", test="ttest").comparison.set_index("measure").loc["micro_f1"]
    # t = mean / (sd / sqrt(5)) with mean .22, sd^2 = .308 / 4
    assert t.statistic == pytest.approx(0.22 / np.sqrt(0.077 / 5))
    assert t.p_value == pytest.approx(stats.ttest_rel([0.6, 0.4, 1.0, 1.2, 1.4], [0.5, 0.6, 0.7, 0.8, 0.9]).pvalue)
    assert "Paired wilcoxon" in str(s) and "Errors" in str(s)
    with pytest.raises(ValueError, match="baseline"):
        summarize(_hand_table(), baseline="C")


# ----------------------------------------------------------------- grid_search
def test_grid_search_refit_hook_equals_brute_force():
    X, Y = _toy(n=70, d=5)
    grid = {"alpha": [0.01, 1.0, 30.0], "offset": [0.0, 0.2]}
    assert refit_parameters(RidgeScores()) == {"alpha", "offset"}
    FIT_CALLS.clear()
    hooked = grid_search(RidgeScores(), grid, X, Y, cv=3, measure="micro_f1", random_state=0,
                         refit_best=False)
    n_fit_hooked = sum(c[0] == "fit" for c in FIT_CALLS)
    FIT_CALLS.clear()
    brute = grid_search(RidgeScores(), grid, X, Y, cv=3, measure="micro_f1", random_state=0,
                        use_refit=False)
    assert hooked.used_refit and not brute.used_refit
    assert n_fit_hooked == 3  # one fit per fold, the other 5 candidates by refit
    assert sum(c[0] == "fit" for c in FIT_CALLS) == 3 * 6 + 1  # + the final refit on all data
    fold_cols = [f"fold_{f}" for f in range(3)]
    assert np.allclose(hooked.table[fold_cols], brute.table[fold_cols], rtol=0, atol=1e-12)
    assert hooked.best_params == brute.best_params and hooked.best_score == pytest.approx(brute.best_score)
    # the table agrees with a direct computation for the best candidate
    folds = multilabel_kfold(Y, 3, random_state=0)
    direct = [evaluate(Y[te], RidgeScores(**brute.best_params).fit(X[tr], Y[tr]).predict_proba(X[te]),
                       measures=["micro_f1"])["micro_f1"] for tr, te in folds]
    assert brute.best_score == pytest.approx(np.mean(direct))
    assert brute.best_score == brute.table["mean"].max()
    assert brute.table.loc[brute.table["rank"] == 1, "params"].iloc[0] == brute.best_params
    assert isinstance(brute.best_estimator, RidgeScores) and brute.best_estimator.alpha == brute.best_params["alpha"]


def test_grid_search_lower_is_better_and_failing_candidates():
    X, Y = _toy(n=50)
    X[:, 0] = np.arange(50)
    res = grid_search(FailsOnRow(), {"marker": [3.0, -1.0], "scale": [0.05, 1.0]}, X, Y, cv=2,
                      measure="hamming_loss", random_state=0, refit_best=False)
    tab = res.table
    assert tab.loc[tab.marker == 3.0, "mean"].isna().all()
    assert tab.loc[tab.marker == 3.0, "error"].str.contains("boom").all()
    ok = tab[tab.marker == -1.0]
    assert res.best_params == ok.loc[ok["mean"].idxmin(), "params"]
    with pytest.raises(RuntimeError, match="Every candidate failed"):
        grid_search(FailsOnRow(), {"marker": [3.0]}, X, Y, cv=2, random_state=0)


# ------------------------------------------------- decision rule, scaling, nested CV
class RuledBR(CentroidBR):
    """Stand-in with its own rule (threshold 0.8) and a decision_rule_ saying so."""

    def fit(self, X, Y):
        super().fit(X, Y)
        self.decision_rule_ = "threshold 0.8 on centroid probabilities"
        return self

    def predict(self, X):
        return (self.predict_proba(X) >= 0.8).astype(np.uint8)


def test_default_rule_is_each_methods_predict_and_is_reported():
    X, Y = _toy(n=60)
    folds = multilabel_kfold(Y, 3, random_state=0)
    res = cross_validate({"plain": CentroidBR(), "ruled": RuledBR()}, X, Y, cv=folds,
                         measures=["micro_f1", "ranking_loss"])
    rules = res.groupby("method")["decision_rule"].unique().to_dict()
    assert list(rules["plain"]) == ["threshold 0.5 on predict_proba"]  # no predict: 0.5 on probabilities
    assert list(rules["ruled"]) == ["threshold 0.8 on centroid probabilities"]
    assert (res["scaling"] == "none").all() and (res["tuned_params"] == "").all()
    assert res["tune_seconds"].isna().all()
    for f, (tr, te) in enumerate(folds):
        m = RuledBR().fit(X[tr], Y[tr])
        S = m.predict_proba(X[te])
        expected = evaluate(Y[te], S, measures=["micro_f1", "ranking_loss"], y_pred=m.predict(X[te]))
        got = res[(res.method == "ruled") & (res.fold == f)].set_index("measure")["value"].to_dict()
        assert got == pytest.approx(expected, abs=1e-12)
    # a numeric threshold overrides the rule and says so
    forced = cross_validate({"ruled": RuledBR()}, X, Y, cv=folds, measures=["micro_f1"], threshold=0.3)
    assert set(forced["decision_rule"]) == {"threshold 0.3 on predict_proba"}
    tr, te = folds[0]
    m = RuledBR().fit(X[tr], Y[tr])
    assert forced["value"].iloc[0] == pytest.approx(
        evaluate(Y[te], m.predict_proba(X[te]), threshold=0.3, measures=["micro_f1"])["micro_f1"])


def test_nested_cv_equals_an_independent_inner_search():
    """tune: inside each outer training fold, the inner grid search (iterative-stratified
    inner folds seeded by random_state, micro-F1 of predict, ties to the first candidate)
    picks the parameters, then the best is refitted on the training fold. Checked against
    a hand-written loop that does not use grid_search."""
    X, Y = _toy(n=90)
    grid = [0.05, 0.5, 5.0]
    res = cross_validate({"c": RuledBR()}, X, Y, cv=3, measures=["micro_f1"], tune={"c": {"scale": grid}},
                         inner_cv=3, random_state=4)
    outer = multilabel_kfold(Y, 3, random_state=4)
    assert len(res) == 3
    for f, (tr, te) in enumerate(outer):
        Xt, Yt = X[tr], Y[tr]
        inner = multilabel_kfold(Yt, 3, random_state=4)
        means = []
        for scale in grid:
            vals = []
            for itr, ite in inner:
                m = RuledBR(scale=scale, random_state=4).fit(Xt[itr], Yt[itr])
                vals.append(evaluate(Yt[ite], m.predict_proba(Xt[ite]), measures=["micro_f1"],
                                     y_pred=m.predict(Xt[ite]))["micro_f1"])
            means.append(np.mean(vals))
        best = grid[int(np.argmax(means))]
        m = RuledBR(scale=best, random_state=4).fit(Xt, Yt)
        expected = evaluate(Y[te], m.predict_proba(X[te]), measures=["micro_f1"], y_pred=m.predict(X[te]))
        row = res[res.fold == f].iloc[0]
        assert row["tuned_params"] == f"scale={best!r}"
        assert row["value"] == pytest.approx(expected["micro_f1"], abs=1e-12)
        assert 0 <= row["tune_seconds"] <= row["fit_seconds"]


def test_tune_true_uses_the_registry_grid_and_skips_methods_without_one():
    from mlviz.evaluation import tuning_grid
    from mlviz.models import MLkNN
    from mlviz.models.registry import METHODS
    from mlviz.preprocessing import with_scaling

    assert tuning_grid(MLkNN()) == METHODS["mlknn"].tuning_grid()
    grid = METHODS["mlknn"].tuning_grid()
    assert tuning_grid(with_scaling(MLkNN(), "l2", np.ones((2, 2)))) == {f"model__{k}": v for k, v in grid.items()}
    assert tuning_grid(CentroidBR()) is None
    for spec in METHODS.values():
        grid = spec.tuning_grid() or {}
        assert set(grid) <= set(spec.make().get_params(deep=False)), spec.key
    X, Y = _toy(n=60)
    res = cross_validate({"knn": MLkNN(), "plain": CentroidBR()}, X, Y, cv=2, measures=["micro_f1"],
                         tune=True, scaling="standard", random_state=0)
    knn = res[res.method == "knn"]
    assert knn["tuned_params"].str.fullmatch(r"k=(3|5|10|20|30)(, threshold=(0\.\d+|per label .+))?").all()
    assert (knn["tune_seconds"] > 0).all()
    plain = res[res.method == "plain"]
    assert (plain["tuned_params"] == "").all() and plain["value"].notna().all()


# ------------------------------------------------------------- benchmark scripts (quick variants)
def _script(name):
    from _bench import load_benchmark

    return load_benchmark(name)


def test_sweep_defaults_quick_variant(tmp_path):
    """The sweep's numbers against an independent fit/predict loop (scikit-learn micro-F1),
    the best-rank choice, and the docs section writer keeping the other sections."""
    from sklearn.metrics import f1_score

    from mlviz.cli import build_estimator

    sweep = _script("sweep_defaults")
    table, best, frame = sweep.main(["--quick", "--methods", "mlknn", "--max-rows", "90", "--cv", "2",
                                     "--inner-cv", "2"])
    from itertools import product

    from mlviz.models.registry import METHODS

    grid = {**METHODS["mlknn"].tuning_grid(), "threshold": sweep.SWEEP_THRESHOLDS}
    candidates = [dict(zip(grid, values)) for values in product(*grid.values())]
    assert sorted(table["candidate"]) == sorted(", ".join(f"{k}={v!r}" for k, v in c.items()) for c in candidates)
    table = table.set_index("candidate").loc[[", ".join(f"{k}={v!r}" for k, v in c.items()) for c in candidates]]
    X, Y = sweep._data("emotions", 90, 0)
    folds = multilabel_kfold(Y, 2, random_state=0)
    for params, got in zip(candidates, table["micro_f1"]):
        vals = []
        for tr, te in folds:
            est = build_estimator("mlknn", scaling="auto", X=X, random_state=0).set_params(
                **{f"model__{k}": v for k, v in params.items()})
            vals.append(f1_score(Y[te], est.fit(X[tr], Y[tr]).predict(X[te]), average="micro", zero_division=1))
        assert got == pytest.approx(np.mean(vals), abs=1e-12)
    assert best["candidate"].iloc[0] == table["micro_f1"].idxmax()
    settings = set(frame["setting"])
    assert settings == {"default", "tuned (nested CV)"}
    cost = frame[frame.measure == "tuning s/fold"]["ours"]
    assert len(cost) == 1 and cost.iloc[0] > 0
    doc = tmp_path / "r.md"
    doc.write_text("# head\n\n<!-- experiment: other -->\n## keep me\n<!-- end: other -->\n")
    for _ in range(2):  # written twice: replaced, not duplicated
        sweep.write_section(frame, "protocol", command="x", quick=True, seconds=1.0, path=doc)
    text = doc.read_text()
    assert "## keep me" in text and text.count("<!-- experiment: defaults-sweep -->") == 1


def test_bench_scale_synthetic_profile():
    """The synthetic label matrices have the requested cardinality and a Zipf-like profile."""
    bench = _script("bench_scale")
    p = bench.zipf_frequencies(983, 19.02, 0.45)
    assert p.sum() == pytest.approx(19.02) and p.max() <= 0.45 + 1e-12 and np.all(np.diff(p) <= 1e-15)
    X, Y = bench.make_dataset("bibtex", fraction=0.1, seed=1)
    assert X.shape == (740, 1836) and Y.shape == (740, 159)
    assert Y.sum(1).mean() == pytest.approx(2.40, rel=0.15)
    assert set(np.unique(X.data)) == {1.0}


def test_grid_search_refit_hook_through_a_scaling_pipeline():
    """A scaler in front (as cross_validate(scaling=...) builds it) keeps the refit hook."""
    from mlviz.preprocessing import with_scaling

    X, Y = _toy(n=70, d=5)
    pipe = with_scaling(RidgeScores(), "standard", X)
    grid = {"model__alpha": [0.01, 1.0, 30.0]}
    assert refit_parameters(pipe) == {"model__alpha", "model__offset"}
    FIT_CALLS.clear()
    hooked = grid_search(pipe, grid, X, Y, cv=3, random_state=0, threshold=0.5, refit_best=False)
    assert hooked.used_refit and sum(c[0] == "fit" for c in FIT_CALLS) == 3
    brute = grid_search(pipe, grid, X, Y, cv=3, random_state=0, threshold=0.5, use_refit=False,
                        refit_best=False)
    cols = [f"fold_{f}" for f in range(3)]
    assert np.allclose(hooked.table[cols], brute.table[cols], rtol=0, atol=1e-12)


# ----------------------------------------------------------- trivial references and bar notes
def test_trivial_baselines_against_hand_computed_values():
    from mlviz.evaluation import trivial_baselines

    Y_train = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 0, 0]])  # label 2 most frequent (3 of 4)
    Y_test = np.array([[0, 0, 1], [1, 0, 0], [0, 0, 0], [1, 1, 1], [0, 0, 0]])
    got = trivial_baselines(Y_train, Y_test)
    # by hand: label 2 is on in test rows 0 and 3 of the 3 rows with a label (P@1 skips empty rows) -> 2/3;
    # 5 ones of 15 entries; 2 empty rows of 5
    assert got == {"frequency_p@1": 2 / 3, "empty_hamming_loss": 5 / 15, "empty_subset_accuracy": 2 / 5}
    # ties between training frequencies go to the lowest label index; no labelled test row: P@1 = 1
    assert trivial_baselines([[1, 1], [0, 0]], [[0, 1]])["frequency_p@1"] == 0.0
    assert trivial_baselines([[1, 1], [0, 0]], [[0, 0]])["frequency_p@1"] == 1.0
    # the same numbers through the library's measures (scores = training frequencies, prediction = nothing)
    freq = Y_train.mean(axis=0)
    assert evaluate(Y_test, np.tile(freq, (5, 1)), measures=["p@1"])["p@1"] == pytest.approx(2 / 3)
    ref = evaluate(Y_test, np.zeros((5, 3)), measures=["hamming_loss", "subset_accuracy"], y_pred=np.zeros((5, 3)))
    assert ref == pytest.approx({"hamming_loss": 5 / 15, "subset_accuracy": 2 / 5})
    with pytest.raises(ValueError, match="same number of labels"):
        trivial_baselines(Y_train, Y_test[:, :2])


def test_cross_validate_references_are_the_per_fold_training_frequencies():
    from mlviz.evaluation import EMPTY, FREQUENCY

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    Y = (rng.random((60, 3)) < [0.6, 0.3, 0.1]).astype(int)
    folds = multilabel_kfold(Y, 3, random_state=0)
    res = cross_validate({"c": CentroidBR()}, X, Y, cv=folds, measures=["p@1", "hamming_loss", "micro_f1"],
                         random_state=0, references=True)
    assert list(res.columns) == RESULT_COLUMNS
    for f, (train, test) in enumerate(folds):  # independently: argmax of the training counts, mean of Y_test
        top = np.argmax(Y[train].sum(axis=0))
        row = res[(res.fold == f) & (res.method == FREQUENCY)]
        labelled = Y[test][Y[test].sum(axis=1) > 0]
        assert list(row["measure"]) == ["p@1"] and row["value"].iloc[0] == labelled[:, top].mean()
        row = res[(res.fold == f) & (res.method == EMPTY)]
        assert list(row["measure"]) == ["hamming_loss"] and row["value"].iloc[0] == Y[test].mean()
    # the method's own rows are unchanged by the references
    plain = cross_validate({"c": CentroidBR()}, X, Y, cv=folds, measures=["p@1", "hamming_loss", "micro_f1"],
                           random_state=0)
    pd.testing.assert_frame_equal(res[res.method == "c"].reset_index(drop=True).drop(
        columns=["fit_seconds", "predict_seconds"]), plain.drop(columns=["fit_seconds", "predict_seconds"]))
    # summarize shows them as rows but runs no paired test on them
    s = summarize(res, baseline="c")
    assert {FREQUENCY, EMPTY} <= set(s.table.index) and set(s.comparison["method"]) == set()


def _table(rows):
    return pd.DataFrame([(m, f, meas, v, 0.0, 0.0, rule, "standard", "", np.nan)
                         for m, f, meas, v, rule in rows], columns=RESULT_COLUMNS)


def test_bar_notes_name_the_bar_missed_and_why():
    from mlviz.evaluation import EMPTY, FREQUENCY, bar_notes

    rows = []
    for f in (0, 1):
        rows += [(FREQUENCY, f, "p@1", 0.50, "r"), (EMPTY, f, "hamming_loss", 0.30, "r"),
                 ("br", f, "p@1", 0.70, "thr"), ("br", f, "hamming_loss", 0.20, "thr"),
                 ("lp", f, "p@1", 0.45 + 0.02 * f, "argmax"), ("lp", f, "hamming_loss", 0.25, "argmax"),
                 ("mllem", f, "p@1", 0.60, "platt"), ("mllem", f, "hamming_loss", 0.31 + 0.02 * f, "platt"),
                 ("mlknn", f, "p@1", 0.65, "k"), ("mlknn", f, "hamming_loss", 0.29, "k")]
    notes = bar_notes(_table(rows))
    assert set(notes) == {"lp", "mllem"}  # br clears both bars; mlknn 0.29 < 0.30 and < 1.5 x 0.20
    lp = " ".join(notes["lp"])
    assert "P@1 0.460 is below ranking labels by their training frequency (0.500)" in lp
    assert ("LP-LR predicts only label sets seen in training" in lp
            and "(decision rule: argmax; scaling: standard)" in lp)
    assert "Hamming" not in lp  # 0.25 is below both Hamming bars
    mllem = " ".join(notes["mllem"])
    assert "Hamming loss 0.320 is above predicting nothing (0.300)" in mllem
    assert "more than 1.5× BR-LR's (0.200)" in mllem and "P@1" not in mllem
    # without BR-LR in the run only the trivial bars apply; the dashboard's label "BR-LR" counts as BR-LR
    assert bar_notes(_table([r for r in rows if r[0] != "br"]))["mllem"][1].startswith("Why")
    renamed = _table([("BR-LR" if r[0] == "br" else r[0], *r[1:]) for r in rows])
    assert any("BR-LR's (0.200)" in s for s in bar_notes(renamed)["mllem"])
    # an error row of a method does not count as a value
    err = _table(rows + [("lp", 2, "error: ValueError: boom", np.nan, "")])
    assert bar_notes(err)["lp"] == notes["lp"]
