"""ARFF reader (Mulan ARFF + XML, MEKA ARFF), wrapping liac-arff.

The tokenising of data rows is liac-arff's; this module adds what a
multi-label loader needs on top: line numbers for every problem, label
selection by name (Mulan XML), by MEKA ``-C n`` / ``-C -n`` or by count,
names exactly as liac-arff reads them (XML/list lookup also accepts the
Weka reading of quoted names, ``'Swainson\\'s Thrush'`` -> ``Swainson's
Thrush``), size limits checked before parsing, one-hot
encoding of nominal features, dropping string / ID attributes, and keeping
sparse ARFF sparse (CSR).

Encoding rules for a non-label attribute
----------------------------------------
* numeric / real / integer: one float column.
* nominal with two values: one 0/1 column, 1 for the value that reads as
  "true" (``1, yes, y, true, t, positive, pos, +``, case-insensitive) or, if
  neither or both do, for the second declared value (a note says so).
* nominal with three or more values: one-hot columns named ``attr=value``.
* string, or an ID (named ``id``, or nominal with a distinct value on every
  row of at least 10 rows): dropped, with a note (``drop_ids=False`` keeps
  IDs that are nominal/numeric).
* ``date`` attributes: dropped with a note (liac-arff cannot parse them).

Label attributes must be nominal with values in {0, 1} or numeric holding
only 0 and 1.  Missing values (``?``) are refused with their line number, and
so is a sparse row naming the same attribute index twice.  An *empty* item in
a sparse row (``{,3125 1}``, ``{0 1,,5 1}``, ``{0 1,}``; one public Mulan
training split has the first) is skipped with a note, as Weka's reader does
(its tokenizer treats commas as whitespace), so such files load as Mulan and
MEKA load them.
"""

from __future__ import annotations

import difflib
import re

import arff as liac_arff
import numpy as np
import scipy.sparse as sp

from mlviz._text import shorten

from ._arff_header import (  # noqa: F401  (re-exported)
    ArffHeader,
    meka_label_count,
    parse_with_liac,
    unescape_arff_name,
)
from ._errors import DataError
from ._labels_xml import is_xml_spec, read_label_xml
from ._limits import no_memory_error
from ._source import read_source
from ._validate import check_name_length
from .dataset import finish_dataset

__all__ = ["load_arff", "meka_label_count", "unescape_arff_name"]

_POSITIVE = {"1", "yes", "y", "true", "t", "positive", "pos", "+"}
#: The closest-name hint compares against at most this many attribute names.
_CLOSEST_CANDIDATES = 5000


_DATA_LINE = re.compile(r"^[ \t]*@data\b", re.IGNORECASE | re.MULTILINE)
_ATTRIBUTE_LINE = re.compile(r"^[ \t]*@attribute\b", re.IGNORECASE | re.MULTILINE)


def _check_attribute_count(text, limits, source):
    """Size limits by regex scans, before any per-line work: the column limit on
    the number of ``@attribute`` lines and, for dense data, the dense-cell limit
    on (lines after ``@data``) x attributes (an upper bound on the rows)."""
    end = _DATA_LINE.search(text)
    head = text[: end.start()] if end else text
    count = sum(1 for _ in _ATTRIBUTE_LINE.finditer(head))
    limits.check_columns(count, "attribute count", source)
    if end is not None:
        body = text[end.end():end.end() + 4096].lstrip()
        while body.startswith("%"):
            body = body.split("\n", 1)[-1].lstrip() if "\n" in body else ""
        if not body.startswith("{"):
            limits.check_dense(text.count("\n", end.end()), count,
                               "ARFF data (lines after @data x attributes)", source)


def _few(values, k=6):
    """At most ``k`` values, each shortened, for a message."""
    shown = ", ".join(repr(shorten(str(v), 30)) for v in list(values)[:k])
    return f"[{shown}{', ...' if len(values) > k else ''}]"


def _closest_hint(name, names):
    """`` (closest attribute: '...')`` or ``""``.

    Bounded work whatever the file holds: the first ``_CLOSEST_CANDIDATES``
    names, compared on their first 64 characters.
    """
    prefixes = {}
    for candidate in names[:_CLOSEST_CANDIDATES]:
        prefixes.setdefault(candidate[:64], candidate)
    close = difflib.get_close_matches(name[:64], list(prefixes), n=1, cutoff=0.5)
    return f" (closest attribute: {shorten(prefixes[close[0]])!r})" if close else ""


