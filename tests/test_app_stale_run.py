"""A page never mixes two data sets within one run (issue 29, item 10).

Embedding is drawn on emotions (6 labels); then a 159-label data set is loaded (as the Home page's
Load button does) and Embedding runs once: while the new MLLEM map is computed, the page must not
draw emotions' map with the new names (it raised ``ValueError: label_names has 159 entries for 6
labels`` in ``plotting.embedding_scatter``) -- a previous result is shown only if it is of the
same data set.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from _apptest import charts, ok, upload_session
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
L = 159


def _dataset():
    from mlviz.data import MultiLabelDataset

    rng = np.random.default_rng(0)
    n = 120
    Y = (rng.random((n, L)) < 0.05).astype(np.uint8)
    Y[np.arange(n), rng.integers(0, L, n)] = 1
    return MultiLabelDataset(rng.normal(size=(n, 8)), Y, label_names=[f"tag_{j:03d}" for j in range(L)],
                             name="tags-159")


def _titles(at):
    return [str(s["layout"].get("title", {}).get("text", "")) for s in charts(at).values()]


def test_first_embedding_run_after_an_upload_never_draws_the_previous_data_set(fresh_dashboard, monkeypatch):
    compute = fresh_dashboard
    at = AppTest.from_file(str(ROOT / "pages" / "1_Embedding.py"), default_timeout=180)
    at.query_params["emb_umap"] = "false"
    ok(at.run())
    assert any("MLLEM joint embedding" in t for t in _titles(at))     # emotions' map is drawn
    ctx, session = upload_session(_dataset())
    at.session_state["mlviz_uploads"] = session["mlviz_uploads"]       # the upload is loaded (Home's Load) ...
    ok(at.run())
    monkeypatch.setattr(compute, "WAIT", 0.0)                          # ... its map is not ready yet ...
    ok(at.selectbox(key="data").set_value(ctx.key).run())              # ... and it is picked: one run
    # (that run raised ValueError: label_names has 159 entries for 6 labels)
    assert f"{L} labels" in " ".join(c.value for c in at.sidebar.caption)
    assert not any("MLLEM joint embedding" in t for t in _titles(at))  # no map of another data set
    assert any("Embedding with MLLEM" in i.value for i in at.info)     # the notice says what is computed
    compute.RUNNER.wait_idle(120)
    monkeypatch.setattr(compute, "WAIT", 600.0)
    ok(at.run())                                                       # then the new map, with its names
    (spec,) = [s for s in charts(at).values() if "MLLEM joint embedding" in str(s["layout"].get("title"))]
    assert any("tag_" in str(t.get("hovertext", "")) + str(t.get("text", "")) for t in spec["data"])
