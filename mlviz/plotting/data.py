"""Data-set overview figures: label frequencies and label co-occurrence."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._style import (
    BAR_COLOR,
    COUNT_SCALE,
    DIVERGING_SCALE,
    MAX_X_NAMES,
    PROBABILITY_SCALE,
    column_tick_step,
    esc,
    esc_all,
    finish_layout,
    label_axis_style,
    label_axis_title,
    label_tick_step,
    template_text,
)

__all__ = ["label_frequency_bar", "cooccurrence_counts", "cooccurrence_heatmap",
           "signed_matrix_heatmap", "edge_stability_heatmap"]


def label_frequency_bar(label_names, counts, *, title=None, n_samples=None,
                        sort=True):
    """Bar chart of how many instances carry each label.

    Parameters
    ----------
    label_names : sequence of str, length L
    counts : array-like of int, shape (L,)
        Number of positive instances per label (column sums of Y).
    title : str, optional
    n_samples : int, optional
        Number of instances; when given, hover also shows the percentage.
    sort : bool, default True
        Sort bars by decreasing count (ties keep the input order).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Bar`` trace; x = label names, y = counts.
    """
    names = np.asarray([str(n) for n in label_names], dtype=object)
    counts = np.asarray(counts, dtype=float).ravel()
    if len(names) != len(counts):
        raise ValueError(
            f"label_names has {len(names)} entries but counts has {len(counts)}."
        )
    order = np.argsort(-counts, kind="stable") if sort else np.arange(len(counts))
    names, counts = names[order], counts[order]
    if n_samples:
        pct = 100.0 * counts / float(n_samples)
        custom = pct
        hover = "<b>%{x}</b><br>%{y:d} instances (%{customdata:.1f}%)<extra></extra>"
    else:
        custom = None
        hover = "<b>%{x}</b><br>%{y:d} instances<extra></extra>"
    fig = go.Figure(go.Bar(
        x=esc_all(names), y=counts, marker_color=BAR_COLOR, customdata=custom,
        hovertemplate=hover, name="label frequency",
    ))
    fig.update_xaxes(title_text=label_axis_title("label", len(names)), **label_axis_style(names))
    fig.update_yaxes(title_text="instances with the label",  # (short: whole on a 420-pixel-high figure in large text)
                     rangemode="tozero", ticklabelstandoff=6)  # ("0" clear of the first name, written at the corner)
    return finish_layout(fig, title=title, height=420, bargap=0.15)


def cooccurrence_counts(Y):
    """Label co-occurrence counts ``C = Y^T Y``.

    Parameters
    ----------
    Y : array-like or sparse of {0, 1}, shape (n_samples, L)

    Returns
    -------
    ndarray of int64, shape (L, L)
        ``C[i, j]`` = number of instances with both labels i and j; the
        diagonal holds the label frequencies.

    Notes
    -----
    The product is taken in float64 through BLAS (or as a sparse product
    for sparse ``Y``) and rounded: exact for counts below 2^53, and about
    1,000 times faster than numpy's integer matmul, which has no BLAS
    (20,000 x 1,000: ~0.2 s instead of ~15 min).
    """
    if hasattr(Y, "tocsc"):
        import scipy.sparse as sp
        Ys = sp.csc_matrix(Y, dtype=np.float64)
        return np.rint((Ys.T @ Ys).toarray()).astype(np.int64)
    Yf = np.asarray(Y, dtype=np.float64)
    return np.rint(Yf.T @ Yf).astype(np.int64)


def _normalized_cooccurrence(C, normalize):
    C = np.asarray(C, dtype=float)
    diag = np.diag(C).copy()
    if normalize is None:
        return C
    if normalize == "jaccard":
        union = diag[:, None] + diag[None, :] - C
        return np.divide(C, union, out=np.zeros_like(C), where=union > 0)
    if normalize == "conditional":
        rows = np.broadcast_to(diag[:, None], C.shape)
        return np.divide(C, rows, out=np.zeros_like(C), where=rows > 0)
    raise ValueError(
        "normalize must be None, 'jaccard' or 'conditional', "
        f"got {normalize!r}."
    )


def cooccurrence_heatmap(cooccurrence, label_names, *, normalize=None,
                         title=None, colorbar_title=None):
    """Heatmap of label co-occurrence.

    Parameters
    ----------
    cooccurrence : array-like, shape (L, L)
        Co-occurrence counts ``Y^T Y`` (diagonal = label frequencies), see
        :func:`cooccurrence_counts`.
    label_names : sequence of str, length L
    normalize : {None, "jaccard", "conditional"}
        ``None``: raw counts. ``"jaccard"``: ``C_ij / (C_ii + C_jj - C_ij)``
        (symmetric, 1 on the diagonal). ``"conditional"``: row-normalised
        ``C_ij / C_ii`` = estimated P(label j | label i) (row label given).
        Labels that never occur give 0, never NaN. With ``None``, a
        non-integer matrix (e.g. edge-stability frequencies) is shown as is
        with 3-decimal hover values.
    title : str, optional
    colorbar_title : str, optional
        Overrides the colour-bar title.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Heatmap``; ``z`` is the (normalised) matrix, row i = label i
        from the top. Normalised values use a fixed [0, 1] colour range.
    """
    C = np.asarray(cooccurrence, dtype=float)
    names = [str(n) for n in label_names]
    if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] != len(names):
        raise ValueError(
            f"cooccurrence must be ({len(names)}, {len(names)}) to match "
            f"label_names, got shape {C.shape}."
        )
    Z = _normalized_cooccurrence(C, normalize)
    integer = bool(np.all(np.isfinite(C)) and np.all(C == np.round(C)))
    if normalize is None and integer:
        scale, zmin, zmax = COUNT_SCALE, 0.0, max(float(Z.max(initial=0.0)), 1.0)
        cbar = "co-occurrences"
        hover = ("row: <b>%{y}</b><br>column: <b>%{x}</b><br>"
                 "%{z:d} instances with both<extra></extra>")
    elif normalize is None:
        finite = Z[np.isfinite(Z)]
        lo = float(min(finite.min(initial=0.0), 0.0))
        hi = float(max(finite.max(initial=1.0), 1.0)) if finite.size else 1.0
        scale, zmin, zmax = COUNT_SCALE, lo, hi
        cbar = "fraction" if lo >= 0 and hi <= 1 else "value"
        hover = ("row: <b>%{y}</b><br>column: <b>%{x}</b><br>"
                 + template_text(colorbar_title or cbar) + " = %{z:.3f}<extra></extra>")
    else:
        scale, zmin, zmax = PROBABILITY_SCALE, 0.0, 1.0
        cbar = "Jaccard" if normalize == "jaccard" else "P(column | row)"
        what = ("Jaccard index" if normalize == "jaccard"
                else "P(column label | row label)")
        hover = ("row: <b>%{y}</b><br>column: <b>%{x}</b><br>" + what
                 + " = %{z:.3f}<br>%{customdata:d} instances with both"
                 "<extra></extra>")
    fig = go.Figure(go.Heatmap(
        z=Z.astype(np.float32), x=esc_all(names), y=esc_all(names), colorscale=scale,
        zmin=zmin, zmax=zmax,
        colorbar=dict(title=dict(text=esc(colorbar_title or cbar))),
        customdata=None if normalize is None else C.astype(np.int64),
        hovertemplate=hover, xgap=1 if len(names) <= 30 else 0,
        ygap=1 if len(names) <= 30 else 0,
    ))
    style = label_axis_style(names)
    kx = column_tick_step(len(names))  # (rotated names need more room than rows)
    fig.update_xaxes(title_text=label_axis_title("label", len(names), step=kx),
                     **dict(label_axis_style(names, MAX_X_NAMES), dtick=kx))
    ystyle = dict(style, tickangle=0)
    fig.update_yaxes(title_text=label_axis_title("label", len(names)), autorange="reversed", **ystyle)
    height = int(np.clip(220 + 14 * len(names), 420, 900))
    return finish_layout(fig, title=title, height=height)


def signed_matrix_heatmap(matrix, row_names, col_names, *, title=None,
                          colorbar_title="weight", x_title="label",
                          y_title="label"):
    """Heatmap of a signed matrix (e.g. the sparse-CDN label weights V).

    Parameters
    ----------
    matrix : array-like, shape (r, c)
    row_names : sequence of str, length r
    col_names : sequence of str, length c
    title, colorbar_title, x_title, y_title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Heatmap`` with the diverging scale centred at 0
        (``zmid=0``, symmetric ``zmin = -zmax``); exact zeros are white.
    """
    M = np.asarray(matrix, dtype=float)
    rows, cols = [str(s) for s in row_names], [str(s) for s in col_names]
    if M.shape != (len(rows), len(cols)):
        raise ValueError(f"matrix has shape {M.shape}, expected "
                         f"({len(rows)}, {len(cols)}).")
    finite = np.abs(M[np.isfinite(M)])
    m = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    fig = go.Figure(go.Heatmap(
        z=M.astype(np.float32), x=esc_all(cols), y=esc_all(rows), colorscale=DIVERGING_SCALE,
        zmid=0.0, zmin=-m, zmax=m,
        colorbar=dict(title=dict(text=esc(colorbar_title))),
        hovertemplate="row: <b>%{y}</b><br>column: <b>%{x}</b><br>"
                      + template_text(colorbar_title) + " = %{z:+.4g}<extra></extra>"))
    kx = column_tick_step(len(cols)) if len(cols) == len(rows) else label_tick_step(len(cols), MAX_X_NAMES)
    fig.update_xaxes(title_text=esc(label_axis_title(x_title, len(cols), step=kx)),
                     **dict(label_axis_style(cols, MAX_X_NAMES), dtick=kx))
    fig.update_yaxes(title_text=esc(label_axis_title(y_title, len(rows))), autorange="reversed",
                     **dict(label_axis_style(rows), tickangle=0))
    height = int(np.clip(220 + 14 * len(rows), 420, 900))
    return finish_layout(fig, title=title, height=height)


def edge_stability_heatmap(frequency, label_names, *, n_folds=None, title=None):
    """How often each label-graph edge is selected across folds or resamples.

    Parameters
    ----------
    frequency : array-like of float in [0, 1], shape (L, L)
        ``frequency[i, j]`` = fraction of fits in which the edge i -> j is non-zero.
    label_names : sequence of str, length L
    n_folds : int, optional
        Number of fits the fractions are over (shown in the colour-bar title).
    title : str, optional
        Default "Fraction of folds in which edge row → column is present".

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Heatmap`` with a fixed [0, 1] range and the colour bar titled
        "fraction of folds" (or "fraction of the k folds").
    """
    cbar = "fraction of folds" if not n_folds else f"fraction of the {int(n_folds)} folds"
    return cooccurrence_heatmap(
        frequency, label_names, normalize=None, colorbar_title=cbar,
        title=title or "Fraction of folds in which edge row → column is present")
