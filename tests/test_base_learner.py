"""The shared base learner (``base="auto" | "lr" | "rbf"``) against scikit-learn built by hand."""

import numpy as np
import pytest
import scipy.sparse as sp
from _multinomial_reference import fitted_tolerance, tight_reference
from contract import contract_data
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.svm import SVC

from mlviz.models import (
    BinaryRelevance,
    CalibratedLabelRanking,
    ClassifierChain,
    EnsembleClassifierChains,
    LabelPowerset,
    RAkEL,
)
from mlviz.models._base_learner import AUTO_MAX_ROWS, AUTO_MAX_WORK, AUTO_MIN_DENSITY, gamma_unit, resolve_base


def _data(n=70, d=4, L=3, seed=0):
    X, Y = contract_data(n=n, d=d, L=L, random_state=seed)
    return X, Y


def test_gamma_unit_is_sklearn_gamma_scale_dense_and_sparse():
    X, Y = _data()
    X[X < 0.3] = 0.0  # some zeros, so the sparse branch has something to skip
    ref = SVC(gamma="scale").fit(X, Y[:, 0])._gamma
    assert gamma_unit(X) == pytest.approx(ref, rel=1e-12)
    assert gamma_unit(sp.csr_matrix(X)) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("gamma, C", [(1.0, 3.0), (0.3, 100.0)])
def test_br_rbf_equals_per_label_nystroem_logistic_pipelines(gamma, C):
    X, Y = _data(n=80, seed=1)
    Xt = np.random.default_rng(9).normal(size=(15, X.shape[1]))
    br = BinaryRelevance(base="rbf", gamma=gamma, C=C, scale_C=False, n_components=50, random_state=0).fit(X, Y)
    g = gamma / (X.shape[1] * X.var())  # gamma in units of 1 / (d var X)
    for l in range(Y.shape[1]):
        ref = make_pipeline(Nystroem(gamma=g, n_components=50, random_state=0),
                            LogisticRegression(C=C, max_iter=2000)).fit(X, Y[:, l])
        np.testing.assert_allclose(br.predict_proba(Xt)[:, l], ref.predict_proba(Xt)[:, 1], atol=1e-8)
    assert "RBF base (base='rbf')" in br.decision_rule_ and "≤ 50 landmarks" in br.decision_rule_


def test_rbf_scale_C_uses_mean_squared_norm_of_the_kernel_features():
    X, Y = _data(n=60, seed=2)
    br = BinaryRelevance(base="rbf", C=10.0, random_state=0).fit(X, Y)
    Phi = Nystroem(gamma=1.0 / (X.shape[1] * X.var()), n_components=60, random_state=0).fit_transform(X)
    assert br.x_scale_ == pytest.approx(np.mean(np.sum(Phi ** 2, axis=1)), rel=1e-10)
    assert br.C_ == pytest.approx(10.0 / br.x_scale_, rel=1e-12)


def test_lp_rbf_equals_multinomial_logistic_on_nystroem_features():
    X, Y = _data(n=80, seed=3)
    lp = LabelPowerset(base="rbf", C=5.0, scale_C=False, n_components=40, random_state=1).fit(X, Y)
    sets, ids = np.unique(Y, axis=0, return_inverse=True)
    Phi = Nystroem(gamma=1.0 / (X.shape[1] * X.var()), n_components=40, random_state=1).fit_transform(X)
    ref = tight_reference(Phi, ids.ravel(), 5.0)  # the optimum of scikit-learn's objective on φ(x)
    tol = fitted_tolerance(lp.estimator_, Phi, ids.ravel(), 5.0)  # from LP's stopping point
    np.testing.assert_allclose(lp.predict_proba(X), ref.predict_proba(Phi) @ sets, atol=tol)
    np.testing.assert_array_equal(lp.predict(X), sets[ref.predict(Phi)])


