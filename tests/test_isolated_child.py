"""mlviz._isolated.run_in_child: the child's answer equals the call made here; its errors, its death
and a cancel reach the caller, and a cancel ends the child."""

from __future__ import annotations

import math
import os
import sys
import time
import types

import numpy as np
import pytest
import scipy.sparse as sp

from mlviz._isolated import ChildError, run_in_child


def test_the_answer_is_the_functions():
    A = np.random.default_rng(0).normal(size=(30, 4))
    assert np.array_equal(run_in_child(np.linalg.qr, A, mode="r"), np.linalg.qr(A, mode="r"))


def test_an_exception_in_the_child_names_itself():
    with pytest.raises(ChildError, match="ValueError: math domain error"):
        run_in_child(math.sqrt, -1.0)


def test_a_child_that_dies_is_an_error_not_a_hang():
    with pytest.raises(ChildError, match="exit code 3"):
        run_in_child(os._exit, 3)


def _sleep_after_naming(path, seconds):
    """(In the child) write this process's id to ``path``, then sleep."""
    with open(path, "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(seconds)


def test_a_cancel_ends_the_child_at_once(tmp_path):
    class Stop(Exception):
        pass

    path = tmp_path / "pid"
    t0 = time.monotonic()

    def check():
        if path.exists() and path.read_text():
            raise Stop

    with pytest.raises(Stop):
        run_in_child(_sleep_after_naming, str(path), 60, check=check, poll=0.05)
    assert time.monotonic() - t0 < 30
    with pytest.raises(ProcessLookupError):  # killed and reaped
        os.kill(int(path.read_text()), 0)


def test_the_callers_main_script_is_not_run_in_the_child(tmp_path, monkeypatch):
    """A Streamlit server's ``__main__`` is the page script it runs; the child must not run it."""
    script = tmp_path / "page.py"
    script.write_text("raise SystemExit(7)\n")
    page = types.ModuleType("__main__")
    page.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", page)
    assert run_in_child(math.sqrt, 4.0) == 2.0


@pytest.mark.slow(seconds=20)
def test_umap_in_the_child_is_umap_here():
    """The Embedding page's UMAP job (run in a child) gives what umap-learn gives in this process."""
    from mlviz.dashboard import cache
    from mlviz.dashboard.jobs import Runner
    from mlviz.projections import umap_2d

    rng = np.random.default_rng(1)
    X = sp.csr_matrix(rng.random((80, 12)) * (rng.random((80, 12)) < 0.4))
    ctx = type("Ctx", (), {"X_train": X})()
    runner = Runner(workers=1, budget=2**20)
    got = runner.submit("umap", cache.umap_fn(ctx)).result(300)
    # (after the child, not beside it: this process then loads the machine code the child compiled and
    # cached, mlviz.projections._cache_umap_compiles, instead of compiling it again: ~10 s of CPU)
    here = umap_2d(X, 0)
    assert got.shape == (80, 2) and got.dtype == np.float32
    np.testing.assert_allclose(got, here, rtol=1e-5, atol=1e-5)


def _tick(path, n):
    """(In the child) append a line to ``path`` every 20 ms, ``n`` times."""
    for i in range(n):
        with open(path, "a") as fh:
            fh.write(f"{i}\n")
        time.sleep(0.02)
    return n


def test_a_paused_caller_stops_the_child_and_continues_it_after(tmp_path):
    path = tmp_path / "ticks"
    seen = []

    def size():
        return path.stat().st_size if path.exists() else 0

    def paused():
        return size() > 0 and not seen  # once, after the child has started ticking

    def check():
        if paused():
            time.sleep(0.1)  # (the stop has arrived)
            before = size()
            time.sleep(0.5)
            seen.append((before, size()))

    assert run_in_child(_tick, str(path), 40, check=check, paused=paused, poll=0.02) == 40
    assert seen and seen[0][0] == seen[0][1] > 0  # nothing written while stopped
    assert len(path.read_text().split()) == 40  # and it went on to the end
