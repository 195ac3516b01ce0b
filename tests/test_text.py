"""Untrusted-text helpers: shortening, escaping and CSV neutralisation."""

import numpy as np
import pandas as pd

from mlviz._text import csv_safe, csv_safe_cell, escape_html, escape_markdown, shorten


def test_shorten_caps_length_and_marks_the_cut():
    assert shorten("abc", 5) == "abc"
    out = shorten("x" * 10_000_000, 40)
    assert len(out) == 40 and out.endswith("…")
    assert shorten(12345, 3) == "12…"


def test_escape_markdown_leaves_no_markdown_syntax_unescaped():
    for hostile in ["[t](https://evil.example)", "![](https://evil.example/x.png)", "<b>x</b>", "**bold**",
                    ":red[x]", "$x^2$", "# head", "a\nb"]:
        out = escape_markdown(hostile)
        # every special character is preceded by a backslash
        for i, ch in enumerate(out):
            if ch in "[]()!<>*:$#/":
                assert out[i - 1] == "\\", (hostile, out)
        assert "\n" not in out


def test_escape_html_entities():
    assert escape_html("<a href='x'>&</a>") == "&lt;a href=&#x27;x&#x27;&gt;&amp;&lt;/a&gt;"


def test_csv_safe_neutralises_formulas_and_keeps_numbers():
    df = pd.DataFrame({"=name": ["=HYPERLINK(\"x\")", "+1", "-cmd", "@SUM", "\tx", "\rx", "ok"],
                       "v": [-1.0, 2.0, -3.0, 0.5, 1.0, 2.0, np.nan]})
    out = csv_safe(df)
    assert list(out.columns) == ["'=name", "v"]
    assert all(s.startswith("'") for s in out.iloc[:6, 0])
    assert out.iloc[6, 0] == "ok"
    assert out["v"].dtype == np.float64 and out["v"].iloc[0] == -1.0
    assert csv_safe_cell(-2) == -2
    assert df.iloc[0, 0].startswith("=")  # the input is not modified