def test_cc_rbf_links_are_logistic_on_kernel_features_plus_label_prefix():
    X, Y = _data(n=80, seed=4)
    cc = ClassifierChain(base="rbf", C=2.0, scale_C=False, n_components=30, random_state=0).fit(X, Y)
    Phi_map = Nystroem(gamma=1.0 / (X.shape[1] * X.var()), n_components=30, random_state=0).fit(X)
    Phi = Phi_map.transform(X)
    path = np.zeros((X.shape[0], 0))
    for l in range(Y.shape[1]):  # greedy chain by hand, column order
        link = LogisticRegression(C=2.0, max_iter=1000).fit(np.hstack([Phi, Y[:, :l]]), Y[:, l])
        p = link.predict_proba(np.hstack([Phi, path]))[:, 1]
        np.testing.assert_allclose(cc.predict_proba(X)[:, l], p, atol=1e-8)
        path = np.hstack([path, (p >= 0.5)[:, None].astype(float)])


@pytest.mark.parametrize("make", [
    lambda base: EnsembleClassifierChains(base=base, n_chains=3, random_state=0),
    lambda base: RAkEL(base=base, k=2, random_state=0),
    lambda base: CalibratedLabelRanking(base=base, random_state=0)])
def test_ensembles_share_one_map_linear_on_it(make):
    """base="rbf" is the linear base on the Nyström features of the whole training X."""
    X, Y = _data(n=70, seed=5)
    fmap = Nystroem(gamma=1.0 / (X.shape[1] * X.var()), n_components=70, random_state=0).fit(X)
    est = make("rbf").fit(X, Y)
    ref = make("lr").fit(fmap.transform(X), Y)
    np.testing.assert_allclose(est.predict_proba(X), ref.predict_proba(fmap.transform(X)), atol=1e-8)


def test_auto_rule_picks_what_it_documents():
    X, Y = _data()
    assert resolve_base("auto", X, 3)[0] == "rbf"
    assert resolve_base("auto", sp.csr_matrix(X), 3)[0] == "rbf"  # decided on the values, not the storage
    Xs = X.copy()
    Xs[:, : int(np.ceil(X.shape[1] * (1 - AUTO_MIN_DENSITY))) + 1] = 0.0  # fewer than half non-zero
    assert resolve_base("auto", Xs, 3)[0] == "lr" and resolve_base("auto", sp.csr_matrix(Xs), 3)[0] == "lr"
    big = np.ones((AUTO_MAX_ROWS + 1, 1))
    assert resolve_base("auto", big, 1)[0] == "lr" and resolve_base("auto", big[:AUTO_MAX_ROWS], 1)[0] == "rbf"
    rows = AUTO_MAX_WORK // 50
    assert resolve_base("auto", big[:rows], 50)[0] == "rbf" and resolve_base("auto", big[:rows], 51)[0] == "lr"
    assert resolve_base("lr", X, 3)[0] == "lr" and resolve_base("rbf", sp.csr_matrix(Xs), 3)[0] == "rbf"
    # the estimators follow it: auto on dense data is the rbf base, on sparse text the linear one
    P_auto = BinaryRelevance(random_state=0).fit(X, Y).predict_proba(X)
    np.testing.assert_allclose(P_auto, BinaryRelevance(base="rbf", random_state=0).fit(X, Y).predict_proba(X))
    br = BinaryRelevance().fit(sp.csr_matrix(Xs), Y)
    assert br.feature_map_ is None and "linear base (auto:" in br.decision_rule_


def test_base_parameters_validated():
    X, Y = _data()
    with pytest.raises(ValueError, match="'base' parameter of BinaryRelevance"):
        BinaryRelevance(base="poly").fit(X, Y)
    with pytest.raises(ValueError, match="'gamma' parameter of LabelPowerset"):
        LabelPowerset(base="rbf", gamma=0.0).fit(X, Y)
    with pytest.raises(ValueError, match="'n_components' parameter of ClassifierChain"):
        ClassifierChain(base="rbf", n_components=0).fit(X, Y)


def test_user_estimator_ignores_base():
    X, Y = _data()
    br = BinaryRelevance(LogisticRegression(C=0.5, max_iter=2000), base="rbf").fit(X, Y)
    assert br.feature_map_ is None
    np.testing.assert_allclose(br.predict_proba(X)[:, 0],
                               LogisticRegression(C=0.5, max_iter=2000).fit(X, Y[:, 0]).predict_proba(X)[:, 1])
