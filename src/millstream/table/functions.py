"""Flink's built-in scalar functions, for the Table API (``col('s').upper_case``,
``concat(...)``, ``call('UPPER', ...)``) and SQL (``UPPER(s)``) alike.

Each function has a Python implementation over plain values and a rule for its result type.
Unless a function is marked NULL-aware (COALESCE, IFNULL, CONCAT_WS ...), a NULL argument
gives a NULL result without calling it, as SQL's functions do.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.common.time import java_pattern_to_strftime
from millstream.table.builtin_more import MORE
from millstream.table.builtin_scalars import SCALARS, STATEFUL, STATEFUL_TYPES
from millstream.table.compiled import Compiled, nullable_if_any
from millstream.table.expression import Expression, _wrap
from millstream.table.types import DataType, DataTypes

__all__ = ["call_builtin", "is_builtin", "temporal_cast"]

TypeRule = Callable[[list[DataType]], DataType]


@dataclass(frozen=True)
class _Function:
    impl: Callable[..., Any]
    result: TypeRule
    null_aware: bool = False  # called with NULL arguments (else NULL in, NULL out)


def _string(args: list[DataType]) -> DataType:
    return nullable_if_any(DataTypes.STRING(), *args)


def _same_as_first(args: list[DataType]) -> DataType:
    return args[0]


def _int(args: list[DataType]) -> DataType:
    return nullable_if_any(DataTypes.INT(), *args)


def _double(args: list[DataType]) -> DataType:
    return nullable_if_any(DataTypes.DOUBLE(), *args)


def _boolean(args: list[DataType]) -> DataType:
    return nullable_if_any(DataTypes.BOOLEAN(), *args)


def _first_non_null(args: list[DataType]) -> DataType:
    typed = [a for a in args if a.root != "NULL"]
    result = typed[0] if typed else DataTypes.NULL()
    return result.not_null() if any(not a.is_nullable() for a in typed) else result.nullable()


def _nullable_string(args: list[DataType]) -> DataType:
    return DataTypes.STRING()


def _regexp_extract(text: str, pattern: str, group: int) -> str | None:
    """Flink's REGEXP_EXTRACT: group ``group`` (0: the whole match) of the first match; NULL
    when nothing matches or the group does not exist."""
    match = re.search(pattern, text)
    if match is None:
        return None
    try:
        return match.group(group)
    except IndexError:
        return None


def _split(text: str, separator: str) -> list[str]:
    """Flink's SPLIT (commons-lang's ``splitByWholeSeparatorPreserveAllTokens``): every token,
    empty ones kept; an empty string has none."""
    if text == "":
        return []
    return text.split(separator) if separator else text.split()


def _split_index(text: str, separator: str, index: int) -> str | None:
    """Flink's SPLIT_INDEX: token ``index`` (from 0) of ``SPLIT``; NULL when out of range."""
    tokens = _split(text, separator)
    return tokens[index] if 0 <= index < len(tokens) else None


def _mod(a: Any, b: Any) -> Any:
    """Java's ``%``: the remainder takes the dividend's sign; exact for integers of any size
    (``a - b * int(a / b)`` went through a float)."""
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise ZeroDivisionError("/ by zero")
        remainder = abs(a) % abs(b)
        return -remainder if a < 0 else remainder
    return math.fmod(a, b)


def _json_value(text: str, path: str) -> Any:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    for step in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path[1:] if path.startswith("$") else path):
        key, index = step
        if key:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        else:
            if not isinstance(value, list) or int(index) >= len(value):
                return None
            value = value[int(index)]
    if isinstance(value, (dict, list)) or value is None:
        return None  # JSON_VALUE returns scalars only (NULL ON ERROR / ON EMPTY)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else json.dumps(value)


def _substring(text: str, start: int, length: int | None = None) -> str:
    begin = max(start - 1, 0) if start > 0 else max(len(text) + start, 0)
    return text[begin:] if length is None else text[begin : begin + max(length, 0)]


def _like(text: str, pattern: str) -> bool:
    regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, text, re.DOTALL) is not None


def _round(value: Any, digits: int = 0) -> Any:
    import decimal

    if isinstance(value, float):
        quantum = decimal.Decimal(1).scaleb(-digits)
        return float(decimal.Decimal(repr(value)).quantize(quantum, rounding=decimal.ROUND_HALF_UP))
    if isinstance(value, decimal.Decimal):
        return value.quantize(decimal.Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP)
    if digits >= 0:
        return value
    factor = 10 ** (-digits)
    return int(decimal.Decimal(value / factor).quantize(1, rounding=decimal.ROUND_HALF_UP)) * factor


def _round_type(first: DataType, places: int | None) -> DataType:
    """ROUND's type: a DECIMAL(p, s) rounded to r < s places is DECIMAL(1 + p - s + r, r), as
    Flink's ``findRoundDecimalType`` (``places``: the literal number of places)."""
    if first.root != "DECIMAL":
        return first
    precision, scale = int(first.params[0]), int(first.params[1])
    if places is None or places >= scale:
        return first
    if places < 0:
        return nullable_if_any(DataTypes.DECIMAL(min(38, 1 + precision - scale), 0), first)
    return nullable_if_any(DataTypes.DECIMAL(1 + precision - scale + places, places), first)


