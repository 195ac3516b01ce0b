"""Presentation mode: a URL switch for a projector (TensorFlow Playground's ``*_hide``, for a class).

``?present=1`` turns it on; ``&hide=sidebar,sliders,downloads`` hides control groups
(:data:`GROUPS`; ``hide=all`` hides every group).  In presentation mode

* the chosen groups are hidden: downloads and the upload form are not drawn at all
  (:func:`hidden`, used by :mod:`~mlviz.dashboard.widgets` and ``app.py``), the other
  groups are hidden by a style rule (their values still come from the URL, so the
  view is the one the link describes);
* text is larger (:data:`FONT_SCALE`) and every figure gets larger fonts and markers
  (:func:`projector_figure`, :data:`FIGURE_SCALE`): those drawn with
  :func:`mlviz.dashboard.widgets.show_figure`, and those a page draws itself through
  :func:`screen_figure`;
* :func:`takeaway` draws each view's one-sentence takeaway (nothing outside
  presentation mode: the pages are unchanged there).

The switch stays on across page changes in the same browser session (the
``present`` / ``hide`` parameters are written back into the address of every
page) until ``present=0`` or the *Exit presentation* button.
"""

from __future__ import annotations

import copy

import streamlit as st

#: Control groups that ``hide=`` can name, and the style rule hiding each (Streamlit test ids).
GROUPS = {
    "sidebar": ['[data-testid="stSidebar"]', '[data-testid="stSidebarCollapsedControl"]',
                '[data-testid="stExpandSidebarButton"]'],
    "sliders": ['[data-testid="stSlider"]', '[data-testid="stSelectSlider"]'],
    "selectors": ['[data-testid="stSelectbox"]', '[data-testid="stRadio"]', '[data-testid="stMultiSelect"]',
                  '[data-testid="stCheckbox"]', '[data-testid="stButtonGroup"]', '[data-testid="stNumberInput"]',
                  '[data-testid="stTextInput"]'],
    "upload": ['[data-testid="stFileUploader"]'],
    "downloads": ['[data-testid="stDownloadButton"]'],
    "expanders": ['[data-testid="stExpander"]'],
    "toolbar": ['[data-testid="stToolbar"]', '[data-testid="stHeader"]', '[data-testid="stDecoration"]'],
}
#: Root font size in presentation mode (Streamlit sizes its text in rem).
FONT_SCALE = 1.3
#: Factor on figure fonts, marker sizes and line widths in presentation mode.
FIGURE_SCALE = 1.5
#: Window width (pixels) below which presentation mode's open sidebar lies over the page (see :func:`css`).
OVERLAY_BELOW = 1600
#: Style rules of every page, presentation mode or not: no text is cut to "…" on a narrow screen (a 1024-pixel
#: projector beside the sidebar: 8 metrics in 560 pixels; larger text in presentation mode). A row of metrics
#: wraps onto more lines (7rem a metric), and so does a row of figures (26rem a figure: squeezed further, their
#: titles, axis titles and names overlapped), metric values shrink a little with the window, and the labels
#: Streamlit would end with an ellipsis (metrics, buttons, the sidebar's page links, the file uploader's list of
#: accepted formats) wrap at spaces instead.
BASE_CSS = """<style>
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stMetric"]) { flex-wrap: wrap; }
[data-testid="stColumn"]:has([data-testid="stMetric"]) { min-width: 7rem; }
[data-testid="stMetricValue"] { font-size: clamp(1.4rem, 0.6rem + 1.6vw, 2.25rem); }
[data-testid="stHorizontalBlock"]:has(> [data-testid="stColumn"] [data-testid="stPlotlyChart"]) { flex-wrap: wrap; }
[data-testid="stColumn"]:has([data-testid="stPlotlyChart"]) { min-width: min(26rem, 100%); }
.stMarkdownEllipsis, .stMarkdownEllipsis p, [data-testid="stPageLink-NavLink"] span,
[data-testid="stFileUploaderDropzoneInstructions"] span {
  white-space: normal; overflow: visible; text-overflow: clip; }
</style>"""
_ON = ("1", "true", "on", "yes")
_STATE = "mlviz_present"  # session_state: (on, hide string) last seen in a URL


def parse_hide(text: str | None) -> tuple[frozenset, list]:
    """``"sidebar, Sliders,foo"`` -> ``({"sidebar", "sliders"}, ["foo"])``; ``"all"`` -> every group."""
    names = [n.strip().lower() for n in (text or "").split(",") if n.strip()]
    if "all" in names:
        return frozenset(GROUPS), [n for n in names if n != "all" and n not in GROUPS]
    return frozenset(n for n in names if n in GROUPS), [n for n in names if n not in GROUPS]


