"""Loaders: the bundled Mulan sets, hand-written fixtures, dispatch, round trips."""

import gzip
import html
import io
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.io.arff as scipy_arff
import scipy.sparse as sp

from mlviz.data import (
    DataError,
    MultiLabelDataset,
    detect_format,
    list_samples,
    load_arff,
    load_csv,
    load_dataset,
    load_libsvm,
    load_npz,
    load_sample,
    load_sample_split,
    sample_dir,
    save_arff,
    save_csv,
    save_libsvm,
    to_npz,
)
from mlviz.data._source import read_source

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_data"
FIXTURES = Path(__file__).resolve().parent / "data"

EXPECTED = {
    "emotions": ((593, 72, 6), "emotions.xml", False),
    "scene-train": ((1211, 294, 6), "scene.xml", False),
    "scene-test": ((1196, 294, 6), "scene.xml", False),
    "yeast": ((2417, 103, 14), "yeast.xml", False),
    "enron": ((1702, 1001, 53), "enron.xml", True),
    "medical": ((1954, 1909, 45), "medical.xml", True),
}


def xml_names(path):
    """Label names of a Mulan XML by regex + html.unescape (independent of ElementTree)."""
    return [html.unescape(m) for m in re.findall(r'<label name="([^"]*)"', path.read_text())]


def raw_sparse_labels(path, label_names):
    """Independent parse of a sparse ARFF's label columns (rows of {index value})."""
    lines = gzip.open(path, "rt", encoding="utf-8").read().split("\n")
    names, rows, in_data = [], [], False
    for line in lines:
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        if in_data:
            rows.append(s)
        elif s.lower().startswith("@attribute"):
            rest = s[len("@attribute"):].strip()
            if rest[0] == "'":
                end = re.match(r"'((?:[^'\\]|\\.)*)'", rest)
                names.append(end.group(1).replace("\\'", "'"))
            else:
                names.append(rest.split()[0])
        elif s.lower().startswith("@data"):
            in_data = True
    k_of = {names.index(n): k for k, n in enumerate(label_names)}
    Y = np.zeros((len(rows), len(label_names)), dtype=np.uint8)
    for i, row in enumerate(rows):
        for pair in row.strip("{}").split(","):
            if pair.strip():
                idx, val = pair.split()
                if int(idx) in k_of and val == "1":
                    Y[i, k_of[int(idx)]] = 1
    return Y


@pytest.mark.parametrize("name", list(EXPECTED))
def test_bundled_sets_shapes_and_label_names(name):
    (n, d, L), xml, sparse = EXPECTED[name]
    ds = load_sample(name)
    assert ds.X.shape == (n, d) and ds.Y.shape == (n, L)
    assert ds.n_samples == n and ds.n_features == d and ds.n_labels == L
    assert ds.label_names == xml_names(SAMPLES / xml)
    assert sp.isspmatrix_csr(ds.X) if sparse else isinstance(ds.X, np.ndarray)
    assert ds.X.dtype == np.float64 and ds.Y.dtype == np.uint8
    assert set(np.unique(ds.Y)) <= {0, 1}


@pytest.mark.parametrize("name", ["emotions", "yeast", "scene-test"])
def test_dense_sets_match_scipy_arff_by_name(name):
    """Y columns follow the XML and equal scipy.io.arff's parse of the same attribute."""
    ds = load_sample(name)
    text = gzip.open(SAMPLES / f"{name}.arff.gz", "rt").read()
    records, meta = scipy_arff.loadarff(io.StringIO(text))
    for k, label in enumerate(ds.label_names):
        expected = (records[label] == b"1").astype(np.uint8)
        np.testing.assert_array_equal(ds.Y[:, k], expected)
    for j in (0, 5, ds.n_features - 1):
        np.testing.assert_array_equal(ds.X[:, j], records[ds.feature_names[j]].astype(float))


