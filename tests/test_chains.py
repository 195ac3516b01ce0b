"""Tests for ClassifierChain, EnsembleClassifierChains, RAkEL and CalibratedLabelRanking.

References are hand-written loops over scikit-learn binary / multinomial
classifiers, brute-force enumeration of label sets, and per-instance vote
counting, on tiny problems (L = 3 or 4).
"""

import math
from itertools import product

import numpy as np
import pytest
import scipy.sparse as sp
from _multinomial_reference import fitted_tolerance, tight_reference
from contract import (
    check_clone_of_fitted,
    check_decision_rule_attribute,
    check_default_score,
    check_estimator_contract,
    check_not_fitted,
    check_predict_follows_rule,
    check_random_state_determinism,
    contract_data,
    threshold_rule,
)
from scipy.special import expit
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from mlviz.models import TooLargeError
from mlviz.models.chains import CalibratedLabelRanking, ClassifierChain, EnsembleClassifierChains, RAkEL, draw_labelsets


def _data(n=80, d=4, L=3, seed=0):
    X, Y = contract_data(n=n, d=d, L=L, random_state=seed)
    return X, Y


def _msn(X):
    return float((np.asarray(X) ** 2).sum(axis=1).mean())


def _p1(clf, X):
    if hasattr(clf, "predict_proba"):
        return clf.predict_proba(X)[:, list(clf.classes_).index(1)]
    return expit(clf.decision_function(X))


def _hand_chain(X, Y, Xt, order, make, t=0.5, s=1.0):
    """Train links on true previous labels (× s), predict greedily feeding s × [p >= t] (pure loops)."""
    links = []
    for j, l in enumerate(order):
        Z = np.hstack([X, s * Y[:, order[:j]].astype(float)])
        links.append(make().fit(Z, Y[:, l]))
    P = np.zeros((Xt.shape[0], len(order)))
    for i in range(Xt.shape[0]):
        prev = []
        for j, l in enumerate(order):
            z = np.concatenate([Xt[i], np.array(prev, dtype=float)])[None, :]
            p = _p1(links[j], z)[0]
            P[i, l] = p
            prev.append(s if p >= t else 0.0)
    return P


# ------------------------------------------------------------------ classifier chain
@pytest.mark.parametrize("order, t, s", [(None, 0.5, 1.0), ([2, 0, 1], 0.5, 1.0), ([2, 0, 1], 0.3, 1.0),
                                         ([2, 0, 1], 0.35, 0.1)])
def test_cc_greedy_equals_hand_chain_logistic(order, t, s):
    X, Y = _data(seed=1)
    Xt = np.random.default_rng(9).normal(size=(25, 4))
    cc = ClassifierChain(base="lr", order=order, threshold=t, label_scale=s).fit(X, Y)
    C = 10.0 / _msn(X)
    ref = _hand_chain(X, Y, Xt, list(range(3)) if order is None else order,
                      lambda: LogisticRegression(C=C, max_iter=1000), t=t, s=s)
    np.testing.assert_allclose(cc.predict_proba(Xt), ref, atol=1e-10)
    np.testing.assert_array_equal(cc.predict(Xt), (ref >= t).astype(np.uint8))


@pytest.mark.parametrize("make, s", [(lambda: DecisionTreeClassifier(max_depth=3, random_state=0), 1.0),
                                     (lambda: LinearSVC(C=0.3), 1.0), (lambda: LinearSVC(C=0.3), 0.1)])
def test_cc_greedy_equals_hand_chain_other_learners(make, s):
    X, Y = _data(seed=2)
    Xt = np.random.default_rng(8).normal(size=(25, 4))
    cc = ClassifierChain(estimator=make(), order=[1, 2, 0], label_scale=s).fit(X, Y)
    ref = _hand_chain(X, Y, Xt, [1, 2, 0], make, s=s)
    np.testing.assert_allclose(cc.predict_proba(Xt), ref, atol=1e-10)