def _select_labels(labels, header, source, notes, limits=None):
    """Indices of label attributes (in label order) and the label names."""
    names = header.names
    n_attr = len(names)
    if labels is None:
        count = meka_label_count(unescape_arff_name(header.relation))
        if count is None:
            raise DataError(
                "labels are needed: pass labels= (a Mulan XML file, a list of label "
                "names, or a count n: first n attributes / -n: last n attributes), or "
                "use a MEKA relation name containing '-C n'", source=source)
        notes.append(f"labels from MEKA option -C {count} in the relation name")
        labels = count
    if isinstance(labels, (int, np.integer)) and not isinstance(labels, bool):
        count = int(labels)
        if count == 0 or abs(count) > n_attr:
            raise DataError(f"label count {count} out of range; expected 1..{n_attr} "
                            f"or -{n_attr}..-1 (file has {n_attr} attributes)", source=source)
        idx = list(range(count)) if count > 0 else list(range(n_attr + count, n_attr))
        return idx, [names[i] for i in idx]
    if is_xml_spec(labels):
        wanted, xml_name = read_label_xml(labels, limits)
        notes.append(f"labels chosen by name from {xml_name}")
    else:
        try:
            wanted = [str(v) for v in labels]
        except TypeError:
            raise DataError(f"labels= must be an XML file, a list of names or an int, got "
                            f"{type(labels).__name__}", source=source) from None
        xml_name = "the label list"
        if not wanted:
            raise DataError("empty label list; expected at least one label", source=source)
        for name in wanted:
            check_name_length(name, "label name", source)
        if len(set(wanted)) != len(wanted):
            raise DataError("the label list repeats a name", source=source)
    position = {}
    for spelling in (names, [n.strip() for n in names], header.weka_names):
        for i, name in enumerate(spelling):
            position.setdefault(name, i)
    idx = []
    for name in wanted:
        i = position.get(name, position.get(name.strip()))
        if i is None:
            raise DataError(f"label {shorten(name)!r} named in {shorten(xml_name)} is not an "
                            f"attribute of the ARFF file{_closest_hint(name, names)}",
                            source=source)
        idx.append(i)
    if len(set(idx)) != len(idx):
        raise DataError(f"two labels named in {shorten(xml_name)} are the same attribute",
                        source=source)
    return idx, list(wanted)


def _column_values(obj, header, j, n):
    """Raw values of attribute j for all rows (object array) and missing mask."""
    if header.sparse:
        data, rows, cols = obj["data"]
        col = np.zeros(n, dtype=object)
        kind = obj["attributes"][j][1]
        col[:] = kind[0] if isinstance(kind, list) else 0.0
        lo, hi = np.searchsorted(header._sorted_cols, [j, j + 1])
        entries = header._order[lo:hi]
        header._explicit = header._rows[entries]
        col[header._explicit] = header._vals[entries]
        missing = np.zeros(n, dtype=bool)
        missing[header._explicit] = _is_none(header._vals[entries])
        return col, missing
    col = header._dense[:, j]
    return col, _is_none(col)


def _is_none(values):
    """Boolean mask of ``None`` entries of an object array (liac-arff's '?')."""
    return np.asarray(np.equal(values, None), dtype=bool).reshape(values.shape)


def _first_bad(mask, header):
    row = int(np.flatnonzero(mask)[0])
    return row, header.data_line(row)


def _numeric(col, missing, header, source, name):
    if missing.any():
        row, line = _first_bad(missing, header)
        raise DataError(f"missing value '?' for {shorten(name)!r}; expected a number", source=source,
                        line=line)
    try:
        return col.astype(np.float64)
    except (TypeError, ValueError):
        bad = np.array([not _is_float(v) for v in col])
        row, line = _first_bad(bad, header)
        raise DataError(f"value {shorten(col[row])!r} of {shorten(name)!r} is not a number", source=source,
                        line=line) from None


def _is_float(v):
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _codes(col, missing, values, header, source, name):
    """Index into ``values`` of every entry of ``col`` (DataError if absent)."""
    if missing.any():
        row, line = _first_bad(missing, header)
        raise DataError(f"missing value '?' for {shorten(name)!r}; expected one of {_few(values)}",
                        source=source, line=line)
    if header.sparse:
        # only explicit entries need a lookup: implicit ones are the first value
        explicit = header._explicit
        codes = np.zeros(len(col), dtype=np.int64)
        codes[explicit] = _lookup(col[explicit], values, explicit, header, source, name)
        return codes
    return _lookup(col, values, np.arange(len(col)), header, source, name)


