"""No import cycle among the modules of ``millstream.table`` and ``millstream.connectors``.

Unlike ``test_import_graph.py`` (module-level imports of the whole package, the ones that can
deadlock two threads), every import counts here: one in a function body too, since a
function-level import that closes a cycle only hides it (issue 47: the Table & SQL packages
are layered, imports run one way). Imports under ``if TYPE_CHECKING:`` run nothing and do not
count. An import of ``a.b.c`` counts as imports of ``a.b.c``, ``a.b`` and ``a`` (Python runs
each package's ``__init__`` first); ``from a.b import c`` as imports of ``a.b`` and, when ``c``
is a module, of ``a.b.c``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import millstream

SRC = Path(millstream.__file__).parent.parent
PACKAGES = ("millstream.table", "millstream.connectors")


def _modules() -> dict[str, Path]:
    names = {}
    for package in PACKAGES:
        root = SRC / package.replace(".", "/")
        for path in root.rglob("*.py"):
            parts = list(path.relative_to(SRC).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            names[".".join(parts)] = path
    return names


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imported(name: str, path: Path) -> set[str]:
    """The dotted names ``name``'s module imports, anywhere in it but under TYPE_CHECKING."""
    found: set[str] = set()
    is_package = path.name == "__init__.py"

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = name.split(".") if is_package else name.split(".")[:-1]
                    package = package[: len(package) - child.level + 1]
                    base = ".".join([*package, base] if base else package)
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the packages it imports (function bodies included)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for target in _imported(name, path):
            while target:  # a.b.c imports a.b and a first
                if target in modules and target != name:
                    edges.add(target)
                target = target.rpartition(".")[0]
        parent = name.rpartition(".")[0]
        if parent in modules:  # importing a module runs its package's __init__
            edges.add(parent)
        graph[name] = edges
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The cycles of ``graph``: its strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph.get(nxt, ()))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _path(graph: dict[str, set[str]], cycle: frozenset[str]) -> str:
    """One loop through ``cycle`` as ``a -> b -> a``, for the failure message."""
    start = min(cycle)
    path, seen = [start], {start}
    while True:
        nxt = min(n for n in graph[path[-1]] if n in cycle)
        path.append(nxt)
        if nxt in seen:
            return " -> ".join(path[path.index(nxt) :])
        seen.add(nxt)


def test_no_module_of_table_or_connectors_is_in_an_import_cycle() -> None:
    graph = import_graph()
    cycles = strongly_connected(graph)
    assert not cycles, "import cycles:\n" + "\n".join(_path(graph, c) for c in cycles)


def test_the_cycle_finder_counts_function_level_and_package_imports(tmp_path: Path) -> None:
    assert strongly_connected({"a": {"b"}, "b": {"a"}, "c": set()}) == [frozenset({"a", "b"})]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    module = tmp_path / "m.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from millstream.table.api import table\n"
        "def f():\n    from millstream.table.planner import nodes\n"
    )
    imported = _imported("millstream.table.x.m", module)
    assert "millstream.table.planner.nodes" in imported and "millstream.table.planner" in imported
    assert not any(name.startswith("millstream.table.api") for name in imported)
