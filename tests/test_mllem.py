"""Tests for MLLEM (Kimura et al.): graph construction, embedding, mappings, contract."""

import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp
from contract import check_estimator_contract, contract_data
from sklearn.base import clone
from sklearn.linear_model import Ridge

from mlviz.evaluation.grid import refit_parameters
from mlviz.models import MLLEM
from mlviz.models.mllem import label_cooccurrence_graph


def clustered_data(n_per=40, random_state=0):
    """Four well-separated feature clusters with label sets {0}, {0,1}, {1,2}, {3,4}+{2}.

    The clusters are far apart in feature space (no instance edges between
    them) but chained through shared labels, so the joint graph is connected.
    """
    rng = np.random.default_rng(random_state)
    centres = np.array([[10, 0, 0], [0, 10, 0], [0, 0, 10], [10, 10, 10]], dtype=float)
    sets = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 1, 1, 0, 0], [0, 0, 1, 1, 1]], dtype=np.uint8)
    X = np.vstack([c + rng.normal(size=(n_per, 3)) for c in centres])
    Y = np.repeat(sets, n_per, axis=0)
    return X, Y


# ---------------------------------------------------------------- graph
def test_affinity_blocks_against_brute_force():
    X, Y = contract_data(n=50, d=4, L=4, random_state=1)
    m = MLLEM(n_components=3, k_instances=4, k_labels=1, alpha=0.7, beta=0.3).fit(X, Y)
    W = m.affinity_.toarray()
    N, L = Y.shape
    np.testing.assert_array_equal(W, W.T)
    np.testing.assert_array_equal(W[:N, N:], Y)  # W_IL = Y
    # W_II: 1 if i ∈ N_k(j) or j ∈ N_k(i), from a full distance matrix
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    R = np.zeros((N, N))
    for i in range(N):
        R[i, np.argsort(D[i])[:4]] = 1
    np.testing.assert_array_equal(W[:N, :N], 0.7 * np.maximum(R, R.T))
    # W_LL: top-1 co-occurring label, OR-symmetrised
    C = Y.T.astype(int) @ Y
    Rl = np.zeros((L, L))
    for a in range(L):
        others = [b for b in range(L) if b != a and C[a, b] > 0]
        if others:
            best = max(others, key=lambda b: (C[a, b], -b))
            Rl[a, best] = 1
    np.testing.assert_array_equal(W[N:, N:], 0.3 * np.maximum(Rl, Rl.T))
    Lap = np.diag(W.sum(1)) - W
    np.testing.assert_allclose(Lap @ np.ones(N + L), 0.0, atol=1e-12)  # L·1 = 0


