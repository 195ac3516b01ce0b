"""Multi-label svmlight / LIBSVM reader.

Format, one instance per line::

    1,3 4:0.5 7:1      # labels 1 and 3; feature 4 = 0.5, feature 7 = 1
    4:0.25             # empty label set (no label field)

* Label ids are non-negative integers and index ``Y``'s columns directly
  (label ``k`` -> column ``k``, 0-based, as in the LIBSVM multi-label data
  sets); ``n_labels`` defaults to the largest id + 1.
* Feature indices are **1-based** by default (svmlight convention; index
  ``j`` -> column ``j - 1``); pass ``zero_based=True`` for 0-based files.
* ``#`` starts a comment.  A first line ``# mlviz: {json}`` written by
  :func:`~mlviz.data.save_libsvm` restores the data set's name, feature and
  label names.
"""

from __future__ import annotations

import json

import numpy as np
import scipy.sparse as sp

from mlviz._text import shorten

from ._errors import DataError
from ._limits import no_memory_error
from ._source import read_source
from ._validate import check_names
from .dataset import finish_dataset

__all__ = ["load_libsvm", "META_PREFIX"]

META_PREFIX = "# mlviz:"


def _int(token, what, source, line):
    try:
        value = int(token)
    except ValueError:
        raise DataError(f"{what} {shorten(token)!r} is not an integer", source=source,
                        line=line) from None
    return value


def _meta_names(meta, key, count, what, source):
    """Names stored in the ``# mlviz:`` line, if they fit; DataError on duplicates."""
    names = meta.get(key)
    if not (isinstance(names, list) and len(names) == count
            and all(isinstance(v, str) for v in names)):
        return None
    check_names(names, f"{what} (from the '{META_PREFIX}' line)", source)
    return names


@no_memory_error
def load_libsvm(source, *, n_features=None, n_labels=None, zero_based=False, name=None,
                label_names=None, limits=None):
    """Read a multi-label svmlight file.

    Parameters
    ----------
    source : str, os.PathLike or file-like
    n_features : int, optional
        Number of feature columns (default: largest index seen).
    n_labels : int, optional
        Number of labels (default: largest label id + 1).
    zero_based : bool, default False
        Whether feature indices start at 0.
    name : str, optional
    label_names : list of str, optional
        Names of the labels (default: from the ``# mlviz:`` line, else ``y0, y1, ...``).
    limits : Limits, optional
        Default :meth:`~mlviz.data.Limits.from_env`; feature indices and label
        ids above ``max_columns`` are refused, as is a dense ``Y`` over
        ``max_dense_cells``.

    Returns
    -------
    MultiLabelDataset
        ``X`` is CSR (n_samples, n_features), ``Y`` uint8 (n_samples, n_labels).

    Raises
    ------
    DataError
        With the line number for malformed tokens, duplicate or out-of-range
        indices, non-finite values, negative label ids.
    """
    src = read_source(source, limits)
    limits = src.limits
    display = src.name
    max_index = limits.max_columns
    text = src.text()
    src.data = b""  # the decoded text replaces the bytes (halves the peak)
    if not text.strip():
        raise DataError("file is empty; expected 'labels index:value ...' lines",
                        source=display)
    meta = {}
    rows, cols, vals, label_rows, label_cols, lines = [], [], [], [], [], []
    n = 0
    offset = 0 if zero_based else 1
    for lineno, raw in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        if raw.startswith(META_PREFIX) and n == 0:
            try:
                meta = json.loads(raw[len(META_PREFIX):])
            except ValueError:
                meta = {}
            if not isinstance(meta, dict):
                meta = {}
            continue
        body = raw.split("#", 1)[0]
        tokens = body.split()
        if not tokens:
            continue
        if ":" not in tokens[0]:
            for token in tokens[0].split(","):
                label = _int(token, "label id", display, lineno)
                if label < 0:
                    raise DataError(f"label id {label} is negative; expected ids >= 0",
                                    source=display, line=lineno)
                if label >= max_index:
                    limits.check_columns(label + 1, "label id", display, line=lineno)
                label_rows.append(n)
                label_cols.append(label)
            tokens = tokens[1:]
        seen = set()
        for token in tokens:
            index, sep, value = token.partition(":")
            if not sep:
                raise DataError(f"token {shorten(token)!r} is not 'index:value'", source=display,
                                line=lineno)
            j = _int(index, "feature index", display, lineno) - offset
            if j < 0:
                hint = "" if zero_based else " (indices are 1-based; use zero_based=True)"
                raise DataError(f"feature index {shorten(index)} out of range{hint}",
                                source=display, line=lineno)
            if j >= max_index:
                limits.check_columns(j + 1, "feature index", display, line=lineno)
            if j in seen:
                raise DataError(f"feature index {shorten(index)} repeated", source=display,
                                line=lineno)
            seen.add(j)
            try:
                v = float(value)
            except ValueError:
                raise DataError(f"feature value {shorten(value)!r} is not a number",
                                source=display, line=lineno) from None
            if not np.isfinite(v):
                raise DataError(f"feature value {shorten(value)!r} is NaN or infinite; expected a "
                                "finite number", source=display, line=lineno)
            rows.append(n)
            cols.append(j)
            vals.append(v)
        lines.append(lineno)
        n += 1
    d = max(cols) + 1 if cols else 0
    if n_features is not None:
        if d > n_features:
            k = int(np.argmax(np.asarray(cols) >= n_features))
            raise DataError(f"feature index {cols[k] + offset} exceeds n_features="
                            f"{n_features}", source=display, line=lines[rows[k]])
        d = n_features
    L = max(label_cols) + 1 if label_cols else 0
    if n_labels is not None:
        if L > n_labels:
            k = int(np.argmax(np.asarray(label_cols) >= n_labels))
            raise DataError(f"label id {label_cols[k]} exceeds n_labels={n_labels}",
                            source=display, line=lines[label_rows[k]])
        L = n_labels
    limits.check_columns(d, "feature count", display)
    limits.check_columns(L, "label count", display)
    limits.check_dense(n, L, "label matrix Y", display)
    X = sp.csr_matrix((np.asarray(vals, dtype=np.float64),
                       (np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64))),
                      shape=(n, d))
    Y = np.zeros((n, L), dtype=np.uint8)
    Y[np.asarray(label_rows, dtype=np.int64), np.asarray(label_cols, dtype=np.int64)] = 1
    feature_names = (_meta_names(meta, "feature_names", d, "feature name", display)
                     or [f"x{j + offset}" for j in range(d)])
    if label_names is not None:
        label_names = [str(v) for v in label_names]
        if len(label_names) != L:
            raise DataError(f"{len(label_names)} label names for {L} labels", source=display)
    else:
        label_names = (_meta_names(meta, "label_names", L, "label name", display)
                       or [f"y{k}" for k in range(L)])
    stem = display.rsplit(".", 1)[0] if "." in display else display
    ds_name = name or (meta.get("name") if isinstance(meta.get("name"), str) else None) or stem
    notes = list(src.notes) + [f"read {display} (svmlight, "
                               f"{'0' if zero_based else '1'}-based feature indices)"]
    return finish_dataset(X, Y, feature_names, label_names, ds_name, notes, display)
