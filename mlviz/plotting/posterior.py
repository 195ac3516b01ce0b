"""Posterior views: P(y_l = 1 | x) heatmaps and per-label reliability curves."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mlviz._ranks import positive_rank_sums
from mlviz._text import shorten

from ._style import (
    PROBABILITY_SCALE,
    as_float32,
    esc,
    esc_all,
    finish_layout,
    label_axis_style,
    layout_dict,
    qualitative_colors,
    template_text,
)

__all__ = ["order_by_labelset", "posterior_heatmap", "posterior_grid", "per_label_scores",
           "decisions", "threshold_text", "reliability_bins", "reliability_figure"]


def _dense(a, dtype=float):
    if hasattr(a, "toarray"):
        a = a.toarray()
    return np.asarray(a, dtype=dtype)


#: Longest label name written under a heat map (characters; hover shows it whole).
TICK_CHARS = 18
#: Width (px) of the narrowest heat-map panel of three the pages draw: a figure in half of a
#: 1600-px window (Posteriors beside its reliability plot). Names under a panel are thinned to fit it.
PANEL_PX = 150


def _nth(k):
    return f"{k}{'th' if k % 100 in (11, 12, 13) else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def panel_label_style(ticks, n_panels, font_size=None):
    """Axis properties writing label names under one of ``n_panels`` side-by-side heat-map panels:
    vertical (slanted for up to 8 names under at most 2 panels), and every k-th name when all would not
    fit a panel of ``PANEL_PX * 3 / n_panels`` px (a name needs ~1.3 font sizes across; hover names every
    column).

    Returns
    -------
    (dict, int)
        Keyword arguments for ``fig.update_xaxes`` (``tickvals`` are the escaped names ``ticks[::k]``
        are written for) and ``k``.
    """
    base = label_axis_style(ticks)
    size = font_size or base["tickfont"]["size"]
    fits = max(2, int(PANEL_PX * 3 / max(n_panels, 3) / (1.3 * size)))
    k = max(int(base.pop("dtick", 1) or 1), int(np.ceil(len(ticks) / fits)))
    escaped = esc_all(ticks)
    # vertical from 9 names, or from 3 panels (two models beside the truth): slanted names of one panel reach
    # into the next one's on a 1024-pixel screen (or in presentation mode's larger text)
    vertical = len(ticks) > 8 or n_panels >= 3
    return dict(base, tickangle=-90 if vertical else base["tickangle"], tickfont=dict(size=size),
                tickmode="array", tickvals=escaped[::k], ticktext=escaped[::k]), k


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


def per_label_scores(Y_true, P, threshold=0.5):
    """ROC AUC and F1 of every label (the summary strip of :func:`posterior_heatmap`).

    Parameters
    ----------
    Y_true : array-like of {0, 1}, shape (n, L)
    P : array-like of float, shape (n, L)
    threshold : float, array-like (L,), or mlviz.metrics.RCut
        Decision rule for F1 (:func:`mlviz.metrics.binarize`).

    Returns
    -------
    auc, f1 : ndarrays of float, shape (L,)
        AUC by the Mann-Whitney statistic (ties count 1/2), NaN for a label
        whose test column has only one class; F1 = 2 TP / (2 TP + FP + FN),
        NaN when the label is neither true nor predicted anywhere.
    """
    Y = _dense(Y_true).astype(bool)
    S = _dense(P)
    n_pos = Y.sum(axis=0).astype(float)
    n_neg = Y.shape[0] - n_pos
    rank_sum = positive_rank_sums(Y, S)
    den = n_pos * n_neg
    auc = np.full(Y.shape[1], np.nan)
    np.divide(rank_sum - n_pos * (n_pos + 1) / 2, den, out=auc, where=den > 0)
    pred = decisions(S, threshold).astype(bool)
    tp = (pred & Y).sum(axis=0).astype(float)
    d = pred.sum(axis=0) + n_pos
    f1 = np.full(Y.shape[1], np.nan)
    np.divide(2 * tp, d, out=f1, where=d > 0)
    return auc, f1


def decisions(P, threshold, rows=None, cols=None):
    """0/1 predictions of ``P`` under ``threshold`` (float, per-label array or
    ``RCut``), as :func:`mlviz.metrics.binarize`, for the block ``rows`` x
    ``cols`` only (default: all). A rank cut ranks over every label of a row."""
    from mlviz.metrics import binarize

    rows = np.arange(P.shape[0]) if rows is None else np.asarray(rows)
    cols = np.arange(P.shape[1]) if cols is None else np.asarray(cols)
    if hasattr(threshold, "r"):
        return binarize(P[rows], threshold)[:, cols]
    t = np.asarray(threshold, dtype=float)
    return binarize(P[np.ix_(rows, cols)], t if t.ndim == 0 else t[cols])


def threshold_text(threshold):
    """Short description of a decision rule: ``"t = 0.50"``, ``"per-label t"``, ``"top-2"``."""
    if hasattr(threshold, "r"):
        return f"top-{int(threshold.r)} labels per instance"
    t = np.asarray(threshold, dtype=float)
    return f"t = {float(t):.2f}" if t.ndim == 0 else "per-label thresholds"


def _select_labels(labels, names, Y, max_labels, label_order, P):
    """Indices of the labels drawn at full width, in display order."""
    L = len(names)
    if labels is not None:
        chosen = _resolve_labels(labels, names, Y)
    elif L <= max_labels:
        chosen = list(range(L))
    else:
        freq = Y.sum(axis=0)
        chosen = sorted(np.argsort(-freq, kind="stable")[:max_labels].tolist())
    chosen = np.asarray(chosen, dtype=np.int64)
    if label_order == "frequency":
        chosen = chosen[np.argsort(-Y[:, chosen].sum(axis=0), kind="stable")]
    elif label_order == "cluster":
        chosen = chosen[_cluster_order(P[:, chosen].T)]
    elif label_order is not None:
        raise ValueError(f"label_order must be None, 'frequency' or 'cluster', got {label_order!r}.")
    return chosen


def _cluster_order(rows):
    """Leaf order of an average-linkage clustering of ``rows`` (correlation distance)."""
    from scipy.cluster.hierarchy import leaves_list, linkage

    rows = np.asarray(rows, dtype=float)
    if len(rows) < 3:
        return np.arange(len(rows))
    # constant rows have no correlation: a tiny deterministic jitter keeps distances finite
    jitter = 1e-9 * np.arange(rows.shape[1])[None, :]
    Z = linkage(rows + jitter, method="average", metric="correlation")
    return leaves_list(Z).astype(np.int64)


_OUTCOME_COLORS = ("#F2F2F2", "#F4A582", "#92C5DE", "#2166AC")   # TN, FP, FN, TP
_OUTCOME_NAMES = ("true negative", "false positive", "false negative", "true positive")
#: Up to this many cells the decision panels name the outcome of each cell on hover;
#: above, the hover shows its code (the payload of 100k names is ~2 MB).
_MAX_NAMED_CELLS = 20_000


def _outcome_hover(outcome, prefix=""):
    """(customdata, hovertemplate) of a decision heatmap."""
    head = f"{prefix}instance %{{y}}<br>label <b>%{{x}}</b><br>"
    if outcome.size <= _MAX_NAMED_CELLS:
        return np.array(_OUTCOME_NAMES, dtype=object)[outcome], head + "%{customdata}<extra></extra>"
    return None, head + "decision %{z} (0 TN · 1 FP · 2 FN · 3 TP)<extra></extra>"


#: px: one line of a panel title (plotly's default annotation font), for the top margins that hold them
_TITLE_LINE = 17


def posterior_heatmap(P, Y_true, label_names, *, row_order=None, title=None,
                      instance_ids=None, threshold=None, labels=None, max_labels=50,
                      label_order=None, max_instances=2000, instance_order="labelset",
                      summary=None, label_scores=None, random_state=0):
    """Predicted P(y_l = 1 | x) beside the true label matrix (and the decisions).

    Parameters
    ----------
    P : array-like, shape (n, L)
        Posterior probabilities ``predict_proba(X_test)``.
    Y_true : array-like of {0, 1}, shape (n, L)
    label_names : sequence of str, length L
    row_order : array-like of int, shape (n,), optional
        Row permutation shared by the panels (overrides ``instance_order``
        and ``max_instances``).
    title : str, optional
    instance_ids : array-like, shape (n,), optional
        Unique ids of the rows, used as the (categorical) y values and shown
        on hover (default: the row index in ``P``).
    threshold : float, array-like (L,), or mlviz.metrics.RCut, optional
        When given, a third panel draws the decision of every cell under this
        rule: true/false positive/negative, so moving the threshold is seen
        on the figure, not only in the numbers.
    labels : sequence of int or str, optional
        Labels drawn at full width (default: all up to ``max_labels``, else
        the ``max_labels`` most frequent in ``Y_true``).
    max_labels : int, default 50
    label_order : {None, "frequency", "cluster"}
        Column order of the drawn labels: as given, by decreasing frequency,
        or by an average-linkage clustering of their posterior columns.
    max_instances : int or None, default 2000
        Draw a random sample (``random_state``) of at most this many rows;
        the title line says "showing k of n test instances".
    instance_order : {"labelset", "cluster"}
        ``"labelset"``: :func:`order_by_labelset` of the drawn labels (a
        staircase); ``"cluster"``: clustering of the posterior rows.
    summary : bool, optional
        Add a strip with every label's AUC and F1 (:func:`per_label_scores`);
        default: when some labels are not drawn at full width.
    label_scores : tuple of two arrays (L,), optional
        Precomputed ``(auc, f1)`` for the strip (e.g. cached by the caller).
    random_state : int, default 0

    Returns
    -------
    plotly.graph_objects.Figure
        ``Heatmap`` traces: P (``name="P(y=1|x)"``, ``zmin=0, zmax=1``), the
        truth (``name="true Y"``), the decisions (``name="decision"``, values
        0 TN, 1 FP, 2 FN, 3 TP) when ``threshold`` is given, and the strip
        (``name="per-label AUC / F1"``, all labels) when shown. Rows share a
        category y axis of instance ids (as strings) top-down, so
        ``y[r] == str(instance_ids[drawn_rows[r]])``. Names are escaped.
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
    n, L = P.shape
    ids = np.arange(n) if instance_ids is None else np.asarray(instance_ids)
    if len(ids) != n or len(np.unique(ids)) != n:
        raise ValueError(f"instance_ids must hold {n} unique ids, got "
                         f"{len(ids)} entries ({len(np.unique(ids))} unique).")
    cols = _select_labels(labels, names, Y, max_labels, label_order, P)
    notes = []
    if row_order is not None:
        order = np.asarray(row_order, dtype=np.int64)
        if sorted(order.tolist()) != list(range(n)):
            raise ValueError("row_order must be a permutation of 0..n-1.")
    else:
        rows = np.arange(n)
        if max_instances is not None and n > int(max_instances):
            rng = np.random.default_rng(random_state)
            rows = np.sort(rng.choice(n, size=int(max_instances), replace=False))
            notes.append(f"showing {len(rows):,} of {n:,} test instances (random sample)")
        if instance_order == "cluster":
            order = rows[_cluster_order(P[np.ix_(rows, cols)])]
        elif instance_order == "labelset":
            order = rows[order_by_labelset(Y[np.ix_(rows, cols)])]
        else:
            raise ValueError(f"instance_order must be 'labelset' or 'cluster', got {instance_order!r}.")
    if len(cols) < L:
        notes.append(f"{len(cols)} of {L} labels at full width")
    show_strip = (len(cols) < L) if summary is None else bool(summary)
    shown = esc_all(names[j] for j in cols)
    rows_y = [str(v) for v in ids[order]]
    Pd, Yd = P[np.ix_(order, cols)], Y[np.ix_(order, cols)]
    ncols = 3 if threshold is not None else 2
    # two lines each: three titles of one line overlapped above panels of ~170 pixels (presentation mode's
    # larger text, 1024 pixels); the top margin below makes room for the second line
    sub = ["predicted<br>P(y=1|x)", "true<br>labels Y"]
    if threshold is not None:
        sub.append(f"decision<br>at {threshold_text(threshold)}")
    specs = [[{} for _ in range(ncols)]]
    heights = [1.0]
    height = int(np.clip(250 + 3 * len(order), 450, 800)) + (140 if show_strip else 0)
    # the names under the heat maps: shortened (hover has each in full), rotated, and room made for them
    # above the strip, whose title they ran into at 174 labels
    ticks = [shorten(names[j], TICK_CHARS) for j in cols]
    style, step = panel_label_style(ticks, ncols)
    if step > 1:
        notes.append(f"every {_nth(step)} name written; hover for each")
    room = (max((len(t) for t in ticks), default=0) * 0.6 * style["tickfont"]["size"]
            * abs(np.sin(np.radians(style["tickangle"]))) + 12 + 40 + 30)  # names, axis title, strip title
    if show_strip:
        specs.append([{"colspan": ncols}] + [None] * (ncols - 1))
        sub.append(f"every label ({L}): AUC and F1" + ("" if threshold is not None else " at t = 0.50"))
        heights = [0.86, 0.14]
    plot_h = height - (60 + 24 + 14 if title else 30 + 24 + 14) - 50
    fig = make_subplots(rows=len(specs), cols=ncols, specs=specs, shared_yaxes=False,
                        horizontal_spacing=0.03,
                        vertical_spacing=float(np.clip(room / plot_h, 0.16, 0.45)) if show_strip else 0.05,
                        row_heights=heights, subplot_titles=sub)
    cb_len = 0.45 if threshold is not None else (0.8 if show_strip else 1.0)
    cb_y = 1.0 if threshold is not None or show_strip else 0.5
    fig.add_trace(go.Heatmap(
        z=as_float32(Pd), x=shown, y=rows_y,
        colorscale=PROBABILITY_SCALE, zmin=0.0, zmax=1.0, name="P(y=1|x)",
        colorbar=dict(title=dict(text="P(y=1|x)", side="right"), thickness=14, len=cb_len, y=cb_y,
                      yanchor="top" if cb_y == 1.0 else "middle"),
        hovertemplate="instance %{y}<br>label <b>%{x}</b><br>"
                      "P(y=1|x) = %{z:.3f}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Heatmap(
        z=np.ascontiguousarray(Yd, dtype=np.uint8), x=shown, y=rows_y,
        colorscale=PROBABILITY_SCALE, zmin=0.0, zmax=1.0, showscale=False,
        name="true Y",
        hovertemplate="instance %{y}<br>label <b>%{x}</b><br>"
                      "true y = %{z}<extra></extra>"), row=1, col=2)
    if threshold is not None:
        t = threshold
        if not hasattr(t, "r") and np.ndim(t) == 1:
            t = np.asarray(t, dtype=float)
            if t.shape != (L,):
                raise ValueError(f"A per-label threshold must have shape ({L},), got {t.shape}.")
        D = decisions(P, t, order, cols).astype(np.uint8)
        outcome = 2 * Yd.astype(np.uint8) + D      # 0 TN, 1 FP, 2 FN, 3 TP
        scale = []
        for k, c in enumerate(_OUTCOME_COLORS):
            scale += [[k / 4, c], [(k + 1) / 4, c]]
        custom, hover = _outcome_hover(outcome)
        fig.add_trace(go.Heatmap(
            z=outcome.astype(np.uint8), x=shown, y=rows_y, zmin=-0.5, zmax=3.5, colorscale=scale,
            name="decision", customdata=custom,
            colorbar=dict(title=dict(text="decision"), thickness=14, len=0.4, y=0.45 if show_strip else 0.0,
                          yanchor="top" if show_strip else "bottom", tickvals=[0, 1, 2, 3],
                          ticktext=["TN", "FP", "FN", "TP"]),
            hovertemplate=hover), row=1, col=3)
    style = dict(style, tickvals=shown[::step])  # (the columns are the full escaped names)
    for c in range(1, ncols + 1):
        fig.update_xaxes(title_text="label" if c == 1 else None, row=1, col=c, **style)
        fig.update_yaxes(type="category", autorange="reversed", row=1, col=c,
                         showticklabels=c == 1 and len(order) <= 60,
                         matches="y" if c > 1 else None)
    fig.update_yaxes(title_text=("test instances (grouped by true label set)" if instance_order == "labelset"
                                 and row_order is None else "test instances"), row=1, col=1)
    if show_strip:
        if label_scores is not None:
            auc, f1 = (np.asarray(a, dtype=float) for a in label_scores)
        else:
            auc, f1 = per_label_scores(Y, P, 0.5 if threshold is None else threshold)
        strip_order = np.argsort(-np.nan_to_num(auc, nan=-1.0), kind="stable")
        all_names = np.asarray(esc_all(names), dtype=object)[strip_order]
        drawn = np.isin(strip_order, cols)
        fig.add_trace(go.Heatmap(
            z=as_float32(np.vstack([auc[strip_order], f1[strip_order]])), x=list(range(L)),
            y=["AUC", "F1"], zmin=0.0, zmax=1.0, colorscale=PROBABILITY_SCALE, showscale=False,
            name="per-label AUC / F1",
            customdata=np.vstack([all_names, all_names]),
            hovertemplate="label <b>%{customdata}</b><br>%{y} = %{z:.3f}<extra></extra>"),
            row=2, col=1)
        fig.update_xaxes(showticklabels=False, title_text=(
            f"all {L} labels by decreasing AUC ({int(drawn.sum())} drawn above); hover for names"),
            row=2, col=1)
        fig.update_yaxes(type="category", autorange="reversed", row=2, col=1)
    fig = finish_layout(fig, title=title, height=height + _TITLE_LINE, subtitle="; ".join(notes) or None)
    fig.update_layout(margin=dict(t=int(fig.layout.margin.t) + _TITLE_LINE))  # (the panel titles' second line)
    return fig


