"""AppTests of the Label graph page: the values it shows by default, at 174 labels, and with hostile names.

References are computed here independently: the sparse CDN γ path from the empty graph's fit
down the slider's grid (warm starts, as the page's compute layer does), the automatic γ rule
applied to it, the pair counts of the data.
"""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path

import numpy as np
import pytest
from _apptest import ok
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "2_Label_graph.py")
TIMEOUT = 120
GRID = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1.0]  # the γ slider's grid (methods.py)
MIN_EDGES, MAX_DRAWN = 3, 12  # the automatic γ keeps ≥ 3 edges and draws ≤ 12


@pytest.fixture(autouse=True)
def clear_caches(fresh_dashboard, monkeypatch):
    monkeypatch.setattr(fresh_dashboard, "prefetch", lambda *a, **k: None)  # only the work asked for
    yield


def many_label_dataset(n=500, L=174, d=68, seed=0, names=None):
    """A CAL500-shaped data set (500 × 68 dense, 174 labels, ~6 per instance, power-law
    frequencies) with labels correlated through 8 latent factors that also drive the features."""
    from mlviz.data import MultiLabelDataset

    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 8))
    scores = Z @ rng.normal(size=(8, L)) / np.sqrt(8) + rng.normal(size=(n, L))
    freq = np.clip(0.6 * np.arange(1, L + 1) ** -0.8, 3 / n, 0.6)
    thr = np.array([np.quantile(scores[:, j], 1 - freq[j]) for j in range(L)])
    Y = (scores > thr).astype(np.uint8)
    X = Z @ rng.normal(size=(8, d)) + 0.5 * rng.normal(size=(n, d))
    names = names or [f"tag_{j:03d}" for j in range(L)]
    return MultiLabelDataset(X, Y, label_names=names, name="synthetic-174")


def open_upload(ds, **query):
    from mlviz.dashboard import state

    ctx = state.context_from_dataset(state.upload_id(ds.name, ds.X.tobytes() + ds.Y.tobytes()), ds)
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.session_state["mlviz_uploads"] = {ctx.key: ctx}  # as the Home page's Load button does
    at.session_state["data"] = ctx.key
    for k, v in query.items():
        at.query_params[k] = v
    return ok(at.run()), ctx


def charts(at):
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def metrics(at):
    return {m.label: m.value for m in at.metric}


def drawn(fig):
    """(label names drawn, names written on the figure, edges drawn) of a graph figure."""
    nodes = next(t for t in fig["data"] if isinstance(t.get("meta"), dict) and t["meta"].get("kind") == "nodes")
    labels = [html.unescape(re.match(r"<b>(.*?)</b>", h).group(1)) for h in nodes["hovertext"]]
    written = [html.unescape(t) for t in nodes["text"] if t]
    edges = sum(t["meta"]["n_edges"] for t in fig["data"]
                if isinstance(t.get("meta"), dict) and t["meta"].get("kind") == "edges")
    return labels, written, edges


def cdn_defaults():
    """μ / N, λ and the variant the page shows by default: the registry's (methods.METHODS["cdn"])."""
    from mlviz.dashboard.methods import METHODS

    d = METHODS["cdn"].defaults()
    return float(d["mu"]), float(d["lam"]), d["variant"]


def reference_path(X, Y, *, mu=None, lam=None, variant=None, stop_at_auto=True):
    """``{ratio: fitted SparseCDN}`` down the grid from the γ → ∞ fit (μ = ratio · N, λ1 = λ2 = λ),
    stopping at the automatic point (the first with ≥ 3 edges) when ``stop_at_auto``; settings not
    given are the page's defaults (:func:`cdn_defaults`)."""
    from mlviz.models import SparseCDN

    d_mu, d_lam, d_variant = cdn_defaults()
    mu, lam, variant = (d_mu if mu is None else mu), (d_lam if lam is None else lam), variant or d_variant
    model = SparseCDN(gamma=1e12, lam1=lam, lam2=lam, mu=mu * Y.shape[0], variant=variant, random_state=0).fit(X, Y)
    path = {}
    for r in sorted(GRID, reverse=True):
        model = copy.deepcopy(model).refit(gamma_ratio=r)
        path[r] = model
        if stop_at_auto and model.label_graph_.number_of_edges() >= MIN_EDGES:
            break
    return path


