"""AppTests of the Compare page: the values shown against :func:`mlviz.evaluation.cross_validate` run independently.

The table's decision rule and scaling columns equal the estimators' ``decision_rule_`` and the
chosen scaling; the summary CSV is numeric and equals the independent run's summary; a method
that is too large says so with a warning, never a traceback.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _apptest import ok
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "4_Compare.py")
TIMEOUT = 120


@pytest.fixture(autouse=True)
def clear_caches(fresh_dashboard):
    yield


@pytest.fixture
def downloads(monkeypatch):
    """``{file name: bytes}`` of every download button drawn."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    stored = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def capture(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        if filename:
            stored[filename] = path_or_data
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", capture)
    return stored


def run_cv(**query):
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    ok(at.run())
    at.button(key="cmp_run").click().run()
    return ok(at)


def frame_with(at, column):
    (frame,) = [df.value for df in at.dataframe if column in df.value.columns]
    return frame


def reference(methods, folds, scaling, tune=False):
    """The same cross-validation, run directly on the library (estimators built by hand)."""

    from mlviz.data import load_sample
    from mlviz.evaluation import cross_validate
    from mlviz.models import MLLSPC, BinaryRelevance, MLkNN

    ds = load_sample("emotions")
    make = {"ML-LSPC": lambda: MLLSPC(lam=0.01, gamma=0.1, sigma="median", n_centers="auto", random_state=0,
                                      empty_set="auto"),
            "BR-LR": lambda: BinaryRelevance(C=30.0, threshold=0.25, empty_set="auto"),
            "ML-kNN": lambda: MLkNN(k=20, s=0.5, threshold=0.35)}
    return cross_validate({m: make[m]() for m in methods}, ds.X, ds.Y, cv=folds, random_state=0,
                          threshold="predict", scaling=scaling, tune=tune)


REFS = ["ref: rank by training frequency", "ref: predict nothing"]


def with_refs(res, folds):
    """``res`` and the trivial references on the same folds (computed by the library)."""
    from mlviz.data import load_sample
    from mlviz.evaluation import reference_results, resolve_cv

    Y = np.asarray(load_sample("emotions").Y)
    return pd.concat([res, reference_results(Y, resolve_cv(folds, None, Y, random_state=0))], ignore_index=True)


def test_rule_and_scaling_columns_and_numeric_summary_csv(downloads):
    from mlviz.data import load_sample
    from mlviz.models import MLLSPC, BinaryRelevance, MLkNN
    from mlviz.plotting.tables import summary_table
    from mlviz.preprocessing import with_scaling

    methods = ["ML-LSPC", "BR-LR", "ML-kNN"]
    at = run_cv(cmp_methods=methods, cmp_folds="2", scaling="l2")  # the sidebar's scaling (URL key scaling)
    rules = frame_with(at, "decision rule").set_index("method")
    ref = reference(methods, 2, "l2")
    ds = load_sample("emotions")
    for name in methods:  # the estimator's own decision_rule_, fitted the same way
        est = ref[ref["method"] == name]
        assert rules.loc[name, "scaling"] == "l2" == est["scaling"].iloc[0]
        model = with_scaling({"ML-LSPC": MLLSPC(lam=0.01, gamma=0.1, random_state=0, empty_set="auto"),
                              "BR-LR": BinaryRelevance(threshold=0.25, empty_set="auto"),
                              "ML-kNN": MLkNN(k=20, s=0.5, threshold=0.35)}[name], "l2", ds.X)
        model.fit(ds.X[:300], ds.Y[:300])
        assert rules.loc[name, "decision rule"] == model.steps[-1][1].decision_rule_
    # the summary CSV: numeric mean/std, equal to the independent run
    csv = pd.read_csv(io.BytesIO(downloads["emotions_scaling_l2_cv_summary.csv"]))  # scaling not the default
    assert list(csv.columns) == ["method", "measure", "measure_name", "higher_is_better", "mean", "std", "n_folds"]
    assert csv["mean"].dtype == np.float64 and csv["std"].dtype == np.float64
    expected = summary_table(with_refs(ref, 2)).set_index(["method", "measure"])
    got = csv.set_index(["method", "measure"])
    assert set(got.index) == set(expected.index)
    np.testing.assert_allclose(got.loc[expected.index, "mean"].to_numpy(), expected["mean"].to_numpy(),
                               rtol=0, atol=1e-12)
    # on screen: plain-language measure names, the timing figure's title
    summary = frame_with(at, "Micro F1 ↑")
    assert "micro_f1" not in summary.columns and set(summary.index) == set(methods) | set(REFS)
    assert summary.loc["ref: predict nothing", "Micro F1 ↑"] == "—"  # a reference has only its measures
    titles = [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]
    assert any("Fit and predict time per fold: median and quartiles (log scale)" in t for t in titles)
    timing = pd.read_csv(io.BytesIO(downloads["emotions_scaling_l2_cv_timing.csv"]))
    assert timing["fit_median_s"].dtype == np.float64 and set(timing["method"]) == set(methods)


