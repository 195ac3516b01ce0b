"""Checks of the URL's free-text values (sandbox structure, selected instances, selected edge) for
:mod:`mlviz.dashboard.urls`: each reads the text only and builds nothing of the size it names.

No Streamlit here.
"""

from __future__ import annotations

import re

import numpy as np

#: Most instance ids a selection (``sel_rows=ids:…``) keeps in the URL (:mod:`mlviz.dashboard.linked`).
MAX_IDS = 500

def _structure_problem(text: str) -> str | None:
    from mlviz.data.synthetic import parse_structure

    try:
        parse_structure(text)  # (bounded: checks length and sizes before building anything)
    except ValueError as exc:
        return str(exc)[:120]
    return None


_SET = re.compile(r"set:(none|\d{1,6}(\.\d{1,6}){0,199})")
_IDS = re.compile(r"ids:(train=[0-9.\-]*)?;?(test=[0-9.\-]*)?")
_EDGE = re.compile(r"(\d{1,6})>(\d{1,6})@([a-z0-9\-]{1,12}),([^,]{1,12}),([^,]{1,12}),([^,]{1,12})")


def _count_ids(ranges: str, cap: int) -> int | None:
    """Ids written in ``3-7.12`` (None: malformed or more than ``cap``), counted without building them."""
    n = 0
    for part in filter(None, ranges.split(".")):
        a, _, b = part.partition("-")
        if not a.isdigit() or (b and not b.isdigit()) or len(a) > 9 or len(b) > 9:
            return None
        lo, hi = int(a), int(b) if b else int(a)
        if hi < lo:
            return None
        n += hi - lo + 1
        if n > cap:
            return None
    return n


def _rows_problem(text: str) -> str | None:
    if _SET.fullmatch(text):
        return None
    if not _IDS.fullmatch(text):
        return "neither set:<i>.<j>… nor ids:train=<ranges>;test=<ranges>"
    n = 0
    for part in text[4:].split(";"):
        k = _count_ids(part.partition("=")[2], MAX_IDS)
        if k is None:
            return f"a malformed id range or more than {MAX_IDS} ids"
        n += k
    return None if n <= MAX_IDS else f"more than {MAX_IDS} ids"


def _rows_data_problem(text: str, data) -> str | None:
    if text.startswith("set:") and text != "set:none":
        if any(int(j) >= len(data.label_names) for j in text[4:].split(".")):
            return f"a label outside 0..{len(data.label_names) - 1}"
    return None


def _edge_problem(text: str) -> str | None:
    from .methods import METHODS

    m = _EDGE.fullmatch(text)
    if m is None:
        return "not an edge A>B@variant,γ,μ,λ"
    cdn = METHODS["cdn"]
    if m.group(1) == m.group(2):
        return "the same label twice"
    for name, raw in zip(("variant", "gamma", "mu", "lam"), m.groups()[2:]):
        grid = cdn.param(name).grid
        if name == "variant":
            if raw not in grid:
                return f"variant {raw[:12]} is not a sparse CDN variant"
            continue
        try:
            x = float(raw)
        except ValueError:
            return f"{name} is not a number"
        if not any(np.isclose(x, g, rtol=1e-9, atol=0.0) for g in grid):
            return f"{name} = {raw[:12]} is not a value of the CDN's {name} slider"
    return None


def _edge_data_problem(text: str, data) -> str | None:
    a, b = (int(x) for x in _EDGE.fullmatch(text).groups()[:2])
    L = len(data.label_names)
    return None if a < L and b < L else f"a label outside 0..{L - 1}"
