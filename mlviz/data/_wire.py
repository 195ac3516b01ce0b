"""The byte format between :func:`~mlviz.data.load_dataset_isolated` and its worker.

A frame is an 8-byte little-endian length, a UTF-8 JSON header of that
length, then raw blobs whose byte lengths the header lists.  Nothing is ever
pickled: the parent reads JSON (names, shapes, a whitelist of dtypes) and raw
array bytes, and re-validates every array before it becomes a data set, so a
worker that a hostile file managed to subvert can at worst produce a
DataError, never run code in the server.
"""

from __future__ import annotations

import json
import struct

import numpy as np
import scipy.sparse as sp

from ._errors import DataError
from ._validate import compressed_matrix

__all__ = ["pack", "unpack_header", "encode_dataset", "decode_dataset"]

_LEN = struct.Struct("<Q")
#: dtypes an array may have on the wire (parent side whitelist)
_DTYPES = {"<f8": np.float64, "|u1": np.uint8, "<i8": np.int64}


def pack(header: dict, blobs=()) -> bytes:
    """One frame: length, JSON header (with ``blob_sizes`` added), blobs."""
    blobs = [memoryview(b).cast("B") for b in blobs]
    header = dict(header, blob_sizes=[len(b) for b in blobs])
    head = json.dumps(header, ensure_ascii=True).encode("ascii")
    return b"".join([_LEN.pack(len(head)), head, *blobs])


def unpack_header(frame, what="worker result"):
    """``(header dict, list of memoryview blobs)`` of a frame; DataError if malformed."""
    view = memoryview(frame)
    try:
        (n,) = _LEN.unpack(view[:8])
        header = json.loads(bytes(view[8:8 + n]).decode("ascii"))
        if not isinstance(header, dict):
            raise ValueError("header is not an object")
        sizes = header.get("blob_sizes")
        if not (isinstance(sizes, list) and all(isinstance(s, int) and s >= 0 for s in sizes)):
            raise ValueError("bad blob sizes")
        if 8 + n + sum(sizes) != len(view):
            raise ValueError("length mismatch")
    except (ValueError, struct.error, UnicodeDecodeError, RecursionError) as exc:
        raise DataError(f"malformed {what} ({type(exc).__name__})") from None
    blobs, pos = [], 8 + n
    for size in sizes:
        blobs.append(view[pos:pos + size])
        pos += size
    return header, blobs


def _array_spec(array, blobs):
    array = np.ascontiguousarray(array)
    blobs.append(array)
    return {"dtype": array.dtype.str, "shape": list(array.shape)}


def encode_dataset(ds, extra=None) -> bytes:
    """Frame for a loaded :class:`MultiLabelDataset` (worker side)."""
    blobs = []
    if sp.issparse(ds.X):
        X = ds.X.tocsr()
        x_spec = {"kind": "csr", "shape": list(X.shape),
                  "parts": [_array_spec(X.data.astype(np.float64), blobs),
                            _array_spec(X.indices.astype(np.int64), blobs),
                            _array_spec(X.indptr.astype(np.int64), blobs)]}
    else:
        x_spec = {"kind": "dense", "shape": list(ds.X.shape),
                  "parts": [_array_spec(np.asarray(ds.X, dtype=np.float64), blobs)]}
    y_spec = _array_spec(np.asarray(ds.Y, dtype=np.uint8), blobs)
    header = {"ok": True, "name": ds.name, "feature_names": list(ds.feature_names),
              "label_names": list(ds.label_names), "notes": list(ds.notes), "X": x_spec,
              "Y": y_spec, **(extra or {})}
    return pack(header, blobs)


def _take(blob_iter, spec, what, expected_ndim):
    if not (isinstance(spec, dict) and spec.get("dtype") in _DTYPES
            and isinstance(spec.get("shape"), list) and len(spec["shape"]) == expected_ndim
            and all(isinstance(v, int) and v >= 0 for v in spec["shape"])):
        raise DataError(f"malformed worker result ({what})")
    blob = next(blob_iter, None)
    dtype = np.dtype(_DTYPES[spec["dtype"]])
    count = 1
    for v in spec["shape"]:
        count *= v
    if blob is None or len(blob) != count * dtype.itemsize:
        raise DataError(f"malformed worker result ({what} size)")
    return np.frombuffer(blob, dtype=dtype).reshape(spec["shape"]).copy()


def _str_list(value, what):
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise DataError(f"malformed worker result ({what})")
    return value


def decode_dataset(header, blobs, limits, source):
    """The data set in a worker's ok-frame, every array re-validated (parent side)."""
    from .dataset import finish_dataset

    it = iter(blobs)
    x_spec = header.get("X")
    if not isinstance(x_spec, dict) or not isinstance(x_spec.get("parts"), list):
        raise DataError("malformed worker result (X)")
    shape = x_spec.get("shape")
    if not (isinstance(shape, list) and len(shape) == 2
            and all(isinstance(v, int) and v >= 0 for v in shape)):
        raise DataError("malformed worker result (X shape)")
    if x_spec.get("kind") == "csr" and len(x_spec["parts"]) == 3:
        data, indices, indptr = (_take(it, p, "X part", 1) for p in x_spec["parts"])
        X = compressed_matrix(data, indices, indptr, np.array(shape, dtype=np.int64),
                              source=source, max_columns=limits.max_columns)
    elif x_spec.get("kind") == "dense" and len(x_spec["parts"]) == 1:
        limits.check_dense(shape[0], shape[1], "X", source)
        X = _take(it, x_spec["parts"][0], "X", 2)
        if list(X.shape) != shape or not np.isfinite(X).all():
            raise DataError("malformed worker result (X values)")
    else:
        raise DataError("malformed worker result (X kind)")
    Y = _take(it, header.get("Y"), "Y", 2)
    if Y.size and Y.max() > 1:
        raise DataError("malformed worker result (Y values)")
    name = header.get("name")
    if not isinstance(name, str):
        raise DataError("malformed worker result (name)")
    return finish_dataset(X, Y, _str_list(header.get("feature_names"), "feature names"),
                          _str_list(header.get("label_names"), "label names"), name,
                          _str_list(header.get("notes"), "notes"), source)
