"""Offline HTML export, safe numeric CSV tables and number formatting (mlviz.plotting)."""

import html as _html
import io
import json
import re
import subprocess

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from mlviz import plotting as mp
from mlviz.plotting import format as fmt
from mlviz.plotting import tables

HOSTILE = ["[t](https://x.example)", '<a href="https://x.example">y</a>', "=HYPERLINK(\"https://x\")",
           "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "<img src=https://x.example/i.png>"]

# A URL a browser would fetch: an attribute (src/href/action/poster/data) or a CSS url()/@import.
_FETCH = re.compile(r"""(?:\b(?:src|href|action|poster|data|srcset)\s*=\s*["']?\s*(?:https?:)?//)"""
                    r"""|url\(\s*["']?\s*(?:https?:)?//|@import\s+["']?(?:https?:)?//""", re.I)


def _outside_scripts(page):
    """The page without the text of its inline <script> elements (plotly.js contains URL
    strings for map tiles it only loads for map traces)."""
    return re.sub(r"(<script\b[^>]*>).*?(</script>)", r"\1\2", page, flags=re.S | re.I)


def _hostile_figure():
    return mp.label_frequency_bar(HOSTILE, np.arange(len(HOSTILE)) + 1, title=HOSTILE[1], sort=False)


def test_html_export_embeds_plotlyjs_and_fetches_nothing():
    page = mp.figure_to_html(_hostile_figure())
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8" />' in page
    assert len(page) > 3_000_000                      # plotly.js is inside (~4.8 MB)
    assert "cdn.plot.ly/plotly" not in page
    shell = _outside_scripts(page)
    assert not re.search(r"<script\b[^>]*\bsrc\s*=", shell, re.I)
    assert not re.search(r"<link\b", shell, re.I)
    assert not _FETCH.search(shell), _FETCH.search(shell)
    # The figure JSON holds the hostile names only as escaped text
    start = page.index("Plotly.newPlot(")
    dec = json.JSONDecoder()
    pos = page.index("[", start)
    data, end = dec.raw_decode(page, pos)
    layout, _ = dec.raw_decode(page, page.index("{", end))
    text = json.dumps([data, layout])
    assert "<a " not in text and "<img" not in text
    assert data[0]["x"][1] == "&lt;a href=&quot;https://x.example&quot;&gt;y&lt;/a&gt;"
    assert layout["title"]["text"] == data[0]["x"][1]
    assert "<title>&lt;a href=&quot;https://x.example&quot;&gt;y&lt;/a&gt;</title>" in page
    small = mp.figure_to_html(_hostile_figure(), include_plotlyjs="cdn")
    assert len(small) < 100_000 and "cdn.plot.ly" in small


@pytest.mark.skipif(mp.find_chromium() is None, reason="no Chrome/Chromium")
def test_html_export_renders_offline_in_chromium(tmp_path):
    """Opened with every host name unresolvable, the exported page draws its traces and
    the page itself requests no resource (performance entries of type 'resource')."""
    page = mp.figure_to_html(mp.convergence_figure([3.0, 2.0, 1.5, 1.0]))
    probe = ("<script>window.addEventListener('load',function(){setTimeout(function(){"
             "document.body.setAttribute('data-resources',JSON.stringify("
             "performance.getEntriesByType('resource').map(function(e){return e.name})));},300)});</script>")
    path = tmp_path / "figure.html"
    path.write_text(page.replace("</body>", probe + "</body>"), encoding="utf-8")
    cmd = [mp.find_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={tmp_path / 'profile'}",
           "--virtual-time-budget=5000", "--dump-dom", path.as_uri()]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    assert len(re.findall(r'class="trace scatter', dom)) == 2       # both traces drawn
    res = re.search(r'data-resources="([^"]*)"', dom)
    assert res is not None and json.loads(_html.unescape(res.group(1))) == []


# ---------------------------------------------------------------- CSV tables
def _cv():
    rows = []
    for m, base in (("ML-LSPC", 0.2), ("=HYPERLINK(1)", 0.3)):
        for f in range(3):
            for meas in ("hamming_loss", "micro_f1"):
                rows.append(dict(method=m, fold=f, measure=meas, value=base + 0.01 * f,
                                 fit_seconds=10.0 ** f, predict_seconds=0.1 * (f + 1)))
    rows.append(dict(method="X", fold=0, measure="error: boom", value=np.nan,
                     fit_seconds=np.nan, predict_seconds=np.nan))
    return pd.DataFrame(rows)


def test_summary_table_is_numeric_and_csv_is_safe():
    s = tables.summary_table(_cv())
    assert list(s.columns) == ["method", "measure", "measure_name", "higher_is_better", "mean", "std", "n_folds"]
    assert s["mean"].dtype == float and s["std"].dtype == float and s["n_folds"].dtype == np.int64
    row = s[(s.method == "ML-LSPC") & (s.measure == "hamming_loss")].iloc[0]
    assert row["mean"] == pytest.approx(0.21) and row["std"] == pytest.approx(0.01)
    assert row["measure_name"] == "Hamming loss" and row["higher_is_better"] is False
    assert "X" not in set(s.method)                              # error rows dropped
    back = pd.read_csv(io.BytesIO(tables.to_csv_bytes(s)))
    assert back["mean"].dtype == float and back["n_folds"].dtype == np.int64
    np.testing.assert_allclose(back["mean"], s["mean"])
    assert "'=HYPERLINK(1)" in set(back.method)                  # neutralised, not a formula
    assert not any(str(v).startswith(("=", "+", "-", "@")) for v in back.method)


def test_timing_table_median_and_quartiles():
    t = tables.timing_table(_cv())
    r = t[t.method == "ML-LSPC"].iloc[0]
    # one fit time per fold (repeated on each measure row): 1, 10, 100 s
    assert r["n_folds"] == 3
    assert (r["fit_median_s"], r["fit_q1_s"], r["fit_q3_s"]) == pytest.approx((10.0, 5.5, 55.0))
    assert r["predict_median_s"] == pytest.approx(0.2)


def test_edge_and_pair_tables_numeric_and_safe():
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 0.5), (1, 2, -2.0), (2, 2, 9.0), (0, 2, 0.0)])
    names = ["=a", "b", "@c"]
    e = tables.edge_table(G, names)
    assert list(e.source) == ["b", "=a"] and list(e.weight) == [-2.0, 0.5]
    back = pd.read_csv(io.BytesIO(tables.to_csv_bytes(e)))
    assert list(back.source) == ["b", "'=a"] and list(back.target) == ["'@c", "b"]
    assert back["weight"].tolist() == [-2.0, 0.5]
    C = np.array([[3, 2, 1], [2, 4, 0], [1, 0, 1]])
    p = tables.cooccurrence_pairs(C, names, min_count=1)
    assert p[["label_a", "label_b"]].values.tolist() == [["=a", "b"], ["=a", "@c"]]
    assert p["count"].tolist() == [2, 1] and p["jaccard"].tolist() == pytest.approx([2 / 5, 1 / 3])
    lt = tables.label_table(names, [3, 4, 1], n_samples=8)
    assert lt["fraction"].tolist() == pytest.approx([3 / 8, 0.5, 1 / 8])


