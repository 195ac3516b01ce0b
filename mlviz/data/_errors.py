"""The single error type of :mod:`mlviz.data`.

Every loader turns whatever goes wrong while reading user data (parser
exceptions, decoding errors, bad shapes, non-numeric cells, ...) into a
:class:`DataError`.  Its message names the file, the line (and column) where
known, and what was expected, e.g.::

    yeast.arff, line 130: label attribute 'Class3' has value '2'; expected 0 or 1
"""

from __future__ import annotations


class DataError(ValueError):
    """Bad input data: the message says which file, where, and what was expected.

    Parameters
    ----------
    message : str
        What was wrong and what was expected.
    source : str, optional
        Display name of the file (a path's file name or an upload's ``.name``).
    line : int, optional
        1-based line number in the (decompressed) file.
    column : int or str, optional
        1-based column number or a column name.

    Attributes
    ----------
    source, line, column, reason : as given (``reason`` is the bare message).

    Examples
    --------
    >>> str(DataError("expected a number, got 'abc'", source="x.csv", line=3, column="f2"))
    "x.csv, line 3, column 'f2': expected a number, got 'abc'"
    """

    def __init__(self, message, *, source=None, line=None, column=None):
        self.reason = str(message)
        self.source = source
        self.line = line
        self.column = column
        where = []
        if source:
            where.append(str(source))
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column!r}" if isinstance(column, str) else f"column {column}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {self.reason}" if prefix else self.reason)
