"""Untrusted text: cap, shorten, escape and neutralise user-supplied strings.

Every string that comes from a data file or an upload (data-set, label and
feature names, XML content, cell values) passes through one of these helpers
before it is shown, written into a message or exported:

* :func:`shorten` -- truncate to a display length (messages, titles);
* :func:`printable` -- a file name in any encoding as text that prints and
  encodes as UTF-8 (undecodable bytes and control characters replaced);
* :func:`escape_markdown` -- show as literal text in Streamlit markdown
  (no links, images, HTML or emphasis from a name);
* :func:`escape_html` -- show as literal text in plotly labels, hover text
  and titles (plotly renders a subset of HTML, including ``<a href>``);
* :func:`csv_safe` -- neutralise spreadsheet formulas in CSV exports
  (the OWASP "CSV injection" rule), keeping numbers numeric.

This module imports nothing from :mod:`mlviz`, so every layer can use it.
"""

from __future__ import annotations

import html
import re

__all__ = [
    "MAX_NAME_LENGTH", "MESSAGE_NAME_LENGTH", "shorten", "printable", "escape_markdown", "escape_html",
    "csv_safe", "csv_safe_cell",
]

MAX_NAME_LENGTH = 256
"""Longest data-set, label or feature name a loader accepts (characters)."""

MESSAGE_NAME_LENGTH = 60
"""Longest user string embedded in an error or status message (characters)."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def shorten(text, limit=MESSAGE_NAME_LENGTH):
    """``text`` as a string of at most ``limit`` characters, marked when cut.

    Parameters
    ----------
    text : object
        Converted with ``str``; only its first ``4 * limit`` characters are
        copied, so a 20 MB name costs no more than a short one.
    limit : int
        Maximum length of the result (>= 2).

    Examples
    --------
    >>> shorten("a" * 100, 10)
    'aaaaaaaaa…'
    >>> shorten("short")
    'short'
    """
    head = (text if isinstance(text, str) else str(text))[: limit + 1]
    return head if len(head) <= limit else head[: limit - 1] + "…"


def printable(text):
    """``text`` (str, bytes or path) as a one-line string that prints and encodes as UTF-8.

    A file name on Linux is bytes: Python hands a name that is not valid UTF-8
    over as a str with lone surrogates (``os.fsdecode``'s "surrogateescape"),
    which cannot be encoded, printed to a UTF-8 stream or stored by pyarrow.
    Those bytes are decoded as UTF-8 where they are valid and shown as
    U+FFFD otherwise; control characters (a newline in a file name) become
    ``?``, so a message stays one line.

    Examples
    --------
    >>> printable(b"caf\\xc3\\xa9\\xff.csv")
    'café\ufffd.csv'
    >>> printable("a\\udcffb\\nc")
    'a\ufffdb?c'
    """
    if isinstance(text, (bytes, bytearray)):
        raw = bytes(text)
    else:
        text = text if isinstance(text, str) else str(text)
        try:
            text.encode("utf-8")
            raw = None
        except UnicodeEncodeError:
            try:
                raw = text.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # surrogates that are not escaped bytes
                raw = text.encode("utf-8", "replace")
    if raw is not None:
        text = raw.decode("utf-8", "replace")
    return _CONTROL.sub("?", text)


def escape_markdown(text, limit=None):
    """``text`` escaped so that Streamlit's markdown shows it literally.

    Backslash-escapes every markdown/punctuation character that could start a
    link, image, emphasis, heading, table, HTML tag, directive (``:red[...]``,
    ``:material/…:``) or LaTeX (``$``), and replaces line breaks by spaces.

    Examples
    --------
    >>> escape_markdown("[x](https://a.b)")
    '\\\\[x\\\\]\\\\(https\\\\:\\\\/\\\\/a\\\\.b\\\\)'
    """
    s = str(text) if limit is None else shorten(text, limit)
    s = s.replace("\r", " ").replace("\n", " ")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return s.replace("/", "\\/")


def escape_html(text, limit=None):
    """``text`` with ``& < > " '`` as HTML entities (plotly titles, hover, ticks).

    Examples
    --------
    >>> escape_html('<a href="x">y</a>')
    '&lt;a href=&quot;x&quot;&gt;y&lt;/a&gt;'
    """
    s = str(text) if limit is None else shorten(text, limit)
    return html.escape(s, quote=True)


def csv_safe_cell(value):
    """One CSV cell, neutralised: a string starting with ``= + - @``, tab or
    carriage return gets a leading apostrophe; anything else is returned as is
    (numbers stay numbers).

    Examples
    --------
    >>> csv_safe_cell("=HYPERLINK(1)"), csv_safe_cell(-1.5), csv_safe_cell("a")
    ("'=HYPERLINK(1)", -1.5, 'a')
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_safe(frame):
    """A copy of a pandas DataFrame safe to open in a spreadsheet.

    Column names, index labels and every text cell are passed through
    :func:`csv_safe_cell`; numeric columns are left untouched.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
    """
    from pandas.api.types import is_numeric_dtype

    out = frame.copy()
    out.columns = [csv_safe_cell(c) for c in out.columns]
    if not is_numeric_dtype(out.index.dtype):
        out.index = [csv_safe_cell(i) for i in out.index]
    for col in range(out.shape[1]):
        series = out.iloc[:, col]
        if not is_numeric_dtype(series.dtype):
            out.isetitem(col, series.astype(object).map(csv_safe_cell))
    return out
