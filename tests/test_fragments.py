"""A control inside an ``st.fragment`` reruns that fragment only (the browser sends the fragment's id):
whatever the control changes must be drawn inside the same fragment.

A fragment that draws controls and *returns* their values to the page breaks this: on the control's
own rerun the return value goes nowhere, so the slider moves and the figure drawn from the value
stays as it was (the Embedding page's MLLEM sliders did this in a browser; the classroom benchmark,
benchmarks/bench_classroom.py, found no redrawn map after a move). The sources are walked, no page runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "mlviz" / "dashboard").glob("*.py"))]
#: Streamlit calls that draw a control whose change reruns the script (or the fragment it is in).
CONTROLS = {"slider", "select_slider", "selectbox", "radio", "toggle", "checkbox", "segmented_control", "pills",
            "multiselect", "text_input", "text_area", "number_input", "button", "file_uploader", "data_editor",
            "color_picker", "date_input", "time_input", "feedback"}


def _is_fragment(dec) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return isinstance(target, ast.Attribute) and target.attr == "fragment"


def _functions():
    """``{name: (file, FunctionDef)}`` of the module-level functions of every source."""
    out = {}
    for path in SOURCES:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef):
                out.setdefault(node.name, []).append((path.name, node))
    return out


def _own_nodes(fn):
    """The nodes of ``fn``'s body, nested function bodies excluded."""
    todo = list(fn.body)
    while todo:
        node = todo.pop()
        yield node
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, (ast.FunctionDef, ast.Lambda)))


def _called(node) -> str | None:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _draws_controls(functions):
    """Names of the functions that draw a control themselves or through a non-fragment function they call."""
    fragments = {n for n, defs in functions.items() for _, f in defs if any(map(_is_fragment, f.decorator_list))}
    calls = {n: {_called(c) for _, f in defs for c in _own_nodes(f) if isinstance(c, ast.Call)} - {None}
             for n, defs in functions.items()}
    draws = {n for n, names in calls.items() if names & CONTROLS}
    changed = True
    while changed:
        more = {n for n, names in calls.items() if n not in draws and (names - fragments) & draws}
        changed = bool(more)
        draws |= more
    return draws, fragments


def _returns_a_control_value(fn, draws) -> bool:
    """Whether ``fn`` returns a value computed from a control it draws (names assigned from a call that
    draws a control, and names assigned from those, followed through the body)."""
    def draws_here(expr):
        return any(isinstance(c, ast.Call) and (_called(c) in CONTROLS or _called(c) in draws) for c in ast.walk(expr))

    def names(expr):
        return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}

    assigns = [n for n in _own_nodes(fn) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and n.value]
    tainted, changed = set(), True
    while changed:
        changed = False
        for a in assigns:
            if draws_here(a.value) or names(a.value) & tainted:
                targets = a.targets if isinstance(a, ast.Assign) else [a.target]
                new = set().union(*(names(t) for t in targets)) - tainted
                if new:
                    tainted |= new
                    changed = True
    return any(isinstance(n, ast.Return) and n.value is not None and (draws_here(n.value) or names(n.value) & tainted)
               for n in _own_nodes(fn))


def test_no_fragment_returns_the_values_of_its_own_controls():
    functions = _functions()
    draws, _ = _draws_controls(functions)
    bad = [f"{where}: {name}" for name, defs in functions.items() for where, f in defs
           if any(map(_is_fragment, f.decorator_list)) and _returns_a_control_value(f, draws)]
    assert not bad, f"fragments returning what their controls set (lost on the controls' reruns): {bad}"


def test_the_walk_sees_the_pages_fragments_and_their_controls():
    functions = _functions()
    draws, fragments = _draws_controls(functions)
    assert {"embedding_view", "model_panel", "label_figures", "_notice"} <= fragments
    assert {"embedding_view", "embedding_controls", "param_controls", "model_panel"} <= draws
    # (the check above does fire on the Embedding page's former layout)
    before = ast.parse("@st.fragment\ndef embedding_controls():\n    v = st.slider('a', 0, 1)\n    return v\n").body[0]
    assert _returns_a_control_value(before, draws) and any(map(_is_fragment, before.decorator_list))
    after = ast.parse("@st.fragment\ndef view():\n    v = st.slider('a', 0, 1)\n    st.plotly_chart(v)\n"
                      "    return None\n").body[0]
    assert not _returns_a_control_value(after, draws)
