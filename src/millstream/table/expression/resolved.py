"""Resolved expressions and Flink's typing rules for them.

A ``Compiled`` is what an expression tree (``expression/expression.py``) resolves to against a table's
columns: a Python function of one row (a tuple), its result's data type and the column name
it gets. This module holds what resolving needs and nothing of the tree: the types of
literals, arithmetic as Java computes it in the result's type (integers wrap in their width:
INT ``2147483647 + 1`` is ``-2147483648``; division and ``%`` truncate toward zero; ``%`` has
its divisor's type; FLOAT results are rounded to 32 bits), DECIMAL precision and scale (Flink's
``LogicalTypeMerging``; a result too wide for its precision is NULL), day-time intervals, CAST
(the rules are ``common/casts.py``'s), and logic in SQL's three-valued logic (NULL in, NULL
out; ``FALSE AND NULL`` is FALSE). Comparisons are ``expression/comparisons.py``'s.
"""

from __future__ import annotations

import datetime
import decimal
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.table.common.casts import (
    INTEGER_RANGES,
    cast_type_name,
    check_cast,
    converter,
    decimal_context,
    fit_decimal,
    to_float32,
    wrap,
)
from millstream.table.common.intervals import DAY_TIME, YEAR_MONTH, add_interval
from millstream.table.common.types import ArrayType, DataType, DataTypes, MapType

__all__ = [
    "APPROXIMATE",
    "BINARY_ROOTS",
    "CHARACTER_ROOTS",
    "COMPARISONS",
    "INTERVAL",
    "INTERVALS",
    "NUMERIC_ORDER",
    "Compiled",
    "aggregate_result_type",
    "arithmetic",
    "check_boolean",
    "common_type",
    "compile_cast",
    "compile_field_access",
    "compile_interval",
    "compile_logic",
    "compile_negate",
    "decimal_result_type",
    "in_width",
    "interval_type",
    "literal_type",
    "nullable_if_any",
]

NUMERIC_ORDER = ["TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE"]
INTEGRAL = {"TINYINT", "SMALLINT", "INT", "BIGINT"}
APPROXIMATE = {"FLOAT", "DOUBLE"}
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
    """The result type of arithmetic on the numbers ``a`` and ``b`` (NULL widens to the other),
    nullable when either is, as Flink's type inference: the wider of two exact numbers; an
    approximate one with an exact one; the first of two approximate ones (``FLOAT + DOUBLE`` is
    FLOAT, ``DOUBLE + FLOAT`` DOUBLE: Calcite's least restrictive type keeps the first of equal
    precision)."""
    ra, rb = a.root, b.root
    if ra == "NULL":
        return b
    if rb == "NULL":
        return a
    if ra not in NUMERIC_ORDER or rb not in NUMERIC_ORDER:
        raise TypeError(f"arithmetic needs numbers, got {ra} and {rb}")
    if ra in APPROXIMATE and rb in APPROXIMATE:
        result = a
    else:
        result = a if NUMERIC_ORDER.index(ra) >= NUMERIC_ORDER.index(rb) else b
    return result.nullable() if a.is_nullable() or b.is_nullable() else result.not_null()


CHARACTER_ROOTS = _CHARACTER = ("CHAR", "VARCHAR", "STRING")
BINARY_ROOTS = _BINARY = ("BINARY", "VARBINARY", "BYTES")
_MAX_LENGTH = 2**31 - 1


def _length(t: DataType) -> int:
    return _MAX_LENGTH if t.root in ("STRING", "BYTES") or not t.params else int(t.params[0])


