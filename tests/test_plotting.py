"""Tests of the pure plotly figure builders (mlviz.plotting): figure contents."""

import json
import re

import networkx as nx
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from mlviz import plotting as mp
from mlviz.plotting.embedding import MAX_CATEGORIES
from mlviz.plotting.export import PNG_SIGNATURE
from mlviz.plotting.graph import MAX_ARROW_ANNOTATIONS

RNG = np.random.default_rng(0)
N, L = 120, 6
Y = (RNG.random((N, L)) < 0.35).astype(np.uint8)
Y[:, 5] = 0  # a label without positives
NAMES = [f"lab{j}" for j in range(L)]
PROBA = RNG.random((N, L))


def _signed_graph():
    G = nx.DiGraph()
    G.add_nodes_from(range(L))
    for a, b, w in [(0, 1, 0.5), (1, 0, -0.2), (2, 3, 1.0), (3, 4, -0.7),
                    (4, 5, 0.1), (5, 2, 0.3)]:
        G.add_edge(a, b, weight=w)
    G.add_edge(1, 1, weight=2.0)   # self-loop: ignored
    G.add_edge(2, 4, weight=0.0)   # zero weight: ignored
    return G


def _edge_traces(fig):
    return [t for t in fig.data if isinstance(t.meta, dict)
            and t.meta.get("kind") == "edges"]


def _cv_results():
    rows = []
    rng = np.random.default_rng(1)
    for m in ["ML-LSPC", "MLRH", "BR-LR"]:
        for f in range(3):
            fit, pred = rng.random() + 0.1, rng.random() / 10 + 0.01
            for meas in ["hamming_loss", "micro_f1", "macro_auc"]:
                rows.append(dict(method=m, fold=f, measure=meas,
                                 value=rng.random(), fit_seconds=fit,
                                 predict_seconds=pred))
    rows.append(dict(method="ML-kNN", fold=0, measure="error: ValueError",
                     value=np.nan, fit_seconds=np.nan, predict_seconds=np.nan))
    rows.append(dict(method="MLRH", fold=3, measure="micro_f1", value=np.nan,
                     fit_seconds=1e3, predict_seconds=1e3))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- overview
def test_label_frequency_bar_sorted_counts_and_titles():
    counts = Y.sum(axis=0).astype(int)
    fig = mp.label_frequency_bar(NAMES, counts, n_samples=N)
    (bar,) = fig.data
    assert isinstance(bar, go.Bar)
    order = np.argsort(-counts, kind="stable")
    assert list(bar.x) == [NAMES[j] for j in order]
    np.testing.assert_array_equal(bar.y, counts[order])
    np.testing.assert_allclose(bar.customdata, 100 * counts[order] / N)
    assert fig.layout.xaxis.title.text == "label"
    assert "instances" in fig.layout.yaxis.title.text
    assert fig.layout.template.layout.paper_bgcolor is not None
    assert fig.layout.autosize is True


def test_cooccurrence_heatmap_normalisations_by_hand():
    Yz = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]])
    C = mp.cooccurrence_counts(Yz)
    np.testing.assert_array_equal(C, [[3, 2, 0], [2, 3, 0], [0, 0, 0]])
    names = ["a", "b", "c"]
    raw = mp.cooccurrence_heatmap(C, names).data[0]
    np.testing.assert_array_equal(raw.z, C)
    jac = mp.cooccurrence_heatmap(C, names, normalize="jaccard").data[0]
    # |a and b| = 2, |a or b| = 3 + 3 - 2 = 4; label c never occurs -> 0
    np.testing.assert_allclose(jac.z, [[1, 0.5, 0], [0.5, 1, 0], [0, 0, 0]])
    cond = mp.cooccurrence_heatmap(C, names, normalize="conditional").data[0]
    np.testing.assert_allclose(cond.z, [[1, 2 / 3, 0], [2 / 3, 1, 0], [0, 0, 0]])
    assert (jac.zmin, jac.zmax) == (0, 1)
    assert list(raw.x) == names and list(raw.y) == names
    with pytest.raises(ValueError, match="normalize"):
        mp.cooccurrence_heatmap(C, names, normalize="cosine")


