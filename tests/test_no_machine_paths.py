"""No tracked file cites a path of a developer's machine or the team's folder beside the clone
(issue 29, item 2): a user's clone has neither, so code, pages, docs and tests must not point there."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# (written in pieces so that this file does not match itself)
FORBIDDEN = re.compile("|".join([
    r"/" + r"work/",                    # the developers' machine
    r"\.\./" + r"shared\b",             # the team folder beside the clone
    r"\b" + r"shared/(ANCHORS|CONVENTIONS|papers|datasets)",
    r"/" + r"home/[a-z]", r"/" + r"root/", r"/" + r"tmp/bash_jobs",
    r"[A-Z]:\\" + r"Users\\",
]))


def _tracked():
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout")
    return [ROOT / p for p in out.stdout.decode().split("\0") if p]


def test_no_tracked_file_cites_a_machine_path_or_the_team_folder():
    hits = []
    for path in _tracked():
        if not path.is_file() or path.suffix in {".gz", ".bz2", ".xz", ".npz", ".png", ".jpg", ".zip"}:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if FORBIDDEN.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:120]}")
    assert not hits, "\n".join(hits)


def test_the_pattern_catches_what_it_is_for():
    for bad in ["see /" + "work/" + "shared/" + "ANCHORS.md", "(`../" + "shared/" + "ANCHORS.md`)",
                "Lee & Shajari in shared/" + "papers", "cd /" + "work/wt/pagesdata"]:
        assert FORBIDDEN.search(bad), bad
    for fine in ["a shared link", "the shared figure widget", "mlviz/reproductions/references.py", "framework/x"]:
        assert not FORBIDDEN.search(fine), fine
