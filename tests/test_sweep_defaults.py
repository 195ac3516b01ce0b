"""benchmarks/sweep_defaults.py --extra: numbers against an independent loop, the choice rule by hand,
the docs writers round-tripping (issue 14 item 5)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _bench import load_benchmark
from sklearn.metrics import f1_score

from mlviz.evaluation import multilabel_kfold

ROOT = Path(__file__).resolve().parents[1]


def _sweep():
    return load_benchmark("sweep_defaults")


def test_extra_sweep_equals_independent_loop():
    from mlviz.cli import build_estimator
    from mlviz.models import PCC

    sweep = _sweep()
    table = sweep.sweep_extra(["emotions"], ["pcc"], cv=2, max_rows=90, log=lambda *_: None)
    assert list(table["candidate"]) == [sweep._candidate_name(c) for c in sweep.EXTRA_CANDIDATES["pcc"]]
    X, Y = sweep._split_train("emotions", 90, 0)
    assert X.shape[0] <= 90 and table["n"].iloc[0] == X.shape[0]
    folds = multilabel_kfold(Y, 2, random_state=0)
    for cand, got in zip(sweep.EXTRA_CANDIDATES["pcc"], table["micro_f1"]):
        vals = []
        for tr, te in folds:
            est = build_estimator("pcc", scaling="auto", X=X, random_state=0)
            assert isinstance(est.steps[-1][1], PCC)
            est.set_params(**{f"model__{k}": v for k, v in cand.items()})
            vals.append(f1_score(Y[te], est.fit(X[tr], Y[tr]).predict(X[te]), average="micro", zero_division=1))
        assert got == pytest.approx(np.mean(vals), abs=1e-12)


def test_choose_extra_by_hand():
    """'a' has the best mean rank but loses 50 % on one set: not eligible; 'b' wins among the rest."""
    sweep = _sweep()
    rows = []
    for ds, scores in {"d1": {"a": 0.9, "b": 0.85, "c": 0.7}, "d2": {"a": 0.8, "b": 0.75, "c": 0.74},
                       "d3": {"a": 0.3, "b": 0.6, "c": 0.59}}.items():
        for cand, f1 in scores.items():
            rows.append({"dataset": ds, "n": 10, "method": "m", "candidate": cand, "micro_f1": f1,
                         "hamming_loss": 0.1, "p@1": 0.5, "fit_s": 0.0})
    # a second method where nothing is eligible: the best worst case wins
    for ds, scores in {"d1": {"x": 1.0, "y": 0.55}, "d2": {"x": 0.5, "y": 1.0}, "d3": {"x": 0.6, "y": 1.0}}.items():
        for cand, f1 in scores.items():
            rows.append({"dataset": ds, "n": 10, "method": "n", "candidate": cand, "micro_f1": f1,
                         "hamming_loss": 0.1, "p@1": 0.5, "fit_s": 0.0})
    t = pd.DataFrame(rows)
    t["rank"] = t.groupby(["dataset", "method"])["micro_f1"].rank(ascending=False, method="min")
    agg = sweep.choose_extra(t).set_index(["method", "candidate"])
    assert agg.loc[("m", "a"), "mean_rank"] == pytest.approx(5 / 3) and not agg.loc[("m", "a"), "eligible"]
    assert agg.loc[("m", "a"), "worst_ratio"] == pytest.approx(0.3 / 0.6)
    assert agg.loc[("m", "b"), "eligible"] and not agg.loc[("m", "c"), "eligible"]  # c: 0.7 / 0.9 < 0.9
    assert list(agg.index[agg.chosen]) == [("m", "b"), ("n", "y")]
    assert agg.loc[("n", "y"), "worst_ratio"] == pytest.approx(0.55) and agg.loc[("n", "x"), "worst_ratio"] == 0.5
    assert not agg.loc["n", "eligible"].any()


def test_extra_writers_round_trip(tmp_path, monkeypatch):
    sweep = _sweep()
    table = pd.DataFrame({"dataset": ["d1", "d1"], "n": [50, 50], "method": ["lp", "lp"], "candidate": ["C=1", "C=10"],
                          "micro_f1": [0.5, 0.6], "hamming_loss": [0.2, 0.1], "p@1": [0.7, 0.8],
                          "fit_s": [0.1, 0.2]})
    table["rank"] = [2.0, 1.0]
    csv = tmp_path / "r.csv"
    pd.DataFrame({"experiment": ["other"], "dataset": ["x"], "setting": ["s"], "method": ["m"], "measure": ["f"],
                  "ours": [1.0], "ours_std": [np.nan], "paper": [np.nan], "report_section": ["other"],
                  "quick": [False]}).to_csv(csv, index=False)
    for _ in range(2):
        sweep.write_csv_rows(sweep.extra_frame(table), sweep.EXTRA_SECTION, path=csv)
    back = sweep.table_from_csv(csv)
    assert len(pd.read_csv(csv)) == 1 + 2 * 4  # other row kept, 2 candidates x 4 measures, not duplicated
    pd.testing.assert_frame_equal(back.sort_values("candidate").reset_index(drop=True)[table.columns],
                                  table.sort_values("candidate").reset_index(drop=True), check_dtype=False)
    doc = tmp_path / "r.md"
    doc.write_text("# head\n\n<!-- experiment: other -->\n## keep me\n<!-- end: other -->\n")
    means = sweep.choose_extra(table)
    for _ in range(2):
        sweep.write_extra_section(table, means, "protocol", command="x", seconds=1.0, path=doc)
    text = doc.read_text()
    assert "## keep me" in text and text.count(f"<!-- experiment: {sweep.EXTRA_SECTION} -->") == 1
    assert "| lp | C=10 | 1.0 | 0.6000 |" in text and "**chosen**" in text


def test_every_section_of_the_reproductions_doc_has_its_rows_in_the_csv():
    """docs/reproductions.md and docs/reproductions.csv describe the same runs: every experiment
    section of the doc has rows in the CSV and no CSV row belongs to a section the doc lacks (the main
    defaults sweep's --write used to skip the CSV)."""
    import re

    doc = (ROOT / "docs" / "reproductions.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"<!-- experiment: ([a-z0-9-]+) -->", doc))
    csv = pd.read_csv(ROOT / "docs" / "reproductions.csv")
    assert sections and sections == set(csv["report_section"])
    assert set(csv["experiment"]) == sections
