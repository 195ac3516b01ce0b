"""One split and one scaling: the bundled sets with standard Mulan files are split by them, every other
file (bundled or uploaded) by the one seeded split, so a file without standard files gives the same rows
and features picked or uploaded."""

import numpy as np
import pytest
import scipy.sparse as sp

from mlviz.dashboard.context import context_from_dataset, sample_context, split_rows
from mlviz.data import load_dataset, load_sample, load_sample_split, sample_dir, split_dataset, split_indices


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


@pytest.mark.parametrize("name", ["medical"])
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
    uploaded = context_from_dataset("upload:x", full, "none")  # (picked, emotions has its standard files)
    np.testing.assert_array_equal(uploaded.X_train, full.X[want_tr])


@pytest.mark.parametrize("n", [2, 3, 7, 100])
def test_split_indices_partition(n):
    tr, te = split_indices(n, random_state=3)
    assert len(tr) >= 1 and len(te) >= 1
    np.testing.assert_array_equal(np.sort(np.r_[tr, te]), np.arange(n))


@pytest.mark.parametrize("name", ["emotions", "enron", "scene", "yeast"])
def test_bundled_sets_with_standard_files_are_split_by_them(name):
    from mlviz.data import load_standard_split, standard_split_rows

    ctx = sample_context(name, "none")
    train, test = load_standard_split(name)
    for got, want in ((ctx.X_train, train.X), (ctx.X_test, test.X), (ctx.Y_train, train.Y), (ctx.Y_test, test.Y)):
        np.testing.assert_array_equal(_dense(got), _dense(want))
    # the same rows located in the bundled file, in the files' order
    full = load_sample(name)
    tr, te = standard_split_rows(name)
    np.testing.assert_array_equal(np.sort(np.r_[tr, te]), np.arange(full.n_samples))
    np.testing.assert_array_equal(_dense(full.X[tr]), _dense(train.X))
    np.testing.assert_array_equal(full.Y[te], test.Y)
    if name in ("emotions", "scene"):  # these files hold train, then test
        np.testing.assert_array_equal(tr, np.arange(train.n_samples))


def test_standard_split_rows_refuse_a_set_without_standard_files():
    from mlviz.data import DataError, standard_split_rows

    with pytest.raises(DataError, match="no standard train/test split"):
        standard_split_rows("medical")


@pytest.mark.parametrize(("name", "scaling"), [("enron", "auto"), ("scene", "l2"), ("emotions", "maxabs"),
                                               ("medical", "standard")])
def test_report_pack_rows_are_the_pages_split_under_any_scaling(name, scaling):
    """The pack names the bundled sample (not the scaled context's cache key) and its rows give the page's split."""
    from mlviz.dashboard.report_pack import split_indices

    ctx = sample_context(name, scaling)
    tr, te, sample, text = split_indices(ctx)
    assert sample == name
    full = load_sample(name)
    np.testing.assert_array_equal(full.Y[tr], ctx.Y_train)
    np.testing.assert_array_equal(full.Y[te], ctx.Y_test)
    assert ("standard Mulan split" in text) == (name != "medical")


@pytest.mark.parametrize("name", ["emotions", "enron", "yeast"])
def test_standard_halves_together_hold_the_full_files_rows(name):
    """The bundled standard train/test files are a partition of the full file (rows compared as sets)."""
    from mlviz.data import load_standard_split

    full = load_sample(name)
    train, test = load_standard_split(name)
    assert train.label_names == test.label_names == full.label_names
    rows = lambda ds: sorted(map(tuple, np.hstack([_dense(ds.X), ds.Y]).round(6).tolist()))  # noqa: E731
    assert rows(full) == sorted(rows(train) + rows(test))