def test_yeast_arff_order_differs_from_xml():
    ds = load_sample("yeast")
    assert ds.label_names[:5] == ["Class1", "Class2", "Class3", "Class6", "Class4"]
    text = gzip.open(SAMPLES / "yeast.arff.gz", "rt").read()
    records, _ = scipy_arff.loadarff(io.StringIO(text))
    np.testing.assert_array_equal(ds.Y[:, 3], (records["Class6"] == b"1").astype(np.uint8))


@pytest.mark.parametrize("name", ["enron", "medical"])
def test_sparse_sets_labels_match_raw_parse(name):
    ds = load_sample(name)
    Y = raw_sparse_labels(SAMPLES / f"{name}.arff.gz", ds.label_names)
    np.testing.assert_array_equal(ds.Y, Y)


def test_medical_first_xml_label_is_last_arff_attribute():
    ds = load_sample("medical")
    assert ds.label_names[0] == "079.99:Unspecified_viral_infection"
    assert ds.label_names[4] == "486:Pneumonia,_organism_unspecified"
    # the XML lists the labels in the reverse of the ARFF order ("Reorder-Rlast-first")
    text = gzip.open(SAMPLES / "medical.arff.gz", "rt").read()
    assert text.rstrip().count("@attribute 079.99:Unspecified_viral_infection {0,1}") == 1
    assert text.index("079.99:Unspecified") > text.index("486:Pneumonia")


def test_scene_pooled_and_official_split():
    scene = load_sample("scene")
    train, test = load_sample_split("scene")
    assert scene.X.shape == (2407, 294)
    np.testing.assert_array_equal(scene.X, np.vstack([train.X, test.X]))
    np.testing.assert_array_equal(scene.Y, np.vstack([train.Y, test.Y]))
    assert (train.n_samples, test.n_samples) == (1211, 1196)


def test_seeded_split_is_partition_and_deterministic():
    full = load_sample("emotions")
    a_train, a_test = load_sample_split("emotions", random_state=3)
    b_train, _ = load_sample_split("emotions", random_state=3)
    c_train, _ = load_sample_split("emotions", random_state=4)
    assert (a_train.n_samples, a_test.n_samples) == (395, 198)
    np.testing.assert_array_equal(a_train.X, b_train.X)
    assert not np.array_equal(a_train.X, c_train.X)
    rows = np.vstack([a_train.X, a_test.X])
    key = lambda M: M[np.lexsort(M.T[::-1])]  # noqa: E731
    np.testing.assert_array_equal(key(rows), key(full.X))


def test_samples_listed_cached_and_copied():
    assert list_samples() == ["emotions", "scene", "yeast", "enron", "medical",
                              *[f"{n}-{h}" for n in ("emotions", "enron", "scene", "yeast") for h in ("train", "test")]]
    first = load_sample("emotions")
    first.X[0, 0] = 1e9
    first.Y[0, 0] = 1 - first.Y[0, 0]
    second = load_sample("emotions")
    assert second.X[0, 0] != 1e9
    assert second.X.flags.writeable


def test_sample_dir_env_override(tmp_path, monkeypatch):
    for f in ("emotions.arff.gz", "emotions.xml"):
        (tmp_path / f).write_bytes((SAMPLES / f).read_bytes())
    monkeypatch.setenv("MLVIZ_SAMPLE_DATA", str(tmp_path))
    assert sample_dir() == tmp_path
    assert list_samples() == ["emotions"]
    assert load_sample("emotions").n_samples == 593
    with pytest.raises(DataError, match="sample files missing"):
        load_sample("yeast")
    with pytest.raises(DataError, match="unknown sample 'iris'"):
        load_sample("iris")


# ---------------------------------------------------------------- fixtures


