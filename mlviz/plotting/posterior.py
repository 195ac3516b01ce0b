"""Posterior views: P(y_l = 1 | x) heatmaps and per-label reliability curves."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._style import (
    PROBABILITY_SCALE, as_float32, finish_layout, label_axis_style,
    qualitative_colors,
)

__all__ = ["order_by_labelset", "posterior_heatmap", "reliability_bins",
           "reliability_figure"]


def _dense(a, dtype=float):
    if hasattr(a, "toarray"):
        a = a.toarray()
    return np.asarray(a, dtype=dtype)


def order_by_labelset(Y):
    """Row order that groups identical true label sets.

    Rows are sorted lexicographically by their label vectors, label 0 the
    most significant and "has the label" first, so identical label sets are
    contiguous and the true-label heatmap reads as a staircase. The sort is
    stable: within a label set rows keep their original order.

    Parameters
    ----------
    Y : array-like or sparse of {0, 1}, shape (n, L)

    Returns
    -------
    ndarray of int64, shape (n,)
        A permutation of ``0..n-1``.
    """
    Y = _dense(Y, np.int8)
    if Y.ndim != 2:
        raise ValueError(f"Y must be 2-D, got shape {Y.shape}.")
    if Y.shape[1] == 0:
        return np.arange(Y.shape[0], dtype=np.int64)
    # np.lexsort sorts by the LAST key first; it is stable.
    keys = [-Y[:, j] for j in range(Y.shape[1] - 1, -1, -1)]
    return np.lexsort(keys).astype(np.int64)


def posterior_heatmap(P, Y_true, label_names, *, row_order=None, title=None,
                      instance_ids=None):
    """Predicted P(y_l = 1 | x) beside the true label matrix.

    Parameters
    ----------
    P : array-like, shape (n, L)
        Posterior probabilities ``predict_proba(X_test)``.
    Y_true : array-like of {0, 1}, shape (n, L)
    label_names : sequence of str, length L
    row_order : array-like of int, shape (n,), optional
        Row permutation shared by both panels; default
        :func:`order_by_labelset` of ``Y_true``.
    title : str, optional
    instance_ids : array-like, shape (n,), optional
        Unique ids of the rows, used as the (categorical) y values and shown
        on hover (default: the row index in ``P``).

    Returns
    -------
    plotly.graph_objects.Figure
        Two ``Heatmap`` traces side by side with a shared y axis (row ``r``
        of both = instance ``row_order[r]``, drawn top-down), the same
        sequential colour scale with ``zmin=0, zmax=1``; one colour bar
        titled "P(y=1|x)". ``y`` holds the instance ids (as strings) in row
        order, so ``y[r] == str(instance_ids[row_order[r]])``.
    """
    P = _dense(P)
    Y = _dense(Y_true)
    names = [str(s) for s in label_names]
    if P.shape != Y.shape or P.ndim != 2:
        raise ValueError(f"P {P.shape} and Y_true {Y.shape} must have the same "
                         "2-D shape.")
    if P.shape[1] != len(names):
        raise ValueError(f"label_names has {len(names)} entries for "
                         f"{P.shape[1]} labels.")
    n = P.shape[0]
    order = order_by_labelset(Y) if row_order is None \
        else np.asarray(row_order, dtype=np.int64)
    if sorted(order.tolist()) != list(range(n)):
        raise ValueError("row_order must be a permutation of 0..n-1.")
    ids = np.arange(n) if instance_ids is None else np.asarray(instance_ids)
    if len(ids) != n or len(np.unique(ids)) != n:
        raise ValueError(f"instance_ids must hold {n} unique ids, got "
                         f"{len(ids)} entries ({len(np.unique(ids))} unique).")
    # y = instance ids on a category axis (keeps the row order, gives the id
    # on hover without an n x L customdata array)
    rows = [str(v) for v in ids[order]]
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True,
                        horizontal_spacing=0.03,
                        subplot_titles=("predicted P(y=1|x)", "true labels Y"))
    fig.add_trace(go.Heatmap(
        z=as_float32(P[order]), x=names, y=rows,
        colorscale=PROBABILITY_SCALE, zmin=0.0, zmax=1.0, name="P(y=1|x)",
        colorbar=dict(title=dict(text="P(y=1|x)"), thickness=14),
        hovertemplate="instance %{y}<br>label <b>%{x}</b><br>"
                      "P(y=1|x) = %{z:.3f}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Heatmap(
        z=np.ascontiguousarray(Y[order], dtype=np.uint8), x=names, y=rows,
        colorscale=PROBABILITY_SCALE, zmin=0.0, zmax=1.0, showscale=False,
        name="true Y",
        hovertemplate="instance %{y}<br>label <b>%{x}</b><br>"
                      "true y = %{z}<extra></extra>"), row=1, col=2)
    style = label_axis_style(names)
    for col in (1, 2):
        fig.update_xaxes(title_text="label", row=1, col=col, **style)
    fig.update_yaxes(type="category", autorange="reversed",
                     showticklabels=n <= 60,
                     title_text="test instances (grouped by true label set)",
                     row=1, col=1)
    fig.update_yaxes(type="category", autorange="reversed", row=1, col=2)
    height = int(np.clip(250 + 3 * n, 450, 800))
    return finish_layout(fig, title=title, height=height)


def reliability_bins(y_true, p, n_bins=10):
    """Calibration statistics of one label on equal-width bins of [0, 1].

    A probability ``p`` falls in bin ``min(floor(p * n_bins), n_bins - 1)``.

    Parameters
    ----------
    y_true : array-like of {0, 1}, shape (n,)
    p : array-like of float in [0, 1], shape (n,)
    n_bins : int, default 10

    Returns
    -------
    mean_predicted, fraction_positive, counts : ndarrays, shape (k,)
        One entry per NON-EMPTY bin, in increasing order of probability.
        Pairs with a non-finite ``p`` or ``y_true`` are ignored.
    """
    y = np.asarray(y_true, dtype=float).ravel()
    p = np.asarray(p, dtype=float).ravel()
    if y.shape != p.shape:
        raise ValueError(f"y_true {y.shape} and p {p.shape} differ.")
    ok = np.isfinite(p) & np.isfinite(y)      # NaN posteriors are skipped
    y, p = y[ok], np.clip(p[ok], 0.0, 1.0)
    if int(n_bins) < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}.")
    b = np.minimum((p * n_bins).astype(int), n_bins - 1)
    counts = np.bincount(b, minlength=n_bins)
    sum_p = np.bincount(b, weights=p, minlength=n_bins)
    sum_y = np.bincount(b, weights=y, minlength=n_bins)
    nz = counts > 0
    return sum_p[nz] / counts[nz], sum_y[nz] / counts[nz], counts[nz]


def _resolve_labels(labels, names, Y, max_default=10):
    if labels is None:
        if len(names) <= max_default:
            return list(range(len(names)))
        freq = Y.sum(axis=0)
        return sorted(np.argsort(-freq, kind="stable")[:max_default].tolist())
    out = []
    for lab in labels:
        if isinstance(lab, (int, np.integer)):
            if not 0 <= lab < len(names):
                raise ValueError(f"label index {lab} out of range 0..{len(names) - 1}.")
            out.append(int(lab))
        else:
            if str(lab) not in names:
                raise ValueError(f"unknown label {lab!r}.")
            out.append(names.index(str(lab)))
    return out


def reliability_figure(Y_true, P, label_names, *, labels=None, n_bins=10,
                       title=None):
    """Per-label reliability (calibration) curves with the diagonal.

    Parameters
    ----------
    Y_true : array-like of {0, 1}, shape (n, L)
    P : array-like of float, shape (n, L)
    label_names : sequence of str, length L
    labels : sequence of int or str, optional
        Labels to draw (indices or names). Default: all labels when L <= 10,
        otherwise the 10 most frequent.
    n_bins : int, default 10
        Equal-width probability bins; empty bins are skipped
        (see :func:`reliability_bins`).
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        First trace: the dashed diagonal "perfectly calibrated"; then one
        ``Scatter`` per label (x = mean predicted probability in the bin,
        y = fraction of positives, marker area ∝ bin count, count on hover;
        ``meta`` = label index). Labels without positives are drawn with
        "(no positives)" in their legend name.
    """
    Y = _dense(Y_true)
    P = _dense(P)
    names = [str(s) for s in label_names]
    if P.shape != Y.shape or P.ndim != 2 or P.shape[1] != len(names):
        raise ValueError(f"Y_true {Y.shape}, P {P.shape} and {len(names)} "
                         "label names do not match.")
    chosen = _resolve_labels(labels, names, Y)
    colors = qualitative_colors(len(chosen))
    fig = go.Figure(go.Scatter(
        x=[0, 1], y=[0, 1], mode="lines", name="perfectly calibrated",
        line=dict(color="#888888", dash="dash", width=1.5), hoverinfo="skip"))
    n = max(P.shape[0], 1)
    for j, color in zip(chosen, colors):
        mp, fp, cnt = reliability_bins(Y[:, j], P[:, j], n_bins)
        npos = int(Y[:, j].sum())
        name = names[j] if npos > 0 else f"{names[j]} (no positives)"
        sizes = 6 + 18 * np.sqrt(cnt / n)
        fig.add_trace(go.Scatter(
            x=mp, y=fp, mode="lines+markers", name=name, meta=j,
            customdata=cnt, line=dict(color=color, width=2),
            marker=dict(size=sizes, color=color),
            hovertemplate=f"<b>{names[j]}</b><br>mean predicted %{{x:.3f}}"
                          "<br>fraction positive %{y:.3f}"
                          "<br>%{customdata} instances in bin<extra></extra>"))
    fig.update_xaxes(title_text="mean predicted P(y=1|x) in bin",
                     range=[-0.02, 1.02], constrain="domain")
    fig.update_yaxes(title_text="fraction of instances with the label",
                     range=[-0.02, 1.02])
    fig.update_layout(legend=dict(title=dict(text="label")))
    return finish_layout(fig, title=title, height=500)
