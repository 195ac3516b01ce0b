"""The dashboard's cross-validation on a Dask cluster (MLVIZ_DASK_SCHEDULER) gives what it gives here."""

import numpy as np
import pandas as pd
import pytest

from mlviz.evaluation import cluster


def test_without_a_scheduler_the_fits_run_here(monkeypatch):
    monkeypatch.delenv(cluster.SCHEDULER_ENV, raising=False)
    with cluster.compute_backend() as n_jobs:
        assert n_jobs == 1


def test_an_unreachable_scheduler_names_the_variable(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setenv(cluster.SCHEDULER_ENV, "tcp://127.0.0.1:9")  # (the discard port: nothing listens)
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    with pytest.raises(RuntimeError, match=cluster.SCHEDULER_ENV):
        with cluster.compute_backend():
            pass


def test_cross_validation_on_a_local_cluster_equals_the_run_here(monkeypatch, job_token):
    distributed = pytest.importorskip("distributed")
    from mlviz.dashboard import compute
    from mlviz.dashboard.context import sample_context

    ctx = sample_context("emotions")
    request = {"settings": {"mlknn": {}, "br": {}}, "folds": 2, "scaling": "l2", "tune": False}
    monkeypatch.delenv(cluster.SCHEDULER_ENV, raising=False)
    here = compute.cross_validation_fn(ctx, request)(job_token)
    # (two worker threads: with one, joblib runs a single job's tasks in this process)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as local:
        monkeypatch.setenv(cluster.SCHEDULER_ENV, local.scheduler_address)
        client = cluster._client(local.scheduler_address)
        with distributed.get_task_stream(client=client) as stream:
            there = compute.cross_validation_fn(ctx, request)(job_token)
        assert len(stream.data) >= 4  # the 2 methods x 2 folds ran on the cluster
        cluster._CLIENTS.pop(local.scheduler_address).close()
    key = ["method", "fold", "measure"]
    a = here.sort_values(key).reset_index(drop=True)
    b = there.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a[key], b[key])
    np.testing.assert_allclose(a["value"].to_numpy(float), b["value"].to_numpy(float), rtol=0, atol=0)
