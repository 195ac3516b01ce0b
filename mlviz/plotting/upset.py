"""UpSet-style panel of label-set intersections (Lex et al., IEEE TVCG 2014).

An *intersection* here is an exact label set: the instances whose set of labels is exactly
``S`` (UpSet's exclusive intersections), so the counts of all intersections add up to the
number of instances.  The panel draws the ``top_k`` most frequent ones: a bar of counts per
intersection above a dot matrix (one row per label taking part, a filled dot where the label
belongs to the set, the dots of a set joined by a line).

:func:`labelset_intersections` is the count (numpy, O(n L log n)); :func:`upset_figure` draws
it.  The bars carry the intersection's rank in ``customdata`` and ``meta="intersections"`` so a
click (``st.plotly_chart(on_select=...)``) maps back to the set (:func:`selected_intersections`).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._style import esc, layout_dict, tick_font_size

__all__ = ["labelset_intersections", "upset_figure", "selected_intersections", "EMPTY_SET"]

#: How the empty label set is written.
EMPTY_SET = "∅ (no label)"
#: Most intersections drawn and most label rows of the dot matrix.
MAX_INTERSECTIONS, MAX_ROWS = 60, 50  # (≤ 50 names on a figure; a bar's hover names its whole set)
#: Height (px) of one name's row in the matrix, of the bars, and of the title, subtitle and axes around them.
ROW_PX, BARS_PX, MARGIN_PX = 22, 220, 190  # (22: names clear of each other in presentation mode's 1.5× text)


def labelset_intersections(Y, top_k=None):
    """The exact label sets of the rows of ``Y`` with their counts, most frequent first.

    Parameters
    ----------
    Y : array-like or sparse matrix, shape (n, L), 0/1
    top_k : int, optional
        Keep the ``top_k`` most frequent sets (all by default).

    Returns
    -------
    list of (tuple of int, int)
        ``(sorted label indices, count)``; ties broken by fewer labels, then by the indices.
    """
    Y = Y.toarray() if hasattr(Y, "toarray") else np.asarray(Y)
    if Y.ndim != 2:
        raise ValueError(f"Y must be 2-D (n_instances, n_labels), got shape {Y.shape}.")
    B = (Y != 0)
    if B.shape[0] == 0:
        return []
    rows, counts = np.unique(B, axis=0, return_counts=True)
    sets = [tuple(int(j) for j in np.flatnonzero(r)) for r in rows]
    order = sorted(range(len(sets)), key=lambda i: (-int(counts[i]), len(sets[i]), sets[i]))
    if top_k is not None:
        order = order[:max(int(top_k), 0)]
    return [(sets[i], int(counts[i])) for i in order]


def set_name(members, label_names) -> str:
    """``"a & b"`` (or :data:`EMPTY_SET`) for label indices ``members``."""
    return " & ".join(str(label_names[j]) for j in members) if members else EMPTY_SET


def upset_figure(Y, label_names, *, top_k=15, selected=None, title=None, height=None):
    """Bars of the ``top_k`` most frequent label sets above their membership dot matrix.

    Parameters
    ----------
    Y : array-like or sparse, shape (n, L), 0/1
    label_names : sequence of str, length L
    top_k : int
        Intersections drawn (at most :data:`MAX_INTERSECTIONS`).
    selected : tuple of int, optional
        A label set to draw in a highlight colour (if among the ``top_k``).
    title : str, optional
    height : int, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0: the bars (``meta="intersections"``, ``customdata`` = rank 0..k-1,
        ``y`` = counts); then the matrix: grey dots (``meta="matrix-empty"``), member dots
        (``meta="matrix"``), and one line per multi-label set.  The figure's ``layout.meta``
        holds ``{"sets": [[indices], ...], "counts": [...], "rows": [label indices of the matrix],
        "n_distinct": ..., "all_unique": ...}``; the subtitle says how many distinct label sets
        there are and, when every set occurs once, that no combination repeats (the bars are
        then examples).
    """
    names = [str(n) for n in label_names]
    Y = Y.toarray() if hasattr(Y, "toarray") else np.asarray(Y)
    if Y.ndim != 2 or Y.shape[1] != len(names):
        raise ValueError(f"Y has {Y.shape[-1] if Y.ndim else 0} label columns but {len(names)} label names were given.")
    k = min(max(int(top_k), 1), MAX_INTERSECTIONS)
    every = labelset_intersections(Y)
    top = every[:k]
    sets = [s for s, _ in top]
    counts = [c for _, c in top]
    used = sorted({j for s in sets for j in s})
    freq = (Y != 0).sum(axis=0)
    rows = sorted(used, key=lambda j: (-int(freq[j]), j))[:MAX_ROWS]  # most frequent label at the top
    row_of = {j: i for i, j in enumerate(rows)}
    x = list(range(len(sets)))
    sel = tuple(selected) if selected is not None else None
    colors = ["#D62728" if sel is not None and s == sel else "#1F77B4" for s in sets]
    hover = [esc(set_name(s, names)) + f"<br>{c} instances" for s, c in zip(sets, counts)]
    traces = [go.Bar(x=x, y=counts, marker_color=colors, customdata=x, meta="intersections",
                     hovertext=hover, hoverinfo="text", name="instances", xaxis="x", yaxis="y",
                     showlegend=False)]
    gx, gy = np.meshgrid(x, range(len(rows)))
    traces.append(go.Scatter(x=gx.ravel().tolist(), y=gy.ravel().tolist(), mode="markers", meta="matrix-empty",
                             marker=dict(color="#E5E5E5", size=9), hoverinfo="skip", xaxis="x", yaxis="y2",
                             showlegend=False))
    mx, my, lx, ly = [], [], [], []
    for i, s in enumerate(sets):
        ys = [row_of[j] for j in s if j in row_of]
        mx += [i] * len(ys)
        my += ys
        if len(ys) > 1:
            lx += [i, i, None]
            ly += [min(ys), max(ys), None]
    traces.append(go.Scatter(x=lx, y=ly, mode="lines", line=dict(color="#333333", width=2), hoverinfo="skip",
                             meta="matrix-lines", xaxis="x", yaxis="y2", showlegend=False))
    traces.append(go.Scatter(x=mx, y=my, mode="markers", meta="matrix", marker=dict(color="#333333", size=10),
                             hoverinfo="skip", xaxis="x", yaxis="y2", showlegend=False))
    n_rows = max(len(rows), 1)
    # the matrix gets ROW_PX per name (they ran into each other at 983 labels: 50 names in 250 px), the bars the rest
    h = int(height or (BARS_PX + ROW_PX * n_rows + MARGIN_PX))
    split = float(np.clip(ROW_PX * n_rows / max(h - MARGIN_PX, 100) + 0.04, 0.25, 0.8))
    unique = bool(every) and every[0][1] == 1  # (every label set occurs once: bars of height 1 say nothing)
    note = (f"every one of the {len(every)} label sets occurs once: no combination repeats (the {len(sets)} "
            "drawn are examples, by fewest labels)" if unique else
            f"{len(every)} distinct label sets; the {len(sets)} drawn cover {sum(counts)} of {len(Y)} instances")
    layout = layout_dict(
        title=title or f"The {len(sets)} most frequent label sets (exact intersections)", subtitle=note, height=h,
        xaxis=dict(tickvals=x, ticktext=[str(i + 1) for i in x], title="label set (rank)", anchor="y2",
                   range=[-0.6, len(sets) - 0.4]),
        yaxis=dict(domain=[split, 1.0], title="instances"),
        yaxis2=dict(domain=[0.0, split - 0.04], tickvals=list(range(len(rows))),
                    ticktext=[esc(names[j]) for j in rows], autorange="reversed", showgrid=False,
                    tickfont=dict(size=tick_font_size(n_rows)),
                    range=[-0.5, n_rows - 0.5]),
        bargap=0.3,
        meta={"sets": [list(s) for s in sets], "counts": counts, "rows": rows, "n_distinct": len(every),
              "all_unique": unique},
    )
    return go.Figure(data=traces, layout=layout)


def selected_intersections(fig, points):
    """The label sets (tuples of indices) of the clicked/selected bars of :func:`upset_figure`.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    points : list of dict
        ``event.selection.points`` (``curve_number`` and ``customdata`` or ``point_index``/``x``).

    Returns
    -------
    list of tuple of int
    """
    sets = fig.layout.meta["sets"] if fig.layout.meta else []
    out = []
    for p in points or []:
        curve = p.get("curve_number", p.get("curveNumber"))
        if curve is None or curve >= len(fig.data) or fig.data[curve].meta != "intersections":
            continue
        i = p.get("customdata", p.get("point_index", p.get("pointIndex", p.get("x"))))
        if isinstance(i, (list, tuple)):
            i = i[0]
        if i is not None and 0 <= int(i) < len(sets):
            s = tuple(int(j) for j in sets[int(i)])
            if s not in out:
                out.append(s)
    return out
