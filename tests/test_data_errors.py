"""Every bad input raises DataError naming the file (and line) and what was expected."""

import gzip
import io

import numpy as np
import pytest

from mlviz.data import (
    DataError,
    MultiLabelDataset,
    load_arff,
    load_csv,
    load_dataset,
    load_libsvm,
    load_npz,
    save_arff,
)

GOOD_ARFF = """@relation good
@attribute f1 numeric
@attribute f2 numeric
@attribute L1 {0,1}
@attribute L2 {0,1}
@data
0.5,1.5,1,0
1.0,2.0,0,1
2.0,3.0,1,1
"""
XML = b"""<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="L1"></label><label name="L2"></label></labels>"""


def write(tmp_path, name, text):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def arff_with(tmp_path, data_rows, header=None, name="bad.arff"):
    head = header or GOOD_ARFF.split("@data")[0]
    return write(tmp_path, name, head + "@data\n" + data_rows)


def test_data_error_is_value_error_with_location():
    err = DataError("expected a number", source="x.csv", line=3, column="f2")
    assert isinstance(err, ValueError)
    assert str(err) == "x.csv, line 3, column 'f2': expected a number"
    assert (err.source, err.line, err.column) == ("x.csv", 3, "f2")


# ---------------------------------------------------------------- empty / tiny


@pytest.mark.parametrize("loader, name", [(load_arff, "e.arff"), (load_csv, "e.csv"),
                                          (load_libsvm, "e.svm"), (load_npz, "e.npz"),
                                          (load_dataset, "e.arff")])
def test_empty_file(tmp_path, loader, name):
    path = write(tmp_path, name, b"")
    with pytest.raises(DataError, match=rf"{name}: .*empty"):
        loader(path)


def test_whitespace_only_and_missing_file(tmp_path):
    with pytest.raises(DataError, match="ws.arff: file is empty"):
        load_arff(write(tmp_path, "ws.arff", "\n  \n"), labels=1)
    with pytest.raises(DataError, match="nope.arff: file not found"):
        load_dataset(tmp_path / "nope.arff")


def test_single_row(tmp_path):
    with pytest.raises(DataError, match="one.arff: only 1 data row; need at least 2"):
        load_arff(arff_with(tmp_path, "0.5,1.5,1,0\n", name="one.arff"), labels=XML)
    with pytest.raises(DataError, match="one.csv: only 1 data row"):
        load_csv(write(tmp_path, "one.csv", "a,b\n1,0\n"))
    with pytest.raises(DataError, match="one.svm: only 1 data row"):
        load_libsvm(write(tmp_path, "one.svm", "0 1:2\n"))
    with pytest.raises(DataError, match="no data rows"):
        load_arff(arff_with(tmp_path, "% nothing\n", name="zero.arff"), labels=XML)


# ---------------------------------------------------------------- ARFF structure


def test_arff_row_length_mismatch_names_line(tmp_path):
    path = arff_with(tmp_path, "0.5,1.5,1,0\n1.0,2.0,0\n", name="short.arff")
    with pytest.raises(DataError, match=r"short.arff, line 8: .*4 comma-separated values"):
        load_arff(path, labels=XML)


def test_arff_non_numeric_feature(tmp_path):
    path = arff_with(tmp_path, "0.5,1.5,1,0\n1.0,abc,0,1\n", name="nn.arff")
    with pytest.raises(DataError, match=r"nn.arff, line 8"):
        load_arff(path, labels=XML)


def test_arff_label_not_binary(tmp_path):
    path = arff_with(tmp_path, "0.5,1.5,1,0\n1.0,2.0,2,1\n", name="lab.arff")
    with pytest.raises(DataError,
                       match=r"lab.arff, line 8: .*value 2 not found in nominal declaration"):
        load_arff(path, labels=XML)
    header = GOOD_ARFF.split("@data")[0].replace("L1 {0,1}", "L1 {0,1,2}")
    path = arff_with(tmp_path, "0.5,1.5,1,0\n1.0,2.0,2,1\n", header=header, name="nom.arff")
    with pytest.raises(DataError, match=r"nom.arff, line 4: label attribute 'L1' is nominal "
                                        r"\{0,1,2\}; expected \{0,1\}"):
        load_arff(path, labels=XML)
    header = GOOD_ARFF.split("@data")[0].replace("L1 {0,1}", "L1 numeric")
    path = arff_with(tmp_path, "0.5,1.5,1,0\n1.0,2.0,0.5,1\n", header=header, name="num.arff")
    with pytest.raises(DataError, match=r"num.arff, line 8: label 'L1' has value 0.5; "
                                        "expected 0 or 1"):
        load_arff(path, labels=XML)


