"""The record types of the method registry (:mod:`mlviz.models.registry`): a method, its sliders, its
capabilities and the settings of its contract checks. Data only; the entries are in the registry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module

__all__ = ["Capabilities", "Checks", "MethodSpec", "Param", "PathSpec", "Scale"]


@dataclass(frozen=True)
class Scale:
    """What a slider value may be relative to: the training-set size and the median distance."""

    n_train: int
    median_distance: Callable[[], float]


@dataclass(frozen=True)
class Param:
    """One dashboard slider: a grid of values, a default, and ``convert(value, scale) -> {kwarg: value}``
    (None: the constructor argument ``name`` takes the value unchanged)."""

    name: str
    label: str
    grid: list
    default: object
    help: str = ""
    convert: Callable | None = None

    def kwargs(self, value, scale: Scale) -> dict:
        return {self.name: value} if self.convert is None else self.convert(value, scale)


@dataclass
class PathSpec:
    """A warm-started path over one slider's grid, from its largest value downwards.

    ``start(estimator, X, Y, callback)`` fits the top of the path cold; ``step(model, value,
    callback, keep)`` returns a new model at ``value`` warm-started from ``model`` (never modifying
    it; the objects in ``keep`` are shared, not copied); ``describe(model)`` the small summary the
    pages show (no large objects), with the absolute value of the path parameter under its name.
    """

    start: Callable
    step: Callable
    describe: Callable


@dataclass(frozen=True)
class Capabilities:
    """What a method accepts and returns.

    sparse : bool
        ``fit`` / ``predict_proba`` accept scipy.sparse CSR features (same result as dense).
    many_labels : bool
        Fits within budget beyond 100 labels (otherwise it may refuse with ``TooLargeError``).
    output : {"probability", "calibrated"}
        ``predict_proba`` is the model's own P(y_l = 1 | x), or a score calibrated into one.
    """

    sparse: bool = True
    many_labels: bool = True
    output: str = "probability"


@dataclass(frozen=True)
class Checks:
    """Settings of the common contract checks (small, fast fits on tiny data).

    params : dict
        Constructor arguments for the checks (added to the entry's ``fixed``).
    refit : dict or None
        Parameters an in-place ``refit(**refit)`` must change like a new fit (None: no ``refit``).
    rule : {"threshold", "rank_cut"} or None
        How ``predict`` follows from ``predict_proba``: a 0.5 threshold, a cut of the top
        ``cardinality_`` labels, or None when predict is not a function of the marginals
        (e.g. the most probable label set).
    """

    params: dict = field(default_factory=dict)
    refit: dict | None = None
    rule: str | None = "threshold"


@dataclass(frozen=True)
class MethodSpec:
    """One method: estimator, names, paper, tuning grid, sliders, capabilities and checks.

    Parameters
    ----------
    key : str
        CLI and URL name (``mlviz evaluate --methods KEY``), lower case.
    label : str
        Display name.
    estimator : str
        Class name, importable as ``mlviz.models.<estimator>``.
    module : str
        Module of :mod:`mlviz.models` that defines the class.
    paper : str
        Key of :data:`PAPERS`.
    description : str
        One sentence for menus and ``--help``.
    fixed : dict
        Constructor arguments that differ from the class defaults (a variant, a seed).
    tuning : callable or None
        Returns a fresh grid ``{param: [values]}`` for nested-CV tuning; None only with a
        ``tuning_note`` saying why.
    tuning_note : str
    sliders : tuple of Param
        The dashboard's controls (empty: none).
    fast : tuple of str
        Sliders that the estimator's ``refit`` changes in place.
    path, path_param : PathSpec, str
        A warm-started regularisation path over one slider (the sparse CDN's γ).
    dashboard : bool
        Offered on the Posteriors, Compare and Decision rules pages.
    capabilities : Capabilities
    checks : Checks
    """

    key: str
    label: str
    estimator: str
    module: str
    paper: str
    description: str
    fixed: dict = field(default_factory=dict)
    tuning: Callable | None = None
    tuning_note: str = ""
    sliders: tuple = ()
    fast: tuple = ()
    path: PathSpec | None = None
    path_param: str | None = None
    dashboard: bool = True
    capabilities: Capabilities = Capabilities()
    checks: Checks = Checks()

    # ------------------------------------------------------------ estimator
    def estimator_class(self):
        """The class (imported on first use)."""
        return getattr(import_module(f"mlviz.models.{self.module}"), self.estimator)

    def make(self, **params):
        """A new estimator: class defaults, then ``fixed``, then ``params``."""
        return self.estimator_class()(**{**self.fixed, **params})

    @property
    def tunes_threshold(self) -> bool:
        """Whether nested tuning may replace ``predict``'s threshold (global or per label): the method's
        ``predict`` is a threshold on ``predict_proba`` (``checks.rule == "threshold"``), not a rule of
        its own (:mod:`mlviz.evaluation.thresholds`)."""
        return self.checks.rule == "threshold"

    def tuning_grid(self) -> dict | None:
        """A fresh tuning grid ``{param: [values]}`` (None: the method has no tuned parameter)."""
        return None if self.tuning is None else self.tuning()

    # -------------------------------------------------------------- sliders
    def param(self, name) -> Param:
        return next(p for p in self.sliders if p.name == name)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.sliders}

    def complete(self, values: dict) -> dict:
        """Every slider's value: ``values`` with the defaults of the missing ones (unknown names dropped)."""
        return {p.name: values.get(p.name, p.default) for p in self.sliders}

    def kwargs(self, values: dict, scale: Scale, *, with_fixed: bool = True) -> dict:
        """Constructor keyword arguments for slider ``values`` (the path slider excluded)."""
        kw = dict(self.fixed) if with_fixed else {}
        for p in self.sliders:
            if p.name in values and p.name != self.path_param:
                kw.update(p.kwargs(values[p.name], scale))
        return kw

    def from_sliders(self, values: dict, scale: Scale):
        """The estimator at slider ``values`` (missing sliders at their defaults)."""
        return self.estimator_class()(**self.kwargs(self.complete(values), scale))

    def split(self, values: dict):
        """``(slow, fast, point)``: values of the base model, of ``refit``, and the path position."""
        values = self.complete(values)
        point = values.pop(self.path_param, None) if self.path_param else None
        fast = {k: v for k, v in values.items() if k in self.fast}
        slow = {k: v for k, v in values.items() if k not in self.fast}
        return slow, fast, point

    def neighbours(self, values: dict) -> list:
        """Slider values one grid step away in each non-path slider (the prefetch candidates)."""
        values = self.complete(values)
        out = []
        for p in self.sliders:
            if p.name == self.path_param or len(p.grid) < 2 or values[p.name] not in p.grid:
                continue
            i = p.grid.index(values[p.name])
            for j in (i + 1, i - 1):
                if 0 <= j < len(p.grid):
                    out.append((f"{p.name}{'+' if j > i else '-'}", {**values, p.name: p.grid[j]}))
        return out
