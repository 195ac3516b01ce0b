"""Paths that are not regular files, and file names in any encoding (issue 28, item 3).

``mlviz describe /dev/zero`` was killed by the OOM killer, ``/dev/urandom`` ran past 60 s, a FIFO
hung forever and a non-UTF-8 file name printed a pyarrow traceback.  Every path is now checked
with ``os.stat`` (and ``fstat`` after an ``O_NONBLOCK`` open) before a byte is read, read in
bounded chunks within ``MLVIZ_READ_TIMEOUT``, and every name is printed through
:func:`mlviz._text.printable`.  The dangerous cases run the CLI in a subprocess with a timeout, so a
regression fails the test instead of hanging or exhausting the test process.
"""

import gzip
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mlviz import cli
from mlviz._text import printable
from mlviz.data import DataError, Limits, _source, load_dataset, load_dataset_isolated
from mlviz.data._source import read_path

ROOT = Path(__file__).resolve().parents[1]
EMOTIONS = ROOT / "sample_data" / "emotions.arff.gz"
EMOTIONS_XML = ROOT / "sample_data" / "emotions.xml"
SPECIAL = "not a regular file"


@pytest.fixture(autouse=True)
def _no_bars(monkeypatch):
    monkeypatch.setenv("MLVIZ_NO_PROGRESS", "1")


def _cli(*argv, timeout=60):
    """``(exit code, stdout, stderr, seconds)`` of ``python -m mlviz.cli ARGV`` (argv as bytes or str)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), MLVIZ_NO_PROGRESS="1", OMP_NUM_THREADS="1")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "mlviz.cli", *argv], capture_output=True, timeout=timeout,
                          env=env, cwd=str(ROOT))
    err = proc.stderr.decode("utf-8")  # strict: a message must be valid UTF-8
    return proc.returncode, proc.stdout.decode("utf-8"), err, time.monotonic() - start


def _one_line_error(code, err):
    assert code == 2, err
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("mlviz "), err


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom"])
@pytest.mark.slow(seconds=4)
def test_describe_refuses_devices_at_once(target, tmp_path):
    if not os.path.exists(target):
        pytest.skip(f"{target} is not available")
    code, _, err, seconds = _cli("describe", target)
    _one_line_error(code, err)
    assert SPECIAL in err and "character device" in err and seconds < 30
    # a symbolic link with a data file's name is followed: the device behind it is refused
    link = tmp_path / "data.csv"
    link.symlink_to(target)
    code, _, err, _ = _cli("evaluate", str(link), "--methods", "br")
    _one_line_error(code, err)
    assert SPECIAL in err and "data.csv" in err


@pytest.mark.slow(seconds=6)
def test_describe_refuses_a_fifo_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "data.arff"
    os.mkfifo(fifo)
    code, _, err, seconds = _cli("describe", str(fifo), timeout=60)
    _one_line_error(code, err)
    assert "FIFO" in err and SPECIAL in err and seconds < 30
    code, _, err, _ = _cli("describe", str(EMOTIONS), "--labels", str(fifo.with_name("labels.xml")))
    _one_line_error(code, err)  # (a missing label file)
    os.mkfifo(tmp_path / "labels.xml")
    code, _, err, _ = _cli("describe", str(EMOTIONS), "--labels", str(tmp_path / "labels.xml"))
    _one_line_error(code, err)
    assert "FIFO" in err


def _non_utf8_copy(tmp_path):
    """emotions as ``caf\\xe9\\xff.arff`` + ``caf\\xe9\\xff.xml`` (Latin-1 é and a stray byte: not UTF-8)."""
    folder = os.fsencode(tmp_path)
    stem = b"caf\xe9\xff"
    with open(folder + b"/" + stem + b".arff", "wb") as fh:
        fh.write(gzip.decompress(EMOTIONS.read_bytes()))
    with open(folder + b"/" + stem + b".xml", "wb") as fh:
        fh.write(EMOTIONS_XML.read_bytes())
    return folder + b"/" + stem


@pytest.mark.slow(seconds=6)
def test_non_utf8_file_names_print_without_a_traceback(tmp_path, capsys):
    stem = _non_utf8_copy(tmp_path)
    # issue 28: a pyarrow UnicodeEncodeError traceback, exit 1
    code, out, err, _ = _cli("describe", stem + b".arff")
    assert code == 0, err
    assert "Traceback" not in err and "caf\ufffd\ufffd.xml" in out  # the loader notes name the XML
    # the same in-process, where argv holds the surrogate-escaped str Python makes of the bytes
    assert cli.main(["describe", os.fsdecode(stem + b".arff")]) == 0
    out, err = capsys.readouterr()
    assert "instances" in out and not err
    out.encode("utf-8")
    # errors naming such a file (missing, FIFO, with a newline in its name) stay one printable line
    os.mkfifo(stem + b"\n.csv")
    for name in (stem + b".csv", stem + b"\n.csv"):
        code, _, err, _ = _cli("describe", name)
        _one_line_error(code, err)
        assert "caf\ufffd\ufffd" in err
        assert cli.main(["describe", os.fsdecode(name)]) == 2
        _, err = capsys.readouterr()
        assert err.count("\n") == 1 and "caf\ufffd\ufffd" in err
        err.encode("utf-8")


# ------------------------------------------------------------------ library entry points
def _within(seconds, fn):
    """``fn()``'s exception (or None), failing the test if it takes more than ``seconds``."""
    box = {}

    def call():
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["exc"] = exc

    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still running after {seconds} s"
    return box.get("exc")