def test_label_graph_ignores_never_cooccurring_labels():
    Y = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [0, 0, 0, 1]])
    W = label_cooccurrence_graph(Y, 3).toarray()
    expected = np.array([[0, 1, 1, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(W, expected)
    assert label_cooccurrence_graph(Y, 0).nnz == 0


# ---------------------------------------------------------------- embedding
def test_embedding_solves_generalized_eigenproblem():
    X, Y = contract_data(n=70, d=4, L=3, random_state=2)
    m = MLLEM(n_components=4, k_instances=5, k_labels=2).fit(X, Y)
    W = m.affinity_.toarray()
    D = np.diag(W.sum(1))
    L = D - W
    E = np.vstack([m.embedding_, m.label_embedding_])
    np.testing.assert_allclose(L @ E, D @ E * m.eigenvalues_, atol=1e-10)  # eq. (3)
    np.testing.assert_allclose(E.T @ D @ E, np.eye(4), atol=1e-10)
    ref = la.eigh(L, D, eigvals_only=True)
    np.testing.assert_allclose(m.eigenvalues_, ref[1:5], atol=1e-10)


def test_well_separated_clusters_sit_near_their_labels():
    X, Y = clustered_data()
    m = MLLEM(n_components=3, k_instances=5, k_labels=2, random_state=0).fit(X, Y)
    G, H = m.embedding_, m.label_embedding_
    d = np.sqrt(((G[:, None] - H[None]) ** 2).sum(-1))
    for i in range(len(Y)):
        own, other = d[i, Y[i] == 1], d[i, Y[i] == 0]
        assert own.max() < other.min()
    Xt, Yt = clustered_data(n_per=10, random_state=1)
    for mapping in ("nonlinear", "linear"):
        mt = clone(m).set_params(mapping=mapping).fit(X, Y)
        top = np.argmax(mt.decision_function(Xt), axis=1)
        assert (Yt[np.arange(len(Yt)), top] == 1).all()  # P@1 = 1


@pytest.mark.parametrize("mapping", ["nonlinear", "linear"])
def test_rankings_invariant_to_eigenvector_sign_flips(mapping):
    X, Y = contract_data(n=60, d=4, L=3, random_state=3)
    Xt = np.random.default_rng(0).normal(size=(15, 4))
    m = MLLEM(n_components=4, mapping=mapping).fit(X, Y)
    s0, p0 = m.decision_function(Xt), m.predict(Xt)
    flips = np.array([-1.0, 1.0, -1.0, -1.0])
    m.embedding_ = m.embedding_ * flips
    m.label_embedding_ = m.label_embedding_ * flips
    if mapping == "linear":
        m.coef_, m.intercept_ = m.coef_ * flips, m.intercept_ * flips
    np.testing.assert_allclose(m.decision_function(Xt), s0, atol=1e-12)
    np.testing.assert_array_equal(m.predict(Xt), p0)


def test_isolated_label_is_finite_and_ranked_last():
    X, Y = contract_data(n=60, d=4, L=4, random_state=4)
    Y = Y.copy()
    Y[:, 1] = 0  # no positives: isolated label node (e.g. in a CV fold)
    m = MLLEM(n_components=3).fit(X, Y)
    assert m.label_isolated_.tolist() == [False, True, False, False]
    np.testing.assert_array_equal(m.label_embedding_[1], 0.0)
    S, P = m.decision_function(X), m.predict_proba(X)
    assert np.isfinite(S).all() and np.isfinite(P).all()
    others = np.delete(S, 1, axis=1)
    assert (S[:, 1] < others.min(axis=1)).all()
    np.testing.assert_allclose(P[:, 1], 1.0 / (len(X) + 2), rtol=1e-8)  # Platt: smoothed frequency 0
    P0 = m.refit(calibration="none").predict_proba(X)
    assert (P0[:, 1] < np.delete(P0, 1, axis=1).min(axis=1)).all()
    assert m.predict(X)[:, 1].sum() == 0


def test_disconnected_graph_is_finite_with_warning():
    # alpha = 0 removes instance edges; two label groups that never co-occur
    X, Y = clustered_data(n_per=10)
    Y = np.repeat(np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]], np.uint8), 10, axis=0)
    with pytest.warns(UserWarning, match="2 connected components"):
        m = MLLEM(n_components=2, alpha=0.0).fit(X, Y)
    assert m.n_graph_components_ == 2
    assert np.isfinite(m.embedding_).all() and np.isfinite(m.predict_proba(X)).all()


# ---------------------------------------------------------------- mappings
@pytest.mark.parametrize("n,d", [(60, 5), (20, 40)])  # primal (F <= N) and dual (F > N) ridge
def test_linear_mapping_equals_sklearn_ridge(n, d):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(n, d))
    Y = (X[:, :3] + 0.5 * rng.normal(size=(n, 3)) > 0).astype(np.uint8)
    m = MLLEM(n_components=3, k_instances=4, mapping="linear", ridge=0.5).fit(X, Y)
    ref = Ridge(alpha=0.5, fit_intercept=True, solver="svd").fit(X, m.embedding_)
    np.testing.assert_allclose(m.coef_, ref.coef_.T, atol=1e-10)
    np.testing.assert_allclose(m.intercept_, ref.intercept_, atol=1e-10)
    Xt = rng.normal(size=(7, d))
    np.testing.assert_allclose(m.transform(Xt), ref.predict(Xt), atol=1e-10)
    np.testing.assert_allclose(m.transform(sp.csr_matrix(Xt)), ref.predict(Xt), atol=1e-10)
    ms = MLLEM(n_components=3, k_instances=4, mapping="linear", ridge=0.5).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(ms.coef_, m.coef_, atol=1e-10)


