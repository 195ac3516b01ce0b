"""Inference in a fitted conditional dependency network (Guo & Xue, IJCAI 2013, §3.2): label
marginals by Gibbs sampling (with a stated standard error over chains) and, for few labels, exactly
(the stationary distribution of the Gibbs chain). Private helpers of :mod:`mlviz.models.cdn`.
"""

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

__all__ = ["gibbs_marginals", "gibbs_marginals_se", "exact_marginals"]


def gibbs_marginals(linear, V, p_init, n_burn, n_samples, rng):
    """Label marginals of a conditional dependency network by Gibbs sampling.

    Systematic-scan Gibbs sampler, vectorised over instances: one sweep
    updates labels 0, ..., L-1 in turn from
    ``p(y_k = +1 | x, y_-k) = sigma(linear[:, k] + y @ V[:, k])`` (eq. (1)).
    Chains start from a draw of the label-independent probabilities
    ``p_init``. After ``n_burn`` sweeps, the next ``n_samples`` sweeps are
    averaged with the Rao-Blackwellised estimate (the mean of the
    conditional probabilities instead of the 0/1 draws; same expectation
    under the stationary distribution, lower variance).

    Parameters
    ----------
    linear : ndarray, shape (n, L)
        ``X W + b`` (the label-independent part of every logit).
    V : ndarray, shape (L, L)
        Label weights, zero diagonal; ``V[t, k]`` weighs label t (+-1) in label k.
    p_init : ndarray, shape (n, L)
        Probabilities used to draw the initial state.
    n_burn, n_samples : int
        Burn-in sweeps and collected sweeps (``n_samples >= 1``).
    rng : numpy.random.Generator

    Returns
    -------
    marginals : ndarray, shape (n, L)
        Estimates of P(y_k = 1 | x) under the sampler's stationary distribution.
    """
    n, L = linear.shape
    state = np.where(rng.random((n, L)) < p_init, 1.0, -1.0)
    children = [np.flatnonzero(V[k]) for k in range(L)]
    acc = np.zeros((n, L))
    for sweep in range(n_burn + n_samples):
        U = rng.random((n, L))
        # all logits, recomputed exactly once per sweep and then kept up to date:
        # when label k flips on some rows, only those rows' logits of k's children move.
        Z = linear + state @ V
        for k in range(L):
            p = expit(Z[:, k])
            new = np.where(U[:, k] < p, 1.0, -1.0)
            if children[k].size:
                flipped = np.flatnonzero(new != state[:, k])
                if flipped.size:
                    ch = children[k]
                    Z[np.ix_(flipped, ch)] += np.outer(new[flipped], 2.0 * V[k, ch])
            state[:, k] = new
            if sweep >= n_burn:
                acc[:, k] += p
    return acc / n_samples


# ---------------------------------------------------------------- exact inference
#: largest L whose stationary distribution is found by a dense linear solve first (2^L x 2^L
#: per instance, O(8^L), and building the kernel costs O(L 4^L)); above it power iteration on
#: the 2^L state vector (O(L 2^L) per sweep), which was ~10x faster at L = 8 (200 instances:
#: 0.4 s against 5 s to build the kernels + 1 s to solve), with the dense solve as the
#: fallback for slowly mixing instances.
_DIRECT_MAX_LABELS = 4
#: memory for one chunk of instances in the exact computations (bytes)
_CHUNK_BYTES = 64 * 2 ** 20
#: distributions per block of the power iteration (bytes): 1 MB kept 10 labels x 1,000
#: instances in cache-sized blocks, 0.34 s against 0.42 s for one block of all 1,000
_POWER_BLOCK_BYTES = 2 ** 20


def _label_states(L):
    """All 2^L label vectors, shape (2^L, L), 0/1; row index ``s = sum_t y_t 2^t``."""
    return ((np.arange(2 ** L)[:, None] >> np.arange(L)) & 1).astype(float)


def _conditional_table(linear, V, states):
    """``p_k(s) = sigma(linear_k + sum_t s_t V[t, k])`` for every state, shape (n, 2^L, L).

    ``V`` has a zero diagonal, so ``p_k(s)`` does not depend on bit k of s.
    """
    SV = (2.0 * states - 1.0) @ np.asarray(V, dtype=float)
    return expit(linear[:, None, :] + SV[None, :, :])


def _scan_update(pi, p1, k, L):
    """Apply the Gibbs update of label k to distributions over states (last axis of ``pi``).

    ``pi`` : (..., 2^L); ``p1`` : array broadcastable to ``pi`` with P(y_k = 1 | s_-k).
    New mass at ``s`` with bit k = 1 is ``(pi(s) + pi(s xor e_k)) p_k(s)``, with bit k = 0
    ``(...) (1 - p_k(s))``.
    """
    shape = pi.shape
    blocks = (2 ** (L - k - 1), 2, 2 ** k)
    v = pi.reshape(shape[:-1] + blocks)
    mass = v.sum(axis=-2)
    p = np.broadcast_to(p1, shape[:-1] + (2 ** L,)).reshape(shape[:-1] + blocks)[..., 0, :]
    return np.stack([mass * (1.0 - p), mass * p], axis=-2).reshape(shape)


