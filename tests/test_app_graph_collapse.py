"""AppTest of the Label graph page's collapsed communities at 174 labels (issue 16).

The fitted graph is read from the page's compute layer (the fit itself is checked against an
independent path in test_app_graph.py); the counts the page shows are recomputed here with
networkx alone: Louvain communities (seed 0, undirected |w|) and ``nx.quotient_graph``.
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from _apptest import open_app, upload_session
from test_app_graph import many_label_dataset

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "2_Label_graph.py")


pytestmark = pytest.mark.usefixtures("dashboard_no_prefetch")  # fresh caches; only the work asked for


def reference(graph, L, expand=None):
    """(communities by decreasing size, {unordered drawn pair: summed |w|}, edges inside collapsed ones)."""
    H = nx.Graph()
    H.add_nodes_from(range(L))
    for u, v, w in graph.edges(data="weight"):
        if u != v and w:
            H.add_edge(u, v, weight=(H[u][v]["weight"] if H.has_edge(u, v) else 0.0) + abs(w))
    groups = nx.community.louvain_communities(H, weight="weight", seed=0)
    groups = sorted((sorted(g) for g in groups if H.degree(next(iter(g))) > 0), key=lambda g: (-len(g), g[0]))
    blocks = [g for k, g in enumerate(groups) if k != expand]
    blocks += [[v] for v in (groups[expand] if expand is not None else [])]
    blocks += [[v] for v in range(L) if H.degree(v) == 0]
    Q = nx.quotient_graph(H, [set(b) for b in blocks], relabel=False)
    links = {frozenset((a, b)): d["weight"] for a, b, d in Q.edges(data=True)}
    inner = sum(graph.subgraph(g).number_of_edges() for k, g in enumerate(groups) if k != expand)
    return groups, links, inner


@pytest.mark.parametrize("expand", [None, 0])
def test_collapsed_view_shows_the_networkx_quotient_counts(expand):
    from mlviz.dashboard import compute, methods

    ds = many_label_dataset()  # CAL500-shaped: 500 x 68, 174 labels
    L = ds.n_labels
    ctx, session = upload_session(ds)
    query = dict(cdn_collapse="true", cdn_gamma="0.3")
    if expand is not None:
        query["cdn_expand"] = f"community {expand + 1}"  # the URL holds the option shown
    at = open_app(PAGE, query, session, timeout=180)
    CDN = methods.METHODS["cdn"]
    step = compute.known_steps(ctx, CDN, {**CDN.defaults(), "gamma": 0.3})[0.3]
    graph = step["graph"]
    groups, links, inner = reference(graph, L, expand)
    assert len(groups) >= 2 and len(links) >= 1
    own = (sum(len(g) == 1 for k, g in enumerate(groups) if k != expand)
           + (len(groups[expand]) if expand is not None else 0))
    collapsed = [g for k, g in enumerate(groups) if k != expand and len(g) > 1]
    isolated = sum(1 for v in range(L) if not any(v in g for g in groups))
    hidden = sum(len(g) for g in collapsed) + isolated
    caption = next(c.value for c in at.caption if "communities:" in c.value)
    assert caption.startswith(f"{L} labels in {len(groups)} communities: {len(collapsed)} drawn as one node each"
                              + (f", {own} labels drawn on their own" if own else "")
                              + f"; {hidden} labels are not drawn as their own node"), caption
    assert f"{len(links)} links between nodes" in caption
    assert f"{inner} of the {graph.number_of_edges()} edges lie inside a collapsed community" in caption
    assert "expand one above" in caption
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    nodes = next(t for t in fig["data"] if isinstance(t.get("meta"), dict) and t["meta"].get("kind") == "nodes")
    assert len(nodes["text"]) == len(collapsed) + own
    sums = sorted(float(h.split("summed |weight| = ")[1].split(" ")[0])
                  for t in fig["data"] if isinstance(t.get("meta"), dict) and t["meta"].get("kind") == "edge-hover"
                  for h in t["hovertext"])
    np.testing.assert_allclose(sums, sorted(links.values()), rtol=1e-3)
    # the expand control lists the communities by size, with their size
    box = at.selectbox(key="cdn_expand")
    assert len(box.options) == len(groups) + 1
    assert box.options[1:] == [f"community {k + 1}" for k in range(len(groups))]
    if expand is not None:
        assert box.value == expand
        assert any(c.value.startswith(f"Community {expand + 1}: {len(groups[expand])} labels") for c in at.caption)