def test_cooccurrence_heatmap_accepts_fractions():
    freq = np.array([[0.0, 2 / 3], [1 / 3, 0.0]])
    fig = mp.cooccurrence_heatmap(freq, ["a", "b"], colorbar_title="fraction")
    (h,) = fig.data
    np.testing.assert_allclose(h.z, freq.astype(np.float32))
    assert h.colorbar.title.text == "fraction" and ":.3f" in h.hovertemplate
    assert (h.zmin, h.zmax) == (0, 1)


def test_signed_matrix_heatmap_diverging_centred_at_zero():
    V = np.array([[0.0, -2.0], [0.5, 0.0]])
    (h,) = mp.signed_matrix_heatmap(V, ["a", "b"], ["a", "b"]).data
    np.testing.assert_array_equal(h.z, V)
    assert (h.zmid, h.zmin, h.zmax) == (0, -2, 2)
    assert h.colorscale == go.Heatmap(colorscale=mp.DIVERGING_SCALE).colorscale


def test_many_labels_ticks_stay_legible():
    names = [f"enron_category_{j}" for j in range(53)]
    C = np.eye(53) * 5
    fig = mp.cooccurrence_heatmap(C, names)
    ax = fig.layout.xaxis
    # rows: every name; the rotated column names: at most MAX_X_NAMES (25), so every 3rd (issue 29: 44 rotated
    # names smeared in a half-page column)
    assert fig.layout.yaxis.dtick == 1 and ax.dtick == 3 and ax.tickangle <= -45
    assert "every 3rd of 53 names written; hover for each" in ax.title.text
    assert ax.tickfont.size <= 9
    few = mp.label_frequency_bar(NAMES, np.arange(L))
    assert few.layout.xaxis.tickfont.size > ax.tickfont.size


# ---------------------------------------------------------------- embeddings
def test_embedding_scatter_categorical_colour_and_ids():
    X = RNG.normal(size=(N, 2))
    Lc = RNG.normal(size=(L, 2))
    ids = np.arange(1000, 1000 + N)
    T = RNG.normal(size=(30, 2))
    fig = mp.embedding_scatter(X, Lc, NAMES, color=Y[:, 0], color_title="lab0",
                               hover_text=[f"row {i}" for i in range(N)],
                               test_coords=T, instance_ids=ids)
    train = [t for t in fig.data if t.meta == "train"]
    test = [t for t in fig.data if t.meta == "test"]
    labels = [t for t in fig.data if t.meta == "labels"]
    assert len(train) == 2 and len(test) == 1 and len(labels) == 1
    assert fig.data[-1].meta == "labels"           # labels drawn on top
    assert [t.name for t in train] == ["0", "1"]
    assert train[0].marker.color != train[1].marker.color
    assert sum(len(t.x) for t in train) == N
    for t, v in zip(train, (0, 1)):
        np.testing.assert_array_equal(t.customdata, ids[Y[:, 0] == v])
        np.testing.assert_allclose(t.x, X[Y[:, 0] == v, 0].astype(np.float32))
        assert t.x.dtype == np.float32
        assert isinstance(t, go.Scatter)
    assert test[0].marker.symbol != train[0].marker.symbol
    assert len(test[0].x) == 30
    assert list(labels[0].hovertext) == NAMES
    assert labels[0].marker.size > train[0].marker.size
    assert fig.layout.dragmode == "lasso"
    assert fig.layout.xaxis.title.text == "embedding dimension 1"
    assert fig.layout.legend.title.text == "lab0"


def test_embedding_scatter_continuous_colour_webgl_and_3d():
    n = 1500
    X = RNG.normal(size=(n, 3))
    Lc = RNG.normal(size=(L, 3))
    post = RNG.random(n)
    fig = mp.embedding_scatter(X, Lc, NAMES, color=post, color_title="P(y=1|x)")
    (inst,) = [t for t in fig.data if t.meta == "train"]
    assert isinstance(inst, go.Scattergl)
    assert inst.marker.showscale is True
    assert (inst.marker.cmin, inst.marker.cmax) == (0, 1)
    np.testing.assert_allclose(inst.marker.color, post.astype(np.float32))
    assert inst.marker.colorbar.title.text == "P(y=1|x)"
    f3 = mp.embedding_scatter(X, Lc, NAMES, color=post, dims=3,
                              test_coords=X[:10])
    assert all(isinstance(t, go.Scatter3d) for t in f3.data)
    assert f3.layout.scene.zaxis.title.text == "dimension 3"
    # 3-D test points use a glyph every font has (plotly draws "x" as an emoji)
    (t3,) = [t for t in f3.data if t.meta == "test"]
    assert t3.marker.symbol == "cross"
    assert all(t.marker.symbol in mp.embedding.SAFE_3D_SYMBOLS for t in f3.data)
    with pytest.raises(ValueError, match="dims"):
        mp.embedding_scatter(X, Lc, NAMES, dims=4)


