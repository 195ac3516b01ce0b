"""Shared visual conventions of the mlviz figure builders.

One place for the palette and layout rules so every figure of the dashboard
looks the same:

* methods: one qualitative palette (:data:`METHOD_PALETTE`) with fixed
  colours for the methods the dashboard knows (:func:`method_colors`);
* signed weights: a diverging colour scale centred at 0
  (:data:`DIVERGING_SCALE`, negative = red, positive = blue), and the two
  end colours :data:`POSITIVE_COLOR` / :data:`NEGATIVE_COLOR` for edges;
* probabilities: a sequential colour scale (:data:`PROBABILITY_SCALE`) always
  drawn with ``zmin=0, zmax=1`` (or ``cmin``/``cmax``) so two figures can be
  compared by eye;
* layout: ``template="plotly_white"``, ``autosize=True`` and an explicit
  height; tick labels shrink and rotate with the number of labels
  (:func:`label_axis_style`) so 6 to 53+ label names stay legible.
"""

from __future__ import annotations

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go
import plotly.io as pio

from mlviz._text import escape_html

TEMPLATE = "plotly_white"

#: Qualitative palette for methods (D3 / matplotlib "tab10").
METHOD_PALETTE = list(pc.qualitative.D3)

#: Fixed colours of known method names, so a method keeps its colour when
#: the set of compared methods changes. Unknown names take the remaining
#: palette colours in sorted order.
KNOWN_METHOD_COLORS = {
    "ML-LSPC": "#1F77B4",
    "MLLSPC": "#1F77B4",
    "MT-LSPC": "#17BECF",
    "MTLSPC": "#17BECF",
    "LSPC": "#AEC7E8",
    "KLR": "#7F7F7F",
    "KernelLogisticRegression": "#7F7F7F",
    "MLRH": "#FF7F0E",
    "sparse CDN": "#2CA02C",
    "SparseCDN": "#2CA02C",
    "PCC": "#98DF8A",
    "MLLEM": "#9467BD",
    "BR-LR": "#D62728",
    "BR": "#D62728",
    "BinaryRelevance": "#D62728",
    "LP": "#E377C2",
    "LabelPowerset": "#E377C2",
    "ML-kNN": "#8C564B",
    "MLkNN": "#8C564B",
}

#: Colours of the three ML-LSPC Sylvester solvers (Nam et al., Fig. 1(b)).
SOLVER_COLORS = {"naive": "#D62728", "cg": "#FF7F0E", "eig": "#1F77B4"}

POSITIVE_COLOR = "#2166AC"  # blue end of RdBu
NEGATIVE_COLOR = "#B2182B"  # red end of RdBu
NEUTRAL_EDGE_COLOR = "#8C8C8C"
NODE_COLOR = "#4C4C4C"
LABEL_MARKER_COLOR = "#111111"
BAR_COLOR = "#1F77B4"
#: A horizontal legend at the figure's foot, below the x-axis title, in a bottom margin that grows to hold it
#: whatever the fonts (placed at a fraction of the plot's height below it, it met the axis title in
#: presentation mode's larger text).
FOOT_LEGEND = dict(orientation="h", yref="container", y=0.0, yanchor="bottom", x=0.0, xanchor="left")

#: Diverging scale for signed weights: use with ``zmid=0``.
DIVERGING_SCALE = "RdBu"
#: Sequential scale for probabilities in [0, 1]: use with zmin=0, zmax=1.
PROBABILITY_SCALE = "Viridis"
#: Sequential scale for counts (>= 0).
COUNT_SCALE = "Blues"
#: Colours of a binary (0/1, False/True) categorical colouring.
BINARY_COLORS = ("#BDBDBD", "#D62728")

#: Above this number of points scatter plots switch to WebGL (Scattergl).
WEBGL_THRESHOLD = 1000


def method_colors(methods):
    """Map method names to colours, stable across figures.

    Parameters
    ----------
    methods : iterable of str
        Method names (duplicates allowed).

    Returns
    -------
    dict of str to str
        Known names get their fixed colour (:data:`KNOWN_METHOD_COLORS`);
        the others take unused palette colours in sorted-name order.
    """
    names = sorted(dict.fromkeys(str(m) for m in methods))
    colors = {m: KNOWN_METHOD_COLORS[m] for m in names if m in KNOWN_METHOD_COLORS}
    free = [c for c in METHOD_PALETTE if c not in colors.values()] or METHOD_PALETTE
    k = 0
    for m in names:
        if m not in colors:
            colors[m] = free[k % len(free)]
            k += 1
    return colors


