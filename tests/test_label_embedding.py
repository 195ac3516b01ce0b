"""CPLST, FaIE and LEML (the linear label embeddings of Kimura et al.'s comparison) against independent references."""

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp
from _embedding_contract import check_all_clauses
from contract import contract_data
from sklearn.base import clone
from sklearn.linear_model import Ridge

from mlviz.models import TooLargeError
from mlviz.models import _embedding_base as eb
from mlviz.models.label_embedding import CPLST, LEML, FaIE


def _data(n=80, d=6, L=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X[:, :4] @ rng.normal(size=(4, L)) + rng.normal(size=(n, L)) > 0).astype(np.uint8)
    return X, Y


def _hat(X, lam):
    Xc = X - X.mean(axis=0)
    return Xc @ np.linalg.solve(Xc.T @ Xc + lam * np.eye(X.shape[1]), Xc.T)


def _projector(V):
    Q = la.orth(V)
    return Q @ Q.T


# ------------------------------------------------------------------ CPLST
@pytest.mark.parametrize("shape", [(80, 6), (30, 50)])  # primal (F <= N) and dual (F > N) Gram
def test_cplst_full_rank_is_ridge_regression(shape):
    X, Y = _data(*shape)
    ref = Ridge(alpha=0.7).fit(X, Y).predict(X[:20])
    m = CPLST(n_components=1.0, lam=0.7, calibration="clip").fit(X, Y)
    np.testing.assert_allclose(m.decision_function(X[:20]), ref, atol=1e-10)


def test_cplst_subspace_is_top_eigenvectors_of_Yc_H_Yc():
    X, Y = _data(seed=1)
    m = CPLST(n_components=3, lam=0.5, calibration="clip").fit(X, Y)
    Yc = Y - Y.mean(axis=0)
    ev, V = la.eigh(Yc.T @ _hat(X, 0.5) @ Yc)
    np.testing.assert_allclose(_projector(m.label_codes_), _projector(V[:, -3:]), atol=1e-10)
    np.testing.assert_allclose(m.eigenvalues_, ev[::-1][:3], rtol=1e-10)
    # codes are ridge-regressed, scores decoded by ȳ + t Vᵀ (sklearn Ridge as the reference)
    T = Yc @ m.label_codes_
    ref = Y.mean(axis=0) + Ridge(alpha=0.5).fit(X, T).predict(X) @ m.label_codes_.T
    np.testing.assert_allclose(m.decision_function(X), ref, atol=1e-10)


# ------------------------------------------------------------------- FaIE
@pytest.mark.parametrize("shape", [(80, 6), (30, 50)])
def test_faie_codes_solve_the_eigenproblem(shape):
    X, Y = _data(*shape, seed=2)
    m = FaIE(n_components=3, alpha=0.5, lam=0.3, calibration="clip").fit(X, Y)
    Yc = Y - Y.mean(axis=0)
    omega = Yc @ Yc.T + 0.5 * _hat(X, 0.3)           # built directly, N × N
    ev, U = la.eigh(omega)
    np.testing.assert_allclose(m.embedding_.T @ m.embedding_, np.eye(3), atol=1e-10)
    np.testing.assert_allclose(_projector(m.embedding_), _projector(U[:, -3:]), atol=1e-9)
    np.testing.assert_allclose(m.eigenvalues_, ev[::-1][:3], rtol=1e-9)
    C = m.embedding_
    np.testing.assert_allclose(m.label_codes_, Yc.T @ C, atol=1e-10)  # D = Cᵀ Yc
    ref = Y.mean(axis=0) + Ridge(alpha=0.3).fit(X, C).predict(X) @ (C.T @ Yc)
    np.testing.assert_allclose(m.decision_function(X), ref, atol=1e-9)


# ------------------------------------------------------------------- LEML
def test_leml_full_rank_small_lambda_is_ridge_regression():
    X, Y = _data(seed=3)
    ref = Ridge(alpha=1e-8).fit(X, Y).predict(X)
    m = LEML(n_components=1.0, lam=1e-8, calibration="clip", random_state=0).fit(X, Y)
    np.testing.assert_allclose(m.decision_function(X), ref, atol=1e-6)


