# ruff: noqa: F822 - some names of __all__ come from expression_functions through __getattr__
"""The Table API's expressions, as ``pyflink.table.expressions`` (``col``, ``lit``, ``and_`` ...).

An ``Expression`` is a tree the user builds (``col('k') + 1 > lit(3)``, ``col('x').max``);
the planner resolves it against a table's columns into a ``Compiled``: a Python function of
one row (a tuple), its result's data type and the column name it gets. Types follow Flink's
rules: literals are ``NOT NULL`` (``lit(7)`` is INT, ``lit('a')`` CHAR(1)), arithmetic widens
to the wider operand, integer division and ``%`` truncate toward zero as Java does, ``%``
has the type of its divisor, comparisons and logic are BOOLEAN with SQL's three-valued
logic (NULL in, NULL out; ``FALSE AND NULL`` is FALSE). Aggregates (``.count``, ``.sum``,
``.avg``, ``.min``, ``.max``) are resolved by the aggregation (``planner.py``).
"""

from __future__ import annotations

import datetime
import decimal
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.table.types import DataType, DataTypes, RowType

__all__ = [
    "CURRENT_RANGE",
    "CURRENT_ROW",
    "UNBOUNDED_RANGE",
    "UNBOUNDED_ROW",
    "AggregateCall",
    "Compiled",
    "Expression",
    "and_",
    "array",
    "atan2",
    "call",
    "call_sql",
    "coalesce",
    "col",
    "concat",
    "concat_ws",
    "current_database",
    "current_date",
    "current_time",
    "current_timestamp",
    "date_format",
    "e",
    "if_then_else",
    "json_string",
    "lit",
    "local_time",
    "local_timestamp",
    "log",
    "map_",
    "negative",
    "not_",
    "null_of",
    "or_",
    "pi",
    "rand",
    "rand_integer",
    "range_",
    "row",
    "row_interval",
    "to_date",
    "to_timestamp",
    "to_timestamp_ltz",
    "uuid",
    "with_columns",
    "without_columns",
]

_NUMERIC_ORDER = ["TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE"]
_INTEGRAL = {"TINYINT", "SMALLINT", "INT", "BIGINT"}


@dataclass(frozen=True)
class Compiled:
    """A resolved expression: ``fn(row)``, its type and the name of its column."""

    fn: Callable[[tuple[Any, ...]], Any]
    data_type: DataType
    name: str | None  # None: unnamed (the planner names it)


