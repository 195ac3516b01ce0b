"""AppTest tests of the dashboard: every page, every slider, uploads, URL restore.

Each test starts from empty Streamlit caches.  Assertions are on what the page
shows (metric values, figure data, edge counts), not only on the absence of
exceptions.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from _apptest import ok
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
PAGES = {
    "embedding": "pages/1_Embedding.py",
    "graph": "pages/2_Label_graph.py",
    "posteriors": "pages/3_Posteriors.py",
    "compare": "pages/4_Compare.py",
    "sandbox": "pages/5_Sandbox.py",
    "decision": "pages/6_Decision_rules.py",
}
TIMEOUT = 120


@pytest.fixture(autouse=True)
def clear_caches(fresh_dashboard):
    yield


def settle():
    """Wait until the background work (paths, prefetches, figures ahead of time) is done."""
    from mlviz.dashboard import compute

    compute.RUNNER.wait_idle(120)


def page_test(name=None, **query):
    """An AppTest of the page ``name`` (None: home) opened directly, with URL query ``query``."""
    path = APP if name is None else str(ROOT / PAGES[name])
    at = AppTest.from_file(path, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def charts(at):
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def metrics(at):
    return {m.label: m.value for m in at.metric}


def trace_data(fig):
    """Everything numeric in a figure's traces, for 'did the figure change' checks."""
    out = []
    for tr in fig["data"]:
        for k in ("x", "y", "z"):
            v = tr.get(k)
            if isinstance(v, dict) and "bdata" in v:  # plotly's base64 typed arrays
                out.append((k, v["bdata"]))
            elif v is not None:
                out.append((k, json.dumps(v, default=str)))
    return out


def other_value(widget):
    """A value of a select_slider/radio/selectbox different from the current one."""
    options = list(widget.options)
    current = widget.format_func(widget.value) if hasattr(widget, "format_func") else str(widget.value)
    for o in reversed(options):
        if o != current:
            return o
    raise AssertionError("widget has a single option")


# ----------------------------------------------------------------------- home / data

def test_home_shows_default_dataset_statistics_and_figures():
    at = ok(page_test())
    assert any("Data set: emotions" in h.value for h in at.header)
    m = metrics(at)
    assert m["instances"] == "593" and m["features"] == "72" and m["labels"] == "6"
    assert m["cardinality"] == "1.87"
    figs = charts(at)
    assert len(figs) == 2
    bar = figs[0]["data"][0]
    assert bar["type"] == "bar"
    assert not any("nan" in str(df.value).lower() for df in at.dataframe[:1])


def test_home_cooccurrence_normalisation_changes_heatmap():
    at = ok(page_test())
    before = trace_data(charts(at)[1])
    at.radio(key="cooc_norm").set_value("jaccard").run()
    ok(at)
    after = trace_data(charts(at)[1])
    assert before != after


def test_shared_link_restores_dataset_and_controls():
    at = ok(page_test(data="scene", cooc_norm="conditional"))
    assert at.selectbox(key="data").value == "scene"
    assert any("Data set: scene" in h.value for h in at.header)
    assert at.radio(key="cooc_norm").value == "conditional"
    assert metrics(at)["instances"] == "2,407"


@pytest.mark.parametrize("name", list(PAGES))
def test_page_opened_directly_and_via_navigation(name):
    at = ok(page_test(name, emb_umap="false"))
    assert at.title and at.title[0].value
    assert not [e for e in at.error], [e.value for e in at.error]
    nav = AppTest.from_file(APP, default_timeout=TIMEOUT)
    nav.query_params["emb_umap"] = "false"
    nav.run()
    nav.switch_page(PAGES[name]).run()
    ok(nav)
    assert nav.title[0].value == at.title[0].value


# ------------------------------------------------------------------------ posteriors

def test_posteriors_sliders_change_measures():
    at = ok(page_test("posteriors", post_rel="false"))
    base = metrics(at)
    assert set(base) >= {"Micro F1 ↑", "Hamming loss ↓"}
    for key, value in [("post_mllspc_lam", 10.0), ("post_mllspc_gamma", 100.0), ("post_mllspc_sigma_factor", 0.25)]:
        at.select_slider(key=key).set_value(value).run()
        ok(at)
        now = metrics(at)
        assert now != base, f"{key} did not change the measures"
        base = now
    # global threshold (the default rule is each model's own predict)
    at.radio(key="thr_mode").set_value("global").run()
    at.slider(key="thr_global").set_value(0.8).run()
    assert metrics(ok(at))["Micro F1 ↑"] != base["Micro F1 ↑"]
    # rank cut: every test instance gets exactly r labels
    at.radio(key="thr_mode").set_value("rank cut").run()
    ok(at)
    at.slider(key="thr_rank").set_value(2).run()
    assert any("top-2" in c.value for c in ok(at).caption)
    # per label thresholds: one slider per label
    at.radio(key="thr_mode").set_value("per label").run()
    per_label = [s for s in ok(at).slider if str(s.key).startswith("thr_l")]
    assert len(per_label) == 6
    before = metrics(at)["Macro F1 ↑"]
    per_label[0].set_value(0.95).run()
    assert metrics(ok(at))["Macro F1 ↑"] != before


