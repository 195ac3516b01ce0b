"""Real-browser test of the linked views: the plotly selections AppTest cannot send.

A lasso on the MLLEM map and a click on an UpSet bar each become the shared instance selection
(the address holds it), and the Posteriors page opened from that address shows its test instances.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from test_browser import _shots, assert_no_exception, lasso_select, open_page, wait_idle

pytestmark = pytest.mark.e2e


def _query(page):
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def _until_in_address(page, text, action, attempts=3):
    """Do ``action`` until the address holds ``text`` (a selection reruns the page twice: its
    fragment, then the whole page that writes the address; a gesture drawn while the chart is
    still being replaced can be lost, so it is repeated)."""
    for _ in range(attempts):
        action()
        try:
            page.wait_for_function(f"window.location.search.includes({text!r})", timeout=20_000)
            wait_idle(page)
            return
        except Exception:  # noqa: BLE001 - playwright's TimeoutError
            wait_idle(page)
    raise AssertionError(f"{text!r} never reached the address: {page.url}")


def _selected_count(page):
    text = page.get_by_text(re.compile(r"^Selected: \d+ instances$")).first.inner_text()
    return int(re.findall(r"\d+", text)[0])


def test_lasso_and_upset_click_select_instances_on_every_page(page, app_url, tmp_path):
    from mlviz.dashboard.linked import decode_rows
    from mlviz.data import load_protocol_split

    shots = _shots(tmp_path)
    train, test = load_protocol_split("emotions")
    open_page(page, app_url, "/Embedding?emb_umap=false", shots, "linked_0_embedding")

    _until_in_address(page, "sel_rows=ids", lambda: lasso_select(page))
    q = _query(page)
    assert q.get("sel_rows", "").startswith("ids:"), page.url
    rows = decode_rows(q["sel_rows"], 6)
    n = int(rows.ids["train"].size + rows.ids["test"].size)
    assert n > 0 and _selected_count(page) == n
    page.screenshot(path=str(shots / "linked_1_lasso.png"), full_page=True)

    # a click on the third bar of the UpSet panel selects that exact label set
    chart = page.locator("[data-testid='stPlotlyChart']").filter(has_text="most frequent exact label sets").first
    chart.scroll_into_view_if_needed()
    bar = chart.locator("g.bars path").nth(2)
    _until_in_address(page, "sel_rows=set", lambda: bar.click(force=True))
    chart.screenshot(path=str(shots / "linked_2_upset_chart.png"))
    assert_no_exception(page)
    q = _query(page)
    assert q.get("sel_rows", "").startswith("set:"), page.url
    members = decode_rows(q["sel_rows"], 6).members
    Y_all = np.vstack([train.Y, test.Y]).astype(bool)
    want = np.isin(np.arange(6), members)
    assert _selected_count(page) == int((Y_all == want).all(axis=1).sum())
    page.screenshot(path=str(shots / "linked_2_upset.png"), full_page=True)

    # the address opens the Posteriors page with the same selection
    open_page(page, app_url, "/Posteriors?" + urlparse(page.url).query, shots, "linked_3_posteriors")
    metric = page.locator("[data-testid='stMetric']").filter(has_text="Selected test instances").first
    metric.wait_for(timeout=90_000)
    value = int(metric.locator("[data-testid='stMetricValue']").inner_text())
    assert value == int((np.asarray(test.Y).astype(bool) == want).all(axis=1).sum())
