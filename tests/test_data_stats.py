"""make_rotated_toy against its definition; describe against hand-computed values."""

import gzip
import io
import math

import numpy as np
import pandas as pd
import pytest
import scipy.io.arff as scipy_arff

from mlviz.data import (
    DESCRIBE_KEYS,
    MultiLabelDataset,
    describe,
    describe_frame,
    load_sample,
    make_rotated_toy,
    sample_dir,
)


def test_rotated_toy_matches_rule_recomputed_elementwise():
    ds = make_rotated_toy(n_samples=200, n_features=7, n_labels=6, random_state=1)
    assert ds.X.shape == (200, 7) and ds.Y.shape == (200, 6)
    for t in range(1, 7):  # the paper's task index t = 1..T
        for n in range(200):
            x1, x2 = ds.X[n, 0], ds.X[n, 1]
            rule = math.cos(2 * math.pi * t / 6) * x1 + math.sin(2 * math.pi * t / 6) * x2 > 0
            assert ds.Y[n, t - 1] == int(rule)
    assert ds.label_names == ["t1", "t2", "t3", "t4", "t5", "t6"]
    assert ds.feature_names[:2] == ["x1", "x2"]


def test_rotated_toy_statistics():
    ds = make_rotated_toy(n_samples=20000, n_features=3, n_labels=8, random_state=0)
    # x ~ N(0, I): mean 0, variance 1, uncorrelated coordinates (4-sigma tolerances)
    assert np.abs(ds.X.mean(axis=0)).max() < 4 / math.sqrt(20000)
    assert np.abs(ds.X.var(axis=0) - 1).max() < 4 * math.sqrt(2 / 20000)
    # each half-plane through the origin holds half of an isotropic Gaussian
    assert np.abs(ds.Y.mean(axis=0) - 0.5).max() < 4 * 0.5 / math.sqrt(20000)
    # two boundaries at angle difference d agree with probability 1 - d / pi
    Y = ds.Y.astype(float)
    for s, t in [(0, 1), (0, 2), (1, 5), (0, 4)]:
        diff = abs(s - t) * 2 * math.pi / 8
        diff = min(diff, 2 * math.pi - diff)
        agree = np.mean(Y[:, s] == Y[:, t])
        assert abs(agree - (1 - diff / math.pi)) < 4 * 0.5 / math.sqrt(20000)
    # T = 8: label t and t + 4 are exact complements (angles differ by pi)
    np.testing.assert_array_equal(ds.Y[:, 0], 1 - ds.Y[:, 4])


def test_rotated_toy_determinism_and_parameters():
    a = make_rotated_toy(50, 4, 3, random_state=5)
    b = make_rotated_toy(50, 4, 3, random_state=5)
    c = make_rotated_toy(50, 4, 3, random_state=6)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert not np.array_equal(a.X, c.X)
    default = make_rotated_toy(random_state=0)
    assert default.X.shape == (2000, 300) and default.Y.shape == (2000, 10)
    with pytest.raises(ValueError, match="'n_features' parameter of make_rotated_toy must be "
                                         "an int >= 2, got 1"):
        make_rotated_toy(n_features=1)
    with pytest.raises(ValueError, match="'n_labels'"):
        make_rotated_toy(n_labels=0)


