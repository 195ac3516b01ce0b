"""Elementary-symmetric-polynomial DP against brute-force enumeration."""

import itertools

import numpy as np
import pytest
from scipy.special import logsumexp, softmax

from mlviz.solvers.esp import (
    best_subset,
    esp_marginals,
    log_esp,
    log_partition,
    log_set_probability,
)


def all_sets(K, M):
    """Every 0/1 vector with 1 <= |y| <= M, shape (n_sets, K)."""
    return np.array([y for y in itertools.product((0, 1), repeat=K) if 1 <= sum(y) <= M], dtype=float)


def brute(s, M):
    """log Z, marginals, covariance and argmax set by enumeration, for one score vector."""
    Ys = all_sets(len(s), M)
    a = Ys @ s
    log_Z = logsumexp(a)
    p = np.exp(a - log_Z)
    mu = p @ Ys
    cov = (Ys * p[:, None]).T @ Ys - np.outer(mu, mu)
    return log_Z, mu, cov, Ys[np.argmax(a)]


def test_log_esp_small_example():
    z = np.array([1.0, 2.0, 3.0, 0.5])
    le = log_esp(np.log(z), 6)
    expected = [1.0]
    for m in range(1, 5):
        expected.append(sum(np.prod(c) for c in itertools.combinations(z, m)))
    np.testing.assert_allclose(np.exp(le[:5]), expected, rtol=1e-12)
    assert np.all(np.isneginf(le[5:]))


@pytest.mark.parametrize("K", [1, 2, 3, 5, 8, 10])
def test_partition_and_marginals_match_enumeration(K):
    rng = np.random.default_rng(K)
    S = rng.normal(scale=2.0, size=(4, K))
    for M in range(1, K + 1):
        marg, logZ = esp_marginals(S, M, return_log_partition=True)
        np.testing.assert_allclose(log_partition(S, M), logZ, rtol=1e-13, atol=1e-12)
        for i, s in enumerate(S):
            bz, bmu, _, _ = brute(s, M)
            assert logZ[i] == pytest.approx(bz, rel=1e-12, abs=1e-12)
            np.testing.assert_allclose(marg[i], bmu, rtol=1e-10, atol=1e-12)


def test_one_label_per_set_is_softmax():
    rng = np.random.default_rng(0)
    S = rng.normal(scale=3.0, size=(7, 6))
    np.testing.assert_allclose(esp_marginals(S, 1), softmax(S, axis=1), rtol=1e-12)
    np.testing.assert_allclose(log_partition(S, 1), logsumexp(S, axis=1), rtol=1e-13)


def test_all_sizes_gives_product_minus_one():
    rng = np.random.default_rng(1)
    S = rng.normal(size=(5, 7))
    expected = np.log(np.prod(1.0 + np.exp(S), axis=1) - 1.0)
    np.testing.assert_allclose(log_partition(S, 7), expected, rtol=1e-12)
    # M > K is clipped to K
    np.testing.assert_allclose(log_partition(S, 50), expected, rtol=1e-12)
    # marginals: independent Bernoulli conditioned on a non-empty set
    sig = 1.0 / (1.0 + np.exp(-S))
    p_empty = np.prod(1.0 - sig, axis=1, keepdims=True)
    np.testing.assert_allclose(esp_marginals(S, 7), sig / (1.0 - p_empty), rtol=1e-11)


@pytest.mark.parametrize("M", [1, 2, 4, 6])
def test_marginal_sums_between_one_and_M(M):
    rng = np.random.default_rng(M)
    S = rng.normal(scale=5.0, size=(200, 6))
    tot = esp_marginals(S, M).sum(axis=1)
    assert np.all(tot >= 1.0 - 1e-12) and np.all(tot <= M + 1e-12)


def test_large_scores_finite_and_shift_consistent():
    rng = np.random.default_rng(2)
    S = rng.normal(scale=300.0, size=(50, 9))
    marg, logZ = esp_marginals(S, 4, return_log_partition=True)
    assert np.isfinite(logZ).all() and np.isfinite(marg).all()
    assert marg.min() >= 0.0 and marg.max() <= 1.0
    # Scaling all scores to a huge common offset: log Z shifts by m*c only when
    # one size dominates; use M = 1 where log Z(s + c) = log Z(s) + c exactly.
    np.testing.assert_allclose(log_partition(S + 500.0, 1), log_partition(S, 1) + 500.0, rtol=1e-12)
    # extreme scores agree with enumeration (log-space brute force)
    for i in range(5):
        bz, bmu, _, _ = brute(S[i], 4)
        assert logZ[i] == pytest.approx(bz, rel=1e-12)
        np.testing.assert_allclose(marg[i], bmu, atol=1e-10)


