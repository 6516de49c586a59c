"""Resolved expressions and Flink's typing rules for them.

A ``Compiled`` is what an expression tree (``expression/expression.py``) resolves to against a table's
columns: a Python function of one row (a tuple), its result's data type and the column name
it gets. This module holds what resolving needs and nothing of the tree: the types of
literals, arithmetic's widening (integer division and ``%`` truncate toward zero, as Java's;
``%`` has its divisor's type), DECIMAL precision and scale (Flink's ``LogicalTypeMerging``),
day-time intervals, CAST conversions, and comparisons and logic in SQL's three-valued logic
(NULL in, NULL out; ``FALSE AND NULL`` is FALSE).
"""

from __future__ import annotations

import datetime
import decimal
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.table.common.intervals import DAY_TIME, YEAR_MONTH, add_interval
from millstream.table.common.types import DataType, DataTypes

__all__ = [
    "COMPARISONS",
    "INTERVAL",
    "Compiled",
    "compile_binary",
    "compile_cast",
    "compile_field_access",
    "compile_interval",
    "compile_logic",
    "decimal_result_type",
    "interval_type",
    "literal_type",
    "nullable_if_any",
]

NUMERIC_ORDER = ["TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE"]
INTEGRAL = {"TINYINT", "SMALLINT", "INT", "BIGINT"}
TEMPORAL = ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE")
INTERVAL = DAY_TIME
INTERVALS = {YEAR_MONTH, DAY_TIME}


@dataclass(frozen=True)
class Compiled:
    """A resolved expression: ``fn(row)``, its type and the name of its column."""

    fn: Callable[[tuple[Any, ...]], Any]
    data_type: DataType
    name: str | None  # None: unnamed (the planner names it)


def literal_type(value: Any) -> DataType:
    """Flink's type of a Python literal: NOT NULL, ``7`` INT, ``'a'`` CHAR(1) ..."""
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


def interval_type(nullable: bool = False) -> DataType:
    """The type of a day-time interval (held as a ``datetime.timedelta``)."""
    return DataType(INTERVAL, nullable, 3)


def wider(a: DataType, b: DataType) -> DataType:
    """The wider numeric type of ``a`` and ``b`` (NULL widens to the other), nullable when
    either is."""
    ra, rb = a.root, b.root
    if ra == "NULL":
        return b
    if rb == "NULL":
        return a
    if ra not in NUMERIC_ORDER or rb not in NUMERIC_ORDER:
        raise TypeError(f"arithmetic needs numbers, got {ra} and {rb}")
    result = a if NUMERIC_ORDER.index(ra) >= NUMERIC_ORDER.index(rb) else b
    return result.nullable() if a.is_nullable() or b.is_nullable() else result.not_null()


def nullable_if_any(t: DataType, *operands: DataType) -> DataType:
    """``t``, nullable when any operand is."""
    return t.nullable() if any(o.is_nullable() for o in operands) else t.not_null()


def java_div(a: Any, b: Any) -> Any:
    """Integer division truncating toward zero, as Java's."""
    quotient = abs(a) // abs(b)
    return -quotient if (a < 0) != (b < 0) else quotient


def java_mod(a: Any, b: Any) -> Any:
    """The remainder with the dividend's sign, as Java's."""
    remainder = abs(a) % abs(b)
    return -remainder if a < 0 else remainder