@pytest.mark.slow(seconds=15)
def test_posteriors_every_method_and_each_slider():
    from mlviz.dashboard.methods import METHODS, POSTERIOR_METHODS

    labels = [METHODS[k].label for k in POSTERIOR_METHODS]
    at = ok(page_test("posteriors", post_rel="false", post_models=labels, post_view="one panel per model"))
    assert not at.error, [e.value for e in at.error]
    assert not [i for i in at.info if "not available" in i.value], [i.value for i in at.info]
    figs = charts(at)
    assert len(figs) == len(POSTERIOR_METHODS)
    for fig in figs:  # posterior heatmap beside the truth, values in [0, 1]
        assert [t["type"] for t in fig["data"]][:2] == ["heatmap", "heatmap"]
    # Every slider of the fast seed methods moves the heatmap here; that every other slider reaches
    # its estimator is a unit test (tests/test_registry.py), without fits. (On a page of those methods
    # only, whose fits the run above cached: a rerun then draws 6 figures, not 22.)
    cheap = [k for k in POSTERIOR_METHODS if k in {"mllspc", "lspc", "cdn", "mllem", "mlknn", "br"}]
    at = ok(page_test("posteriors", post_rel="false", post_models=[METHODS[k].label for k in cheap],
                      post_view="one panel per model"))
    for idx, key in enumerate(cheap):
        for p in METHODS[key].sliders:
            before = trace_data(charts(at)[idx])
            widget = at.select_slider(key=f"post_{key}_{p.name}") if len(p.grid) > 4 or all(
                isinstance(v, (int, float)) for v in p.grid) else at.radio(key=f"post_{key}_{p.name}")
            new = p.grid[0] if widget.value != p.grid[0] else p.grid[-1]
            widget.set_value(new).run()
            ok(at)
            assert not at.error, [e.value for e in at.error]
            assert trace_data(charts(at)[idx]) != before, f"{key}.{p.name} did not change the heatmap"
            widget = at.select_slider(key=f"post_{key}_{p.name}") if widget.type == "select_slider" else at.radio(
                key=f"post_{key}_{p.name}")
            widget.set_value(p.default).run()  # back to the default (a cache hit) before the next slider
            assert trace_data(charts(ok(at))[idx]) == before


# ----------------------------------------------------------------------- label graph

def _edges(at):
    return int(metrics(at)["edges (non-zero V entries)"])


# The sparse CDN's settings the mechanism tests below (paths, prefetch, cancel, warm starts) are written
# at, passed in the URL so that they do not depend on the sliders' defaults (methods.METHODS["cdn"]).
# (The URL holds a slider's value as the slider writes it: widgets.fmt_value, e.g. 0.003 -> "3e-03".)
def _url(value):
    from mlviz.dashboard.widgets import fmt_value

    return fmt_value(value)


OLD_CDN = {"gamma": 0.1, "mu": 0.003, "lam": 0.1}
GRAPH_CDN = {"cdn_mu": _url(0.003), "cdn_lam": _url(0.1)}  # the Label graph's γ stays 'auto' unless set
POST_CDN = {f"post_cdn_{k}": _url(v) for k, v in OLD_CDN.items()}


