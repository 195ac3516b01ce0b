"""The console examples of README.md and docs/teaching.md run, and print what the text next to them says.

The numbers are read from the documents themselves (the ``# 0.681`` comment, the "≈ 0.52" of the
teaching notes), so a default that moves a documented number fails here instead of leaving a false
sentence behind.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _blocks(path):
    return re.findall(r"```python\n(.*?)```", (ROOT / path).read_text(), re.S)


def _number(pattern, text):
    m = re.search(pattern, text, re.S)
    assert m, pattern
    return float(m.group(1))


def test_readme_library_example_prints_the_number_in_its_comment(capsys):
    block = _blocks("README.md")[0]
    exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    printed = float(capsys.readouterr().out.split()[0])
    assert printed == pytest.approx(_number(r'\["micro_f1"\]\)\s*#\s*(\d\.\d+)', block), abs=5e-4)


def test_teaching_examples_print_what_the_notes_say():
    text = (ROOT / "docs/teaching.md").read_text()
    planted, xor, rules = _blocks("docs/teaching.md")[:3]
    ns = {"__name__": "teaching"}
    exec(compile(planted.replace("print(", "recovery = ("), "teaching#0", "exec"), ns)
    assert "Expected: precision 1, recall 1" in text
    assert (ns["recovery"]["precision"], ns["recovery"]["recall"]) == (1.0, 1.0)

    exec(compile(xor.replace("print(", "xor_table = ("), "teaching#1", "exec"), ns)
    table = ns["xor_table"]
    assert table.loc["BR", "subset_accuracy"] == pytest.approx(
        _number(r"subset accuracy ≈ (\d\.\d+)\)", text), abs=0.005)
    assert table.loc["PCC joint mode", "subset_accuracy"] == pytest.approx(
        _number(r"never predicts an empty set \(≈ (\d\.\d+)\)", text), abs=0.005)
    assert 0.2 <= table.loc["BR", "empty_rate"] <= 0.3  # "no label for about a quarter of the rows"
    assert table.loc["PCC joint mode", "empty_rate"] == 0.0

    exec(compile(rules.replace("print(", "(") + "\nrules_table = table\n", "teaching#2", "exec"), ns)
    best = ns["rules_table"]
    assert best.loc["threshold", "param"] == pytest.approx(
        _number(r"best global threshold\s+for subset accuracy is (\d\.\d+)", text), abs=0.005)
    assert best.loc["scut", "subset_accuracy"] < best.loc["threshold", "subset_accuracy"]  # "loses subset accuracy"

    gain = ns["lspc_gamma_gain"]((4, 16)).set_index("T")  # "≈ 0 with 4 rotated labels ... ≈ 0.005 with 16"
    assert abs(gain.loc[4, "gain"]) <= 2 * gain.loc[4, "gain_std"]
    assert gain.loc[16, "gain"] == pytest.approx(_number(r"≈ (\d\.\d+) with 16", text), abs=0.0015)


def _slash_numbers(pattern, text):
    m = re.search(pattern, text, re.S)
    assert m, pattern
    return [float(x) for x in re.split(r"\s*/\s*", m.group(1).strip())]


def test_readme_where_mlviz_stands_is_the_recorded_reproduction():
    """The README's "Where mlviz stands" numbers are docs/reproductions.csv's best rows (what the Reference
    check page shows), at the README's three decimals."""
    from mlviz.reproductions import standard_splits as ss

    text = (ROOT / "README.md").read_text()
    frame = ss.recorded()
    assert frame is not None
    order = re.search(r"on\s+emotions / enron / scene / yeast", text)
    assert order
    for measure, pattern in (("micro_f1", r"best method reaches micro-F1 ([0-9./ ]+?) on\s+emotions"),
                             ("hamming_loss", r"Its Hamming loss \(([0-9./ ]+)\)")):
        sota = ss.state_of_the_art(frame, measure).set_index("dataset")
        ours = [round(float(sota.loc[d, "mlviz"]), 3) for d in ("emotions", "enron", "scene", "yeast")]
        assert _slash_numbers(pattern, text) == ours, measure