@pytest.mark.parametrize("n,d", [(60, 5), (30, 50)])
def test_lsqr_ridge_path_equals_sklearn_ridge(monkeypatch, n, d):
    """Above RIDGE_DENSE_MAX_BYTES the linear map is solved by LSQR (no Gram matrix); same V, b."""
    import mlviz.models.mllem as mod

    monkeypatch.setattr(mod, "RIDGE_DENSE_MAX_BYTES", 1.0)
    rng = np.random.default_rng(6)
    X = rng.normal(size=(n, d)) + 0.3
    Y = (X[:, :3] + 0.5 * rng.normal(size=(n, 3)) > 0).astype(np.uint8)
    m = MLLEM(n_components=3, k_instances=4, mapping="linear", ridge=0.5).fit(sp.csr_matrix(X), Y)
    assert m._gram_cache == {}  # no factorisation was formed
    ref = Ridge(alpha=0.5, fit_intercept=True, solver="svd").fit(X, m.embedding_)
    np.testing.assert_allclose(m.coef_, ref.coef_.T, atol=1e-8)
    np.testing.assert_allclose(m.intercept_, ref.intercept_, atol=1e-8)


def test_nonlinear_mapping_is_mean_of_nearest_training_points():
    X, Y = contract_data(n=50, d=3, L=3, random_state=6)
    m = MLLEM(n_components=3, k_test=4).fit(X, Y)
    Xt = np.random.default_rng(1).normal(size=(6, 3))
    D = ((Xt[:, None] - X[None]) ** 2).sum(-1)
    ref = np.array([m.embedding_[np.argsort(row)[:4]].mean(0) for row in D])
    np.testing.assert_allclose(m.transform(Xt), ref, atol=1e-12)


def test_scores_similarity_and_rank_cut():
    X, Y = contract_data(n=60, d=4, L=3, random_state=7)
    m = MLLEM(n_components=3, calibration="none", threshold=None).fit(X, Y)
    G = m.transform(X)
    dist = np.sqrt(((G[:, None] - m.label_embedding_[None]) ** 2).sum(-1))
    np.testing.assert_allclose(m.decision_function(X), -dist, atol=1e-12)
    np.testing.assert_allclose(m.predict_proba(X), np.exp(-dist ** 2 / (2 * m.proba_scale_)), atol=1e-12)
    r = max(1, int(np.round(Y.sum(1).mean())))
    assert m.cardinality_ == r
    pred = m.predict(X)
    assert (pred.sum(1) == r).all()
    top = np.argsort(-m.decision_function(X), axis=1)[:, :r]
    assert all(pred[i, top[i]].all() for i in range(len(X)))
    assert m.decision_rule_.startswith(f"top-{r} labels")
    thr = m.set_params(threshold=0.4).predict(X)
    np.testing.assert_array_equal(thr, (m.predict_proba(X) >= 0.4).astype(np.uint8))


# ---------------------------------------------------------------- calibration
def _platt_reference(s, t):
    """Per-label Platt fit by scipy.optimize (independent of the Newton solver), a >= 0."""
    from scipy.optimize import minimize

    def f(p):
        z = p[0] * s + p[1]
        return np.sum(np.logaddexp(0, z) - t * z)

    res = minimize(f, [0.0, 0.0], method="L-BFGS-B", bounds=[(0, None), (None, None)],
                   options=dict(ftol=1e-15, gtol=1e-12, maxiter=1000))
    return res.x


