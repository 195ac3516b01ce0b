"""Every page with models has a report pack holding that page's figures (issue 29, item 7): Embedding
and Label graph here (Posteriors in test_app_posteriors.py, Decision rules in test_app_teach.py)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

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
