"""InsDif (Nam et al.'s comparison): bags, Hausdorff distances, k-medoids and the second level by hand."""

import numpy as np
import pytest
import scipy.sparse as sp
from _embedding_contract import check_all_clauses
from contract import contract_data
from scipy.spatial.distance import directed_hausdorff
from sklearn.linear_model import LinearRegression

from mlviz.models import TooLargeError
from mlviz.models import insdif as insdif_module
from mlviz.models.insdif import InsDif, bag_hausdorff, kmedoids, label_prototypes


def _tiny():
    X = np.array([[0.0, 1.0], [2.0, 0.0], [1.0, 1.0], [3.0, 2.0], [0.0, 0.0]])
    Y = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 1, 0], [1, 0, 0]], dtype=np.uint8)
    return X, Y


def test_bags_by_hand():
    X, Y = _tiny()
    V = label_prototypes(X, Y)
    # label 0: rows 0, 1, 4 -> mean (2/3, 1/3); label 1: rows 1, 2, 3 -> (2, 1); label 2: none -> overall mean
    np.testing.assert_allclose(V, [[2 / 3, 1 / 3], [2.0, 1.0], [1.2, 0.8]])
    bag0 = X[0] - V                                    # bag of x_0 = {x_0 − v_l}
    np.testing.assert_allclose(bag0, [[-2 / 3, 2 / 3], [-2.0, 0.0], [-1.2, 0.2]])
    bag3 = X[3] - V
    d03 = max(max(min(np.linalg.norm(a - b) for b in bag3) for a in bag0),
              max(min(np.linalg.norm(a - b) for a in bag0) for b in bag3))
    D = bag_hausdorff(X, X, V, symmetric=True)
    assert D[0, 3] == pytest.approx(d03, abs=1e-12) and D[3, 0] == pytest.approx(d03, abs=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_hausdorff_against_scipy(sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(15, 4)) * (rng.random((15, 4)) < 0.6)
    Y = (rng.random((15, 5)) < 0.4).astype(np.uint8)
    Xt = rng.normal(size=(6, 4))
    V = label_prototypes(sp.csr_matrix(X) if sparse else X, Y)
    ref = np.array([[max(directed_hausdorff(a - V, b - V)[0], directed_hausdorff(b - V, a - V)[0])
                     for b in X] for a in Xt])
    conv = sp.csr_matrix if sparse else np.asarray
    np.testing.assert_allclose(bag_hausdorff(conv(Xt), conv(X), V, chunk_entries=60), ref, atol=1e-12)
    full = np.array([[max(directed_hausdorff(a - V, b - V)[0], directed_hausdorff(b - V, a - V)[0])
                      for b in X] for a in X])
    np.testing.assert_allclose(bag_hausdorff(conv(X), conv(X), V, symmetric=True), full, atol=1e-12)


def test_kmedoids_is_a_fixed_point_of_the_naive_update():
    rng = np.random.default_rng(1)
    P = np.vstack([rng.normal(c, 0.3, size=(10, 2)) for c in ((0, 0), (4, 0), (0, 4))])
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    med = kmedoids(D, 3, random_state=0)
    assign = [int(np.argmin([D[i, m] for m in med])) for i in range(len(P))]
    for c, m in enumerate(med):
        members = [i for i in range(len(P)) if assign[i] == c]
        cost = {j: sum(D[j, i] for i in members) for j in members}
        assert cost[m] == pytest.approx(min(cost.values()))
    assert sorted({a for a in assign}) == [0, 1, 2]


def test_second_level_is_least_squares_on_medoid_distances():
    X, Y = contract_data(n=40, d=4, L=3)
    m = InsDif(medoid_fraction=0.25, calibration="clip", random_state=0).fit(X, Y)
    D = bag_hausdorff(X, X, label_prototypes(X, Y), symmetric=True)
    Phi = D[:, m.medoid_rows_]
    np.testing.assert_allclose(m.embedding_, Phi, atol=1e-12)
    ref = LinearRegression().fit(Phi, 2.0 * Y - 1.0)
    Xt = np.random.default_rng(2).normal(size=(9, 4))
    np.testing.assert_allclose(m.decision_function(Xt), ref.predict(m.transform(Xt)), atol=1e-8)
    # paper rule f_l > 0 == clip((f + 1)/2) >= 0.5 (up to exact ties at 0)
    np.testing.assert_array_equal(m.predict(Xt), (m.decision_function(Xt) >= 0).astype(np.uint8))


@pytest.mark.parametrize("make", [lambda: InsDif(random_state=0), lambda: InsDif(calibration="clip", random_state=1)],
                         ids=["platt", "clip"])
def test_contract(make):
    check_all_clauses(make())


def test_refuses_large_shapes_with_an_estimate(monkeypatch):
    est = InsDif()
    seconds, _ = est.estimate_cost(7395, 159)
    assert seconds > insdif_module.MAX_SECONDS
    monkeypatch.setattr(insdif_module, "MAX_SECONDS", 1e-9)
    X, Y = contract_data()
    with pytest.raises(TooLargeError, match="bag Hausdorff") as info:
        est.fit(X, Y)
    assert info.value.estimate_seconds > 0 and info.value.estimate_bytes == pytest.approx(3 * 8.0 * 60 ** 2)
    with pytest.raises(ValueError, match="'medoid_fraction' parameter of InsDif must be > 0"):
        InsDif(medoid_fraction=0).fit(X, Y)