def sample_xy(name):
    from mlviz.data import load_protocol_split
    from mlviz.preprocessing import scale_split

    train, test = load_protocol_split(name)
    X = scale_split(train.X, test.X)[0]  # the dashboard's default scaling
    return X, np.asarray(train.Y), train


@pytest.mark.parametrize("name", ["emotions", "yeast", "scene", "enron", "medical"])
def test_default_graph_is_the_automatic_path_point_and_cooccurrence_is_non_empty(name):
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    at.query_params["data"] = name
    ok(at.run())
    X, Y, train = sample_xy(name)
    path = reference_path(X, Y)
    ratio = min(path)  # the last point computed: the first with ≥ 3 edges (or the grid's bottom)
    n_edges = path[ratio].label_graph_.number_of_edges()
    assert n_edges >= MIN_EDGES
    assert int(metrics(at)["edges (non-zero V entries)"]) == n_edges
    assert any(f"γ chosen automatically: {ratio:g}·γ_max" in c.value and f"it keeps {n_edges}" in c.value
               for c in at.caption)
    graph, cooc = charts(at)[:2]
    L = Y.shape[1]
    labels, written, edges = drawn(graph)
    assert edges == min(n_edges, MAX_DRAWN) or (L > 30 and edges <= min(n_edges, MAX_DRAWN))
    assert len(written) <= 50 and len(labels) == min(L, 30)
    # the co-occurrence graph: the slider's range from the PAIR counts, never empty by default
    C = np.asarray(load_full_y(name), dtype=np.int64)
    C = C.T @ C
    pairs = C[np.triu_indices(L, 1)]
    assert at.slider(key="cooc_min").max == max(int(pairs.max()), 2)
    cut = at.slider(key="cooc_min").value
    assert (pairs >= cut).sum() >= 1
    _, _, cooc_edges = drawn(cooc)
    assert cooc_edges >= 1
    assert any(f"of {int((pairs >= cut).sum())} edges" in c.value for c in at.caption)


def test_automatic_gamma_is_a_toggle_and_a_nudge_moves_to_a_neighbour():
    """Issue 29, item 4: "auto" is not the slider's left end; while automatic, the slider sits at the γ it
    chose, and one step of the slider moves to the neighbouring γ (automatic off, γ in the address)."""
    from mlviz.dashboard.widgets import fmt_value

    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    ok(at.run())
    X, Y, _ = sample_xy("emotions")
    path = reference_path(X, Y, stop_at_auto=False)
    auto = max(r for r in GRID if path[r].label_graph_.number_of_edges() >= MIN_EDGES)
    slider, toggle = at.select_slider(key="cdn_gamma"), at.toggle(key="cdn_gamma_auto")
    assert toggle.value is True and "auto" not in slider.options and len(slider.options) == len(GRID)
    assert slider.value == auto                                   # the slider sits where automatic is
    assert "cdn_gamma" not in at.query_params
    below = GRID[GRID.index(auto) - 1]                              # one step to the left
    ok(at.select_slider(key="cdn_gamma").set_value(below).run())
    assert at.toggle(key="cdn_gamma_auto").value is False
    assert int(metrics(at)["edges (non-zero V entries)"]) == path[below].label_graph_.number_of_edges()
    assert at.query_params["cdn_gamma"] == fmt_value(below)
    ok(at.toggle(key="cdn_gamma_auto").set_value(True).run())       # back to automatic
    assert at.select_slider(key="cdn_gamma").value == auto and "cdn_gamma" not in at.query_params
    assert int(metrics(at)["edges (non-zero V entries)"]) == path[auto].label_graph_.number_of_edges()


