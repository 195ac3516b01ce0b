"""Edge effects of a fitted sparse CDN: how much P(y_B = 1 | x) moves when label A is switched on vs off.

A conditional dependency network (Guo & Xue 2013, eq. (1)) defines its test-time distribution as
the stationary distribution of the systematic-scan Gibbs sampler over the labels
(:class:`mlviz.models.cdn.SparseCDN`, ``predict_proba``).  *Switching label A on* (or off) means
holding ``y_A`` at 1 (or 0) in that sampler — A is never resampled, every other label is resampled
from eq. (1) as before — and reading off the stationary marginal of B:

.. math:: \\Delta_B(x) = P(y_B = 1 \\mid x, \\mathrm{do}(y_A = 1)) - P(y_B = 1 \\mid x, \\mathrm{do}(y_A = 0)).

(When the label weights are symmetric, ``V = V^T``, the CDN's conditionals are those of one
Ising model and clamping equals conditioning, ``P(y_B | x, y_A)``; the tests check both.)

Two ways of computing it (:data:`METHODS`, the names the dashboard shows):

``"exact"``
    The clamped chain lives on the labels of A's weakly connected component of the label graph
    other than A (labels outside it do not interact with A or B; if B is outside, ``Δ = 0``).  Its
    stationary distribution over the ``2^(c-1)`` states is computed as ``predict_proba`` does for
    a component (:func:`mlviz.models._cdn_inference.exact_marginals`: a dense solve or power iteration
    to 1e-9).  Cost ``O(n (c-1) 2^(c-1))`` per sweep; refused (``auto``: replaced by the
    approximation) for components of more than ``max_exact_labels`` labels (the model's, 12 by
    default, at most :data:`MAX_EXACT_LABELS`), the rule of ``SparseCDN.predict_proba``.
``"conditional"`` (approximation for large components)
    The conditional of eq. (1) with the other labels at the model's predictions ``ŷ``
    (``predict_proba >= 0.5``, or given): ``σ(w_B·x + b_B + Σ_{t≠A,B} (2ŷ_t - 1) V_tB ± V_AB)``.
    It ignores how A moves the other labels (paths A → C → B), so it only sees the direct edge.

Nothing here is O(2^L) without the size check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from ._cdn_inference import exact_marginals

try:
    from ._base import TooLargeError
except ImportError:  # pragma: no cover - older checkouts
    class TooLargeError(ValueError):
        """The requested computation exceeds the size this function handles."""

__all__ = ["EdgeEffect", "METHODS", "MAX_EXACT_LABELS", "clamped_marginals", "conditional_marginal",
           "edge_effect", "top_instances"]

#: Hard upper bound on the labels of a clamped chain solved exactly (2^16 states per instance).
MAX_EXACT_LABELS = 16
#: method -> what the dashboard writes beside the numbers.
METHODS = {
    "exact": "exact: stationary marginal of B in the CDN's Gibbs sampler with y_A held at 1 vs 0",
    "conditional": "approximation: P(y_B = 1 | x, y_A = 1 vs 0, other labels at the model's predictions) "
                   "— direct edge only, the component is too large to enumerate",
    "unconnected": "exact: A and B are in different components of the label graph, so switching A "
                   "does not move B (Δ = 0)",
}


@dataclass
class EdgeEffect:
    """``P(y_B = 1 | x)`` with A on (``p_on``) and off (``p_off``), each of shape (n,), their
    difference ``delta = p_on - p_off`` and the method used (a key of :data:`METHODS`)."""

    source: int
    target: int
    p_on: np.ndarray
    p_off: np.ndarray
    method: str
    component_size: int

    @property
    def delta(self) -> np.ndarray:
        return self.p_on - self.p_off

    @property
    def method_label(self) -> str:
        return METHODS[self.method]


def _component(V, a):
    """Sorted labels of the weakly connected component of ``a`` in the graph of ``V != 0``."""
    _, lab = connected_components(sp.csr_matrix(np.asarray(V) != 0), directed=True, connection="weak")
    return np.flatnonzero(lab == lab[a])


def clamped_marginals(linear, V, a, value, *, max_exact_labels=12):
    """Stationary marginals of the systematic-scan Gibbs sampler with label ``a`` held at ``value``.

    Parameters
    ----------
    linear : ndarray, shape (n, L)
        ``X W + b`` of eq. (1).
    V : ndarray, shape (L, L)
        Label weights (labels coded ±1), zero diagonal; ``V[t, k]`` is the weight of t in k's predictor.
    a : int
        The clamped label.
    value : {0, 1}
    max_exact_labels : int
        Largest number of free labels (``L - 1``) enumerated; at most :data:`MAX_EXACT_LABELS`.

    Returns
    -------
    ndarray, shape (n, L)
        Marginals ``P(y_k = 1)``; column ``a`` is ``value``.

    Raises
    ------
    TooLargeError
        More than ``max_exact_labels`` free labels.
    """
    linear = np.asarray(linear, dtype=float)
    V = np.asarray(V, dtype=float)
    n, L = linear.shape
    a = int(a)
    if not 0 <= a < L:
        raise ValueError(f"Label index a must be in [0, {L}), got {a}.")
    if value not in (0, 1):
        raise ValueError(f"value must be 0 or 1, got {value!r}.")
    cap = min(int(max_exact_labels), MAX_EXACT_LABELS)
    if L - 1 > cap:
        raise TooLargeError(f"Clamping one label leaves {L - 1} free labels: 2^{L - 1} states per instance, "
                            f"more than the {cap} enumerated exactly.")
    out = np.empty((n, L))
    out[:, a] = float(value)
    others = np.array([k for k in range(L) if k != a], dtype=np.int64)
    if others.size == 0:
        return out
    lin = linear[:, others] + (2.0 * value - 1.0) * V[a, others]
    P, _ = exact_marginals(lin, V[np.ix_(others, others)], expit(lin))
    out[:, others] = P
    return out


def conditional_marginal(linear, V, a, b, value, Y_given):
    """The approximation: ``σ(linear_b + Σ_{t≠a,b} (2 ŷ_t - 1) V[t, b] + (2 value - 1) V[a, b])``.

    Parameters
    ----------
    linear : ndarray, shape (n, L)
    V : ndarray, shape (L, L)
    a, b : int
    value : {0, 1}
    Y_given : ndarray, shape (n, L), 0/1
        The other labels' values (the model's predictions).

    Returns
    -------
    ndarray, shape (n,)
    """
    Y = np.asarray(Y_given, dtype=float).copy()
    Y[:, a] = float(value)
    S = 2.0 * Y - 1.0
    V = np.asarray(V, dtype=float)
    return expit(np.asarray(linear, dtype=float)[:, b] + S @ V[:, b] - S[:, b] * V[b, b])


def edge_effect(model, X, source, target, *, method="auto", max_exact_labels=None, Y_given=None) -> EdgeEffect:
    """How ``P(y_target = 1 | x)`` changes when ``source`` is switched on vs off in a fitted CDN.

    Parameters
    ----------
    model : mlviz.models.SparseCDN
        Fitted.
    X : array-like or CSR, shape (n, d)
    source, target : int
        Labels A and B (``A != B``); usually an edge A → B of ``model.label_graph_``.
    method : {"auto", "exact", "conditional"}
        ``"auto"``: exact when A's component has at most ``max_exact_labels`` labels (the rule of
        ``SparseCDN.predict_proba``, so the cost is at most about that of an exact ``predict_proba``
        of the component: two chains of one label less), else the approximation (module docstring).
    max_exact_labels : int, optional
        Default: the model's ``max_exact_labels``; capped at :data:`MAX_EXACT_LABELS`.
    Y_given : ndarray of shape (n, L), or a callable returning one, optional
        The labels' predicted values for ``"conditional"`` (default ``model.predict(X)``); a
        callable is called only when the approximation is used.

    Returns
    -------
    EdgeEffect

    Raises
    ------
    TooLargeError
        ``method="exact"`` on a component too large to enumerate.
    ValueError
        Bad label indices or method.
    """
    V = np.asarray(model.label_coef_, dtype=float)
    L = V.shape[0]
    a, b = int(source), int(target)
    if not (0 <= a < L and 0 <= b < L):
        raise ValueError(f"Label indices must be in [0, {L}), got {a} and {b}.")
    if a == b:
        raise ValueError("An edge effect needs two different labels (A → B with A ≠ B).")
    if method not in ("auto", "exact", "conditional"):
        raise ValueError(f"method must be 'auto', 'exact' or 'conditional', got {method!r}.")
    cap = min(int(getattr(model, "max_exact_labels", 12) if max_exact_labels is None else max_exact_labels),
              MAX_EXACT_LABELS)
    linear = model.decision_function(X)
    comp = _component(V, a)
    if b not in comp:  # (other components are independent of A in the sampler)
        p = expit(linear[:, b]) if _component(V, b).size == 1 else model.predict_proba(X)[:, b]
        return EdgeEffect(a, b, np.asarray(p, dtype=float), np.asarray(p, dtype=float), "unconnected", int(comp.size))
    if method == "exact" and comp.size > cap:
        raise TooLargeError(f"Label {a}'s component of the label graph has {comp.size} labels, more than the "
                            f"{cap} computed exactly (2^{comp.size - 1} states per instance); use method='auto' "
                            "(the named approximation) or a larger γ.")
    if comp.size <= cap and method in ("auto", "exact"):
        sub_a = int(np.searchsorted(comp, a))
        sub_b = int(np.searchsorted(comp, b))
        lin, Vc = linear[:, comp], V[np.ix_(comp, comp)]
        on = clamped_marginals(lin, Vc, sub_a, 1, max_exact_labels=cap)[:, sub_b]
        off = clamped_marginals(lin, Vc, sub_a, 0, max_exact_labels=cap)[:, sub_b]
        return EdgeEffect(a, b, on, off, "exact", int(comp.size))
    if Y_given is None:
        Y_given = model.predict(X)
    elif callable(Y_given):  # (computed only when the approximation needs it)
        Y_given = Y_given()
    Y_given = np.asarray(Y_given.toarray() if hasattr(Y_given, "toarray") else Y_given)
    on = conditional_marginal(linear, V, a, b, 1, Y_given)
    off = conditional_marginal(linear, V, a, b, 0, Y_given)
    return EdgeEffect(a, b, on, off, "conditional", int(comp.size))


def top_instances(delta, k) -> np.ndarray:
    """Indices of the ``k`` largest ``|delta|``, largest first (ties: lower index first), shape (<= k,)."""
    d = np.abs(np.nan_to_num(np.asarray(delta, dtype=float), nan=0.0))
    order = np.lexsort((np.arange(d.size), -d))
    return order[:max(int(k), 0)].astype(np.int64)
