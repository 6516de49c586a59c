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

import datetime
import decimal
import math
from collections.abc import Callable
from typing import Any

from millstream.table.common.types import DataType, DataTypes
from millstream.table.functions.builtin_scalars import _BOOLEAN, _INT, _STRING, _always, _first
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
        precision, scale = (list(t.params) + [10, 0])[:2]
        return DataTypes.DECIMAL(max(1, precision - scale + (1 if scale else 0)), 0, t.is_nullable())
    return t


def _sign(value: Any) -> Any:
    sign = (value > 0) - (value < 0)
    if isinstance(value, decimal.Decimal):
        return decimal.Decimal(sign).quantize(decimal.Decimal(1).scaleb(value.as_tuple().exponent))  # type: ignore[arg-type]
    if isinstance(value, float):
        return float(sign)
    return sign


def _plus_interval(value: Any, interval: Any) -> Any:
    """A date, time or timestamp plus a day-time interval (a TIME wraps at midnight)."""
    step = interval if isinstance(interval, datetime.timedelta) else datetime.timedelta(milliseconds=interval)
    if isinstance(value, datetime.time):
        return (datetime.datetime.combine(datetime.date(2000, 1, 1), value) + step).time()
    return value + step


def _distinct(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def _array_slice(values: list[Any], start: int, end: int | None = None) -> list[Any]:
    size = len(values)
    first = start if start > 0 else size + start + 1 if start < 0 else 1
    last = size if end is None else end if end >= 0 else size + end + 1
    return values[max(first, 1) - 1 : max(last, 0)]


def _array_sort(values: list[Any], ascending: bool = True, nulls_first: bool | None = None) -> list[Any]:
    present = sorted((v for v in values if v is not None), reverse=not ascending)
    nulls = [None] * (len(values) - len(present))
    first = ascending if nulls_first is None else nulls_first
    return nulls + present if first else present + nulls


def _array_join(values: list[Any], separator: str, null_text: str | None = None) -> str:
    shown = [str(v) if v is not None else null_text for v in values]
    return separator.join(v for v in shown if v is not None)


def _same_array(args: list[DataType]) -> DataType:
    return args[0]


def _element(args: list[DataType]) -> DataType:
    element: DataType = getattr(args[0], "element_type", DataTypes.NULL())
    return element.nullable()


def _map_keys(args: list[DataType]) -> DataType:
    return DataTypes.ARRAY(getattr(args[0], "key_type", DataTypes.NULL()))


def _map_values(args: list[DataType]) -> DataType:
    return DataTypes.ARRAY(getattr(args[0], "value_type", DataTypes.NULL()))


def _map_entries(args: list[DataType]) -> DataType:
    key = getattr(args[0], "key_type", DataTypes.NULL())
    value = getattr(args[0], "value_type", DataTypes.NULL())
    return DataTypes.ARRAY(DataTypes.ROW([DataTypes.FIELD("key", key), DataTypes.FIELD("value", value)]))


def _map_from_arrays(args: list[DataType]) -> DataType:
    key = getattr(args[0], "element_type", DataTypes.NULL())
    value = getattr(args[1], "element_type", DataTypes.NULL())
    return DataTypes.MAP(key, value)


_STRINGS = _always(DataTypes.STRING())
_DATE_TIME = _first

MORE: list[FunctionDefinition] = [
    # strings
    FunctionDefinition("SIMILAR", similar, _BOOLEAN),  # x SIMILAR TO p [ESCAPE c]
    # numbers
    FunctionDefinition("FLOOR", _rounded("floor"), _rounded_type),
    FunctionDefinition("CEIL", _rounded("ceil"), _rounded_type),
    FunctionDefinition("SIGN", _sign, _first),
    # time
    FunctionDefinition("PLUS_INTERVAL", _plus_interval, _DATE_TIME),
    FunctionDefinition("CURRENT_DATABASE", lambda: "default_database", _always(DataTypes.STRING(False))),
    # arrays and maps
    FunctionDefinition("ARRAY_APPEND", lambda values, v: [*values, v], _same_array),
    FunctionDefinition("ARRAY_PREPEND", lambda values, v: [v, *values], _same_array),
    FunctionDefinition("ARRAY_CONCAT", lambda *arrays: [v for a in arrays for v in a], _same_array),
    FunctionDefinition("ARRAY_CONTAINS", lambda values, v: v in values, _BOOLEAN),
    FunctionDefinition("ARRAY_DISTINCT", _distinct, _same_array),
    FunctionDefinition("ARRAY_EXCEPT", lambda a, b: _distinct([v for v in a if v not in b]), _same_array),
    FunctionDefinition("ARRAY_INTERSECT", lambda a, b: _distinct([v for v in a if v in b]), _same_array),
    FunctionDefinition("ARRAY_UNION", lambda a, b: _distinct([*a, *b]), _same_array),
    FunctionDefinition("ARRAY_JOIN", _array_join, _STRING),
    FunctionDefinition(
        "ARRAY_MAX", lambda values: max((v for v in values if v is not None), default=None), _element
    ),
    FunctionDefinition(
        "ARRAY_MIN", lambda values: min((v for v in values if v is not None), default=None), _element
    ),
    FunctionDefinition("ARRAY_POSITION", lambda values, v: values.index(v) + 1 if v in values else 0, _INT),
    FunctionDefinition("ARRAY_REMOVE", lambda values, v: [x for x in values if x != v], _same_array),
    FunctionDefinition("ARRAY_REVERSE", lambda values: values[::-1], _same_array),
    FunctionDefinition("ARRAY_SLICE", _array_slice, _same_array),
    FunctionDefinition("ARRAY_SORT", _array_sort, _same_array),
    FunctionDefinition("MAP_KEYS", lambda m: list(m.keys()), _map_keys),
    FunctionDefinition("MAP_VALUES", lambda m: list(m.values()), _map_values),
    FunctionDefinition("MAP_ENTRIES", lambda m: [(k, v) for k, v in m.items()], _map_entries),
    FunctionDefinition(
        "MAP_FROM_ARRAYS", lambda keys, values: dict(zip(keys, values, strict=True)), _map_from_arrays
    ),
    FunctionDefinition("MAP_UNION", lambda *maps: {k: v for m in maps for k, v in m.items()}, _first),
]
