"""The shared estimator contract (tests/contract.py) over every registered estimator.

One test per (method, clause). The methods come from the method registry
(:mod:`mlviz.models.registry`): each entry's ``checks`` give the small settings
of the checks, the parameters of its in-place ``refit`` and how ``predict``
follows from ``predict_proba``. Two extra cases cover settings no entry has.
"""

import numpy as np
import pytest
from contract import (
    check_clone_of_fitted,
    check_decision_rule_attribute,
    check_default_score,
    check_empty_set,
    check_not_fitted,
    check_predict_follows_rule,
    check_random_state_determinism,
    check_refit_in_place,
    contract_data,
    rank_cut_rule,
    threshold_rule,
)
from sklearn.model_selection import GridSearchCV, KFold

import mlviz.models as models
from mlviz.models.registry import METHODS

RULES = {"threshold": threshold_rule, "rank_cut": rank_cut_rule("cardinality_"), None: None}


def _entry(spec):
    return (lambda: spec.make(**spec.checks.params), spec.checks.refit, RULES[spec.checks.rule])


# id -> (factory, refit params or None, decision rule or None). A rule of None means predict is not a
# function of predict_proba (LabelPowerset: most probable observed label set; MLRH "wta": most probable
# set of size 1..M).
# One case per class: the sparse CDN's variants (same class, another ``variant``) are covered by
# test_cdn.py's contract test per variant.
ESTIMATORS = {key: _entry(spec) for key, spec in METHODS.items()
              if next(m for m in METHODS.values() if m.estimator == spec.estimator) is spec}
ESTIMATORS.update({
    "mllem-rcut": (lambda: models.MLLEM(n_components=3, threshold=None, random_state=0), None,
                   rank_cut_rule("cardinality_")),
    # unseeded: predict must still equal the rule on predict_proba of the same model
    "cdn-unseeded": (lambda: models.SparseCDN(gamma=0.5, mu=0.5, tol=1e-8, n_burn=10, n_samples=50), None,
                     threshold_rule),
})


def _cases(clause, *, needs=None):
    out = []
    for key, (_factory, refit_params, rule) in ESTIMATORS.items():
        if needs == "refit" and refit_params is None:
            continue
        if needs == "rule" and rule is None:
            continue
        out.append(pytest.param(key, id=key))
    return out


def _make(key):
    return ESTIMATORS[key][0]()


@pytest.mark.parametrize("key", _cases("not_fitted"))
def test_not_fitted(key):
    check_not_fitted(_make(key))


@pytest.mark.parametrize("key", _cases("decision_rule_"))
def test_decision_rule_attribute(key):
    check_decision_rule_attribute(_make(key))


@pytest.mark.parametrize("key", _cases("predict_rule", needs="rule"))
def test_predict_follows_documented_rule(key):
    check_predict_follows_rule(_make(key), ESTIMATORS[key][2])


# MLRH's ``empty_set`` is part of its model (whether ∅ is a label set; tests/test_mlrh.py), not a rule on top.
@pytest.mark.parametrize("key", [k for k in _cases("empty_set")
                                 if k.values[0] != "mlrh" and "empty_set" in _make(k.values[0]).get_params()])
def test_empty_set(key):
    check_empty_set(_make(key))


@pytest.mark.parametrize("key", _cases("refit", needs="refit"))
def test_refit_in_place(key):
    check_refit_in_place(_make(key), ESTIMATORS[key][1])


@pytest.mark.parametrize("key", _cases("clone"))
def test_clone_of_fitted(key):
    check_clone_of_fitted(_make(key))


@pytest.mark.parametrize("key", _cases("determinism"))
def test_random_state_determinism(key):
    check_random_state_determinism(_make(key))


@pytest.mark.parametrize("key", _cases("score"))
def test_default_score(key):
    check_default_score(_make(key))


