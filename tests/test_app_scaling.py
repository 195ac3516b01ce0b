"""Feature scaling in the dashboard (issue 14 item 4): the default is
:func:`mlviz.preprocessing.default_scaling`, a URL-bound sidebar select box chooses another,
and the scaling is part of the data context's key (the prefix of every cache key)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import streamlit as st
from sklearn.preprocessing import MaxAbsScaler, Normalizer, StandardScaler
from streamlit.testing.v1 import AppTest

from mlviz.dashboard import compute, methods, state, upload
from mlviz.dashboard.context import split_rows
from mlviz.preprocessing import default_scaling, resolve_scaling, scale_split

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def clean():
    st.cache_data.clear()
    st.cache_resource.clear()
    compute.RUNNER.clear()
    yield
    compute.RUNNER.clear()


def _split(name):
    from mlviz import data

    return data.load_protocol_split(name)


@pytest.mark.parametrize("scaling, reference", [
    ("standard", lambda: StandardScaler()), ("l2", lambda: Normalizer()),
    ("maxabs", lambda: MaxAbsScaler()), ("none", None)])
def test_each_scaling_is_fitted_on_the_training_split(scaling, reference):
    train, test = _split("emotions")
    Xtr, Xte = scale_split(train.X, test.X, scaling)
    used, default = resolve_scaling(scaling, train.X), default_scaling(train.X)
    assert used == scaling and default == "standard"  # emotions: dense, not count-like
    if reference is None:
        want_tr, want_te = train.X, test.X
    else:
        ref = reference().fit(train.X)
        want_tr, want_te = ref.transform(train.X), ref.transform(test.X)
    np.testing.assert_allclose(Xtr, want_tr, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Xte, want_te, rtol=1e-12, atol=1e-12)
    assert Xtr.dtype == np.float64


def test_sparse_features_default_to_unit_rows():
    from mlviz.preprocessing import default_scaling

    rng = np.random.default_rng(0)
    X = sp.random(30, 50, density=0.05, random_state=0, format="csr") * 3
    Xtr, Xte = scale_split(X[:20], X[20:], "auto")
    used, default = resolve_scaling("auto", X[:20]), default_scaling(X[:20])
    assert used == default == default_scaling(X[:20]) == "l2"
    assert sp.isspmatrix_csr(Xtr) and Xtr.dtype == np.float64
    norms = np.sqrt(np.asarray(Xtr.multiply(Xtr).sum(axis=1))).ravel()
    np.testing.assert_allclose(norms[norms > 0], 1.0, rtol=1e-12)
    np.testing.assert_allclose(Xte.toarray(), Normalizer().transform(X[20:]).toarray(), rtol=1e-12)
    assert rng is not None


def test_the_scaling_is_part_of_every_cache_key():
    auto = state.sample_context("emotions", "auto")
    standard = state.sample_context("emotions", "standard")
    l2 = state.sample_context("emotions", "l2")
    assert auto.key == standard.key == "emotions"  # the default: the bare id, as before
    assert l2.key == "emotions|scaling=l2" and l2.data_key == "emotions" and l2.scaling == "l2"
    m = methods.METHODS[next(iter(methods.METHODS))]
    values = m.complete({})
    assert methods.key(l2.key, m.key, values) != methods.key(auto.key, m.key, values)
    assert not np.allclose(l2.X_train, auto.X_train)


def test_the_sidebar_choice_is_in_the_url_and_changes_the_features():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["scaling"] = "l2"
    at.run()
    assert not at.exception
    assert at.selectbox(key="scaling").value == "l2"
    assert any("l2 — unit L2 norm per row" in c.value for c in at.sidebar.caption)
    at.selectbox(key="scaling").set_value("none").run()
    assert not at.exception
    assert any("none — features as given" in c.value for c in at.sidebar.caption)


def _upload_csv(negative=False):
    rng = np.random.default_rng(1)
    rows = ["f1,f2,f3,a,b"]
    for _ in range(30):
        x = rng.normal(size=3) if negative else rng.random(3) * 5
        rows.append(",".join(f"{v:.4f}" for v in x) + "," + ",".join(str(v) for v in rng.integers(0, 2, 2)))
    buf = io.BytesIO(("\n".join(rows) + "\n").encode())
    buf.name = "scaled.csv"
    return buf


def test_an_upload_follows_the_scaling_choice():
    ctx = upload.dataset_from_upload(_upload_csv(), label_columns=["a", "b"])
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["mlviz_uploads"] = {ctx.key: ctx}
    at.session_state["data"] = ctx.key
    at.query_params["scaling"] = "none"
    at.run()
    assert not at.exception
    assert at.selectbox(key="data").value == ctx.key
    scaled = at.session_state["mlviz_upload_scaled"][(ctx.key, "none")]
    assert scaled.key == ctx.key + "|scaling=none" and scaled.data_key == ctx.key
    tr, _ = split_rows(ctx.dataset.n_samples)
    np.testing.assert_array_equal(scaled.X_train, np.asarray(ctx.dataset.X)[tr])


def test_tfidf_on_negative_features_falls_back_with_a_warning():
    ctx = upload.dataset_from_upload(_upload_csv(negative=True), label_columns=["a", "b"])
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["mlviz_uploads"] = {ctx.key: ctx}
    at.session_state["data"] = ctx.key
    at.query_params["scaling"] = "tfidf"
    at.run()
    assert not at.exception and not at.error
    assert any("tfidf" in w.value and "non\\-negative" in w.value for w in at.sidebar.warning), \
        [w.value for w in at.sidebar.warning]
    assert at.selectbox(key="data").value == ctx.key  # the data set is kept
