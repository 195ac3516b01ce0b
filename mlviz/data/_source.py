"""Reading bytes from a path or a file-like object (e.g. a Streamlit upload).

Sizes are checked against :class:`~mlviz.data.Limits` before anything is
allocated: the input against ``max_upload_bytes`` (a path must be a regular
file, is measured with ``stat`` before it is opened and read in bounded
chunks within ``read_timeout`` seconds: :func:`read_path`), and gzip / bzip2 / xz content is inflated in
chunks and abandoned as soon as it passes ``max_inflated_bytes``
(``inflate_ratio * max_upload_bytes``), so a "zip bomb" costs at most that
much memory.  Concatenated members/streams are read like ``gzip -d`` does.
"""

from __future__ import annotations

import bz2
import lzma
import os
import stat
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

from mlviz._text import printable, shorten

from ._errors import DataError
from ._limits import format_bytes, resolve
from .formats import COMPRESSIONS as _COMPRESSED_SUFFIXES

GZIP_MAGIC = b"\x1f\x8b"
XZ_MAGIC = b"\xfd7zXZ\x00"
BZ2_MAGIC = b"BZh"
_BZ2_BLOCK = b"\x31\x41\x59\x26\x53\x59"
_CHUNK = 1 << 20
_CHUNK_IN = 1 << 16
#: A stream inflating more than this many times the input read so far ...
MAX_RATIO = 2000
#: ... once it has produced this much output, is refused as a bomb.
RATIO_CHECK_AFTER = 16 << 20
_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"), (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
         (b"\xff\xfe", "UTF-16 (little-endian)"), (b"\xfe\xff", "UTF-16 (big-endian)"))


@dataclass
class Source:
    """Raw content of one input.

    Attributes
    ----------
    name : str
        Display name used in error messages (file name without directories,
        shortened to :data:`mlviz._text.MESSAGE_NAME_LENGTH` characters).
    data : bytes or bytearray
        Content, decompressed if the input was gzip/bzip2/xz-compressed.
    suffix : str
        Lower-case extension without ``.gz``/``.bz2``/``.xz`` (``".arff"``, ``".csv"``, ... or ``""``).
    notes : list of str
        E.g. that the text was decoded as Latin-1.
    limits : Limits or None
        The limits the content was read under (loaders apply the same ones).
    """

    name: str
    data: bytes
    suffix: str
    notes: list
    limits: object = None

    def text(self) -> str:
        """The content decoded as UTF-8 (BOM stripped); falls back to Latin-1 with a note.

        Raises
        ------
        DataError
            For UTF-16/UTF-32 content (named, with a hint to re-save as UTF-8)
            and for binary content (NUL bytes).
        """
        check_text_encoding(self.data, self.name)
        try:
            return self.data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            self.notes.append(f"{self.name}: not valid UTF-8 (byte {exc.start + 1}), "
                              "decoded as Latin-1")
            return self.data.decode("latin-1")


def check_text_encoding(data, name):
    """DataError if ``data`` is UTF-16/32 (by byte-order mark or NUL pattern) or binary."""
    head = bytes(data[:4096])
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            raise DataError(f"the file is {encoding} encoded (byte-order mark "
                            f"{bom.hex(' ').upper()}); expected UTF-8 text: save it as UTF-8",
                            source=name)
    if b"\x00" in head:
        even, odd = head[0::2], head[1::2]
        if len(head) >= 4 and (even.count(0) > 0.9 * len(even) or odd.count(0) > 0.9 * len(odd)):
            raise DataError("the file looks UTF-16 encoded (every other byte is NUL, no "
                            "byte-order mark); expected UTF-8 text: save it as UTF-8",
                            source=name)
        raise DataError("file contains NUL bytes (binary data?); expected a text file",
                        source=name)


def _display_name(obj) -> str:
    name = getattr(obj, "name", None)
    if isinstance(name, (str, os.PathLike)):
        return printable(Path(name).name or str(name))
    return "<uploaded file>"


