"""Which labels a page draws: one label selector shared by the pages, kept in the URL.

With 100-1,000 labels no figure can show every label legibly; the pages draw a
*selection* and say how many labels are left out.  The selection is one of

* ``"frequent"`` -- the ``k`` labels with the most training positives (default);
* ``"connected"`` -- the ``k`` labels with the largest weighted degree
  (sum of ``|w|`` over incident edges) in the learned label graph, when the
  page has one (else: as ``"frequent"``);
* ``"search"`` -- labels whose name contains a text (case-insensitive), at most ``k``;
* ``"picked"`` -- a hand-picked set.

:func:`select_labels` is the pure rule (tests call it); :func:`label_selector`
draws the controls (keys ``<prefix>_mode``, ``<prefix>_k``, ``<prefix>_q``,
``<prefix>_pick``, all bound to the URL) and returns a :class:`Selection`.
:func:`auto_gamma` is the Label graph's automatic γ: the largest γ of the
slider's grid whose path point keeps at least :data:`AUTO_MIN_EDGES` edges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from mlviz._text import escape_markdown

from .graph_texts import AUTO_MAX_EDGES, AUTO_MIN_EDGES  # noqa: F401  (focus.AUTO_* on the pages)
from .urls import text_limit  # the longest value of a text box = its URL parameter's (one number)

MODES = {"frequent": "most frequent", "connected": "most connected", "search": "name search",
         "picked": "hand-picked"}
#: Labels drawn by default ("≤ 30-50 labels drawn, the rest summarised").
DEFAULT_K = 30


@dataclass
class Selection:
    """Labels a page draws: ``indices`` (sorted, int64), the rule in words, the number of labels,
    and ``k``: how many labels a page may draw (the "How many" control; e.g. the size of a label's
    neighbourhood drawn); ``mode``: the rule's name (:data:`MODES`, or ``"all"``)."""

    indices: np.ndarray
    description: str
    n_labels: int
    k: int
    mode: str = "all"

    @property
    def everything(self) -> bool:
        return len(self.indices) == self.n_labels


def select_labels(mode, k, counts, *, degree=None, query="", picked=(), names=()) -> np.ndarray:
    """The indices of the labels selected by ``mode`` (see the module docstring), sorted.

    Parameters
    ----------
    mode : {"frequent", "connected", "search", "picked"}
    k : int
        At most this many labels (not for ``"picked"``).
    counts : array-like, shape (L,)
        Training positives per label (ranks ``"frequent"`` and breaks ties).
    degree : array-like, shape (L,), optional
        Weighted degree in the learned graph (ranks ``"connected"``).
    query : str
    picked : sequence of str
        Label names.
    names : sequence of str, length L

    Returns
    -------
    ndarray of int64
        Ties are broken by frequency, then by label order.
    """
    counts = np.asarray(counts, dtype=float).ravel()
    L = counts.size
    k = max(int(k), 1)
    if mode == "picked":
        where = {str(n): i for i, n in enumerate(names)}
        return np.sort(np.asarray(sorted({where[p] for p in picked if p in where}), dtype=np.int64))
    if mode == "search":
        q = str(query).strip().lower()
        hits = [i for i, n in enumerate(names) if q and q in str(n).lower()]
        hits = sorted(hits, key=lambda i: (-counts[i], i))[:k]
        return np.sort(np.asarray(hits, dtype=np.int64))
    score = counts if (mode != "connected" or degree is None) else np.asarray(degree, dtype=float).ravel()
    order = np.lexsort((np.arange(L), -counts, -score))  # last key first: score, then counts, then order
    return np.sort(order[:k].astype(np.int64))


def weighted_degree(V, n_labels) -> np.ndarray:
    """Sum of ``|weight|`` over the edges at each label of a directed label graph given by its square
    weight matrix V (the sparse CDN's ``label_coef_``: an edge ``t -> k`` per non-zero ``V[t, k]``;
    the diagonal is ignored), shape (L,).  Read from V: at 983 labels and a small γ its graph has
    ~630k edges."""
    A = np.abs(np.asarray(V.toarray() if hasattr(V, "toarray") else V, dtype=float))
    A[np.diag_indices(min(A.shape))] = 0.0
    out = np.zeros(n_labels)
    out[:A.shape[0]] += A.sum(axis=1)
    out[:A.shape[1]] += A.sum(axis=0)
    return out


def label_selector(names, counts, *, prefix="labels", degree=None, default_k=DEFAULT_K, container=None) -> Selection:
    """Draw the label selector and return the :class:`Selection`.

    With at most ``default_k`` labels everything is drawn and only a note is shown.
    """
    names = [str(n) for n in names]
    L = len(names)
    where = container if container is not None else st
    if L <= default_k:
        return Selection(np.arange(L, dtype=np.int64), f"all {L} labels", L, L)
    c = where.columns([1.3, 1, 1.6])
    mode = c[0].selectbox("Labels drawn", list(MODES), key=f"{prefix}_mode", bind="query-params",
                          help="Which labels the figures draw; the others are counted in the caption. "
                               "frequent: most training positives; connected: largest weighted degree in the "
                               "learned label graph; search: names containing a text; picked: your choice. "
                               "(The URL holds these option names.)")
    k = c[1].slider("How many", 5, min(L, 200), min(default_k, L), 5, key=f"{prefix}_k", bind="query-params")
    query, picked = "", ()
    if mode == "search":
        query = c[2].text_input("Label name contains", key=f"{prefix}_q", bind="query-params",
                                max_chars=text_limit(f"{prefix}_q"), placeholder="type part of a label name")
    elif mode == "picked":
        picked = c[2].multiselect("Labels", names, key=f"{prefix}_pick", bind="query-params",
                                  placeholder="choose labels")
    if mode == "connected" and degree is None:
        c[2].caption("No learned graph on this page: ranked by frequency instead.")
    idx = select_labels(mode, k, counts, degree=degree, query=query, picked=picked, names=names)
    words = {"frequent": f"the {len(idx)} most frequent", "connected": f"the {len(idx)} most connected",
             "search": f"{len(idx)} labels matching “{escape_markdown(query, 40)}”",
             "picked": f"{len(idx)} hand-picked"}[mode if (mode != "connected" or degree is not None) else "frequent"]
    return Selection(idx, f"{words} of {L} labels", L, int(k), mode)


