"""Method comparison figures: CV measures, timings and solver scaling.

The CV figures read the long-form DataFrame of
:func:`mlviz.evaluation.cross_validate` (columns ``method, fold, measure,
value, fit_seconds, predict_seconds``). Error rows — ``measure`` starting with
``"error"`` or a NaN/non-numeric ``value`` — are ignored.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._style import (
    SOLVER_COLORS,
    empty_figure,
    esc,
    finish_layout,
    method_colors,
    qualitative_colors,
    template_text,
)

__all__ = ["measure_bars", "timing_bars", "solver_scaling_figure",
           "time_ratio_figure", "clean_results"]


def _require(df, columns, what):
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs columns {columns}; missing {missing}.")


def clean_results(results):
    """Drop error rows of a long-form CV DataFrame.

    Parameters
    ----------
    results : pandas.DataFrame
        Columns ``method, fold, measure, value`` (+ timings).

    Returns
    -------
    pandas.DataFrame
        Copy without rows whose ``measure`` starts with ``"error"`` or whose
        ``value`` is NaN / not numeric; ``value`` as float.
    """
    _require(results, ["method", "measure", "value"], "the CV results")
    df = results.copy()
    df["value"] = pd.to_numeric(df["value"], errors="coerce")
    is_error = df["measure"].astype(str).str.lower().str.startswith("error")
    return df[~is_error & df["value"].notna()].reset_index(drop=True)


#: Fill of the trivial-reference bars (with a white diagonal hatch), unlike every method colour.
REFERENCE_COLOR = "#9E9E9E"


def _is_reference(method):
    from mlviz.evaluation.baselines import is_reference

    return is_reference(method)


def reference_name(method):
    """Legend name of a trivial reference row.

    ``"ref: predict nothing"`` -> ``"trivial reference: predict nothing"``.
    """
    text = str(method)
    return "trivial reference: " + (text[len("ref: "):] if text.startswith("ref: ") else text)


def _measure_info(name):
    """(display label, greater_is_better or None) from mlviz.metrics."""
    try:
        from mlviz.metrics import MEASURES
        m = MEASURES[name]
        return str(getattr(m, "label", name)), bool(m.greater_is_better)
    except Exception:  # metrics module missing or unknown measure
        return str(name), None


def _grid(n, max_cols=3):
    cols = min(max_cols, max(n, 1))
    return math.ceil(n / cols), cols


def measure_bars(summary, *, measures=None, title=None):
    """Mean ± standard deviation over folds, one panel per measure.

    Parameters
    ----------
    summary : pandas.DataFrame
        Long-form CV results (``method, fold, measure, value, ...``).
    measures : sequence of str, optional
        Measures to show, in this order (default: all, in order of first
        appearance). Measures absent from the data are skipped.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        One subplot per measure titled with its label and "(higher is
        better)" / "(lower is better)"; in each, one ``Bar`` per method
        (x = method, y = mean over folds, ``error_y`` = sample std over folds;
        with a single fold, e.g. a fixed train/test split, the value itself, no
        error bar and the y axis "value (one train/test split)"), coloured by :func:`method_colors`; the legend
        toggles a method in every panel. The trivial references of
        :func:`mlviz.evaluation.reference_results` (methods ``"ref: …"``) are
        drawn last in a panel, grey with a diagonal hatch, and named in the
        legend "trivial reference: …" (``meta["reference"]`` True); every
        method has one legend entry, in the first panel where it has a bar.
    """
    df = clean_results(summary)
    present = list(dict.fromkeys(df["measure"]))
    chosen = present if measures is None else [m for m in measures if m in present]
    if not chosen:
        return empty_figure("No measure values to show (all rows are errors "
                            "or none were requested)", title=title)
    df = df[df["measure"].isin(chosen)]
    methods = list(dict.fromkeys(df["method"]))
    refs = [m for m in methods if _is_reference(m)]
    methods = [m for m in methods if m not in refs] + refs  # (references drawn last, beside the methods)
    colors = {**method_colors([m for m in methods if m not in refs]), **{m: REFERENCE_COLOR for m in refs}}
    stats = (df.groupby(["measure", "method"], sort=False)["value"]
             .agg(["mean", "std", "count"]).fillna({"std": 0.0}))
    one = bool((stats["count"] == 1).all())  # a fixed split: no spread to draw
    rows, cols = _grid(len(chosen))
    titles = []
    for m in chosen:
        label, gib = _measure_info(m)
        titles.append(esc(label) + ("" if gib is None else
                                    (" (higher is better)" if gib else
                                     " (lower is better)")))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles,
                        vertical_spacing=0.32 / rows + 0.06,
                        horizontal_spacing=0.08)
    in_legend = set()
    for k, m in enumerate(chosen):
        r, c = divmod(k, cols)
        for meth in methods:
            if (m, meth) not in stats.index:
                continue
            s = stats.loc[(m, meth)]
            label = _measure_info(m)[0]
            ref = meth in refs
            shown = reference_name(meth) if ref else meth
            fig.add_trace(go.Bar(
                x=[esc(shown)], y=[s["mean"]], name=esc(shown), legendgroup=esc(meth),
                showlegend=meth not in in_legend, marker_color=colors[meth],
                marker_pattern=dict(shape="/", fgcolor="#FFFFFF", size=6) if ref else None,
                marker_line=dict(color="#616161", width=1) if ref else None,
                error_y=dict(type="data", array=[s["std"]], visible=not one,
                             thickness=1.5, width=4),
                meta={"measure": m, "method": meth, "reference": ref},
                hovertemplate=(f"<b>{template_text(shown)}</b><br>{template_text(label)} "
                               f"({template_text(m)}): %{{y:.4f}}"
                               + ("" if one else f" ± {s['std']:.4f}") + f"<br>{int(s['count'])} fold(s)"
                               "<extra></extra>")),
                row=r + 1, col=c + 1)
            in_legend.add(meth)
        fig.update_xaxes(showticklabels=False, row=r + 1, col=c + 1)
        fig.update_yaxes(title_text=("value (one train/test split)" if one else "mean ± std over folds")
                         if c == 0 else None,
                         row=r + 1, col=c + 1)
    fig.update_layout(legend=dict(title=dict(text="method", side="top"), orientation="h",
                                  y=-0.08, yanchor="top"), bargap=0.25)
    return finish_layout(fig, title=title, height=260 * rows + 120)


def _timings(results):
    _require(results, ["method", "fit_seconds", "predict_seconds"],
             "timing_bars")
    df = results.copy()
    if "measure" in df.columns:
        df = df[~df["measure"].astype(str).str.lower().str.startswith("error")]
    for c in ("fit_seconds", "predict_seconds"):
        df[c] = pd.to_numeric(df[c], errors="coerce")
    keys = ["method", "fold"] if "fold" in df.columns else ["method"]
    # timings are repeated on every measure row of a fold: one per fold
    per_fold = df.groupby(keys, sort=False)[["fit_seconds", "predict_seconds"]] \
        .first().reset_index()
    return per_fold


def timing_bars(results, *, title=None):
    """Fit and predict seconds per method: every fold as a point, the median
    with the interquartile range, on a log axis that reads in seconds.

    Parameters
    ----------
    results : pandas.DataFrame
        Long-form CV results; the timing columns are repeated on every
        measure row of a fold, so each (method, fold) counts once. Error rows
        and NaN timings are ignored.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Two panels ("fit time", "predict time"). Per method and panel: a
        ``Scatter`` of the per-fold seconds (``meta["stat"] == "folds"``) and
        a ``Scatter`` of the median whose asymmetric error bar spans the
        quartiles Q1..Q3 (``meta["stat"] == "median"``; linear-interpolated
        percentiles), so no bar leaves the data range. Log-scale y axes with
        one tick per decade (no minor digits that read as seconds), titled
        "seconds (log scale)", tick labels suffixed " s"; values are floored
        at 1 µs for the log axis.
    """
    import numpy as np

    t = _timings(results)
    methods = list(dict.fromkeys(t["method"]))
    if not methods:
        return empty_figure("No timings to show", title=title)
    colors = method_colors(methods)
    fig = make_subplots(rows=1, cols=2, subplot_titles=("fit time", "predict time"),
                        horizontal_spacing=0.1)
    for col, what in ((1, "fit_seconds"), (2, "predict_seconds")):
        for meth in methods:
            v = np.maximum(t.loc[t["method"] == meth, what].dropna().to_numpy(float), 1e-6)
            if v.size == 0:
                continue
            q1, med, q3 = np.percentile(v, [25, 50, 75])
            x = esc(meth)
            word = what.split("_")[0]
            fig.add_trace(go.Scatter(
                x=[x] * v.size, y=v, mode="markers", name=esc(meth), legendgroup=esc(meth),
                showlegend=False, marker=dict(color=colors[meth], size=7, opacity=0.55,
                                              line=dict(width=0)),
                meta={"timing": what, "method": meth, "stat": "folds"},
                hovertemplate=f"<b>{template_text(meth)}</b><br>{word}: %{{y:.3g}} s (one fold)"
                              "<extra></extra>"), row=1, col=col)
            fig.add_trace(go.Scatter(
                x=[x], y=[med], mode="markers", name=esc(meth), legendgroup=esc(meth),
                showlegend=col == 1, marker=dict(color=colors[meth], size=14, symbol="line-ew-open",
                                                 line=dict(width=3, color=colors[meth])),
                error_y=dict(type="data", symmetric=False, array=[q3 - med], arrayminus=[med - q1],
                             visible=v.size > 1, thickness=2, width=8, color=colors[meth]),
                meta={"timing": what, "method": meth, "stat": "median"},
                hovertemplate=(f"<b>{template_text(meth)}</b><br>{word}: median %{{y:.3g}} s"
                               f"<br>quartiles {q1:.3g}–{q3:.3g} s<br>{v.size} fold(s)"
                               "<extra></extra>")), row=1, col=col)
        fig.update_yaxes(type="log", title_text="seconds (log scale)", dtick=1, ticksuffix=" s",
                         exponentformat="none", showexponent="none", row=1, col=col)
        fig.update_xaxes(title_text="method", tickangle=-30, type="category", row=1, col=col)
    fig.update_layout(showlegend=False)
    return finish_layout(fig, title=title, height=420)


def solver_scaling_figure(df, *, title=None):
    """ML-LSPC Sylvester solvers: seconds against the number of labels.

    Reproduces the layout of Nam et al., Fig. 1(b): one line per solver
    (``naive`` Kronecker solve, ``cg`` conjugate gradient, ``eig`` double
    eigendecomposition), log-scale time.

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``solver, n_labels, seconds``; repeated runs of the same
        (solver, n_labels) are shown as their mean with a ± std error bar.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Scatter`` (lines+markers) per solver; x "number of labels",
        y "seconds (log scale)".
    """
    _require(df, ["solver", "n_labels", "seconds"], "solver_scaling_figure")
    d = df.copy()
    d["seconds"] = pd.to_numeric(d["seconds"], errors="coerce")
    d = d[d["seconds"].notna() & (d["seconds"] > 0)]
    if d.empty:
        return empty_figure("No solver timings to show", title=title)
    solvers = list(dict.fromkeys(d["solver"].astype(str)))
    extra = qualitative_colors(len(solvers))
    fig = go.Figure()
    for k, s in enumerate(solvers):
        g = (d[d["solver"].astype(str) == s].groupby("n_labels")["seconds"]
             .agg(["mean", "std"]).fillna(0.0).sort_index())
        fig.add_trace(go.Scatter(
            x=g.index.to_numpy(), y=g["mean"].to_numpy(), name=esc(s),
            mode="lines+markers",
            line=dict(color=SOLVER_COLORS.get(s, extra[k]), width=2),
            error_y=dict(type="data", array=g["std"].to_numpy(),
                         visible=bool((g["std"] > 0).any())),
            hovertemplate=f"<b>{template_text(s)}</b><br>%{{x}} labels: %{{y:.4g}} s"
                          "<extra></extra>"))
    fig.update_xaxes(title_text="number of labels")
    fig.update_yaxes(type="log", title_text="seconds (log scale)")
    fig.update_layout(legend=dict(title=dict(text="Sylvester solver")))
    return finish_layout(fig, title=title, height=420)


def time_ratio_figure(df, *, title=None):
    """LSPC vs kernel logistic regression training time (Simm et al.).

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``n_samples, lspc_seconds, klr_seconds``; repeated rows per
        ``n_samples`` are averaged.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Left: both training times against the number of samples (log y).
        Right: the ratio ``klr_seconds / lspc_seconds`` (above 1 LSPC trains
        faster, below 1 KLR does) with a dotted reference line at 1. The x axes are
        logarithmic when ``n_samples`` spans more than a factor of 10.
    """
    _require(df, ["n_samples", "lspc_seconds", "klr_seconds"],
             "time_ratio_figure")
    d = df.copy()
    for c in ("n_samples", "lspc_seconds", "klr_seconds"):
        d[c] = pd.to_numeric(d[c], errors="coerce")
    d = d.dropna()
    d = d[(d["lspc_seconds"] > 0) & (d["klr_seconds"] > 0)]
    if d.empty:
        return empty_figure("No timings to show", title=title)
    g = d.groupby("n_samples")[["lspc_seconds", "klr_seconds"]].mean().sort_index()
    n = g.index.to_numpy(dtype=float)
    ratio = (g["klr_seconds"] / g["lspc_seconds"]).to_numpy()
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=("training time",
                                        "KLR time / LSPC time (> 1: LSPC faster)"))
    colors = method_colors(["LSPC", "KLR"])
    for col_name, label in (("lspc_seconds", "LSPC"), ("klr_seconds", "KLR")):
        fig.add_trace(go.Scatter(
            x=n, y=g[col_name].to_numpy(), mode="lines+markers", name=label,
            line=dict(color=colors[label], width=2),
            hovertemplate=f"<b>{label}</b><br>n = %{{x}}: %{{y:.4g}} s"
                          "<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(
        x=n, y=ratio, mode="lines+markers", name="KLR / LSPC",
        line=dict(color="#2CA02C", width=2),
        customdata=np.where(ratio >= 1, "LSPC faster", "KLR faster"),
        hovertemplate="n = %{x}: KLR time / LSPC time = %{y:.2f} (%{customdata})<extra></extra>"),
        row=1, col=2)
    fig.add_trace(go.Scatter(
        x=[n.min(), n.max()], y=[1.0, 1.0], mode="lines", name="equal time",
        line=dict(color="#888888", dash="dot"), hoverinfo="skip"),
        row=1, col=2)
    log_x = n.min() > 0 and n.max() / n.min() > 10
    for col in (1, 2):
        fig.update_xaxes(title_text="number of training samples",
                         type="log" if log_x else "linear", row=1, col=col)
    fig.update_yaxes(type="log", title_text="seconds (log scale)", row=1, col=1)
    fig.update_yaxes(title_text="time ratio (KLR / LSPC)", rangemode="tozero",
                     row=1, col=2)
    fig.update_layout(legend=dict(orientation="h", y=-0.2, yanchor="top"))
    return finish_layout(fig, title=title, height=420)