@pytest.mark.slow(seconds=3)
def test_label_graph_sliders_change_graph():
    at = ok(page_test("graph", **GRAPH_CDN))
    assert not at.error
    at.select_slider(key="cdn_gamma").set_value(0.001).run()
    dense_edges = _edges(ok(at))
    at.select_slider(key="cdn_gamma").set_value(0.3).run()
    sparse_edges = _edges(ok(at))
    assert dense_edges > sparse_edges  # larger γ, fewer edges
    at.select_slider(key="cdn_gamma").set_value(1.0).run()
    # γ = γ_max: the empty graph up to solver tolerance (γ_max comes from the V = 0 optimum)
    assert _edges(ok(at)) <= min(1, sparse_edges)
    at.select_slider(key="cdn_gamma").set_value(0.3).run()
    path_fig = charts(at)[2]
    assert any(t.get("name") == "current γ" for t in path_fig["data"])
    feats = metrics(ok(at))["selected features"]
    at.select_slider(key="cdn_mu").set_value(0.1).run()
    assert metrics(ok(at))["selected features"] != feats  # strong ℓ2,1 switches features off
    at.select_slider(key="cdn_gamma").set_value(0.01).run()
    e_before = _edges(ok(at))
    at.select_slider(key="cdn_lam").set_value(1.0).run()
    assert trace_data(charts(ok(at))[3]) or _edges(at) != e_before  # convergence curve present
    assert any("μ = " in c.value and "γ = " in c.value for c in at.caption)  # sparse uses both
    at.selectbox(key="cdn_variant").set_value("lr").run()
    assert _edges(ok(at)) == 0  # LR has no label features
    # ... and neither penalty: the caption says so instead of printing values that change nothing
    assert any("γ is not used by the lr variant" in c.value and "μ is not used by the lr variant" in c.value
               for c in at.caption)
    cooc = trace_data(charts(at)[1])
    at.slider(key="cooc_min").set_value(1).run()
    assert trace_data(charts(ok(at))[1]) != cooc
    # edge stability across folds: a heatmap of frequencies in [0, 1]
    at.selectbox(key="cdn_variant").set_value("sparse").run()
    n_before = len(charts(ok(at)))
    at.button(key="cdn_stability").click().run()
    figs = charts(ok(at))
    assert len(figs) == n_before + 1
    assert not at.error, [e.value for e in at.error]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # provoked here
def test_label_graph_says_when_fista_stopped_before_its_tolerance(monkeypatch):
    from mlviz.dashboard import methods

    at = ok(page_test("graph", **GRAPH_CDN))
    assert not any("FISTA stopped after" in c.value for c in at.caption)
    monkeypatch.setitem(methods.METHODS["cdn"].fixed, "max_iter", 3)
    at.selectbox(key="cdn_variant").set_value("l1-cdn").run()  # a path of ≤ 3 iterations per point
    assert not ok(at).error, [e.value for e in at.error]
    assert metrics(at)["FISTA iterations"] == "3"
    assert any("FISTA stopped after 3 iterations" in c.value for c in at.caption)


def _path_reference(ratio, mu, lam=0.1, variant="sparse"):
    """The model at γ = ratio · γ_max of the γ path computed here from scratch: the empty graph's
    fit, then warm-started refits down the slider's grid (emotions split)."""
    import copy

    from mlviz.dashboard.methods import METHODS
    from mlviz.data import load_protocol_split
    from mlviz.models.cdn import SparseCDN
    from mlviz.preprocessing import scale_split

    train, test = load_protocol_split("emotions")
    X, _ = scale_split(train.X, test.X, "standard")
    Y = np.asarray(train.Y)
    model = SparseCDN(gamma=1e12, lam1=lam, lam2=lam, mu=mu * Y.shape[0], variant=variant, random_state=0,
                      empty_set="auto").fit(X, Y)
    for r in sorted(METHODS["cdn"].param("gamma").grid, reverse=True):
        model = copy.deepcopy(model).refit(gamma_ratio=r)
        if r == ratio:
            return model, X
    raise AssertionError(ratio)


def _shown_edges(at):
    table = at.dataframe[0].value
    return {(f, t): w for f, t, w in zip(table["source"], table["target"], table["weight"])}


def _values(v):
    """A trace array from a figure's JSON (plain list or plotly's base64 typed array)."""
    if isinstance(v, dict) and "bdata" in v:
        import base64

        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).tolist()
    return list(v)


def _path_points(at):
    """(γ values, edge counts) drawn in the regularisation-path figure."""
    edges = next(t for t in charts(at)[2]["data"] if t.get("name") == "edges in the label graph")
    return _values(edges["x"]), [int(y) for y in _values(edges["y"])]


def _assert_is_the_path_fit(at, ratio, mu, lam):
    """The graph on screen is the path's model at these settings, computed independently."""
    from mlviz.data import load_sample

    L = list(load_sample("emotions").label_names)
    ref, _ = _path_reference(ratio, mu, lam=lam)
    ref_edges = {(L[u], L[v]): d["weight"] for u, v, d in ref.label_graph_.edges(data=True)}
    shown = _shown_edges(at)
    assert set(shown) == set(ref_edges)
    np.testing.assert_allclose([shown[e] for e in ref_edges], list(ref_edges.values()), rtol=1e-10, atol=1e-12)
    assert int(metrics(at)["edges (non-zero V entries)"]) == len(ref_edges)
    assert metrics(at)["selected features"] == f"{len(ref.selected_features_)} / 72"
    return shown