def test_colour_rule_counts_categorical_many_integers_continuous():
    counts = Y.sum(axis=1)
    assert mp.color_kind(counts) == "categorical"
    assert mp.color_kind(Y[:, 0].astype(bool)) == "categorical"
    assert mp.color_kind(np.arange(MAX_CATEGORIES + 1)) == "continuous"
    assert mp.color_kind(PROBA[:, 0]) == "continuous"
    assert mp.color_kind(None) == "none"
    fig = mp.instance_scatter(RNG.normal(size=(N, 2)), color=counts,
                              color_title="label count", axis_title="UMAP")
    assert [t.name for t in fig.data] == [str(v) for v in np.unique(counts)]
    assert len({t.marker.color for t in fig.data}) == len(fig.data)
    assert fig.layout.xaxis.title.text == "UMAP 1"
    signed = RNG.normal(size=N) * 5
    wide = mp.instance_scatter(RNG.normal(size=(N, 2)), color=signed)
    (t,) = wide.data
    assert t.marker.showscale and t.marker.cmin == -t.marker.cmax
    assert t.marker.cmax == pytest.approx(np.abs(signed).max(), rel=1e-6)
    assert t.marker.colorscale == go.Heatmap(colorscale=mp.DIVERGING_SCALE).colorscale


def test_train_and_test_share_the_category_colours():
    X = RNG.normal(size=(N, 2))
    train_counts = np.arange(N) % 5            # 0..4
    test_counts = np.array([3, 4, 4, 3])       # subset
    fig = mp.embedding_scatter(X, X[:L], NAMES, color=train_counts,
                               test_coords=X[:4], test_color=test_counts)
    train = {t.name: t.marker.color for t in fig.data if t.meta == "train"}
    test = {t.name.split(": ")[1]: t.marker.color for t in fig.data
            if t.meta == "test"}
    assert set(test) == {"3", "4"}
    assert all(test[k] == train[k] for k in test)


def test_selection_ids_map_points_back_to_rows():
    X = RNG.normal(size=(N, 2))
    ids = np.arange(N) * 10
    fig = mp.embedding_scatter(X, RNG.normal(size=(L, 2)), NAMES, color=Y[:, 1],
                               instance_ids=ids, test_coords=X[:5],
                               test_ids=[7, 8, 9, 10, 11])
    picked = []
    for c, tr in enumerate(fig.data):
        for k in range(0, len(tr.x), 3):
            picked.append({"curve_number": c, "point_index": k,
                           "customdata": tr.customdata[k]})
    out = mp.selection_ids(fig, picked)
    expected_train = sorted(int(tr.customdata[k]) for tr in fig.data
                            if tr.meta == "train" for k in range(0, len(tr.x), 3))
    np.testing.assert_array_equal(out["train"], expected_train)
    np.testing.assert_array_equal(out["test"], [7, 10])
    np.testing.assert_array_equal(out["labels"], [0, 3])
    assert all(v % 10 == 0 for v in out["train"])


