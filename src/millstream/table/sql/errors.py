"""How a SQL statement's errors read: one line, in Flink's words, with the position in the
statement where Flink's validator gives one.

    SQL validation failed. From line 1, column 8 to line 1, column 11: Column 'nmae' not found in any table

Flink's parser errors are ``sql/syntax_errors.py``'s. The planner resolves a name where an
operator reads it, so what it cannot resolve comes up as an ``UnresolvedFieldError`` or
``UnknownFunctionError`` naming the name, and the SELECT being planned finds where its own
clauses write it (``locate_in_select``). A statement is translated inside
``sql_statement``, which knows its text (the positions' lines and columns) and makes every
other ValueError or TypeError of its planning a ``SqlError`` (a ``SqlTypeError``), which a
program catches as before (``except ValueError``, ``except TypeError``) and which a failed
program prints as one line (``common/error_report.py``). Coordinating code.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlglot import exp

from millstream.table.expression.unresolved import UnknownFunctionError, UnresolvedFieldError

__all__ = [
    "SqlError",
    "SqlTypeError",
    "TableNotFoundError",
    "alias_degree_mismatch",
    "column_not_in_table",
    "line_column",
    "locate_in_select",
    "not_a_condition",
    "not_in_select_clause",
    "position",
    "sql_statement",
    "table_not_found",
    "unknown_identifier",
    "within_group_refused",
]

T = TypeVar("T")


class SqlError(ValueError):
    """A statement that could not be parsed, is not valid, or is not supported (yet); its
    message is one line, Flink's where Flink has one."""


class SqlTypeError(SqlError, TypeError):
    """A statement whose expressions do not fit their arguments' types (``SUM(name)``)."""


class TableNotFoundError(ValueError):
    """A query reads a table or view no one created; its message is Flink's without the
    position (``Object 'tt' not found within 'cat.db'``, ``sql/missing_objects.py``).

    Attributes:
        parts: the name's parts as the query writes them (``t``, ``db.t``, ``catalog.db.t``).
    """

    def __init__(self, parts: list[str], message: str) -> None:
        super().__init__(message)
        self.parts = list(parts)


class _Statement(threading.local):
    """The text of the statement this thread translates (None outside ``sql_statement``)."""

    def __init__(self) -> None:
        self.text: str | None = None


_STATEMENT = _Statement()


@contextmanager
def _translating(text: str) -> Iterator[None]:
    previous = _STATEMENT.text
    _STATEMENT.text = text
    try:
        yield
    finally:
        _STATEMENT.text = previous


def sql_statement(translate: Callable[..., T]) -> Callable[..., T]:
    """``translate(catalog, batch, statement, ...)``, a statement's translation, whose errors
    name their position in ``statement`` and read as one line: a ValueError (TypeError) the
    planner raised is a ``SqlError`` (``SqlTypeError``) of the same message; an error of another
    class (a ``CatalogException``, a ``CastError``) keeps its class."""

    @functools.wraps(translate)
    def translated(catalog: Any, batch: bool, statement: str, *args: Any) -> T:
        with _translating(statement):
            try:
                return translate(catalog, batch, statement, *args)
            except SqlError:
                raise
            except (UnresolvedFieldError, UnknownFunctionError, TableNotFoundError) as err:
                raise SqlError(str(err)) from err  # read where no SELECT of the statement writes it
            except TypeError as err:
                if type(err) is not TypeError:
                    raise
                raise SqlTypeError(str(err)) from err
            except ValueError as err:
                if type(err) is not ValueError:
                    raise
                raise SqlError(str(err)) from err

    return translated


# -- positions -------------------------------------------------------------------------------


