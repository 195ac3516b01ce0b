"""Solver diagnostics: the regularisation path and the FISTA convergence curve."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._style import FOOT_LEGEND, empty_figure, layout_dict, note_annotation

__all__ = ["regularization_path_figure", "convergence_figure"]

_EDGE_COLOR = "#1F77B4"
_FEATURE_COLOR = "#FF7F0E"
_CURRENT_COLOR = "#D62728"


def regularization_path_figure(gammas, n_edges, *, current_gamma=None,
                               n_features=None, title=None, note=None):
    """Number of label-graph edges (and selected features) against γ.

    Parameters
    ----------
    gammas : array-like of float, shape (k,)
        Values of the l1 weight γ on the label-dependency block V
        (Guo & Xue, eq. (6)); need not be sorted. Values <= 0 cannot be
        shown on the log axis and are dropped with a note.
    n_edges : array-like of int, shape (k,)
        Number of non-zero entries of V (edges) at each γ.
    current_gamma : float, optional
        The slider's γ, drawn as a vertical dashed line (trace named
        ``"current γ"``, ``x == [γ, γ]``) with an annotation.
    n_features : array-like of int, shape (k,), optional
        Number of selected features (non-zero rows of W) per γ, drawn on a
        secondary y axis.
    title : str, optional
    note : str, optional
        A grey remark written on the plotting area, e.g. that the path is
        still being computed and only some γ values are shown.

    Returns
    -------
    plotly.graph_objects.Figure
        Log-scale x axis titled "γ (ℓ1 on label edges, log scale)".
    """
    g = np.asarray(gammas, dtype=float).ravel()
    e = np.asarray(n_edges, dtype=float).ravel()
    if g.shape != e.shape:
        raise ValueError(f"gammas {g.shape} and n_edges {e.shape} differ.")
    f = None if n_features is None else np.asarray(n_features, float).ravel()
    if f is not None and f.shape != g.shape:
        raise ValueError(f"gammas {g.shape} and n_features {f.shape} differ.")
    keep = np.isfinite(g) & (g > 0) & np.isfinite(e)
    dropped = int((~keep).sum())
    order = np.argsort(g[keep], kind="stable")
    g, e = g[keep][order], e[keep][order]
    if f is not None:
        f = f[keep][order]
    if g.size == 0:
        return empty_figure(note or "No positive γ values to show", title=title)

    # Built in one go.Figure call (the layout make_subplots would produce): several
    # times faster to validate than adding traces and axes one by one.
    data = [go.Scatter(
        x=g, y=e, mode="lines+markers", name="edges in the label graph",
        line=dict(color=_EDGE_COLOR, width=2, shape="hv"),
        hovertemplate="γ = %{x:.3g}<br>%{y:d} edges<extra></extra>", xaxis="x", yaxis="y")]
    layout = dict(
        xaxis=dict(anchor="y", domain=[0.0, 0.94 if f is not None else 1.0], type="log",
                   title_text="γ (ℓ1 on label edges, log scale)"),  # (short: the axis titles of a half-width
        yaxis=dict(anchor="x", domain=[0.0, 1.0], title_text="edges", rangemode="tozero",  # figure in large text)
                   ticklabelstandoff=6),  # ("0" clear of the first γ tick at the corner)
        annotations=[], legend=dict(FOOT_LEGEND))
    if f is not None:
        data.append(go.Scatter(
            x=g, y=f, mode="lines+markers", name="selected features",
            line=dict(color=_FEATURE_COLOR, width=2, dash="dot", shape="hv"),
            hovertemplate="γ = %{x:.3g}<br>%{y:d} features<extra></extra>", xaxis="x", yaxis="y2"))
        layout["yaxis2"] = dict(anchor="x", overlaying="y", side="right", title_text="selected features",
                                rangemode="tozero", showgrid=False, tickmode="auto")
    ymax = float(max(e.max(), 1.0)) * 1.05
    if current_gamma is not None and np.isfinite(current_gamma) \
            and current_gamma > 0:
        cg = float(current_gamma)
        data.append(go.Scatter(
            x=[cg, cg], y=[0.0, ymax], mode="lines", name="current γ",
            line=dict(color=_CURRENT_COLOR, width=2, dash="dash"),
            hovertemplate=f"current γ = {cg:.3g}<extra></extra>", xaxis="x", yaxis="y"))
        layout["annotations"].append(dict(
            x=np.log10(cg), y=1.0, xref="x", yref="paper", yanchor="bottom",
            text=f"current γ = {cg:.3g}", showarrow=False,
            font=dict(color=_CURRENT_COLOR)))
    if dropped:
        layout["annotations"].append(note_annotation(
            f"{dropped} non-positive γ value(s) not shown on the log axis", y=0.95))
    if note:
        layout["annotations"].append(note_annotation(note, y=0.8))
    return go.Figure(data=data, layout=layout_dict(title=title, height=400, **layout))


def _history_array(objective_history):
    h = objective_history
    for attr in ("objective_history", "objective_history_", "history"):
        if hasattr(h, attr):
            h = getattr(h, attr)
            break
    if isinstance(h, dict):
        h = h.get("objective", h.get("obj", next(iter(h.values()), [])))
    return np.asarray(h, dtype=float).ravel()


def convergence_figure(objective_history, *, title=None):
    """FISTA objective and relative gap per iteration.

    Parameters
    ----------
    objective_history : array-like of float, shape (n_iter + 1,)
        Objective values F(x_k), k = 0 (start), 1, ..., n_iter, as in
        ``FistaResult.objective_history`` or a model's
        ``objective_history_`` (also accepted: such an object itself, or a
        dict with an ``"objective"`` key). Non-finite values are dropped.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Two stacked panels sharing the iteration axis: the objective (log y
        when all values are positive) and the relative gap
        ``(F_k - F_best) / max(|F_best|, eps)`` on a log y axis, where
        ``F_best`` is the smallest objective seen; iterations whose gap is 0
        (the best one) are not drawn on the log axis.
    """
    F = _history_array(objective_history)
    F = F[np.isfinite(F)]
    if F.size == 0:
        return empty_figure("No objective values recorded", title=title)
    it = np.arange(F.size)
    best = float(F.min())
    gap = (F - best) / max(abs(best), np.finfo(float).eps)
    mode = "lines+markers" if F.size <= 200 else "lines"
    pos = gap > 0
    data = [
        go.Scatter(x=it, y=F, mode=mode, name="objective", line=dict(color="#1F77B4", width=2),
                   marker=dict(size=4), hovertemplate="iteration %{x}<br>F = %{y:.6g}<extra></extra>",
                   xaxis="x", yaxis="y"),
        go.Scatter(x=it[pos], y=gap[pos], mode=mode, name="relative gap", line=dict(color="#FF7F0E", width=2),
                   marker=dict(size=4), hovertemplate="iteration %{x}<br>gap = %{y:.3e}<extra></extra>",
                   xaxis="x2", yaxis="y2"),
    ]

    def panel_title(text, y):  # as make_subplots' subplot_titles
        return dict(text=text, x=0.5, y=y, xref="paper", yref="paper", xanchor="center", yanchor="bottom",
                    showarrow=False, font=dict(size=16))

    # Two stacked panels sharing the iteration axis (make_subplots(rows=2, shared_xaxes=True,
    # vertical_spacing=0.08)), built in one call: several times faster to validate.
    top = dict(anchor="x", domain=[0.54, 1.0], title_text="objective")
    if np.all(F > 0):
        top["type"] = "log"
    layout = dict(
        xaxis=dict(anchor="y", domain=[0.0, 1.0], matches="x2", showticklabels=False),
        yaxis=top,
        # (iterations never below 0: with one iteration, "−1" sat on the gap's lowest power at the corner)
        xaxis2=dict(anchor="y2", domain=[0.0, 1.0], title_text="iteration", rangemode="nonnegative"),
        yaxis2=dict(anchor="x2", domain=[0.0, 0.46], type="log", title_text="relative gap",
                    exponentformat="power", dtick=1, ticklabelstandoff=6),  # (decades only: 2s and 5s hit the powers)
        annotations=[panel_title("objective F(x_k)", 1.0), panel_title("relative gap to the best objective", 0.46)],
        showlegend=False)
    return go.Figure(data=data, layout=layout_dict(title=title, height=480, **layout))
