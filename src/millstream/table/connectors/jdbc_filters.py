"""A filter's conjuncts as SQL the JDBC scan runs (Flink's
``JdbcFilterPushdownPreparedStatementVisitor``): comparisons (``=``, ``<>``, ``<``, ``<=``,
``>``, ``>=``) and ``LIKE`` of columns and literals, ``IS [NOT] NULL`` of a column, ``AND`` and
``OR`` of such; literals become statement parameters (never spliced into the text). A conjunct
with anything else (a function, a cast, an arithmetic expression) is not pushed.

    (a > 1) AND (b = 'x')   ->   [("(a > ?)", (1,)), ("(b = ?)", ("x",))]

The filter stays above the scan (millstream's planner keeps every pushed conjunct), so the
database only reads fewer rows; the result is the same. Pure functions.
"""

from __future__ import annotations

import datetime
import decimal
from typing import Any

from millstream.connectors.jdbc.converters import external_row_converter
from millstream.connectors.jdbc.dialects import JdbcDialect
from millstream.table.expression.expression import _Binary, _Column, _IsNull, _Literal, _Logic
from millstream.table.expression.resolved import COMPARISONS
from millstream.table.functions.builtins import _Call

__all__ = ["Predicate", "to_predicate"]

Predicate = tuple[str, tuple[Any, ...]]  # SQL text with placeholders, its parameters

# the literal types Flink's visitor pushes (a value of another type is not pushed)
_LITERALS = (
    "CHAR",
    "VARCHAR",
    "STRING",
    "BOOLEAN",
    "DECIMAL",
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "DATE",
    "TIME",
    "TIMESTAMP",
)
_PYTHON_LITERALS = (str, bool, int, float, decimal.Decimal, datetime.date, datetime.time)


def to_predicate(expression: Any, names: list[str], dialect: JdbcDialect) -> Predicate | None:
    """``expression`` as a parameterized SQL predicate over the table's columns ``names``;
    None when some part of it cannot be pushed."""
    match expression:
        case _Column(name=name) if name in names:
            return dialect.quote_identifier(name), ()
        case _Literal(value=value, data_type=data_type):
            if value is None or data_type.root not in _LITERALS or not isinstance(value, _PYTHON_LITERALS):
                return None
            (parameter,) = external_row_converter(dialect, [data_type])((value,))
            return dialect.placeholder, (parameter,)
        case _Binary(op=op, left=left, right=right) if op in COMPARISONS:
            return _combine(op, [left, right], names, dialect)
        case _Logic(op=op, operands=operands) if op in ("AND", "OR") and operands:
            return _combine(op, list(operands), names, dialect)
        case _IsNull(operand=_Column(name=name), null=null) if name in names:
            return f"({dialect.quote_identifier(name)} {'IS NULL' if null else 'IS NOT NULL'})", ()
        case _Call(name_="LIKE", args=[subject, _Literal(value=str() as pattern)]) if "\\" not in pattern:
            # a backslash escapes in PostgreSQL's and MySQL's LIKE, in Flink's it does not
            return _combine("LIKE", [subject, _Literal(pattern)], names, dialect)
    return None


def _combine(op: str, operands: list[Any], names: list[str], dialect: JdbcDialect) -> Predicate | None:
    parts = [to_predicate(operand, names, dialect) for operand in operands]
    if any(part is None for part in parts):
        return None
    texts = [part[0] for part in parts if part is not None]
    parameters = tuple(p for part in parts if part is not None for p in part[1])
    return "(" + f" {op} ".join(texts) + ")", parameters
