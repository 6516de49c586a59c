"""More of Flink's built-in scalar functions: math, strings, hashing, time and collections.

``SCALARS`` holds a ``FunctionDefinition`` each; ``functions/builtins.py`` registers them beside the
first ones. Semantics are Flink's (the notes name where Python's own would differ): the math
functions give Java's ``Math`` results where Python's raise (``LN(0)`` -Infinity, ``SQRT(-1)``
and ``ASIN(2)`` NaN, ``EXP(1000)`` Infinity), ``RAND(seed)`` is Java's ``java.util.Random`` sequence,
``LOG(b, x)`` the logarithm of ``x`` in base ``b``, ``LOCATE`` / ``INSTR`` 1-based with 0 for
not found, ``DAYOFWEEK`` 1 for Sunday, hashes as lowercase hex strings, ``CURRENT_TIMESTAMP``
a TIMESTAMP_LTZ(3) of the query's start in BATCH mode and read per record in STREAMING mode
(``functions/query_time.py``: the implementations here are the per-record ones),
``CURRENT_ROW_TIMESTAMP()`` and ``PROCTIME()`` read per record in both.
"""

from __future__ import annotations

import datetime
import decimal
import math
import uuid
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from millstream.common.types import Row
from millstream.table.common.casts import cast_type_name, converter
from millstream.table.common.java_numbers import parse_java_double
from millstream.table.common.types import DataType, DataTypes
from millstream.table.expression.calls import converts
from millstream.table.expression.resolved import common_type
from millstream.table.functions import java_math
from millstream.table.functions.definition import (
    NUMBERS,
    FunctionDefinition,
    TypeRule,
    ieee,
    math_function,
)

__all__ = ["SCALARS", "JavaRandom", "converted"]


def _nullable_if(result: DataType) -> TypeRule:
    """``result``, nullable when an argument is."""

    def rule(args: list[DataType]) -> DataType:
        return result.nullable() if any(a.is_nullable() for a in args) else result.not_null()

    return rule


_DOUBLE = _nullable_if(DataTypes.DOUBLE())
_STRING = _nullable_if(DataTypes.STRING())
_INT = _nullable_if(DataTypes.INT())
_BIGINT = _nullable_if(DataTypes.BIGINT())
_BOOLEAN = _nullable_if(DataTypes.BOOLEAN())


def _always(result: DataType) -> TypeRule:
    return lambda args: result


def _first(args: list[DataType]) -> DataType:
    return args[0]


class JavaRandom:
    """``java.util.Random``: the same 48-bit linear congruential sequence for the same seed,
    so ``RAND(seed)`` and ``RAND_INTEGER(seed, n)`` give what Flink's give."""

    _MULTIPLIER, _ADDEND, _MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1

    def __init__(self, seed: int | None = None) -> None:
        if seed is None:
            seed = uuid.uuid4().int
        self._seed = (seed ^ self._MULTIPLIER) & self._MASK

    def _next(self, bits: int) -> int:
        self._seed = (self._seed * self._MULTIPLIER + self._ADDEND) & self._MASK
        value = self._seed >> (48 - bits)
        return value - (1 << bits) if value >= 1 << (bits - 1) else value  # Java's int

    def next_double(self) -> float:
        high = self._next(26) & ((1 << 26) - 1)
        low = self._next(27) & ((1 << 27) - 1)
        return ((high << 27) + low) * (1.0 / (1 << 53))

    def next_int(self, bound: int) -> int:
        if bound <= 0:
            raise ValueError("bound must be positive")
        r = self._next(31) & 0x7FFFFFFF
        m = bound - 1
        if bound & m == 0:
            return (bound * r) >> 31
        u = r
        r = u % bound
        while u - r + m >= 1 << 31:  # Java's rejection of the top, uneven range
            u = self._next(31) & 0x7FFFFFFF
            r = u % bound
        return r


def _rand() -> Callable[..., float]:
    """RAND() / RAND(seed): one generator per function instance (per subtask, as Flink's
    generated code holds one), seeded on the first call."""
    holder: list[JavaRandom] = []

    def rand(seed: int | None = None) -> float:
        if not holder:
            holder.append(JavaRandom(seed))
        return holder[0].next_double()

    return rand


def _rand_integer() -> Callable[..., int]:
    holder: list[JavaRandom] = []

    def rand_integer(*args: int) -> int:
        seed, bound = (None, args[0]) if len(args) == 1 else (args[0], args[1])
        if not holder:
            holder.append(JavaRandom(seed))
        return holder[0].next_int(bound)

    return rand_integer


_LN = ieee(math.log, "log")


