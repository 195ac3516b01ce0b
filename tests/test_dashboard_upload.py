"""Upload keys cover every option that changes the data set (issue 20), and one session's upload
stays in that session (issue 18)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mlviz.dashboard import cache, compute, state, upload

ROOT = Path(__file__).resolve().parents[1]


def _csv() -> bytes:
    rng = np.random.default_rng(0)
    rows = ["f1,f2,f3,a,b,c"]
    for _ in range(30):
        x = rng.normal(size=3)
        y = rng.integers(0, 2, size=3)
        rows.append(",".join(f"{v:.4f}" for v in x) + "," + ",".join(str(v) for v in y))
    return ("\n".join(rows) + "\n").encode()


def _file(content: bytes, name="same.csv"):
    buf = io.BytesIO(content)
    buf.name = name
    return buf


@pytest.fixture(autouse=True)
def empty_cache():
    compute.RUNNER.clear()
    yield
    compute.RUNNER.clear()


def test_same_bytes_different_label_options_give_different_keys_and_statistics():
    content = _csv()
    two = upload.dataset_from_upload(_file(content), label_columns=["a", "b"])
    three = upload.dataset_from_upload(_file(content), label_columns=["a", "b", "c"])
    again = upload.dataset_from_upload(_file(content), label_columns=["a", "b"])
    assert two.key != three.key and two.key == again.key
    assert len(two.key.rsplit(":", 1)[1]) == 64  # the full SHA-256
    s2, s3 = cache.dataset_summary(two), cache.dataset_summary(three)  # in this order, in one process
    assert len(s2["counts"]) == 2 and len(s3["counts"]) == 3
    assert s2["cooccurrence"].shape == (2, 2) and s3["cooccurrence"].shape == (3, 3)
    assert cache.dataset_summary(two) is s2


def test_the_key_covers_the_label_file_and_the_label_count():
    a = state.upload_id("x.arff", b"data", b"<labels/>", {"labels": "xml"})
    b = state.upload_id("x.arff", b"data", b"<labels />", {"labels": "xml"})
    c = state.upload_id("x.arff", b"data", None, {"labels": 2})
    d = state.upload_id("x.arff", b"data", None, {"labels": -2})
    e = state.upload_id("x.arff", b"dat", b"a<labels/>", {"labels": "xml"})  # bytes moved between parts
    assert len({a, b, c, d, e}) == 5


def test_an_upload_stays_in_its_browser_session():
    """Session A loads a CSV; session B (same server process) neither lists nor shows it."""
    content = _csv()
    a = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    b = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    ctx = upload.dataset_from_upload(_file(content, "mine.csv"), label_columns=["a", "b"])
    a.session_state["mlviz_uploads"] = {ctx.key: ctx}  # as the Load button's callback does
    a.session_state["data"] = ctx.key
    a.run()
    assert not a.exception and any("mine" in h.value for h in a.header)
    b.run()
    assert ctx.key not in b.selectbox(key="data").options
    assert not any("mine" in h.value for h in b.header)