@pytest.mark.parametrize("link, automatic, value", [("auto", True, None), ("0.1", False, 0.1), (None, True, None)])
def test_old_and_new_gamma_links_open_as_they_were_meant(link, automatic, value):
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    if link is not None:
        at.query_params["cdn_gamma"] = link
    ok(at.run())
    assert at.toggle(key="cdn_gamma_auto").value is automatic
    if value is not None:
        assert at.select_slider(key="cdn_gamma").value == value and at.query_params["cdn_gamma"] == link
    else:
        assert "cdn_gamma" not in at.query_params  # (the old "auto" is dropped from the address)


def load_full_y(name):
    from mlviz.data import load_sample

    return load_sample(name).Y


def test_variant_that_ignores_mu_or_gamma_disables_its_slider():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    ok(at.run())
    assert not at.select_slider(key="cdn_mu").disabled and not at.select_slider(key="cdn_gamma").disabled
    at.selectbox(key="cdn_variant").set_value("lr").run()
    assert at.select_slider(key="cdn_mu").disabled and at.select_slider(key="cdn_gamma").disabled
    assert int(metrics(ok(at))["edges (non-zero V entries)"]) == 0
    at.selectbox(key="cdn_variant").set_value("l1-cdn").run()
    assert at.select_slider(key="cdn_mu").disabled and not at.select_slider(key="cdn_gamma").disabled
    at.selectbox(key="cdn_variant").set_value("l21-lr").run()
    assert not at.select_slider(key="cdn_mu").disabled and at.select_slider(key="cdn_gamma").disabled


def test_174_labels_draw_at_most_50_names_and_say_what_is_hidden():
    ds = many_label_dataset()
    at, ctx = open_upload(ds)
    path = reference_path(ctx.X_train, ctx.Y_train)
    ratio = min(path)
    graph = path[ratio].label_graph_
    n_edges = graph.number_of_edges()
    assert int(metrics(at)["edges (non-zero V entries)"]) == n_edges
    labels, written, edges = drawn(charts(at)[0])
    counts = ctx.Y_train.sum(axis=0).astype(float)
    top30 = {ds.label_names[j] for j in np.lexsort((np.arange(174), -counts))[:30]}
    assert set(labels) == top30 and len(written) <= 50
    # the strongest ≤ 12 edges among the 30 drawn labels
    among = sorted((abs(d["weight"]) for u, v, d in graph.edges(data=True)
                    if ds.label_names[u] in top30 and ds.label_names[v] in top30), reverse=True)
    assert edges == min(len(among), MAX_DRAWN)
    caption = next(c.value for c in at.caption if c.value.startswith("Showing") and "174 labels" in c.value)
    assert f"Showing 30 of 174 labels and {edges} of {n_edges} edges" in caption
    # one count source: the figure's own note and the automatic-γ text say the same numbers (issue 29, item 5)
    note = " ".join(a.get("text", "") for a in charts(at)[0]["layout"].get("annotations", []))
    assert f"showing 30 of 174 labels and {edges} of {n_edges} edges" in note
    assert any(f"it keeps {n_edges}" in c.value for c in at.caption)
    assert "hover" in caption and "neighbourhood" in caption
    cooc_labels, cooc_written, _ = drawn(charts(at)[1])
    assert set(cooc_labels) == top30 and len(cooc_written) <= 50
    # edges drawn at most: a choice by hand overrides the automatic 12; a minimum |weight| filters
    at.select_slider(key="cdn_max_edges").set_value(20).run()
    assert drawn(charts(ok(at))[0])[2] == min(len(among), 20)
    at.select_slider(key="cdn_min_w").set_value(0.3).run()
    assert drawn(charts(ok(at))[0])[2] == min(sum(a >= 0.3 for a in among), 20)


