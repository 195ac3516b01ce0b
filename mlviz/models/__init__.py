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

Shared, public helpers (eager; numpy/scipy/scikit-learn only):
``check_X``, ``check_Y``, ``check_X_Y``, ``check_param`` (input validation used
by models, metrics and evaluation), ``TooLargeError`` (a shape that cannot be
fitted within budget) and ``NotFittedError``.
"""

from importlib import import_module

from sklearn.exceptions import NotFittedError as NotFittedError

from .._validation import TooLargeError as TooLargeError
from .._validation import check_param as check_param
from .._validation import check_X as check_X
from .._validation import check_X_Y as check_X_Y
from .._validation import check_Y as check_Y
from .registry import estimator_classes

_LAZY = {**estimator_classes(), "median_sigma": "_kernels", "resolve_n_centers": "_kernels"}
"""Public name -> module: every estimator of the method registry (:mod:`mlviz.models.registry`), plus helpers."""

_HELPERS = ["NotFittedError", "TooLargeError", "check_X", "check_X_Y", "check_Y", "check_param"]

__all__ = sorted(_LAZY) + _HELPERS


def __getattr__(name):
    if name in _LAZY:
        module = import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