@pytest.mark.parametrize("bad", ["nan", "inf", "-Infinity"])
def test_arff_nan_inf_features(tmp_path, bad):
    path = arff_with(tmp_path, f"0.5,1.5,1,0\n1.0,{bad},0,1\n", name="nan.arff")
    with pytest.raises(DataError, match=r"nan.arff, line 8: feature 'f2' is NaN or infinite"):
        load_arff(path, labels=XML)


def test_arff_missing_values(tmp_path):
    path = arff_with(tmp_path, "0.5,1.5,1,0\n1.0,?,0,1\n", name="miss.arff")
    with pytest.raises(DataError, match=r"miss.arff, line 8: missing value '\?' for 'f2'"):
        load_arff(path, labels=XML)
    path = arff_with(tmp_path, "0.5,1.5,1,0\n1.0,2,?,1\n", name="missl.arff")
    with pytest.raises(DataError, match=r"missl.arff, line 8: label 'L1' is missing"):
        load_arff(path, labels=XML)


def test_arff_sparse_errors(tmp_path):
    header = GOOD_ARFF.split("@data")[0]
    path = arff_with(tmp_path, "{0 1,2 1}\n{1 x}\n", header=header, name="sp.arff")
    with pytest.raises(DataError, match=r"sp.arff, line 8"):
        load_arff(path, labels=XML)
    path = arff_with(tmp_path, "{0 1,2 1}\n{9 1}\n", header=header, name="sp2.arff")
    with pytest.raises(DataError, match=r"sp2.arff, line 8"):
        load_arff(path, labels=XML)
    path = arff_with(tmp_path, "{0 1,2 1}\n1,2,0,1\n", header=header, name="mixed.arff")
    with pytest.raises(DataError, match=r"mixed.arff, line 8: .*sparse row"):
        load_arff(path, labels=XML)
    path = arff_with(tmp_path, "{0 1,2 1}\n{0 nan}\n", header=header, name="spnan.arff")
    with pytest.raises(DataError, match=r"spnan.arff, line 8: feature 'f1' is NaN"):
        load_arff(path, labels=XML)


def test_arff_truncated_and_garbled(tmp_path):
    truncated = GOOD_ARFF[: GOOD_ARFF.index("@attribute L2")]
    with pytest.raises(DataError, match=r"trunc.arff: no @data section"):
        load_arff(write(tmp_path, "trunc.arff", truncated), labels=XML)
    garbled = GOOD_ARFF.replace("@attribute f2 numeric", "f2 numeric ###")
    with pytest.raises(DataError, match=r"garbled.arff, line 3: unexpected header line"):
        load_arff(write(tmp_path, "garbled.arff", garbled), labels=XML)
    bad_type = GOOD_ARFF.replace("f2 numeric", "f2 numbr")
    with pytest.raises(DataError, match=r"type.arff, line 3: cannot parse ARFF"):
        load_arff(write(tmp_path, "type.arff", bad_type), labels=XML)
    quote = arff_with(tmp_path, "0.5,1.5,1,0\n'1.0,2.0,0,1\n", name="quote.arff")
    with pytest.raises(DataError, match=r"quote.arff, line 8"):
        load_arff(quote, labels=XML)
    with pytest.raises(DataError, match=r"csvlike.arff, line 1: unexpected header line 'a,b'"):
        load_arff(write(tmp_path, "csvlike.arff", "a,b\n1,2\n"), labels=1)
    dup = GOOD_ARFF.replace("@attribute f2 numeric", "@attribute f1 numeric")
    with pytest.raises(DataError, match=r"dup.arff, line 3: attribute name .f1. declared twice \(lines 2 and 3\)"):
        load_arff(write(tmp_path, "dup.arff", dup), labels=XML)


