"""The :class:`MultiLabelDataset` container."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from mlviz._text import MAX_NAME_LENGTH, shorten

from ._errors import DataError
from ._validate import check_names


@dataclass
class MultiLabelDataset:
    """A multi-label data set: features, binary label matrix, names, provenance.

    Parameters
    ----------
    X : ndarray of float64 or scipy.sparse.csr_matrix, shape (n_samples, n_features)
        Feature matrix (finite values).  Sparse inputs are stored as CSR.
    Y : ndarray of uint8, shape (n_samples, n_labels)
        Label matrix with entries in {0, 1}.
    feature_names : list of str, length n_features
    label_names : list of str, length n_labels
    name : str
        Display name (e.g. ``"emotions"``).
    notes : list of str
        Provenance: which file it came from, columns dropped or one-hot
        encoded, how labels were chosen, ...

    Notes
    -----
    ``__post_init__`` coerces ``X`` to float64 (CSR if sparse) and ``Y`` to
    uint8 and checks shapes, finiteness and that ``Y`` is 0/1; violations raise
    :class:`~mlviz.data.DataError`.  Missing names default to ``x0, x1, ...``
    and ``y0, y1, ...``.

    Examples
    --------
    >>> import numpy as np
    >>> ds = MultiLabelDataset(np.zeros((3, 2)), np.array([[1, 0], [0, 1], [1, 1]]))
    >>> ds.n_samples, ds.n_features, ds.n_labels
    (3, 2, 2)
    """

    X: object
    Y: np.ndarray
    feature_names: list = field(default_factory=list)
    label_names: list = field(default_factory=list)
    name: str = "dataset"
    notes: list = field(default_factory=list)

    def __post_init__(self):
        if sp.issparse(self.X):
            if self.X.format in ("csr", "csc", "bsr"):
                try:  # index arrays from outside: validate before any compiled routine
                    self.X.check_format(full_check=True)
                except ValueError as exc:
                    raise DataError(f"inconsistent sparse X ({shorten(exc, 120)})",
                                    source=self.name) from None
            X = sp.csr_matrix(self.X, dtype=np.float64)
            values = X.data
        else:
            kind = getattr(getattr(self.X, "dtype", None), "kind", "f")
            if kind not in "biufO":
                raise DataError(f"features have dtype {self.X.dtype}; expected real numbers",
                                source=self.name)
            try:
                X = np.asarray(self.X, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise DataError(f"features must be numeric ({exc})", source=self.name) from None
            values = X
        if X.ndim != 2:
            raise DataError(f"X must be 2-D, got shape {X.shape}", source=self.name)
        if not np.all(np.isfinite(values)):
            raise DataError("features contain NaN or infinite values", source=self.name)
        Y = self.Y.toarray() if sp.issparse(self.Y) else np.asarray(self.Y)
        if Y.ndim != 2:
            raise DataError(f"Y must be 2-D, got shape {Y.shape}", source=self.name)
        if Y.shape[0] != X.shape[0]:
            raise DataError(
                f"X has {X.shape[0]} rows but Y has {Y.shape[0]}", source=self.name
            )
        if Y.size and not np.isin(Y, (0, 1)).all():
            raise DataError("label values must be 0 or 1", source=self.name)
        self.X = X
        self.Y = Y.astype(np.uint8, copy=False)
        self.feature_names = (
            [str(f) for f in self.feature_names]
            if len(self.feature_names)
            else [f"x{j}" for j in range(X.shape[1])]
        )
        self.label_names = (
            [str(f) for f in self.label_names]
            if len(self.label_names)
            else [f"y{k}" for k in range(Y.shape[1])]
        )
        if len(self.feature_names) != X.shape[1]:
            raise DataError(
                f"{len(self.feature_names)} feature names for {X.shape[1]} features",
                source=self.name,
            )
        if len(self.label_names) != Y.shape[1]:
            raise DataError(
                f"{len(self.label_names)} label names for {Y.shape[1]} labels", source=self.name
            )
        self.notes = list(self.notes)

    @property
    def n_samples(self) -> int:
        """Number of instances (rows)."""
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return self.X.shape[1]

    @property
    def n_labels(self) -> int:
        """Number of labels (columns of ``Y``)."""
        return self.Y.shape[1]

    @property
    def sparse(self) -> bool:
        """Whether ``X`` is a scipy.sparse CSR matrix."""
        return sp.issparse(self.X)

    def subset(self, rows, name=None, note=None):
        """Return a new data set holding the given rows (copies).

        Parameters
        ----------
        rows : array-like of int or bool, shape (m,) or (n_samples,)
        name : str, optional
            Name of the subset (default: the same name).
        note : str, optional
            Note appended to ``notes``.
        """
        rows = np.asarray(rows)
        notes = self.notes + ([note] if note else [])
        return MultiLabelDataset(
            self.X[rows].copy(), self.Y[rows].copy(), list(self.feature_names),
            list(self.label_names), name or self.name, notes,
        )

    def copy(self):
        """Deep copy (arrays and lists)."""
        return MultiLabelDataset(
            self.X.copy(), self.Y.copy(), list(self.feature_names), list(self.label_names),
            self.name, list(self.notes),
        )

    def __repr__(self):
        kind = "sparse CSR" if self.sparse else "dense"
        return (
            f"MultiLabelDataset(name={self.name!r}, n_samples={self.n_samples}, "
            f"n_features={self.n_features}, n_labels={self.n_labels}, X={kind})"
        )


def finish_dataset(X, Y, feature_names, label_names, name, notes, source):
    """Build a dataset after the checks every loader shares.

    Checks: at least 2 rows, at least 1 feature and 1 label; feature and
    label names at most :data:`mlviz._text.MAX_NAME_LENGTH` characters and
    unique (within features, within labels, and between the two).  The data
    set name is cut to ``MAX_NAME_LENGTH`` characters.
    """
    n = X.shape[0]
    if n == 0:
        raise DataError("no data rows; expected at least 2 instances", source=source)
    if n < 2:
        raise DataError(f"only {n} data row; need at least 2 instances", source=source)
    if Y.shape[1] == 0:
        raise DataError("no label columns found; expected at least one label", source=source)
    if X.shape[1] == 0:
        raise DataError(
            "no feature columns left (the label set selects every column); "
            "expected at least one feature",
            source=source,
        )
    feature_names = [str(v) for v in feature_names]
    label_names = [str(v) for v in label_names]
    check_names(feature_names, "feature", source)
    check_names(label_names, "label", source)
    both = set(feature_names).intersection(label_names)
    if both:
        raise DataError(f"{shorten(min(both))!r} names both a feature and a label; expected "
                        "distinct names", source=source)
    return MultiLabelDataset(X, Y, feature_names, label_names, shorten(name, MAX_NAME_LENGTH),
                             list(notes))