#: Shorter names of measures in :func:`posterior_grid`'s panel titles: "Hamming loss 0.180" is wider than a panel
#: side by side on a 1024-pixel screen (four panels in about 400 pixels); the tables beside use the full names.
PANEL_MEASURE_NAMES = {"hamming_loss": "Hamming"}


def posterior_grid(P_by_model, Y_true, label_names, *, threshold=None, scores=None, labels=None,
                   max_labels=20, max_instances=300, title=None, random_state=0,
                   measures=("micro_f1", "hamming_loss")):
    """Several models' posteriors side by side, compactly, with their measures.

    Parameters
    ----------
    P_by_model : dict of str -> array-like (n, L)
        Posterior matrices on the same test rows, in display order.
    Y_true : array-like of {0, 1}, shape (n, L)
    label_names : sequence of str, length L
    threshold : float, array (L,) or RCut, optional
        When given, each model panel shows its decisions (TN/FP/FN/TP)
        instead of the probabilities.
    scores : dict of str -> dict of str -> float, optional
        Measures per model (e.g. from :func:`mlviz.metrics.evaluate`),
        written under each panel title, one a line, with their plain-language names (shortened by
        :data:`PANEL_MEASURE_NAMES`).
    labels : sequence of int or str, optional
        Labels drawn (default: the ``max_labels`` most frequent).
    max_labels : int, default 20
    max_instances : int, default 300
        Random sample of rows, one shared order (by true label set).
    title : str, optional
    random_state : int, default 0
    measures : sequence of str
        Codes of the measures written from ``scores``.

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Heatmap`` per model (``name`` = model name, escaped) and a last
        one for the truth, sharing the y axis; one colour bar.
    """
    from .tables import measure_name

    Y = _dense(Y_true)
    names = [str(s) for s in label_names]
    models = list(P_by_model)
    if not models:
        raise ValueError("P_by_model is empty.")
    mats = {m: _dense(P_by_model[m]) for m in models}
    for m, M in mats.items():
        if M.shape != Y.shape:
            raise ValueError(f"posteriors of {str(m)[:60]!r} have shape {M.shape}, Y_true {Y.shape}.")
    n, L = Y.shape
    cols = _select_labels(labels, names, Y, max_labels, None, mats[models[0]])
    rows = np.arange(n)
    note = None
    if n > max_instances:
        rows = np.sort(np.random.default_rng(random_state).choice(n, size=max_instances, replace=False))
        note = f"showing {len(rows):,} of {n:,} test instances (random sample)"
    order = rows[order_by_labelset(Y[np.ix_(rows, cols)])]
    shown = esc_all(names[j] for j in cols)
    titles = []
    for m in models:
        parts = [esc(m)]
        for code in measures:
            v = (scores or {}).get(m, {}).get(code)
            if v is not None and np.isfinite(v):
                parts.append(f"{esc(PANEL_MEASURE_NAMES.get(code, measure_name(code)))} {v:.3f}")
        titles.append("<br>".join(parts))  # (a measure a line: side by side, a panel can be ~100 pixels wide)
    titles.append("true labels")
    k = len(models) + 1
    fig = make_subplots(rows=1, cols=k, shared_yaxes=True, horizontal_spacing=0.015,
                        subplot_titles=titles)
    y = [str(v) for v in order]
    Yd = Y[np.ix_(order, cols)]
    for c, m in enumerate(models, start=1):
        Pd = mats[m][np.ix_(order, cols)]
        if threshold is None:
            fig.add_trace(go.Heatmap(
                z=as_float32(Pd), x=shown, y=y, zmin=0, zmax=1, colorscale=PROBABILITY_SCALE,
                showscale=c == 1, name=esc(m),  # (title beside the bar: above it, it met the "1" in large text)
                colorbar=dict(title=dict(text="P(y=1|x)", side="right"), thickness=12),
                hovertemplate=f"{template_text(m)}<br>instance %{{y}}<br>label <b>%{{x}}</b>"
                              "<br>P = %{z:.3f}<extra></extra>"), row=1, col=c)
        else:
            D = decisions(mats[m], threshold, order, cols)
            outcome = 2 * Yd.astype(np.uint8) + D.astype(np.uint8)
            scale = []
            for q, col in enumerate(_OUTCOME_COLORS):
                scale += [[q / 4, col], [(q + 1) / 4, col]]
            custom, hover = _outcome_hover(outcome, prefix=template_text(m) + "<br>")
            fig.add_trace(go.Heatmap(
                z=outcome, x=shown, y=y, zmin=-0.5, zmax=3.5, colorscale=scale, showscale=c == 1,
                name=esc(m), customdata=custom,
                colorbar=dict(title=dict(text="decision"), thickness=12, tickvals=[0, 1, 2, 3],
                              ticktext=["TN", "FP", "FN", "TP"]),
                hovertemplate=hover), row=1, col=c)
    fig.add_trace(go.Heatmap(
        z=Yd.astype(np.uint8), x=shown, y=y, zmin=0, zmax=1, colorscale=PROBABILITY_SCALE,
        showscale=False, name="true Y",
        hovertemplate="instance %{y}<br>label <b>%{x}</b><br>true y = %{z}<extra></extra>"), row=1, col=k)
    ticks = [shorten(names[j], TICK_CHARS) for j in cols]
    style, step = panel_label_style(ticks, k, font_size=9)
    style = dict(style, tickvals=list(shown)[::step])  # (the columns are the full escaped names)
    if step > 1:
        note = "; ".join(filter(None, [note, f"every {_nth(step)} name written; hover for each"]))
    for c in range(1, k + 1):
        fig.update_xaxes(row=1, col=c, **style)
    fig.update_yaxes(type="category", autorange="reversed", showticklabels=False)
    fig.update_annotations(font_size=12)
    fig = finish_layout(fig, title=title, height=500, subtitle=note)
    # the top margin holds the title and its subtitle lines (as finish_layout sized it), then the panel titles
    lines = 1 + max(t.count("<br>") for t in titles)
    fig.update_layout(margin=dict(t=int(fig.layout.margin.t) + _TITLE_LINE * lines + 6))
    return fig


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
                       title=None, threshold=None):
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
    threshold : float, array-like (L,), or mlviz.metrics.RCut, optional
        The decision threshold, drawn as a vertical line (``layout.shapes``,
        ``x0 == x1 == t``): one dashed line for a global threshold, one line
        in each drawn label's colour for per-label thresholds; a rank cut
        has no probability threshold (a note says so).

    Returns
    -------
    plotly.graph_objects.Figure
        First trace: the dashed diagonal "perfectly calibrated"; then one
        ``Scatter`` per label (x = mean predicted probability in the bin,
        y = fraction of positives, marker area ∝ bin count, count on hover;
        ``meta`` = label index). Labels without positives are drawn with
        "(no positives)" in their legend name. Names are escaped.
    """
    Y = _dense(Y_true)
    P = _dense(P)
    names = [str(s) for s in label_names]
    if P.shape != Y.shape or P.ndim != 2 or P.shape[1] != len(names):
        raise ValueError(f"Y_true {Y.shape}, P {P.shape} and {len(names)} "
                         "label names do not match.")
    chosen = _resolve_labels(labels, names, Y)
    colors = qualitative_colors(len(chosen))
    data = [go.Scatter(
        x=[0, 1], y=[0, 1], mode="lines", name="perfectly calibrated",
        line=dict(color="#888888", dash="dash", width=1.5), hoverinfo="skip")]
    n = max(P.shape[0], 1)
    for j, color in zip(chosen, colors):
        mp_, fp, cnt = reliability_bins(Y[:, j], P[:, j], n_bins)
        npos = int(Y[:, j].sum())
        name = esc(names[j]) if npos > 0 else f"{esc(names[j])} (no positives)"
        sizes = 6 + 18 * np.sqrt(cnt / n)
        data.append(go.Scatter(
            x=mp_, y=fp, mode="lines+markers", name=name, meta=j,
            customdata=cnt, line=dict(color=color, width=2),
            marker=dict(size=sizes, color=color),
            hovertemplate=f"<b>{template_text(names[j])}</b><br>mean predicted %{{x:.3f}}"
                          "<br>fraction positive %{y:.3f}"
                          "<br>%{customdata} instances in bin<extra></extra>"))
    shapes, annotations = [], []
    if threshold is not None and hasattr(threshold, "r"):
        annotations.append(dict(text=esc(f"decision rule: {threshold_text(threshold)} "
                                         "(no single probability threshold)"),
                                xref="paper", yref="paper", x=0.0, y=1.0, xanchor="left", yanchor="bottom",
                                showarrow=False, font=dict(size=11, color="#555555")))
    elif threshold is not None:
        t = np.asarray(threshold, dtype=float)
        if t.ndim == 0:
            shapes.append(dict(type="line", x0=float(t), x1=float(t), y0=0, y1=1, yref="paper",
                               line=dict(color="#222222", width=2, dash="dot"), name="threshold"))
            annotations.append(dict(text=f"t = {float(t):.2f}", x=float(t), y=1.0, yref="paper",
                                    yanchor="bottom", showarrow=False, font=dict(size=12)))
        else:
            if t.shape != (len(names),):
                raise ValueError(f"A per-label threshold must have shape ({len(names)},), got {t.shape}.")
            for j, color in zip(chosen, colors):
                shapes.append(dict(type="line", x0=float(t[j]), x1=float(t[j]), y0=0, y1=1, yref="paper",
                                   line=dict(color=color, width=2, dash="dot"), name=f"threshold {j}"))
    layout = dict(
        xaxis=dict(title_text="mean predicted P(y=1|x) in bin", range=[-0.02, 1.02], constrain="domain"),
        yaxis=dict(title_text="fraction of instances with the label", range=[-0.02, 1.02]),
        legend=dict(title=dict(text="label")), shapes=shapes, annotations=annotations)
    return go.Figure(data=data, layout=layout_dict(title=title, height=500, **layout))