def test_fixture_nominal_id_quoted_names_out_of_order():
    ds = load_arff(FIXTURES / "birds_tiny.arff", labels=FIXTURES / "birds_tiny.xml")
    # labels in XML order, with the XML's (entity-decoded) names
    assert ds.label_names == ["Owl, Great Horned", "Swainson's Thrush", "Hammond's Flycatcher"]
    np.testing.assert_array_equal(ds.Y, [[0, 1, 0], [1, 0, 1], [0, 0, 0], [0, 1, 1]])
    # id (string) dropped; 3-valued nominal one-hot; YES/NO and {0,1} one column each
    assert ds.feature_names == ["audio level", "location=north", "location=south",
                                "location=east", "night", "windy"]
    np.testing.assert_array_equal(ds.X, [[0.5, 1, 0, 0, 1, 1], [-1.25, 0, 1, 0, 0, 0],
                                         [3, 0, 0, 1, 0, 1], [1e-3, 1, 0, 0, 1, 0]])
    assert any("dropped string attribute 'id'" in n for n in ds.notes)
    assert any("one-hot" in n for n in ds.notes)
    assert ds.Y.sum(axis=1).tolist()[2] == 0  # an empty label set is kept


def test_fixture_labels_as_list_and_xml_bytes_and_filelike():
    xml = (FIXTURES / "birds_tiny.xml").read_bytes()
    by_bytes = load_arff(FIXTURES / "birds_tiny.arff", labels=xml)
    by_file = load_arff(FIXTURES / "birds_tiny.arff", labels=io.BytesIO(xml))
    by_list = load_arff(FIXTURES / "birds_tiny.arff",
                        labels=["Owl, Great Horned", "Swainson's Thrush",
                                "Hammond's Flycatcher"])
    for ds in (by_file, by_list):
        np.testing.assert_array_equal(ds.Y, by_bytes.Y)
        assert ds.label_names == by_bytes.label_names


def test_fixture_meka_first_and_last():
    first = load_arff(FIXTURES / "meka_first.arff")
    last = load_arff(FIXTURES / "meka_last.arff")
    for ds in (first, last):
        assert ds.label_names == ["A", "B", "C"] and ds.feature_names == ["f1", "f2"]
        np.testing.assert_array_equal(ds.Y, [[1, 0, 1], [0, 0, 0], [0, 1, 1]])
        np.testing.assert_array_equal(ds.X, [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    # an explicit count overrides, with the same MEKA sign convention
    np.testing.assert_array_equal(load_arff(FIXTURES / "meka_last.arff", labels=-3).Y, last.Y)
    assert load_arff(FIXTURES / "meka_first.arff", labels=2).label_names == ["A", "B"]


def test_fixture_sparse_arff_stays_sparse_with_nominal_default():
    ds = load_arff(FIXTURES / "sparse_tiny.arff", labels=["L1", "L2"])
    assert sp.isspmatrix_csr(ds.X)
    assert ds.feature_names == ["w0", "w1", "colour=red", "colour=green", "colour=blue", "w3"]
    # an omitted nominal value is its first declared value ('red'), as in Weka
    np.testing.assert_array_equal(ds.X.toarray(), [[1.5, 0, 1, 0, 0, 2], [0, -2, 0, 0, 1, 0],
                                                   [0, 0, 1, 0, 0, 0], [0.25, 0, 0, 1, 0, 0]])
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 0], [0, 0], [1, 1]])


def test_nominal_id_attribute_dropped_and_kept_on_request(tmp_path):
    n = 12
    values = ",".join(f"P{i}" for i in range(n))
    rows = "\n".join(f"P{i},{i / 10},{i % 2}" for i in range(n))
    path = tmp_path / "ids.arff"
    path.write_text(f"@relation ids\n@attribute protein {{{values}}}\n@attribute f numeric\n"
                    f"@attribute L {{0,1}}\n@data\n{rows}\n")
    ds = load_arff(path, labels=-1)
    assert ds.feature_names == ["f"]
    assert any("dropped ID attribute 'protein'" in note for note in ds.notes)
    kept = load_arff(path, labels=-1, drop_ids=False)
    assert kept.n_features == n + 1


