"""Fuzz: mutated, truncated or random inputs raise nothing but DataError."""

import gzip
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlviz.data import DataError, MultiLabelDataset, load_arff, load_csv, load_dataset

DENSE_ARFF = """% fuzz seed
@relation 'fuzz: -C -2'
@attribute id string
@attribute 'f\\'1' numeric
@attribute colour {red,green,blue}
@attribute flag {YES,NO}
@attribute L1 {0,1}
@attribute L2 {0,1}
@data
'a',0.5,red,YES,1,0
'b',-1e3,green,NO,0,1
'c,d',2,blue,YES,1,1
"""
SPARSE_ARFF = """@relation sparse
@attribute w0 numeric
@attribute w1 numeric
@attribute colour {red,green,blue}
@attribute L1 {0,1}
@attribute L2 {0,1}
@data
{0 1.5,3 1}
{1 -2,2 blue,4 1}
{}
"""
XML = (b'<labels xmlns="http://mulan.sourceforge.net/labels"><label name="L2"/>'
       b'<label name="L1"/></labels>')
SVM = "# mlviz: {\"name\": \"s\"}\n1,3 4:0.5 7:1\n 2:1.5  # empty label set\n0 1:-1 3:2e-3\n"
CSV = "a,b,c,y1,y2\n0.5,1,2,1,0\n-1,2e3,0,0,1\n3,4,5,1,1\n"

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def mutated(draw, text):
    """Apply 1-3 random edits: delete a span, insert junk, truncate, duplicate a line."""
    data = text
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "insert", "truncate", "dupline", "replace"]))
        i = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "delete":
            j = draw(st.integers(i, min(len(data), i + 12)))
            data = data[:i] + data[j:]
        elif kind == "insert":
            junk = draw(st.text(alphabet=st.sampled_from(list(",{}'\"\\%@?\n 0123456789.-eaZ\t")),
                                min_size=1, max_size=6))
            data = data[:i] + junk + data[i:]
        elif kind == "truncate":
            data = data[:i]
        elif kind == "dupline":
            lines = data.split("\n")
            k = draw(st.integers(0, max(len(lines) - 1, 0)))
            lines.insert(k, lines[k] if lines else "")
            data = "\n".join(lines)
        else:
            ch = draw(st.characters(min_codepoint=0, max_codepoint=0x2FF))
            data = data[:i] + ch + data[i + 1:]
    return data


def check_loader_outcome(call):
    """Run a loader: a dataset or a DataError are fine, anything else fails the test."""
    try:
        result = call()
    except DataError as exc:
        assert str(exc)
        return None
    assert isinstance(result, MultiLabelDataset)
    assert result.n_samples >= 2 and result.n_labels >= 1 and result.n_features >= 1
    return result


class Upload(io.BytesIO):
    def __init__(self, name, data):
        super().__init__(data)
        self.name = name


@SETTINGS
@given(mutated(DENSE_ARFF), st.sampled_from([None, XML, -2, ["L1"]]))
def test_fuzz_dense_arff(text, labels):
    check_loader_outcome(lambda: load_arff(Upload("f.arff", text.encode("utf-8", "surrogatepass")),
                              labels=labels))


@SETTINGS
@given(mutated(SPARSE_ARFF), st.sampled_from([XML, -2, 1]))
def test_fuzz_sparse_arff(text, labels):
    check_loader_outcome(lambda: load_arff(Upload("s.arff", text.encode("utf-8", "surrogatepass")),
                              labels=labels))


@SETTINGS
@given(mutated(CSV), st.sampled_from([None, ["y1", "y2"], 2]))
def test_fuzz_csv(text, labels):
    check_loader_outcome(lambda: load_csv(Upload("f.csv", text.encode("utf-8", "surrogatepass")), labels))


@SETTINGS
@given(mutated(SVM), st.sampled_from([None, 5]))
def test_fuzz_libsvm(text, labels):
    check_loader_outcome(lambda: load_dataset(Upload("f.svm", text.encode("utf-8", "surrogatepass")),
                                 labels=labels))


@SETTINGS
@given(st.binary(max_size=300), st.sampled_from(["x.arff", "x.csv", "x.svm", "x.npz", "x",
                                                 "x.arff.gz"]))
def test_fuzz_random_bytes_any_format(data, name):
    check_loader_outcome(lambda: load_dataset(Upload(name, data), labels=XML if "arff" in name else None))


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 0.99])
def test_truncated_gzip_arff_is_data_error(fraction):
    data = gzip.compress(DENSE_ARFF.encode())
    data = data[: int(fraction * len(data))]
    with pytest.raises(DataError, match="x.arff.gz"):
        load_dataset(Upload("x.arff.gz", data))
