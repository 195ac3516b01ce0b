"""Count-based rule_curve (mlviz._rule_counts) against the row-by-row loop.

The reference, ``_rule_curve_loop``, applies the rule with :func:`apply_rule`
and scores each prediction with :func:`mlviz.metrics.evaluate`.
"""

import numpy as np
import pandas as pd
import pytest

import mlviz.decision as decision
from mlviz.decision import CURVE_MEASURES, _rule_curve_loop, rule_curve
from mlviz.metrics import MEASURES


def _data(seed, n, L):
    """Tied scores (rounded to 0.1, so many lie exactly on 0, 0.5, 1 and other grid
    thresholds), some labels with no positives, some rows with no true label."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, L)) < rng.uniform(0.1, 0.6)).astype(np.uint8)
    Y[:, rng.random(L) < 0.3] = 0
    Y[rng.random(n) < 0.3] = 0
    P = np.round(np.clip(0.5 * Y + 0.6 * rng.random((n, L)) - 0.05, 0, 1), 1)
    P[rng.random((n, L)) < 0.1] = 0.5
    return Y, P


def _cases(L, rng):
    base = np.round(rng.random(L), 1)
    return [
        ("threshold", None, {}),
        ("threshold", [0.5, 0.0, 1.0, 0.3, 0.5, -0.0, 2.0, -1.0, 0.55], {}),
        ("rcut", None, {}),
        ("rcut", [L + 3, 0, 2, 1, 0, L], {}),
        ("per_label", None, dict(label=L - 1)),
        ("per_label", [0.7, 0.2, 0.2, 0.0, 1.0], dict(label=0, base=base)),
        ("scut", None, dict(base=base)),
        ("scut", [0.1, -0.1, 0.0, 0.1], dict(base=rng.random(L))),
    ]


def _assert_same(fast, loop):
    assert list(fast.columns) == list(loop.columns)
    assert list(fast.dtypes) == list(loop.dtypes)
    pd.testing.assert_series_equal(fast["param"], loop["param"])
    np.testing.assert_allclose(fast.drop(columns="param").to_numpy(),
                               loop.drop(columns="param").to_numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", [(37, 7), (1, 6), (25, 1), (1, 1)])
@pytest.mark.parametrize("at_least", [False, True])
def test_fast_curve_equals_the_loop(seed, shape, at_least, monkeypatch):
    Y, P = _data(seed, *shape)
    rng = np.random.default_rng(100 + seed)
    for rule, params, kw in _cases(shape[1], rng):
        loop = _rule_curve_loop(Y, P, rule, params, at_least_one_label=at_least, **kw)
        with monkeypatch.context() as m:  # the fast path must not fall back to the loop
            m.setattr(decision, "_curve_loop", None)
            fast = rule_curve(Y, P, rule, params, at_least_one_label=at_least, **kw)
        _assert_same(fast, loop)


@pytest.mark.parametrize("at_least", [False, True])
def test_fast_curve_every_measure_and_untied_scores(at_least):
    rng = np.random.default_rng(7)
    Y = (rng.random((50, 9)) < 0.3).astype(np.uint8)
    P = rng.random((50, 9))
    measures = list(MEASURES)  # label-based ones from counts, score-based ones once
    for rule, params, kw in _cases(9, rng):
        _assert_same(rule_curve(Y, P, rule, params, measures=measures, at_least_one_label=at_least, **kw),
                     _rule_curve_loop(Y, P, rule, params, measures=measures,
                                      at_least_one_label=at_least, **kw))


def test_fast_curve_defaults_and_errors_as_the_loop():
    Y, P = _data(3, 30, 5)
    curve = rule_curve(Y, P, "threshold")
    assert curve["param"].tolist() == np.round(np.linspace(0, 1, 101), 2).tolist()
    assert list(curve.columns) == ["param", *CURVE_MEASURES, "empty_rate"]
    assert rule_curve(Y, P, "rcut")["param"].tolist() == list(range(6))
    _assert_same(rule_curve(Y, P, "mcut"), _rule_curve_loop(Y, P, "mcut"))
    assert rule_curve(Y, P, "threshold", []).shape == (0, 7)
    with pytest.raises(ValueError, match="integer k >= 0"):
        rule_curve(Y, P, "rcut", [1, -1])
    with pytest.raises(ValueError, match="different shapes"):
        rule_curve(Y[:, :4], P, "threshold")
    with pytest.raises(ValueError, match="Unknown measure"):
        rule_curve(Y, P, "rcut", measures=["micro_f1", "nope"])
    with pytest.raises(ValueError, match="5 thresholds"):
        rule_curve(Y, P, "scut", [0.0], base=[0.5, 0.5])
