"""The legibility check of issue 29 over every figure builder at 6, 53, 174 and 983 labels: no raw
entity or markup in any drawn text, at most ~50 names written per axis or text trace, and a figure
that writes fewer names than it has says so (an axis title, subtitle or note mentions hovering)."""

from __future__ import annotations

import html
import re

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from mlviz import plotting as mp
from mlviz.plotting import graph as mgraph
from mlviz.plotting import linked as mlinked
from mlviz.plotting import upset
from mlviz.plotting.legibility import drawn_strings, names_written

MAX_NAMES = 60  # "at most ~50": the label axes write every k-th name with k = ceil(n / 50)
ENTITY = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);")
MARKUP = re.compile(r"<(?!/?(b|br|i|sup|sub|extra|span)\b)[a-zA-Z/]")


def _data(L, n=300, seed=0):
    rng = np.random.default_rng(seed)
    freq = np.clip(0.5 * np.arange(1, L + 1) ** -0.7, 2 / n, 0.5)
    Y = (rng.random((n, L)) < freq).astype(np.uint8)
    P = np.clip(0.6 * Y + 0.4 * rng.random((n, L)), 0, 1)
    names = [f"label's name #{j:03d} & co" for j in range(L)]
    return Y, P, names, rng


def _graph(L, rng, k=3):
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    for u in range(L):
        for v in rng.choice(L, size=min(k, L - 1), replace=False):
            if u != v:
                G.add_edge(u, int(v), weight=float(rng.normal()))
    return G


def builders(L):
    Y, P, names, rng = _data(L)
    C = mp.cooccurrence_counts(Y)
    G = _graph(L, rng)
    pos = nx.circular_layout(G)
    shown = np.argsort(-Y.sum(0))[:min(L, 20)].tolist()
    cv = pd.DataFrame([dict(method=m, fold=f, measure=s, value=rng.random(), fit_seconds=1.0, predict_seconds=0.1)
                       for m in ("BR-LR", "ML-kNN") for f in range(2) for s in ("micro_f1", "hamming_loss")])
    return {
        "label_frequency_bar": lambda: mp.label_frequency_bar(names, Y.sum(0)),
        "cooccurrence_heatmap": lambda: mp.cooccurrence_heatmap(C, names),
        "edge_stability_heatmap": lambda: mp.edge_stability_heatmap(C / max(C.max(), 1), names, n_folds=3),
        "signed_matrix_heatmap": lambda: mp.signed_matrix_heatmap(rng.normal(size=(L, L)), names, names),
        "embedding_scatter": lambda: mp.embedding_scatter(rng.normal(size=(len(Y), 2)), rng.normal(size=(L, 2)),
                                                          names, label_weights=Y.sum(0),
                                                          max_label_names=min(L, 30)),
        "latent_scatter": lambda: mp.latent_scatter(rng.normal(size=(len(Y), 5)), rng.normal(size=(L, 5)), names,
                                                    method="CPLST & co", label_weights=Y.sum(0),
                                                    max_label_names=min(L, 30), label_scale="match"),
        "label_graph_figure": lambda: mp.label_graph_figure(G, pos, label_names=names, top_k=min(L, 30)),
        "community_graph_figure": lambda: mgraph.community_graph_figure(G, pos, label_names=names),
        "cooccurrence_graph_figure": lambda: mp.cooccurrence_graph_figure(C, names, pos, min_count=None,
                                                                          top_k=min(L, 30)),
        "posterior_heatmap": lambda: mp.posterior_heatmap(P, Y, names, threshold=0.5, labels=shown,
                                                          max_labels=len(shown),
                                                          label_scores=mp.per_label_scores(Y, P, 0.5)),
        "posterior_grid": lambda: mp.posterior_grid({"A": P, "B": P[:, ::-1]}, Y, names, threshold=0.5,
                                                    labels=shown, max_labels=len(shown)),
        "reliability_figure": lambda: mp.reliability_figure(Y, P, names),
        "upset_figure": lambda: upset.upset_figure(Y, names, top_k=15),
        "selection_profile_figure": lambda: mlinked.selection_profile_figure(P, P[:, 0] > 0.5, names),
        "measure_bars": lambda: mp.measure_bars(cv),
        "timing_bars": lambda: mp.timing_bars(cv),
    }


CASES = [(L, name) for L in (6, 53, 174, 983) for name in builders(6)]


@pytest.mark.parametrize("L, name", CASES, ids=[f"{n}-{L}" for L, n in CASES])
def test_figure_is_legible(L, name):
    fig = builders(L)[name]()
    texts = [html.unescape(s) for _, s in drawn_strings(fig)]
    assert not [s for s in texts if ENTITY.search(s)]                       # no raw entity
    assert not [s for s in texts if MARKUP.search(s)]                       # no markup but plotly's own
    counts = names_written(fig)
    for where, (written, total) in counts.items():
        assert written <= MAX_NAMES, (where, written, total)                # at most ~50 names written
    hidden = any(0 < written < total for written, total in counts.values())  # (an axis of instance rows
    if hidden:                                                              # writes none) ... and the rest is said
        assert any("hover" in s.lower() for s in texts), counts


@pytest.mark.parametrize("L", [6, 174, 983])
def test_no_subtitle_line_runs_past_the_edge_and_legend_titles_sit_above_their_entries(L):
    """Plotly wraps neither titles nor a horizontal legend with its title at the left (the Embedding legend's
    last entries were cut off at 174 labels): subtitles are wrapped, legend titles sit on top."""
    from mlviz.plotting._style import SUBTITLE_CHARS, wrap_text

    for name, build in builders(L).items():
        fig = build()
        sub = fig.layout.title.subtitle.text if fig.layout.title and fig.layout.title.subtitle else None
        for line in (sub or "").split("<br>"):
            assert len(html.unescape(line)) <= SUBTITLE_CHARS, (name, line)
        legend = fig.layout.legend
        if legend.orientation == "h" and legend.title and legend.title.text:
            assert legend.title.side == "top", name
    long = "30 of 174 label markers drawn (others: legend “other labels”) · 5 names hidden where they would overlap"
    assert wrap_text(long) == ["30 of 174 label markers drawn (others: legend “other labels”)",
                               "5 names hidden where they would overlap"]
    assert " ".join(wrap_text("word " * 40)).split() == ["word"] * 40
    assert all(len(x) <= SUBTITLE_CHARS for x in wrap_text("word " * 40))
