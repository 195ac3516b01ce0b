"""AppTests of the teaching pages (sandbox, decision-rule playground, report pack).

Every test asserts on the values a page shows against the library computed
independently for the same settings (same seed, same split).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from _apptest import ok
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
SANDBOX = str(ROOT / "pages" / "5_Sandbox.py")
DECISION = str(ROOT / "pages" / "6_Decision_rules.py")
TIMEOUT = 120
DATASETS = ["emotions", "yeast", "scene", "enron", "medical"]


@pytest.fixture(autouse=True)
def clear_caches(fresh_dashboard):
    yield


def run(path, error_expected=False, **query):
    at = AppTest.from_file(path, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = str(v)
    return ok(at.run(), error_expected=error_expected)


def metrics(at):
    return {m.label: m.value for m in at.metric}


def charts(at):
    return {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def frame_with(at, column):
    """The one dataframe shown with ``column``."""
    (frame,) = [df.value for df in at.dataframe if column in df.value.columns]
    return frame


def chart(at, key):
    (spec,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if c.proto.id.endswith(key)]
    return spec


# ----------------------------------------------------------------------- sandbox

def planted_of(structure, n=1000, d=10, seed=0, share=0.5):
    from mlviz.data.synthetic import make_planted, parse_structure

    n_free = sum(size + (kind == "hub") for kind, size in parse_structure(structure) if kind != "xor")
    return make_planted(structure, n_samples=n, n_features=d, coupling=3.0, feature_strength=2.0, noise=0.0,
                        cardinality=share * n_free, imbalance=1.0, random_state=seed)


def test_sandbox_default_view_shows_the_recovery_of_the_planted_chain():
    from mlviz.sandbox import recovery_path

    at = run(SANDBOX)
    expected = recovery_path(planted_of("chain:5,indep:1")).set_index("gamma_ratio").loc[0.1]
    m = metrics(at)
    assert m["Edge precision"] == f"{expected['precision']:.3f}"
    assert m["Edge recall"] == f"{expected['recall']:.3f}"
    assert m["Edge F1"] == f"{expected['f1']:.3f}"
    assert (m["True edges"], m["False edges"], m["Missed edges"]) == tuple(
        str(int(expected[k])) for k in ("n_true", "n_false", "n_missed"))
    assert expected["recall"] == 1.0  # the story: every planted chain edge is found
    fig = chart(at, "sb_graph")
    drawn = {t["meta"]["status"]: t["meta"]["n_edges"] for t in fig["data"] if t.get("meta", {}).get("kind") == "edges"}
    assert drawn == {"true": expected["n_true"], "false": expected["n_false"], "missed": expected["n_missed"]}
    styles = {t["meta"]["status"]: t["line"]["dash"] for t in fig["data"] if t.get("meta", {}).get("kind") == "edges"}
    assert styles == {"true": "solid", "false": "dash", "missed": "dot"}
    path = chart(at, "sb_path")
    assert [s for s in path["layout"]["shapes"] if s["name"] == "current"][0]["x0"] == pytest.approx(-1.0)


def test_sandbox_url_settings_give_the_same_graph_as_the_library():
    from mlviz.sandbox import recovery_path

    at = run(SANDBOX, sb_preset="hub", sb_seed=3, sb_gamma=0.3, sb_n=500, sb_d=5)
    path = recovery_path(planted_of("hub:4,indep:1", n=500, d=5, seed=3), random_state=3).set_index("gamma_ratio")
    expected = path.loc[0.3]
    m = metrics(at)
    assert (m["Edge precision"], m["Edge recall"]) == (f"{expected['precision']:.3f}", f"{expected['recall']:.3f}")
    # a γ move is a lookup on the same path
    at.select_slider(key="sb_gamma").set_value(0.02).run()
    ok(at)
    low = path.loc[0.02]
    assert metrics(at)["False edges"] == str(int(low["n_false"]))
    assert metrics(at)["Edge precision"] == f"{low['precision']:.3f}"


def test_sandbox_reveal_shows_brs_xor_failure_with_the_library_numbers():
    from mlviz.sandbox import compare_on_planted

    at = run(SANDBOX, sb_preset="xor", sb_guess="BR", sb_reveal="true")
    table = compare_on_planted(planted_of("xor:3,indep:2"), gamma_ratio=0.1, random_state=0)["measures"]
    m = metrics(at)
    for method in ("BR", "PCC", "PCC joint mode", "SparseCDN"):
        assert m[method] == f"{table.loc[method, 'xor_exact']:.3f}"
    best = table["xor_exact"].idxmax()
    assert best != "BR" and table.loc["BR", "xor_exact"] < table.loc["PCC joint mode", "xor_exact"]
    assert f"**{best}**" in at.success[0].value and "you guessed BR" in at.success[0].value


def test_sandbox_custom_structure_and_a_bad_one():
    at = run(SANDBOX, sb_preset="custom", sb_structure="chain:3,xor:2", sb_n=500)
    from mlviz._text import escape_markdown

    planted = [md.value for md in at.markdown if md.value.startswith("**Planted:**")][0]
    assert escape_markdown("chain:3,xor:2") in planted and "5 labels, 3 dependencies" in planted
    assert metrics(at)["Edge recall"]  # the graph of the custom structure is shown
    # typed in the box: the page says what is wrong and draws nothing
    at.text_input(key="sb_structure").set_value("chain:x").run()
    assert at.error and "Bad structure item" in at.error[0].value
    assert not at.get("plotly_chart")
    # in a link: the URL schema refuses it before any work, names the reason, and the box keeps its default
    at = run(SANDBOX, sb_preset="custom", sb_structure="chain:x")
    assert "sb_structure" not in at.query_params
    assert any("Bad structure item" in c.value.replace("\\", "") for c in at.sidebar.caption)
    assert at.text_input(key="sb_structure").value == "chain:3,xor:2,indep:1"


def test_sandbox_lspc_gamma_gain_table_equals_the_library():
    from mlviz.sandbox import lspc_gamma_gain

    at = run(SANDBOX, sb_lspc="true", sb_n=200, sb_d=2)
    shown = frame_with(at, "gain")
    expected = lspc_gamma_gain((4, 16), random_state=0)
    np.testing.assert_allclose(shown["gain"].to_numpy(), expected["gain"].to_numpy(), rtol=0, atol=1e-12)
    assert list(shown["T"]) == [4, 16]


# ----------------------------------------------------------------------- decision-rule playground

def split(name):
    from mlviz.data import load_protocol_split
    from mlviz.preprocessing import scale_split

    train, test = load_protocol_split(name)
    Xtr, Xte = scale_split(train.X, test.X)  # the dashboard's default scaling
    return Xtr, np.asarray(train.Y), Xte, np.asarray(test.Y), list(train.label_names)


def posteriors(method_key, Xtr, Ytr, Xte):
    from mlviz.dashboard.methods import METHODS, Scale, median_distance

    est = METHODS[method_key].from_sliders({}, Scale(Ytr.shape[0], lambda: median_distance(Xtr)))
    return np.clip(np.nan_to_num(est.fit(Xtr, Ytr).predict_proba(Xte)), 0, 1)


def expected_row(Y, P, rule, param, alo):
    from mlviz.decision import CURVE_MEASURES, apply_rule, empty_rate
    from mlviz.metrics import evaluate
    from mlviz.plotting.teach import measure_label

    Y_pred = apply_rule(P, rule, param, at_least_one_label=alo)
    vals = evaluate(Y, P, measures=list(CURVE_MEASURES), y_pred=Y_pred)
    vals["empty_rate"] = empty_rate(Y_pred)
    return {measure_label(k): f"{v:.4f}" for k, v in vals.items()}


# one rule per data set keeps each run to a few seconds; every rule is walked on emotions below
CASES = {
    "emotions": (dict(dr_rule="threshold", dr_t=0.3, dr_alo="true"), "threshold", 0.3, True),
    "yeast": (dict(dr_rule="rcut", dr_k=3), "rcut", 3, False),
    "scene": (dict(dr_rule="mcut"), "mcut", None, False),
    "enron": (dict(dr_rule="per_label", dr_label="__LABEL2__", dr_tl=0.2), "per_label", ("label", 2, 0.2), False),
    "medical": (dict(dr_rule="threshold", dr_t=0.5), "threshold", 0.5, False),
}


@pytest.mark.parametrize("name", DATASETS)
def test_decision_metrics_equal_the_rule_applied_independently(name):
    query, rule, param, alo = CASES[name]
    Xtr, Ytr, Xte, Yte, label_names = split(name)
    if "dr_label" in query:  # the URL holds the label's name
        query = dict(query, dr_label=label_names[2])
    at = run(DECISION, data=name, dr_method="ML-kNN", **query)
    assert at.radio(key="dr_rule").value == rule and at.selectbox(key="dr_method").value == "mlknn"
    P = posteriors("mlknn", Xtr, Ytr, Xte)
    if isinstance(param, tuple):
        t = np.full(Yte.shape[1], 0.5)
        t[param[1]] = param[2]
        param = t
    shown = metrics(at)
    assert shown == expected_row(Yte, P, rule, param, alo)
    if rule != "mcut":
        fig = chart(at, "dr_curves")
        current = [s for s in fig["layout"]["shapes"] if s["name"] == "current"][0]
        assert current["x0"] == {"threshold": query.get("dr_t"), "rcut": query.get("dr_k"),
                                 "per_label": query.get("dr_tl")}[rule]


def test_decision_page_states_the_models_own_rule_and_its_numbers():
    """Beside the playground's rule, the caption names the model's own rule (the registry's, as on Posteriors and
    Compare) and its test numbers, computed here from the estimator's own predict."""
    from mlviz.dashboard.methods import METHODS, Scale, median_distance
    from mlviz.decision import empty_rate
    from mlviz.metrics import evaluate

    Xtr, Ytr, Xte, Yte, _ = split("emotions")
    at = run(DECISION, dr_method="BR-LR")
    est = METHODS["br"].from_sliders({}, Scale(Ytr.shape[0], lambda: median_distance(Xtr))).fit(Xtr, Ytr)
    pred = est.predict(Xte)
    vals = evaluate(Yte, est.predict_proba(Xte), measures=["micro_f1", "subset_accuracy"], y_pred=pred)
    (caption,) = [c.value for c in at.caption if "own rule" in c.value]
    assert est.decision_rule_ in caption.replace("\\", "")
    assert f"micro-F1 {vals['micro_f1']:.4f}" in caption and f"subset accuracy {vals['subset_accuracy']:.4f}" in caption
    assert f"{empty_rate(pred):.1%} empty" in caption


