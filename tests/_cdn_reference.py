"""Brute-force references for the CDN tests (independent of the library): the systematic-scan
Gibbs kernel written out over all 2^L ±1 states, and its stationary marginals.

Used by test_cdn.py (the chain's exact marginals) and test_linked.py (the chain with one label
held fixed: the linked views' edge effects).
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import expit


def gibbs_kernel(lin, V, clamp=None):
    """The systematic-scan kernel over all 2^L ±1 states, written out state by state.

    Parameters
    ----------
    lin : ndarray of shape (L,)
        The instance's linear scores.
    V : ndarray of shape (L, L)
        Label weights (``V[t, k]``: label t's weight in label k's conditional).
    clamp : tuple (a, value) or None
        Hold label ``a`` at ``value`` (0 or 1) instead of resampling it.

    Returns
    -------
    T : ndarray of shape (2^L, 2^L)
        Row-stochastic transition matrix of one full scan.
    states : ndarray of shape (2^L, L)
        The ±1 states in the order of T's rows.
    """
    L = len(lin)
    states = np.array(list(itertools.product([-1.0, 1.0], repeat=L)))
    index = {tuple(s): i for i, s in enumerate(states)}
    T = np.eye(len(states))
    for k in range(L):
        Tk = np.zeros_like(T)
        for i, s in enumerate(states):
            if clamp is not None and k == clamp[0]:
                s2 = s.copy()
                s2[k] = 2.0 * clamp[1] - 1.0
                Tk[i, index[tuple(s2)]] = 1.0
                continue
            p = expit(lin[k] + sum(s[t] * V[t, k] for t in range(L) if t != k))
            for val, pr in ((1.0, p), (-1.0, 1 - p)):
                s2 = s.copy()
                s2[k] = val
                Tk[i, index[tuple(s2)]] += pr
        T = T @ Tk
    return T, states


def stationary_marginals(lin, V, clamp=None):
    """P(y_k = 1) under the stationary distribution of :func:`gibbs_kernel` (the eigenvector of
    eigenvalue 1), shape (L,)."""
    T, states = gibbs_kernel(lin, V, clamp)
    w, vecs = np.linalg.eig(T.T)
    pi = np.real(vecs[:, np.argmin(np.abs(w - 1))])
    pi /= pi.sum()
    return pi @ (states > 0)
