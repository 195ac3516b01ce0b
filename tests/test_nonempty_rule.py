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
    out = _module().at_least_one(proba, P).astype(bool)  # (the library's mlviz.metrics.at_least_one)
    for i in range(50):  # a hand loop
        expected = P[i].copy()
        if not expected.any():
            expected[np.argmax(proba[i])] = True
        assert np.array_equal(out[i], expected)
    assert out.any(axis=1).all() and not np.shares_memory(out, P)


def test_threshold_of_best_mean_rank_by_hand():
    """Two sets, three thresholds: ranks per set by hand; ties go to the threshold nearest 0.5."""
    import pandas as pd

    rows = []
    for ds, own, rule in (("a", [.50, .60, .55], [.62, .61, .50]), ("b", [.40, .45, .45], [.44, .47, .41])):
        for t, f_own, f_rule in zip((0.3, 0.4, 0.5), own, rule):
            rows.append(dict(dataset=ds, method="br", threshold=t, micro_f1=f_own, micro_f1_nonempty=f_rule))
    table = _module().summarize_thresholds(pd.DataFrame(rows), out=lambda *_: None)
    # own: set a ranks (3, 1, 2), set b (3, 1.5, 1.5) -> means (3, 1.25, 1.75): 0.4
    # rule: set a (1, 2, 3), set b (2, 1, 3) -> means (1.5, 1.5, 3): tie 0.3 / 0.4, nearest 0.5 is 0.4
    assert table.loc["br", "best t (own)"] == 0.4 and table.loc["br", "best t (rule)"] == 0.4
    assert np.isclose(table.loc["br", "mean F1 at best (rule)"], (0.61 + 0.47) / 2)
    # mean F1 -- own: (.45, .525, .50), rule: (.53, .54, .455): 0.4 both
    assert table.loc["br", "best t by mean F1 (own)"] == 0.4 == table.loc["br", "best t by mean F1 (rule)"]
    assert np.isclose(table.loc["br", "best mean F1 (own)"], 0.525)
    assert np.isclose(table.loc["br", "mean F1 at default (own)"], np.nan, equal_nan=True)  # 0.25 not swept


def test_measures_equal_scikit_learn():
    rng = np.random.default_rng(1)
    Y, P = rng.random((40, 5)) < 0.3, rng.random((40, 5)) < 0.4
    f1, ham = _module().micro_f1_hamming(Y, P)
    assert np.isclose(f1, f1_score(Y, P, average="micro")) and np.isclose(ham, hamming_loss(Y, P))
    assert _module().micro_f1_hamming(np.zeros((3, 2)), np.zeros((3, 2))) == (1.0, 0.0)
