"""The standard-protocol reproduction: our numbers are the library's, the published table is consistent."""

import numpy as np
import pandas as pd
import pytest

from mlviz.reproductions import standard_splits as ss


def test_quick_run_equals_a_hand_fit_on_the_standard_split():
    from mlviz.data import load_standard_split
    from mlviz.metrics import evaluate
    from mlviz.models import BinaryRelevance
    from mlviz.preprocessing import scale_split

    frame = ss.run(quick=True)
    train, test = load_standard_split("emotions")
    Xtr, Xte = scale_split(train.X, test.X)
    pred = BinaryRelevance(threshold=0.25).fit(Xtr, train.Y).predict(Xte)  # the registry default
    want = evaluate(test.Y, pred.astype(float), measures=["micro_f1", "hamming_loss"], y_pred=pred)
    br = frame[(frame.method == "BR-LR")].set_index("measure")
    assert br.loc["micro_f1", "ours"] == pytest.approx(want["micro_f1"], abs=1e-12)
    assert br.loc["hamming_loss", "ours"] == pytest.approx(want["hamming_loss"], abs=1e-12)
    proba = BinaryRelevance(threshold=0.25).fit(Xtr, train.Y).predict_proba(Xte)
    at_half = np.mean(np.asarray(test.Y) != (proba >= 0.5))  # Hamming loss's own rule, not BR-LR's 0.25
    assert br.loc["hamming_loss_p05", "ours"] == pytest.approx(at_half, abs=1e-12)
    assert at_half != pytest.approx(want["hamming_loss"])
    assert br.loc["micro_f1", "paper"] == 0.685  # like for like: the study's BR
    assert br.loc["hamming_loss_p05", "paper"] == br.loc["hamming_loss", "paper"] == 0.196
    best = frame[frame.method == "best of 26 (published)"].set_index("measure")
    ours = frame[frame.method != "best of 26 (published)"]
    assert best.loc["micro_f1", "ours"] == ours[ours.measure == "micro_f1"]["ours"].max()
    assert best.loc["hamming_loss", "ours"] == ours[ours.measure == "hamming_loss"]["ours"].min()
    assert best.loc["hamming_loss_p05", "ours"] == ours[ours.measure == "hamming_loss_p05"]["ours"].min()


def test_published_best_is_at_least_every_published_method():
    for name in ss.DATASETS:
        for i, measure in enumerate(ss.PUBLISHED_MEASURES):
            values = [row[i] for (d, m), row in ss.PUBLISHED.items() if d == name and m != "best of 26"]
            best = ss.PUBLISHED[(name, "best of 26")][i]
            assert best == (min(values) if measure in ss.LOWER_IS_BETTER else max(values)) or (
                best < min(values) if measure in ss.LOWER_IS_BETTER else best > max(values)), (name, measure)


def test_state_of_the_art_reads_the_best_rows():
    frame = pd.DataFrame([
        dict(dataset="emotions", method="best of 26 (published)", measure="hamming_loss", setting="mlviz's best: X",
             ours=0.18, paper=0.17),
        dict(dataset="emotions", method="X", measure="hamming_loss", setting="s", ours=0.18, paper=np.nan)])
    out = ss.state_of_the_art(frame, "hamming_loss").iloc[0]
    assert out["mlviz best"] == "X" and out["gap to best"] == pytest.approx(-0.01)
    assert out["RF-PCT (published)"] == 0.170


def test_recorded_reads_only_full_runs_and_takeaway_counts_gaps(tmp_path):
    rows = [dict(experiment="standard-splits", dataset=d, setting="mlviz's best: RF-PCT",
                 method="best of 26 (published)",
                 measure="micro_f1", ours=o, ours_std=np.nan, paper=p, report_section="standard-splits", quick=q)
            for d, o, p, q in (("emotions", 0.71, 0.719, False), ("enron", 0.61, 0.610, False),
                               ("scene", 0.9, 0.792, True))]
    path = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    frame = ss.recorded(path)
    assert list(frame["dataset"]) == ["emotions", "enron"]
    text = ss.takeaway(ss.state_of_the_art(frame))
    assert "reaches the published best of 26 methods on 1" in text and "0.009 micro-F1 on emotions" in text
    assert ss.recorded(tmp_path / "missing.csv") is None


def test_takeaway_of_a_lower_is_better_measure_counts_against_the_study():
    """Hamming loss: mlviz reaches a published value when its loss is not higher; the counts and the largest
    gap against a hand count of the rows (RF-PCT's values from the study's table)."""
    rows = [dict(dataset=d, method="best of 26 (published)", measure="hamming_loss",
                 setting=f"mlviz's best: {m}", ours=o, paper=ss.published(d, "best of 26", "hamming_loss"))
            for d, m, o in (("emotions", "MT-LSPC", 0.184), ("enron", "LSPC", 0.044), ("scene", "RAkEL", 0.0793),
                            ("yeast", "CLR", 0.1907))]
    sota = ss.state_of_the_art(pd.DataFrame(rows), "hamming_loss")
    best = {d: ss.published(d, "best of 26", "hamming_loss") for d in ss.DATASETS}
    rf = {d: ss.published(d, "RF-PCT", "hamming_loss") for d in ss.DATASETS}
    ours = {r["dataset"]: r["ours"] for r in rows}
    n_best = sum(ours[d] <= best[d] for d in ours)
    n_rf = sum(ours[d] <= rf[d] for d in ours)
    worst = max(ours, key=lambda d: ours[d] - best[d])
    text = ss.takeaway(sota, "hamming_loss")
    assert (n_best, n_rf, worst) == (2, 3, "emotions")  # the hand count (study: best .170/.049/.077/.193)
    assert f"best of 26 methods on {n_best} in Hamming loss" in text and f"Hamming loss on {n_rf}" in text
    assert f"{ours[worst] - best[worst]:.3f} Hamming loss on {worst} (0.184, higher than 0.170)" in text