# ---------------------------------------------------------------- graphs
def test_label_graph_edges_signs_widths_and_arrows():
    G = _signed_graph()
    pos = nx.circular_layout(G)
    fig = mp.label_graph_figure(G, pos, label_names=NAMES)
    edges = _edge_traces(fig)
    n_pos = sum(t.meta["n_edges"] for t in edges if t.meta["sign"] == "+")
    n_neg = sum(t.meta["n_edges"] for t in edges if t.meta["sign"] == "-")
    assert (n_pos, n_neg) == (4, 2)
    # segments separated by None: one None per edge in each trace
    assert sum(list(t.x).count(None) for t in edges) == 6
    assert {t.line.color for t in edges if t.meta["sign"] == "+"} == {mp.POSITIVE_COLOR}
    assert {t.line.color for t in edges if t.meta["sign"] == "-"} == {mp.NEGATIVE_COLOR}
    widths = {t.line.width for t in edges}
    assert min(widths) == 1.0 and max(widths) == 6.0
    widest = max(edges, key=lambda t: t.line.width)
    assert widest.meta["n_edges"] == 1 and widest.meta["sign"] == "+"  # w = 1.0
    assert sum(1 for t in edges if t.showlegend) == 2
    arrows = [a for a in fig.layout.annotations if a.showarrow]
    assert len(arrows) == 6
    # a head only, of the colour the lines show on white (#2166AC at 0.75: 255 − 0.75·(255 − c)), never
    # wider than 2.5 px of shaft and at most 4 units long (plotly: arrowwidth × arrowsize)
    assert {edges[0].opacity} == {t.opacity for t in edges} == {0.75}
    assert {a.arrowcolor for a in arrows} == {"#588cc1", "#c55260"}
    assert all(1.0 <= a.arrowwidth <= 2.5 and a.arrowwidth * a.arrowsize <= 4.0 + 1e-9 for a in arrows)
    assert max(a.arrowwidth * a.arrowsize for a in arrows) == pytest.approx(2.2 + 0.3 * 6)
    nodes = [t for t in fig.data if t.meta["kind"] == "nodes"][0]
    assert nodes.marker.opacity == 1.0  # (plotly's default for markers of varying size is 0.7: edges showed through)
    assert list(nodes.text) == NAMES
    # node 2: in-edge from 5 (+0.3), out-edge to 3 (+1.0)
    assert "in-degree 1" in nodes.hovertext[2] and "lab5 (+0.3)" in nodes.hovertext[2]
    assert "out-degree 1" in nodes.hovertext[2] and "lab3 (+1)" in nodes.hovertext[2]
    assert fig.layout.yaxis.scaleanchor == "x"
    undirected = mp.label_graph_figure(nx.Graph(G), pos)
    assert not any(a.showarrow for a in undirected.layout.annotations)
    assert sum(t.meta["n_edges"] for t in _edge_traces(undirected)) == 5


def test_label_graph_many_edges_uses_markers_and_few_traces():
    G = nx.gnp_random_graph(40, 0.5, seed=3, directed=True)
    rng = np.random.default_rng(2)
    for u, v in G.edges:
        G[u][v]["weight"] = rng.normal()
    m = G.number_of_edges()
    assert m > MAX_ARROW_ANNOTATIONS
    fig = mp.label_graph_figure(G, nx.circular_layout(G))
    edges = _edge_traces(fig)
    assert len(edges) <= 10
    assert sum(t.meta["n_edges"] for t in edges) == m
    n_neg = sum(1 for _, _, w in G.edges(data="weight") if w < 0)
    assert sum(t.meta["n_edges"] for t in edges if t.meta["sign"] == "-") == n_neg
    arrow_traces = [t for t in fig.data if isinstance(t.meta, dict)
                    and t.meta.get("kind") == "arrows"]
    assert sum(len(t.x) for t in arrow_traces) == m
    assert all(t.marker.symbol == "arrow" for t in arrow_traces)
    assert not any(a.showarrow for a in fig.layout.annotations)
    assert len(fig.data) <= 14


def test_arrow_marker_angle_points_along_edge():
    G = nx.DiGraph()
    G.add_nodes_from(range(40))
    pos = {i: (float(i), 0.0) for i in range(40)}
    for i in range(40):
        for j in range(40):
            if i != j and len(G.edges) <= MAX_ARROW_ANNOTATIONS:
                G.add_edge(i, j, weight=1.0)
    fig = mp.label_graph_figure(G, pos)
    (arrows,) = [t for t in fig.data if isinstance(t.meta, dict)
                 and t.meta.get("kind") == "arrows"]
    # edges (0 -> j) point right (+90° clockwise from up), (j -> 0) left
    first = list(G.edges)[0]
    assert first[0] < first[1]
    assert arrows.marker.angle[0] == pytest.approx(90.0)


