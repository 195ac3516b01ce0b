"""Real-browser tests with the network cut off except the app itself (issues 18 and 19).

* Every page (Home and pages/1..6) draws its plotly figures (the plot area holds drawn traces)
  while every request to a host other than 127.0.0.1/localhost is aborted and recorded; none
  may be attempted (fonts, favicons, plotly.js, images all come from the app).
* An HTML export (:func:`mlviz.plotting.figure_to_html`) opened from a file draws its figure
  with no network at all.
* An upload that crashes the parser (a ``.npz`` with an out-of-range CSR column index) gives
  one error message; the server stays healthy (``/_stcore/health``) and the page still works.
* A figure title keeps a single ``<b>`` level after reruns (figures are drawn without
  Streamlit's chart theme).
"""

from __future__ import annotations

import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from test_browser import LOCAL, assert_no_exception, offline_context, wait_idle  # (tests/e2e is on sys.path)

from mlviz.dashboard.pages import PAGES as REGISTERED

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
PAGES = [("/", "home"), ("/Embedding?emb_umap=false", "embedding"), ("/Label_graph", "graph"),
         ("/Posteriors", "posteriors"), ("/Compare", "compare"), ("/Sandbox", "sandbox"),
         ("/Decision_rules", "decision")]
# plot area with drawn traces: SVG trace groups (``g.trace`` in a subplot's layer; legend
# entries are ``g.traces``), heatmap images (``g.hm``) or WebGL canvases (scattergl, 3-D)
DRAWN = """() => [...document.querySelectorAll('.js-plotly-plot')].map(d =>
    d.querySelectorAll('.cartesianlayer .trace, .cartesianlayer .hm, .gl-container canvas, '
                       + '.polarlayer .trace, .layer-above .trace').length)"""


@pytest.fixture
def offline_page(browser):
    """A page whose requests to any host but this machine are aborted; ``page.outside`` lists them."""
    context = offline_context(browser, viewport={"width": 1500, "height": 1800})
    pg = context.new_page()
    pg.set_default_timeout(90_000)
    pg.outside = context.outside
    try:
        yield pg
    finally:
        context.close()


def _drawn(page, min_charts=1, timeout=120_000):
    """Wait until ``min_charts`` plotly charts have drawn traces; the per-chart counts."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"({DRAWN})().filter(n => n > 0).length >= {min_charts}",
                               timeout=timeout)
    except PlaywrightTimeout:
        pytest.fail(f"{page.url}: no drawn traces; per chart {page.evaluate(DRAWN)}, "
                    f"requests blocked {getattr(page, 'outside', [])}")
    return page.evaluate(DRAWN)


def test_every_page_draws_its_figures_offline(offline_page, app_url):
    page = offline_page
    for path, name in PAGES:
        page.goto(app_url + path)
        wait_idle(page, timeout=120_000)
        if name == "compare":  # the charts appear after a cross-validation run
            page.get_by_role("button", name="Run cross-validation").click()
            page.get_by_text("Summary (mean ± std over folds)").wait_for(timeout=120_000)
            wait_idle(page, timeout=120_000)
        counts = _drawn(page)
        assert_no_exception(page)
        assert sum(1 for n in counts if n > 0) >= 1, (path, counts)
        # one list of pages: the registry's links, not also Streamlit's list of the files in pages/
        assert page.locator("[data-testid='stSidebarNav']").count() == 0, path
        links = page.locator("[data-testid='stSidebar'] [data-testid='stPageLink']").count()
        assert links == len(REGISTERED), (path, links)
    # the page icon is the app's own file, not an emoji turned into a CDN address
    icon = page.evaluate("() => [...document.querySelectorAll('link[rel~=icon]')].map(l => l.href)")
    assert icon and all(urllib.parse.urlsplit(h).hostname in LOCAL or h.startswith("data:") for h in icon), icon
    assert page.outside == [], page.outside


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
