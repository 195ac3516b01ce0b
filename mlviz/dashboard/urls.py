"""Every URL query parameter of the dashboard, declared once, and the sanitiser that checks an address
before any work.

A shared link is input from anyone. :data:`SCHEMA` declares, for every query parameter a page binds
(``bind="query-params"``) or reads (``st.query_params``), its type, its range or choices, its maximum
length and the pages that own it (:class:`UrlParam`). Choices come from the registries where they
exist: method names and slider grids from :mod:`mlviz.models.registry` (through
:mod:`mlviz.dashboard.methods`), pages from :mod:`mlviz.dashboard.pages`, scalings from
:data:`mlviz.preprocessing.SCALINGS`, bundled data sets from :func:`mlviz.data.list_samples`.

:func:`sanitize` turns the raw parameters (``{name: [values]}``) into the clean address: a value
outside the schema is dropped (a number outside its range is clamped to it, and snapped to the
slider's step), a parameter no page on this page's list owns is dropped, a number written
differently from a slider's label (``0.003`` for ``3e-03``) becomes the label, and every kept value
is at most :attr:`UrlParam.max_chars` long (lists at most :attr:`UrlParam.max_items` items, at most
:data:`MAX_PARAMS` parameters). Sizes a user chooses (the sandbox structure, the selected instances,
rows, folds, ``k``, the number of labels drawn) are checked here, on the text, before anything of
that size is built. Values that depend on the data set (label names, ``k`` up to the number of
labels) are checked a second time with the data's :class:`DataShape`.

No Streamlit here: :func:`mlviz.dashboard.state.apply_url_schema` applies the result to the page's
address. The schema is checked against the pages' sources by ``tests/test_urls.py`` (a bound key
the schema lacks fails the test).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from mlviz.plotting.format import fmt_value  # the label a bound control writes into the URL

from ._url_checks import (
    MAX_IDS,
    _edge_data_problem,
    _edge_problem,
    _rows_data_problem,
    _rows_problem,
    _structure_problem,
)

__all__ = ["ALL", "DataShape", "MAX_IDS", "MAX_PARAMS", "POSTERIOR_ROWS", "SCHEMA", "UPLOAD_TOKEN", "UrlParam",
           "fmt_value", "lookup", "max_address_chars", "posterior_row_choices", "sanitize", "text_limit",
           "upload_token"]

ALL = "all"
#: Most query parameters one address keeps (the rest are dropped).
MAX_PARAMS = 300
#: Characters of a raw value quoted in a note.
_QUOTE = 40
#: The URL value of an uploaded data set: ``upload-`` and the full SHA-256 of the upload
#: (:func:`mlviz.dashboard.state.upload_id`).
UPLOAD_TOKEN = re.compile(r"upload-[0-9a-f]{64}")
#: Most label indices of a data set (``thr_l<j>``, ``sel_*``; the data pass bounds them by its labels).
MAX_LABEL_INDEX = 100_000
#: Control groups of presentation mode's ``hide=`` (:data:`mlviz.dashboard.present.GROUPS`; a test keeps
#: the two lists equal).
HIDE_GROUPS = ("sidebar", "sliders", "selectors", "upload", "downloads", "expanders", "toolbar")
_ON, _OFF = ("1", "true", "on", "yes"), ("0", "false", "off", "no", "")
NONE_OPTION = "— none —"


#: Test rows the Posteriors heat maps may draw (a seeded sample; the measures use every row).
POSTERIOR_ROWS = (100, 200, 500, 1000, 2000)


def posterior_row_choices(n_test: int) -> tuple:
    """The "Test instances drawn" choices of a test set of ``n_test`` rows: the sizes of
    :data:`POSTERIOR_ROWS` at least 10 % below it (not 200 of 202), then all of it (up to the
    largest size: a larger test set offers the sizes only). One choice (``n_test`` < 110): the page
    draws every row without a slider."""
    n_test = int(n_test)
    if n_test > POSTERIOR_ROWS[-1]:
        return POSTERIOR_ROWS
    return tuple(c for c in POSTERIOR_ROWS if 11 * c <= 10 * n_test) + (n_test,)


def upload_token(data_key: str) -> str:
    """The URL value of the upload ``data_key`` (``upload:<name>:<sha256>``): ``upload-<sha256>``."""
    return "upload-" + str(data_key).rsplit(":", 1)[-1]


@dataclass(frozen=True)
class DataShape:
    """What the data-dependent checks need of the data set shown."""

    label_names: tuple
    n_train: int
    n_test: int = 0


@dataclass(frozen=True)
class UrlParam:
    """One query parameter.

    name : str
        The parameter; with ``indexed``, a prefix followed by a label index (``thr_l<j>``).
    kind : {"choice", "multi", "int", "float", "bool", "text"}
    owners : tuple of str
        Page files (``"3_Posteriors.py"``) whose address may hold it, or ``("all",)``.
    choices : tuple of str
        The URL strings accepted (choice, multi); numeric labels also accept the same number written
        otherwise (``0.003`` for ``3e-03``).
    lo, hi, step : float
        Range and step of a number (int, float); a value outside is clamped, one between steps snapped.
    max_chars : int
        Longest value kept (longer: dropped).
    max_items : int
        Most values of a multi-select (extra items dropped).
    check : callable(str) -> str or None
        Extra check of a text: the reason it is refused, or None.
    data_choices : callable(DataShape) -> tuple, optional
        Choices that depend on the data set (label names); without data only the length is checked.
    data_hi : callable(DataShape) -> int, optional
        Upper end of a number that depends on the data set (``k`` up to the number of labels).
    data_check : callable(str, DataShape) -> str or None
        Extra check of a text against the data set.
    indexed : bool
        ``name`` is a prefix of ``name<j>``, ``j`` a label index.
    hint : str
        What the parameter accepts, for the note shown when a value is dropped.
    """

    name: str
    kind: str
    owners: tuple
    choices: tuple = ()
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    max_chars: int = 64
    max_items: int = 1
    check: Callable | None = None
    data_choices: Callable | None = None
    data_hi: Callable | None = None
    data_check: Callable | None = None
    indexed: bool = False
    hint: str = field(default="")

    def owned_by(self, page: str | None) -> bool:
        return page is None or ALL in self.owners or page in self.owners


# ------------------------------------------------------------------ the schema

def _numeric(label: str) -> float | None:
    try:
        x = float(label)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _labels(grid, fmt=fmt_value) -> tuple:
    return tuple(fmt(v) for v in grid)


def _names(data: DataShape) -> tuple:
    return tuple(str(n) for n in data.label_names)


def _slider_params(prefix: str, owners: tuple, skip=()) -> list:
    """The bound controls of every dashboard method's sliders (``<prefix><method>_<param>``)."""
    from .methods import METHODS

    out = []
    for m in METHODS.values():
        for p in m.sliders:
            if p.grid is None or p.name in skip:
                continue
            out.append(UrlParam(f"{prefix}{m.key}_{p.name}", "choice", owners, _labels(p.grid),
                                hint=f"{m.label} {p.name} slider values"))
    return out