def _lookup(entries, values, rows, header, source, name):
    declared = np.asarray(values, dtype=str)
    order = np.argsort(declared, kind="stable")
    ordered = declared[order]
    as_text = entries.astype(str)
    pos = np.clip(np.searchsorted(ordered, as_text), 0, len(ordered) - 1)
    found = ordered[pos] == as_text
    if not found.all():
        k = int(np.flatnonzero(~found)[0])
        raise DataError(f"value {shorten(entries[k])!r} of {shorten(name)!r} is not one of {_few(values)}",
                        source=source, line=header.data_line(int(rows[k])))
    return order[pos]


def _label_column(obj, header, j, n, source):
    name = header.names[j]
    kind = obj["attributes"][j][1]
    col, missing = _column_values(obj, header, j, n)
    if missing.any():
        row, line = _first_bad(missing, header)
        raise DataError(f"label {shorten(name)!r} is missing ('?'); expected 0 or 1", source=source,
                        line=line)
    if isinstance(kind, list):
        if not set(kind) <= {"0", "1"}:
            raise DataError(f"label attribute {shorten(name)!r} is nominal {{{shorten(','.join(kind))}}}; "
                            "expected {0,1}", source=source, line=header.attr_lines[j])
        codes = _codes(col, missing, kind, header, source, name)
        return np.array([int(v) for v in kind], dtype=np.uint8)[codes]
    if kind == "STRING":
        raise DataError(f"label attribute {shorten(name)!r} is a string attribute; expected {{0,1}}",
                        source=source, line=header.attr_lines[j])
    values = _numeric(col, missing, header, source, name)
    bad = (values != 0) & (values != 1)
    if bad.any():
        row, line = _first_bad(bad, header)
        raise DataError(f"label {shorten(name)!r} has value {values[row]:g}; expected 0 or 1",
                        source=source, line=line)
    return values.astype(np.uint8)


def _encode_feature(obj, header, j, n, source, notes, drop_ids):
    """List of (column name, float column) for attribute j (empty if dropped)."""
    name = header.names[j]
    kind = obj["attributes"][j][1]
    if j in header.dropped_dates:
        notes.append(f"dropped date attribute {shorten(name)!r}")
        return []
    if kind == "STRING":
        notes.append(f"dropped string attribute {shorten(name)!r}")
        return []
    col, missing = _column_values(obj, header, j, n)
    if drop_ids and name.strip().lower() == "id":
        notes.append(f"dropped ID attribute {shorten(name)!r}")
        return []
    if not isinstance(kind, list):
        return [(name, _numeric(col, missing, header, source, name))]
    codes = _codes(col, missing, kind, header, source, name)
    if drop_ids and len(kind) > 2 and n >= 10 and len(np.unique(codes)) == n:
        notes.append(f"dropped ID attribute {shorten(name)!r} (nominal, a distinct value on every row)")
        return []
    if len(kind) <= 2:
        positive = [k for k, v in enumerate(kind) if v.strip().lower() in _POSITIVE]
        if len(positive) == 1:
            pos = positive[0]
        else:
            pos = len(kind) - 1
            notes.append(f"nominal {shorten(name)!r} encoded as 1 = {shorten(kind[pos])!r}, 0 = otherwise")
        return [(name, (codes == pos).astype(np.float64))]
    notes.append(f"nominal {shorten(name)!r} one-hot encoded into {len(kind)} columns")
    return [(f"{name}={v}", (codes == k).astype(np.float64)) for k, v in enumerate(kind)]


