"""The hostile corpus (tests/hostile.py) through load_dataset and load_dataset_isolated.

Every case must give exactly one DataError whose message matches the case's
regex and stays short, in bounded time; through the worker also in bounded
peak memory (the worker's own ru_maxrss).  Limits are small here so bombs and
"absurd size" cases are cheap; benchmarks/bench_data.py --hostile runs the
same corpus at the default limits and records time and memory.
"""

import io
import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hostile import cases

from mlviz.data import DataError, Limits, isolated, load_dataset, load_dataset_isolated
from mlviz.data._wire import decode_dataset, encode_dataset, unpack_header

SMALL = Limits(max_upload_bytes=2 << 20, inflate_ratio=4, max_columns=2000,
               max_dense_cells=200_000, worker_memory_bytes=2048 << 20, worker_cpu_seconds=20,
               worker_timeout=30)
CASES = cases(SMALL)
IDS = [c.name for c in CASES]


def _named(data, name):
    buf = io.BytesIO(data)
    buf.name = name
    return buf


def _upload(case):
    xml = None if case.xml is None else _named(case.xml, case.xml_filename)
    return _named(case.data, case.filename), xml


def test_corpus_is_broad():
    names = set(IDS)
    assert len(names) == len(IDS)
    for needed in ("csr_column_out_of_range", "gzip_bomb_arff", "bzip2_bomb_csv", "xz_bomb_libsvm",
                   "npz_zip_bomb", "npz_pickled_object_array", "xml_billion_laughs",
                   "xml_external_entity", "csv_utf16_bom", "arff_sparse_duplicate_index",
                   "libsvm_meta_duplicate_names", "arff_absurd_attribute_count"):
        assert needed in names


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_in_process_only_data_error(case):
    data, xml = _upload(case)
    start = time.perf_counter()
    with pytest.raises(DataError) as info:
        load_dataset(data, labels=xml, limits=SMALL)
    assert time.perf_counter() - start < 5
    message = str(info.value)
    assert re.search(case.match, message), message
    assert len(message) < 400, len(message)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_isolated_only_data_error_bounded_memory(case):
    data, xml = _upload(case)
    report = {}
    with pytest.raises(DataError) as info:
        load_dataset_isolated(data, labels=xml, limits=SMALL, report=report)
    message = str(info.value)
    assert re.search(case.match, message), message
    assert len(message) < 400
    if case.name == "too_large_upload":
        assert not report  # refused by the caller before any worker runs
        return
    assert report["exit_status"] == 0  # the worker reported the error itself
    assert report["peak_rss_bytes"] < 400 << 20, report


def test_isolated_equals_in_process_on_bundled_sets():
    for arff, xml in (("emotions.arff.gz", "emotions.xml"), ("enron.arff.gz", "enron.xml")):
        a = load_dataset(f"sample_data/{arff}", labels=f"sample_data/{xml}")
        b = load_dataset_isolated(f"sample_data/{arff}", labels=f"sample_data/{xml}")
        assert sp.issparse(a.X) == sp.issparse(b.X)
        Xa = a.X.toarray() if sp.issparse(a.X) else a.X
        Xb = b.X.toarray() if sp.issparse(b.X) else b.X
        np.testing.assert_array_equal(Xa, Xb)
        np.testing.assert_array_equal(a.Y, b.Y)
        assert (a.feature_names, a.label_names, a.name, a.notes) == \
            (b.feature_names, b.label_names, b.name, b.notes)


def test_isolated_options_and_label_kinds(tmp_path):
    csv = _named(b"f1,f2,L1,L2\n0.5,1.5,1,0\n1.0,2.0,0,1\n2.0,3.0,1,1\n", "t.csv")
    ds = load_dataset_isolated(csv, labels=["L2"], name="renamed")
    assert (ds.name, ds.label_names, ds.feature_names) == ("renamed", ["L2"], ["f1", "f2", "L1"])
    arff = tmp_path / "m.arff"
    arff.write_text("@relation 'm: -C -1'\n@attribute a numeric\n@attribute L {0,1}\n@data\n"
                    "1,0\n2,1\n")
    assert load_dataset_isolated(arff).label_names == ["L"]
    assert load_dataset_isolated(str(arff), labels=-1).label_names == ["L"]
    with pytest.raises(DataError, match="plain values"):
        load_dataset_isolated(arff, name=object())


@pytest.mark.parametrize("script, limits, match", [
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", {}, r"crashed .*SIGSEGV"),
    ("import time; time.sleep(30)", {"worker_timeout": 1}, r"longer than 1 s.*MLVIZ_WORKER_TIMEOUT"),
    ("import resource\nresource.setrlimit(resource.RLIMIT_CPU, (1, 3))\nwhile True: pass", {},
     r"CPU time.*MLVIZ_WORKER_CPU_SECONDS"),
    ("import sys; sys.stdout.buffer.write(b'garbage' * 10)", {}, r"malformed worker result"),
    ("import sys; sys.exit(3)", {}, r"exit status 3.*MLVIZ_WORKER_MEMORY_MB"),
])
def test_worker_crash_hang_garbage_become_one_data_error(monkeypatch, script, limits, match):
    monkeypatch.setattr(isolated, "WORKER_COMMAND", (sys.executable, "-c", script))
    isolated.shutdown()  # no spare of the real worker
    start = time.perf_counter()
    with pytest.raises(DataError, match=match):
        load_dataset_isolated(b"f,L\n1,0\n2,1\n", limits=SMALL.with_(**limits), keep_spare=False)
    assert time.perf_counter() - start < 10


