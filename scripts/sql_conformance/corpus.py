"""Building cases of the Flink SQL conformance corpus: arguments, and the corpus that collects them.

Most function calls are written twice: with literal arguments (what a user types; Flink folds
it while planning) and with the same arguments as typed input columns ``v0``, ``v1`` ...
(evaluated by the runtime's kernels): ``Corpus.both``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from tests.differential.sql_conformance import Case, case_id

ROOT = Path(__file__).resolve().parents[2]

__all__ = ["BI", "DEC", "ROOT", "A", "B", "Corpus", "D", "I", "N", "S", "q"]


@dataclass(frozen=True)
class A:
    """One argument: its SQL type and its value as a SQL literal (``NULL`` for null)."""

    type: str
    value: str

    @property
    def inline(self) -> str:
        """The argument written in an expression: the literal, cast where the literal alone
        would have another type."""
        if self.value == "NULL":
            return f"CAST(NULL AS {self.type})"
        if self.value.startswith("-"):
            return f"CAST({self.value} AS {self.type})" if self.type != "INT" else f"({self.value})"
        quoted = self.value.startswith("'")
        natural = self.type in ("INT", "BOOLEAN") or self.type.startswith(("CHAR(", "STRING"))
        natural = natural or (self.type.startswith("DECIMAL(") and not quoted)
        keyword = self.value.split(" ", 1)[0].split("[", 1)[0].upper()
        if natural or keyword in ("DATE", "TIME", "TIMESTAMP", "INTERVAL", "ARRAY", "MAP", "ROW"):
            return self.value
        return f"CAST({self.value} AS {self.type})"


def q(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def S(text: str | None) -> A:
    return A("STRING", "NULL" if text is None else q(text))


def I(value: int | None) -> A:  # noqa: E743 - the SQL type's name
    return A("INT", "NULL" if value is None else str(value))


def BI(value: int | None) -> A:
    return A("BIGINT", "NULL" if value is None else str(value))


def D(value: str | None, type_: str = "DOUBLE") -> A:
    return A(type_, "NULL" if value is None else value)


def DEC(value: str | None, precision: int, scale: int) -> A:
    return A(f"DECIMAL({precision}, {scale})", "NULL" if value is None else value)


def B(value: bool | None) -> A:
    return A("BOOLEAN", "NULL" if value is None else ("TRUE" if value else "FALSE"))


def N(type_: str) -> A:
    return A(type_, "NULL")


def fill(template: str, values: list[str]) -> str:
    """``template`` with ``$0``, ``$1`` ... replaced by ``values`` (in one pass: a value that holds
    ``$1`` stays as it is)."""
    return re.sub(r"\$(\d+)", lambda m: values[int(m.group(1))], template)


class Corpus:
    """The cases, in order, without duplicates."""

    def __init__(self) -> None:
        self.cases: list[Case] = []
        self._ids: set[str] = set()

    def _add(self, case: Case) -> None:
        if case.id not in self._ids:
            self._ids.add(case.id)
            self.cases.append(case)

    def expr(self, category: str, function: str, text: str) -> None:
        """A scalar expression without input."""
        self._add(Case(case_id(category, function, text), category, function, expr=text))

    def lit(self, category: str, function: str, template: str, *args: A) -> None:
        """``template`` with the arguments written inline."""
        self.expr(category, function, fill(template, [a.inline for a in args]))

    def col(self, category: str, function: str, template: str, *args: A) -> None:
        """``template`` over input columns ``v0``, ``v1`` ... holding the arguments."""
        text = fill(template, [f"v{i}" for i in range(len(args))])
        columns = tuple((f"v{i}", a.type) for i, a in enumerate(args))
        row = tuple(a.value for a in args)
        key = text + " <- " + json.dumps([columns, row])
        self._add(
            Case(
                case_id(category, function, key), category, function, expr=text, columns=columns, rows=(row,)
            )
        )

    def both(self, category: str, function: str, template: str, *args: A) -> None:
        """The call with literal arguments, and over input columns."""
        self.lit(category, function, template, *args)
        if args:
            self.col(category, function, template, *args)

    def agg(
        self, category: str, function: str, text: str, columns: list[tuple[str, str]], rows: list[list[str]]
    ) -> None:
        """An aggregate expression over several input rows."""
        key = text + " <- " + json.dumps([columns, rows])
        self._add(
            Case(
                case_id(category, function, key),
                category,
                function,
                expr=text,
                columns=tuple((n, t) for n, t in columns),
                rows=tuple(tuple(r) for r in rows),
                kind="aggregate",
            )
        )

    def query(self, category: str, function: str, sql: str) -> None:
        """A whole query (its rows, one cell each column)."""
        self._add(Case(case_id(category, function, sql), category, function, kind="query", query=sql))
