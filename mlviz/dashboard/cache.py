"""Quick per-data-set results (statistics, preview, layouts, figures) computed on the page and kept in the
runner's byte-bounded cache under explicit string keys.

No array is ever hashed (Streamlit hashes large arrays from a sample, which can
return stale results): every function takes the data context and builds its key
from ``ctx.key`` (which names an upload's bytes *and* options) and its
parameters.  Slow work (fits, UMAP) goes through :mod:`~mlviz.dashboard.compute`
instead.  All values share one budget, ``MLVIZ_CACHE_MB``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .compute import RUNNER


def memo(key: str, build):
    """``build()`` computed once per ``key`` (kept while the byte budget allows).  Callers must not
    mutate the returned object."""
    value = RUNNER.peek(key)
    if value is None:
        value = build()
        RUNNER.results.put(key, value)
    return value


def figure(key: str, build):
    """A plotly figure built by ``build()`` and kept under ``key`` (a return to a previous
    slider position re-sends it; 50-300 ms of plotly validation saved)."""
    return memo("figure|" + key, build)


def _fmt(x, digits=3) -> str:
    """A statistic for the metrics row: never in e-notation (``2,860``, ``0.184``, ``–`` for NaN)."""
    from mlviz.plotting.format import format_number

    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    return format_number(x, digits)


def _summary(ctx) -> dict:
    from mlviz import data
    from mlviz.plotting.format import format_count

    Y = np.asarray(ctx.dataset.Y)
    try:
        stats = data.describe(ctx.dataset)
        table = data.describe_frame(stats).astype(object)
    except Exception as exc:  # statistics failing must not hide the data set
        stats = dict.fromkeys(["cardinality", "density", "n_labelsets", "mean_ir", "scumble"], float("nan"))
        table = pd.DataFrame({"statistic": ["error"], "value": [f"statistics unavailable ({type(exc).__name__})"]})
    table = table.where(pd.notna(table), "–")  # never NaN on screen
    metrics = [
        ("instances", f"{ctx.dataset.n_samples:,}", "Number of instances n."),
        ("features", f"{ctx.dataset.n_features:,}",
         "Number of features d" + (" (sparse)" if sp.issparse(ctx.dataset.X) else "")),
        ("labels", f"{ctx.n_labels}", "Number of labels L."),
        ("cardinality", _fmt(stats["cardinality"]), "Mean number of labels per instance."),
        ("density", _fmt(stats["density"]), "Cardinality / L."),
        ("label sets", format_count(stats["n_labelsets"]), "Distinct label combinations in the data."),
        ("MeanIR", _fmt(stats["mean_ir"]), "Mean imbalance ratio over labels (1 = balanced)."),
        ("SCUMBLE", _fmt(stats["scumble"]), "Concurrence of rare and frequent labels (0 = none)."),
    ]
    # O(nnz · cardinality); a dense int64 Y^T Y (no BLAS) took ~12 min at 16k x 983
    Ys = sp.csr_matrix(Y, dtype=np.int64)
    cooc = np.asarray((Ys.T @ Ys).toarray(), dtype=np.int64)
    return {"metrics": metrics, "table": table, "counts": Y.sum(axis=0).astype(int), "cooccurrence": cooc}


def dataset_summary(ctx) -> dict:
    """Metrics row, statistics table, label counts and co-occurrence of ``ctx``."""
    return memo(f"{ctx.key}|summary", lambda: _summary(ctx))


def preview_frame(ctx, n_rows=50) -> pd.DataFrame:
    """The first rows of the data set: label marks then (at most 40) raw features."""
    def build():
        ds = ctx.dataset
        n = min(n_rows, ds.n_samples)
        X = ds.X[:n]
        X = X.toarray() if sp.issparse(X) else np.asarray(X)
        feats = [str(f) for f in list(ds.feature_names)[: X.shape[1]]][:40]
        frame_x = pd.DataFrame(X[:, :40], columns=feats)
        frame_y = pd.DataFrame(np.where(ds.Y[:n] > 0, "✓", ""), columns=[f"[{l}]" for l in ds.label_names])
        return pd.concat([frame_y, frame_x], axis=1)

    return memo(f"{ctx.key}|preview|{n_rows}", build)


def pca_layout(ctx):
    """2-D PCA (TruncatedSVD for sparse input) of the training instances: ``(coords, explained ratio)``."""
    def build():
        from sklearn.decomposition import PCA, TruncatedSVD

        model = TruncatedSVD(2, random_state=0) if sp.issparse(ctx.X_train) else PCA(2, random_state=0)
        coords = model.fit_transform(ctx.X_train)
        return np.asarray(coords, dtype=np.float32), np.asarray(model.explained_variance_ratio_)

    return memo(f"{ctx.key}|pca", build)


def umap_fn(ctx):
    """``fn(token)`` for :func:`mlviz.dashboard.compute.task`: 2-D UMAP of the training instances,
    computed in a child process (:func:`mlviz._isolated.run_in_child`): cancelling the job ends it,
    and it is stopped while the job is paused."""
    def fn(token):
        from mlviz._isolated import run_in_child
        from mlviz.projections import umap_2d

        return run_in_child(umap_2d, ctx.X_train, 0, check=token.check, paused=lambda: token.paused)
    return fn


def labelset_strings(ctx, split: str) -> list:
    """One string per row of ``Y_train`` / ``Y_test`` (``split``): its labels joined by ", " ("∅" when empty)."""
    def build():
        names = np.asarray(ctx.label_names, dtype=object)
        Y = np.asarray(ctx.Y_train if split == "train" else ctx.Y_test).astype(bool)
        return [", ".join(names[row]) if row.any() else "∅" for row in Y]

    return memo(f"{ctx.key}|labelsets|{split}", build)


def label_layout(ctx):
    """Fixed node positions for the label graphs of a data set
    (:func:`mlviz.plotting.layout.cooccurrence_layout` of its training co-occurrences), so nodes
    stay put while γ changes the edges."""
    def build():
        from mlviz.plotting.layout import cooccurrence_layout

        return cooccurrence_layout(dataset_summary(ctx)["cooccurrence"])

    return memo(f"{ctx.key}|label-layout", build)
