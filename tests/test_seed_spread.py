"""The summaries of benchmarks/seed_spread.py and benchmarks/forest_hamming.py against independent references."""

import functools
import statistics

import numpy as np
import pytest
from _bench import load_benchmark
from sklearn.metrics import f1_score, hamming_loss


@functools.cache
def _load(name):
    return load_benchmark(name)


def _problem(seed, n=40, L=5):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < 0.3).astype(np.uint8)
    P = np.clip(0.4 * Y + 0.7 * rng.random((n, L)), 0, 1).round(2)  # rounded: some scores sit on a threshold
    return Y, P


def test_spread_is_the_sample_statistics_and_the_range_test():
    ss = _load("seed_spread")
    v = [0.71, 0.705, 0.722, 0.698]
    out = ss.spread(v, 0.719)
    assert out["mean"] == pytest.approx(statistics.fmean(v), abs=1e-15)
    assert out["sd"] == pytest.approx(statistics.stdev(v), abs=1e-15)  # ddof = 1
    assert (out["min"], out["max"], out["inside"]) == (0.698, 0.722, True)
    assert ss.spread(v, 0.73)["inside"] is False and ss.spread(v, 0.722)["inside"] is True
    assert ss.spread(v, float("nan"))["inside"] is None
    assert np.isnan(ss.spread([0.5], 0.5)["sd"])
    with pytest.raises(ValueError):
        ss.spread([], 0.5)


@pytest.mark.parametrize("seed", [0, 1])
def test_score_is_sklearn_on_own_prediction_and_on_half(seed):
    ss = _load("seed_spread")
    Y, P = _problem(seed)
    own = (P >= 0.35).astype(np.uint8)
    out = ss.score(Y, P, own)
    half = (P >= 0.5).astype(int)
    assert out["micro_f1"] == pytest.approx(f1_score(Y, own, average="micro"), abs=1e-15)
    assert out["hamming_loss"] == pytest.approx(hamming_loss(Y, own), abs=1e-15)
    assert out["micro_f1_at_05"] == pytest.approx(f1_score(Y, half, average="micro"), abs=1e-15)
    assert out["hamming_loss_at_05"] == pytest.approx(hamming_loss(Y, half), abs=1e-15)


@pytest.mark.parametrize("seed", [0, 1])
def test_threshold_curves_equal_sklearn_at_every_threshold(seed):
    fh = _load("forest_hamming")
    Y, P = _problem(seed)
    ts = (0.25, 0.35, 0.5, 0.6)
    assert np.any(np.isin(P, ts))
    f1, ham = fh.threshold_curves(Y, P, ts)
    for t, f, h in zip(ts, f1, ham):
        pred = (P >= t).astype(int)
        assert f == pytest.approx(f1_score(Y, pred, average="micro", zero_division=1), abs=1e-15)
        assert h == pytest.approx(hamming_loss(Y, pred), abs=1e-15)
    f1, ham = fh.threshold_curves(np.zeros((3, 2)), np.zeros((3, 2)), [0.5])  # nothing to find or predict
    assert (f1[0], ham[0]) == (1.0, 0.0)