def line_column(text: str, offset: int) -> tuple[int, int]:
    """The line and column (both from 1) of the character at ``offset``, as Calcite counts them
    (a tab is one column)."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def position(text: str, start: int, end: int) -> str:
    """Calcite's position of the characters ``start`` to ``end`` (inclusive): ``At line 1,
    column 8`` for one character, ``From line 1, column 8 to line 1, column 11``."""
    (line, column), (end_line, end_column) = line_column(text, start), line_column(text, end)
    if (line, column) == (end_line, end_column):
        return f"At line {line}, column {column}"
    return f"From line {line}, column {column} to line {end_line}, column {end_column}"


def _span(node: exp.Expression) -> tuple[int, int] | None:
    """Where the parser read ``node`` (an identifier, a call's name): offsets in the statement."""
    start, end = node.meta.get("start"), node.meta.get("end")
    return (start, end) if isinstance(start, int) and isinstance(end, int) else None


def _validation_error(
    message: str, span: tuple[int, int] | None, kind: type[SqlError] = SqlError
) -> SqlError:
    """Flink's validator's error: the position of ``span`` in the statement, then ``message``."""
    text = _STATEMENT.text
    if text is None or span is None or span[1] >= len(text):
        return kind(message)
    return kind(f"SQL validation failed. {position(text, *span)}: {message}")


def _did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Calcite's suggestion: a candidate that differs from ``name`` only in case."""
    for candidate in candidates:
        if candidate != name and candidate.lower() == name.lower():
            return f"; did you mean '{candidate}'?"
    return ""


def _call_span(node: exp.Expression) -> tuple[int, int] | None:
    """A call from its name to its closing parenthesis (Calcite's position of a call)."""
    span, text = _span(node), _STATEMENT.text
    if span is None or text is None:
        return span
    i = span[1] + 1
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text) or text[i] != "(":
        return span
    depth, quote = 0, ""
    while i < len(text):
        c = text[i]
        if quote:
            quote = "" if c == quote else quote  # a doubled quote closes and reopens: same result
        elif c in "'`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return span[0], i
        i += 1
    return span


# -- what a SELECT cannot resolve, where it writes it ----------------------------------------------

# the clauses of a SELECT in the order Calcite's validator reads them
_CLAUSES = ("from_", "from", "joins", "where", "group", "having", "expressions", "order")


def _own_nodes(select: exp.Select) -> Iterator[exp.Expression]:
    """The nodes of ``select``'s clauses in the validator's order, without the queries nested
    in them (their names are theirs)."""

    def nested(node: exp.Expr) -> bool:
        return isinstance(node, (exp.Select, exp.SetOperation, exp.Subquery))

    for key in _CLAUSES:
        value = select.args.get(key)
        for part in value if isinstance(value, list) else [value]:
            if not isinstance(part, exp.Expression):
                continue
            found = [
                n
                for n in part.walk(bfs=False, prune=nested)
                if isinstance(n, exp.Expression) and (n is part or not nested(n))
            ]
            yield from sorted(found, key=lambda n: n.meta.get("start", 0))


def _first(select: exp.Select, wanted: Callable[[exp.Expression], bool]) -> exp.Expression | None:
    return next((n for n in _own_nodes(select) if wanted(n)), None)


