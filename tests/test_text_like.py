"""make_text_like: the generator's statistics against its targets and against the bundled
real text sets (describe() on enron and medical), determinism, parameter errors."""

import numpy as np
import pytest
import scipy.sparse as sp

from mlviz.data import describe, load_sample
from mlviz.data.synthetic import TEXT_LIKE_PRESETS, make_text_like
from mlviz.models._cdn_core import _jacobi_eig


def _jacobi(X, Y):
    """Largest eigenvalue of the Jacobi-scaled feature Gram matrix (the SparseCDN's
    conditioning measure) on the first 2/3 of the rows."""
    n = int(round(2 * X.shape[0] / 3))
    X, Y = sp.csr_matrix(X)[:n], np.asarray(Y)[:n]
    xm = np.asarray(X.mean(axis=0)).ravel()
    xv = np.asarray(X.multiply(X).mean(axis=0)).ravel() - xm ** 2
    p = np.clip(Y.mean(axis=0), 1 / n, 1 - 1 / n)
    return _jacobi_eig(X, xm, xv, float((p * (1 - p)).max()), 1 / n, n_iter=60)


def test_shapes_binary_sparse_and_deterministic():
    a = make_text_like(400, 200, 15, cardinality=2.0, random_state=3)
    b = make_text_like(400, 200, 15, cardinality=2.0, random_state=3)
    c = make_text_like(400, 200, 15, cardinality=2.0, random_state=4)
    assert sp.isspmatrix_csr(a.X) and a.X.shape == (400, 200) and a.Y.shape == (400, 15)
    assert np.all(a.X.data == 1.0) and a.Y.dtype == np.uint8 and set(np.unique(a.Y)) <= {0, 1}
    assert (a.X != b.X).nnz == 0 and np.array_equal(a.Y, b.Y)
    assert (a.X != c.X).nnz > 0


def test_targets_zipf_words_duplicates_and_cooccurrence():
    ds = make_text_like(3000, 800, 40, cardinality=2.5, words_per_row=40, duplicate_fraction=0.1,
                        duplicate_noise=0.0, random_state=0)
    sizes = ds.Y.sum(axis=1)
    assert sizes.min() >= 1 and abs(sizes.mean() - 2.5) < 0.25
    df = np.sort(np.asarray((ds.X != 0).sum(axis=0)).ravel())[::-1]
    assert df[0] > 20 * np.median(df)  # Zipf: a few words everywhere, most rare
    rows = [tuple(r.indices) + (-1,) + tuple(np.flatnonzero(y)) for r, y in zip(ds.X, ds.Y)]
    assert len(rows) - len(set(rows)) >= 0.05 * len(rows)  # exact duplicates (labels too)
    # labels co-occur through topics: pairs far above independence
    Y = ds.Y.astype(float)
    p = Y.mean(axis=0)
    lift = (Y.T @ Y / len(Y)) / np.outer(p, p)
    np.fill_diagonal(lift, 0)
    assert lift.max() > 5


@pytest.mark.parametrize("name", ["enron", "medical"])
def test_presets_match_the_bundled_real_sets(name):
    """The preset's describe() statistics are within stated factors of the real file's."""
    real = load_sample(name)
    gen = make_text_like(**TEXT_LIKE_PRESETS[name], random_state=0)
    r, g = describe(real), describe(gen)
    for key in ("n_samples", "n_features", "n_labels"):
        assert r[key] == g[key]
    assert abs(g["cardinality"] / r["cardinality"] - 1) < 0.1
    assert abs(g["density"] / r["density"] - 1) < 0.1
    assert 1 / 1.3 < g["feature_density"] / r["feature_density"] < 1.3
    assert 1 / 1.6 < g["n_labelsets"] / r["n_labelsets"] < 1.6
    if name == "medical":  # LabelPowerset's cost follows the distinct sets: 1-3 labels per row, as in the file
        assert 1 / 1.45 < g["n_labelsets"] / r["n_labelsets"] < 1.45
        assert np.asarray(gen.Y).sum(axis=1).max() == np.asarray(real.Y).sum(axis=1).max() == 3
    # the label-frequency tail: labels that never occur are skipped by the per-label LR reference
    # of bench_scale.py, so a generator that loses rare labels makes the reference too cheap
    assert 1 / 1.5 < g["mean_ir"] / r["mean_ir"] < 1.5
    assert g["n_absent_labels"] <= r["n_absent_labels"] + 3
    if name == "enron":  # digest rows: the conditioning that makes raw enron slow to fit
        assert 1 / 2 < _jacobi(gen.X, gen.Y) / _jacobi(real.X, real.Y) < 2


def test_binomial_set_sizes_are_bounded_and_less_dispersed_than_poisson():
    k, c = 2, 1.4
    a = make_text_like(4000, 100, 30, cardinality=c, max_extra_labels=k, random_state=0).Y.sum(axis=1)
    b = make_text_like(4000, 100, 30, cardinality=c, random_state=0).Y.sum(axis=1)
    assert a.min() == 1 and a.max() == 1 + k and b.max() > 1 + k
    p = (c - 1) / k  # 1 + Binomial(k, p): mean c, variance k p (1 - p) below Poisson's c - 1
    assert abs(a.mean() - c) < 4 * np.sqrt(k * p * (1 - p) / a.size)
    assert abs(a.var() - k * p * (1 - p)) < 0.05 and abs(b.var() - (c - 1)) < 0.05
    with pytest.raises(ValueError, match="max_extra_labels"):
        make_text_like(10, 10, 3, cardinality=3.5, max_extra_labels=2)


def test_parameter_errors():
    with pytest.raises(ValueError, match="n_labels"):
        make_text_like(10, 10, 0)
    with pytest.raises(ValueError, match="cardinality"):
        make_text_like(10, 10, 3, cardinality=0.5)
    with pytest.raises(ValueError, match="duplicate_fraction"):
        make_text_like(10, 10, 3, duplicate_fraction=1.0)
