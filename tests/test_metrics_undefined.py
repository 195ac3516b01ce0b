"""The ``undefined`` conventions of the ranking measures (rows with no relevant label) against
scikit-learn where it has the measure, else against a hand-written per-row loop."""

import numpy as np
import pytest
from sklearn import metrics as skm

from mlviz.metrics import (
    average_precision,
    coverage,
    evaluate,
    instance_auc,
    ndcg_at_k,
    one_error,
    precision_at_k,
    ranking_loss,
)


def _problem(seed, n=50, L=6):
    """Random truth with some all-zero and some all-one rows, continuous scores (no ties)."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < 0.4).astype(np.uint8)
    Y[:7] = 0
    Y[7:10] = 1
    S = 0.5 * Y + rng.random((n, L))
    assert len(np.unique(S)) == S.size
    return Y, S


def _per_row(Y, S, row_value):
    """Per-row values of a measure by a naive loop; None where the row is undefined."""
    return [row_value(y.astype(bool), s) for y, s in zip(Y, S)]


def _combine(values, how, best, worst):
    if how == "skip":
        vals = [v for v in values if v is not None]
    else:
        vals = [(best if how == "best" else worst) if v is None else v for v in values]
    return float(np.mean(vals))


def _rloss(y, s):
    if y.all() or not y.any():
        return None
    return np.mean([s[b] >= s[a] for a in np.flatnonzero(y) for b in np.flatnonzero(~y)])


def _one_error(y, s):
    return None if not y.any() else float(not y[np.argmax(s)])


def _coverage(y, s):
    return None if not y.any() else max(int(np.sum(s >= s[l])) for l in np.flatnonzero(y)) - 1


def _ap(y, s):
    if not y.any():
        return None
    return np.mean([np.sum(s[y] >= s[l]) / np.sum(s >= s[l]) for l in np.flatnonzero(y)])


def _p_at(k):
    return lambda y, s: None if not y.any() else y[np.argsort(-s, kind="stable")[:k]].sum() / k


def _auc(y, s):
    if y.all() or not y.any():
        return None
    return np.mean([(s[a] > s[b]) + 0.5 * (s[a] == s[b]) for a in np.flatnonzero(y) for b in np.flatnonzero(~y)])


@pytest.mark.parametrize("seed", [0, 1])
def test_best_equals_sklearn_ranking_loss_ap_and_coverage(seed):
    Y, S = _problem(seed)
    assert ranking_loss(Y, S, undefined="best") == pytest.approx(skm.label_ranking_loss(Y, S), abs=1e-14)
    assert average_precision(Y, S, undefined="best") == pytest.approx(
        skm.label_ranking_average_precision_score(Y, S), abs=1e-14)
    # coverage_error gives 0 to rows without a relevant label and no -1 to the others
    with_rel = np.mean(Y.any(axis=1))
    assert coverage(Y, S, undefined="best") == pytest.approx(skm.coverage_error(Y, S) - with_rel, abs=1e-13)


@pytest.mark.parametrize("k", [1, 3, 6])
def test_worst_ndcg_equals_sklearn(k):
    Y, S = _problem(2)
    assert ndcg_at_k(Y, S, k, undefined="worst") == pytest.approx(skm.ndcg_score(Y, S, k=k), abs=1e-14)


def test_skip_equals_sklearn_on_the_defined_rows():
    Y, S = _problem(3)
    proper = Y.any(axis=1) & ~Y.all(axis=1)
    assert ranking_loss(Y, S) == pytest.approx(skm.label_ranking_loss(Y[proper], S[proper]), abs=1e-14)
    assert instance_auc(Y, S) == pytest.approx(
        np.mean([skm.roc_auc_score(y, s) for y, s in zip(Y[proper], S[proper])]), abs=1e-14)


@pytest.mark.parametrize("how", ["skip", "best", "worst"])
def test_every_convention_equals_a_hand_loop(how):
    Y, S = _problem(4, L=5)
    L = Y.shape[1]
    cases = [(ranking_loss, _rloss, 0.0, 1.0), (one_error, _one_error, 0.0, 1.0),
             (coverage, _coverage, 0.0, L - 1.0), (average_precision, _ap, 1.0, 0.0),
             (lambda Y, S, **kw: precision_at_k(Y, S, 2, **kw), _p_at(2), 1.0, 0.0),
             (instance_auc, _auc, 1.0, 0.0)]
    for func, row_value, best, worst in cases:
        expected = _combine(_per_row(Y, S, row_value), how, best, worst)
        assert func(Y, S, undefined=how) == pytest.approx(expected, abs=1e-13), func


def test_published_one_error_counts_empty_rows_as_errors_by_hand():
    Y = np.array([[1, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0]])
    S = np.array([[0.9, 0.1, 0.2], [0.5, 0.2, 0.1], [0.8, 0.3, 0.1], [0.1, 0.2, 0.3]])
    # rows 0 (correct top) and 2 (wrong top) are defined; rows 1 and 3 have no relevant label
    assert one_error(Y, S) == pytest.approx(1 / 2)
    assert one_error(Y, S, undefined="worst") == pytest.approx(3 / 4)
    assert one_error(Y, S, undefined="best") == pytest.approx(1 / 4)


def test_evaluate_takes_a_dict_and_rejects_bad_values():
    Y, S = _problem(5)
    keys = ["ranking_loss", "one_error", "p@1"]
    mixed = evaluate(Y, S, measures=keys, undefined={"ranking_loss": "best", "one_error": "worst"})
    assert mixed["ranking_loss"] == ranking_loss(Y, S, undefined="best")
    assert mixed["one_error"] == one_error(Y, S, undefined="worst")
    assert mixed["p@1"] == precision_at_k(Y, S, 1)
    with pytest.raises(ValueError, match="undefined must be one of"):
        evaluate(Y, S, measures=keys, undefined="zero")
    with pytest.raises(ValueError, match="undefined names measures not requested"):
        evaluate(Y, S, measures=keys, undefined={"coverage": "best"})
    # label-based measures ignore the setting
    assert (evaluate(Y, S, measures=["micro_f1"], undefined="worst")
            == evaluate(Y, S, measures=["micro_f1"]))


def test_all_rows_undefined():
    Y, S = np.zeros((3, 4), np.uint8), np.random.default_rng(0).random((3, 4))
    assert ranking_loss(Y, S) == 0.0 and ranking_loss(Y, S, undefined="worst") == 1.0
    assert coverage(Y, S, undefined="worst") == 3.0 and average_precision(Y, S, undefined="best") == 1.0
    assert instance_auc(Y, S) == 0.5 and instance_auc(Y, S, undefined="worst") == 0.0
