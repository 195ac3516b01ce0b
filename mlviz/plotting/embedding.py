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
    BINARY_COLORS, DIVERGING_SCALE, LABEL_MARKER_COLOR, PROBABILITY_SCALE, WEBGL_THRESHOLD,
    as_float32, finish_layout, qualitative_colors, sequential_colors,
)

__all__ = ["embedding_scatter", "instance_scatter", "selection_ids",
           "color_kind", "MAX_CATEGORIES"]

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


def _scatter_cls(n, dims):
    if dims == 3:
        return go.Scatter3d
    return go.Scattergl if n > WEBGL_THRESHOLD else go.Scatter


def _xyz(coords, dims):
    out = dict(x=coords[:, 0], y=coords[:, 1])
    if dims == 3:
        out["z"] = coords[:, 2]
    return out


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


def _instance_traces(coords, *, color, color_title, colorscale, hover_text,
                     ids, dims, meta, name, symbol, size, palette=None,
                     crange=None):
    """Build the marker trace(s) of one point set (train or test)."""
    n = coords.shape[0]
    cls = _scatter_cls(n, dims)
    hover_text = None if hover_text is None else np.asarray(hover_text, dtype=object)
    common = dict(mode="markers", meta=meta)
    marker_base = dict(size=size, symbol=symbol, opacity=0.8 if n > 200 else 0.9)
    if dims == 3:
        marker_base["size"] = max(size - 2, 2)
        if symbol not in ("circle", "diamond", "square", "cross", "x"):
            marker_base["symbol"] = "diamond"
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
                name=f"{name}: {label}" if meta == "test" else label,
                legendgroup=f"{meta}-{label}",
                marker=dict(marker_base, color=col),
                hovertemplate=_hover(hover_text, prefix,
                                     f"<br>{color_title or 'colour'} = {label}"),
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
            colorbar=dict(title=dict(text=color_title or ""), thickness=14),
        )
        if is_prob:
            marker.update(cmin=0.0, cmax=1.0)
        elif signed:   # diverging scale centred at 0
            m = max(-lo, hi)
            marker.update(cmin=-m, cmax=m)
        else:
            marker.update(cmin=lo, cmax=hi)
        return [cls(
            **_xyz(coords, dims), customdata=ids, text=hover_text, name=name,
            marker=marker,
            hovertemplate=_hover(hover_text, prefix,
                                 f"<br>{color_title or 'value'} = "
                                 "%{marker.color:.3f}"),
            **common,
        )]
    return [cls(
        **_xyz(coords, dims), customdata=ids, text=hover_text, name=name,
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


def _axis_titles(fig, dims, prefix):
    if dims == 3:
        fig.update_layout(scene=dict(
            xaxis_title=f"{prefix} 1", yaxis_title=f"{prefix} 2",
            zaxis_title=f"{prefix} 3"))
    else:
        fig.update_xaxes(title_text=f"{prefix} 1", zeroline=False)
        fig.update_yaxes(title_text=f"{prefix} 2", zeroline=False)


def embedding_scatter(instance_coords, label_coords, label_names, *, color=None,
                      color_title=None, colorscale=None, hover_text=None,
                      test_coords=None, test_hover_text=None, instance_ids=None,
                      dims=2, title=None, test_ids=None, test_color=None):
    """Joint embedding of instances and labels (MLLEM, paper 002).

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
        Held-out instances mapped into the embedding; drawn as open crosses.
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

    Returns
    -------
    plotly.graph_objects.Figure
        Traces, in order: training instances (one per category when
        categorical), test instances (if any), then one ``Scatter`` of the
        labels (``meta="labels"``, ``customdata`` = label index, drawn last so
        they stay on top). ``dragmode="lasso"`` in 2-D.
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
    size = 5 if len(X) > WEBGL_THRESHOLD else 7
    palette, crange = _shared_colour_mapping(color, test_color)
    fig = go.Figure()
    for tr in _instance_traces(
            X, color=color, color_title=color_title, colorscale=colorscale,
            hover_text=hover_text, ids=ids, dims=dims, meta="train",
            name="instances", symbol="circle", size=size, palette=palette,
            crange=crange):
        fig.add_trace(tr)
    if test_coords is not None:
        T = _check_coords(test_coords, dims, "test_coords")
        _check_len(test_hover_text, len(T), "test_hover_text")
        _check_len(test_color, len(T), "test_color")
        tids = _ids(test_ids, len(T), "test_ids")
        for tr in _instance_traces(
                T, color=test_color, color_title=color_title,
                colorscale=colorscale, hover_text=test_hover_text, ids=tids,
                dims=dims, meta="test", name="test instances",
                symbol="x", size=size + 3, palette=palette, crange=crange):
            tr.marker.line = dict(width=0.5, color="white")
            fig.add_trace(tr)
    label_cls = go.Scatter3d if dims == 3 else go.Scatter
    fig.add_trace(label_cls(
        **_xyz(Lc, dims), mode="markers+text", text=names,
        textposition="top center", name="labels", meta="labels",
        customdata=np.arange(len(names), dtype=np.int64),
        textfont=dict(size=13 if len(names) <= 20 else 10,
                      color=LABEL_MARKER_COLOR),
        marker=dict(size=14 if dims == 2 else 7, symbol="diamond",
                    color=LABEL_MARKER_COLOR,
                    line=dict(width=1.5, color="white")),
        hovertemplate="label <b>%{text}</b><extra></extra>",
    ))
    _axis_titles(fig, dims, "embedding dimension")
    fig.update_layout(legend=dict(title=dict(text=color_title or ""),
                                  itemsizing="constant"))
    if dims == 2:
        fig.update_layout(dragmode="lasso")
    return finish_layout(fig, title=title, height=600 if dims == 2 else 650)


def instance_scatter(coords, *, color=None, color_title=None, hover_text=None,
                     instance_ids=None, title=None, colorscale=None,
                     axis_title="component"):
    """Instances only, e.g. a UMAP or PCA panel coloured like the embedding.

    Parameters
    ----------
    coords : array-like, shape (n, >= 2)
    color, color_title, hover_text, instance_ids, colorscale
        As in :func:`embedding_scatter`.
    title : str, optional
    axis_title : str, default "component"
        Axis titles become ``"<axis_title> 1"`` and ``"<axis_title> 2"``.

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
    fig = go.Figure()
    for tr in _instance_traces(
            X, color=color, color_title=color_title, colorscale=colorscale,
            hover_text=hover_text, ids=ids, dims=2, meta="train",
            name="instances", symbol="circle",
            size=5 if len(X) > WEBGL_THRESHOLD else 7):
        fig.add_trace(tr)
    _axis_titles(fig, 2, axis_title)
    fig.update_layout(dragmode="lasso", legend=dict(
        title=dict(text=color_title or ""), itemsizing="constant"))
    return finish_layout(fig, title=title, height=450)


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