def _build() -> dict:
    from mlviz.data import list_samples
    from mlviz.decision import COMPARED_RULES, RULE_LABELS
    from mlviz.models.registry import METHODS as _REGISTRY
    from mlviz.preprocessing import SCALINGS

    from .methods import METHODS, POSTERIOR_METHODS
    from .tour import NAMES as TOUR_NAMES

    HOME, EMB, GRAPH, POST, CMP, SB, DR, REF = ("0_Home.py", "1_Embedding.py", "2_Label_graph.py", "3_Posteriors.py",
                                                "4_Compare.py", "5_Sandbox.py", "6_Decision_rules.py",
                                                "7_Reference_check.py")
    every = (ALL,)
    method_labels = tuple(METHODS[k].label for k in POSTERIOR_METHODS)
    samples = tuple(n for n in list_samples() if n not in ("scene-train", "scene-test"))
    name_len = 200
    n_labels = lambda d: len(d.label_names)  # noqa: E731
    params = [
        # shared by every page (mlviz.dashboard.state, present, tour, linked)
        UrlParam("data", "choice", every, samples, max_chars=71,
                 check=lambda v: None if (v in samples or UPLOAD_TOKEN.fullmatch(v)) else "not a data set",
                 hint="a bundled data set or upload-<sha256>"),
        UrlParam("scaling", "choice", every, ("auto", *SCALINGS)),
        UrlParam("present", "choice", every, ("1", "0"), max_chars=8, hint="1 or 0"),
        UrlParam("hide", "text", every, HIDE_GROUPS + ("all",), max_chars=80, hint="groups " + ", ".join(HIDE_GROUPS)),
        UrlParam("tour", "choice", every, tuple(str(i) for i in range(len(TOUR_NAMES) + 1)) + tuple(TOUR_NAMES),
                 max_chars=16, hint=f"1-{len(TOUR_NAMES)} or one of {', '.join(TOUR_NAMES)}"),
        UrlParam("sel_label", "choice", every, max_chars=name_len, data_choices=_names,
                 hint="a label of this data set"),
        UrlParam("sel_edge", "text", every, max_chars=80, check=_edge_problem, data_check=_edge_data_problem),
        UrlParam("sel_rows", "text", every, max_chars=4000, check=_rows_problem, data_check=_rows_data_problem),
        # Home
        UrlParam("cooc_norm", "choice", (HOME,), ("counts", "jaccard", "conditional")),
        # the label selector (mlviz.dashboard.focus) on Embedding and Label graph
        UrlParam("labels_mode", "choice", (EMB, GRAPH), ("frequent", "connected", "search", "picked")),
        UrlParam("labels_k", "int", (EMB, GRAPH), lo=5, hi=200, step=5,
                 data_hi=lambda d: max(5, min(len(d.label_names), 200))),
        UrlParam("labels_q", "text", (EMB, GRAPH), max_chars=100),
        UrlParam("labels_pick", "multi", (EMB, GRAPH), max_chars=name_len, max_items=200, data_choices=_names),
        # Embedding
        UrlParam("emb_color", "choice", (EMB,), ("a label", "label count", "posterior")),
        UrlParam("emb_label", "choice", (EMB,), max_chars=name_len, data_choices=_names),
        UrlParam("emb_model", "choice", (EMB,), tuple(METHODS[k].label for k in POSTERIOR_METHODS if k != "mllem")),
        UrlParam("emb_dims", "choice", (EMB,), ("2-D", "3-D")),
        UrlParam("emb_test", "bool", (EMB,)),
        UrlParam("emb_umap", "bool", (EMB,)),
        UrlParam("upset_k", "int", (EMB,), lo=5, hi=40, step=5),
        UrlParam("emb_other", "choice", (EMB,),
                 ("none", *(_REGISTRY[k].label for k in ("cplst", "faie", "leml", "sleec") if k in _REGISTRY))),
        *_slider_params("emb_", (EMB,), skip=("n_components",)),
        # Label graph
        *[UrlParam(f"cdn_{p.name}", "choice", (GRAPH,), (("auto",) if p.name == "gamma" else ()) + _labels(p.grid))
          for p in METHODS["cdn"].sliders],
        UrlParam("cdn_focus", "choice", (GRAPH,), max_chars=name_len,
                 data_choices=lambda d: (NONE_OPTION, *_names(d))),
        UrlParam("cdn_radius", "choice", (GRAPH,), ("1", "2")),
        UrlParam("cdn_max_edges", "choice", (GRAPH,), ("auto", "10", "20", "50", "100", "200", "500", "all")),
        UrlParam("cdn_min_w", "choice", (GRAPH,), _labels([0.0, 0.01, 0.03, 0.1, 0.3, 1.0])),
        UrlParam("cdn_comm", "bool", (GRAPH,)),
        UrlParam("cdn_collapse", "bool", (GRAPH,)),
        UrlParam("cdn_expand", "choice", (GRAPH,), max_chars=24,
                 data_choices=lambda d: (NONE_OPTION, *(f"community {c + 1}" for c in range(len(d.label_names))))),
        UrlParam("cooc_min", "int", (GRAPH,), lo=1, hi=10**7, step=1, data_hi=lambda d: max(2, d.n_train)),
        UrlParam("cdn_edge_q", "text", (GRAPH,), max_chars=100),
        # Posteriors (its sliders are read by Compare too)
        UrlParam("post_models", "multi", (POST,), method_labels, max_items=len(method_labels)),
        UrlParam("thr_mode", "choice", (POST,), ("each model's own rule", "global", "per label", "rank cut")),
        UrlParam("thr_global", "float", (POST,), lo=0.05, hi=0.95, step=0.05),
        UrlParam("thr_rank", "int", (POST,), lo=1, hi=MAX_LABEL_INDEX, step=1, data_hi=lambda d: max(1, n_labels(d))),
        UrlParam("thr_rest", "float", (POST,), lo=0.05, hi=0.95, step=0.05),
        UrlParam("thr_l", "float", (POST,), lo=0.05, hi=0.95, step=0.05, indexed=True),
        UrlParam("post_labels", "choice", (POST,), ("5", "10", "20", "30", "50")),
        UrlParam("post_rows", "choice", (POST,), _labels(POSTERIOR_ROWS), max_chars=8,
                 data_choices=lambda d: _labels(posterior_row_choices(d.n_test) if d.n_test else POSTERIOR_ROWS),
                 hint="a number of test rows offered for this data set"),
        UrlParam("post_order", "choice", (POST,), ("frequency", "cluster", "data")),
        UrlParam("post_view", "choice", (POST,), ("side by side", "one panel per model")),
        UrlParam("post_rel", "bool", (POST,)),
        *_slider_params("post_", (POST, CMP)),
        # Compare
        UrlParam("cmp_methods", "multi", (CMP,), method_labels, max_items=len(method_labels)),
        UrlParam("cmp_folds", "choice", (CMP,), ("2", "3", "4", "5", "10")),
        UrlParam("cmp_tune", "bool", (CMP,)),
        UrlParam("cmp_protocol", "choice", (CMP,), _compare_protocols()),
        UrlParam("cmp_quick", "bool", (CMP,)),
        # Sandbox
        UrlParam("sb_preset", "choice", (SB,), ("chain", "hub", "xor", "mix", "custom")),
        UrlParam("sb_structure", "text", (SB,), max_chars=200, check=_structure_problem),
        UrlParam("sb_n", "choice", (SB,), ("200", "500", "1000", "2000", "4000")),
        UrlParam("sb_d", "choice", (SB,), ("2", "5", "10", "20", "50")),
        UrlParam("sb_coupling", "float", (SB,), lo=0.0, hi=8.0, step=0.5),
        UrlParam("sb_strength", "float", (SB,), lo=0.0, hi=6.0, step=0.5),
        UrlParam("sb_noise", "float", (SB,), lo=0.0, hi=0.3, step=0.01),
        UrlParam("sb_card", "float", (SB,), lo=0.1, hi=0.9, step=0.05),
        UrlParam("sb_imb", "choice", (SB,), ("1.0", "2.0", "5.0", "10.0", "20.0")),
        UrlParam("sb_seed", "int", (SB,), lo=0, hi=10_000, step=1),
        UrlParam("sb_gamma", "choice", (SB,), ("0.01", "0.02", "0.05", "0.1", "0.2", "0.3", "0.5", "1.0")),
        UrlParam("sb_guess", "choice", (SB,), ("no guess", "BR", "PCC", "PCC joint mode", "SparseCDN")),
        UrlParam("sb_reveal", "bool", (SB,)),
        UrlParam("sb_lspc", "bool", (SB,)),
        # Decision rules
        UrlParam("dr_method", "choice", (DR,), method_labels),
        *_slider_params("dr_", (DR,)),
        UrlParam("dr_rule", "choice", (DR,), tuple(RULE_LABELS.values())),
        UrlParam("dr_alo", "bool", (DR,)),
        UrlParam("dr_t", "float", (DR,), lo=0.0, hi=1.0, step=0.01),
        UrlParam("dr_label", "choice", (DR,), max_chars=name_len, data_choices=_names),
        UrlParam("dr_tl", "float", (DR,), lo=0.0, hi=1.0, step=0.01),
        UrlParam("dr_k", "int", (DR,), lo=0, hi=MAX_LABEL_INDEX, step=1, data_hi=n_labels),
        UrlParam("dr_scut", "choice", (DR,), ("f1", "accuracy")),
        UrlParam("dr_off", "float", (DR,), lo=-0.3, hi=0.3, step=0.01),
        UrlParam("dr_guess", "choice", (DR,), ("no guess", *(RULE_LABELS[k] for k in COMPARED_RULES))),
        UrlParam("dr_reveal", "bool", (DR,)),
        # Reference check
        UrlParam("ref_data", "choice", (REF,), _reference()[0]),
        UrlParam("ref_protocol", "choice", (REF,), _reference()[1]),
        UrlParam("ref_sota_measure", "choice", (REF,), _reference()[2]),
    ]
    out = {}
    for p in params:
        if p.name in out:
            raise ValueError(f"URL parameter {p.name} declared twice")
        out[p.name] = p
    return out


