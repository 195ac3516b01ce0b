"""AppTests of the Embedding page at many labels: only the selected labels get markers and names."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from test_app_graph import many_label_dataset

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "1_Embedding.py")


@pytest.fixture(autouse=True)
def clear_caches(fresh_dashboard):
    yield


def open_page(ds=None, **query):
    from mlviz.dashboard import state

    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["emb_umap"] = "false"
    ctx = None
    if ds is not None:
        ctx = state.context_from_dataset(state.upload_id(ds.name, ds.X.tobytes() + ds.Y.tobytes()), ds)
        at.session_state["mlviz_uploads"] = {ctx.key: ctx}
        at.session_state["data"] = ctx.key
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at, ctx


def label_traces(at):
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    traces = [t for t in fig["data"] if t.get("meta") == "labels"]
    focused = traces[-1]
    others = traces[0] if len(traces) == 2 else None
    return focused, others


def numbers(v):
    """A figure JSON's array as float64 (plotly writes numeric arrays as base64 typed arrays)."""
    if isinstance(v, dict):
        import base64

        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).astype(float)
    return np.asarray(v, dtype=float)


def customdata(trace):
    return numbers(trace["customdata"]).astype(int).tolist()


def test_174_labels_markers_and_names_only_for_the_30_most_frequent():
    ds = many_label_dataset()
    at, ctx = open_page(ds)
    focused, others = label_traces(at)
    counts = ctx.Y_train.sum(axis=0).astype(float)
    top30 = sorted(np.lexsort((np.arange(174), -counts))[:30].tolist())
    assert customdata(focused) == top30
    assert sum(bool(t) for t in focused["text"]) <= 30
    assert others is not None and others["visible"] == "legendonly" and len(customdata(others)) == 144
    assert any("the 30 most frequent of 174 labels drawn with their names" in c.value for c in at.caption)


def test_picked_labels_are_the_only_named_ones():
    ds = many_label_dataset()
    picked = ["tag_003", "tag_077", "tag_150"]
    at, _ = open_page(ds, labels_mode="picked")
    at.multiselect(key="labels_pick").set_value(picked).run()
    assert not at.exception
    focused, others = label_traces(at)
    assert customdata(focused) == [3, 77, 150]
    assert [t for t in focused["text"] if t] == [p for p in picked if p in focused["text"]]
    assert len(customdata(others)) == 171


def test_few_labels_all_drawn_without_a_selector():
    at, _ = open_page()
    focused, others = label_traces(at)
    assert customdata(focused) == list(range(6)) and others is None
    assert not [w for w in at.selectbox if w.key == "labels_mode"]


def test_hostile_label_names_are_text_in_captions_and_figure():
    names = [f"tag_{j:03d}" for j in range(174)]
    names[0] = "[click](https://evil.example)"
    names[2] = "<img src='https://evil.example/x.png'>"
    at, _ = open_page(many_label_dataset(names=names), labels_mode="search", labels_q="evil")
    focused, _ = label_traces(at)
    assert customdata(focused) == [0, 2]
    raw = json.dumps(json.loads(at.get("plotly_chart")[0].proto.spec))
    assert "<img src=" not in raw and "&lt;img src=" in raw
    shown = [c.value for c in at.caption] + [m.value for m in at.markdown]
    assert any("2 labels matching" in s for s in shown)
    assert not any("](https://" in s or "<img" in s for s in shown)


def test_neighbouring_k_labels_is_prepared_ahead_and_equals_a_direct_fit(fresh_dashboard):
    """After the first view, one k (labels) step away is computed in the background (prefetch):
    the next move finds it, and it is MLLEM fitted directly at that k."""
    from mlviz.dashboard import methods
    from mlviz.models import MLLEM

    compute = fresh_dashboard
    at, ctx = open_page(many_label_dataset())
    compute.RUNNER.wait_idle(120)
    M = methods.METHODS["mllem"]
    values = {**M.defaults(), "n_components": 2}
    for k in (3, 8):  # the default 5's neighbours on the grid
        other = {**values, "k_labels": k}
        cached = compute.RUNNER.peek(compute.model_key(ctx, M, other, "embedding"))
        assert cached is not None, f"k_labels={k} not prepared"
        (G, H, _), _ = cached
        est = M.from_sliders(other, compute.scale(ctx)).fit(ctx.X_train, ctx.Y_train)
        assert isinstance(est, MLLEM)
        np.testing.assert_allclose(G, est.embedding_, atol=1e-8)
        np.testing.assert_allclose(H, est.label_embedding_, atol=1e-8)



def test_compare_with_cplst_draws_its_latent_space_with_one_point_per_label(fresh_dashboard):
    """``emb_other=CPLST`` on emotions: CPLST at its defaults, its training codes by PCA and the 6 labels at the
    same projection of its label codes (against a direct fit and scikit-learn's PCA, up to the axes' signs and
    the figure's one label factor), no error box."""
    from sklearn.decomposition import PCA

    from mlviz.dashboard import methods, state

    at, _ = open_page(emb_other="CPLST")
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    other = [f for f in figs if "CPLST latent space" in json.dumps(f["layout"].get("title", {}))]
    assert len(other) == 1
    labels = [t for t in other[0]["data"] if t.get("meta") == "labels"]
    assert len(labels) == 1 and customdata(labels[0]) == list(range(6))
    ctx = state.sample_context("emotions")
    M = methods.METHODS["cplst"]
    est = M.from_sliders(M.defaults(), fresh_dashboard.scale(ctx)).fit(ctx.X_train, ctx.Y_train)
    T = est.transform(ctx.X_train)
    pca = PCA(n_components=2).fit(T)
    Z, Lp = pca.transform(T), pca.transform(est.label_codes_)
    xy = np.column_stack([numbers(labels[0]["x"]), numbers(labels[0]["y"])])
    s = other[0]["layout"]["meta"]["label_scale"]
    assert np.sqrt(np.mean(np.sum(xy ** 2, 1))) == pytest.approx(np.sqrt(np.mean(np.sum(Z ** 2, 1))), rel=1e-4)
    np.testing.assert_allclose(np.abs(xy), np.abs(s * Lp), rtol=1e-4, atol=1e-5)
    assert any("linear decoding" in c.value for c in at.caption)