def test_label_selector_and_neighbourhood_restrict_the_drawn_labels():
    ds = many_label_dataset()
    at, ctx = open_upload(ds)
    path = reference_path(ctx.X_train, ctx.Y_train)
    graph = path[min(path)].label_graph_
    picked = ["tag_005", "tag_040", "tag_100"]
    ok(at.selectbox(key="labels_mode").set_value("search").run())
    ok(at.text_input(key="labels_q").input("no-such-label").run())  # a search without a match
    assert any("No labels match" in i.value for i in at.info)
    ok(at.selectbox(key="labels_mode").set_value("picked").run())  # none picked yet: no figure breaks
    assert any("No labels picked" in i.value for i in at.info)
    at.multiselect(key="labels_pick").set_value(picked).run()
    for fig in charts(ok(at))[:2]:
        assert sorted(drawn(fig)[0]) == picked
    # a label's neighbourhood: the label and every label one edge away (either direction)
    hub = max(graph.nodes, key=lambda v: (graph.degree(v), -v))
    near = {hub} | set(graph.successors(hub)) | set(graph.predecessors(hub))
    assert 1 < len(near) <= 30
    at.selectbox(key="cdn_focus").set_value(hub).run()
    assert set(drawn(charts(ok(at))[0])[0]) == {ds.label_names[v] for v in near}
    # the most connected labels: weighted degree (sum of |w| in and out) in the graph shown
    degree = np.zeros(174)
    for u, v, d in graph.edges(data=True):
        degree[u] += abs(d["weight"])
        degree[v] += abs(d["weight"])
    counts = ctx.Y_train.sum(axis=0).astype(float)
    top = np.lexsort((np.arange(174), -counts, -degree))[:30]
    at.selectbox(key="cdn_focus").set_value(-1).run()
    at.selectbox(key="labels_mode").set_value("connected").run()
    assert set(drawn(charts(ok(at))[0])[0]) == {ds.label_names[j] for j in top}
    # the edge list: every edge of the model (not only the drawn ones), filtered by a label-name search
    table = at.dataframe[0].value
    assert len(table) == graph.number_of_edges()
    at.text_input(key="cdn_edge_q").set_value("TAG_01").run()
    table = ok(at).dataframe[0].value
    expected = sum(1 for u, v in graph.edges if "tag_01" in ds.label_names[u] or "tag_01" in ds.label_names[v])
    assert len(table) == expected > 0
    assert all("tag_01" in a or "tag_01" in b for a, b in zip(table["source"], table["target"]))
    # the search box
    at.selectbox(key="cdn_focus").set_value(-1).run()
    at.selectbox(key="labels_mode").set_value("search").run()
    at.text_input(key="labels_q").set_value("tag_00").run()
    assert sorted(drawn(charts(ok(at))[0])[0]) == [f"tag_00{i}" for i in range(10)]


def test_hostile_label_names_are_shown_as_text():
    names = [f"tag_{j:03d}" for j in range(174)]
    names[0] = "[click](https://evil.example)"
    names[1] = "<a href='https://evil.example'>x</a>"
    ds = many_label_dataset(names=names)
    at, _ = open_upload(ds, labels_mode="search", labels_q="evil")
    labels, written, _ = drawn(charts(at)[0])
    assert sorted(labels) == sorted(names[:2])
    raw = json.dumps(charts(at)[0])
    assert "<a href='https" not in raw and "&lt;a href=" in raw
    shown = [c.value for c in at.caption] + [m.value for m in at.markdown]
    assert not any("](https://" in s or "<a href" in s for s in shown)
    # the edge list search echoes the query escaped
    at.text_input(key="cdn_edge_q").set_value("[x](https://evil.example)").run()
    assert any(r"\[x\]\(https\:\/\/evil\.example\)" in c.value for c in ok(at).caption)


