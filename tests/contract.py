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


# ----------------------------------------------------------------------------
# The agreed estimator contract (issue 13; BRIEF "Shared interfaces"), one check
# per clause so a model's test module -- or tests/test_contract.py -- can call
# each one and see which clause fails.

def _fill_empty_rows(Y_pred, P):
    """Hand-written "at least one label": each all-zero row gets its first highest-scored label."""
    out = np.array(Y_pred, dtype=np.uint8)
    for i in range(out.shape[0]):
        if out.shape[1] and not out[i].any():
            out[i, int(np.flatnonzero(P[i] == P[i].max())[0])] = 1
    return out


def threshold_rule(est, P):
    """The default decision rule: ``predict_proba >= est.threshold`` (0.5 when unset), with every
    empty row given its most probable label when ``est.allow_empty_`` is False."""
    t = getattr(est, "threshold", None)
    Y_pred = (P >= (0.5 if t is None else t)).astype(np.uint8)
    return Y_pred if getattr(est, "allow_empty_", True) else _fill_empty_rows(Y_pred, P)


def check_empty_set(estimator, data=None):
    """``empty_set``: ``True`` keeps the rule; on training rows that all have a label, ``"auto"`` and
    ``False`` give the same model with every empty row of the rule filled with its top label, and say
    so in ``decision_rule_``; with an empty training row, ``"auto"`` keeps the rule; a value outside
    the three is refused before the fit does any work."""
    X, Y = data if data is not None else contract_data()
    full = Y.copy()
    full[~full.any(axis=1), 0] = 1
    own = clone(estimator).set_params(empty_set=True).fit(X, full)
    assert own.allow_empty_ is True
    P, base = own.predict_proba(X), np.asarray(own.predict(X))
    for value in ("auto", False):
        est = clone(estimator).set_params(empty_set=value).fit(X, full)
        assert est.allow_empty_ is False and est.decision_rule_.startswith(own.decision_rule_)
        assert est.decision_rule_ != own.decision_rule_
        np.testing.assert_array_equal(est.predict_proba(X), P)
        np.testing.assert_array_equal(np.asarray(est.predict(X)), _fill_empty_rows(base, P))
    assert not (Y.any(axis=1)).all(), "the check needs training data with an empty row"
    assert clone(estimator).set_params(empty_set="auto").fit(X, Y).allow_empty_ is True
    bad = clone(estimator).set_params(empty_set="sometimes")
    with pytest.raises(ValueError, match="empty_set"):
        bad.fit(X, full)
    fitted = [k for k in vars(bad) if k.endswith("_") and not k.startswith("_")]
    assert not fitted, f"empty_set is checked before any work, but fit had set {fitted}"


def rank_cut_rule(attribute):
    """Rule "the ``est.<attribute>`` highest-probability labels of each row" (ties: lower index)."""
    def rule(est, P):
        r = min(int(getattr(est, attribute)), P.shape[1])
        out = np.zeros(P.shape, dtype=np.uint8)
        np.put_along_axis(out, np.argsort(-P, axis=1, kind="stable")[:, :r], 1, axis=1)
        return out
    return rule


def check_not_fitted(estimator, data=None):
    """``predict``, ``predict_proba`` and ``score`` raise ``NotFittedError`` before ``fit``;
    there is no ``decision_rule_`` yet."""
    X, Y = data if data is not None else contract_data()
    est = clone(estimator)
    for name in ("predict_proba", "predict"):
        with pytest.raises(NotFittedError):
            getattr(est, name)(X)
    with pytest.raises(NotFittedError):
        est.score(X, Y)
    assert not hasattr(est, "decision_rule_"), "decision_rule_ exists before fit"


def check_decision_rule_attribute(estimator, data=None):
    """After ``fit``, ``decision_rule_`` is a short non-empty human string."""
    X, Y = data if data is not None else contract_data()
    est = clone(estimator).fit(X, Y)
    rule = getattr(est, "decision_rule_", None)
    assert isinstance(rule, str) and rule.strip(), f"decision_rule_ is {rule!r}, expected a short string"
    assert len(rule) <= 200, "decision_rule_ should be a short human string"
    return rule


def check_predict_follows_rule(estimator, rule=threshold_rule, data=None):
    """``predict(X)`` equals ``rule(est, predict_proba(X))`` (same fitted model, same random_state).

    ``rule`` is the documented decision rule as a function (estimator, P) -> 0/1
    matrix, e.g. :func:`threshold_rule` or ``rank_cut_rule("cardinality_")``.
    """
    X, Y = data if data is not None else contract_data()
    est = clone(estimator).fit(X, Y)
    P = est.predict_proba(X)
    np.testing.assert_array_equal(np.asarray(est.predict(X)), rule(est, P),
                                  err_msg="predict differs from its documented rule on predict_proba")


def check_refit_in_place(estimator, params, data=None, atol=1e-6):
    """``refit(**params)`` returns ``self``, updates ``get_params`` and reaches the
    model a fresh ``fit`` with those parameters reaches (same predict_proba)."""
    X, Y = data if data is not None else contract_data()
    est = clone(estimator).fit(X, Y)
    out = est.refit(**params)
    assert out is est, f"refit returned {type(out).__name__} object {id(out)}, not self"
    got = est.get_params(deep=False)
    for k, v in params.items():
        assert got[k] == v, f"after refit, get_params()[{k!r}] = {got[k]!r}, expected {v!r}"
    fresh = clone(estimator).set_params(**params).fit(X, Y)
    np.testing.assert_allclose(est.predict_proba(X), fresh.predict_proba(X), atol=atol, rtol=0)


def check_clone_of_fitted(estimator, data=None):
    """``clone`` of a fitted estimator is an unfitted one with the same parameters."""
    X, Y = data if data is not None else contract_data()
    est = clone(estimator).fit(X, Y)
    copy = clone(est)
    assert copy is not est
    assert repr(copy.get_params(deep=False)) == repr(est.get_params(deep=False))
    with pytest.raises(NotFittedError):
        copy.predict_proba(X)


def check_random_state_determinism(estimator, data=None, atol=0.0):
    """With ``random_state`` fixed, two fits give identical predict_proba and predict,
    and predicting twice from one fitted model gives the same answer."""
    X, Y = data if data is not None else contract_data()
    est = clone(estimator)
    if "random_state" in est.get_params(deep=False) and est.random_state is None:
        est.set_params(random_state=0)
    a, b = clone(est).fit(X, Y), clone(est).fit(X, Y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=atol, rtol=0)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_array_equal(a.predict(X), a.predict(X))
    np.testing.assert_allclose(a.predict_proba(X), a.predict_proba(X), atol=atol, rtol=0)


def check_default_score(estimator, data=None):
    """``score`` is micro-F1 of ``predict`` (scikit-learn ``f1_score(average="micro",
    zero_division=1)`` as the independent reference), so ``GridSearchCV`` works without a scorer."""
    from sklearn.metrics import f1_score

    X, Y = data if data is not None else contract_data()
    est = clone(estimator).fit(X, Y)
    expected = f1_score(Y, np.asarray(est.predict(X)), average="micro", zero_division=1)
    assert est.score(X, Y) == pytest.approx(expected, abs=1e-12)