def _common_pair(a: DataType, b: DataType) -> DataType | None:
    """Flink's ``LogicalTypeMerging`` of two non-NULL types (nullability aside), else None."""
    ra, rb = a.root, b.root
    if a == b or a.nullable() == b.nullable():
        return a
    strings = (
        (_CHARACTER, "CHAR", "VARCHAR", DataTypes.STRING),
        (_BINARY, "BINARY", "VARBINARY", DataTypes.BYTES),
    )
    for family, fixed, variable, unbounded in strings:
        if ra in family and rb in family:
            length = max(_length(a), _length(b))
            if ra == rb == fixed and _length(a) == _length(b):
                return a
            if length >= _MAX_LENGTH:
                return unbounded()
            return DataType(variable, True, length)
    if ra in NUMERIC_ORDER and rb in NUMERIC_ORDER:
        if ra in APPROXIMATE or rb in APPROXIMATE:  # DOUBLE with a DECIMAL, else the first approximate
            return DataTypes.DOUBLE() if "DOUBLE" in (ra, rb) or "DECIMAL" in (ra, rb) else DataTypes.FLOAT()
        if "DECIMAL" in (ra, rb):
            (pa, sa), (pb, sb) = _as_decimal(a) or (0, 0), _as_decimal(b) or (0, 0)
            whole = min(max(pa - sa, pb - sb), _MAX_PRECISION)
            scale = min(max(sa, sb), _MAX_PRECISION - whole)
            return DataTypes.DECIMAL(whole + scale, scale)
        return a if NUMERIC_ORDER.index(ra) >= NUMERIC_ORDER.index(rb) else b
    if ra in ("TIMESTAMP", "TIMESTAMP_LTZ") and rb in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        precision = max(int(a.params[0]) if a.params else 6, int(b.params[0]) if b.params else 6)
        return (DataTypes.TIMESTAMP_LTZ if "TIMESTAMP_LTZ" in (ra, rb) else DataTypes.TIMESTAMP)(precision)
    if ra == rb == "TIME":
        return DataTypes.TIME(max(int(a.params[0]) if a.params else 0, int(b.params[0]) if b.params else 0))
    return a if ra == rb else None


def _common_collection(a: ArrayType | MapType, b: DataType) -> DataType | None:
    """Two ARRAYs' (MAPs') common type: their elements' (keys' and values') common types, each
    nullable when either is (``ARRAY<CHAR(1) NOT NULL>`` and ``ARRAY<VARCHAR(3) NOT NULL>``:
    ``ARRAY<VARCHAR(3) NOT NULL>``)."""
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        element = common_type([a.element_type, b.element_type])
        return None if element is None else ArrayType(element)
    assert isinstance(a, MapType) and isinstance(b, MapType)
    key, value = common_type([a.key_type, b.key_type]), common_type([a.value_type, b.value_type])
    return None if key is None or value is None else MapType(key, value)


def common_type(types: list[DataType]) -> DataType | None:
    """The type the values of ``types`` share (CASE's branches, COALESCE's arguments ...), as
    Flink's ``LogicalTypeMerging.findCommonType``: the wider number (``DECIMAL(5, 2)`` and
    ``DECIMAL(10, 4)``: ``DECIMAL(10, 4)``), VARCHAR of the longer strings, the finer timestamp;
    nullable when any type is; NULL when all are NULL; None when they have none."""
    typed = [t for t in types if t.root != "NULL"]
    if not typed:
        return DataTypes.NULL()
    result: DataType | None = typed[0].nullable()
    for t in typed[1:]:
        if isinstance(result, (ArrayType, MapType)) and type(t) is type(result):
            # (_common_pair's == would ignore a MAP's key and value types)
            result = _common_collection(result, t)
        else:
            result = _common_pair(result, t.nullable()) if result is not None else None
    if result is None:
        return None
    return result.nullable() if any(t.is_nullable() for t in types) else result.not_null()


def nullable_if_any(t: DataType, *operands: DataType) -> DataType:
    """``t``, nullable when any operand is."""
    return t.nullable() if any(o.is_nullable() for o in operands) else t.not_null()


def java_div(a: Any, b: Any) -> Any:
    """Integer division truncating toward zero, as Java's (``/ by zero`` fails)."""
    if b == 0:
        raise ZeroDivisionError("/ by zero")
    quotient = abs(a) // abs(b)
    return -quotient if (a < 0) != (b < 0) else quotient


def java_mod(a: Any, b: Any) -> Any:
    """The remainder with the dividend's sign, as Java's (``/ by zero`` fails)."""
    if b == 0:
        raise ZeroDivisionError("/ by zero")
    remainder = abs(a) % abs(b)
    return -remainder if a < 0 else remainder


def java_divide_double(a: float, b: float) -> float:
    """``a / b`` on doubles, as Java's: by zero is an infinity or NaN."""
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


COMPARISONS = {
    "=": operator.eq,
    "<>": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}

_PYTHON_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
}


