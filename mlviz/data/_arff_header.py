"""First pass over an ARFF file: header, names, line numbers, limits; the liac-arff call.

liac-arff (the reader scikit-learn and OpenML use) tokenises the file; this
pass adds only what it lacks, and never changes how a name reads:

* attribute names are taken **exactly as liac-arff reads them** (its own
  ``_RE_ATTRIBUTE`` pattern, surrounding quotes stripped, no backslash
  unescaping), so ``TAG_m\\'usica`` and ``TAG_dise\\~no`` (Mulan's delicious)
  come out as liac-arff and the Mulan XML spell them.  For quoted names the
  Weka reading (backslash escapes resolved, ``'Swainson\\'s Thrush'`` ->
  ``Swainson's Thrush``) is kept as an alternative spelling for label lookup;
* line numbers of every attribute and data row (liac-arff reports none for
  most errors);
* limits checked before parsing: attribute count, name length, dense cells;
  a name declared twice is reported with both lines;
* tolerance: ``@attribute``/``@relation`` followed by a tab, relation names
  with spaces (MEKA: ``@relation scene: -C -6``), ``date`` attributes (read
  as strings and dropped, liac-arff cannot parse them).
"""

from __future__ import annotations

import re

import arff as liac_arff

from mlviz._text import shorten

from ._errors import DataError
from ._validate import check_name_length

__all__ = ["ArffHeader", "parse_with_liac", "unescape_arff_name", "meka_label_count"]

#: liac-arff's own attribute pattern: (name token, type); names are then ``strip('"\'')``.
_ATTRIBUTE_RE = getattr(liac_arff, "_RE_ATTRIBUTE", None) or re.compile(
    r"""^(\".*\"|\'.*\'|[^\{\}%,\s]*)\s+(.+)$""", re.UNICODE)
_KEYWORD_RE = re.compile(r"^(@relation|@attribute|@data)(?=\s|$)", re.IGNORECASE)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_MEKA_RE = re.compile(r"(?:^|[\s:'\"])-C\s+(-?\d+)\b")


def unescape_arff_name(token: str) -> str:
    """The Weka reading of a (possibly quoted) ARFF name token: quotes removed,
    backslash escapes resolved.

    >>> unescape_arff_name("'Swainson\\\\'s Thrush'")
    "Swainson's Thrush"
    """
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "'\"":
        token = token[1:-1]
    if "\\" not in token:
        return token
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), token,
                  flags=re.DOTALL)


def meka_label_count(relation: str):
    """The ``n`` of a MEKA ``-C n`` option in a relation name, or None.

    ``-C n`` (n > 0): the first n attributes are labels; ``-C -n``: the last n.

    >>> meka_label_count("'Music: -C 6'")
    6
    >>> meka_label_count("scene: -C -6 -split 0.66") is None
    False
    """
    match = _MEKA_RE.search(relation)
    return int(match.group(1)) if match else None