def test_protocol_split_is_the_standard_files_else_the_seeded_split():
    from mlviz.data import load_protocol_split, load_sample_split, load_standard_split

    for got, want in ((load_protocol_split("yeast"), load_standard_split("yeast")),
                      (load_protocol_split("medical", random_state=3), load_sample_split("medical", random_state=3))):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(np.asarray(g.Y), np.asarray(w.Y))
            assert (abs(g.X - w.X)).max() == 0


def test_beside_published_pairs_each_reported_method_with_the_study_row():
    summary = pd.DataFrame([dict(method="BR-LR", measure="micro_f1", mean=0.70),
                            dict(method="BR-LR", measure="hamming_loss", mean=0.20),
                            dict(method="ML-LSPC", measure="micro_f1", mean=0.71),
                            dict(method="RF-PCT", measure="subset_accuracy", mean=0.30)])
    out = ss.beside_published(summary, "yeast", {"BR-LR": "br", "ML-LSPC": "mllspc", "RF-PCT": "rf-pct"})
    assert list(out["method"]) == ["BR-LR", "RF-PCT"] and list(out["published as"]) == ["BR", "RF-PCT"]
    br, rf = out.iloc[0], out.iloc[1]
    assert (br["micro-F1 (ours)"], br["micro-F1 (published)"]) == (0.70, 0.601)  # the study's table, yeast
    assert (br["Hamming loss (ours)"], br["Hamming loss (published)"]) == (0.20, 0.241)
    assert np.isnan(br["subset accuracy (ours)"]) and br["subset accuracy (published)"] == 0.144
    assert (rf["subset accuracy (ours)"], rf["subset accuracy (published)"]) == (0.30, 0.181)
    assert ss.beside_published(summary, "yeast", {"ML-LSPC": "mllspc"}).empty
    # shown ours to 4 decimals, the study's to the 3 it publishes (both tables' columns)
    assert {c: ss.column_digits(c) for c in out.columns if c.endswith(")") and "F1" in c} == {
        "micro-F1 (ours)": 4, "micro-F1 (published)": 3}
    assert [ss.column_digits(c) for c in ("mlviz", "published best", "RF-PCT (published)", "gap to best")] == [
        4, 3, 3, 4]


def test_identify_recognises_the_standard_files_only():
    from mlviz.data import load_sample_split, load_standard_split
    from mlviz.data.dataset import MultiLabelDataset

    train, test = load_standard_split("yeast")
    assert ss.identify(train, test) == "yeast"
    assert ss.identify(test, train) is None  # the halves swapped
    X = np.array(train.X, dtype=float, copy=True)
    X[7, 3] += 1e-9  # one value changed
    changed = MultiLabelDataset(X=X, Y=train.Y, feature_names=train.feature_names, label_names=train.label_names,
                                name=train.name)
    assert ss.identify(changed, test) is None
    assert ss.identify(*load_sample_split("emotions")) is None  # the seeded split of the whole file
    assert all(ss._SHAPES[n] == (a.n_samples, b.n_samples, a.n_features, a.n_labels)
               for n in ss.DATASETS for a, b in [load_standard_split(n)])


@pytest.mark.parametrize("key", ["mllspc", "br", "mlknn", "lp", "mllem", "klr", "cc", "cdn"])
def test_a_pages_numbers_at_the_defaults_are_the_reproductions(key):
    """The Posteriors page (the dashboard's sliders at their defaults, its split and scaling) and
    ``mlviz reproduce standard-splits`` (the registry's make(), the standard files) reach the same test
    predictions on emotions, so the page's numbers are the ones docs/reproductions.md cites."""
    from mlviz.dashboard import compute
    from mlviz.dashboard.context import sample_context
    from mlviz.dashboard.methods import METHODS as PAGE_METHODS
    from mlviz.data import load_standard_split
    from mlviz.metrics import evaluate
    from mlviz.models.registry import METHODS
    from mlviz.preprocessing import scale_split

    ctx = sample_context("emotions")
    m = PAGE_METHODS[key]
    page, _ = compute.report(ctx, m, m.defaults()).result(timeout=120)
    train, test = load_standard_split("emotions")
    X_train, X_test = scale_split(train.X, test.X)
    ours, _ = ss._scores(METHODS[key], X_train, np.asarray(train.Y), X_test, np.asarray(test.Y), 0)
    shown = evaluate(ctx.Y_test, page["P"], measures=list(ss.MEASURES), y_pred=page["pred"])
    for measure in ss.MEASURES:
        assert shown[measure] == pytest.approx(ours[measure], abs=1e-9), measure
