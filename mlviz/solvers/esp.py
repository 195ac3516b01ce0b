"""Elementary symmetric polynomials in log space: the MLRH partition function.

The MLRH model (Lee & Shajari, eqs. (30)–(31)) puts on the label sets
``A ⊆ {1..K}`` with ``1 <= |A| <= M`` the probability

    P(A | s) = exp(Σ_{k∈A} s_k) / Z(s),      Z(s) = Σ_{m=m₀}^{M} e_m(exp(s)),

where ``e_m(z) = Σ_{|A|=m} Π_{k∈A} z_k`` is the m-th elementary symmetric
polynomial and m₀ = ``min_labels`` is 1 (the paper: sets of size 1..M) or 0
(the empty set ∅ is a label set too, with weight e_0 = 1, for data with empty
rows).  Instead of enumerating the ``Σ_m C(K, m)`` sets, ``e_m`` is built
label by label with the recursion

    e_m(z_1..z_j) = e_m(z_1..z_{j-1}) + z_j e_{m-1}(z_1..z_{j-1}),

carried out on logarithms with ``numpy.logaddexp`` (stable for scores in the
hundreds or thousands), O(K·M) per instance and vectorised over instances.
The marginals ``P(y_k = 1 | s) = ∂ log Z / ∂ s_k`` come from one backward pass
over the same tables (see :func:`esp_marginals`).

No model code lives here; :mod:`mlviz.models.mlrh` uses these functions.

References
----------
J. Lee and H. Shajari, "A hidden variables approach to multilabel logistic
regression", eqs. (30)–(31) (model and partition function), §3.4.2
(marginal probabilities, eqs. (40)–(41)), Appendix A.2 (winner-take-all).
"""

import functools

import numpy as np

__all__ = ["log_esp", "log_partition", "esp_marginals", "best_subset", "log_set_probability"]


def _as_scores(s):
    """Return (scores as float64 2-D array, was_1d)."""
    s = np.asarray(s, dtype=np.float64)
    if s.ndim == 1:
        return s[None, :], True
    if s.ndim != 2:
        raise ValueError(f"scores must be 1-D (K,) or 2-D (n, K), got shape {s.shape}.")
    return s, False


def _check_order(max_order, K, name="max_labels", low=1):
    if isinstance(max_order, bool) or int(max_order) != max_order or max_order < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {max_order!r}.")
    return int(min(max_order, K))


def _check_min(min_labels):
    if min_labels not in (0, 1) or isinstance(min_labels, bool):
        raise ValueError(f"min_labels must be 0 (the empty set is allowed) or 1, got {min_labels!r}.")
    return int(min_labels)


#: esp_marginals processes instances in chunks whose DP tables stay below this many bytes.
CHUNK_BYTES = 64 * 2 ** 20


def _forward_tables(s, M):
    """Prefix tables F[:, j, m] = log e_m(exp(s[:, :j])) for j = 0..K, m = 0..M.

    Returns
    -------
    F : ndarray, shape (n, K + 1, M + 1)
    """
    n, K = s.shape
    F = np.full((n, K + 1, M + 1), -np.inf)
    F[:, 0, 0] = 0.0
    for j in range(K):
        prev = F[:, j, :]
        cur = F[:, j + 1, :]
        cur[:, 0] = 0.0
        np.logaddexp(prev[:, 1:], s[:, j, None] + prev[:, :-1], out=cur[:, 1:])
    return F


