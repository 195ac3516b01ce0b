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
* co-occurrence: ``Y^T Y`` (L x L counts; diagonal = label frequency).

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

__all__ = ["describe", "describe_frame", "DESCRIBE_KEYS"]

DESCRIBE_KEYS = [
    "name", "n_samples", "n_features", "n_labels", "sparse", "feature_density",
    "cardinality", "density", "n_labelsets", "n_empty", "n_absent_labels",
    "label_frequency", "irlbl", "mean_ir", "max_ir", "scumble", "cooccurrence",
]

_DISPLAY = [
    ("name", "name"), ("n_samples", "instances"), ("n_features", "features"),
    ("n_labels", "labels"), ("sparse", "sparse features"),
    ("feature_density", "fraction of non-zero features"),
    ("cardinality", "label cardinality"), ("density", "label density"),
    ("n_labelsets", "distinct label sets"), ("n_empty", "instances with no label"),
    ("n_absent_labels", "labels with no positive"), ("mean_ir", "MeanIR"),
    ("max_ir", "MaxIR"), ("scumble", "SCUMBLE"),
]


def imbalance(Y):
    """IRLbl per label, MeanIR, MaxIR and SCUMBLE of a 0/1 matrix.

    Parameters
    ----------
    Y : ndarray, shape (n_samples, n_labels)

    Returns
    -------
    irlbl : ndarray, shape (n_labels,)
    mean_ir, max_ir, scumble : float
    """
    Y = np.asarray(Y, dtype=np.float64)
    counts = Y.sum(axis=0)
    present = counts > 0
    if not present.any():
        return np.ones(Y.shape[1]), 1.0, 1.0, 0.0
    irlbl = counts.max() / np.maximum(counts, 1.0)
    mean_ir = float(irlbl[present].mean())
    max_ir = float(irlbl[present].max())
    sizes = Y.sum(axis=1)
    labelled = sizes > 0
    log_geo = (Y[labelled] @ np.log(irlbl)) / sizes[labelled]
    arith = (Y[labelled] @ irlbl) / sizes[labelled]
    per_instance = np.zeros(Y.shape[0])
    per_instance[labelled] = 1.0 - np.exp(log_geo) / arith
    return irlbl, mean_ir, max_ir, float(per_instance.mean())


def describe(dataset) -> dict:
    """Statistics of a multi-label data set (definitions in the module docstring).

    Parameters
    ----------
    dataset : MultiLabelDataset

    Returns
    -------
    dict
        Keys ``DESCRIBE_KEYS``: ``name`` (str), ``n_samples``, ``n_features``,
        ``n_labels`` (int), ``sparse`` (bool), ``feature_density`` (fraction
        of non-zero entries of X), ``cardinality``, ``density`` (float),
        ``n_labelsets``, ``n_empty``, ``n_absent_labels`` (int),
        ``label_frequency`` (pandas Series name -> count, int), ``irlbl``
        (Series name -> IRLbl, float), ``mean_ir``, ``max_ir``, ``scumble``
        (float), ``cooccurrence`` (DataFrame L x L of counts).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.data import MultiLabelDataset
    >>> ds = MultiLabelDataset(np.zeros((2, 1)), np.array([[1, 0], [1, 1]]))
    >>> describe(ds)["cardinality"]
    1.5
    """
    Y = np.asarray(dataset.Y)
    n, L = Y.shape
    names = list(dataset.label_names)
    counts = Y.sum(axis=0).astype(np.int64)
    irlbl, mean_ir, max_ir, scumble = imbalance(Y)
    sizes = Y.sum(axis=1)
    X = dataset.X
    nnz = X.count_nonzero() if sp.issparse(X) else int(np.count_nonzero(X))
    cooc = Y.T.astype(np.int64) @ Y.astype(np.int64)
    return {
        "name": dataset.name,
        "n_samples": int(n),
        "n_features": int(X.shape[1]),
        "n_labels": int(L),
        "sparse": bool(sp.issparse(X)),
        "feature_density": float(nnz / max(X.shape[0] * X.shape[1], 1)),
        "cardinality": float(sizes.mean()) if n else 0.0,
        "density": float(sizes.mean() / L) if n and L else 0.0,
        "n_labelsets": int(len(np.unique(Y, axis=0))) if n else 0,
        "n_empty": int((sizes == 0).sum()),
        "n_absent_labels": int((counts == 0).sum()),
        "label_frequency": pd.Series(counts, index=names, name="positives"),
        "irlbl": pd.Series(irlbl, index=names, name="IRLbl"),
        "mean_ir": mean_ir,
        "max_ir": max_ir,
        "scumble": scumble,
        "cooccurrence": pd.DataFrame(cooc, index=names, columns=names),
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
