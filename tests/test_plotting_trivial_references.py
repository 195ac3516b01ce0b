"""Trivial references beside a model's measures (issue 29, item 9), against hand computations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mlviz.plotting.tables import EVERY, NOTHING, SAME_SCORES, for_display, trivial_references


def test_trivial_references_by_hand():
    rng = np.random.default_rng(0)
    Ytr = (rng.random((80, 5)) < [0.6, 0.3, 0.2, 0.1, 0.05]).astype(int)
    Yte = (rng.random((40, 5)) < [0.6, 0.3, 0.2, 0.1, 0.05]).astype(int)
    ref = trivial_references(Ytr, Yte, ["micro_f1", "hamming_loss", "subset_accuracy", "macro_auc", "macro_f1"])
    ref = ref.set_index("measure")
    # predicting every label: precision = prevalence, recall = 1 -> micro-F1 = 2p / (1 + p)
    p = Yte.sum() / Yte.size
    assert ref.loc["micro_f1", "reference"] == EVERY
    assert ref.loc["micro_f1", "value"] == pytest.approx(2 * p / (1 + p))
    # predicting nothing: Hamming loss = density, subset accuracy = share of empty rows
    assert ref.loc["hamming_loss", "reference"] == NOTHING and ref.loc["hamming_loss", "value"] == pytest.approx(p)
    assert ref.loc["subset_accuracy", "value"] == pytest.approx((Yte.sum(1) == 0).mean())
    # the same scores for every instance: each label's AUC is 0.5
    assert ref.loc["macro_auc", "reference"] == SAME_SCORES and ref.loc["macro_auc", "value"] == pytest.approx(0.5)
    # macro-F1 of predicting every label: the mean of 2 p_l / (1 + p_l) over labels with a positive
    # (mlviz's macro-F1 scores a label absent from truth and prediction 1; every label is predicted here)
    pl = Yte.mean(0)
    assert ref.loc["macro_f1", "value"] == pytest.approx(np.mean(2 * pl / (1 + pl)))


def test_for_display_writes_a_dash_for_missing_values_only():
    frame = pd.DataFrame({"name": ["a", None], "x": [1.0, np.nan], "n": [1, 2]})
    out = for_display(frame, digits=2)
    assert out["name"].tolist() == ["a", "—"] and out["x"].tolist() == ["1.00", "—"]
    assert out["n"].dtype.kind == "i"  # complete numeric columns stay numeric
    assert frame["x"].isna().iloc[1]   # the input is not changed
