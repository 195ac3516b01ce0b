"""Sparse CDN fits the user waits for (mlviz.dashboard.cdn_jobs), without a page.

An uncached setting is fitted in a thread of its own; the request returns the
fit if it is done within the wait, the job otherwise.  The fit it delivers is
the one :func:`sparse_cdn.current_step` would have computed (same optimum as
a cold fit), a newer request cancels a stale fit at its next iteration (and
nothing of it is cached), and speculative fits give way to it.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from mlviz.dashboard import cache, cdn_jobs, cdn_prefetch, sparse_cdn
from mlviz.models.cdn import SparseCDN


@pytest.fixture(autouse=True)
def fresh():
    cdn_jobs.clear()
    sparse_cdn.clear()
    yield
    cdn_jobs.wait_all(60)
    cdn_jobs.clear()
    sparse_cdn.clear()
    cache.wait_prebuilt(60)


def _cold(ctx, lam, mu, ratio, variant="sparse"):
    kw = sparse_cdn.params(ctx, lam, mu, variant)
    gamma_max = SparseCDN(gamma=1e12, **kw).fit(ctx.X_train, ctx.Y_train).gamma_max_
    return SparseCDN(gamma=ratio * gamma_max, **kw).fit(ctx.X_train, ctx.Y_train)


def test_a_fit_not_done_in_time_is_a_job_whose_result_equals_a_cold_fit(ctx):
    step, job = cdn_jobs.request(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.3, owner="a", wait=0)
    assert step is None and isinstance(job, cdn_jobs.FitJob)
    assert cdn_jobs.pending("a") is job or job.done.is_set()
    assert job.done.wait(60) and job.error is None
    # the finished fit is cached: asking again is a lookup returning that very fit
    again, no_job = cdn_jobs.request(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.3, owner="a", wait=0)
    assert no_job is None and again is job.step
    assert sparse_cdn.lookup(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.3) is again
    cold = _cold(ctx, 0.1, 0.003, 0.3)
    assert again["model"].objective_history_[-1] == pytest.approx(cold.objective_history_[-1], rel=1e-5)
    assert set(again["model"].label_graph_.edges()) == set(cold.label_graph_.edges())
    # the progress seen by the job is the fit's own: its last objective is the model's
    assert job.stage == "main" and job.n_iter >= 1
    assert job.objective == pytest.approx(again["model"].objective_history_[job.n_iter], rel=1e-12)


def test_a_fit_done_within_the_wait_is_returned_at_once(ctx):
    step, job = cdn_jobs.request(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.3, owner="a", wait=60)
    assert job is None and step is sparse_cdn.lookup(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.3)
    assert cdn_jobs.pending("a") is None


def test_a_newer_request_cancels_the_stale_fit_and_nothing_of_it_is_cached(ctx):
    sparse_cdn.current_step(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.3)  # the fit on screen
    gate, seen = threading.Event(), []
    real = cdn_jobs.FitJob._progress

    def slow_progress(self, stage, n_iter, objective):  # the first fit waits at its first iteration
        seen.append((self.settings["mu"], stage, n_iter))
        if self.settings["mu"] == 0.0:
            gate.wait(30)
        return real(self, stage, n_iter, objective)

    cdn_jobs.FitJob._progress = slow_progress
    try:
        _, stale = cdn_jobs.request(ctx, lam=0.1, mu=0.0, variant="sparse", ratio=0.3, owner="a", wait=0)
        while not seen:
            threading.Event().wait(0.01)
        _, other_owner = cdn_jobs.request(ctx, lam=0.1, mu=0.0, variant="sparse", ratio=0.3, owner="b", wait=0)
        step, job = cdn_jobs.request(ctx, lam=0.1, mu=0.1, variant="sparse", ratio=0.3, owner="a", wait=60)
        assert stale.cancelled and not other_owner.cancelled  # only the same owner's stale fit
        gate.set()
        assert stale.done.wait(30) and stale.step is None and stale.error is None
        assert job is None and step["model"].mu == pytest.approx(0.1 * ctx.Y_train.shape[0])
        assert cdn_jobs.pending("a") is None
        assert other_owner.done.wait(60) and other_owner.step is not None  # the other owner's fit went on
    finally:
        cdn_jobs.FitJob._progress = real
    cold = _cold(ctx, 0.1, 0.1, 0.3)
    assert step["model"].objective_history_[-1] == pytest.approx(cold.objective_history_[-1], rel=1e-5)


def test_a_cancelled_setting_asked_for_again_is_fitted_again(ctx):
    _, first = cdn_jobs.request(ctx, lam=0.1, mu=0.0, variant="sparse", ratio=0.3, owner="a", wait=0)
    first.cancel()
    assert first.done.wait(60)
    step, job = cdn_jobs.request(ctx, lam=0.1, mu=0.0, variant="sparse", ratio=0.3, owner="a", wait=60)
    assert job is None and step["model"].mu == 0.0
    assert first.step is None or step is first.step  # a fit cancelled before its end was fitted again


def test_a_failed_fit_raises_once_for_the_page(ctx, monkeypatch):
    def broken(*args, **kwargs):
        raise FloatingPointError("broken fit")

    monkeypatch.setattr(sparse_cdn, "current_step", broken)
    with pytest.raises(FloatingPointError, match="broken fit"):
        cdn_jobs.request(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.3, owner="a", wait=30)
    assert cdn_jobs.pending("a") is None


def test_posteriors_are_computed_in_the_fit_thread(ctx):
    got = []
    step, job = cdn_jobs.request(ctx, lam=0.1, mu=0.003, variant="sparse", ratio=0.3, owner="a", wait=0,
                                 after=lambda s: got.append(s["model"].predict_proba(ctx.X_test)))
    assert job.done.wait(60) and job.error is None
    np.testing.assert_array_equal(got[0], job.step["model"].predict_proba(ctx.X_test))  # same seed, same draws


def test_speculative_fits_give_way_to_a_fit_the_user_waits_for():
    cdn_prefetch._give_way("main", 1, 0.0)  # nothing in the foreground: goes on
    with cache.foreground():  # a plain rerun (e.g. a threshold move) does not stop it
        cdn_prefetch._give_way("main", 1, 0.0)
    with cache.foreground(fit=True):
        assert cache.foreground_fit_running()
        with pytest.raises(cdn_prefetch._GaveWay):
            cdn_prefetch._give_way("main", 1, 0.0)
    assert not cache.foreground_fit_running()


def test_describe_names_every_setting():
    assert cdn_jobs.describe(0.1, 0.003, "sparse", 0.3) == "μ/N = 0.003, λ = 0.1, γ = 0.3·γ_max (sparse)"