@pytest.mark.parametrize("K,M", [(2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (6, 6)])
def test_label_covariance_bounded_by_one_half(K, M):
    """Hessian of log Z = Cov(y); its largest eigenvalue stays <= 1/2 (the joint MM
    factor used by MLRH), and exceeds 1/4 (so the paper's factor 4 is block-wise only)."""
    rng = np.random.default_rng(100 * K + M)
    worst = 0.0
    for _ in range(300):
        levels = rng.normal(scale=rng.choice([0.5, 3.0, 20.0]), size=3)
        s = levels[rng.integers(0, 3, size=K)] + rng.normal(scale=0.3, size=K)
        cov = brute(s, M)[2]
        worst = max(worst, np.linalg.eigvalsh(cov)[-1])
        assert np.all(np.diag(cov) <= 0.25 + 1e-12)
    assert worst <= 0.5 + 1e-12
    # M - 1 labels certain, two labels tied for the last slot, the rest excluded:
    # Cov over the tied pair has eigenvalue 1/2 (M = 1) or 1/3 (M > 1), > 1/4.
    if M < K:
        s = np.full(K, -60.0)
        s[: M - 1] = 40.0
        s[M - 1 : M + 1] = 0.0 if M > 1 else 5.0
        lam = np.linalg.eigvalsh(brute(s, M)[2])[-1]
        assert lam > 0.3


def test_minus_infinity_scores_exclude_labels():
    s = np.array([[0.3, -np.inf, 1.2, -0.4]])
    marg = esp_marginals(s, 2)
    assert marg[0, 1] == 0.0
    np.testing.assert_allclose(marg[0, [0, 2, 3]], esp_marginals(s[:, [0, 2, 3]], 2)[0], rtol=1e-12)


@pytest.mark.parametrize("M", [1, 2, 3, 5])
def test_marginals_are_gradient_of_log_partition(M):
    rng = np.random.default_rng(10 + M)
    s = rng.normal(scale=1.5, size=5)
    g = esp_marginals(s, M)
    h = 1e-6
    fd = np.array([(log_partition(s + h * e, M) - log_partition(s - h * e, M)) / (2 * h) for e in np.eye(5)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-9)
    # and the Jacobian of the marginals is the label covariance (Hessian of log Z)
    J = np.array([(esp_marginals(s + h * e, M) - esp_marginals(s - h * e, M)) / (2 * h) for e in np.eye(5)])
    np.testing.assert_allclose(J, brute(s, M)[2], atol=1e-7)


@pytest.mark.parametrize("K", [2, 4, 7, 10])
def test_best_subset_is_bruteforce_argmax(K):
    rng = np.random.default_rng(20 + K)
    S = rng.normal(size=(30, K)) + rng.normal(size=(30, 1))
    for M in range(1, K + 1):
        Yw = best_subset(S, M)
        assert Yw.dtype == np.uint8
        for i, s in enumerate(S):
            _, _, _, y = brute(s, M)
            np.testing.assert_array_equal(Yw[i], y)
        lp = log_set_probability(S, Yw, M)
        Ys = all_sets(K, M)
        best = np.max(S @ Ys.T, axis=1) - log_partition(S, M)
        np.testing.assert_allclose(lp, best, rtol=1e-12, atol=1e-12)


def test_best_subset_all_negative_returns_single_top_label():
    s = np.array([-3.0, -0.5, -2.0])
    np.testing.assert_array_equal(best_subset(s, 3), [0, 1, 0])


def test_log_set_probability_outside_support():
    s = np.zeros((3, 4))
    Y = np.array([[0, 0, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0]])
    lp = log_set_probability(s, Y, 2)
    assert np.isneginf(lp[0]) and np.isneginf(lp[1])
    assert lp[2] == pytest.approx(-np.log(4 + 6))


def test_bad_orders_raise():
    with pytest.raises(ValueError, match="max_labels"):
        log_partition(np.zeros(3), 0)
    with pytest.raises(ValueError, match="max_order"):
        log_esp(np.zeros(3), -1)
    with pytest.raises(ValueError, match="2-D"):
        esp_marginals(np.zeros((2, 2, 2)), 1)


# ---------------------------------------------------------------- empty set (min_labels=0)
def brute_with_empty(s, M):
    """log Z, marginals and argmax over every set with 0 <= |y| <= M (∅ included), by enumeration."""
    Ys = np.array([y for y in itertools.product((0, 1), repeat=len(s)) if sum(y) <= M], dtype=float)
    a = Ys @ s
    log_Z = logsumexp(a)
    return log_Z, np.exp(a - log_Z) @ Ys, Ys[np.argmax(a)]


@pytest.mark.parametrize("K", [1, 2, 4, 7])
def test_empty_set_partition_marginals_argmax_match_enumeration(K):
    rng = np.random.default_rng(10 + K)
    S = rng.normal(loc=-1.0, scale=2.0, size=(6, K))
    S[0] = -np.abs(S[0]) - 0.1  # every score negative: ∅ is the most probable set
    Ys = rng.integers(0, 2, size=(6, K))
    Ys[1] = 0
    for M in range(1, K + 1):
        marg, logZ = esp_marginals(S, M, min_labels=0, return_log_partition=True)
        np.testing.assert_allclose(log_partition(S, M, min_labels=0), logZ, rtol=1e-13, atol=1e-12)
        best = best_subset(S, M, min_labels=0)
        lp = log_set_probability(S, Ys, M, min_labels=0)
        for i, s in enumerate(S):
            bz, bmu, bset = brute_with_empty(s, M)
            assert logZ[i] == pytest.approx(bz, rel=1e-12, abs=1e-12)
            np.testing.assert_allclose(marg[i], bmu, rtol=1e-10, atol=1e-12)
            np.testing.assert_array_equal(best[i], bset)
            expect = Ys[i] @ s - bz if Ys[i].sum() <= M else -np.inf
            assert lp[i] == pytest.approx(expect, rel=1e-12, abs=1e-12)
        assert best[0].sum() == 0
        assert np.isneginf(log_set_probability(S[1:2], Ys[1:2], M)[0])  # ∅ outside the paper's support


def test_empty_set_marginals_are_gradient_of_log_partition():
    rng = np.random.default_rng(5)
    s = rng.normal(size=6)
    g = esp_marginals(s, 3, min_labels=0)
    h = 1e-6
    fd = [(log_partition(s + h * e, 3, min_labels=0) - log_partition(s - h * e, 3, min_labels=0)) / (2 * h)
          for e in np.eye(6)]
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-9)


def test_chunked_marginals_equal_unchunked(monkeypatch):
    import mlviz.solvers.esp as esp

    rng = np.random.default_rng(6)
    S = rng.normal(size=(50, 9))
    full = esp_marginals(S, 4, min_labels=0, return_log_partition=True)
    monkeypatch.setattr(esp, "CHUNK_BYTES", 1)  # one row per chunk
    chunked = esp_marginals(S, 4, min_labels=0, return_log_partition=True)
    np.testing.assert_array_equal(full[0], chunked[0])
    np.testing.assert_array_equal(full[1], chunked[1])


def test_bad_min_labels_raise():
    with pytest.raises(ValueError, match="min_labels must be 0"):
        log_partition(np.zeros(3), 2, min_labels=2)


@pytest.mark.parametrize("m0", [0, 1])
def test_linear_space_path_equals_log_space_path(m0):
    from mlviz.solvers.esp import _linear_rows, _marginals_linear, _marginals_log

    rng = np.random.default_rng(7)
    S = rng.normal(scale=4.0, size=(40, 12))
    S[0] += 30.0  # large positive scores, still linear
    S[1] -= 60.0  # all strongly negative
    for M in (1, 3, 12):
        assert _linear_rows(S, M, m0).all()
        ml, zl = _marginals_linear(S, M, m0)
        mg, zg = _marginals_log(S, M, m0)
        np.testing.assert_allclose(ml, mg, rtol=1e-11, atol=1e-300)
        np.testing.assert_allclose(zl, zg, rtol=1e-12, atol=1e-12)


def test_extreme_rows_fall_back_to_log_space():
    from mlviz.solvers.esp import _linear_rows

    S = np.array([[900.0, 800.0, 0.0, -1.0], [-2000.0, -1900.0, -2100.0, -1950.0], [1.0, -1.0, 0.5, 0.0]])
    assert _linear_rows(S, 2, 1).tolist() == [False, False, True]
    assert _linear_rows(S, 2, 0).tolist() == [False, True, True]
    marg, logZ = esp_marginals(S, 2, return_log_partition=True)
    for i, s in enumerate(S):
        bz, bmu, _, _ = brute(s, 2)
        assert logZ[i] == pytest.approx(bz, rel=1e-12)
        np.testing.assert_allclose(marg[i], bmu, rtol=1e-9, atol=1e-12)