def _graph_view(at):
    return metrics(at), _shown_edges(at)


@pytest.mark.slow(seconds=6)
def test_label_graph_same_settings_same_graph_whatever_was_viewed_before():
    """Issue 13: one Label graph setting reached from several previous settings, in one session
    and from fresh pages, shows identical edges, selected features and measures."""
    target = dict(cdn_gamma=0.1, cdn_mu=0.01, cdn_lam=0.1, cdn_variant="sparse")
    fresh = ok(page_test("graph", **{k: _url(v) for k, v in target.items()}))
    reference = _graph_view(fresh)
    _assert_is_the_path_fit(fresh, 0.1, 0.01, 0.1)
    starts = [dict(cdn_mu=0.1), dict(cdn_gamma=0.001, cdn_mu=0.0), dict(cdn_lam=1.0, cdn_gamma=0.5),
              dict(cdn_variant="l1-cdn", cdn_mu=0.003), dict(cdn_lam=0.001, cdn_mu=0.03, cdn_gamma=0.01)]
    for start in starts:
        at = ok(page_test("graph", **{k: _url(v) for k, v in start.items()}))
        assert all((at.selectbox(key=k) if k == "cdn_variant" else at.select_slider(key=k)).value == v
                   for k, v in start.items()), start  # the link's settings were applied
        # move each control to the target, the variant first (a variant may disable the μ or γ slider)
        for k, v in sorted(target.items(), key=lambda kv: kv[0] != "cdn_variant"):
            (at.selectbox(key=k) if k == "cdn_variant" else at.select_slider(key=k)).set_value(v).run()
        assert _graph_view(ok(at)) == reference, start
    # ... and a fresh page again, after all that history in this process
    assert _graph_view(ok(page_test("graph", **{k: _url(v) for k, v in target.items()}))) == reference


@pytest.mark.slow(seconds=3)
def test_posteriors_same_settings_same_measures_whatever_was_viewed_before():
    base = dict(post_rel="false", post_models=["Sparse CDN"], post_cdn_lam=POST_CDN["post_cdn_lam"])
    fresh = ok(page_test("posteriors", post_cdn_mu="0.01", post_cdn_gamma="0.1", **base))
    reference = metrics(fresh)
    for mu, gamma in [(0.1, 0.5), (0.0, 0.001), (0.03, 0.1)]:
        at = ok(page_test("posteriors", post_cdn_mu=_url(mu), post_cdn_gamma=_url(gamma), **base))
        assert (at.select_slider(key="post_cdn_mu").value, at.select_slider(key="post_cdn_gamma").value) == (mu, gamma)
        at.select_slider(key="post_cdn_gamma").set_value(0.1).run()
        at.select_slider(key="post_cdn_mu").set_value(0.01).run()
        assert metrics(ok(at)) == reference, (mu, gamma)


def test_two_sessions_never_change_cancel_or_pause_each_others_work(monkeypatch):
    """Session A's fit under way survives session B's slider moves, and each shows its own result."""
    from mlviz.dashboard import compute, methods, state

    CDN = methods.METHODS["cdn"]
    ctx = state.sample_context("emotions")
    monkeypatch.setattr(compute, "prefetch", lambda *a, **k: None)  # only the work the users asked for
    a = ok(page_test("graph", cdn_gamma="0.1", **GRAPH_CDN))
    b = ok(page_test("graph", cdn_gamma="0.1", **GRAPH_CDN))
    monkeypatch.setattr(compute, "WAIT", 0.0)
    a.select_slider(key="cdn_mu").set_value(0.1).run()  # A answers at once; its path runs on
    a_values = dict(gamma=0.1, mu=0.1, lam=0.1, variant="sparse")
    a_job = compute.RUNNER.job(compute.path_key(ctx, CDN, a_values))
    b.select_slider(key="cdn_lam").set_value(1.0).run()  # B moves (twice) meanwhile
    b.select_slider(key="cdn_lam").set_value(0.01).run()
    monkeypatch.setattr(compute, "WAIT", 600.0)
    if a_job is not None:  # (None: A's path was already done)
        steps = a_job.result(120)  # not cancelled by B's moves
        assert 0.1 in steps
    ok(a.run()), ok(b.run())
    _assert_is_the_path_fit(a, 0.1, 0.1, 0.1)
    _assert_is_the_path_fit(b, 0.1, 0.003, 0.01)
    ok(b.run())
    _assert_is_the_path_fit(a, 0.1, 0.1, 0.1)  # A's page did not change