def test_edge_stability_heatmap_is_the_fraction_of_folds_at_the_shown_gamma():
    from sklearn.model_selection import KFold

    from mlviz.models import SparseCDN

    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT)
    ok(at.run())
    n_before = len(charts(at))
    at.button(key="cdn_stability").click().run()
    figs = charts(ok(at))
    assert len(figs) == n_before + 1
    heat = figs[-1]["data"][0]
    assert heat["colorbar"]["title"]["text"] == "fraction of the 3 folds"
    X, Y, _ = sample_xy("emotions")
    path = reference_path(X, Y)
    gamma = path[min(path)].gamma  # the automatic point, absolute
    freq = np.zeros((Y.shape[1], Y.shape[1]))
    for tr, _ in KFold(n_splits=3, shuffle=True, random_state=0).split(X):
        mu, lam, variant = cdn_defaults()  # what the page shows by default
        m = SparseCDN(gamma=gamma, lam1=lam, lam2=lam, mu=mu * Y.shape[0], variant=variant,
                      random_state=0).fit(X[tr], Y[tr])
        freq += np.asarray(m.label_coef_) != 0
    z = heat["z"]
    if isinstance(z, dict):
        import base64

        shape = tuple(int(n) for n in str(z.get("shape", "6, 6")).split(","))
        z = np.frombuffer(base64.b64decode(z["bdata"]), dtype=np.dtype(z["dtype"])).reshape(shape)
    np.testing.assert_allclose(np.asarray(z, dtype=float), freq / 3, atol=1e-12)


def test_while_the_first_fit_runs_the_cooccurrence_graph_is_shown(fresh_dashboard, monkeypatch):
    """A fresh upload whose sparse CDN takes long: the page answers at once with the progress notice
    and the plain co-occurrence graph of the 30 most frequent labels (pair counts of the training
    labels), then, once the fit is done, with both graphs."""
    import threading

    from mlviz.dashboard import methods

    CDN = methods.METHODS["cdn"]
    release = threading.Event()
    start = CDN.path.start

    def slow_start(*args, **kwargs):
        release.wait(60)
        return start(*args, **kwargs)

    monkeypatch.setattr(CDN.path, "start", slow_start)
    monkeypatch.setattr(fresh_dashboard, "WAIT", 0.0)
    ds = many_label_dataset()
    at, ctx = open_upload(ds)
    assert any("Fitting the sparse CDN" in i.value for i in at.info)
    assert not at.metric  # nothing learned yet
    (cooc,) = charts(at)
    labels, written, edges = drawn(cooc)
    counts = ctx.Y_train.sum(axis=0).astype(float)
    top30 = np.lexsort((np.arange(174), -counts))[:30]
    assert set(labels) == {ds.label_names[j] for j in top30} and len(written) <= 50
    Y = np.asarray(ctx.dataset.Y, dtype=np.int64)  # the page's pair counts: the loaded data set
    C = (Y.T @ Y)[np.ix_(np.sort(top30), np.sort(top30))]
    cut = at.slider(key="cooc_min").value
    assert edges == min(int((np.triu(C, 1) >= cut).sum()), 50)
    release.set()
    monkeypatch.setattr(fresh_dashboard, "WAIT", 600.0)
    ok(at.run())
    assert int(metrics(at)["edges (non-zero V entries)"]) >= 0 and len(charts(at)) >= 2
    assert drawn(charts(at)[1])[0] == labels  # the same co-occurrence graph, now beside the learned one


@pytest.mark.slow(seconds=3)
def test_a_long_edge_list_lists_its_strongest_rows_and_says_so():
    """At a small γ the 174-label graph has thousands of edges (~630k at 983 labels): the page lists
    the strongest EDGE_ROWS of them (strongest first, as |V| sorted) and says so."""
    ds = many_label_dataset()
    at, ctx = open_upload(ds, cdn_gamma="1e-03")
    path = reference_path(ctx.X_train, ctx.Y_train, stop_at_auto=False)
    V = path[0.001].label_coef_
    n_edges = int(np.count_nonzero(V))
    assert n_edges > 1000  # more than the page lists
    table = at.dataframe[0].value
    assert len(table) == 1000
    assert any(f"1,000 strongest of these {n_edges:,} edges" in c.value for c in at.caption)
    strongest = np.sort(np.abs(V[V != 0]))[::-1][:1000]
    np.testing.assert_allclose(table["abs_weight"].to_numpy(), strongest, rtol=1e-5, atol=1e-9)