class ArffHeader:
    """What our own pass over the file learns: names, line numbers, sparsity.

    Parameters
    ----------
    lines : list of str
        The file's lines; rewritten in place where liac-arff needs it
        (keyword followed by a tab, relation line, date attributes).
    source : str
        Display name for messages.
    limits : Limits
        ``max_columns`` (attributes) and ``max_dense_cells`` (dense rows x
        attributes) are checked here, before liac-arff runs.
    """

    def __init__(self, lines, source, limits):
        self.relation = ""
        self.names = []          # attribute names as liac-arff reads them
        self.weka_names = []     # quoted names with escapes resolved (Weka's reading)
        self.attr_lines = []     # 1-based line of each @attribute
        self.data_lines = []     # 1-based line of each data row
        self.dropped_dates = []  # indices of date attributes rewritten to string
        self.sparse = False
        first_line = {}
        state = "start"
        for i, raw in enumerate(lines):
            row = raw.strip()
            if not row or row.startswith("%"):
                continue
            if state == "data":
                self.data_lines.append(i + 1)
                continue
            keyword = _KEYWORD_RE.match(row)
            lower = keyword.group(1).lower() if keyword else ""
            rest = row[keyword.end():].strip() if keyword else ""
            if lower == "@relation":
                if state != "start":
                    raise DataError("@relation after attributes", source=source, line=i + 1)
                self.relation = rest
                lines[i] = "@relation mlviz"  # ours is kept; liac-arff wants no spaces unquoted
                state = "relation"
            elif lower == "@attribute":
                if state == "start":
                    raise DataError("@attribute before @relation; expected an ARFF header",
                                    source=source, line=i + 1)
                self._attribute(rest, lines, i, source, limits, first_line)
                state = "attribute"
            elif lower == "@data":
                if state != "attribute":
                    raise DataError("@data before any @attribute", source=source, line=i + 1)
                state = "data"
            else:
                raise DataError(f"unexpected header line {shorten(row)!r}; expected @relation, "
                                "@attribute or @data", source=source, line=i + 1)
        if state == "start":
            raise DataError("no @relation line; expected an ARFF file", source=source)
        if state != "data":
            raise DataError("no @data section (file truncated?)", source=source)
        first = next((lines[k - 1].strip() for k in self.data_lines), "")
        self.sparse = first.startswith("{")
        if not self.sparse:
            limits.check_dense(len(self.data_lines), len(self.names),
                               "ARFF data (rows x attributes)", source)

    def _attribute(self, rest, lines, i, source, limits, first_line):
        match = _ATTRIBUTE_RE.match(rest)
        if not match or not match.group(1) or not match.group(2).strip():
            raise DataError(f"bad attribute declaration {shorten('@attribute ' + rest)!r}; "
                            "expected '@attribute <name> <type>' (quote names holding "
                            "spaces, commas, % or braces)", source=source, line=i + 1)
        token, kind = match.group(1), match.group(2).strip()
        name = token.strip("\"'")
        check_name_length(name, "attribute name", source, line=i + 1)
        if name in first_line:
            raise DataError(f"attribute name {shorten(name)!r} declared twice (lines "
                            f"{first_line[name]} and {i + 1}); expected unique names",
                            source=source, line=i + 1)
        first_line[name] = i + 1
        limits.check_columns(len(self.names) + 1, "attribute count", source, line=i + 1)
        self.names.append(name)
        quoted = token[:1] in "'\"" and len(token) >= 2 and token[-1] == token[0]
        self.weka_names.append(unescape_arff_name(token) if quoted else name)
        self.attr_lines.append(i + 1)
        if kind.lower().startswith("date"):
            self.dropped_dates.append(len(self.names) - 1)
            lines[i] = f"@attribute {token} string"
        else:
            lines[i] = f"@attribute {rest}"

    def data_line(self, row):
        """File line of data row ``row`` (0-based), or None."""
        if 0 <= row < len(self.data_lines):
            return self.data_lines[row]
        return None


_EXPECTED = {
    "BadNominalValue": "one of the values declared for that attribute",
    "BadNominalFormatting": "one of the values declared for that attribute",
    "BadNumericalValue": "a number",
    "BadAttributeType": ("numeric, real, integer, string, date or a {value,...} list (names "
                         "holding spaces must be quoted)"),
    "BadAttributeName": "unique attribute names",
    "BadAttributeFormat": "'@attribute <name> <type>'",
    "BadRelationFormat": "'@relation <name>' (quote names with spaces)",
}


def _row_expectation(header):
    n = len(header.names)
    if header.sparse:
        return f"a sparse row '{{index value, ...}}' with indices 0..{n - 1}"
    return f"a row of {n} comma-separated values"


def parse_with_liac(lines, header, source):
    decoder = liac_arff.ArffDecoder()
    kind = liac_arff.COO if header.sparse else liac_arff.DENSE
    try:
        obj = decoder.decode(iter(lines), encode_nominal=False, return_type=kind)
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - wrap every parser failure
        line = getattr(decoder, "_current_line", None) or None
        what = type(exc).__name__
        detail = str(exc)
        if isinstance(exc, liac_arff.ArffException):
            try:
                detail = exc.message % line if "%" in (exc.message or "") else exc.message
            except Exception:  # noqa: BLE001
                detail = what
            detail = re.sub(r",? at line -?\d+\.?$", "", detail or what)
        detail = shorten(detail, 120)
        expected = _EXPECTED.get(what) or _row_expectation(header)
        if "escape" in detail or "base 8" in detail:
            expected = "valid backslash escapes in quoted values (\\n, \\t, \\', \\ddd octal)"
        elif what == "OverflowError":
            expected = "a finite number for an integer attribute"
        raise DataError(f"cannot parse ARFF ({what}: {detail}); expected {expected}",
                        source=source, line=line) from None
    if len(obj["attributes"]) != len(header.names):
        raise DataError("could not read the attribute declarations consistently",
                        source=source)
    names = [a[0] for a in obj["attributes"]]
    if names != header.names:  # pragma: no cover - same pattern as liac-arff's
        k = next(j for j, (a, b) in enumerate(zip(names, header.names)) if a != b)
        raise DataError(f"attribute name {shorten(names[k])!r} read differently by the header "
                        "pass", source=source, line=header.attr_lines[k])
    return obj
