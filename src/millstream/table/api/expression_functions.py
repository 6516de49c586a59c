"""More of ``pyflink.table.expressions``' functions: math, random numbers, time, arrays, rows,
maps, typed NULLs and column ranges (``with_columns(range_(1, 3))``). Each builds the same
built-in call SQL's function of that name builds (``functions/builtin_scalars.py``,
``functions/temporal.py``): ``timestamp_diff`` is ``TIMESTAMPDIFF``, ``temporal_overlaps``
SQL's ``OVERLAPS``, ``unix_timestamp`` ``UNIX_TIMESTAMP`` ... The declarations
``source_watermark()`` and ``descriptor(...)`` are ``expression/markers.py``'s."""

from __future__ import annotations

from typing import Any

from millstream.common.types import Row
from millstream.table.common.intervals import is_interval
from millstream.table.common.printing import summary_string
from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.enums import TimePointUnit
from millstream.table.expression.expression import Compiled, Expression, _Column, _Literal, _wrap, lit
from millstream.table.expression.logic import and_, if_then_else
from millstream.table.expression.markers import Descriptor, SourceWatermark
from millstream.table.expression.watermarks import CurrentWatermark
from millstream.table.functions.builtins import call_builtin
from millstream.table.sql.expressions import parse_expression

__all__ = [
    "array",
    "atan2",
    "call_sql",
    "convert_tz",
    "current_database",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_watermark",
    "descriptor",
    "e",
    "from_unixtime",
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
    "source_watermark",
    "temporal_overlaps",
    "timestamp_diff",
    "to_date",
    "to_timestamp",
    "unix_timestamp",
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


# the type families Flink's Table API checks its functions' arguments against
_FAMILIES = {
    "SYMBOL": ("CHAR", "VARCHAR"),  # a unit, given as its name
    "CHARACTER_STRING": ("CHAR", "VARCHAR", "STRING", "NULL"),
    "DATETIME": ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "NULL"),
}


class _ApiCall(Expression):
    """A built-in function called as the Table API types it (Flink's
    ``BuiltInFunctionDefinitions``, whose input and output strategies differ from SQL's for
    some functions): the arguments' type families checked (``families``), and the result typed
    ``result`` (nullable when an argument is, with ``if_any``); the values are SQL's function's."""

    def __init__(
        self,
        name: str,
        args: tuple[Any, ...],
        families: tuple[str, ...] = (),
        result: DataType | None = None,
        if_any: bool = False,
    ) -> None:
        self.call = call_builtin(name, *args)
        self.families, self.result, self.if_any = families, result, if_any

    def aggregates(self) -> list[Any]:
        return self.call.aggregates()

    def window_properties(self) -> list[Any]:
        return self.call.window_properties()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        arguments = [a.resolve(names, types).data_type for a in getattr(self.call, "args", [])]
        for kind, family in zip(arguments, self.families, strict=False):
            if kind.root not in _FAMILIES[family]:
                raise ValueError(
                    f"Unsupported argument type. Expected type of family '{family}' but actual type was "
                    f"'{summary_string(kind)}'."
                )
        compiled = self.call.resolve(names, types)
        if self.result is None:
            return compiled
        nullable = not self.if_any or any(a.is_nullable() for a in arguments)
        return Compiled(
            compiled.fn, self.result.nullable() if nullable else self.result.not_null(), compiled.name
        )

    def __repr__(self) -> str:
        return repr(self.call)


def convert_tz(date_str: Any, tz_from: Any, tz_to: Any) -> Expression:
    """The ``yyyy-MM-dd HH:mm:ss`` text ``date_str`` of time zone ``tz_from`` as the same
    instant's text in ``tz_to`` (zones as Java names them: ``PST``, ``America/Los_Angeles``,
    ``GMT-08:00``); NULL when it does not parse."""
    return _ApiCall("CONVERT_TZ", (date_str, tz_from, tz_to), ("CHARACTER_STRING",) * 3)


def from_unixtime(unixtime: Any, format: Any = None) -> Expression:
    """Epoch seconds as text in the session time zone, ``yyyy-MM-dd HH:mm:ss`` or ``format``
    (STRING, NOT NULL when its arguments are, as the Table API types it; SQL's is nullable)."""
    args = (unixtime,) if format is None else (unixtime, format)
    return _ApiCall("FROM_UNIXTIME", args, result=DataTypes.STRING(), if_any=True)


def unix_timestamp(date_str: Any = None, format: Any = None) -> Expression:
    """The epoch seconds now (read per record), or of the text ``date_str`` in the session
    time zone, ``yyyy-MM-dd HH:mm:ss`` or ``format`` (``Long.MIN_VALUE`` when it does not parse,
    as Flink's); a nullable BIGINT, as the Table API types it (SQL's is NOT NULL)."""
    args = () if date_str is None else (date_str,) if format is None else (date_str, format)
    return _ApiCall("UNIX_TIMESTAMP", args, result=DataTypes.BIGINT())


# the units timestamp_diff takes (Flink's Table API: not MILLISECOND or MICROSECOND)
_DIFF_UNITS = ("HOUR", "YEAR", "QUARTER", "SECOND", "MONTH", "DAY", "WEEK", "MINUTE")