def test_grid_search_cv_without_scorer():
    """scikit-learn's GridSearchCV picks by the mixin's ``score`` (micro-F1 of predict):
    its cv_results_ equal an independent loop computing micro-F1 with scikit-learn."""
    from sklearn.base import clone
    from sklearn.metrics import f1_score

    X, Y = contract_data(n=90, d=4, L=3, random_state=7)
    est = models.MLkNN()
    grid = {"k": [1, 3, 7]}
    cv = KFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(est, grid, cv=cv).fit(X, Y)
    expected = []
    for k in grid["k"]:
        folds = [f1_score(Y[te], clone(est).set_params(k=k).fit(X[tr], Y[tr]).predict(X[te]),
                          average="micro", zero_division=1) for tr, te in cv.split(X)]
        expected.append(np.mean(folds))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected, atol=1e-12)
    assert search.best_params_ == {"k": grid["k"][int(np.argmax(expected))]}


def test_score_zero_division_and_weights():
    """Score edge cases against the definition: nothing true and nothing predicted is 1;
    sample weights scale the pooled counts (compared with scikit-learn)."""
    from sklearn.metrics import f1_score

    X, Y = contract_data(n=40, d=3, L=3, random_state=1)
    est = models.BinaryRelevance().fit(X, Y)
    w = np.linspace(0.1, 2.0, len(Y))
    assert est.score(X, Y, sample_weight=w) == pytest.approx(
        f1_score(Y, est.predict(X), average="micro", sample_weight=w, zero_division=1), abs=1e-12)
    Z = np.zeros_like(Y)
    model = models.BinaryRelevance().fit(X, np.c_[Z[:, :2], Y[:, :1]])
    pred = model.predict(X)
    pred_empty = ~pred.any(axis=1)
    assert model.score(X[pred_empty], np.zeros((pred_empty.sum(), 3), int)) == 1.0
    with pytest.raises(ValueError, match="sample_weight"):
        est.score(X, Y, sample_weight=-w)


def test_too_large_error_is_a_value_error_and_pickles():
    import pickle

    err = models.TooLargeError("MLRH: ~40 GB for 983 labels; use max_labelsets", estimate_bytes=4e10,
                               estimate_seconds=900.0, alternative="max_labelsets=5000")
    back = pickle.loads(pickle.dumps(err))
    assert isinstance(back, ValueError) and str(back) == str(err)
    assert (back.estimate_bytes, back.estimate_seconds, back.alternative) == (4e10, 900.0, "max_labelsets=5000")
    from mlviz.models._base import TooLargeError

    assert TooLargeError is models.TooLargeError


@pytest.mark.parametrize("bad, match", [
    (np.array([[0, 2]]), "only 0 and 1"), (np.array([[0.5, 1]]), "only 0 and 1"),
    (np.array([[np.nan, 1]]), "only 0 and 1"), (np.array([["a", "b"]]), "only 0 and 1"),
    (np.zeros((1, 2, 2)), "2-D"),
])
def test_check_Y_rejects(bad, match):
    with pytest.raises(ValueError, match=match):
        models.check_Y(bad)


def test_check_Y_shared_by_metrics_folds_and_cv():
    """One validator: models, metrics, folds and cross-validation reject the same Y alike."""
    from mlviz.evaluation import cross_validate, multilabel_kfold
    from mlviz.metrics import evaluate

    X, Y = contract_data(n=20, d=2, L=2)
    bad = Y.astype(float)
    bad[0, 0] = 3.0
    for call in (lambda: models.check_X_Y(X, bad), lambda: evaluate(bad, np.zeros(bad.shape)),
                 lambda: multilabel_kfold(bad, 2), lambda: models.BinaryRelevance().fit(X, bad),
                 lambda: cross_validate({"br": models.BinaryRelevance()}, X, bad, cv=2)):
        with pytest.raises(ValueError, match="must contain only 0 and 1"):
            call()
    np.testing.assert_array_equal(models.check_Y(Y.astype(bool)), Y)
    with pytest.raises(ValueError, match="different numbers of rows"):
        models.check_Y(Y, n_samples=3)
