"""Statistics that describe a multi-label data set.

Definitions (n instances, L labels, ``Y`` the n x L 0/1 matrix, ``c_l`` the
number of positives of label l):

* cardinality ``= (1/n) sum_i |Y_i|``; density ``= cardinality / L``.
* n_labelsets: number of distinct rows of ``Y``; n_empty: rows with no label.
* IRLbl (Charte et al. 2015): ``IRLbl(l) = max_l' c_l' / c_l``; MeanIR and
  MaxIR are the mean and maximum of IRLbl over labels.
* SCUMBLE (Charte et al. 2014): for instance i with label set ``Y_i`` (non
  empty), ``SCUMBLE_i = 1 - (prod_{l in Y_i} IRLbl(l))^{1/|Y_i|} / mean_{l in Y_i}
  IRLbl(l)`` (1 minus geometric over arithmetic mean of the IRLbl of its
  labels); ``SCUMBLE_i = 0`` for an empty label set; SCUMBLE is the mean of
  ``SCUMBLE_i`` over all n instances (as in Mulan's ``ImbalanceMetrics``).
* co-occurrence: ``Y^T Y`` (L x L counts; diagonal = label frequency). With
  more than :data:`COOCCURRENCE_MAX_LABELS` labels, only the block of the
  :data:`COOCCURRENCE_MAX_LABELS` most frequent labels (the ones a heat map or
  graph can show), in their original order; ``cooccurrence_labels`` says which.

Cost: O(nnz(Y) + L) time and memory for every statistic (Y is handled as a
sparse matrix; products are float64 sparse products, exact for counts below
2^53), plus O(sum_i |Y_i|^2) for the co-occurrence block -- never an n x L
float copy or an int64 dense matrix product (numpy has no BLAS for integer
matmul: 234 s on a 16k x 983 label matrix).

Labels with no positives: IRLbl is infinite by definition.  Convention
(finite, never NaN): such labels get ``IRLbl = max_l' c_l'`` (their count is
floored at 1), they are **excluded** from MeanIR and MaxIR (as Mulan does) and
counted in ``n_absent_labels``.  If no label has a positive, MeanIR = MaxIR =
1 and SCUMBLE = 0.

References
----------
F. Charte, A. Rivera, M. J. del Jesus, F. Herrera.  Concurrence among
imbalanced labels and its influence on multilabel resampling algorithms.
HAIS 2014 (SCUMBLE).  Addressing imbalance in multilabel classification:
measures and random resampling algorithms.  Neurocomputing 163, 2015 (IRLbl, MeanIR).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

__all__ = ["describe", "describe_frame", "DESCRIBE_KEYS", "COOCCURRENCE_MAX_LABELS", "imbalance",
           "count_labelsets", "cooccurrence_block"]

DESCRIBE_KEYS = [
    "name", "n_samples", "n_features", "n_labels", "sparse", "feature_density",
    "cardinality", "density", "n_labelsets", "n_empty", "n_absent_labels",
    "label_frequency", "irlbl", "mean_ir", "max_ir", "scumble", "cooccurrence",
    "cooccurrence_labels",
]

COOCCURRENCE_MAX_LABELS = 200
"""Largest label count whose full co-occurrence matrix :func:`describe` returns."""

_DISPLAY = [
    ("name", "name"), ("n_samples", "instances"), ("n_features", "features"),
    ("n_labels", "labels"), ("sparse", "sparse features"),
    ("feature_density", "fraction of non-zero features"),
    ("cardinality", "label cardinality"), ("density", "label density"),
    ("n_labelsets", "distinct label sets"), ("n_empty", "instances with no label"),
    ("n_absent_labels", "labels with no positive"), ("mean_ir", "MeanIR"),
    ("max_ir", "MaxIR"), ("scumble", "SCUMBLE"),
]


def _sparse_labels(Y):
    """Y as a CSR float64 0/1 matrix (no dense float copy)."""
    if sp.issparse(Y):
        return sp.csr_matrix(Y, dtype=np.float64)
    return sp.csr_matrix(np.asarray(Y) != 0, dtype=np.float64)


def imbalance(Y):
    """IRLbl per label, MeanIR, MaxIR and SCUMBLE of a 0/1 matrix, in O(nnz).

    Parameters
    ----------
    Y : ndarray or sparse matrix, shape (n_samples, n_labels)

    Returns
    -------
    irlbl : ndarray, shape (n_labels,)
    mean_ir, max_ir, scumble : float
    """
    Ys = _sparse_labels(Y)
    return _imbalance(Ys, np.asarray(Ys.sum(axis=0)).ravel(), np.asarray(Ys.sum(axis=1)).ravel())


def _imbalance(Ys, counts, sizes):
    present = counts > 0
    if not present.any():
        return np.ones(Ys.shape[1]), 1.0, 1.0, 0.0
    irlbl = counts.max() / np.maximum(counts, 1.0)
    mean_ir = float(irlbl[present].mean())
    max_ir = float(irlbl[present].max())
    labelled = sizes > 0
    log_geo = (Ys @ np.log(irlbl))[labelled] / sizes[labelled]
    arith = (Ys @ irlbl)[labelled] / sizes[labelled]
    per_instance = np.zeros(Ys.shape[0])
    per_instance[labelled] = 1.0 - np.exp(log_geo) / arith
    return irlbl, mean_ir, max_ir, float(per_instance.mean())


def count_labelsets(Ys):
    """Number of distinct rows of a CSR 0/1 matrix, hashing each row's sorted column indices.

    O(nnz) (one pass over the rows' index arrays); exact (rows are compared by
    their index bytes, not by a lossy hash).
    """
    Ys = Ys.tocsr()
    Ys.sort_indices()
    idx = Ys.indices.astype(np.int32, copy=False)
    bounds = Ys.indptr
    return len({idx[bounds[i]:bounds[i + 1]].tobytes() for i in range(Ys.shape[0])})


def cooccurrence_block(Ys, counts, max_labels=COOCCURRENCE_MAX_LABELS):
    """``Y^T Y`` restricted to at most ``max_labels`` most frequent labels.

    Parameters
    ----------
    Ys : CSR matrix, shape (n_samples, n_labels), float64 0/1
    counts : ndarray, shape (n_labels,)
    max_labels : int

    Returns
    -------
    C : ndarray of int64, shape (k, k)
        Counts (k = min(L, max_labels)); the diagonal holds the frequencies.
    labels : ndarray of int, shape (k,)
        Column indices of the kept labels, increasing (original order); the k
        most frequent, ties broken by the lower index.
    """
    L = Ys.shape[1]
    if L <= max_labels:
        keep = np.arange(L)
    else:
        keep = np.sort(np.argsort(-counts, kind="stable")[:max_labels])
    block = Ys[:, keep].tocsc()
    C = (block.T @ block).toarray()
    return np.rint(C).astype(np.int64), keep


def describe(dataset, *, max_cooccurrence_labels=COOCCURRENCE_MAX_LABELS) -> dict:
    """Statistics of a multi-label data set (definitions in the module docstring).

    Parameters
    ----------
    dataset : MultiLabelDataset
    max_cooccurrence_labels : int
        Above this many labels, ``cooccurrence`` holds only the block of the
        most frequent ones (module docstring).

    Returns
    -------
    dict
        Keys ``DESCRIBE_KEYS``: ``name`` (str), ``n_samples``, ``n_features``,
        ``n_labels`` (int), ``sparse`` (bool), ``feature_density`` (fraction
        of non-zero entries of X), ``cardinality``, ``density`` (float),
        ``n_labelsets``, ``n_empty``, ``n_absent_labels`` (int),
        ``label_frequency`` (pandas Series name -> count, int), ``irlbl``
        (Series name -> IRLbl, float), ``mean_ir``, ``max_ir``, ``scumble``
        (float), ``cooccurrence`` (DataFrame k x k of counts, k =
        min(L, ``max_cooccurrence_labels``)), ``cooccurrence_labels`` (list
        of the k label names in it).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.data import MultiLabelDataset
    >>> ds = MultiLabelDataset(np.zeros((2, 1)), np.array([[1, 0], [1, 1]]))
    >>> describe(ds)["cardinality"]
    1.5
    """
    Ys = _sparse_labels(dataset.Y)
    n, L = Ys.shape
    names = list(dataset.label_names)
    counts = np.asarray(Ys.sum(axis=0)).ravel()
    sizes = np.diff(Ys.indptr).astype(np.float64)
    irlbl, mean_ir, max_ir, scumble = _imbalance(Ys, counts, sizes)
    X = dataset.X
    nnz = X.count_nonzero() if sp.issparse(X) else int(np.count_nonzero(X))
    cooc, keep = cooccurrence_block(Ys, counts, max_cooccurrence_labels)
    shown = [names[k] for k in keep]
    return {
        "name": dataset.name,
        "n_samples": int(n),
        "n_features": int(X.shape[1]),
        "n_labels": int(L),
        "sparse": bool(sp.issparse(X)),
        "feature_density": float(nnz / max(X.shape[0] * X.shape[1], 1)),
        "cardinality": float(sizes.mean()) if n else 0.0,
        "density": float(sizes.mean() / L) if n and L else 0.0,
        "n_labelsets": count_labelsets(Ys) if n else 0,
        "n_empty": int((sizes == 0).sum()),
        "n_absent_labels": int((counts == 0).sum()),
        "label_frequency": pd.Series(np.rint(counts).astype(np.int64), index=names, name="positives"),
        "irlbl": pd.Series(irlbl, index=names, name="IRLbl"),
        "mean_ir": mean_ir,
        "max_ir": max_ir,
        "scumble": scumble,
        "cooccurrence": pd.DataFrame(cooc, index=shown, columns=shown),
        "cooccurrence_labels": shown,
    }


def _format(value):
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}"
    return str(value)


def describe_frame(stats: dict) -> pd.DataFrame:
    """The scalar statistics of :func:`describe` as a two-column table.

    Parameters
    ----------
    stats : dict
        Output of :func:`describe`.

    Returns
    -------
    pandas.DataFrame
        Columns ``statistic`` (readable name) and ``value`` (formatted
        string, so Streamlit/Arrow sees one dtype); one row per scalar
        statistic present, in a fixed order.
    """
    rows = [(label, _format(stats[key])) for key, label in _DISPLAY if key in stats]
    return pd.DataFrame(rows, columns=["statistic", "value"])
