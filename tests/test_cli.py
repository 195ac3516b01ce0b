"""End-to-end tests of the ``mlviz`` command line (called in-process through ``main``)."""

import re
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mlviz.reproductions as reproductions
from mlviz import cli
from mlviz.evaluation import RESULT_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
EMOTIONS = str(ROOT / "sample_data" / "emotions.arff.gz")


@pytest.fixture(autouse=True)
def _no_bars(monkeypatch):
    monkeypatch.setenv("MLVIZ_NO_PROGRESS", "1")


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_describe_bundled_file_and_sample_name(capsys):
    code, out, _ = run(capsys, "describe", EMOTIONS)
    assert code == 0
    for stat, value in (("instances", "593"), ("features", "72"), ("labels", "6")):
        assert re.search(rf"^\s*{stat}\s+{value}$", out, re.M), stat
    assert "amazed-suprised" in out and "angry-aggresive" in out  # label names from the XML
    code, out, _ = run(capsys, "describe", "scene")
    assert code == 0 and "2,407" in out


def test_evaluate_two_methods_end_to_end(capsys, tmp_path):
    out_csv = tmp_path / "res.csv"
    code, out, _ = run(capsys, "evaluate", EMOTIONS, "--methods", "mlknn,br", "--cv", "2",
                       "--measures", "hamming_loss,micro_f1,macro_auc", "--out", str(out_csv),
                       "--random-state", "0")
    assert code == 0
    res = pd.read_csv(out_csv)
    refs = res[res["method"].str.startswith("ref: ")]
    res = res[~res["method"].str.startswith("ref: ")]
    assert list(res.columns) == RESULT_COLUMNS and len(res) == 2 * 2 * 3
    assert set(res["method"]) == {"mlknn", "br"} and res["value"].notna().all()
    # + the reference of the one requested measure it has (Hamming loss of predicting nothing), per fold
    assert list(refs["method"]) == ["ref: predict nothing"] * 2 and set(refs["measure"]) == {"hamming_loss"}
    # the printed summary is the mean ± std of the CSV
    m = res[(res.method == "br") & (res.measure == "micro_f1")]["value"]
    assert f"{m.mean():.3f} ± {m.std(ddof=1):.3f}" in out
    assert "Paired wilcoxon test against 'mlknn'" in out
    # micro-F1 of a sane model on emotions is far above chance
    assert res[res.measure == "micro_f1"]["value"].min() > 0.5


def test_evaluate_unavailable_method_reported_others_run(capsys, monkeypatch, tmp_path):
    from mlviz.models.registry import METHODS, MethodSpec

    monkeypatch.setitem(METHODS, "ghost", MethodSpec("ghost", "Ghost", "NoSuchModel", "no_such_family", "br",
                                                     "missing family"))
    code, out, err = run(capsys, "evaluate", EMOTIONS, "--methods", "ghost,mlknn", "--cv", "2",
                         "--measures", "micro_f1")
    assert code == 0
    assert "method 'ghost' (NoSuchModel) is not available" in err
    assert "mlknn" in out and "ghost" not in out
    code, out, _ = run(capsys, "evaluate", EMOTIONS, "--methods", "mlknn", "--cv", "2",
                       "--measures", "subset_accuracy", "--threshold", "predict")
    assert code == 0 and "subset_accuracy" in out
    code, _, err = run(capsys, "evaluate", EMOTIONS, "--methods", "ghost", "--cv", "2")
    assert code == 2 and "none of the requested methods is available" in err


