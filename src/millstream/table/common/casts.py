"""CAST as Flink's cast rules (flink-table-planner's ``functions/casting/*CastRule``), one place
for every evaluator: the row closures, the generated code and the Arrow kernels all take their
conversions from here, and printing a value is its cast to STRING.

* ``check_cast(source, target)``: whether SQL allows the cast (Flink's ``LogicalTypeCasts`` as
  Calcite's validator applies it), else a ``CastError`` with Flink's message at planning;
* ``converter(source, target)``: the function of a non-NULL value, raising ``CastError`` where
  Flink's CAST fails (``TRY_CAST`` makes that NULL) and returning None where Flink's CAST gives
  NULL (a number too wide for its DECIMAL);
* ``to_string(t, value)``: ``CAST(value AS STRING)`` (``printing=True``: the cell text of
  ``TableResult.print()``, which differs for bytes: ``x'0102'``);
* the Java arithmetic the casts and operators share is ``common/java_numbers.py``'s (``wrap``,
  ``to_float32``, Java's ``Double.toString``: re-exported here), the dates' and times' text
  ``common/datetime_text.py``'s.

Values are held as PyFlink hands them to Python: ``int`` (TINYINT ... BIGINT), ``float``,
``Decimal``, ``bool``, ``str``, ``bytes``, ``date``, ``time``, ``datetime`` (TIMESTAMP, and
TIMESTAMP_LTZ as the session zone's wall clock), ``timedelta`` (day-time intervals), ``list``,
``dict`` and ``Row``.
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
from collections.abc import Callable
from typing import Any

from millstream.common.types import Row
from millstream.table.common.datetime_text import (
    parse_date,
    parse_time,
    parse_timestamp,
    time_text,
    timestamp_text,
)
from millstream.table.common.intervals import DAY_TIME, YEAR_MONTH, format_day_time, format_year_month
from millstream.table.common.java_numbers import (
    INTEGER_BITS,
    INTEGER_RANGES,
    double_to_integer,
    format_java_double,
    format_java_float,
    parse_java_double,
    parse_java_integer,
    to_float32,
    wrap,
)
from millstream.table.common.timestamps import nano_of_second, with_nano_of_second
from millstream.table.common.types import DataType

__all__ = [
    "INTEGER_RANGES",
    "CastError",
    "UncheckedCastError",
    "cast_type_name",
    "check_cast",
    "converter",
    "decimal_context",
    "fit_decimal",
    "format_java_double",
    "format_java_float",
    "supports_cast",
    "to_float32",
    "to_string",
    "wrap",
]

INTEGRAL = ("TINYINT", "SMALLINT", "INT", "BIGINT")
APPROXIMATE = ("FLOAT", "DOUBLE")
NUMERIC = (*INTEGRAL, "DECIMAL", *APPROXIMATE)
CHARACTER = ("CHAR", "VARCHAR", "STRING")
BINARY = ("BINARY", "VARBINARY", "BYTES")
TIMESTAMPS = ("TIMESTAMP", "TIMESTAMP_LTZ")
CONSTRUCTED = ("ARRAY", "MAP", "ROW", "MULTISET")
INTERVALS = (YEAR_MONTH, DAY_TIME)
MAX_PRECISION = 38
_MAX_LENGTH = 2**31 - 1


class CastError(ValueError):
    """A value, or a pair of types, that CAST cannot convert (Flink raises; TRY_CAST gives NULL
    for a value)."""


class UncheckedCastError(RuntimeError):
    """A value a cast rule Flink deems infallible cannot convert (a NaN to DECIMAL), or a cast
    its code generator cannot make (a string to an ARRAY): CAST and TRY_CAST both fail."""


def decimal_context(precision: int = 2 * MAX_PRECISION + 4) -> decimal.Context:
    """A decimal context wide enough for DECIMAL(38, s) arithmetic and its exact printing
    (Python's default context keeps 28 digits)."""
    return decimal.Context(prec=precision, rounding=decimal.ROUND_HALF_UP, Emax=999_999, Emin=-999_999)


_CONTEXT = decimal_context()


# -- DECIMAL ---------------------------------------------------------------------------------------


def fit_decimal(value: decimal.Decimal, precision: int, scale: int) -> decimal.Decimal | None:
    """``value`` rounded half up to ``scale`` places, or None when it needs more than
    ``precision`` digits (Flink's ``DecimalData.fromBigDecimal``: an overflow is NULL)."""
    rounded = value.quantize(
        decimal.Decimal(1).scaleb(-scale), rounding=decimal.ROUND_HALF_UP, context=_CONTEXT
    )
    if rounded.is_zero():
        return rounded.copy_abs()
    if rounded.adjusted() + 1 > precision - scale:
        return None
    return rounded


def _decimal_parser(precision: int, scale: int) -> Callable[[str], decimal.Decimal]:
    """Flink's ``BinaryStringDataUtil.toDecimal``: spaces, tabs and newlines trimmed, Java's
    BigDecimal syntax; an invalid or too wide string fails ('Overflow')."""

    def parse(text: str) -> decimal.Decimal:
        trimmed = text.strip(" \t\n")
        try:
            if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", trimmed):
                raise decimal.InvalidOperation
            fitted = fit_decimal(decimal.Decimal(trimmed), precision, scale)
        except decimal.InvalidOperation:
            fitted = None
        if fitted is None:
            raise CastError(f"For input string: '{text}'. Overflow.")
        return fitted

    return parse


def _double_to_decimal(precision: int, scale: int) -> Callable[[float], decimal.Decimal | None]:
    """A double (its Java shortest digits, as ``BigDecimal.valueOf``) to DECIMAL; NaN and
    infinities fail as Java's BigDecimal does."""

    def convert(value: float) -> decimal.Decimal | None:
        if math.isnan(value) or math.isinf(value):
            raise UncheckedCastError(
                f"Character {'N' if math.isnan(value) else 'I'} is neither a decimal digit number, "
                'decimal point, nor "e" notation exponential mark.'
            )
        return fit_decimal(decimal.Decimal(repr(value)), precision, scale)

    return convert


# -- to STRING ------------------------------------------------------------------------------------


def _precision(t: DataType, default: int) -> int:
    return int(t.params[0]) if t.params else default


def _decimal_text(t: DataType, value: Any) -> str:
    exact = value if isinstance(value, decimal.Decimal) else decimal.Decimal(str(value))
    if exact.is_zero():  # Java's BigDecimal has no negative zero
        exact = exact.copy_abs()
    if len(t.params) > 1:
        exact = exact.quantize(decimal.Decimal(1).scaleb(-int(t.params[1])), context=_CONTEXT)
    return format(exact, "f")


def _date_text(value: datetime.date) -> str:
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


# root -> the text of a value of that type (the type for its precision or scale)
_SCALAR_TEXT: dict[str, Callable[[DataType, Any], str]] = {
    **dict.fromkeys(CHARACTER, lambda t, v: v if isinstance(v, str) else str(v)),
    **dict.fromkeys(INTEGRAL, lambda t, v: str(int(v))),
    "BOOLEAN": lambda t, v: "TRUE" if v else "FALSE",
    "DOUBLE": lambda t, v: format_java_double(float(v)),
    "FLOAT": lambda t, v: format_java_float(float(v)),
    "DECIMAL": _decimal_text,
    **dict.fromkeys(TIMESTAMPS, lambda t, v: timestamp_text(v, _precision(t, 6))),
    "DATE": lambda t, v: _date_text(v),
    "TIME": lambda t, v: time_text(v, _precision(t, 0)),
    DAY_TIME: lambda t, v: format_day_time(v),
    YEAR_MONTH: lambda t, v: format_year_month(v),
}


def to_string(t: DataType, value: Any, printing: bool = False) -> str:
    """``CAST(value AS STRING)`` of a non-NULL ``value`` of type ``t``, as Flink's cast rules
    write it: ``TRUE``, doubles as Java (``1.0E10``), decimals with their scale, TIMESTAMP(p)
    with p fraction digits, TIME as Flink's (``10:20:30.5``), bytes decoded as UTF-8, arrays
    ``[1, NULL]``, maps ``{k=1}``, rows ``(1, x)``. ``printing``: as ``TableResult.print()``
    writes a cell (bytes as ``x'0102'``)."""
    text = _SCALAR_TEXT.get(t.root)
    if text is not None:
        return text(t, value)
    if t.root in BINARY:
        data = bytes(value)
        return f"x'{data.hex()}'" if printing else data.decode("utf-8", errors="replace")
    return _constructed_text(t, value, printing)


def _constructed_text(t: DataType, value: Any, printing: bool) -> str:
    """An ARRAY's ``[1, NULL]``, a MAP's (and a MULTISET's) ``{k=1}``, a ROW's ``(1, x)``."""
    key_type, value_type = getattr(t, "key_type", None), getattr(t, "value_type", None)
    if key_type is not None and value_type is not None:
        pairs = value.items() if isinstance(value, dict) else value
        entries = (f"{_nested(key_type, k, printing)}={_nested(value_type, v, printing)}" for k, v in pairs)
        return "{" + ", ".join(entries) + "}"
    element = getattr(t, "element_type", None)
    if element is not None:
        return "[" + ", ".join(_nested(element, v, printing) for v in value) + "]"
    fields = getattr(t, "fields", None)
    if fields is not None:
        return (
            "("
            + ", ".join(_nested(f.data_type, v, printing) for f, v in zip(fields, value, strict=False))
            + ")"
        )
    return str(value)


def _nested(t: DataType, value: Any, printing: bool) -> str:
    return "NULL" if value is None else to_string(t, value, printing)


# -- which casts SQL allows -------------------------------------------------------------------------------


def _family(root: str) -> str:
    if root in INTEGRAL or root == "DECIMAL":
        return "exact"
    if root in APPROXIMATE:
        return "approximate"
    if root in CHARACTER:
        return "character"
    if root in BINARY:
        return "binary"
    return root


# target family or root -> the source families / roots an explicit CAST accepts (Flink 2.3's
# LogicalTypeCasts, as PyFlink 2.3's validator applies it: numbers and booleans convert both ways,
# numbers and date-times do not, binary strings only from character and binary strings)
_EXPLICIT: dict[str, set[str]] = {
    "character": {
        "character",
        "exact",
        "approximate",
        "BOOLEAN",
        "binary",
        "DATE",
        "TIME",
        *TIMESTAMPS,
        *INTERVALS,
    },
    "binary": {"character", "binary"},
    "BOOLEAN": {"BOOLEAN", "character", "exact", "approximate"},
    # not from an interval: Calcite's validator refuses CAST(INTERVAL '1' DAY AS BIGINT)
    "exact": {"exact", "approximate", "character", "BOOLEAN"},
    "approximate": {"exact", "approximate", "character", "BOOLEAN"},
    "DATE": {"DATE", "character", *TIMESTAMPS},
    "TIME": {"TIME", "character", *TIMESTAMPS},
    "TIMESTAMP": {"character", "DATE", "TIME", *TIMESTAMPS},
    "TIMESTAMP_LTZ": {"character", "DATE", "TIME", *TIMESTAMPS},
    # a number counts the interval's unit; a string is refused while planning (Flink's codegen)
    DAY_TIME: {DAY_TIME, "exact"},
    YEAR_MONTH: {YEAR_MONTH, "exact"},
}


def cast_type_name(t: DataType) -> str:
    """A type as Calcite's validator names it in a cast error: ``INTEGER``, ``VARCHAR(2147483647)``,
    ``DECIMAL(5, 2)``, ``INTEGER ARRAY``."""
    root = t.root
    element = getattr(t, "element_type", None)
    if root == "ARRAY" and element is not None:
        return f"{cast_type_name(element)} ARRAY"
    if root == "STRING":
        return f"VARCHAR({_MAX_LENGTH})"
    if root == "BYTES":
        return f"VARBINARY({_MAX_LENGTH})"
    if root == "INT":
        return "INTEGER"
    if root == "DECIMAL" and len(t.params) == 2:
        return f"DECIMAL({t.params[0]}, {t.params[1]})"
    if root == "TIMESTAMP_LTZ":
        return f"TIMESTAMP_WITH_LOCAL_TIME_ZONE({_precision(t, 6)})"
    if t.params:
        return f"{root}({t.params[0]})"
    return root


def supports_cast(source: DataType, target: DataType) -> bool:
    """Whether ``CAST(source AS target)`` is valid SQL (Flink's ``supportsExplicitCast``)."""
    s, t = source.root, target.root
    if "VARIANT" in (s, t) and s != "NULL":  # no cast makes or reads a VARIANT (Flink 2.3's)
        return False
    if s == "NULL" or (s == t and s not in CONSTRUCTED):
        return True
    if s in CONSTRUCTED or t in CONSTRUCTED:
        if t in CHARACTER:
            return True
        if s in CHARACTER and t == "ARRAY":  # planned; a value fails when cast (Flink's too)
            return True
        if s != t:
            return False
        return all(
            supports_cast(a, b) for a, b in zip(_children(source), _children(target), strict=True)
        ) and len(_children(source)) == len(_children(target))
    allowed = _EXPLICIT.get(_family(t), _EXPLICIT.get(t))
    return allowed is not None and (s in allowed or _family(s) in allowed)


def _children(t: DataType) -> list[DataType]:
    element = getattr(t, "element_type", None)
    if element is not None:
        return [element]
    key_type, value_type = getattr(t, "key_type", None), getattr(t, "value_type", None)
    if key_type is not None and value_type is not None:
        return [key_type, value_type]
    return [f.data_type for f in getattr(t, "fields", [])]


def check_cast(source: DataType, target: DataType) -> None:
    """Raises CastError with Flink's message when SQL does not allow ``CAST(source AS target)``."""
    if not supports_cast(source, target):
        source_name, target_name = cast_type_name(source), cast_type_name(target)
        raise CastError(f"Cast function cannot convert value of type {source_name} to type {target_name}")


# -- conversions ------------------------------------------------------------------------------------------


_TRUE_STRINGS = frozenset(("t", "true", "y", "yes", "1"))
_FALSE_STRINGS = frozenset(("f", "false", "n", "no", "0"))


def _string_to_boolean(text: str) -> bool:
    """Flink's ``BinaryStringDataUtil.toBoolean``: t/true/y/yes/1 and f/false/n/no/0, any case,
    nothing trimmed."""
    lower = text.lower()
    if lower in _TRUE_STRINGS:
        return True
    if lower in _FALSE_STRINGS:
        return False
    raise CastError(f"Cannot parse '{text}' as BOOLEAN.")


def _fixed_length(root: str, length: int, pad: Any) -> Callable[[Any], Any]:
    """CHAR(n) / BINARY(n): padded (spaces, zero bytes) and cut to n; VARCHAR(n) / VARBINARY(n):
    cut to n (Flink's ``CharVarCharTrimPadCastRule`` and ``BinaryToBinaryCastRule``)."""
    if root in ("CHAR", "BINARY"):
        return lambda v: v[:length] + pad * (length - len(v)) if len(v) < length else v[:length]
    if length >= _MAX_LENGTH:
        return lambda v: v
    return lambda v: v[:length]


def _fixed_text(root: str, length: int) -> Callable[[str], str]:
    """``_fixed_length`` of a string whose length counts UTF-16 code units, as Java's
    (``CAST('😀' AS CHAR(1))`` keeps half of the emoji's surrogate pair)."""
    if length >= _MAX_LENGTH and root != "CHAR":
        return lambda v: v

    def fit(text: str) -> str:
        if text.isascii():
            return _fixed_length(root, length, " ")(text)
        units = text.encode("utf-16-le", errors="surrogatepass")[: 2 * length]
        kept = units.decode("utf-16-le", errors="surrogatepass")
        return kept + " " * (length - len(units) // 2) if root == "CHAR" else kept

    return fit


def _text_length(t: DataType) -> int:
    if t.root in ("STRING", "BYTES") or not t.params:
        return _MAX_LENGTH
    return int(t.params[0])


def _truncate_timestamp(precision: int) -> Callable[[datetime.datetime], datetime.datetime]:
    """A timestamp cut to ``precision`` fraction digits (its nanoseconds kept up to nine)."""
    unit = 10 ** (9 - min(precision, 9))

    def truncate(value: datetime.datetime) -> datetime.datetime:
        nanos = nano_of_second(value)
        return value if nanos % unit == 0 else with_nano_of_second(value, nanos - nanos % unit)

    return truncate


def _truncate_time(precision: int) -> Callable[[datetime.time], datetime.time]:
    unit = 10 ** (6 - min(precision, 3))
    return lambda v: v.replace(microsecond=v.microsecond - v.microsecond % unit)


def _to_timestamp(source: DataType, precision: int) -> Callable[[Any], Any]:
    truncate = _truncate_timestamp(precision)
    root = source.root
    if root in CHARACTER:
        return lambda v: parse_timestamp(v, min(precision, 9))
    if root == "DATE":
        return lambda v: datetime.datetime(v.year, v.month, v.day)
    if root == "TIME":
        return lambda v: truncate(datetime.datetime.combine(datetime.date(1970, 1, 1), v))
    return lambda v: truncate(v.replace(tzinfo=None) if isinstance(v, datetime.datetime) else v)


def _to_date(source: DataType) -> Callable[[Any], Any]:
    if source.root in CHARACTER:
        return parse_date
    return lambda v: v.date() if isinstance(v, datetime.datetime) else v


def _to_time(source: DataType, precision: int) -> Callable[[Any], Any]:
    truncate = _truncate_time(precision)
    if source.root in CHARACTER:
        return lambda v: truncate(parse_time(v))
    return lambda v: truncate(v.time() if isinstance(v, datetime.datetime) else v)


def _to_integer(source: DataType, root: str) -> Callable[[Any], Any]:
    s = source.root
    if s in INTEGRAL:
        return (lambda v: v) if INTEGER_BITS[s] <= INTEGER_BITS[root] else (lambda v: wrap(v, root))
    if s in APPROXIMATE:
        return double_to_integer(root)
    if s == "DECIMAL":  # BigDecimal.longValue(): the integral part's low 64 bits, then the width
        return lambda v: wrap(wrap(int(v), "BIGINT"), root)
    if s == "BOOLEAN":
        return lambda v: 1 if v else 0
    if s in CHARACTER:
        return lambda v: parse_java_integer(v, root)
    if s == DAY_TIME:  # its milliseconds
        return lambda v: wrap(v // datetime.timedelta(milliseconds=1), root)
    if s == YEAR_MONTH:  # its months
        return lambda v: wrap(v, root)
    return _unsupported(source, root)


def _to_approximate(source: DataType, root: str) -> Callable[[Any], Any]:
    s = source.root
    narrow = to_float32 if root == "FLOAT" else float
    if s in CHARACTER:
        return lambda v: narrow(parse_java_double(v))
    if s == "BOOLEAN":
        return lambda v: 1.0 if v else 0.0
    if s == "DECIMAL":  # Java's BigDecimal has no negative zero
        return lambda v: narrow(float(v) + 0.0)
    if s in NUMERIC:
        return lambda v: narrow(float(v))
    return _unsupported(source, root)


def _to_decimal(source: DataType, target: DataType) -> Callable[[Any], Any]:
    precision, scale = (int(target.params[0]), int(target.params[1])) if len(target.params) == 2 else (10, 0)
    s = source.root
    if s in CHARACTER:
        return _decimal_parser(precision, scale)
    if s in APPROXIMATE:
        return _double_to_decimal(precision, scale)
    if s == "BOOLEAN":
        return lambda v: fit_decimal(decimal.Decimal(1 if v else 0), precision, scale)
    if s in INTEGRAL or s == "DECIMAL":
        return lambda v: fit_decimal(
            v if isinstance(v, decimal.Decimal) else decimal.Decimal(v), precision, scale
        )
    return _unsupported(source, target.root)


def _to_character(source: DataType, target: DataType) -> Callable[[Any], Any]:
    length = _text_length(target)
    fit = _fixed_text(target.root, length)
    if source.root in CHARACTER and length >= _MAX_LENGTH and target.root != "CHAR":
        return lambda v: v
    return lambda v: fit(to_string(source, v))


def _to_binary(source: DataType, target: DataType) -> Callable[[Any], Any]:
    fit = _fixed_length(target.root, _text_length(target), b"\0")
    if source.root in CHARACTER:
        return lambda v: fit(v.encode("utf-8"))
    return lambda v: fit(bytes(v))


def _to_array(source: DataType, target: DataType) -> Callable[[Any], Any]:
    source_element = getattr(source, "element_type", None)
    target_element = getattr(target, "element_type", None)
    if source_element is None or target_element is None:
        return _unsupported(source, cast_type_name(target))
    element = _nullable(converter(source_element, target_element))
    return lambda v: [element(e) for e in v]


def _to_map(source: DataType, target: DataType) -> Callable[[Any], Any]:
    keys = _nullable(converter(getattr(source, "key_type"), getattr(target, "key_type")))  # noqa: B009
    values = _nullable(converter(getattr(source, "value_type"), getattr(target, "value_type")))  # noqa: B009
    return lambda v: {keys(k): values(x) for k, x in (v.items() if isinstance(v, dict) else v)}


def _to_row(source: DataType, target: DataType) -> Callable[[Any], Any]:
    names = [f.name for f in getattr(target, "fields")]  # noqa: B009
    fields = [_nullable(converter(a, b)) for a, b in zip(_children(source), _children(target), strict=True)]

    def convert(value: Any) -> Row:
        row = Row(*[f(v) for f, v in zip(fields, value, strict=True)])
        row.set_field_names(names)
        return row

    return convert


def _nullable(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda v: None if v is None else convert(v)


def _unsupported(source: DataType, target: Any) -> Callable[[Any], Any]:
    name = target if isinstance(target, str) else cast_type_name(target)

    def fail(value: Any) -> Any:
        raise UncheckedCastError(f"Unsupported cast from '{cast_type_name(source)}' to '{name}'.")

    return fail


def _to_boolean(source: DataType, target: DataType) -> Callable[[Any], Any]:
    if source.root in CHARACTER:
        return _string_to_boolean
    return (lambda v: v) if source.root == "BOOLEAN" else (lambda v: v != 0)


def _to_constructed(source: DataType, target: DataType) -> Callable[[Any], Any]:
    if target.root == "ARRAY":
        return _to_array(source, target)
    if target.root == source.root == "MAP":
        return _to_map(source, target)
    if target.root == source.root == "ROW":
        return _to_row(source, target)
    return lambda v: v


def _to_interval(source: DataType, target: DataType) -> Callable[[Any], Any]:
    """A number to an interval: its months (year-month) or milliseconds (day-time: the SQL front
    end scales ``CAST(2 AS INTERVAL DAY)`` to them)."""
    if source.root not in NUMERIC:
        return lambda v: v
    if target.root == YEAR_MONTH:
        return int
    return lambda v: datetime.timedelta(milliseconds=int(v))


# the target type's root -> how a value of the source type converts to it
_CONVERTERS: dict[str, Callable[[DataType, DataType], Callable[[Any], Any]]] = {
    **dict.fromkeys(CHARACTER, _to_character),
    **dict.fromkeys(BINARY, _to_binary),
    "BOOLEAN": _to_boolean,
    **dict.fromkeys(INTEGRAL, lambda source, target: _to_integer(source, target.root)),
    **dict.fromkeys(APPROXIMATE, lambda source, target: _to_approximate(source, target.root)),
    "DECIMAL": _to_decimal,
    **dict.fromkeys(TIMESTAMPS, lambda source, target: _to_timestamp(source, _precision(target, 6))),
    "DATE": lambda source, target: _to_date(source),
    "TIME": lambda source, target: _to_time(source, _precision(target, 0)),
    **dict.fromkeys(CONSTRUCTED, _to_constructed),
    **dict.fromkeys((DAY_TIME, YEAR_MONTH), _to_interval),
}


def converter(source: DataType, target: DataType) -> Callable[[Any], Any]:
    """The conversion of a non-NULL value of ``source`` to ``target`` as Flink's CAST: raises
    CastError where Flink's CAST fails, returns None where it gives NULL (a number that does
    not fit its DECIMAL)."""
    make = _CONVERTERS.get(target.root)
    if source.root == "NULL" or make is None:
        return lambda v: v
    return make(source, target)
