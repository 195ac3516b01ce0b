"""Tests of mlviz.metrics against scikit-learn (identical definitions) and hand-computed examples."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import metrics as skm

from mlviz.metrics import DEFAULT_MEASURES, MEASURES, RCut, binarize, evaluate, get_measure

FIXED_KEYS = [
    "hamming_loss", "subset_accuracy", "micro_precision", "micro_recall", "micro_f1",
    "macro_precision", "macro_recall", "macro_f1", "example_precision", "example_recall",
    "example_f1", "macro_auc", "micro_auc", "ranking_loss", "one_error", "coverage",
    "average_precision", "p@1", "p@3", "p@5", "ndcg@1", "ndcg@3", "ndcg@5",
]


def _random_problem(seed, n=60, L=7, ties=False, proper_rows=True):
    """Random truth and scores; with proper_rows every row has >=1 relevant and >=1 irrelevant label."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < 0.35).astype(np.uint8)
    if proper_rows:
        Y[np.arange(n), rng.integers(0, L, n)] = 1
        full = Y.all(axis=1)
        Y[full, 0] = 0
        Y[full, 1] = 1
    S = 0.6 * Y + rng.random((n, L))
    S = S / S.max()
    if ties:
        S = np.round(S, 1)
    return Y, S


def test_registry_contains_fixed_keys_and_metadata():
    for key in FIXED_KEYS:
        m = get_measure(key)
        assert m.name == key and m.needs in ("labels", "scores") and m.label
    assert set(DEFAULT_MEASURES) <= set(MEASURES)
    assert MEASURES["hamming_loss"].greater_is_better is False
    assert MEASURES["coverage"].greater_is_better is False
    assert MEASURES["micro_f1"].greater_is_better is True and MEASURES["micro_f1"].needs == "labels"
    assert MEASURES["macro_auc"].needs == "scores"
    assert get_measure("p@10").greater_is_better
    with pytest.raises(ValueError, match="Unknown measure"):
        evaluate(np.eye(3), np.eye(3), measures=["f2"])
    res = evaluate(*_random_problem(0), measures=FIXED_KEYS)
    assert list(res) == FIXED_KEYS and all(np.isfinite(list(res.values())))


@pytest.mark.parametrize("seed", [0, 1])
def test_hamming_at_half_is_sklearn_hamming_of_scores_at_half_whatever_the_rule(seed):
    Y, S = _random_problem(seed, ties=True)  # ties: scores of exactly 0.5 count as predicted (>= 0.5)
    assert np.any(S == 0.5)
    want = skm.hamming_loss(Y, (S >= 0.5).astype(int))
    other = (S >= 0.2).astype(np.uint8)
    for kwargs in ({}, {"threshold": 0.2}, {"y_pred": other}, {"threshold": RCut(1)}):
        r = evaluate(Y, S, measures=["hamming_loss_p05", "hamming_loss"], **kwargs)
        assert r["hamming_loss_p05"] == pytest.approx(want, abs=1e-15)
        assert r["hamming_loss"] != pytest.approx(want) or not kwargs  # the rule moved the other column only
    m = get_measure("hamming_loss_p05")
    assert m.needs == "scores" and m.greater_is_better is False and "0.5" in m.label


@pytest.mark.parametrize("seed", [0, 1])
def test_hamming_and_subset_accuracy_equal_sklearn(seed):
    Y, S = _random_problem(seed)
    P = binarize(S, 0.5)
    r = evaluate(Y, S, measures=["hamming_loss", "subset_accuracy"])
    assert r["hamming_loss"] == pytest.approx(skm.hamming_loss(Y, P), abs=1e-15)
    assert r["subset_accuracy"] == pytest.approx(skm.accuracy_score(Y, P), abs=1e-15)


def test_prf_equal_sklearn_when_no_zero_denominators():
    Y, S = _random_problem(3, n=80, L=6)
    P = binarize(S, RCut(2))
    assert P.sum(0).min() > 0 and P.sum(1).min() > 0  # no zero denominators anywhere
    r = evaluate(Y, S, threshold=RCut(2), measures=FIXED_KEYS[2:11])
    for kind, avg in (("micro", "micro"), ("macro", "macro"), ("example", "samples")):
        p, rc, f, _ = skm.precision_recall_fscore_support(Y, P, average=avg, zero_division=0)
        assert r[f"{kind}_precision"] == pytest.approx(p, abs=1e-14)
        assert r[f"{kind}_recall"] == pytest.approx(rc, abs=1e-14)
        assert r[f"{kind}_f1"] == pytest.approx(f, abs=1e-14)