def _to_timestamp_ltz(value: Any, precision: int = 3) -> datetime.datetime:
    from millstream.table.timestamps import from_epoch_millis

    millis = value * 1000 if precision == 0 else value
    return from_epoch_millis(int(millis), "TIMESTAMP_LTZ")


def _to_timestamp(text: str, fmt: str | None = None) -> datetime.datetime | None:
    try:
        if fmt is None:
            return datetime.datetime.fromisoformat(text)
        return datetime.datetime.strptime(text, java_pattern_to_strftime(fmt))
    except ValueError:
        return None


def _date_format(value: datetime.datetime, fmt: str) -> str:
    text = value.strftime(java_pattern_to_strftime(fmt))
    return (
        text.replace(f"{value.microsecond:06d}", f"{value.microsecond // 1000:03d}") if "SSS" in fmt else text
    )


def _concat_ws(separator: Any, *values: Any) -> Any:
    if separator is None:
        return None
    return separator.join(v for v in values if v is not None)


_FUNCTIONS: dict[str, _Function] = {
    "UPPER": _Function(str.upper, _string),
    "LOWER": _Function(str.lower, _string),
    "TRIM": _Function(str.strip, _string),
    "LTRIM": _Function(str.lstrip, _string),
    "RTRIM": _Function(str.rstrip, _string),
    "CHAR_LENGTH": _Function(len, _int),
    "SUBSTRING": _Function(_substring, _string),
    "REPLACE": _Function(lambda s, a, b: s.replace(a, b), _string),
    "CONCAT": _Function(lambda *parts: "".join(parts), _string),
    "CONCAT_WS": _Function(_concat_ws, lambda args: nullable_if_any(DataTypes.STRING(), args[0]), True),
    "LIKE": _Function(_like, _boolean),
    "POSITION": _Function(lambda needle, text: text.find(needle) + 1, _int),
    "INITCAP": _Function(lambda s: re.sub(r"\w+", lambda m: m.group(0).capitalize(), s), _string),
    "REVERSE": _Function(lambda s: s[::-1], _string),
    "REPEAT": _Function(lambda s, n: s * n, _string),
    "LPAD": _Function(lambda s, n, p: (p * n + s)[-n:] if len(s) < n else s[:n], _string),
    "RPAD": _Function(lambda s, n, p: (s + p * n)[:n], _string),
    "REGEXP_REPLACE": _Function(lambda s, pattern, r: re.sub(pattern, r, s), _string),
    "REGEXP_EXTRACT": _Function(
        lambda s, pattern, group=0: _regexp_extract(s, pattern, group), _nullable_string
    ),
    "SPLIT_INDEX": _Function(lambda s, separator, index: _split_index(s, separator, index), _nullable_string),
    "SPLIT": _Function(
        lambda s, separator: _split(s, separator),
        lambda args: nullable_if_any(DataTypes.ARRAY(DataTypes.STRING()), *args),
    ),
    "JSON_VALUE": _Function(_json_value, lambda args: DataTypes.STRING()),
    "ABS": _Function(abs, _same_as_first),
    "MOD": _Function(lambda a, b: _mod(a, b), lambda args: args[1]),
    "POWER": _Function(lambda a, b: float(a) ** float(b), _double),
    "SQRT": _Function(lambda a: math.sqrt(a), _double),
    "LN": _Function(math.log, _double),
    "LOG10": _Function(math.log10, _double),
    "EXP": _Function(math.exp, _double),
    "FLOOR": _Function(lambda a: math.floor(a) if isinstance(a, float) else a, _same_as_first),
    "CEIL": _Function(lambda a: math.ceil(a) if isinstance(a, float) else a, _same_as_first),
    "ROUND": _Function(_round, _same_as_first),  # DECIMAL: _round_type (needs the literal places)
    "SIGN": _Function(lambda a: (a > 0) - (a < 0), _same_as_first),
    "COALESCE": _Function(lambda *vs: next((v for v in vs if v is not None), None), _first_non_null, True),
    "IFNULL": _Function(lambda a, b: b if a is None else a, _first_non_null, True),
    "NULLIF": _Function(lambda a, b: None if a == b else a, lambda args: args[0].nullable(), True),
    "GREATEST": _Function(max, _same_as_first),
    "LEAST": _Function(min, _same_as_first),
    "TO_TIMESTAMP_LTZ": _Function(
        _to_timestamp_ltz, lambda args: nullable_if_any(DataTypes.TIMESTAMP_LTZ(3), args[0])
    ),
    "TO_TIMESTAMP": _Function(_to_timestamp, lambda args: DataTypes.TIMESTAMP(3)),
    "DATE_FORMAT": _Function(_date_format, _string),
    "DATE_FORMAT_PY": _Function(lambda v, fmt: v.strftime(fmt), _string),  # SQL's, format already strftime
    "EXTRACT_YEAR": _Function(lambda v: v.year, lambda args: nullable_if_any(DataTypes.BIGINT(), *args)),
    "HOUR": _Function(lambda v: v.hour, lambda args: nullable_if_any(DataTypes.BIGINT(), *args)),
    "MINUTE": _Function(lambda v: v.minute, lambda args: nullable_if_any(DataTypes.BIGINT(), *args)),
    "SECOND": _Function(lambda v: v.second, lambda args: nullable_if_any(DataTypes.BIGINT(), *args)),
    "YEAR": _Function(lambda v: v.year, lambda args: nullable_if_any(DataTypes.BIGINT(), *args)),
    "MONTH": _Function(lambda v: v.month, lambda args: nullable_if_any(DataTypes.BIGINT(), *args)),
    "DAYOFMONTH": _Function(lambda v: v.day, lambda args: nullable_if_any(DataTypes.BIGINT(), *args)),
}

