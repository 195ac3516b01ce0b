"""SLEEC (Kimura et al.'s comparison) against its documented special case and direct constructions."""

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp
from _embedding_contract import check_all_clauses
from contract import contract_data
from sklearn.linear_model import Ridge
from sklearn.neighbors import NearestNeighbors

from mlviz.models import TooLargeError
from mlviz.models import sleec as sleec_module
from mlviz.models.sleec import SLEEC, label_neighbourhood, svp_embedding


def _data(n=70, d=6, L=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :4] @ rng.normal(size=(4, L)) + rng.normal(size=(n, L)) > 0).astype(np.uint8)
    return X, Y


@pytest.mark.parametrize("sparse", [False, True])
def test_one_cluster_full_dimension_is_ridge_plus_knn_on_label_gram_factor(sparse):
    X, Y = _data()
    N, L = Y.shape
    m = SLEEC(n_components=L, n_neighbors=N, k_test=5, lam=0.5, mu=0.0, calibration="clip")
    m.fit(sp.csr_matrix(X) if sparse else X, Y)
    Z = m.target_embedding_
    np.testing.assert_allclose(Z @ Z.T, Y @ Y.T.astype(float), atol=1e-10)   # Z Zᵀ = Y Yᵀ
    # reference: Z from scipy eigh of Y Yᵀ, sklearn Ridge, sklearn kNN vote
    w, U = la.eigh(Y @ Y.T.astype(float))
    Z_ref = U[:, -L:] * np.sqrt(np.clip(w[-L:], 0, None))
    ridge = Ridge(alpha=0.5).fit(X, Z_ref)
    X_test = np.random.default_rng(9).normal(size=(25, X.shape[1]))
    idx = NearestNeighbors(n_neighbors=5).fit(ridge.predict(X)).kneighbors(ridge.predict(X_test),
                                                                          return_distance=False)
    np.testing.assert_allclose(m.decision_function(X_test), Y[idx].mean(axis=1), atol=1e-12)


def test_svp_subspace_iteration_path_matches_dense_eigh():
    _, Y = _data(n=sleec_module.DENSE_MAX + 60, L=4, seed=1)
    N = Y.shape[0]
    Z, _ = svp_embedding(Y, label_neighbourhood(Y, N), 4, n_iter=3, random_state=0)
    np.testing.assert_allclose(Z @ Z.T, Y @ Y.T.astype(float), atol=1e-8)


def test_label_neighbourhood_against_brute_force():
    _, Y = _data(n=40, L=5, seed=2)
    Y[0] = 0
    omega = label_neighbourhood(Y, 3).toarray()
    Yf = Y.astype(float)
    norms = np.linalg.norm(Yf, axis=1)
    cos = np.divide(Yf @ Yf.T, np.outer(norms, norms), out=np.zeros((40, 40)), where=np.outer(norms, norms) > 0)
    # every row's 3 most similar other rows are in Ω (ties excluded from the check)
    for i in range(1, 40):
        order = np.argsort(-cos[i], kind="stable")
        s = np.sort(cos[i])[::-1]
        sure = [j for j in order[:4] if cos[i, j] > s[4] + 1e-12]
        assert omega[i, sure].all()
    np.testing.assert_array_equal(omega, omega.T)
    assert omega.diagonal().all()
    np.testing.assert_array_equal(label_neighbourhood(Y, 3, chunk=7).toarray(), omega)   # blocks of rows


def test_svp_reduces_the_local_objective():
    _, Y = _data(n=120, L=6, seed=3)
    _, res = svp_embedding(Y, label_neighbourhood(Y, 10), 3, n_iter=8, random_state=0)
    assert res[-1] < res[0]


def test_admm_with_mu_shrinks_embeddings_and_mu0_is_ridge():
    X, Y = _data(seed=4)
    a = SLEEC(n_components=3, mu=0.0, calibration="clip").fit(X, Y)
    b = SLEEC(n_components=3, mu=2.0, n_admm_iter=50, calibration="clip").fit(X, Y)
    ref = Ridge(alpha=1.0).fit(X, a.target_embedding_).predict(X)
    np.testing.assert_allclose(a.embedding_, ref, atol=1e-10)
    assert np.abs(b.embedding_).sum() < np.abs(a.embedding_).sum()


@pytest.mark.parametrize("make", [lambda: SLEEC(n_components=3, random_state=0),
                                  lambda: SLEEC(n_components=3, n_clusters=2, n_learners=2, mu=0.1,
                                                random_state=0)],
                         ids=["one-cluster", "ensemble"])
def test_contract(make):
    check_all_clauses(make())


def test_latent_space_shapes():
    X, Y = contract_data(n=60, d=5, L=4)
    m = SLEEC(n_components=3, calibration="clip").fit(X, Y)
    assert m.embedding_.shape == (60, 3) and m.label_codes_.shape == (4, 3)
    np.testing.assert_allclose(m.transform(X), m.embedding_, atol=1e-10)
    assert SLEEC(n_components=3, n_clusters=2, random_state=0).fit(X, Y).label_codes_ is None