def test_empty_label_graph_renders_nodes_and_note():
    G = nx.empty_graph(L, create_using=nx.DiGraph)
    fig = mp.label_graph_figure(G, nx.circular_layout(G), label_names=NAMES)
    assert _edge_traces(fig) == []
    assert len(fig.data) == 1 and list(fig.data[0].text) == NAMES
    assert any("No edges" in a.text for a in fig.layout.annotations)
    assert mp.figure_to_html(fig)


def test_edge_widths_scale_linearly():
    np.testing.assert_allclose(mp.edge_widths([0.5, -1.0, 0.75]), [1, 6, 3.5])
    np.testing.assert_allclose(mp.edge_widths([2.0, 2.0]), [3.5, 3.5])


def test_cooccurrence_graph_edges_match_counts():
    C = mp.cooccurrence_counts(Y)
    pos = nx.circular_layout(nx.complete_graph(L))
    k = 8
    fig = mp.cooccurrence_graph_figure(C, NAMES, pos, min_count=k)
    iu = np.triu_indices(L, 1)
    expected = int((C[iu] >= k).sum())
    assert expected > 0
    assert sum(t.meta["n_edges"] for t in _edge_traces(fig)) == expected
    assert {t.meta["sign"] for t in _edge_traces(fig)} == {"0"}
    by_name = mp.cooccurrence_graph_figure(
        C, NAMES, {NAMES[i]: xy for i, xy in pos.items()}, min_count=k)
    np.testing.assert_allclose(by_name.data[-1].x, fig.data[-1].x)
    empty = mp.cooccurrence_graph_figure(C, NAMES, pos, min_count=10 ** 6)
    assert _edge_traces(empty) == []
    assert any("co-occurs" in a.text for a in empty.layout.annotations)


# ---------------------------------------------------------------- paths
def test_regularization_path_current_gamma_and_log_axis():
    gammas = np.array([1.0, 0.01, 0.1, 0.001, 0.0])
    edges = np.array([0, 12, 5, 20, 30])
    feats = np.array([3, 40, 20, 50, 60])
    fig = mp.regularization_path_figure(gammas, edges, current_gamma=0.05,
                                        n_features=feats)
    assert fig.layout.xaxis.type == "log"
    assert "γ" in fig.layout.xaxis.title.text
    e, f, cur = fig.data
    np.testing.assert_allclose(e.x, [0.001, 0.01, 0.1, 1.0])   # sorted, 0 dropped
    np.testing.assert_array_equal(e.y, [20, 12, 5, 0])
    np.testing.assert_array_equal(f.y, [50, 40, 20, 3])
    assert f.yaxis == "y2"
    assert cur.name == "current γ" and list(cur.x) == [0.05, 0.05]
    ann = [a for a in fig.layout.annotations if "current γ" in a.text]
    assert ann and ann[0].x == pytest.approx(np.log10(0.05))
    assert any("non-positive" in a.text for a in fig.layout.annotations)


def test_convergence_gap_by_hand():
    F = np.array([10.0, 4.0, 2.5, 2.0, 2.0])
    fig = mp.convergence_figure(F)
    obj, gap = fig.data
    np.testing.assert_array_equal(obj.y, F)
    np.testing.assert_array_equal(gap.x, [0, 1, 2])     # zero gaps not drawn
    np.testing.assert_allclose(gap.y, [4.0, 1.0, 0.25])  # (F - 2) / 2
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert fig.layout.xaxis2.title.text == "iteration"
    neg = mp.convergence_figure(-F)
    assert neg.layout.yaxis.type != "log"

    class Result:
        objective_history = F

    np.testing.assert_array_equal(mp.convergence_figure(Result()).data[0].y, F)


# ---------------------------------------------------------------- posteriors
def test_order_by_labelset_groups_identical_sets():
    Yt = np.array([[0, 1], [1, 0], [0, 1], [1, 1], [1, 0], [0, 0]])
    order = mp.order_by_labelset(Yt)
    assert sorted(order) == list(range(6))
    np.testing.assert_array_equal(order, [3, 1, 4, 0, 2, 5])
    big = mp.order_by_labelset(Y)
    rows = [tuple(r) for r in Y[big]]
    seen, prev = set(), None
    for r in rows:  # each label set occupies one contiguous block
        if r != prev:
            assert r not in seen
            seen.add(r)
        prev = r