def test_arff_corrupt_gzip(tmp_path):
    data = gzip.compress(GOOD_ARFF.encode())[:-20]
    with pytest.raises(DataError, match=r"cut.arff.gz: corrupt or truncated gzip"):
        load_dataset(write(tmp_path, "cut.arff.gz", data), labels=XML)


# ---------------------------------------------------------------- label selection


def test_xml_label_absent_from_arff(tmp_path):
    xml = XML.replace(b'"L2"', b'"L3"')
    path = write(tmp_path, "g.arff", GOOD_ARFF)
    write(tmp_path, "g.xml", xml)
    with pytest.raises(DataError, match=r"g.arff: label 'L3' named in g.xml is not an attribute"
                                        r".*closest attribute: 'L2'"):
        load_arff(path, labels=tmp_path / "g.xml")
    with pytest.raises(DataError, match=r"label 'nope' named in the label list"):
        load_arff(path, labels=["L1", "nope"])


def test_malformed_or_empty_xml(tmp_path):
    path = write(tmp_path, "g.arff", GOOD_ARFF)
    write(tmp_path, "broken.xml", b"<labels><label name='L1'></labels>")
    with pytest.raises(DataError, match=r"broken.xml, line 1.*malformed label XML"):
        load_arff(path, labels=tmp_path / "broken.xml")
    with pytest.raises(DataError, match=r"no <label name=...> elements"):
        load_arff(path, labels=b"<labels></labels>")
    with pytest.raises(DataError, match=r"label 'L1' is listed twice"):
        load_arff(path, labels=b"<labels><label name='L1'/><label name='L1'/></labels>")
    with pytest.raises(DataError, match=r"missing.xml: label file: file not found; labels= "
                                        "takes a Mulan XML file"):
        load_arff(path, labels=tmp_path / "missing.xml")


def test_labels_needed_and_label_set_selecting_everything(tmp_path):
    path = write(tmp_path, "g.arff", GOOD_ARFF)
    with pytest.raises(DataError, match=r"g.arff: labels are needed: pass labels="):
        load_arff(path)
    with pytest.raises(DataError, match=r"g.arff: the label set selects every attribute"):
        load_arff(path, labels=["f1", "f2", "L1", "L2"])
    with pytest.raises(DataError, match=r"g.arff: label count 5 out of range"):
        load_arff(path, labels=5)
    with pytest.raises(DataError, match=r"label count 0 out of range"):
        load_arff(path, labels=0)
    with pytest.raises(DataError, match=r"features.*label attribute 'f1'|label 'f1' has value"):
        load_arff(path, labels=1)  # MEKA -C 1: f1 is not 0/1


# ---------------------------------------------------------------- CSV