def test_decision_every_rule_on_emotions_and_the_reveal():
    from mlviz.dashboard.methods import METHODS, Scale
    from mlviz.decision import compare_rules, scut_cv

    Xtr, Ytr, Xte, Yte, _ = split("emotions")
    P = posteriors("mlknn", Xtr, Ytr, Xte)
    at = run(DECISION, dr_method="ML-kNN")
    assert metrics(at) == expected_row(Yte, P, "threshold", 0.5, False)
    at.radio(key="dr_rule").set_value("rcut").run()
    at.slider(key="dr_k").set_value(2).run()
    assert metrics(ok(at)) == expected_row(Yte, P, "rcut", 2, False)
    at.radio(key="dr_rule").set_value("mcut").run()
    assert metrics(ok(at)) == expected_row(Yte, P, "mcut", None, False)
    at.radio(key="dr_rule").set_value("scut").run()
    at.slider(key="dr_off").set_value(0.05).run()
    tuned, _ = scut_cv(METHODS["mlknn"].from_sliders({}, Scale(Ytr.shape[0], lambda: 1.0)), Xtr, Ytr, measure="f1",
                       n_splits=3, random_state=0)
    assert metrics(ok(at)) == expected_row(Yte, P, "scut", tuned + 0.05, False)
    at.toggle(key="dr_reveal").set_value(True).run()
    ok(at)
    table = compare_rules(Yte, P, target="subset_accuracy", scut=tuned)
    shown = frame_with(at, "best")
    np.testing.assert_allclose(shown["subset_accuracy"].to_numpy(dtype=float),
                               table["subset_accuracy"].to_numpy(dtype=float), atol=1e-12)
    assert "oracle" in at.caption[-1].value or any("oracle" in c.value for c in at.caption)