def test_posterior_heatmap_contents_and_order():
    fig = mp.posterior_heatmap(PROBA, Y, NAMES)
    hp, hy = fig.data
    order = mp.order_by_labelset(Y)
    np.testing.assert_allclose(hp.z, PROBA[order].astype(np.float32))
    np.testing.assert_array_equal(hy.z, Y[order])
    assert (hp.zmin, hp.zmax, hy.zmin, hy.zmax) == (0, 1, 0, 1)
    assert hp.colorbar.title.text == "P(y=1|x)" and hy.showscale is False
    assert list(hp.x) == NAMES and list(hy.x) == NAMES
    assert list(hp.y) == [str(i) for i in order] == list(hy.y)
    assert hp.yaxis == "y" and hy.yaxis == "y2"
    assert fig.layout.yaxis2.matches == "y"          # shared row order
    custom = np.arange(N)[::-1]
    f2 = mp.posterior_heatmap(PROBA, Y, NAMES, row_order=custom)
    np.testing.assert_allclose(f2.data[0].z, PROBA[::-1].astype(np.float32))
    with pytest.raises(ValueError, match="permutation"):
        mp.posterior_heatmap(PROBA, Y, NAMES, row_order=np.zeros(N, int))
    with pytest.raises(ValueError, match="unique"):
        mp.posterior_heatmap(PROBA, Y, NAMES, instance_ids=np.zeros(N, int))


def test_reliability_bins_by_hand():
    y = np.array([0, 1, 1, 0, 1, 1])
    p = np.array([0.05, 0.15, 0.12, 0.55, 0.95, 1.0])
    mean_p, frac, cnt = mp.reliability_bins(y, p, n_bins=10)
    # bins: [0,.1): {.05}; [.1,.2): {.15,.12}; [.5,.6): {.55}; [.9,1]: {.95,1}
    np.testing.assert_allclose(mean_p, [0.05, 0.135, 0.55, 0.975])
    np.testing.assert_allclose(frac, [0.0, 1.0, 0.0, 1.0])
    np.testing.assert_array_equal(cnt, [1, 2, 1, 2])
    with_nan = mp.reliability_bins(np.r_[y, 1], np.r_[p, np.nan], n_bins=10)
    np.testing.assert_array_equal(with_nan[2], cnt)


def test_reliability_figure_curves_diagonal_and_no_positive_label():
    fig = mp.reliability_figure(Y, PROBA, NAMES, n_bins=5)
    assert fig.data[0].name == "perfectly calibrated"
    assert list(fig.data[0].x) == [0, 1]
    curves = fig.data[1:]
    assert len(curves) == L
    j = 2
    lo = np.minimum((PROBA[:, j] * 5).astype(int), 4)
    for b, (x, yv, c) in enumerate(zip(curves[j].x, curves[j].y,
                                       curves[j].customdata)):
        sel = lo == np.unique(lo)[b]
        assert x == pytest.approx(PROBA[sel, j].mean())
        assert yv == pytest.approx(Y[sel, j].mean())
        assert c == sel.sum()
    assert curves[5].name.endswith("(no positives)")
    assert np.all(np.asarray(curves[5].y) == 0)
    sub = mp.reliability_figure(Y, PROBA, NAMES, labels=["lab1", 3])
    assert [t.meta for t in sub.data[1:]] == [1, 3]
    assert sub.layout.xaxis.title.text.startswith("mean predicted")


