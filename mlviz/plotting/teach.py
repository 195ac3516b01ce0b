"""Teaching figures: a learned label graph against the planted one, and decision-rule curves.

* :func:`recovery_graph_figure` -- the edges of
  :func:`mlviz.data.synthetic.edge_status`: true edges (learned and planted)
  solid, false edges (learned only) dashed, missed edges (planted only)
  dotted; the three are told apart by colour and legend as well, so the
  figure reads in grey print and for colour-blind viewers;
* :func:`rule_curve_figure` -- the measures of
  :func:`mlviz.decision.rule_curve` against the rule's parameter, one line
  per measure, the current setting as a vertical line and each measure's
  best setting as a marker.

Pure builders: data in, ``plotly.graph_objects.Figure`` out.  Every edge
trace carries ``meta = {"kind": "edges", "status": ..., "n_edges": k}``;
the current-value line is the layout shape named ``"current"``; best
markers are the traces with ``meta["kind"] == "best"``.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from .._text import escape_html
from ._style import NODE_COLOR, layout_dict, note_annotation, qualitative_colors

__all__ = ["recovery_graph_figure", "rule_curve_figure", "EDGE_STYLES", "measure_label"]

#: status -> (legend text, colour, plotly dash style, width)
EDGE_STYLES = {
    "true": ("true edge (learned and planted)", "#1A9850", "solid", 4.0),
    "false": ("false edge (learned, not planted)", "#D73027", "dash", 3.0),
    "missed": ("missed edge (planted, not learned)", "#7F7F7F", "dot", 3.0),
}


def _xy(pos, name):
    if name not in pos:
        raise ValueError(f"pos has no position for label {str(name)[:40]!r}.")
    p = np.asarray(pos[name], dtype=float).ravel()
    if p.size < 2 or not np.isfinite(p[:2]).all():
        raise ValueError(f"The position of label {str(name)[:40]!r} must be two finite numbers.")
    return float(p[0]), float(p[1])


def recovery_graph_figure(edge_status_rows, pos, label_names, *, title=None, height=460):
    """The learned label graph drawn over the planted one.

    Parameters
    ----------
    edge_status_rows : list of dict
        ``{"source", "target", "status"}`` rows of
        :func:`mlviz.data.synthetic.edge_status` (status ``"true"``,
        ``"false"`` or ``"missed"``; names are label names).
    pos : dict label name -> (x, y)
        Node positions (e.g. ``networkx.circular_layout`` of the planted graph).
    label_names : sequence of str
        Every label (also those without an edge), in column order.
    title : str, optional
        Plain text; escaped once, by :func:`~mlviz.plotting._style.layout_dict`.
    height : int

    Returns
    -------
    plotly.graph_objects.Figure
        Three edge traces (one per status, in the order true, false, missed,
        each present even when empty so the legend always explains all
        three), a trace of invisible edge mid-points for hover, and the node
        trace.
    """
    names = [str(n) for n in label_names]
    known = set(names)
    groups = {s: [] for s in EDGE_STYLES}
    for row in edge_status_rows:
        status = row["status"]
        if status not in groups:
            raise ValueError(f"Unknown edge status {status!r}; expected one of {list(EDGE_STYLES)}.")
        for end in (row["source"], row["target"]):
            if str(end) not in known:
                raise ValueError(f"Edge end {str(end)[:40]!r} is not among the label names.")
        groups[status].append((str(row["source"]), str(row["target"])))
    traces, mid_x, mid_y, mid_text = [], [], [], []
    for status, (legend, colour, dash, width) in EDGE_STYLES.items():
        xs, ys = [], []
        for s, t in groups[status]:
            (x0, y0), (x1, y1) = _xy(pos, s), _xy(pos, t)
            xs += [x0, x1, None]
            ys += [y0, y1, None]
            mid_x.append(0.5 * (x0 + x1))
            mid_y.append(0.5 * (y0 + y1))
            mid_text.append(f"{escape_html(s)} — {escape_html(t)}: {status} edge")
        k = len(groups[status])
        if not k:  # one empty point keeps the status in the legend (plotly drops traces without data)
            xs, ys = [None], [None]
        traces.append(go.Scatter(
            x=xs, y=ys, mode="lines", line=dict(color=colour, dash=dash, width=width),
            name=f"{legend}: {k}", hoverinfo="skip", legendgroup=status,
            meta={"kind": "edges", "status": status, "n_edges": k}))
    traces.append(go.Scatter(
        x=mid_x, y=mid_y, mode="markers", marker=dict(size=14, opacity=0), hovertext=mid_text,
        hoverinfo="text", showlegend=False, meta={"kind": "edge-hover"}))
    P = np.array([_xy(pos, n) for n in names], dtype=float).reshape(len(names), 2)
    safe = [escape_html(n) for n in names]
    traces.append(go.Scatter(
        x=P[:, 0], y=P[:, 1], mode="markers+text", text=safe, textposition="top center",
        hovertext=safe, hoverinfo="text", marker=dict(size=22, color=NODE_COLOR, line=dict(width=2, color="white")),
        textfont=dict(size=14 if len(names) <= 12 else 11), showlegend=False, cliponaxis=False,
        meta={"kind": "nodes"}))
    axes = dict(visible=False, showgrid=False, zeroline=False)
    if len(P):
        lo, hi = P.min(axis=0), P.max(axis=0)
        pad = 0.2 * max(float((hi - lo).max()), 1e-9)
        xaxis = dict(axes, range=[lo[0] - pad, hi[0] + pad])
        yaxis = dict(axes, range=[lo[1] - pad, hi[1] + pad], scaleanchor="x", scaleratio=1)
    else:
        xaxis, yaxis = axes, axes
    layout = layout_dict(title=title, height=height, xaxis=xaxis, yaxis=yaxis,
                         legend=dict(orientation="h", yanchor="top", y=-0.02, x=0))
    if not edge_status_rows:
        layout["annotations"] = [note_annotation("no edges learned and none planted")]
    return go.Figure(data=traces, layout=layout)


def measure_label(name):
    """Legend text of a curve column: the measure's label and ↑/↓ (better)."""
    if name == "empty_rate":
        return "Empty predictions (rate) ↓"
    from ..metrics import get_measure

    try:
        m = get_measure(name)
    except ValueError:
        return escape_html(name)
    return f"{m.label} {'↑' if m.greater_is_better else '↓'}"