def test_platt_fit_matches_scipy_per_label():
    from mlviz.models.mllem import platt_fit, platt_targets

    rng = np.random.default_rng(3)
    N = 200
    S = rng.normal(size=(N, 4))
    Y = np.column_stack([
        rng.random(N) < 1 / (1 + np.exp(-2 * S[:, 0] + 1)),  # ordinary label
        S[:, 1] > 0.5,                                         # separable: smoothed targets keep it finite
        rng.random(N) < 1 / (1 + np.exp(+1.5 * S[:, 2])),      # decreasing: constrained to a = 0
        np.zeros(N, bool),                                      # no positives
    ]).astype(np.uint8)
    a, b = platt_fit(S, Y)
    T = platt_targets(Y)
    assert T[Y[:, 0] == 1, 0][0] == (Y[:, 0].sum() + 1) / (Y[:, 0].sum() + 2)
    for l in range(4):
        ra, rb = _platt_reference(S[:, l], T[:, l])
        np.testing.assert_allclose([a[l], b[l]], [ra, rb], atol=1e-5)
    assert a[2] == 0.0 and abs(a[3]) < 1e-10
    np.testing.assert_allclose(1 / (1 + np.exp(-b[3])), 1 / (N + 2), rtol=1e-8)


def test_calibration_uses_cross_fitted_scores():
    """Held-out scores equal independent fits on the folds; the maps equal Platt on them."""
    from sklearn.model_selection import KFold
    from sklearn.utils import check_random_state

    from mlviz.models.mllem import platt_fit

    X, Y = contract_data(n=90, d=4, L=3, random_state=2)
    m = MLLEM(n_components=3, k_instances=5, calibration_folds=3, random_state=4).fit(X, Y)
    seed = check_random_state(4).randint(np.iinfo(np.int32).max)
    S = np.empty(Y.shape)
    for tr, te in KFold(3, shuffle=True, random_state=seed).split(X):
        sub = MLLEM(n_components=3, k_instances=5, calibration="none", random_state=4).fit(X[tr], Y[tr])
        S[te] = sub.decision_function(X[te]) * np.sqrt(sub.affinity_.sum())
    np.testing.assert_allclose(m.cross_fitted_scores(), S, atol=1e-10)
    scale = np.median(-S[S < 0])
    a, b = platt_fit(S / scale, Y)
    Xt = np.random.default_rng(9).normal(size=(7, 4))
    ref = 1 / (1 + np.exp(-(m.decision_function(Xt) * np.sqrt(m.affinity_.sum()) / scale * a + b)))
    np.testing.assert_allclose(m.predict_proba(Xt), ref, atol=1e-10)
    np.testing.assert_array_equal(m.predict(Xt), (ref >= 0.5).astype(np.uint8))
    assert m.decision_rule_ == ("threshold 0.5 on probabilities calibrated by per-label Platt "
                                "scaling on 3-fold cross-fitted distances")


def test_calibrated_default_beats_predicting_nothing_on_emotions():
    """The issue-14 failure: Hamming 0.49 at threshold 0.5 on similarities (BR-LR: ~0.2)."""
    from sklearn.preprocessing import StandardScaler

    from mlviz.data import load_sample_split
    from mlviz.metrics import evaluate

    tr, te = load_sample_split("emotions")
    sc = StandardScaler().fit(tr.X)
    m = MLLEM(random_state=0).fit(sc.transform(tr.X), tr.Y)
    P = m.predict_proba(sc.transform(te.X))
    r = evaluate(te.Y, P, y_pred=m.predict(sc.transform(te.X)))
    empty = te.Y.mean()  # Hamming loss of predicting nothing
    assert r["hamming_loss"] < empty
    assert r["micro_f1"] > 0.42  # measured 0.469 (α=β=1 with similarities at 0.5: Hamming 0.49, issue 14)
    # calibration: lower Brier score than the training label frequencies and than the similarities
    brier = np.mean((P - te.Y) ** 2)
    assert brier < np.mean((tr.Y.mean(0) - te.Y) ** 2)
    assert brier < np.mean((m.refit(calibration="none").predict_proba(sc.transform(te.X)) - te.Y) ** 2)


