"""Reading bytes from a path or a file-like object (e.g. a Streamlit upload)."""

from __future__ import annotations

import gzip
import io
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

from ._errors import DataError

GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class Source:
    """Raw content of one input.

    Attributes
    ----------
    name : str
        Display name used in error messages (file name without directories).
    data : bytes
        Content, gunzipped if the input was gzip-compressed.
    suffix : str
        Lower-case extension without ``.gz`` (``".arff"``, ``".csv"``, ... or ``""``).
    notes : list of str
        E.g. that the text was decoded as Latin-1.
    """

    name: str
    data: bytes
    suffix: str
    notes: list

    def text(self) -> str:
        """The content decoded as UTF-8 (BOM stripped); falls back to Latin-1 with a note."""
        try:
            return self.data.decode("utf-8-sig")
        except UnicodeDecodeError:
            self.notes.append(f"{self.name}: not valid UTF-8, decoded as Latin-1")
            return self.data.decode("latin-1")


def _display_name(obj) -> str:
    name = getattr(obj, "name", None)
    if isinstance(name, (str, os.PathLike)):
        return Path(name).name or str(name)
    return "<uploaded file>"


def read_source(source) -> Source:
    """Read a path, bytes-like upload or file object into a :class:`Source`.

    Parameters
    ----------
    source : str, os.PathLike, or file-like
        A path, or an object with ``getvalue()`` (Streamlit ``UploadedFile``,
        ``io.BytesIO``) or ``read()`` returning bytes or str; its ``.name`` is
        used for messages and format detection.

    Returns
    -------
    Source

    Raises
    ------
    DataError
        If the file cannot be read or a ``.gz`` file is truncated/corrupt.
    """
    if isinstance(source, Source):
        return source
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        name = path.name or str(source)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise DataError("file not found", source=str(source)) from None
        except OSError as exc:
            raise DataError(f"cannot read file ({exc.strerror or exc})",
                            source=str(source)) from None
    elif isinstance(source, (bytes, bytearray, memoryview)):
        name, data = "<bytes>", bytes(source)
    else:
        name = _display_name(source)
        try:
            if hasattr(source, "getvalue"):
                data = source.getvalue()
            elif hasattr(source, "read"):
                if hasattr(source, "seek"):
                    try:
                        source.seek(0)
                    except (OSError, ValueError):
                        pass
                data = source.read()
            else:
                raise DataError(
                    f"expected a path or a file-like object, got {type(source).__name__}"
                )
        except DataError:
            raise
        except Exception as exc:  # noqa: BLE001 - any reader failure is a data error
            raise DataError(f"cannot read file ({exc})", source=name) from None
        if isinstance(data, str):
            data = data.encode("utf-8")
        elif not isinstance(data, (bytes, bytearray, memoryview)):
            raise DataError(f"reading returned {type(data).__name__}, expected bytes", source=name)
        data = bytes(data)
    lower = name.lower()
    notes = []
    if lower.endswith(".gz") or data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataError(f"corrupt or truncated gzip data ({exc})", source=name) from None
        if lower.endswith(".gz"):
            lower = lower[:-3]
    suffix = Path(lower).suffix
    return Source(name=name, data=data, suffix=suffix, notes=notes)


def as_text_stream(text: str):
    """A text stream over ``text`` (for parsers that want a file object)."""
    return io.StringIO(text)
