"""The format registry: every file format mlviz reads, declared once.

One :class:`Format` per format (its name, the suffixes that select it, what the
upload form says about it) and the compressions any of them may come in.
:func:`mlviz.data.detect_format` chooses by :func:`format_of_suffix` and sniffs the
content otherwise; the dashboard's upload form accepts :func:`upload_types`;
:mod:`mlviz.data._source` strips :data:`COMPRESSIONS`. Importing this module
loads no parser.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["COMPRESSIONS", "FORMATS", "Format", "SNIFFED_SUFFIXES", "format_of_suffix", "strip_compression",
           "upload_types"]


@dataclass(frozen=True)
class Format:
    """One file format.

    name : str
        ``fmt`` of :func:`mlviz.data.load_dataset`.
    suffixes : tuple of str
        Lower-case extensions (after any compression suffix is removed) that select it.
    description : str
        What the upload form says (markdown).
    """

    name: str
    suffixes: tuple
    description: str


FORMATS = (
    Format("arff", (".arff",), "Mulan / MEKA **ARFF** (labels from a Mulan XML file, MEKA's `-C n`, or a count)"),
    Format("csv", (".csv", ".tsv"), "**CSV** or TSV with a header row (label columns named or counted)"),
    Format("libsvm", (".svm", ".libsvm", ".svmlight"), "**LIBSVM** multi-label (`1,3 4:0.5 7:1`)"),
    Format("npz", (".npz",), "**.npz** with arrays `X`, `Y` (never unpickled)"),
)

#: Suffixes whose format is read from the content (``.txt``: CSV or LIBSVM; no suffix at all).
SNIFFED_SUFFIXES = (".txt",)

#: Compression suffix -> kind (each format may come compressed).
COMPRESSIONS = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}

_BY_SUFFIX = {suffix: f.name for f in FORMATS for suffix in f.suffixes}


def format_of_suffix(suffix: str) -> str | None:
    """The format a lower-case suffix selects (``".tsv"`` -> ``"csv"``), or None (content decides)."""
    return _BY_SUFFIX.get(suffix)


def strip_compression(name_lower: str) -> str:
    """``name_lower`` without a trailing compression suffix (``"a.arff.gz"`` -> ``"a.arff"``)."""
    for suffix in COMPRESSIONS:
        if name_lower.endswith(suffix):
            return name_lower[: -len(suffix)]
    return name_lower


def upload_types() -> list:
    """Extensions (without the dot) an upload may have: every format's, the sniffed ones, the compressions."""
    out = [s[1:] for f in FORMATS for s in f.suffixes] + [s[1:] for s in SNIFFED_SUFFIXES]
    return out + [s[1:] for s in COMPRESSIONS]
