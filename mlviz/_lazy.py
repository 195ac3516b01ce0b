"""A package's public names imported from their modules on first use (PEP 562), for :mod:`mlviz.data` and
:mod:`mlviz.models`: importing the package, or one of its modules, then costs only what is used (the upload parse
worker imports the parsers alone; the command line reads the method registry without scikit-learn)."""

from __future__ import annotations

from importlib import import_module

__all__ = ["lazy_exports"]


def lazy_exports(namespace: dict, exports: dict):
    """The ``(__getattr__, __dir__)`` pair of the package whose ``globals()`` are ``namespace``.

    Parameters
    ----------
    namespace : dict
        The package's ``globals()``; a name is stored there once imported (the next use is a plain lookup).
    exports : dict of str -> str
        Public name -> the module defining it: relative to the package (``".stats"``) or absolute
        (``"sklearn.exceptions"``).

    Returns
    -------
    (callable, callable)
        ``__getattr__`` resolves a public name, else a submodule of the package by attribute
        (``mlviz.data.stats``), else raises ``AttributeError``; ``__dir__`` lists the public names and what the
        package has loaded.
    """
    package = namespace["__name__"]

    def __getattr__(name):
        module = exports.get(name)
        if module is not None:
            value = getattr(import_module(module, package), name)
            namespace[name] = value
            return value
        if not name.startswith("__"):
            try:
                return import_module(f".{name}", package)
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(exports) | {k for k in namespace if not k.startswith("_")})

    return __getattr__, __dir__
