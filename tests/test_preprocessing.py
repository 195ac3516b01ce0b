"""Tests of mlviz.preprocessing: named scalings, the documented default, fold-only fitting."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.preprocessing import StandardScaler

from mlviz.evaluation import cross_validate, multilabel_kfold
from mlviz.metrics import evaluate
from mlviz.preprocessing import SCALINGS, default_scaling, make_scaler, resolve_scaling, scaling_of, with_scaling


class MeanScores(BaseEstimator):
    """Scores = sigmoid of (x . w_l) with w_l the mean of positive rows minus the mean of the rest."""

    def fit(self, X, Y):
        X = X.toarray() if sp.issparse(X) else np.asarray(X)
        Y = np.asarray(Y, bool)
        self.W_ = np.column_stack([X[Y[:, j]].mean(0) - X[~Y[:, j]].mean(0) for j in range(Y.shape[1])])
        return self

    def predict_proba(self, X):
        X = X.toarray() if sp.issparse(X) else np.asarray(X)
        return 1.0 / (1.0 + np.exp(-X @ self.W_))


def _counts(n=60, d=40, L=3, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.08, format="csr", random_state=seed,
                  data_rvs=lambda k: rng.integers(1, 5, k).astype(float))
    Y = (rng.random((n, L)) < 0.4).astype(np.uint8)
    Y[:3] = 1
    Y[3:6] = 0
    return X, Y


def test_default_scaling_rule():
    rng = np.random.default_rng(0)
    assert default_scaling(rng.normal(size=(20, 4))) == "standard"
    X, _ = _counts()
    assert default_scaling(X) == "l2"
    assert default_scaling(X.toarray()) == "l2"  # count-like stored dense
    dense_pos = np.abs(rng.normal(size=(20, 4)))  # non-negative but dense: not count-like
    assert default_scaling(dense_pos) == "standard"
    assert resolve_scaling("auto", X) == "l2" and resolve_scaling(None, X) == "none"


def test_scalers_against_definitions():
    X, _ = _counts()
    D = X.toarray()
    L2 = make_scaler("l2").fit_transform(X).toarray()
    norms = np.linalg.norm(D, axis=1)
    np.testing.assert_allclose(L2[norms > 0], D[norms > 0] / norms[norms > 0, None], atol=1e-12)
    M = make_scaler("maxabs").fit_transform(D)
    np.testing.assert_allclose(M, D / np.where(np.abs(D).max(0) > 0, np.abs(D).max(0), 1.0), atol=1e-12)
    S = make_scaler("standard", sparse=True).fit_transform(X).toarray()
    sd = D.std(axis=0)
    np.testing.assert_allclose(S, D / np.where(sd > 0, sd, 1.0), atol=1e-12)
    # TF-IDF by hand: tf * (ln((1+n)/(1+df)) + 1), then unit rows (scikit-learn's smooth idf)
    n = D.shape[0]
    df = (D > 0).sum(0)
    T = D * (np.log((1 + n) / (1 + df)) + 1)
    tn = np.linalg.norm(T, axis=1)
    T[tn > 0] /= tn[tn > 0, None]
    np.testing.assert_allclose(make_scaler("tfidf").fit_transform(X).toarray(), T, atol=1e-12)
    assert make_scaler("none") is None
    assert isinstance(make_scaler("tfidf"), TfidfTransformer)


def test_errors_and_names():
    X, _ = _counts()
    with pytest.raises(ValueError, match="tfidf"):
        resolve_scaling("tfidf", -X.toarray())
    with pytest.raises(ValueError, match="scaling must be"):
        resolve_scaling("zscore", X)
    with pytest.raises(ValueError, match="unknown scaling"):
        make_scaler("zscore")
    est = MeanScores()
    assert with_scaling(est, "none", X) is est and scaling_of(est) == "none"
    for name in SCALINGS:
        if name != "none":
            assert scaling_of(with_scaling(est, name, X)) == name
    from sklearn.pipeline import make_pipeline

    assert scaling_of(make_pipeline(StandardScaler(), est)) == "StandardScaler"


@pytest.mark.parametrize("name", ["standard", "tfidf", "maxabs"])
def test_cross_validate_fits_the_scaler_on_training_folds_only(name):
    """Independent loop: scaler fitted on the training rows only, then the model."""
    X, Y = _counts(n=72, seed=3)
    folds = multilabel_kfold(Y, 3, random_state=0)
    res = cross_validate({"m": MeanScores()}, X, Y, cv=folds, measures=["micro_f1", "ranking_loss"],
                         scaling=name)
    assert (res["scaling"] == name).all()
    for f, (tr, te) in enumerate(folds):
        scaler = make_scaler(name, sparse=True).fit(X[tr])
        model = clone(MeanScores()).fit(scaler.transform(X[tr]), Y[tr])
        expected = evaluate(Y[te], model.predict_proba(scaler.transform(X[te])),
                            measures=["micro_f1", "ranking_loss"])
        got = res[res.fold == f].set_index("measure")["value"].to_dict()
        assert got == pytest.approx(expected, abs=1e-12)
    # the check has power: a scaler fitted on all rows gives different test scores
    tr, te = folds[0]
    own = make_scaler(name, sparse=True).fit(X[tr])
    leaked = make_scaler(name, sparse=True).fit(X)
    P_own = MeanScores().fit(own.transform(X[tr]), Y[tr]).predict_proba(own.transform(X[te]))
    P_leak = MeanScores().fit(leaked.transform(X[tr]), Y[tr]).predict_proba(leaked.transform(X[te]))
    assert not np.allclose(P_own, P_leak, atol=1e-9)


def test_per_method_scaling_dict():
    X, Y = _counts()
    res = cross_validate({"a": MeanScores(), "b": MeanScores()}, X, Y, cv=2, measures=["micro_f1"],
                         scaling={"a": "l2", "b": "none"}, random_state=0)
    assert res.groupby("method")["scaling"].first().to_dict() == {"a": "l2", "b": "none"}
    with pytest.raises(ValueError, match="unknown methods"):
        cross_validate({"a": MeanScores()}, X, Y, cv=2, scaling={"zz": "l2"})
