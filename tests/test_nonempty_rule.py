"""benchmarks/nonempty_rule.py: the rule and the measures against independent computations."""

import numpy as np
from _bench import load_benchmark
from sklearn.metrics import f1_score, hamming_loss


def _module():
    return load_benchmark("nonempty_rule")


def test_at_least_one_fills_only_empty_rows_with_their_most_probable_label():
    rng = np.random.default_rng(0)
    proba = rng.random((50, 6))
    P = proba >= 0.8
    out = _module().at_least_one(P, proba)
    for i in range(50):  # a hand loop
        expected = P[i].copy()
        if not expected.any():
            expected[np.argmax(proba[i])] = True
        assert np.array_equal(out[i], expected)
    assert out.any(axis=1).all() and not np.shares_memory(out, P)


def test_measures_equal_scikit_learn():
    rng = np.random.default_rng(1)
    Y, P = rng.random((40, 5)) < 0.3, rng.random((40, 5)) < 0.4
    f1, ham = _module().micro_f1_hamming(Y, P)
    assert np.isclose(f1, f1_score(Y, P, average="micro")) and np.isclose(ham, hamming_loss(Y, P))
    assert _module().micro_f1_hamming(np.zeros((3, 2)), np.zeros((3, 2))) == (1.0, 0.0)
