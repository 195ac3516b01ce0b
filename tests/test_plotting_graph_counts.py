"""One count source for the label graphs (issue 29, item 5): the figure's note, its meta and the
page caption count against the whole graph, and drawn edges' endpoints are named first."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from mlviz.dashboard.focus import counts_caption, graph_counts
from mlviz.plotting import cooccurrence_graph_figure, label_graph_figure


def _graph(L=12, seed=0):
    rng = np.random.default_rng(seed)
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    for u in range(L):
        for v in range(L):
            if u != v and rng.random() < 0.25:
                G.add_edge(u, v, weight=float(rng.normal()))
    return G


def _note(fig):
    return " ".join(a.text for a in fig.layout.annotations if a.text and "showing" in a.text)


def test_a_subgraph_counts_against_the_whole_graph_in_note_meta_and_caption():
    G = _graph()
    L, E = G.number_of_nodes(), G.number_of_edges()
    subset = [0, 2, 3, 5, 7]
    sub = G.subgraph(subset).copy()
    pos = nx.circular_layout(G)
    names = [f"label {i}" for i in range(L)]
    fig = label_graph_figure(sub, pos, label_names=names, totals=(L, E), max_edges=3)
    drawn = sum(1 for u, v in sub.edges if u != v)
    counts = graph_counts(fig)
    assert counts["labels"] == len(subset) and counts["edges"] == min(3, drawn)
    assert (counts["labels_total"], counts["edges_total"]) == (L, E)
    expected = f"showing {len(subset)} of {L} labels and {min(3, drawn)} of {E} edges"
    assert expected in _note(fig)
    assert counts_caption(counts).startswith("S" + expected[1:])  # the caption says the same numbers
    with pytest.raises(ValueError, match="smaller than the graph"):
        label_graph_figure(G, pos, label_names=names, totals=(L - 1, E))


def test_the_cooccurrence_graph_counts_its_pairs_against_the_whole_data_set():
    rng = np.random.default_rng(1)
    Y = (rng.random((200, 10)) < 0.3).astype(int)
    C = Y.T @ Y
    idx = np.array([1, 4, 6])
    pairs = int((np.triu(C, 1) >= 5).sum())
    fig = cooccurrence_graph_figure(C[np.ix_(idx, idx)], [f"l{i}" for i in idx], np.zeros((3, 2)) + np.eye(3)[:, :2],
                                    min_count=5, totals=(10, pairs))
    counts = graph_counts(fig)
    sub_pairs = int((np.triu(C[np.ix_(idx, idx)], 1) >= 5).sum())
    assert (counts["labels"], counts["edges"], counts["labels_total"], counts["edges_total"]) == (3, sub_pairs, 10,
                                                                                                  pairs)
    assert f"showing 3 of 10 labels and {sub_pairs} of {pairs} edges" in _note(fig)


def test_endpoints_of_drawn_edges_are_named_before_isolated_labels():
    L = 40
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    ends = [(30, 31), (32, 33), (34, 35)]
    G.add_weighted_edges_from([(u, v, 1.0) for u, v in ends])
    size = np.r_[np.full(30, 100.0), np.ones(10)]  # the isolated labels are the most frequent ones
    pos = nx.circular_layout(G)
    names = [f"n{i:02d}" for i in range(L)]
    fig = label_graph_figure(G, pos, label_names=names, node_size=size, max_names=6)
    (nodes,) = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "nodes"]
    written = {t for t in nodes.text if t}
    assert written == {names[i] for e in ends for i in e}


def test_upset_says_when_every_label_set_is_unique():
    from mlviz.plotting.upset import upset_figure

    Y = np.array([[1, 0, 0, 1], [0, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1]])  # four distinct sets
    fig = upset_figure(Y, list("abcd"), top_k=3)
    assert fig.layout.meta["all_unique"] is True and fig.layout.meta["n_distinct"] == 4
    assert "every one of the 4 label sets occurs once" in fig.layout.title.subtitle.text
    Y2 = np.vstack([Y, Y[:1]])
    fig2 = upset_figure(Y2, list("abcd"), top_k=3)
    assert fig2.layout.meta["all_unique"] is False
    assert "4 distinct label sets; the 3 drawn cover 4 of 5 instances" in fig2.layout.title.subtitle.text
