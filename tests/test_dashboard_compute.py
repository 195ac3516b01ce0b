"""The compute layer: results are functions of the settings only (not of what was computed before),
the registry's slider → estimator translation, and a cancelled γ path resuming to the same result."""

from __future__ import annotations

import numpy as np
import pytest

from mlviz.dashboard import compute, jobs, methods, state

T = 120
CDN = methods.METHODS["cdn"]


@pytest.fixture(scope="module")
def ctx():
    return state.sample_context("emotions")


@pytest.fixture(autouse=True)
def fresh():
    compute.RUNNER.clear()
    compute.RUNNER.wait_idle(T)
    yield
    compute.RUNNER.clear()
    compute.RUNNER.wait_idle(T)


def _posteriors(ctx, values, owner=None):
    return compute.posteriors(ctx, CDN, values, owner=owner).result(T)[0]


def test_same_settings_same_posteriors_whatever_was_computed_before(ctx):
    target = dict(gamma=0.1, mu=0.01, lam=0.1, variant="sparse")
    reference = _posteriors(ctx, target)
    steps = compute.RUNNER.peek(compute.path_key(ctx, CDN, target))
    for history in ([dict(target, mu=0.1), dict(target, gamma=0.001)],
                    [dict(target, lam=1.0, gamma=0.5), dict(target, variant="l1-cdn")]):
        compute.RUNNER.clear()
        for values in history:  # other settings first, by the same owner (each cancels the previous)
            _posteriors(ctx, values, owner=("s", "panel"))
        again = _posteriors(ctx, target, owner=("s", "panel"))
        np.testing.assert_array_equal(again, reference)
        other = compute.RUNNER.peek(compute.path_key(ctx, CDN, target))
        assert [s["n_edges"] for _, s in sorted(other.items())] == [s["n_edges"] for _, s in sorted(steps.items())]


def test_a_cancelled_path_resumes_to_the_same_steps(ctx):
    values = dict(gamma=0.1, mu=0.003, lam=0.1, variant="sparse")
    full = compute.path(ctx, CDN, values).result(T)
    compute.RUNNER.clear()
    job = compute.path(ctx, CDN, values, owner=("s", "graph"))
    compute.RUNNER.wait(job, lambda j: len(j.partial or {}) >= 3, T)
    compute.RUNNER.cancel(("s", "graph"))
    with pytest.raises(jobs.Cancelled):
        job.result(T)
    known = compute.known_steps(ctx, CDN, values)  # the points computed before the cancel are kept
    assert len(known) >= 3
    resumed = compute.path(ctx, CDN, values).result(T)
    assert sorted(resumed) == sorted(full)
    for p in full:
        np.testing.assert_array_equal(resumed[p]["model"].label_coef_, full[p]["model"].label_coef_)


def test_a_fast_slider_is_a_refit_of_the_base_model_equal_to_a_fresh_fit(ctx):
    m = methods.METHODS["mllspc"]
    values = dict(lam=1.0, gamma=0.3, sigma_factor=1.0)
    P = compute.posteriors(ctx, m, values).result(T)[0]
    fresh = m.from_sliders(values, compute.scale(ctx)).fit(ctx.X_train, ctx.Y_train)
    np.testing.assert_allclose(P, compute.finite(fresh.predict_proba(ctx.X_test)), rtol=1e-9, atol=1e-12)
    # the base model (fast sliders at their defaults) was fitted once and is left as it was
    base, _ = compute.RUNNER.peek(compute.base_key(ctx, m, values))
    assert base.lam == m.param("lam").default and base.gamma == m.param("gamma").default


def test_at_the_fast_sliders_defaults_the_base_model_is_used_without_a_refit(ctx):
    m = methods.METHODS["mllspc"]
    values = m.defaults()
    P, info = compute.posteriors(ctx, m, values).result(T)
    assert "reused" not in info  # (a refit at the base model's own values was ~6 s of MLLEM at 983 labels)
    fresh = m.from_sliders(values, compute.scale(ctx)).fit(ctx.X_train, ctx.Y_train)
    np.testing.assert_allclose(P, compute.finite(fresh.predict_proba(ctx.X_test)), rtol=1e-9, atol=1e-12)