def test_tune_reports_the_chosen_parameters_and_their_cost():
    at = run_cv(cmp_methods=["ML-kNN"], cmp_folds="2", scaling="auto", cmp_tune="true")
    rules = frame_with(at, "decision rule").set_index("method")
    ref = reference(["ML-kNN"], 2, "auto", tune=True)
    chosen = " · ".join(dict.fromkeys(ref["tuned_params"]))
    assert rules.loc["ML-kNN", "tuned (per fold)"] == chosen and chosen.startswith("k=")
    assert float(rules.loc["ML-kNN", "tuning s per fold (median)"]) > 0
    for r in REFS:  # a reference is not tuned: a dash, not "None" (issue 29, item 8)
        assert rules.loc[r, "tuning s per fold (median)"] == "—"
    assert rules.loc["ML-kNN", "scaling"] == "standard"  # auto on dense emotions
    summary = frame_with(at, "Micro F1 ↑")
    mean = ref[ref["measure"] == "micro_f1"]["value"].mean()
    assert summary.loc["ML-kNN", "Micro F1 ↑"].startswith(f"{mean:.3f} ±")


def test_too_large_method_says_so_with_a_warning(monkeypatch):
    from mlviz.models import MLkNN, TooLargeError

    def refuse(self, X, Y):
        raise TooLargeError("MLkNN on this many rows needs about 9 GB; use fewer instances.")

    monkeypatch.setattr(MLkNN, "fit", refuse)
    at = run_cv(cmp_methods=["ML-kNN", "BR-LR"], cmp_folds="2")
    (warning,) = [w.value for w in at.warning if "ML" in w.value and "not run" in w.value]
    assert "needs about 9 GB" in warning
    summary = frame_with(at, "Micro F1 ↑")
    assert list(summary.index) == ["BR-LR", *REFS]  # ML-kNN has no row; the references follow the methods


def test_fold_by_fold_run_streams_the_same_table_as_one_call(job_token):
    """The Compare job publishes each fold's rows as it finishes; the whole equals one cross_validate call."""
    from mlviz.dashboard import compute, state

    ctx = state.sample_context("emotions")
    request = {"settings": {"mlknn": {}, "br": {}}, "folds": 3, "scaling": "l2", "tune": False}
    token = job_token
    res = compute.cross_validation_fn(ctx, request)(token)
    assert [sorted(p["fold"].unique()) for p in token.published] == [[0], [0, 1], [0, 1, 2]]
    ref = reference(["ML-kNN", "BR-LR"], 3, "l2")
    key = ["method", "fold", "measure"]
    a = res.sort_values(key).reset_index(drop=True)
    b = ref.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a[key + ["decision_rule", "scaling"]], b[key + ["decision_rule", "scaling"]])
    np.testing.assert_allclose(a["value"].to_numpy(), b["value"].to_numpy(), rtol=0, atol=1e-12)


def test_estimate_before_the_run_uses_the_fit_time_measured_on_posteriors():
    from mlviz.dashboard import compute, methods, state

    post = AppTest.from_file(str(ROOT / "pages" / "3_Posteriors.py"), default_timeout=TIMEOUT)
    post.query_params["post_models"] = ["ML-kNN"]
    ok(post.run())
    ctx = state.sample_context("emotions")
    m = methods.METHODS["mlknn"]
    seconds = compute.known_fit_seconds(ctx, m, m.defaults())
    assert seconds is not None and seconds == compute.RUNNER.peek(compute.base_key(ctx, m, m.defaults()))[1]
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["cmp_methods"] = ["ML-kNN", "BR-LR"]
    at.query_params["cmp_folds"] = "3"
    ok(at.run())
    expected = seconds * 3 * (ctx.dataset.n_samples * 2 / 3) / ctx.Y_train.shape[0]
    (caption,) = [c.value for c in at.caption if "Expected time" in c.value]
    assert f"about {expected:.2g} s for ML-kNN" in caption
    assert "no estimate yet for BR-LR" in caption