def integer_operation(op: str, root: str) -> Callable[[Any, Any], int]:
    """``op`` on integers of the result type ``root``, in its width as Java computes it
    (``2147483647 + 1`` on INT is ``-2147483648``; ``/`` truncates toward zero)."""
    low, high = INTEGER_RANGES[root]
    if op == "/":
        return lambda a, b: wrap(java_div(a, b), root)
    if op == "%":
        return java_mod
    python = _PYTHON_ARITHMETIC[op]

    def apply(a: int, b: int) -> int:
        value = python(a, b)
        return value if low <= value <= high else wrap(value, root)

    return apply


def approximate_operation(op: str, root: str) -> Callable[[Any, Any], float]:
    """``op`` on doubles (Java's: by zero is infinite or NaN), a FLOAT result rounded to 32 bits."""
    python = java_divide_double if op == "/" else _PYTHON_ARITHMETIC[op]
    if root == "FLOAT":
        return lambda a, b: to_float32(python(float(a), float(b)))
    return lambda a, b: python(float(a), float(b))


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
    numbers = all(t.root in NUMERIC_ORDER or t.root == "NULL" for t in (ta, tb))
    if not numbers or (op == "%" and (ta.root in APPROXIMATE or tb.root in APPROXIMATE)):
        form = "<EXACT_NUMERIC> % <EXACT_NUMERIC>" if op == "%" else f"<NUMERIC> {op} <NUMERIC>"
        raise TypeError(  # Calcite's first supported form, as PyFlink's message's first line
            f"Cannot apply '{op}' to arguments of type '<{cast_type_name(ta)}> {op} <{cast_type_name(tb)}>'. "
            f"Supported form(s): '{form}'"
        )
    decimal_result = decimal_arithmetic(op, ta, tb)
    if decimal_result is not None:
        return decimal_result
    integral = ta.root in INTEGRAL and tb.root in INTEGRAL
    if op == "%" and integral:  # the divisor's type, as Flink's MOD
        return nullable_if_any(tb, ta, tb), java_mod
    result = wider(ta, tb)
    if result.root in INTEGRAL:
        return result, integer_operation(op, result.root)
    if result.root in APPROXIMATE:
        return result, approximate_operation(op, result.root)
    return result, _PYTHON_ARITHMETIC.get(op, operator.truediv)


def negation(t: DataType) -> Callable[[Any], Any]:
    """Unary minus of a value of ``t`` (the same type: ``-CAST(-128 AS TINYINT)`` is -128)."""
    if t.root in INTEGRAL:
        root = t.root
        low = INTEGER_RANGES[root][0]
        return lambda v: v if v == low else -v
    if t.root == "FLOAT":
        return lambda v: -float(v)
    return operator.neg


def in_width(fn: Callable[..., Any], root: str) -> Callable[..., Any]:
    """``fn`` with its number held in the result type ``root`` as Java holds it: an integer
    wrapped to its width (``ABS(CAST(-128 AS TINYINT))`` is -128), a FLOAT rounded to 32 bits;
    ``fn`` itself for other types."""
    if root in INTEGER_RANGES:
        low, high = INTEGER_RANGES[root]

        def wrapped(*args: Any) -> Any:
            value = fn(*args)
            return value if value is None or low <= value <= high else wrap(value, root)

        return wrapped
    if root == "FLOAT":
        return lambda *args: None if (value := fn(*args)) is None else to_float32(value)
    return fn


# integer types as the DECIMALs they widen to in DECIMAL arithmetic (Flink's)
_INTEGER_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}
_MAX_PRECISION = 38
_MINIMUM_ADJUSTED_SCALE = 6


def _as_decimal(t: DataType) -> tuple[int, int] | None:
    if t.root == "DECIMAL":
        return int(t.params[0]), int(t.params[1])
    if t.root in _INTEGER_DIGITS:
        return _INTEGER_DIGITS[t.root], 0
    return None


def _bounded(precision: int, scale: int) -> tuple[int, int]:
    """Flink's ``adjustPrecisionScale``: at most 38 digits, keeping the integral digits and at
    least min(scale, 6) fraction digits (``DECIMAL(38, 18) * DECIMAL(38, 18)`` is
    ``DECIMAL(38, 6)``)."""
    if precision <= _MAX_PRECISION:
        return precision, scale
    integral = precision - scale
    return _MAX_PRECISION, max(_MAX_PRECISION - integral, min(scale, _MINIMUM_ADJUSTED_SCALE))


