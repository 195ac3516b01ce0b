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
import itertools

import numpy as np

from mlviz._text import shorten

from ._errors import DataError
from ._limits import no_memory_error
from ._source import read_head, read_source
from ._validate import check_name_length
from .dataset import finish_dataset

__all__ = ["load_csv", "csv_column_names"]

#: How much of a file :func:`csv_column_names` reads (decompressed).
HEADER_BYTES = 1 << 20


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
            rows.append(row)
            lines.append(reader.line_num)
    except _csv.Error as exc:
        if "field limit" in str(exc):
            raise DataError(f"a field is longer than {_csv.field_size_limit():,} characters "
                            "(an unclosed quote?); expected short cells", source=source,
                            line=reader.line_num) from None
        raise DataError(f"malformed CSV ({shorten(exc, 120)})", source=source,
                        line=reader.line_num) from None
    return rows, lines


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _numeric_matrix(body, m):
    """Float matrix of all cells, and which columns are entirely numeric.

    Fast path: one ``float`` per cell through ``np.fromiter``; if some cell
    is not a number, columns are converted one by one to find out which.
    """
    n = len(body)
    try:
        values = np.fromiter(map(float, itertools.chain.from_iterable(body)), dtype=np.float64,
                             count=n * m).reshape(n, m)
        return values, np.ones(m, dtype=bool)
    except ValueError:
        pass
    values = np.zeros((n, m))
    numeric = np.zeros(m, dtype=bool)
    for j in range(m):
        try:
            values[:, j] = [float(row[j]) for row in body]
            numeric[j] = True
        except ValueError:
            pass
    return values, numeric


def _choose_labels(header, values, numeric, label_columns, label_prefix, source, notes):
    m = len(header)
    if label_columns is not None and label_prefix is not None:
        raise DataError("give label_columns or label_prefix, not both", source=source)
    if label_prefix is not None:
        idx = [j for j, h in enumerate(header) if h.startswith(label_prefix)]
        if not idx:
            raise DataError(f"no column name starts with {shorten(label_prefix)!r}; expected label "
                            "columns", source=source)
        notes.append(f"labels: the {len(idx)} columns starting with {shorten(label_prefix)!r}")
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
            raise DataError(f"label column(s) {_few(absent)} not in the header", source=source,
                            line=1)
        if not wanted:
            raise DataError("empty label_columns; expected at least one label", source=source)
        idx = [position[c] for c in wanted]
        if len(set(idx)) != len(idx):
            raise DataError("label_columns repeats a column", source=source)
    else:
        binary = [bool(numeric[j] and np.isin(values[:, j], (0.0, 1.0)).all())
                  for j in range(m)]
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


def _first_bad_cell(body, columns, names, lines, source, what):
    """Raise for the first (row-major) non-numeric cell among ``columns``."""
    for i, row in enumerate(body):
        for j, name in zip(columns, names):
            cell = row[j]
            if not _is_number(cell):
                problem = ("missing value" if not cell.strip()
                           else f"value {shorten(cell.strip())!r} is not a number")
                raise DataError(f"{problem}; expected a numeric {what}", source=source,
                                line=lines[i], column=name)
    raise DataError(f"non-numeric {what}", source=source)


def _check_finite(values, body, columns, names, lines, source, what):
    bad = ~np.isfinite(values)
    if bad.any():
        i, k = (int(v[0]) for v in np.nonzero(bad))
        raise DataError(f"value {shorten(body[i][columns[k]].strip())!r} is NaN or infinite; expected "
                        f"a finite {what}", source=source, line=lines[i], column=names[k])


def csv_column_names(source, *, delimiter=None, limits=None):
    """Column names of a CSV/TSV header, reading (and decompressing) at most 1 MiB.

    For a column picker shown before the full load: a compression bomb costs
    1 MiB here, not the inflate cap.

    Parameters
    ----------
    source : str, os.PathLike, bytes or file-like
        ``.csv``/``.tsv``/``.txt``, optionally ``.gz``/``.bz2``/``.xz``.
    delimiter : str, optional
        Default: the first of ``, \\t ;`` found in the header line.
    limits : Limits, optional

    Returns
    -------
    list of str

    Raises
    ------
    DataError
        Unreadable, over the upload limit, corrupt compression, wrong encoding,
        a header over 1 MiB, or names over the length cap.
    """
    name, head = read_head(source, HEADER_BYTES, limits)
    from ._source import check_text_encoding

    check_text_encoding(head, name)
    text = head.decode("utf-8-sig", errors="replace").lstrip("\r\n")
    if "\n" not in text and len(head) >= HEADER_BYTES:
        raise DataError(f"the header line is longer than {HEADER_BYTES:,} bytes; expected "
                        "a header of column names", source=name)
    first = text.split("\n", 1)[0]
    sep = delimiter or ("\t" if name.lower().split(".gz")[0].endswith(".tsv")
                        else _delimiter(first, ""))
    try:
        header = next(_csv.reader([first], delimiter=sep), [])
    except _csv.Error as exc:
        raise DataError(f"malformed CSV header ({shorten(exc, 80)})", source=name,
                        line=1) from None
    header = [cell.strip() for cell in header]
    for h in header:
        check_name_length(h, "column name", name, line=1)
    return header


