"""Fast :func:`mlviz.decision.rule_curve`: every parameter value from one pass of counts.

The rules ``threshold``, ``per_label``, ``rcut`` and ``scut`` predict *nested*
label sets along their parameter: ordered so that predictions grow (thresholds
and SCut offsets decreasing, k increasing), an entry (i, l) is predicted from
some grid position ``s[i, l]`` on (``s = G``: never).  So the counts every
label-based measure needs -- per label and per row: true positives and
predictions -- are histograms of ``s`` followed by cumulative sums over the
grid: O(n·L) work and memory for the pass, O(G·(n + L)) for the counts.

``at_least_one_label``: row i is empty at grid position j iff
``j < min_l s[i, l]``; it then gets its top label (``np.argmax``), which adds
one prediction (and one true positive if that label is true) to the row and
to that label.

Each measure is then evaluated from the counts with the same expressions as
:func:`mlviz.metrics.evaluate` (the same ``_prf``, the same ``np.mean`` over
the same 1-D arrays), so the values are identical, not merely close.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .metrics import _check_inputs, _prf, evaluate, get_measure

_PRF = tuple(f"{kind}_{key}" for kind in ("micro", "macro", "example")
             for key in ("precision", "recall", "f1"))
LABEL_MEASURES = frozenset(("hamming_loss", "subset_accuracy", *_PRF))


def _thresholds_starts(P, thresholds):
    """Grid of unique thresholds (decreasing) and the start index of each entry of P."""
    desc = np.unique(thresholds)[::-1]
    G = len(desc)
    # predicted at desc[j] iff desc[j] <= P, i.e. j >= #{t > P}
    return desc, G - np.searchsorted(desc[::-1], P, side="right")


def grid_starts(P, rule, values, base=None, label=None):
    """Grid positions of every parameter value and the start matrix ``s``.

    Returns ``(where, s, G)`` with ``where[m]`` the grid index of
    ``values[m]``, or None if this (rule, values) is not handled here
    (the caller then uses the row-by-row loop, which also raises the
    loop's errors for invalid parameters).
    """
    n, L = P.shape
    if rule == "rcut":
        if any(not isinstance(k, Integral) or isinstance(k, bool) or k < 0 for k in values):
            return None
        grid = np.unique(np.asarray(values, dtype=np.int64))
        order = np.argsort(-P, axis=1, kind="stable")
        rank = np.empty((n, L), dtype=np.int64)
        np.put_along_axis(rank, order, np.arange(L, dtype=np.int64)[None, :], axis=1)
        del order
        # predicted at k iff rank < min(k, L) iff rank < k; grid increasing: j >= #{k <= rank}
        s = np.searchsorted(grid, rank, side="right")
        return np.searchsorted(grid, np.asarray(values, dtype=np.int64)), s, len(grid)
    vals = np.asarray(values, dtype=np.float64)
    if not np.isfinite(vals).all():
        return None
    if rule == "threshold":
        desc, s = _thresholds_starts(P, vals)
    elif rule == "per_label":
        if base is None or base.shape != (L,) or label is None:
            return None
        desc, col = _thresholds_starts(P[:, label], vals)
        s = np.where(P >= base[None, :], 0, len(desc))
        s[:, label] = col
    elif rule == "scut":
        if base is None or base.shape != (L,) or not np.isfinite(base).all():
            return None
        desc = np.unique(vals)[::-1]
        G = len(desc)
        s = np.empty((n, L), dtype=np.int64)
        for l in range(L):
            # thresholds base[l] + p (as the loop computes them) are non-increasing along desc
            asc = (base[l] + desc)[::-1]
            s[:, l] = G - np.searchsorted(asc, P[:, l], side="right")
    else:
        return None
    where = len(desc) - 1 - np.searchsorted(desc[::-1], vals)
    return where, s, len(desc)


def _cum_hist(keys, n_groups, G):
    """counts[g, j] = #{entries of group g with start <= j}, keys = g * (G + 1) + start."""
    h = np.bincount(keys, minlength=n_groups * (G + 1)).reshape(n_groups, G + 1)
    return np.cumsum(h[:, :G], axis=1)


def counts(Y, P, s, G, at_least_one_label):
    """Per-label and per-row counts along the grid, all int64.

    Returns dict with ``tp_lab``, ``pred_lab`` (L, G), ``true_lab`` (L,),
    ``tp_row``, ``pred_row`` (G, n), ``true_row`` (n,).
    """
    n, L = Y.shape
    lab_keys = s + (G + 1) * np.arange(L, dtype=np.int64)[None, :]
    pred_lab = _cum_hist(lab_keys.ravel(), L, G)
    tp_lab = _cum_hist(lab_keys[Y], L, G)
    del lab_keys
    row_keys = s + (G + 1) * np.arange(n, dtype=np.int64)[:, None]
    pred_row = _cum_hist(row_keys.ravel(), n, G)
    tp_row = _cum_hist(row_keys[Y], n, G)
    del row_keys
    if at_least_one_label:
        top = np.argmax(P, axis=1)
        y_top = Y[np.arange(n), top]
        s_min = s.min(axis=1)
        grid = np.arange(G)
        empty = grid[None, :] < s_min[:, None]                     # (n, G)
        pred_row += empty
        tp_row += empty & y_top[:, None]
        keys = top * (G + 1) + s_min
        # rows of top label l still empty at j: those with s_min > j
        n_top = np.bincount(top, minlength=L)[:, None]
        pred_lab += n_top - _cum_hist(keys, L, G)
        n_top_y = np.bincount(top[y_top], minlength=L)[:, None]
        tp_lab += n_top_y - _cum_hist(keys[y_top], L, G)
    return dict(tp_lab=tp_lab, pred_lab=pred_lab, true_lab=Y.sum(axis=0),
                tp_row=np.ascontiguousarray(tp_row.T), pred_row=np.ascontiguousarray(pred_row.T),
                true_row=Y.sum(axis=1))


def measures_from_counts(c, n, L, wanted):
    """One dict of measure values (plus ``empty_rate``) per grid position."""
    G = c["pred_row"].shape[0]
    tp_row, pred_row, true_row = c["tp_row"], c["pred_row"], c["true_row"][None, :]
    cols = {}
    if "hamming_loss" in wanted:
        tp = tp_row.sum(axis=1)
        wrong = (pred_row.sum(axis=1) - tp) + (true_row.sum() - tp)
        cols["hamming_loss"] = [float(np.float64(w) / (n * L)) for w in wrong]
    if "subset_accuracy" in wanted:
        exact = ((tp_row == true_row) & (pred_row == true_row)).sum(axis=1)
        cols["subset_accuracy"] = [float(np.float64(e) / n) for e in exact]
    sources = {"micro": lambda: (c["tp_lab"].sum(axis=0), c["pred_lab"].sum(axis=0),
                                 c["true_lab"].sum()),
               "macro": lambda: (c["tp_lab"].T, c["pred_lab"].T, c["true_lab"][None, :]),
               "example": lambda: (tp_row, pred_row, true_row)}
    for kind, source in sources.items():
        if not any(w.startswith(kind + "_") and w in LABEL_MEASURES for w in wanted):
            continue
        tp, n_pred, n_true = source()
        n_true = np.broadcast_to(n_true, np.shape(tp))
        p, r, f = _prf(tp, n_pred, n_true)
        for key, v in (("precision", p), ("recall", r), ("f1", f)):
            if kind == "micro":
                cols[f"{kind}_{key}"] = [float(x) for x in v]
            else:
                v = np.ascontiguousarray(v)
                cols[f"{kind}_{key}"] = [float(np.mean(v[j])) for j in range(G)]
    empty = (pred_row == 0).sum(axis=1)
    cols["empty_rate"] = [float(np.float64(e) / n) for e in empty]
    return [{k: v[j] for k, v in cols.items()} for j in range(G)]


def fast_rows(Y, P, rule, values, measures, *, at_least_one_label, base=None, label=None):
    """Rows of :func:`mlviz.decision.rule_curve` (without ``param``), or None to use the loop."""
    n, L = P.shape
    if n == 0 or L == 0 or len(values) == 0:
        return None
    wanted = list(measures)
    for w in wanted:
        get_measure(w)
    per_row = [w for w in wanted if get_measure(w).needs == "labels"]
    if any(w not in LABEL_MEASURES for w in per_row):
        return None
    found = grid_starts(P, rule, values, base=base, label=label)
    if found is None:
        return None
    Yb, _ = _check_inputs(Y, P)
    where, s, G = found
    by_grid = measures_from_counts(counts(Yb, P, s, G, at_least_one_label), n, L, per_row)
    const = [w for w in wanted if w not in per_row]
    fixed = evaluate(Y, P, measures=const) if const else {}
    out = []
    for j in where:
        row = by_grid[j]
        out.append({**{w: (row[w] if w in row else fixed[w]) for w in wanted},
                    "empty_rate": row["empty_rate"]})
    return out
