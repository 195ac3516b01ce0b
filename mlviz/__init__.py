"""mlviz: see multi-label learning.

A pure-Python solver library (``mlviz.solvers``), scikit-learn-style
multi-label estimators (``mlviz.models``), a data layer (``mlviz.data``),
multi-label measures (``mlviz.metrics``), an evaluation engine
(``mlviz.evaluation``) and pure plotly figure builders (``mlviz.plotting``).
The Streamlit dashboard lives in ``mlviz.dashboard`` and is the only
sub-package that imports streamlit.
"""

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "data",
    "metrics",
    "models",
    "solvers",
    "evaluation",
    "plotting",
]
