"""Synthetic data: the rotated toy problem of ML-LSPC and a planted-dependency sandbox.

* :func:`make_rotated_toy` -- Nam et al., §6.1: linear boundaries rotated in
  the (x1, x2) plane; labels with close angles share structure.
* :func:`make_planted` -- a teaching data set whose label dependencies are
  set by the teacher (chains, hubs, exclusive "XOR" groups, independent
  labels, or any DAG), returned with the planted graph so that a learned
  label graph can be scored against it (:func:`edge_recovery`,
  :func:`edge_status`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from numbers import Integral, Real

import networkx as nx
import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

from .dataset import MultiLabelDataset

# Dense data from a label-set mixture with low-rank correlated, skewed features, calibrated to
# the Mulan dense sets (yeast, scene, mediamill); implemented in .dense_like.
from .dense_like import DENSE_LIKE_PRESETS, make_dense_like

# Text-like data from a latent topic model (label co-occurrence, Zipf words, near-duplicate
# threads, digest rows), calibrated to the Mulan text sets; implemented in .text_like.
from .text_like import TEXT_LIKE_PRESETS, make_text_like

__all__ = [
    "make_rotated_toy", "rotated_toy_labels", "make_planted", "PlantedData", "parse_structure",
    "format_structure", "expected_dependency_graph", "edge_recovery", "edge_status",
    "MAX_LABELS", "MAX_STRUCTURE_LENGTH", "MAX_SAMPLES", "MAX_FEATURES", "MAX_CELLS",
    "make_text_like", "TEXT_LIKE_PRESETS", "make_dense_like", "DENSE_LIKE_PRESETS",
]

#: Largest number of labels of a planted sandbox (every block's labels together).
MAX_LABELS = 200
#: Longest structure string :func:`parse_structure` reads (characters; the Sandbox text box's limit).
MAX_STRUCTURE_LENGTH = 200
#: Largest ``n_samples`` of :func:`make_planted`.
MAX_SAMPLES = 100_000
#: Largest ``n_features`` of :func:`make_planted`.
MAX_FEATURES = 1_000
#: Largest ``n_samples * (n_features + n_labels)`` of :func:`make_planted` (80 MB of float64).
MAX_CELLS = 10_000_000


def rotated_toy_labels(X, n_labels):
    """Labels of the rotated toy problem for given inputs.

    ``Y[n, t-1] = 1`` iff ``cos(2 pi t / T) x_{1,n} + sin(2 pi t / T) x_{2,n} > 0``
    for ``t = 1, ..., T`` (Nam et al., §6.1; the paper's task index t runs
    from 1 to T, so label T has angle 2 pi, the same boundary as angle 0).

    Parameters
    ----------
    X : ndarray, shape (n_samples, n_features >= 2)
    n_labels : int
        T.

    Returns
    -------
    Y : ndarray of uint8, shape (n_samples, n_labels)
    """
    t = np.arange(1, n_labels + 1)
    angle = 2.0 * np.pi * t / n_labels
    margin = np.outer(X[:, 0], np.cos(angle)) + np.outer(X[:, 1], np.sin(angle))
    return (margin > 0).astype(np.uint8)


def _check_int(owner, pname, value, low):
    if not isinstance(value, Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"The '{pname}' parameter of {owner} must be an int >= {low}, "
                         f"got {value!r}.")


def _check_real(owner, pname, value, low, high, high_inclusive=True):
    ok = isinstance(value, Real) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        ok = low <= value and (value <= high if high_inclusive else value < high)
    if not ok:
        bracket = "]" if high_inclusive else ")"
        raise ValueError(f"The '{pname}' parameter of {owner} must be a number in "
                         f"[{low}, {high}{bracket}, got {value!r}.")


def make_rotated_toy(n_samples=2000, n_features=300, n_labels=10, random_state=None):
    """The toy data set of Nam, Hachiya & Sugiyama (ML-LSPC paper, §6.1).

    ``x_n ~ N(0, I_D)`` and label ``t`` (t = 1..T) is positive where
    ``cos(2 pi t / T) x_1 + sin(2 pi t / T) x_2 > 0``: linear decision
    boundaries rotated in the plane of the first two features.  Labels with
    close angles are strongly correlated; each label is positive for about
    half of the instances.  The paper uses D = 300, N = 2000.

    Parameters
    ----------
    n_samples : int, default 2000
    n_features : int >= 2, default 300
    n_labels : int >= 1, default 10
    random_state : int, numpy Generator or None

    Returns
    -------
    MultiLabelDataset
        ``X`` (n_samples, n_features) float64, ``Y`` (n_samples, n_labels);
        features ``x1..xD``, labels ``t1..tT``.

    Examples
    --------
    >>> ds = make_rotated_toy(100, 5, 4, random_state=0)
    >>> ds.X.shape, ds.Y.shape
    ((100, 5), (100, 4))
    """
    for pname, value, low in (("n_samples", n_samples, 2), ("n_features", n_features, 2),
                              ("n_labels", n_labels, 1)):
        _check_int("make_rotated_toy", pname, value, low)
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n_samples, n_features))
    Y = rotated_toy_labels(X, n_labels)
    return MultiLabelDataset(
        X, Y, [f"x{j}" for j in range(1, n_features + 1)],
        [f"t{t}" for t in range(1, n_labels + 1)], f"rotated-toy-T{n_labels}",
        [f"ML-LSPC toy (Nam et al., §6.1): N={n_samples}, D={n_features}, T={n_labels}, "
         f"random_state={random_state}"],
    )


# ------------------------------------------------------------ planted sandbox
#: block kind -> (prefix of its label names, smallest size)
BLOCKS = {"chain": ("chain", 2), "hub": ("leaf", 1), "xor": ("xor", 2), "indep": ("ind", 1)}
_SPEC_ITEM = re.compile(r"^\s*(chain|hub|xor|indep)\s*:\s*([0-9]+)\s*$")


def parse_structure(spec):
    """Parse a planted-structure spec such as ``"chain:5,hub:3,xor:3,indep:2"``.

    The short string form is what a page keeps in its URL.  Each item is
    ``kind:size``; a kind may repeat (two chains: ``"chain:3,chain:4"``).

    * ``chain:k`` -- k labels ``A -> B -> C ...`` (each depends on the previous one);
    * ``hub:k``   -- one hub label and k leaves, ``hub -> leaf_i``;
    * ``xor:k``   -- an exclusive group of k labels: exactly one of them is on
      (for k = 2 that is ``A XOR B``); which one depends on x;
    * ``indep:k`` -- k labels that depend on x only.

    Parameters
    ----------
    spec : str or sequence of (kind, size)
        A string of at most :data:`MAX_STRUCTURE_LENGTH` characters.

    Returns
    -------
    list of (str, int)

    Raises
    ------
    ValueError
        For a malformed item, an unknown kind, a block below its smallest
        size, an empty structure, a string longer than
        :data:`MAX_STRUCTURE_LENGTH` or more than :data:`MAX_LABELS` labels in
        all.  The sizes are checked while reading, before anything of that
        size is built, so ``"chain:20000000"`` costs no more than ``"chain:5"``.

    Examples
    --------
    >>> parse_structure("chain:3, indep:1")
    [('chain', 3), ('indep', 1)]
    """
    items, total = [], 0
    if isinstance(spec, str):
        if len(spec) > MAX_STRUCTURE_LENGTH:
            raise ValueError(f"The structure is {len(spec):,} characters long; at most "
                             f"{MAX_STRUCTURE_LENGTH} are read (e.g. 'chain:5,hub:3').")
        pairs = []
        for part in filter(None, (p.strip() for p in spec.split(","))):
            m = _SPEC_ITEM.match(part)
            if m is None:
                raise ValueError(f"Bad structure item {part[:40]!r}: expected kind:size with kind "
                                 f"in {sorted(BLOCKS)} (e.g. 'chain:5,hub:3').")
            pairs.append((m.group(1), int(m.group(2))))
    else:
        # at most MAX_LABELS + 1 blocks are looked at: every block has at least one label
        pairs = [(str(k)[:40], v) for k, v in itertools.islice(spec, MAX_LABELS + 1)]
    for kind, size in pairs:
        if kind not in BLOCKS:
            raise ValueError(f"Unknown block kind {kind!r}; choose from {sorted(BLOCKS)}.")
        _check_int("parse_structure", f"{kind} size", size, BLOCKS[kind][1])
        total += int(size) + (kind == "hub")  # a hub block is its hub and `size` leaves
        if total > MAX_LABELS:
            raise ValueError(f"The structure has more than {MAX_LABELS} labels; a sandbox holds at "
                             f"most {MAX_LABELS} labels.")
        items.append((kind, int(size)))
    if not items:
        raise ValueError("The structure is empty; give at least one block, e.g. 'chain:5'.")
    return items


def format_structure(items):
    """Inverse of :func:`parse_structure`: ``[("chain", 5)] -> "chain:5"``."""
    return ",".join(f"{kind}:{size}" for kind, size in items)


@dataclass
class PlantedData:
    """A planted-dependency data set and its ground truth.

    Attributes
    ----------
    dataset : MultiLabelDataset
    graph : networkx.DiGraph
        Nodes are the label names (in column order, node attributes
        ``index`` and ``kind``); edge ``parent -> child`` for every planted
        dependency with attributes ``kind`` ("chain", "hub", "xor" or
        "edge") and ``weight`` (the coupling on the +-1 label scale).  An
        exclusive group is stored as edges ``i -> j`` for i < j with kind "xor"
        (its labels depend on each other symmetrically).
    settings : dict
        Every argument of :func:`make_planted` (for a URL / config file).
    """

    dataset: MultiLabelDataset
    graph: nx.DiGraph
    settings: dict = field(default_factory=dict)

    @property
    def label_names(self):
        return list(self.dataset.label_names)


def _names(items):
    """Label names and (kind, block, members) groups for the blocks, in column order."""
    names, groups, count = [], [], {}
    for kind, size in items:
        count[kind] = count.get(kind, 0) + 1
        tag = "" if count[kind] == 1 else chr(ord("a") + count[kind] - 2)
        if kind == "hub":
            members = [f"hub{tag}"] + [f"leaf{tag}{i}" for i in range(1, size + 1)]
        else:
            members = [f"{BLOCKS[kind][0]}{tag}{i}" for i in range(1, size + 1)]
        groups.append((kind, list(range(len(names), len(names) + len(members)))))
        names.extend(members)
    return names, groups


def _target_rates(n_labels, cardinality, imbalance):
    """Base positive rates: geometric from most to least frequent, ratio ``imbalance``."""
    shape = imbalance ** (-np.arange(n_labels) / max(n_labels - 1, 1))
    return np.clip(shape * cardinality / shape.sum(), 0.02, 0.98)


def _calibrated(linear, rate):
    """Intercept b with mean(sigmoid(linear + b)) == rate (monotone in b: bisection)."""
    reach = 40.0 + float(np.max(np.abs(linear), initial=0.0))
    return brentq(lambda b: float(expit(linear + b).mean()) - rate, -reach, reach, xtol=1e-6)


def make_planted(structure="chain:5", n_samples=500, n_features=10, *, coupling=3.0,
                 feature_strength=2.0, noise=0.0, cardinality=None, imbalance=1.0,
                 edges=None, random_state=None):
    """A teaching data set with a planted ground-truth label graph.

    Generative model (ancestral sampling along the planted DAG, labels coded
    ``s = 2y - 1``):

    * ``x ~ N(0, I_d)``; every label k has its own direction ``u_k`` (a random
      unit vector) and its evidence from the input is ``a_k(x) = f u_kᵀx``
      with ``f = feature_strength``;
    * a label with parents ``pa(k)`` is on with probability
      ``sigmoid(a_k(x) + c Σ_{p in pa(k)} s_p + b_k)`` with ``c = coupling``;
      ``b_k`` is calibrated (bisection) so that the label's positive rate
      hits its target (see ``cardinality`` / ``imbalance``);
    * an exclusive ("xor") group of k labels turns on exactly one of them,
      label j with probability ``softmax_j(a_j(x))``; for k = 2 that is
      ``A XOR B``.  Marginal thresholding then often predicts none or two
      of them, while the joint mode predicts exactly one;
    * finally each label entry is flipped with probability ``noise``.

    Parameters
    ----------
    structure : str or list of (kind, size), default "chain:5"
        Blocks, see :func:`parse_structure` (``"chain:5,hub:3,xor:3,indep:2"``;
        at most :data:`MAX_LABELS` labels).
    n_samples : int in [2, MAX_SAMPLES], default 500
    n_features : int in [1, MAX_FEATURES], default 10
        With ``n_samples * (n_features + n_labels) <= MAX_CELLS``.
    coupling : float in [0, 20], default 3.0
        c: weight of each parent's +-1 value on the child's logit.
    feature_strength : float in [0, 20], default 2.0
        f: how strongly x predicts each label on its own.
    noise : float in [0, 0.5), default 0
        Probability of flipping each label entry after sampling.
    cardinality : float or None
        Target mean number of positive labels per instance among the
        non-exclusive labels (each exclusive group adds exactly one before
        noise).  None: half of them (rate 0.5 each).
    imbalance : float >= 1, default 1
        Ratio of the most to the least frequent base rate (geometric in
        between, clipped to [0.02, 0.98]); 1 = all equal.
    edges : list of (str, str), optional
        Extra planted edges ``parent -> child`` between label names (any
        acyclic set; edges into an exclusive group's labels are not allowed).
    random_state : int, numpy Generator or None

    Returns
    -------
    PlantedData
        ``dataset`` (features ``x1..xd``, labels named by block: ``chain1..``,
        ``hub``/``leaf1..``, ``xor1..``, ``ind1..``), ``graph`` (planted DAG)
        and ``settings``.

    Notes
    -----
    A dependency network such as :class:`mlviz.models.SparseCDN` models
    ``p(y_k | x, y_-k)``, whose population graph is the Markov blanket of
    each label: the planted edges in both directions plus edges between
    co-parents (:func:`expected_dependency_graph`).  Compare against that
    (``edge_recovery(..., directed=False)``), not against edge directions.

    Examples
    --------
    >>> pd_ = make_planted("chain:3,indep:1", n_samples=200, random_state=0)
    >>> pd_.dataset.Y.shape, sorted(pd_.graph.edges)
    ((200, 4), [('chain1', 'chain2'), ('chain2', 'chain3')])
    """
    owner = "make_planted"
    items = parse_structure(structure)
    _check_int(owner, "n_samples", n_samples, 2)
    _check_int(owner, "n_features", n_features, 1)
    _check_real(owner, "coupling", coupling, 0.0, 20.0)
    _check_real(owner, "feature_strength", feature_strength, 0.0, 20.0)
    _check_real(owner, "noise", noise, 0.0, 0.5, high_inclusive=False)
    _check_real(owner, "imbalance", imbalance, 1.0, 1e6)
    n_labels = sum(size + (kind == "hub") for kind, size in items)  # <= MAX_LABELS (parse_structure)
    if n_samples > MAX_SAMPLES or n_features > MAX_FEATURES:
        raise ValueError(f"make_planted: n_samples={n_samples:,} and n_features={n_features:,}; a "
                         f"sandbox takes at most {MAX_SAMPLES:,} instances and {MAX_FEATURES:,} "
                         "features.")
    if n_samples * (n_features + n_labels) > MAX_CELLS:
        raise ValueError(f"make_planted: {n_samples:,} instances x ({n_features:,} features + "
                         f"{n_labels} labels) is more than the sandbox's {MAX_CELLS:,} cells.")
    if edges is not None:  # a DAG on L labels has at most L (L - 1) / 2 edges
        edges = list(itertools.islice(edges, n_labels * (n_labels - 1) // 2 + 1))
        if len(edges) > n_labels * (n_labels - 1) // 2:
            raise ValueError(f"make_planted: more edges than the {n_labels * (n_labels - 1) // 2} "
                             f"an acyclic graph on {n_labels} labels can have.")
    names, groups = _names(items)
    L = len(names)
    G = nx.DiGraph()
    for kind, members in groups:
        for j in members:
            G.add_node(names[j], index=j, kind=kind)
        if kind == "chain":
            for a, b in zip(members[:-1], members[1:]):
                G.add_edge(names[a], names[b], kind="chain", weight=float(coupling))
        elif kind == "hub":
            for b in members[1:]:
                G.add_edge(names[members[0]], names[b], kind="hub", weight=float(coupling))
        elif kind == "xor":
            for i, a in enumerate(members):
                for b in members[i + 1:]:
                    G.add_edge(names[a], names[b], kind="xor", weight=float("nan"))
    exclusive = {names[j] for kind, members in groups if kind == "xor" for j in members}
    for parent, child in edges or ():
        for node in (parent, child):
            if not isinstance(node, str) or node not in G:
                raise ValueError(f"Unknown label {str(node)[:40]!r} in edges; labels are {names}.")
        if child in exclusive:
            raise ValueError(f"Edges into an exclusive (xor) label are not supported: {child!r}.")
        G.add_edge(parent, child, kind="edge", weight=float(coupling))
    free = [j for j in range(L) if names[j] not in exclusive]
    if cardinality is None:
        cardinality = 0.5 * len(free)
    _check_real(owner, "cardinality", cardinality, 0.0, float(max(len(free), 0)))
    causal = G.copy()
    causal.remove_edges_from([(a, b) for a, b, k in G.edges(data="kind") if k == "xor"])
    if not nx.is_directed_acyclic_graph(causal):
        raise ValueError("The planted edges contain a cycle; give an acyclic set of edges.")

    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n_samples, n_features))
    U = rng.standard_normal((n_features, L))
    U /= np.linalg.norm(U, axis=0, keepdims=True)
    evidence = feature_strength * (X @ U)
    rates = np.zeros(L)
    rates[free] = _target_rates(len(free), cardinality, imbalance) if free else []
    Y = np.zeros((n_samples, L), dtype=np.uint8)
    for kind, members in groups:
        if kind == "xor":
            a = evidence[:, members]
            p = np.exp(a - a.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            pick = (rng.random((n_samples, 1)) > np.cumsum(p, axis=1)).sum(axis=1)
            Y[np.arange(n_samples), np.asarray(members)[np.minimum(pick, len(members) - 1)]] = 1
    for node in nx.topological_sort(causal):
        k = names.index(node)
        if node in exclusive:
            continue
        linear = evidence[:, k].copy()
        for parent in causal.predecessors(node):
            linear += coupling * (2.0 * Y[:, names.index(parent)] - 1.0)
        p = expit(linear + _calibrated(linear, rates[k]))
        Y[:, k] = rng.random(n_samples) < p
    if noise > 0:
        Y ^= (rng.random(Y.shape) < noise).astype(np.uint8)
    settings = dict(structure=format_structure(items), n_samples=n_samples, n_features=n_features,
                    coupling=float(coupling), feature_strength=float(feature_strength),
                    noise=float(noise), cardinality=float(cardinality),
                    imbalance=float(imbalance), edges=[list(e) for e in edges or ()],
                    random_state=random_state if isinstance(random_state, (int, type(None)))
                    else repr(random_state))
    ds = MultiLabelDataset(
        X, Y, [f"x{j}" for j in range(1, n_features + 1)], names,
        f"planted-{format_structure(items)}",
        [f"planted sandbox (mlviz.data.make_planted): {settings}"])
    return PlantedData(ds, G, settings)


# ------------------------------------------------------------ recovery
def expected_dependency_graph(graph):
    """The undirected graph a dependency network should find: the Markov blanket.

    The moral graph of the planted DAG (parents of a common child are
    joined) with exclusive groups as cliques.

    Parameters
    ----------
    graph : networkx.DiGraph
        ``PlantedData.graph``.

    Returns
    -------
    networkx.Graph
    """
    causal = graph.copy()
    causal.remove_edges_from([(a, b) for a, b, k in graph.edges(data="kind") if k == "xor"])
    moral = nx.moral_graph(causal) if causal.number_of_edges() else nx.Graph(causal)
    moral.add_nodes_from(graph.nodes)
    moral.add_edges_from((a, b) for a, b, k in graph.edges(data="kind") if k == "xor")
    return moral


def _edge_set(graph, names, directed):
    """Edges of a learned or planted graph as a set of (name, name) pairs."""
    if isinstance(graph, (nx.Graph, nx.DiGraph)):
        pairs = [(u, v) for u, v in graph.edges if u != v]
        as_dir = graph.is_directed()
    else:
        A = np.asarray(graph)
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"An adjacency matrix must be square, got shape {A.shape}.")
        pairs = [(int(t), int(k)) for t, k in zip(*np.nonzero(A)) if t != k]
        as_dir = True

    def name(node):
        if isinstance(node, (Integral, np.integer)) and not isinstance(node, bool):
            if names is None or not 0 <= int(node) < len(names):
                raise ValueError(f"Integer node {node} needs label_names to map it to a label.")
            return names[int(node)]
        return str(node)

    pairs = [(name(u), name(v)) for u, v in pairs]
    if directed and as_dir:
        return set(pairs)
    return {tuple(sorted(p)) for p in pairs}


def edge_status(learned, planted, label_names=None, *, directed=False):
    """Every edge of either graph, marked true / false / missed (for drawing).

    Parameters
    ----------
    learned : networkx graph (nodes are label names or column indices) or
        ndarray (L, L) adjacency (non-zero ``[t, k]`` = edge t -> k, e.g.
        ``SparseCDN.label_coef_``)
    planted : networkx graph
        ``PlantedData.graph`` or :func:`expected_dependency_graph`.
    label_names : list of str, optional
        Needed when ``learned`` uses integer nodes.
    directed : bool, default False
        False compares undirected pairs (a dependency network finds each
        planted edge in both directions); True compares ordered pairs.

    Returns
    -------
    list of dict
        ``{"source", "target", "status"}`` with status ``"true"`` (learned
        and planted), ``"false"`` (learned only) or ``"missed"`` (planted
        only), sorted by status then names.
    """
    found = _edge_set(learned, label_names, directed)
    truth = _edge_set(planted, None, directed)
    rows = [(s, t, "true") for s, t in found & truth]
    rows += [(s, t, "false") for s, t in found - truth]
    rows += [(s, t, "missed") for s, t in truth - found]
    order = {"true": 0, "false": 1, "missed": 2}
    rows.sort(key=lambda r: (order[r[2]], r[0], r[1]))
    return [dict(source=s, target=t, status=st) for s, t, st in rows]


def edge_recovery(learned, planted, label_names=None, *, directed=False):
    """Edge precision and recall of a learned label graph against the planted one.

    Parameters
    ----------
    learned, planted, label_names, directed
        As in :func:`edge_status`.

    Returns
    -------
    dict
        ``precision`` = true / learned, ``recall`` = true / planted, ``f1``,
        and the counts ``n_true``, ``n_false``, ``n_missed``.  With nothing
        learned precision is 1; with nothing planted recall is 1 (nothing
        to miss).
    """
    status = [r["status"] for r in edge_status(learned, planted, label_names, directed=directed)]
    tp, fp, fn = status.count("true"), status.count("false"), status.count("missed")
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return dict(precision=precision, recall=recall, f1=f1, n_true=tp, n_false=fp, n_missed=fn)