class Expression:
    """A Table API expression (immutable)."""

    __hash__ = object.__hash__

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        """This expression over rows with columns ``names`` of ``types``."""
        raise NotImplementedError

    def aggregates(self) -> list[AggregateCall]:
        """The aggregate calls inside this expression."""
        return []

    # -- arithmetic, comparison, logic -------------------------------------------------------------

    def _binary(self, op: str, other: Any, reverse: bool = False) -> Expression:
        other = _wrap(other)
        return _Binary(op, other, self) if reverse else _Binary(op, self, other)

    def __add__(self, other: Any) -> Expression:
        return self._binary("+", other)

    def __radd__(self, other: Any) -> Expression:
        return self._binary("+", other, True)

    def __sub__(self, other: Any) -> Expression:
        return self._binary("-", other)

    def __rsub__(self, other: Any) -> Expression:
        return self._binary("-", other, True)

    def __mul__(self, other: Any) -> Expression:
        return self._binary("*", other)

    def __rmul__(self, other: Any) -> Expression:
        return self._binary("*", other, True)

    def __truediv__(self, other: Any) -> Expression:
        return self._binary("/", other)

    def __rtruediv__(self, other: Any) -> Expression:
        return self._binary("/", other, True)

    def __mod__(self, other: Any) -> Expression:
        return self._binary("%", other)

    def __neg__(self) -> Expression:
        return _Binary("-", lit(0), self)

    def __eq__(self, other: Any) -> Expression:  # type: ignore[override]
        return self._binary("=", other)

    def __ne__(self, other: Any) -> Expression:  # type: ignore[override]
        return self._binary("<>", other)

    def __lt__(self, other: Any) -> Expression:
        return self._binary("<", other)

    def __le__(self, other: Any) -> Expression:
        return self._binary("<=", other)

    def __gt__(self, other: Any) -> Expression:
        return self._binary(">", other)

    def __ge__(self, other: Any) -> Expression:
        return self._binary(">=", other)

    def __and__(self, other: Any) -> Expression:
        return _Logic("AND", [self, _wrap(other)])

    def __or__(self, other: Any) -> Expression:
        return _Logic("OR", [self, _wrap(other)])

    def __invert__(self) -> Expression:
        return _Not(self)

    # -- naming, casting, nulls ----------------------------------------------------------------------

    def alias(self, name: str, *extra_names: str) -> Expression:
        """The same values under another column name (several names: the fields of a ROW
        result, as ``aggregate(f(col('x')).alias('cnt', 'total'))``)."""
        return _Alias(self, name, extra_names)

    def cast(self, data_type: DataType) -> Expression:
        """The value converted to ``data_type``."""
        return _Cast(self, data_type)

    def try_cast(self, data_type: DataType) -> Expression:
        """The value converted to ``data_type``, NULL when it cannot be (SQL's TRY_CAST)."""
        return _Cast(self, data_type, safe=True)

    @property
    def is_null(self) -> Expression:
        """TRUE where the value is NULL."""
        return _IsNull(self, True)

    @property
    def is_not_null(self) -> Expression:
        """TRUE where the value is not NULL."""
        return _IsNull(self, False)

    # -- intervals (``lit(5).seconds``) and window properties (``col('w').start``) ---------------------

    @property
    def millis(self) -> Expression:
        """An interval of this many milliseconds."""
        return _Interval(self, 1)

    milli = millis

    @property
    def seconds(self) -> Expression:
        """An interval of this many seconds."""
        return _Interval(self, 1000)

    second = seconds

    @property
    def minutes(self) -> Expression:
        """An interval of this many minutes."""
        return _Interval(self, 60_000)

    minute = minutes

    @property
    def hours(self) -> Expression:
        """An interval of this many hours."""
        return _Interval(self, 3_600_000)

    hour = hours

    @property
    def days(self) -> Expression:
        """An interval of this many days."""
        return _Interval(self, 86_400_000)

    day = days

    @property
    def rows(self) -> Expression:
        """A row interval (over windows: ``preceding(lit(2).rows)``)."""
        return RowInterval(self)

    row = rows

    @property
    def start(self) -> Expression:
        """The start of the group window aliased by this column (``col('w').start``)."""
        return WindowProperty(self, "start")

    @property
    def end(self) -> Expression:
        """The (exclusive) end of the group window aliased by this column."""
        return WindowProperty(self, "end")

    @property
    def rowtime(self) -> Expression:
        """The group window's time attribute: its end minus one millisecond."""
        return WindowProperty(self, "rowtime")

    def window_properties(self) -> list[WindowProperty]:
        """The window properties inside this expression."""
        return []

    def over(self, alias: Expression) -> Expression:
        """This aggregate over the over window aliased by ``alias``."""
        from millstream.table.over import OverCall

        if not isinstance(self, AggregateCall):
            raise ValueError("over() applies to an aggregate (col('x').max.over(col('w')))")
        return OverCall(self, alias)

    # -- functions ---------------------------------------------------------------------------------------

    def get(self, name_or_index: str | int) -> Expression:
        """A field of this ROW value, by name or 1-based position (SQL's ``person.name``);
        NULL when the row is NULL."""
        return _FieldAccess(self, name_or_index)

    def json_value(self, path: str, returning_type: DataType | None = None, *args: Any) -> Expression:
        """The scalar at JSON ``path`` (``$.a.b[0]``) of this JSON text, as ``returning_type``
        (STRING by default); NULL when the path is missing or the text is not JSON."""
        from millstream.table.functions import call_builtin

        result = call_builtin("JSON_VALUE", self, lit(path))
        return result.cast(returning_type) if returning_type is not None else result

    @property
    def asc(self) -> Expression:
        """Ascending order (``order_by``)."""
        return Ordering(self, False)

    @property
    def desc(self) -> Expression:
        """Descending order (``order_by``)."""
        return Ordering(self, True)

    # -- aggregates ------------------------------------------------------------------------------------

    @property
    def count(self) -> Expression:
        """The number of non-NULL values (BIGINT NOT NULL)."""
        return AggregateCall("COUNT", self)

    @property
    def sum(self) -> Expression:
        """The sum of the values (NULL when there are none)."""
        return AggregateCall("SUM", self)

    @property
    def avg(self) -> Expression:
        """The average of the values, in their type (integers truncate, as Flink's AVG)."""
        return AggregateCall("AVG", self)

    @property
    def min(self) -> Expression:
        """The least value."""
        return AggregateCall("MIN", self)

    @property
    def max(self) -> Expression:
        """The greatest value."""
        return AggregateCall("MAX", self)

    @property
    def stddev_pop(self) -> Expression:
        """The population standard deviation of the values."""
        return AggregateCall("STDDEV_POP", self)

    @property
    def stddev_samp(self) -> Expression:
        """The sample standard deviation of the values."""
        return AggregateCall("STDDEV_SAMP", self)

    @property
    def var_pop(self) -> Expression:
        """The population variance of the values."""
        return AggregateCall("VAR_POP", self)

    @property
    def var_samp(self) -> Expression:
        """The sample variance of the values."""
        return AggregateCall("VAR_SAMP", self)

    @property
    def first_value(self) -> Expression:
        """The first non-NULL value."""
        return AggregateCall("FIRST_VALUE", self)

    @property
    def last_value(self) -> Expression:
        """The last non-NULL value."""
        return AggregateCall("LAST_VALUE", self)

    @property
    def collect(self) -> Expression:
        """The multiset of the non-NULL values (a map of each value to its count)."""
        return AggregateCall("COLLECT", self)

    @property
    def array_agg(self) -> Expression:
        """The values (NULLs too) as an array, in arrival order."""
        return AggregateCall("ARRAY_AGG", self)

    def list_agg(self, separator: str | None = None) -> Expression:
        """The non-NULL values joined by ``separator`` (``,`` by default)."""
        import json

        from millstream.table.aggregates_more import LISTAGG

        return AggregateCall(LISTAGG + json.dumps("," if separator is None else separator), self)


def _wrap(value: Any) -> Expression:
    return value if isinstance(value, Expression) else lit(value)


# -- leaves -------------------------------------------------------------------------------------------


class _Column(Expression):
    def __init__(self, name: str) -> None:
        self.name = name

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        if self.name not in names:
            raise ValueError(f"Cannot resolve field [{self.name}], input field list:[{', '.join(names)}].")
        index = names.index(self.name)
        return Compiled(operator.itemgetter(index), types[index], self.name)

    def __repr__(self) -> str:
        return self.name


