"""Every figure on the Sandbox and Decision rules pages can be exported: an HTML download under each
chart."""

from pathlib import Path

import pytest
from _apptest import open_app

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("page, charts", [("5_Sandbox.py", {"sb_graph", "sb_path"}),
                                          ("6_Decision_rules.py", {"dr_curves"})])
def test_each_chart_has_its_html_download(page, charts, fresh_dashboard):
    """(``fresh_dashboard``: a run waits for its background result, so the charts are drawn whatever the
    machine's speed.)"""
    at = open_app(ROOT / "pages" / page, timeout=300)
    drawn = {c.proto.id for c in at.get("plotly_chart")}
    downloads = {d.proto.id for d in at.get("download_button") if d.proto.label == "HTML"}
    for key in charts:
        assert any(key in i for i in drawn), (key, drawn)
        assert any(f"dl_{key}_html" in i for i in downloads), (key, downloads)
