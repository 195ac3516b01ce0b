"""The presenter checklist of docs/teaching.md says what the browser walk checks (issue 29): its
``hide=`` values are the URL schema's (:data:`mlviz.dashboard.urls.HIDE_GROUPS` and ``all``), in
order, each with what it hides; its report-pack step names every page of the registry; the
test and benchmark it cites exist."""

from __future__ import annotations

import re
from pathlib import Path

from mlviz.dashboard import present
from mlviz.dashboard.pages import PAGES
from mlviz.dashboard.urls import HIDE_GROUPS

ROOT = Path(__file__).resolve().parents[1]


def checklist():
    text = (ROOT / "docs" / "teaching.md").read_text(encoding="utf-8")
    start = text.index("## Presenter checklist")
    return text[start:text.index("\n## ", start + 1)]


def steps(section):
    """``{number: text}`` of the numbered steps."""
    parts = re.split(r"^(\d+)\. ", section, flags=re.M)
    return {int(parts[i]): parts[i + 1] for i in range(1, len(parts), 2)}


def test_the_checklist_lists_each_hide_value_of_the_schema():
    (hide,) = [t for t in steps(checklist()).values() if "hide=` value" in t.split("\n")[0]]
    listed = re.findall(r"^\s+- `([a-z]+)`: \S", hide, flags=re.M)
    assert listed == [*HIDE_GROUPS, "all"]
    assert set(HIDE_GROUPS) == set(present.GROUPS)


def test_the_report_pack_step_names_every_page():
    (pack,) = [t for t in steps(checklist()).values() if "report pack from every page" in t.lower()]
    names = [n.split(" (")[0].strip() for n in re.search(r"The pages: (.*?)\.\s*$", pack, re.S).group(1)
             .replace("\n", " ").split(", ")]
    titles = [p.title for p in PAGES]
    assert len(names) == len(titles) and all(t.startswith(n) for n, t in zip(names, titles)), (names, titles)


def test_the_checklist_walks_in_order_and_cites_files_that_exist():
    section = checklist()
    assert sorted(steps(section)) == [1, 2, 3, 4, 5]
    for path in re.findall(r"`((?:tests|benchmarks)/[\w/]+\.py)`", section):
        assert (ROOT / path).exists(), path
    assert "tests/e2e/test_presenter_checklist.py" in section
