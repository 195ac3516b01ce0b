"""Tidy, numeric tables behind the figures, and their safe CSV export.

Every table a user can download goes through :func:`to_csv_bytes`, which
applies :func:`mlviz._text.csv_safe` (cells starting with ``= + - @``, tab or
carriage return are neutralised, the OWASP CSV-injection rule) and keeps
numbers numeric. The builders here return numbers in numeric columns, never
formatted strings: the Compare summary has separate ``mean`` and ``std``
columns (not ``"0.184 ± 0.015"``), timings have median and quartiles.

Code names of measures stay in the ``measure`` column (a script can select
them); the plain-language name is in ``measure_name``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mlviz._text import csv_safe

__all__ = ["to_csv_bytes", "for_display", "MISSING", "trivial_references", "measure_name", "summary_table",
           "timing_table", "edge_table", "strongest_edges", "cooccurrence_pairs", "label_table", "measure_label",
           "wide_summary", "rules_table"]


def to_csv_bytes(frame, *, index=False):
    """CSV (UTF-8 bytes) of ``frame`` with spreadsheet formulas neutralised.

    Parameters
    ----------
    frame : pandas.DataFrame
    index : bool, default False
        Write the index as the first column (its labels are neutralised too).

    Returns
    -------
    bytes
    """
    return csv_safe(frame).to_csv(index=index).encode("utf-8")


MISSING = "—"
"""What a table on screen shows for a missing value (never "None", "nan" or "<NA>")."""


def for_display(frame, digits=None):
    """A copy of ``frame`` for showing on screen: missing cells read :data:`MISSING`.

    Numeric columns with a missing value become text (each number formatted with
    ``digits`` decimals, or ``:g`` when ``digits`` is None); complete numeric columns stay
    numeric, so the table can still format and sort them. Not for CSV export (use the
    numeric frame with :func:`to_csv_bytes`).

    Parameters
    ----------
    frame : pandas.DataFrame
    digits : int, optional

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> for_display(pd.DataFrame({"a": [1.5, None], "b": ["x", None]}), digits=2).values.tolist()
    [['1.50', 'x'], ['—', '—']]
    """
    out = frame.copy()
    for col in range(out.shape[1]):
        series = out.iloc[:, col]
        missing = series.isna()
        if not missing.any():
            continue
        if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
            fmt = (lambda v: f"{v:.{digits}f}") if digits is not None else (lambda v: f"{v:g}")
            text = [MISSING if m else fmt(float(v)) for v, m in zip(series, missing)]
        else:
            text = [MISSING if m else v for v, m in zip(series, missing)]
        out.isetitem(col, pd.Series(text, index=out.index, dtype=object))
    return out


NOTHING, EVERY, SAME_SCORES = ("predict nothing", "predict every label",
                               "training frequencies as every instance's scores")
"""Names of the trivial references of :func:`trivial_references` (none uses the features)."""


def trivial_references(Y_train, Y_test, measures):
    """Each measure's value for the best trivial predictor that looks at no feature.

    Label measures: the better of predicting nothing and predicting every label; score measures
    (AUC, ranking): the training frequencies as every test instance's scores (the same ranking for
    everyone, so a per-label AUC of 0.5). A model below these numbers learned nothing useful for that
    measure -- the context a weak default needs (Compare shows the same references per fold).

    Parameters
    ----------
    Y_train : array-like, shape (n_train, n_labels), entries in {0, 1}
    Y_test : array-like, shape (n_test, n_labels), entries in {0, 1}
    measures : sequence of str
        Codes of :data:`mlviz.metrics.MEASURES`.

    Returns
    -------
    pandas.DataFrame
        Columns ``measure`` (code), ``reference`` (one of :data:`NOTHING`, :data:`EVERY`,
        :data:`SAME_SCORES`), ``value``; one row per measure, in the order given.
    """
    from mlviz.metrics import MEASURES, evaluate

    dense = lambda Y: np.asarray(Y.toarray() if hasattr(Y, "toarray") else Y, dtype=float)  # noqa: E731
    Ytr, Yte = dense(Y_train), dense(Y_test)
    P = np.tile(Ytr.mean(axis=0) if len(Ytr) else np.zeros(Yte.shape[1]), (Yte.shape[0], 1))
    labels = [k for k in measures if MEASURES[k].needs == "labels"]
    scores = [k for k in measures if k not in labels]
    by = {}
    if labels:
        for name, D in ((NOTHING, np.zeros_like(Yte)), (EVERY, np.ones_like(Yte))):
            by[name] = evaluate(Yte, P, measures=labels, y_pred=D.astype(np.uint8))
    same = evaluate(Yte, P, measures=scores) if scores else {}
    rows = []
    for k in measures:
        if k in same:
            rows.append((k, SAME_SCORES, float(same[k])))
            continue
        pick = max if MEASURES[k].greater_is_better else min
        name = pick((NOTHING, EVERY), key=lambda n: by[n][k])
        rows.append((k, name, float(by[name][k])))
    return pd.DataFrame(rows, columns=["measure", "reference", "value"])


def measure_name(code):
    """Plain-language name of a measure code (``"hamming_loss"`` -> ``"Hamming loss"``).

    Taken from :data:`mlviz.metrics.MEASURES`; unknown codes are returned as given.
    """
    info = _measure(code)
    return str(getattr(info, "label", code)) if info is not None else str(code)


def _measure(code):
    try:
        from mlviz.metrics import MEASURES
        return MEASURES.get(str(code))
    except Exception:  # metrics module missing
        return None


def _clean(results):
    from .compare import clean_results
    return clean_results(results)


def summary_table(results):
    """Mean, std and fold count of every method × measure, one row each.

    Parameters
    ----------
    results : pandas.DataFrame
        Long-form CV results of :func:`mlviz.evaluation.cross_validate`
        (``method, fold, measure, value, ...``); error rows and NaN values
        are ignored.

    Returns
    -------
    pandas.DataFrame
        Columns ``method`` (str), ``measure`` (code name), ``measure_name``
        (plain language), ``higher_is_better`` (bool or NA), ``mean``,
        ``std`` (sample std over folds, NaN for one fold), ``n_folds`` (int),
        in the order methods and measures first appear.
    """
    df = _clean(results)
    if df.empty:
        return pd.DataFrame({"method": pd.Series(dtype=object), "measure": pd.Series(dtype=object),
                             "measure_name": pd.Series(dtype=object),
                             "higher_is_better": pd.Series(dtype=object),
                             "mean": pd.Series(dtype=float), "std": pd.Series(dtype=float),
                             "n_folds": pd.Series(dtype=np.int64)})
    g = df.groupby(["method", "measure"], sort=False)["value"]
    out = g.agg(mean="mean", std=lambda v: v.std(ddof=1) if len(v) > 1 else np.nan,
                n_folds="count").reset_index()
    out["measure_name"] = [measure_name(m) for m in out["measure"]]
    gib = [getattr(_measure(m), "greater_is_better", None) for m in out["measure"]]
    out["higher_is_better"] = pd.Series([None if g is None else bool(g) for g in gib], dtype=object)
    out["mean"] = out["mean"].astype(float)
    out["std"] = out["std"].astype(float)
    out["n_folds"] = out["n_folds"].astype(np.int64)
    return out[["method", "measure", "measure_name", "higher_is_better", "mean", "std", "n_folds"]]


def timing_table(results):
    """Median and quartiles of fit and predict seconds per method.

    Parameters
    ----------
    results : pandas.DataFrame
        Long-form CV results (``method, fold, fit_seconds, predict_seconds``;
        timings repeated on each measure row of a fold count once).

    Returns
    -------
    pandas.DataFrame
        Columns ``method, n_folds`` and, for ``fit`` and ``predict``:
        ``<what>_median_s, <what>_q1_s, <what>_q3_s, <what>_min_s, <what>_max_s``
        (floats, seconds; quartiles by linear interpolation).
    """
    from .compare import _timings
    t = _timings(results)
    rows = []
    for meth, g in t.groupby("method", sort=False):
        row = {"method": meth, "n_folds": int(len(g))}
        for what in ("fit", "predict"):
            v = g[f"{what}_seconds"].dropna().to_numpy(float)
            q = np.percentile(v, [0, 25, 50, 75, 100]) if v.size else [np.nan] * 5
            row.update({f"{what}_median_s": float(q[2]), f"{what}_q1_s": float(q[1]),
                        f"{what}_q3_s": float(q[3]), f"{what}_min_s": float(q[0]),
                        f"{what}_max_s": float(q[4])})
        rows.append(row)
    return pd.DataFrame(rows)


def edge_table(graph, label_names=None):
    """Edges of a (signed, weighted) label graph, strongest first.

    Parameters
    ----------
    graph : networkx.Graph or DiGraph, or square array / sparse matrix V
        ``weight`` edge attribute (default 1); self-loops and zero weights are skipped.
        A matrix gives an edge ``t -> k`` per non-zero ``V[t, k]`` (the sparse CDN's
        ``label_coef_``), read without building a graph: at 983 labels and a small γ
        V has ~630k non-zeros, a 0.6 s, ~190 MB DiGraph; the table takes ~0.1 s.
    label_names : sequence of str, optional
        Names of integer nodes.

    Returns
    -------
    pandas.DataFrame
        Columns ``source, target`` (names), ``weight`` (float), ``abs_weight``,
        sorted by decreasing ``abs_weight`` (ties: in the order of the graph's
        edges; for a matrix, row by row, as :meth:`SparseCDN.label_graph_` adds them).
    """
    def name(v):
        if label_names is not None and isinstance(v, (int, np.integer)) and 0 <= v < len(label_names):
            return str(label_names[v])
        return str(v)

    if not hasattr(graph, "edges"):  # a matrix
        t, k, w = strongest_edges(graph)
        n = int(max(graph.shape[0], len(label_names) if label_names is not None else 0))
        text = np.array([name(i) for i in range(n)], dtype=object)  # (cells share these strings)
        df = pd.DataFrame({"source": text[t], "target": text[k], "weight": w})
        df["abs_weight"] = df["weight"].abs()
        return df
    rows = [(name(u), name(v), float(d.get("weight", 1.0)))
            for u, v, d in graph.edges(data=True)
            if u != v and float(d.get("weight", 1.0)) != 0.0]
    df = pd.DataFrame(rows, columns=["source", "target", "weight"]).astype({"weight": float})
    df["abs_weight"] = df["weight"].abs()
    return df.sort_values("abs_weight", ascending=False, kind="stable").reset_index(drop=True)


def strongest_edges(V, n=None):
    """The edges ``t -> k`` of the non-zero off-diagonal ``V[t, k]``, strongest first.

    Parameters
    ----------
    V : array or sparse matrix, shape (L, L)
    n : int, optional
        Only the ``n`` strongest.

    Returns
    -------
    t, k : ndarray of int
    w : ndarray of float
        Sorted by decreasing ``|w|``, ties row by row (by ``t``, then ``k``).
    """
    import scipy.sparse as sp

    if sp.issparse(V):
        C = sp.coo_matrix(V)
        order = np.lexsort((C.col, C.row))
        t, k, w = C.row[order], C.col[order], np.asarray(C.data, dtype=float)[order]
    else:
        V = np.asarray(V, dtype=float)
        t, k = np.nonzero(V)
        w = V[t, k]
    keep = (t != k) & (w != 0)
    t, k, w = t[keep], k[keep], w[keep]
    order = np.argsort(-np.abs(w), kind="stable")[:n]
    return t[order].astype(np.int64), k[order].astype(np.int64), w[order]


def cooccurrence_pairs(cooccurrence, label_names, *, min_count=1):
    """Label pairs that co-occur at least ``min_count`` times, most frequent first.

    Parameters
    ----------
    cooccurrence : array-like, shape (L, L)
        Counts ``Y^T Y``.
    label_names : sequence of str, length L
    min_count : int, default 1

    Returns
    -------
    pandas.DataFrame
        Columns ``label_a, label_b`` (str), ``count`` (int64), ``jaccard`` (float).
    """
    C = np.asarray(cooccurrence, dtype=float)
    names = [str(s) for s in label_names]
    iu, ju = np.triu_indices(len(names), k=1)
    c = C[iu, ju]
    keep = c >= max(min_count, 1)
    iu, ju, c = iu[keep], ju[keep], c[keep]
    d = np.diag(C)
    union = d[iu] + d[ju] - c
    jac = np.divide(c, union, out=np.zeros_like(c), where=union > 0)
    order = np.argsort(-c, kind="stable")
    return pd.DataFrame({"label_a": [names[i] for i in iu[order]],
                         "label_b": [names[j] for j in ju[order]],
                         "count": c[order].astype(np.int64), "jaccard": jac[order]})


def label_table(label_names, counts, n_samples=None):
    """Label frequencies as numbers: ``label, count, fraction`` (fraction NaN without ``n_samples``)."""
    counts = np.asarray(counts, dtype=float).ravel()
    frac = counts / float(n_samples) if n_samples else np.full(counts.shape, np.nan)
    return pd.DataFrame({"label": [str(s) for s in label_names],
                         "count": counts.astype(np.int64), "fraction": frac})


def measure_label(code: str) -> str:
    """A measure's display name with ↑ (higher is better) or ↓ (lower is better); unknown codes as named."""
    from mlviz.metrics import MEASURES

    info = MEASURES.get(code)
    arrow = "" if info is None else (" ↑" if info.greater_is_better else " ↓")
    return measure_name(code) + arrow