def _compare_protocols() -> tuple:
    from .compute import COMPARE_PROTOCOLS

    return tuple(COMPARE_PROTOCOLS.values())


def _reference() -> tuple:
    from mlviz.reproductions.reference import PROTOCOLS
    from mlviz.reproductions.standard_splits import MEASURE_NAMES, PUBLISHED_MEASURES

    return (tuple(dict.fromkeys(d for ds in PROTOCOLS.values() for d in ds)), tuple(PROTOCOLS),
            tuple(MEASURE_NAMES[m] for m in PUBLISHED_MEASURES))


@lru_cache(maxsize=1)
def schema() -> dict:
    """``{name: UrlParam}`` of every query parameter (built once, from the registries)."""
    return _build()


class _Schema(dict):
    """:func:`schema` on first use (the registries are imported only then)."""

    def _full(self):
        if not dict.__len__(self):
            self.update(schema())
        return self

    def __getitem__(self, k):
        return dict.__getitem__(self._full(), k)

    def __iter__(self):
        return dict.__iter__(self._full())

    def __len__(self):
        return dict.__len__(self._full())

    def __contains__(self, k):
        return dict.__contains__(self._full(), k)

    def keys(self):
        return dict.keys(self._full())

    def values(self):
        return dict.values(self._full())

    def items(self):
        return dict.items(self._full())

    def get(self, k, default=None):
        return dict.get(self._full(), k, default)


