"""Shared estimator contract, called from each model family's test module.

Usage::

    from contract import check_estimator_contract
    def test_contract():
        check_estimator_contract(MLLSPC(lam=0.1), sparse=True)
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError


def contract_data(n=60, d=5, L=3, random_state=0):
    """A small, learnable multi-label problem with one rare label."""
    rng = np.random.default_rng(random_state)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(d, L))
    Y = (X @ W + 0.3 * rng.normal(size=(n, L)) > 0).astype(np.uint8)
    Y[:, -1] = 0
    Y[:4, -1] = 1  # rare label
    return X, Y


def check_estimator_contract(estimator, *, sparse=True, deterministic=True, atol=1e-8, data=None):
    """Assert the mlviz estimator contract.

    - ``clone`` gives an equal-parameter copy; parameters are stored verbatim
      and unchanged by ``fit``;
    - unfitted ``predict_proba`` raises ``NotFittedError``;
    - ``fit`` returns self; ``predict_proba`` is a finite dense (n, L) array in
      [0, 1]; ``predict`` is (n, L) with values in {0, 1};
    - two fits of clones give identical probabilities (``random_state``);
    - dense and CSR inputs give the same probabilities (if ``sparse``).
    """
    X, Y = data if data is not None else contract_data()
    params = estimator.get_params(deep=False)
    est = clone(estimator)
    assert est.get_params(deep=False).keys() == params.keys()
    with pytest.raises(NotFittedError):
        est.predict_proba(X)
    assert est.fit(X, Y) is est
    for k, v in est.get_params(deep=False).items():
        if isinstance(v, np.ndarray):
            assert np.array_equal(v, params[k])
        elif not hasattr(v, "get_params"):
            assert v == params[k] or (v is params[k]), f"fit changed parameter {k!r}"
    P = est.predict_proba(X)
    assert isinstance(P, np.ndarray) and P.shape == Y.shape
    assert np.isfinite(P).all()
    assert P.min() >= 0.0 and P.max() <= 1.0
    Yp = est.predict(X)
    assert np.asarray(Yp).shape == Y.shape
    assert np.isin(np.asarray(Yp), (0, 1)).all()
    if deterministic:
        P2 = clone(estimator).fit(X, Y).predict_proba(X)
        np.testing.assert_allclose(P, P2, atol=atol, rtol=0)
    if sparse:
        Ps = clone(estimator).fit(sp.csr_matrix(X), Y).predict_proba(sp.csr_matrix(X))
        np.testing.assert_allclose(P, Ps, atol=max(atol, 1e-6), rtol=0)
    return est
