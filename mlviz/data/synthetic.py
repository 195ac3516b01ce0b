"""Synthetic data: the rotated-boundary toy problem of ML-LSPC (paper 000, §6.1)."""

from __future__ import annotations

from numbers import Integral

import numpy as np

from .dataset import MultiLabelDataset

__all__ = ["make_rotated_toy", "rotated_toy_labels"]


def rotated_toy_labels(X, n_labels):
    """Labels of the rotated toy problem for given inputs.

    ``Y[n, t-1] = 1`` iff ``cos(2 pi t / T) x_{1,n} + sin(2 pi t / T) x_{2,n} > 0``
    for ``t = 1, ..., T`` (paper 000, §6.1; the paper's task index t runs
    from 1 to T, so label T has angle 2 pi, the same boundary as angle 0).

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_features >= 2)
    n_labels : int
        T.

    Returns
    -------
    Y : ndarray of uint8, shape (n_samples, n_labels)
    """
    t = np.arange(1, n_labels + 1)
    angle = 2.0 * np.pi * t / n_labels
    margin = np.outer(X[:, 0], np.cos(angle)) + np.outer(X[:, 1], np.sin(angle))
    return (margin > 0).astype(np.uint8)


def make_rotated_toy(n_samples=2000, n_features=300, n_labels=10, random_state=None):
    """The toy data set of Nam, Hachiya & Sugiyama (ML-LSPC paper, §6.1).

    ``x_n ~ N(0, I_D)`` and label ``t`` (t = 1..T) is positive where
    ``cos(2 pi t / T) x_1 + sin(2 pi t / T) x_2 > 0``: linear decision
    boundaries rotated in the plane of the first two features.  Labels with
    close angles are strongly correlated; each label is positive for about
    half of the instances.  The paper uses D = 300, N = 2000.

    Parameters
    ----------
    n_samples : int, default 2000
    n_features : int >= 2, default 300
    n_labels : int >= 1, default 10
    random_state : int, numpy Generator or None

    Returns
    -------
    MultiLabelDataset
        ``X`` (n_samples, n_features) float64, ``Y`` (n_samples, n_labels);
        features ``x1..xD``, labels ``t1..tT``.

    Examples
    --------
    >>> ds = make_rotated_toy(100, 5, 4, random_state=0)
    >>> ds.X.shape, ds.Y.shape
    ((100, 5), (100, 4))
    """
    for pname, value, low in (("n_samples", n_samples, 2), ("n_features", n_features, 2),
                              ("n_labels", n_labels, 1)):
        if not isinstance(value, Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"The '{pname}' parameter of make_rotated_toy must be an int "
                             f">= {low}, got {value!r}.")
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n_samples, n_features))
    Y = rotated_toy_labels(X, n_labels)
    return MultiLabelDataset(
        X, Y, [f"x{j}" for j in range(1, n_features + 1)],
        [f"t{t}" for t in range(1, n_labels + 1)], f"rotated-toy-T{n_labels}",
        [f"ML-LSPC toy (paper 000 §6.1): N={n_samples}, D={n_features}, T={n_labels}, "
         f"random_state={random_state}"],
    )
