"""Real-browser test of the guided tour and the report pack (issue 17).

Opens ``/?tour=1``, walks data → embedding → label graph → posteriors →
comparison with the tour's *Next* button, checks each step's panel heading and
page title and that no exception element appears; on the Posteriors step it
prepares and downloads the report pack and opens the zip (config.json, the HTML
report, the script).  Presentation mode and each ``hide=`` value are walked by the presenter
checklist (test_presenter_checklist.py).
"""

from __future__ import annotations

import json
import zipfile

import pytest
from test_browser import _shots, assert_no_exception, wait_idle  # (tests/e2e is on sys.path)

pytestmark = pytest.mark.e2e

STEPS = [
    ("Data", "mlviz — multi-label learning, made visible"),
    ("Embedding", "Embedding — labels and instances in one map"),
    ("Label graph", "Label graph — which labels depend on which"),
    ("Posteriors", "Posteriors — per-label probabilities on the test set"),
    ("Comparison", "Compare — cross-validation and timing"),
]
PANEL = ".st-key-mlviz-tour"


def wait_for_step(page, k, title):
    page.wait_for_function(
        "([sel, text]) => { const el = document.querySelector(sel); return el && el.innerText.includes(text); }",
        arg=[PANEL, f"step {k} of {len(STEPS)}: {title}"], timeout=90_000)
    wait_idle(page, timeout=90_000)


def download_report_pack(page, tmp_path):
    go = page.get_by_role("button", name="Prepare report pack")
    go.scroll_into_view_if_needed()
    go.click()
    button = page.get_by_role("button", name="Download report pack (zip)")
    button.wait_for(state="visible", timeout=180_000)
    wait_idle(page)
    with page.expect_download(timeout=60_000) as info:
        button.click()
    path = tmp_path / "pack.zip"
    info.value.save_as(path)
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        assert {"config.json", "report.html", "reproduce.py"} <= names, names
        config = json.loads(zf.read("config.json"))
        html = zf.read("report.html").decode("utf-8")
        script = zf.read("reproduce.py").decode("utf-8")
    assert config["data"]["sample"] == "emotions" and config["data"]["content_hash"]
    assert "<title>mlviz report: emotions</title>" in html and "micro" in html.lower()
    assert "config.json" in script and "from mlviz" in script
    return names


def test_guided_tour_from_data_to_comparison_and_the_report_pack(app_url, page, tmp_path):
    shots = _shots(tmp_path)
    page.goto(app_url + "/?tour=1")
    for k, (title, heading) in enumerate(STEPS, start=1):
        wait_for_step(page, k, title)
        assert_no_exception(page)
        h1 = page.locator("h1").first.inner_text()
        assert heading in h1, (k, h1)
        assert f"tour={k}" in page.url
        if title in ("Embedding", "Label graph", "Posteriors"):  # the panel fills in the page's numbers by itself
            page.wait_for_function(
                "sel => { const el = document.querySelector(sel); "
                "return el && !el.innerText.includes('not computed yet')"
                " && /\\d/.test(el.innerText.split(':').slice(1).join(':')); }", arg=PANEL, timeout=180_000)
        page.screenshot(path=str(shots / f"tour_{k}.png"), full_page=True)
        if title == "Posteriors":
            download_report_pack(page, tmp_path)
            assert_no_exception(page)
        if k < len(STEPS):
            page.locator(".st-key-tour_next button").first.click()
    # the last step has no Next; Finish ends the tour
    assert page.locator(".st-key-tour_next").count() == 0
    page.locator(".st-key-tour_finish button").first.click()
    page.wait_for_function("sel => !document.querySelector(sel)", arg=PANEL, timeout=60_000)
    wait_idle(page)
    assert_no_exception(page)