COMPARISONS = {
    "=": operator.eq,
    "<>": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def interval_arithmetic(
    op: str, ta: DataType, tb: DataType
) -> tuple[DataType, Callable[[Any, Any], Any]] | None:
    """``ta op tb`` when an operand is an interval (None when neither is), as Flink's: a date,
    time or timestamp plus or minus an interval keeps its type (``common/intervals.py``: months
    clamp the day, a DATE moves by whole days), intervals of a kind add and subtract, an
    interval times an integer is an interval; anything else is refused."""
    ra, rb = ta.root, tb.root
    if ra not in INTERVALS and rb not in INTERVALS:
        return None
    moved = (*TEMPORAL, "TIME")
    if op in ("+", "-") and ra == rb:
        return nullable_if_any(ta, ta, tb), (operator.add if op == "+" else operator.sub)
    if op in ("+", "-") and ra in ("TIMESTAMP", "TIMESTAMP_LTZ") and rb == DAY_TIME:  # exact, and hot
        return nullable_if_any(ta, ta, tb), (operator.add if op == "+" else operator.sub)
    if op in ("+", "-") and ra in moved and rb in INTERVALS:
        sign = 1 if op == "+" else -1
        return nullable_if_any(ta, ta, tb), lambda a, b: add_interval(a, b * sign, rb)
    if op == "+" and ra in INTERVALS and rb in moved:
        return nullable_if_any(tb, ta, tb), lambda a, b: add_interval(b, a, ra)
    if op == "*" and {ra, rb} & INTERVALS and {ra, rb} & INTEGRAL:
        return nullable_if_any(ta if ra in INTERVALS else tb, ta, tb), operator.mul
    raise TypeError(f"Cannot apply '{op}' to arguments of type '<{ta!r}> {op} <{tb!r}>'")


def arithmetic(op: str, ta: DataType, tb: DataType) -> tuple[DataType, Callable[[Any, Any], Any]]:
    """The result type and the function of ``ta op tb`` for + - * / %."""
    interval_result = interval_arithmetic(op, ta, tb)
    if interval_result is not None:
        return interval_result
    integral = ta.root in INTEGRAL and tb.root in INTEGRAL
    decimal_result = decimal_arithmetic(op, ta, tb)
    if decimal_result is not None:
        return decimal_result
    if op == "%":
        return (nullable_if_any(tb, ta, tb) if integral else wider(ta, tb)), (
            java_mod if integral else lambda a, b: a % b
        )
    result = wider(ta, tb)
    if result.root in ("DOUBLE", "FLOAT") and "DECIMAL" in (ta.root, tb.root):  # DECIMAL op DOUBLE: DOUBLE
        python_op = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}[op]
        return result, lambda a, b: python_op(float(a), float(b))
    if op == "/":
        return result, (java_div if integral else operator.truediv)
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