def test_prf_zero_denominator_convention_against_sklearn_elementwise():
    """Undefined ratio -> 1 if truth and prediction are both empty, else 0 (Mulan)."""
    rng = np.random.default_rng(7)
    Y = (rng.random((40, 6)) < 0.3).astype(np.uint8)
    P = (rng.random((40, 6)) < 0.3).astype(np.uint8)
    Y[:3] = 0
    P[:2] = 0  # rows 0,1: both empty; row 2: prediction only
    Y[5:8] = Y[5:8] | 1
    P[5] = 0  # truth only
    Y[:, 4] = 0
    P[:, 4] = 0  # label 4 absent from both
    Y[:, 5] = 0
    P[:, 5] = 1  # label 5 absent in truth, predicted
    r = evaluate(Y, P.astype(float), threshold=0.5, measures=FIXED_KEYS[2:11])

    def expected(y_rows, p_rows):
        prec, rec, f1 = [], [], []
        for y, p in zip(y_rows, p_rows):
            both = not y.any() and not p.any()
            zd_p = 1.0 if (both or (not p.any() and not y.any())) else 0.0
            prec.append(skm.precision_score(y, p, zero_division=zd_p))
            rec.append(skm.recall_score(y, p, zero_division=1.0 if not p.any() else 0.0))
            f1.append(skm.f1_score(y, p, zero_division=1.0))
        return np.mean(prec), np.mean(rec), np.mean(f1)

    ep, er, ef = expected(Y, P)
    mp, mr, mf = expected(Y.T, P.T)
    assert (r["example_precision"], r["example_recall"], r["example_f1"]) == pytest.approx((ep, er, ef))
    assert (r["macro_precision"], r["macro_recall"], r["macro_f1"]) == pytest.approx((mp, mr, mf))
    # F1's convention coincides with scikit-learn's zero_division=1 throughout.
    assert r["macro_f1"] == pytest.approx(skm.f1_score(Y, P, average="macro", zero_division=1))
    assert r["example_f1"] == pytest.approx(skm.f1_score(Y, P, average="samples", zero_division=1))


def test_prf_conventions_hand_computed():
    Y = np.array([[0, 0, 0], [1, 1, 0], [1, 0, 0]])
    P = np.array([[0, 0, 0], [0, 0, 0], [1, 0, 1]])
    r = evaluate(Y, P, measures=FIXED_KEYS[:11])
    # example-based: row0 both empty -> 1,1,1; row1 nothing predicted -> P 0, R 0, F 0;
    # row2: tp=1, |P|=2, |Y|=1 -> P 1/2, R 1, F 2/3
    assert r["example_precision"] == pytest.approx((1 + 0 + 0.5) / 3)
    assert r["example_recall"] == pytest.approx((1 + 0 + 1) / 3)
    assert r["example_f1"] == pytest.approx((1 + 0 + 2 / 3) / 3)
    # per label: l0 tp=1,|P|=1,|Y|=2 -> 1, 1/2, 2/3; l1 tp=0,|P|=0,|Y|=1 -> 0,0,0;
    # l2 tp=0,|P|=1,|Y|=0 -> 0, 0, 0
    assert r["macro_precision"] == pytest.approx(1 / 3)
    assert r["macro_recall"] == pytest.approx(0.5 / 3)
    assert r["macro_f1"] == pytest.approx((2 / 3) / 3)
    # micro: tp=1, |P|=2, |Y|=3
    assert (r["micro_precision"], r["micro_recall"], r["micro_f1"]) == pytest.approx((0.5, 1 / 3, 0.4))
    assert r["hamming_loss"] == pytest.approx(3 / 9) and r["subset_accuracy"] == pytest.approx(1 / 3)
    # a label absent from both truth and prediction counts as 1 in macro measures
    Y2, P2 = np.array([[1, 0], [0, 0]]), np.array([[1, 0], [0, 0]])
    r2 = evaluate(Y2, P2, measures=["macro_f1", "macro_precision", "micro_f1"])
    assert r2 == {"macro_f1": 1.0, "macro_precision": 1.0, "micro_f1": 1.0}
    # nothing true and nothing predicted anywhere: micro = 1
    r3 = evaluate(np.zeros((2, 2)), np.zeros((2, 2)), measures=["micro_precision", "micro_f1"])
    assert r3 == {"micro_precision": 1.0, "micro_f1": 1.0}


