"""The dashboard's sparse CDN fits (mlviz.dashboard.sparse_cdn), without a page.

A μ/λ move is one warm-started refit at the slider's γ ratio; the γ path is
computed in the background, seeded by that fit.  These tests check the fits
against cold fits and the background worker's order of work.
"""

from __future__ import annotations

import numpy as np
import pytest

from mlviz.dashboard import cache, sparse_cdn
from mlviz.dashboard.state import DataContext, standardise
from mlviz.data import load_sample_split
from mlviz.models.cdn import SparseCDN

RATIOS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 0.5, 1.0)


@pytest.fixture(scope="module")
def ctx():
    train, test = load_sample_split("emotions")
    X_train, X_test = standardise(train.X, test.X)
    return DataContext("test-emotions", train, X_train, np.asarray(train.Y), X_test, np.asarray(test.Y))


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
