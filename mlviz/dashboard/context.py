"""The dashboard's data context, without Streamlit: a data set, its one train/test split and its scaled features.

:func:`context_from_dataset` builds a :class:`DataContext` from any data set
(bundled or uploaded) with the one seeded split of mlviz (:func:`mlviz.data.split_indices`,
seed 0, 2/3 train) and the one scaling rule (:func:`mlviz.preprocessing.scale_split`,
fitted on the training rows). :func:`sample_context` does it for a bundled sample, on the
standard Mulan train/test files where they are bundled (emotions, enron, scene, yeast: the
split the published comparisons use, so every page's test numbers stand beside theirs), and
on the seeded split otherwise (medical). An uploaded file always gets the seeded split.
:mod:`mlviz.dashboard.state` caches these per server and draws the pickers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

UPLOAD_PREFIX = "upload:"
SPLIT_SEED = 0
TRAIN_FRACTION = 2 / 3
AUTO = "auto"  # scaling choice: mlviz.preprocessing.default_scaling of the training features

__all__ = ["AUTO", "DataContext", "SPLIT_SEED", "TRAIN_FRACTION", "UPLOAD_PREFIX", "context_from_dataset",
           "context_key", "sample_context", "split_rows", "standard_split_of"]


@dataclass
class DataContext:
    """A data set ready for the dashboard.

    Attributes
    ----------
    key : str
        Identifier used as the prefix of every cache key: the data set's id
        (``"emotions"`` or ``"upload:<name>:<sha256>"``), followed by
        ``"|scaling=<name>"`` when the scaling is not the data set's default
        (:func:`context_key`).
    dataset : mlviz.data.MultiLabelDataset
        The whole data set (train and test pooled), unscaled.
    X_train, X_test : ndarray or CSR of shape (n_train, d), (n_test, d)
        Scaled features (scaler fitted on the training split).
    Y_train, Y_test : ndarray of shape (n_train, L), (n_test, L), uint8
    scaling : str
        Key of :data:`mlviz.preprocessing.SCALINGS` applied to the features.
    data_key : str
        The data set's id alone (the value of the ``data`` URL parameter);
        ``key`` if empty.
    """

    key: str
    dataset: object
    X_train: object
    Y_train: np.ndarray
    X_test: object
    Y_test: np.ndarray
    notes: list = field(default_factory=list)
    scaling: str = "standard"
    data_key: str = ""

    @property
    def label_names(self):
        return list(self.dataset.label_names)

    @property
    def n_labels(self):
        return self.Y_train.shape[1]

    @property
    def name(self):
        return self.dataset.name

    @property
    def md_name(self):
        """The data set's name for markdown (titles, captions, messages): shortened, escaped."""
        from mlviz._text import escape_markdown, shorten

        return escape_markdown(shorten(self.dataset.name))


def context_key(data_key: str, scaling: str, default: str) -> str:
    """Cache-key prefix of a data set under a scaling: ``data_key`` for its default scaling,
    ``"<data_key>|scaling=<name>"`` otherwise (the default is a function of the data, so the
    bare id always means the same features)."""
    return data_key if scaling == default else f"{data_key}|scaling={scaling}"


def split_rows(n_samples):
    """``(train_idx, test_idx)`` of the dashboard's split: :func:`mlviz.data.split_indices` at
    :data:`TRAIN_FRACTION`, :data:`SPLIT_SEED`."""
    from mlviz.data import split_indices

    return split_indices(n_samples, TRAIN_FRACTION, SPLIT_SEED)


def standard_split_of(ctx) -> str | None:
    """The bundled sample whose standard train/test files ``ctx`` is split by (see
    :func:`sample_context`), or None (the seeded split)."""
    from mlviz.data.samples import STANDARD_SPLITS

    key = ctx.data_key or ctx.key  # (an upload's key is never a sample's name)
    return key if key in STANDARD_SPLITS else None


def _take(X, idx):
    return X[idx] if not sp.issparse(X) else X[idx, :]


def _context(key, full, X_train, Y_train, X_test, Y_test, scaling):
    from mlviz.preprocessing import default_scaling, resolve_scaling, scale_split

    used, default = resolve_scaling(scaling, X_train), default_scaling(X_train)
    Xtr, Xte = scale_split(X_train, X_test, used)
    return DataContext(context_key(key, used, default), full, Xtr, np.asarray(Y_train), Xte, np.asarray(Y_test),
                       scaling=used, data_key=key)


def context_from_dataset(key, dataset, scaling=AUTO):
    """A :class:`DataContext` for a data set (uploaded or bundled) under the one split.

    Raises
    ------
    mlviz.data.DataError
        Fewer than 3 instances.
    ValueError
        Unknown scaling, or ``"tfidf"`` on negative features.
    """
    if dataset.n_samples < 3:
        from mlviz.data import DataError

        raise DataError(
            f"{dataset.name}: need at least 3 instances for a train/test split, got {dataset.n_samples}."
        )
    tr, te = split_rows(dataset.n_samples)
    return _context(key, dataset, _take(dataset.X, tr), dataset.Y[tr], _take(dataset.X, te), dataset.Y[te], scaling)


def sample_context(name: str, scaling: str = AUTO) -> DataContext:
    """A bundled sample's :class:`DataContext`: its standard Mulan train and test files where they are
    bundled (emotions, enron, scene, yeast; the protocol of the published comparisons), else the one
    seeded split (:func:`mlviz.data.load_protocol_split`)."""
    from mlviz import data

    train, test = data.load_protocol_split(name)
    return _context(name, data.load_sample(name), train.X, train.Y, test.X, test.Y, scaling)
