"""Imports run strictly downwards: no import cycle in ``mlviz``, no private names across packages,
no Streamlit outside the dashboard, no per-method branches in the pages.

The imports are read from the source (``ast``), including those inside functions: a lazy
import still ties two modules together.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mlviz"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    is_package = MODULES[module].name == "__init__.py"
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def imports(module: str):
    """``(imported module, imported name or None, line)`` for every import in ``module``."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in MODULES:  # "from . import cache": the submodule itself
                    yield sub, None, node.lineno
                else:
                    yield target, alias.name, node.lineno


def _owner(module: str) -> str:
    """The mlviz module that ``module`` names, or its nearest mlviz parent ('' outside mlviz)."""
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module


def _package(module: str) -> str:
    """The package a module belongs to: ``mlviz.models._base`` → ``mlviz.models``."""
    path = MODULES[module]
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def import_graph() -> nx.DiGraph:
    """Module → module it imports (``from pkg import name`` counts as importing ``pkg``)."""
    g = nx.DiGraph()
    g.add_nodes_from(MODULES)
    for module in MODULES:
        for target, _, _ in imports(module):
            target = _owner(target)
            if target and target != module and not module.startswith(target + "."):
                # (a package's own __init__ is run before its modules: importing it is not a cycle edge)
                g.add_edge(module, target)
    return g


def test_no_import_cycle():
    cycles = list(nx.simple_cycles(import_graph()))
    assert not cycles, "import cycles: " + "; ".join(" → ".join(c + [c[0]]) for c in cycles)


def _private_scope(module: str, name: str | None) -> str | None:
    """The package inside which ``module``.``name`` may be used: the parent of its first private
    part (``mlviz.models._base.check_X`` → ``mlviz.models``; ``mlviz._text`` → ``mlviz``), or None."""
    parts = module.split(".") + ([name] if name else [])
    for i, p in enumerate(parts):
        if p.startswith("_") and not p.startswith("__"):
            prefix = ".".join(parts[:i])
            if prefix in MODULES and MODULES[prefix].name != "__init__.py":  # a private name of a module:
                return prefix.rpartition(".")[0]  # for its package (this test checks across packages)
            return prefix
    return None


def private_imports_across_packages():
    """``(importer, imported, line)`` where a module imports a private module or name from outside
    the package that owns it (a package's private parts are for that package and its subpackages)."""
    out = []
    for module in MODULES:
        for target, name, line in imports(module):
            scope = _private_scope(target, name)
            if scope is None or not _owner(target) or module == scope or module.startswith(scope + "."):
                continue
            out.append((module, f"{target}{'.' + name if name else ''}", line))
    return out


def test_no_private_imports_across_packages():
    found = sorted({(m, t) for m, t, _ in private_imports_across_packages()})
    assert not found, found


def test_no_private_imports_across_packages_at_all():
    assert not private_imports_across_packages()


def test_streamlit_only_in_the_dashboard():
    offenders = [m for m in MODULES if not m.startswith("mlviz.dashboard")
                 and any(t.split(".")[0] == "streamlit" for t, _, _ in imports(m))]
    assert not offenders
    # the runner, the registry and the compute layer do not need it either
    for m in ("mlviz.dashboard.jobs", "mlviz.dashboard.methods", "mlviz.dashboard.compute"):
        assert not any(t.split(".")[0] == "streamlit" for t, _, _ in imports(m)), m


def test_pages_have_no_per_method_branches():
    from mlviz.dashboard.methods import METHODS

    keys = "|".join(re.escape(k) for k in METHODS)
    pattern = re.compile(rf"""\b(if|elif)\b[^\n]*==\s*["']({keys})["']""")
    for page in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        hits = pattern.findall(page.read_text(encoding="utf-8"))
        assert not hits, (page.name, hits)


def test_the_checks_see_a_cycle_and_a_private_import(tmp_path, monkeypatch):
    """The parser itself: a made-up pair of modules with a cycle and a private import is caught."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("from mlviz.fake import b\nfrom mlviz.models._base import check_X\n")
    b.write_text("def f():\n    from mlviz.fake import a\n")
    monkeypatch.setitem(MODULES, "mlviz.fake.a", a)
    monkeypatch.setitem(MODULES, "mlviz.fake.b", b)
    assert ["mlviz.fake.a", "mlviz.fake.b"] in [sorted(c) for c in nx.simple_cycles(import_graph())]
    assert ("mlviz.fake.a", "mlviz.models._base.check_X", 2) in private_imports_across_packages()


def test_the_command_line_and_the_registry_start_without_scikit_learn():
    """``mlviz --help`` and ``mlviz describe`` read the method registry for its names; the estimators (and
    scikit-learn with them) are imported when a method is fitted (``mlviz.models`` imports on first use)."""
    import subprocess
    import sys

    from mlviz._isolated import child_env

    code = ("import sys, mlviz.cli, mlviz.models, mlviz.models.registry as r; assert r.METHODS; "
            "print(sorted(m for m in ('sklearn', 'pandas', 'mlviz.models.lspc') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=child_env()).stdout
    assert out.strip() == "[]"
    import mlviz.models as models
    from mlviz._validation import check_X

    assert models.check_X is check_X and "NotFittedError" in dir(models)
