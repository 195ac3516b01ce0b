"""The Label graph page's decisions and sentences, without Streamlit (unit-tested in tests/test_graph_texts.py).

The page (``pages/2_Label_graph.py``) draws; what it says and how many edges it draws are decided here
from the γ path step on screen (:class:`mlviz.dashboard.compute.PathStep`) and the slider values.
"""

from __future__ import annotations

from mlviz.plotting.format import fmt_value as _fmt

AUTO = "auto"
#: The automatic γ keeps at least this many edges, and at most :data:`AUTO_MAX_EDGES` are drawn.
AUTO_MIN_EDGES, AUTO_MAX_EDGES = 3, 12
#: Edges drawn at most with "auto" at a γ chosen by hand.
AUTO_MAX_EDGES_MANUAL = 50

__all__ = ["AUTO", "AUTO_MAX_EDGES", "AUTO_MIN_EDGES", "AUTO_MAX_EDGES_MANUAL", "max_edges", "takeaway", "fit_caption"]


def max_edges(choice, *, collapse: bool, automatic: bool, uses_gamma: bool):
    """How many of the strongest edges to draw: ``None`` for all.

    Parameters
    ----------
    choice : "auto", None or int
        The "edges drawn" control.
    collapse : bool
        Communities collapsed into nodes (a few dozen links between them: all drawn).
    automatic : bool
        γ was chosen automatically (and the graph on screen is at that γ).
    uses_gamma : bool
        The variant has an ℓ1 penalty on V (γ matters).
    """
    if choice == AUTO:
        if collapse:
            return None
        return AUTO_MAX_EDGES if automatic and uses_gamma else AUTO_MAX_EDGES_MANUAL
    return None if choice is None else int(choice)


def takeaway(gamma_ratio, n_edges: int, n_features_used: int, n_features: int, *, uses_gamma: bool) -> str:
    """The presentation-mode sentence of the learned graph."""
    lead = f"At γ = {_fmt(gamma_ratio)}·γ_max the" if uses_gamma else "The"
    return (f"{lead} sparse CDN keeps {n_edges} label → label edges and uses {n_features_used} of "
            f"{n_features} features.")


def fit_caption(step: dict, shown: dict, kwargs: dict, *, n_train: int, uses_gamma: bool, uses_mu: bool,
                automatic: bool, drawn_max) -> str:
    """The caption under the metrics: how γ was chosen and the penalties of the fit on screen.

    Parameters
    ----------
    step : dict
        The path step (``n_edges``, ``gamma``, ``gamma_max``).
    shown : dict
        Slider values on screen (``gamma`` as a fraction of γ_max, ``variant``).
    kwargs : dict
        The estimator's penalties (``mu``, ``lam1``).
    n_train : int
    uses_gamma, uses_mu, automatic : bool
    drawn_max : int or None
        Edges drawn at most (:func:`max_edges`).
    """
    text = ""
    if automatic and uses_gamma:
        drawn = (f"; the {drawn_max} strongest are drawn" if drawn_max is not None and step["n_edges"] > drawn_max
                 else "")
        text = (f"γ chosen automatically: {_fmt(shown['gamma'])}·γ_max, the largest γ of the slider whose graph "
                f"keeps at least {AUTO_MIN_EDGES} edges (it keeps {step['n_edges']}{drawn}). Move the γ slider to "
                "choose another. ")
    text += (f"γ = {step['gamma']:.3g} (γ_max = {step['gamma_max']:.3g} for these data), " if uses_gamma else
             f"γ is not used by the {shown['variant']} variant (no ℓ1 penalty on V), ")
    text += (f"μ = {kwargs['mu']:.3g}, " if uses_mu else
             f"μ is not used by the {shown['variant']} variant (no ℓ2,1 penalty on W), ")
    return text + (f"λ₁ = λ₂ = {kwargs['lam1']:g}; the loss is summed over the {n_train} training instances "
                   "(Guo & Xue, eq. 4).")
