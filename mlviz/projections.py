"""2-D projections of the instances for the dashboard's comparison panels (features only).

:func:`umap_2d` is the UMAP layout the Embedding page shows beside PCA; the page computes it in a
child process (:func:`mlviz._isolated.run_in_child`), where umap-learn's numba code cannot hold
the server's GIL.
"""

from __future__ import annotations

import numpy as np


def umap_2d(X, random_state: int = 0) -> np.ndarray:
    """UMAP (McInnes et al. 2018) of the rows of ``X`` in 2-D.

    Parameters
    ----------
    X : array or sparse matrix, shape (n_samples, n_features)
    random_state : int

    Returns
    -------
    coords : ndarray of float32, shape (n_samples, 2)
        15 neighbours (fewer for tiny ``n_samples``), spectral initialisation above 20 rows.
    """
    import umap

    _cache_umap_compiles()
    n = X.shape[0]
    reducer = umap.UMAP(n_components=2, n_neighbors=min(15, max(2, n - 1)), random_state=random_state, n_jobs=1,
                        init="spectral" if n > 20 else "random")
    return np.asarray(reducer.fit_transform(X), dtype=np.float32)


_CACHING = []


def _cache_umap_compiles():
    """Let numba keep the machine code of umap-learn's jitted functions on disk (``enable_caching``, what
    ``cache=True`` does; umap-learn leaves it off for most of them).

    Each UMAP job runs in a new child process, which otherwise compiles umap's layout code again: ~10 s of
    CPU each time (``benchmarks/RESULTS.md``, "the test suite's time").  The cache goes where numba puts
    it (the package's ``__pycache__`` when writable, else ``NUMBA_CACHE_DIR`` or the user's cache
    directory) and is keyed on umap's source files; the numbers are those of the compiled code.
    A function numba cannot cache is left as it is.  Once per process.
    """
    if _CACHING:
        return
    _CACHING.append(True)
    import importlib

    from numba.core.registry import CPUDispatcher

    for name in ("umap.umap_", "umap.layouts", "umap.spectral", "umap.utils", "umap.distances", "umap.sparse"):
        try:
            module = importlib.import_module(name)
        except ImportError:  # (a module of another umap-learn version)
            continue
        for obj in list(vars(module).values()):
            if isinstance(obj, CPUDispatcher) and obj.__module__ == name:
                try:
                    obj.enable_caching()
                except Exception:  # noqa: BLE001 - no writable cache location: compile as before
                    pass
