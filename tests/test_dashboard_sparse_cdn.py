"""The dashboard's sparse CDN fits (mlviz.dashboard.sparse_cdn), without a page.

A μ/λ move is one warm-started refit at the slider's γ ratio; the γ path is
computed in the background, seeded by that fit.  These tests check the fits
against cold fits and the background worker's order of work.
"""

from __future__ import annotations

import numpy as np
import pytest

from mlviz.dashboard import cache, cdn_prefetch, sparse_cdn
from mlviz.models.cdn import SparseCDN

RATIOS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1.0)


@pytest.fixture(autouse=True)
def fresh():
    sparse_cdn.clear()
    yield
    sparse_cdn.clear()
    cache.wait_prebuilt(60)


def _edges(model):
    return set(model.label_graph_.edges())


def _assert_same_optimum(model, cold):
    """Two fits of the same convex objective (4) agree to the solver's tolerance: same
    objective value and same edges (coefficients may differ more along flat directions)."""
    assert model.objective_history_[-1] == pytest.approx(cold.objective_history_[-1], rel=1e-5)
    assert _edges(model) == _edges(cold)


def test_mu_move_is_one_warm_refit_equal_to_a_cold_fit(ctx):
    first = sparse_cdn.current_step(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.3)
    moved = sparse_cdn.current_step(ctx, lam=0.1, mu=0.1, variant="sparse", ratio=0.3)
    assert moved["model"] is not first["model"] and moved["ratio"] == 0.3
    kw = sparse_cdn.params(ctx, 0.1, 0.1, "sparse")
    gamma_max = SparseCDN(gamma=1e12, **kw).fit(ctx.X_train, ctx.Y_train).gamma_max_
    cold = SparseCDN(gamma=0.3 * gamma_max, **kw).fit(ctx.X_train, ctx.Y_train)
    assert moved["gamma_max"] == pytest.approx(gamma_max, rel=1e-3)
    assert moved["gamma"] == pytest.approx(0.3 * moved["gamma_max"])
    _assert_same_optimum(moved["model"], cold)
    # The same setting again is a lookup.
    assert sparse_cdn.current_step(ctx, lam=0.1, mu=0.1, variant="sparse", ratio=0.3) is moved


def test_path_is_seeded_by_the_fit_on_screen_and_contains_it(ctx):
    step = sparse_cdn.current_step(ctx, lam=0.1, mu=0.03, variant="sparse", ratio=0.1)
    assert sparse_cdn.gamma_path(ctx, lam=0.1, mu=0.03, variant="sparse", seed=step) is None  # under way
    path = sparse_cdn.wait_path(ctx, lam=0.1, mu=0.03, variant="sparse")
    assert path["gammas"] == list(RATIOS)
    assert path["steps"][RATIOS.index(0.1)] is step
    n_edges = [s["n_edges"] for s in path["steps"]]
    assert n_edges == sorted(n_edges, reverse=True) and n_edges[-1] == 0  # γ = γ_max: empty graph
    # Points below and above the seed equal cold fits at their γ: warm starts both ways are sound.
    for r in (0.01, 0.5):
        s = path["steps"][RATIOS.index(r)]
        cold = SparseCDN(gamma=s["gamma"], **sparse_cdn.params(ctx, 0.1, 0.03, "sparse")).fit(ctx.X_train, ctx.Y_train)
        _assert_same_optimum(s["model"], cold)
    # Once the path is there, current_step answers from it.
    assert sparse_cdn.current_step(ctx, lam=0.1, mu=0.03, variant="sparse", ratio=0.01) is path["steps"][2]


def test_newest_path_first_and_a_superseded_one_waits(ctx):
    old = sparse_cdn.current_step(ctx, lam=0.1, mu=0.03, variant="sparse", ratio=0.1)
    new = sparse_cdn.current_step(ctx, lam=0.1, mu=0.1, variant="sparse", ratio=0.1)
    sparse_cdn.gamma_path(ctx, lam=0.1, mu=0.03, variant="sparse", seed=old)
    sparse_cdn.gamma_path(ctx, lam=0.1, mu=0.1, variant="sparse", seed=new)
    assert sparse_cdn.wait_path(ctx, lam=0.1, mu=0.03, variant="sparse") is None  # superseded
    assert sparse_cdn.wait_path(ctx, lam=0.1, mu=0.1, variant="sparse") is not None
    done_old, _ = sparse_cdn.path_progress(ctx, lam=0.1, mu=0.03, variant="sparse")
    assert len(done_old) < len(RATIOS)  # not computed while not asked for
    # Asked for again (the user went back): it is finished.
    sparse_cdn.gamma_path(ctx, lam=0.1, mu=0.03, variant="sparse")
    path = sparse_cdn.wait_path(ctx, lam=0.1, mu=0.03, variant="sparse")
    assert path is not None and path["steps"][RATIOS.index(0.1)] is old


