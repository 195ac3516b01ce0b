"""The hostile upload corpus (``tests/hostile.py``) driven through the Home page's upload form
(issue 18): each file gives exactly one ``st.error`` that names the problem, the previous data
set stays selected and shown, and no exception reaches the page.

Limits are set small through the environment (as an operator would), so the bombs and the
absurd-size cases are small and quick to build: ``MLVIZ_MAX_UPLOAD_MB=2`` (tied to
``server.maxUploadSize``), ``MLVIZ_MAX_COLUMNS=2000``, ``MLVIZ_MAX_DENSE_CELLS=200000``.
Every case goes through the real parse worker (:func:`mlviz.data.load_dataset_isolated`).

Every case of the corpus runs (about 36 s); ``MLVIZ_QUICK_CORPUS=1`` runs a representative
subset instead (one or more per kind: malformed CSR, pickled and object arrays, each
compression bomb, absurd declared sizes, duplicate names, XML attacks, long names, encodings, NaN).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
import streamlit as st
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hostile import cases  # noqa: E402

ENV = {"MLVIZ_MAX_UPLOAD_MB": "2", "MLVIZ_MAX_COLUMNS": "2000", "MLVIZ_MAX_DENSE_CELLS": "200000"}
SUBSET = [
    "csr_column_out_of_range", "csr_indptr_decreasing", "csc_row_out_of_range", "csr_absurd_shape",
    "npz_pickled_object_array", "npz_complex_X", "npz_declares_gigabytes", "npz_zip_bomb",
    "gzip_bomb_arff", "bzip2_bomb_csv", "xz_bomb_libsvm", "too_large_upload",
    "arff_absurd_attribute_count", "libsvm_huge_feature_index", "csv_duplicate_column",
    "libsvm_meta_duplicate_names", "xml_duplicate_label", "xml_external_entity",
    "xml_billion_laughs", "xml_long_name", "csv_long_column_name", "csv_html_name_bad_value",
    "csv_utf16_bom", "png_as_csv", "csv_nan_feature", "csv_one_row", "csv_zero_labels",
]


def _env_limits():
    from mlviz.data import Limits

    return Limits.from_env(dict(os.environ, **ENV))


def _selected():
    every = cases(_env_limits())
    if os.environ.get("MLVIZ_QUICK_CORPUS") != "1":
        return every
    by_name = {c.name: c for c in every}
    return [by_name[n] for n in SUBSET if n in by_name]


@pytest.fixture(autouse=True)
def small_limits(monkeypatch):
    from mlviz.dashboard import compute

    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    before = st_config.get_option("server.maxUploadSize")
    st_config.set_option("server.maxUploadSize", int(ENV["MLVIZ_MAX_UPLOAD_MB"]))
    st.cache_data.clear()
    compute.RUNNER.clear()
    yield
    st_config.set_option("server.maxUploadSize", before)
    compute.RUNNER.clear()


def unescape(md: str) -> str:
    """The text a reader sees for an escaped markdown string."""
    return re.sub(r"\\(.)", r"\1", md)


def _upload(at, filename, data, xml=None, xml_filename="labels.xml"):
    at.file_uploader(key="upload_file").set_value((filename, data, "application/octet-stream"))
    if xml is not None:
        at.file_uploader(key="upload_labels").set_value((xml_filename, xml, "text/xml"))
    at.run()
    at.button(key="upload_load").click().run()
    return at


def _shown(at):
    return [h.value for h in at.header]


def test_the_limits_of_the_form_follow_the_environment():
    from mlviz.dashboard import upload

    limits = upload.upload_limits()
    # MB of 10^6 bytes: the unit Streamlit's uploader counts server.maxUploadSize in (Linux/macOS browsers)
    assert limits.max_upload_bytes == 2 * 1000**2 and limits.max_columns == 2000
    assert limits == _env_limits()  # the corpus below is built for the limits the form uses


@pytest.mark.parametrize("case", _selected(), ids=lambda c: c.name)
def test_hostile_upload_gives_one_error_and_keeps_the_data_set(case):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    before = _shown(at)
    assert any("emotions" in h for h in before)
    _upload(at, case.filename, case.data, case.xml, case.xml_filename)
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1, [e.value for e in at.error]
    text = unescape(at.error[0].value)
    assert re.search(case.match, text), (case.match, text)
    assert len(text) < 1000  # bounded, whatever the file holds
    assert at.selectbox(key="data").value == "emotions"
    assert _shown(at) == before
    assert not at.success


def test_a_good_upload_after_a_crash_still_loads():
    """The worker that crashed (malformed CSR) is replaced: the next upload works at once."""
    by_name = {c.name: c for c in cases(_env_limits())}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    _upload(at, "crash.npz", by_name["csr_column_out_of_range"].data)
    assert len(at.error) == 1
    good = b"f1,f2,L1,L2\n" + b"".join(b"%d,%d,%d,%d\n" % (i, i % 3, i % 2, (i // 2) % 2)
                                        for i in range(12))
    _upload(at, "good.csv", good)
    assert not at.error and not at.exception
    assert at.selectbox(key="data").value.startswith("upload:good.csv:")
    assert any("good" in h for h in _shown(at))


def test_a_malformed_limit_variable_switches_uploads_off_with_one_message(monkeypatch):
    monkeypatch.setenv("MLVIZ_MAX_COLUMNS", "lots")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    assert len(at.error) == 1 and "MLVIZ\\_MAX\\_COLUMNS" in at.error[0].value
    assert any("emotions" in h for h in _shown(at))
