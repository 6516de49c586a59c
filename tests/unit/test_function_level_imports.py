"""Every import in a function body of ``src/millstream`` says why it is not at module level.

Issue 47: a function-level import only where it defers an optional dependency, with a comment
saying so. An import inside a function (at any depth) needs a comment on the line directly
above it, or on its own line, that names what it imports and why it is deferred:

- ``optional``: a package that only an extra of pyproject.toml installs (pandas, pyspark: the
  ``[spark]`` extra); claiming it of a base dependency or the standard library fails;
- ``start-up``: a module whose import would cost the start-up of programs that never use it
  (the comment gives the cost, e.g. ``fastavro (~7 ms of every TableEnvironment's start-up)``).

A run of consecutive imports shares the comment above its first. Nothing else is a reason:
the standard library and base dependencies are imported at module level, and an import of
millstream's own modules that would close a cycle is a cycle to untangle (the Table & SQL
packages and the connectors allow no function-level import of millstream at all; see
``test_table_import_cycles.py``). ``if TYPE_CHECKING:`` blocks at module level run nothing
and are not function bodies.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import millstream

SRC = Path(millstream.__file__).parent
PYPROJECT = SRC.parent.parent / "pyproject.toml"
# no function-level import of millstream's own modules under these (issue 47, point 1)
NO_INTERNAL = ("table/", "connectors/")
_REASONS = ("optional", "start-up")


@dataclass(frozen=True)
class FunctionImport:
    path: str  # relative to src/millstream
    line: int
    module: str  # the dotted module imported (absolute)
    comment: str  # the comment above the run of imports it is in, or on its own line


def _comment_of(lines: list[str], number: int) -> str:
    """The comment on line ``number`` (1-based), or ''."""
    text = lines[number - 1]
    # a '#' inside a string is rare on an import line; the part after the first '#' will do
    return text.split("#", 1)[1].strip() if "#" in text else ""


def _absolute(node: ast.ImportFrom, package: list[str]) -> str:
    if not node.level:
        return node.module or ""
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def function_imports(source: str, path: str) -> list[FunctionImport]:
    """The imports inside function bodies of the module ``path`` (relative to src/millstream)."""
    lines = source.splitlines()
    parts = ["millstream", *Path(path).with_suffix("").parts]
    package = parts if parts[-1] == "__init__" else parts[:-1]
    if parts[-1] == "__init__":
        package = parts[:-1]
    found: list[FunctionImport] = []

    def body_imports(body: list[ast.stmt]) -> None:
        run_start = None  # the first line of the run of imports the current statement is in
        previous_end = None
        for statement in body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                if run_start is None or previous_end != statement.lineno - 1:
                    run_start = statement.lineno
                comment = _comment_of(lines, statement.lineno) or (
                    lines[run_start - 2].strip().lstrip("#").strip()
                    if run_start > 1 and lines[run_start - 2].strip().startswith("#")
                    else ""
                )
                modules = (
                    [alias.name for alias in statement.names]
                    if isinstance(statement, ast.Import)
                    else [_absolute(statement, package)]
                )
                for module in modules:
                    found.append(FunctionImport(path, statement.lineno, module, comment))
                previous_end = statement.end_lineno
            else:
                run_start = previous_end = None

    def visit(node: ast.AST, in_function: bool) -> None:
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt) and in_function:
                body_imports(block)
        for child in ast.iter_child_nodes(node):
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(ast.parse(source), False)
    return found


def _base_dependencies() -> set[str]:
    """The distributions pyproject.toml's ``dependencies`` install (normalized names)."""
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    return {_normalized(re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0]) for spec in project["dependencies"]}


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def _packages_distributions() -> dict[str, list[str]]:
    return dict(importlib.metadata.packages_distributions())  # reads every installed package: once


def _distributions(top_level: str) -> set[str]:
    """The installed distributions that provide the top-level module ``top_level``."""
    return {_normalized(d) for d in _packages_distributions().get(top_level, [])}


def problem(found: FunctionImport, base: set[str]) -> str | None:
    """What is wrong with one function-level import, or None."""
    top = found.module.split(".")[0]
    where = f"{found.path}:{found.line} imports {found.module}"
    if top == "millstream" and found.path.startswith(NO_INTERNAL):
        return f"{where} in a function: Table & SQL and the connectors import millstream at module level"
    named = [part for part in found.module.split(".") if part != "millstream"]
    comment = found.comment.lower()
    if not comment:
        return f"{where} in a function with no comment saying why it is deferred"
    if not any(part.lower() in comment for part in named):
        return f"{where}: its comment ({found.comment!r}) does not name what it defers"
    if not any(reason in comment for reason in _REASONS):
        return f"{where}: its comment ({found.comment!r}) gives no reason ({' or '.join(_REASONS)})"
    if "optional" in comment and "start-up" not in comment:
        required = top in sys.stdlib_module_names or top == "millstream" or _distributions(top) & base
        if required:
            return f"{where}: its comment calls it optional, but the standard library or a base dependency"
    return None


def test_every_function_level_import_says_why_it_is_deferred() -> None:
    base = _base_dependencies()
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        for found in function_imports(path.read_text(), relative):
            message = problem(found, base)
            if message:
                problems.append(message)
    assert not problems, f"{len(problems)} function-level imports:\n" + "\n".join(problems)


def test_the_checker_reads_comments_runs_and_reasons() -> None:
    base = {"pyarrow", "fastavro"}
    source = (
        "import json\n"
        "def f():\n"
        "    # pandas is optional (the [spark] extra): imported when a pandas function runs\n"
        "    import pandas as pd\n"
        "    import pandas.api\n"
        "\n"
        "    import pyarrow  # no reason given here\n"
        "    # fastavro (~7 ms of start-up): imported when an Avro format runs\n"
        "    import fastavro\n"
        "    # json is optional\n"
        "    import json\n"
        "    if pd:\n"
        "        from .sibling import thing\n"
        "class C:\n"
        "    def m(self):\n"
        "        import decimal  # decimal: deferred for start-up\n"
    )
    found = function_imports(source, "table/x.py")
    assert [(f.line, f.module) for f in found] == [
        (4, "pandas"),
        (5, "pandas.api"),
        (7, "pyarrow"),
        (9, "fastavro"),
        (11, "json"),
        (13, "millstream.table.sibling"),
        (16, "decimal"),
    ]
    problems = [problem(f, base) for f in found]
    assert problems[0] is None and problems[1] is None  # a run shares the comment above it
    assert problems[2] is not None and "no reason" in problems[2]
    assert problems[3] is None
    assert problems[4] is not None and "calls it optional" in problems[4]
    assert problems[5] is not None and "import millstream at module level" in problems[5]
    assert problems[6] is None
    assert function_imports("if TYPE_CHECKING:\n    import pandas\n", "a.py") == []