def test_background_work_waits_for_a_foreground_run():
    order = []

    @cache.in_foreground
    def rerun():
        order.append("foreground starts")
        import threading
        import time

        threading.Thread(target=lambda: (cache.pause_for_foreground(), order.append("background")),
                         name="mlviz-prebuild-test").start()
        time.sleep(0.2)
        order.append("foreground ends")

    rerun()
    cache.wait_prebuilt(10)
    assert order == ["foreground starts", "foreground ends", "background"]


# ------------------------------------------------------------------ neighbour prefetch

def test_neighbours_are_one_two_three_grid_steps_along_each_slider():
    # μ grid (0, 0.001, 0.003, 0.01, 0.03, 0.1), λ grid (0.001, 0.01, 0.1, 1): the last move's slider and
    # direction first; no neighbour beyond the ends of a grid.
    assert cdn_prefetch.neighbours(0.1, 0.003, ("mu", 1)) == [
        [(0.1, 0.01), (0.1, 0.001), (1.0, 0.003), (0.01, 0.003)],
        [(0.1, 0.03), (0.1, 0.0), (0.001, 0.003)],
        [(0.1, 0.1)]]
    assert cdn_prefetch.neighbours(0.1, 0.003, ("lam", -1)) == [
        [(0.01, 0.003), (1.0, 0.003), (0.1, 0.001), (0.1, 0.01)],
        [(0.001, 0.003), (0.1, 0.0), (0.1, 0.03)],
        [(0.1, 0.1)]]
    assert cdn_prefetch.neighbours(0.1, 0.5) == [[(1.0, 0.5), (0.01, 0.5)], [(0.001, 0.5)]]  # μ off the grid
    # together: every setting one μ or λ move can reach, each once
    from mlviz.dashboard.methods import METHODS

    for lam in METHODS["cdn"].param("lam").grid:
        for mu in METHODS["cdn"].param("mu").grid:
            reach = [p for ring in cdn_prefetch.neighbours(lam, mu) for p in ring]
            expected = {(lam, m) for m in METHODS["cdn"].param("mu").grid if m != mu} | {
                (lm, mu) for lm in METHODS["cdn"].param("lam").grid if lm != lam}
            assert len(reach) == len(set(reach)) and set(reach) == expected


def _settled_prefetch(ctx, lam, mu, ratio, extras=None):
    """Show the fit at (λ, μ, ratio), ask for its γ path and its neighbours, let the background finish."""
    step = sparse_cdn.current_step(ctx, lam=lam, mu=mu, variant="sparse", ratio=ratio)
    sparse_cdn.gamma_path(ctx, lam=lam, mu=mu, variant="sparse", seed=step)
    cdn_prefetch.prefetch_neighbours(ctx, lam=lam, mu=mu, variant="sparse", step=step, extras=extras, tag="test")
    cache.wait_prebuilt(120)
    return step


def test_neighbour_mu_is_prefetched_and_equals_a_cold_fit_and_the_foreground_refit(ctx):
    shown = _settled_prefetch(ctx, 0.1, 0.003, 0.3)
    for lam, mu in [(0.1, 0.01), (0.1, 0.001), (1.0, 0.003), (0.01, 0.003), (0.1, 0.03), (0.1, 0.0)]:
        assert sparse_cdn.lookup(ctx, lam=lam, mu=mu, variant="sparse", ratio=0.3) is not None, (lam, mu)
    assert len(sparse_cdn._PREFETCHED) <= sparse_cdn.MAX_PREFETCHED
    ahead = sparse_cdn.lookup(ctx, lam=0.1, mu=0.01, variant="sparse", ratio=0.3)
    # Edges and objective of a cold fit at those parameters (the same optimum of the convex objective).
    # γ_max comes from the start model, itself a solve to tolerance: compare at the fit's absolute γ.
    kw = sparse_cdn.params(ctx, 0.1, 0.01, "sparse")
    gamma_max = SparseCDN(gamma=1e12, **kw).fit(ctx.X_train, ctx.Y_train).gamma_max_
    assert ahead["gamma_max"] == pytest.approx(gamma_max, rel=1e-3)
    assert ahead["gamma"] == pytest.approx(0.3 * ahead["gamma_max"])
    _assert_same_optimum(ahead["model"], SparseCDN(gamma=ahead["gamma"], **kw).fit(ctx.X_train, ctx.Y_train))
    # It is the refit a foreground move from the fit on screen computes (same start model, deterministic).
    direct = shown["model"].refit(gamma_ratio=0.3, lam1=kw["lam1"], lam2=kw["lam2"], mu=kw["mu"])
    assert _edges(direct) == _edges(ahead["model"])
    np.testing.assert_allclose(ahead["model"].label_coef_, direct.label_coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ahead["model"].coef_, direct.coef_, rtol=0, atol=1e-12)
    # The move is a lookup: the very prefetched fit, now a shown one.
    moved = sparse_cdn.current_step(ctx, lam=0.1, mu=0.01, variant="sparse", ratio=0.3)
    assert moved is ahead and sparse_cdn._MODELS[sparse_cdn._model_key(ctx, 0.1, 0.01, "sparse", 0.3)] is ahead


