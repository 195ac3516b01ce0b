"""Linked views: CDN edge effects against brute-force enumeration, the UpSet counts against pandas,
and the URL encoding of a selection."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from _cdn_reference import stationary_marginals  # brute force over all 2^L states, independent of the library
from scipy.special import expit

from mlviz.models.cdn_effects import (
    MAX_EXACT_LABELS,
    TooLargeError,
    clamped_marginals,
    conditional_marginal,
    edge_effect,
    top_instances,
)


@pytest.mark.parametrize("L", [3, 5, 6])
def test_clamped_marginals_equal_brute_force_enumeration(L):
    """Dense solve (L - 1 <= 4) and power iteration (L - 1 = 5) against the eigenvector of the
    explicit 2^L kernel, asymmetric strong weights."""
    rng = np.random.default_rng(L)
    V = rng.normal(scale=1.5, size=(L, L))
    np.fill_diagonal(V, 0.0)
    lin = rng.normal(size=(3, L))
    for a in (0, L - 1):
        for value in (0, 1):
            P = clamped_marginals(lin, V, a, value)
            for i in range(3):
                np.testing.assert_allclose(P[i], stationary_marginals(lin[i], V, clamp=(a, value)), atol=1e-7)


def test_symmetric_weights_clamping_equals_conditioning_of_the_ising_joint():
    """V = V^T: the CDN is one Ising model p(s) ∝ exp(½ Σ lin_k s_k + ½ Σ_{t<k} V_tk s_t s_k);
    holding A fixed in the sampler gives its conditional P(y_B | y_A)."""
    rng = np.random.default_rng(1)
    L = 4
    V = rng.normal(size=(L, L))
    V = V + V.T
    np.fill_diagonal(V, 0.0)
    lin = rng.normal(size=L)
    states = np.array(list(itertools.product([-1.0, 1.0], repeat=L)))
    energy = 0.5 * states @ lin + 0.5 * np.einsum("st,tk,sk->s", states, np.triu(V, 1), states)
    p = np.exp(energy)
    p /= p.sum()
    a, b = 2, 0
    for value in (0, 1):
        on = states[:, a] == 2 * value - 1
        cond = p[on & (states[:, b] > 0)].sum() / p[on].sum()
        assert clamped_marginals(lin[None], V, a, value)[0, b] == pytest.approx(cond, abs=1e-8)


def test_two_label_component_is_the_closed_form_conditional():
    """With only A and B, B's Gibbs update sees A alone: P(y_B = 1 | do(y_A = v)) = σ(lin_B ± V_AB)."""
    lin = np.array([[0.3, -0.7], [-1.2, 2.0]])
    V = np.array([[0.0, 1.4], [-0.6, 0.0]])
    for v in (0, 1):
        np.testing.assert_allclose(clamped_marginals(lin, V, 0, v)[:, 1], expit(lin[:, 1] + (2 * v - 1) * 1.4),
                                   atol=1e-12)


def test_clamped_marginals_refuses_too_many_labels():
    L = MAX_EXACT_LABELS + 2
    with pytest.raises(TooLargeError, match="free labels"):
        clamped_marginals(np.zeros((1, L)), np.zeros((L, L)), 0, 1, max_exact_labels=10 ** 6)


@pytest.fixture(scope="module")
def cdn():
    from mlviz.models import SparseCDN

    rng = np.random.default_rng(0)
    n, L = 240, 5
    X = rng.normal(size=(n, 4))
    Y = (X @ rng.normal(size=(4, L)) + rng.normal(size=(n, L)) > 0).astype(np.uint8)
    Y[:, 3] = np.where(rng.random(n) < 0.85, Y[:, 0], Y[:, 3])
    Y[:, 4] = np.where(rng.random(n) < 0.8, 1 - Y[:, 3], Y[:, 4])
    model = SparseCDN(variant="cdn", lam1=1.0, lam2=1.0, random_state=0).fit(X, Y)
    return model, X[:20]


def test_edge_effect_of_a_fitted_cdn_equals_enumeration(cdn):
    model, X = cdn
    V = model.label_coef_
    assert np.all(V[~np.eye(5, dtype=bool)] != 0)  # (ridge CDN: one component of 5 labels)
    lin = model.decision_function(X)
    eff = edge_effect(model, X, 0, 3)
    assert eff.method == "exact"
    for i in range(len(X)):
        assert eff.p_on[i] == pytest.approx(stationary_marginals(lin[i], V, clamp=(0, 1))[3], abs=1e-7)
        assert eff.p_off[i] == pytest.approx(stationary_marginals(lin[i], V, clamp=(0, 0))[3], abs=1e-7)
    assert np.abs(eff.delta).max() > 0.1  # label 3 copies label 0: switching 0 moves 3


