"""Pure plotly figure builders for the mlviz dashboard.

Data in (numpy / pandas / networkx), ``plotly.graph_objects.Figure`` out; no
Streamlit, no global state, deterministic. Submodules:

* :mod:`~mlviz.plotting.data` — label frequencies, co-occurrence heatmap;
* :mod:`~mlviz.plotting.embedding` — MLLEM joint embedding, UMAP/PCA panels,
  selection mapping;
* :mod:`~mlviz.plotting.latent` — another method's latent space (CPLST, FaIE, LEML, SLEEC) by PCA,
  with its label codes;
* :mod:`~mlviz.plotting.graph` — sparse-CDN label graph, co-occurrence graph;
* :mod:`~mlviz.plotting.layout` — where the labels of those graphs sit (computed once per data set);
* :mod:`~mlviz.plotting.paths` — regularisation path, FISTA convergence;
* :mod:`~mlviz.plotting.posterior` — posterior heatmaps, reliability curves;
* :mod:`~mlviz.plotting.compare` — CV measure / timing bars, solver scaling,
  LSPC vs KLR time ratio;
* :mod:`~mlviz.plotting.export` — HTML (offline, plotly.js embedded) and PNG export;
* :mod:`~mlviz.plotting.tables` — numeric tables behind the figures, CSV-safe export;
* :mod:`~mlviz.plotting.format` — counts, shapes, durations and articles for captions;
* :mod:`~mlviz.plotting._style` — palette and layout conventions.
"""

from . import format, tables
from ._style import (
    DIVERGING_SCALE,
    NEGATIVE_COLOR,
    POSITIVE_COLOR,
    PROBABILITY_SCALE,
    TEMPLATE,
    method_colors,
)
from .compare import (
    clean_results,
    measure_bars,
    solver_scaling_figure,
    time_ratio_figure,
    timing_bars,
)
from .data import (
    cooccurrence_counts,
    cooccurrence_heatmap,
    edge_stability_heatmap,
    label_frequency_bar,
    signed_matrix_heatmap,
)
from .embedding import (
    color_kind,
    embedding_scatter,
    focus_label_indices,
    instance_scatter,
    point_style,
    selection_ids,
)
from .export import figure_to_html, figure_to_png, find_chromium, stop_png_browser
from .graph import cooccurrence_graph_figure, default_min_count, edge_widths, label_graph_figure
from .latent import latent_scatter, project_codes
from .layout import cooccurrence_layout, spread_layout
from .paths import convergence_figure, regularization_path_figure
from .posterior import (
    order_by_labelset,
    per_label_scores,
    posterior_grid,
    posterior_heatmap,
    reliability_bins,
    reliability_figure,
)
from .teach import recovery_graph_figure, rule_curve_figure

__all__ = [
    # data overview
    "label_frequency_bar", "cooccurrence_counts", "cooccurrence_heatmap",
    "signed_matrix_heatmap", "edge_stability_heatmap",
    # embeddings
    "embedding_scatter", "instance_scatter", "selection_ids", "color_kind",
    "focus_label_indices", "point_style", "latent_scatter", "project_codes",
    # graphs
    "label_graph_figure", "cooccurrence_graph_figure", "edge_widths", "default_min_count",
    "cooccurrence_layout", "spread_layout",
    # solver diagnostics
    "regularization_path_figure", "convergence_figure",
    # posteriors
    "order_by_labelset", "posterior_heatmap", "posterior_grid", "per_label_scores",
    "reliability_bins", "reliability_figure",
    # teaching: planted vs learned graph, decision-rule curves
    "recovery_graph_figure", "rule_curve_figure",
    # comparisons
    "measure_bars", "timing_bars", "solver_scaling_figure",
    "time_ratio_figure", "clean_results",
    # export
    "figure_to_html", "figure_to_png", "find_chromium", "stop_png_browser",
    # tables (numeric, CSV-safe) and number formatting
    "tables", "format",
    # style
    "method_colors", "TEMPLATE", "PROBABILITY_SCALE", "DIVERGING_SCALE",
    "POSITIVE_COLOR", "NEGATIVE_COLOR",
]