def test_binary_nominal_without_true_token_notes_encoding(tmp_path):
    path = tmp_path / "sex.arff"
    path.write_text("@relation r\n@attribute sex {male,female}\n@attribute L {0,1}\n@data\n"
                    "male,1\nfemale,0\nfemale,1\n")
    ds = load_arff(path, labels=-1)
    np.testing.assert_array_equal(ds.X[:, 0], [0, 1, 1])
    assert any("1 = 'female'" in note for note in ds.notes)


def test_numeric_label_attribute_accepted(tmp_path):
    path = tmp_path / "num.arff"
    path.write_text("@relation r\n@attribute f real\n@attribute L integer\n@data\n"
                    "1.5,1\n2.5,0\n")
    ds = load_arff(path, labels=["L"])
    np.testing.assert_array_equal(ds.Y[:, 0], [1, 0])


# ---------------------------------------------------------------- dispatch and sources


class FakeUpload:
    """Mimics streamlit's UploadedFile: .name, .getvalue() -> bytes."""

    def __init__(self, name, data):
        self.name, self._data = name, data

    def getvalue(self):
        return self._data


def test_load_dataset_dispatch_gz_upload_and_sniffing(tmp_path):
    raw = (FIXTURES / "meka_first.arff").read_bytes()
    expected = load_arff(FIXTURES / "meka_first.arff")
    gz = tmp_path / "m.arff.gz"
    gz.write_bytes(gzip.compress(raw))
    candidates = [
        load_dataset(gz),
        load_dataset(FakeUpload("meka.arff", raw)),
        load_dataset(FakeUpload("upload.bin", raw)),             # sniffed
        load_dataset(io.BytesIO(gzip.compress(raw))),            # gzip magic, sniffed
        load_dataset(io.StringIO(raw.decode()), fmt="arff"),
    ]
    for ds in candidates:
        np.testing.assert_array_equal(ds.Y, expected.Y)
        np.testing.assert_array_equal(ds.X, expected.X)
    assert load_dataset(gz).name == "m"


def test_detect_format_by_content(tmp_path):
    toy = MultiLabelDataset(np.array([[0.5, 0.0], [1.0, 2.0]]), np.array([[1, 0], [0, 1]]),
                            ["a", "b"], ["p", "q"], "t")
    for writer, fmt in ((save_csv, "csv"), (save_libsvm, "libsvm"), (save_arff, "arff")):
        path = tmp_path / f"noext_{fmt}"
        writer(toy, path)
        options = {"labels": ["p", "q"]} if fmt == "csv" else {}
        ds = load_dataset(path, **options)
        np.testing.assert_array_equal(ds.Y, toy.Y)
        assert detect_format(read_source(path)) == fmt
    buffer = io.BytesIO()
    to_npz(toy, buffer)
    upload = FakeUpload("noext", buffer.getvalue())
    assert detect_format(read_source(upload)) == "npz"
    assert load_dataset(upload).label_names == ["p", "q"]