# ---------------------------------------------------------------- comparisons
def test_measure_bars_ignore_errors_and_match_groupby():
    df = _cv_results()
    fig = mp.measure_bars(df)
    methods = {t.meta["method"] for t in fig.data}
    assert methods == {"ML-LSPC", "MLRH", "BR-LR"}       # error-only method gone
    assert len(fig.data) == 3 * 3
    clean = df[~df["measure"].str.startswith("error") & df["value"].notna()]
    for t in fig.data:
        v = clean[(clean.method == t.meta["method"])
                  & (clean.measure == t.meta["measure"])]["value"]
        assert len(v) == 3
        assert t.y[0] == pytest.approx(v.mean())
        assert t.error_y.array[0] == pytest.approx(v.std(ddof=1))
    colors = {t.meta["method"]: t.marker.color for t in fig.data}
    assert colors == mp.method_colors(["ML-LSPC", "MLRH", "BR-LR"])
    assert sum(t.showlegend for t in fig.data) == 3
    only = mp.measure_bars(df, measures=["micro_f1", "nope"])
    assert {t.meta["measure"] for t in only.data} == {"micro_f1"}
    errors = df[df["measure"].str.startswith("error")]
    assert mp.measure_bars(errors).data == ()
    assert fig.layout.yaxis.title.text == "mean ± std over folds" and all(t.error_y.visible for t in fig.data)
    # one fold (a fixed train/test split): the values themselves, no error bar, no "± 0"
    one = mp.measure_bars(clean[clean["fold"] == 0])
    assert one.layout.yaxis.title.text == "value (one train/test split)"
    assert not any(t.error_y.visible for t in one.data) and not any("±" in t.hovertemplate for t in one.data)
    for t in one.data:
        v = clean[(clean.method == t.meta["method"]) & (clean.measure == t.meta["measure"]) & (clean.fold == 0)]
        assert t.y[0] == pytest.approx(float(v["value"].iloc[0]))


def test_timing_bars_median_quartiles_and_points_on_log_y():
    df = _cv_results()
    fig = mp.timing_bars(df)
    assert fig.layout.yaxis.type == "log" and fig.layout.yaxis2.type == "log"
    assert fig.layout.yaxis.title.text == "seconds (log scale)"
    assert fig.layout.yaxis.dtick == 1 and fig.layout.yaxis.ticksuffix == " s"  # decades only
    med = {t.meta["method"]: t for t in fig.data
           if t.meta["timing"] == "fit_seconds" and t.meta["stat"] == "median"}
    pts = {t.meta["method"]: t for t in fig.data
           if t.meta["timing"] == "fit_seconds" and t.meta["stat"] == "folds"}
    assert set(med) == set(pts) == {"ML-LSPC", "MLRH", "BR-LR"}
    per_fold = df[df.measure == "hamming_loss"].groupby("method")["fit_seconds"]
    for m, t in med.items():   # the NaN-valued MLRH row of fold 3 still times
        v = pd.concat([per_fold.get_group(m), df[(df.method == m) & (df.fold == 3)]["fit_seconds"]])
        np.testing.assert_allclose(sorted(pts[m].y), sorted(v))
        q1, q2, q3 = np.percentile(v, [25, 50, 75])
        assert t.y[0] == pytest.approx(q2)
        assert t.error_y.array[0] == pytest.approx(q3 - q2)
        assert t.error_y.arrayminus[0] == pytest.approx(q2 - q1)
        assert min(pts[m].y) <= q1 and q3 <= max(pts[m].y)      # bars stay inside the data


def test_solver_scaling_and_time_ratio():
    df = pd.DataFrame(dict(solver=["naive", "cg", "eig"] * 2 + ["eig"],
                           n_labels=[2, 2, 2, 8, 8, 8, 8],
                           seconds=[1.0, 0.5, 0.1, 30.0, 2.0, 0.2, 0.4]))
    fig = mp.solver_scaling_figure(df)
    assert [t.name for t in fig.data] == ["naive", "cg", "eig"]
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.xaxis.title.text == "number of labels"
    np.testing.assert_allclose(fig.data[2].y, [0.1, 0.3])   # mean of repeats
    tr = pd.DataFrame(dict(n_samples=[100, 1000, 100], lspc_seconds=[0.1, 1, 0.3],
                           klr_seconds=[2.0, 50.0, 2.0]))
    f2 = mp.time_ratio_figure(tr)
    ratio = [t for t in f2.data if t.name == "KLR / LSPC"][0]
    np.testing.assert_allclose(ratio.x, [100, 1000])
    np.testing.assert_allclose(ratio.y, [2.0 / 0.2, 50.0])
    assert list(ratio.customdata) == ["LSPC faster", "LSPC faster"]
    # below 1 the hover says KLR trained faster (never "LSPC is 0.8× faster")
    slow = mp.time_ratio_figure(pd.DataFrame(dict(n_samples=[100, 800], lspc_seconds=[0.1, 1.0],
                                                  klr_seconds=[0.2, 0.8])))
    r = [t for t in slow.data if t.name == "KLR / LSPC"][0]
    assert list(r.customdata) == ["LSPC faster", "KLR faster"] and "× faster" not in r.hovertemplate
    assert f2.layout.xaxis.type == "linear"
    assert f2.layout.yaxis.type == "log"