# ----------------------------------------------------------------------- report pack

@pytest.mark.slow(seconds=4)
def test_report_pack_download_is_a_zip_whose_script_reproduces_the_page(monkeypatch, tmp_path):
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    stored = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def capture(self, path_or_data, *args, **kwargs):
        file_id = original(self, path_or_data, *args, **kwargs)
        stored[file_id] = path_or_data
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", capture)
    at = run(DECISION, dr_method="ML-kNN", dr_rule="rcut", dr_k=2)
    page = metrics(at)
    at.button(key="dr_pack_go").click().run()
    ok(at)
    (button,) = [b for b in at.get("download_button") if "report pack" in b.proto.label]  # (figures have theirs)
    file_id = button.proto.url.rsplit("/", 1)[-1].split(".")[0]
    data = stored[file_id]
    zf = zipfile.ZipFile(io.BytesIO(data))
    names = set(zf.namelist())
    assert {"report.html", "config.json", "reproduce.py", "measures.csv"} <= names
    config = json.loads(zf.read("config.json"))
    assert config["data"]["sample"] == "emotions"
    assert config["decision_rule"]["rule"] == "rcut" and config["decision_rule"]["param"] == 2
    zf.extractall(tmp_path)
    out = subprocess.run([sys.executable, str(tmp_path / "reproduce.py")], capture_output=True, text=True,
                         timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    rows = {r["measure"]: float(r["value"]) for r in csv.DictReader(io.StringIO(out.stdout))}
    Xtr, Ytr, Xte, Yte, _ = split("emotions")
    P = posteriors("mlknn", Xtr, Ytr, Xte)
    from mlviz.decision import apply_rule
    from mlviz.metrics import evaluate

    expected = evaluate(Yte, P, measures=config["measures"], y_pred=apply_rule(P, "rcut", 2))
    for k, v in expected.items():
        assert rows[k] == pytest.approx(v, abs=1e-6)
    assert page["Subset accuracy ↑"] == f"{rows['subset_accuracy']:.4f}"


def test_sandbox_answers_at_once_with_progress_then_shows_the_graph(monkeypatch):
    from mlviz.dashboard import compute

    monkeypatch.setattr(compute, "WAIT", 0.0)
    at = run(SANDBOX, sb_seed=7)
    notice = [i.value for i in at.info if "Fitting the sparse CDN along the γ path" in i.value]
    assert notice and not at.metric  # nothing computed yet, nothing stale shown
    compute.RUNNER.wait_idle(120)
    at.run()
    ok(at)
    assert metrics(at)["Edge recall"]
