"""Solver diagnostics: the regularisation path and the FISTA convergence curve."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._style import add_note, empty_figure, finish_layout

__all__ = ["regularization_path_figure", "convergence_figure"]

_EDGE_COLOR = "#1F77B4"
_FEATURE_COLOR = "#FF7F0E"
_CURRENT_COLOR = "#D62728"


def regularization_path_figure(gammas, n_edges, *, current_gamma=None,
                               n_features=None, title=None):
    """Number of label-graph edges (and selected features) against γ.

    Parameters
    ----------
    gammas : array-like of float, shape (k,)
        Values of the l1 weight γ on the label-dependency block V
        (paper 001, eq. (6)); need not be sorted. Values <= 0 cannot be
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

    Returns
    -------
    plotly.graph_objects.Figure
        Log-scale x axis titled "γ (l1 penalty on label dependencies)".
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
        return empty_figure("No positive γ values to show", title=title)

    fig = make_subplots(specs=[[{"secondary_y": f is not None}]])
    fig.add_trace(go.Scatter(
        x=g, y=e, mode="lines+markers", name="edges in the label graph",
        line=dict(color=_EDGE_COLOR, width=2, shape="hv"),
        hovertemplate="γ = %{x:.3g}<br>%{y:d} edges<extra></extra>"),
        secondary_y=False)
    if f is not None:
        fig.add_trace(go.Scatter(
            x=g, y=f, mode="lines+markers", name="selected features",
            line=dict(color=_FEATURE_COLOR, width=2, dash="dot", shape="hv"),
            hovertemplate="γ = %{x:.3g}<br>%{y:d} features<extra></extra>"),
            secondary_y=True)
        fig.update_yaxes(title_text="selected features", secondary_y=True,
                         rangemode="tozero", showgrid=False, tickmode="auto")
    ymax = float(max(e.max(), 1.0)) * 1.05
    if current_gamma is not None and np.isfinite(current_gamma) \
            and current_gamma > 0:
        cg = float(current_gamma)
        fig.add_trace(go.Scatter(
            x=[cg, cg], y=[0.0, ymax], mode="lines", name="current γ",
            line=dict(color=_CURRENT_COLOR, width=2, dash="dash"),
            hovertemplate=f"current γ = {cg:.3g}<extra></extra>"),
            secondary_y=False)
        fig.add_annotation(
            x=np.log10(cg), y=1.0, xref="x", yref="paper", yanchor="bottom",
            text=f"current γ = {cg:.3g}", showarrow=False,
            font=dict(color=_CURRENT_COLOR))
    fig.update_xaxes(type="log", title_text="γ (l1 penalty on label "
                     "dependencies, log scale)")
    fig.update_yaxes(title_text="edges in the label graph", rangemode="tozero",
                     secondary_y=False)
    if dropped:
        add_note(fig, f"{dropped} non-positive γ value(s) not shown on the "
                 "log axis", y=0.95)
    fig.update_layout(legend=dict(orientation="h", y=-0.25, yanchor="top"))
    return finish_layout(fig, title=title, height=400)


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
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True,
                        vertical_spacing=0.08,
                        subplot_titles=("objective F(x_k)",
                                        "relative gap to the best objective"))
    fig.add_trace(go.Scatter(
        x=it, y=F, mode="lines+markers" if F.size <= 200 else "lines",
        name="objective", line=dict(color="#1F77B4", width=2),
        marker=dict(size=4),
        hovertemplate="iteration %{x}<br>F = %{y:.6g}<extra></extra>"),
        row=1, col=1)
    pos = gap > 0
    fig.add_trace(go.Scatter(
        x=it[pos], y=gap[pos], mode="lines+markers" if F.size <= 200 else "lines",
        name="relative gap", line=dict(color="#FF7F0E", width=2),
        marker=dict(size=4),
        hovertemplate="iteration %{x}<br>gap = %{y:.3e}<extra></extra>"),
        row=2, col=1)
    if np.all(F > 0):
        fig.update_yaxes(type="log", row=1, col=1)
    fig.update_yaxes(title_text="objective", row=1, col=1)
    fig.update_yaxes(type="log", title_text="relative gap",
                     exponentformat="power", row=2, col=1)
    fig.update_xaxes(title_text="iteration", row=2, col=1)
    fig.update_layout(showlegend=False)
    return finish_layout(fig, title=title, height=480)
