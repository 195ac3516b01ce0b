"""Every contract clause of tests/contract.py for one estimator (used by the embedding-baseline tests)."""

import numpy as np
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


def check_all_clauses(estimator, *, sparse=True):
    """clone / NotFittedError / [0, 1] / determinism / dense = sparse / rule / score, and an all-zero label."""
    check_estimator_contract(estimator, sparse=sparse)
    check_not_fitted(estimator)
    check_decision_rule_attribute(estimator)
    check_predict_follows_rule(estimator, threshold_rule)
    check_clone_of_fitted(estimator)
    check_random_state_determinism(estimator)
    check_default_score(estimator)
    X, Y = contract_data(random_state=3)
    Y = Y.copy()
    Y[:, 1] = 0  # a label with no positives at all
    est = estimator.fit(X, Y)
    P = est.predict_proba(X)
    assert np.isfinite(P).all() and P.min() >= 0.0 and P.max() <= 1.0
    assert np.isfinite(est.decision_function(X)).all()
    assert P[:, 1].max() < 0.5, "a label never seen positive should not be predicted"
