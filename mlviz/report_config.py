"""The ``config.json`` of a report pack: what it may hold, and rebuilding a pack from it safely.

A report pack travels by e-mail and its ``reproduce.py`` refits models from
``config.json``, so the file is treated as untrusted data:

* estimators are rebuilt only from an explicit allow-list of classes
  (:func:`allowed_estimator_classes`: mlviz's estimators and the scikit-learn
  class they take as a parameter), with only the parameters their
  constructor declares, each a JSON scalar, a list of scalars, a numeric
  array (``{"__array__": [...]}``) or a nested allow-listed estimator spec;
* the whole file is checked against the pack schema (:func:`check_config`):
  every key known, every string, list and number bounded, numbers finite,
  row indices inside the data set, the decision rule, scaling and measures
  from mlviz's own tables;
* :func:`mlviz.report_load.load_pack` reads ``config.json`` (a regular file
  of at most ``MAX_CONFIG_BYTES``, strict JSON), checks it here, loads the
  data (a bundled sample by name or the pack's own ``data.npz``) under the
  upload limits and compares its SHA-256 (:func:`content_hash`) with the
  recorded one *before* anything is fitted.

Anything else is one :class:`PackError` whose message says what was wrong;
``reproduce.py`` prints it and exits with status 1, without a traceback.
:func:`mlviz.report.build_report_pack` checks the ``config.json`` it writes
with the same rules, so a pack it makes is always one it can reproduce.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import re

import numpy as np
import scipy.sparse as sp

from ._text import MAX_NAME_LENGTH, printable, shorten

__all__ = ["PackError", "content_hash", "allowed_estimator_classes", "estimator_spec", "estimator_from_spec",
           "check_config", "DATA_FILE"]
#: Longest free text (data-set name, split description, creation time, ...).
MAX_TEXT = 2000
#: Longest string parameter of an estimator.
MAX_PARAM_TEXT = 200
#: Most items in a list parameter, and cells in an ``__array__`` parameter.
MAX_PARAM_LIST = 10_000
#: Largest absolute value of a number anywhere in a spec.
MAX_ABS_NUMBER = 1e15
#: Deepest nesting of estimator specs (BinaryRelevance -> LogisticRegression is 2).
MAX_SPEC_DEPTH = 3
#: Most methods in one pack.
MAX_METHODS = 64
#: Largest n_samples / n_features and n_labels a pack may declare.
MAX_ROWS, MAX_LABELS = 100_000_000, 1_000_000
#: Parameters whose values cost resources whatever the class: (low, high) for an int, None allowed.
PARAM_RANGES = {"n_jobs": (-1, 64), "verbose": (0, 10)}
#: Parameters that are never read from a pack (a path or an object that does work when used).
FORBIDDEN_PARAMS = frozenset({"memory", "callback", "callbacks"})

#: scikit-learn classes a pack may name: the inner model of BinaryRelevance, LabelPowerset and PCC
#: (``estimator=``).  Packs store the feature scaling by name (``"scaling"``), never as objects.
SKLEARN_CLASSES = ("sklearn.linear_model.LogisticRegression",)

_HASH = re.compile(r"^sha256:[0-9a-f]{64}$")
_TOP_KEYS = {"mlviz_report_pack", "created", "data", "seed", "split", "scaling", "decision_rule",
             "measures", "methods", "extra"}
_DATA_KEYS = {"name", "sample", "file", "content_hash", "n_samples", "n_features", "n_labels",
              "sparse", "label_names"}
#: The data file a pack of an uploaded data set ships.
DATA_FILE = "data.npz"


class PackError(ValueError):
    """A report pack that is malformed or was tampered with (one message, what and where)."""


def content_hash(dataset):
    """SHA-256 of a data set's contents: X (dense or CSR), Y and the label names.

    Feature names and the display name are not included (renaming a file
    does not change the data).  Dense and CSR copies of the same matrix hash
    differently (say so: the pack stores which one it was).

    Returns
    -------
    str
        ``"sha256:<64 hex digits>"``.
    """
    h = hashlib.sha256()
    X = dataset.X
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
        h.update(b"csr")
        for part in (np.asarray(X.shape, dtype=np.int64), X.data, X.indices.astype(np.int64),
                     X.indptr.astype(np.int64)):
            h.update(np.ascontiguousarray(part).tobytes())
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
        h.update(b"dense" + np.asarray(X.shape, dtype=np.int64).tobytes() + X.tobytes())
    Y = np.ascontiguousarray(dataset.Y, dtype=np.uint8)
    h.update(np.asarray(Y.shape, dtype=np.int64).tobytes() + Y.tobytes())
    h.update("\x1f".join(dataset.label_names).encode("utf-8"))
    return "sha256:" + h.hexdigest()


# ------------------------------------------------------------ the allow-list
#: Class paths that report packs of earlier versions recorded -> the public name they still load as
#: (BR, LP and ML-kNN lived in one module, ``mlviz.models.baselines``, until each got its own).
MOVED_CLASSES = {f"mlviz.models.baselines.{name}": f"mlviz.models.{name}"
                 for name in ("BinaryRelevance", "LabelPowerset", "MLkNN")}


def allowed_estimator_classes() -> dict:
    """The estimator classes a report pack may name: ``{"dotted.path": class}``.

    mlviz's estimators (the classes of the method registry, :mod:`mlviz.models.registry`)
    under both their defining module (``mlviz.models.cdn.SparseCDN``, what
    :func:`estimator_spec` writes) and their public name
    (``mlviz.models.SparseCDN``), plus :data:`SKLEARN_CLASSES` under the same
    two kinds of name, and the paths of :data:`MOVED_CLASSES` that earlier
    versions wrote.  Nothing else can be built from a pack: no function,
    no other class, whatever its module.

    Returns
    -------
    dict of str -> type
        A new dict on every call (changing it changes nothing).
    """
    import importlib

    from mlviz.models.registry import METHODS

    classes = [(f"mlviz.models.{spec.estimator}", spec.estimator_class()) for spec in METHODS.values()]
    for path in SKLEARN_CLASSES:
        module, _, name = path.rpartition(".")
        classes.append((path, getattr(importlib.import_module(module), name)))
    allowed = {}
    for public, cls in classes:
        allowed[public] = cls
        allowed[f"{cls.__module__}.{cls.__qualname__}"] = cls
    for old, public in MOVED_CLASSES.items():
        allowed[old] = allowed[public]
    return allowed


def _param_names(cls):
    sig = inspect.signature(cls.__init__)
    return [p.name for p in sig.parameters.values()
            if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


# ------------------------------------------------------------ writing specs
def _encode(value):
    if hasattr(value, "get_params") and hasattr(value, "fit"):
        return estimator_spec(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return {"__array__": value.tolist()}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"Cannot store parameter value of type {type(value).__name__} in config.json.")


def estimator_spec(estimator):
    """A JSON-able description of an (unfitted or fitted) estimator's constructor.

    Nested estimators (e.g. ``BinaryRelevance(estimator=LogisticRegression(C=10))``)
    are encoded recursively.  Only the classes of :func:`allowed_estimator_classes`
    can be rebuilt by :func:`estimator_from_spec`.

    Returns
    -------
    dict
        ``{"class": "mlviz.models.cdn.SparseCDN", "params": {...}}``.
    """
    cls = type(estimator)
    params = {k: _encode(v) for k, v in estimator.get_params(deep=False).items()}
    return {"class": f"{cls.__module__}.{cls.__qualname__}", "params": params}


# ------------------------------------------------------------ reading specs
def _where(path):
    return "config.json" + "".join(f"[{p!r}]" for p in path)


def _fail(path, message):
    raise PackError(f"{_where(path)}: {message}")


def _scalar_ok(value):
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, int):
        return abs(value) <= MAX_ABS_NUMBER
    if isinstance(value, float):
        return math.isfinite(value) and abs(value) <= MAX_ABS_NUMBER
    return isinstance(value, str) and len(value) <= MAX_PARAM_TEXT


def _check_scalar(value, path):
    if not _scalar_ok(value):
        if isinstance(value, str):
            _fail(path, f"a string of {len(value):,} characters; at most {MAX_PARAM_TEXT}")
        if isinstance(value, (int, float)):
            _fail(path, f"the number {shorten(value, 40)} is not finite or exceeds {MAX_ABS_NUMBER:g}")
        _fail(path, f"expected a number, string, true/false or null, got {type(value).__name__}")
    return value


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and _scalar_ok(value)


def _decode_array(value, path):
    if not isinstance(value, list) or len(value) > MAX_PARAM_LIST:
        _fail(path, f"an array must be a list of at most {MAX_PARAM_LIST:,} numbers")
    rows = value if value and isinstance(value[0], list) else None
    cells = [c for r in rows for c in (r if isinstance(r, list) else [r])] if rows else value
    if rows and (any(not isinstance(r, list) or len(r) != len(rows[0]) for r in rows)
                 or len(cells) > MAX_PARAM_LIST):
        _fail(path, f"a 2-D array must be equal-length lists, at most {MAX_PARAM_LIST:,} numbers")
    if not all(_is_number(c) for c in cells):
        _fail(path, "an array may hold only finite numbers")
    return np.asarray(value, dtype=float)


def _decode_value(value, path, depth):
    if isinstance(value, dict):
        if set(value) == {"class", "params"}:
            return _build(value, path, depth + 1)
        if set(value) == {"__array__"}:
            return _decode_array(value["__array__"], path + ["__array__"])
        _fail(path, "an object is allowed only as an estimator spec {class, params} or "
                    "{__array__: [numbers]}")
    if isinstance(value, list):
        if len(value) > MAX_PARAM_LIST:
            _fail(path, f"a list of {len(value):,} items; at most {MAX_PARAM_LIST:,}")
        return [_check_scalar(v, path + [i]) for i, v in enumerate(value)]
    return _check_scalar(value, path)


def _build(spec, path, depth):
    if depth > MAX_SPEC_DEPTH:
        _fail(path, f"estimator specs nested deeper than {MAX_SPEC_DEPTH}")
    if not isinstance(spec, dict) or set(spec) != {"class", "params"}:
        _fail(path, 'an estimator spec must be {"class": ..., "params": {...}}')
    name, params = spec["class"], spec["params"]
    allowed = allowed_estimator_classes()
    if not isinstance(name, str) or name not in allowed:
        shown = shorten(printable(name), 80) if isinstance(name, str) else type(name).__name__
        _fail(path + ["class"], f"refusing to build {shown!r}: only mlviz and scikit-learn estimators on the "
                                "allow-list can be rebuilt from a config (mlviz.report.allowed_estimator_classes)")
    cls = allowed[name]
    if not isinstance(params, dict) or len(params) > 64:
        _fail(path + ["params"], "params must be an object of at most 64 parameters")
    known = _param_names(cls)
    kwargs = {}
    for key, value in params.items():
        where = path + ["params", key]
        if key not in known:
            _fail(where, f"{cls.__name__} has no parameter {shorten(printable(key), 40)!r}")
        if key in FORBIDDEN_PARAMS and value is not None:
            _fail(where, "this parameter is never read from a pack (null only)")
        if key in PARAM_RANGES and value is not None:
            low, high = PARAM_RANGES[key]
            if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
                _fail(where, f"expected null or an integer in [{low}, {high}]")
        kwargs[key] = _decode_value(value, where, depth)
    return cls(**kwargs)


def estimator_from_spec(spec):
    """Rebuild an unfitted estimator from :func:`estimator_spec` output.

    Only classes of :func:`allowed_estimator_classes`, only parameters their
    constructor declares, and only plain values (JSON scalars, lists of
    scalars, numeric arrays, nested allow-listed specs): a config file is
    data, never a way to run code.

    Raises
    ------
    PackError
        (a ValueError) naming the offending entry.
    """
    return _build(spec, [], 1)


# ------------------------------------------------------------ the pack schema
def _need(cond, path, message):
    if not cond:
        _fail(path, message)


def _text(value, path, limit=MAX_TEXT, optional=False):
    if value is None and optional:
        return
    _need(isinstance(value, str) and len(value) <= limit, path,
          f"expected {'null or ' if optional else ''}a string of at most {limit:,} characters")


def _count(value, path, low, high):
    _need(isinstance(value, int) and not isinstance(value, bool) and low <= value <= high, path,
          f"expected an integer in [{low:,}, {high:,}]")


def _keys(obj, path, required, optional=()):
    _need(isinstance(obj, dict), path, "expected an object")
    missing = [k for k in required if k not in obj]
    unknown = [k for k in obj if k not in required and k not in optional]
    _need(not missing, path, f"missing {', '.join(missing)}")
    _need(not unknown, path, f"unknown key {shorten(printable(unknown[0] if unknown else ''), 40)!r}")


def _rows(value, path, n_samples):
    _need(isinstance(value, list) and 0 < len(value) <= n_samples, path,
          f"expected a non-empty list of at most {n_samples:,} row numbers")
    _need(all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n_samples for i in value), path,
          f"row numbers must be integers in [0, {n_samples:,})")


def _plain_json(value, path, depth=0):
    """``extra`` (settings recorded for people, never read by reproduce.py): any JSON of strings of at
    most 100,000 characters and finite numbers, nested at most 8 deep."""
    _need(depth <= 8, path, "nested deeper than 8")
    if isinstance(value, dict):
        for k, v in value.items():
            _plain_json(v, path + [k], depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _plain_json(v, path + [i], depth + 1)
    elif isinstance(value, str):  # (not read by reproduce.py: only bounded)
        _text(value, path, 100_000)
    else:
        _need(value is None or isinstance(value, bool) or _is_number(value), path, "a number out of range")


def check_config(config):
    """Check a parsed ``config.json`` against the pack schema and build its estimators.

    Parameters
    ----------
    config : object
        What ``json.loads`` returned.

    Returns
    -------
    dict of str -> estimator
        The unfitted estimators of ``config["methods"]``, in order.

    Raises
    ------
    PackError
        At the first entry that breaks the schema, naming it.
    """
    from .data import list_samples
    from .decision import RULES
    from .metrics import get_measure
    from .preprocessing import SCALINGS

    _keys(config, [], ["mlviz_report_pack", "data", "split", "scaling", "decision_rule", "measures",
                       "methods"], _TOP_KEYS)
    _need(config["mlviz_report_pack"] == 1 and type(config["mlviz_report_pack"]) is int,
          ["mlviz_report_pack"], "this mlviz reads report packs of version 1")
    _text(config.get("created"), ["created"], 64, optional=True)
    seed = config.get("seed")
    _need(seed is None or (isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2 ** 32),
          ["seed"], "expected null or an integer in [0, 2**32)")
    data = config["data"]
    _keys(data, ["data"], ["sample", "content_hash", "n_samples", "n_features", "n_labels", "label_names"],
          _DATA_KEYS)
    _text(data.get("name"), ["data", "name"], optional=True)
    _need(isinstance(data["content_hash"], str) and _HASH.match(data["content_hash"]) is not None,
          ["data", "content_hash"], 'expected "sha256:" and 64 hex digits')
    _count(data["n_samples"], ["data", "n_samples"], 2, MAX_ROWS)
    _count(data["n_features"], ["data", "n_features"], 1, MAX_ROWS)
    _count(data["n_labels"], ["data", "n_labels"], 1, MAX_LABELS)
    _need(isinstance(data.get("sparse", False), bool), ["data", "sparse"], "expected true or false")
    names = data["label_names"]
    _need(isinstance(names, list) and len(names) == data["n_labels"], ["data", "label_names"],
          "expected a list of n_labels names")
    _need(all(isinstance(n, str) and len(n) <= MAX_NAME_LENGTH for n in names), ["data", "label_names"],
          f"label names must be strings of at most {MAX_NAME_LENGTH} characters")
    sample, file = data["sample"], data.get("file")
    if sample is not None:
        _need(isinstance(sample, str) and sample in list_samples(), ["data", "sample"],
              f"expected a bundled sample ({', '.join(list_samples())}) or null")
        _need(file is None, ["data", "file"], "a pack names a bundled sample or ships data.npz, not both")
    else:
        _need(file == DATA_FILE, ["data", "file"], f'expected "{DATA_FILE}" (the file shipped in the pack)')
    split = config["split"]
    _keys(split, ["split"], ["train", "test"], ["description"])
    _text(split.get("description"), ["split", "description"], optional=True)
    _rows(split["train"], ["split", "train"], data["n_samples"])
    _rows(split["test"], ["split", "test"], data["n_samples"])
    _need(isinstance(config["scaling"], str) and config["scaling"] in SCALINGS, ["scaling"],
          f"expected one of {', '.join(SCALINGS)}")
    rule = config["decision_rule"]
    _keys(rule, ["decision_rule"], ["rule", "param", "at_least_one_label"], ["description"])
    _need(rule["rule"] in RULES, ["decision_rule", "rule"], f"expected one of {', '.join(RULES)}")
    _need(isinstance(rule["at_least_one_label"], bool), ["decision_rule", "at_least_one_label"],
          "expected true or false")
    _text(rule.get("description"), ["decision_rule", "description"], optional=True)
    param = rule["param"]
    _need(param is None or _is_number(param)
          or (isinstance(param, list) and len(param) == data["n_labels"] and all(map(_is_number, param))),
          ["decision_rule", "param"], "expected null, a finite number or a list of n_labels numbers")
    measures = config["measures"]
    _need(isinstance(measures, list) and 0 < len(measures) <= 100, ["measures"],
          "expected a list of 1 to 100 measure names")
    for i, m in enumerate(measures):
        _need(isinstance(m, str) and len(m) <= 40, ["measures", i], "expected a measure name")
        try:
            get_measure(m)
        except (KeyError, ValueError):
            _fail(["measures", i], f"unknown measure {shorten(printable(m), 40)!r}")
    methods = config["methods"]
    _need(isinstance(methods, dict) and 0 < len(methods) <= MAX_METHODS, ["methods"],
          f"expected an object of 1 to {MAX_METHODS} methods")
    for name in methods:
        _text(name, ["methods", name], MAX_NAME_LENGTH)
    if "extra" in config:
        _plain_json(config["extra"], ["extra"])
    return {name: _build(spec, ["methods", name], 1) for name, spec in methods.items()}
