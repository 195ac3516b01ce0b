"""The presenter checklist of docs/teaching.md, walked in chromium with the network cut off (issue 29).

One test, on the session's server (no server of its own), every request to a host other than this
machine aborted and recorded (none may be attempted):

1. the class link (tour + presentation mode): the tour panel at step 1 and the takeaway;
2. the tour's *Next* button is there (the whole tour is walked by ``test_tour.py``: its pages compute
   their models, too long here);
3. ``present=1&hide=all`` on Home: every group's controls are hidden (downloads and the upload form not
   drawn at all); ``hide=sliders`` on the Sandbox page (Home has none): its sliders hidden, yet in the page;
   the benchmark below walks each value of the URL schema (:data:`mlviz.dashboard.urls.HIDE_GROUPS` and
   ``all``) alone, checking that the other groups stay visible;
4. a report pack from the Home page: prepared, downloaded, its ``report.html`` opened from a file with
   the network cut off draws its figures and shows its tables; ``hide=downloads`` hides the section;
5. *Exit presentation* brings the controls back.

A report pack from every page is checked by the AppTests (``tests/test_app_report_packs.py``) and,
in chromium, by ``benchmarks/bench_presenter_checklist.py``, which walks the whole checklist with
these functions (the whole tour, each ``hide=`` value alone, every page's pack: a few minutes, too long
for the suite).
"""

from __future__ import annotations

import time
import zipfile
from pathlib import Path

import pytest
from test_browser import _shots, assert_no_exception, offline_context, wait_idle  # (tests/e2e is on sys.path)

from mlviz.dashboard.present import GROUPS
from mlviz.dashboard.urls import HIDE_GROUPS

pytestmark = pytest.mark.e2e

HIDE_VALUES = (*HIDE_GROUPS, "all")
#: the values walked within the suite's budget: every group at once, and one alone (the others stay visible);
#: the benchmark walks each of HIDE_VALUES
HIDE_IN_TEST = ("all", "sliders")
CLASS_LINK = "/?data=emotions&tour=1&present=1&hide=sidebar,downloads,toolbar"
#: a page that has the group's controls (Home has no slider); cheap settings
GROUP_PAGE = {"sliders": "/Sandbox?sb_n=200"}
NOT_DRAWN = ("upload", "downloads")  # hidden by not being drawn at all
#: per group: [elements, elements visible]
GROUP_COUNTS = """(groups) => Object.fromEntries(Object.entries(groups).map(([g, sels]) => {
    const els = sels.flatMap(s => [...document.querySelectorAll(s)]);
    return [g, [els.length, els.filter(e => e.checkVisibility()).length]]; }))"""
DRAWN = """() => [...document.querySelectorAll('.js-plotly-plot')].map(d =>
    d.querySelectorAll('.cartesianlayer .trace, .cartesianlayer .hm, .gl-container canvas').length)"""


def open_view(page, url, path, timeout=120_000):
    page.goto(url + path)
    page.wait_for_selector("[data-testid='stMain'] h1", timeout=timeout)  # (the page's script has run)
    wait_idle(page, timeout=timeout)
    assert_no_exception(page)


def group_counts(page):
    return page.evaluate(GROUP_COUNTS, GROUPS)


def check_class_link(page, url):
    """Steps 1-2: the tour panel at step 1 with its *Next* button, and the takeaway (the walk through the
    tour's pages: :func:`walk_tour`)."""
    open_view(page, url, CLASS_LINK)
    assert "step 1 of 5" in page.locator(".st-key-mlviz-tour").inner_text()
    page.locator(".st-key-tour_next button").first.wait_for(state="visible")
    takeaway = page.locator(".st-key-mlviz-takeaway")
    takeaway.wait_for(state="visible")
    assert "Takeaway:" in takeaway.inner_text()


def walk_tour(page, timeout=600_000):
    """Step 2 from the class link: *Next* through the five steps (each page computes its models; *Run
    cross-validation* on the last), then *Finish*; seconds per step."""
    seconds = []
    for k in range(2, 6):
        t0 = time.monotonic()
        page.locator(".st-key-tour_next button").first.click()
        page.wait_for_function("k => { const el = document.querySelector('.st-key-mlviz-tour');"
                               " return el && el.innerText.includes(`step ${k} of 5`); }", arg=k, timeout=timeout)
        wait_idle(page, timeout=timeout)
        assert_no_exception(page)
        seconds.append(time.monotonic() - t0)
    page.get_by_role("button", name="Run cross-validation").first.click()
    page.get_by_text("Summary (mean ± std over folds)").first.wait_for(timeout=timeout)
    wait_idle(page, timeout=timeout)
    page.locator(".st-key-tour_finish button").first.click()
    page.wait_for_function("() => !document.querySelector('.st-key-mlviz-tour')", timeout=60_000)
    assert_no_exception(page)
    return seconds


