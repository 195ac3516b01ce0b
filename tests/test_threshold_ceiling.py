"""benchmarks/threshold_ceiling.py: its test-chosen ceilings against scikit-learn, threshold by threshold."""

import numpy as np
import pytest
from _bench import load_benchmark
from sklearn.metrics import f1_score, hamming_loss


def test_ceilings_are_the_best_over_the_grid_by_brute_force():
    mod = load_benchmark("threshold_ceiling")
    rng = np.random.default_rng(1)
    Y = rng.random((40, 5)) < 0.3
    P = np.clip(0.6 * Y + rng.normal(0.2, 0.25, Y.shape), 0, 1)
    c = mod.ceilings(P, Y)
    f1 = [f1_score(Y, P >= t, average="micro", zero_division=1.0) for t in mod.THRESHOLDS]
    hl = [hamming_loss(Y, P >= t) for t in mod.THRESHOLDS]
    assert np.isclose(c["f1_global"], max(f1)) and np.isclose(c["hl_global"], min(hl))
    assert c["t_f1"] == mod.THRESHOLDS[int(np.argmax(f1))]
    f1_one = []
    for t in mod.THRESHOLDS:  # at least one label a row, by hand
        pred = P >= t
        for i in np.flatnonzero(~pred.any(axis=1)):
            pred[i, np.argmax(P[i])] = True
        f1_one.append(f1_score(Y, pred, average="micro"))
    assert np.isclose(c["f1_global1"], max(f1_one))
    per_label = [min(hamming_loss(Y[:, j], P[:, j] >= t) for t in mod.THRESHOLDS) for j in range(5)]
    assert np.isclose(c["hl_per_label"], np.mean(per_label))
    assert c["hl_per_label"] <= c["hl_global"] + 1e-12


@pytest.mark.filterwarnings("ignore:Number of classes in training fold")  # (rare label sets; the same in both)
@pytest.mark.filterwarnings("ignore:The least populated class")
def test_outside_models_against_scikit_learn_by_hand():
    """SVM-BR is one Platt-scaled SVC (sigmoid on 5-fold decision values) a label; SVM-LP's marginals sum
    the label-set probabilities; the own rule is p >= 0.5 with the row's most probable label added when
    none passes."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC

    mod = load_benchmark("threshold_ceiling")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    Y = np.column_stack([X[:, 0] > 0, X[:, 1] + X[:, 0] > 0.3, X[:, 2] > 0.5]).astype(float)
    Xt = rng.normal(size=(10, 4))
    g = 1 / (4 * X.var())
    P = mod._svm_br(X, Y, Xt, C=1, gamma=1)
    ref = [CalibratedClassifierCV(SVC(gamma=g), ensemble=False).fit(X, Y[:, j]).predict_proba(Xt)[:, 1]
           for j in range(3)]
    np.testing.assert_allclose(P, np.column_stack(ref))
    sets = sorted({tuple(r) for r in Y})
    y = np.array([sets.index(tuple(r)) for r in Y])
    svc = CalibratedClassifierCV(SVC(C=4, gamma=2 * g), ensemble=False).fit(X, y)
    by_hand = np.zeros((10, 3))
    for c, p in zip(svc.classes_, svc.predict_proba(Xt).T):
        by_hand += np.outer(p, sets[c])
    np.testing.assert_allclose(mod._svm_lp(X, Y, Xt, C=4, gamma=2), by_hand)
    row = mod._score_outside(lambda X, Y, Xt: np.array([[0.2, 0.4, 0.1], [0.7, 0.6, 0.2]]), {}, X, Y, Xt[:2],
                             np.array([[False, True, False], [True, False, False]]))
    assert np.isclose(row["micro_f1"], f1_score([[0, 1, 0], [1, 0, 0]], [[0, 1, 0], [1, 1, 0]], average="micro"))