def tiny():
    # counts per label: a=3, b=1, c=1; one empty instance
    Y = np.array([[1, 1, 0], [1, 0, 0], [1, 0, 1], [0, 0, 0]])
    X = np.array([[0.0, 1.0], [2.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    return MultiLabelDataset(X, Y, ["u", "v"], ["a", "b", "c"], "tiny")


def test_describe_hand_computed():
    stats = describe(tiny())
    assert list(stats) == DESCRIBE_KEYS
    assert (stats["n_samples"], stats["n_features"], stats["n_labels"]) == (4, 2, 3)
    assert stats["name"] == "tiny" and stats["sparse"] is False
    assert stats["feature_density"] == pytest.approx(4 / 8)
    assert stats["cardinality"] == pytest.approx(5 / 4)
    assert stats["density"] == pytest.approx(5 / 12)
    assert stats["n_labelsets"] == 4 and stats["n_empty"] == 1 and stats["n_absent_labels"] == 0
    pd.testing.assert_series_equal(stats["label_frequency"],
                                   pd.Series([3, 1, 1], index=["a", "b", "c"], name="positives"))
    # IRLbl = max count / count = 3/3, 3/1, 3/1
    np.testing.assert_allclose(stats["irlbl"].to_numpy(), [1.0, 3.0, 3.0])
    assert stats["mean_ir"] == pytest.approx(7 / 3) and stats["max_ir"] == pytest.approx(3.0)
    # SCUMBLE_i: {a,b} and {a,c}: 1 - sqrt(1*3) / ((1+3)/2); {a}: 0; {}: 0; mean over 4
    assert stats["scumble"] == pytest.approx(2 * (1 - math.sqrt(3) / 2) / 4)
    expected = pd.DataFrame([[3, 1, 1], [1, 1, 0], [1, 0, 1]], index=list("abc"),
                            columns=list("abc"))
    pd.testing.assert_frame_equal(stats["cooccurrence"], expected, check_dtype=False)


def test_describe_label_without_positives_is_finite_and_excluded():
    ds = tiny()
    ds = MultiLabelDataset(ds.X, np.hstack([ds.Y, np.zeros((4, 1), dtype=np.uint8)]),
                           ds.feature_names, ["a", "b", "c", "never"], "tiny0")
    stats = describe(ds)
    assert stats["n_absent_labels"] == 1
    assert np.isfinite(stats["irlbl"].to_numpy()).all()
    assert stats["irlbl"]["never"] == pytest.approx(3.0)  # count floored at 1
    assert stats["mean_ir"] == pytest.approx(7 / 3)       # excluded from the mean
    assert stats["scumble"] == pytest.approx(2 * (1 - math.sqrt(3) / 2) / 4)
    none = MultiLabelDataset(np.zeros((3, 1)), np.zeros((3, 2)), name="nolabels")
    s = describe(none)
    assert (s["mean_ir"], s["max_ir"], s["scumble"]) == (1.0, 1.0, 0.0)


def test_scumble_matches_bruteforce_on_random_labels():
    rng = np.random.default_rng(0)
    Y = (rng.random((40, 5)) < 0.35).astype(np.uint8)
    Y[:, 4] = 0
    Y[0, 4] = 1
    ds = MultiLabelDataset(rng.standard_normal((40, 2)), Y)
    stats = describe(ds)
    counts = Y.sum(axis=0)
    ir = [max(counts) / c for c in counts]
    per = []
    for row in Y:
        labels = [ir[k] for k in range(5) if row[k]]
        if not labels:
            per.append(0.0)
            continue
        geo = math.prod(labels) ** (1 / len(labels))
        per.append(1 - geo / (sum(labels) / len(labels)))
    assert stats["scumble"] == pytest.approx(sum(per) / 40)
    assert stats["mean_ir"] == pytest.approx(sum(ir) / 5)
    assert stats["n_labelsets"] == len({tuple(r) for r in Y.tolist()})


def test_describe_frame_and_real_data():
    stats = describe(load_sample("emotions"))
    frame = describe_frame(stats)
    assert list(frame.columns) == ["statistic", "value"]
    values = dict(zip(frame["statistic"], frame["value"]))
    assert values["instances"] == "593" and values["labels"] == "6"
    assert values["label cardinality"] == f"{stats['cardinality']:.4g}"
    assert not frame["value"].str.contains("nan").any()
    # cardinality against an independent parse of the raw file (scipy.io.arff)
    text = gzip.open(sample_dir() / "emotions.arff.gz", "rt").read()
    records, _ = scipy_arff.loadarff(io.StringIO(text))
    positives = sum(int((records[name] == b"1").sum()) for name in stats["irlbl"].index)
    assert stats["cardinality"] == pytest.approx(positives / 593)
    assert stats["cardinality"] == pytest.approx(1.8685, abs=1e-4)  # Mulan lists 1.869
    sparse = describe(load_sample("enron"))
    assert sparse["sparse"] is True and sparse["n_labels"] == 53
    assert np.isfinite(sparse["irlbl"].to_numpy()).all()


def test_describe_sparse_path_matches_dense_bruteforce_and_caps_cooccurrence():
    """The O(nnz) statistics against a dense brute-force recomputation (int64 Y^T Y,
    set of row tuples), for dense and sparse Y, with and without the co-occurrence cap."""
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    n, L = 300, 40
    freq = 0.5 / np.arange(1, L + 1) ** 0.8  # Zipf-like label frequencies
    Y = (rng.random((n, L)) < freq).astype(np.uint8)
    Y[:5] = 0
    Y[:, 7] = 0  # an absent label
    names = [f"l{k}" for k in range(L)]
    dense = describe(MultiLabelDataset(rng.normal(size=(n, 2)), Y, label_names=names))
    sparse = describe(MultiLabelDataset(sp.random(n, 5, density=0.3, format="csr", random_state=0),
                                        sp.csr_matrix(Y), label_names=names))
    full = Y.astype(np.int64).T @ Y.astype(np.int64)
    for stats in (dense, sparse):
        np.testing.assert_array_equal(stats["cooccurrence"].to_numpy(), full)
        assert stats["cooccurrence_labels"] == names
        assert stats["n_labelsets"] == len({tuple(r) for r in Y.tolist()})
        assert stats["n_empty"] == int((Y.sum(1) == 0).sum()) and stats["n_absent_labels"] == 1
        np.testing.assert_array_equal(stats["label_frequency"].to_numpy(), Y.sum(0))
    for key in ("cardinality", "mean_ir", "max_ir", "scumble"):
        assert sparse[key] == pytest.approx(dense[key], rel=1e-12)
    capped = describe(MultiLabelDataset(np.zeros((n, 1)), Y, label_names=names), max_cooccurrence_labels=10)
    counts = Y.sum(0).astype(np.int64)
    top = sorted(np.argsort(-counts, kind="stable")[:10])
    assert capped["cooccurrence_labels"] == [names[k] for k in top]
    np.testing.assert_array_equal(capped["cooccurrence"].to_numpy(), full[np.ix_(top, top)])
    assert capped["scumble"] == pytest.approx(dense["scumble"], rel=1e-12)