def _unescape(text):
    return text.replace("\\", "")


def test_reference_rows_equal_independent_values_and_a_method_below_the_bar_gets_a_note():
    """MLLEM with α = β = 10 (a bad setting, in the link) on emotions: Hamming loss above predicting nothing and above
    1.5 × BR-LR's, P@1 below ranking by training frequency; the page says so under the table. The
    reference rows equal numpy on the same folds."""
    from mlviz.data import load_sample
    from mlviz.evaluation import multilabel_kfold

    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["cmp_methods"] = ["MLLEM", "BR-LR"]
    at.query_params["cmp_folds"] = "2"
    at.query_params["post_mllem_alpha"] = "10"  # a link with the Posteriors page's sliders (as they write them)
    at.query_params["post_mllem_beta"] = "10"
    ok(at.run())
    ok(at.button(key="cmp_run").click().run())
    Y = np.asarray(load_sample("emotions").Y)
    p1, hl, sa = [], [], []
    for train, test in multilabel_kfold(Y, 2, random_state=0):
        labelled = Y[test][Y[test].sum(axis=1) > 0]
        p1.append(labelled[:, np.argmax(Y[train].sum(axis=0))].mean())
        hl.append(Y[test].mean())
        sa.append((Y[test].sum(axis=1) == 0).mean())
    summary = frame_with(at, "Micro F1 ↑")
    assert summary.loc[REFS[0], "P@1 ↑"] == f"{np.mean(p1):.3f} ± {np.std(p1, ddof=1):.3f}"
    assert summary.loc[REFS[1], "Hamming loss ↓"] == f"{np.mean(hl):.3f} ± {np.std(hl, ddof=1):.3f}"
    assert summary.loc[REFS[1], "Subset accuracy ↑"] == f"{np.mean(sa):.3f} ± {np.std(sa, ddof=1):.3f}"
    rules = frame_with(at, "decision rule").set_index("method")
    assert rules.loc[REFS[1], "decision rule"] == "the empty label set for every instance"
    # the MLLEM numbers, from the page's own per-fold CSV path: its summary cells
    mllem_hl = float(summary.loc["MLLEM", "Hamming loss ↓"].split(" ± ")[0])
    br_hl = float(summary.loc["BR-LR", "Hamming loss ↓"].split(" ± ")[0])
    mllem_p1 = float(summary.loc["MLLEM", "P@1 ↑"].split(" ± ")[0])
    assert mllem_hl > max(np.mean(hl), 1.5 * br_hl) and mllem_p1 < np.mean(p1)
    notes = [_unescape(w.value) for w in at.warning if "MLLEM" in w.value]
    (note,) = notes
    assert f"P@1 {mllem_p1:.3f} is below ranking labels by their training frequency ({np.mean(p1):.3f})" in note
    assert f"Hamming loss {mllem_hl:.3f} is above predicting nothing ({np.mean(hl):.3f})" in note
    assert f"is more than 1.5× BR-LR's ({br_hl:.3f})" in note
    assert "MLLEM's scores come from distances in a low-dimensional joint label–instance embedding" in note
    assert not [w for w in at.warning if "BR-LR**" in w.value]  # BR-LR clears every bar
    # the settings came from the link: the same page without them shows MLLEM at its defaults
    plain = run_cv(cmp_methods=["MLLEM", "BR-LR"], cmp_folds="2")
    assert frame_with(plain, "Micro F1 ↑").loc["MLLEM", "Hamming loss ↓"] != summary.loc["MLLEM", "Hamming loss ↓"]