class _Literal(Expression):
    def __init__(self, value: Any, data_type: DataType | None = None) -> None:
        self.value = value
        self.data_type = data_type or _literal_type(value)

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        value = self.value
        return Compiled(lambda row: value, self.data_type, None)

    def __repr__(self) -> str:
        return repr(self.value)


def _literal_type(value: Any) -> DataType:
    if value is None:
        return DataTypes.NULL()
    if isinstance(value, bool):
        return DataTypes.BOOLEAN(False)
    if isinstance(value, int):
        return DataTypes.INT(False) if -(2**31) <= value < 2**31 else DataTypes.BIGINT(False)
    if isinstance(value, float):
        return DataTypes.DOUBLE(False)
    if isinstance(value, str):
        return DataTypes.CHAR(len(value), False)
    if isinstance(value, datetime.timedelta):
        return interval_type()
    if isinstance(value, datetime.datetime):
        return DataTypes.TIMESTAMP(6 if value.microsecond % 1000 else 3, False)
    if isinstance(value, datetime.date):
        return DataTypes.DATE(False)
    if isinstance(value, decimal.Decimal):
        digits = value.as_tuple()
        scale = max(0, -int(digits.exponent))
        return DataTypes.DECIMAL(max(len(digits.digits), scale, 1), scale, False)
    raise TypeError(f"unsupported literal {value!r}")


def col(name: str) -> Expression:
    """The column ``name``."""
    return _Column(name)


def lit(value: Any, data_type: DataType | None = None) -> Expression:
    """A literal (``data_type``: its type, else Flink's type of the Python value)."""
    return _Literal(value, data_type)


# -- operators --------------------------------------------------------------------------------------------


def _wider(a: DataType, b: DataType) -> DataType:
    ra, rb = a.root, b.root
    if ra == "NULL":
        return b
    if rb == "NULL":
        return a
    if ra not in _NUMERIC_ORDER or rb not in _NUMERIC_ORDER:
        raise TypeError(f"arithmetic needs numbers, got {ra} and {rb}")
    wider = a if _NUMERIC_ORDER.index(ra) >= _NUMERIC_ORDER.index(rb) else b
    return wider.nullable() if a.is_nullable() or b.is_nullable() else wider.not_null()


def _nullable(t: DataType, *operands: DataType) -> DataType:
    return t.nullable() if any(o.is_nullable() for o in operands) else t.not_null()


def _java_div(a: Any, b: Any) -> Any:
    quotient = abs(a) // abs(b)
    return -quotient if (a < 0) != (b < 0) else quotient


def _java_mod(a: Any, b: Any) -> Any:
    remainder = abs(a) % abs(b)
    return -remainder if a < 0 else remainder


_COMPARE = {
    "=": operator.eq,
    "<>": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class _Binary(Expression):
    def __init__(self, op: str, left: Expression, right: Expression) -> None:
        self.op, self.left, self.right = op, left, right

    def aggregates(self) -> list[AggregateCall]:
        return self.left.aggregates() + self.right.aggregates()

    def window_properties(self) -> list[WindowProperty]:
        return self.left.window_properties() + self.right.window_properties()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        left, right = self.left.resolve(names, types), self.right.resolve(names, types)
        fa, fb, op = left.fn, right.fn, self.op
        ta, tb = left.data_type, right.data_type
        if op in _COMPARE:
            compare = _COMPARE[op]
            result_type = _nullable(DataTypes.BOOLEAN(), ta, tb)
            func: Callable[[Any, Any], Any] = compare
        else:
            result_type, func = _arithmetic(op, ta, tb)

        def apply(row: tuple[Any, ...]) -> Any:
            a = fa(row)
            if a is None:
                return None
            b = fb(row)
            return None if b is None else func(a, b)

        return Compiled(apply, result_type, None)

    def __repr__(self) -> str:
        return f"({self.left!r} {self.op} {self.right!r})"


_TEMPORAL = ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE")


def _arithmetic(op: str, ta: DataType, tb: DataType) -> tuple[DataType, Callable[[Any, Any], Any]]:
    if op in ("+", "-") and (ta.root == INTERVAL or tb.root == INTERVAL):
        # timestamp ± interval keeps the timestamp's type; interval + timestamp too
        if ta.root in _TEMPORAL or tb.root in _TEMPORAL or (ta.root == tb.root == INTERVAL):
            result = ta if ta.root != INTERVAL else tb
            return _nullable(result, ta, tb), (operator.add if op == "+" else operator.sub)
        raise TypeError(f"cannot apply {op} to {ta!r} and {tb!r}")
    integral = ta.root in _INTEGRAL and tb.root in _INTEGRAL
    decimal_result = _decimal_arithmetic(op, ta, tb)
    if decimal_result is not None:
        return decimal_result
    if op == "%":
        return (_nullable(tb, ta, tb) if integral else _wider(ta, tb)), (
            _java_mod if integral else lambda a, b: a % b
        )
    result = _wider(ta, tb)
    if result.root in ("DOUBLE", "FLOAT") and "DECIMAL" in (ta.root, tb.root):  # DECIMAL op DOUBLE: DOUBLE
        python_op = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}[op]
        return result, lambda a, b: python_op(float(a), float(b))
    if op == "/":
        return result, (_java_div if integral else operator.truediv)
    return result, {"+": operator.add, "-": operator.sub, "*": operator.mul}[op]


# integer types as the DECIMALs they widen to in DECIMAL arithmetic (Flink's)
_INTEGER_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}
_MAX_PRECISION = 38


