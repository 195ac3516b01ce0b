"""Load a script of ``benchmarks/`` as a module (the scripts are not a package), for the tests of
their computations."""

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(stem, *, register=False):
    """A fresh module of ``benchmarks/<stem>.py``.

    ``register=True`` also puts it in ``sys.modules`` under ``stem`` before running it (dataclasses
    look their module up there); the caller removes it.
    """
    spec = importlib.util.spec_from_file_location(stem, BENCHMARKS / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[stem] = module
    spec.loader.exec_module(module)
    return module
