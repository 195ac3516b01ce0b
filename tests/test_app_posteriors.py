"""AppTests of the Posteriors page: the values shown against the library computed independently.

The measures equal :func:`mlviz.metrics.evaluate` of the model's own ``predict`` (or of the
threshold set on the page), the threshold drawn on the figures equals the control, and a
159-label data set gets at most 50 per-label sliders (only for the labels drawn at full width).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from _apptest import array, chart, ok, open_app

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "3_Posteriors.py")
TIMEOUT = 120
HEADLINE = ["micro_f1", "macro_f1", "example_f1", "hamming_loss", "subset_accuracy", "macro_auc"]


pytestmark = pytest.mark.usefixtures("dashboard_no_prefetch")  # fresh caches; only the work asked for


def run(query=None, session=None):
    return open_app(PAGE, query, session, timeout=TIMEOUT)


def metrics(at):
    return {m.label: m.value for m in at.metric}


def z_of(trace):
    """A heatmap's z as an array."""
    return array(trace["z"])


def emotions_split():
    from mlviz.data import load_protocol_split
    from mlviz.preprocessing import scale_split

    train, test = load_protocol_split("emotions")
    Xtr, Xte = scale_split(train.X, test.X, "standard")
    return Xtr, np.asarray(train.Y), Xte, np.asarray(test.Y)


def fitted(method_key, Xtr, Ytr, values=None):
    """The estimator of the dashboard's method at ``values`` (defaults otherwise), fitted from scratch."""
    from mlviz.dashboard.methods import METHODS, Scale, median_distance

    est = METHODS[method_key].from_sliders(values or {}, Scale(Ytr.shape[0], lambda: median_distance(Xtr)))
    return est.fit(Xtr, Ytr)


def shown_values(at):
    from mlviz.metrics import MEASURES

    m = metrics(at)
    return {k: m[f"{MEASURES[k].label} {'↑' if MEASURES[k].greater_is_better else '↓'}"] for k in HEADLINE}


@pytest.mark.parametrize("method", ["mlrh", "mllspc"])
def test_measures_are_the_models_own_predict(method):
    """Default rule: each model's own predict (MLRH: not a probability cut; ML-LSPC: P >= 0.5)."""
    from mlviz.dashboard.methods import METHODS
    from mlviz.metrics import evaluate

    Xtr, Ytr, Xte, Yte = emotions_split()
    model = fitted(method, Xtr, Ytr)
    P = np.clip(np.nan_to_num(model.predict_proba(Xte)), 0, 1)
    expected = evaluate(Yte, P, measures=HEADLINE, y_pred=model.predict(Xte))
    at = run({"post_models": [METHODS[method].label], "post_rel": "true"})
    assert shown_values(at) == {k: f"{v:.3f}" for k, v in expected.items()}
    # beside each measure: its difference to the best trivial reference (issue 29, item 9), hand-checked in
    # tests/test_plotting_trivial_references.py
    from mlviz.metrics import MEASURES
    from mlviz.plotting.tables import trivial_references

    refs = trivial_references(Ytr, Yte, HEADLINE).set_index("measure")
    deltas = {m.label: m.delta for m in at.metric}
    for k in HEADLINE:
        ref = refs.loc[k, "value"]
        label = f"{MEASURES[k].label} {'↑' if MEASURES[k].greater_is_better else '↓'}"
        assert deltas[label] == f"{expected[k] - ref:+.3f} vs trivial {ref:.3f}"
    assert any(c.value.startswith(":material/straighten: Trivial references") and refs.loc["macro_auc", "reference"]
               in c.value for c in at.caption)
    rule = model.decision_rule_
    assert any("Decision rule (own predict)" in c.value and rule.split()[0] in c.value for c in at.caption)
    heat = chart(at, f"fig_post_{method}")
    rel = chart(at, f"fig_rel_{method}")
    if method == "mllspc":  # its predict is P >= 0.5: the cut is drawn
        assert [s["x0"] for s in rel["layout"]["shapes"]] == [0.5]
        assert heat["data"][2]["name"] == "decision"
    else:  # MLRH's set-size-constrained rule is not a probability cut: nothing is drawn
        assert not rel["layout"].get("shapes")
        assert [t["name"] for t in heat["data"]] == ["P(y=1|x)", "true Y"]