def test_csv_label_selection_rules(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("f1,f2,lab_a,lab_b\n0.5,2,1,0\n1.5,0,0,0\n-1,1,1,1\n")
    detected = load_csv(path)
    by_list = load_csv(path, ["lab_b", "lab_a"])
    by_prefix = load_csv(path, label_prefix="lab_")
    by_count = load_csv(path, 2)
    assert detected.label_names == ["lab_a", "lab_b"] == by_prefix.label_names
    assert by_list.label_names == ["lab_b", "lab_a"]
    np.testing.assert_array_equal(by_list.Y, detected.Y[:, ::-1])
    np.testing.assert_array_equal(by_count.Y, detected.Y)
    np.testing.assert_array_equal(detected.X, [[0.5, 2], [1.5, 0], [-1, 1]])
    # binary feature 'f2' is not swallowed: the run stops at the first non-0/1 column
    path.write_text("id,f1,f2,lab\nr1,0.5,1,1\nr2,1.5,0,0\n")
    ds = load_csv(path, drop_columns=["id"])
    assert ds.label_names == ["f2", "lab"]  # documented rule: trailing all-0/1 run
    assert ds.feature_names == ["f1"]


def test_libsvm_format_details(tmp_path):
    path = tmp_path / "d.svm"
    path.write_text("# comment line\n1,3 4:0.5 7:1\n 2:1.5  # empty label set\n0 1:-1\n")
    ds = load_libsvm(path)
    assert ds.X.shape == (3, 7) and ds.Y.shape == (3, 4)
    np.testing.assert_array_equal(ds.Y, [[0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]])
    dense = ds.X.toarray()
    assert dense[0, 3] == 0.5 and dense[0, 6] == 1 and dense[1, 1] == 1.5 and dense[2, 0] == -1
    wide = load_libsvm(path, n_features=10, n_labels=6)
    assert wide.X.shape == (3, 10) and wide.Y.shape == (3, 6)
    zero = load_libsvm(path, zero_based=True)
    assert zero.X.shape == (3, 8) and zero.X[0, 4] == 0.5


# ---------------------------------------------------------------- round trips


def _random_dataset(sparse, rng, n=30, d=8, L=5):
    X = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-3, 4, size=d)
    if sparse:
        X[rng.random((n, d)) < 0.7] = 0.0
        X = sp.csr_matrix(X)
    Y = (rng.random((n, L)) < 0.3).astype(np.uint8)
    Y[0] = 0  # an empty label set
    features = ["plain", "with space", "com,ma", "quote's", 'dq"x', "back\\slash",
                "{brace}", "pct%"][:d]
    labels = ["Swainson's Thrush", "Owl, Great Horned", "a&b <c>", "L4", "tab\tname"][:L]
    return MultiLabelDataset(X, Y, features, labels, "rt")


def _assert_same(a, b):
    Xa = a.X.toarray() if sp.issparse(a.X) else a.X
    Xb = b.X.toarray() if sp.issparse(b.X) else b.X
    np.testing.assert_array_equal(Xa, Xb)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert a.feature_names == b.feature_names
    assert a.label_names == b.label_names


@pytest.mark.parametrize("sparse", [False, True])
def test_round_trip_arff_csv_libsvm_npz(tmp_path, sparse):
    ds = _random_dataset(sparse, np.random.default_rng(7))
    save_arff(ds, tmp_path / "d.arff", xml_path=tmp_path / "d.xml")
    by_xml = load_arff(tmp_path / "d.arff", labels=tmp_path / "d.xml")
    by_meka = load_arff(tmp_path / "d.arff")
    assert sp.issparse(by_xml.X) == sparse
    save_csv(ds, tmp_path / "d.csv")
    by_csv = load_csv(tmp_path / "d.csv", label_columns=ds.label_names)
    save_libsvm(ds, tmp_path / "d.svm")
    by_svm = load_libsvm(tmp_path / "d.svm")
    to_npz(ds, tmp_path / "d.npz")
    by_npz = load_npz(tmp_path / "d.npz")
    assert sp.issparse(by_npz.X) == sparse
    for back in (by_xml, by_meka, by_csv, by_svm, by_npz):
        _assert_same(ds, back)


def test_round_trip_gzip_and_real_sparse_medical(tmp_path):
    ds = load_sample("medical")
    save_arff(ds, tmp_path / "m.arff.gz", xml_path=tmp_path / "m.xml")
    back = load_dataset(tmp_path / "m.arff.gz", labels=tmp_path / "m.xml")
    assert sp.isspmatrix_csr(back.X)
    _assert_same(ds, back)


def test_date_attribute_dropped_and_tabs_accepted(tmp_path):
    path = tmp_path / "dates.arff"
    path.write_text("@relation\tr\n@attribute\twhen\tdate 'yyyy-MM-dd'\n@attribute\tf\tnumeric\n"
                    "@attribute\tL\t{0,1}\n@data\n'2020-01-01',1.5,1\n'2020-01-02',2.5,0\n")
    ds = load_arff(path, labels=["L"])
    assert ds.feature_names == ["f"]
    np.testing.assert_array_equal(ds.X[:, 0], [1.5, 2.5])
    assert any("dropped date attribute 'when'" in note for note in ds.notes)