def _as_decimal(t: DataType) -> tuple[int, int] | None:
    if t.root == "DECIMAL":
        return int(t.params[0]), int(t.params[1])
    if t.root in _INTEGER_DIGITS:
        return _INTEGER_DIGITS[t.root], 0
    return None


def _bounded(precision: int, scale: int, minimum_scale: int) -> tuple[int, int]:
    """Flink's ``adjustPrecisionScale``: at most 38 digits, keeping integral digits first."""
    if precision <= _MAX_PRECISION:
        return precision, scale
    integral = precision - scale
    scale = max(min(scale, minimum_scale), _MAX_PRECISION - integral)
    return _MAX_PRECISION, min(scale, _MAX_PRECISION)


def decimal_result_type(op: str, ta: DataType, tb: DataType) -> tuple[int, int]:
    """Precision and scale of ``DECIMAL op DECIMAL`` (integers as DECIMAL(10, 0) ...), as
    Flink's ``LogicalTypeMerging``: + and - keep the larger scale, * adds scales, / gives
    scale max(6, s1 + p2 + 1), % the larger scale; * has p1 + p2 + 1 digits."""
    pa, sa = _as_decimal(ta) or (0, 0)
    pb, sb = _as_decimal(tb) or (0, 0)
    if op in ("+", "-"):
        scale = max(sa, sb)
        return _bounded(max(pa - sa, pb - sb) + scale + 1, scale, scale)
    if op == "*":
        return _bounded(pa + pb + 1, sa + sb, sa + sb)
    if op == "/":
        scale = max(6, sa + pb + 1)
        return _bounded(pa - sa + sb + scale, scale, 6)
    scale = max(sa, sb)  # %
    return _bounded(min(pa - sa, pb - sb) + scale, scale, scale)


def _decimal_arithmetic(
    op: str, ta: DataType, tb: DataType
) -> tuple[DataType, Callable[[Any, Any], Any]] | None:
    """DECIMAL arithmetic (one operand DECIMAL, the other DECIMAL or an integer), else None."""
    if "DECIMAL" not in (ta.root, tb.root) or _as_decimal(ta) is None or _as_decimal(tb) is None:
        return None
    precision, scale = decimal_result_type(op, ta, tb)
    quantum = decimal.Decimal(1).scaleb(-scale)
    context = decimal.Context(prec=80)

    def apply(a: Any, b: Any) -> Any:
        x, y = decimal.Decimal(a), decimal.Decimal(b)
        if op == "/":
            value = context.divide(x, y)
        elif op == "%":
            value = context.remainder(x, y)  # sign of the dividend, as Java's
        else:
            value = {"+": context.add, "-": context.subtract, "*": context.multiply}[op](x, y)
        return value.quantize(quantum, rounding=decimal.ROUND_HALF_UP, context=context)

    result = DataTypes.DECIMAL(precision, scale)
    return _nullable(result, ta, tb), apply


INTERVAL = "INTERVAL_DAY_TIME"


def interval_type(nullable: bool = False) -> DataType:
    """The type of a day-time interval (held as a ``datetime.timedelta``)."""
    return DataType(INTERVAL, nullable, 3)


class _Interval(Expression):
    """``lit(5).seconds``: a day-time interval of ``operand`` units of ``unit_ms`` ms."""

    def __init__(self, operand: Expression, unit_ms: int) -> None:
        self.operand, self.unit_ms = operand, unit_ms

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        import datetime

        inner = self.operand.resolve(names, types)
        fn, unit = inner.fn, self.unit_ms
        return Compiled(
            lambda row: None if (v := fn(row)) is None else datetime.timedelta(milliseconds=v * unit),
            interval_type(inner.data_type.is_nullable()),
            None,
        )

    def millis_value(self) -> int:
        """The interval's length in ms (a literal's)."""
        if not isinstance(self.operand, _Literal):
            raise ValueError("a window's size must be a literal interval (lit(5).seconds)")
        return int(self.operand.value * self.unit_ms)

    def __repr__(self) -> str:
        return f"INTERVAL {self.operand!r} * {self.unit_ms} ms"


class RowInterval(Expression):
    """``lit(2).rows`` / ``row_interval(2)``: a count of rows (over windows)."""

    def __init__(self, operand: Expression) -> None:
        self.operand = operand

    def count(self) -> int:  # type: ignore[override]
        """The number of rows."""
        if not isinstance(self.operand, _Literal):
            raise ValueError("a row interval must be a literal (row_interval(2))")
        return int(self.operand.value)

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        raise ValueError("a row interval is only meaningful in an over window's preceding/following")


def interval_millis(expression: Expression) -> int:
    """The length in ms of a literal interval expression (``lit(5).seconds``)."""
    if isinstance(expression, _Interval):
        return expression.millis_value()
    if isinstance(expression, _Literal) and hasattr(expression.value, "total_seconds"):
        return round(expression.value.total_seconds() * 1000)
    raise ValueError(f"expected a literal interval (lit(5).seconds), got {expression!r}")


class WindowProperty(Expression):
    """``col('w').start`` / ``.end`` / ``.rowtime`` of the group window aliased ``w``: read from
    the window aggregation's output (its hidden column ``w$start`` ...)."""

    def __init__(self, window: Expression, prop: str) -> None:
        self.window, self.prop = window, prop

    def window_properties(self) -> list[WindowProperty]:
        return [self]

    def column_name(self) -> str:
        """The aggregation's column holding this property."""
        return f"{getattr(self.window, 'name', self.window)}${self.prop}"

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        name = self.column_name()
        if name not in names:
            raise ValueError(f"window property {name.replace('$', '.')} is only valid in a window's select")
        index = names.index(name)
        return Compiled(operator.itemgetter(index), types[index], None)

    def __repr__(self) -> str:
        return f"{self.window!r}.{self.prop}"


