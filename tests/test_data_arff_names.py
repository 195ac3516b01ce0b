"""ARFF names exactly as liac-arff reads them (issue 15): Mulan-collection quirks.

Every file here is written by liac-arff's own encoder (or by hand, for quirks
only Mulan's files have), then read by liac-arff and by ``load_arff``; the
attribute names must be identical, and the values equal to liac-arff's.
"""

import io

import arff as liac_arff
import numpy as np
import pytest
import scipy.sparse as sp

from mlviz.data import DataError, load_arff, save_arff

QUIRKS = [
    "TAG_m\\'usica",      # delicious: unquoted name holding a backslash and a quote
    "TAG_dise\\~no",      # delicious: unquoted backslash, NOT unescaped
    "Swainson's Thrush",  # birds: quote and space
    "a b",                # space
    "50%",                # % inside quotes
    "100% {sure}",        # % and braces inside quotes
    "{brace",
    "x,y",                # comma
    "back\\slash",
    'dq"inside',
    "ünïcödé",
    "a'b c",
]


def _named(text, name="q.arff"):
    buf = io.BytesIO(text.encode("utf-8"))
    buf.name = name
    return buf


def _liac_file(features, sparse=False, n=4):
    """ARFF text written by liac-arff: numeric features named ``features``, labels L1, L2."""
    attributes = [(f, "NUMERIC") for f in features] + [("L1", ["0", "1"]), ("L2", ["0", "1"])]
    d = len(features)
    rng = np.random.default_rng(0)
    values = rng.integers(0, 3, size=(n, d)).astype(float)
    labels = np.array([[1, 0], [0, 1], [1, 1], [0, 0]] * n)[:n]
    if sparse:
        data = [{j: values[i, j] for j in range(d) if values[i, j]}
                | {d + k: str(labels[i, k]) for k in range(2) if labels[i, k]} for i in range(n)]
    else:
        data = [list(values[i]) + [str(v) for v in labels[i]] for i in range(n)]
    text = liac_arff.dumps({"relation": "quirks: -C -2", "attributes": attributes, "data": data})
    return text, values, labels


def _liac_names(text, sparse=False):
    obj = liac_arff.loads(text, return_type=liac_arff.COO if sparse else liac_arff.DENSE)
    return [a[0] for a in obj["attributes"]]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", QUIRKS)
def test_quirk_name_round_trip_identical_to_liac(name, sparse):
    text, values, labels = _liac_file([name, "plain"], sparse=sparse)
    liac_names = _liac_names(text, sparse)
    ds = load_arff(_named(text))
    assert ds.feature_names + ds.label_names == liac_names
    assert ds.feature_names[0] == name  # liac-arff itself round-trips every quirk above
    X = ds.X.toarray() if sp.issparse(ds.X) else ds.X
    np.testing.assert_array_equal(X, values)
    np.testing.assert_array_equal(ds.Y, labels)
    assert sp.issparse(ds.X) == sparse


def test_all_quirks_in_one_file_and_through_our_writer(tmp_path):
    text, values, labels = _liac_file(QUIRKS, sparse=True)
    ds = load_arff(_named(text))
    assert ds.feature_names == QUIRKS == _liac_names(text, True)[:-2]
    path = tmp_path / "w.arff"
    save_arff(ds, path)
    written = path.read_text()
    assert _liac_names(written) == QUIRKS + ["L1", "L2"]  # liac-arff reads our file the same
    back = load_arff(path, labels=-2)
    assert back.feature_names == QUIRKS and back.label_names == ["L1", "L2"]


def test_delicious_style_labels_match_the_xml_by_name():
    # Written by hand as in Mulan's delicious.arff (liac-arff's encoder would not quote them).
    text = ("@relation delicious\n@attribute word1 {0,1}\n@attribute word2 numeric\n"
            "@attribute TAG_m\\'usica {0,1}\n@attribute TAG_dise\\~no {0,1}\n@data\n"
            "{0 1,2 1}\n{1 2.5,3 1}\n{0 1,1 1,2 1,3 1}\n")
    xml = (b'<?xml version="1.0" encoding="utf-8"?><labels xmlns="http://mulan.sourceforge.net/'
           b'labels"><label name="TAG_m\\\'usica"></label><label name="TAG_dise\\~no"></label>'
           b"</labels>")
    ds = load_arff(_named(text), labels=xml)
    assert ds.label_names == ["TAG_m\\'usica", "TAG_dise\\~no"] == _liac_names(text, True)[2:]
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1], [1, 1]])
    np.testing.assert_array_equal(ds.X.toarray(), [[1, 0], [0, 2.5], [1, 1]])


def test_weka_escaped_quoted_label_matches_both_spellings():
    # birds: @attribute 'Swainson\'s Thrush' -- liac-arff keeps the backslash, Weka
    # resolves it; the XML may hold either spelling.
    text = ("@relation birds\n@attribute f numeric\n@attribute 'Swainson\\'s Thrush' {0,1}\n"
            "@data\n1,0\n2,1\n")
    assert _liac_names(text) == ["f", "Swainson\\'s Thrush"]
    for spelling in ("Swainson&apos;s Thrush", "Swainson\\'s Thrush"):
        xml = f'<labels><label name="{spelling}"/></labels>'.encode()
        ds = load_arff(_named(text), labels=xml)
        np.testing.assert_array_equal(ds.Y[:, 0], [0, 1])


def test_missing_values_mixed_nominal_numeric_and_percent_in_quoted_values():
    attributes = [("num", "NUMERIC"), ("colour", ["red", "green", "50% off"]),
                  ("yes no", ["no", "yes"]), ("L", ["0", "1"])]
    data = [[1.5, "red", "yes", "1"], [2.5, "50% off", "no", "0"], [3.0, "green", "yes", "1"]]
    text = liac_arff.dumps({"relation": "mixed: -C -1", "attributes": attributes, "data": data})
    ds = load_arff(_named(text))
    assert ds.feature_names == ["num", "colour=red", "colour=green", "colour=50% off", "yes no"]
    np.testing.assert_array_equal(ds.X, [[1.5, 1, 0, 0, 1], [2.5, 0, 0, 1, 0], [3, 0, 1, 0, 1]])
    data[1][0] = None  # '?'
    text = liac_arff.dumps({"relation": "mixed: -C -1", "attributes": attributes, "data": data})
    with pytest.raises(DataError, match=r"line \d+: missing value '\?' for 'num'"):
        load_arff(_named(text))


@pytest.mark.parametrize("line, match", [
    ("@attribute 'a b numeric", r"line 3: cannot parse ARFF \(BadAttributeType.*must be quoted"),
    ("@attribute x foo", r"line 3: cannot parse ARFF \(BadAttributeType.*expected numeric"),
    ("@attribute {x} numeric", r"line 3: bad attribute declaration"),
])
def test_header_errors_point_at_the_real_line(line, match):
    text = f"@relation r\n@attribute first numeric\n{line}\n@attribute L {{0,1}}\n@data\n1,1,0\n2,2,1\n"
    with pytest.raises(DataError, match=match):
        load_arff(_named(text), labels=-1)


def test_tab_after_keyword_and_unquoted_relation_with_spaces():
    text = ("@relation scene: -C -1 -split 0.66\n@attribute\tf numeric\n@ATTRIBUTE\tL {0,1}\n"
            "@data\n1,0\n2,1\n")
    ds = load_arff(_named(text))
    assert (ds.feature_names, ds.label_names) == (["f"], ["L"])
