"""Mulan label XML files (``<labels><label name="..."/>...</labels>``).

Parsed with expat directly, with every DTD refused: a document type
declaration is where external entities (XXE) and entity expansion ("billion
laughs") live, and Mulan label files never need one.  Names are checked
against :data:`mlviz._text.MAX_NAME_LENGTH` as each element is read.
"""

from __future__ import annotations

import os
import xml.parsers.expat as expat
from pathlib import Path

from mlviz._text import MAX_NAME_LENGTH, shorten

from ._errors import DataError
from ._limits import resolve
from ._source import read_source
from ._validate import check_name_length


class _Refused(Exception):
    """Raised inside expat handlers; turned into a DataError by the caller."""


def _refuse_dtd(*_args):
    raise _Refused("the label XML declares a DTD (<!DOCTYPE ...>); DTDs, entities and "
                   "external references are refused for safety (Mulan label files need none)")


def _parse_names(data, source_name):
    """Label names in document order, via expat with DTDs refused."""
    names = []
    problem = []
    parser = expat.ParserCreate(namespace_separator="}")

    def start(tag, attrs):
        if tag.rsplit("}", 1)[-1] != "label":
            return
        name = attrs.get("name")
        if name is None:
            raise _Refused("a <label> element has no name attribute")
        if len(name) > MAX_NAME_LENGTH and not problem:
            problem.append(name)
            raise _Refused("")
        names.append(name)

    parser.StartElementHandler = start
    parser.StartDoctypeDeclHandler = _refuse_dtd
    parser.EntityDeclHandler = _refuse_dtd
    parser.ExternalEntityRefHandler = _refuse_dtd
    try:
        parser.Parse(bytes(data), True)
    except _Refused as exc:
        if problem:
            check_name_length(problem[0], "label name", source_name)
        raise DataError(str(exc), source=source_name,
                        line=parser.CurrentLineNumber) from None
    except expat.ExpatError as exc:
        raise DataError(
            f"malformed label XML ({shorten(expat.ErrorString(exc.code), 80)}); expected Mulan "
            "<labels><label name=...></label>...</labels>",
            source=source_name, line=exc.lineno, column=exc.offset + 1,
        ) from None
    return names


def looks_like_xml(obj) -> bool:
    """True for bytes/str holding XML text (as opposed to a path)."""
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj).lstrip()[:1] == b"<"
    if isinstance(obj, str):
        return obj.lstrip()[:1] == "<"
    return False


def is_xml_spec(obj) -> bool:
    """Whether a ``labels=`` argument designates a Mulan XML file or XML text."""
    if looks_like_xml(obj):
        return True
    if isinstance(obj, (str, os.PathLike)):
        return True
    return hasattr(obj, "read") or hasattr(obj, "getvalue")


def read_label_xml(spec, limits=None):
    """Label names, in file order, from a Mulan XML label file.

    Parameters
    ----------
    spec : str, os.PathLike, bytes or file-like
        A path to the XML file, an open/uploaded file, or the XML text itself.
        Hierarchical files (nested ``<label>`` elements) are flattened in
        document order.  The predefined entities (``&apos;``, ``&amp;``, ...)
        and character references are resolved; a DTD is refused.
    limits : Limits, optional
        Size limits for reading the file (default from the environment).

    Returns
    -------
    names : list of str
    source_name : str
        Display name of the XML (for messages and notes).

    Raises
    ------
    DataError
        If the XML is malformed, declares a DTD, names no labels, lacks a
        ``name`` attribute, has a name over the length cap or repeats a name.
    """
    if looks_like_xml(spec):
        data = spec.encode("utf-8") if isinstance(spec, str) else bytes(spec)
        source_name = "<label XML>"
        resolve(limits).check_upload(len(data), source_name)
    else:
        if isinstance(spec, (str, os.PathLike)) and not Path(spec).suffix:
            spec = Path(str(spec) + ".xml")
        try:
            src = read_source(spec, limits)
        except DataError as exc:
            raise DataError(f"label file: {exc.reason}; labels= takes a Mulan XML file (path, "
                            "file or XML text), a list of label names, or an int count",
                            source=exc.source) from None
        data, source_name = src.data, src.name
    names = _parse_names(data, source_name)
    if not names:
        raise DataError("no <label name=...> elements; expected at least one label",
                        source=source_name)
    seen = set()
    for name in names:
        if name in seen:
            raise DataError(f"label {shorten(name)!r} is listed twice; expected unique names",
                            source=source_name)
        seen.add(name)
    return names, source_name
