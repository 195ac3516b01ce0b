"""Figures of the linked views: a highlight overlay for a scatter and the posterior profile of a selection."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._style import as_float32, esc, layout_dict

__all__ = ["add_highlight", "selection_profile", "selection_profile_figure"]

#: Labels drawn at most in a selection profile (those whose mean moves most).
PROFILE_MAX_LABELS = 30


def add_highlight(fig, coords, ids, *, name, dims=2, color="#D62728", hover_text=None):
    """A copy of ``fig`` with the points ``coords[ids]`` ringed (one trace, ``meta="highlight"``,
    which :func:`mlviz.plotting.selection_ids` ignores).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    coords : ndarray, shape (n, >= dims)
    ids : array-like of int
    name : str
        Legend entry (escaped).
    dims : {2, 3}
    hover_text : sequence of str, length n, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    ids = np.asarray(ids, dtype=np.int64)
    ids = ids[(ids >= 0) & (ids < len(coords))]
    out = go.Figure(fig)
    if ids.size == 0:
        return out
    P = as_float32(np.asarray(coords)[ids, :dims])
    text = None if hover_text is None else [esc(hover_text[i]) for i in ids]
    common = dict(mode="markers", name=esc(name), meta="highlight", customdata=ids, hovertext=text,
                  hoverinfo="text+name" if text is not None else "name", showlegend=True)
    if dims == 3:
        out.add_trace(go.Scatter3d(x=P[:, 0], y=P[:, 1], z=P[:, 2],
                                   marker=dict(size=7, color="rgba(0,0,0,0)", line=dict(color=color, width=3)),
                                   **common))
    else:
        out.add_trace(go.Scatter(x=P[:, 0], y=P[:, 1],
                                 marker=dict(size=14, symbol="circle-open", color=color, line=dict(width=2.5)),
                                 **common))
    return out


def selection_profile(P, mask, max_labels=PROFILE_MAX_LABELS):
    """Per-label mean posterior of the selected rows and of all rows.

    Parameters
    ----------
    P : ndarray, shape (n, L)
    mask : ndarray of bool, shape (n,)
    max_labels : int
        Keep the labels whose mean moves most (``|selection - all|``), in label order.

    Returns
    -------
    labels : ndarray of int
    mean_selection, mean_all : ndarray, shape (len(labels),)
    """
    P = np.asarray(P, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    if mask.sum() == 0:
        raise ValueError("The selection holds no instance of this split.")
    sel, everyone = P[mask].mean(axis=0), P.mean(axis=0)
    labels = np.sort(np.lexsort((np.arange(P.shape[1]), -np.abs(sel - everyone)))[:int(max_labels)])
    return labels, sel[labels], everyone[labels]


def selection_profile_figure(P, mask, label_names, *, max_labels=PROFILE_MAX_LABELS, title=None, what="P(y=1|x)"):
    """Grouped bars: per label, the mean of ``P`` over the selection beside the mean over all rows.

    Parameters
    ----------
    P : ndarray, shape (n, L)
    mask : ndarray of bool, shape (n,)
    label_names : sequence of str, length L
    max_labels : int
    title : str, optional
    what : str
        What ``P`` holds (axis title).

    Returns
    -------
    plotly.graph_objects.Figure
        Two bar traces (``meta="selection"`` and ``meta="all"``), ``customdata`` = label indices.
    """
    labels, sel, everyone = selection_profile(P, mask, max_labels)
    names = [esc(str(label_names[j])) for j in labels]
    n_sel, n = int(np.asarray(mask, dtype=bool).sum()), len(mask)
    traces = [go.Bar(x=names, y=sel, name=f"selection ({n_sel})", meta="selection", customdata=labels,
                     marker_color="#D62728"),
              go.Bar(x=names, y=everyone, name=f"all ({n})", meta="all", customdata=labels, marker_color="#9E9E9E")]
    layout = layout_dict(title=title or f"Mean {what}: the selection beside all instances", height=360,
                         barmode="group", yaxis=dict(range=[0, 1], title=f"mean {esc(what)}"),
                         xaxis=dict(tickangle=-45 if len(labels) > 8 else 0),
                         legend=dict(orientation="h", y=1.02, x=1, xanchor="right", yanchor="bottom"))
    return go.Figure(data=traces, layout=layout)