def log_esp(s, max_order):
    """Logarithms of the elementary symmetric polynomials of ``exp(s)``.

    Parameters
    ----------
    s : array-like, shape (n, K) or (K,)
        Scores (log-weights); ``-inf`` entries are allowed (weight 0).
    max_order : int >= 0
        Largest order M computed.

    Returns
    -------
    log_e : ndarray, shape (n, M + 1) or (M + 1,)
        ``log_e[i, m] = log e_m(exp(s[i]))`` for m = 0..M; ``log e_0 = 0`` and
        ``-inf`` for m > K.

    Examples
    --------
    >>> import functools

import numpy as np
    >>> le = log_esp(np.log([1.0, 2.0, 3.0]), 3)
    >>> np.allclose(np.exp(le), [1, 6, 11, 6])
    True
    """
    s, one = _as_scores(s)
    n, K = s.shape
    if isinstance(max_order, bool) or int(max_order) != max_order or max_order < 0:
        raise ValueError(f"max_order must be an integer >= 0, got {max_order!r}.")
    M = int(max_order)
    Mk = min(M, K)
    # Only the last row is needed: run the recursion in place on (n, Mk + 1).
    cur = np.full((n, Mk + 1), -np.inf)
    cur[:, 0] = 0.0
    for j in range(K):
        if Mk > 0:
            cur[:, 1:] = np.logaddexp(cur[:, 1:], s[:, j, None] + cur[:, :-1])
    out = np.full((n, M + 1), -np.inf)
    out[:, : Mk + 1] = cur
    return out[0] if one else out


def log_partition(s, max_labels, *, min_labels=1):
    """Log partition function ``log Z = log Σ_{m=m₀}^{M} e_m(exp(s))`` (eq. (31)).

    Parameters
    ----------
    s : array-like, shape (n, K) or (K,)
        Label scores ``s_k = w_kᵀx + b_k``.
    max_labels : int >= 1
        M, the largest label-set size with positive probability (clipped at K).
    min_labels : {0, 1}
        m₀, the smallest set size: 0 adds the empty set (e_0 = 1) to Z.

    Returns
    -------
    log_Z : ndarray, shape (n,) or float
    """
    s, one = _as_scores(s)
    M = _check_order(max_labels, s.shape[1])
    m0 = _check_min(min_labels)
    le = log_esp(s, M)
    out = np.logaddexp.reduce(le[:, m0:], axis=1)
    return float(out[0]) if one else out


