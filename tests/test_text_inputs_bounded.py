"""Every text box of the dashboard is bounded by its URL parameter's maximum length (issue 28).

The pages' and the dashboard's sources are walked (no page is run): each ``st.text_input`` /
``st.text_area`` call must pass ``max_chars=text_limit(<its own key>)``, and that key must be a text
parameter of the URL schema (:data:`mlviz.dashboard.urls.SCHEMA`), whose ``max_chars`` is then the
one number for the box and the link.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mlviz.dashboard import urls

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")),
           *sorted((ROOT / "mlviz" / "dashboard").glob("*.py"))]
TEXT_CONTROLS = ("text_input", "text_area")
#: Keys built at run time: what each stands for (the selector is called with ``prefix="labels"`` only).
DYNAMIC = {"f'{prefix}_q'": "labels_q"}


def _constants(tree) -> dict:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant):
                    out[target.id] = node.value.value
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for t, v in zip(target.elts, node.value.elts):
                        if isinstance(t, ast.Name) and isinstance(v, ast.Constant):
                            out[t.id] = v.value
    return out


def _text_controls():
    """``(file name, line, key source, key name, max_chars node)`` of every text box in the sources."""
    found = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        consts = _constants(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in TEXT_CONTROLS):
                continue
            kw = {k.arg: k.value for k in node.keywords}
            key = kw.get("key")
            source = ast.unparse(key) if key is not None else None
            if isinstance(key, ast.Constant):
                name = key.value
            elif isinstance(key, ast.Name):
                name = consts.get(key.id)
            else:
                name = DYNAMIC.get(source)
            found.append((path.name, node.lineno, source, name, kw.get("max_chars")))
    return found


def test_the_walk_finds_the_dashboards_text_boxes():
    names = {name for *_, name, _ in _text_controls()}
    assert {"labels_q", "cdn_edge_q", "sel_edge", "sel_rows", "sb_structure"} <= names


@pytest.mark.parametrize("where, line, source, name, limit", _text_controls(),
                         ids=lambda v: str(v) if isinstance(v, (str, int)) else "")
def test_every_text_box_is_bounded_by_its_url_parameter(where, line, source, name, limit):
    at = f"{where}:{line}"
    assert source is not None, f"{at}: a text box without a key (it cannot be bound to the URL schema)"
    assert name in urls.SCHEMA and urls.SCHEMA[name].kind == "text", f"{at}: {source} is no text parameter"
    assert limit is not None, f"{at}: {name} has no max_chars"
    assert isinstance(limit, ast.Call) and ast.unparse(limit.func).split(".")[-1] == "text_limit", \
        f"{at}: max_chars={ast.unparse(limit)} does not read the URL schema (text_limit)"
    assert [ast.unparse(a) for a in limit.args] == [source], f"{at}: text_limit of another key"
    assert urls.text_limit(name) == urls.SCHEMA[name].max_chars


def test_text_limit_refuses_a_parameter_that_is_not_text():
    with pytest.raises(KeyError, match="not a text parameter"):
        urls.text_limit("tour")
    with pytest.raises(KeyError, match="not a text parameter"):
        urls.text_limit("no_such_parameter")