def test_the_registry_translates_sliders_in_one_place(ctx):
    scale = compute.scale(ctx)
    kw = CDN.kwargs(dict(gamma=0.3, mu=0.01, lam=1.0, variant="cdn"), scale)
    assert kw["mu"] == pytest.approx(0.01 * ctx.Y_train.shape[0])  # μ / N → μ (eq. 4 sums over N)
    assert kw["lam1"] == kw["lam2"] == 1.0 and kw["variant"] == "cdn" and "gamma" not in kw  # γ: the path
    kw = methods.METHODS["klr"].kwargs({"sigma_factor": 2.0}, scale)
    assert kw["sigma"] == pytest.approx(2.0 * scale.median_distance())
    br = methods.METHODS["br"].from_sliders({"C": 10.0}, scale)
    assert br.C == 10.0 and br.scale_C
    assert methods.METHODS["mlknn"].complete({"k": 3, "unknown": 1}) == {"k": 3, "s": 0.5}  # s: its default
    a = methods.key("d", "cdn", {"mu": 0.1, "lam": 1.0})
    assert a == methods.key("d", "cdn", {"lam": 1.0, "mu": 0.1}) != methods.key("d", "cdn", {"lam": 1.0, "mu": 0.3})


def test_median_distance_matches_its_definition(ctx):
    from scipy.spatial.distance import pdist

    X = np.random.default_rng(0).normal(size=(50, 4))
    assert methods.median_distance(X) == pytest.approx(np.median(pdist(X)))
    assert methods.median_distance(np.ones((5, 2))) == 1.0


def _edges(graph):
    return sorted((u, v, d["weight"]) for u, v, d in graph.edges(data=True))


def test_a_path_step_builds_its_graph_on_demand_from_V(ctx):
    """A γ path keeps no networkx graph (at 983 labels and a small γ one is ~190 MB per point):
    ``step["graph"]`` is built from the model's V, equals an edge t → k per non-zero V[t, k]
    with that weight, and is kept in the result cache beside the path while there is room."""
    values = dict(gamma=0.01, mu=0.003, lam=0.1, variant="sparse")
    steps = compute.path(ctx, CDN, values).result(T)
    step = steps[values["gamma"]]
    assert "graph" not in step and all("graph" not in s for s in steps.values())
    V = step["model"].label_coef_
    reference = sorted((int(t), int(k), float(V[t, k])) for t, k in zip(*np.nonzero(V)))
    graph = step["graph"]
    assert _edges(graph) == reference and len(reference) == step["n_edges"] > 0
    assert sorted(graph.nodes) == list(range(V.shape[0]))
    assert step["graph"] is graph  # kept: the page reads it several times per run
    with pytest.raises(KeyError):
        step["no such entry"]


def test_a_path_steps_graph_never_evicts_a_result(ctx):
    values = dict(gamma=0.01, mu=0.003, lam=0.1, variant="sparse")
    steps = compute.path(ctx, CDN, values).result(T)
    results = compute.RUNNER.results
    budget = results.budget
    try:
        results.budget = results._bytes + 10  # full: the graph does not fit beside what is kept
        kept = list(results._data)
        step = steps[values["gamma"]]
        first = step["graph"]
        assert list(results._data) == kept  # nothing evicted, the graph not kept
        again = step["graph"]
        assert again is not first and _edges(again) == _edges(first)  # rebuilt, the same graph
    finally:
        results.budget = budget


