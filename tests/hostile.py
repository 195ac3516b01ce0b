"""A corpus of hostile uploads, generated in code (no files in the repository).

``cases(limits=None)`` returns a list of :class:`Case`: a file name, the file's
bytes, an optional Mulan XML (name and bytes) to upload with it, and a regex
that the :class:`mlviz.data.DataError` message must match.  Bombs and
"absurd size" cases are built to exceed the given limits (default: the
``MLVIZ_*`` environment, i.e. what the dashboard uses), so a test with small
limits stays fast and a test with the real limits tests the real limits.

Covered: malformed CSR/CSC parts, bombs in every compressed format the
loaders accept (gzip, bzip2, xz, and deflate inside ``.npz``), absurd
declared sizes (``.npy`` headers, attribute counts, indices, label ids, dense
cells), pickled/object/complex/structured arrays, duplicate names in every
format, XXE / billion laughs / long and expanding names in the XML, wrong
encodings and binary data, NaN/inf, one-row files, zero labels, HTML in names.

Used by ``tests/test_data_hostile.py`` (``load_dataset`` and
``load_dataset_isolated``) and by the dashboard's upload tests.
"""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
import zipfile
from dataclasses import dataclass

import numpy as np

from mlviz._text import MAX_NAME_LENGTH
from mlviz.data import Limits

__all__ = ["Case", "cases", "XML"]


@dataclass(frozen=True)
class Case:
    """One hostile upload.

    Attributes
    ----------
    name : str
        Short id of the case.
    filename : str
        Upload file name (the extension selects the format).
    data : bytes
        File content.
    xml : bytes or None
        Companion Mulan XML (upload it as the label file), or None.
    xml_filename : str
    match : str
        Regex the DataError message must match (``re.search``).
    """

    name: str
    filename: str
    data: bytes
    match: str
    xml: bytes = None
    xml_filename: str = "labels.xml"


XML = (b'<?xml version="1.0" encoding="utf-8"?>\n'
       b'<labels xmlns="http://mulan.sourceforge.net/labels">'
       b'<label name="L1"></label><label name="L2"></label></labels>\n')

ARFF = ("@relation 'good: -C -2'\n@attribute f1 numeric\n@attribute f2 numeric\n"
        "@attribute L1 {0,1}\n@attribute L2 {0,1}\n@data\n"
        "0.5,1.5,1,0\n1.0,2.0,0,1\n2.0,3.0,1,1\n")
CSV = "f1,f2,L1,L2\n0.5,1.5,1,0\n1.0,2.0,0,1\n2.0,3.0,1,1\n"


