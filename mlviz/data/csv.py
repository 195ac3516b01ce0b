"""CSV reader: one header row, numeric features, 0/1 label columns.

Label columns are chosen by a list of names, an int count (the last ``n``
columns), a name prefix, or detected.  **Detection rule**: the labels are
the longest run of columns at the *end* of the table whose every value is 0
or 1; if that run is empty, or covers every column (e.g. all-binary
features), a :class:`DataError` asks for ``label_columns=`` or
``label_prefix=``.
"""

from __future__ import annotations

import csv as _csv
import io

import numpy as np

from ._errors import DataError
from ._source import read_source
from .dataset import finish_dataset

__all__ = ["load_csv"]


def _delimiter(text, suffix):
    if suffix == ".tsv":
        return "\t"
    first = text.split("\n", 1)[0]
    for candidate in (",", "\t", ";"):
        if candidate in first:
            return candidate
    return ","


def _read_rows(text, delimiter, source):
    reader = _csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows, lines = [], []
    try:
        for row in reader:
            if not row or all(not cell.strip() for cell in row):
                continue
            rows.append([cell.strip() for cell in row])
            lines.append(reader.line_num)
    except _csv.Error as exc:
        raise DataError(f"malformed CSV ({exc})", source=source,
                        line=reader.line_num) from None
    return rows, lines


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _binary_columns(cells):
    """Boolean per column: every value parses as 0 or 1."""
    result = []
    for j in range(cells.shape[1]):
        col = cells[:, j]
        result.append(bool(np.isin(col, ("0", "1", "0.0", "1.0")).all()))
    return np.array(result, dtype=bool)


def _choose_labels(header, cells, label_columns, label_prefix, source, notes):
    m = len(header)
    if label_columns is not None and label_prefix is not None:
        raise DataError("give label_columns or label_prefix, not both", source=source)
    if label_prefix is not None:
        idx = [j for j, h in enumerate(header) if h.startswith(label_prefix)]
        if not idx:
            raise DataError(f"no column name starts with {label_prefix!r}; expected label "
                            "columns", source=source)
        notes.append(f"labels: the {len(idx)} columns starting with {label_prefix!r}")
    elif isinstance(label_columns, (int, np.integer)) and not isinstance(label_columns, bool):
        count = int(label_columns)
        if not 1 <= count <= m:
            raise DataError(f"label count {count} out of range; expected 1..{m}", source=source)
        idx = list(range(m - count, m))
        notes.append(f"labels: the last {count} columns")
    elif label_columns is not None:
        try:
            wanted = [str(c) for c in label_columns]
        except TypeError:
            raise DataError("label_columns must be a list of column names or an int",
                            source=source) from None
        position = {h: j for j, h in enumerate(header)}
        absent = [c for c in wanted if c not in position]
        if absent:
            raise DataError(f"label column(s) {absent} not in the header", source=source,
                            line=1)
        if not wanted:
            raise DataError("empty label_columns; expected at least one label", source=source)
        idx = [position[c] for c in wanted]
        if len(set(idx)) != len(idx):
            raise DataError("label_columns repeats a column", source=source)
    else:
        binary = _binary_columns(cells)
        run = 0
        while run < m and binary[m - 1 - run]:
            run += 1
        if run == 0:
            raise DataError("no label columns detected (the last column is not 0/1); pass "
                            "label_columns= or label_prefix=", source=source)
        if run == m:
            raise DataError("cannot tell labels from features: every column holds only "
                            "0/1; pass label_columns= or label_prefix=", source=source)
        idx = list(range(m - run, m))
        notes.append(f"labels detected: the trailing run of {run} all-0/1 columns")
    if len(idx) >= m:
        raise DataError("the label set selects every column; expected at least one feature",
                        source=source)
    return idx


def _to_float(cells, names, lines, source, what):
    try:
        values = cells.astype(np.float64)
    except ValueError:
        for i in range(cells.shape[0]):
            for j in range(cells.shape[1]):
                cell = str(cells[i, j])
                if not _is_number(cell):
                    problem = "missing value" if cell == "" else f"value {cell!r} is not a number"
                    raise DataError(f"{problem}; expected a numeric {what}", source=source,
                                    line=lines[i], column=names[j]) from None
        raise DataError(f"non-numeric {what}", source=source) from None
    bad = ~np.isfinite(values)
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise DataError(f"value {str(cells[i, j])!r} is NaN or infinite; expected a finite {what}",
                        source=source, line=lines[i], column=names[j])
    return values