def test_prefetch_waits_for_the_gamma_path_and_builds_the_extras(ctx):
    seen = []

    def extras(lam, mu, step):
        # when a neighbour's extras are asked for, the γ path of the fit on screen is finished
        seen.append(sparse_cdn.gamma_path(ctx, lam=0.1, mu=0.03, variant="sparse", start=False) is not None)
        return {f"test|{lam}|{mu}": lambda: step["n_edges"], f"test-failing|{lam}|{mu}": lambda: 1 / 0}

    _settled_prefetch(ctx, 0.1, 0.03, 0.1, extras=extras)
    assert seen and all(seen)
    for lam, mu in cdn_prefetch.neighbours(0.1, 0.03)[0]:
        step = sparse_cdn.lookup(ctx, lam=lam, mu=mu, variant="sparse", ratio=0.1)
        assert cache.prebuilt(f"test|{lam}|{mu}") == step["n_edges"]
        assert cache.prebuilt(f"test-failing|{lam}|{mu}") is None  # a failed extra: built on demand later


def test_a_new_request_replaces_the_old_and_clear_drops_everything(ctx):
    first = sparse_cdn.current_step(ctx, lam=0.1, mu=0.01, variant="sparse", ratio=0.1)
    cdn_prefetch.prefetch_neighbours(ctx, lam=0.1, mu=0.01, variant="sparse", step=first)
    old = sparse_cdn._PREFETCH[(ctx.key, "sparse")]
    moved = sparse_cdn.current_step(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.1)  # μ one step down
    cdn_prefetch.prefetch_neighbours(ctx, lam=0.1, mu=0.003, variant="sparse", step=moved)
    new = sparse_cdn._PREFETCH[(ctx.key, "sparse")]
    assert old.cancelled and new is not old and new.first == ("mu", -1)  # the next μ down first
    cdn_prefetch.prefetch_neighbours(ctx, lam=0.1, mu=0.003, variant="sparse", step=moved)  # asked again: same job
    assert sparse_cdn._PREFETCH[(ctx.key, "sparse")] is new
    sparse_cdn.clear()
    assert new.cancelled
    cache.wait_prebuilt(60)
    assert not sparse_cdn._PREFETCHED and not sparse_cdn._MODELS  # a fit under way at the clear is dropped


def test_a_fit_stopped_at_max_iter_is_reported_to_the_pages(ctx):
    import warnings

    from mlviz.dashboard import methods

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the ConvergenceWarning this test provokes
        short = SparseCDN(max_iter=5, **sparse_cdn.params(ctx, 0.1, 0.003, "sparse")).fit(ctx.X_train, ctx.Y_train)
    full = SparseCDN(**sparse_cdn.params(ctx, 0.1, 0.003, "sparse")).fit(ctx.X_train, ctx.Y_train)
    assert not short.converged_ and full.converged_
    note = sparse_cdn.convergence_note(sparse_cdn._step(short, 0.1, 0.0))
    assert "after 5 iterations" in note and "≤ 0.0001" in note
    assert methods._cdn_info(sparse_cdn._step(short, 0.1, 0.0))["warnings"] == [note]
    assert sparse_cdn.convergence_note(sparse_cdn._step(full, 0.1, 0.0)) is None
    assert methods._cdn_info(sparse_cdn._step(full, 0.1, 0.0))["warnings"] == []
