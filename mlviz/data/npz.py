"""NumPy ``.npz`` reader/writer (no pickles, nothing allocated before it is checked).

Arrays: ``X`` (dense) or ``X_data, X_indices, X_indptr, X_shape`` (compressed
sparse parts; optional ``X_format`` = ``"csr"`` (default) or ``"csc"``), ``Y``
(dense 0/1); optional ``feature_names``, ``label_names`` (unicode arrays) and
``name`` (0-d unicode array).

The archive is read member by member with :mod:`zipfile`, never with
``np.load``: the declared (uncompressed) member sizes must fit the inflate
limit, each ``.npy`` header is parsed first and its declared shape x itemsize
checked against the member size and the limits, object/complex/structured
dtypes are refused from the header, and only then are the bytes read (zipfile
stops at the declared size).  Sparse parts are validated by
:func:`mlviz.data._validate.compressed_matrix` before scipy sees them.
"""

from __future__ import annotations

import io
import math
import zipfile

import numpy as np
import scipy.sparse as sp

from mlviz._text import MAX_NAME_LENGTH, shorten

from ._errors import DataError
from ._limits import format_bytes
from ._source import read_source
from ._validate import check_numeric_dtype, compressed_matrix
from .dataset import finish_dataset

__all__ = ["load_npz", "to_npz"]

_KNOWN = ("X", "X_data", "X_indices", "X_indptr", "X_shape", "X_format", "Y",
          "feature_names", "label_names", "name")
_TEXT_KEYS = ("feature_names", "label_names", "name", "X_format")
_MAX_MEMBERS = 64


def _read_member(zf, info, key, limits, display):
    """One ``.npy`` member as an ndarray, checked from its header before reading."""
    with zf.open(info) as fp:
        version = np.lib.format.read_magic(fp)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
        else:
            raise DataError(f"array {key!r} uses .npy format {version}; expected 1.0 or 2.0",
                            source=display)
        if dtype.hasobject:
            raise DataError(f"array {key!r} holds Python objects (a pickle); object arrays "
                            "are never loaded", source=display)
        if key in _TEXT_KEYS:
            if dtype.kind != "U":
                raise DataError(f"{key} must be a unicode array, got {dtype}", source=display)
            if dtype.itemsize // 4 > MAX_NAME_LENGTH:
                raise DataError(f"{key} holds names of up to {dtype.itemsize // 4:,} characters; "
                                f"names are limited to {MAX_NAME_LENGTH}", source=display)
        else:
            check_numeric_dtype(dtype, f"array {key!r}", display)
        if any(d < 0 for d in shape):
            raise DataError(f"array {key!r} declares a negative shape {shape}", source=display)
        count = math.prod(shape)
        nbytes = count * dtype.itemsize
        if nbytes > info.file_size:
            raise DataError(f"array {key!r} declares shape {shape} ({format_bytes(nbytes)}) but "
                            f"its member holds {format_bytes(info.file_size)}", source=display)
        raw = fp.read(nbytes)
    if len(raw) != nbytes:
        raise DataError(f"array {key!r} is truncated ({len(raw)} of {nbytes} bytes)",
                        source=display)
    array = np.frombuffer(raw, dtype=dtype, count=count)
    return array.reshape(shape, order="F" if fortran else "C")


def _read_archive(data, limits, display):
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise DataError(f"not a valid .npz archive ({shorten(exc, 80)})", source=display) from None
    with zf:
        infos = zf.infolist()
        if len(infos) > _MAX_MEMBERS:
            raise DataError(f"archive has {len(infos)} members; expected at most {_MAX_MEMBERS}",
                            source=display)
        wanted = [i for i in infos if i.filename.endswith(".npy") and i.filename[:-4] in _KNOWN]
        names = [i.filename for i in wanted]
        if len(set(names)) != len(names):
            raise DataError("archive holds the same array twice", source=display)
        declared = sum(i.file_size for i in wanted)
        if declared > limits.max_inflated_bytes:
            raise DataError(f"arrays declare {format_bytes(declared)} uncompressed; the "
                            f"decompression limit is {format_bytes(limits.max_inflated_bytes)} "
                            "(MLVIZ_INFLATE_RATIO x MLVIZ_MAX_UPLOAD_MB)", source=display)
        arrays = {}
        for info in wanted:
            key = info.filename[:-4]
            try:
                arrays[key] = _read_member(zf, info, key, limits, display)
            except DataError:
                raise
            except (ValueError, OSError, EOFError, zipfile.BadZipFile, RuntimeError,
                    NotImplementedError, KeyError) as exc:
                raise DataError(f"cannot read array {key!r} ({type(exc).__name__}: "
                                f"{shorten(exc, 100)})", source=display) from None
    return arrays


