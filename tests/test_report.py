"""Report pack (mlviz.report): the script in the zip reproduces the pack's measures."""

import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from sklearn.linear_model import LogisticRegression

from mlviz.data import MultiLabelDataset, load_sample
from mlviz.models import BinaryRelevance, MLkNN, SparseCDN
from mlviz.report import (
    PackSettings,
    build_report_pack,
    content_hash,
    estimator_from_spec,
    estimator_spec,
    fit_and_measure,
)

REPO = Path(__file__).resolve().parents[1]


def _split(n, seed=0):
    perm = np.random.default_rng(seed).permutation(n)
    n_test = round(n / 3)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def _run_script(folder):
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, str(folder / "reproduce.py")], capture_output=True,
                          text=True, env=env, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    return pd.read_csv(io.StringIO(proc.stdout))


def test_estimator_spec_round_trip_and_refuses_foreign_classes():
    br = BinaryRelevance(estimator=LogisticRegression(C=10.0, max_iter=500), threshold=0.4)
    spec = json.loads(json.dumps(estimator_spec(br)))
    again = estimator_from_spec(spec)
    assert isinstance(again, BinaryRelevance) and again.threshold == 0.4
    assert again.estimator.C == 10.0 and again.estimator.max_iter == 500
    with pytest.raises(ValueError, match="only mlviz and scikit-learn"):
        estimator_from_spec({"class": "os.system", "params": {}})


def test_content_hash_sees_every_value_and_label_name():
    ds = MultiLabelDataset(np.arange(6.0).reshape(3, 2), np.array([[1, 0], [0, 1], [1, 1]]))
    h = content_hash(ds)
    assert h.startswith("sha256:") and h == content_hash(ds.copy())
    changed = ds.copy()
    changed.X[0, 0] = 0.5
    assert content_hash(changed) != h
    renamed = ds.copy()
    renamed.label_names = ["a", "b"]
    assert content_hash(renamed) != h


def test_pack_for_emotions_reproduces_its_measures(tmp_path):
    ds = load_sample("emotions")
    train, test = _split(ds.n_samples)
    settings = PackSettings(
        methods={"BR-LR": BinaryRelevance(), "ML-kNN": MLkNN(k=10)}, train_index=train,
        test_index=test, sample="emotions", seed=0, split="seeded 2/3-1/3 split, seed 0",
        scaling="standard", rule="rcut", rule_param=2, at_least_one_label=False,
        extra={"page": "compare"})
    results = fit_and_measure(ds, settings)
    fig = go.Figure(go.Bar(x=list(results["measures"].index),
                           y=results["measures"]["micro_f1"]), layout=dict(width=500, height=300))
    info = build_report_pack(tmp_path / "pack.zip", ds, settings, results,
                             {"Micro-F1 <b>by</b> method": fig}, images="never")
    with zipfile.ZipFile(tmp_path / "pack.zip") as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "pack")
    assert {"config.json", "reproduce.py", "measures.csv", "report.html", "posteriors/BR-LR.csv",
            "posteriors/ML-kNN.csv", "figures/README.txt"} <= names
    assert "data.npz" not in names and info["skipped_images"] == ["Micro-F1 <b>by</b> method"]
    folder = tmp_path / "pack"
    config = json.loads((folder / "config.json").read_text())
    assert config["data"]["content_hash"] == content_hash(ds)
    assert config["seed"] == 0 and config["decision_rule"]["param"] == 2
    assert config["split"]["test"] == test.tolist()
    pack = pd.read_csv(folder / "measures.csv")
    printed = _run_script(folder)
    merged = pack.merge(printed, on=["method", "measure"], suffixes=("_pack", "_script"))
    assert len(merged) == len(pack) == 2 * len(settings.measures)
    np.testing.assert_allclose(merged["value_script"], merged["value_pack"], rtol=0, atol=1e-6)
    # the CSV numbers are the fitted results themselves
    for _, row in pack.iterrows():
        assert row["value"] == results["measures"].loc[row["method"], row["measure"]]
    post = pd.read_csv(folder / "posteriors" / "BR-LR.csv")
    np.testing.assert_allclose(post[ds.label_names].to_numpy(), results["posteriors"]["BR-LR"])
    # self-contained HTML: plotly.js inlined, nothing fetched over http(s)
    html = (folder / "report.html").read_text()
    assert len(html) > 1_000_000 and "&lt;b&gt;by&lt;/b&gt;" in html
    assert not re.search(r"""<(script|link|img|iframe)[^>]+(src|href)\s*=\s*["']?(https?:)?//""",
                         html, re.I)
    assert not re.search(r"@import\s+url\(\s*[\"']?https?:", html, re.I)


