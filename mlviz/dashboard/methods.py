"""The dashboard's methods: the registry entries it offers, and the one cache-key format.

Every method, its sliders and their meaning are declared once, in the method
registry (:mod:`mlviz.models.registry`).
This module selects the entries the pages offer (``dashboard=True``) in registry
order and adds what only the dashboard needs:

* :data:`METHODS` — key -> :class:`~mlviz.models.registry.MethodSpec`; a spec
  turns slider values into an estimator (``from_sliders``), splits them into
  base-model, ``refit`` and path values (``split``) and lists the prefetch
  candidates (``neighbours``);
* :func:`key` — the cache key of every result that depends on a data set,
  a method and slider values;
* :func:`median_distance` — the unit of the kernel methods' σ slider.

No Streamlit and no computation here (see :mod:`mlviz.dashboard.compute`).
"""

from __future__ import annotations

from mlviz.models.registry import CDN_PATH, SEED, MethodSpec, Param, PathSpec, Scale
from mlviz.models.registry import METHODS as _REGISTRY

__all__ = ["CDN_PATH", "METHODS", "POSTERIOR_METHODS", "SEED", "MethodSpec", "Param", "PathSpec", "Scale", "key",
           "median_distance", "threshold_key"]

METHODS = {k: m for k, m in _REGISTRY.items() if m.dashboard}
"""Key -> spec of every method the pages offer, in registry order."""

POSTERIOR_METHODS = list(METHODS)
"""Methods with test posteriors, in the order the pages offer them."""


def key(data_key: str, method_key: str, values: dict, *extra) -> str:
    """The cache key of a result: data set, method, sorted slider values, then ``extra`` parts."""
    parts = [data_key, method_key, ",".join(f"{k}={values[k]!r}" for k in sorted(values))]
    return "|".join(parts + [str(e) for e in extra])


def threshold_key(threshold) -> str:
    """The cache-key part of a decision threshold: ``"none"``, ``"rcut<r>"`` (a rank cut: an object with
    ``r``), ``"t<value>"`` for one global threshold, or ``"pl<sha1>"`` for per-label thresholds (rounded
    to 6 decimals, so equal rules share a key)."""
    import hashlib

    import numpy as np

    if threshold is None:
        return "none"
    if hasattr(threshold, "r"):
        return f"rcut{int(threshold.r)}"
    a = np.round(np.asarray(threshold, dtype=float), 6)
    return f"t{float(a):g}" if a.ndim == 0 else "pl" + hashlib.sha1(a.tobytes()).hexdigest()[:16]


def median_distance(X, max_samples=1000, random_state=SEED) -> float:
    """Median Euclidean distance between distinct rows of ``X`` (a seeded subset of
    ``max_samples`` rows; 1.0 if all rows coincide) — the σ of the kernel methods' "median"."""
    from mlviz.models import median_sigma

    return median_sigma(X, max_samples=max_samples, random_state=random_state)
