"""Label graphs at 100-1,000 labels: legible names, focus filters, communities, the
co-occurrence default (mlviz.plotting.graph)."""

import itertools

import networkx as nx
import numpy as np
import pytest

from mlviz import plotting as mp


def _nodes_trace(fig):
    (t,) = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "nodes"]
    return t


def _edge_count(fig):
    return sum(t.meta["n_edges"] for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "edges")


def _drawn_name_boxes(fig, width):
    """Pixel boxes of the drawn names, recomputed from the figure JSON alone for a plot of
    ``width`` pixels: 1:1 axes (scaleanchor), ranges, margins, marker sizes, font size,
    textposition; a glyph taken as 0.6 x font size wide (what the figure promises to
    respect, with its own margin), 1.25 x font size high, 3 px from the marker."""
    f = fig.to_plotly_json()
    lay, t = f["layout"], _nodes_trace(fig)
    m = lay["margin"]
    pw, ph = width - m["l"] - m["r"], lay["height"] - m["t"] - m["b"]
    xr, yr = lay["xaxis"]["range"], lay["yaxis"]["range"]
    assert lay["yaxis"]["scaleanchor"] == "x"
    s = min(pw / (xr[1] - xr[0]), ph / (yr[1] - yr[0]))
    fs = t.textfont.size
    boxes = []
    for x, y, text, side, size in zip(t.x, t.y, t.text, t.textposition, t.marker.size):
        if not text:
            continue
        cx, cy = pw / 2 + (x - sum(xr) / 2) * s, ph / 2 + (y - sum(yr) / 2) * s
        import html
        w, h, off = 0.6 * fs * len(html.unescape(text)), 1.25 * fs, size / 2 + 3
        if side == "middle right":
            boxes.append(((cx + off, cy - h / 2, cx + off + w, cy + h / 2), (cx, cy, size)))
        elif side == "middle left":
            boxes.append(((cx - off - w, cy - h / 2, cx - off, cy + h / 2), (cx, cy, size)))
        elif side == "top center":
            boxes.append(((cx - w / 2, cy + off, cx + w / 2, cy + off + h), (cx, cy, size)))
        else:
            assert side == "bottom center"
            boxes.append(((cx - w / 2, cy - off - h, cx + w / 2, cy - off), (cx, cy, size)))
    markers = [(pw / 2 + (x - sum(xr) / 2) * s, ph / 2 + (y - sum(yr) / 2) * s, size)
               for x, y, size in zip(t.x, t.y, t.marker.size)]
    return boxes, markers


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _random_graph(L, m, seed=0):
    rng = np.random.default_rng(seed)
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    while G.number_of_edges() < m:
        a, b = rng.integers(0, L, 2)
        if a != b:
            G.add_edge(int(a), int(b), weight=float(rng.normal()))
    return G


@pytest.mark.parametrize("L", [12, 174, 1000])
def test_drawn_names_never_overlap_each_other_or_nodes(L):
    G = _random_graph(L, 3 * L)
    pos = nx.spring_layout(G, seed=1, iterations=30)
    names = [f"genre_{j}_long_tag_name" if j % 3 == 0 else f"tag{j}" for j in range(L)]
    fig = mp.label_graph_figure(G, pos, label_names=names, max_names=50)
    t = _nodes_trace(fig)
    drawn = [x for x in t.text if x]
    assert 0 < len(drawn) <= 50
    assert t.meta["names_hidden"] == L - len(drawn)
    if L > 50:
        assert any("hover a node" in a.text for a in fig.layout.annotations)
    for width in (t.meta["width_hint"], 2 * t.meta["width_hint"]):    # also on a wider screen
        boxes, markers = _drawn_name_boxes(fig, width)
        for (a, _), (b, _) in itertools.combinations(boxes, 2):
            assert not _overlap(a, b)
        named = [(cx, cy, size) for _, (cx, cy, size) in boxes]
        for box, (cx, cy, _size) in boxes:          # no name covers a named node
            for mx, my, msize in named:
                if (mx, my) == (cx, cy):
                    continue
                assert not _overlap(box, (mx - msize / 2, my - msize / 2, mx + msize / 2, my + msize / 2))
    # every name is still on hover
    assert all(nm in h for nm, h in zip(names, t.hovertext))


def test_small_graph_draws_every_name():
    G = _random_graph(6, 8)
    fig = mp.label_graph_figure(G, nx.circular_layout(G), label_names=list("abcdef"))
    assert list(_nodes_trace(fig).text) == list("abcdef")
    assert _nodes_trace(fig).meta["names_hidden"] == 0


