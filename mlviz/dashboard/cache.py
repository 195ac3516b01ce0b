"""Cached computations with EXPLICIT string keys.

Streamlit hashes large arrays from a sample, which can return stale results, so
no array is ever hashed here: array arguments are underscore-prefixed (``_ctx``,
``_X``) and every cached function takes a ``key`` string made of the data-set
id and the parameters that matter.

* ``st.cache_resource`` — objects that do not depend on a slider and are
  expensive: fitted base models holding kernel eigendecompositions, regularisation
  paths, kNN graphs, UMAP/PCA layouts, networkx layouts.
* ``st.cache_data`` — small results keyed by slider values (posterior matrices,
  embeddings), so going back to a previous slider position is instant.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import OrderedDict

import numpy as np
import pandas as pd
import scipy.sparse as sp
import streamlit as st

_LOCKS: dict = {}
_LOCKS_GUARD = threading.Lock()


def lock_for(key: str) -> threading.Lock:
    """A lock per cached resource: refit-style calls mutate the shared model."""
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


# --------------------------------------------------------------------------- data

def _fmt(x, digits=3):
    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    if not np.isfinite(x):
        return "–"
    return f"{x:.{digits}g}" if abs(x) < 1e4 else f"{x:,.0f}"


def _summary(ctx):
    from mlviz import data

    Y = np.asarray(ctx.dataset.Y)
    counts = Y.sum(axis=0).astype(int)
    cooc = (Y.T.astype(np.int64) @ Y.astype(np.int64))
    try:
        stats = data.describe(ctx.dataset)
    except Exception:  # describe() failures must not hide the data set
        stats = {}
    try:
        table = data.describe_frame(stats)
    except Exception:
        table = pd.DataFrame({"statistic": list(stats), "value": [str(v) for v in stats.values()]})
    table = table.copy()
    # Never NaN on screen: show a dash instead.
    table = table.astype(object).where(pd.notna(table), "–")

    def get(*names, default=float("nan")):
        for n in names:
            if n in stats:
                return stats[n]
        return default

    card = float(Y.sum(axis=1).mean()) if Y.size else 0.0
    n_sets = get("n_labelsets", "distinct_labelsets", "n_distinct_labelsets", "label_sets",
                 default=len({r.tobytes() for r in Y}))
    metrics = [
        ("instances", f"{ctx.dataset.n_samples:,}", "Number of instances n."),
        ("features", f"{ctx.dataset.n_features:,}", "Number of features d" + (" (sparse)" if sp.issparse(ctx.dataset.X) else "")),
        ("labels", f"{ctx.n_labels}", "Number of labels L."),
        ("cardinality", _fmt(get("cardinality", "label_cardinality", default=card)), "Mean number of labels per instance."),
        ("density", _fmt(get("density", "label_density", default=card / max(ctx.n_labels, 1))), "Cardinality / L."),
        ("label sets", _fmt(n_sets), "Distinct label combinations in the data."),
        ("MeanIR", _fmt(get("mean_ir", "meanir", "MeanIR")), "Mean imbalance ratio over labels (1 = balanced)."),
        ("SCUMBLE", _fmt(get("scumble", "SCUMBLE")), "Concurrence of rare and frequent labels (0 = none)."),
    ]
    return {"metrics": metrics, "table": table, "counts": counts, "cooccurrence": cooc}


@st.cache_resource(max_entries=16, show_spinner="Computing statistics…")
def _summary_cached(key: str, _ctx):
    return _summary(_ctx)


def dataset_summary(ctx) -> dict:
    """Metrics row, statistics table, label counts and co-occurrence of ``ctx``."""
    return _summary_cached(ctx.key, ctx)


@st.cache_data(max_entries=16, show_spinner=False)
def _preview_cached(key: str, n_rows: int, _ctx):
    ds = _ctx.dataset
    n = min(n_rows, ds.n_samples)
    X = ds.X[:n]
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    feats = list(ds.feature_names)[: X.shape[1]]
    max_cols = 40
    frame_x = pd.DataFrame(X[:, :max_cols], columns=[str(f) for f in feats[:max_cols]])
    frame_y = pd.DataFrame(np.where(ds.Y[:n] > 0, "✓", ""), columns=[f"[{l}]" for l in ds.label_names])
    return pd.concat([frame_y, frame_x], axis=1)


def preview_frame(ctx, n_rows=50) -> pd.DataFrame:
    """The first rows of the data set: label marks then (at most 40) raw features."""
    return _preview_cached(ctx.key, n_rows, ctx)


# ------------------------------------------------------------------ generic model fits

def fit_key(ctx, method_key: str, params: dict) -> str:
    """Cache key: data-set id, method and sorted parameters."""
    return f"{ctx.key}|{method_key}|" + ",".join(f"{k}={params[k]!r}" for k in sorted(params))


@st.cache_resource(max_entries=24, show_spinner=False)
def fitted_model(key: str, _build, _X, _Y):
    """A model fitted on (_X, _Y) by ``_build()``; cached under ``key``.

    Returns ``(model, fit_seconds)``; warnings raised during the fit (e.g. a
    solver that stopped at ``max_iter``) are kept in ``model._dashboard_warnings``.
    """
    import warnings

    model = _build()
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(_X, _Y)
    seconds = time.perf_counter() - t0
    try:
        model._dashboard_warnings = sorted({str(w.message) for w in caught
                                           if not issubclass(w.category, (DeprecationWarning, FutureWarning))})
    except AttributeError:
        pass
    return model, seconds


@st.cache_data(max_entries=128, show_spinner=False)
def posterior(key: str, _compute):
    """Posterior matrix P (n_test, L) (and timings) for the parameters in ``key``."""
    return _compute()


# ------------------------------------------------------------------------- layouts

@st.cache_resource(max_entries=8, show_spinner="Computing the UMAP layout (first time: compiling numba, ~20 s)…")
def umap_layout(key: str, _X, random_state: int = 0):
    """2-D UMAP of the training instances (cached per data set)."""
    import umap

    n = _X.shape[0]
    reducer = umap.UMAP(n_components=2, n_neighbors=min(15, max(2, n - 1)), random_state=random_state,
                        n_jobs=1, init="spectral" if n > 20 else "random")
    return np.asarray(reducer.fit_transform(_X), dtype=np.float32)


@st.cache_resource(max_entries=8, show_spinner=False)
def pca_layout(key: str, _X):
    """2-D PCA (TruncatedSVD for sparse input) of the training instances; returns (coords, explained ratio)."""
    from sklearn.decomposition import PCA, TruncatedSVD

    if sp.issparse(_X):
        model = TruncatedSVD(n_components=2, random_state=0)
    else:
        model = PCA(n_components=2, random_state=0)
    coords = model.fit_transform(_X)
    return np.asarray(coords, dtype=np.float32), np.asarray(model.explained_variance_ratio_)


@st.cache_resource(max_entries=32, show_spinner=False)
def graph_layout(key: str, _graph, seed: int = 0):
    """networkx spring layout of a label graph (cached per node set / edges key)."""
    import networkx as nx

    if _graph.number_of_nodes() == 0:
        return {}
    und = nx.Graph()
    und.add_nodes_from(_graph.nodes())
    for u, v, d in _graph.edges(data=True):
        w = abs(float(d.get("weight", 1.0)))
        if und.has_edge(u, v):
            und[u][v]["weight"] += w
        else:
            und.add_edge(u, v, weight=w)
    if und.number_of_edges() == 0:
        return nx.circular_layout(und)
    return nx.spring_layout(und, seed=seed, weight="weight", k=1.5 / np.sqrt(max(und.number_of_nodes(), 1)))


@st.cache_data(max_entries=32, show_spinner=False)
def labelset_strings(key: str, _Y, label_names: tuple) -> list:
    """One string per row of ``_Y``: its labels joined by ", " ("∅" when empty)."""
    names = np.asarray(label_names, dtype=object)
    Y = np.asarray(_Y).astype(bool)
    return [", ".join(names[row]) if row.any() else "∅" for row in Y]


@st.cache_resource(max_entries=16, show_spinner=False)
def label_layout(key: str, _cooccurrence, label_names: tuple):
    """Fixed node positions for the label graphs of a data set (spring layout of
    the co-occurrence graph), so nodes stay put while γ changes the edges."""
    import networkx as nx

    C = np.asarray(_cooccurrence, dtype=float).copy()
    np.fill_diagonal(C, 0.0)
    g = nx.DiGraph()
    g.add_nodes_from(range(len(label_names)))
    rows, cols = np.nonzero(np.triu(C, 1))
    for i, j in zip(rows, cols):
        g.add_edge(int(i), int(j), weight=C[i, j] / max(C.max(), 1.0))
    return graph_layout(key + "|cooc", g)


@st.cache_resource(max_entries=128, show_spinner=False)
def _figure_cached(key: str, _build):
    return _build()


# ----------------------------------------------------------- background work

_FOREGROUND = threading.Condition()
_FOREGROUND_STATE = {"active": 0, "last_end": 0.0, "fits": 0}
SETTLE_SECONDS = 0.3  # background work resumes this long after the last foreground run


@contextlib.contextmanager
def foreground(fit: bool = False):
    """Context: background work (figure pre-builds, γ paths, prefetches) pauses meanwhile.

    ``fit=True`` marks a fit the user waits for (:mod:`~mlviz.dashboard.cdn_jobs`):
    a speculative fit under way then gives up its core too (:func:`foreground_fit_running`).
    """
    with _FOREGROUND:
        _FOREGROUND_STATE["active"] += 1
        _FOREGROUND_STATE["fits"] += int(fit)
    try:
        yield
    finally:
        with _FOREGROUND:
            _FOREGROUND_STATE["active"] -= 1
            _FOREGROUND_STATE["fits"] -= int(fit)
            _FOREGROUND_STATE["last_end"] = time.monotonic()
            _FOREGROUND.notify_all()


def foreground_fit_running() -> bool:
    """True while a fit the user waits for runs (see :func:`foreground`)."""
    return _FOREGROUND_STATE["fits"] > 0


def in_foreground(func):
    """Decorator: background work (figure pre-builds, γ paths) pauses while ``func`` runs.

    Put it under ``@st.fragment`` on the fragments whose reruns answer slider
    moves, so a background thread started by the previous move does not share
    the interpreter with the rerun the user is waiting for.
    """
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with foreground():
            return func(*args, **kwargs)

    return wrapper


def pause_for_foreground(max_wait: float = 10.0) -> None:
    """Called by background threads between two pieces of work: wait while a
    foreground run (see :func:`in_foreground`) is in progress or ended less than
    ``SETTLE_SECONDS`` ago (the user may move the next slider), at most ``max_wait`` s."""
    deadline = time.monotonic() + max_wait
    with _FOREGROUND:
        while True:
            now = time.monotonic()
            quiet_in = _FOREGROUND_STATE["last_end"] + SETTLE_SECONDS - now
            if (_FOREGROUND_STATE["active"] == 0 and quiet_in <= 0) or now >= deadline:
                return
            _FOREGROUND.wait(min(max(quiet_in, 0.05), deadline - now))


_PREBUILT: "OrderedDict[str, object]" = None
_PREBUILD_STARTED: set = set()
_PREBUILT_MAX = 256
_PREBUILDS_RUNNING = [0]  # batches of :func:`prebuild` under way


def figure(key: str, build):
    """A plotly figure built by ``build()`` and cached under ``key``.

    Building a figure costs 50-300 ms of plotly validation (more for graphs with
    many arrow annotations); figures that depend only on cached results (a
    posterior matrix, a γ step) are built once per key, so a threshold move or
    a return to a previous slider position re-sends a cached figure.  Figures
    pre-built in the background by :func:`prebuild` are used when present.
    Callers must not mutate the returned figure.
    """
    if _PREBUILT is not None and key in _PREBUILT:
        return _PREBUILT[key]
    return _figure_cached(key, build)


def prebuild(group: str, builders: dict) -> None:
    """Build figures ``{key: build}`` once, in a background thread.

    Used for the label-graph page: once the γ path is fitted, the figures of
    every other γ on the slider are built while the user looks at the first
    one, so a γ move is a lookup.  ``group`` names the batch; a batch is
    started at most once per server process.
    """
    with _LOCKS_GUARD:
        if group in _PREBUILD_STARTED:
            return
        _PREBUILD_STARTED.add(group)
        _PREBUILDS_RUNNING[0] += 1

    def work():
        try:
            for key, build in builders.items():
                if prebuilt(key) is not None:
                    continue
                pause_for_foreground()
                try:
                    fig = build()
                except Exception:  # a failed pre-build just means building on demand later
                    continue
                put_prebuilt(key, fig)
        finally:
            with _LOCKS_GUARD:
                _PREBUILDS_RUNNING[0] -= 1

    threading.Thread(target=work, name=f"mlviz-prebuild-{group[:40]}", daemon=True).start()


def prebuilding() -> bool:
    """True while a batch of :func:`prebuild` is under way (speculative work waits for it)."""
    return _PREBUILDS_RUNNING[0] > 0


def put_prebuilt(key: str, value) -> None:
    """Keep ``value`` under ``key`` for :func:`figure` / :func:`prebuilt` (the last 256 kept)."""
    global _PREBUILT
    with _LOCKS_GUARD:
        if _PREBUILT is None:
            _PREBUILT = OrderedDict()
        _PREBUILT[key] = value
        _PREBUILT.move_to_end(key)
        while len(_PREBUILT) > _PREBUILT_MAX:
            _PREBUILT.popitem(last=False)


def prebuilt(key: str):
    """The object pre-built under ``key`` by :func:`prebuild` (or :func:`put_prebuilt`), or None."""
    if _PREBUILT is None:
        return None
    return _PREBUILT.get(key)


def clear_prebuilt() -> None:
    """Forget pre-built figures and the sparse CDN fits and paths (tests call this with the Streamlit caches)."""
    from . import cdn_jobs, sparse_cdn

    cdn_jobs.clear()
    sparse_cdn.clear()  # first: its background work stops storing pre-built objects
    with _LOCKS_GUARD:
        if _PREBUILT is not None:
            _PREBUILT.clear()
        _PREBUILD_STARTED.clear()


def wait_prebuilt(timeout: float = 120.0) -> None:
    """Wait for background work (figure pre-builds, sparse CDN γ paths, neighbour
    prefetches and fits under way) to finish (benchmarks and tests)."""
    deadline = time.monotonic() + timeout
    for t in list(threading.enumerate()):
        if t.name.startswith(("mlviz-prebuild-", "mlviz-cdn-fit")):
            t.join(max(0.0, deadline - time.monotonic()))
