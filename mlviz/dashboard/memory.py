"""A thread-safe LRU cache bounded by the bytes of its values, and the size estimate it uses.

The budget of the dashboard's one result cache is ``MLVIZ_CACHE_MB`` (MB, default 768: a
cross-validation run at 983 labels × 16k needs ~0.7 GB of its own beside the cache, and the server
is to stay under 3 GB; ``benchmarks/RESULTS.md``, the dashboard-at-scale measurements):
fits, γ paths, posteriors, figures and per-data-set statistics (uploads included) all count
against it; the least recently used results leave first.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
from collections import OrderedDict

import numpy as np

_NODE_BYTES = 64  # scikit-learn's tree node struct


def _is_sklearn_tree(obj) -> bool:
    tree = sys.modules.get("sklearn.tree._tree")  # (never imports scikit-learn for a size)
    return tree is not None and isinstance(obj, tree.Tree)


def nbytes(obj, _seen=None, _depth=0) -> int:
    """Rough size in bytes of ``obj``: numpy/scipy arrays by ``nbytes``, scikit-learn trees by their
    node and value buffers, containers and object attributes walked (each object counted once),
    anything else by ``sys.getsizeof``."""
    seen = set() if _seen is None else _seen
    if id(obj) in seen or _depth > 12:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes) + (nbytes(obj.base, seen, _depth + 1) if obj.base is not None else 0)
    if _is_sklearn_tree(obj):  # a compiled object without __dict__: its node and value buffers
        return sys.getsizeof(obj) + int(obj.capacity) * (_NODE_BYTES + int(obj.value.strides[0]))
    if hasattr(obj, "to_plotly_json"):
        return nbytes(obj.to_plotly_json(), seen, _depth + 1)
    if isinstance(obj, (str, bytes, int, float, bool, type(None))):
        return sys.getsizeof(obj)
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        items = itertools.chain.from_iterable(obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        items = obj
    elif hasattr(obj, "__dict__"):
        items = vars(obj).values()
    else:
        return size
    return size + sum(nbytes(x, seen, _depth + 1) for x in items)


def budget_from_env(name="MLVIZ_CACHE_MB", default_mb=768) -> int:
    """Bytes allowed by environment variable ``name`` (in MB; ``default_mb`` if unset or invalid)."""
    try:
        mb = float(os.environ.get(name, default_mb))
    except ValueError:
        mb = default_mb
    return int(max(mb, 0) * 2**20)


class ByteLRU:
    """A thread-safe LRU mapping whose values' total :func:`nbytes` stays under ``budget`` bytes
    (a value larger than the whole budget is not kept)."""

    def __init__(self, budget: int):
        self.budget = int(budget)
        self._lock = threading.Lock()
        self._data: OrderedDict = OrderedDict()
        self._bytes = 0

    def get(self, key, default=None):
        with self._lock:
            if key not in self._data:
                return default
            self._data.move_to_end(key)
            return self._data[key][0]

    def __contains__(self, key):
        with self._lock:
            return key in self._data

    def put(self, key, value, size: int | None = None, *, evict: bool = True) -> bool:
        """Keep ``value`` under ``key`` (least recently used values make room); with ``evict=False``
        only if it fits beside what is kept (nothing is dropped for it). Returns whether it is kept."""
        size = nbytes(value) if size is None else int(size)
        with self._lock:
            if key in self._data:
                self._bytes -= self._data.pop(key)[1]
            if size > self.budget or (not evict and self._bytes + size > self.budget):
                return False
            self._data[key] = (value, size)
            self._bytes += size
            while self._bytes > self.budget:
                self._bytes -= self._data.popitem(last=False)[1][1]
            return True

    def pop(self, key) -> None:
        with self._lock:
            if key in self._data:
                self._bytes -= self._data.pop(key)[1]

    def discard_prefix(self, prefixes) -> int:
        """Drop every value whose (string) key starts with one of ``prefixes``; returns the bytes freed."""
        prefixes = tuple(prefixes)
        with self._lock:
            gone = [k for k in self._data if isinstance(k, str) and k.startswith(prefixes)]
            freed = sum(self._data.pop(k)[1] for k in gone)
            self._bytes -= freed
            return freed

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self._bytes = 0

    @property
    def size(self) -> int:
        """Bytes held now."""
        with self._lock:
            return self._bytes

    def __len__(self):
        with self._lock:
            return len(self._data)