def _few(names, k=5):
    """At most ``k`` names, each shortened, for a message."""
    shown = ", ".join(repr(shorten(str(v))) for v in list(names)[:k])
    return f"[{shown}{', ...' if len(names) > k else ''}]"


@no_memory_error
def load_csv(source, label_columns=None, *, label_prefix=None, delimiter=None,
             drop_columns=None, name=None, limits=None):
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
    limits : Limits, optional
        Default :meth:`~mlviz.data.Limits.from_env`.

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
    src = read_source(source, limits)
    limits = src.limits
    display = src.name
    text = src.text()
    src.data = b""  # the decoded text replaces the bytes (halves the peak)
    if not text.strip():
        raise DataError("file is empty; expected a header row and data rows", source=display)
    if "\x00" in text:
        raise DataError("file contains NUL bytes; expected a text CSV file", source=display)
    sep = delimiter or _delimiter(text.lstrip("\r\n"), src.suffix)
    # size check before the rows become Python lists (~8 bytes per cell and more)
    first = text.lstrip("\r\n").split("\n", 1)[0]
    limits.check_columns(first.count(sep) + 1, "header column count", display)
    limits.check_dense(text.count("\n") + 1, first.count(sep) + 1, "table", display)
    rows, lines = _read_rows(text, sep, display)
    header = [cell.strip() for cell in rows[0]]
    limits.check_columns(len(header), "header column count", display, line=lines[0])
    for h in header:
        check_name_length(h, "column name", display, line=lines[0])
    if all(_is_number(h) for h in header):
        raise DataError("the first row looks like data; a header row with column names is "
                        "required", source=display, line=lines[0])
    if any(h == "" for h in header):
        raise DataError(f"empty column name at position {header.index('') + 1}; expected a "
                        "name for every column", source=display, line=lines[0])
    if len(set(header)) != len(header):
        seen = set()
        dup = next(h for h in header if h in seen or seen.add(h))
        raise DataError(f"column name {shorten(dup)!r} appears twice; expected unique names",
                        source=display, line=lines[0])
    body, body_lines = rows[1:], lines[1:]
    for row, line in zip(body, body_lines):
        if len(row) != len(header):
            raise DataError(f"row has {len(row)} fields; expected {len(header)} (as in the "
                            "header)", source=display, line=line)
    if len(body) < 2:
        raise DataError(f"only {len(body)} data row(s); need at least 2 instances",
                        source=display)
    limits.check_dense(len(body), len(header), "table", display)
    values, numeric = _numeric_matrix(body, len(header))
    columns = list(range(len(header)))  # positions in the file's rows
    notes = list(src.notes)
    if drop_columns:
        absent = [c for c in drop_columns if c not in header]
        if absent:
            raise DataError(f"drop_columns {_few(absent)} not in the header", source=display,
                            line=1)
        columns = [j for j, h in enumerate(header) if h not in set(drop_columns)]
        header = [header[j] for j in columns]
        values, numeric = values[:, columns], numeric[columns]
        notes.append(f"dropped columns {list(drop_columns)}")
    label_idx = _choose_labels(header, values, numeric, label_columns, label_prefix, display,
                               notes)
    feature_idx = [j for j in range(len(header)) if j not in set(label_idx)]
    feature_names = [header[j] for j in feature_idx]
    label_names = [header[j] for j in label_idx]
    for idx, names, what in ((feature_idx, feature_names, "feature"),
                             (label_idx, label_names, "label")):
        file_cols = [columns[j] for j in idx]
        if not numeric[idx].all():
            _first_bad_cell(body, file_cols, names, body_lines, display, what)
        _check_finite(values[:, idx], body, file_cols, names, body_lines, display, what)
    X, Y = values[:, feature_idx], values[:, label_idx]
    bad = (Y != 0) & (Y != 1)
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise DataError(f"label value {shorten(body[i][columns[label_idx[j]]].strip())!r}; expected 0 "
                        "or 1", source=display, line=body_lines[i], column=label_names[j])
    stem = display.rsplit(".", 1)[0] if "." in display else display
    notes.insert(0, f"read {display}")
    return finish_dataset(X, Y.astype(np.uint8), feature_names, label_names, name or stem,
                          notes, display)