def _sweep(pi, table, L):
    """One systematic scan (labels 0, ..., L-1): ``pi T_0 T_1 ... T_{L-1}``."""
    extra = pi.ndim - 2  # the state-matrix case has a row axis between instances and states
    for k in range(L):
        p1 = table[..., k]
        p1 = p1.reshape(p1.shape[:1] + (1,) * extra + p1.shape[1:])
        pi = _scan_update(pi, p1, k, L)
    return pi


def _stationary_direct(table, L):
    """Stationary distributions by a dense solve of ``pi (T - I) = 0, sum(pi) = 1``.

    The systematic-scan kernel ``T`` (rows: from-state) is built by sweeping the identity.
    All conditional probabilities are clipped to ``[1e-12, 1 - 1e-12]`` beforehand, so
    every entry of T is positive and the stationary distribution is unique.
    """
    n, S = table.shape[0], 2 ** L
    T = _sweep(np.broadcast_to(np.eye(S), (n, S, S)).copy(), table, L)
    A = np.swapaxes(T, 1, 2) - np.eye(S)
    A[:, -1, :] = 1.0
    rhs = np.zeros((n, S))
    rhs[:, -1] = 1.0
    pi = np.linalg.solve(A, rhs[..., None])[..., 0]
    return np.clip(pi, 0.0, None)


def _bit_tables(linear, V, L):
    """The conditionals of every label in the layout of :func:`_sweep_states_first`.

    ``p_k(s)`` does not depend on bit k of s (V has a zero diagonal), so only the 2^(L-1)
    states with bit k = 0 are stored. Entry ``[h, l * n + i]`` of table k is ``p_k`` of
    instance i at the state ``s = h 2^(k+1) + l`` (``h < 2^(L-k-1)``, ``l < 2^k``); values
    clipped to ``[1e-12, 1 - 1e-12]`` as in :func:`exact_marginals`.

    Returns
    -------
    tables : list of L ndarrays, table k of shape (2^(L-k-1), 2^k n)
    """
    n = linear.shape[0]
    SV = (2.0 * _label_states(L) - 1.0) @ np.asarray(V, dtype=float)  # (2^L, L)
    tables = []
    for k in range(L):
        sv0 = SV[:, k].reshape(2 ** (L - k - 1), 2, 2 ** k)[:, 0, :]
        t = expit(sv0[:, :, None] + linear[None, None, :, k])
        np.clip(t, 1e-12, 1.0 - 1e-12, out=t)
        tables.append(t.reshape(2 ** (L - k - 1), 2 ** k * n))
    return tables


def _sweep_states_first(pi, tables, L, mass):
    """One systematic scan in place on distributions stored states-first, ``pi`` (2^L, n).

    Same update as :func:`_scan_update` (new mass at bit k = 1 is ``(pi(s) + pi(s xor e_k))
    p_k(s)``, at bit k = 0 the rest of that sum), but with the instances as the contiguous
    last axis every operation runs over rows of at least n numbers, and nothing is
    allocated (``mass``: a buffer of 2^(L-1) n).
    """
    n = pi.shape[1]
    for k in range(L):
        v = pi.reshape(2 ** (L - k - 1), 2, 2 ** k * n)
        m = mass[: n * 2 ** (L - 1)].reshape(2 ** (L - k - 1), 2 ** k * n)
        np.add(v[:, 0], v[:, 1], out=m)
        np.multiply(m, tables[k], out=v[:, 1])
        np.subtract(m, v[:, 1], out=v[:, 0])