def _every_builder():
    G = _signed_graph()
    pos = nx.circular_layout(G)
    return [
        mp.label_frequency_bar(NAMES, Y.sum(0)),
        mp.cooccurrence_heatmap(mp.cooccurrence_counts(Y), NAMES),
        mp.embedding_scatter(PROBA[:, :2], PROBA[:L, :2], NAMES),
        mp.instance_scatter(PROBA[:, :2]),
        mp.label_graph_figure(G, pos),
        mp.cooccurrence_graph_figure(mp.cooccurrence_counts(Y), NAMES, pos),
        mp.regularization_path_figure([0.1, 1], [3, 1]),
        mp.convergence_figure([3, 2, 1]),
        mp.posterior_heatmap(PROBA, Y, NAMES),
        mp.reliability_figure(Y, PROBA, NAMES),
        mp.measure_bars(_cv_results()),
        mp.timing_bars(_cv_results()),
        mp.label_graph_figure(nx.empty_graph(L, create_using=nx.DiGraph), pos, label_names=NAMES),
        mp.regularization_path_figure([1.0], [2], current_gamma=1.0, n_features=[4], note="being computed"),
    ]


def test_every_builder_uses_the_shared_template():
    white = go.layout.Template(
        __import__("plotly.io", fromlist=["templates"]).templates["plotly_white"])
    for fig in _every_builder():
        assert fig.layout.template == white
        assert fig.layout.autosize is True and fig.layout.height >= 300


def test_figures_do_not_depend_on_plotlys_default_template():
    """The dashboard makes the shared template plotly's default (builders then skip
    validating it again): every figure must be the same either way."""
    import plotly.io as pio

    before = [json.loads(fig.to_json()) for fig in _every_builder()]
    default = pio.templates.default
    try:
        pio.templates.default = mp.TEMPLATE
        after = [json.loads(fig.to_json()) for fig in _every_builder()]
    finally:
        pio.templates.default = default
    assert after == before


# ---------------------------------------------------------------- export
def test_figure_to_html_contains_the_div():
    fig = mp.regularization_path_figure([0.1, 1.0], [3, 1], current_gamma=0.3)
    html = mp.figure_to_html(fig)
    assert "<html>" in html and html.rstrip().endswith("</html>")
    assert 'class="plotly-graph-div"' in html
    div_id = re.search(r'<div id="([^"]+)" class="plotly-graph-div"', html).group(1)
    assert re.search(r'newPlot\(\s*"' + re.escape(div_id) + '"', html)
    assert "current \\u03b3 = 0.3" in html
    assert "cdn.plot.ly" in mp.figure_to_html(fig, include_plotlyjs="cdn")


def test_figure_to_png_never_raises_without_browser(monkeypatch):
    import mlviz.plotting.export as ex
    monkeypatch.setattr(ex, "find_chromium", lambda: None)
    fig = mp.convergence_figure([3, 2, 1])
    assert mp.figure_to_png(fig) is None
    assert mp.figure_to_png("not a figure") is None


@pytest.mark.skipif(mp.find_chromium() is None, reason="no Chrome/Chromium")
@pytest.mark.parametrize("method", ["auto", "chromium"])
def test_figure_to_png_signature(method):
    fig = mp.label_graph_figure(_signed_graph(), nx.circular_layout(_signed_graph()),
                                label_names=NAMES)
    try:
        png = mp.figure_to_png(fig, width=400, height=300, method=method,
                               keep_browser=False)
    finally:
        mp.stop_png_browser()
    assert png is not None and png[:8] == PNG_SIGNATURE
    # IHDR holds the pixel size
    assert int.from_bytes(png[16:20], "big") == 400
    assert int.from_bytes(png[20:24], "big") == 300