@no_memory_error
def load_arff(source, labels=None, *, name=None, drop_ids=True, limits=None):
    """Read a multi-label ARFF file (Mulan or MEKA; dense or sparse).

    Parameters
    ----------
    source : str, os.PathLike or file-like
        The ``.arff`` or ``.arff.gz`` file (a Streamlit upload works).
    labels : XML path/file-like/bytes, list of str, int or None
        * Mulan XML label file (or its text): labels chosen **by name**; ``Y``
          columns follow the XML order and carry the XML names exactly.
        * list of attribute names: the same, in the list's order.
        * int ``n``: MEKA convention, ``n > 0`` the first n attributes, ``n < 0``
          the last ``|n|``.
        * None: ``-C n`` / ``-C -n`` from a MEKA relation name, else DataError.
    name : str, optional
        Data set name (default: the file name without ``.arff``/``.gz``).
    drop_ids : bool, default True
        Drop ID attributes (see module docstring).  String attributes are
        always dropped.
    limits : Limits, optional
        Default :meth:`~mlviz.data.Limits.from_env`.

    Returns
    -------
    MultiLabelDataset
        ``X`` is CSR for sparse ARFF, a dense float64 array otherwise; ``Y``
        is uint8 of shape (n_samples, n_labels).

    Raises
    ------
    DataError
        For every malformed input, naming the file and line.

    Examples
    --------
    >>> ds = load_arff("sample_data/emotions.arff.gz", labels="sample_data/emotions.xml")
    >>> ds.X.shape, ds.Y.shape  # doctest: +SKIP
    ((593, 72), (593, 6))
    """
    src = read_source(source, limits)
    display = src.name
    text = src.text()
    src.data = b""  # the decoded text replaces the bytes (halves the peak)
    if not text.strip():
        raise DataError("file is empty; expected an ARFF file", source=display)
    _check_attribute_count(text, src.limits, display)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    header = ArffHeader(lines, display, src.limits)
    if not header.data_lines:
        raise DataError("no data rows after @data; expected at least 2 instances",
                        source=display)
    notes = list(src.notes)
    if header.sparse:
        n_fixed = _drop_empty_sparse_items(lines, header)
        if n_fixed:
            notes.append(f"{n_fixed} sparse row(s) with an empty item (e.g. '{{,3 1}}'); the empty items "
                         "were skipped, as Weka's ARFF reader does")
    obj = parse_with_liac(lines, header, display)
    if header.sparse:
        data, rows, cols = obj["data"]
        n = len(header.data_lines)
        header._rows = np.asarray(rows, dtype=np.int64)
        header._cols = np.asarray(cols, dtype=np.int64)
        _check_sparse_duplicates(lines, header, display)
        header._vals = np.empty(len(data), dtype=object)
        header._vals[:] = data
        header._order = np.argsort(header._cols, kind="stable")
        header._sorted_cols = header._cols[header._order]
    else:
        n = len(obj["data"])
        dense = np.empty((n, len(header.names)), dtype=object)
        for i, row in enumerate(obj["data"]):
            dense[i, :] = row
        header._dense = dense
    if n < 2:
        raise DataError(f"only {n} data row; need at least 2 instances", source=display)

    label_idx, label_names = _select_labels(labels, header, display, notes, src.limits)
    if len(set(label_idx)) == len(header.names):
        raise DataError("the label set selects every attribute; expected at least one "
                        "feature", source=display)
    Y = np.zeros((n, len(label_idx)), dtype=np.uint8)
    for k, j in enumerate(label_idx):
        Y[:, k] = _label_column(obj, header, j, n, display)
    label_set = set(label_idx)
    feature_idx = [j for j in range(len(header.names)) if j not in label_set]
    if not feature_idx:
        raise DataError("the label set selects every attribute; expected at least one "
                        "feature", source=display)
    if header.sparse:
        X, feature_names = _sparse_features(obj, header, feature_idx, n, display, notes,
                                            drop_ids)
    else:
        columns = []
        for j in feature_idx:
            columns += _encode_feature(obj, header, j, n, display, notes, drop_ids)
        feature_names = [c[0] for c in columns]
        X = (np.column_stack([c[1] for c in columns]) if columns
             else np.zeros((n, 0)))
    _check_finite(X, header, feature_names, display)
    stem = display
    for suffix in (".gz", ".arff"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
    notes.insert(0, f"read {display} (relation {shorten(unescape_arff_name(header.relation))!r})")
    return finish_dataset(X, Y, feature_names, label_names, name or stem, notes, display)


_EMPTY_ITEM = re.compile(r"[{,]\s*[,}]")
"""A comma right after ``{`` or another comma, or right before ``}``: a possibly empty sparse item."""


def _sparse_items(inner):
    """Split the inside of a sparse row at the commas outside quotes (backslash escapes kept)."""
    if "'" not in inner and '"' not in inner:
        return inner.split(",")
    items, start, quote, k = [], 0, None, 0
    while k < len(inner):
        c = inner[k]
        if quote:
            if c == "\\":
                k += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == ",":
            items.append(inner[start:k])
            start = k + 1
        k += 1
    items.append(inner[start:])
    return items


def _drop_empty_sparse_items(lines, header):
    """Rewrite, in place, sparse data rows with empty items (``{,3125 1}``, ``{0 1,,2 1}``, ``{0 1,}``).

    Weka's ARFF reader tokenises with commas as whitespace, so it reads such
    rows as if the empty items were not there; Mulan and MEKA load public
    splits containing them. Only items that are empty or blank are dropped; a
    row that is not of the form ``{...}`` is left for the parser to report.

    Returns
    -------
    n_rows : int
        Rows rewritten.
    """
    fixed = 0
    for line_no in header.data_lines:
        line = lines[line_no - 1]
        text = line.strip()
        if not (text.startswith("{") and text.endswith("}")) or not _EMPTY_ITEM.search(text):
            continue
        items = _sparse_items(text[1:-1])
        kept = [item for item in items if item.strip()]
        if len(kept) < len(items) and (kept or len(items) > 1):
            lines[line_no - 1] = "{" + ",".join(kept) + "}"
            fixed += 1
    return fixed


def _sparse_entry_count(line):
    """Number of ``index value`` entries written on a sparse data line."""
    inner = line.strip()[1:-1]
    if not inner.strip():
        return 0
    if "'" in inner or '"' in inner:
        return sum(1 for m in liac_arff._RE_SPARSE_KEY_VALUES.finditer(line.strip())
                   if m.group(1))
    return inner.count(",") + 1


def _check_sparse_duplicates(lines, header, source):
    """DataError for a sparse row that names the same attribute index twice.

    liac-arff reads a sparse row into a dict, so a repeated index silently
    keeps the last value; here the entries written on each line are counted
    against the entries liac-arff kept.
    """
    kept = np.bincount(header._rows, minlength=len(header.data_lines))
    for row, line_no in enumerate(header.data_lines):
        line = lines[line_no - 1]
        if line.count(",") + 1 <= kept[row]:
            continue  # at most as many entries as kept: no repeat
        if _sparse_entry_count(line) > kept[row]:
            cols = [int(m.group(1)) for m in liac_arff._RE_SPARSE_KEY_VALUES.finditer(line.strip())
                    if m.group(1)]
            seen = set()
            dup = next((c for c in cols if c in seen or seen.add(c)), None)
            raise DataError(f"sparse row names attribute index {dup} twice; expected each "
                            "index at most once", source=source, line=line_no)


def _sparse_features(obj, header, feature_idx, n, source, notes, drop_ids):
    """CSR feature matrix: numeric attributes straight from the COO triplets."""
    attrs = obj["attributes"]
    numeric = np.zeros(len(header.names), dtype=bool)
    for j in feature_idx:
        numeric[j] = not isinstance(attrs[j][1], list) and attrs[j][1] != "STRING"
        if j in header.dropped_dates or (drop_ids and header.names[j].strip().lower() == "id"):
            numeric[j] = False
    new_col = np.full(len(header.names), -1, dtype=np.int64)
    names, extra_rows, extra_cols, extra_vals = [], [], [], []
    for j in feature_idx:
        if numeric[j]:
            new_col[j] = len(names)
            names.append(header.names[j])
            continue
        for col_name, values in _encode_feature(obj, header, j, n, source, notes, drop_ids):
            nz = np.flatnonzero(values)
            extra_rows.append(nz)
            extra_cols.append(np.full(len(nz), len(names)))
            extra_vals.append(values[nz])
            names.append(col_name)
    sel = numeric[header._cols] if len(header._cols) else np.zeros(0, dtype=bool)
    vals = header._vals[sel]
    missing = _is_none(vals)
    if missing.any():
        k = int(np.flatnonzero(missing)[0])
        row = int(header._rows[sel][k])
        raise DataError(f"missing value '?' for {shorten(header.names[header._cols[sel][k]])!r}; "
                        "expected a number", source=source, line=header.data_line(row))
    try:
        fvals = vals.astype(np.float64)
    except (TypeError, ValueError):
        bad = np.array([not _is_float(v) for v in vals])
        k = int(np.flatnonzero(bad)[0])
        row = int(header._rows[sel][k])
        raise DataError(f"value {shorten(vals[k])!r} is not a number", source=source,
                        line=header.data_line(row)) from None
    rows = np.concatenate([header._rows[sel]] + extra_rows).astype(np.int64)
    cols = np.concatenate([new_col[header._cols[sel]]] + extra_cols).astype(np.int64)
    data = np.concatenate([fvals] + extra_vals).astype(np.float64)
    X = sp.csr_matrix((data, (rows, cols)), shape=(n, len(names)))
    X.sum_duplicates()
    X.sort_indices()
    return X, names


def _check_finite(X, header, feature_names, source):
    values = X.data if sp.issparse(X) else X
    finite = np.isfinite(values)
    if finite.all():
        return
    if sp.issparse(X):
        coo = X.tocoo()
        k = int(np.flatnonzero(~np.isfinite(coo.data))[0])
        row, col = int(coo.row[k]), int(coo.col[k])
    else:
        row, col = (int(v[0]) for v in np.nonzero(~finite))
    raise DataError(f"feature {shorten(feature_names[col])!r} is NaN or infinite; expected finite "
                    "numbers", source=source, line=header.data_line(row))
