"""Landmark kernel centres for LSPC / MT-LSPC / ML-LSPC / KLR (issue 15).

Each check is against an independent reference: the exact kernel model (all training
points as centres), a naive dense Kronecker solve, scipy.linalg.solve_sylvester, or a
record of every array the fit allocates.
"""

import tracemalloc

import numpy as np
import pytest
import scipy.linalg
from scipy.spatial.distance import cdist

import mlviz.models._kernels as kernels_mod
import mlviz.models._lspc_base as base_mod
from mlviz.models import LSPC, MLLSPC, MTLSPC, KernelLogisticRegression
from mlviz.models._kernels import AUTO_MAX_CENTERS, resolve_n_centers, select_centers
from mlviz.models._lspc_base import TooLargeError
from mlviz.solvers.sylvester import solve_sylvester_naive

MODELS = [
    (LSPC, dict(lam=0.3)),
    (MTLSPC, dict(lam=0.3, gamma=0.7)),
    (MLLSPC, dict(lam=0.3, gamma=1.5)),
    (KernelLogisticRegression, dict(lam=0.5, tol=1e-10)),
]
IDS = ["lspc", "mtlspc", "mllspc", "klr"]


def _data(n=70, d=4, L=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = (X @ rng.normal(size=(d, L)) + 0.5 * rng.normal(size=(n, L)) > 0).astype(np.uint8)
    Y[:, 1] = Y[:, 0]
    return X, Y


def _phi(X, C, sigma):
    return np.exp(-cdist(X, C, "sqeuclidean") / (2 * sigma**2))


def _coupling(model, lam, gamma, Y):
    T = Y.shape[1]
    if isinstance(model, MLLSPC):
        W = np.maximum(np.corrcoef(Y.T), 0.0)
        np.fill_diagonal(W, 0.0)
        return np.diag(lam + gamma * W.sum(1)) - gamma * W
    if isinstance(model, MTLSPC):
        return gamma / T * (np.eye(T) - gamma / (lam + gamma) * np.ones((T, T)) / T)
    return lam * np.eye(T)


# ----------------------------------------------------------------------------- the rule
def test_resolve_n_centers_rule():
    assert resolve_n_centers(500) == 500                      # exact model
    assert resolve_n_centers(AUTO_MAX_CENTERS) == AUTO_MAX_CENTERS
    assert resolve_n_centers(AUTO_MAX_CENTERS + 1) == AUTO_MAX_CENTERS
    assert resolve_n_centers(7395) == AUTO_MAX_CENTERS
    assert resolve_n_centers(7395, None) == 7395
    assert resolve_n_centers(100, 30) == 30 and resolve_n_centers(20, 30) == 20


@pytest.mark.parametrize("method", ["random", "kmeans++"])
def test_select_centers_distinct_rows_and_seeded(method):
    X, _ = _data(n=90)
    C, idx = select_centers(X, 25, method=method, random_state=3)
    assert idx.shape == (25,) and np.unique(idx).size == 25 and np.all(np.diff(idx) > 0)
    np.testing.assert_array_equal(C, X[idx])
    _, idx2 = select_centers(X, 25, method=method, random_state=3)
    _, idx3 = select_centers(X, 25, method=method, random_state=4)
    np.testing.assert_array_equal(idx, idx2)
    assert not np.array_equal(idx, idx3)
    C_all, idx_all = select_centers(X, 90, method=method, random_state=3)
    assert C_all is X and np.array_equal(idx_all, np.arange(90))


def test_kmeanspp_reaches_a_small_far_cluster():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(990, 2)), 100 + rng.normal(size=(10, 2))])
    _, idx = select_centers(X, 4, method="kmeans++", random_state=0)
    assert (idx >= 990).any()  # D² sampling: the far cluster is almost surely picked