def _log(*args: float) -> float | None:
    """LOG(x) is ln(x); LOG(b, x) the logarithm of x in base b (Java's ``Math.log(x) /
    Math.log(b)``: IEEE division, so base 1 gives Infinity or NaN)."""
    if len(args) == 1:
        return _LN(args[0])
    base, value = args
    numerator, denominator = _LN(value), _LN(base)
    if denominator == 0:
        return math.nan if numerator == 0 or math.isnan(numerator) else math.copysign(math.inf, numerator)
    return numerator / denominator


def _cot(x: float) -> float:
    """Java's ``1.0 / Math.tan(x)``: Infinity at 0 (with the sign of zero)."""
    tangent = ieee(math.tan, "tan")(x)
    return math.copysign(math.inf, tangent) if tangent == 0 else 1.0 / tangent


def _log2(value: float) -> float:
    """LOG2(x) as Flink's ``SqlFunctionUtils.log2``: ``Math.log(x) / Math.log(2)``, whose last
    digit Python's exact ``log2`` may not share (LOG2(1e308) is 1023.1538532253077, PyFlink
    2.3.0's, where ``math.log2`` gives 1023.1538532253076)."""
    return _LN(value) / _LN2


_LN2 = math.log(2.0)


def _log2_arrow(values: Any) -> Any:
    """LOG2 over the column as DOUBLE: the same IEEE division of Arrow's ``ln``."""
    return pc.divide(pc.ln(pc.cast(values, pa.float64())), pa.scalar(_LN2, pa.float64()))


def _truncate(value: Any, places: int = 0) -> Any:
    """TRUNCATE(x, n): toward zero at ``n`` places after the point (before it when negative),
    a double through Java's ``BigDecimal`` as Flink's: no negative zero (TRUNCATE(-0.5e0) is
    0.0), and NaN or an infinity fails as ROUND's."""
    if isinstance(value, int) and places >= 0:
        return value
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(
            f"Character {'N' if value != value else 'I'} is neither a decimal digit number, decimal point, "
            'nor "e" notation exponential mark.'
        )
    exact = decimal.Decimal(repr(value)) if isinstance(value, float) else decimal.Decimal(value)
    cut = exact.scaleb(places).to_integral_value(rounding=decimal.ROUND_DOWN).scaleb(-places)
    if isinstance(value, float):
        return float(cut) + 0.0
    if isinstance(value, int):
        return int(cut)
    return cut


def _is_decimal(text: str | None) -> bool:
    """Flink's IS_DECIMAL: whether Java's ``Double.parseDouble`` reads the text ('NaN' and
    '1.5f' too); FALSE for NULL."""
    if text is None:
        return False
    try:
        parse_java_double(text)
    except ValueError:
        return False
    return True


def converted(source: DataType, target: DataType) -> Callable[[Any], Any]:
    """A value of ``source`` as the same value of ``target`` (a branch of IF or CASE, an
    argument of COALESCE, in their common type: IF(FALSE, 1, 2.5e0) is the DOUBLE 2.5)."""
    if not converts(source, target):
        return _same
    convert = converter(source.not_null(), target.not_null())
    return lambda value: None if value is None else convert(value)


def _same(value: Any) -> Any:
    return value


def _if_type(args: list[DataType]) -> DataType:
    """IF(c, a, b): the common type of ``a`` and ``b``, nullable when any of the three is
    (PyFlink 2.3.0 types IF(CAST(NULL AS BOOLEAN), 1, 2) INT), for a BOOLEAN ``c``; anything
    else is refused, with Calcite's message."""
    common = common_type(args[1:])
    if args[0].root not in ("BOOLEAN", "NULL") or common is None:
        shown = ", ".join(f"<{cast_type_name(a)}>" for a in args)
        raise TypeError(
            f"Cannot apply 'IF' to arguments of type 'IF({shown})'. "
            "Supported form(s): 'IF(<ANY_TYPE>, <NUMERIC_TYPE>, <NUMERIC_TYPE>)'"
        )
    return common.nullable() if args[0].is_nullable() else common


