"""Where cross-validation, nested tuning and their fits run: this process, or a Dask cluster.

``MLVIZ_DASK_SCHEDULER=tcp://host:8786`` (the ``[distributed]`` extra installed) sends the dashboard's
cross-validation jobs — each method × fold fit, with its nested tuning — to that cluster through
joblib's dask backend; unset, they run here. :func:`compute_backend` is the one switch the dashboard
uses; the library's :func:`~mlviz.evaluation.cross_validate` takes any joblib backend directly.
"""

from __future__ import annotations

import contextlib
import os
import threading

__all__ = ["SCHEDULER_ENV", "compute_backend", "scheduler_address"]

SCHEDULER_ENV = "MLVIZ_DASK_SCHEDULER"
#: How long a first connection to the scheduler may take.
CONNECT_TIMEOUT = "10s"

_CLIENTS: dict = {}
_LOCK = threading.Lock()


def scheduler_address() -> str | None:
    """The Dask scheduler of :data:`SCHEDULER_ENV`, or None (fits run in this process)."""
    value = os.environ.get(SCHEDULER_ENV, "").strip()
    return value or None


def _client(address):
    """One ``distributed.Client`` per scheduler address for the whole server (created on first use)."""
    from distributed import Client

    with _LOCK:
        client = _CLIENTS.get(address)
        if client is None or client.status not in ("running", "connecting"):
            client = _CLIENTS[address] = Client(address, set_as_default=False, timeout=CONNECT_TIMEOUT)
        return client


@contextlib.contextmanager
def compute_backend():
    """Context giving the ``n_jobs`` to pass to :func:`~mlviz.evaluation.cross_validate`: 1 here, or
    -1 under joblib's dask backend on the cluster of :data:`SCHEDULER_ENV`.

    Raises
    ------
    RuntimeError
        The scheduler is set but cannot be reached, or ``distributed`` is not installed; the message
        names the variable, so the server's operator can fix or unset it.
    """
    address = scheduler_address()
    if address is None:
        yield 1
        return
    try:
        import joblib

        client = _client(address)
    except ImportError:
        raise RuntimeError(f"{SCHEDULER_ENV} is set but the 'distributed' package is not installed "
                           "(pip install -e '.[distributed]').") from None
    except OSError as exc:
        raise RuntimeError(f"{SCHEDULER_ENV}={address} cannot be reached: {exc}. Start the scheduler or unset "
                           "the variable to compute on this server.") from None
    with joblib.parallel_config(backend="dask", client=client):
        yield -1
