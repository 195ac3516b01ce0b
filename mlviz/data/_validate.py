"""Checks on everything native code will index, before it reaches scipy or numpy.

scipy does not validate the index arrays of a CSR/CSC matrix built from
``(data, indices, indptr)`` unless asked, and its compiled routines then
read out of bounds (a segmentation fault of the whole server).  Every
compressed sparse matrix that comes from a file goes through
:func:`compressed_matrix`, which checks dtypes, lengths, ``indptr``
monotonicity and index ranges with vectorised numpy *before* scipy sees the
arrays, and then asks scipy for its own full check.  Names go through
:func:`check_names` (length cap, no duplicates).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from mlviz._text import MAX_NAME_LENGTH, shorten

from ._errors import DataError

__all__ = ["compressed_matrix", "check_numeric_dtype", "check_names", "check_name_length"]

_NUMERIC_KINDS = "biuf"


def check_numeric_dtype(dtype, what, source):
    """DataError unless ``dtype`` is a plain bool/int/float (no object, complex, str, void)."""
    dtype = np.dtype(dtype)
    if dtype.hasobject or dtype.kind not in _NUMERIC_KINDS or dtype.fields is not None \
            or dtype.subdtype is not None:
        kind = {"c": "complex numbers", "O": "Python objects", "U": "text", "S": "bytes",
                "V": "raw records", "M": "dates", "m": "time deltas"}.get(dtype.kind, "")
        extra = f" ({kind})" if kind else ""
        raise DataError(f"{what} has dtype {dtype}{extra}; expected real numbers",
                        source=source)


def _index_array(arr, what, source):
    arr = np.asarray(arr)
    if arr.ndim != 1:
        raise DataError(f"{what} must be 1-D, got shape {arr.shape}", source=source)
    if arr.dtype.kind not in "iu" or arr.dtype.hasobject:
        raise DataError(f"{what} has dtype {arr.dtype}; expected integers", source=source)
    return arr


def compressed_matrix(data, indices, indptr, shape, *, fmt="csr", source=None,
                      max_columns=None):
    """A validated ``scipy.sparse`` CSR/CSC matrix from its raw parts.

    Parameters
    ----------
    data : ndarray, shape (nnz,)
        Real values (bool/int/float; converted to float64, must be finite).
    indices : ndarray of int, shape (nnz,)
        Minor-axis index of each value (column for CSR, row for CSC).
    indptr : ndarray of int, shape (n_major + 1,)
        ``indptr[0] == 0``, non-decreasing, ``indptr[-1] == nnz``.
    shape : sequence of two non-negative ints
    fmt : {"csr", "csc"}
    source : str, optional
        Display name for messages.
    max_columns : int, optional
        Refuse more columns than this.

    Returns
    -------
    scipy.sparse.csr_matrix
        CSR (a CSC input is converted after validation), float64, duplicates
        summed, indices sorted.

    Raises
    ------
    DataError
        Naming the first inconsistency found.

    Examples
    --------
    >>> import numpy as np
    >>> compressed_matrix(np.ones(2), np.array([0, 5]), np.array([0, 1, 2]), (2, 3))
    Traceback (most recent call last):
    ...
    mlviz.data._errors.DataError: sparse X: column index 5 out of range; expected 0..2 (shape (2, 3))
    """
    if fmt not in ("csr", "csc"):
        raise DataError(f"sparse format {shorten(fmt)!r}; expected 'csr' or 'csc'", source=source)
    shape = np.asarray(shape)
    if shape.shape != (2,) or shape.dtype.kind not in "iu":
        raise DataError(f"sparse X shape must be two integers, got {shape.dtype} array of "
                        f"shape {shape.shape}", source=source)
    n_rows, n_cols = (int(v) for v in shape)
    if n_rows < 0 or n_cols < 0:
        raise DataError(f"sparse X shape ({n_rows}, {n_cols}) is negative", source=source)
    if max_columns is not None and n_cols > max_columns:
        raise DataError(f"sparse X has {n_cols:,} columns; the column limit is "
                        f"{max_columns:,} (MLVIZ_MAX_COLUMNS)", source=source)
    n_major, n_minor = (n_rows, n_cols) if fmt == "csr" else (n_cols, n_rows)
    minor = "column" if fmt == "csr" else "row"
    data = np.asarray(data)
    if data.ndim != 1:
        raise DataError(f"sparse X data must be 1-D, got shape {data.shape}", source=source)
    check_numeric_dtype(data.dtype, "sparse X data", source)
    indices = _index_array(indices, f"sparse X indices ({minor} indices)", source)
    indptr = _index_array(indptr, "sparse X indptr", source)
    nnz = len(data)
    if len(indices) != nnz:
        raise DataError(f"sparse X has {nnz} values but {len(indices)} indices; expected "
                        "as many indices as values", source=source)
    if len(indptr) != n_major + 1:
        raise DataError(f"sparse X indptr has {len(indptr)} entries; expected {n_major + 1} "
                        f"(one more than the {n_major} {'rows' if fmt == 'csr' else 'columns'})",
                        source=source)
    if int(indptr[0]) != 0 or int(indptr[-1]) != nnz:
        raise DataError(f"sparse X indptr runs from {int(indptr[0])} to {int(indptr[-1])}; "
                        f"expected 0 to {nnz} (the number of values)", source=source)
    if n_major and (int(indptr.min()) < 0 or int(indptr.max()) > nnz):
        raise DataError(f"sparse X indptr leaves 0..{nnz}", source=source)
    indptr = indptr.astype(np.int64)
    if n_major and (np.diff(indptr) < 0).any():
        k = int(np.flatnonzero(np.diff(indptr) < 0)[0])
        raise DataError(f"sparse X indptr decreases at position {k + 1}; expected a "
                        "non-decreasing sequence", source=source)
    if nnz:
        lo, hi = int(indices.min()), int(indices.max())
        if lo < 0 or hi >= n_minor:
            bad = lo if lo < 0 else hi
            raise DataError(f"sparse X: {minor} index {bad} out of range; expected "
                            f"0..{n_minor - 1} (shape ({n_rows}, {n_cols}))", source=source)
    values = data.astype(np.float64)
    if not np.isfinite(values).all():
        raise DataError("sparse X holds NaN or infinite values; expected finite numbers",
                        source=source)
    cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
    matrix = cls((values, indices.astype(np.int64), indptr), shape=(n_rows, n_cols))
    try:
        matrix.check_format(full_check=True)
    except ValueError as exc:  # pragma: no cover - our checks above are stricter
        raise DataError(f"inconsistent sparse X ({shorten(exc, 120)})", source=source) from None
    matrix = matrix.tocsr()
    matrix.sum_duplicates()
    return matrix


def check_name_length(name, what, source, line=None):
    """DataError if ``name`` is longer than :data:`mlviz._text.MAX_NAME_LENGTH`."""
    if len(name) > MAX_NAME_LENGTH:
        raise DataError(f"{what} {shorten(name)!r} is {len(name):,} characters long; names "
                        f"are limited to {MAX_NAME_LENGTH} characters", source=source, line=line)


def check_names(names, what, source):
    """DataError for a name over the length cap or a name that appears twice.

    Parameters
    ----------
    names : list of str
    what : str
        ``"feature"``, ``"label"`` ... (used in the message).
    source : str
    """
    seen = set()
    for name in names:
        check_name_length(name, f"{what} name", source)
        if name in seen:
            raise DataError(f"{what} name {shorten(name)!r} appears twice; expected unique "
                            "names", source=source)
        seen.add(name)