def test_focus_top_k_ego_threshold_and_max_edges():
    L = 60
    G = _random_graph(L, 200, seed=3)
    pos = nx.circular_layout(G)
    w = {(u, v): d for u, v, d in G.edges(data="weight")}
    # edge threshold
    f = mp.label_graph_figure(G, pos, min_abs_weight=1.0)
    assert _edge_count(f) == sum(abs(x) >= 1.0 for x in w.values())
    # strongest k edges
    f = mp.label_graph_figure(G, pos, max_edges=15)
    assert _edge_count(f) == 15
    hover = [tr for tr in f.data if tr.meta.get("kind") == "edge-hover"][0].hovertext
    strongest = sorted(map(abs, w.values()), reverse=True)[:15]
    got = sorted((abs(float(h.split("weight = ")[1])) for h in hover), reverse=True)
    np.testing.assert_allclose(got, strongest, rtol=1e-3)
    # ego network of label 7 within 1 hop, either direction
    f = mp.label_graph_figure(G, pos, focus=7, label_names=[f"l{j}" for j in range(L)])
    expected = set(nx.ego_graph(G.to_undirected(), 7, radius=1).nodes)
    nodes = _nodes_trace(f)
    got_nodes = {int(h.split("</b>")[0].split("<b>l")[1]) for h in nodes.hovertext}
    assert got_nodes == expected
    assert nodes.text[sorted(expected).index(7)] == "l7"             # the focus is always named
    assert _edge_count(f) == G.subgraph(expected).number_of_edges()
    assert nodes.meta["labels_hidden"] == L - len(expected)
    assert any(f"showing {len(expected)} of {L} labels" in a.text for a in f.layout.annotations)
    # by name, too
    f2 = mp.label_graph_figure(G, pos, focus="l7", label_names=[f"l{j}" for j in range(L)])
    assert list(_nodes_trace(f2).x) == list(nodes.x)
    # top-k by the given node size
    size = np.arange(L, dtype=float)
    f = mp.label_graph_figure(G, pos, top_k=10, node_size=size)
    assert len(_nodes_trace(f).x) == 10
    kept_pos = {(round(x, 9), round(y, 9)) for x, y in zip(_nodes_trace(f).x, _nodes_trace(f).y)}
    assert kept_pos == {(round(pos[j][0], 9), round(pos[j][1], 9)) for j in range(L - 10, L)}
    assert _edge_count(f) == G.subgraph(range(L - 10, L)).number_of_edges()
    with pytest.raises(ValueError, match="not in the graph"):
        mp.label_graph_figure(G, pos, focus="nope", label_names=[f"l{j}" for j in range(L)])


def test_community_colouring_matches_networkx_louvain():
    G = nx.DiGraph()
    blocks = [range(0, 6), range(6, 12)]
    for b in blocks:
        for u, v in itertools.permutations(b, 2):
            G.add_edge(u, v, weight=1.0)
    G.add_edge(0, 6, weight=0.05)
    G.add_node(12)
    fig = mp.label_graph_figure(G, nx.spring_layout(G, seed=0), communities=True)
    colors = list(_nodes_trace(fig).marker.color)
    assert len(set(colors[:6])) == 1 and len(set(colors[6:12])) == 1 and colors[0] != colors[6]
    assert colors[12] == "#BBBBBB"                                    # no edges: no community
    assert "community" in _nodes_trace(fig).hovertext[0]


def test_cooccurrence_default_min_count_from_pair_counts():
    # single-label counts are large, pair counts small: the old rule (median label count / 4)
    # would have asked for 25 co-occurrences and drawn nothing
    C = np.diag([100.0, 100, 100, 100])
    C[0, 1] = C[1, 0] = 3
    C[2, 3] = C[3, 2] = 1
    assert mp.default_min_count(C) == 1
    assert mp.default_min_count(C, target_edges=1) == 3
    fig = mp.cooccurrence_graph_figure(C, list("abcd"), nx.circular_layout(nx.complete_graph(4)), min_count=None)
    assert _edge_count(fig) == 2
    ties = np.ones((30, 30)) * 2 + np.eye(30) * 10
    ties[0, 1] = ties[1, 0] = 5
    assert mp.default_min_count(ties, target_edges=5) == 5         # 435 tied pairs are not "a few"
    assert mp.default_min_count(np.eye(3)) == 1


@pytest.mark.parametrize("name", ["emotions", "scene", "yeast", "enron", "medical"])
def test_cooccurrence_default_graph_is_readable_on_every_bundled_set(name):
    from mlviz.data import load_sample

    Y = load_sample(name).Y
    C = mp.cooccurrence_counts(Y)
    L = C.shape[0]
    k = mp.default_min_count(C)
    pairs = C[np.triu_indices(L, 1)]
    n_edges = int((pairs >= k).sum())
    assert 1 <= n_edges <= 2 * min(max(L, 5), 40)
    pos = nx.circular_layout(nx.complete_graph(L))
    fig = mp.cooccurrence_graph_figure(C, [f"l{j}" for j in range(L)], pos, min_count=None)
    assert _edge_count(fig) == n_edges
    assert not any("co-occurs" in a.text for a in fig.layout.annotations)