def _best_map(best):
    """``{measure: param}`` from a dict or a :func:`mlviz.decision.best_parameters` frame."""
    if best is None:
        return {}
    if hasattr(best, "iterrows"):
        return {str(k): row["param"] for k, row in best.iterrows()}
    return dict(best)


def rule_curve_figure(curve, current=None, best=None, *, param_label="rule parameter", title=None,
                      subtitle=None, height=420, log_x=False):
    """Linked curves of a decision rule: every measure against the rule's parameter.

    Parameters
    ----------
    curve : pandas.DataFrame
        :func:`mlviz.decision.rule_curve` output: column ``param`` and one
        column per measure (``empty_rate`` included).  A single row whose
        ``param`` is NaN (MCut: no parameter) is drawn as one marker per
        measure.
    current : float, optional
        The parameter in use: a vertical line (layout shape named ``"current"``).
    best : dict measure -> param, or DataFrame, optional
        Each measure's best parameter (:func:`mlviz.decision.best_parameters`);
        a marker on that measure's curve.
    param_label : str
        x-axis title (plain text).
    title : str, optional
    subtitle : str, optional
        A smaller line under the title (plain text; wrapped, so a narrow screen keeps it whole).
    height : int
    log_x : bool
        Logarithmic parameter axis (e.g. γ / γ_max); the current-value
        shape's x is then ``log10(current)`` (plotly's convention for shapes
        on log axes).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    measures = [c for c in curve.columns if c != "param"]
    x = curve["param"].to_numpy(dtype=float)
    no_param = len(x) == 1 and not np.isfinite(x[0])
    colours = qualitative_colors(len(measures))
    best_at = _best_map(best)
    traces = []
    for colour, m in zip(colours, measures):
        y = curve[m].to_numpy(dtype=float)
        if no_param:
            traces.append(go.Scatter(
                x=[measure_label(m)], y=y.tolist(), mode="markers", marker=dict(size=14, color=colour),
                name=measure_label(m), meta={"kind": "curve", "measure": m}))
            continue
        traces.append(go.Scatter(
            x=x, y=y, mode="lines", line=dict(color=colour, width=2.5), name=measure_label(m),
            legendgroup=m, meta={"kind": "curve", "measure": m},
            hovertemplate=f"{measure_label(m)}<br>parameter %{{x}}: %{{y:.4f}}<extra></extra>"))
    if not no_param:
        for colour, m in zip(colours, measures):
            if m not in best_at:
                continue
            p = float(best_at[m])
            i = int(np.flatnonzero(np.isclose(x, p))[0]) if np.isclose(x, p).any() else None
            if i is None:
                continue
            traces.append(go.Scatter(
                x=[x[i]], y=[float(curve[m].iloc[i])], mode="markers", legendgroup=m, showlegend=False,
                marker=dict(symbol="star", size=15, color=colour, line=dict(width=1, color="black")),
                meta={"kind": "best", "measure": m}, hovertemplate=(
                    f"best {measure_label(m)}: %{{y:.4f}} at %{{x}}<extra></extra>")))
    shapes, annotations = [], []
    if current is not None and not no_param and math.isfinite(float(current)) and not (log_x and current <= 0):
        xs = math.log10(float(current)) if log_x else float(current)
        shapes.append(dict(type="line", name="current", x0=xs, x1=xs, xref="x",
                           y0=0, y1=1, yref="paper", line=dict(color="black", width=2, dash="dash")))
        annotations.append(dict(x=xs, y=1.0, xref="x", yref="paper", showarrow=False,
                                text=f"current: {float(current):g}", yanchor="bottom",
                                font=dict(size=12)))
    layout = layout_dict(
        title=title, subtitle=subtitle, height=height, shapes=shapes, annotations=annotations,
        xaxis=dict(title=dict(text=escape_html(param_label)) if not no_param else None,
                   type="log" if log_x and not no_param else "-"),
        yaxis=dict(title=dict(text="value"), range=[-0.02, 1.02], ticklabelstandoff=6),  # ("0" clear of the x ticks)
        legend=dict(orientation="h", yanchor="top", y=-0.28, x=0), hovermode="closest")
    layout["margin"]["b"] = 90
    return go.Figure(data=traces, layout=layout)