def _settings() -> tuple[bool, str]:
    """``(on, hide text)`` from the URL; remembered for the session and written back into the URL of a
    page opened without them (a sidebar link drops the query string)."""
    qp = st.query_params
    if "present" in qp:
        on = str(qp.get("present", "")).lower() in _ON
        hide = str(qp.get("hide", "")) if on else ""
        st.session_state[_STATE] = (on, hide)
        return on, hide
    on, hide = st.session_state.get(_STATE, (False, ""))
    if on:
        qp["present"] = "1"
        if hide:
            qp["hide"] = hide
    return on, hide


def active() -> bool:
    """Whether presentation mode is on (URL ``present=1``, or on earlier in this session)."""
    try:
        return _settings()[0]
    except Exception:  # noqa: BLE001 - outside a Streamlit run (tests of pure helpers)
        return False


def hidden(group: str) -> bool:
    """Whether control group ``group`` (a key of :data:`GROUPS`) is hidden now."""
    on, hide = _settings()
    return on and group in parse_hide(hide)[0]


def css(groups) -> str:
    """The ``<style>`` block of presentation mode hiding ``groups``."""
    # (the page starts below the header while it is shown: over the *Exit presentation* button, the header of a
    # folded sidebar took the clicks)
    top = "1.5rem" if "toolbar" in groups else "4rem"
    rules = [f"html {{ font-size: {FONT_SCALE * 100:.0f}%; }}",
             f".block-container {{ max-width: 100%; padding-top: {top}; }}",
             ".st-key-mlviz-takeaway { border-left: 0.4rem solid #f59e0b; background: #fffbeb; "
             "padding: 0.6rem 1rem; border-radius: 0.3rem; }",
             ".st-key-mlviz-takeaway p { font-size: 1.35rem; font-weight: 600; }"]
    # below OVERLAY_BELOW pixels an open sidebar lies over the page instead of pushing it aside: the figures
    # keep the width the audience saw (pushed to ~474 pixels at 1024, text 1.5 times larger overlapped)
    rules.append(f"@media (max-width: {OVERLAY_BELOW - 1}px) {{ section[data-testid=\"stSidebar\"] {{ "
                 "position: fixed !important; top: 0; left: 0; height: 100vh !important; z-index: 999991; "
                 "box-shadow: 0 0 1.5rem rgba(0, 0, 0, 0.25); } }")
    selectors = [s for g in sorted(groups) for s in GROUPS[g]]
    if selectors:
        rules.append(", ".join(selectors) + " { display: none !important; }")
    return "<style>\n" + "\n".join(rules) + "\n</style>"


def _exit():
    st.session_state[_STATE] = (False, "")
    st.query_params["present"] = "0"
    st.query_params.pop("hide", None)


def apply() -> None:
    """Called once per page (by :func:`mlviz.dashboard.state.init_page`): :data:`BASE_CSS` (no space on the
    page: a style-only ``st.html`` goes to Streamlit's event container), and in presentation mode the style
    rules, a note about unknown ``hide`` names and the *Exit presentation* button."""
    st.html(BASE_CSS)
    on, hide = _settings()
    if not on:
        return
    groups, unknown = parse_hide(hide)
    st.markdown(css(groups), unsafe_allow_html=True)
    if unknown:
        from mlviz._text import escape_markdown

        st.caption(f"hide= names no control group: {escape_markdown(', '.join(unknown), 120)}; "
                   f"groups: {', '.join(GROUPS)} (or all).")
    st.button("Exit presentation", key="present_exit", on_click=_exit, icon=":material/close_fullscreen:",
              type="tertiary", help="Back to the normal view (or remove present=1 from the address).")


def text_scale() -> float:
    """The factor :func:`screen_figure` will enlarge a figure's text by (1 outside presentation mode): for
    builders that place names by their drawn size (``text_scale=`` of the embedding maps)."""
    return FIGURE_SCALE if active() else 1.0


def screen_figure(fig):
    """The figure to draw: in presentation mode the enlarged copy (:func:`projector_figure`), otherwise
    ``fig`` itself. For pages that call ``st.plotly_chart`` directly (e.g. with a selection callback);
    :func:`mlviz.dashboard.widgets.show_figure` uses it too. Downloads keep ``fig`` as built."""
    return projector_figure(fig) if active() else fig