def decimal_result_type(op: str, ta: DataType, tb: DataType) -> tuple[int, int]:
    """Precision and scale of ``DECIMAL op DECIMAL`` (integers as DECIMAL(10, 0) ...), as
    Flink's ``LogicalTypeMerging``: + and - keep the larger scale, * adds scales, / gives
    scale max(6, s1 + p2 + 1), % the larger scale; * has p1 + p2 + 1 digits."""
    pa, sa = _as_decimal(ta) or (0, 0)
    pb, sb = _as_decimal(tb) or (0, 0)
    if op in ("+", "-"):
        scale = max(sa, sb)
        return _bounded(max(pa - sa, pb - sb) + scale + 1, scale)
    if op == "*":
        return _bounded(pa + pb + 1, sa + sb)
    if op == "/":
        scale = max(6, sa + pb + 1)
        return _bounded(pa - sa + sb + scale, scale)
    scale = max(sa, sb)  # %
    return _bounded(min(pa - sa, pb - sb) + scale, scale)


_DECIMAL_CONTEXT = decimal_context()
_DECIMAL_OPERATIONS: dict[str, Callable[[decimal.Decimal, decimal.Decimal], decimal.Decimal]] = {
    "+": _DECIMAL_CONTEXT.add,
    "-": _DECIMAL_CONTEXT.subtract,
    "*": _DECIMAL_CONTEXT.multiply,
    "/": _DECIMAL_CONTEXT.divide,
    "%": _DECIMAL_CONTEXT.remainder,  # the dividend's sign, as Java's
}


def decimal_operation(op: str, precision: int, scale: int) -> Callable[[Any, Any], decimal.Decimal | None]:
    """``op`` on decimals with a DECIMAL(precision, scale) result: rounded half up to the
    scale, NULL when it needs more digits (Flink's overflow), division by zero fails."""
    compute = _DECIMAL_OPERATIONS[op]

    def apply(a: Any, b: Any) -> decimal.Decimal | None:
        x = a if isinstance(a, decimal.Decimal) else decimal.Decimal(a)
        y = b if isinstance(b, decimal.Decimal) else decimal.Decimal(b)
        if op in ("/", "%") and y.is_zero():
            raise ZeroDivisionError("Division by zero")
        return fit_decimal(compute(x, y), precision, scale)

    return apply


def decimal_arithmetic(
    op: str, ta: DataType, tb: DataType
) -> tuple[DataType, Callable[[Any, Any], Any]] | None:
    """DECIMAL arithmetic (one operand DECIMAL, the other DECIMAL or an integer), DOUBLE with
    an approximate operand, else None."""
    if "DECIMAL" not in (ta.root, tb.root):
        return None
    if ta.root in APPROXIMATE or tb.root in APPROXIMATE:  # DECIMAL op FLOAT / DOUBLE: DOUBLE
        return nullable_if_any(DataTypes.DOUBLE(), ta, tb), approximate_operation(op, "DOUBLE")
    if _as_decimal(ta) is None or _as_decimal(tb) is None:
        return None
    precision, scale = decimal_result_type(op, ta, tb)
    result = nullable_if_any(DataTypes.DECIMAL(precision, scale), ta, tb)
    return result, never_null_if(decimal_operation(op, precision, scale), result)


def never_null_if(fn: Callable[..., Any], result: DataType) -> Callable[..., Any]:
    """``fn``, failing where it gives NULL (a DECIMAL overflow) if ``result`` is NOT NULL: Flink
    writes the NULL into the NOT NULL column, and its sink's not-null enforcer fails the job."""
    if result.is_nullable():
        return fn

    def apply(*args: Any) -> Any:
        value = fn(*args)
        if value is None:
            shown = ", ".join(map(str, args))
            reason = "Flink's overflow is NULL, and the column is NOT NULL"
            raise ArithmeticError(f"{shown} overflows {cast_type_name(result)}: {reason}")
        return value

    return apply


_SUMMABLE = {*NUMERIC_ORDER, INTERVAL, "NULL"}


