"""Test utilities for tables: cut printed output into its parts, fold a changelog.

``printed_parts(text)``: what ``TableResult.print()`` / ``print_schema()`` and the print
connector wrote, as a list of parts (a schema up to its ``)``, a tableau up to its ``N rows in
set`` line, and any lines after the last), so a test can compare them one by one.

``fold_changelog(changes)``: the table a changelog of ``(kind, row)`` pairs leaves; a
withdrawal (``-U``/``-D``) of a row that is not held fails, so a wrong retraction is caught.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

__all__ = ["fold_changelog", "printed_parts"]


def printed_parts(text: str) -> list[list[str]]:
    """The lines of printed table output, grouped into schemas and tables."""
    parts: list[list[str]] = []
    current: list[str] = []
    for line in text.splitlines():
        current.append(line)
        if line.endswith("in set") or line == ")":
            parts.append(current)
            current = []
    if current:
        parts.append(current)
    return parts


def fold_changelog(changes: Iterable[tuple[str, Any]]) -> Counter[Any]:
    """The rows (with multiplicities) a changelog leaves; fails on a withdrawal of a row never
    added."""
    table: Counter[Any] = Counter()
    for kind, row in changes:
        if kind in ("+I", "+U"):
            table[row] += 1
        else:
            if table[row] <= 0:
                raise AssertionError(f"{kind} of a row never added: {row}")
            table[row] -= 1
    return +table