def _if_implementation(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    common = _if_type(args)
    then, otherwise = converted(args[1], common), converted(args[2], common)
    return lambda condition, a, b: then(a) if condition is True else otherwise(b)


def _now_ltz() -> datetime.datetime:
    """Now as a TIMESTAMP_LTZ(3) value: the local wall clock, as the row path holds them
    (``timestamps.from_epoch_millis``)."""
    return _local_now()


def _local_now() -> datetime.datetime:
    now = datetime.datetime.now()
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def _row(values: tuple[Any, ...]) -> Any:
    row = Row(*values)
    row.set_field_names([f"EXPR${i}" for i in range(len(values))])
    return row


def _row_type(args: list[DataType]) -> DataType:
    """ROW(a, b)'s type: Calcite's anonymous row, its fields ``EXPR$0``, ``EXPR$1`` ... (the
    Table API's ``row()`` names them ``f0``, ``f1`` ...: ``api/expression_functions.py``)."""
    return DataTypes.ROW([DataTypes.FIELD(f"EXPR${i}", t) for i, t in enumerate(args)], False)


SCALARS: list[FunctionDefinition] = [
    # math
    math_function("SIN", math.sin, "sin", "sin", _DOUBLE),
    math_function("COS", math.cos, "cos", "cos", _DOUBLE),
    math_function("TAN", math.tan, "tan", "tan", _DOUBLE),
    FunctionDefinition("COT", _cot, _DOUBLE),
    # Java's StrictMath (fdlibm) to the last bit: java_math.py (on rows only: Arrow's are libm's)
    FunctionDefinition("ASIN", lambda x: java_math.asin(float(x)), _DOUBLE),
    FunctionDefinition("ACOS", lambda x: java_math.acos(float(x)), _DOUBLE),
    FunctionDefinition("ATAN", lambda x: java_math.atan(float(x)), _DOUBLE),
    FunctionDefinition("ATAN2", lambda y, x: java_math.atan2(float(y), float(x)), _DOUBLE),
    FunctionDefinition("SINH", lambda x: java_math.sinh(float(x)), _DOUBLE),
    FunctionDefinition("COSH", lambda x: java_math.cosh(float(x)), _DOUBLE),
    FunctionDefinition("TANH", lambda x: java_math.tanh(float(x)), _DOUBLE),
    FunctionDefinition("DEGREES", math.degrees, _DOUBLE),
    FunctionDefinition("RADIANS", math.radians, _DOUBLE),
    FunctionDefinition("LOG", _log, _DOUBLE),
    FunctionDefinition("LOG2", _log2, _DOUBLE, arrow=_log2_arrow, arrow_args=NUMBERS),
    FunctionDefinition("PI", lambda: math.pi, _always(DataTypes.DOUBLE(False))),
    FunctionDefinition("E", lambda: math.e, _always(DataTypes.DOUBLE(False))),
    FunctionDefinition("TRUNCATE", _truncate, _first),
    # strings
    FunctionDefinition("UUID", lambda: str(uuid.uuid4()), _always(DataTypes.STRING(False))),
    # IS_DIGIT / IS_ALPHA / IS_DECIMAL of NULL are FALSE, as Flink's SqlFunctionUtils give
    FunctionDefinition(
        "IS_DIGIT",
        lambda text: text is not None and text != "" and text.isdigit(),
        _always(DataTypes.BOOLEAN(False)),
        null_aware=True,
    ),
    FunctionDefinition(
        "IS_ALPHA",
        lambda text: text is not None and text != "" and text.isalpha(),
        _always(DataTypes.BOOLEAN(False)),
        null_aware=True,
    ),
    FunctionDefinition("IS_DECIMAL", _is_decimal, _always(DataTypes.BOOLEAN(False)), null_aware=True),
    # time
    FunctionDefinition("CURRENT_TIMESTAMP", _now_ltz, _always(DataTypes.TIMESTAMP_LTZ(3, False))),
    FunctionDefinition("PROCTIME", _now_ltz, _always(DataTypes.TIMESTAMP_LTZ(3, False))),
    FunctionDefinition("NOW", _now_ltz, _always(DataTypes.TIMESTAMP_LTZ(3, False))),
    FunctionDefinition("CURRENT_ROW_TIMESTAMP", _now_ltz, _always(DataTypes.TIMESTAMP_LTZ(3, False))),
    FunctionDefinition("LOCALTIMESTAMP", _local_now, _always(DataTypes.TIMESTAMP(3, False))),
    FunctionDefinition("CURRENT_DATE", lambda: datetime.date.today(), _always(DataTypes.DATE(False))),
    FunctionDefinition("CURRENT_TIME", lambda: _local_now().time(), _always(DataTypes.TIME(0, False))),
    # conditions and collections
    FunctionDefinition(
        "IF",
        lambda condition, a, b: a if condition is True else b,
        _if_type,
        null_aware=True,
        bind=_if_implementation,
    ),
    FunctionDefinition("ROW", lambda *values: _row(values), _row_type, null_aware=True),
]

# functions whose implementation holds state (a random generator): a fresh one per call site
STATEFUL = {"RAND": _rand, "RAND_INTEGER": _rand_integer}
STATEFUL_TYPES: dict[str, TypeRule] = {  # NULL of a NULL seed or bound (PyFlink 2.3.0: RAND(NULL) DOUBLE)
    "RAND": _nullable_if(DataTypes.DOUBLE()),
    "RAND_INTEGER": _nullable_if(DataTypes.INT()),
}
