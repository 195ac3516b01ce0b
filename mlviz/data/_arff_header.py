"""First pass over an ARFF file: header, names, line numbers; the liac-arff call.

Kept apart from :mod:`mlviz.data.arff` so each module reads in one sitting.
"""

from __future__ import annotations

import re

import arff as liac_arff

from ._errors import DataError

__all__ = ["ArffHeader", "parse_with_liac", "unescape_arff_name", "meka_label_count"]

_NAME_RE = re.compile(
    r"""^@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{}%,'"]+)\s*(.*)$""",
    re.IGNORECASE | re.DOTALL,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_MEKA_RE = re.compile(r"(?:^|[\s:'\"])-C\s+(-?\d+)\b")


def unescape_arff_name(token: str) -> str:
    """Turn a (possibly quoted) ARFF name token into the name it denotes.

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
    """What our own pass over the file learns: names, line numbers, sparsity."""

    def __init__(self, lines, source):
        self.relation = ""
        self.names = []          # unescaped attribute names
        self.attr_lines = []     # 1-based line of each @attribute
        self.data_lines = []     # 1-based line of each data row
        self.dropped_dates = []  # indices of date attributes rewritten to string
        self.sparse = False
        state = "start"
        for i, raw in enumerate(lines):
            row = raw.strip()
            if not row or row.startswith("%"):
                continue
            lower = row.lower()
            if state == "data":
                self.data_lines.append(i + 1)
                continue
            if lower.startswith("@relation"):
                if state != "start":
                    raise DataError("@relation after attributes", source=source, line=i + 1)
                self.relation = row[len("@relation"):].strip()
                lines[i] = f"@relation {self.relation}"  # liac-arff wants a space, not a tab
                state = "relation"
            elif lower.startswith("@attribute"):
                if state == "start":
                    raise DataError("@attribute before @relation; expected an ARFF header",
                                    source=source, line=i + 1)
                match = _NAME_RE.match(row)
                if not match or not match.group(2).strip():
                    raise DataError(f"bad attribute declaration {row[:80]!r}; "
                                    "expected '@attribute <name> <type>'", source=source,
                                    line=i + 1)
                self.names.append(unescape_arff_name(match.group(1)))
                self.attr_lines.append(i + 1)
                kind = match.group(2).strip().lower()
                if kind.startswith("date"):
                    self.dropped_dates.append(len(self.names) - 1)
                    lines[i] = f"@attribute {match.group(1)} string"
                else:
                    lines[i] = f"@attribute {match.group(1)} {match.group(2).strip()}"
                state = "attribute"
            elif lower.startswith("@data"):
                if state != "attribute":
                    raise DataError("@data before any @attribute", source=source, line=i + 1)
                state = "data"
            else:
                raise DataError(f"unexpected header line {row[:80]!r}; expected @relation, "
                                "@attribute or @data", source=source, line=i + 1)
        if state == "start":
            raise DataError("no @relation line; expected an ARFF file", source=source)
        if state != "data":
            raise DataError("no @data section (file truncated?)", source=source)
        first = next((lines[k - 1].strip() for k in self.data_lines), "")
        self.sparse = first.startswith("{")

    def data_line(self, row):
        """File line of data row ``row`` (0-based), or None."""
        if 0 <= row < len(self.data_lines):
            return self.data_lines[row]
        return None


_EXPECTED = {
    "BadNominalValue": "one of the values declared for that attribute",
    "BadNominalFormatting": "one of the values declared for that attribute",
    "BadNumericalValue": "a number",
    "BadAttributeType": "numeric, real, integer, string, date or a {value,...} list",
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
    return obj