def expected_counts(value, path, baseline):
    """``{group: (hidden, not drawn)}`` for the groups checked on ``path`` under ``hide=value``: hidden
    groups must have no visible element (``not drawn``: no element at all); the others, on Home, as
    many visible as without ``hide`` (some)."""
    groups = set(HIDE_GROUPS) if value == "all" else {value}
    out = {}
    for g in HIDE_GROUPS:
        if GROUP_PAGE.get(g, "/") != path:
            continue
        if g in groups:
            out[g] = (True, g in NOT_DRAWN)
        elif path == "/" and baseline[g][1]:
            out[g] = (False, False)
    return out


def check_hide(page, url, value, baseline):
    """Step 3 for one ``hide=`` value: its groups hidden (on Home; sliders on the Sandbox page) yet in the
    page (their values still come from the link), or not drawn at all (:data:`NOT_DRAWN`); on Home, the
    other groups visible as without ``hide`` (``baseline``: Home's :func:`group_counts` without it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    groups = set(HIDE_GROUPS) if value == "all" else {value}
    for path in [GROUP_PAGE[value]] if value in GROUP_PAGE else ["/"]:  # ("all": on Home)
        sep = "&" if "?" in path else "?"
        open_view(page, url, f"{path}{sep}present=1&hide={value}")
        want = expected_counts(value, path, baseline)
        try:  # (elements drawn late, e.g. by a fragment, are waited for)
            page.wait_for_function(f"""([groups, want]) => {{ const c = ({GROUP_COUNTS})(groups);
                return Object.entries(want).every(([g, [hidden, gone]]) =>
                    hidden ? c[g][1] === 0 && (gone ? c[g][0] === 0 : c[g][0] > 0) : c[g][1] > 0); }}""",
                                   arg=[GROUPS, want], timeout=30_000)
        except PlaywrightTimeout:
            pass
        counts = group_counts(page)
        for g, (hidden, gone) in want.items():
            total, visible = counts[g]
            if hidden:
                assert visible == 0 and (total == 0 if gone else total > 0), (value, g, path, counts[g])
            else:
                assert visible > 0, (value, g, "hidden but not named", counts[g])
        if "downloads" in groups:
            assert page.get_by_role("button", name="Prepare report pack").count() == 0, value


def download_pack(page, out_dir, name, timeout=240_000):
    """Step 4 on the page shown: *Prepare report pack*, then *Download report pack (zip)*; the zip's path."""
    go = page.get_by_role("button", name="Prepare report pack")
    go.scroll_into_view_if_needed()
    go.click()
    button = page.get_by_role("button", name="Download report pack (zip)")
    button.wait_for(state="visible", timeout=timeout)
    wait_idle(page, timeout=timeout)
    with page.expect_download(timeout=60_000) as info:
        button.click()
    path = Path(out_dir) / f"{name}_pack.zip"
    info.value.save_as(path)
    return path


def open_report_offline(page, zip_path, out_dir):
    """The pack's report.html opened from a file (the context blocks the network): ``(figures in the
    report, figures drawn, table headings)``."""
    folder = Path(out_dir) / (Path(zip_path).stem + "_unzipped")
    with zipfile.ZipFile(zip_path) as zf:
        zf.extract("report.html", folder)
        html = zf.read("report.html").decode("utf-8")
    figures = html.count("<figcaption>")
    page.goto((folder / "report.html").as_uri())
    if figures:
        page.wait_for_function(f"({DRAWN})().filter(n => n > 0).length >= {figures}", timeout=60_000)
    drawn = sum(1 for n in page.evaluate(DRAWN) if n > 0)
    tables = page.locator("h3").all_inner_texts()
    return figures, drawn, tables


def check_exit(page):
    """Step 5: *Exit presentation* turns the mode off and brings the sidebar back."""
    page.get_by_role("button", name="Exit presentation").first.click()
    wait_idle(page)
    page.wait_for_function("() => !document.querySelector('.st-key-mlviz-takeaway')", timeout=60_000)
    assert "present=0" in page.url
    assert group_counts(page)["sidebar"][1] > 0


