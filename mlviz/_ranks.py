"""Ranks with ties, as :func:`scipy.stats.rankdata`, for the multi-label measures and the posterior figures.

The rank of a tie group does not depend on the order of its members, so one *unstable* sort per row
(numpy's default introsort, ~4x faster than a stable sort at 5k x 983) gives exactly the ranks of
``rankdata``; contiguous rows (a transposed copy for columns) keep the sorts in cache. Blocks of about
:data:`_BLOCK` entries bound the memory. On a 5,369 x 983 posterior matrix these took 0.23-0.27 s where
``rankdata`` took 0.45-0.51 s (benchmarks/RESULTS.md, "first views at 983 labels: the sparse-CDN path and
the Posteriors redraw").
"""

import numpy as np

__all__ = ["positive_rank_sums", "rank_max_rows"]

#: entries of one block
_BLOCK = 1 << 20


def _tie_bounds(v, end_only=False):
    """For rows of sorted values ``v``: the 0-based positions of the first and the last member of each
    entry's tie group, ``(start, end)``; ``start`` is None with ``end_only`` (only ``end`` wanted)."""
    n = v.shape[1]
    pos = np.arange(n, dtype=np.float64)
    first = np.ones(v.shape, dtype=bool)
    first[:, 1:] = v[:, 1:] != v[:, :-1]
    last = np.ones(v.shape, dtype=bool)
    last[:, :-1] = first[:, 1:]
    end = np.minimum.accumulate(np.where(last, pos, n - 1.0)[:, ::-1], axis=1)[:, ::-1]
    start = None if end_only else np.maximum.accumulate(np.where(first, pos, 0.0), axis=1)
    return start, end


def positive_rank_sums(Y, S):
    """Per column of ``S``: the sum over the rows where ``Y`` is true of their average rank in the column.

    The core of the Mann-Whitney statistic (ROC AUC): ``(rankdata(S, method="average", axis=0) * Y).sum(axis=0)``.

    Parameters
    ----------
    Y : ndarray of bool or {0, 1}, shape (n, L)
    S : ndarray of float, shape (n, L)
        Finite scores.

    Returns
    -------
    sums : ndarray, shape (L,)
        Ranks are 1-based, ties get the mean of their positions (half-integers: the sums are exact).
    """
    n, L = S.shape
    out = np.zeros(L)
    if n == 0:
        return out
    step = max(1, _BLOCK // n)
    for c0 in range(0, L, step):
        T = np.ascontiguousarray(S[:, c0:c0 + step].T)
        idx = np.argsort(T, axis=1)
        start, end = _tie_bounds(np.take_along_axis(T, idx, axis=1))
        ranks = 0.5 * (start + end) + 1.0
        Yb = np.ascontiguousarray(Y[:, c0:c0 + step].T)
        out[c0:c0 + step] = (ranks * np.take_along_axis(Yb, idx, axis=1)).sum(axis=1)
    return out


def rank_max_rows(A):
    """``rankdata(A, method="max", axis=1)``: each entry's count of entries of its row that are <= it.

    Parameters
    ----------
    A : ndarray of float, shape (n, L)
        No NaN (``inf`` is allowed and ties with ``inf``).

    Returns
    -------
    ranks : ndarray of float, shape (n, L)
    """
    n, L = A.shape
    out = np.empty((n, L))
    if L == 0:
        return out
    step = max(1, _BLOCK // L)
    for r0 in range(0, n, step):
        B = A[r0:r0 + step]
        idx = np.argsort(B, axis=1)
        _, end = _tie_bounds(np.take_along_axis(B, idx, axis=1), end_only=True)
        np.put_along_axis(out[r0:r0 + step], idx, end + 1.0, axis=1)
    return out