def test_threshold_drawn_and_measured_equals_the_control():
    from mlviz.metrics import evaluate

    Xtr, Ytr, Xte, Yte = emotions_split()
    P = np.clip(np.nan_to_num(fitted("mlknn", Xtr, Ytr).predict_proba(Xte)), 0, 1)
    at = run({"post_models": ["ML-kNN"], "thr_mode": "global", "thr_global": "0.3"})
    # emotions' 202 test rows: 100 of them or all, drawn (no "500" or "2000" that mean the same)
    rows = at.select_slider(key="post_rows")
    assert rows.options == ["100", "202"] and rows.value == 202
    assert shown_values(at) == {k: f"{v:.3f}" for k, v in evaluate(Yte, P, threshold=0.3, measures=HEADLINE).items()}
    rel = chart(at, "fig_rel_mlknn")
    assert [s["x0"] for s in rel["layout"]["shapes"]] == [pytest.approx(0.3)]
    heat = chart(at, "fig_post_mlknn")
    (decision,) = [t for t in heat["data"] if t["name"] == "decision"]
    assert any("t = 0.30" in a.get("text", "") for a in heat["layout"]["annotations"])
    # the decision panel: outcome 2·y + [P >= 0.3] of every drawn cell, labels by frequency, rows by label set
    from mlviz.plotting.posterior import order_by_labelset

    cols = np.argsort(-Yte.sum(axis=0), kind="stable")
    order = order_by_labelset(Yte[:, cols])
    assert [int(v) for v in decision["y"]] == order.tolist()
    expected = 2 * Yte[np.ix_(order, cols)] + (P[np.ix_(order, cols)] >= 0.3)
    np.testing.assert_array_equal(z_of(decision), expected)
    at.slider(key="thr_global").set_value(0.7).run()
    ok(at)
    assert [s["x0"] for s in chart(at, "fig_rel_mlknn")["layout"]["shapes"]] == [pytest.approx(0.7)]
    assert shown_values(at)["micro_f1"] == f"{evaluate(Yte, P, threshold=0.7, measures=['micro_f1'])['micro_f1']:.3f}"
    # per label: each drawn label's line at its own slider
    at.radio(key="thr_mode").set_value("per label").run()
    at.slider(key="thr_l2").set_value(0.8).run()
    ok(at)
    t = np.full(6, 0.5)
    t[2] = 0.8
    assert sorted(s["x0"] for s in chart(at, "fig_rel_mlknn")["layout"]["shapes"]) == sorted(t.tolist())
    assert shown_values(at)["macro_f1"] == f"{evaluate(Yte, P, threshold=t, measures=['macro_f1'])['macro_f1']:.3f}"


def many_labels(n=660, d=12, L=159, seed=0):
    """A synthetic 159-label data set (Zipf-like label frequencies), registered as an upload."""
    from mlviz.dashboard.state import context_from_dataset
    from mlviz.data import MultiLabelDataset

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    rates = 0.3 / np.arange(1, L + 1) ** 0.7
    W = rng.normal(size=(d, L))
    logits = X @ W * 0.8 + np.log(rates / (1 - rates))
    Y = (rng.random((n, L)) < 1 / (1 + np.exp(-logits))).astype(np.uint8)
    Y[0] = 1  # every label has a positive
    ds = MultiLabelDataset(X, Y, label_names=[f"tag_{j}" for j in range(L)], name="synthetic-159")
    return context_from_dataset("upload:synthetic-159:test", ds)


