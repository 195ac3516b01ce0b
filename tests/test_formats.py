"""The format registry is the one place formats are known: the loader, the upload form and decompression agree."""

import io

import numpy as np

from mlviz.data import load_dataset
from mlviz.data.formats import COMPRESSIONS, FORMATS, format_of_suffix, strip_compression, upload_types


def test_every_suffix_selects_its_format_and_the_upload_form_accepts_it():
    for f in FORMATS:
        for suffix in f.suffixes:
            assert format_of_suffix(suffix) == f.name
            assert suffix[1:] in upload_types()
    assert {s[1:] for s in COMPRESSIONS} <= set(upload_types()) and "txt" in upload_types()
    assert format_of_suffix(".xml") is None and strip_compression("a.tsv.gz") == "a.tsv"


def test_tsv_loads_in_the_library_and_is_a_csv_upload():
    from mlviz.dashboard.upload import UPLOAD_TYPES, is_csv

    assert "tsv" in UPLOAD_TYPES and is_csv("Data.TSV.gz") and is_csv("x.txt") and not is_csv("x.svm.txt")
    buf = io.BytesIO(b"a\tb\ty1\ty2\n1\t2\t0\t1\n3\t4\t1\t0\n5\t6\t1\t1\n")
    buf.name = "t.tsv"
    ds = load_dataset(buf, labels=["y1", "y2"])
    np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(ds.Y, [[0, 1], [1, 0], [1, 1]])
