"""Resource limits for reading untrusted data (uploads).

Every loader checks its input against one :class:`Limits` object *before*
the work that the limit protects (decompression, allocation, parsing), and
says which limit was hit and how to raise it.  Defaults come from the
environment, read when :meth:`Limits.from_env` is called:

=============================  =======  ==============================================
environment variable           default  meaning
=============================  =======  ==============================================
``MLVIZ_MAX_UPLOAD_MB``        50       largest file accepted, as given (compressed or
                                        not), in MB of 10^6 bytes (:data:`UPLOAD_MB`);
                                        keep it equal to Streamlit's
                                        ``server.maxUploadSize``
``MLVIZ_INFLATE_RATIO``        4        a compressed file may inflate to at most this
                                        many times ``MLVIZ_MAX_UPLOAD_MB`` (200 MB)
``MLVIZ_MAX_COLUMNS``          1000000  attributes / columns / feature indices / label
                                        ids per file
``MLVIZ_MAX_DENSE_CELLS``      50000000 cells of a dense ``X`` or ``Y``
                                        (rows x columns; 400 MB as float64)
``MLVIZ_WORKER_MEMORY_MB``     2048     address-space limit of the parse worker
                                        (:func:`~mlviz.data.load_dataset_isolated`;
                                        MiB of 2^20 bytes)
``MLVIZ_WORKER_CPU_SECONDS``   120      CPU-time limit of the parse worker
``MLVIZ_WORKER_TIMEOUT``       180      wall-clock limit of the parse worker (seconds)
``MLVIZ_READ_TIMEOUT``         60       wall-clock limit of reading one file from a path
                                        (seconds; e.g. a hung network file system)
=============================  =======  ==============================================

A path is read only if it is a regular file (``os.stat`` and again ``fstat``
on the opened descriptor): devices (``/dev/zero``), FIFOs and sockets are
refused before they are opened, whatever their name or a symbolic link says
(:func:`mlviz.data._source.read_path`).

**One unit for the upload limit.** Streamlit's file uploader counts
``server.maxUploadSize`` in MB of 10^6 bytes in browsers on Linux and macOS
(its frontend uses 2^20 only on Windows; its server accepts 2^20 bytes per MB
plus 1 MB of form overhead).  ``MLVIZ_MAX_UPLOAD_MB`` uses the same 10^6, so
with both set to 50 a file of at most 50,000,000 bytes is accepted by the
browser, the server and the parser alike, and a larger one is refused by the
browser or, from a Windows browser, by the parser with a message naming the
limit.  Sizes in messages are decimal too (:func:`format_bytes`: "50.0 MB").

Names (data-set, feature, label) longer than :data:`mlviz._text.MAX_NAME_LENGTH`
(256 characters) are refused.  Independently of the cap, a compressed stream
that has produced more than 16 MiB at more than 2000 times the compressed
bytes read so far is refused as a bomb (:data:`mlviz.data._source.MAX_RATIO`;
gzip cannot exceed ~1032:1, real data sets stay far below).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields, replace

from ._errors import DataError

__all__ = ["Limits", "ENV_VARS", "format_bytes", "UPLOAD_MB"]

#: Bytes in one MB of an upload limit (``MLVIZ_MAX_UPLOAD_MB``, Streamlit's ``server.maxUploadSize`` as
#: its uploader checks it in Linux and macOS browsers): 10^6.
UPLOAD_MB = 1_000_000
#: Bytes in one MiB (``MLVIZ_WORKER_MEMORY_MB``, an address-space limit).
MB = 1024 * 1024

#: field name -> (environment variable, default, unit multiplier)
ENV_VARS = {
    "max_upload_bytes": ("MLVIZ_MAX_UPLOAD_MB", 50, UPLOAD_MB),
    "inflate_ratio": ("MLVIZ_INFLATE_RATIO", 4, 1),
    "max_columns": ("MLVIZ_MAX_COLUMNS", 1_000_000, 1),
    "max_dense_cells": ("MLVIZ_MAX_DENSE_CELLS", 50_000_000, 1),
    "worker_memory_bytes": ("MLVIZ_WORKER_MEMORY_MB", 2048, MB),
    "worker_cpu_seconds": ("MLVIZ_WORKER_CPU_SECONDS", 120, 1),
    "worker_timeout": ("MLVIZ_WORKER_TIMEOUT", 180, 1),
    "read_timeout": ("MLVIZ_READ_TIMEOUT", 60, 1),
}
_FLOAT_FIELDS = ("inflate_ratio", "read_timeout")


def format_bytes(n) -> str:
    """``n`` bytes as a short human string in decimal units, the upload limit's (``"1.5 MB"`` = 1,500,000 bytes)."""
    n = float(n)
    for unit in ("bytes", "kB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


@dataclass(frozen=True)
class Limits:
    """Limits applied while reading one untrusted input.

    Parameters
    ----------
    max_upload_bytes : int
        Largest input accepted as given (compressed or not).
    inflate_ratio : float
        Decompressed content may be at most ``inflate_ratio * max_upload_bytes``.
    max_columns : int
        Largest number of attributes/columns, feature index or label id.
    max_dense_cells : int
        Largest ``rows * columns`` of a dense ``X`` or ``Y``.
    worker_memory_bytes, worker_cpu_seconds, worker_timeout : int
        Address-space, CPU-time and wall-clock limits of the parse worker
        (:func:`mlviz.data.load_dataset_isolated`).
    read_timeout : float
        Seconds allowed for opening and reading one file given as a path.

    Examples
    --------
    >>> Limits(max_upload_bytes=1_000_000).max_inflated_bytes
    4000000
    """

    max_upload_bytes: int = 50 * UPLOAD_MB
    inflate_ratio: float = 4
    max_columns: int = 1_000_000
    max_dense_cells: int = 50_000_000
    worker_memory_bytes: int = 2048 * MB
    worker_cpu_seconds: int = 120
    worker_timeout: float = 180
    read_timeout: float = 60

    @classmethod
    def from_env(cls, environ=None, **overrides):
        """Limits from the ``MLVIZ_*`` environment variables (see module docstring).

        Raises
        ------
        DataError
            If a variable is not a positive finite number.
        """
        environ = os.environ if environ is None else environ
        values = {}
        for field_name, (var, default, unit) in ENV_VARS.items():
            raw = environ.get(var)
            if raw is None or not str(raw).strip():
                values[field_name] = default * unit
                continue
            try:
                number = float(raw)
            except ValueError:
                number = -1.0
            if not (number > 0 and math.isfinite(number)):
                raise DataError(f"environment variable {var}={str(raw)[:40]!r}; expected a "
                                "positive number")
            values[field_name] = number if field_name in _FLOAT_FIELDS else int(number * unit)
        values.update(overrides)
        return cls(**values)

    @property
    def max_inflated_bytes(self) -> int:
        """Largest decompressed size: ``inflate_ratio * max_upload_bytes``."""
        return int(self.inflate_ratio * self.max_upload_bytes)

    def with_(self, **changes):
        """A copy with some fields changed."""
        return replace(self, **changes)

    def as_dict(self) -> dict:
        """Plain dict of the fields (JSON-serialisable)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    # ------------------------------------------------------------------ checks

    def check_upload(self, size, source):
        """DataError if an input of ``size`` bytes exceeds ``max_upload_bytes``."""
        if size > self.max_upload_bytes:
            shown, limit = format_bytes(size), format_bytes(self.max_upload_bytes)
            if shown == limit:  # just over: "50.0 MB; the limit is 50.0 MB" would say nothing
                shown, limit = f"{int(size):,} bytes", f"{int(self.max_upload_bytes):,} bytes"
            raise DataError(f"file is {shown}; the upload limit is {limit} (MLVIZ_MAX_UPLOAD_MB)",
                            source=source)

    def check_columns(self, count, what, source, line=None):
        """DataError if ``count`` columns (of kind ``what``) exceed ``max_columns``."""
        if count > self.max_columns:
            raise DataError(f"{what} {count:,} exceeds the column limit of "
                            f"{self.max_columns:,} (MLVIZ_MAX_COLUMNS)", source=source,
                            line=line)

    def check_dense(self, rows, cols, what, source):
        """DataError if a dense ``rows x cols`` matrix exceeds ``max_dense_cells``."""
        if int(rows) * int(cols) > self.max_dense_cells:
            raise DataError(f"dense {what} of {int(rows):,} x {int(cols):,} = "
                            f"{int(rows) * int(cols):,} cells exceeds the limit of "
                            f"{self.max_dense_cells:,} cells (MLVIZ_MAX_DENSE_CELLS)",
                            source=source)


def resolve(limits):
    """``limits`` or, if None, :meth:`Limits.from_env`."""
    if limits is None:
        return Limits.from_env()
    if not isinstance(limits, Limits):
        raise DataError(f"limits= must be a mlviz.data.Limits, got {type(limits).__name__}")
    return limits


#: Set in the parse worker to the address-space limit it runs under, so that a
#: MemoryError there names that limit.
WORKER_MEMORY_LIMIT = None


def memory_error_message(source=None):
    """The DataError for a MemoryError while reading ``source``."""
    if WORKER_MEMORY_LIMIT:
        where = (f"the parse worker's memory limit of {format_bytes(WORKER_MEMORY_LIMIT)} "
                 "(MLVIZ_WORKER_MEMORY_MB)")
    else:
        where = "the memory available to this process"
    return DataError(f"out of memory while reading the file: it needs more than {where}; "
                     "use a smaller file or raise the limit", source=source)


def no_memory_error(func):
    """Decorator: a MemoryError inside ``func`` becomes a DataError naming the limit."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except MemoryError:
            source = args[0] if args else kwargs.get("source")
            name = getattr(source, "name", source if isinstance(source, str) else None)
            raise memory_error_message(None if name is None else str(name)) from None
    return wrapper