def test_159_labels_get_sliders_only_for_the_labels_drawn():
    ctx = many_labels()
    session = {"mlviz_uploads": {ctx.key: ctx}, "data": ctx.key}
    at = run({"post_models": ["ML-kNN"], "thr_mode": "per label", "post_rows": "100"}, session)
    assert at.selectbox(key="data").value == ctx.key
    per_label = [s for s in at.slider if str(s.key).startswith("thr_l")]
    n_shown = at.select_slider(key="post_labels").value
    assert len(per_label) == n_shown == 20 <= 50
    freq = ctx.Y_train.sum(axis=0)
    top = np.sort(np.argsort(-freq, kind="stable")[:20])
    assert sorted(int(str(s.key)[5:]) for s in per_label) == top.tolist()  # the most frequent training labels
    assert at.slider(key="thr_rest") is not None
    heat = chart(at, "fig_post_mlknn")
    first = heat["data"][0]
    assert sorted(first["x"]) == sorted(f"tag_{j}" for j in top)
    assert len(first["y"]) == 100  # the stated sample of test instances
    assert f"100 of {ctx.Y_test.shape[0]}" in json.dumps(heat["layout"])
    (strip,) = [t for t in heat["data"] if t["name"] == "per-label AUC / F1"]
    assert len(strip["x"]) == 159  # every label summarised
    at.select_slider(key="post_labels").set_value(50).run()
    ok(at)
    assert len([s for s in at.slider if str(s.key).startswith("thr_l")]) == 50


def test_side_by_side_measures_table_equals_each_models_predict():
    from mlviz.metrics import MEASURES, evaluate

    Xtr, Ytr, Xte, Yte = emotions_split()
    at = run({"post_models": ["ML-kNN", "BR-LR"], "post_view": "side by side"})
    grid = chart(at, "fig_post_grid")
    assert [t["name"] for t in grid["data"]] == ["ML-kNN", "BR-LR", "true Y"]
    # the own rules are different probability cuts (ML-kNN 0.35, BR-LR 0.25 by default): the grid shows the
    # probabilities, each reliability plot its own model's line
    assert "beside the truth" in json.dumps(grid["layout"]["title"])
    for key in ("mlknn", "br"):
        own = fitted(key, Xtr, Ytr).threshold
        assert [s["x0"] for s in chart(at, f"fig_rel_{key}")["layout"]["shapes"]] == [own]
    (table,) = [df.value for df in at.dataframe if "model" in df.value.columns]
    for key, label in [("mlknn", "ML-kNN"), ("br", "BR-LR")]:
        model = fitted(key, Xtr, Ytr)
        P = np.clip(np.nan_to_num(model.predict_proba(Xte)), 0, 1)
        expected = evaluate(Yte, P, measures=HEADLINE, y_pred=model.predict(Xte))
        row = table[table["model"] == label].iloc[0]
        for k in HEADLINE:
            assert row[MEASURES[k].label] == pytest.approx(expected[k], abs=1e-12)
    # the trivial references as the last row, as on Compare (issue 29, item 9); no "None" in the table
    from mlviz.plotting.tables import trivial_references

    refs = trivial_references(Ytr, Yte, HEADLINE).set_index("measure")
    last = table.iloc[-1]
    assert last["model"].startswith("trivial reference")
    for k in HEADLINE:
        assert last[MEASURES[k].label] == pytest.approx(refs.loc[k, "value"], abs=1e-12)
    assert last["fit s"] == "—" and not table.isna().any().any()


def test_model_notes_read_monte_carlo_error_and_convergence():
    """describe_model: guarded reads of the attributes the page shows beside the posteriors."""
    from mlviz.dashboard.compute import describe_model
    from mlviz.models import KernelLogisticRegression

    class Stub:
        decision_rule_ = "threshold 0.5 on Gibbs marginals"
        predict_proba_se_ = np.array([[0.01, 0.03], [0.0, np.nan]])

    about = describe_model(Stub())
    assert about["se_mean"] == pytest.approx(0.01) and about["se_max"] == pytest.approx(0.03)
    assert about["threshold"] is None and "centers" not in about
    Xtr, Ytr, _, _ = emotions_split()
    klr = KernelLogisticRegression(random_state=0).fit(Xtr[:120], Ytr[:120])
    about = describe_model(klr)
    assert about["converged"] is bool(klr.converged_) and about["grad_max"] == pytest.approx(klr.grad_max_.max())
    assert about["centers"] == klr.centers_note_ and about["threshold"] == 0.5