def test_binarize_scalar_vector_rcut():
    S = np.array([[0.5, 0.2, 0.5, 0.9], [0.1, 0.1, 0.1, 0.1]])
    assert binarize(S, 0.5).tolist() == [[1, 0, 1, 1], [0, 0, 0, 0]]
    t = np.array([0.6, 0.1, 0.5, 0.95])
    assert binarize(S, t).tolist() == [[0, 1, 1, 0], [0, 1, 0, 0]]
    # RCut(2): row 0 keeps 0.9 then the first of the tied 0.5s (label 0); row 1 all tied -> labels 0, 1
    assert binarize(S, RCut(2)).tolist() == [[1, 0, 0, 1], [1, 1, 0, 0]]
    assert binarize(S, RCut(9)).sum() == 8 and binarize(S, RCut(0)).sum() == 0
    assert binarize(S, 0.5).dtype == np.uint8
    with pytest.raises(ValueError, match="per-label threshold"):
        binarize(S, np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="non-negative integer"):
        RCut(-1)
    r = evaluate(np.array([[1, 0, 0, 1]]), S[:1], threshold=RCut(2), measures=["subset_accuracy"])
    assert r["subset_accuracy"] == 1.0


@pytest.mark.parametrize("ties", [False, True])
def test_auc_equal_sklearn_and_skipped_labels_counted(ties):
    Y, S = _random_problem(11, n=50, L=6, ties=ties)
    Y[:, 2] = 0
    Y[:, 4] = 1  # two single-class labels
    r, det = evaluate(Y, S, measures=["macro_auc", "micro_auc"], return_details=True)
    keep = [0, 1, 3, 5]
    assert det["auc_skipped_labels"] == 2
    assert r["macro_auc"] == pytest.approx(skm.roc_auc_score(Y[:, keep], S[:, keep], average="macro"), abs=1e-14)
    assert r["micro_auc"] == pytest.approx(skm.roc_auc_score(Y.ravel(), S.ravel()), abs=1e-14)
    r0 = evaluate(np.zeros((4, 3)), np.random.default_rng(0).random((4, 3)), measures=["macro_auc", "micro_auc"])
    assert r0 == {"macro_auc": 0.5, "micro_auc": 0.5}


@pytest.mark.parametrize("ties", [False, True])
def test_ranking_measures_equal_sklearn(ties):
    Y, S = _random_problem(5, n=70, L=8, ties=ties)
    r = evaluate(Y, S, measures=["ranking_loss", "coverage", "average_precision"])
    assert r["ranking_loss"] == pytest.approx(skm.label_ranking_loss(Y, S), abs=1e-14)
    # Tsoumakas coverage subtracts 1 from scikit-learn's coverage_error
    assert r["coverage"] == pytest.approx(skm.coverage_error(Y, S) - 1, abs=1e-13)
    assert r["average_precision"] == pytest.approx(skm.label_ranking_average_precision_score(Y, S), abs=1e-14)


def test_ndcg_equals_sklearn_without_ties():
    Y, S = _random_problem(6, n=40, L=9)
    assert len(np.unique(S)) == S.size
    r = evaluate(Y, S, measures=["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@20"])
    for k in (1, 3, 5):
        assert r[f"ndcg@{k}"] == pytest.approx(skm.ndcg_score(Y, S, k=k), abs=1e-14)
    assert r["ndcg@20"] == pytest.approx(skm.ndcg_score(Y, S), abs=1e-14)


def test_ranking_hand_computed_with_ties_and_skips():
    Y = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]])
    S = np.array([[0.9, 0.5, 0.5, 0.1], [0.3, 0.3, 0.8, 0.1], [0.2, 0.4, 0.6, 0.8], [0.1, 0.2, 0.3, 0.4]])
    keys = ["one_error", "coverage", "ranking_loss", "average_precision", "p@1", "p@3", "ndcg@3"]
    r, det = evaluate(Y, S, measures=keys, return_details=True)
    # row 2 (no relevant label) is skipped everywhere; row 3 (all relevant) skipped by ranking loss only
    assert det["ranking_skipped_instances"] == 1 and det["ranking_loss_skipped_instances"] == 2
    # one-error: row0 top=l0 relevant (0); row1 top=l2 irrelevant (1); row3 top l3 relevant (0)
    assert r["one_error"] == pytest.approx(1 / 3)
    # coverage (ranks pessimistic): row0 rank(l2)=3 -> 2; row1 rank(l1)=3 -> 2; row3 -> 3
    assert r["coverage"] == pytest.approx((2 + 2 + 3) / 3)
    # ranking loss: row0 pairs (l0,l1),(l0,l3),(l2,l1),(l2,l3): bad = (l2,l1) tie -> 1/4
    # row1 pairs (l1,l0) tie bad,(l1,l2) bad,(l1,l3) ok -> 2/3
    assert r["ranking_loss"] == pytest.approx((1 / 4 + 2 / 3) / 2)
    # AP: row0 l0 rank1 -> 1/1; l2 rank3 with 2 relevant at rank<=3 -> 2/3; row1 l1 rank 3 -> 1/3; row3 -> 1
    assert r["average_precision"] == pytest.approx(((1 + 2 / 3) / 2 + 1 / 3 + 1) / 3)
    # top-3 (stable): row0 l0,l1,l2 -> hits 1,0,1; row1 l2,l0,l1 -> 0,0,1; row3 l3,l2,l1 -> 1,1,1
    assert r["p@1"] == pytest.approx((1 + 0 + 1) / 3)
    assert r["p@3"] == pytest.approx((2 / 3 + 1 / 3 + 1) / 3)
    d = 1 / np.log2([2, 3, 4])
    nd = [(d[0] + d[2]) / (d[0] + d[1]), d[2] / d[0], 1.0]
    assert r["ndcg@3"] == pytest.approx(np.mean(nd))