def _stationary_power(tables, L, pi0, tol, max_sweeps):
    """Power iteration ``pi <- pi T`` with a geometric-rate error estimate.

    Stops, per instance, when ``delta * rho / (1 - rho) <= tol`` where ``delta`` is the
    l1 change of the last sweep and ``rho`` (< 1) the ratio of the last two changes: the
    remaining distance of a geometrically converging sequence (an estimate, since rho is
    estimated; it bounds the marginals' error because marginals are 1-Lipschitz in l1).
    Each instance's distribution is taken at the sweep where its own rule first holds;
    the instances still running are packed together once a quarter of them have stopped.

    Parameters
    ----------
    tables : list
        :func:`_bit_tables` of the n instances.
    pi0 : ndarray, shape (2^L, n)
        Start distributions, one column per instance (states first).

    Returns
    -------
    pi : ndarray (2^L, n)
    err : ndarray (n,) error estimate (``inf`` where not converged within ``max_sweeps``)
    """
    S, n = pi0.shape
    out = np.empty((S, n))
    err = np.full(n, np.inf)
    active = np.arange(n)
    pi = np.array(pi0, dtype=float, order="C")
    old = np.empty_like(pi)
    mass = np.empty(S // 2 * n)
    prev = np.full(n, np.inf)
    stopped = np.zeros(n, dtype=bool)
    for _ in range(int(max_sweeps)):
        np.copyto(old, pi)
        _sweep_states_first(pi, tables, L, mass)
        np.subtract(old, pi, out=old)
        delta = np.abs(old, out=old).sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            rho = np.where(np.isfinite(prev), delta / np.maximum(prev, 1e-300), 1.0)
            est = np.where(rho < 0.999, delta * rho / np.maximum(1.0 - rho, 1e-300), np.inf)
        est = np.where(delta == 0.0, 0.0, est)
        prev = delta
        done = (est <= tol) & ~stopped
        if not done.any():
            continue
        err[active[done]] = est[done]
        out[:, active[done]] = pi[:, done]
        stopped |= done
        if stopped.all():
            return out, err
        if stopped.sum() >= max(1, stopped.size // 4):  # pack the running instances
            keep, m = ~stopped, active.size
            tables = [t.reshape(t.shape[0], -1, m)[:, :, keep].reshape(t.shape[0], -1) for t in tables]
            active, pi, prev = active[keep], np.ascontiguousarray(pi[:, keep]), prev[keep]
            old, stopped = np.empty_like(pi), np.zeros(active.size, dtype=bool)
    out[:, active[~stopped]] = pi[:, ~stopped]
    return out, err


def exact_marginals(linear, V, p_init, *, tol=1e-9, max_sweeps=5000):
    """Exact label marginals of the stationary distribution of the Gibbs sampler.

    The systematic-scan sampler of :func:`gibbs_marginals` is a Markov chain on the
    2^L label vectors; its one-sweep kernel is ``T = T_0 T_1 ... T_{L-1}``, ``T_k``
    resampling label k from eq. (1). Its stationary distribution ``pi`` (unique: every
    entry of T is positive) is what the sampler's averages converge to; the marginals
    are ``pi @ states``. For ``L <= 4`` ``pi`` comes from a dense linear solve
    (``O(8^L)`` per instance, exact to rounding); for larger L from power iteration on
    the state vector (``O(L 2^L)`` per sweep, vectorised over instances) started at the
    product distribution ``p_init``, stopped when the geometric-rate estimate of the
    remaining error is <= ``tol``; instances that do not reach it within
    ``max_sweeps`` sweeps (slow mixing) are solved densely. The power iteration runs on
    blocks of instances of ~1 MB of distributions (cache-sized; 128 instances at L = 10).

    Parameters
    ----------
    linear : ndarray, shape (n, L)
        ``X W + b``.
    V : ndarray, shape (L, L)
        Label weights with zero diagonal.
    p_init : ndarray, shape (n, L)
        Start of the power iteration (the label-independent model).
    tol : float
        Error target of the power iteration (l1 distance of distributions).
    max_sweeps : int

    Returns
    -------
    marginals : ndarray, shape (n, L)
    error : ndarray, shape (n,)
        0 where solved densely, else the power iteration's error estimate (an upper
        bound on every marginal's error if the convergence rate estimate holds).
    """
    n, L = linear.shape
    V = np.asarray(V, dtype=float)
    states = _label_states(L)
    S = 2 ** L
    direct = L <= _DIRECT_MAX_LABELS
    chunk = max(1, (_CHUNK_BYTES // (8 * S * S * 3)) if direct else (_POWER_BLOCK_BYTES // (8 * S)))
    out = np.empty((n, L))
    error = np.zeros(n)
    for start in range(0, n, chunk):
        sl = slice(start, min(n, start + chunk))
        if direct:
            table = np.clip(_conditional_table(linear[sl], V, states), 1e-12, 1.0 - 1e-12)
            pi = _stationary_direct(table, L)
        else:
            q = np.clip(p_init[sl], 1e-12, 1.0 - 1e-12)
            pi0 = np.exp(states @ np.log(q).T + (1.0 - states) @ np.log1p(-q).T)  # (S, rows)
            piT, err = _stationary_power(_bit_tables(linear[sl], V, L), L, pi0, tol, max_sweeps)
            pi = piT.T.copy()
            for i in np.flatnonzero(~np.isfinite(err)):  # slow mixing: one dense solve each
                row = linear[sl][i:i + 1]
                table = np.clip(_conditional_table(row, V, states), 1e-12, 1.0 - 1e-12)
                pi[i] = _stationary_direct(table, L)[0]
                err[i] = 0.0
            error[sl] = err
        pi /= pi.sum(axis=1, keepdims=True)
        out[sl] = pi @ states
    return np.clip(out, 0.0, 1.0), error


# ---------------------------------------------------------------- Gibbs with a stated error
def _gibbs_sweeps(state, linear, V, children, n_sweeps, rng, acc):
    """Run ``n_sweeps`` systematic sweeps in place; add the Rao-Blackwellised conditionals
    to ``acc`` (if not None).

    ``state`` and ``acc`` are Fortran-ordered (one contiguous column per label). The
    logits ``Z = linear + state V`` are computed once per call and then kept up to date:
    when label k is redrawn, only its children's logit columns move, so a sweep costs
    O(rows * (L + nnz(V))) (V dense or scipy.sparse).
    """
    rows, L = state.shape
    if n_sweeps <= 0:
        return
    Z = np.asfortranarray(linear + np.asarray(state @ V))
    for _ in range(int(n_sweeps)):
        U = rng.random((L, rows))
        for k in range(L):
            p = expit(Z[:, k])
            new = np.where(U[k] < p, 1.0, -1.0)
            ch, w = children[k]
            if ch.size:
                delta = new - state[:, k]  # 0 or +-2
                for c, wc in zip(ch, w):  # contiguous columns (Fortran order)
                    Z[:, c] += wc * delta
            state[:, k] = new
            if acc is not None:
                acc[:, k] += p


def _children(V):
    """Per label k: (indices t with V[k, t] != 0, those weights)."""
    if sp.issparse(V):
        V = V.tocsr()
        return [(V.indices[V.indptr[k]:V.indptr[k + 1]], V.data[V.indptr[k]:V.indptr[k + 1]])
                for k in range(V.shape[0])]
    return [(np.flatnonzero(V[k]), V[k, np.flatnonzero(V[k])]) for k in range(V.shape[0])]


def gibbs_marginals_se(linear, V, p_init, *, n_chains, n_burn, min_sweeps, max_sweeps, se_target,
                       rng):
    """Label marginals by several Gibbs chains per instance, run until a stated standard error.

    Each instance gets ``n_chains`` independent chains (started from draws of
    ``p_init``). After ``n_burn`` sweeps, every chain accumulates the
    Rao-Blackwellised estimate (mean of the conditional probabilities). At
    checkpoints (``min_sweeps`` collected sweeps, then doubling up to
    ``max_sweeps``) the estimate is the mean of the chain means and its Monte-Carlo
    standard error ``std(chain means, ddof=1) / sqrt(n_chains)``: the chains are
    independent, so this is valid whatever the autocorrelation within a chain
    (after burn-in). Instances whose largest SE over labels is <= ``se_target``
    stop; the rest continue.

    Returns
    -------
    marginals : ndarray, shape (n, L)
    se : ndarray, shape (n, L)
        Monte-Carlo standard errors.
    sweeps : ndarray of int, shape (n,)
        Collected sweeps per chain for each instance.
    """
    n, L = linear.shape
    C = int(n_chains)
    children = _children(V)
    out = np.empty((n, L))
    se = np.empty((n, L))
    sweeps = np.zeros(n, dtype=int)
    lin = np.repeat(linear, C, axis=0)
    state = np.asfortranarray(np.where(rng.random((n * C, L)) < np.repeat(p_init, C, axis=0), 1.0, -1.0))
    _gibbs_sweeps(state, lin, V, children, n_burn, rng, None)
    acc = np.zeros((n * C, L), order="F")
    active = np.arange(n)
    done_sweeps, target = 0, max(1, int(min_sweeps))
    while True:
        _gibbs_sweeps(state, lin, V, children, target - done_sweeps, rng, acc)
        done_sweeps = target
        means = (acc / done_sweeps).reshape(active.size, C, L)
        est = means.mean(axis=1)
        err = means.std(axis=1, ddof=1) / np.sqrt(C) if C > 1 else np.full_like(est, np.inf)
        finished = err.max(axis=1) <= se_target
        if done_sweeps >= max_sweeps:
            finished[:] = True
        idx = active[finished]
        out[idx], se[idx], sweeps[idx] = est[finished], err[finished], done_sweeps
        keep = np.repeat(~finished, C)
        active = active[~finished]
        if active.size == 0:
            return out, se, sweeps
        state, lin, acc = (np.asfortranarray(a[keep]) for a in (state, lin, acc))
        target = min(int(max_sweeps), 2 * done_sweeps)


def _inference_seed(random_state):
    """An int seed for the sampler: the int itself, a draw from a Generator, or fresh entropy."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2 ** 63))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2 ** 31))
    return int(np.random.SeedSequence().generate_state(2, dtype=np.uint32).view(np.uint64)[0] >> 1)
