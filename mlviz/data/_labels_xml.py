"""Mulan label XML files (``<labels><label name="..."/>...</labels>``)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

from ._errors import DataError
from ._source import read_source


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


def read_label_xml(spec):
    """Label names, in file order, from a Mulan XML label file.

    Parameters
    ----------
    spec : str, os.PathLike, bytes or file-like
        A path to the XML file, an open/uploaded file, or the XML text itself.
        Hierarchical files (nested ``<label>`` elements) are flattened in
        document order.  XML entities (``&apos;``, ``&amp;``, ...) are resolved.

    Returns
    -------
    names : list of str
    source_name : str
        Display name of the XML (for messages and notes).

    Raises
    ------
    DataError
        If the XML is malformed, names no labels, lacks a ``name`` attribute
        or repeats a name.
    """
    if looks_like_xml(spec):
        data = spec.encode("utf-8") if isinstance(spec, str) else bytes(spec)
        source_name = "<label XML>"
    else:
        if isinstance(spec, (str, os.PathLike)) and not Path(spec).suffix:
            spec = Path(str(spec) + ".xml")
        try:
            src = read_source(spec)
        except DataError as exc:
            raise DataError(f"label file: {exc.reason}; labels= takes a Mulan XML file (path, "
                            "file or XML text), a list of label names, or an int count",
                            source=exc.source) from None
        data, source_name = src.data, src.name
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        line, col = getattr(exc, "position", (None, None))
        raise DataError(
            f"malformed label XML ({exc.msg if hasattr(exc, 'msg') else exc}); "
            "expected Mulan <labels><label name=...></label>...</labels>",
            source=source_name, line=line, column=None if col is None else col + 1,
        ) from None
    except Exception as exc:  # noqa: BLE001 - e.g. expat limits
        raise DataError(f"cannot parse label XML ({exc})", source=source_name) from None
    names = []
    for element in root.iter():
        tag = element.tag.rsplit("}", 1)[-1] if isinstance(element.tag, str) else ""
        if tag != "label":
            continue
        name = element.get("name")
        if name is None:
            raise DataError("a <label> element has no name attribute", source=source_name)
        names.append(name)
    if not names:
        raise DataError("no <label name=...> elements; expected at least one label",
                        source=source_name)
    seen = set()
    for name in names:
        if name in seen:
            raise DataError(f"label {name!r} is listed twice", source=source_name)
        seen.add(name)
    return names, source_name