def _check_dense(array, key, limits, display, ndim=2):
    if array.ndim != ndim:
        raise DataError(f"{key} must be {ndim}-D, got shape {array.shape}", source=display)
    limits.check_dense(array.shape[0], array.shape[1], key, display)


def load_npz(source, *, name=None, limits=None):
    """Read a data set saved by :func:`to_npz` (no pickles; sizes checked first).

    Parameters
    ----------
    source : str, os.PathLike or file-like
    name : str, optional
    limits : Limits, optional
        Default :meth:`~mlviz.data.Limits.from_env`.

    Returns
    -------
    MultiLabelDataset

    Raises
    ------
    DataError
        Missing arrays, object (pickled), complex or structured arrays,
        declared sizes over the limits, inconsistent sparse parts, wrong
        shapes or values.
    """
    src = read_source(source, limits)
    limits = src.limits
    display = src.name
    if not src.data:
        raise DataError("file is empty; expected a .npz archive", source=display)
    arrays = _read_archive(src.data, limits, display)
    if "Y" not in arrays:
        raise DataError("no array 'Y'", source=display)
    Y = arrays["Y"]
    _check_dense(Y, "Y", limits, display)
    if "X" in arrays:
        X = arrays["X"]
        _check_dense(X, "X", limits, display)
        limits.check_columns(X.shape[1], "X columns", display)
    elif {"X_data", "X_indices", "X_indptr", "X_shape"} <= set(arrays):
        fmt = str(arrays["X_format"].reshape(-1)[0]) if "X_format" in arrays \
            and arrays["X_format"].size else "csr"
        X = compressed_matrix(arrays["X_data"], arrays["X_indices"], arrays["X_indptr"],
                              arrays["X_shape"], fmt=fmt, source=display,
                              max_columns=limits.max_columns)
    else:
        raise DataError("no array 'X' (or 'X_data', 'X_indices', 'X_indptr', 'X_shape')",
                        source=display)
    if Y.shape[0] != X.shape[0]:
        raise DataError(f"X has {X.shape[0]} rows but Y has {Y.shape[0]}; expected the same "
                        "number", source=display)
    limits.check_columns(Y.shape[1], "Y columns", display)
    if Y.size and not np.isin(Y, (0, 1)).all():
        raise DataError("Y holds values other than 0 and 1", source=display)
    if not sp.issparse(X) and not np.isfinite(X).all():
        raise DataError("X holds NaN or infinite values; expected finite numbers",
                        source=display)
    names = {}
    for key in ("feature_names", "label_names", "name"):
        if key in arrays:
            value = arrays[key]
            if key != "name" and value.ndim != 1:
                raise DataError(f"{key} must be 1-D, got shape {value.shape}", source=display)
            names[key] = value.tolist()
    ds_name = names.get("name")
    if not isinstance(ds_name, str):
        ds_name = None
    stem = display.rsplit(".", 1)[0] if "." in display else display
    return finish_dataset(X, Y.astype(np.uint8), names.get("feature_names", []),
                          names.get("label_names", []), name or ds_name or stem,
                          list(src.notes) + [f"read {display}"], display)


def to_npz(dataset, path):
    """Write ``dataset`` to a compressed ``.npz`` readable by :func:`load_npz`.

    Parameters
    ----------
    dataset : MultiLabelDataset
    path : str, os.PathLike or binary file-like
    """
    arrays = {"Y": dataset.Y, "feature_names": np.array(dataset.feature_names, dtype=str),
              "label_names": np.array(dataset.label_names, dtype=str),
              "name": np.array(dataset.name, dtype=str)}
    if sp.issparse(dataset.X):
        X = dataset.X.tocsr()
        arrays.update(X_data=X.data, X_indices=X.indices, X_indptr=X.indptr,
                      X_shape=np.array(X.shape, dtype=np.int64))
    else:
        arrays["X"] = dataset.X
    np.savez_compressed(path, **arrays)