def test_edge_effect_approximation_is_the_conditional_at_the_predictions(cdn):
    """Above the size cap "auto" uses the conditional of eq. (1) with the other labels at the
    model's predictions: checked against the model's own decision_function(X, Y_given)."""
    model, X = cdn
    eff = edge_effect(model, X, 0, 3, max_exact_labels=2)
    assert eff.method == "conditional" and "approximation" in eff.method_label
    pred = model.predict(X)
    for value, got in ((1, eff.p_on), (0, eff.p_off)):
        Yg = pred.copy()
        Yg[:, 0] = value
        np.testing.assert_allclose(got, expit(model.decision_function(X, Y_given=Yg)[:, 3]), atol=1e-12)
    with pytest.raises(TooLargeError, match="component"):
        edge_effect(model, X, 0, 3, method="exact", max_exact_labels=2)
    # the size rule is predict_proba's: components of at most max_exact_labels labels are exact
    assert edge_effect(model, X, 0, 3, max_exact_labels=5).method == "exact"
    assert edge_effect(model, X, 0, 3, max_exact_labels=4, Y_given=pred).method == "conditional"
    np.testing.assert_allclose(conditional_marginal(model.decision_function(X), model.label_coef_, 0, 3, 1, pred),
                               eff.p_on)


def test_edge_effect_unconnected_labels_do_not_move(cdn):
    import copy

    model, X = cdn
    m = copy.deepcopy(model)
    V = m.label_coef_.copy()
    V[:, 1] = 0.0  # label 1 on its own
    V[1, :] = 0.0
    m.label_coef_ = V
    eff = edge_effect(m, X, 0, 1)
    assert eff.method == "unconnected"
    np.testing.assert_array_equal(eff.delta, 0.0)
    np.testing.assert_allclose(eff.p_on, expit(m.decision_function(X)[:, 1]))
    with pytest.raises(ValueError, match="two different labels"):
        edge_effect(m, X, 2, 2)


def test_top_instances_orders_by_absolute_change():
    d = np.array([0.1, -0.5, 0.3, 0.5, np.nan, -0.05])
    assert top_instances(d, 3).tolist() == [1, 3, 2]
    assert top_instances(d, 0).tolist() == []


# ------------------------------------------------------------------ UpSet panel
def _pandas_counts(Y):
    sets = pd.Series([tuple(np.flatnonzero(r).tolist()) for r in Y])
    return sets.value_counts()


def test_labelset_intersections_match_pandas_value_counts():
    from mlviz.plotting.upset import labelset_intersections

    rng = np.random.default_rng(3)
    Y = (rng.random((400, 6)) < [0.5, 0.3, 0.2, 0.6, 0.1, 0.05]).astype(np.uint8)
    ref = _pandas_counts(Y)
    got = labelset_intersections(Y)
    assert {s: c for s, c in got} == ref.to_dict()
    assert sum(c for _, c in got) == 400
    counts = [c for _, c in got]
    assert counts == sorted(counts, reverse=True)
    top = labelset_intersections(Y, 5)
    assert [c for _, c in top] == sorted(ref.values, reverse=True)[:5]


def test_upset_figure_bars_and_dot_matrix(ctx):
    """emotions: the bars are the pandas counts of the 8 most frequent exact label sets; each
    column of the dot matrix has a dot exactly at the set's labels."""
    from mlviz.plotting.upset import selected_intersections, upset_figure

    Y = ctx.Y_train
    fig = upset_figure(Y, ctx.label_names, top_k=8, selected=None)
    ref = _pandas_counts(Y)
    bars = fig.data[0]
    assert bars.meta == "intersections"
    assert list(bars.y) == sorted(ref.values, reverse=True)[:8]
    sets = [tuple(s) for s in fig.layout.meta["sets"]]
    assert [ref[s] for s in sets] == list(bars.y)
    rows = fig.layout.meta["rows"]
    dots = next(t for t in fig.data if t.meta == "matrix")
    got = {}
    for x, y in zip(dots.x, dots.y):
        got.setdefault(int(x), set()).add(rows[int(y)])
    for i, s in enumerate(sets):
        assert got.get(i, set()) == set(s)
    picked = selected_intersections(fig, [{"curve_number": 0, "customdata": 2}, {"curve_number": 1, "x": 0}])
    assert picked == [sets[2]]