def test_graph_names_are_escaped():
    names = ['<a href="https://x">y</a>', "[t](https://x)", "=HYPERLINK(1)"]
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 1.0), (1, 2, -1.0)])
    for fig in (mp.label_graph_figure(G, nx.circular_layout(G), label_names=names),
                mp.cooccurrence_graph_figure(np.ones((3, 3)), names, nx.circular_layout(G))):
        js = fig.to_json()
        assert "<a href" not in js and "\\u003ca href" not in js
        t = _nodes_trace(fig)
        assert t.text[0] in ("", "&lt;a href=&quot;https://x&quot;&gt;y&lt;/a&gt;")
        assert "&lt;a href=" in t.hovertext[0]


def _planted_blocks(sizes=(7, 5, 4), seed=0):
    """A directed graph of dense blocks (strong edges) joined by a few weak edges, plus two
    isolated labels: its communities are the blocks, known by construction."""
    rng = np.random.default_rng(seed)
    G = nx.DiGraph()
    blocks, start = [], 0
    for s in sizes:
        blocks.append(list(range(start, start + s)))
        start += s
    G.add_nodes_from(range(start + 2))
    for b in blocks:
        for u, v in itertools.permutations(b, 2):
            if rng.random() < 0.8 or v == u + 1 or u == v + 1:
                G.add_edge(u, v, weight=float(rng.choice([-1, 1]) * rng.uniform(0.5, 1.5)))
    for _ in range(6):
        a, b = rng.choice(len(blocks), 2, replace=False)
        G.add_edge(int(rng.choice(blocks[a])), int(rng.choice(blocks[b])),
                   weight=float(rng.choice([-1, 1]) * rng.uniform(0.01, 0.05)))
    return G, blocks, [start, start + 1]


def _pairs_from_hover(fig, names):
    """{frozenset(drawn node names): (summed |w|, n edges)} read from the edge hover."""
    import html
    import re

    (hov,) = [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("kind") == "edge-hover"]
    out = {}
    for h in hov.hovertext:
        m = re.match(r"(.*) – (.*)<br>summed \|weight\| = (\S+) over (\d+) edge", h)
        out[frozenset((html.unescape(m.group(1)), html.unescape(m.group(2))))] = (float(m.group(3)), int(m.group(4)))
    return out


@pytest.mark.parametrize("expand", [None, 1])
def test_collapsed_communities_match_the_networkx_quotient_graph(expand):
    from mlviz.plotting.graph import community_graph_figure

    G, blocks, isolated = _planted_blocks()
    L = G.number_of_nodes()
    names = [f"n{j}" for j in range(L)]
    fig = community_graph_figure(G, nx.spring_layout(G, seed=0), label_names=names, expand=expand,
                                 node_size=np.arange(L, 0, -1.0), top_members=3)
    t = _nodes_trace(fig)
    # independent reference: networkx quotient graph of |w| over the planted partition (communities
    # numbered by decreasing size; the expanded one split into single labels; isolated labels alone)
    H = nx.DiGraph()
    H.add_nodes_from(G)
    H.add_weighted_edges_from((u, v, abs(d)) for u, v, d in G.edges(data="weight"))
    drawn = [b for k, b in enumerate(blocks) if k != expand]
    parts = drawn + ([[v] for v in blocks[expand]] if expand is not None else []) + [[v] for v in isolated]
    Q = nx.quotient_graph(H, [set(p) for p in parts], relabel=False)
    label = {}
    for k, b in enumerate(blocks):
        if k != expand:
            label[frozenset(b)] = f"C{k + 1} · {len(b)} labels"
    for p in parts:
        if len(p) == 1:
            label[frozenset(p)] = names[p[0]]
    expected = {}  # (a directed quotient's weight already sums both directions, as the figure does)
    for a, b, d in Q.edges(data=True):
        expected[frozenset((label[frozenset(a)], label[frozenset(b)]))] = d["weight"]
    got = _pairs_from_hover(fig, names)
    assert len(got) >= 3 and set(got) == set(expected)
    for k in expected:
        np.testing.assert_allclose(got[k][0], expected[k], rtol=1e-3)
    # the number of member edges between two drawn nodes, counted directly
    for k, (_, n) in got.items():
        a, b = [next(frozenset(p) for p in parts if label[frozenset(p)] == x) for x in k]
        assert n == sum(1 for u, v in G.edges if (u in a and v in b) or (u in b and v in a))
    # drawn nodes, sizes, hidden counts
    n_nodes = len(blocks) - (expand is not None) + (len(blocks[expand]) if expand is not None else 0)
    assert len(t.x) == n_nodes
    assert t.meta["collapsed"] and t.meta["n_communities"] == len(blocks)
    assert t.meta["labels_isolated"] == 2
    hidden_inside = sum(len(b) for k, b in enumerate(blocks) if k != expand)
    assert t.meta["labels_hidden"] == hidden_inside + 2
    assert t.meta["inner_edges"] == sum(G.subgraph(b).number_of_edges() for k, b in enumerate(blocks) if k != expand)
    note = fig.layout.annotations[0].text
    assert f"{len(drawn)} communities of {hidden_inside} labels drawn as one node each" in note
    assert f"2 of {L} labels have no edge" in note
    # a community node sits at its members' centroid, bigger with more labels; hover lists the top members
    pos = nx.spring_layout(G, seed=0)
    for b in drawn:
        i = list(t.text).index(label[frozenset(b)]) if label[frozenset(b)] in t.text else None
        j = [h.startswith(f"<b>community {blocks.index(b) + 1}</b>") for h in t.hovertext].index(True)
        np.testing.assert_allclose([t.x[j], t.y[j]], np.mean([pos[v] for v in b], axis=0))
        assert f"{len(b)} labels<br>top: " + ", ".join(names[v] for v in sorted(b)[:3]) in t.hovertext[j]
        assert i in (None, j)
    big = [t.marker.size[[h.startswith(f"<b>community {k + 1}</b>") for h in t.hovertext].index(True)]
           for k in range(len(blocks)) if k != expand]
    assert big == sorted(big, reverse=True)