@pytest.mark.slow(seconds=3)
def test_label_graph_gamma_move_is_a_lookup_on_the_path():
    at = ok(page_test("graph", **GRAPH_CDN))
    settle()
    ok(at.run())
    xs, ys = _path_points(at)
    assert len(xs) == 8
    for i, g in enumerate(sorted([0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1.0])):
        at.select_slider(key="cdn_gamma").set_value(g).run()
        assert int(metrics(ok(at))["edges (non-zero V entries)"]) == ys[i]
    _assert_is_the_path_fit(at, 1.0, 0.003, 0.1)
    at.select_slider(key="cdn_mu").set_value(0.1).run()
    at.select_slider(key="cdn_gamma").set_value(0.3).run()
    _assert_is_the_path_fit(at, 0.3, 0.1, 0.1)


def test_label_graph_neighbour_move_is_prepared_ahead_of_time():
    """Once the page has settled, the paths at the neighbouring μ / λ values (and their figures)
    are prepared in the background; a move there shows that very path's fit."""
    from mlviz.dashboard import compute, methods, state

    CDN = methods.METHODS["cdn"]
    ctx = state.sample_context("emotions")
    at = ok(page_test("graph", **GRAPH_CDN))
    at.select_slider(key="cdn_gamma").set_value(0.3).run()
    settle()
    ok(at.run())  # the path is done (the page reruns itself): now the neighbours are prepared
    settle()
    up = dict(gamma=0.3, mu=0.01, lam=0.1, variant="sparse")  # μ one step up
    assert compute.RUNNER.peek(compute.path_key(ctx, CDN, up)) is not None
    assert compute.RUNNER.peek(compute.path_key(ctx, CDN, dict(up, mu=0.003, lam=1.0))) is not None
    prefix = "figure|" + methods.key(ctx.key, "cdn", CDN.complete(up), "graph")  # (+ "|" the drawing options)
    assert any(k.startswith(prefix) for k in list(compute.RUNNER.results._data))
    steps = compute.RUNNER.peek(compute.path_key(ctx, CDN, up))
    at.select_slider(key="cdn_mu").set_value(0.01).run()
    assert int(metrics(ok(at))["edges (non-zero V entries)"]) == steps[0.3]["n_edges"]
    _assert_is_the_path_fit(at, 0.3, 0.01, 0.1)


def test_posteriors_cdn_neighbour_move_is_served_ahead_of_time():
    from mlviz.dashboard import compute, methods, state
    from mlviz.metrics import evaluate

    CDN = methods.METHODS["cdn"]
    ctx = state.sample_context("emotions")
    at = ok(page_test("posteriors", post_rel="false", post_models=["Sparse CDN"], **POST_CDN))
    settle()
    values = {"gamma": 0.1, "mu": 0.003, "lam": 0.01, "variant": "sparse"}  # λ one step down
    ahead = compute.RUNNER.peek(compute.model_key(ctx, CDN, values, "report"))  # (posteriors + own predict)
    assert ahead is not None
    ref, _ = _path_reference(0.1, 0.003, lam=0.01)
    np.testing.assert_allclose(ahead[0]["P"], compute.finite(ref.predict_proba(ctx.X_test)), rtol=0, atol=1e-12)
    at.select_slider(key="post_cdn_lam").set_value(0.01).run()
    assert not ok(at).error, [e.value for e in at.error]
    # own rule: t = 0.5, and a row left empty gets its most probable label (empty_set="auto": no training
    # row of emotions is empty)
    P = ahead[0]["P"]
    want = P >= 0.5
    empty = ~want.any(axis=1)
    want[np.flatnonzero(empty), P[empty].argmax(axis=1)] = True
    np.testing.assert_array_equal(ahead[0]["pred"], want)
    expected = evaluate(ctx.Y_test, P, y_pred=want, measures=["micro_f1", "macro_auc"])
    assert metrics(at)["Micro F1 ↑"] == f"{expected['micro_f1']:.3f}"
    assert metrics(at)["Macro AUC ↑"] == f"{expected['macro_auc']:.3f}"