def locate_in_select(
    select: exp.Select, err: Exception, scope: dict[tuple[str | None, str], str] | None, aggregating: bool
) -> SqlError | None:
    """``err`` (a name planning ``select`` could not resolve) as Flink's validator says it, at
    the place ``select`` writes the name; None when its own clauses do not write it.
    ``scope``: the columns its FROM clause makes visible; ``aggregating``: it groups."""
    visible = [name for (qualifier, name) in scope if qualifier is None] if scope else []
    if isinstance(err, UnresolvedFieldError):
        field = err.field
        node = _first(select, lambda n: isinstance(n, exp.Column) and not n.table and n.name == field)
        if not isinstance(node, exp.Column):
            return None
        if aggregating and field in visible:
            return _validation_error(f"Expression '{field}' is not being grouped", _span(node.this))
        suggestion = _did_you_mean(field, visible or err.fields)
        return _validation_error(f"Column '{field}' not found in any table{suggestion}", _span(node.this))
    if isinstance(err, UnknownFunctionError):
        function = err.name.lower()
        call = _first(select, lambda n: isinstance(n, exp.Anonymous) and n.name.lower() == function)
        if call is None:
            return None
        null = next((a for a in call.expressions if isinstance(a, exp.Null)), None)
        if null is not None:  # Calcite types the arguments first: a bare NULL has none
            return _validation_error("Illegal use of 'NULL'", _span(null))
        return _validation_error(f"No match found for function signature {err.signature()}", _call_span(call))
    if isinstance(err, TableNotFoundError):
        parts = err.parts
        table = _first(select, lambda n: isinstance(n, exp.Table) and [p.name for p in n.parts] == parts)
        return table_not_found(table, str(err)) if isinstance(table, exp.Table) else None
    return _type_error(select, err)


_CANNOT_APPLY = re.compile(
    r"Cannot apply '([^']+)' to arguments of type '(.*?)'\. Supported form\(s\): '(.*?)'"
)
_CAST = re.compile(r"Cast function cannot convert value of type .+ to type (.+)$")
# the operators Calcite names in "Cannot apply '+' ...": sqlglot's node of each
_OPERATORS: dict[str, tuple[type[exp.Expression], ...]] = {
    "+": (exp.Add,),
    "-": (exp.Sub,),
    "*": (exp.Mul,),
    "/": (exp.Div,),
    "%": (exp.Mod,),
    "||": (exp.DPipe,),
    "AND": (exp.And,),
    "OR": (exp.Or,),
    "=": (exp.EQ,),
    "<>": (exp.NEQ,),
    "<": (exp.LT,),
    "<=": (exp.LTE,),
    ">": (exp.GT,),
    ">=": (exp.GTE,),
}


def _type_error(select: exp.Select, err: Exception) -> SqlError | None:
    """A function's or an operator's arguments of types it does not take, or a CAST between
    types that do not convert, at the call or operation as written (Calcite's position)."""
    text = str(err)
    applied = _CANNOT_APPLY.match(text) if isinstance(err, (TypeError, ValueError)) else None
    if applied is not None:
        name, shown = applied.group(1), applied.group(2)
        kinds = (exp.Neg,) if name == "-" and shown.startswith("-<") else _OPERATORS.get(name.upper())
        if kinds is not None:
            node = _first(select, lambda n: isinstance(n, kinds))
            if node is None:
                return None
            if isinstance(node, exp.Mod) and "start" in node.meta and _written_name(node) == "MOD":
                text = f"Cannot apply 'MOD' to arguments of type 'MOD({shown.replace(' % ', ', ')})'. " + (
                    "Supported form(s): 'MOD(<EXACT_NUMERIC>, <EXACT_NUMERIC>)'"
                )
                return _validation_error(text, _call_span(node), SqlTypeError)
            return _validation_error(text, _expression_span(node), SqlTypeError)
        call = _first(select, lambda n: isinstance(n, exp.Func) and _written_name(n) == name.upper())
        return None if call is None else _validation_error(text, _call_span(call), SqlTypeError)
    cast = _CAST.match(text)
    if cast is not None and type(err).__name__ == "CastError":  # (the class a program catches stays)
        node = _first(select, lambda n: isinstance(n, (exp.Cast, exp.TryCast)) and not n.meta.get("literal"))
        located = None if node is None else _validation_error(text, _call_span(node))
        return None if located is None else type(err)(str(located))  # type: ignore[return-value]
    return None


def _written_name(node: exp.Expression) -> str:
    """A call's name as the statement writes it (``LCASE``, ``MOD``), upper-case."""
    span, text = _span(node), _STATEMENT.text
    if span is None or text is None:
        return str(node.name if isinstance(node, exp.Anonymous) else node.key).upper()
    return text[span[0] : span[1] + 1].strip().upper()


