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

    n = X.shape[0]
    reducer = umap.UMAP(n_components=2, n_neighbors=min(15, max(2, n - 1)), random_state=random_state, n_jobs=1,
                        init="spectral" if n > 20 else "random")
    return np.asarray(reducer.fit_transform(X), dtype=np.float32)
