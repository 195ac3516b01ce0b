"""Proximal operators used by :func:`mlviz.solvers.fista`.

The proximal operator of a convex function ``h`` with step ``t > 0`` is

.. math:: \\operatorname{prox}_{t h}(v) = \\arg\\min_u \\tfrac12 \\|u - v\\|^2 + t\\, h(u).

Each function here takes the point ``v`` and the threshold ``t`` (the step
times the regularisation weight, e.g. ``t = gamma / L`` in the sparse-CDN
paper) and returns a new array; inputs are never modified.

References
----------
Y. Guo and W. Xue, "Probabilistic multi-label classification with sparse
feature learning", IJCAI 2013, eqs. (11)-(16). Eq. (15) of the paper writes
the l1 step with the l1 norm of the whole column; the proximal operator of
``gamma * ||v||_1`` is *elementwise* soft-thresholding (implemented here).
Eq. (14) needs the positive part ``(.)_+`` (implemented here).
F. Bach, R. Jenatton, J. Mairal, G. Obozinski, "Convex optimization with
sparsity-inducing norms", 2011, section 3.
"""

import numpy as np

__all__ = ["prox_l1", "prox_group_l21", "prox_identity", "l1_norm", "group_l21_norm"]


def prox_l1(v, t):
    """Elementwise soft-thresholding, the prox of ``t * ||.||_1``.

    ``prox(v)_i = sign(v_i) * max(|v_i| - t_i, 0)`` (corrected eq. (15)).

    Parameters
    ----------
    v : ndarray of any shape
        Point at which the operator is evaluated.
    t : float or ndarray broadcastable to ``v.shape``, >= 0
        Threshold (step size times the l1 weight). An array allows
        per-entry weights, e.g. 0 on entries that are not penalised.

    Returns
    -------
    u : ndarray, same shape as ``v``

    Examples
    --------
    >>> prox_l1(np.array([-2.0, 0.5, 3.0]), 1.0)
    array([-1.,  0.,  2.])
    """
    v = np.asarray(v, dtype=float)
    return np.sign(v) * np.maximum(np.abs(v) - t, 0.0)


def prox_group_l21(W, t):
    """Row-wise group soft-thresholding, the prox of ``t * ||W||_{2,1}``.

    ``||W||_{2,1} = sum_j ||W_j:||_2`` (sum of the Euclidean norms of the
    rows). The prox scales each row by ``(1 - t / ||W_j:||)_+`` (eq. (14)
    with the positive part); rows with norm <= t become exactly zero.

    Parameters
    ----------
    W : ndarray, shape (d, K)
        Point at which the operator is evaluated (one group per row).
    t : float >= 0 or ndarray, shape (d,)
        Threshold (step size times the group weight ``mu``); an array gives
        one threshold per row (weighted group norm ``sum_j t_j ||W_j:||``).

    Returns
    -------
    U : ndarray, shape (d, K)

    Examples
    --------
    >>> prox_group_l21(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0)
    array([[2.4, 3.2],
           [0. , 0. ]])
    """
    W = np.asarray(W, dtype=float)
    if W.ndim == 1:
        W = W[:, None]
        squeeze = True
    else:
        squeeze = False
    norms = np.sqrt(np.einsum("ij,ij->i", W, W))
    t = np.broadcast_to(np.asarray(t, dtype=float), norms.shape)
    scale = np.zeros_like(norms)
    pos = norms > t
    scale[pos] = 1.0 - t[pos] / norms[pos]
    U = W * scale[:, None]
    return U[:, 0] if squeeze else U


def prox_identity(v, t=0.0):
    """Prox of the zero function (unpenalised block, e.g. the bias, eq. (16)).

    Parameters
    ----------
    v : ndarray of any shape
    t : float, ignored

    Returns
    -------
    u : ndarray, a copy of ``v``
    """
    return np.array(v, dtype=float, copy=True)


def l1_norm(v):
    """``sum_i |v_i|`` (the value matching :func:`prox_l1`)."""
    return float(np.abs(np.asarray(v, dtype=float)).sum())


def group_l21_norm(W):
    """``sum_j ||W_j:||_2`` (the value matching :func:`prox_group_l21`)."""
    W = np.asarray(W, dtype=float)
    if W.ndim == 1:
        return float(np.abs(W).sum())
    return float(np.sqrt(np.einsum("ij,ij->i", W, W)).sum())
