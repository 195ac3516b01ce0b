"""The thread policy of the dashboard, ``mlviz evaluate`` and a report pack's ``reproduce.py``: one BLAS /
OpenMP thread per call, unless the environment sets a number (``OMP_NUM_THREADS``,
``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``). The library itself never changes thread settings: its
estimators run with whatever the caller's process has.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

__all__ = ["BLAS_THREAD_VARS", "blas_threads", "one_blas_thread"]

#: Environment variables that set the threads of one BLAS / OpenMP call.
BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_BLAS_LIMITS: list = []  # (the threadpoolctl limit, kept for the process's life)


def one_blas_thread() -> bool:
    """Give every BLAS and OpenMP call of this process one thread, unless the environment sets a number
    (:data:`BLAS_THREAD_VARS`); once per process. Returns True when it set the limit.

    The dashboard runs its work as concurrent jobs (the runner's threads, other sessions), and the
    command line cross-validation folds: a multi-threaded BLAS under them oversubscribes the cores.
    numpy and scipy also ship an OpenBLAS each, with a thread pool each; scipy's L-BFGS-B (used by
    scikit-learn's logistic regression and ECC's links) calls scipy's between numpy's products, and
    the two pools' waiting threads then fight for the cores: on two cores every Posteriors method on
    emotions took 2-4x as long with the libraries' threads, ECC alone 19-44x (benchmarks/RESULTS.md,
    "BLAS threads in the dashboard and the command line"). The variables are set for libraries
    loaded later (scikit-learn's OpenMP, worker processes); threadpoolctl limits those already
    loaded.
    """
    if _BLAS_LIMITS or any(os.environ.get(v) for v in BLAS_THREAD_VARS):
        return False
    for v in BLAS_THREAD_VARS:
        os.environ[v] = "1"
    from threadpoolctl import threadpool_limits

    _BLAS_LIMITS.append(threadpool_limits(limits=1))
    return True


@contextmanager
def blas_threads(n: int):
    """Every BLAS and OpenMP call of the block on ``n`` threads, whatever the environment says: for
    ``mlviz reproduce``, whose tables must not depend on the machine's cores (a threaded sum adds in
    another order). threadpoolctl limits the libraries already loaded; the variables
    (:data:`BLAS_THREAD_VARS`) hold for those the block loads (scikit-learn's OpenMP runtime, scipy's
    OpenBLAS on first use), which a threadpoolctl limit alone misses. The variables are restored on exit;
    a library loaded inside keeps ``n`` threads.
    """
    from threadpoolctl import threadpool_limits

    saved = {v: os.environ.get(v) for v in BLAS_THREAD_VARS}
    os.environ.update({v: str(int(n)) for v in BLAS_THREAD_VARS})
    try:
        with threadpool_limits(limits=int(n)):
            yield
    finally:
        for v, old in saved.items():
            if old is None:
                os.environ.pop(v, None)
            else:
                os.environ[v] = old
