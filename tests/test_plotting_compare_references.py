"""The Compare chart names and styles its trivial-reference bars (issue 29, item 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mlviz.evaluation.baselines import EMPTY, FREQUENCY, reference_results
from mlviz.plotting import measure_bars
from mlviz.plotting.compare import REFERENCE_COLOR


def _folds(n, k=3):
    idx = np.arange(n)
    return [(np.setdiff1d(idx, idx[f::k]), idx[f::k]) for f in range(k)]


def _results():
    rng = np.random.default_rng(0)
    Y = (rng.random((30, 4)) < [0.6, 0.3, 0.2, 0.1]).astype(int)
    folds = _folds(len(Y))
    rows = [dict(method=m, fold=f, measure=meas, value=rng.random(), fit_seconds=0.1, predict_seconds=0.01)
            for m in ("BR-LR", "ML-kNN") for f in range(3) for meas in ("micro_f1", "hamming_loss", "p@1")]
    return Y, folds, pd.concat([pd.DataFrame(rows), reference_results(Y, folds, ["hamming_loss", "p@1"])],
                               ignore_index=True)


def test_reference_bars_are_named_grey_hatched_and_in_the_legend_once():
    Y, folds, res = _results()
    fig = measure_bars(res, measures=["micro_f1", "hamming_loss", "p@1"])
    bars = [t for t in fig.data if t.type == "bar"]
    refs = [t for t in bars if t.meta["reference"]]
    assert {t.name for t in refs} == {"trivial reference: predict nothing",
                                      "trivial reference: rank by training frequency"}
    for t in refs:
        assert t.marker.color == REFERENCE_COLOR and t.marker.pattern.shape == "/"
        assert list(t.x) == [t.name]
    # the empty prediction's Hamming loss = mean over folds of the test part's label density (by hand)
    (ham,) = [t for t in refs if t.meta["measure"] == "hamming_loss"]
    assert ham.y[0] == np.mean([Y[te].mean() for _, te in folds])
    # every method and reference has exactly one legend entry, though no reference is in the first panel
    entries = [t.name for t in bars if t.showlegend]
    assert sorted(entries) == sorted({t.name for t in bars})
    # references are drawn after the methods of their panel
    for m in ("hamming_loss", "p@1"):
        order = [t.meta["reference"] for t in bars if t.meta["measure"] == m]
        assert order == sorted(order)
    assert {t.meta["method"] for t in refs} == {EMPTY, FREQUENCY}