def test_the_points_of_a_path_share_their_training_data(ctx):
    """Each point is a deep copy of the previous model refitted; the training arrays (X and the
    validated Y) are shared by all points, not copied eight times."""
    steps = compute.path(ctx, CDN, dict(gamma=0.1, mu=0.003, lam=0.1, variant="sparse")).result(T)
    trains = [s["model"]._train for s in steps.values()]
    assert len(trains) == len(CDN.param("gamma").grid)
    assert all(t[0] is trains[0][0] and t[1] is trains[0][1] for t in trains)
    assert trains[0][0] is ctx.X_train


def test_a_steps_subgraph_equals_the_subgraph_of_its_graph(ctx):
    """The Label graph draws ≤ 50 labels by default: their graph is read from V[nodes][:, nodes]
    without the graph of all labels, and equals ``step["graph"].subgraph(nodes)`` (nodes, edges,
    weights, and the order a figure builder iterates them in)."""
    steps = compute.path(ctx, CDN, dict(gamma=0.01, mu=0.003, lam=0.1, variant="sparse")).result(T)
    step = steps[0.01]
    nodes = [5, 0, 3, 2, 1]
    fast = compute.step_subgraph(step, nodes)
    assert f"{step['path']}|graph|0.01" not in compute.RUNNER.results  # built without the whole graph
    reference = step["model"].label_graph_.subgraph(nodes)
    assert list(fast.nodes) == list(reference.nodes)
    assert list(fast.edges(data="weight")) == list(reference.edges(data="weight"))
    assert fast.number_of_edges() > 0
    step["graph"]  # once the whole graph is kept, its subgraph is used
    kept = compute.step_subgraph(step, nodes)
    assert list(kept.edges(data="weight")) == list(reference.edges(data="weight"))
    assert compute.step_subgraph({"graph": reference}, [0, 1]).number_of_nodes() == 2  # a plain step


def test_threshold_key_separates_rules_and_rounds_equal_ones_together():
    import types

    import numpy as np

    from mlviz.dashboard.methods import threshold_key

    assert threshold_key(None) == "none" and threshold_key(0.5) == "t0.5"
    assert threshold_key(types.SimpleNamespace(r=3)) == "rcut3"
    a = threshold_key(np.array([0.3, 0.5]))
    assert a.startswith("pl") and a == threshold_key([0.3 + 1e-9, 0.5]) != threshold_key([0.3, 0.51])


def test_a_quick_preview_only_where_the_exact_kernel_fit_is_slow(ctx, monkeypatch):
    """A kernel method gets a preview at fewer centres when n · B · (B + 2L) flops exceed the bar;
    methods without a centres slider, or with at most the preview's centres, never."""
    import dataclasses

    m = methods.METHODS["mllspc"]
    n, L = ctx.Y_train.shape
    B = min(n, 2000)  # "auto": every training row up to 2,000 (mlviz.models._kernels.resolve_n_centers)
    monkeypatch.setattr(compute, "PREVIEW_CENTERS", 100)
    monkeypatch.setattr(compute, "PREVIEW_FLOPS", float(n) * B * (B + 2 * L))  # exactly at the bar: a preview
    settings, text = compute.preview_values(ctx, m, {})
    assert settings == {**m.defaults(), "n_centers": 100} and text == f"100 kernel centres instead of {B}"
    monkeypatch.setattr(compute, "PREVIEW_FLOPS", float(n) * B * (B + 2 * L) + 1)  # just below it: none
    assert compute.preview_values(ctx, m, {}) is None
    monkeypatch.setattr(compute, "PREVIEW_FLOPS", 0.0)
    assert compute.preview_values(ctx, m, {"n_centers": 100}) is None   # the preview's own setting
    assert compute.preview_values(ctx, m, {"n_centers": 250})[0]["n_centers"] == 100
    assert compute.preview_values(ctx, methods.METHODS["mlknn"], {}) is None  # no centres slider
    few = dataclasses.replace(ctx, Y_train=ctx.Y_train[:90])              # fewer rows than preview centres
    assert compute.preview_values(few, m, {}) is None
