"""Pages opened with hostile addresses (the URL schema, mlviz.dashboard.urls) and honest links to uploads.

Few and sharp: each test opens one page once or twice.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _apptest import ok, open_app, upload_session

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "pages"


@pytest.fixture(autouse=True)
def _fresh():
    import streamlit as st

    from mlviz.dashboard.compute import RUNNER

    st.cache_data.clear()
    RUNNER.clear()
    yield
    RUNNER.clear()


def test_a_hostile_address_runs_cleanly_and_keeps_only_what_is_shown():
    at = open_app(PAGES / "6_Decision_rules.py",
                  {"dr_k": "99999", "dr_rule": "rcut", "post_rows": "99999999", "dr_t": "nan", "dr_off": "1e308",
                   "sb_structure": "chain:3," * 2000, "tour": "999", "hide": "<script>", "x" * 50: "y" * 100_000,
                   "sel_rows": "ids:train=0-100000"})
    # emotions has 6 labels: k is clamped to 6; the rest is not this page's, not a value, or not a parameter;
    # "rcut" (a link made before the radio showed "RCut") is the same choice
    assert dict(at.query_params) == {"dr_k": "6", "dr_rule": "RCut", "dr_off": "0.3"}
    assert at.radio(key="dr_rule").value == "rcut"
    notes = " ".join(c.value for c in at.sidebar.caption if "Not taken from the link" in c.value)
    assert "dr\\_k=99999" in notes and "sb\\_structure" in notes and "tour=999" in notes


def test_a_huge_sandbox_structure_is_refused_before_anything_is_built(monkeypatch):
    # (a spy, not tracemalloc: stopping tracemalloc while the page's job threads allocate can crash
    # CPython 3.11: python/cpython#128679, fixed in 3.12 and 3.13 only)
    from mlviz.data import synthetic

    built = []
    real = synthetic.make_planted

    def spy(structure="chain:5", *args, **kwargs):
        built.append(structure)
        return real(structure, *args, **kwargs)

    monkeypatch.setattr(synthetic, "make_planted", spy)
    at = open_app(PAGES / "5_Sandbox.py", {"sb_preset": "custom", "sb_structure": "chain:20000000"})
    assert "sb_structure" not in at.query_params and at.query_params["sb_preset"] == "custom"
    assert at.text_input(key="sb_structure").value == "chain:3,xor:2,indep:1"  # the default is what is shown
    assert built and set(built) == {"chain:3,xor:2,indep:1"}  # only the default was ever generated


def test_a_link_names_the_upload_by_its_hash_and_two_uploads_never_share_one():
    from mlviz.dashboard import state
    from mlviz.data import load_sample

    ds = load_sample("emotions")
    a, session = upload_session(ds)
    other = state.context_from_dataset(state.upload_id(ds.name, ds.X.tobytes() + ds.Y.tobytes() + b"!"), ds)
    assert a.key.rsplit(":", 1)[0] == other.key.rsplit(":", 1)[0]  # the same file name
    session["mlviz_uploads"][other.key] = other
    at = open_app(PAGES / "0_Home.py", session=session)
    digest = a.key.rsplit(":", 1)[1]
    assert at.query_params["data"] == "upload-" + digest  # the content hash, not the label shown
    box = at.sidebar.selectbox(key="data")
    assert len(set(box.options)) == len(box.options)  # (the labels shown differ too: file name and hash digits)
    ok(box.set_value(other.key).run())
    assert at.query_params["data"] == "upload-" + other.key.rsplit(":", 1)[1] != "upload-" + digest
    ok(at.sidebar.selectbox(key="data").set_value("yeast").run())
    assert at.query_params["data"] == "yeast"


def test_a_link_to_an_upload_of_another_session_says_so_and_offers_the_form():
    digest = "0123456789abcdef" * 4
    at = open_app(PAGES / "3_Posteriors.py", {"data": "upload-" + digest})
    (warning,) = at.warning
    assert "not loaded in this session" in warning.value and digest[:16] in warning.value
    assert not at.get("plotly_chart") and not at.title  # no other data set shown in its place
    assert at.query_params["data"] == "upload-" + digest  # the link stays what it was
    home = open_app(PAGES / "0_Home.py", {"data": "upload-" + digest})
    assert "upload form is below" in home.warning[0].value
    assert home.expander[0].proto.expanded  # the upload form is open


def test_a_link_to_an_upload_this_session_holds_opens_it():
    from mlviz.data import load_sample

    ds = load_sample("emotions")
    ctx, session = upload_session(ds)
    session.pop("data")
    at = open_app(PAGES / "0_Home.py", {"data": "upload-" + ctx.key.rsplit(":", 1)[1]}, session)
    assert at.sidebar.selectbox(key="data").value == ctx.key and not at.warning
    assert np.array_equal(at.session_state["mlviz_uploads"][ctx.key].Y_train, ctx.Y_train)
