"""make_dense_like: the generator's statistics against its targets and against the bundled
real dense sets (describe() and feature marginals of yeast and scene), determinism, errors."""

import numpy as np
import pytest
from scipy.stats import skew

from mlviz.data import describe, load_sample
from mlviz.data.synthetic import DENSE_LIKE_PRESETS, make_dense_like


def _top_correlation_eigenvalue(X):
    return float(np.linalg.eigvalsh(np.corrcoef(np.asarray(X).T))[-1])


def test_shapes_dense_binary_and_deterministic():
    a = make_dense_like(300, 20, 6, cardinality=1.5, random_state=3)
    b = make_dense_like(300, 20, 6, cardinality=1.5, random_state=3)
    c = make_dense_like(300, 20, 6, cardinality=1.5, random_state=4)
    assert isinstance(a.X, np.ndarray) and a.X.shape == (300, 20) and a.Y.shape == (300, 6)
    assert a.Y.dtype == np.uint8 and set(np.unique(a.Y)) <= {0, 1} and a.Y.sum(axis=1).min() >= 1
    assert np.array_equal(a.X, b.X) and np.array_equal(a.Y, b.Y)
    assert not np.array_equal(a.X, c.X)


def test_targets_cardinality_labelsets_and_low_rank_correlation():
    ds = make_dense_like(4000, 40, 10, cardinality=3.0, n_prototypes=25, labelset_noise=0.0,
                         n_factors=5, factor_decay=0.5, noise_min=0.3, noise_max=0.3, skew_loc=0.0,
                         skew_scale=0.0, feature_loc=2.0, feature_scale=0.5, random_state=0)
    sizes = ds.Y.sum(axis=1)
    # cardinality: mean of 4000 set sizes within 4 standard errors of the target
    assert abs(sizes.mean() - 3.0) < 4 * sizes.std() / np.sqrt(4000) + 0.02
    # no flips: at most the 25 prototypes, and their frequencies are far from uniform (Zipf 1)
    sets, counts = np.unique(ds.Y, axis=0, return_counts=True)
    assert len(sets) <= 25 and counts.max() > 3 * np.median(counts)
    # labels co-occur through the prototypes: some pair far above independence
    Y = ds.Y.astype(float)
    p = Y.mean(axis=0)
    lift = (Y.T @ Y / len(Y)) / np.maximum(np.outer(p, p), 1e-12)
    np.fill_diagonal(lift, 0)
    assert lift.max() > 1.5
    # rank 5 + independent noise of sd 0.3 (no skew: linear features); each column's shared part
    # has variance >= 1 (Cov(z) >= I), so the 35 noise eigenvalues of the correlation matrix are
    # <= 0.09 / 1.09 (times the Marchenko-Pastur edge (1 + sqrt(35 / 4000))^2 < 1.2 for sampling)
    ev = np.sort(np.linalg.eigvalsh(np.corrcoef(ds.X.T)))[::-1]
    assert ev[:5].sum() / ev.sum() > 0.85 and ev[5] < 1.2 * 0.09 / 1.09 and ev[4] > 20 * ev[5]
    # marginals: mean and sd as asked
    assert np.allclose(ds.X.mean(axis=0), 2.0) and np.allclose(ds.X.std(axis=0), 0.5)


def test_skew_exponent_gives_the_log_normal_skewness():
    ds = make_dense_like(20000, 6, 3, cardinality=1.5, skew_loc=0.5, skew_scale=0.0, random_state=0)
    # exp(0.5 z) of a standard normal z: skewness (e^s2 + 2) sqrt(e^s2 - 1), s2 = 0.25, if the
    # standardised feature is close to normal (a mixture of Gaussians here)
    expected = (np.exp(0.25) + 2) * np.sqrt(np.exp(0.25) - 1)
    assert abs(np.median(skew(ds.X, axis=0)) - expected) < 0.3


def test_labelset_noise_adds_rare_sets_and_bounded_features():
    clean = make_dense_like(2000, 10, 8, cardinality=2.0, n_prototypes=10, labelset_noise=0.0, random_state=1)
    noisy = make_dense_like(2000, 10, 8, cardinality=2.0, n_prototypes=10, labelset_noise=0.2,
                            bounded=True, random_state=1)
    assert len(np.unique(clean.Y, axis=0)) <= 10 < len(np.unique(noisy.Y, axis=0))
    assert abs(noisy.Y.sum(axis=1).mean() - 2.0) < 0.15  # calibrated after the flips
    assert noisy.X.min() == 0.0 and noisy.X.max() == 1.0
    assert np.allclose(noisy.X.min(axis=0), 0.0) and np.allclose(noisy.X.max(axis=0), 1.0)


@pytest.mark.parametrize("name", ["yeast", "scene"])
def test_presets_match_the_bundled_real_sets(name):
    """The preset's describe() statistics and feature marginals are within stated factors
    of the real file's."""
    real = load_sample(name)
    gen = make_dense_like(**DENSE_LIKE_PRESETS[name], random_state=0)
    r, g = describe(real), describe(gen)
    for key in ("n_samples", "n_features", "n_labels"):
        assert r[key] == g[key]
    assert not g["sparse"] and g["n_empty"] == r["n_empty"] == 0
    assert abs(g["cardinality"] / r["cardinality"] - 1) < 0.05
    assert abs(g["density"] / r["density"] - 1) < 0.05
    assert 1 / 1.3 < g["n_labelsets"] / r["n_labelsets"] < 1.3  # what LP and RAkEL learn
    assert 1 / 1.5 < g["mean_ir"] / r["mean_ir"] < 1.5
    assert g["n_absent_labels"] == r["n_absent_labels"]
    # features: range, spread, skew and the correlation spectrum's top
    Xr, Xg = np.asarray(real.X), np.asarray(gen.X)
    assert (Xg.min() >= 0) == (Xr.min() >= 0)
    # every row of the yeast file has unit norm, scene's rows do not
    norms_r, norms_g = np.linalg.norm(Xr, axis=1), np.linalg.norm(Xg, axis=1)
    assert np.allclose(norms_g, 1.0) == np.allclose(norms_r, 1.0, atol=1e-4)
    assert 1 / 1.3 < np.median(Xg.std(axis=0)) / np.median(Xr.std(axis=0)) < 1.3
    assert abs(np.median(skew(Xg, axis=0)) - np.median(skew(Xr, axis=0))) < 0.5
    assert 1 / 1.5 < _top_correlation_eigenvalue(Xg) / _top_correlation_eigenvalue(Xr) < 1.5


def test_parameter_errors():
    with pytest.raises(ValueError, match="n_labels"):
        make_dense_like(10, 10, 0)
    with pytest.raises(ValueError, match="cardinality"):
        make_dense_like(10, 10, 3, cardinality=4.0)
    with pytest.raises(ValueError, match="labelset_noise"):
        make_dense_like(10, 10, 3, labelset_noise=1.5)
    with pytest.raises(ValueError, match="noise_min"):
        make_dense_like(10, 10, 3, noise_min=2.0, noise_max=1.0)
    with pytest.raises(ValueError, match="row_norm"):
        make_dense_like(10, 10, 3, row_norm=0.0)
    with pytest.raises(ValueError, match="clip"):
        make_dense_like(10, 10, 3, bounded=True, clip=0.5)