_SPECIAL_KINDS = ((stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                  (stat.S_ISFIFO, "FIFO (named pipe)"), (stat.S_ISSOCK, "socket"))


def _not_regular(mode):
    """What a non-regular file is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "directory"
    return next((what for test, what in _SPECIAL_KINDS if test(mode)), "special file")


def _refuse_kind(kind, what, shown):
    if kind == "directory":
        return DataError(f"is a directory; expected a data {what}", source=shown)
    return DataError(f"is a {kind}, not a regular file; only regular files are read", source=shown)


def _read_fd_bounded(raw, limit, state):
    """In a worker thread: open ``raw`` without blocking, check it is regular, read <= limit + 1 bytes."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(raw, flags)
    except OSError as exc:
        state["error"] = exc
        return
    try:
        kind = _not_regular(os.fstat(fd).st_mode)  # replaced between stat and open?
        if kind is not None:
            state["kind"] = kind
            return
        out = bytearray()
        while len(out) <= limit and not state.get("abandoned"):
            chunk = os.read(fd, min(_CHUNK, limit + 1 - len(out)))
            if not chunk:
                break
            out += chunk
        state["data"] = out
    except OSError as exc:
        state["error"] = exc
    finally:
        os.close(fd)


def read_path(path, limits=None, what="file"):
    """``(display name, content)`` of the regular file at ``path``, bounded in size and time.

    Only a regular file is read: ``os.stat`` (following symbolic links)
    must say so before the file is opened, and ``fstat`` on the opened
    descriptor again (the path may have been replaced in between).  A
    device (``/dev/zero``, ``/dev/urandom``), FIFO or socket is refused
    without reading a byte; the file is opened with ``O_NONBLOCK``, so not
    even a FIFO swapped in after the check can block the open.  Its size is
    checked against ``limits.max_upload_bytes`` from ``stat``, and the read
    stops after ``max_upload_bytes + 1`` bytes whatever ``stat`` said (a file
    that grows, ``/proc`` files).  Opening and reading run in a daemon
    thread given ``limits.read_timeout`` seconds (a hung network file
    system): past that the caller gets a DataError and the thread is left to
    finish or stay blocked on its own.

    Parameters
    ----------
    path : str, bytes or os.PathLike
        Any encoding: a name that is not UTF-8 is shown with U+FFFD
        (:func:`mlviz._text.printable`) and never raises while printed.
    limits : Limits, optional
        Default :meth:`Limits.from_env`.
    what : str
        What the file is, for messages ("file", "label file").

    Returns
    -------
    (str, bytearray)
        The printable file name (without directories) and the content.

    Raises
    ------
    DataError
        Missing file, a directory or any non-regular file, no permission,
        larger than the upload limit, or not read within ``read_timeout``.
    """
    limits = resolve(limits)
    raw = os.fspath(path)
    text = os.fsdecode(raw)
    shown = printable(text)
    full = printable(Path(text).name or text)
    name = shorten(full)
    try:
        info = os.stat(raw)
    except FileNotFoundError:
        raise DataError(f"{what} not found", source=shown) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
        raise DataError(f"cannot read {what} ({shorten(getattr(exc, 'strerror', None) or exc, 80)})",
                        source=shown) from None
    kind = _not_regular(info.st_mode)
    if kind is not None:
        raise _refuse_kind(kind, what, shown)
    limits.check_upload(info.st_size, name)
    state = {}
    reader = threading.Thread(target=_read_fd_bounded, args=(raw, limits.max_upload_bytes, state),
                              name="mlviz-read-path", daemon=True)
    reader.start()
    reader.join(float(limits.read_timeout))
    if reader.is_alive():
        state["abandoned"] = True
        raise DataError(f"reading the {what} did not finish within {float(limits.read_timeout):g} s "
                        "(MLVIZ_READ_TIMEOUT)", source=shown)
    if "kind" in state:
        raise _refuse_kind(state["kind"], what, shown)
    if "error" in state:
        exc = state["error"]
        raise DataError(f"cannot read {what} ({shorten(exc.strerror or exc, 80)})",
                        source=shown) from None
    data = state["data"]
    limits.check_upload(len(data), name)
    return full, data


def compression_of(name_lower: str, data) -> str | None:
    """``"gzip"``, ``"bzip2"``, ``"xz"`` (by suffix or magic bytes) or None."""
    for suffix, kind in _COMPRESSED_SUFFIXES.items():
        if name_lower.endswith(suffix):
            return kind
    head = bytes(data[:10])
    if head[:2] == GZIP_MAGIC:
        return "gzip"
    if head[:6] == XZ_MAGIC:
        return "xz"
    if head[:3] == BZ2_MAGIC and head[3:4].isdigit() and head[4:10] == _BZ2_BLOCK:
        return "bzip2"
    return None


def _decompressor(kind):
    if kind == "gzip":
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if kind == "bzip2":
        return bz2.BZ2Decompressor()
    return lzma.LZMADecompressor()


def inflate(data, kind, cap, name, truncate=False):
    """Decompress ``data`` in chunks; DataError once the output passes ``cap`` bytes.

    Input is fed in 64 kB pieces and output taken in 1 MiB pieces, so the
    work done is bounded by ``cap`` whatever the file claims.  A stream that
    has produced more than :data:`RATIO_CHECK_AFTER` bytes at more than
    :data:`MAX_RATIO` times the input read so far is refused early as a bomb
    (gzip cannot exceed about 1032:1, so this stops bzip2/xz bombs long
    before the cap; no real data set compresses that well).

    Parameters
    ----------
    data : bytes-like
    kind : {"gzip", "bzip2", "xz"}
    cap : int
        Largest decompressed size accepted.
    name : str
        Display name for messages.
    truncate : bool, default False
        Return the first ``cap`` bytes instead of raising (reading a header).

    Returns
    -------
    bytearray
    """
    out = bytearray()
    view = memoryview(bytes(data))
    total = len(view)
    pos = base = 0
    errors = (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError)

    def too_big(limit_text):
        return DataError(f"{kind} content inflates to more than {limit_text}; compressed "
                         f"size {format_bytes(total)}", source=name)

    try:
        while True:
            d = _decompressor(kind)
            pending = b""
            while not d.eof:
                if kind == "gzip":
                    if not pending and pos < len(view):
                        pending = bytes(view[pos:pos + _CHUNK_IN])
                        pos += len(pending)
                    chunk = d.decompress(pending, _CHUNK)
                    pending = d.unconsumed_tail
                    starved = not chunk and not pending and pos >= len(view)
                else:
                    piece = b""
                    if d.needs_input and pos < len(view):
                        piece = bytes(view[pos:pos + _CHUNK_IN])
                        pos += len(piece)
                    chunk = d.decompress(piece, _CHUNK)
                    starved = not chunk and d.needs_input and pos >= len(view)
                if len(out) + len(chunk) > cap:
                    if truncate:
                        return out + chunk[: cap - len(out)]
                    raise too_big(f"{format_bytes(cap)}, the decompression limit "
                                  "(MLVIZ_INFLATE_RATIO x MLVIZ_MAX_UPLOAD_MB)")
                out += chunk
                if len(out) > RATIO_CHECK_AFTER and len(out) > MAX_RATIO * (base + pos) \
                        and not truncate:
                    raise too_big(f"{MAX_RATIO:,} times its compressed size after "
                                  f"{format_bytes(len(out))} (a decompression bomb?)")
                if starved and not d.eof:
                    raise DataError(f"corrupt or truncated {kind} data (the compressed stream "
                                    "ends early)", source=name)
            rest = bytes(d.unused_data) + bytes(view[pos:])
            if not rest.strip(b"\x00"):
                return out
            if compression_of("", rest) != kind:
                raise DataError(f"corrupt {kind} data (garbage after the compressed stream)",
                                source=name)
            base += len(view) - len(rest)  # input used by the finished member(s)
            view, pos = memoryview(rest), 0
    except DataError:
        raise
    except errors as exc:
        raise DataError(f"corrupt or truncated {kind} data ({shorten(exc, 80)})",
                        source=name) from None


def _read_bounded(source, name, limit):
    """Bytes of a file-like object, refusing more than ``limit`` bytes."""
    try:
        if hasattr(source, "getvalue"):
            data = source.getvalue()
        elif hasattr(source, "read"):
            if hasattr(source, "seek"):
                try:
                    source.seek(0)
                except (OSError, ValueError):
                    pass
            data = source.read(limit + 1)
        else:
            raise DataError(f"expected a path or a file-like object, got {type(source).__name__}")
    except DataError:
        raise
    except Exception as exc:  # noqa: BLE001 - any reader failure is a data error
        raise DataError(f"cannot read file ({shorten(exc, 80)})", source=name) from None
    if isinstance(data, str):
        data = data.encode("utf-8")
    elif not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError(f"reading returned {type(data).__name__}, expected bytes", source=name)
    return data


def read_source(source, limits=None) -> Source:
    """Read a path, bytes-like upload or file object into a :class:`Source`.

    Parameters
    ----------
    source : str, os.PathLike, bytes or file-like
        A path, or an object with ``getvalue()`` (Streamlit ``UploadedFile``,
        ``io.BytesIO``) or ``read()`` returning bytes or str; its ``.name`` is
        used for messages and format detection.
    limits : Limits, optional
        Default :meth:`Limits.from_env`.

    Returns
    -------
    Source

    Raises
    ------
    DataError
        If the file cannot be read, is larger than ``limits.max_upload_bytes``,
        inflates past ``limits.max_inflated_bytes`` or is corrupt/truncated.
    """
    if isinstance(source, Source):
        return source
    limits = resolve(limits)
    if isinstance(source, (str, os.PathLike)):
        full, data = read_path(source, limits)
        name = shorten(full)
    elif isinstance(source, (bytes, bytearray, memoryview)):
        full, data = "<bytes>", source
        name = full
    else:
        full = _display_name(source)
        name = shorten(full)
        data = _read_bounded(source, name, limits.max_upload_bytes)
    limits.check_upload(len(data), name)
    lower = full.lower()
    kind = compression_of(lower, data)
    if kind is not None:
        data = inflate(data, kind, limits.max_inflated_bytes, name)
        for suffix in _COMPRESSED_SUFFIXES:
            if lower.endswith(suffix):
                lower = lower[: -len(suffix)]
    elif not isinstance(data, (bytes, bytearray)):
        data = bytes(data)
    suffix = Path(lower).suffix
    return Source(name=name, data=data, suffix=suffix, notes=[], limits=limits)


def read_head(source, n_bytes, limits=None):
    """The first ``n_bytes`` of a (possibly compressed) input, decompressing no more.

    For previews such as a CSV header: a bomb costs ``n_bytes``, not the
    inflate cap.  Returns ``(display name, bytes)``.
    """
    limits = resolve(limits)
    if isinstance(source, (str, os.PathLike)):
        full, data = read_path(source, limits)
    elif isinstance(source, (bytes, bytearray, memoryview)):
        full, data = "<bytes>", bytes(source)
    else:
        full = _display_name(source)
        data = _read_bounded(source, shorten(full), limits.max_upload_bytes)
    name = shorten(full)
    limits.check_upload(len(data), name)
    kind = compression_of(full.lower(), data)
    if kind is None:
        return name, bytes(data[:n_bytes])
    return name, bytes(inflate(data, kind, n_bytes, name, truncate=True))

