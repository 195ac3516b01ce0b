"""Every page has a report pack holding that page's figures (offline) and tables (issue 29, item 7):
Embedding, Label graph, Home, Compare, Sandbox, Reference check, and the tables of Posteriors and
Decision rules here (their figures in test_app_posteriors.py and test_app_teach.py); a test checks
every registered page has one."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from _apptest import ok
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def stored(monkeypatch, dashboard_no_prefetch):
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    files = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def capture(self, path_or_data, *args, **kwargs):
        file_id = original(self, path_or_data, *args, **kwargs)
        files[file_id] = path_or_data
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", capture)
    return files


@pytest.mark.parametrize("page, key, captions", [
    ("pages/1_Embedding.py", "emb_pack", ["MLLEM joint embedding", "most frequent exact label sets", "PCA"]),
    ("pages/2_Label_graph.py", "cdn_pack", ["Sparse CDN label graph", "Plain co-occurrence graph",
                                            "Regularisation path", "FISTA convergence"]),
])
def test_the_pack_holds_the_pages_figures_offline(stored, page, key, captions):
    at = AppTest.from_file(str(ROOT / page), default_timeout=180)
    at.query_params["emb_umap"] = "false"
    ok(at.run())
    ok(at.button(key=f"{key}_go").click().run())
    (button,) = [b for b in at.get("download_button") if "report pack" in b.proto.label]
    zf = zipfile.ZipFile(io.BytesIO(stored[button.proto.url.rsplit("/", 1)[-1].split(".")[0]]))
    html = zf.read("report.html").decode()
    assert "No figures" not in html and '<script src="http' not in html
    figcaptions = [c.split("</figcaption>")[0] for c in html.split("<figcaption>")[1:]]
    for caption in captions:
        assert any(caption in c for c in figcaptions), (caption, figcaptions)
    assert html.count("Plotly.newPlot") == len(figcaptions) >= len(captions)
    assert json.loads(zf.read("config.json"))["data"]["sample"] == "emotions"


def _pack(at, stored, key):
    ok(at.button(key=f"{key}_go").click().run())
    (button,) = [b for b in at.get("download_button") if "report pack" in b.proto.label]
    return zipfile.ZipFile(io.BytesIO(stored[button.proto.url.rsplit("/", 1)[-1].split(".")[0]]))


def _holds(zf, captions, tables):
    """The pack's report.html draws ``captions`` (figures, plotly.js inlined: no script from a server) and
    ``tables`` (a heading each, and the CSV in tables/ with the table's rows); returns the config."""
    html = zf.read("report.html").decode()
    assert '<script src="http' not in html
    figcaptions = [c.split("</figcaption>")[0] for c in html.split("<figcaption>")[1:]]
    for caption in captions:
        assert any(caption in c for c in figcaptions), (caption, figcaptions)
    assert html.count("Plotly.newPlot") == len(figcaptions) >= len(captions)
    if figcaptions:
        assert html.count("<script>/**\n* plotly.js v") == 1  # (inlined once)
    csvs = [n for n in zf.namelist() if n.startswith("tables/")]
    headings = [h.split("</h3>")[0] for h in html.split("<h3>")[1:]]
    for caption, rows in tables.items():
        assert any(caption in h for h in headings), (caption, headings)
        stem = "tables/" + re.sub(r"[^A-Za-z0-9_.-]+", "_", caption)
        (name,) = [n for n in csvs if n.startswith(stem)]
        frame = pd.read_csv(io.BytesIO(zf.read(name)))
        assert len(frame) == rows if rows is not None else len(frame) > 0, (name, len(frame), rows)
    return json.loads(zf.read("config.json"))


def test_home_pack_holds_the_data_figures_and_tables(stored):
    at = AppTest.from_file(str(ROOT / "pages/0_Home.py"), default_timeout=180)
    ok(at.run())
    config = _holds(_pack(at, stored, "home_pack"), ["Label frequency", "Label co-occurrence"],
                    {"Statistics": len(at.dataframe[0].value), "Preview": 50})
    assert config["data"]["sample"] == "emotions" and list(config["methods"]) == ["BR-LR"]


def test_compare_pack_holds_the_cross_validation(stored):
    at = AppTest.from_file(str(ROOT / "pages/4_Compare.py"), default_timeout=180)
    at.query_params["cmp_folds"] = "2"
    ok(at.run())
    ok(at.button(key="cmp_run").click().run())
    summary, rules = (len(d.value) for d in at.dataframe[:2])  # (the two tables on the page)
    config = _holds(_pack(at, stored, "cmp_pack"), ["Mean ± std over folds", "Fit and predict time per fold"],
                    {"Summary": summary, "Decision rule": rules, "Timing": None, "Per-fold": None})
    from mlviz.dashboard.methods import METHODS

    chosen = {METHODS[k].label for k in at.multiselect(key="cmp_methods").value}
    assert set(config["methods"]) == chosen >= {"BR-LR", "ML-kNN"} and config["extra"]["folds"] == 2


def test_sandbox_pack_holds_the_planted_data_and_the_recovery(stored):
    at = AppTest.from_file(str(ROOT / "pages/5_Sandbox.py"), default_timeout=180)
    at.query_params["sb_n"] = "200"
    ok(at.run())
    zf = _pack(at, stored, "sb_pack")
    config = _holds(zf, ["against the planted graph"], {"Edge recovery": 1, "Edge precision": 8})
    assert "data.npz" in zf.namelist() and config["data"]["sample"] is None
    assert config["split"]["train"] == list(range(100)) and config["split"]["test"] == list(range(100, 200))
    assert set(config["methods"]) == {"BR", "PCC", "SparseCDN"}


def test_reference_check_pack_holds_the_tables_and_reproduces_ours(stored):
    at = AppTest.from_file(str(ROOT / "pages/7_Reference_check.py"), default_timeout=180)
    at.query_params["ref_data"] = "emotions"
    ok(at.run())
    ok(at.button(key="ref_run").click().run())
    zf = _pack(at, stored, "ref_pack")
    shown = at.dataframe[0].value
    config = _holds(zf, [], {"Our numbers beside": len(shown)})
    assert "No figures on this page" in zf.read("report.html").decode()
    # reproduce.py's numbers (measures.csv) are the page's "Ours" column
    measures = pd.read_csv(io.BytesIO(zf.read("measures.csv"))).set_index(["method", "measure"])["value"]
    for row in shown.itertuples():
        if (row.Method, row.Measure) in measures.index:
            assert measures[(row.Method, row.Measure)] == pytest.approx(float(row.Ours), abs=1e-6), row
    assert config["data"]["sample"] == "emotions" and set(config["methods"]) == {"BR-LR", "ML-kNN", "PCC"}


def test_every_registered_page_offers_a_report_pack():
    """One mechanism for all: every page file calls report_pack.section."""
    from mlviz.dashboard.pages import PAGES

    for page in PAGES:
        assert "report_pack.section(" in (ROOT / page.path).read_text(), page.path


def test_posteriors_pack_holds_every_measures_table_drawn(stored):
    at = AppTest.from_file(str(ROOT / "pages/3_Posteriors.py"), default_timeout=180)
    ok(at.run())
    drawn = [d.value for d in at.dataframe]  # (each model's "all measures" table, on the page)
    zf = _pack(at, stored, "post_pack")
    csvs = sorted(n for n in zf.namelist() if n.startswith("tables/"))
    assert len(csvs) == len(drawn) >= 1
    for name in csvs:
        frame = pd.read_csv(io.BytesIO(zf.read(name)))
        assert any(list(frame.columns) == list(d.columns) and len(frame) == len(d) for d in drawn), name
    assert "all measures" in zf.read("report.html").decode()


def test_decision_rules_pack_holds_the_revealed_comparison(stored):
    at = AppTest.from_file(str(ROOT / "pages/6_Decision_rules.py"), default_timeout=180)
    at.query_params["dr_reveal"] = "true"
    ok(at.run())
    (shown,) = [d.value for d in at.dataframe]
    config = _holds(_pack(at, stored, "dr_pack"), ["Decision-rule curves"], {"The rules compared": len(shown)})
    assert config["data"]["sample"] == "emotions"