def test_scaling_follows_the_sidebar():
    """One source of truth: the sidebar's ``scaling``."""
    at = run_cv(cmp_methods=["BR-LR"], cmp_folds="2", scaling="maxabs")
    assert [sb.key for sb in at.selectbox] == ["data", "scaling"]  # the sidebar's; the page has none of its own
    assert at.selectbox(key="scaling").value == "maxabs"
    rules = frame_with(at, "decision rule").set_index("method")
    assert rules.loc["BR-LR", "scaling"] == "maxabs"
    (caption,) = [c.value for c in at.caption if "Runs on all" in c.value]
    assert "Features: **maxabs** (chosen in the sidebar)" in caption
    old = run_cv(cmp_methods=["BR-LR"], cmp_folds="2", scaling="l2")
    assert old.selectbox(key="scaling").value == "l2"
    assert frame_with(old, "decision rule").set_index("method").loc["BR-LR", "scaling"] == "l2"
    ref = reference(["BR-LR"], 2, "l2")
    summary = frame_with(old, "Micro F1 ↑")
    mean = ref[ref["measure"] == "micro_f1"]["value"].mean()
    assert summary.loc["BR-LR", "Micro F1 ↑"].startswith(f"{mean:.3f} ±")
    # the sidebar's auto on dense emotions is standard, and the caption says which it became
    auto = run_cv(cmp_methods=["BR-LR"], cmp_folds="2")
    (caption,) = [c.value for c in auto.caption if "Runs on all" in c.value]
    assert "Features: **standard** (the sidebar's *auto* for these features)" in caption
    # an old link with a value the sidebar does not offer is ignored, not an error
    ok(run_cv(cmp_methods=["BR-LR"], cmp_folds="2", cmp_feature_scaling="bogus"))


def test_standard_protocol_job_equals_evaluate_split_on_the_standard_files(job_token):
    """``protocol="standard"``: one fit on the standard training file, scored on its test file -- the same table
    as :func:`mlviz.evaluation.evaluate_split` (what ``mlviz evaluate TRAIN --test TEST`` runs) with the
    estimators built by hand."""
    from mlviz.dashboard import compute, state
    from mlviz.data import load_standard_split
    from mlviz.evaluation import evaluate_split
    from mlviz.models import BinaryRelevance, MLkNN

    ctx = state.sample_context("emotions")
    request = {"settings": {"mlknn": {}, "br": {}}, "folds": 1, "scaling": "standard", "tune": False,
               "protocol": "standard"}
    res = compute.cross_validation_fn(ctx, request)(job_token)
    train, test = load_standard_split("emotions")
    ref = evaluate_split({"ML-kNN": MLkNN(k=20, s=0.5, threshold=0.35),
                          "BR-LR": BinaryRelevance(C=30.0, threshold=0.25, empty_set="auto")},
                         train.X, train.Y, test.X, test.Y, scaling="standard", random_state=0)
    key = ["method", "fold", "measure"]
    a = res.sort_values(key).reset_index(drop=True)
    b = ref.sort_values(key).reset_index(drop=True)
    assert set(a["fold"]) == {0} and len(a) == len(b)
    pd.testing.assert_frame_equal(a[key + ["decision_rule", "scaling"]], b[key + ["decision_rule", "scaling"]])
    np.testing.assert_allclose(a["value"].to_numpy(), b["value"].to_numpy(), rtol=0, atol=1e-12)


def test_standard_protocol_on_the_page_shows_the_published_numbers_beside_ours(downloads):
    from mlviz.reproductions import standard_splits

    at = run_cv(cmp_methods=["BR-LR", "ML-kNN", "ML-LSPC"], cmp_protocol="standard train/test split")
    assert any("standard training file" in c.value and "391 instances" in c.value for c in at.caption)
    # the controls say what runs: no "cross-validation" button, the unused folds slider disabled
    assert "Run on the standard split" in at.button(key="cmp_run").label
    assert at.select_slider(key="cmp_folds").disabled
    assert {"emotions_split_summary.csv", "emotions_split_timing.csv", "emotions_split_results.csv"} <= set(downloads)
    summary = frame_with(at, "Micro F1 ↑")
    assert list(summary.index) == ["BR-LR", "ML-kNN", "ML-LSPC", *REFS]
    beside = frame_with(at, "micro-F1 (published)")
    assert list(beside["method"]) == ["BR-LR", "ML-kNN"]  # ML-LSPC is not in the study
    assert list(beside["published as"]) == ["BR", "ML-kNN"]
    for measure in standard_splits.PUBLISHED_MEASURES:
        name = standard_splits.MEASURE_NAMES[measure]
        assert list(beside[f"{name} (published)"]) == [standard_splits.published("emotions", m, measure)
                                                       for m in ("BR", "ML-kNN")]
    assert float(summary.loc["BR-LR", "Micro F1 ↑"]) == pytest.approx(beside["micro-F1 (ours)"].iloc[0], abs=5e-4)
    # a data set without standard files has no protocol choice
    plain = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    plain.query_params["data"] = "medical"
    ok(plain.run())
    assert not [r for r in plain.radio if r.key == "cmp_protocol"]