def esp_marginals(s, max_labels, *, min_labels=1, return_log_partition=False):
    """Marginal probabilities ``P(y_k = 1 | s) = ∂ log Z / ∂ s_k``.

    A set containing k factors as (prefix part of size a from labels < k),
    k itself, (suffix part of size b from labels > k) with a + 1 + b <= M, so

        P(y_k = 1) = exp(s_k - log Z) Σ_{a=0}^{M-1} exp(F_{k-1}[a] + R_{k+1}[M-1-a]),

    where ``F_j[a] = log e_a(prefix 1..j)`` (forward table) and
    ``R_j[r] = log Σ_{b<=r} e_b(suffix j..K)`` (backward table, "at most r
    more labels"), built by the same recursion run from the other end.
    O(K·M) per instance, vectorised over instances and run in chunks of
    instances (tables of at most :data:`CHUNK_BYTES`), so memory does not grow
    with n·K·M; every term is a sum of positive numbers in log space, so no
    cancellation occurs. A set containing k is never empty, so ``min_labels``
    enters only through log Z.

    Parameters
    ----------
    s : array-like, shape (n, K) or (K,)
    max_labels : int >= 1
    min_labels : {0, 1}
        0: the empty set is a label set too (Z includes e_0 = 1).
    return_log_partition : bool
        Also return ``log Z`` (computed from the same forward table).

    Returns
    -------
    marginals : ndarray, shape (n, K) or (K,)
        Entries in [0, 1]; each row sums to the expected set size E|y| ∈ [m₀, M].
    log_Z : ndarray, shape (n,) or float
        Only if ``return_log_partition``.

    References
    ----------
    Lee & Shajari, §3.4.2, eqs. (40)–(41) (the K = 2 case written out).
    """
    s, one = _as_scores(s)
    n, K = s.shape
    M = _check_order(max_labels, K)
    m0 = _check_min(min_labels)
    marg = np.empty((n, K))
    log_Z = np.empty(n)
    step = max(1, int(CHUNK_BYTES // (16 * (K + 1) * (M + 1))))
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        marg[lo:hi], log_Z[lo:hi] = _marginals_chunk(s[lo:hi], M, m0)
    if one:
        marg, log_Z = marg[0], float(log_Z[0])
    return (marg, log_Z) if return_log_partition else marg


#: A row is computed in linear space when Σ_k max(s_k, 0) + log Σ_{m<=M} C(K, m) stays below this
#: (so no table entry can overflow) and, for m₀ = 1, max_k s_k >= -LINEAR_LOG_BOUND (Z cannot underflow).
LINEAR_LOG_BOUND = 600.0


@functools.lru_cache(maxsize=64)
def _log_count(K, M):
    """log Σ_{m<=M} C(K, m): the number of label sets of size at most M."""
    from scipy.special import gammaln

    m = np.arange(min(M, K) + 1)
    lc = gammaln(K + 1) - gammaln(m + 1) - gammaln(K - m + 1)
    return float(lc.max() + np.log(np.exp(lc - lc.max()).sum()))


def _linear_rows(s, M, m0):
    """Rows whose DP can run on exp(s) directly without overflow or a vanishing Z.

    Every table entry (a prefix or suffix ``e_a``, an "at most r" sum, their products in the
    marginals, Z) is a sum of at most ``Σ_{m<=M} C(K, m)`` products of at most M of the ``z_k``,
    each <= ``exp(Σ_k max(s_k, 0))``. (The sum over all positive scores bounds that over the top
    M; it needs no partial sort, which cost 8 % of an evaluation at 159 labels.)
    """
    bound = np.maximum(s, 0.0).sum(axis=1) + _log_count(s.shape[1], M)
    ok = np.isfinite(bound) & (bound < LINEAR_LOG_BOUND)
    if m0 == 1:
        ok &= s.max(axis=1) >= -LINEAR_LOG_BOUND
    return ok


def _marginals_chunk(s, M, m0):
    """esp_marginals on one chunk of rows: (marginals (n, K), log Z (n,)).

    Rows selected by :func:`_linear_rows` (all rows with moderate scores) run
    the recursions on z = exp(s) in linear space (multiply-adds, ~20× faster
    than ``logaddexp``); every quantity is a sum of positive terms, entries
    that underflow are below 1e-308 while Z >= min(1, e^{-600}), so the
    result equals the log-space one to rounding (tested). Other rows use the
    log-space tables.
    """
    n, K = s.shape
    lin = _linear_rows(s, M, m0)
    marg = np.empty((n, K))
    log_Z = np.empty(n)
    if lin.all():
        return _marginals_linear(s, M, m0)
    if lin.any():
        marg[lin], log_Z[lin] = _marginals_linear(s[lin], M, m0)
    if (~lin).any():
        marg[~lin], log_Z[~lin] = _marginals_log(s[~lin], M, m0)
    return marg, log_Z


def _marginals_linear(s, M, m0):
    """Linear-space forward/backward ESP tables on z = exp(s); see :func:`_marginals_chunk`.

    Tables are laid out (K + 1, M + 1, n): every step of the recursions is a few
    elementwise operations on rows of n contiguous instances (long inner loops; with the
    set-size axis innermost they ran over only M + 1 elements, ~5x slower at M = 7). The
    backward table is kept one label at a time and contracted with the forward table
    as it is built.
    """
    n, K = s.shape
    z = np.ascontiguousarray(np.exp(s).T)  # (K, n)
    F = np.empty((K + 1, M + 1, n))
    F[:, 0] = 1.0
    F[0, 1:] = 0.0
    for j in range(K):
        np.multiply(z[j], F[j, :-1], out=F[j + 1, 1:])
        F[j + 1, 1:] += F[j, 1:]
    # backward "at most r more labels" table, one row at a time: inner[k] = sum_a F[k, a]
    # R[k + 1, M - 1 - a] is taken as soon as R[k + 1] exists, so R is never stored whole
    Z = F[K, m0:].sum(axis=0)
    inner = np.empty((K, n))
    R = np.ones((M, n))  # R[K]: empty suffix
    nxt = np.empty((M, n))
    nxt[0] = 1.0  # R[0] = 1 (only the empty set) in both buffers
    for j in range(K - 1, -1, -1):
        np.einsum("an,an->n", F[j, :M], R[::-1], out=inner[j])
        if j == 0:
            break
        if M > 1:
            np.multiply(z[j], R[:-1], out=nxt[1:])
            nxt[1:] += R[1:]
        R, nxt = nxt, R
    marg = (z * inner).T / Z[:, None]
    np.clip(marg, 0.0, 1.0, out=marg)
    return marg, np.log(Z)


def _marginals_log(s, M, m0):
    """Log-space forward/backward ESP tables (any scores, incl. ±inf-like magnitudes)."""
    n, K = s.shape
    F = _forward_tables(s, M)  # (n, K+1, M+1), exact counts
    log_Z = np.logaddexp.reduce(F[:, K, m0:], axis=1)
    # Backward "at most r" table, R[:, j, r] for suffix s[:, j:], r = 0..M-1.
    R = np.empty((n, K + 1, M))
    R[:, K, :] = 0.0  # empty suffix: only the empty set, e_0 = 1
    for j in range(K - 1, -1, -1):
        nxt = R[:, j + 1, :]
        cur = R[:, j, :]
        cur[:, 0] = 0.0
        if M > 1:
            np.logaddexp(nxt[:, 1:], s[:, j, None] + nxt[:, :-1], out=cur[:, 1:])
    # Σ_a F[k][a] * R[k+1][M-1-a], a = 0..M-1, for all k at once
    terms = F[:, :K, :M] + R[:, 1:, ::-1]
    marg = np.logaddexp.reduce(terms, axis=2)
    marg += s - log_Z[:, None]
    np.exp(marg, out=marg)
    np.clip(marg, 0.0, 1.0, out=marg)
    return marg, log_Z


def log_set_probability(s, Y, max_labels, *, min_labels=1):
    """Log-probability ``log P(y | s) = Σ_k y_k s_k - log Z`` of given label sets (eq. (30)).

    Sets outside the support (smaller than ``min_labels`` or larger than M) get ``-inf``.

    Parameters
    ----------
    s : array-like, shape (n, K)
    Y : array-like of {0, 1}, shape (n, K)
    max_labels : int >= 1

    Returns
    -------
    log_p : ndarray, shape (n,)
    """
    s, _ = _as_scores(s)
    Y = np.asarray(Y, dtype=np.float64).reshape(s.shape)
    size = Y.sum(axis=1)
    M = _check_order(max_labels, s.shape[1])
    m0 = _check_min(min_labels)
    with np.errstate(invalid="ignore"):
        lp = np.where(Y > 0, s, 0.0).sum(axis=1) - log_partition(s, M, min_labels=m0)
    lp[(size < m0) | (size > M)] = -np.inf
    return lp


def best_subset(s, max_labels, *, min_labels=1):
    """Winner-take-all: the most probable label set of size m₀..M (Appendix A.2).

    ``P(A | s) ∝ exp(Σ_{k∈A} s_k)``, so the best set of size m is the m
    largest scores, and the best size adds labels while their score is
    positive (eq. (61): adding label k multiplies the probability by
    ``exp(s_k)``).  Hence the answer is: every label with ``s_k > 0`` among the
    M largest, plus (``min_labels=1``) the top-scoring label even if its score
    is not positive; with ``min_labels=0`` the empty set wins when no score is
    positive.  Ties are broken towards the lower label index; a score of
    exactly 0 is not added.

    Parameters
    ----------
    s : array-like, shape (n, K) or (K,)
    max_labels : int >= 1
    min_labels : {0, 1}

    Returns
    -------
    Y : ndarray of uint8, shape (n, K) or (K,)
        Exactly one winning set per row (m₀ <= row sum <= M).
    """
    s, one = _as_scores(s)
    n, K = s.shape
    M = _check_order(max_labels, K)
    m0 = _check_min(min_labels)
    order = np.argsort(-s, axis=1, kind="stable")[:, :M]
    top = np.take_along_axis(s, order, axis=1)
    take = top > 0
    if m0 == 1:
        take[:, 0] = True
    Y = np.zeros((n, K), dtype=np.uint8)
    rows = np.repeat(np.arange(n), M).reshape(n, M)
    Y[rows[take], order[take]] = 1
    return Y[0] if one else Y