def qualitative_colors(n):
    """Return ``n`` distinct qualitative colours (cycled beyond 26)."""
    base = list(pc.qualitative.D3) + list(pc.qualitative.Alphabet)
    return [base[i % len(base)] for i in range(n)]


def sequential_colors(n, scale=PROBABILITY_SCALE):
    """Sample ``n`` ordered colours from a sequential colour scale."""
    if n <= 1:
        return pc.sample_colorscale(scale, [0.5])
    return pc.sample_colorscale(scale, list(np.linspace(0.0, 0.9, n)))


def tick_font_size(n_ticks):
    """Font size (px) that keeps ``n_ticks`` category ticks legible."""
    if n_ticks <= 12:
        return 12
    if n_ticks <= 25:
        return 11
    if n_ticks <= 40:
        return 10
    if n_ticks <= 60:
        return 9
    return 8


#: Above this many labels an axis writes every k-th name only (at most ~50; hover shows each).
MAX_TICK_NAMES = 60


#: Most names written on the rotated x axis of a square label × label heat map (~17 px a name in a
#: half-page column: rotated names of 8-9 px smeared at 44 names).
MAX_X_NAMES = 25


def label_tick_step(n, max_names=None):
    """Every how many categories a label axis writes a name: 1 up to :data:`MAX_TICK_NAMES`
    labels, else ``ceil(n / 50)`` (no figure writes more than ~50 names); with
    ``max_names``, 1 up to ``max_names`` labels, else ``ceil(n / max_names)``."""
    if max_names is not None:
        return 1 if n <= max_names else int(np.ceil(n / max_names))
    return 1 if n <= MAX_TICK_NAMES else int(np.ceil(n / 50))


def column_tick_step(n):
    """Every how many columns a square label × label heat map writes a name: at most about
    :data:`MAX_X_NAMES`, and a multiple of the rows' step, so the columns name a subset of the
    labels the rows name (a figure then writes at most ~50 different names)."""
    rows, cols = label_tick_step(n), label_tick_step(n, MAX_X_NAMES)
    return rows * int(np.ceil(cols / rows))


def label_axis_title(title, n, max_names=None, step=None):
    """``title`` plus, when the axis writes every k-th of ``n`` names (``step``, or as
    :func:`label_tick_step` says), how to read the others."""
    k = label_tick_step(n, max_names) if step is None else int(step)
    if k == 1:
        return title
    nth = f"{k}{'th' if k % 100 in (11, 12, 13) else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"
    return f"{title} (every {nth} of {n} names written; hover for each)"


def label_axis_style(names, max_names=None):
    """Axis properties for a categorical axis of label names.

    All names are shown up to :data:`MAX_TICK_NAMES` labels, every k-th above
    (``dtick`` on a category axis, see :func:`label_tick_step`), rotated by 45° or more when they would
    otherwise overlap, with a font that shrinks with their number.

    Parameters
    ----------
    names : sequence of str
        Tick labels, in axis order.
    max_names : int, optional
        At most about this many names written (see :func:`label_tick_step`).

    Returns
    -------
    dict
        Keyword arguments for ``fig.update_xaxes`` / ``update_yaxes``.
    """
    names = [str(n) for n in names]
    n = len(names)
    step = label_tick_step(n, max_names)
    longest = max((len(s) for s in names), default=0)
    if n <= 8 and longest <= 10:
        angle = 0
    elif n * max(longest, 1) <= 120:
        angle = -30
    else:
        angle = -60
    return dict(
        type="category",
        tickmode="linear",
        dtick=step,
        tickangle=angle,
        tickfont=dict(size=tick_font_size(n)),
        automargin=True,
    )


def esc(text):
    """``text`` as literal plotly text: :func:`mlviz._text.escape_html` of ``str(text)``.

    Every user-supplied string (data-set, label, feature names) that reaches a
    title, tick, legend entry, hover or drawn text goes through here: plotly
    renders a subset of HTML (``<a href>``, ``<b>``, ``<br>``, ...) and
    decodes entities, so the escaped string is *shown* exactly as written.
    """
    return escape_html("" if text is None else text)


def esc_all(texts):
    """:func:`esc` of every element, as a list."""
    return [esc(t) for t in texts]


def template_text(text):
    """``text`` escaped for embedding in a plotly ``hovertemplate`` string.

    Besides :func:`esc`, a ``%{`` (which plotly would substitute) becomes
    ``%&#123;`` -- drawn as ``%{`` because plotly decodes numeric entities.
    """
    return esc(text).replace("%{", "%&#123;")