def _trace_norm_regression(X, Y, lam, n_iter=5000):
    """Reference: min_Z ½‖Yc − Xc Z‖² + λ‖Z‖_* by proximal gradient with singular value thresholding."""
    Xc, Yc = X - X.mean(axis=0), Y - Y.mean(axis=0)
    step = 1.0 / np.linalg.norm(Xc, 2) ** 2
    Z = np.zeros((X.shape[1], Y.shape[1]))
    for _ in range(n_iter):
        G = Z - step * (Xc.T @ (Xc @ Z - Yc))
        U, s, Vt = np.linalg.svd(G, full_matrices=False)
        Z = (U * np.maximum(s - step * lam, 0.0)) @ Vt
    return Z


def test_leml_full_rank_is_trace_norm_regression():
    X, Y = _data(seed=4)
    m = LEML(n_components=1.0, lam=3.0, tol=0.0, max_iter=3000, calibration="clip", random_state=0).fit(X, Y)
    Z = _trace_norm_regression(X, Y, 3.0)
    np.testing.assert_allclose(m.coef_ @ m.label_codes_.T, Z, atol=1e-5)


def test_leml_low_rank_is_stationary_and_monotone():
    X, Y = _data(seed=5)
    lam = 0.5
    m = LEML(n_components=2, lam=lam, tol=0.0, max_iter=500, calibration="clip", random_state=0).fit(X, Y)
    assert np.all(np.diff(m.objective_) <= 1e-9 * abs(m.objective_[0]))
    Xc, Yc = X - X.mean(axis=0), Y - Y.mean(axis=0)
    W, H = m.coef_, m.label_codes_
    R = Yc - Xc @ W @ H.T
    np.testing.assert_allclose(-Xc.T @ R @ H + lam * W, 0.0, atol=1e-6)   # ∂J/∂W
    np.testing.assert_allclose(-R.T @ Xc @ W + lam * H, 0.0, atol=1e-6)   # ∂J/∂H
    J = 0.5 * (R ** 2).sum() + 0.5 * lam * ((W ** 2).sum() + (H ** 2).sum())
    assert m.objective_[-1] == pytest.approx(J, rel=1e-10)


# --------------------------------------------------------------- contract
@pytest.mark.parametrize("make", [lambda: CPLST(random_state=0), lambda: FaIE(random_state=0),
                                  lambda: LEML(random_state=0), lambda: CPLST(calibration="clip")],
                         ids=["cplst", "faie", "leml", "cplst-clip"])
def test_contract(make):
    check_all_clauses(make())


def test_latent_space_shapes_and_transform():
    X, Y = contract_data(n=60, d=5, L=5)
    for m in (CPLST(n_components=3), FaIE(n_components=3), LEML(n_components=3, random_state=0)):
        m.set_params(calibration="clip").fit(X, Y)
        assert m.embedding_.shape == (60, 3) and m.label_codes_.shape == (5, 3)
        T = m.transform(X[:7])
        np.testing.assert_allclose(m.decision_function(X[:7]), m.label_mean_ + T @ m.label_codes_.T)


@pytest.mark.parametrize("est, msg", [(CPLST(lam=0), "'lam' parameter of CPLST must be > 0"),
                                      (FaIE(alpha=-1), "'alpha' parameter of FaIE must be >= 0"),
                                      (LEML(n_components=0), "'n_components' parameter of LEML"),
                                      (CPLST(calibration="x"), "'calibration' parameter of CPLST"),
                                      (LEML(max_iter=0), "'max_iter' parameter of LEML must be >= 1")])
def test_bad_parameters(est, msg):
    X, Y = contract_data()
    with pytest.raises(ValueError, match=msg):
        est.fit(X, Y)


