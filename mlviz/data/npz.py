"""NumPy ``.npz`` reader/writer (no pickles).

Arrays: ``X`` (dense) or ``X_data, X_indices, X_indptr, X_shape`` (CSR parts),
``Y``; optional ``feature_names``, ``label_names`` (unicode arrays) and
``name`` (0-d unicode array).
"""

from __future__ import annotations

import io
import zipfile

import numpy as np
import scipy.sparse as sp

from ._errors import DataError
from ._source import read_source
from .dataset import finish_dataset

__all__ = ["load_npz", "to_npz"]


def load_npz(source, *, name=None):
    """Read a data set saved by :func:`to_npz` (``allow_pickle=False``).

    Parameters
    ----------
    source : str, os.PathLike or file-like
    name : str, optional

    Returns
    -------
    MultiLabelDataset

    Raises
    ------
    DataError
        Missing arrays, object (pickled) arrays, wrong shapes or values.
    """
    src = read_source(source)
    display = src.name
    if not src.data:
        raise DataError("file is empty; expected a .npz archive", source=display)
    try:
        with np.load(io.BytesIO(src.data), allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except ValueError as exc:
        raise DataError(f"cannot read arrays ({exc}); object arrays are not accepted",
                        source=display) from None
    except (OSError, zipfile.BadZipFile, EOFError, KeyError) as exc:
        raise DataError(f"not a valid .npz archive ({exc})", source=display) from None
    except Exception as exc:  # noqa: BLE001 - anything else from the zip/npy readers
        raise DataError(f"cannot read .npz archive ({type(exc).__name__}: {exc})",
                        source=display) from None
    try:
        if "X" in arrays:
            X = arrays["X"]
        elif {"X_data", "X_indices", "X_indptr", "X_shape"} <= set(arrays):
            X = sp.csr_matrix((arrays["X_data"], arrays["X_indices"], arrays["X_indptr"]),
                              shape=tuple(int(v) for v in arrays["X_shape"]))
        else:
            raise DataError("no array 'X' (or 'X_data', 'X_indices', 'X_indptr', 'X_shape')",
                            source=display)
        if "Y" not in arrays:
            raise DataError("no array 'Y'", source=display)
        Y = arrays["Y"]
        if not sp.issparse(X) and X.dtype.kind not in "biuf":
            raise DataError(f"X has dtype {X.dtype}; expected numbers", source=display)
        if Y.dtype.kind not in "biuf":
            raise DataError(f"Y has dtype {Y.dtype}; expected 0/1 numbers", source=display)
        if Y.ndim != 2 or X.ndim != 2:
            raise DataError(f"X and Y must be 2-D, got {X.shape} and {Y.shape}",
                            source=display)
        if Y.size and not np.isin(Y, (0, 1)).all():
            raise DataError("Y holds values other than 0 and 1", source=display)
        names = {}
        for key in ("feature_names", "label_names", "name"):
            if key in arrays:
                value = arrays[key]
                if value.dtype.kind != "U":
                    raise DataError(f"{key} must be a unicode array, got {value.dtype}",
                                    source=display)
                names[key] = value.tolist()
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - inconsistent CSR parts etc.
        raise DataError(f"inconsistent arrays ({exc})", source=display) from None
    stem = display.rsplit(".", 1)[0] if "." in display else display
    return finish_dataset(X, Y.astype(np.uint8), names.get("feature_names", []),
                          names.get("label_names", []), name or names.get("name") or stem,
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
