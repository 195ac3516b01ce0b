"""``load_dataset``: one entry point, format chosen by extension or content."""

from __future__ import annotations

import re

from ._errors import DataError
from ._limits import no_memory_error
from ._source import Source, read_source
from .arff import load_arff
from .csv import load_csv
from .formats import format_of_suffix
from .libsvm import load_libsvm
from .npz import load_npz

__all__ = ["load_dataset", "detect_format"]

_LIBSVM_LINE = re.compile(r"^\s*(\d+(,\d+)*)?(\s+\d+:\S+)*\s*(#.*)?$")
_LIBSVM_START = re.compile(r"^\s*\d+:\S+(\s+\d+:\S+)*\s*(#.*)?$")


def detect_format(source: Source) -> str:
    """Format name (``arff``, ``csv``, ``libsvm``, ``npz``) from suffix (:mod:`mlviz.data.formats`), else content.

    Content rules: a zip header is ``npz``; a first non-blank line starting
    with ``%`` or ``@relation`` is ``arff``; first lines that all look like
    ``labels index:value ...`` (or start with ``#``) are ``libsvm``; anything
    else is ``csv``.
    """
    by_suffix = format_of_suffix(source.suffix)
    if by_suffix is not None:
        return by_suffix
    if source.suffix == ".xml":
        raise DataError("this is a label XML file; load the ARFF file and pass the XML "
                        "as labels=", source=source.name)
    if source.data[:4] == b"PK\x03\x04":
        return "npz"
    head = source.data[:65536].decode("utf-8", errors="replace")
    lines = [ln for ln in head.replace("\r", "\n").split("\n") if ln.strip()][:20]
    if not lines:
        raise DataError("file is empty", source=source.name)
    first = lines[0].lstrip().lower()
    if first.startswith("%") or first.startswith("@relation"):
        return "arff"
    if first.startswith("#"):
        return "libsvm"
    sample = lines[:-1] if len(lines) > 1 else lines
    if all(_LIBSVM_LINE.match(ln) or _LIBSVM_START.match(ln) for ln in sample) and any(
            ":" in ln for ln in sample):
        return "libsvm"
    return "csv"


@no_memory_error
def load_dataset(path_or_file, *, labels=None, fmt=None, limits=None, **options):
    """Load a multi-label data set from a path or an uploaded file.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file-like
        A path or an object with ``.name`` and ``getvalue()``/``read()`` (e.g.
        a Streamlit ``UploadedFile``).  ``.gz`` compression is undone first.
    labels : optional
        ARFF: Mulan XML (path, file-like, or XML text/bytes), list of label
        names, or int (MEKA: ``n`` first / ``-n`` last attributes); None reads
        ``-C`` from the relation name.  CSV: list of label column names or a
        count of trailing columns (None: detected).  svmlight: int =
        ``n_labels`` or a list of label names.  npz: unused.
    fmt : {"arff", "csv", "libsvm", "npz"}, optional
        Force the format instead of detecting it.
    limits : Limits, optional
        Size limits (upload, decompression, columns, dense cells); default
        :meth:`~mlviz.data.Limits.from_env` (``MLVIZ_*`` environment variables).
    **options
        Passed to the format's loader (e.g. ``label_prefix``, ``drop_columns``,
        ``zero_based``, ``n_features``, ``name``, ``drop_ids``).

    Returns
    -------
    MultiLabelDataset

    Raises
    ------
    DataError
        For every unreadable or invalid input (and unknown options), every
        limit exceeded (the message names it) and running out of memory.

    See Also
    --------
    load_dataset_isolated : the same, parsed in a short-lived worker process
        (for uploads: a crash, bomb or hang there is one DataError).
    """
    source = read_source(path_or_file, limits)
    fmt = (fmt or detect_format(source)).lower()
    try:
        if fmt == "arff":
            return load_arff(source, labels=labels, **options)
        if fmt == "csv":
            if isinstance(labels, str):
                labels = [labels]
            elif isinstance(labels, (bytes, bytearray)) or hasattr(labels, "read"):
                raise DataError("a label XML file applies to ARFF data; for CSV pass "
                                "the label column names", source=source.name)
            return load_csv(source, label_columns=labels, **options)
        if fmt == "libsvm":
            names = None
            if labels is not None and not isinstance(labels, int):
                names = [str(v) for v in labels]
                options.setdefault("n_labels", len(names))
            elif labels is not None:
                options.setdefault("n_labels", labels)
            return load_libsvm(source, label_names=names, **options)
        if fmt == "npz":
            return load_npz(source, **options)
    except TypeError as exc:
        raise DataError(f"unsupported option for {fmt} files ({exc})",
                        source=source.name) from None
    raise DataError(f"unknown format {fmt!r}; expected arff, csv, libsvm or npz",
                    source=source.name)