# ------------------------------------------------------------ centres = all points = exact
@pytest.mark.parametrize("Model,kw", MODELS, ids=IDS)
def test_all_points_as_centres_equal_exact_kernel(Model, kw, monkeypatch):
    """The N × B path (ΦᵀΦ decomposed, B = N in shuffled order) equals the kernel model."""
    X, Y = _data()
    Xt = np.random.default_rng(1).normal(size=(9, 4))
    exact = Model(**kw).fit(X, Y)
    assert exact.centers_mode_ == "exact" and exact.n_centers_ == 70
    perm = np.random.default_rng(5).permutation(70)
    monkeypatch.setattr(base_mod, "select_centers", lambda X, b, **k: (X[perm], perm))
    landm = Model(**kw).fit(X, Y)
    assert landm.centers_mode_ == "random" and landm.n_centers_ == 70
    assert not landm._kernel_model
    tol = 1e-6 if Model is not KernelLogisticRegression else 1e-5
    np.testing.assert_allclose(landm.coef_, exact.coef_[perm], rtol=tol, atol=tol * 1e-2)
    np.testing.assert_allclose(landm.predict_proba(Xt), exact.predict_proba(Xt), atol=1e-7)
    if hasattr(exact, "refit"):  # cached-eig refit in place on both paths
        assert landm.refit(lam=2.0) is landm and exact.refit(lam=2.0) is exact
        np.testing.assert_allclose(landm.predict_proba(Xt), exact.predict_proba(Xt), atol=1e-7)


