"""The single error type of :mod:`mlviz.data`.

Every loader turns whatever goes wrong while reading user data (parser
exceptions, decoding errors, bad shapes, non-numeric cells, ...) into a
:class:`DataError`.  Its message names the file, the line (and column) where
known, and what was expected, e.g.::

    yeast.arff, line 130: label attribute 'Class3' has value '2'; expected 0 or 1
"""

from __future__ import annotations

from mlviz._text import MESSAGE_NAME_LENGTH, printable, shorten

#: Longest ``reason`` kept in a message (a safety net: loaders already shorten
#: every user string they embed to :data:`mlviz._text.MESSAGE_NAME_LENGTH`).
MAX_REASON_LENGTH = 400


def _shorten_tail(source, limit=MESSAGE_NAME_LENGTH):
    """A file name or path cut from the left (the end names the file), printable in any encoding."""
    text = printable(source if isinstance(source, str) else str(source)[: 4 * limit])
    if len(text) <= limit:
        return text
    return "…" + text[len(text) - limit + 1:]


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
        ``source`` and a string ``column`` are shortened to
        :data:`mlviz._text.MESSAGE_NAME_LENGTH` characters and ``reason`` to
        :data:`MAX_REASON_LENGTH`, so a message stays short whatever the file holds.

    Examples
    --------
    >>> str(DataError("expected a number, got 'abc'", source="x.csv", line=3, column="f2"))
    "x.csv, line 3, column 'f2': expected a number, got 'abc'"
    """

    def __init__(self, message, *, source=None, line=None, column=None):
        self.reason = shorten(message, MAX_REASON_LENGTH)
        self.source = None if source is None else _shorten_tail(source)
        self.line = line
        self.column = shorten(column, MESSAGE_NAME_LENGTH) if isinstance(column, str) else column
        source, column = self.source, self.column
        where = []
        if source:
            where.append(str(source))
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column!r}" if isinstance(column, str) else f"column {column}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {self.reason}" if prefix else self.reason)