#: Longest subtitle line (characters): ~12 px text in a half-page column of a 1600 px window.
SUBTITLE_CHARS = 80


def wrap_text(text, width=SUBTITLE_CHARS):
    """``text`` as lines of at most ``width`` characters (a longer word stays whole), broken between its
    " · "-separated parts where possible, else between words (plotly does not wrap titles: a long
    subtitle ran past the figure's right edge).

    Examples
    --------
    >>> wrap_text("a · b", 80), wrap_text("one two three", 8)
    (['a · b'], ['one two', 'three'])
    """
    lines = []
    for part in str(text).split(" · "):
        if lines and len(lines[-1]) + 3 + len(part) <= width:
            lines[-1] += " · " + part
            continue
        line = ""
        for w in part.split(" "):
            if line and len(line) + 1 + len(w) > width:
                lines.append(line)
                line = w
            else:
                line = f"{line} {w}" if line else w
        lines.append(line)
    return [line for line in lines if line]


def layout_dict(*, title=None, height=450, subtitle=None, **layout):
    """The shared layout (template, title, height, responsiveness) as a dict.

    For builders that create their figure in one call,
    ``go.Figure(data=traces, layout=layout_dict(...))``: plotly validates a
    figure built at once several times faster than one updated step by step
    (~6 ms instead of ~30 ms for two stacked panels).

    The template is left out when it already is plotly's default
    (``plotly.io.templates.default``; the dashboard sets it): plotly then
    applies it without validating it again (~18 ms a figure); the figure is
    the same.

    Parameters
    ----------
    title : str or None
        Plain text (escaped here: it may contain a data-set or label name).
    subtitle : str or None
        A second, smaller line under the title (e.g. "showing 400 of 3,000
        instances"), escaped too.
    height : int
        Height in pixels; width follows the container (``autosize``).
    **layout
        Further layout properties.

    Returns
    -------
    dict
    """
    sub_lines = wrap_text(subtitle) if subtitle else []
    # clear of subplot titles: plotly centres the title block in the margin, so each further subtitle line
    # needs more than its own height (two lines ran into the subplot titles at 983 labels)
    top = (60 if title else 30) + 18 * len(sub_lines) + (14 if sub_lines else 0) + 12 * max(len(sub_lines) - 1, 0)
    out = dict(autosize=True, height=int(height), margin=dict(l=60, r=30, t=top, b=50),
               hoverlabel=dict(namelength=-1), **layout)
    if pio.templates.default != TEMPLATE:
        out["template"] = TEMPLATE
    if title or subtitle:
        # hung from the figure's top edge (plotly's default centres it in the top margin, where panel titles
        # of two lines, as in presentation mode's larger text, reached it)
        out["title"] = dict(text=esc(title or ""), x=0.01, xanchor="left", y=1.0, yref="container",
                            yanchor="top", pad=dict(t=10))
        if subtitle:
            out["title"]["subtitle"] = dict(text="<br>".join(esc(line) for line in sub_lines),
                                            font=dict(size=12, color="#555555"))
    return out


def finish_layout(fig, *, title=None, height=450, subtitle=None, **layout):
    """Apply the shared template, title, height and responsiveness.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Built by the caller (so it got plotly's default template; see
        :func:`layout_dict`).
    title : str or None
    height : int
        Height in pixels; width follows the container (``autosize``).
    **layout
        Further ``fig.update_layout`` arguments.

    Returns
    -------
    plotly.graph_objects.Figure
        The same figure, for chaining.
    """
    fig.update_layout(**layout_dict(title=title, height=height, subtitle=subtitle, **layout))
    return fig


def note_annotation(text, *, y=0.5):
    """A centred grey note (e.g. "no edges") on the plotting area, as an annotation dict."""
    return dict(text=esc(text), xref="paper", yref="paper", x=0.5, y=y, showarrow=False,
                font=dict(size=14, color="#666666"), bgcolor="rgba(255,255,255,0.8)")


def add_note(fig, text, *, y=0.5):
    """Write a centred grey note (e.g. "no edges") on the plotting area."""
    fig.add_annotation(**note_annotation(text, y=y))
    return fig


def as_float32(a):
    """Return ``a`` as a C-contiguous float32 array (halves the JSON payload)."""
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32))


def empty_figure(message, *, title=None, height=300):
    """A blank figure that shows ``message`` (used when there is no data)."""
    fig = go.Figure()
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    add_note(fig, message)
    return finish_layout(fig, title=title, height=height)