def test_bad_parameter_and_too_large(monkeypatch):
    X, Y = contract_data()
    with pytest.raises(ValueError, match="'k_test' parameter of SLEEC must be >= 1"):
        SLEEC(k_test=0).fit(X, Y)
    monkeypatch.setattr(sleec_module, "MAX_OMEGA_ENTRIES", 100)
    with pytest.raises(TooLargeError, match="label-neighbour pairs"):
        SLEEC().fit(X, Y)


@pytest.mark.parametrize("condition", [1e2, 1e12])
def test_orthonormal_basis_matches_householder_qr(condition):
    """CholeskyQR2 (with its skipped final check) or its QR fallback against scipy's Householder QR."""
    rng = np.random.default_rng(5)
    U, _ = np.linalg.qr(rng.normal(size=(500, 12)))
    V, _ = np.linalg.qr(rng.normal(size=(12, 12)))
    B = (U * np.geomspace(1.0, 1.0 / condition, 12)) @ V
    Q = sleec_module._orthonormal(B)
    np.testing.assert_allclose(Q.T @ Q, np.eye(12), atol=1e-12)
    Q_ref, R_ref = la.qr(B, mode="economic")
    if condition < 1e6:    # well conditioned: B = Q R with R's diagonal > 0, as Householder QR up to signs
        np.testing.assert_allclose(Q, Q_ref * np.sign(np.diag(R_ref)), atol=1e-10)
    else:                  # the same column space
        np.testing.assert_allclose(Q @ (Q.T @ Q_ref), Q_ref, atol=1e-8)


def _symmetric_with_spectrum(n, ev, seed):
    Q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(n, n)))
    return (Q * ev) @ Q.T


def test_subspace_iteration_top_eigenpairs_against_eigh():
    """_top_psd (n > DENSE_MAX, Gaussian start, enough power steps) against scipy's eigh."""
    n, K = sleec_module.DENSE_MAX + 50, 5
    ev = np.concatenate([[40.0, 30.0, 20.0, 10.0, 5.0], np.linspace(1.0, -3.0, n - 5)])
    A = _symmetric_with_spectrum(n, ev, seed=6)
    w, U, ritz = sleec_module._top_psd(lambda B: A @ B, n, K, None, np.random.RandomState(0), n_power=40)
    w_ref, U_ref = la.eigh(A, subset_by_index=[n - K, n - 1])
    np.testing.assert_allclose(w, w_ref[::-1], rtol=1e-12)
    np.testing.assert_allclose((U * w) @ U.T, (U_ref * w_ref) @ U_ref.T, atol=1e-10)
    np.testing.assert_allclose(ritz.T @ ritz, np.eye(K + 10), atol=1e-12)     # the next step's basis


def test_warm_start_from_an_invariant_subspace_is_exact():
    """Started from an invariant subspace (the previous operator's exact eigenvectors), the warm steps
    return the exact eigenpairs (scipy eigh) whatever the gap, with the negative part clipped."""
    n, K = sleec_module.DENSE_MAX + 50, 4
    ev = np.concatenate([[9.0, 8.99, 8.98, -0.5], np.linspace(8.97, 0.0, 10), np.linspace(-0.6, -0.1, n - 14)])
    A = _symmetric_with_spectrum(n, ev, seed=7)
    w_all, V_all = la.eigh(A)
    basis = V_all[:, np.argsort(-np.abs(w_all))[:K + 10]]            # spans an invariant subspace
    w, U, _ = sleec_module._top_psd(lambda B: A @ B, n, K, basis, None, n_power=sleec_module.N_POWER_WARM)
    w_ref, U_ref = la.eigh(A, subset_by_index=[n - K, n - 1])
    np.testing.assert_allclose(w, np.clip(w_ref[::-1], 0.0, None), rtol=1e-12)
    np.testing.assert_allclose((U * w) @ U.T, (U_ref * w_ref) @ U_ref.T, atol=1e-10)


def test_svp_warm_started_steps_match_the_dense_projection(monkeypatch):
    """Every SVP step of the subspace path (warm-started from the previous Ritz vectors) is the exact
    rank-K PSD projection: with enough power steps it reproduces the dense-eigh path step by step."""
    _, Y = _data(n=sleec_module.DENSE_MAX + 60, L=5, seed=8)
    omega = label_neighbourhood(Y, 10)
    monkeypatch.setattr(sleec_module, "N_POWER", 60)
    monkeypatch.setattr(sleec_module, "N_POWER_WARM", 60)
    Z, res = svp_embedding(Y, omega, 2, n_iter=4, random_state=0)
    monkeypatch.setattr(sleec_module, "DENSE_MAX", 10 ** 6)
    Z_ref, res_ref = svp_embedding(Y, omega, 2, n_iter=4, random_state=0)
    np.testing.assert_allclose(Z @ Z.T, Z_ref @ Z_ref.T, atol=1e-8)
    np.testing.assert_allclose(res, res_ref, rtol=1e-10)