class _FieldAccess(Expression):
    """``row.field``: one field of a ROW value (Flink's GET); the field's type, made
    nullable when the row may be NULL. Named as Flink names it: ``p$name`` in the Table API,
    ``name`` in SQL (``sql_name``)."""

    def __init__(self, operand: Expression, field: str | int, sql_name: bool = False) -> None:
        self.operand, self.field, self.sql_name = operand, field, sql_name

    def aggregates(self) -> list[AggregateCall]:
        return self.operand.aggregates()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        inner = self.operand.resolve(names, types)
        row_type = inner.data_type
        fields = getattr(row_type, "fields", None)
        if row_type.root != "ROW" or fields is None:
            raise ValueError(
                f"Cannot access field '{self.field}' of {inner.name or self.operand!r}: "
                f"{row_type!r} is not a ROW"
            )
        if isinstance(self.field, int):
            if not 1 <= self.field <= len(fields):
                raise ValueError(f"Field index {self.field} is out of range for {row_type!r}")
            index = self.field - 1
        else:
            matches = [i for i, f in enumerate(fields) if f.name == self.field]
            if not matches:
                raise ValueError(
                    f"Cannot resolve field [{self.field}] of {inner.name or self.operand!r}, "
                    f"its fields:[{', '.join(f.name for f in fields)}]."
                )
            index = matches[0]
        field_type = fields[index].data_type
        if row_type.is_nullable() and not field_type.is_nullable():
            field_type = field_type.nullable()
        value = inner.fn

        def get(row: tuple[Any, ...]) -> Any:
            outer = value(row)
            return None if outer is None else outer[index]

        field_name = fields[index].name
        name = field_name if self.sql_name or inner.name is None else f"{inner.name}${field_name}"
        return Compiled(get, field_type, name)

    def __repr__(self) -> str:
        return (
            f"{self.operand!r}.{self.field}"
            if isinstance(self.field, str)
            else f"{self.operand!r}.get({self.field})"
        )


