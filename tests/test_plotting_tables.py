

def test_wide_summary_and_rules_table_against_hand_built_frames():
    import numpy as np
    import pandas as pd

    from mlviz.plotting.tables import measure_label, rules_table, wide_summary

    summary = pd.DataFrame(dict(method=["A", "A", "ref"], measure=["micro_f1", "hamming_loss", "micro_f1"],
                                mean=[0.5, 0.2, 0.1], std=[0.01, np.nan, np.nan]))
    wide = wide_summary(summary)
    assert list(wide.index) == ["A", "ref"]
    assert list(wide.columns) == [measure_label("micro_f1"), measure_label("hamming_loss")]
    assert measure_label("micro_f1").endswith("↑") and measure_label("hamming_loss").endswith("↓")
    assert wide.loc["A"].tolist() == ["0.500 ± 0.010", "0.200"] and wide.loc["ref"].tolist() == ["0.100", "—"]
    res = pd.DataFrame(dict(method=["A", "A", "B"], decision_rule=["t", "t", "u"], scaling=["l2"] * 3,
                            tuned_params=["k=5", "k=10", ""], tune_seconds=[1.0, 3.0, np.nan]))
    rules = rules_table(res).set_index("method")
    assert rules.loc["A", "tuned (per fold)"] == "k=5 · k=10" and rules.loc["B", "tuned (per fold)"] == "—"
    assert rules.loc["A", "tuning s per fold (median)"] == 2.0
