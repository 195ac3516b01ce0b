"""Real-browser tests with the network cut off except the app itself (issues 18 and 19).

* Every page (Home and pages/1..6) draws its plotly figures (the plot area holds drawn traces)
  while every request to a host other than 127.0.0.1/localhost is aborted and recorded; none
  may be attempted (fonts, favicons, plotly.js, images all come from the app).  This is checked
  by the one walk of every page in chromium, ``test_browser.py::test_every_page_slider_and_upload``
  (made with the network cut off; a second walk here would redo each page's work).
* An HTML export (:func:`mlviz.plotting.figure_to_html`) opened from a file draws its figure
  with no network at all.
* An upload that crashes the parser (a ``.npz`` with an out-of-range CSR column index) gives
  one error message; the server stays healthy (``/_stcore/health``) and the page still works.
* A figure title keeps a single ``<b>`` level after reruns (figures are drawn without
  Streamlit's chart theme).
"""

from __future__ import annotations

import sys
import urllib.request
from pathlib import Path

import pytest
from test_browser import assert_no_exception, wait_idle  # (tests/e2e is on sys.path)
from test_browser import drawn as _drawn

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def test_exported_html_draws_offline(offline_page, tmp_path):
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from mlviz import plotting

    fig = plotting.label_frequency_bar(["a", "b", "<b>c</b>"], np.array([5, 3, 1]))
    path = tmp_path / "figure.html"
    path.write_text(plotting.figure_to_html(fig), encoding="utf-8")
    size = path.stat().st_size
    assert 3e6 < size < 8e6, size  # plotly.js is embedded (what the download button says: ~5 MB)
    page = offline_page
    page.goto(path.as_uri())
    counts = _drawn(page, timeout=30_000)
    assert counts and counts[0] > 0
    assert page.outside == [], page.outside


def _health(url):
    with urllib.request.urlopen(url + "/_stcore/health", timeout=10) as r:
        return r.status, r.read().decode()


def test_a_crashing_upload_leaves_the_server_healthy(offline_page, app_url, tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    from hostile import cases

    crash = {c.name: c for c in cases()}["csr_column_out_of_range"]
    upload = tmp_path / crash.filename
    upload.write_bytes(crash.data)
    page = offline_page
    page.goto(app_url + "/")
    wait_idle(page, timeout=120_000)
    page.get_by_text("Upload your own data set").click()
    page.locator("[data-testid='stFileUploader'] input[type='file']").first.set_input_files(str(upload))
    wait_idle(page)
    page.get_by_role("button", name="Load uploaded data").click()
    wait_idle(page, timeout=120_000)
    assert_no_exception(page)
    errors = page.locator("[data-testid='stAlertContentError']")
    assert errors.count() == 1
    assert "column index 1000000 out of range" in errors.first.inner_text()
    assert _health(app_url) == (200, "ok")
    assert page.get_by_text("Data set: emotions").count() >= 1  # the previous data set
    # the page still works: a fresh load draws its figures
    page.goto(app_url + "/?cooc_norm=jaccard")
    wait_idle(page, timeout=120_000)
    assert_no_exception(page)
    assert page.get_by_text("Data set: emotions").count() >= 1
    _drawn(page, min_charts=2)
    assert _health(app_url) == (200, "ok")
    assert page.outside == [], page.outside


TITLES = """() => [...document.querySelectorAll('.js-plotly-plot')]
    .map(d => d.layout && d.layout.title ? String(d.layout.title.text || '') : '')"""


def test_titles_are_drawn_as_built_across_reruns(offline_page, app_url):
    """Figures are drawn without Streamlit's chart theme, which wraps every title in ``<b>`` in
    the browser (and again on each rerun of a cached figure): the drawn title is the built one."""
    page = offline_page
    page.goto(app_url + "/Label_graph")
    wait_idle(page, timeout=120_000)
    page.wait_for_function(f"({TITLES})().some(t => t.includes('Sparse CDN label graph'))",
                           timeout=120_000)
    slider = page.locator("[data-testid='stSlider']").first
    for key in ("ArrowRight", "ArrowLeft", "ArrowRight", "ArrowLeft"):  # reruns, cached figures
        slider.locator("input[type='range']").first.focus()
        page.keyboard.press(key)
        wait_idle(page)
    _drawn(page)
    titles = [t for t in page.evaluate(TITLES) if t]
    assert titles and not any(t.lstrip().startswith("<b>") for t in titles), titles
    assert_no_exception(page)
    assert page.outside == [], page.outside


def test_scaling_choice_comes_from_the_address(offline_page, app_url):
    page = offline_page
    page.goto(app_url + "/Posteriors?scaling=l2")
    wait_idle(page, timeout=120_000)
    assert_no_exception(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    assert sidebar.get_by_text("l2 — unit L2 norm per row", exact=False).count() >= 1
    assert "scaling=l2" in page.url
    _drawn(page)
    assert page.outside == [], page.outside