@pytest.mark.parametrize("Model,kw", MODELS[:3], ids=IDS[:3])
def test_landmark_path_against_naive_kronecker_and_scipy(Model, kw):
    X, Y = _data(n=60)
    m = Model(n_centers=12, random_state=2, **kw).fit(X, Y)
    assert m.n_centers_ == 12 and m.centers_.shape == (12, 4)
    Phi = _phi(X, X[m.center_index_], m.sigma_)
    gamma = kw.get("gamma", 0.0)
    for lam in (kw["lam"], 1.7):
        if lam != kw["lam"]:
            assert m.refit(lam=lam) is m
        C = _coupling(m, lam, gamma, Y)
        A, rhs = Phi.T @ Phi, Phi.T @ Y
        naive = solve_sylvester_naive(A, C, rhs)
        bs = scipy.linalg.solve_sylvester(A, C, rhs)
        np.testing.assert_allclose(m.coef_, naive, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(m.coef_, bs, rtol=1e-6, atol=1e-9)
        neg = scipy.linalg.solve_sylvester(A, C, Phi.T @ (1.0 - Y))
        np.testing.assert_allclose(m.coef_neg_, neg, rtol=1e-6, atol=1e-9)


# ----------------------------------------------------------------------------- auto switch
@pytest.mark.parametrize("Model,kw", MODELS, ids=IDS)
def test_auto_switches_above_the_documented_size(Model, kw, monkeypatch):
    monkeypatch.setattr(kernels_mod, "AUTO_MAX_CENTERS", 40)
    X, Y = _data(n=120)
    m = Model(random_state=0, **kw).fit(X, Y)
    assert m.n_centers_ == 40 and m.centers_.shape == (40, 4) and m.centers_mode_ == "random"
    assert "40 of 120 training points" in m.centers_note_ and "auto" in m.centers_note_
    small = Model(random_state=0, **kw).fit(X[:40], Y[:40])
    assert small.centers_mode_ == "exact" and "exact" in small.centers_note_
    km = Model(center_selection="kmeans++", random_state=0, **kw).fit(X, Y)
    assert km.centers_mode_ == "kmeans++" and "k-means++" in km.centers_note_
    assert isinstance(m.decision_rule_, str) and "0.5" in m.decision_rule_
    np.testing.assert_array_equal(m.predict(X), m.predict_proba(X) >= 0.5)


@pytest.mark.parametrize("Model,kw", MODELS, ids=IDS)
def test_no_n_by_n_allocation(Model, kw, monkeypatch):
    """Every kernel/distance array is n × b or bounded; tracemalloc peak far below n²."""
    monkeypatch.setattr(kernels_mod, "AUTO_MAX_CENTERS", 60)
    n = 4000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 5))
    Y = (X[:, :3] + 0.3 * rng.normal(size=(n, 3)) > 0).astype(np.uint8)
    shapes = []
    real = base_mod.gaussian_kernel

    def spy(A, C, sigma):
        shapes.append((A.shape[0], C.shape[0]))
        return real(A, C, sigma)

    monkeypatch.setattr(base_mod, "gaussian_kernel", spy)
    tracemalloc.start()
    m = Model(random_state=0, **kw).fit(X, Y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert shapes == [(n, 60)] and m.n_centers_ == 60
    # n × n float64 would be 128 MB; Φ is 1.9 MB, the σ subsample 1000² (8 MB) at most
    assert peak < 40e6, f"peak {peak / 1e6:.0f} MB"


# ----------------------------------------------------------------------------- too large
@pytest.mark.parametrize("Model,kw", MODELS, ids=IDS)
def test_too_large_raises_before_work(Model, kw, monkeypatch):
    X, Y = _data(n=300)

    def boom(*a, **k):
        raise AssertionError("kernel computed before the size check")

    monkeypatch.setattr(base_mod, "gaussian_kernel", boom)
    monkeypatch.setattr(base_mod, "squared_distances", boom)
    m = Model(n_centers=None, **kw)
    m.max_memory_bytes = 1e5
    with pytest.raises(TooLargeError, match=r"GB.*n_centers"):
        m.fit(X, Y)
    assert issubclass(TooLargeError, ValueError)


@pytest.mark.parametrize("bad", ["all", 0, 2.5, True])
def test_n_centers_validation(bad):
    X, Y = _data(n=30)
    with pytest.raises(ValueError, match="'n_centers' parameter of LSPC"):
        LSPC(n_centers=bad).fit(X, Y)
    with pytest.raises(ValueError, match="center_selection"):
        LSPC(center_selection="farthest").fit(X, Y)


def test_factorise_design_is_stable_without_squaring():
    """QR + SVD of Φ gives ΦᵀΦ's eigenpairs and Vᵀ Φᵀ [Π, 1]; with a tiny ridge g the
    Sylvester solution matches a stacked least-squares reference (no ΦᵀΦ formed) and
    the solver does not warn: the near-null directions keep their accuracy."""
    import warnings

    from mlviz.models._lspc_base import factorise_design
    from mlviz.solvers.sylvester import SymmetricEig, solve_sylvester_eig

    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(0, 10, size=(300, 1)), axis=0)
    Phi = _phi(x, x[::3], 1.0)  # 300 × 100, singular values down to round-off
    Pi = (np.sin(x) + 0.3 * rng.normal(size=(300, 2)) > 0).astype(float)
    eig, rhs = factorise_design(Phi.copy(), Pi)
    A = Phi.T @ Phi
    np.testing.assert_allclose(eig.matrix(), A, atol=1e-10 * np.abs(A).max())
    np.testing.assert_allclose(eig.vectors @ rhs[:, :2], Phi.T @ Pi, atol=1e-10 * 300)
    np.testing.assert_allclose(eig.vectors @ rhs[:, 2], Phi.sum(0), atol=1e-10 * 300)
    g = np.array([1e-12, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        theta = solve_sylvester_eig(eig, SymmetricEig(g, np.eye(2)), rhs[:, :2],
                                    rhs_in_eigbasis=True)
    for t in range(2):
        M = np.vstack([Phi, np.sqrt(g[t]) * np.eye(100)])
        ref = np.linalg.lstsq(M, np.concatenate([Pi[:, t], np.zeros(100)]), rcond=None)[0]
        np.testing.assert_allclose(Phi @ theta[:, t], Phi @ ref, atol=1e-6)


def test_deflated_factorisation_against_gram_and_least_squares():
    """Splitting off Φ's dominant direction (a Householder reflection) and decomposing the
    rest gives ΦᵀΦ's eigenpairs and Vᵀ Φᵀ [Π, 1]; with a tiny ridge g the Sylvester solution
    matches a stacked least-squares reference and QR + SVD; a bound over ``max_error``
    returns None and leaves Φ as it was."""
    from mlviz.models._lspc_factor import dominant_direction, factorise_design, factorise_design_deflated
    from mlviz.solvers.sylvester import SymmetricEig, solve_sylvester_eig

    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 20))
    Phi = _phi(x, x[::4], 6.0)  # 200 × 50, nearly constant (one dominant direction)
    Pi = (x[:, :2] > 0).astype(float)
    v, rho = dominant_direction(Phi)
    s = np.linalg.svd(Phi, compute_uv=False)
    assert rho == pytest.approx(s[0] ** 2, rel=1e-12) and s[1] ** 2 < 1e-2 * s[0] ** 2
    eig, rhs, coupling = factorise_design_deflated(Phi.copy(), Pi, v)
    A = Phi.T @ Phi
    np.testing.assert_allclose(eig.matrix(), A, atol=1e-12 * np.abs(A).max())
    np.testing.assert_allclose(eig.vectors.T @ eig.vectors, np.eye(50), atol=1e-13)
    np.testing.assert_allclose(eig.vectors @ rhs[:, :2], Phi.T @ Pi, atol=1e-10)
    np.testing.assert_allclose(eig.vectors @ rhs[:, 2], Phi.sum(0), atol=1e-10)
    assert coupling < 1e-9 and (eig.abs_error > 0).all()
    g = np.array([1e-9, 1.0])
    theta = solve_sylvester_eig(eig, SymmetricEig(g, np.eye(2)), rhs[:, :2], rhs_in_eigbasis=True)
    eig_qr, rhs_qr = factorise_design(Phi.copy(), Pi)
    theta_qr = solve_sylvester_eig(eig_qr, SymmetricEig(g, np.eye(2)), rhs_qr[:, :2],
                                   rhs_in_eigbasis=True)
    np.testing.assert_allclose(Phi @ theta, Phi @ theta_qr, atol=1e-8)
    for t in range(2):
        M = np.vstack([Phi, np.sqrt(g[t]) * np.eye(50)])
        ref = np.linalg.lstsq(M, np.concatenate([Pi[:, t], np.zeros(50)]), rcond=None)[0]
        np.testing.assert_allclose(Phi @ theta[:, t], Phi @ ref, atol=1e-6)
    work = Phi.copy()
    assert factorise_design_deflated(work, Pi, v, overwrite=True, max_error=1e-30) is None
    np.testing.assert_allclose(work, Phi, atol=1e-14)


