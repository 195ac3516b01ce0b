"""One split and one scaling: a bundled file and the same file uploaded give the same rows and features."""

import numpy as np
import pytest
import scipy.sparse as sp

from mlviz.dashboard.context import context_from_dataset, sample_context, split_rows
from mlviz.data import load_dataset, load_sample, load_sample_split, sample_dir, split_dataset, split_indices


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


@pytest.mark.parametrize("name", ["emotions", "enron"])
def test_picked_and_uploaded_file_give_identical_contexts(name):
    picked = sample_context(name)
    uploaded = context_from_dataset("upload:x", load_dataset(sample_dir() / f"{name}.arff.gz",
                                                              labels=sample_dir() / f"{name}.xml"))
    assert picked.scaling == uploaded.scaling
    for a in ("X_train", "X_test", "Y_train", "Y_test"):
        np.testing.assert_array_equal(_dense(getattr(picked, a)), _dense(getattr(uploaded, a)))


def test_library_split_is_the_dashboard_split():
    """load_sample_split, split_dataset and the dashboard's rows are one split (a hand permutation)."""
    full = load_sample("emotions")
    n = full.n_samples
    perm = np.random.default_rng(0).permutation(n)
    n_train = round(2 * n / 3)
    want_tr, want_te = np.sort(perm[:n_train]), np.sort(perm[n_train:])
    for tr, te in (split_indices(n), split_rows(n)):
        np.testing.assert_array_equal(tr, want_tr)
        np.testing.assert_array_equal(te, want_te)
    train, test = load_sample_split("emotions")
    np.testing.assert_array_equal(train.Y, full.Y[want_tr])
    np.testing.assert_array_equal(split_dataset(full)[1].X, full.X[want_te])
    ctx = sample_context("emotions", "none")
    np.testing.assert_array_equal(ctx.X_train, full.X[want_tr])


@pytest.mark.parametrize("n", [2, 3, 7, 100])
def test_split_indices_partition(n):
    tr, te = split_indices(n, random_state=3)
    assert len(tr) >= 1 and len(te) >= 1
    np.testing.assert_array_equal(np.sort(np.r_[tr, te]), np.arange(n))


def test_scene_keeps_its_official_split():
    ctx = sample_context("scene", "none")
    train, test = load_sample_split("scene")
    assert ctx.X_train.shape[0] == train.n_samples == 1211 and ctx.X_test.shape[0] == 1196
    np.testing.assert_array_equal(ctx.Y_test, test.Y)


@pytest.mark.parametrize("name", ["emotions", "enron", "yeast"])
def test_standard_halves_together_hold_the_full_files_rows(name):
    """The bundled standard train/test files are a partition of the full file (rows compared as sets)."""
    from mlviz.data import load_standard_split

    full = load_sample(name)
    train, test = load_standard_split(name)
    assert train.label_names == test.label_names == full.label_names
    rows = lambda ds: sorted(map(tuple, np.hstack([_dense(ds.X), ds.Y]).round(6).tolist()))  # noqa: E731
    assert rows(full) == sorted(rows(train) + rows(test))