_FUNCTIONS.update({name: _Function(*spec) for name, spec in SCALARS.items()})
_FUNCTIONS.update({name: _Function(*spec) for name, spec in MORE.items()})

# SQL spellings of the same functions
_ALIASES = {
    "CHARACTER_LENGTH": "CHAR_LENGTH",
    "CEILING": "CEIL",
    "SUBSTR": "SUBSTRING",
    "UPPER_CASE": "UPPER",
    "LOWER_CASE": "LOWER",
    "CURRENT_ROW_TIMESTAMP": "CURRENT_TIMESTAMP",
    "POW": "POWER",
    "LCASE": "LOWER",
    "UCASE": "UPPER",
}


def is_builtin(name: str) -> bool:
    """Whether ``name`` (any case) is a built-in scalar function."""
    upper = name.upper()
    return _ALIASES.get(upper, upper) in _FUNCTIONS or upper in STATEFUL


class _Call(Expression):
    """A built-in function applied to argument expressions."""

    def __init__(self, name: str, args: list[Expression]) -> None:
        upper = name.upper()
        self.name_, self.args = _ALIASES.get(upper, upper), args

    def aggregates(self) -> list[Any]:
        return [a for arg in self.args for a in arg.aggregates()]

    def window_properties(self) -> list[Any]:
        return [p for arg in self.args for p in arg.window_properties()]

    def resolve(self, names: list[str], types: list[DataType]) -> Compiled:
        spec = _FUNCTIONS.get(self.name_)
        if spec is None and self.name_ in STATEFUL:  # a generator of its own per call site
            spec = _Function(STATEFUL[self.name_](), STATEFUL_TYPES[self.name_])
        if spec is None:
            raise ValueError(f"No match found for function signature {self.name_}()")
        compiled = [a.resolve(names, types) for a in self.args]
        fns = [c.fn for c in compiled]
        impl = spec.impl
        result_type = spec.result([c.data_type for c in compiled])
        if self.name_ in ("ROUND", "TRUNCATE"):
            places = getattr(self.args[1], "value", None) if len(self.args) > 1 else 0
            result_type = _round_type(compiled[0].data_type, places if isinstance(places, int) else None)
        if spec.null_aware:

            def apply(row: tuple[Any, ...]) -> Any:
                return impl(*[f(row) for f in fns])

        else:

            def apply(row: tuple[Any, ...]) -> Any:
                values = [f(row) for f in fns]
                if None in values:
                    return None
                return impl(*values)

        return Compiled(apply, result_type, None)

    def __repr__(self) -> str:
        return f"{self.name_}({', '.join(map(repr, self.args))})"


def call_builtin(name: str, *args: Any) -> Expression:
    """The built-in function ``name`` applied to ``args`` (expressions or literals)."""
    return _Call(name, [_wrap(a) for a in args])


def temporal_cast(source: DataType, target: DataType) -> Callable[[Any], Any]:
    """The conversion of a CAST to a TIMESTAMP, TIMESTAMP_LTZ, DATE or TIME type."""
    root = target.root
    precision = int(target.params[0]) if target.params else (6 if root != "TIME" else 0)

    def truncate(value: datetime.datetime) -> datetime.datetime:
        micros = value.microsecond
        kept = micros - micros % (10 ** (6 - precision)) if precision < 6 else micros
        return value.replace(microsecond=kept) if kept != micros else value

    def to_datetime(value: Any) -> Any:
        if isinstance(value, datetime.datetime):
            return truncate(value)
        if isinstance(value, datetime.date):
            return datetime.datetime(value.year, value.month, value.day)
        if isinstance(value, str):
            return truncate(datetime.datetime.fromisoformat(value.strip()))
        if hasattr(value, "to_epoch_milli"):  # an Instant
            from millstream.table.timestamps import from_epoch_millis

            return truncate(from_epoch_millis(value.to_epoch_milli(), "TIMESTAMP_LTZ"))
        raise TypeError(f"cannot cast {value!r} ({source!r}) to {target!r}")

    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return to_datetime
    if root == "DATE":
        return lambda v: (
            datetime.date.fromisoformat(v.strip()) if isinstance(v, str) else to_datetime(v).date()
        )
    return lambda v: datetime.time.fromisoformat(v.strip()) if isinstance(v, str) else to_datetime(v).time()