def takeaway(text) -> None:
    """Draw a view's one-sentence takeaway in presentation mode only; outside it nothing is drawn.

    ``text``: markdown (escape user-provided names), or a function returning it (called only in
    presentation mode, so a page pays nothing for it otherwise)."""
    if not active():
        return
    if callable(text):
        text = text()
    if not text:
        return
    with st.container(key="mlviz-takeaway"):
        st.markdown(f":material/lightbulb: **Takeaway:** {text}")


# ------------------------------------------------------------------ figures (pure)

def _scale_fonts(node, scale):
    if isinstance(node, dict):
        for k, v in node.items():
            if (k == "font" or k.endswith("font")) and isinstance(v, dict) and isinstance(v.get("size"), (int, float)):
                v["size"] = v["size"] * scale
            _scale_fonts(v, scale)
    elif isinstance(node, (list, tuple)):
        for v in node:
            _scale_fonts(v, scale)


def _times(value, scale):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return value * scale
    try:
        import numpy as np

        arr = np.asarray(value, dtype=float)
        return arr * scale
    except (TypeError, ValueError):
        return value


#: Characters of a figure title per line in presentation mode: a longer title is wrapped (at 1.5 × its size
#: a 51-character title ran past a figure half a 1024-pixel screen wide).
TITLE_CHARS = 40


def _wrap_title(layout, scale):
    """Wrap ``layout``'s title onto lines of :data:`TITLE_CHARS` (plotly never wraps one), the top margin and
    the height grown by the added lines (the title hangs from the top edge: the plot keeps its size)."""
    import textwrap

    title = layout.get("title")
    text = title.get("text") if isinstance(title, dict) else None
    if not isinstance(text, str) or "<br>" in text or len(text) <= TITLE_CHARS:
        return
    lines = textwrap.wrap(text, TITLE_CHARS, break_long_words=False, break_on_hyphens=False)
    if len(lines) < 2:
        return
    title["text"] = "<br>".join(lines)
    size = (title.get("font") or {}).get("size") or 17 * scale  # (plotly's title font: 17 px at 12 px text)
    extra = (len(lines) - 1) * 1.3 * float(size)
    layout["margin"]["t"] += extra
    layout["height"] += extra
    if title.get("yanchor") == "top":  # (plotly hangs a wrapped title by its last line: the others went above)
        pad = title.setdefault("pad", {})
        pad["t"] = (pad.get("t") or 0) + extra


def projector_figure(fig, scale: float = FIGURE_SCALE, base_font: float = 13.0):
    """A copy of plotly figure ``fig`` with fonts, marker sizes and line widths times ``scale``; a title longer
    than :data:`TITLE_CHARS` wrapped, slanted axis names (between 0° and −45°) turned to −60°.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    scale : float
    base_font : float
        Font size assumed when the figure sets none (plotly's default is 12).

    Returns
    -------
    plotly.graph_objects.Figure
        A new figure; ``fig`` is not changed.
    """
    import plotly.graph_objects as go

    out = go.Figure(fig)  # (a deep copy)
    layout = copy.deepcopy(out.layout.to_plotly_json())
    _scale_fonts(layout, scale)
    layout.setdefault("font", {})
    if not isinstance(layout["font"].get("size"), (int, float)):
        layout["font"]["size"] = base_font * scale
    margin = layout.get("margin")
    if isinstance(margin, dict):  # larger text needs larger margins: a title must not reach a subplot title
        for side in ("t", "l", "b"):
            if isinstance(margin.get(side), (int, float)):
                margin[side] = margin[side] * scale
    if isinstance(layout.get("height"), (int, float)) and isinstance((margin or {}).get("t"), (int, float)):
        layout["height"] = layout["height"] + (scale - 1) * (margin["t"] / scale)  # (the plot keeps its size)
        _wrap_title(layout, scale)
    for name, axis in layout.items():  # slanted names take `scale` times the room: steeper
        if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            angle = axis.get("tickangle")
            if isinstance(angle, (int, float)) and -45 < angle < 0:
                axis["tickangle"] = -60
    out.layout = layout
    for trace in out.data:
        marker = getattr(trace, "marker", None)
        if marker is not None and getattr(marker, "size", None) is not None:
            marker.size = _times(marker.size, scale)
        for obj in (trace, marker):
            line = getattr(obj, "line", None) if obj is not None else None
            if line is not None and isinstance(getattr(line, "width", None), (int, float)):
                line.width = line.width * scale
        textfont = getattr(trace, "textfont", None)
        if textfont is not None and isinstance(getattr(textfont, "size", None), (int, float)):
            textfont.size = textfont.size * scale
    return out