@pytest.mark.parametrize("argv, message", [
    (["describe", "no/such/file.arff"], "no such file"),
    (["evaluate", EMOTIONS, "--methods", "br,nope"], "unknown method(s) 'nope'"),
    (["evaluate", EMOTIONS, "--cv", "x"], "invalid int value"),
    (["evaluate", EMOTIONS, "--cv", "1"], "--cv must be at least 2"),
    (["evaluate", EMOTIONS, "--measures", "f7"], "Unknown measure 'f7'"),
    (["evaluate", EMOTIONS, "--bogus"], "unrecognized arguments"),
    (["evaluate", EMOTIONS, "--threshold", "1.5"], "expected a number in [0, 1] or 'predict'"),
    (["reproduce", "everything"], "invalid choice"),
    (["frobnicate"], "invalid choice"),
    ([], "required"),
])
def test_usage_errors_exit_2_without_traceback(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err


def test_data_error_is_reported_cleanly(capsys, tmp_path):
    bad = tmp_path / "bad.arff"
    bad.write_text("@relation x\n@attribute a numeric\n@data\n1,2,3\n")
    code, _, err = run(capsys, "describe", str(bad), "--labels", "1")
    assert code == 2 and "cannot read" in err and "bad.arff" in err
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    code, _, err = run(capsys, "evaluate", str(empty))
    assert code == 2 and "cannot read" in err


def _fake_experiment(name, values, paper):
    def run_experiment(quick=False, random_state=0, progress=None):
        if progress is not None:
            progress(0, 1)
            progress(1, 1)
        return pd.DataFrame({
            "experiment": name, "dataset": "toy", "setting": "quick" if quick else "full",
            "method": ["A", "B"], "measure": "micro_f1", "ours": values, "ours_std": [0.01, np.nan],
            "paper": paper,
        })

    return types.SimpleNamespace(TITLE=f"Fake {name}", PROTOCOL=f"Protocol of {name}.", run=run_experiment)


def test_reproduce_merges_sections_and_handles_missing(capsys, monkeypatch, tmp_path):
    fakes = {"lspc-toy": _fake_experiment("lspc-toy", [0.5, 0.6], [0.55, np.nan]),
             "mlrh-table": _fake_experiment("mlrh-table", [0.7, 0.8], [np.nan, 0.75])}

    def get_experiment(name):
        if name in fakes:
            return fakes[name]
        raise ModuleNotFoundError(f"No module named 'mlviz.reproductions.{name}'")

    monkeypatch.setattr(reproductions, "get_experiment", get_experiment)
    monkeypatch.chdir(tmp_path)
    out_dir = tmp_path / "report"
    code, out, err = run(capsys, "reproduce", "lspc-toy", "cdn-tables", "--quick", "--out-dir", str(out_dir))
    assert code == 0
    assert "'cdn-tables' is not available yet" in err
    assert "0.5 ± 0.01" in out and "0.55" in out and "-0.05" in out  # ours beside paper
    md = (out_dir / "reproductions.md").read_text()
    assert "mlviz reproduce lspc-toy cdn-tables --quick --out-dir" in md
    assert "## Fake lspc-toy" in md and "Protocol of lspc-toy." in md
    assert "| toy | quick | A | micro_f1 | 0.5 ± 0.01 | 0.55 | -0.05 |" in md
    # a second run of another experiment keeps the first section; a rerun replaces its own
    assert run(capsys, "reproduce", "mlrh-table", "--out-dir", str(out_dir))[0] == 0
    fakes["lspc-toy"] = _fake_experiment("lspc-toy", [0.9, 0.6], [0.55, np.nan])
    assert run(capsys, "reproduce", "lspc-toy", "--out-dir", str(out_dir))[0] == 0
    md = (out_dir / "reproductions.md").read_text()
    assert md.count("## Fake lspc-toy") == 1 and md.count("## Fake mlrh-table") == 1
    assert md.index("## Fake lspc-toy") < md.index("## Fake mlrh-table")  # registry order
    assert "| toy | full | A | micro_f1 | 0.9 ± 0.01 |" in md and "0.5 ± 0.01" not in md
    csv = pd.read_csv(out_dir / "reproductions.csv")
    assert list(csv.columns[:8]) == reproductions.COLUMNS
    assert sorted(csv["ours"]) == [0.6, 0.7, 0.8, 0.9]
    # a quick run without --out-dir writes nothing (never overwrites the full report)
    assert run(capsys, "reproduce", "lspc-toy", "--quick")[0] == 0
    assert not (tmp_path / "docs").exists()
    # nothing ran -> exit code 1; a crashing experiment -> reported, exit code 1
    code, _, err = run(capsys, "reproduce", "cdn-tables", "--quick")
    assert code == 1 and "no experiment ran" in err

    def boom(**kwargs):
        raise RuntimeError("solver exploded")

    fakes["lspc-toy"] = types.SimpleNamespace(TITLE="x", PROTOCOL="", run=boom)
    code, _, err = run(capsys, "reproduce", "lspc-toy", "mlrh-table", "--quick")
    assert code == 1 and "failed: RuntimeError: solver exploded" in err


def test_reproduce_runs_on_one_blas_thread(capsys, monkeypatch, tmp_path):
    """The tables must not depend on the core count: every experiment runs with BLAS pinned, and the
    report says so."""
    from threadpoolctl import threadpool_info

    seen = []
    fake = _fake_experiment("lspc-toy", [0.5, 0.6], [0.55, np.nan])
    inner = fake.run

    def run_experiment(**kwargs):
        seen.extend(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")
        return inner(**kwargs)

    fake.run = run_experiment
    monkeypatch.setattr(reproductions, "get_experiment", lambda name: fake)
    assert run(capsys, "reproduce", "lspc-toy", "--out-dir", str(tmp_path))[0] == 0
    assert seen and set(seen) == {reproductions.REPRODUCE_BLAS_THREADS} == {1}
    assert "BLAS pinned to 1 thread" in (tmp_path / "reproductions.md").read_text()


def test_help_exits_zero(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "reproduce" in out and "evaluate" in out


def test_reproduce_real_quick_experiment(capsys, tmp_path):
    module = pytest.importorskip("mlviz.reproductions.lspc_toy")
    code, out, _ = run(capsys, "reproduce", "lspc-toy", "--quick", "--out-dir", str(tmp_path))
    assert code == 0
    md = (tmp_path / "reproductions.md").read_text()
    assert f"## {module.TITLE}" in md and "quick (reduced protocol) run" in md
    csv = pd.read_csv(tmp_path / "reproductions.csv")
    assert list(csv.columns[:8]) == reproductions.COLUMNS and len(csv) > 0
    assert csv["ours"].notna().all() and (csv["report_section"] == "lspc-toy").all()
    assert module.TITLE in out
    # the findings follow the table, and the same text comes back from the CSV rows alone
    assert "**Against the paper**" in md and module.findings(csv) in md and module.findings(csv) in out


# ------------------------------------------------------------- session 5: issue 14/15 CLI items
@pytest.fixture
def emotions_arff(tmp_path):
    import gzip

    path = tmp_path / "emo.arff"  # no sibling XML: labels must come from --labels
    path.write_bytes(gzip.decompress(Path(EMOTIONS).read_bytes()))
    return str(path)


def test_labels_negative_count_means_last_attributes(capsys, emotions_arff):
    code, out, _ = run(capsys, "describe", emotions_arff, "--labels", "-6")
    assert code == 0 and re.search(r"^\s*labels\s+6$", out, re.M) and re.search(r"^\s*features\s+72$", out, re.M)
    assert "amazed-suprised" in out  # emotions' labels are its last six attributes
    code, _, err = run(capsys, "describe", emotions_arff, "--labels", "2")  # the first two: numeric features
    assert code == 2 and "label 'Mean_Acc1298_Mean_Mem40_Centroid'" in err and "expected 0 or 1" in err
    code, _, err = run(capsys, "describe", emotions_arff, "--labels", "0")
    assert code == 2 and "non-zero" in err


def test_errors_are_short_and_name_the_file_once(capsys, emotions_arff):
    many = ",".join(f"tag{i}" for i in range(662))
    code, _, err = run(capsys, "describe", emotions_arff, "--labels", many)
    assert code == 2 and len(err.strip()) <= 400 and err.count("emo.arff") == 1
    assert "tag0" in err
    code, _, err = run(capsys, "evaluate", emotions_arff, "--scaling", "z" * 5000)  # argparse's own error
    assert code == 2 and "invalid choice" in err and len(err.splitlines()[-1]) <= 400
    code, _, err = run(capsys, "evaluate", emotions_arff, "--methods", ",".join(f"m{i}" for i in range(662)))
    assert code == 2 and "unknown method(s)" in err and len(err.strip()) <= 400
    code, _, err = run(capsys, "describe", emotions_arff, "--labels", "9999")
    assert code == 2 and len(err.strip()) <= 400 and err.count("emo.arff") == 1


def test_describe_shows_loader_notes(capsys):
    code, out, _ = run(capsys, "describe", EMOTIONS)
    assert code == 0 and "Loader notes:" in out and "emotions.xml" in out.split("Loader notes:")[1]


def test_cdn_variants_reachable():
    for name, variant in (("cdn", "sparse"), ("cdn-lr", "lr"), ("cdn-cdn", "cdn"), ("cdn-l1", "l1-cdn"),
                          ("cdn-l21", "l21-lr")):
        assert cli.build_estimator(name).variant == variant


def test_scaling_choices_match_the_library():
    from mlviz.preprocessing import SCALINGS

    assert cli.SCALING_CHOICES == list(SCALINGS)


def test_evaluate_reports_rule_scaling_and_tuning(capsys, tmp_path):
    out_csv = tmp_path / "r.csv"
    code, out, _ = run(capsys, "evaluate", EMOTIONS, "--methods", "mlknn", "--cv", "2", "--measures",
                       "micro_f1", "--scaling", "l2", "--tune", "--inner-cv", "2", "--out", str(out_csv))
    assert code == 0
    res = pd.read_csv(out_csv, keep_default_na=False)
    assert not res["method"].str.startswith("ref: ").any()  # no reference has micro-F1
    assert set(res["scaling"]) == {"l2"} and res["tuned_params"].str.fullmatch(
        r"k=(3|5|10|20|30)(, threshold=(0\.\d+|per label .+))?").all()
    table = out.split("How the numbers were made (per method):")[1].split("micro_f1")[0]

    # the rule shown is the tuned model's: a tuned threshold on the posterior, or ML-kNN's own 0.5
    rules = {f"threshold {t} (tuned by inner CV) on the ML-kNN posterior" for t in
             res["tuned_params"].str.extract(r"threshold=(.+)$")[0].dropna()}
    rules |= {"threshold 0.5 on the ML-kNN posterior"} if (~res["tuned_params"].str.contains("threshold")).any() \
        else set()
    assert "l2" in table and any(r in table for r in rules) and "tuning s/fold" in table
    assert "tuned by 2-fold inner CV" in out
    code, out, _ = run(capsys, "evaluate", EMOTIONS, "--methods", "mlknn", "--cv", "2", "--measures",
                       "micro_f1")
    # auto on dense features
    assert code == 0 and "standard" in out.split("How the numbers were made (per method):")[1].split("micro_f1")[0]


def test_evaluate_shows_the_trivial_references_and_notes_methods_below_them(capsys, tmp_path):
    """Reference rows equal the independently computed frequency ranking / empty prediction per fold;
    a method forced below them (LP-LR with P@1 below the frequency ranking, here by reversing its scores)
    gets a footnote naming the bar and the reason."""
    from mlviz.data import load_sample
    from mlviz.evaluation import multilabel_kfold
    from mlviz.models import LabelPowerset

    original = LabelPowerset.predict_proba
    with pytest.MonkeyPatch.context() as mp:  # a broken ranking: 1 - p puts the likeliest label last
        mp.setattr(LabelPowerset, "predict_proba", lambda self, X: 1.0 - original(self, X))
        out_csv = tmp_path / "r.csv"
        code, out, _ = run(capsys, "evaluate", "emotions", "--methods", "br,lp", "--cv", "3", "--measures",
                           "p@1,hamming_loss,subset_accuracy", "--out", str(out_csv))
    assert code == 0
    Y = np.asarray(load_sample("emotions").Y)
    folds = multilabel_kfold(Y, 3, random_state=0)
    freq_p1, empty_hl, empty_sa = [], [], []
    for train, test in folds:  # independent: numpy on the same folds
        top = np.argmax(Y[train].sum(axis=0))
        labelled = Y[test][Y[test].sum(axis=1) > 0]
        freq_p1.append(labelled[:, top].mean())
        empty_hl.append(Y[test].mean())
        empty_sa.append((Y[test].sum(axis=1) == 0).mean())
    res = pd.read_csv(out_csv, keep_default_na=False)
    got = res[res.method == "ref: rank by training frequency"]
    np.testing.assert_allclose(got["value"], freq_p1, rtol=0, atol=1e-15)
    got = res[res.method == "ref: predict nothing"].set_index(["measure", "fold"])["value"]
    np.testing.assert_allclose(got["hamming_loss"], empty_hl, rtol=0, atol=1e-15)
    np.testing.assert_allclose(got["subset_accuracy"], empty_sa, rtol=0, atol=1e-15)
    table = out.split("How the numbers were made")[1]
    assert re.search(rf"ref: rank by training frequency\s+{np.mean(freq_p1):.3f} ± {np.std(freq_p1, ddof=1):.3f}",
                     table)
    assert re.search(rf"ref: predict nothing\s+—\s+{np.mean(empty_hl):.3f} ± ", table)
    lp = res[(res.method == "lp") & (res.measure == "p@1")]["value"].mean()
    assert lp < np.mean(freq_p1)
    (note,) = [line for line in out.splitlines() if line.startswith("[1] lp:")]
    assert (f"P@1 {lp:.3f} is below ranking labels by their training frequency ({np.mean(freq_p1):.3f})"
            in note)
    assert "LP-LR predicts only label sets seen in training" in note
    assert not any(line.startswith("[2]") or line.startswith("[1] br") for line in out.splitlines())
    assert re.search(rf"^lp \[1\]\s+{lp:.3f} ± ", out, re.M)  # the number carries the footnote's mark


def test_evaluate_states_the_rule_and_scaling_of_a_number_threshold(capsys):
    """With --threshold 0.5 every method's numbers come from that threshold on its predict_proba, and the
    per-method table says so (next to the scaling that was fitted)."""
    code, out, _ = run(capsys, "evaluate", EMOTIONS, "--methods", "br,mlknn", "--cv", "2", "--measures",
                       "micro_f1", "--threshold", "0.5", "--scaling", "maxabs")
    assert code == 0
    table = out.split("How the numbers were made (per method):")[1].split("micro_f1")[0]
    rows = {line.split()[0]: line for line in table.splitlines() if line.strip()[:2] in ("br", "ml")}
    assert set(rows) == {"br", "mlknn"}
    for line in rows.values():
        assert re.search(r"threshold 0\.5 on predict_proba\s+maxabs$", line), line