def _expression_span(node: exp.Expression) -> tuple[int, int] | None:
    """Where an operation stands, from its first operand's first character to its last
    operand's last (a call's to its closing parenthesis)."""
    spans = [
        _call_span(n) if isinstance(n, exp.Func) else _span(n)
        for n in node.walk()
        if isinstance(n, exp.Expression) and "start" in n.meta
    ]
    found = [s for s in spans if s is not None]
    return (min(s[0] for s in found), max(s[1] for s in found)) if found else None


def not_in_select_clause(column: exp.Column) -> SqlError:
    """Calcite's error for ``SELECT DISTINCT a ... ORDER BY b``, at ``b``."""
    return _validation_error(f"Expression '{column.name}' is not in the select clause", _span(column.this))


def not_a_condition(clause: str, node: exp.Expression) -> SqlError:
    """Calcite's error for ``WHERE x`` / ``HAVING x`` of a value that is no BOOLEAN."""
    return _validation_error(f"{clause} clause must be a condition", _expression_span(node))


def alias_degree_mismatch(columns: list[exp.Identifier], names: list[str]) -> SqlError:
    """Calcite's error for ``AS t(a, b)`` naming more or fewer columns than the table has, at
    the alias's column list."""
    spans = [s for s in (_span(c) for c in columns) if s is not None]
    shown = ", ".join(f"'{n}'" for n in names)
    return _validation_error(
        f"List of column aliases must have same degree as table; table has {len(names)} columns ({shown}), "
        f"whereas alias list has {len(columns)} columns",
        (spans[0][0], spans[-1][1]) if spans else None,
    )


def unknown_identifier(node: exp.Expression) -> SqlError:
    """Calcite's error for a name that names nothing there (``DESCRIPTOR(tss)``)."""
    identifier = node.this if isinstance(node, exp.Column) else node
    return _validation_error(f"Unknown identifier '{node.name}'", _span(identifier))


def within_group_refused(call: exp.Expression) -> SqlError:
    """Calcite's error for ``f(x) WITHIN GROUP (ORDER BY ...)`` of an aggregate ``f`` that takes
    no order (all but JSON_ARRAYAGG in Flink), at the call as written."""
    span, text = _call_span(call), _STATEMENT.text
    name = text[span[0] : span[1] + 1].split("(")[0].strip().upper() if span and text else call.key.upper()
    message = f"Aggregate expression '{name}' must not contain a WITHIN GROUP clause"
    return _validation_error(message, span)


def table_not_found(table: exp.Table, message: str) -> SqlError:
    """Flink's ``Object 'tt' not found ...`` (``message``) for a table no one created, at the
    place the statement writes its whole name."""
    parts = [p for p in table.parts if isinstance(p, exp.Identifier)]
    spans = [s for s in (_span(p) for p in parts) if s is not None]
    span = (spans[0][0], spans[-1][1]) if spans else None
    return _validation_error(message, span)


def column_not_in_table(column: exp.Column, scope: dict[tuple[str | None, str], str]) -> SqlError:
    """A qualified column ``q.name`` its scope does not have: Calcite's ``Table 'q' not found``
    when no table of the scope is called ``q``, else ``Column 'name' not found in table 'q'``."""
    qualifier, name = [p for p in column.parts if isinstance(p, exp.Identifier)][:2]
    tables = {q for (q, _) in scope if q is not None}
    if qualifier.name not in tables:
        suggestion = _did_you_mean(qualifier.name, sorted(tables))
        return _validation_error(f"Table '{qualifier.name}' not found{suggestion}", _span(qualifier))
    columns = [n for (q, n) in scope if q == qualifier.name]
    suggestion = _did_you_mean(name.name, columns)
    return _validation_error(
        f"Column '{name.name}' not found in table '{qualifier.name}'{suggestion}", _span(name)
    )
