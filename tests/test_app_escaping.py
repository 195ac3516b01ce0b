"""Names from an uploaded file are shown as literal text everywhere (issue 20).

A CSV whose file, feature and label names hold a markdown link, a markdown image, an HTML tag
and a spreadsheet formula is uploaded through the Home page's form; then the Home page and
every other page are rendered (AppTest) with that data set selected.  Every element whose
value Streamlit renders as markdown (title, headers, markdown, captions, alerts, metric and
widget labels, expander labels) must hold no live link, image or tag built from those names,
and the CSV downloads must hold the names as neutralised cells with the numbers numeric.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["pages/1_Embedding.py", "pages/2_Label_graph.py", "pages/3_Posteriors.py",
         "pages/4_Compare.py", "pages/6_Decision_rules.py"]
LINK, IMAGE, TAG, FORMULA = "[t](https://x)", "![](https://x/i.png)", "<b>x</b>", '=HYPERLINK("x")'
FILE_NAME = "[d](https:x).csv"
HOSTILE = (LINK, IMAGE, TAG, FORMULA)
# what must never reach a markdown element: a live link/image/tag made from the names
LIVE = [re.compile(r"(?<!\\)\]\((?:https?:)?", re.I), re.compile(r"(?<!\\)!\[(?:\\?\])?"),
        re.compile(r"<b>x</b>"), re.compile(r"\[t\]\(https://x\)"), re.compile(r"https://x/i\.png\)")]


def _csv() -> bytes:
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame({LINK: rng.normal(size=n).round(3), TAG: rng.normal(size=n).round(3),
                          "plain": rng.normal(size=n).round(3),
                          IMAGE: (rng.random(n) > 0.5).astype(int),
                          FORMULA: (rng.random(n) > 0.4).astype(int),
                          "ok": (rng.random(n) > 0.6).astype(int)})
    return frame.to_csv(index=False).encode()


@pytest.fixture(autouse=True)
def clean():
    from mlviz.dashboard import compute

    st.cache_data.clear()
    compute.RUNNER.clear()
    yield
    compute.RUNNER.clear()
    compute.RUNNER.wait_idle(60)


def _markdown_values(at):
    """Every string of the page that Streamlit renders as markdown."""
    out = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "success", "error",
                 "warning", "info", "exception"):
        out += [str(e.value) for e in getattr(at, kind)]
    out += [str(m.label) for m in at.metric]
    for kind in ("slider", "select_slider", "selectbox", "multiselect", "radio", "checkbox",
                 "toggle", "button", "number_input", "text_input"):
        out += [str(w.label) for w in getattr(at, kind)]
    out += [str(e.label) for e in at.expander]
    return out


def _assert_no_live_markup(at, where):
    for value in _markdown_values(at):
        for pattern in LIVE:
            assert not pattern.search(value), (where, pattern.pattern, value[:300])


def _uploaded(at):
    at.file_uploader(key="upload_file").set_value((FILE_NAME, _csv(), "text/csv"))
    at.run()
    picker = at.multiselect(key="upload_label_columns")
    assert set(HOSTILE) <= set(picker.options) | {LINK, TAG}  # the picker lists the raw names
    picker.set_value([IMAGE, FORMULA, "ok"]).run()
    at.button(key="upload_load").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def test_home_shows_hostile_names_as_text_and_exports_safe_csv():
    from mlviz.dashboard import cache, widgets

    at = _uploaded(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    assert at.selectbox(key="data").value.startswith("upload:")
    _assert_no_live_markup(at, "home")
    shown = " ".join(_markdown_values(at))
    assert r"\[d\]\(https\:x\)" in shown  # the data-set name, escaped, in the header and success
    assert len(at.success) == 1
    # the tables hold the raw names (st.dataframe shows text, not markdown) ...
    ctx = at.session_state["mlviz_uploads"][at.selectbox(key="data").value]
    assert ctx.label_names == [IMAGE, FORMULA, "ok"]
    # ... and every CSV download neutralises them and keeps numbers numeric
    for frame in (cache.dataset_summary(ctx)["table"], cache.preview_frame(ctx, n_rows=50)):
        data = widgets.table_csv(frame)
        back = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
        cells = list(back.columns) + [c for col in back.columns for c in back[col]]
        assert not any(c[:1] in ("=", "+", "@", "\t", "\r") for c in cells), cells[:20]
        raw = [str(c) for c in frame.columns] + [str(i) for i in frame.index] \
            + [str(v) for v in frame.to_numpy().ravel()]
        for name in raw:
            if name[:1] in ("=", "+", "@"):
                assert "'" + name in cells, name  # neutralised, not dropped
    preview = pd.read_csv(io.BytesIO(widgets.table_csv(cache.preview_frame(ctx, n_rows=50))))
    assert pd.api.types.is_float_dtype(preview["plain"])  # numeric, not quoted text


# Pages whose owners still put the data-set name into markdown unescaped (see the report):
# pages/3_Posteriors.py line 10 and pages/4_Compare.py line 23 (``**{ctx.name}**``).
OPEN = set()


@pytest.mark.parametrize("page", [pytest.param(p, marks=pytest.mark.xfail(
    reason="data-set name shown unescaped in the page's caption (page owner's fix pending)",
    strict=False)) if p in OPEN else p for p in PAGES], ids=lambda p: Path(p).stem)
def test_every_page_shows_hostile_names_as_text(page):
    from mlviz.dashboard import compute, upload

    buf = io.BytesIO(_csv())
    buf.name = FILE_NAME
    ctx = upload.dataset_from_upload(buf, label_columns=[IMAGE, FORMULA, "ok"])
    at = AppTest.from_file(str(ROOT / page), default_timeout=180)
    at.session_state["mlviz_uploads"] = {ctx.key: ctx}  # as the Load button's callback does
    at.session_state["data"] = ctx.key
    if "Embedding" in page:  # (the UMAP panel's child compiles numba for ~8 s; its names are the PCA panel's)
        at.query_params["emb_umap"] = "false"
    at.run()
    compute.RUNNER.wait_idle(120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    _assert_no_live_markup(at, page)


def _figure_page():
    import plotly.graph_objects as go

    from mlviz.dashboard import cache, widgets

    fig = cache.figure("test-escaping|title", lambda: go.Figure(go.Bar(x=[1, 2], y=[3, 4]),
                                                                layout_title_text="Label frequency"))
    widgets.show_figure(fig, "fig", key="fig")


def test_figures_are_drawn_without_streamlits_theme_and_unchanged_by_reruns():
    """Streamlit's chart theme (applied in the browser) wraps the title in ``<b>`` again on every
    rerun; ``show_figure`` draws with ``theme=None`` and the figure itself stays as built
    (the browser test checks the drawn title after reruns)."""
    import json

    from mlviz.dashboard import cache

    at = AppTest.from_function(_figure_page, default_timeout=60).run()
    chart = at.get("plotly_chart")[0].proto
    assert chart.theme == ""  # no Streamlit theme
    first = json.loads(chart.spec)
    at.run()
    assert json.loads(at.get("plotly_chart")[0].proto.spec) == first
    assert first["layout"]["title"]["text"] == "Label frequency"
    assert cache.figure("test-escaping|title", lambda: None).layout.title.text == "Label frequency"