def test_report_pack_holds_the_figures_on_the_page(monkeypatch):
    """Issue 29, item 7: the Posteriors pack's report.html holds the page's figures (offline), not "No figures"."""
    import io
    import zipfile

    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    stored = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def capture(self, path_or_data, *args, **kwargs):
        file_id = original(self, path_or_data, *args, **kwargs)
        stored[file_id] = path_or_data
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", capture)
    at = run({"post_models": ["ML-kNN"], "post_rel": "true"})
    at.button(key="post_pack_go").click().run()
    (button,) = [b for b in at.get("download_button") if "report pack" in b.proto.label]
    html = zipfile.ZipFile(io.BytesIO(stored[button.proto.url.rsplit("/", 1)[-1].split(".")[0]])).read(
        "report.html").decode()
    assert "No figures" not in html
    for caption in ("ML-kNN: P(y=1|x) beside the truth", "ML-kNN: reliability"):
        assert f"<figcaption>{caption}" in html.replace("&#x27;", "'")
    assert html.count("Plotly.newPlot") == 2 and '<script src="http' not in html  # offline: plotly.js inside


def test_a_slow_kernel_fit_shows_a_named_preview_then_the_exact_result(monkeypatch):
    """While the exact ML-LSPC (all 391 training rows as centres) is held back, the page draws the
    model with the preview's 50 centres, says so, and shows that model's measures (fitted here
    independently); once the exact fit is let through, its own measures replace them."""
    import threading

    from mlviz.dashboard import compute
    from mlviz.metrics import evaluate

    monkeypatch.setattr(compute, "PREVIEW_FLOPS", 0.0)
    monkeypatch.setattr(compute, "PREVIEW_CENTERS", 50)
    gate, base_fn = threading.Event(), compute._base_fn

    def held(ctx, method, slow):  # the exact fit waits for the gate; the preview's does not
        fn = base_fn(ctx, method, slow)
        return fn if slow.get("n_centers") == 50 else (lambda token: gate.wait(60) and fn(token))

    monkeypatch.setattr(compute, "_base_fn", held)
    monkeypatch.setattr(compute, "WAIT", 0.0)
    Xtr, Ytr, Xte, Yte = emotions_split()

    def expected(values):
        model = fitted("mllspc", Xtr, Ytr, values)
        P = np.clip(np.nan_to_num(model.predict_proba(Xte)), 0, 1)
        return {k: f"{v:.3f}" for k, v in evaluate(Yte, P, measures=HEADLINE, y_pred=model.predict(Xte)).items()}

    try:
        at = run()
        assert any("quick preview with 50 kernel centres" in i.value for i in at.info)
        for _ in range(600):  # the preview's job finishes (the browser's notice reruns the page then)
            if not any("is drawn first" in i.value for i in ok(at.run()).info):
                break
        assert any("Below: a **quick preview** with 50 kernel centres instead of 391" in i.value for i in at.info)
        assert any("Quick preview" in c.value for c in at.caption)
        assert shown_values(at) == expected({"n_centers": 50})
    finally:
        gate.set()
    compute.RUNNER.wait_idle(120)
    ok(at.run())
    assert not any("preview" in i.value.lower() for i in at.info)
    assert not any("Quick preview" in c.value for c in at.caption)
    assert shown_values(at) == expected({})
    gate.clear()  # a slider move while the new fit is held: the previous result, not a preview
    try:
        ok(at.select_slider(key="post_mllspc_sigma_factor").set_value(2.0).run())
        assert any("Below: the previous result" in i.value for i in at.info)
        assert not any("preview" in i.value.lower() for i in at.info) and shown_values(at) == expected({})
    finally:
        gate.set()