def test_collapse_max_edges_keeps_the_strongest_links_and_empty_graph_has_a_note():
    from mlviz.plotting.graph import community_graph_figure

    G, blocks, _ = _planted_blocks((4, 4, 4, 4), seed=2)
    full = _pairs_from_hover(community_graph_figure(G, nx.circular_layout(G)), None)
    fig = community_graph_figure(G, nx.circular_layout(G), max_edges=2)
    got = _pairs_from_hover(fig, None)
    assert len(got) == 2 and _edge_count(fig) == 2
    assert sorted(v[0] for v in got.values()) == sorted(v[0] for v in full.values())[-2:]
    assert f"2 of {len(full)} links between communities drawn" in fig.layout.annotations[0].text
    E = nx.DiGraph()
    E.add_nodes_from(range(5))
    fig = community_graph_figure(E, nx.circular_layout(E))
    assert len(_nodes_trace(fig).x) == 0
    assert any("No edges" in a.text for a in fig.layout.annotations)


@pytest.mark.parametrize("L", [60, 61, 174, 983])
def test_label_axes_write_at_most_about_50_names(L):
    names = [f"tag_{j:03d}" for j in range(L)]
    heat = mp.cooccurrence_heatmap(np.eye(L), names)
    # a bar chart's axis and a heat map's rows: every name up to 60, else every ceil(L / 50)-th; a heat map's
    # rotated columns: every name up to 25, else at most ~25, every k-th with k a multiple of the rows' step
    # (the columns name a subset of the rows' names: at most ~50 different names a figure; issue 29)
    for ax, most, cut in ((mp.label_frequency_bar(names, np.arange(L)).layout.xaxis, 50, 60),
                          (heat.layout.yaxis, 50, 60), (heat.layout.xaxis, 25, 25)):
        written = len(range(0, L, int(ax.dtick)))             # a category axis writes every dtick-th name
        if ax is not heat.layout.xaxis:
            assert written == (L if L <= cut else len(range(0, L, int(np.ceil(L / most)))))
        assert written <= 60 and (L <= cut or written <= most)
        assert ("hover for each" in ax.title.text) == (L > cut)
        if L > cut:
            assert f"of {L} names written" in ax.title.text
    assert int(heat.layout.xaxis.dtick) % int(heat.layout.yaxis.dtick) == 0
    assert len(set(range(0, L, int(heat.layout.xaxis.dtick))) | set(range(0, L, int(heat.layout.yaxis.dtick)))) \
        <= (L if L <= 60 else 50)


def test_collapse_with_precomputed_groups_is_the_same_figure():
    from mlviz.dashboard.focus import graph_communities
    from mlviz.plotting.graph import community_graph_figure

    G, blocks, _ = _planted_blocks()
    groups = graph_communities(G, G.number_of_nodes(), min_abs_weight=0.02)
    assert [sorted(g.tolist()) for g in groups] == blocks     # the planted blocks, by decreasing size
    pos = nx.spring_layout(G, seed=0)
    for expand in (None, 2):
        a = community_graph_figure(G, pos, min_abs_weight=0.02, expand=expand)
        b = community_graph_figure(G, pos, min_abs_weight=0.02, expand=expand, groups=groups)
        assert a.to_json() == b.to_json()