SCHEMA = _Schema()
"""Every query parameter: ``{name: UrlParam}`` (indexed families under their prefix, e.g. ``thr_l``)."""

_INDEXED = re.compile(r"([a-z_]+?)(\d{1,6})")


def lookup(name: str) -> tuple:
    """``(UrlParam, label index or None)`` of the query parameter ``name``, or ``(None, None)``."""
    if not isinstance(name, str) or len(name) > 40:
        return None, None
    p = SCHEMA.get(name)
    if p is not None and not p.indexed:
        return p, None
    m = _INDEXED.fullmatch(name)
    if m:
        p = SCHEMA.get(m.group(1))
        if p is not None and p.indexed:
            return p, int(m.group(2))
    return None, None


def text_limit(key: str) -> int:
    """The ``max_chars`` of the text control bound to the URL parameter ``key``: the schema's
    :attr:`UrlParam.max_chars` of that parameter (one number for the box and the link).

    Raises
    ------
    KeyError
        ``key`` is not a text parameter of :data:`SCHEMA`.
    """
    p = SCHEMA.get(key)
    if p is None or p.kind != "text":
        raise KeyError(f"{key!r} is not a text parameter of the URL schema (mlviz.dashboard.urls.SCHEMA)")
    return p.max_chars


# ------------------------------------------------------------------ the sanitiser