def test_csv_errors_name_row_and_column(tmp_path):
    def csv(name, text):
        return write(tmp_path, name, text)

    with pytest.raises(DataError, match=r"ragged.csv, line 3: row has 2 fields; expected 3"):
        load_csv(csv("ragged.csv", "a,b,y\n1,2,1\n3,4\n"))
    with pytest.raises(DataError, match=r"text.csv, line 3, column 'b': value 'x' is not a "
                                        "number; expected a numeric feature"):
        load_csv(csv("text.csv", "a,b,y\n1,2,1\n3,x,0\n"))
    with pytest.raises(DataError, match=r"blank.csv, line 2, column 'a': missing value"):
        load_csv(csv("blank.csv", "a,b,y\n,2,1\n3,4,0\n"))
    with pytest.raises(DataError, match=r"inf.csv, line 3, column 'a': value 'inf' is NaN or "
                                        "infinite"):
        load_csv(csv("inf.csv", "a,b,y\n1,2,1\ninf,4,0\n"), ["y"])
    with pytest.raises(DataError, match=r"lab.csv, line 3, column 'y': label value '2'; "
                                        "expected 0 or 1"):
        load_csv(csv("lab.csv", "a,b,y\n1,2,1\n3,4,2\n"), ["y"])
    with pytest.raises(DataError, match=r"nolab.csv: no label columns detected"):
        load_csv(csv("nolab.csv", "a,b,y\n1,2,0.5\n3,4,2\n"))
    with pytest.raises(DataError, match=r"allbin.csv: cannot tell labels from features"):
        load_csv(csv("allbin.csv", "a,b,y\n1,0,1\n0,1,0\n"))
    with pytest.raises(DataError, match=r"every.csv: the label set selects every column"):
        load_csv(csv("every.csv", "a,y\n1,1\n0,0\n"), ["a", "y"])
    with pytest.raises(DataError, match=r"absent.csv, line 1: label column\(s\) \['z'\] not in "
                                        "the header"):
        load_csv(csv("absent.csv", "a,y\n1,1\n0,0\n"), ["z"])
    with pytest.raises(DataError, match=r"nohead.csv, line 1: the first row looks like data"):
        load_csv(csv("nohead.csv", "1,2,1\n3,4,0\n5,6,1\n"))
    with pytest.raises(DataError, match=r"duphead.csv, line 1: column name 'a' appears twice"):
        load_csv(csv("duphead.csv", "a,a,y\n1,2,1\n3,4,0\n"))
    with pytest.raises(DataError, match=r"prefix.csv: no column name starts with 'lab'"):
        load_csv(csv("prefix.csv", "a,y\n1,1\n0,0\n"), label_prefix="lab")
    with pytest.raises(DataError, match=r"nul.csv: file contains NUL bytes"):
        load_csv(csv("nul.csv", b"a,y\n1\x00,1\n0,0\n"))


# ---------------------------------------------------------------- svmlight / npz


def test_libsvm_errors(tmp_path):
    def svm(name, text):
        return write(tmp_path, name, text)

    with pytest.raises(DataError, match=r"tok.svm, line 2: token 'x' is not 'index:value'"):
        load_libsvm(svm("tok.svm", "0 1:1\n1 x\n"))
    with pytest.raises(DataError, match=r"zero.svm, line 1: feature index 0 out of range "
                                        r"\(indices are 1-based"):
        load_libsvm(svm("zero.svm", "0 0:1\n1 1:1\n"))
    with pytest.raises(DataError, match=r"lab.svm, line 2: label id 'a' is not an integer"):
        load_libsvm(svm("lab.svm", "0 1:1\na 1:1\n"))
    with pytest.raises(DataError, match=r"neg.svm, line 2: label id -1 is negative"):
        load_libsvm(svm("neg.svm", "0 1:1\n-1 1:1\n"))
    with pytest.raises(DataError, match=r"val.svm, line 2: feature value 'y' is not a number"):
        load_libsvm(svm("val.svm", "0 1:1\n1 1:y\n"))
    with pytest.raises(DataError, match=r"nan.svm, line 2: feature value 'nan' is NaN"):
        load_libsvm(svm("nan.svm", "0 1:1\n1 1:nan\n"))
    with pytest.raises(DataError, match=r"rep.svm, line 1: feature index 1 repeated"):
        load_libsvm(svm("rep.svm", "0 1:1 1:2\n1 1:1\n"))
    with pytest.raises(DataError, match=r"wide.svm, line 2: feature index 5 exceeds n_features=3"):
        load_libsvm(svm("wide.svm", "0 1:1\n1 5:1\n"), n_features=3)
    with pytest.raises(DataError, match=r"nolab.svm: no label columns"):
        load_libsvm(svm("nolab.svm", "1:1\n2:1\n"))