def load_csv(source, label_columns=None, *, label_prefix=None, delimiter=None,
             drop_columns=None, name=None):
    """Read a CSV (or TSV) file with a header row into a dataset.

    Parameters
    ----------
    source : str, os.PathLike or file-like
        ``.csv``/``.tsv`` (optionally ``.gz``).  The first non-blank row must
        be a header of column names.
    label_columns : list of str or int, optional
        Label column names (``Y`` follows this order) or the number of
        trailing label columns.  Default: detected (see module docstring).
    label_prefix : str, optional
        Columns whose name starts with this prefix are labels.
    delimiter : str, optional
        Default: tab for ``.tsv``; else the first of ``, \\t ;`` found in the header.
    drop_columns : list of str, optional
        Columns to ignore (e.g. an ID column).
    name : str, optional
        Data set name (default: file name without extension).

    Returns
    -------
    MultiLabelDataset
        Dense ``X`` (n_samples, n_features) float64, ``Y`` (n_samples, n_labels) uint8.

    Raises
    ------
    DataError
        Empty file, no header, ragged rows, non-numeric or non-finite
        features (with row line and column name), labels not 0/1, fewer than 2
        rows, no labels or labels covering every column.
    """
    src = read_source(source)
    display = src.name
    text = src.text()
    if not text.strip():
        raise DataError("file is empty; expected a header row and data rows", source=display)
    if "\x00" in text:
        raise DataError("file contains NUL bytes; expected a text CSV file", source=display)
    sep = delimiter or _delimiter(text.lstrip("\r\n"), src.suffix)
    rows, lines = _read_rows(text, sep, display)
    header = rows[0]
    if all(_is_number(h) for h in header):
        raise DataError("the first row looks like data; a header row with column names is "
                        "required", source=display, line=lines[0])
    if any(h == "" for h in header):
        raise DataError(f"empty column name at position {header.index('') + 1}; expected a "
                        "name for every column", source=display, line=lines[0])
    if len(set(header)) != len(header):
        dup = next(h for h in header if header.count(h) > 1)
        raise DataError(f"column name {dup!r} appears twice", source=display, line=lines[0])
    body, body_lines = rows[1:], lines[1:]
    for row, line in zip(body, body_lines):
        if len(row) != len(header):
            raise DataError(f"row has {len(row)} fields; expected {len(header)} (as in the "
                            "header)", source=display, line=line)
    if len(body) < 2:
        raise DataError(f"only {len(body)} data row(s); need at least 2 instances",
                        source=display)
    cells = np.array(body, dtype=str)
    notes = list(src.notes)
    if drop_columns:
        absent = [c for c in drop_columns if c not in header]
        if absent:
            raise DataError(f"drop_columns {absent} not in the header", source=display, line=1)
        keep = [j for j, h in enumerate(header) if h not in set(drop_columns)]
        header = [header[j] for j in keep]
        cells = cells[:, keep]
        notes.append(f"dropped columns {list(drop_columns)}")
    label_idx = _choose_labels(header, cells, label_columns, label_prefix, display, notes)
    feature_idx = [j for j in range(len(header)) if j not in set(label_idx)]
    feature_names = [header[j] for j in feature_idx]
    label_names = [header[j] for j in label_idx]
    X = _to_float(cells[:, feature_idx], feature_names, body_lines, display, "feature")
    Y = _to_float(cells[:, label_idx], label_names, body_lines, display, "label")
    bad = (Y != 0) & (Y != 1)
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise DataError(f"label value {str(cells[i, label_idx[j]])!r}; expected 0 or 1",
                        source=display, line=body_lines[i], column=label_names[j])
    stem = display.rsplit(".", 1)[0] if "." in display else display
    notes.insert(0, f"read {display}")
    return finish_dataset(X, Y.astype(np.uint8), feature_names, label_names, name or stem,
                          notes, display)