def test_worker_memory_limit_is_named():
    # 40 MB of address space cannot even hold the imported worker: the parse
    # fails inside the worker (MemoryError -> DataError) or the worker dies;
    # either way one DataError naming the limit.
    isolated.shutdown()
    with pytest.raises(DataError, match=r"MLVIZ_WORKER_MEMORY_MB"):
        load_dataset_isolated(b"f1,L\n" + b"1.5,0\n" * 20000,
                              limits=SMALL.with_(worker_memory_bytes=40 << 20), keep_spare=False)


def test_parent_revalidates_worker_arrays():
    good = load_dataset("sample_data/enron.arff.gz", labels="sample_data/enron.xml")
    good.X.indices[0] = 10 ** 6  # what a subverted worker could send
    header, blobs = unpack_header(encode_dataset(good))
    with pytest.raises(DataError, match=r"column index 1000000 out of range"):
        decode_dataset(header, blobs, SMALL, "enron.arff.gz")
    header["X"]["parts"][0]["dtype"] = "|O"
    with pytest.raises(DataError, match=r"malformed worker result"):
        decode_dataset(header, blobs, SMALL, "enron.arff.gz")


def test_memory_error_in_process_becomes_data_error(monkeypatch):
    from mlviz.data import csv as csv_module

    def boom(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(csv_module, "_numeric_matrix", boom)
    with pytest.raises(DataError, match=r"t\.csv: out of memory while reading the file"):
        load_dataset(_named(b"f,L\n1,0\n2,1\n", "t.csv"))


def test_limits_from_env(monkeypatch):
    monkeypatch.setenv("MLVIZ_MAX_UPLOAD_MB", "1.5")
    monkeypatch.setenv("MLVIZ_INFLATE_RATIO", "10")
    limits = Limits.from_env()
    assert limits.max_upload_bytes == 1_500_000  # MB of 10^6 bytes, as Streamlit's uploader counts them
    assert limits.max_inflated_bytes == 15_000_000
    monkeypatch.setenv("MLVIZ_MAX_COLUMNS", "-3")
    with pytest.raises(DataError, match="MLVIZ_MAX_COLUMNS"):
        Limits.from_env()


def test_upload_limit_has_one_unit_and_one_number_with_streamlit(tmp_path, monkeypatch):
    """Issue 28 item 6: Streamlit's uploader refused files of 50,000,001 to 52,428,800 bytes that the
    parser's 50 MiB accepted.  Its frontend counts ``server.maxUploadSize`` in MB of 10^6 bytes (in
    Linux and macOS browsers); ``MLVIZ_MAX_UPLOAD_MB`` now does too, with the same default."""
    import tomllib

    from mlviz.data._limits import UPLOAD_MB, format_bytes
    from mlviz.data._source import read_source

    config = tomllib.loads((Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml").read_text())
    streamlit_mb = config["server"]["maxUploadSize"]
    monkeypatch.delenv("MLVIZ_MAX_UPLOAD_MB", raising=False)
    limits = Limits.from_env()
    assert UPLOAD_MB == 1000 ** 2 and limits.max_upload_bytes == streamlit_mb * UPLOAD_MB == 50_000_000
    assert format_bytes(limits.max_upload_bytes) == "50.0 MB"
    # exactly at the limit is read, one byte more is refused, for a path and for an upload alike
    small = Limits(max_upload_bytes=2 * UPLOAD_MB)
    path = tmp_path / "edge.csv"
    with open(path, "wb") as fh:
        fh.truncate(2 * UPLOAD_MB)
    assert len(read_source(path, small).data) == 2 * UPLOAD_MB
    assert len(read_source(_named(bytes(2 * UPLOAD_MB), "edge.csv"), small).data) == 2 * UPLOAD_MB
    with open(path, "ab") as fh:
        fh.write(b"x")
    for source in (path, _named(bytes(2 * UPLOAD_MB + 1), "edge.csv")):
        with pytest.raises(DataError, match=r"file is 2,000,001 bytes; the upload limit is 2,000,000 bytes"):
            read_source(source, small)


def test_isolated_concurrent_calls_from_threads():
    # the dashboard serves several sessions from threads of one process
    from concurrent.futures import ThreadPoolExecutor

    jobs = [CASES[0], None, CASES[IDS.index("xml_billion_laughs")], None]

    def run(case):
        if case is None:
            return load_dataset_isolated("sample_data/emotions.arff.gz",
                                         labels="sample_data/emotions.xml").Y.sum()
        data, xml = _upload(case)
        with pytest.raises(DataError, match=case.match):
            load_dataset_isolated(data, labels=xml, limits=SMALL)
        return "refused"

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, jobs))
    expected = int(load_dataset("sample_data/emotions.arff.gz",
                                labels="sample_data/emotions.xml").Y.sum())
    assert results == ["refused", expected, "refused", expected]


def test_the_parse_worker_imports_the_parsers_only():
    """The worker's start-up (one per upload) imports the parsers, not what statistics, synthetic data or
    the models need (``mlviz.data`` imports its submodules on first use)."""
    import subprocess

    code = ("import sys; from mlviz.data import _worker, loader; "
            "print(sorted(m for m in ('pandas', 'scipy.optimize', 'sklearn', 'mlviz.data.stats', "
            "'mlviz.data.synthetic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=isolated.child_env()).stdout
    assert out.strip() == "[]"


def test_every_public_name_of_the_data_package_is_its_submodules_object():
    import importlib

    import mlviz.data as data

    for name in data.__all__:
        module = importlib.import_module(data._EXPORTS[name], "mlviz.data")
        assert getattr(data, name) is getattr(module, name)
        assert name in dir(data)
    assert data.stats is importlib.import_module("mlviz.data.stats")  # a submodule by attribute
    with pytest.raises(AttributeError, match="no attribute 'load_everything'"):
        _ = data.load_everything
