"""GradientBoostingBR against scikit-learn's own per-label boosting, and its size guard."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.utils import check_random_state

from mlviz.models import GradientBoostingBR, TooLargeError


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 2] > 0.5, np.zeros(120)]).astype(int)
    return X, Y


def test_equals_hand_built_per_label_boosting(data):
    X, Y = data
    model = GradientBoostingBR(max_iter=8, random_state=5).fit(X, Y)
    seeds = check_random_state(5).randint(np.iinfo(np.int32).max, size=Y.shape[1])
    for l in range(2):
        ref = HistGradientBoostingClassifier(max_iter=8, early_stopping=False, random_state=int(seeds[l]))
        ref.fit(X, Y[:, l])
        np.testing.assert_allclose(model.predict_proba(X)[:, l], ref.predict_proba(X)[:, 1], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.predict_proba(X)[:, 2], 0.0)  # constant label: its constant
    np.testing.assert_array_equal(model.predict(X), model.predict_proba(X) >= 0.15)


def test_sparse_input_gives_the_dense_result(data):
    X, Y = data
    dense = GradientBoostingBR(max_iter=5, random_state=0).fit(X, Y).predict_proba(X)
    sparse = GradientBoostingBR(max_iter=5, random_state=0).fit(sp.csr_matrix(X), Y).predict_proba(sp.csr_matrix(X))
    np.testing.assert_allclose(sparse, dense, rtol=0, atol=1e-12)


def test_refuses_a_fit_estimated_beyond_budget_before_any_work(data):
    X, Y = data
    est = GradientBoostingBR(max_seconds=1e-3)
    with pytest.raises(TooLargeError, match="RF-PCT"):
        est.fit(X, Y)
    assert not hasattr(est, "models_")
    # the estimate is linear in labels and iterations
    e = GradientBoostingBR(max_iter=100)
    assert e.estimate_seconds(1000, 50, 10) == pytest.approx(2 * e.estimate_seconds(1000, 50, 5))