def test_too_large_gram_refuses_with_estimate(monkeypatch):
    monkeypatch.setattr(eb, "GRAM_MAX_BYTES", 100.0)
    X, Y = contract_data()
    with pytest.raises(TooLargeError, match=r"5 × 5 Gram") as info:
        CPLST().fit(X, Y)
    assert info.value.estimate_bytes == pytest.approx(3 * 8.0 * 25)


def test_reproduction_quick_on_emotions():
    from mlviz.reproductions import COLUMNS, get_experiment

    mod = get_experiment("embedding-baselines")
    seen = []
    df = mod.run(quick=True, progress=lambda done, total: seen.append((done, total)))
    assert list(df.columns[:len(COLUMNS)]) == COLUMNS
    assert seen[-1] == (1, 1)
    assert set(df["method"]) == {"MLLEM-NL", "CPLST", "FaIE", "LEML", "SLEEC", "ML-kNN", "BR-LR"}
    assert df["ours"].between(0, 1).all() and df["paper"].isna().all()
    # a random ranking has P@1 ≈ cardinality / L ≈ 0.31 on emotions; every method ranks far better
    assert (df.loc[df["measure"] == "p@1", "ours"] > 0.6).all()


def test_tune_picks_the_best_cv_point():
    from mlviz.reproductions.embedding_baselines import tune

    X, Y = _data(n=90, seed=6)
    best = tune(CPLST(calibration="clip"), {"lam": (1e-3, 1e6)}, X, Y, random_state=0)
    assert best == {"lam": 1e-3}  # λ = 1e6 shrinks every score to ȳ: every row ranks labels alike


# ------------------------------------------------- factorisation helpers
@pytest.mark.parametrize("shape", [(50, 8), (30, 1), (30, 2)])
def test_tridiagonal_coordinates_against_dense_algebra(shape):
    rng = np.random.default_rng(7)
    X = sp.random(*shape, density=0.4, random_state=3, format="csr")
    Xc = X.toarray() - X.toarray().mean(axis=0)
    tri = eb.CenteredTridiagonal(X)
    F = shape[1]
    T = np.diag(tri.d) + np.diag(tri.e, 1) + np.diag(tri.e, -1)
    Z = tri.unrotate(np.eye(F))
    np.testing.assert_allclose(Z.T @ Z, np.eye(F), atol=1e-12)                # Z orthogonal
    np.testing.assert_allclose(Z @ T @ Z.T, Xc.T @ Xc, atol=1e-12)            # Xcᵀ Xc = Z T Zᵀ
    R = rng.normal(size=(shape[0], 3))
    np.testing.assert_allclose(tri.rotate(R), Z.T @ Xc.T @ R, atol=1e-12)
    np.testing.assert_allclose(tri.t_dot(R[:F]), T @ R[:F], atol=1e-12)
    shifts = np.array([0.0, 0.3, 50.0])
    W = eb.shifted_tridiagonal_solve(tri.d, tri.e, shifts, 0.7, R[:F])
    ref = np.column_stack([np.linalg.solve(s * T + 0.7 * np.eye(F), R[:F, k]) for k, s in enumerate(shifts)])
    np.testing.assert_allclose(W, ref, atol=1e-12)


def test_ridge_whitening_against_direct_solves():
    X = sp.random(60, 7, density=0.5, random_state=4, format="csr")
    Xc = X.toarray() - X.toarray().mean(axis=0)
    C = Xc.T @ np.random.default_rng(8).normal(size=(60, 4))
    A = Xc.T @ Xc + 0.4 * np.eye(7)
    ridge = eb.CenteredRidge(X, 0.4, keep_gram=True)
    B = ridge.whiten(C)
    np.testing.assert_allclose(B.T @ B, C.T @ np.linalg.solve(A, C), atol=1e-12)
    np.testing.assert_allclose(ridge.unwhiten(B), np.linalg.solve(A, C), atol=1e-12)
    np.testing.assert_allclose(ridge.gram, Xc.T @ Xc, atol=1e-12)