def _quote(v) -> str:
    text = str(v)
    return (text[:_QUOTE] + "…") if len(text) > _QUOTE else text


def _number_label(x: float) -> str:
    """A number as Streamlit writes it into the URL (``5`` for 5.0)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _clean_number(p: UrlParam, raw: str, data: DataShape | None):
    """``(value, reason)``: the clamped, snapped URL label of ``raw``, or ``(None, reason)``."""
    if len(raw) > 32:
        return None, "too long"
    try:
        x = float(raw)
    except ValueError:
        return None, "not a number"
    if not math.isfinite(x):
        return None, "not a finite number"
    hi = p.hi if (p.data_hi is None or data is None) else p.data_hi(data)
    lo = p.lo
    if p.kind == "int":
        lo, hi = math.ceil(lo), math.floor(hi)
    clamped = min(max(x, lo), hi)
    if p.step:
        k = round((clamped - lo) / p.step)
        clamped = min(max(lo + k * p.step, lo), hi)
        clamped = float(f"{clamped:.10g}")
    if p.kind == "int":
        clamped = int(round(clamped))
    return _number_label(clamped), (None if clamped == x else f"moved into {lo:g}..{hi:g}"
                                                                + (f" (steps of {p.step:g})" if p.step else ""))


def _folded(text: str) -> str:
    return text.strip().casefold().replace("_", " ")


def _clean_choice(p: UrlParam, raw: str, choices) -> tuple:
    if raw in choices:
        return raw, None
    # written otherwise ("rcut" or "per_label" of a link made before the page showed "RCut", "Per label")
    same = [c for c in choices if _folded(c) == _folded(raw)]
    if len(same) == 1:
        return same[0], None
    x = _numeric(raw) if len(raw) <= 32 else None
    if x is not None:
        for c in choices:
            y = _numeric(c)
            if y is not None and math.isclose(x, y, rel_tol=1e-9, abs_tol=0.0):
                return c, None
    return None, f"not one of the choices ({p.hint or ', '.join(_quote(c) for c in list(choices)[:6])})"


def _clean_one(p: UrlParam, values: list, data: DataShape | None, index: int | None):
    """``(clean value or None, note or None)`` of one parameter's raw values."""
    if p.indexed and (index is None or (data is not None and index >= len(data.label_names))):
        return None, "names a label outside this data set"
    if p.kind == "multi":
        choices = (p.data_choices(data) if (p.data_choices and data is not None) else p.choices)
        kept, seen = [], set()
        for v in values[: 4 * p.max_items]:
            if not isinstance(v, str) or len(v) > p.max_chars or v in seen:
                continue
            if choices or (p.data_choices is not None and data is not None):
                if v not in choices:
                    continue
            seen.add(v)
            kept.append(v)
            if len(kept) == p.max_items:
                break
        return (kept or None), (None if kept == list(values) else "items outside the choices dropped")
    raw = values[-1] if values else ""
    if not isinstance(raw, str):
        return None, "not text"
    if len(raw) > p.max_chars:
        return None, f"longer than {p.max_chars} characters"
    if p.kind in ("int", "float"):
        return _clean_number(p, raw.strip(), data)
    if p.kind == "bool":
        low = raw.strip().lower()
        if low in ("true", "false"):
            return low, None if low == raw else "written in lower case"
        return None, "not true or false"
    if p.name == "present":
        low = raw.strip().lower()
        return ("1" if low in _ON else "0" if low in _OFF else None), (None if low in ("1", "0") else "1 or 0")
    if p.name == "hide":
        items = [s.strip().lower() for s in raw.split(",") if s.strip()]
        kept = list(dict.fromkeys(s for s in items if s in p.choices))
        return (",".join(kept) or None), (None if ",".join(kept) == raw else "unknown groups dropped")
    if p.kind == "choice":
        if p.check is not None:
            why = p.check(raw)
            return (raw, None) if why is None else (None, why)
        if p.data_choices is not None:
            if data is None:
                return raw, None
            return _clean_choice(p, raw, p.data_choices(data))
        if p.name == "tour":
            raw = raw.strip().lower()
        return _clean_choice(p, raw, p.choices)
    # text
    if any(ord(c) < 32 for c in raw):
        return None, "control characters"
    why = p.check(raw) if (p.check is not None and raw) else None
    if why is None and raw and p.data_check is not None and data is not None:
        why = p.data_check(raw, data)
    return (raw, None) if why is None else (None, why)