def _notices(at, what="Fitting the sparse CDN"):
    return [i.value for i in at.info if what in i.value]


def test_label_graph_slow_fit_answers_at_once_with_the_previous_fit_then_shows_the_new_one(monkeypatch):
    """A μ move whose path point is not there within the wait answers with the previous graph and a
    notice of the work under way; once it is done the page (rerun by the notice's timer) shows it."""
    from mlviz.dashboard import compute

    monkeypatch.setattr(compute, "prefetch", lambda *a, **k: None)  # so that μ = 0.1 is not prepared
    at = ok(page_test("graph", **GRAPH_CDN))
    at.select_slider(key="cdn_gamma").set_value(0.3).run()
    settle()
    before, graph_before, edges_before = metrics(at), trace_data(charts(at)[0]), _shown_edges(at)
    monkeypatch.setattr(compute, "WAIT", 0.0)
    at.select_slider(key="cdn_mu").set_value(0.1).run()
    assert not ok(at).error, [e.value for e in at.error]
    notices = _notices(at)
    if notices:  # (empty if the path point was computed before the rerun looked: a fast machine)
        (notice,) = notices
        assert "mu = 0.1" in notice and ("previous result (gamma = 0.3, mu = 3e-03, lam = 0.1, "
                                         "variant = sparse)") in notice
        assert metrics(at) == before and trace_data(charts(at)[0]) == graph_before and _shown_edges(at) == edges_before
        assert at.select_slider(key="cdn_mu").value == 0.1  # the slider stays where the user put it
    settle()
    ok(at.run())
    assert not _notices(at)
    assert metrics(at)["selected features"] != before["selected features"]
    _assert_is_the_path_fit(at, 0.3, 0.1, 0.1)


def test_cancel_puts_the_controls_back(monkeypatch):
    from mlviz.dashboard import compute

    monkeypatch.setattr(compute, "prefetch", lambda *a, **k: None)
    at = ok(page_test("graph", **GRAPH_CDN))
    before = _graph_view(at)
    monkeypatch.setattr(compute, "WAIT", 0.0)
    at.select_slider(key="cdn_mu").set_value(0.1).run()
    if not _notices(at):
        pytest.skip("the path point was there before the rerun looked (fast machine)")
    at.button(key="cancel|graph").click().run()
    assert at.select_slider(key="cdn_mu").value == OLD_CDN["mu"]  # where it was before the move
    assert _graph_view(ok(at)) == before


def test_posteriors_slow_cdn_fit_answers_at_once_then_shows_the_new_posteriors(monkeypatch):
    from mlviz.dashboard import compute, state
    from mlviz.metrics import evaluate

    ctx = state.sample_context("emotions")
    monkeypatch.setattr(compute, "prefetch", lambda *a, **k: None)  # so that μ = 0.1 is not prepared
    at = ok(page_test("posteriors", post_rel="false", post_models=["Sparse CDN"], **POST_CDN))
    settle()
    before, heat = metrics(at), trace_data(charts(at)[0])
    monkeypatch.setattr(compute, "WAIT", 0.0)
    at.select_slider(key="post_cdn_mu").set_value(0.1).run()
    assert not ok(at).error
    if _notices(at, "Fitting Sparse CDN"):
        assert metrics(at) == before and trace_data(charts(at)[0]) == heat
    settle()
    ok(at.run())
    assert not _notices(at, "Fitting Sparse CDN") and trace_data(charts(at)[0]) != heat
    ref, _ = _path_reference(0.1, 0.1)
    P = compute.finite(ref.predict_proba(ctx.X_test))
    pred = (P >= 0.5).astype(np.uint8)  # the registry's rule: threshold 0.5, at least one label per row
    assert ref.allow_empty_ is False
    pred[~pred.any(axis=1), P[~pred.any(axis=1)].argmax(axis=1)] = 1
    expected = evaluate(ctx.Y_test, P, y_pred=pred, measures=["micro_f1"])
    assert metrics(at)["Micro F1 ↑"] == f"{expected['micro_f1']:.3f}"
    assert any("warm-started along the regularisation path" in c.value for c in at.caption)


def test_posteriors_cdn_mu_move_changes_posteriors():
    at = ok(page_test("posteriors", post_rel="false", post_models=["Sparse CDN"], **POST_CDN))
    settle()
    before, heat = metrics(at), trace_data(charts(at)[0])
    for mu in (0.1, 0.0):
        at.select_slider(key="post_cdn_mu").set_value(mu).run()
        assert not ok(at).error, [e.value for e in at.error]
        assert trace_data(charts(at)[0]) != heat
        heat = trace_data(charts(at)[0])
    assert metrics(at) != before
    settle()  # the other γ of the new μ are prepared in the background
    at.select_slider(key="post_cdn_gamma").set_value(0.01).run()
    assert trace_data(charts(ok(at))[0]) != heat


