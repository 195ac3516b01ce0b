"""Multi-label estimators following the scikit-learn contract.

One method family per module:

- ``lspc``      : LSPC, MTLSPC, MLLSPC (papers 004, 000); ``klr``: KernelLogisticRegression (their timing baseline)
- ``cdn``       : SparseCDN (Guo & Xue); ``pcc``: PCC (its baseline)
- ``mllem``     : MLLEM (Kimura et al.)
- ``mlrh``      : MLRH (Lee & Shajari)
- ``binary_relevance``, ``label_powerset``, ``mlknn``: BinaryRelevance, LabelPowerset, MLkNN
- ``forest``    : RandomForestML, RandomForestBR; ``boosting``: GradientBoostingBR
- ``chains``, ``clr``: ClassifierChain, EnsembleClassifierChains, RAkEL, CalibratedLabelRanking

Every estimator is declared once in the method registry
(:mod:`mlviz.models.registry`); names are imported lazily from the module the
registry names, so that importing one family never pays for the others (and a
broken optional module cannot break the rest).

Shared, public helpers (``check_X``, ``check_Y``, ``check_X_Y``, ``check_param``: input validation used
by models, metrics and evaluation; ``TooLargeError``, a shape that cannot be fitted within budget;
``NotFittedError``) are imported on first use too: the method registry, which the command line reads for
its method names, then costs no scikit-learn import (``mlviz describe`` and ``mlviz --help`` start in a
fraction of the time).
"""

from mlviz._lazy import lazy_exports

from .registry import estimator_classes

_LAZY = {**estimator_classes(), "median_sigma": "_kernels", "resolve_n_centers": "_kernels"}
"""Public name -> module: every estimator of the method registry (:mod:`mlviz.models.registry`), plus helpers."""

_HELPERS = {"NotFittedError": "sklearn.exceptions", "TooLargeError": "mlviz._validation",
            "check_X": "mlviz._validation", "check_X_Y": "mlviz._validation", "check_Y": "mlviz._validation",
            "check_param": "mlviz._validation"}

__all__ = sorted(_LAZY) + sorted(_HELPERS)
__getattr__, __dir__ = lazy_exports(globals(), {**{k: f".{v}" for k, v in _LAZY.items()}, **_HELPERS})
