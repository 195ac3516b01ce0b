"""Gaussian kernel features shared by LSPC, KLR and the RBF variant of MLRH.

k(x, c) = exp(-||x - c||² / (2σ²)); the default σ is the median pairwise
distance of the training inputs (computed on a random subsample of at most
``max_samples`` rows, under ``random_state``, so it stays cheap at large n).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils import check_random_state


def squared_distances(X, C):
    """Squared Euclidean distances, clipped at 0.

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (n, d)
    C : ndarray or csr_matrix, shape (b, d)

    Returns
    -------
    D2 : ndarray, shape (n, b)
    """
    D2 = euclidean_distances(X, C, squared=True)
    np.maximum(D2, 0.0, out=D2)
    return D2


def median_sigma(X, *, max_samples=1000, random_state=None):
    """Median pairwise Euclidean distance between distinct rows of ``X``.

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (n, d)
    max_samples : int
        Rows used at most (a random subset drawn with ``random_state``).

    Returns
    -------
    sigma : float
        Positive; falls back to 1.0 when all rows coincide.
    """
    n = X.shape[0]
    if n > max_samples:
        rng = check_random_state(random_state)
        idx = np.sort(rng.choice(n, max_samples, replace=False))
        X = X[idx]
    D2 = squared_distances(X, X)
    iu = np.triu_indices(D2.shape[0], k=1)
    d = np.sqrt(D2[iu])
    d = d[d > 0]
    if d.size == 0:
        return 1.0
    return float(np.median(d))


def choose_centers(X, n_centers=None, *, random_state=None):
    """Kernel centres: all rows of X, or ``n_centers`` random distinct rows.

    Returns
    -------
    centers : ndarray or csr_matrix, shape (b, d)
    center_index : ndarray of int, shape (b,)
    """
    n = X.shape[0]
    if n_centers is None or n_centers >= n:
        return X, np.arange(n)
    rng = check_random_state(random_state)
    idx = np.sort(rng.choice(n, int(n_centers), replace=False))
    return X[idx], idx


def gaussian_kernel(X, C, sigma):
    """Gaussian kernel matrix K[i, j] = exp(-||x_i - c_j||² / (2σ²)).

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (n, d)
    C : ndarray or csr_matrix, shape (b, d)
    sigma : float > 0

    Returns
    -------
    K : ndarray, shape (n, b)
    """
    K = squared_distances(X, C)
    K *= -1.0 / (2.0 * sigma * sigma)
    np.exp(K, out=K)
    return K


def is_sparse(X):
    return sp.issparse(X)
