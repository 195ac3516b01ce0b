"""Shared controls: hyperparameter sliders, the threshold control and download buttons.

Every control takes an explicit ``key`` and is bound to the URL
(``bind="query-params"``), so the address bar always holds the current view and
a copied link restores it.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz._text import escape_markdown, shorten
from mlviz.plotting.format import fmt_value  # noqa: F401  (the pages call widgets.fmt_value)


def _option_matching(raw: str, options) -> int | None:
    """Index of the numeric option equal to the number written in ``raw`` (``"0.003"``, ``"1e-2"``,
    ``"0.50"``; relative tolerance 1e-9), or None when ``raw`` is not a number or matches no
    option. Booleans and non-numeric options never match."""
    try:
        x = float(raw)
    except (TypeError, ValueError):
        return None
    if not np.isfinite(x):
        return None
    for i, o in enumerate(options):
        if isinstance(o, (bool, np.bool_)) or not isinstance(o, (int, float, np.integer, np.floating)):
            continue
        if np.isclose(x, float(o), rtol=1e-9, atol=0.0):
            return i
    return None


def canonical_url_value(key: str, options) -> None:
    """Rewrite the URL value of the bound control ``key`` to the option's own label when it
    writes one of the numeric ``options`` differently (``?lam=0.003`` for the option shown as
    ``3e-03``), then rerun once so the control starts from it.

    Streamlit's ``bind="query-params"`` matches the URL string against the formatted options and
    silently drops anything else (the control starts at its default and the parameter leaves the
    URL); it seeds controls from the address the page was loaded with, so rewriting
    ``st.query_params`` alone is not enough: the rerun makes the binding read the rewritten
    address. A value that matches no option is left to Streamlit (the default). Nothing happens
    when the value is already an option's label or the control is already bound in this
    session (Streamlit refuses to set a bound parameter; the control then keeps its own value).
    """
    from streamlit.errors import StreamlitAPIException

    if key not in st.query_params:
        return
    values = st.query_params.get_all(key)
    labels = [fmt_value(o) for o in options]
    if len(values) != 1 or values[0] in labels:
        return
    i = _option_matching(values[0], options)
    if i is None:
        return
    try:
        st.query_params[key] = labels[i]
    except StreamlitAPIException:
        return
    st.rerun()


def param_slider(param, key: str, container=None):
    """Draw one hyperparameter control for a :class:`~mlviz.dashboard.methods.Param`.

    The control is bound to the URL parameter ``key``; a URL value that writes an option's number
    differently from its label (``0.003``, ``0.0030`` or ``3e-3`` for ``3e-03``, ``1e0`` for
    ``1``) selects that option (:func:`canonical_url_value`); any other unknown value gives the
    default.
    """
    where = container if container is not None else st
    if param.grid is None:
        return param.default
    canonical_url_value(key, param.grid)
    if len(param.grid) <= 4 and not all(isinstance(v, (int, float)) for v in param.grid):
        return where.radio(
            param.label, param.grid, index=param.grid.index(param.default), key=key, help=param.help,
            horizontal=True, format_func=fmt_value, bind="query-params",
        )
    return where.select_slider(
        param.label, options=param.grid, value=param.default, key=key, help=param.help,
        format_func=fmt_value, bind="query-params",
    )


def param_controls(method, prefix: str, container=None, only=None) -> dict:
    """Draw the sliders of ``method`` and return ``{param name: value}``."""
    values = {}
    for p in method.sliders:
        if only is not None and p.name not in only:
            values[p.name] = p.default
            continue
        values[p.name] = param_slider(p, f"{prefix}{method.key}_{p.name}", container)
    return values


def threshold_control(label_names, key: str = "thr"):
    """Global / per-label / rank-cut threshold control.

    Returns
    -------
    threshold : float, ndarray of shape (L,), or mlviz.metrics.RCut
    description : str
    """
    from mlviz.metrics import RCut

    mode = st.radio(
        "Threshold", ["global", "per label", "rank cut"], key=f"{key}_mode", horizontal=True,
        bind="query-params",
        help="Global: one cut for all labels. Per label: one cut per label. "
             "Rank cut: the top-r labels of each instance.",
    )
    if mode == "global":
        t = st.slider("Global threshold t", 0.05, 0.95, 0.5, 0.05, key=f"{key}_global", bind="query-params")
        return float(t), f"P ≥ {t:.2f}"
    if mode == "rank cut":
        r = st.slider("Top r labels per instance", 1, max(1, len(label_names)), 1, key=f"{key}_rank",
                      bind="query-params")
        return RCut(int(r)), f"top-{r}"
    cols = st.columns(min(len(label_names), 6))
    thr = np.empty(len(label_names))
    for i, name in enumerate(label_names):
        thr[i] = cols[i % len(cols)].slider(
            escape_markdown(shorten(name, 24)), 0.05, 0.95, 0.5, 0.05, key=f"{key}_l{i}",
            bind="query-params"
        )
    return thr, "per-label thresholds"


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def table_csv(df, index: bool = True) -> bytes:
    """The bytes of a table's CSV download: numbers stay numeric, text cells that a spreadsheet
    would run as a formula (``= + - @``, tab, CR first) are neutralised
    (:func:`mlviz.plotting.tables.to_csv_bytes`)."""
    from mlviz.plotting.tables import to_csv_bytes

    return to_csv_bytes(df, index=index)


def download_table(df, name: str, key: str, label: str = "CSV", index: bool = True) -> None:
    """CSV download button for a DataFrame (the CSV is built only when clicked; :func:`table_csv`).
    Not drawn in presentation mode with ``hide=downloads`` (:mod:`~mlviz.dashboard.present`)."""
    from . import present

    if present.hidden("downloads"):
        return
    st.download_button(
        label, data=lambda: table_csv(df, index=index), file_name=f"{_safe_name(name)}.csv",
        mime="text/csv", key=key, on_click="ignore", icon=":material/download:",
        help="Spreadsheet-safe CSV: numeric columns stay numbers; text that a spreadsheet would "
             "run as a formula is prefixed with an apostrophe.",
    )


def download_figure(fig, name: str, key: str) -> None:
    """Interactive-HTML download, and a PNG export generated only on request (neither is drawn in
    presentation mode with ``hide=downloads``)."""
    from mlviz import plotting

    from . import present

    if present.hidden("downloads"):
        return

    c1, c2 = st.columns(2)
    c1.download_button(
        "HTML", data=lambda: plotting.figure_to_html(fig).encode(), file_name=f"{_safe_name(name)}.html",
        mime="text/html", key=f"{key}_html", on_click="ignore", icon=":material/download:",
        help="Interactive figure (zoom, hover) as one standalone HTML file that works offline "
             "(plotly.js embedded, about 5 MB; no request to any other host).",
    )
    if c2.button(":material/image: PNG", key=f"{key}_png", help="Render the figure to PNG (takes a few seconds)."):
        with st.spinner("Rendering PNG…"):
            png = plotting.figure_to_png(fig)
        if png is None:
            c2.caption("PNG export needs a Chrome/Chromium browser on the server; use HTML.")
        else:
            c2.download_button(
                "Save PNG", data=png, file_name=f"{_safe_name(name)}.png", mime="image/png",
                key=f"{key}_pngdl", on_click="ignore", icon=":material/download:",
            )


def show_figure(fig, name: str, key: str, **kwargs):
    """``st.plotly_chart`` plus the download buttons under it; returns the selection state.

    The figure is drawn with ``theme=None``: the figures carry their own template, and
    Streamlit's theme rewrites the title (wrapping it in ``<b>``) in the figure object it is
    given, so a cached figure would gain one more ``<b>`` on every rerun.

    In presentation mode a copy with larger fonts and markers is drawn
    (:func:`mlviz.dashboard.present.projector_figure`); the downloads keep the figure as built.
    """
    from . import present

    kwargs.setdefault("theme", None)
    event = st.plotly_chart(present.screen_figure(fig), key=key, **kwargs)
    download_figure(fig, name, key=f"dl_{key}")
    remember_figure(key, fig)
    return event


_DRAWN = "mlviz_figures_drawn"


def remember_figure(key: str, fig) -> None:
    """Note ``fig`` as drawn under chart ``key`` for this data set (:func:`figures_drawn`); :func:`show_figure`
    does it, a page drawing a chart itself calls it."""
    st.session_state.setdefault(_DRAWN, {})[key] = (st.session_state.get("data"), fig)


def figure_caption(fig, default=""):
    """A figure's title as plain text (tags dropped, entities decoded once), else ``default``."""
    import html
    import re

    title = fig.layout.title.text if fig.layout.title and fig.layout.title.text else ""
    text = html.unescape(re.sub(r"<[^>]*>", " ", title)).strip()
    return re.sub(r"\s+", " ", text) or default


def figures_drawn(keys) -> dict:
    """``{caption: figure}`` of the figures :func:`show_figure` drew last under ``keys`` (in that order)
    for the data set shown now: what a page's report pack holds (every pack holds its page's
    figures). ``keys`` may be a dict ``{key: caption}``: the caption of a figure without a title
    (else its key)."""
    drawn = st.session_state.get(_DRAWN, {})
    out = {}
    captions = keys if isinstance(keys, dict) else {}
    for key in keys:
        data, fig = drawn.get(key, (None, None))
        if fig is not None and data == st.session_state.get("data"):
            caption = figure_caption(fig, captions.get(key, key))
            out[caption if caption not in out else f"{caption} ({key})"] = fig
    return out