def timestamp_diff(time_point_unit: TimePointUnit, time_point1: Any, time_point2: Any) -> Expression:
    """The whole ``time_point_unit`` units from ``time_point1`` to ``time_point2`` (INT,
    signed): ``timestamp_diff(TimePointUnit.DAY, lit('2016-06-15').to_date,
    lit('2016-06-18').to_date)`` is 3. SQL's ``TIMESTAMPDIFF``."""
    unit = (
        time_point_unit.name if isinstance(time_point_unit, TimePointUnit) else str(time_point_unit).upper()
    )
    if unit not in _DIFF_UNITS:
        raise ValueError(
            "Unsupported argument symbol variant. Expected one of the following variants "
            f"[{', '.join(_DIFF_UNITS)}] but actual symbol was {unit}."
        )
    return _ApiCall(
        "TIMESTAMPDIFF", (lit(unit), time_point1, time_point2), ("SYMBOL", "DATETIME", "DATETIME")
    )


class _TemporalOverlaps(Expression):
    """``temporal_overlaps(left_time_point, left_temporal, right_time_point, right_temporal)``:
    whether the two periods share a point, each period a time point and its end (a time point
    of the same type) or its length (an interval). Flink converts it as Calcite converts SQL's
    ``OVERLAPS`` (``sql/forms.py``): each period ordered (``CASE WHEN start <= end THEN start
    ELSE end``), then ``left_start <= right_end AND right_start <= left_end``."""

    _ROLES = (
        ("1st", "leftTimePoint"),
        ("2nd", "leftTemporal"),
        ("3rd", "rightTimePoint"),
        ("4th", "rightTemporal"),
    )

    def __init__(self, operands: list[Expression]) -> None:
        self.operands = operands

    def aggregates(self) -> list[Any]:
        return [a for o in self.operands for a in o.aggregates()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        kinds = [o.resolve(names, types).data_type for o in self.operands]
        self._check(kinds)
        periods = []
        left_point, left_temporal, right_point, right_temporal = self.operands
        sides = ((left_point, left_temporal, kinds[1]), (right_point, right_temporal, kinds[3]))
        for start, temporal, kind in sides:
            end = start + temporal if is_interval(kind.root) else temporal  # (a year-month one too)
            ordered = start <= end
            periods.append((if_then_else(ordered, start, end), if_then_else(ordered, end, start)))
        (left_start, left_end), (right_start, right_end) = periods
        return and_(left_start <= right_end, right_start <= left_end).resolve(names, types)

    def _check(self, kinds: list[DataType]) -> None:
        """Flink's ``TemporalOverlapsInputTypeStrategy``: time points of one DATETIME type, each
        period's end of its time point's type, or an interval."""
        for (position, role), kind in zip(self._ROLES, kinds, strict=True):
            is_temporal = role.endswith("Temporal")
            if not (_is_datetime(kind) or (is_temporal and is_interval(kind.root))):
                wanted = "be DATETIME or INTERVAL type" if is_temporal else "be a DATETIME type"
                raise ValueError(
                    f"TEMPORAL_OVERLAPS requires {position} argument '{role}' to {wanted}, "
                    f"but is {summary_string(kind)}"
                )
        if kinds[0] != kinds[2]:
            raise ValueError(
                "TEMPORAL_OVERLAPS requires 'leftTimePoint' and 'rightTimePoint' arguments to be of the same "
                f"type, but is {summary_string(kinds[0])} != {summary_string(kinds[2])}"
            )
        for side, point, temporal in (("left", kinds[0], kinds[1]), ("right", kinds[2], kinds[3])):
            if _is_datetime(temporal) and temporal != point:
                raise ValueError(
                    f"TEMPORAL_OVERLAPS requires '{side}Temporal' and '{side}TimePoint' arguments to be of "
                    f"the same type if '{side}Temporal' is a DATETIME, but is {summary_string(temporal)} != "
                    f"{summary_string(point)}"
                )

    def __repr__(self) -> str:
        return f"temporalOverlaps({', '.join(map(repr, self.operands))})"


def _is_datetime(data_type: DataType) -> bool:
    return data_type.root in ("DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")


def temporal_overlaps(
    left_time_point: Any, left_temporal: Any, right_time_point: Any, right_temporal: Any
) -> Expression:
    """Whether two anchored periods overlap: each a time point and its end (a time point of
    the same type) or its length (an interval); ``left_end >= right_start AND right_end >=
    left_start``. ``temporal_overlaps(lit('2:55:00').to_time, lit(1).hours,
    lit('3:30:00').to_time, lit(2).hours)`` is TRUE."""
    return _TemporalOverlaps(
        [_wrap(v) for v in (left_time_point, left_temporal, right_time_point, right_temporal)]
    )


def current_watermark(rowtimeAttribute: Any) -> Expression:  # PyFlink's parameter name
    """The current watermark of the operator evaluating it, for the rowtime attribute
    ``rowtimeAttribute``: its type with precision 3 (``TIMESTAMP(3)`` or ``TIMESTAMP_LTZ(3)``),
    NULL until the operator has a watermark (``current_watermark(col('ts')).is_null |
    (col('ts') > current_watermark(col('ts')))`` keeps the rows that are not late)."""
    return CurrentWatermark(_wrap(rowtimeAttribute))


def source_watermark() -> Expression:
    """The watermark declaration of a schema whose watermarks are the source's own
    (``Schema.new_builder()...watermark('ts', source_watermark())``): for ``from_data_stream``,
    the DataStream's watermarks. It has no value in a query."""
    return SourceWatermark()


def descriptor(*column_names: str) -> Expression:
    """A literal list of column names, unvalidated (Flink's ``DESCRIPTOR``), for the arguments of
    table functions that take one; it has no value in a select list."""
    return Descriptor(tuple(column_names))


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
    """The value as JSON text (NULL stays NULL); a ``json_object`` / ``json_array`` value is
    its JSON as it is (not quoted again), as SQL's ``JSON_STRING(JSON_OBJECT(...))``."""
    if getattr(value, "name_", None) in ("JSON_OBJECT", "JSON_ARRAY"):
        return value
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