def decimal_arithmetic(
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
    return nullable_if_any(result, ta, tb), apply


CONVERSIONS: dict[str, Callable[[Any], Any]] = {
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


def decimal_cast(precision: int, scale: int) -> Callable[[Any], decimal.Decimal]:
    """CAST to DECIMAL(precision, scale), as Flink's: rounded half up to ``scale`` places
    (``CAST(2.55 AS DECIMAL(5, 1))`` is 2.6, ``CAST(1 AS DECIMAL(11, 1))`` 1.0); a value with
    more than ``precision - scale`` digits before the point fails (TRY_CAST: NULL)."""
    quantum = decimal.Decimal(1).scaleb(-scale)

    def convert(value: Any) -> decimal.Decimal:
        exact = decimal.Decimal(str(value).strip() if isinstance(value, str) else str(value))
        rounded = exact.quantize(quantum, rounding=decimal.ROUND_HALF_UP)
        if rounded != 0 and rounded.adjusted() + 1 > precision - scale:
            raise ArithmeticError(f"{value} does not fit DECIMAL({precision}, {scale})")
        return rounded

    return convert


def compile_binary(op: str, left: Compiled, right: Compiled) -> Compiled:
    """``left op right``: a comparison (BOOLEAN) or arithmetic; NULL if either side is."""
    fa, fb = left.fn, right.fn
    ta, tb = left.data_type, right.data_type
    if op in COMPARISONS:
        result_type = nullable_if_any(DataTypes.BOOLEAN(), ta, tb)
        func: Callable[[Any, Any], Any] = COMPARISONS[op]
    else:
        result_type, func = arithmetic(op, ta, tb)

    def apply(row: tuple[Any, ...]) -> Any:
        a = fa(row)
        if a is None:
            return None
        b = fb(row)
        return None if b is None else func(a, b)

    return Compiled(apply, result_type, None)


def compile_logic(op: str, compiled: list[Compiled]) -> Compiled:
    """AND / OR of ``compiled``, in three-valued logic."""
    fns = [c.fn for c in compiled]
    deciding = op == "OR"  # OR: one TRUE decides; AND: one FALSE decides

    def apply(row: tuple[Any, ...]) -> Any:
        unknown = False
        for fn in fns:
            value = fn(row)
            if value is None:
                unknown = True
            elif bool(value) is deciding:
                return deciding
        return None if unknown else not deciding

    return Compiled(apply, nullable_if_any(DataTypes.BOOLEAN(), *(c.data_type for c in compiled)), None)


def compile_interval(inner: Compiled, unit_ms: int) -> Compiled:
    """A day-time interval of ``inner`` units of ``unit_ms`` ms."""
    fn = inner.fn
    return Compiled(
        lambda row: None if (v := fn(row)) is None else datetime.timedelta(milliseconds=v * unit_ms),
        interval_type(inner.data_type.is_nullable()),
        None,
    )


def compile_field_access(inner: Compiled, field: str | int, sql_name: bool, described: str) -> Compiled:
    """Field ``field`` (a name, or a 1-based position) of the ROW value ``inner`` (``described``
    in errors): the field's type, made nullable when the row may be NULL. Named ``row$field``,
    as Flink's Table API names it, or ``field`` (``sql_name``) as its SQL does."""
    row_type = inner.data_type
    fields = getattr(row_type, "fields", None)
    if row_type.root != "ROW" or fields is None:
        raise ValueError(f"Cannot access field '{field}' of {described}: {row_type!r} is not a ROW")
    if isinstance(field, int):
        if not 1 <= field <= len(fields):
            raise ValueError(f"Field index {field} is out of range for {row_type!r}")
        index = field - 1
    else:
        matches = [i for i, f in enumerate(fields) if f.name == field]
        if not matches:
            raise ValueError(
                f"Cannot resolve field [{field}] of {described}, "
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
    name = field_name if sql_name or inner.name is None else f"{inner.name}${field_name}"
    return Compiled(get, field_type, name)


def compile_cast(inner: Compiled, data_type: DataType, safe: bool) -> Compiled:
    """CAST ``inner`` to ``data_type`` (a value that cannot convert fails the job), or TRY_CAST
    (``safe``: it is NULL)."""
    from millstream.table.common.printing import format_value

    fn, source = inner.fn, inner.data_type
    root = data_type.root
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE", "TIME"):
        from millstream.table.functions.builtins import temporal_cast

        convert: Callable[[Any], Any] = temporal_cast(source, data_type)
    elif root in ("STRING", "VARCHAR", "CHAR"):
        convert = lambda v: format_value(source, v)  # noqa: E731
    elif root in INTERVALS and source.root in NUMERIC_ORDER:  # the number is the milliseconds or months
        convert = int if root == YEAR_MONTH else lambda v: datetime.timedelta(milliseconds=int(v))
    elif root in ("TINYINT", "SMALLINT", "INT", "BIGINT") and isinstance(source.root, str):
        convert = (lambda v: int(str(v).strip())) if source.root in ("STRING", "VARCHAR", "CHAR") else int
    elif root == "DECIMAL" and len(data_type.params) == 2:
        convert = decimal_cast(int(data_type.params[0]), int(data_type.params[1]))
    else:
        convert = CONVERSIONS.get(root, lambda v: v)
    if safe:
        strict = convert

        def convert(value: Any) -> Any:
            try:
                return strict(value)
            except (ValueError, TypeError, ArithmeticError):
                return None

        return Compiled(
            lambda row: None if (v := fn(row)) is None else convert(v), data_type.nullable(), None
        )
    target = data_type if source.is_nullable() else data_type.not_null()
    return Compiled(lambda row: None if (v := fn(row)) is None else convert(v), target, None)