# ------------------------------------------------------------------------- embedding

def test_embedding_sliders_and_colouring_change_figure():
    at = ok(page_test("embedding", emb_umap="false"))
    fig = charts(at)[0]
    assert fig["data"][-1]["meta"] == "labels" and len(fig["data"][-1]["text"]) == 6
    for key, value in [("emb_mllem_k_instances", 3), ("emb_mllem_beta", 0.0), ("emb_mllem_alpha", 10.0),
                       ("emb_mllem_k_labels", 0)]:
        before = trace_data(charts(at)[0])
        default = at.select_slider(key=key).value
        at.select_slider(key=key).set_value(value).run()
        ok(at)
        assert trace_data(charts(at)[0]) != before, key
        at.select_slider(key=key).set_value(default).run()  # independent moves
        assert trace_data(charts(ok(at))[0]) == before
    test_before = [t for t in charts(at)[0]["data"] if t.get("meta") == "test"]
    at.radio(key="emb_mllem_mapping").set_value("linear").run()
    test_after = [t for t in charts(ok(at))[0]["data"] if t.get("meta") == "test"]
    assert trace_data({"data": test_before}) != trace_data({"data": test_after})
    n_traces = len(charts(at)[0]["data"])
    at.radio(key="emb_color").set_value("label count").run()
    assert len(charts(ok(at))[0]["data"]) != n_traces
    at.radio(key="emb_color").set_value("posterior").run()
    assert "P(" in json.dumps(charts(ok(at))[0]["layout"]) + json.dumps(charts(at)[0]["data"])
    at.segmented_control(key="emb_dims").set_value(3).run()
    assert charts(ok(at))[0]["data"][0]["type"] == "scatter3d"


# --------------------------------------------------------------------------- compare

def test_compare_runs_cross_validation_and_timing():
    at = ok(page_test("compare"))
    assert any("Run cross-validation" in i.value for i in at.info)
    at.multiselect(key="cmp_methods").set_value(["ML-LSPC", "BR-LR"])
    at.select_slider(key="cmp_folds").set_value(2)
    at.button(key="cmp_run").click().run()
    ok(at)
    assert not at.error, [e.value for e in at.error]
    figs = charts(at)
    assert len(figs) == 2
    methods_in_bars = {t["name"] for t in figs[0]["data"] if t.get("name")}
    assert {"ML-LSPC", "BR-LR"} <= methods_in_bars
    assert figs[1]["layout"]["yaxis"]["type"] == "log"
    summary = at.dataframe[0].value  # the methods, then the two trivial references
    assert set(summary.index[:2]) == {"ML-LSPC", "BR-LR"}
    assert list(summary.index[2:]) == ["ref: rank by training frequency", "ref: predict nothing"]
    at.button(key="cmp_scaling").click().run()
    ok(at)
    names = {t.get("name") for t in charts(at)[-1]["data"]}
    assert {"naive", "cg", "eig"} <= names
    at.button(key="cmp_klr").click().run()
    assert len(charts(ok(at))) == 4


# --------------------------------------------------------------------------- uploads

def _upload(at, name, content, labels=None, label_columns=None, error_expected=False):
    at.expander  # noqa: B018  (the upload form lives in an expander; widgets are still reachable)
    at.file_uploader(key="upload_file").set_value((name, content, "application/octet-stream"))
    if labels is not None:
        at.file_uploader(key="upload_labels").set_value(labels)
    at.run()
    if label_columns is not None:
        at.multiselect(key="upload_label_columns").set_value(label_columns).run()
    at.button(key="upload_load").click().run()
    return ok(at, error_expected=error_expected)


