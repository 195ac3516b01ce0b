"""Gaussian kernel features shared by LSPC, KLR and the RBF variant of MLRH.

k(x, c) = exp(-||x - c||² / (2σ²)); the default σ is the median pairwise
distance of the training inputs (computed on a random subsample of at most
``max_samples`` rows, under ``random_state``, so it stays cheap at large n).

**Kernel centres at scale.** The kernel model uses every training point as a
centre (B = N, an N × N matrix). Simm et al. (§2, "b basis functions") and
Nam et al. (§2, φ_b(x) = K(x, x_b) for b = 1..B) allow any B ≤ N; with B
landmark points the design matrix Φ is N × B and every model in
:mod:`mlviz.models.lspc` / :mod:`mlviz.models.klr` needs O(N·B) memory.
:func:`resolve_n_centers` implements the documented rule ``n_centers="auto"``:
all N points while N ≤ :data:`AUTO_MAX_CENTERS` (exact kernel model), else
``AUTO_MAX_CENTERS`` landmarks. :func:`select_centers` picks them uniformly at
random without replacement (the standard Nyström / subset-of-regressors choice:
Williams & Seeger, NIPS 2001; Kumar, Mohri & Talwalkar, JMLR 13, 2012, found
uniform sampling competitive with non-uniform schemes) or by k-means++ seeding
(Arthur & Vassilvitskii, SODA 2007; :func:`sklearn.cluster.kmeans_plusplus`),
which spreads the centres over the data at O(N·B·d·log B) extra cost. Both
return training rows, so B = N reproduces the exact kernel model.
"""

import numpy as np
from sklearn.cluster import kmeans_plusplus
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils import check_random_state

#: ``n_centers="auto"``: exact kernel model (B = N) up to this many training points,
#: this many landmark centres above (Φ is then N × AUTO_MAX_CENTERS, 16 kB per row).
AUTO_MAX_CENTERS = 2000

#: centre-selection methods accepted by :func:`select_centers`
CENTER_SELECTIONS = ("random", "kmeans++")


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


def resolve_n_centers(n, n_centers="auto", *, auto_max=None):
    """Number of kernel centres B for ``n`` training points.

    Parameters
    ----------
    n : int
        Training points.
    n_centers : "auto", None or int >= 1
        "auto": ``min(n, auto_max)``; None: all n points (exact kernel model);
        int: ``min(n, n_centers)``.
    auto_max : int, optional
        Defaults to :data:`AUTO_MAX_CENTERS`.

    Returns
    -------
    b : int
        1 <= b <= n.
    """
    if auto_max is None:
        auto_max = AUTO_MAX_CENTERS
    if n_centers is None:
        return int(n)
    if isinstance(n_centers, str):
        return int(min(n, auto_max))
    return int(min(n, n_centers))


def select_centers(X, b, *, method="random", random_state=None):
    """Choose ``b`` distinct training rows as kernel centres.

    Parameters
    ----------
    X : ndarray or csr_matrix, shape (n, d)
    b : int, 1 <= b <= n
        ``b == n`` returns all rows in their original order (exact kernel model).
    method : {"random", "kmeans++"}
        "random": uniform without replacement; "kmeans++": k-means++ seeding
        (:func:`sklearn.cluster.kmeans_plusplus`; distinct rows unless X has
        duplicate rows).
    random_state : int, RandomState or None

    Returns
    -------
    centers : ndarray or csr_matrix, shape (b, d)
    center_index : ndarray of int, shape (b,)
        Sorted row indices into X.
    """
    n = X.shape[0]
    if b >= n:
        return X, np.arange(n)
    rng = check_random_state(random_state)
    if method == "kmeans++":
        _, idx = kmeans_plusplus(X, int(b), random_state=rng)
        idx = np.unique(idx)
        if idx.shape[0] < b:  # duplicate rows: top up at random from the rest
            rest = np.setdiff1d(np.arange(n), idx)
            idx = np.sort(np.concatenate([idx, rng.choice(rest, b - idx.shape[0], replace=False)]))
    elif method == "random":
        idx = np.sort(rng.choice(n, int(b), replace=False))
    else:
        raise ValueError(f"Unknown centre selection {method!r}; expected one of {CENTER_SELECTIONS}.")
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