# ---------------------------------------------------------------- formatting
def test_number_formatting_never_uses_e_notation_for_counts():
    assert fmt.format_count(2860.0) == "2,860" and fmt.format_count(2.86e3, thousands=False) == "2860"
    assert fmt.format_number(2860.0) == "2,860" and fmt.format_number(0.18437) == "0.184"
    assert fmt.format_number(1234.5678) == "1,235" and "e" not in fmt.format_number(98765.4)
    assert fmt.format_number(3.2e-7) == "3.2 × 10⁻⁷"
    assert fmt.format_shape((4930, 4930)) == "4930 × 4930"
    assert fmt.with_article(fmt.format_shape((4930, 4930))) == "a 4930 × 4930"
    assert [fmt.indefinite_article(s) for s in ("8 × 8", "11 labels", "18,000", "800", "1,800", "80,001")] \
        == ["an", "an", "an", "an", "a", "an"]
    assert [fmt.indefinite_article(s) for s in ("MLLEM", "F1", "CDN", "edge", "unit", "hour", "label")] \
        == ["an", "an", "a", "an", "a", "an", "a"]
    assert fmt.format_seconds(0.0123) == "12 ms" and fmt.format_seconds(186) == "3.1 min"
    assert fmt.plural(1, "label") == "1 label" and fmt.plural(2860, "label set") == "2,860 label sets"
    assert fmt.format_count(float("nan")) == "–"


def test_edge_table_from_a_matrix_equals_the_table_of_its_graph():
    """The sparse CDN's edge list is read from V (dense or sparse) without building the graph: the
    same table as from ``label_graph_``, ties (equal |w|) in the same order."""
    from mlviz.models import SparseCDN

    rng = np.random.default_rng(3)
    L = 40
    V = np.where(rng.random((L, L)) < 0.3, rng.choice([-0.5, 0.25, 0.5, 1.5], size=(L, L)), 0.0)
    V[np.arange(L), np.arange(L)] = 0.0
    V[2, 2] = 7.0  # a self-loop: skipped by both
    names = [f"=l{j}" if j % 7 == 0 else f"label {j}" for j in range(L)]
    reference = tables.edge_table(SparseCDN._make_graph(V), names)
    assert len(reference) == np.count_nonzero(V) - 1
    for M in (V, sp.csr_matrix(V), sp.csc_matrix(V)):
        pd.testing.assert_frame_equal(tables.edge_table(M, names), reference)
    assert tables.to_csv_bytes(tables.edge_table(V, names)) == tables.to_csv_bytes(reference)
    assert tables.edge_table(np.zeros((3, 3)), names[:3]).empty