def test_presenter_checklist_offline(browser, app_url, tmp_path):
    shots = _shots(tmp_path)
    context = offline_context(browser, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(120_000)
    t0 = time.monotonic()
    try:
        check_class_link(page, app_url)
        page.screenshot(path=str(shots / "checklist_class_link.png"))
        open_view(page, app_url, "/?present=1")
        baseline = group_counts(page)
        pack = download_pack(page, tmp_path, "home")  # (step 4 on Home, loaded once for both)
        for value in HIDE_IN_TEST:
            check_hide(page, app_url, value, baseline)
        check_exit(page)  # (on the last hide= page)
        figures, drawn, tables = open_report_offline(page, pack, tmp_path)
        page.screenshot(path=str(shots / "checklist_home_report.png"), full_page=True)
        assert figures == drawn == 2, (figures, drawn)
        assert any("Statistics" in t for t in tables) and any("Preview" in t for t in tables), tables
        assert context.outside == [], context.outside
    finally:
        context.close()
    print(f"presenter checklist walked in {time.monotonic() - t0:.1f} s")


#: visible elements whose text Streamlit ends with "…" because it does not fit
CUT = """() => [...document.querySelectorAll('*')]
    .filter(e => e.checkVisibility() && e.tagName !== 'INPUT')  // (the uploader's hidden 0-pixel file input)
    .filter(e => getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1)
    .map(e => e.innerText.slice(0, 80))"""


def test_nothing_is_cut_or_overlaps_on_a_1024_pixel_projector(browser, app_url):
    """At 1024 × 768 beside the sidebar, Home's eight statistics and the Posteriors page's measures wrap onto
    more lines instead of reading "0.…" (mlviz.dashboard.present.BASE_CSS), and so do the sidebar's page links
    under presentation mode's larger text (where the sidebar starts folded), and so does the upload form's list
    of accepted formats; figures side by side wrap onto more rows, so no drawn text of a figure overlaps another
    or runs past its edge (the Label graph's two pairs of figures, three posterior panels beside the truth with
    their reliability plots)."""
    from test_browser import drawn
    from test_scale_browser import SVG_TEXTS, svg_text_problems

    context = offline_context(browser, viewport={"width": 1024, "height": 768})
    page = context.new_page()
    three = "/Posteriors?post_models=ML-LSPC&post_models=BR-LR&post_models=ML-kNN"
    try:
        for path, figures in (("/", 2), ("/Label_graph", 4), (three, 4), ("/Posteriors?present=1", 0)):
            open_view(page, app_url, path)
            page.wait_for_selector("[data-testid='stMetricValue']" if figures == 0 or path == "/" else
                                   "[data-testid='stPlotlyChart']", timeout=120_000)
            if figures:
                drawn(page, min_charts=figures)  # (each figure has drawn its traces)
            wait_idle(page)
            if path == "/":  # the upload form too: its list of accepted formats wraps
                page.get_by_text("Upload your own data set").click()
                page.wait_for_selector("[data-testid='stFileUploaderDropzoneInstructions']", timeout=30_000)
            assert page.evaluate(CUT) == [], path
            if figures:
                assert svg_text_problems(page.evaluate(SVG_TEXTS)) == [], path
        value = page.locator("[data-testid='stMetricValue']").first
        assert "…" not in value.inner_text() and value.evaluate("e => e.scrollWidth <= e.clientWidth + 1")
        # presentation mode opens with the sidebar folded (the figures get the width); unfolded, it lies over the
        # page (the figures keep their width and stay clean) and its page links wrap under the larger text
        shown = "() => document.querySelector(\"[data-testid='stSidebar']\").getBoundingClientRect().right > 100"
        assert not page.evaluate(shown)
        widths = "() => [...document.querySelectorAll(\"[data-testid='stPlotlyChart']\")].map(e => e.clientWidth)"
        drawn(page, min_charts=1)
        wait_idle(page)
        before = page.evaluate(widths)
        page.locator("[data-testid='stExpandSidebarButton']").click()
        page.wait_for_function(shown, timeout=10_000)
        page.wait_for_timeout(500)  # (its opening transition)
        assert page.evaluate(CUT) == []
        assert before and page.evaluate(widths) == before
        assert svg_text_problems(page.evaluate(SVG_TEXTS)) == []
        assert context.outside == [], context.outside
    finally:
        context.close()
