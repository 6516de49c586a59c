"""More of ``pyflink.table.expressions``' functions: math, random numbers, time, arrays, rows,
maps, typed NULLs and column ranges (``with_columns(range_(1, 3))``). Each builds the same
built-in call SQL's function of that name builds (``functions/builtin_scalars.py``)."""

from __future__ import annotations

from typing import Any

from millstream.common.types import Row
from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.expression import Compiled, Expression, _Column, _Literal, _wrap, lit
from millstream.table.functions.builtins import call_builtin
from millstream.table.sql.expressions import parse_expression

__all__ = [
    "array",
    "atan2",
    "call_sql",
    "current_database",
    "current_date",
    "current_time",
    "current_timestamp",
    "e",
    "json_string",
    "local_time",
    "local_timestamp",
    "log",
    "map_",
    "negative",
    "null_of",
    "pi",
    "rand",
    "rand_integer",
    "range_",
    "row",
    "to_date",
    "to_timestamp",
    "uuid",
    "with_columns",
    "without_columns",
]


def pi() -> Expression:
    """π (DOUBLE)."""
    return call_builtin("PI")


def e() -> Expression:
    """Euler's number (DOUBLE)."""
    return call_builtin("E")


def rand(seed: Any = None) -> Expression:
    """A pseudorandom DOUBLE in [0, 1); with ``seed``, Java's sequence for it (as Flink's)."""
    return call_builtin("RAND") if seed is None else call_builtin("RAND", seed)


def rand_integer(bound: Any, seed: Any = None) -> Expression:
    """A pseudorandom INT in [0, bound); with ``seed``, Java's sequence for it."""
    return call_builtin("RAND_INTEGER", bound) if seed is None else call_builtin("RAND_INTEGER", seed, bound)


def atan2(y: Any, x: Any) -> Expression:
    """The angle of the point (x, y), in radians."""
    return call_builtin("ATAN2", y, x)


def log(v: Any, base: Any = None) -> Expression:
    """The natural logarithm of ``v``, or its logarithm in ``base``."""
    return call_builtin("LOG", v) if base is None else call_builtin("LOG", base, v)


def negative(v: Any) -> Expression:
    """``-v``."""
    return -_wrap(v)


def uuid() -> Expression:
    """A random UUID (type 4) as text."""
    return call_builtin("UUID")


def current_date() -> Expression:
    """Today in the local time zone (DATE)."""
    return call_builtin("CURRENT_DATE")


def current_time() -> Expression:
    """The local time (TIME)."""
    return call_builtin("CURRENT_TIME")


def local_time() -> Expression:
    """The local time (TIME)."""
    return call_builtin("CURRENT_TIME")


def current_timestamp() -> Expression:
    """Now, as a TIMESTAMP_LTZ(3)."""
    return call_builtin("CURRENT_TIMESTAMP")


def local_timestamp() -> Expression:
    """Now in the local time zone, as a TIMESTAMP(3)."""
    return call_builtin("LOCALTIMESTAMP")


def current_database() -> Expression:
    """The current database's name."""
    return lit("default_database")


def to_date(date_str: Any, format: Any = None) -> Expression:
    """A date parsed from ``yyyy-MM-dd`` text (or a Java ``format``); NULL if it does not parse."""
    return call_builtin("TO_DATE", date_str) if format is None else call_builtin("TO_DATE", date_str, format)


def to_timestamp(timestamp_str: Any, format: Any = None) -> Expression:
    """A TIMESTAMP(3) parsed from ``yyyy-MM-dd HH:mm:ss`` text (or a Java ``format``)."""
    if format is None:
        return call_builtin("TO_TIMESTAMP", timestamp_str)
    return call_builtin("TO_TIMESTAMP", timestamp_str, format)


def array(head: Any, *tail: Any) -> Expression:
    """An ARRAY of the values."""
    return call_builtin("ARRAY", head, *tail)


def row(head: Any, *tail: Any) -> Expression:
    """A ROW of the values (fields ``f0``, ``f1`` ...)."""
    return _FieldsRow(call_builtin("ROW", head, *tail))