def test_pack_for_an_uploaded_data_set_ships_the_data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    Y = (X[:, :2] + 0.3 * rng.normal(size=(60, 2)) > 0).astype(int)
    ds = MultiLabelDataset(X, Y, label_names=["=cmd|' /C calc'!A0", "b"], name="upload")
    train, test = _split(60)
    cdn = SparseCDN(gamma=0.5, mu=0.1, n_burn=10, n_samples=30, random_state=0)
    settings = PackSettings(methods={"BR": BinaryRelevance(), "CDN": cdn}, train_index=train,
                            test_index=test, sample=None, scaling="none", rule="threshold",
                            rule_param=0.5, at_least_one_label=True)
    results = fit_and_measure(ds, settings)
    assert results["models"]["CDN"].label_graph_.number_of_edges() > 0
    buf = io.BytesIO()
    build_report_pack(buf, ds, settings, results)
    with zipfile.ZipFile(buf) as zf:
        zf.extractall(tmp_path)
    assert (tmp_path / "data.npz").exists()
    edges = pd.read_csv(tmp_path / "edges.csv")
    assert set(edges["method"]) == {"CDN"} and len(edges) == results["edges"].shape[0]
    assert set(edges["source"]) <= {"'=cmd|' /C calc'!A0", "b"}
    header = (tmp_path / "posteriors" / "BR.csv").read_text().splitlines()[0]
    assert header.startswith("row,'=cmd")  # formula neutralised
    pack = pd.read_csv(tmp_path / "measures.csv")
    printed = _run_script(tmp_path)
    np.testing.assert_allclose(printed["value"], pack["value"], atol=1e-6)


def test_pack_writes_static_images_when_a_browser_is_there(tmp_path):
    from mlviz.plotting.export import figure_to_png

    fig = go.Figure(go.Scatter(x=[0, 1], y=[1, 0]), layout=dict(width=300, height=200))
    if figure_to_png(fig) is None:
        pytest.skip("kaleido/Chromium not available: images are skipped with a note")
    ds = MultiLabelDataset(np.eye(6)[:, :3], np.eye(6)[:, 3:])
    settings = PackSettings(methods={"BR": BinaryRelevance()}, train_index=[0, 1, 2, 3],
                            test_index=[4, 5], scaling="none")
    results = {"measures": pd.DataFrame({"micro_f1": [0.5]}, index=["BR"]), "posteriors": {}}
    info = build_report_pack(tmp_path / "p.zip", ds, settings, results, {"curve": fig})
    with zipfile.ZipFile(tmp_path / "p.zip") as zf:
        assert zf.read("figures/curve.png")[:8] == b"\x89PNG\r\n\x1a\n"
        assert zf.read("figures/curve.svg").lstrip().startswith(b"<svg")
    assert info["images"] == ["curve"]


def test_pack_holds_the_pages_tables_whole_in_csv_and_their_head_in_the_report(tmp_path):
    from mlviz.report import HTML_TABLE_ROWS

    ds = MultiLabelDataset(np.eye(6)[:, :3], np.eye(6)[:, 3:])
    settings = PackSettings(methods={"BR": BinaryRelevance()}, train_index=[0, 1, 2, 3],
                            test_index=[4, 5], scaling="none")
    results = {"measures": pd.DataFrame({"micro_f1": [0.5]}, index=["BR"]), "posteriors": {}}
    long = pd.DataFrame({"k": np.arange(HTML_TABLE_ROWS + 7), "x": np.linspace(0, 1, HTML_TABLE_ROWS + 7)})
    small = pd.DataFrame({"value": [0.25, np.nan]}, index=pd.Index(["a <b>", "b"], name="name"))
    build_report_pack(tmp_path / "p.zip", ds, settings, results, None, images="never",
                      tables={"Per-fold results": long, "A & <i>b</i>": small})
    with zipfile.ZipFile(tmp_path / "p.zip") as zf:
        pd.testing.assert_frame_equal(pd.read_csv(io.BytesIO(zf.read("tables/Per-fold_results.csv"))), long)
        back = pd.read_csv(io.BytesIO(zf.read("tables/A_i_b_i.csv")))  # (a named index becomes a column)
        assert back["name"].tolist() == ["a <b>", "b"] and back["value"].iloc[0] == 0.25
        html = zf.read("report.html").decode()
    tables = html.split("<h2>Tables</h2>")[1]
    first = tables.split("<h3>")[1]
    assert first.count("<tr>") == HTML_TABLE_ROWS + 1  # (the head row, then the first rows only)
    assert f"the first {HTML_TABLE_ROWS} of {HTML_TABLE_ROWS + 7} rows" in first
    second = tables.split("<h3>")[2]
    assert second.startswith("A &amp; &lt;i&gt;b&lt;/i&gt;</h3>") and "<th>a &lt;b&gt;</th>" in second
    assert "<td>0.2500</td>" in second and "<td>—</td>" in second  # (a missing number as a dash)
