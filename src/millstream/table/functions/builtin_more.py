"""Flink's built-in functions of strings, time, arrays, maps and JSON added after
``functions/builtin_scalars.py`` (same form: a ``FunctionDefinition`` each).

Each follows Flink 2.3's documented result for the sample in ``docs/sql_functions.jsonl``;
where Java and Python differ the Java behaviour is kept: ``TRIM`` family removes spaces only
(or the given characters), ``URL_ENCODE`` is ``java.net.URLEncoder`` (``+`` for a space,
``*`` kept, ``~`` escaped), ``CHR`` takes the code modulo 256. The temporal, string and JSON
functions are ``functions/temporal.py``, ``functions/strings.py`` and
``functions/json_functions.py``.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from typing import Any

from millstream.table.common.types import DataType, DataTypes
from millstream.table.functions.builtin_scalars import _BOOLEAN, _always, _first
from millstream.table.functions.definition import FunctionDefinition
from millstream.table.functions.like import similar

__all__ = ["MORE"]


def _rounded(direction: str) -> Callable[[Any], Any]:
    rounding = decimal.ROUND_FLOOR if direction == "floor" else decimal.ROUND_CEILING

    def rounded(value: Any) -> Any:
        if isinstance(value, decimal.Decimal):
            return value.to_integral_value(rounding=rounding)
        if isinstance(value, float) and math.isfinite(value):  # Java's: Infinity and NaN stay
            return float(math.floor(value) if direction == "floor" else math.ceil(value))
        return value

    return rounded


def _rounded_type(args: list[DataType]) -> DataType:
    t = args[0]
    if t.root == "DECIMAL":
        precision, _scale = (list(t.params) + [10, 0])[:2]
        return DataTypes.DECIMAL(precision, 0, t.is_nullable())  # Flink keeps the precision
    return t


def _sign(value: Any) -> Any:
    """SIGN as Flink's: an integer's -1, 0 or 1, a double's ``Math.signum`` (NaN and a zero
    are themselves: SIGN(NaN) is NaN, as PyFlink 2.3.0 gives it)."""
    if isinstance(value, float):
        return value if value == 0 or value != value else math.copysign(1.0, value)
    sign = (value > 0) - (value < 0)
    if isinstance(value, decimal.Decimal):
        return decimal.Decimal(sign).quantize(decimal.Decimal(1).scaleb(value.as_tuple().exponent))  # type: ignore[arg-type]
    return sign


def _sign_implementation(args: list[DataType], literals: list[Any]) -> Callable[[Any], Any]:
    """SIGN of a DECIMAL(p, s) in its type: 1 or -1 with s digits, which a DECIMAL without an
    integral digit cannot hold (PyFlink 2.3.0 fails SIGN of a DECIMAL(1, 1) 0.5 with "Cannot
    convert 1.0 to DECIMAL(1, 1) due to overflow")."""
    first = args[0]
    if first.root != "DECIMAL" or len(first.params) != 2:
        return _sign
    precision, scale = int(first.params[0]), int(first.params[1])
    quantum = decimal.Decimal(1).scaleb(-scale)

    def sign(value: decimal.Decimal) -> decimal.Decimal:
        result = decimal.Decimal((value > 0) - (value < 0)).quantize(quantum)
        if result and precision - scale < 1:
            raise ValueError(f"Cannot convert {result} to DECIMAL({precision}, {scale}) due to overflow")
        return result

    return sign


_STRINGS = _always(DataTypes.STRING())

MORE: list[FunctionDefinition] = [
    # strings
    FunctionDefinition("SIMILAR", similar, _BOOLEAN),  # x SIMILAR TO p [ESCAPE c]
    # numbers
    FunctionDefinition("FLOOR", _rounded("floor"), _rounded_type),
    FunctionDefinition("CEIL", _rounded("ceil"), _rounded_type),
    FunctionDefinition("SIGN", _sign, _first, bind=_sign_implementation),
    # time
    FunctionDefinition("CURRENT_DATABASE", lambda: "default_database", _always(DataTypes.STRING(False))),
    # arrays and maps
]