# ------------------------------------------------------------------ the URL encoding of a selection
def test_ids_encoding_round_trips_and_is_capped():
    from mlviz.dashboard.linked import MAX_IDS, decode_rows, encode_ids

    text, dropped = encode_ids([5, 1, 2, 3, 9, 3], [0, 7, 8])
    assert text == "ids:train=1-3.5.9;test=0.7-8" and dropped == 0
    rows = decode_rows(text, 6)
    assert rows.ids["train"].tolist() == [1, 2, 3, 5, 9] and rows.ids["test"].tolist() == [0, 7, 8]
    text, dropped = encode_ids(np.arange(0, 2 * MAX_IDS, 2), np.arange(50))
    rows = decode_rows(text, 6)
    assert dropped == 50 and rows.ids["train"].size == MAX_IDS and rows.ids["test"].size == 0
    assert len(text) < 4 * MAX_IDS
    Y = np.zeros((1000, 2))
    assert np.flatnonzero(rows.mask(Y, "train")).tolist() == list(range(0, 1000, 2))
    for bad in ("ids:train=5-1", "ids:train=0-100000", "ids:foo=1", "ids:train=a", "nothing"):
        with pytest.raises(ValueError):
            decode_rows(bad, 6)


def test_set_encoding_selects_exact_label_sets():
    from mlviz.dashboard.linked import decode_rows, encode_set

    Y = np.array([[1, 0, 1], [1, 1, 1], [0, 0, 0], [1, 0, 1]])
    assert encode_set([2, 0]) == "set:0.2"
    assert decode_rows("set:0.2", 3).mask(Y, "test").tolist() == [True, False, False, True]
    assert decode_rows(encode_set([]), 3).mask(Y, "test").tolist() == [False, False, True, False]
    with pytest.raises(ValueError, match="outside"):
        decode_rows("set:0.3", 3)


def test_edge_encoding_round_trips_and_checks_the_cdn_grid():
    from mlviz.dashboard.linked import decode_edge, encode_edge

    values = {"variant": "l1-cdn", "gamma": 0.03, "mu": 0.0, "lam": 1.0}
    e = decode_edge(encode_edge(3, 1, values), 6)
    assert (e.source, e.target, e.values) == (3, 1, values)
    for bad in ("3>3@sparse,0.1,0.003,0.1", "3>9@sparse,0.1,0.003,0.1", "3>1@sparse,0.2,0.003,0.1",
                "3>1@nope,0.1,0.003,0.1", "3-1"):
        with pytest.raises(ValueError):
            decode_edge(bad, 6)


def test_selection_profile_is_the_mean_of_the_selected_rows():
    from mlviz.plotting.linked import selection_profile

    rng = np.random.default_rng(0)
    P = rng.random((50, 40))
    mask = np.zeros(50, bool)
    mask[[3, 7, 9]] = True
    labels, sel, everyone = selection_profile(P, mask, max_labels=5)
    diff = np.abs(P[mask].mean(0) - P.mean(0))
    assert labels.tolist() == sorted(np.argsort(-diff)[:5].tolist())
    np.testing.assert_allclose(sel, P[[3, 7, 9]][:, labels].mean(0))
    np.testing.assert_allclose(everyone, P[:, labels].mean(0))
    with pytest.raises(ValueError, match="no instance"):
        selection_profile(P, np.zeros(50, bool))


def test_upset_matrix_writes_at_most_50_label_names_the_most_frequent_used():
    from mlviz.plotting.upset import upset_figure

    rng = np.random.default_rng(0)
    Y = (rng.random((3000, 300)) < 0.02).astype(np.uint8)  # ~6 labels per row: many labels in the top sets
    names = [f"label_{j:03d}" for j in range(300)]
    fig = upset_figure(Y, names, top_k=60)
    sets = fig.layout.meta["sets"]
    used = sorted({j for s in sets for j in s})
    freq = Y.sum(axis=0)
    expected = sorted(used, key=lambda j: (-int(freq[j]), j))[:50]
    assert len(used) > 50 and fig.layout.meta["rows"] == expected
    assert len(fig.layout.yaxis2.ticktext) == 50