def wide_summary(summary):
    """A :func:`summary_table` as one row per method and one column per measure, cells ``"mean ± std"``
    (``"mean"`` with one fold; ``"—"`` where a method, e.g. a trivial reference, has no value)."""
    codes = list(dict.fromkeys(summary["measure"]))
    wide = summary.assign(text=[f"{m:.3f} ± {s:.3f}" if np.isfinite(s) else f"{m:.3f}"
                                for m, s in zip(summary["mean"], summary["std"])])
    wide = wide.pivot(index="method", columns="measure", values="text")
    wide = wide[[c for c in codes if c in wide.columns]].rename(columns=measure_label)
    return wide.reindex(list(dict.fromkeys(summary["method"]))).fillna("—")


def rules_table(res):
    """Per method of a cross-validation table: its decision rule, scaling, tuned parameters (per fold,
    distinct, ``"—"`` if none) and median tuning seconds per fold."""
    per = res.groupby("method", sort=False).agg(
        decision_rule=("decision_rule", "first"), scaling=("scaling", "first"),
        tuned_params=("tuned_params", lambda v: " · ".join(dict.fromkeys(x for x in v if x)) or "—"),
        tune_seconds=("tune_seconds", "median")).reset_index()
    return per.rename(columns={"decision_rule": "decision rule", "tuned_params": "tuned (per fold)",
                               "tune_seconds": "tuning s per fold (median)"})

