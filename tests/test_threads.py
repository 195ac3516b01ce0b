"""The thread policy of the app and the command line (mlviz._threads): one BLAS / OpenMP thread per call
unless the environment sets a number; probed in fresh processes (it changes process-wide settings)."""

import json
import os
import subprocess
import sys

import pytest

from mlviz._threads import BLAS_THREAD_VARS


def _probe(code, given):
    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARS}
    if given:
        env["OMP_NUM_THREADS"] = given
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


_PROBE = """
import json, os
from threadpoolctl import threadpool_info
from mlviz import _threads
first, again = _threads.one_blas_thread(), _threads.one_blas_thread()
import sklearn.linear_model  # (its OpenMP runtime loads after the call: the variables hold for it)
print(json.dumps([first, again, {v: os.environ.get(v) for v in _threads.BLAS_THREAD_VARS},
                  sorted({i["num_threads"] for i in threadpool_info()})]))
"""


@pytest.mark.parametrize("given", [None, "2"])
def test_one_blas_thread_unless_the_environment_sets_a_number(given):
    first, again, variables, threads = _probe(_PROBE, given)
    if given is None:  # set once, for every library loaded before or after
        assert (first, again) == (True, False)
        assert set(variables.values()) == {"1"} and threads == [1]
    else:  # the environment's choice stands
        assert (first, again) == (False, False)
        assert variables == {"OMP_NUM_THREADS": given, "OPENBLAS_NUM_THREADS": None, "MKL_NUM_THREADS": None}


_CLI = """
import json, os
from threadpoolctl import threadpool_info
import mlviz.cli as cli
seen = []
cli._cmd_evaluate = lambda args, out: seen.append(sorted({i["num_threads"] for i in threadpool_info()})) or 0
code = cli.main(["evaluate", "emotions"])  # (the evaluation itself stubbed: what it would run under)
print(json.dumps([code, os.environ.get("OMP_NUM_THREADS"), seen[0]]))
"""


@pytest.mark.parametrize("given", [None, "2"])
def test_command_line_evaluate_takes_the_same_policy(given):
    code, omp, threads = _probe(_CLI, given)
    assert code == 0
    if given is None:
        assert (omp, threads) == ("1", [1])
    else:  # the environment's number stands (what BLAS makes of it depends on the cores)
        assert omp == "2"


_REPRODUCE = """
import json, os
from threadpoolctl import threadpool_info
from mlviz._threads import blas_threads
import numpy as np
with blas_threads(1):
    from sklearn.ensemble import HistGradientBoostingClassifier  # loads scikit-learn's OpenMP runtime
    HistGradientBoostingClassifier(max_iter=2).fit(np.random.rand(60, 3), np.arange(60) % 2)
    inside = sorted({i["num_threads"] for i in threadpool_info()})
    apis = sorted({i["internal_api"] for i in threadpool_info()})
print(json.dumps([inside, apis, os.environ.get("OMP_NUM_THREADS"), os.environ.get("MKL_NUM_THREADS")]))
"""


@pytest.mark.parametrize("given", [None, "2"])
def test_reproduce_threads_reach_the_libraries_loaded_inside(given):
    # a threadpoolctl limit alone left the OpenMP runtime loaded inside the block on every core
    inside, apis, omp, mkl = _probe(_REPRODUCE, given)
    assert inside == [1] and "openmp" in apis
    assert (omp, mkl) == (given, None)  # the environment as it was, after the block
