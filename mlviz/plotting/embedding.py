"""Scatter plots of instances (and labels) in an embedding.

Colouring rule (shared by :func:`embedding_scatter` and
:func:`instance_scatter`), decided from the ``color`` array's dtype:

* ``None`` -> one colour;
* ``bool``, integer, string or object dtype with at most
  :data:`MAX_CATEGORIES` distinct values -> **categorical**: one trace per
  value with a legend entry (0/1 and False/True use grey/red, other integers,
  e.g. label counts, use ordered colours from a sequential scale, strings a
  qualitative palette);
* float dtype (or integers with more distinct values) -> **continuous**: a
  colour bar; when all values lie in [0, 1] (a posterior) the probability
  scale is used with fixed ``cmin=0, cmax=1``; values of both signs use the
  diverging scale symmetric about 0; other ranges the probability scale over
  the data range.

Selections: every instance marker carries its row id in ``customdata`` (a 1-D
integer array per trace) and every trace has ``meta`` = ``"train"``,
``"test"`` or ``"labels"``. :func:`selection_ids` maps a Streamlit / plotly
selection (list of points with ``curve_number`` and ``customdata``) back to
row ids per set.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._style import (
    BINARY_COLORS,
    DIVERGING_SCALE,
    FOOT_LEGEND,
    LABEL_MARKER_COLOR,
    PROBABILITY_SCALE,
    WEBGL_THRESHOLD,
    as_float32,
    esc,
    esc_all,
    layout_dict,
    qualitative_colors,
    sequential_colors,
    template_text,
)

__all__ = ["embedding_scatter", "instance_scatter", "selection_ids",
           "color_kind", "focus_label_indices", "point_style", "MAX_CATEGORIES",
           "SAFE_3D_SYMBOLS"]

#: Integer/bool colourings with more distinct values are drawn continuously.
MAX_CATEGORIES = 20


def color_kind(color):
    """Decide how a colour array is drawn: "none", "categorical" or "continuous".

    Parameters
    ----------
    color : array-like of shape (n,) or None

    Returns
    -------
    str
    """
    if color is None:
        return "none"
    c = np.asarray(color)
    if c.dtype.kind in "bOUS":
        return "categorical"
    if c.dtype.kind in "iu" and len(np.unique(c)) <= MAX_CATEGORIES:
        return "categorical"
    return "continuous"


def _check_coords(coords, dims, what):
    coords = np.asarray(coords)
    if coords.ndim != 2 or coords.shape[1] < dims:
        raise ValueError(
            f"{what} must have shape (n, {dims}) or wider, got {coords.shape}."
        )
    return as_float32(coords[:, :dims])


def _scatter_cls(n, dims, webgl=None):
    if dims == 3:
        return go.Scatter3d
    gl = n > WEBGL_THRESHOLD if webgl is None else bool(webgl)
    return go.Scattergl if gl else go.Scatter


def _xyz(coords, dims):
    out = dict(x=coords[:, 0], y=coords[:, 1])
    if dims == 3:
        out["z"] = coords[:, 2]
    return out


def point_style(n):
    """Marker size (px) and opacity that keep ``n`` points readable.

    Size ``clip(10.5 - 1.5 log10 n, 2.5, 8)`` and opacity
    ``clip(1.3 - 0.2 log10 n, 0.35, 0.9)``: 100 points -> 7.5 px at 0.9,
    1,000 -> 6 px at 0.7, 20,000 -> 4 px at 0.44, 100,000 -> 3 px at 0.35, so
    dense clouds show their density instead of a solid blot.

    Parameters
    ----------
    n : int
        Number of points drawn.

    Returns
    -------
    size, opacity : float
    """
    lg = np.log10(max(int(n), 1))
    return float(np.clip(10.5 - 1.5 * lg, 2.5, 8.0)), float(np.clip(1.3 - 0.2 * lg, 0.35, 0.9))


def _hover(hover_text, prefix, value_line=""):
    text = "<br>%{text}" if hover_text is not None else ""
    return f"{prefix} %{{customdata}}{value_line}{text}<extra></extra>"


def _category_colors(values):
    if values.dtype.kind == "b" or set(values.tolist()) <= {0, 1}:
        mapping = dict(zip([0, 1], BINARY_COLORS))
        return [mapping.get(int(v), BINARY_COLORS[1]) for v in values]
    if values.dtype.kind in "iu":
        return sequential_colors(len(values))
    return qualitative_colors(len(values))


#: Marker symbols that 3-D scatter plots draw as glyphs every font has. plotly's
#: gl3d draws "x" as the emoji U+274C, an empty rectangle without an emoji font.
SAFE_3D_SYMBOLS = ("circle", "circle-open", "square", "square-open", "diamond", "diamond-open", "cross")


def _instance_traces(coords, *, color, color_title, colorscale, hover_text,
                     ids, dims, meta, name, symbol, size, palette=None,
                     crange=None, opacity=None, webgl=None):
    """Build the marker trace(s) of one point set (train or test)."""
    n = coords.shape[0]
    cls = _scatter_cls(n, dims, webgl)
    hover_text = None if hover_text is None else np.asarray(esc_all(hover_text), dtype=object)
    ctitle = esc(color_title) if color_title else ""
    ctitle_t = template_text(color_title) if color_title else None
    common = dict(mode="markers", meta=meta)
    auto_size, auto_opacity = point_style(n)
    marker_base = dict(size=size if size is not None else auto_size, symbol=symbol,
                       opacity=opacity if opacity is not None else auto_opacity)
    if dims == 3:
        marker_base["size"] = float(np.clip(0.5 * marker_base["size"], 2, 4)) if meta != "test" \
            else float(np.clip(0.5 * marker_base["size"] + 2, 4, 6))
        marker_base["opacity"] = min(marker_base["opacity"], 0.55)
        if symbol not in SAFE_3D_SYMBOLS:
            marker_base["symbol"] = "cross" if meta == "test" else "circle"
    kind = color_kind(color)
    prefix = "test instance" if meta == "test" else "instance"
    if kind == "categorical":
        c = np.asarray(color)
        values = np.unique(c)
        palette = palette or dict(zip(values.tolist(), _category_colors(values)))
        colors = [palette[v] for v in values.tolist()]
        traces = []
        for v, col in zip(values, colors):
            mask = c == v
            label = str(v.item() if hasattr(v, "item") else v)
            if c.dtype.kind == "b":
                label = "yes" if v else "no"
            traces.append(cls(
                **_xyz(coords[mask], dims), customdata=ids[mask],
                text=None if hover_text is None else hover_text[mask],
                name=esc(f"{name}: {label}" if meta == "test" else label),
                legendgroup=esc(f"{meta}-{label}"),
                marker=dict(marker_base, color=col),
                hovertemplate=_hover(hover_text, prefix,
                                     f"<br>{ctitle_t or 'colour'} = {template_text(label)}"),
                **common,
            ))
        return traces
    if kind == "continuous":
        c = np.asarray(color, dtype=float)
        is_prob = bool(np.all((c >= 0) & (c <= 1)))
        lo, hi = crange or (float(np.nanmin(c)), float(np.nanmax(c)))
        signed = not is_prob and lo < 0 < hi
        default_scale = DIVERGING_SCALE if signed else PROBABILITY_SCALE
        marker = dict(
            marker_base, color=as_float32(c),
            colorscale=colorscale or default_scale,
            showscale=meta != "test",
            colorbar=dict(title=dict(text=ctitle, side="right"), thickness=14, len=0.8,
                          x=1.0, xanchor="left", y=0.5, yanchor="middle"),
        )
        if is_prob:
            marker.update(cmin=0.0, cmax=1.0)
        elif signed:   # diverging scale centred at 0
            m = max(-lo, hi)
            marker.update(cmin=-m, cmax=m)
        else:
            marker.update(cmin=lo, cmax=hi)
        return [cls(
            **_xyz(coords, dims), customdata=ids, text=hover_text, name=esc(name),
            marker=marker,
            hovertemplate=_hover(hover_text, prefix,
                                 f"<br>{ctitle_t or 'value'} = "
                                 "%{marker.color:.3f}"),
            **common,
        )]
    return [cls(
        **_xyz(coords, dims), customdata=ids, text=hover_text, name=esc(name),
        marker=dict(marker_base, color="#1F77B4" if meta != "test" else "#FF7F0E"),
        hovertemplate=_hover(hover_text, prefix), **common,
    )]


def _shared_colour_mapping(color, test_color):
    """Category -> colour map and colour range common to train and test."""
    if color is None or test_color is None:
        return None, None
    kinds = {color_kind(color), color_kind(test_color)}
    both = np.concatenate([np.asarray(color).ravel(),
                           np.asarray(test_color).ravel()])
    if kinds == {"categorical"}:
        values = np.unique(both)
        return dict(zip(values.tolist(), _category_colors(values))), None
    if kinds == {"continuous"}:
        b = both.astype(float)
        return None, (float(np.nanmin(b)), float(np.nanmax(b)))
    return None, None


def _ids(ids, n, what):
    if ids is None:
        return np.arange(n, dtype=np.int64)
    ids = np.asarray(ids).ravel()
    if len(ids) != n:
        raise ValueError(f"{what} has {len(ids)} entries for {n} points.")
    return ids


def _check_len(arr, n, what):
    if arr is not None and len(arr) != n:
        raise ValueError(f"{what} has {len(arr)} entries for {n} points.")


def _axis_layout(dims, prefix, short_prefix):
    """Axis titles as layout properties (3-D: short titles, camera kept off the edges)."""
    if dims == 3:
        axis = dict(title=dict(font=dict(size=12)))
        return dict(scene=dict(
            xaxis=dict(axis, title_text=f"{short_prefix} 1"),
            yaxis=dict(axis, title_text=f"{short_prefix} 2"),
            zaxis=dict(axis, title_text=f"{short_prefix} 3"),
            aspectmode="cube", domain=dict(x=[0.0, 0.92], y=[0.0, 1.0]),
            camera=dict(eye=dict(x=1.55, y=1.55, z=1.05))))
    return dict(xaxis=dict(title_text=f"{prefix} 1", zeroline=False),
                yaxis=dict(title_text=f"{prefix} 2", zeroline=False))


def focus_label_indices(n_labels, *, focus_labels=None, label_weights=None, max_labels=30):
    """Indices of the labels whose markers and names are drawn.

    Parameters
    ----------
    n_labels : int
    focus_labels : sequence of int, optional
        Chosen labels (kept in the given order, duplicates and out-of-range
        indices dropped). Overrides the default.
    label_weights : array-like of float, shape (n_labels,), optional
        Ranking for the default (e.g. label frequencies): the ``max_labels``
        heaviest labels. Without it, the first ``max_labels`` labels.
    max_labels : int, default 30

    Returns
    -------
    ndarray of int64
        All labels when ``n_labels <= max_labels`` and no focus is given.
    """
    if focus_labels is not None:
        out = [int(j) for j in dict.fromkeys(int(v) for v in focus_labels) if 0 <= int(j) < n_labels]
        return np.asarray(out, dtype=np.int64)
    if n_labels <= max_labels:
        return np.arange(n_labels, dtype=np.int64)
    if label_weights is not None:
        w = np.asarray(label_weights, dtype=float).ravel()
        if len(w) != n_labels:
            raise ValueError(f"label_weights has {len(w)} entries for {n_labels} labels.")
        return np.sort(np.argsort(-np.nan_to_num(w, nan=-np.inf), kind="stable")[:max_labels]).astype(np.int64)
    return np.arange(max_labels, dtype=np.int64)


def _label_traces(Lc, names, focus, dims, cls, positions=None):
    """Focused labels (markers + names) and, when some are left out, one
    hidden-by-default trace with the others' markers (hover only).

    ``positions``: a plotly ``textposition`` per focused label, None where its
    name is not written (it stays on hover)."""
    traces = []
    rest = np.setdiff1d(np.arange(len(names)), focus)
    if rest.size:
        traces.append(cls(
            **_xyz(Lc[rest], dims), mode="markers", hovertext=[esc(names[j]) for j in rest],
            name=f"other labels ({rest.size})", meta="labels", visible="legendonly",
            customdata=rest.astype(np.int64),
            marker=dict(size=8 if dims == 2 else 4, symbol="diamond", color="#777777",
                        line=dict(width=1, color="white")),
            hovertemplate="label <b>%{hovertext}</b><extra></extra>"))
    big = len(focus) <= 20
    text_font = dict(size=(13 if big else 11) + (2 if dims == 3 else 0), color=LABEL_MARKER_COLOR)
    extra = {}
    if cls is go.Scatter:      # SVG text: a white halo keeps names legible over the cloud
        text_font["shadow"] = "auto"
        extra["cliponaxis"] = False
    if positions is None:
        positions = ["top center"] * len(focus)
    full = [esc(names[j]) for j in focus]
    traces.append(cls(
        **_xyz(Lc[focus], dims), mode="markers+text",
        text=[t if p is not None else "" for t, p in zip(full, positions)],
        textposition=[p or "top center" for p in positions] if dims == 2 else "top center",
        hovertext=full, name="labels", meta="labels",
        customdata=focus.astype(np.int64), textfont=text_font,
        marker=dict(size=14 if dims == 2 else 10, symbol="diamond", color=LABEL_MARKER_COLOR,
                    line=dict(width=1.5, color="white")),
        hovertemplate="label <b>%{hovertext}</b><extra></extra>", **extra))
    return traces


def _axis_ranges(*arrays, pad=0.05):
    """Explicit [lo, hi] x and y ranges covering every point (so name placement knows the scale)."""
    pts = np.vstack([a[:, :2] for a in arrays if len(a)])
    lo, hi = pts.min(axis=0).astype(float), pts.max(axis=0).astype(float)
    span = np.maximum(hi - lo, 1e-9)
    return [float(lo[0] - pad * span[0]), float(hi[0] + pad * span[0])], \
        [float(lo[1] - pad * span[1]), float(hi[1] + pad * span[1])]


def _place_label_names(Lc, names, focus, priority, xr, yr, plot_w, plot_h, font, max_names):
    """``textposition`` per focused label (None: not written) so no two names overlap."""
    from ._graph_focus import place_names

    sx, sy = plot_w / (xr[1] - xr[0]), plot_h / (yr[1] - yr[0])
    xy = np.column_stack([(Lc[focus, 0] - xr[0]) * sx, (Lc[focus, 1] - yr[0]) * sy])
    return place_names(xy, [names[j] for j in focus], np.full(len(focus), 14.0), priority,
                       font_size=font, plot_size=(plot_w, plot_h), max_names=max_names)


def embedding_scatter(instance_coords, label_coords, label_names, *, color=None,
                      color_title=None, colorscale=None, hover_text=None,
                      test_coords=None, test_hover_text=None, instance_ids=None,
                      dims=2, title=None, test_ids=None, test_color=None,
                      focus_labels=None, label_weights=None, max_label_names=30,
                      marker_size=None, opacity=None, webgl=None, width_hint=800, text_scale=1.0,
                      axis_title="embedding dimension", subtitle=None):
    """Joint embedding of instances and labels (MLLEM, Kimura et al.).

    Parameters
    ----------
    instance_coords : array-like, shape (n, >= dims)
        Embedded training instances (rows of E for the instance nodes).
    label_coords : array-like, shape (L, >= dims)
        Embedded labels (rows of E for the label nodes).
    label_names : sequence of str, length L
    color : array-like of shape (n,), optional
        Colour of the training instances; see the module docstring for the
        categorical vs continuous rule.
    color_title : str, optional
        Legend / colour-bar title (e.g. ``"label: happy"``, ``"P(y=1|x)"``).
    colorscale : str, optional
        Continuous colour scale (default: the probability scale).
    hover_text : sequence of str, shape (n,), optional
        Extra hover line per instance (e.g. its label set).
    test_coords : array-like, shape (m, >= dims), optional
        Held-out instances mapped into the embedding; drawn as crosses
        (``"x"`` in 2-D, ``"cross"`` in 3-D, whose ``"x"`` glyph is an emoji).
    test_hover_text : sequence of str, shape (m,), optional
    instance_ids : array-like of int, shape (n,), optional
        Row ids stored in ``customdata`` (default ``0..n-1``).
    dims : {2, 3}
        2 -> ``Scatter``/``Scattergl``; 3 -> ``Scatter3d``.
    title : str, optional
    test_ids : array-like of int, shape (m,), optional
        Row ids of the test points (default ``0..m-1``); tell them apart
        from training ids by the trace ``meta`` (see :func:`selection_ids`).
    test_color : array-like of shape (m,), optional
        Colour of the test points using the same rule as ``color``.
    focus_labels : sequence of int, optional
        Labels drawn with marker and name; see :func:`focus_label_indices`
        (default: all up to ``max_label_names``, else the heaviest by
        ``label_weights``). The others go into one trace hidden by default
        (click "other labels (k)" in the legend to show their markers).
    label_weights : array-like, shape (L,), optional
        E.g. label frequencies; ranks labels for the default focus.
    max_label_names : int, default 30
    marker_size, opacity : float, optional
        Instance marker size and opacity; default :func:`point_style` of the
        number of points.
    webgl : bool, optional
        Force (True) or forbid (False) WebGL in 2-D; default: WebGL above
        :data:`~mlviz.plotting._style.WEBGL_THRESHOLD` points.
    width_hint : int, default 800
        Smallest expected figure width in pixels (2-D): label names are
        written only where no two overlap at this width or wider (the axes
        get explicit ranges covering every point); the others are on hover.
    text_scale : float, default 1.0
        Factor the drawn text will be enlarged by afterwards (presentation mode), so that names are placed
        for the size they are drawn at.
    axis_title : str, default "embedding dimension"
        2-D axis titles become ``"<axis_title> 1"`` and ``"<axis_title> 2"``.
    subtitle : str, optional
        Written first in the subtitle, before the notes on hidden labels.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces, in order: training instances (one per category when
        categorical), test instances (if any), the hidden "other labels"
        trace (if labels are left out), then the focused labels
        (``meta="labels"``, ``customdata`` = label index). The label traces
        are of the same rendering class as the instances (``Scattergl`` when
        the instances are: WebGL is painted above SVG) and come last, so the
        label markers are drawn on top. ``dragmode="lasso"`` in 2-D. All
        names are HTML-escaped.
    """
    if dims not in (2, 3):
        raise ValueError(f"dims must be 2 or 3, got {dims!r}.")
    X = _check_coords(instance_coords, dims, "instance_coords")
    Lc = _check_coords(label_coords, dims, "label_coords")
    names = [str(s) for s in label_names]
    if len(names) != Lc.shape[0]:
        raise ValueError(
            f"label_names has {len(names)} entries for {Lc.shape[0]} labels.")
    _check_len(color, len(X), "color")
    _check_len(hover_text, len(X), "hover_text")
    ids = _ids(instance_ids, len(X), "instance_ids")
    n_total = len(X) + (0 if test_coords is None else len(test_coords))
    gl = (n_total > WEBGL_THRESHOLD) if webgl is None else bool(webgl)
    size = marker_size if marker_size is not None else point_style(n_total)[0]
    palette, crange = _shared_colour_mapping(color, test_color)
    data = list(_instance_traces(
            X, color=color, color_title=color_title, colorscale=colorscale,
            hover_text=hover_text, ids=ids, dims=dims, meta="train",
            name="instances", symbol="circle", size=size, palette=palette,
            crange=crange, opacity=opacity, webgl=gl))
    if test_coords is not None:
        T = _check_coords(test_coords, dims, "test_coords")
        _check_len(test_hover_text, len(T), "test_hover_text")
        _check_len(test_color, len(T), "test_color")
        tids = _ids(test_ids, len(T), "test_ids")
        for tr in _instance_traces(
                T, color=test_color, color_title=color_title,
                colorscale=colorscale, hover_text=test_hover_text, ids=tids,
                dims=dims, meta="test", name="test instances",
                symbol="x", size=size + 3, palette=palette, crange=crange,
                opacity=opacity, webgl=gl):
            if dims == 2:
                tr.marker.line = dict(width=0.5, color="white")
            data.append(tr)
    label_cls = go.Scatter3d if dims == 3 else (go.Scattergl if gl else go.Scatter)
    focus = focus_label_indices(len(names), focus_labels=focus_labels, label_weights=label_weights,
                                max_labels=max_label_names)
    continuous = color_kind(color) == "continuous"
    layout = _axis_layout(dims, esc(axis_title), "dimension")
    positions = None
    if dims == 2:
        xr, yr = _axis_ranges(X, Lc, *(() if test_coords is None else (T,)))
        layout["xaxis"]["range"], layout["yaxis"]["range"] = xr, yr
        margin_r = 110 if continuous else 30
        plot_w, plot_h = max(width_hint - 60 - margin_r, 100), 600 - 30 - 90 - (24 if title else 0) - 24
        if label_weights is not None:
            priority = np.asarray(label_weights, dtype=float)[focus]
        else:
            priority = -np.arange(len(focus), dtype=float)
        font = (13 if len(focus) <= 20 else 11) * float(text_scale)
        positions = _place_label_names(Lc, names, focus, priority, xr, yr, plot_w, plot_h, font, max_label_names)
    data += _label_traces(Lc, names, focus, dims, label_cls, positions)
    # A colour bar sits at the right: the legend goes below the plot so they never overlap,
    # and the colour title is written once (on the colour bar, not again as legend title).
    legend = dict(FOOT_LEGEND if dims == 2 else dict(orientation="h", x=0.0, xanchor="left", y=-0.02, yanchor="top"),
                  itemsizing="constant")
    if not continuous and color_title:
        legend["title"] = dict(text=esc(color_title), side="top")  # (beside the entries it pushed them
        # past the right edge: plotly wraps a horizontal legend without counting a title at its left)
    layout["legend"] = legend
    hidden = len(names) - len(focus)
    unwritten = 0 if positions is None else sum(p is None for p in positions)
    notes = [subtitle] if subtitle else []
    if hidden:
        notes.append(f"{len(focus)} of {len(names)} label markers drawn (others: legend “other labels”)")
    if unwritten:  # (short: the subtitle is one line, ~110 characters fit a 1600 px window's column)
        notes.append(f"{unwritten} names hidden where they would overlap: hover a diamond")
    if dims == 2:
        layout["dragmode"] = "lasso"
    lay = layout_dict(title=title, height=600 if dims == 2 else 650, subtitle=" · ".join(notes) or None,
                      **layout)
    lay["margin"] = dict(lay["margin"], b=90 if dims == 2 else 60, r=20 if dims == 3 else 30)
    return go.Figure(data=data, layout=lay)


def instance_scatter(coords, *, color=None, color_title=None, hover_text=None,
                     instance_ids=None, title=None, colorscale=None,
                     axis_title="component", marker_size=None, opacity=None, webgl=None):
    """Instances only, e.g. a UMAP or PCA panel coloured like the embedding.

    Parameters
    ----------
    coords : array-like, shape (n, >= 2)
    color, color_title, hover_text, instance_ids, colorscale
        As in :func:`embedding_scatter`.
    title : str, optional
    axis_title : str, default "component"
        Axis titles become ``"<axis_title> 1"`` and ``"<axis_title> 2"``.
    marker_size, opacity, webgl
        As in :func:`embedding_scatter`.

    Returns
    -------
    plotly.graph_objects.Figure
        ``Scatter`` (``Scattergl`` above 1000 points) trace(s) with
        ``meta="train"`` and row ids in ``customdata``; ``dragmode="lasso"``.
    """
    X = _check_coords(coords, 2, "coords")
    _check_len(color, len(X), "color")
    _check_len(hover_text, len(X), "hover_text")
    ids = _ids(instance_ids, len(X), "instance_ids")
    data = list(_instance_traces(
            X, color=color, color_title=color_title, colorscale=colorscale,
            hover_text=hover_text, ids=ids, dims=2, meta="train",
            name="instances", symbol="circle", size=marker_size, opacity=opacity, webgl=webgl))
    layout = _axis_layout(2, esc(axis_title), esc(axis_title))
    legend = dict(itemsizing="constant")
    if color_kind(color) == "categorical" and color_title:
        legend["title"] = dict(text=esc(color_title))
    lay = layout_dict(title=title, height=450, dragmode="lasso", legend=legend, **layout)
    return go.Figure(data=data, layout=lay)


def selection_ids(fig, points):
    """Map selected points back to row ids.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure built by :func:`embedding_scatter` or
        :func:`instance_scatter`.
    points : list of dict
        Selected points, each with ``curve_number`` (or ``curveNumber``) and
        ``customdata`` — e.g. ``event.selection.points`` of
        ``st.plotly_chart(..., on_select="rerun")``.

    Returns
    -------
    dict with keys "train", "test", "labels"
        Sorted unique ids (int64 arrays) of the selected instances per set;
        ``"labels"`` holds selected label indices.
    """
    out = {"train": [], "test": [], "labels": []}
    for p in points or []:
        curve = p.get("curve_number", p.get("curveNumber"))
        cd = p.get("customdata")
        if curve is None or cd is None or curve >= len(fig.data):
            continue
        if isinstance(cd, (list, tuple)):
            cd = cd[0]
        meta = fig.data[curve].meta
        if meta in out:
            out[meta].append(int(cd))
    return {k: np.unique(np.asarray(v, dtype=np.int64)) for k, v in out.items()}