def _formats(tmp_path):
    from mlviz.data import load_sample, save_arff, save_csv, save_libsvm

    ds = load_sample("emotions")
    sample = ROOT / "sample_data"
    out = {"arff+xml": ("emotions.arff.gz", (sample / "emotions.arff.gz").read_bytes(),
                        ("emotions.xml", (sample / "emotions.xml").read_bytes(), "text/xml"))}
    small = ds.subset(np.arange(60)) if hasattr(ds, "subset") else ds
    p = tmp_path / "small.csv"
    save_csv(small, p)
    out["csv"] = ("small.csv", p.read_bytes(), None)
    p = tmp_path / "small.svm"
    save_libsvm(small, p)
    out["libsvm"] = ("small.svm", p.read_bytes(), None)
    p = tmp_path / "meka.arff"
    try:
        save_arff(small, p, meka=True)
    except TypeError:
        save_arff(small, p)
    text = p.read_text()
    if "-C" not in text.split("\n", 3)[0] + text[:500]:  # make it a MEKA header: labels last → -C -6
        text = (text.replace("@relation ", "@relation 'meka: -C -6' ", 1)
                .replace("@RELATION ", "@RELATION 'meka: -C -6' ", 1))
    out["meka"] = ("meka.arff", text.encode(), None)
    buf = io.BytesIO()
    X = small.X.toarray() if hasattr(small.X, "toarray") else small.X
    np.savez(buf, X=X, Y=small.Y)
    out["npz"] = ("small.npz", buf.getvalue(), None)
    return out, small


def test_upload_each_supported_format(tmp_path):
    formats, small = _formats(tmp_path)
    at = ok(page_test())
    for fmt, (name, content, labels) in formats.items():
        cols = None
        _upload(at, name, content, labels=labels, label_columns=cols)
        assert not at.error, (fmt, [e.value for e in at.error])
        assert at.selectbox(key="data").value.startswith("upload:" + name), fmt
        m = metrics(at)
        assert m["labels"] == "6", fmt
        assert m["instances"] == ("593" if fmt == "arff+xml" else str(small.n_samples)), fmt


def test_upload_csv_with_label_column_picker(tmp_path):
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 3)), columns=["f1", "f2", "f3"])
    frame.insert(0, "tag_a", (rng.random(40) > 0.5).astype(int))  # labels NOT at the end
    frame.insert(1, "tag_b", (rng.random(40) > 0.5).astype(int))
    at = ok(page_test())
    _upload(at, "picked.csv", frame.to_csv(index=False).encode(), label_columns=["tag_a", "tag_b"])
    assert not at.error, [e.value for e in at.error]
    m = metrics(at)
    assert m["labels"] == "2" and m["features"] == "3" and m["instances"] == "40"


def test_broken_upload_shows_one_error_and_keeps_previous_dataset(tmp_path):
    at = ok(page_test(cooc_norm="jaccard"))
    at.selectbox(key="data").set_value("yeast").run()
    ok(at)
    before = metrics(at)
    _upload(at, "broken.arff", b"@relation x\n@attribute a numeric\n@data\n1,2,3\n", error_expected=True)
    assert len(at.error) == 1
    assert "broken.arff" in re.sub(r"\\(.)", r"\1", at.error[0].value)  # (shown escaped: literal text)
    assert at.selectbox(key="data").value == "yeast"
    assert metrics(at) == before
    assert at.radio(key="cooc_norm").value == "jaccard"  # settings kept
    _upload(at, "empty.csv", b"", error_expected=True)
    assert len(at.error) == 1 and at.selectbox(key="data").value == "yeast"


@pytest.mark.slow(seconds=8)
def test_compare_every_method_own_decision_rule():
    from mlviz.dashboard.methods import METHODS, POSTERIOR_METHODS

    labels = [METHODS[k].label for k in POSTERIOR_METHODS]
    at = ok(page_test("compare", cmp_folds="2", cmp_rule="each method's own rule", cmp_methods=labels))
    at.button(key="cmp_run").click().run()
    ok(at)
    assert not at.error, [e.value for e in at.error]
    # no failed method x fold: the only warnings are the notes of methods below a trivial bar
    assert all("Why this can happen" in w.value for w in at.warning), [w.value for w in at.warning]
    summary = at.dataframe[0].value
    assert set(summary.index) == set(labels) | {"ref: rank by training frequency", "ref: predict nothing"}
    assert not summary.isin(["nan ± nan"]).any().any()


@pytest.mark.parametrize("model", ["Sparse CDN", "ML-kNN", "MLRH"])
def test_embedding_coloured_by_each_models_posterior(model):
    at = ok(page_test("embedding", emb_umap="false", emb_color="posterior", emb_model=model))
    assert not at.warning and not at.error, [w.value for w in at.warning] + [e.value for e in at.error]
    fig = charts(at)[0]
    train = [t for t in fig["data"] if t.get("meta") == "train"]
    assert len(train) == 1 and "colorbar" in train[0]["marker"]  # continuous colouring in [0, 1]
    assert model in json.dumps(fig)