def test_cc_feeds_predictions_not_marginals():
    # label 1 copies label 0; label 0 is noise-free in x_0. The second link must see ŷ_0 in {0, 1}.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2))
    y0 = (X[:, 0] > 0).astype(int)
    Y = np.column_stack([y0, y0])
    cc = ClassifierChain(base="lr", C=1e4).fit(X, Y)
    x = np.array([[0.05, 0.0]])  # p_0 slightly above 1/2 -> ŷ_0 = 1 -> p_1 near 1
    P = cc.predict_proba(x)
    assert 0.5 <= P[0, 0] < 0.99 and P[0, 1] > 0.99


def test_cc_constant_label_and_sparse():
    X, Y = _data(seed=4, L=4)
    Y = Y.copy()
    Y[:, 1] = 1
    cc = ClassifierChain(base="lr").fit(X, Y)
    np.testing.assert_array_equal(cc.predict_proba(X)[:, 1], 1.0)
    np.testing.assert_allclose(ClassifierChain(base="lr").fit(sp.csr_matrix(X), Y).predict_proba(sp.csr_matrix(X)),
                               cc.predict_proba(X), atol=1e-6)


# ------------------------------------------------------------------ ECC
def test_ecc_one_chain_without_bootstrap_equals_cc():
    X, Y = _data(seed=5, L=4)
    ecc = EnsembleClassifierChains(base="lr", n_chains=1, bootstrap=False, max_samples=1.0, threshold=0.5,
                                   random_state=7).fit(X, Y)
    order = np.random.default_rng(7).permutation(4)
    np.testing.assert_array_equal(ecc.chains_[0].order_, order)
    cc = ClassifierChain(base="lr", order=order).fit(X, Y)
    np.testing.assert_allclose(ecc.predict_proba(X), cc.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(ecc.predict(X), cc.predict(X))


@pytest.mark.parametrize("voting, bootstrap, s", [("soft", True, 1.0), ("hard", True, 1.0), ("soft", False, 0.3)])
def test_ecc_equals_hand_sampled_chains(voting, bootstrap, s):
    X, Y = _data(n=70, seed=6, L=3)
    ecc = EnsembleClassifierChains(base="lr", n_chains=4, voting=voting, bootstrap=bootstrap, max_samples=0.67,
                                   label_scale=s, random_state=3).fit(X, Y)
    rng = np.random.default_rng(3)
    total = np.zeros(Y.shape)
    for _ in range(4):
        order = rng.permutation(3)
        rows = rng.integers(0, 70, size=47) if bootstrap else np.sort(rng.permutation(70)[:47])
        C = 10.0 / _msn(X[rows])
        P = _hand_chain(X[rows], Y[rows], X, list(order), lambda C=C: LogisticRegression(C=C, max_iter=1000), s=s)
        total += P if voting == "soft" else (P >= 0.5)
    np.testing.assert_allclose(ecc.predict_proba(X), total / 4, atol=1e-10)
    np.testing.assert_array_equal(ecc.predict(X), (total / 4 >= 0.35).astype(np.uint8))


# ------------------------------------------------------------------ RAkEL
def test_draw_labelsets():
    rng = np.random.default_rng(0)
    sets = draw_labelsets(10, 3, 12, rng)
    drawn = sets[:12]
    assert len(set(drawn)) == 12 and all(len(s) == 3 and list(s) == sorted(s) for s in drawn)
    assert set(range(10)) == {l for s in sets for l in s}
    assert all(len(s) == 1 for s in sets[12:])
    assert sorted(draw_labelsets(4, 2, 100, rng)) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert draw_labelsets(5, 2, 1, np.random.default_rng(1))[1:] == [
        (l,) for l in range(5) if l not in draw_labelsets(5, 2, 1, np.random.default_rng(1))[0]]
    assert len(draw_labelsets(6, 3, 2 * 6, rng)) >= min(12, math.comb(6, 3))


def _hand_lp(X, Ysub, Xt, C):
    """Brute force: enumerate the 2^k label vectors, keep the observed ones, multinomial LR on their ids."""
    k = Ysub.shape[1]
    sets = [np.array(v) for v in product((0, 1), repeat=k) if np.any(np.all(Ysub == np.array(v), axis=1))]
    ids = np.array([next(c for c, s in enumerate(sets) if np.array_equal(row, s)) for row in Ysub])
    S = np.array(sets, dtype=float)
    lr = tight_reference(X, ids, C)  # the optimum of scikit-learn's objective
    Pset = np.zeros((Xt.shape[0], len(sets)))
    Pset[:, lr.classes_] = lr.predict_proba(Xt)
    return S[np.argmax(Pset, axis=1)], Pset @ S


@pytest.mark.parametrize("voting", ["hard", "soft"])
def test_rakel_equals_brute_force_votes(voting):
    X, Y = _data(n=90, seed=7, L=3)
    Xt = np.random.default_rng(4).normal(size=(30, 4))
    est = RAkEL(base="lr", k=2, voting=voting, random_state=0).fit(X, Y)
    assert sorted(est.labelsets_) == [(0, 1), (0, 2), (1, 2)]  # 2L = 6 >= C(3, 2): all of them
    C = 10.0 / _msn(X)
    votes, counts, tol = np.zeros((30, 3)), np.zeros(3), 1e-12
    for s, lp in zip(est.labelsets_, est.models_):
        hard, soft = _hand_lp(X, Y[:, list(s)], Xt, C)
        votes[:, list(s)] += hard if voting == "hard" else soft
        counts[list(s)] += 1
        if voting == "soft" and lp.estimator_ is not None:  # each LP's marginals: within its stopping bound
            ids = np.ravel(np.unique(Y[:, list(s)], axis=0, return_inverse=True)[1])
            tol = max(tol, fitted_tolerance(lp.estimator_, X, ids, C, X_eval=Xt))
    np.testing.assert_allclose(est.predict_proba(Xt), votes / counts, atol=tol)
    np.testing.assert_array_equal(est.predict(Xt), (votes / counts >= 0.5).astype(np.uint8))


def test_rakel_powersets_use_the_scaled_C_and_their_own_tolerance():
    from mlviz.models import LabelPowerset
    from mlviz.models._multinomial import MULTINOMIAL_TOL
    from mlviz.models.chains import RAKEL_TOL

    X, Y = _data(n=90, seed=7, L=3)
    est = RAkEL(base="lr", k=2, random_state=0).fit(X, Y)
    fitted = [lp.estimator_ for lp in est.models_ if lp.estimator_ is not None]
    assert fitted and RAKEL_TOL == 1e-4 > MULTINOMIAL_TOL
    for m in fitted:  # LabelPowerset's C = 10 / mean ||x||^2, its tol = RAkEL's
        assert m.tol == RAKEL_TOL and np.isclose(m.C, 10.0 / _msn(X), rtol=1e-14)
    lp = LabelPowerset(base="lr", max_label_sets=None).fit(X, Y[:, list(est.labelsets_[0])])
    assert np.isclose(lp.C_, fitted[0].C, rtol=1e-14)


def test_rakel_k_equals_L_is_label_powerset():
    X, Y = _data(n=90, seed=8, L=3)
    est = RAkEL(base="lr", k=3, random_state=0).fit(X, Y)
    hard, _ = _hand_lp(X, Y, X, 10.0 / _msn(X))
    np.testing.assert_array_equal(est.predict(X), hard.astype(np.uint8))


# ------------------------------------------------------------------ CLR
def _hand_clr(X, Y, Xt, C, voting):
    L = Y.shape[1]
    def lr():
        return LogisticRegression(C=C, max_iter=1000)

    cal = [lr().fit(X, Y[:, i]) for i in range(L)]
    pair = {}
    for i in range(L):
        for j in range(i + 1, L):
            rows = Y[:, i] != Y[:, j]
            pair[i, j] = lr().fit(X[rows], Y[rows, i])
    S = np.zeros((Xt.shape[0], L))
    for r in range(Xt.shape[0]):
        x = Xt[r:r + 1]
        v = np.zeros(L)
        virtual = 0.0
        for i in range(L):
            p = cal[i].predict_proba(x)[0, 1]
            w = p if voting == "soft" else float(p > 0.5)
            v[i] += w
            virtual += 1.0 - w
        for (i, j), m in pair.items():
            p = m.predict_proba(x)[0, 1]
            w = p if voting == "soft" else float(p > 0.5)
            v[i] += w
            v[j] += 1.0 - w
        S[r] = 0.5 + (v - virtual) / (2 * L)
        if voting == "hard":  # the bipartition: labels ranked at or above the virtual label
            rel = [i for i in range(L) if v[i] >= virtual]
            assert set(np.flatnonzero(S[r] >= 0.5)) == set(rel)
    return S


@pytest.mark.parametrize("voting", ["hard", "soft"])
def test_clr_equals_hand_vote_count(voting):
    X, Y = _data(n=90, seed=9, L=4)
    Xt = np.random.default_rng(2).normal(size=(20, 4))
    est = CalibratedLabelRanking(base="lr", voting=voting).fit(X, Y)
    ref = _hand_clr(X, Y, Xt, 10.0 / _msn(X), voting)
    np.testing.assert_allclose(est.predict_proba(Xt), ref, atol=1e-10)
    np.testing.assert_array_equal(est.predict(Xt), (ref >= 0.5).astype(np.uint8))
    votes, virtual = est.vote_counts(Xt)
    np.testing.assert_allclose(votes.sum(axis=1) + virtual, 4 * 5 / 2)  # one vote per model: L(L+1)/2


def test_clr_degenerate_pairs_and_guard():
    X, Y = _data(n=60, seed=10, L=4)
    Y = Y.copy()
    Y[:, 1] = Y[:, 0]  # never differ -> no preference (0.5)
    Y[:, 3] = 0        # constant: label 3 never beats the virtual label
    est = CalibratedLabelRanking(base="lr").fit(X, Y)
    k = [tuple(p) for p in est.pairs_].index((0, 1))
    assert est.pair_models_[k] == 0.5 and est.calibration_models_[3] == 0.0
    S = est.predict_proba(X)
    assert np.isfinite(S).all() and S.min() >= 0 and S.max() <= 1
    with pytest.raises(TooLargeError, match="6 pairwise models") as info:
        CalibratedLabelRanking(max_pairs=5).fit(X, Y)
    assert info.value.estimate_bytes == pytest.approx(8.0 * (6 + 4) * (4 + 1))


# ------------------------------------------------------------------ contract
@pytest.mark.parametrize("make", [lambda: ClassifierChain(), lambda: ClassifierChain(order="random", random_state=1),
                                  lambda: EnsembleClassifierChains(n_chains=3, random_state=0),
                                  lambda: EnsembleClassifierChains(n_chains=3, voting="hard", random_state=0),
                                  lambda: RAkEL(k=2, random_state=0), lambda: RAkEL(voting="soft", random_state=0),
                                  lambda: CalibratedLabelRanking(),
                                  lambda: CalibratedLabelRanking(voting="soft")])
def test_contract(make):
    est = make()
    check_estimator_contract(est, sparse=True)
    check_not_fitted(est)
    check_decision_rule_attribute(est)
    check_predict_follows_rule(est, threshold_rule)
    check_clone_of_fitted(est)
    check_random_state_determinism(est)
    check_default_score(est)


@pytest.mark.parametrize("est, match", [
    (EnsembleClassifierChains(n_chains=0), "'n_chains'"), (EnsembleClassifierChains(max_samples=0), "'max_samples'"),
    (EnsembleClassifierChains(voting="max"), "'voting'"), (RAkEL(k=0), "'k' parameter of RAkEL"),
    (RAkEL(n_models=0), "'n_models'"), (CalibratedLabelRanking(C=-1), "'C' parameter of CalibratedLabelRanking"),
    (ClassifierChain(order=[0, 0, 1]), "order. parameter of ClassifierChain must be a permutation")])
def test_bad_parameters(est, match):
    X, Y = contract_data()
    with pytest.raises(ValueError, match=match):
        est.fit(X, Y)


def test_clr_refuses_more_than_100_labels_before_fitting():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(30, 3)), (rng.random((30, 101)) < 0.2).astype(int)
    with pytest.raises(TooLargeError, match="5,050 pairwise models") as info:
        CalibratedLabelRanking().fit(X, Y)
    assert info.value.alternative == "BinaryRelevance"
    assert len(CalibratedLabelRanking(max_pairs=6).fit(X, Y[:, :4]).pairs_) == 6  # the bound is a parameter