def test_primal_paths_match_the_eigendecomposition_paths(monkeypatch):
    """The Cholesky / tridiagonal fits (F <= N) reproduce the fits through the full eigendecomposition."""
    X, Y = _data(n=70, d=9, L=6, seed=11)
    new = [m.fit(X, Y) for m in (CPLST(n_components=4, lam=0.3, calibration="clip"),
                                 FaIE(n_components=4, alpha=2.0, lam=0.3, calibration="clip"),
                                 LEML(n_components=3, lam=0.3, calibration="clip", random_state=0))]

    def via_eigh(self, X, Yc):
        gram = eb.CenteredGram(X)
        self.feature_mean_ = gram.mean
        self._fit_dual(gram, Yc)      # the eigenbasis code, primal eigendecomposition

    for cls in (CPLST, FaIE, LEML):
        monkeypatch.setattr(cls, "_fit_primal", via_eigh)
    old = [clone(m).fit(X, Y) for m in new]
    for a, b in zip(new, old):
        np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-10)
        np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-10)


def _naive_leml_rounds(X, Y, K, lam, n_rounds, seed):
    """Reference: LEML's alternating minimisation in K dimensions with dense algebra — the W step as
    the Kronecker system (Hᵀ H ⊗ Xcᵀ Xc + λI) vec W = vec(Xcᵀ Yc H), the H step as a ridge solve."""
    Xc, Yc = X - X.mean(axis=0), Y - Y.mean(axis=0)
    A, F = Xc.T @ Xc, X.shape[1]
    H = np.random.RandomState(seed).standard_normal((Y.shape[1], K)) / np.sqrt(K)
    objective = []
    for _ in range(n_rounds):
        M = np.kron(H.T @ H, A) + lam * np.eye(F * K)
        W = np.linalg.solve(M, (Xc.T @ Yc @ H).ravel(order="F")).reshape((F, K), order="F")
        T = Xc @ W
        H = np.linalg.solve(T.T @ T + lam * np.eye(K), T.T @ Yc).T
        objective.append(0.5 * ((Yc - T @ H.T) ** 2).sum() + 0.5 * lam * ((W ** 2).sum() + (H ** 2).sum()))
    return W, H, objective


@pytest.mark.parametrize("shape", [(40, 4), (7, 12)], ids=["primal K > F", "dual K > N"])
def test_leml_rank_above_the_feature_rank_runs_the_same_rounds(shape):
    """K > r (F, or N in the dual case): the rounds in the r-dimensional code subspace give the
    iterates, objective values and codes of the naive K-dimensional rounds."""
    n, d = shape
    X, Y = _data(n=n, d=d, L=10, seed=12)
    m = LEML(n_components=9, lam=0.7, tol=0.0, max_iter=6, calibration="clip", random_state=3).fit(X, Y)
    W, H, objective = _naive_leml_rounds(X, Y.astype(float), 9, 0.7, 6, seed=3)
    np.testing.assert_allclose(m.objective_, objective, rtol=1e-12)
    np.testing.assert_allclose(m.coef_, W, atol=1e-10)
    np.testing.assert_allclose(m.label_codes_, H, atol=1e-10)


def test_the_ranking_reproductions_seed_every_randomised_method():
    """Every estimator of the embedding-baselines and mllem-ranking experiments that takes a
    ``random_state`` gets the run's seed (BR-LR's Nyström features were drawn unseeded, so its rows
    changed from run to run)."""
    from mlviz.reproductions import embedding_baselines, mllem_ranking

    params = dict(alpha=0.1, beta=0.1, k_instances=10, k_labels=5, n_components=10)
    best = {"nonlinear": dict(params, mapping="nonlinear"), "linear": dict(params, mapping="linear")}
    methods = {**embedding_baselines._methods(7), **mllem_ranking._methods(best, 7)}
    seeded = {name: est.get_params()["random_state"] for name, est in methods.items()
              if "random_state" in est.get_params()}
    assert seeded["BR-LR"] == 7 and set(seeded.values()) == {7}, seeded