def auto_gamma(steps: dict, grid, *, uses_gamma: bool = True):
    """The automatic γ point of a path: the largest grid value whose step keeps at least
    :data:`AUTO_MIN_EDGES` edges (the smallest grid value if none does); for a variant that
    ignores γ, the top of the grid.  None while the path has not reached it yet (the path is
    computed from the top of the grid downwards, so the answer never changes once known).

    Parameters
    ----------
    steps : dict
        ``{grid value: step}`` with ``step["n_edges"]`` (the points known so far).
    grid : sequence of float
    uses_gamma : bool

    Returns
    -------
    float or None
    """
    top_down = sorted(grid, reverse=True)
    if not uses_gamma:
        return top_down[0] if top_down[0] in steps else None
    for p in top_down:
        if p not in steps:
            return None
        if steps[p]["n_edges"] >= AUTO_MIN_EDGES:
            return p
    return top_down[-1]


def graph_counts(fig) -> dict:
    """What a label-graph figure draws: ``labels`` (nodes), ``edges``, ``names`` (written on the
    figure), read from its traces' ``meta`` (see :func:`mlviz.plotting.label_graph_figure`)."""
    data = fig["data"] if isinstance(fig, dict) else [t.to_plotly_json() for t in fig.data]
    labels = names = edges = 0
    totals = {}
    for t in data:
        meta = t.get("meta") if isinstance(t.get("meta"), dict) else {}
        if meta.get("kind") == "edges":
            edges += int(meta.get("n_edges", 0))
        elif meta.get("kind") == "nodes":
            labels = len(t.get("x") if not isinstance(t.get("x"), dict) else t.get("text") or [])
            names = labels - int(meta.get("names_hidden", 0))
            totals = {k: int(meta[k]) for k in ("labels_total", "edges_total") if k in meta}
    return {"labels": labels, "edges": edges, "names": names, **totals}


def counts_caption(counts: dict, n_labels: int = None, n_edges: int = None, *, what="labels") -> str:
    """"Showing 30 of 174 labels and 12 of 798 edges; 25 names written — hover a node for the others."

    The totals are the figure's own (``labels_total`` / ``edges_total`` of :func:`graph_counts`), so
    the caption says what the figure's note says; ``n_labels`` / ``n_edges`` are used only for a
    figure that does not carry them.
    """
    n_labels = counts.get("labels_total", n_labels)
    n_edges = counts.get("edges_total", n_edges)
    parts = [f"Showing {counts['labels']} of {n_labels} {what} and {counts['edges']} of {n_edges} edges"]
    if counts["names"] < counts["labels"]:
        parts.append(f"{counts['names']} names written where they fit — hover a node for the others")
    if counts["labels"] < n_labels:
        parts.append("choose other labels above, or pick a label to see its neighbourhood")
    return "; ".join(parts) + "."


def graph_communities(graph, n_labels, *, min_abs_weight=None) -> list:
    """Modularity communities of a label graph as the collapsed view draws them: a list of
    int64 arrays (members, by decreasing size), from :func:`mlviz.plotting.graph.label_communities`
    (Louvain, seed 0, undirected ``|w|``, one-label communities kept; edges with ``|w| <
    min_abs_weight`` ignored; labels without edges in no community)."""
    from mlviz.plotting.graph import label_communities

    edges = [(int(u), int(v), float(d.get("weight", 1.0))) for u, v, d in graph.edges(data=True) if u != v]
    src = np.array([e[0] for e in edges], dtype=int)
    dst = np.array([e[1] for e in edges], dtype=int)
    w = np.array([e[2] for e in edges], dtype=float)
    keep = (w != 0) & np.isfinite(w)
    if min_abs_weight:
        keep &= np.abs(w) >= float(min_abs_weight)
    comm = label_communities(n_labels, src[keep], dst[keep], w[keep], singletons=True)
    return [np.flatnonzero(comm == c) for c in range(int(comm.max()) + 1 if comm.size else 0)]


def collapsed_caption(meta: dict, n_labels: int, n_edges: int, n_links: int) -> str:
    """The caption under a collapsed label graph (the node trace's ``meta`` of
    :func:`mlviz.plotting.graph.community_graph_figure`): what each node stands for and how
    many labels are hidden, and how to see them."""
    members = meta.get("members", [])
    own = sum(1 for m in members if m == 1)
    groups = len(members) - own
    parts = [f"{n_labels} labels in {meta.get('n_communities', 0)} communities: {groups} drawn as one node each"
             + (f", {own} labels drawn on their own" if own else "")
             + f"; {meta.get('labels_hidden', 0)} labels are not drawn as their own node"
             + (f" ({meta['labels_isolated']} of them have no edge)" if meta.get("labels_isolated") else ""),
             f"{n_links} links between nodes (summed |weight| of the label edges between them), "
             f"{meta.get('inner_edges', 0)} of the {n_edges} edges lie inside a collapsed community",
             "hover a community for its top members, or expand one above to see its labels"]
    return "; ".join(parts) + "."
