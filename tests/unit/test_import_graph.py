"""millstream's module-level import graph is acyclic, so concurrent imports cannot deadlock.

Task threads of one TaskManager unpickle user functions at the same moment, and each
unpickling may import millstream modules for the first time. CPython takes one lock per
module being imported; two threads entering an import cycle at different modules take
those locks in opposite orders, and CPython breaks the deadlock by handing one of them a
partially initialized module (``ImportError: cannot import name ... from partially
initialized module 'millstream.datastream.join'``). The import graph checked here has
an edge for every module-level import (``TYPE_CHECKING`` blocks and function bodies do
not run at import time) and an edge from each module to its package, because importing
``a.b.c`` first imports ``a.b`` while holding ``a.b.c``'s lock.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import millstream

SRC = Path(millstream.__file__).parent.parent


def _module_names() -> dict[str, Path]:
    names = {}
    for path in (SRC / "millstream").rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _executed_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that run when the module is imported (not under TYPE_CHECKING)."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out += _executed_statements(node.orelse)
        elif isinstance(node, ast.ClassDef):
            out += _executed_statements(node.body)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                out += _executed_statements(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                out += _executed_statements(handler.body)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(node)
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _executed_statements(ast.parse(path.read_text()).body):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, base] if base else package)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    parent = name.rpartition(".")[0]
    if parent:
        found.add(parent)
    return {m for m in found if m in modules and m != name}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path, or None (iterative DFS with colours)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in sorted(graph):
        if root in state:
            continue
        path = [root]
        stack = [iter(sorted(graph[root]))]
        state[root] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


def test_the_module_level_import_graph_has_no_cycle() -> None:
    modules = _module_names()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_package_that_imports_its_own_submodule() -> None:
    graph = {"p": {"p.a"}, "p.a": {"p", "p.b"}, "p.b": {"p"}}
    assert _find_cycle(graph) == ["p", "p.a", "p"]
    assert _find_cycle({"p": set(), "p.a": {"p"}}) is None


def test_lazy_packages_resolve_every_exported_name_and_submodule() -> None:
    import millstream.common
    import millstream.datastream

    for package in (millstream.datastream, millstream.common):
        for name in package.__all__:
            assert getattr(package, name).__name__ == name
        assert set(package.__all__) <= set(dir(package))
    assert millstream.datastream.window.TumblingEventTimeWindows.__name__ == "TumblingEventTimeWindows"
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = millstream.datastream.Nope


@pytest.mark.parametrize(
    "package",
    [
        "millstream.common",
        "millstream.datastream",
        "millstream.datastream.connectors",
        "millstream.table",
        "millstream.table.catalog",
        "millstream.table.expression",
        "millstream.testing",
    ],
)
def test_the_type_checkers_view_of_a_lazy_package_lists_exactly_its_exports(package: str) -> None:
    module = importlib.import_module(package)
    tree = ast.parse(Path(module.__file__ or "").read_text())
    guarded = next(n for n in tree.body if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test))
    seen = {
        (node.module, alias.name)
        for node in guarded.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert {name for _, name in seen} == set(module.__all__)
    for origin, name in seen:  # each name comes from the module the lazy table names
        assert getattr(importlib.import_module(origin or ""), name) is getattr(module, name)