def aggregate_result_type(
    function: str, operand_type: DataType, more: Callable[[str, DataType], DataType | None] | None = None
) -> DataType:
    """Flink's result type of the built-in aggregate ``function``: COUNT BIGINT NOT NULL; SUM,
    AVG, MIN and MAX the operand's type, nullable (SUM of a DECIMAL DECIMAL(38, s), AVG
    DECIMAL(38, max(6, s))); SUM and AVG of anything but numbers are refused as Flink's.
    ``more``: the types of the other built-ins (None for these)."""
    if function == "COUNT":
        return DataTypes.BIGINT(False)
    special = more(function, operand_type) if more is not None else None
    if special is not None:
        return special
    if function in ("SUM", "AVG") and operand_type.root not in _SUMMABLE:
        name = cast_type_name(operand_type)
        raise TypeError(
            f"Cannot apply '{function}' to arguments of type '{function}(<{name}>)'. "
            f"Supported form(s): '{function}(<NUMERIC>)'"
        )
    if operand_type.root == "DECIMAL" and function in ("SUM", "AVG"):
        scale = int(operand_type.params[1])
        return DataTypes.DECIMAL(38, scale if function == "SUM" else max(6, scale))
    return operand_type.nullable()


def compile_logic(op: str, compiled: list[Compiled]) -> Compiled:
    """AND / OR of ``compiled``, in three-valued logic; of BOOLEANs only, as Calcite's validator
    (``1 AND TRUE`` and a bare NULL are refused with its message)."""
    check_boolean(op, [c.data_type for c in compiled])
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


def check_boolean(op: str, types: list[DataType]) -> None:
    """Refuses operands of a logical operator that are not BOOLEAN, as Calcite's validator:
    ``Illegal use of 'NULL'`` for a NULL without a type, ``Cannot apply 'AND' to arguments of
    type '<INTEGER> AND <BOOLEAN>'`` for another type."""
    if any(t.root == "NULL" for t in types):
        raise TypeError("Illegal use of 'NULL'")
    if any(t.root != "BOOLEAN" for t in types):
        shown = f" {op} ".join(f"<{cast_type_name(t)}>" for t in types) if len(types) > 1 else ""
        shown = shown or f"{op} <{cast_type_name(types[0])}>"
        forms = f"<BOOLEAN> {op} <BOOLEAN>" if len(types) > 1 else f"{op} <BOOLEAN>"
        raise TypeError(f"Cannot apply '{op}' to arguments of type '{shown}'. Supported form(s): '{forms}'")


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


def cast_result_type(source: DataType, target: DataType, safe: bool) -> DataType:
    """The type of ``CAST(source AS target)``: the target, NOT NULL when the source is (TRY_CAST:
    nullable); TIME keeps at most 3 fraction digits (Calcite's ``TIME(9)`` is ``TIME(3)``)."""
    if target.root == "TIME" and target.params and int(target.params[0]) > 3:
        target = DataTypes.TIME(3)
    if safe or source.is_nullable():
        return target.nullable()
    return target.not_null()


def compile_cast(inner: Compiled, data_type: DataType, safe: bool) -> Compiled:
    """CAST ``inner`` to ``data_type`` as Flink's cast rules (``common/casts.py``): a value that
    cannot convert fails the job, or is NULL for TRY_CAST (``safe``); a cast SQL does not allow
    fails here, while planning."""
    fn, source = inner.fn, inner.data_type
    target = cast_result_type(source, data_type, safe)
    check_cast(source, target)
    strict = never_null_if(converter(source, target), target)
    if safe:

        def convert(value: Any) -> Any:
            try:
                return strict(value)
            except (ValueError, TypeError, ArithmeticError):
                return None

    else:
        convert = strict
    return Compiled(lambda row: None if (v := fn(row)) is None else convert(v), target, None)


def compile_negate(inner: Compiled) -> Compiled:
    """``-inner``, of its type (Java's: the minimum of an integer type is its own negation)."""
    fn, negate = inner.fn, negation(inner.data_type)
    root = inner.data_type.root
    if root not in NUMERIC_ORDER and root not in (INTERVAL, "NULL"):
        raise TypeError(
            f"Cannot apply '-' to arguments of type '-<{cast_type_name(inner.data_type)}>'. "
            "Supported form(s): '-<NUMERIC>'"  # Calcite's first form, as PyFlink's message's first line
        )
    return Compiled(lambda row: None if (v := fn(row)) is None else negate(v), inner.data_type, None)