def test_skipped_instances_do_not_change_ranking_measures():
    Y, S = _random_problem(8, n=30, L=5)
    keys = ["ranking_loss", "coverage", "average_precision", "one_error", "p@1", "ndcg@3"]
    base = evaluate(Y, S, measures=keys)
    Y2 = np.vstack([Y, np.zeros((3, 5), np.uint8)])
    S2 = np.vstack([S, np.random.default_rng(1).random((3, 5))])
    assert evaluate(Y2, S2, measures=keys) == pytest.approx(base)
    nothing = evaluate(np.zeros((3, 4)), np.ones((3, 4)), measures=keys)
    assert nothing == {"ranking_loss": 0.0, "coverage": 0.0, "average_precision": 1.0,
                       "one_error": 0.0, "p@1": 1.0, "ndcg@3": 1.0}


def test_instance_auc_equals_sklearn_per_row():
    Y, S = _random_problem(9, n=25, L=6, ties=True)
    expected = np.mean([skm.roc_auc_score(y, s) for y, s in zip(Y, S)])
    assert evaluate(Y, S, measures=["instance_auc"])["instance_auc"] == pytest.approx(expected, abs=1e-14)


def test_sparse_equals_dense_and_input_errors():
    Y, S = _random_problem(2)
    dense = evaluate(Y, S, measures=FIXED_KEYS)
    assert evaluate(sp.csr_matrix(Y), sp.csr_matrix(S), measures=FIXED_KEYS) == dense
    with pytest.raises(ValueError, match="different shapes"):
        evaluate(Y, S[:, :3])
    with pytest.raises(ValueError, match="only 0 and 1"):
        evaluate(Y * 2, S)
    with pytest.raises(ValueError, match="NaN"):
        evaluate(Y, np.where(Y, np.nan, S))


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.uint8, st.tuples(st.integers(1, 6), st.integers(1, 5)), elements=st.integers(0, 1)),
    st.data(),
)
def test_never_nan_and_in_range(Y, data):
    S = data.draw(arrays(np.float64, Y.shape, elements=st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])))
    r = evaluate(Y, S, measures=FIXED_KEYS + ["instance_auc"])
    vals = np.array(list(r.values()))
    assert np.isfinite(vals).all()
    cov = r.pop("coverage")
    assert 0 <= cov <= Y.shape[1] - 1
    assert all(0.0 <= v <= 1.0 for v in r.values())


def test_threshold_rule_against_a_hand_loop():
    """``threshold_rule``: the threshold, global or per label, then (``allow_empty=False``) the top label of
    each empty row; compared in the probabilities' own dtype, as every ``predict`` does."""
    from mlviz.metrics import threshold_rule

    rng = np.random.default_rng(1)
    P = rng.random((40, 5)).astype(np.float32)
    for t in (0.7, np.array([0.9, 0.5, 0.95, 0.6, 0.8])):
        for allow_empty in (True, False):
            out = threshold_rule(P, t, allow_empty)
            assert out.dtype == np.uint8
            for i in range(P.shape[0]):
                row = [int(P[i, l] >= (t if np.ndim(t) == 0 else t[l])) for l in range(P.shape[1])]
                if not allow_empty and not any(row):
                    row[int(np.argmax(P[i]))] = 1
                assert out[i].tolist() == row
    p = np.array([[np.float32(0.35)]], dtype=np.float32)  # 0.35 in float32 is just below 0.35
    assert threshold_rule(p, 0.35)[0, 0] == 1