def test_load_dataset_applies_the_same_rule(tmp_path):
    fifo = tmp_path / "x.csv"
    os.mkfifo(fifo)
    link = tmp_path / "zero.csv"
    link.symlink_to("/dev/zero")
    for path in (fifo, str(fifo), link, "/dev/zero", "/dev/urandom", os.fsencode(fifo)):
        if isinstance(path, bytes):  # bytes are content for load_dataset; read_path takes them as a path
            exc = _within(10, lambda p=path: read_path(p))
        else:
            exc = _within(10, lambda p=path: load_dataset(p))
        assert isinstance(exc, DataError) and SPECIAL in str(exc), exc
    for labels in (fifo, str(link)):  # a label XML path goes through the same reader
        exc = _within(10, lambda lab=labels: load_dataset(EMOTIONS, labels=lab))
        assert isinstance(exc, DataError) and SPECIAL in str(exc), exc
    exc = _within(60, lambda: load_dataset_isolated(fifo))  # read in the caller, refused before the worker
    assert isinstance(exc, DataError) and "FIFO" in str(exc), exc
    exc = _within(10, lambda: load_dataset(tmp_path))
    assert isinstance(exc, DataError) and "directory" in str(exc)


def test_a_fifo_swapped_in_after_the_check_does_not_block_the_open(tmp_path):
    fifo = tmp_path / "late"
    os.mkfifo(fifo)
    state = {}
    assert _within(10, lambda: _source._read_fd_bounded(str(fifo), 100, state)) is None
    assert state == {"kind": "FIFO (named pipe)"}


def test_reads_are_bounded_by_the_upload_limit_even_when_stat_says_zero():
    status = Path("/proc/self/smaps")
    if not status.exists() or status.stat().st_size != 0:
        pytest.skip("needs Linux /proc (a regular file whose stat size is 0)")
    name, data = read_path("/proc/self/status", Limits())
    assert name == "status" and data.startswith(b"Name:")
    with pytest.raises(DataError, match="upload limit"):
        read_path(status, Limits(max_upload_bytes=256))


def test_a_read_that_blocks_ends_at_the_read_timeout(tmp_path, monkeypatch):
    path = tmp_path / "slow.csv"
    path.write_text("a,b\n1,0\n")
    release = threading.Event()

    def stuck(raw, limit, state):  # a hung network file system
        release.wait(30)

    monkeypatch.setattr(_source, "_read_fd_bounded", stuck)
    start = time.monotonic()
    with pytest.raises(DataError, match=r"did not finish within 0.3 s \(MLVIZ_READ_TIMEOUT\)"):
        load_dataset(path, limits=Limits(read_timeout=0.3))
    release.set()
    assert time.monotonic() - start < 5
    monkeypatch.setenv("MLVIZ_READ_TIMEOUT", "2.5")
    assert Limits.from_env().read_timeout == 2.5
    for bad in ("inf", "nan", "-1"):
        monkeypatch.setenv("MLVIZ_MAX_UPLOAD_MB", bad)
        with pytest.raises(DataError, match="MLVIZ_MAX_UPLOAD_MB"):
            Limits.from_env()


def test_printable_names():
    assert printable(b"caf\xc3\xa9\xff.csv") == "caf\u00e9\ufffd.csv"
    assert printable(os.fsdecode(b"caf\xc3\xa9\xff.csv")) == "caf\u00e9\ufffd.csv"
    assert printable("a\ud800b\nc\x1b[31m") == "a?b?c?[31m"
    assert printable("plain name.csv") == "plain name.csv"
    with pytest.raises(DataError) as info:
        load_dataset(os.fsdecode(b"/nonexistent/caf\xe9\n.csv"))
    str(info.value).encode("utf-8")
    assert "\n" not in str(info.value)
