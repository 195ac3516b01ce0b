"""Reference check (mlviz.reproductions.reference): quick variant and the bookkeeping."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlviz.reproductions import COLUMNS, get_experiment
from mlviz.reproductions import reference as ref


def test_quick_reference_check_on_emotions_is_within_band():
    frame = ref.reference_check(("emotions",), methods=("BR-LR", "ML-kNN"))
    checked = frame[frame["published"].notna()]
    # every fixed-split emotions number for BR-LR (6) and ML-kNN (3) is compared
    assert len(checked) == 9
    assert set(checked["measure"]) >= {"macro_f1_zero_division_0", "micro_f1", "p@1"}
    assert (checked["status"] == "within band").all(), checked[["method", "measure", "diff"]]
    assert (frame.loc[frame["published"].isna(), "status"] == "no reference number").all()
    assert (checked["source"] == ref.SOURCES["fixed-split"].short).all()
    assert (checked["protocol"] == "fixed-split").all()


def test_macro_f1_conventions_differ_only_on_labels_absent_from_truth_and_prediction():
    from mlviz.metrics import evaluate
    Y = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0]])
    Yp = np.array([[1, 0, 0], [1, 1, 0], [1, 0, 0]])
    mulan = evaluate(Y, Yp, measures=["macro_f1"], y_pred=Yp)["macro_f1"]
    # label 3: nothing true, nothing predicted -> 1 (Mulan) or 0 (scikit-learn zero_division=0)
    f = [2 * 2 / (3 + 2), 2 * 1 / (1 + 2)]
    assert mulan == pytest.approx((f[0] + f[1] + 1) / 3)
    assert ref._macro_f1_zero_division_0(Y, Yp) == pytest.approx((f[0] + f[1] + 0) / 3)


def test_status_flags_an_offset():
    row = pd.Series(dict(protocol="fixed-split", measure="micro_f1", ours=0.65, published=0.64,
                         ours_std=np.nan, n_runs=1))
    row["band"] = ref._band(row)
    assert ref._status(row) == "off by +0.01"
    t5 = pd.Series(dict(protocol="MLRH-T5", measure="exact_match_pct", ours=34.0, ours_std=4.0,
                        n_runs=5, published=33.2))
    t5["band"] = ref._band(t5)
    assert t5["band"] == pytest.approx(2 * 4.0 / np.sqrt(5) + 0.005)
    assert ref._status(t5) == "within band"


def test_every_reference_is_cited_by_a_paper_or_an_in_repository_script():
    from mlviz.reproductions import references as reg

    root = Path(__file__).resolve().parents[1]
    assert {r.protocol for r in reg.REFERENCES} == set(reg.SOURCES) == set(ref.PROTOCOLS)
    for r in reg.REFERENCES:
        src = reg.SOURCES[r.protocol]
        assert r.dataset in ref.PROTOCOLS[r.protocol]
        if src.kind == "published":
            assert re.search(r"Table \d", src.citation) and "cross-validation" in src.citation
        else:
            assert src.kind == "measured"
            script = src.reproduce.split()[1]
            assert (root / script).is_file() and script in src.citation and script in src.short


def test_the_measured_references_are_what_the_script_measures_with_scikit_learn():
    """benchmarks/reference_numbers.py (scikit-learn only) reproduces every fixed-split number of the registry
    on emotions and scene to the digits given (+ 0.0005, the stated band)."""
    from _bench import load_benchmark

    from mlviz.reproductions import references as reg

    script = load_benchmark("reference_numbers")
    for ds in ("emotions", "scene"):
        measured = script.measure(ds)
        refs = [r for r in reg.REFERENCES if r.protocol == "fixed-split" and r.dataset == ds]
        assert len(refs) == 9
        for r in refs:
            assert abs(measured[(r.method, r.measure)] - r.value) <= reg.rounding_of(r.text) + 0.0005, r
    assert reg.rounding_of(".0505") == pytest.approx(5e-5) and reg.rounding_of("33.20") == pytest.approx(0.005)


def test_registered_as_a_reproduction_with_the_standard_columns(monkeypatch):
    with pytest.raises(ValueError, match="Unknown protocol"):
        ref.reference_check(protocols=("nope",))
    with pytest.raises(ValueError, match="No protocol covers"):
        ref.reference_check(("yeast",), ("MLRH-T5",))
    monkeypatch.setattr(ref, "reference_check", lambda *a, **k: pd.DataFrame([dict(
        protocol="fixed-split", dataset="emotions", method="BR-LR", measure="micro_f1", ours=0.64,
        ours_std=np.nan, n_runs=1, published=0.64, band=0.001, diff=0.0, status="within band",
        source="x")]))
    out = get_experiment("reference-check").run(quick=True)
    assert list(out.columns) == COLUMNS and out.loc[0, "paper"] == 0.64