def test_refit_equals_fresh_fit():
    X, Y = contract_data(n=80, d=4, L=3, random_state=8)
    m = MLLEM(n_components=3, k_instances=6, mapping="linear", random_state=0).fit(X, Y)
    cached = m.neighbors_
    for params in ({"calibration_folds": 4}, {"alpha": 0.3, "beta": 2.0}, {"k_labels": 1, "ridge": 3.0},
                   {"k_instances": 3, "n_components": 2, "mapping": "nonlinear"},
                   {"k_instances": 9}):
        assert m.refit(**params) is m  # in place
        fresh = clone(m).fit(X, Y)
        np.testing.assert_allclose(m.embedding_, fresh.embedding_, atol=1e-12)
        np.testing.assert_allclose(m.predict_proba(X), fresh.predict_proba(X), atol=1e-12)
        if params.get("k_instances", 6) <= 6:
            assert m.neighbors_ is cached  # no new kNN query
    assert m.neighbors_.shape[1] == 9
    E = m.embedding_
    m.refit(mapping="linear", ridge=0.1, k_test=3)  # mapping-only: eigenproblem skipped
    assert m.embedding_ is E
    np.testing.assert_allclose(m.predict_proba(X), clone(m).fit(X, Y).predict_proba(X), atol=1e-12)
    with pytest.raises(TypeError):
        m.refit(foo=1)
    assert {"alpha", "beta", "k_labels", "threshold"} <= refit_parameters(m)


def test_bad_params():
    X, Y = contract_data()
    with pytest.raises(ValueError, match="'alpha' parameter of MLLEM must be >= 0"):
        MLLEM(alpha=-1).fit(X, Y)
    with pytest.raises(ValueError, match="'mapping' parameter of MLLEM"):
        MLLEM(mapping="cubic").fit(X, Y)
    with pytest.raises(ValueError, match="'ridge' parameter of MLLEM must be > 0"):
        MLLEM(ridge=0).fit(X, Y)


@pytest.mark.parametrize("mapping", ["nonlinear", "linear"])
def test_contract(mapping):
    check_estimator_contract(MLLEM(n_components=3, mapping=mapping, random_state=0), sparse=True)


def test_contract_lanczos_path():
    X, Y = contract_data(n=150, d=5, L=3)
    check_estimator_contract(MLLEM(n_components=4, eigen_solver="lanczos", random_state=0),
                             sparse=True, data=(X, Y), atol=1e-7)


def test_reproduction_quick_on_emotions(monkeypatch):
    from mlviz.reproductions import COLUMNS, get_experiment

    mod = get_experiment("mllem-ranking")
    monkeypatch.setattr(mod, "DATASETS", ("emotions",))
    seen = []
    df = mod.run(quick=True, progress=lambda done, total: seen.append((done, total)))
    assert list(df.columns[:len(COLUMNS)]) == COLUMNS
    assert seen[-1] == (1, 1)
    assert set(df["method"]) == {"BR-LR", "ML-kNN", "MLLEM-NL (defaults)", "MLLEM-NL", "MLLEM-L"}
    assert set(df["measure"]) == {"p@1", "macro_auc"}
    assert df["ours"].between(0, 1).all() and df["paper"].isna().all()
    p1 = df.set_index(["method", "measure"])["ours"]
    # emotions: every method is near 0.7; a random ranking gets cardinality / L ≈ 0.31
    assert p1["MLLEM-NL", "p@1"] > 0.6