def test_landmark_deflated_choice_and_agreement():
    """Near-constant kernel features and a small λ: plain eigh(ΦᵀΦ) is too coarse but the
    deflated one is not (λ = 1e-8), and at λ = 1e-9 QR + SVD; each agrees with
    scipy.linalg.solve_sylvester."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 30))
    Y = (X[:, :3] + 0.5 * rng.normal(size=(120, 3)) > 0).astype(np.uint8)
    for lam, how in ((1e-8, "deflated eigh(Phi'Phi)"), (1e-9, "qr+svd(Phi)")):
        m = MLLSPC(lam=lam, gamma=0.1, n_centers=40, random_state=0).fit(X, Y)
        assert m.factorisation_ == how
        Phi = _phi(X, X[m.center_index_], m.sigma_)
        ref = scipy.linalg.solve_sylvester(Phi.T @ Phi, m.coupling_matrix(), Phi.T @ Y)
        np.testing.assert_allclose(Phi @ m.coef_, Phi @ ref, rtol=1e-6, atol=1e-8)
        ref_neg = scipy.linalg.solve_sylvester(Phi.T @ Phi, m.coupling_matrix(), Phi.T @ (1 - Y))
        np.testing.assert_allclose(Phi @ m.coef_neg_, Phi @ ref_neg, rtol=1e-6, atol=1e-8)


def test_landmark_factorisation_choice_and_agreement():
    """Large λ: eigh(ΦᵀΦ) (its error is negligible against λ); tiny γ/T coupling in
    MT-LSPC: QR + SVD. Both agree with scipy.linalg.solve_sylvester."""
    X, Y = _data(n=80)
    a = LSPC(lam=1.0, n_centers=30, random_state=0).fit(X, Y)
    assert a.factorisation_ == "eigh(Phi'Phi)"
    b = MTLSPC(lam=1e-3, gamma=1e-9, n_centers=30, random_state=0).fit(X, Y)
    assert b.factorisation_ == "qr+svd(Phi)"
    assert LSPC(lam=1.0).fit(X, Y).factorisation_ == "eigh(K)"
    for m in (a, b):
        Phi = _phi(X, X[m.center_index_], m.sigma_)
        C = _coupling(m, m.lam, getattr(m, "gamma", 0.0), Y)
        ref = scipy.linalg.solve_sylvester(Phi.T @ Phi, C, Phi.T @ Y)
        np.testing.assert_allclose(Phi @ m.coef_, Phi @ ref, rtol=1e-6, atol=1e-8)