class _Logic(Expression):
    def __init__(self, op: str, operands: list[Expression]) -> None:
        self.op, self.operands = op, operands

    def aggregates(self) -> list[AggregateCall]:
        return [a for o in self.operands for a in o.aggregates()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        compiled = [o.resolve(names, types) for o in self.operands]
        fns = [c.fn for c in compiled]
        deciding = self.op == "OR"  # OR: one TRUE decides; AND: one FALSE decides

        def apply(row: tuple[Any, ...]) -> Any:
            unknown = False
            for fn in fns:
                value = fn(row)
                if value is None:
                    unknown = True
                elif bool(value) is deciding:
                    return deciding
            return None if unknown else not deciding

        return Compiled(apply, _nullable(DataTypes.BOOLEAN(), *(c.data_type for c in compiled)), None)


class _Not(Expression):
    def __init__(self, operand: Expression) -> None:
        self.operand = operand

    def aggregates(self) -> list[AggregateCall]:
        return self.operand.aggregates()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        inner = self.operand.resolve(names, types)
        fn = inner.fn
        return Compiled(lambda row: None if (v := fn(row)) is None else not v, inner.data_type, None)


class _IsNull(Expression):
    def __init__(self, operand: Expression, null: bool) -> None:
        self.operand, self.null = operand, null

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        fn, null = self.operand.resolve(names, types).fn, self.null
        return Compiled(lambda row: (fn(row) is None) is null, DataTypes.BOOLEAN(False), None)


class _Alias(Expression):
    def __init__(self, operand: Expression, name: str, extra_names: tuple[str, ...] = ()) -> None:
        self.operand, self.name = operand, name
        self.names = (name, *extra_names)

    def aggregates(self) -> list[AggregateCall]:
        return self.operand.aggregates()

    def window_properties(self) -> list[WindowProperty]:
        return self.operand.window_properties()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        inner = self.operand.resolve(names, types)
        return Compiled(inner.fn, inner.data_type, self.name)


_CONVERT: dict[str, Callable[[Any], Any]] = {
    "TINYINT": int,
    "SMALLINT": int,
    "INT": int,
    "BIGINT": int,
    "FLOAT": float,
    "DOUBLE": float,
    "DECIMAL": lambda v: decimal.Decimal(str(v)),
    "BOOLEAN": lambda v: v if isinstance(v, bool) else str(v).strip().lower() == "true",
    # a string's UTF-8 bytes, as Flink's CAST(... AS BYTES)
    "BYTES": lambda v: v.encode("utf-8") if isinstance(v, str) else bytes(v),
}


class _Cast(Expression):
    """CAST (a value that cannot convert fails the job), or TRY_CAST (``safe``: it is NULL)."""

    def __init__(self, operand: Expression, data_type: DataType, safe: bool = False) -> None:
        self.operand, self.data_type, self.safe = operand, data_type, safe

    def aggregates(self) -> list[AggregateCall]:
        return self.operand.aggregates()

    def window_properties(self) -> list[WindowProperty]:
        return self.operand.window_properties()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        from millstream.table.print_utils import format_value

        inner = self.operand.resolve(names, types)
        fn, source = inner.fn, inner.data_type
        root = self.data_type.root
        if root in ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE", "TIME"):
            from millstream.table.functions import temporal_cast

            convert: Callable[[Any], Any] = temporal_cast(source, self.data_type)
        elif root in ("STRING", "VARCHAR", "CHAR"):
            convert = lambda v: format_value(source, v)  # noqa: E731
        elif root in ("TINYINT", "SMALLINT", "INT", "BIGINT") and isinstance(source.root, str):
            convert = (lambda v: int(str(v).strip())) if source.root in ("STRING", "VARCHAR", "CHAR") else int
        else:
            convert = _CONVERT.get(root, lambda v: v)
        if self.safe:
            strict = convert

            def convert(value: Any) -> Any:
                try:
                    return strict(value)
                except (ValueError, TypeError, ArithmeticError):
                    return None

            return Compiled(
                lambda row: None if (v := fn(row)) is None else convert(v), self.data_type.nullable(), None
            )
        target = self.data_type if inner.data_type.is_nullable() else self.data_type.not_null()
        return Compiled(lambda row: None if (v := fn(row)) is None else convert(v), target, None)


def and_(first: Any, *others: Any) -> Expression:
    """``first AND others...`` (SQL's three-valued logic)."""
    return _Logic("AND", [_wrap(first), *map(_wrap, others)])


def or_(first: Any, *others: Any) -> Expression:
    """``first OR others...`` (SQL's three-valued logic)."""
    return _Logic("OR", [_wrap(first), *map(_wrap, others)])


def not_(expression: Any) -> Expression:
    """``NOT expression``."""
    return _Not(_wrap(expression))


class _IfThenElse(Expression):
    def __init__(self, condition: Expression, then: Expression, otherwise: Expression) -> None:
        self.condition, self.then, self.otherwise = condition, then, otherwise

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        cond = self.condition.resolve(names, types).fn
        then, otherwise = self.then.resolve(names, types), self.otherwise.resolve(names, types)
        ft, fo = then.fn, otherwise.fn
        result = then.data_type if then.data_type.root != "NULL" else otherwise.data_type
        return Compiled(lambda row: ft(row) if cond(row) else fo(row), result, None)


def if_then_else(condition: Any, if_true: Any, if_false: Any) -> Expression:
    """``CASE WHEN condition THEN if_true ELSE if_false END``."""
    return _IfThenElse(_wrap(condition), _wrap(if_true), _wrap(if_false))


# -- aggregate calls ----------------------------------------------------------------------------------------


class AggregateCall(Expression):
    """An aggregate function over a group's rows (``col('x').sum``)."""

    def __init__(
        self, function: str, operand: Expression, distinct: bool = False, where: Expression | None = None
    ) -> None:
        self.function, self.is_distinct, self.where = function, distinct, where
        self.operand = operand if where is None else _Filtered(operand, where)

    def aggregates(self) -> list[AggregateCall]:
        return [self]

    @property
    def distinct(self) -> AggregateCall:
        """This aggregate over distinct values (``col('x').count.distinct`` in PyFlink)."""
        operand = self.operand.operand if isinstance(self.operand, _Filtered) else self.operand
        return AggregateCall(self.function, operand, True, self.where)

    def accumulator_spec(self, operand_type: DataType) -> Any:
        """What the aggregation runs: the built-in's name (``DISTINCT``, ``FILTERED``
        prefixed: ``aggregates.accumulator_for``), or a user function's accumulator."""
        from millstream.table.aggregates import DISTINCT, FILTERED

        return (
            (FILTERED if self.where is not None else "")
            + (DISTINCT if self.is_distinct else "")
            + self.function
        )

    def result_type(self, operand_type: DataType) -> DataType:
        """Flink's result type: COUNT BIGINT NOT NULL; SUM, AVG, MIN, MAX the operand's type."""
        if self.function == "COUNT":
            return DataTypes.BIGINT(False)
        from millstream.table.aggregates_more import more_result_type

        more = more_result_type(self.function, operand_type)
        if more is not None:
            return more
        if operand_type.root == "DECIMAL" and self.function in ("SUM", "AVG"):
            scale = int(operand_type.params[1])  # Flink: SUM DECIMAL(38, s), AVG DECIMAL(38, max(6, s))
            return DataTypes.DECIMAL(38, scale if self.function == "SUM" else max(6, scale))
        return operand_type if operand_type.is_nullable() else operand_type.nullable()

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        """The call's value, read from the aggregation's output (the planner gave it a slot)."""
        slot = getattr(self, "slot", None)
        if slot is None or slot not in names:
            raise ValueError(f"{self.function}() is an aggregate: use it in group_by(...).select(...)")
        index = names.index(slot)
        return Compiled(operator.itemgetter(index), types[index], None)

    def __repr__(self) -> str:
        operand = self.operand.operand if isinstance(self.operand, _Filtered) else self.operand
        text = f"{self.function}({'DISTINCT ' if self.is_distinct else ''}{operand!r})"
        return text if self.where is None else f"{text} FILTER (WHERE {self.where!r})"


class _Filtered(Expression):
    """An aggregate's argument under ``FILTER (WHERE condition)``: the value where the
    condition is TRUE, else ``aggregates.SKIP`` (the accumulator leaves the row out)."""

    def __init__(self, operand: Expression, condition: Expression) -> None:
        self.operand, self.condition = operand, condition

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        from millstream.table.aggregates import SKIP

        value = self.operand.resolve(names, types)
        condition = self.condition.resolve(names, types).fn
        fn = value.fn
        return Compiled(lambda row: fn(row) if condition(row) is True else SKIP, value.data_type, value.name)

    def __repr__(self) -> str:
        return repr(self.operand)


class Ordering(Expression):
    """An expression with its sort direction (``col('x').desc``)."""

    def __init__(self, operand: Expression, descending: bool) -> None:
        self.operand, self.descending = operand, descending

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        return self.operand.resolve(names, types)


class _Tuple(Expression):
    """The values of several expressions as one tuple (a user aggregate's arguments)."""

    def __init__(self, items: list[Expression]) -> None:
        self.items = items

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        compiled = [i.resolve(names, types) for i in self.items]
        fns = [c.fn for c in compiled]
        row_type = DataTypes.ROW([DataTypes.FIELD(f"f{i}", c.data_type) for i, c in enumerate(compiled)])
        return Compiled(lambda row: tuple([f(row) for f in fns]), row_type, None)


class _WholeRow(Expression):
    """Every column as one Row with the columns' names (what a udaf given to ``aggregate``
    without arguments receives)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        from millstream.common.types import Row

        field_names = list(names)

        def whole(row: tuple[Any, ...]) -> Any:
            value = Row(*row)
            value.set_field_names(field_names)
            return value

        row_type = DataTypes.ROW([DataTypes.FIELD(n, t) for n, t in zip(names, types, strict=True)])
        return Compiled(whole, row_type, None)


def whole_row(names: list[str]) -> Expression:
    """The row of all columns ``names`` as one value."""
    return _WholeRow(names)


class UserAggregateCall(AggregateCall):
    """A call of a user-defined aggregate function (``udaf``) on argument expressions."""

    def __init__(self, wrapper: Any, args: list[Expression], where: Expression | None = None) -> None:
        super().__init__(wrapper._name, _Tuple(args), where=where)
        self.wrapper = wrapper

    def filtered(self, where: Expression) -> UserAggregateCall:
        """This call with a ``FILTER (WHERE where)`` condition."""
        assert self.where is None
        return UserAggregateCall(self.wrapper, list(self.operand.items), where)  # type: ignore[attr-defined]

    def accumulator_spec(self, operand_type: DataType) -> Any:
        from millstream.table.udf import _UserAccumulator

        function = self.wrapper._function
        if hasattr(function, "with_types"):  # a pandas aggregate builds Series of the argument types
            types = operand_type.field_types() if isinstance(operand_type, RowType) else []
            function = function.with_types(types)
        accumulator = _UserAccumulator(function)
        if self.where is not None:  # the rows the condition leaves out arrive as SKIP
            from millstream.table.aggregates import _Filtered

            return _Filtered(accumulator)  # type: ignore[arg-type]
        return accumulator

    def result_type(self, operand_type: DataType) -> DataType:
        return self.wrapper.result_type


def _builtin(name: str, *args: Any) -> Expression:
    """The built-in function ``name`` applied to ``args`` (``functions.py``, imported when first
    used: it imports this module, so a module-level import would make a cycle)."""
    from millstream.table.functions import call_builtin

    return call_builtin(name, *args)


# Table API methods: name -> built-in function (the expression is the first argument); the ones
# in _PROPERTIES are properties in PyFlink (``col('s').upper_case``), the others methods.
_METHODS = {
    "upper_case": "UPPER",
    "lower_case": "LOWER",
    "trim": "TRIM",
    "ltrim": "LTRIM",
    "rtrim": "RTRIM",
    "trim_leading": "LTRIM",
    "trim_trailing": "RTRIM",
    "char_length": "CHAR_LENGTH",
    "substring": "SUBSTRING",
    "substr": "SUBSTRING",
    "replace": "REPLACE",
    "like": "LIKE",
    "init_cap": "INITCAP",
    "reverse": "REVERSE",
    "repeat": "REPEAT",
    "lpad": "LPAD",
    "rpad": "RPAD",
    "regexp_replace": "REGEXP_REPLACE",
    "abs": "ABS",
    "power": "POWER",
    "sqrt": "SQRT",
    "ln": "LN",
    "log10": "LOG10",
    "exp": "EXP",
    "floor": "FLOOR",
    "ceil": "CEIL",
    "round": "ROUND",
    "sign": "SIGN",
    "if_null": "IFNULL",
    "null_if": "NULLIF",
}
_PROPERTIES = {"upper_case", "lower_case", "char_length", "init_cap", "reverse", "abs", "sqrt", "ln",
               "log10", "exp", "floor", "ceil", "sign"}  # fmt: skip


def _install_methods() -> None:
    for method, function in _METHODS.items():
        if method in _PROPERTIES:

            def prop(self: Expression, _function: str = function) -> Expression:
                return _builtin(_function, self)

            setattr(Expression, method, property(prop, doc=f"{function}(this)"))
        else:

            def meth(self: Expression, *args: Any, _function: str = function) -> Expression:
                return _builtin(_function, self, *args)

            meth.__doc__ = f"{function}(this, args...)"
            setattr(Expression, method, meth)

    def in_(self: Expression, *values: Any) -> Expression:
        """TRUE if the value is one of ``values``."""
        return or_(*(self == v for v in values))

    def between(self: Expression, lower: Any, upper: Any) -> Expression:
        """``lower <= this <= upper``."""
        return (self >= lower) & (self <= upper)

    def not_between(self: Expression, lower: Any, upper: Any) -> Expression:
        """NOT ``lower <= this <= upper``."""
        return (self < lower) | (self > upper)

    Expression.in_ = in_  # type: ignore[attr-defined]
    Expression.between = between  # type: ignore[attr-defined]
    Expression.not_between = not_between  # type: ignore[attr-defined]


_install_methods()


def concat(first: Any, *others: Any) -> Expression:
    """The strings joined (NULL if any is NULL)."""
    return _builtin("CONCAT", first, *others)


def concat_ws(separator: Any, first: Any, *others: Any) -> Expression:
    """The non-NULL strings joined by ``separator``."""
    return _builtin("CONCAT_WS", separator, first, *others)


def coalesce(*args: Any) -> Expression:
    """The first non-NULL argument."""
    return _builtin("COALESCE", *args)


def to_timestamp_ltz(numeric_epoch_time: Any, precision: Any) -> Expression:
    """A TIMESTAMP_LTZ of epoch seconds (precision 0) or milliseconds (precision 3)."""
    return _builtin("TO_TIMESTAMP_LTZ", numeric_epoch_time, precision)


def date_format(timestamp: Any, format: Any) -> Expression:
    """The timestamp as text in a Java date-time ``format``."""
    return _builtin("DATE_FORMAT", timestamp, format)


def call(f: Any, *args: Any) -> Expression:
    """A function by name (a built-in or one registered with ``create_temporary_function``)
    or a user-defined function object, applied to ``args``."""
    if isinstance(f, str):
        from millstream.table.functions import is_builtin

        if is_builtin(f):
            return _builtin(f, *args)
        from millstream.table.udf import _REGISTERED, UserDefinedAggregateFunctionWrapper

        registered = _REGISTERED.get(f.lower())
        if isinstance(registered, UserDefinedAggregateFunctionWrapper):  # an aggregate: planned as one
            return registered(*args)
        return _NamedCall(f, [_wrap(a) for a in args])
    return f(*args)


class _NamedCall(Expression):
    """A call of a function registered in the TableEnvironment (resolved when planned)."""

    def __init__(self, name: str, args: list[Expression]) -> None:
        self.function_name, self.args = name, args

    def aggregates(self) -> list[AggregateCall]:
        return [a for arg in self.args for a in arg.aggregates()]

    def window_properties(self) -> list[WindowProperty]:
        return [p for arg in self.args for p in arg.window_properties()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        from millstream.table.udf import registered_function

        return registered_function(self.function_name)(*self.args).resolve(names, types)


def row_interval(rows: int) -> Expression:
    """An interval of ``rows`` rows (over windows)."""
    return RowInterval(lit(rows))


UNBOUNDED_ROW = RowInterval(lit(-1))
UNBOUNDED_RANGE = _Interval(lit(-1), 1)
CURRENT_ROW = RowInterval(lit(0))
CURRENT_RANGE = _Interval(lit(0), 1)


# -- tree helpers for the planner ---------------------------------------------------------------------


def children(expression: Any) -> list[Expression]:
    """The expressions directly inside ``expression``."""
    out: list[Expression] = []
    for value in vars(expression).values():
        if isinstance(value, Expression):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            out.extend(v for v in value if isinstance(v, Expression))
    return out


def replaced(
    expression: Any,
    replace: Callable[[Any], Any],
    top_down: bool = False,
    stop: Callable[[Any], bool] | None = None,
) -> Any:
    """``expression`` with the nodes ``replace`` returns something for replaced (copies, the
    original is unchanged). Bottom-up, ``replace`` sees a node after its children; top-down it
    sees the original node and a replaced node's inside is not visited. Nodes ``stop`` accepts
    are kept whole."""
    if stop is not None and stop(expression):
        return expression
    if top_down:
        substitute = replace(expression)
        if substitute is not None:
            return substitute
    copied = None
    for name, value in vars(expression).items():
        if isinstance(value, Expression):
            new: Any = replaced(value, replace, top_down, stop)
        elif isinstance(value, (list, tuple)) and any(isinstance(v, Expression) for v in value):
            new = type(value)(
                replaced(v, replace, top_down, stop) if isinstance(v, Expression) else v for v in value
            )
        else:
            continue
        if new is not value:
            if copied is None:
                import copy

                copied = copy.copy(expression)
            setattr(copied, name, new)
    node = copied if copied is not None else expression
    if top_down:
        return node
    substitute = replace(node)
    return node if substitute is None else substitute


def fingerprint(expression: Any) -> Any:
    """A value equal for expressions of the same structure (``GROUP BY UPPER(s)`` matches
    ``SELECT UPPER(s)``); expressions holding functions or other objects compare by identity."""
    parts: list[Any] = [type(expression).__name__]
    for name, value in sorted(vars(expression).items()):
        if isinstance(value, Expression):
            parts.append((name, fingerprint(value)))
        elif isinstance(value, (list, tuple)):
            parts.append(
                (name, tuple(fingerprint(v) if isinstance(v, Expression) else _atom(v) for v in value))
            )
        else:
            parts.append((name, _atom(value)))
    return tuple(parts)


def _atom(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str, decimal.Decimal, DataType)):
        return (type(value).__name__, repr(value))
    return ("id", id(value))


def __getattr__(name: str) -> Any:
    """The functions of ``expression_functions`` (``pi``, ``array``, ``with_columns`` ...) under
    this module's name, as PyFlink's ``pyflink.table.expressions`` has them; imported when first
    asked for (that module builds on this one)."""
    from millstream.table import expression_functions

    if name in expression_functions.__all__:
        return getattr(expression_functions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