class _FieldsRow(Expression):
    """The Table API's ``row()``: the ROW call's value with its fields named ``f0``, ``f1`` ...
    (Flink's ``BuiltInFunctionDefinitions.ROW``: PyFlink 2.3.0 types row(col('x'), col('y'))
    ``ROW<`f0` BIGINT, `f1` STRING> NOT NULL``), where SQL's ROW(x, y) names them ``EXPR$0``,
    ``EXPR$1`` (Calcite's)."""

    def __init__(self, operand: Expression) -> None:
        self.operand = operand

    def aggregates(self) -> list[Any]:
        return self.operand.aggregates()

    def window_properties(self) -> list[Any]:
        return self.operand.window_properties()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        inner = self.operand.resolve(names, types)
        fields = [DataTypes.FIELD(f"f{i}", t) for i, t in enumerate(inner.data_type.field_types())]  # type: ignore[attr-defined]
        field_names = [f.name for f in fields]
        fn = inner.fn

        def apply(values: tuple[Any, ...]) -> Any:
            value = fn(values)
            if value is None:
                return None
            renamed = Row(*value)
            renamed.set_field_names(field_names)
            return renamed

        return Compiled(apply, DataTypes.ROW(fields, inner.data_type.is_nullable()), inner.name)

    def __repr__(self) -> str:
        return repr(self.operand)


def map_(key: Any, value: Any, *tail: Any) -> Expression:
    """A MAP of the key-value pairs (``map_(k1, v1, k2, v2)``)."""
    if len(tail) % 2:
        raise ValueError("map_ takes pairs of keys and values")
    return call_builtin("MAP", key, value, *tail)


def null_of(data_type: DataType) -> Expression:
    """A NULL of ``data_type``."""
    return _Literal(None, data_type.nullable())


def json_string(value: Any) -> Expression:
    """The value as JSON text (NULL stays NULL)."""
    return call_builtin("JSON_STRING", value)


def call_sql(sql_expression: str) -> Expression:
    """An SQL expression over the table's columns (``call_sql("UPPER(name)")``)."""
    return parse_expression(sql_expression)


class ColumnRange(Expression):
    """Columns chosen by position or name (``range_``), expanded by ``select`` and the other
    column-list methods through ``with_columns`` / ``without_columns``."""

    def __init__(self, first: Any, last: Any) -> None:
        self.first, self.last = first, last

    def positions(self, names: list[str]) -> list[int]:
        start = self.first if isinstance(self.first, int) else names.index(_name(self.first)) + 1
        end = self.last if isinstance(self.last, int) else names.index(_name(self.last)) + 1
        return list(range(start - 1, end))


class ColumnSelection(Expression):
    """``with_columns(...)`` / ``without_columns(...)``: the columns named, by name, position or
    range, or every column but those."""

    def __init__(self, parts: tuple[Any, ...], keep: bool) -> None:
        self.parts, self.keep = parts, keep

    def names(self, names: list[str]) -> list[str]:
        chosen: list[int] = []
        for part in self.parts:
            if isinstance(part, ColumnRange):
                chosen.extend(part.positions(names))
            elif isinstance(part, int):
                chosen.append(part - 1)
            else:
                chosen.append(names.index(_name(part)))
        if self.keep:
            return [names[i] for i in chosen]
        return [n for i, n in enumerate(names) if i not in set(chosen)]


def _name(column: Any) -> str:
    if isinstance(column, _Column):
        return column.name
    if isinstance(column, str):
        return column
    raise TypeError(f"expected a column name or col(...), got {column!r}")


def range_(start: Any, end: Any) -> Expression:
    """The columns from ``start`` to ``end``, both included (positions from 1, or names)."""
    return ColumnRange(start, end)


def with_columns(head: Any, *tails: Any) -> Expression:
    """The columns named (by name, position or ``range_``), for ``select`` and the like."""
    return ColumnSelection((head, *tails), True)


def without_columns(head: Any, *tails: Any) -> Expression:
    """Every column but the ones named."""
    return ColumnSelection((head, *tails), False)