def test_npz_errors(tmp_path):
    np.savez(tmp_path / "obj.npz", X=np.array([[1.0], [2.0]]),
             Y=np.array([[1], [0]]), label_names=np.array(["a", None], dtype=object)[:1])
    with pytest.raises(DataError, match=r"obj.npz: array .* holds Python objects .*never loaded"):
        load_npz(tmp_path / "obj.npz")
    np.savez(tmp_path / "noy.npz", X=np.ones((2, 2)))
    with pytest.raises(DataError, match=r"noy.npz: no array 'Y'"):
        load_npz(tmp_path / "noy.npz")
    np.savez(tmp_path / "bady.npz", X=np.ones((2, 2)), Y=np.array([[2], [0]]))
    with pytest.raises(DataError, match=r"bady.npz: Y holds values other than 0 and 1"):
        load_npz(tmp_path / "bady.npz")
    np.savez(tmp_path / "rows.npz", X=np.ones((3, 2)), Y=np.array([[1], [0]]))
    with pytest.raises(DataError, match=r"X has 3 rows but Y has 2"):
        load_npz(tmp_path / "rows.npz")
    with pytest.raises(DataError, match=r"junk.npz: not a valid .npz archive"):
        load_npz(write(tmp_path, "junk.npz", b"PK\x03\x04garbage"))


# ---------------------------------------------------------------- dispatch / writers


def test_dispatch_errors(tmp_path):
    with pytest.raises(DataError, match=r"l.xml: this is a label XML file"):
        load_dataset(write(tmp_path, "l.xml", XML))
    with pytest.raises(DataError, match=r"unknown format 'json'"):
        load_dataset(write(tmp_path, "g.arff", GOOD_ARFF), fmt="json")
    with pytest.raises(DataError, match=r"unsupported option for csv files"):
        load_dataset(write(tmp_path, "g.csv", "a,y\n1,0\n2,1\n"), zero_based=True)
    with pytest.raises(DataError, match=r"g.csv: a label XML file applies to ARFF data"):
        load_dataset(tmp_path / "g.csv", labels=XML)
    assert load_dataset(tmp_path / "g.csv", labels="y").label_names == ["y"]
    with pytest.raises(DataError, match=r"expected a path or a file-like object"):
        load_dataset(12345)


def test_dataset_validation_and_writer_name_clash(tmp_path):
    with pytest.raises(DataError, match="label values must be 0 or 1"):
        MultiLabelDataset(np.zeros((2, 1)), np.array([[2], [0]]))
    with pytest.raises(DataError, match="NaN or infinite"):
        MultiLabelDataset(np.array([[np.nan], [0.0]]), np.array([[1], [0]]))
    with pytest.raises(DataError, match="1 feature names for 2 features"):
        MultiLabelDataset(np.zeros((2, 2)), np.array([[1], [0]]), ["a"])
    ds = MultiLabelDataset(np.zeros((2, 1)), np.array([[1], [0]]), ["a"], ["a"], "clash")
    with pytest.raises(DataError, match="clash: name 'a' is used twice"):
        save_arff(ds, tmp_path / "c.arff")


def test_upload_that_cannot_be_read():
    class Broken:
        name = "broken.csv"

        def read(self):
            raise OSError("connection reset")

    with pytest.raises(DataError, match=r"broken.csv: cannot read file"):
        load_dataset(Broken())
    with pytest.raises(DataError, match=r"latin.csv, line 3, column 'b'"):
        load_dataset(FakeLatin())


class FakeLatin(io.BytesIO):
    """Non-UTF-8 bytes are decoded as Latin-1 (noted) instead of failing."""

    name = "latin.csv"

    def __init__(self):
        super().__init__("a,b,y\n1,2,1\n3,caf\xe9,0\n".encode("latin-1"))


def test_arff_bad_escape_and_integer_overflow(tmp_path):
    header = "@relation r\n@attribute a integer\n@attribute s string\n@attribute L {0,1}\n"
    path = write(tmp_path, "esc.arff", header + "@data\n1,'x\\q',0\n2,'y',1\n")
    with pytest.raises(DataError, match=r"esc.arff, line 6: .*expected valid backslash escapes"):
        load_arff(path, labels=-1)
    path = write(tmp_path, "ovf.arff", header + "@data\n1,'x',0\ninf,'y',1\n")
    with pytest.raises(DataError, match=r"ovf.arff, line 7: .*expected a finite number for an "
                                        "integer attribute"):
        load_arff(path, labels=-1)