def _npz(**arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _npy_member(header_dict, payload=b""):
    """Raw .npy bytes with a hand-written header (declares what we like)."""
    head = repr(header_dict).encode("latin1")
    pad = 64 - (10 + len(head) + 1) % 64
    head = head + b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head + payload


def _zip(members, compression=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _csr_case(name, match, X_data, X_indices, X_indptr, X_shape, fmt=None, n=2):
    arrays = dict(X_data=np.asarray(X_data, dtype=float), X_indices=np.asarray(X_indices),
                  X_indptr=np.asarray(X_indptr), X_shape=np.asarray(X_shape, dtype=np.int64),
                  Y=np.array([[1, 0], [0, 1]] + [[1, 1]] * (n - 2), dtype=np.uint8))
    if fmt:
        arrays["X_format"] = np.array(fmt)
    return Case(name, f"{name}.npz", _npz(**arrays), match)


def _bomb(kind, cap):
    """A valid multi-member stream of a CSV-looking payload inflating past ``cap``."""
    block = (b"0," * 4095 + b"0\n") * 256          # 2 MiB of "0,0,...,0" rows
    header = b",".join(b"c%d" % j for j in range(4096)) + b"\n"
    compress = {"gzip": lambda b: gzip.compress(b, 9),
                "bzip2": lambda b: bz2.compress(b, 9),
                "xz": lambda b: lzma.compress(b, preset=1)}[kind]
    head, member = compress(header), compress(block)
    count = cap // len(block) + 2
    return head + member * count


def cases(limits=None):
    """The hostile corpus for ``limits`` (default :meth:`Limits.from_env`).

    Generated once per distinct ``limits`` (cached): at the default limits
    the bombs and size cases take a few seconds to build.

    Returns
    -------
    list of Case
    """
    return list(_cases(limits or Limits.from_env()))


@functools.lru_cache(maxsize=4)
def _cases(limits):
    cap = limits.max_inflated_bytes
    out = []
    add = out.append

    # ---------------------------------------------------------------- malformed CSR / CSC
    add(_csr_case("csr_column_out_of_range", r"column index 1000000 out of range",
                  [1, 2], [0, 1_000_000], [0, 1, 2], [2, 3]))
    add(_csr_case("csr_negative_index", r"column index -5 out of range",
                  [1, 2], [0, -5], [0, 1, 2], [2, 3]))
    add(_csr_case("csr_indptr_decreasing", r"indptr decreases",
                  [1, 2, 3], [0, 1, 2], [0, 3, 1, 3], [3, 3], n=3))
    add(_csr_case("csr_indptr_wrong_length", r"indptr has 2 entries; expected 3",
                  [1, 2], [0, 1], [0, 2], [2, 3]))
    add(_csr_case("csr_indptr_past_end", r"indptr runs from 0 to 9",
                  [1, 2], [0, 1], [0, 1, 9], [2, 3]))
    add(_csr_case("csr_indices_length", r"2 values but 1 indices",
                  [1, 2], [0], [0, 1, 2], [2, 3]))
    add(_csr_case("csc_row_out_of_range", r"row index 7 out of range",
                  [1, 2], [0, 7], [0, 1, 2, 2], [2, 3], fmt="csc"))
    add(_csr_case("csr_absurd_shape", r"column limit",
                  [1, 2], [0, 1], [0, 1, 2], [2, limits.max_columns + 1]))
    add(_csr_case("csr_float_indices", r"indices .* expected integers",
                  [1, 2], np.array([0.0, 1.0]), [0, 1, 2], [2, 3]))

    # ---------------------------------------------------------------- npz dtypes and sizes
    obj = io.BytesIO()
    np.save(obj, np.array([{"__reduce__": "os.system"}, "x"], dtype=object), allow_pickle=True)
    add(Case("npz_pickled_object_array", "pickled.npz",
             _zip({"X.npy": _npy_member({"descr": "<f8", "fortran_order": False,
                                         "shape": (2, 1)}, np.zeros(2).tobytes()),
                   "Y.npy": obj.getvalue()}),
             r"holds Python objects"))
    add(Case("npz_complex_X", "complex.npz",
             _npz(X=np.ones((2, 2), dtype=complex), Y=np.eye(2, dtype=np.uint8)), r"complex"))
    add(Case("npz_structured_X", "structured.npz",
             _npz(X=np.zeros(2, dtype=[("a", "<f8"), ("b", "<i4")]), Y=np.eye(2, dtype=np.uint8)),
             r"dtype .*expected real numbers"))
    add(Case("npz_text_X", "text.npz",
             _npz(X=np.array([["a", "b"], ["c", "d"]]), Y=np.eye(2, dtype=np.uint8)),
             r"text\); expected real numbers"))
    add(Case("npz_declares_gigabytes", "declared.npz",
             _zip({"X.npy": _npy_member({"descr": "<f8", "fortran_order": False,
                                         "shape": (100_000, 100_000)}, b"\0" * 64),
                   "Y.npy": _npy_member({"descr": "|u1", "fortran_order": False,
                                         "shape": (2, 2)}, b"\1\0\0\1")}),
             r"declares shape \(100000, 100000\) \(80\.0 GB\)"))
    rows = cap // 6 + 1
    add(Case("npz_zip_bomb", "bomb.npz",
             _zip({"X.npy": _npy_member({"descr": "<f8", "fortran_order": False,
                                         "shape": (2, 1)}, np.zeros(2).tobytes()),
                   "Y.npy": _npy_member({"descr": "|u1", "fortran_order": False,
                                         "shape": (rows, 6)}, bytes(rows * 6))},
                  zipfile.ZIP_DEFLATED),
             r"arrays declare .* uncompressed; the decompression limit"))
    add(Case("npz_not_a_zip_pickle", "pickle.npz",
             b"\x80\x04\x95\x1a\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94"
             b"\x93\x94\x8c\x02id\x94\x85\x94R\x94.", r"not a valid \.npz archive"))
    add(Case("npz_dense_too_many_cells", "cells.npz",
             _zip({"X.npy": _npy_member({"descr": "|u1", "fortran_order": False,
                                         "shape": (limits.max_dense_cells + 1, 1)},
                                        bytes(16)),
                   "Y.npy": _npy_member({"descr": "|u1", "fortran_order": False,
                                         "shape": (2, 2)}, b"\1\0\0\1")}),
             r"declares shape|exceeds the limit"))

    # ---------------------------------------------------------------- bombs
    add(Case("gzip_bomb_arff", "bomb.arff.gz", _bomb("gzip", cap),
             r"gzip content inflates to more than .* decompression limit"))
    add(Case("gzip_bomb_no_suffix", "bomb.csv", _bomb("gzip", cap),
             r"gzip content inflates to more than"))
    add(Case("bzip2_bomb_csv", "bomb.csv.bz2", _bomb("bzip2", cap),
             r"bzip2 content inflates to more than"))
    add(Case("xz_bomb_libsvm", "bomb.svm.xz", _bomb("xz", cap),
             r"xz content inflates to more than"))
    add(Case("gzip_truncated", "cut.arff.gz", gzip.compress(ARFF.encode() * 50)[:-40],
             r"corrupt or truncated gzip"))
    add(Case("gzip_trailing_garbage", "junk.csv.gz", gzip.compress(CSV.encode()) + b"junk!",
             r"garbage after the compressed stream"))
    add(Case("too_large_upload", "big.csv", b"a,b\n" + b"1,0\n" * (limits.max_upload_bytes // 4),
             r"the upload limit is"))

    # ---------------------------------------------------------------- absurd declared sizes
    n_attr = limits.max_columns + 1
    attrs = "".join(f"@attribute a{j} numeric\n" for j in range(n_attr))
    add(Case("arff_absurd_attribute_count", "wide.arff.gz",
             gzip.compress(f"@relation wide\n{attrs}@data\n".encode(), 1),
             r"attribute count .* exceeds the column limit"))
    width = min(limits.max_columns - 1, 1000)
    n_rows = limits.max_dense_cells // (width + 1) + 1
    head = "@relation 'cells: -C -1'\n" + "".join(f"@attribute a{j} numeric\n"
                                                 for j in range(width)) \
        + "@attribute L {0,1}\n@data\n"
    row = ("0," * width + "1\n").encode()
    add(Case("arff_dense_cells", "cells.arff.gz",
             gzip.compress(head.encode() + row * n_rows, 1), r"cells exceeds the limit"))  # rows x attributes
    add(Case("libsvm_huge_feature_index", "wide.svm",
             b"0 1:1 %d:1\n1 2:1\n" % (limits.max_columns + 5), r"feature index .* column limit"))
    add(Case("libsvm_huge_label_id", "labels.svm",
             b"%d 1:1\n1 2:1\n" % (limits.max_columns + 5), r"label id .* column limit"))
    add(Case("libsvm_dense_label_matrix", "y.svm",
             b"%d 1:1\n" % (limits.max_columns - 1) * (limits.max_dense_cells
                                                       // limits.max_columns + 2),
             r"label matrix Y .* exceeds the limit"))

    # ---------------------------------------------------------------- duplicate names
    add(Case("arff_duplicate_attribute", "dup.arff",
             ARFF.replace("@attribute f2", "@attribute f1").encode(),
             r"attribute name 'f1' declared twice \(lines 2 and 3\)"))
    add(Case("csv_duplicate_column", "dup.csv", CSV.replace("f2,", "f1,", 1).encode(),
             r"column name 'f1' appears twice"))
    add(Case("libsvm_meta_duplicate_names", "dup.svm",
             b'# mlviz: {"feature_names": ["a", "a"], "label_names": ["y0", "y1"]}\n'
             b"0 1:1 2:3\n1 2:1\n", r"feature name .*'a' appears twice"))
    add(Case("libsvm_meta_duplicate_labels", "dupl.svm",
             b'# mlviz: {"feature_names": ["a", "b"], "label_names": ["y", "y"]}\n'
             b"0 1:1 2:3\n1 2:1\n", r"label name .*'y' appears twice"))
    add(Case("xml_duplicate_label", "ok.arff", ARFF.encode(),
             r"label 'L1' is listed twice",
             xml=XML.replace(b'name="L2"', b'name="L1"')))
    add(Case("npz_duplicate_feature_names", "dup.npz",
             _npz(X=np.ones((2, 2)), Y=np.eye(2, dtype=np.uint8),
                  feature_names=np.array(["a", "a"])), r"feature name 'a' appears twice"))
    add(Case("npz_feature_label_same_name", "same.npz",
             _npz(X=np.ones((2, 2)), Y=np.eye(2, dtype=np.uint8),
                  feature_names=np.array(["a", "b"]), label_names=np.array(["b", "c"])),
             r"'b' names both a feature and a label"))
    add(Case("arff_sparse_duplicate_index", "dupidx.arff",
             (b"@relation 's: -C -2'\n@attribute f1 numeric\n@attribute f2 numeric\n"
              b"@attribute L1 {0,1}\n@attribute L2 {0,1}\n@data\n"
              b"{0 1.5,0 2.5,2 1}\n{1 1,3 1}\n"),
             r"line 7: sparse row names attribute index 0 twice"))

    # ---------------------------------------------------------------- XML attacks, long names
    add(Case("xml_external_entity", "ok.arff", ARFF.encode(), r"DTD",
             xml=b'<?xml version="1.0"?>\n<!DOCTYPE labels [<!ENTITY xxe SYSTEM '
                 b'"file:///etc/passwd">]>\n<labels><label name="&xxe;"/></labels>'))
    laughs = b"".join(b'<!ENTITY l%d "&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;">'
                      % (i, *(i - 1,) * 10) for i in range(1, 10))
    add(Case("xml_billion_laughs", "ok.arff", ARFF.encode(), r"DTD",
             xml=b'<?xml version="1.0"?><!DOCTYPE labels [<!ENTITY l0 "lol">' + laughs
                 + b']><labels><label name="&l9;"/></labels>'))
    add(Case("xml_expanding_name", "ok.arff", ARFF.encode(), r"DTD",
             xml=b'<?xml version="1.0"?><!DOCTYPE labels [<!ENTITY a "' + b"A" * 8000
                 + b'">]><labels><label name="' + b"&a;" * 200 + b'"/></labels>'))
    add(Case("xml_long_name", "ok.arff", ARFF.encode(),
             rf"label name 'A+…' is 1,000,000 characters long; names are limited to "
             rf"{MAX_NAME_LENGTH}",
             xml=b'<labels><label name="' + b"A" * 1_000_000 + b'"/></labels>'))
    add(Case("xml_malformed", "ok.arff", ARFF.encode(), r"malformed label XML",
             xml=b"<labels><label name='L1'></labels>"))
    add(Case("arff_long_attribute_name", "long.arff",
             ARFF.replace("f1", "F" * 500_000).encode(),
             r"attribute name 'F+…' is 500,000 characters long"))
    add(Case("csv_long_column_name", "long.csv",
             CSV.replace("f1", "x" * 100_000).encode(), r"is 100,000 characters long"))
    add(Case("csv_html_name_bad_value", "html.csv",
             b"<script>alert(1)</script>,[x](https://e.x),L\n1,abc,0\n2,3,1\n",
             r"value 'abc' is not a number"))

    # ---------------------------------------------------------------- encodings, binary
    add(Case("csv_utf16_bom", "u16.csv", CSV.encode("utf-16"), r"UTF-16 \(little-endian\)"))
    add(Case("arff_utf16_no_bom", "u16.arff", ARFF.encode("utf-16-le"),
             r"looks UTF-16 encoded"))
    add(Case("arff_utf32_bom", "u32.arff", ARFF.encode("utf-32"), r"UTF-32"))
    add(Case("png_as_csv", "image.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64),
             r"NUL bytes"))
    add(Case("libsvm_utf16", "u16.svm", "0 1:1\n1 2:1\n".encode("utf-16"), r"UTF-16"))

    # ---------------------------------------------------------------- what already held
    add(Case("csv_nan_feature", "nan.csv", b"f1,f2,L\n1,nan,0\n2,3,1\n", r"NaN or infinite"))
    add(Case("arff_inf_feature", "inf.arff", ARFF.replace("0.5,1.5", "0.5,inf").encode(),
             r"NaN or infinite"))
    add(Case("csv_one_row", "one.csv", b"f1,L\n1,0\n", r"only 1 data row"))
    add(Case("csv_zero_labels", "nolabels.csv", b"f1,f2\n1.5,2.5\n3.5,4.5\n",
             r"no label columns detected"))
    add(Case("arff_missing_value", "miss.arff", ARFF.replace("0.5,1.5", "0.5,?").encode(),
             r"missing value '\?'"))
    return tuple(out)
