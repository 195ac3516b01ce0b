"""benchmarks/threshold_ceiling.py: its test-chosen ceilings against scikit-learn, threshold by threshold."""

import numpy as np
from _bench import load_benchmark
from sklearn.metrics import f1_score, hamming_loss


def test_ceilings_are_the_best_over_the_grid_by_brute_force():
    mod = load_benchmark("threshold_ceiling")
    rng = np.random.default_rng(1)
    Y = rng.random((40, 5)) < 0.3
    P = np.clip(0.6 * Y + rng.normal(0.2, 0.25, Y.shape), 0, 1)
    c = mod.ceilings(P, Y)
    f1 = [f1_score(Y, P >= t, average="micro", zero_division=1.0) for t in mod.THRESHOLDS]
    hl = [hamming_loss(Y, P >= t) for t in mod.THRESHOLDS]
    assert np.isclose(c["f1_global"], max(f1)) and np.isclose(c["hl_global"], min(hl))
    assert c["t_f1"] == mod.THRESHOLDS[int(np.argmax(f1))]
    f1_one = []
    for t in mod.THRESHOLDS:  # at least one label a row, by hand
        pred = P >= t
        for i in np.flatnonzero(~pred.any(axis=1)):
            pred[i, np.argmax(P[i])] = True
        f1_one.append(f1_score(Y, pred, average="micro"))
    assert np.isclose(c["f1_global1"], max(f1_one))
    per_label = [min(hamming_loss(Y[:, j], P[:, j] >= t) for t in mod.THRESHOLDS) for j in range(5)]
    assert np.isclose(c["hl_per_label"], np.mean(per_label))
    assert c["hl_per_label"] <= c["hl_global"] + 1e-12
