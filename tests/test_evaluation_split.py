"""evaluate_split (the fixed train/test protocol) against a hand fit/score with mlviz.metrics,
and ``mlviz evaluate TRAIN --test TEST`` end to end on the bundled emotions split."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import Normalizer, StandardScaler

from mlviz import cli
from mlviz.data import load_dataset
from mlviz.evaluation import RESULT_COLUMNS, cross_validate, evaluate_split
from mlviz.metrics import DEFAULT_MEASURES, evaluate
from mlviz.models import BinaryRelevance, LabelPowerset, MLkNN

ROOT = Path(__file__).resolve().parents[1] / "sample_data"
TRAIN, TEST, XML = (str(ROOT / n) for n in ("emotions-train.arff.gz", "emotions-test.arff.gz", "emotions.xml"))


def _data(seed=0, n=120, d=5, L=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * [1, 10, 0.1, 3, 1]
    Y = (X[:, :L] * [1, 0.1, 10] + rng.normal(scale=0.5, size=(n, L)) > 0).astype(np.uint8)
    return X[:80], Y[:80], X[80:], Y[80:]


def test_equals_a_hand_fit_and_score():
    Xtr, Ytr, Xte, Yte = _data()
    ests = {"br": BinaryRelevance(), "lp": LabelPowerset(), "knn": MLkNN(k=5)}
    res = evaluate_split(ests, Xtr, Ytr, Xte, Yte, scaling="standard", random_state=0)
    assert list(res.columns) == RESULT_COLUMNS
    assert list(res["method"]) == [m for m in ests for _ in DEFAULT_MEASURES]
    assert (res["fold"] == 0).all() and (res["scaling"] == "standard").all()
    scaler = StandardScaler().fit(Xtr)  # fitted on the training set only
    for name, est in ests.items():
        model = est.fit(scaler.transform(Xtr), Ytr)
        Zte = scaler.transform(Xte)
        expected = evaluate(Yte, model.predict_proba(Zte), measures=DEFAULT_MEASURES, y_pred=model.predict(Zte))
        got = res[res.method == name].set_index("measure")["value"]
        for m, v in expected.items():
            assert got[m] == pytest.approx(v, abs=1e-12), (name, m)
        assert res[res.method == name]["decision_rule"].iloc[0] == model.decision_rule_


def test_sparse_auto_scaling_is_decided_and_fitted_on_the_training_set():
    Xtr, Ytr, Xte, Yte = _data(1)
    Xtr, Xte = sp.csr_matrix(np.abs(Xtr) * (np.abs(Xtr) > 1)), sp.csr_matrix(np.abs(Xte) * (np.abs(Xte) > 1))
    res = evaluate_split({"br": BinaryRelevance()}, Xtr, Ytr, Xte, Yte, measures=["micro_f1", "p@1"],
                         scaling="auto", threshold=0.4)
    assert (res["scaling"] == "l2").all()
    model = Pipeline([("n", Normalizer()), ("m", BinaryRelevance())]).fit(Xtr, Ytr)
    expected = evaluate(Yte, model.predict_proba(Xte), threshold=0.4, measures=["micro_f1", "p@1"])
    assert res.set_index("measure")["value"].to_dict() == pytest.approx(expected, abs=1e-12)


def test_is_cross_validate_with_the_one_fold_and_tunes_on_the_training_set_only():
    Xtr, Ytr, Xte, Yte = _data(2)
    X, Y = np.vstack([Xtr, Xte]), np.vstack([Ytr, Yte])
    fold = [(np.arange(80), np.arange(80, 120))]
    kw = {"measures": ["micro_f1", "hamming_loss"], "scaling": "standard", "random_state": 0, "references": True}
    a = evaluate_split({"br": BinaryRelevance()}, Xtr, Ytr, Xte, Yte, tune={"br": {"model__C": [1.0, 100.0]}}, **kw)
    b = cross_validate({"br": BinaryRelevance()}, X, Y, cv=fold, tune={"br": {"model__C": [1.0, 100.0]}}, **kw)
    cols = ["method", "fold", "measure", "value", "decision_rule", "scaling", "tuned_params"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert a["tuned_params"].iloc[0] in ("C=1.0", "C=100.0") and a["tune_seconds"].iloc[0] > 0
    # changing the test half does not change what the inner search chose
    c = evaluate_split({"br": BinaryRelevance()}, Xtr, Ytr, Xte[::-1], 1 - Yte, tune={"br": {"model__C": [1.0, 100.0]}},
                       **kw)
    assert c["tuned_params"].iloc[0] == a["tuned_params"].iloc[0]
    assert set(a["method"]) == {"br", "ref: predict nothing"}


def test_mismatched_halves_are_refused():
    Xtr, Ytr, Xte, Yte = _data(3)
    with pytest.raises(ValueError, match="X_train has 5 features but X_test has 4"):
        evaluate_split({"br": BinaryRelevance()}, Xtr, Ytr, Xte[:, :4], Yte)
    with pytest.raises(ValueError, match="Y_train has 3 labels but Y_test has 2"):
        evaluate_split({"br": BinaryRelevance()}, Xtr, Ytr, Xte, Yte[:, :2])


# ---------------------------------------------------------------- CLI
def got_of(methods, name, measure):
    return float(methods[(methods.method == name) & (methods.measure == measure)]["value"].iloc[0])


def test_cli_train_test_end_to_end(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("MLVIZ_NO_PROGRESS", "1")
    out_csv = tmp_path / "split.csv"
    code = cli.main(["evaluate", TRAIN, "--test", TEST, "--methods", "br,mlknn", "--out", str(out_csv),
                     "--measures", "micro_f1,hamming_loss,p@1"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err
    assert "trained on 391, tested on 202 instances" in out and "fixed train/test split" in out
    res = pd.read_csv(out_csv)
    assert list(res.columns) == RESULT_COLUMNS and (res["fold"] == 0).all()
    methods = res[~res["method"].str.startswith("ref: ")]
    assert len(methods) == 2 * 3 and set(methods["scaling"]) == {"standard"}
    # the CSV equals a hand fit on the training file, scored on the test file (labels from emotions.xml)
    train, test = load_dataset(TRAIN, labels=XML), load_dataset(TEST, labels=XML)
    scaler = StandardScaler().fit(train.X)
    registry_defaults = {"br": BinaryRelevance(threshold=0.25), "mlknn": MLkNN(k=20, s=0.5, threshold=0.35)}
    for name, est in registry_defaults.items():
        model = est.fit(scaler.transform(train.X), train.Y)
        Z = scaler.transform(test.X)
        expected = evaluate(test.Y, model.predict_proba(Z), measures=["micro_f1", "hamming_loss", "p@1"],
                            y_pred=model.predict(Z))
        got = methods[methods.method == name].set_index("measure")["value"].to_dict()
        assert got == pytest.approx(expected, abs=1e-12)
        assert f"{expected['micro_f1']:.3f}" in out
    # these are the standard files: the study's numbers stand beside ours (BR and ML-kNN are in its table)
    published = out.split("These are the standard emotions files.")[1]
    assert "Bogatinovski" in published
    rows = {line.split()[0]: line.split() for line in published.splitlines()[2:4]}
    assert rows["br"][1:4] == ["BR", f"{got_of(methods, 'br', 'micro_f1'):.4f}", "0.685"]
    assert rows["mlknn"][1:4] == ["ML-kNN", f"{got_of(methods, 'mlknn', 'micro_f1'):.4f}", "0.625"]
    # the trivial references of the test set, from training-set frequencies
    ref = res[res.method == "ref: rank by training frequency"].set_index("measure")["value"]
    top = int(np.argmax(train.Y.sum(axis=0)))
    assert ref["p@1"] == pytest.approx(test.Y[:, top].mean(), abs=1e-12)
    assert "no paired comparison" in out and "How the numbers were made" in out


def test_cli_test_file_must_match_the_training_columns(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("MLVIZ_NO_PROGRESS", "1")
    code = cli.main(["evaluate", TRAIN, "--test", str(ROOT / "scene-test.arff.gz"), "--labels", XML])
    _, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err and "mlviz evaluate: error" in err
    code = cli.main(["evaluate", TRAIN, "--test", str(tmp_path / "missing.arff")])
    _, err = capsys.readouterr()
    assert code == 2 and "no such file" in err
    import gzip

    with gzip.open(TEST, "rt") as f:
        text = f.read()
    first = next(line for line in text.splitlines() if line.lower().startswith("@attribute"))
    renamed = tmp_path / "renamed-test.arff"
    renamed.write_text(text.replace(first, "@attribute renamed_feature numeric", 1))
    code = cli.main(["evaluate", TRAIN, "--test", str(renamed), "--labels", XML])
    _, err = capsys.readouterr()
    assert code == 2 and "they differ from feature 0 on" in err
