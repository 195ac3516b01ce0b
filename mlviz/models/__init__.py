"""Multi-label estimators following the scikit-learn contract.

One method family per module:

- ``lspc``      : LSPC, MTLSPC, MLLSPC (papers 004, 000); ``klr``: KernelLogisticRegression (their timing baseline)
- ``cdn``       : SparseCDN (paper 001); ``pcc``: PCC (its baseline)
- ``mllem``     : MLLEM (paper 002)
- ``mlrh``      : MLRH (paper 003)
- ``baselines`` : BinaryRelevance, LabelPowerset, MLkNN

Names are imported lazily so that importing one family never pays for the
others (and a broken optional module cannot break the rest).
"""

from importlib import import_module

_LAZY = {
    "LSPC": "lspc",
    "MTLSPC": "lspc",
    "MLLSPC": "lspc",
    "KernelLogisticRegression": "klr",
    "SparseCDN": "cdn",
    "PCC": "pcc",
    "MLLEM": "mllem",
    "MLRH": "mlrh",
    "BinaryRelevance": "baselines",
    "LabelPowerset": "baselines",
    "MLkNN": "baselines",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        module = import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return __all__