def sanitize(params, page: str | None = None, data: DataShape | None = None, skip=()) -> tuple:
    """Check raw query parameters against :data:`SCHEMA`.

    Parameters
    ----------
    params : mapping of str to str or list of str
        The address's parameters (``{name: [values]}``; a plain string is one value).
    page : str, optional
        The page file shown (``"6_Decision_rules.py"``): parameters that no page of that name owns
        are dropped. None keeps every declared parameter.
    data : DataShape, optional
        The data set shown: data-dependent values (label names, ``k`` up to the number of labels)
        are checked too. Without it only their length and form are.
    skip : collection of str
        Parameters left as they are (a control already bound in this session owns its value).

    Returns
    -------
    clean : dict of str to str or list of str
        The parameters kept, each within the schema: at most :data:`MAX_PARAMS` of them, a value at
        most its ``max_chars`` long, a list at most ``max_items`` long.
    notes : list of str
        One line per value dropped or changed (raw values quoted at most 40 characters).
    """
    clean, notes = {}, []
    items = list(params.items())[: 4 * MAX_PARAMS] if hasattr(params, "items") else []
    for name, values in items:
        if len(clean) >= MAX_PARAMS:
            notes.append(f"more than {MAX_PARAMS} parameters: the rest dropped")
            break
        if isinstance(values, (str, bytes)):
            values = [values]
        try:
            values = list(values)[: 4 * 200]
        except TypeError:
            values = [values]
        if name in skip:
            clean[name] = values[0] if len(values) == 1 else values
            continue
        p, index = lookup(name)
        if p is None:
            notes.append(f"{_quote(name)} is not a parameter of the dashboard")
            continue
        if not p.owned_by(page):
            notes.append(f"{name} belongs to another page")
            continue
        try:
            value, why = _clean_one(p, values, data, index)
        except Exception as exc:  # noqa: BLE001 - a value must never take a page down
            value, why = None, f"unreadable ({type(exc).__name__})"
        if value is not None:
            clean[name] = value
        if why is not None:
            shown = _quote(values[-1] if len(values) == 1 else values)
            notes.append(f"{name}={shown}: {why}" + ("" if value is None else f" → {_quote(value)}"))
    return clean, notes[:20]


def max_address_chars() -> int:
    """An upper bound on the characters of a sanitised address (names and values): the
    :data:`MAX_PARAMS` largest parameters at their longest (an indexed family counts as many)."""
    sizes = []
    for p in SCHEMA.values():
        per = 40 + p.max_chars * max(p.max_items, 1) + max(p.max_items, 1)
        sizes.extend([per] * (MAX_PARAMS if p.indexed else 1))
    sizes.sort(reverse=True)
    return sum(sizes[:MAX_PARAMS])
