"""Flink's built-in functions of strings, time, arrays, maps and JSON added after
``functions/builtin_scalars.py`` (same form: a ``FunctionDefinition`` each).

Each follows Flink 2.3's documented result for the sample in ``docs/sql_functions.jsonl``;
where Java and Python differ the Java behaviour is kept: ``TRIM`` family removes spaces only
(or the given characters), ``URL_ENCODE`` is ``java.net.URLEncoder`` (``+`` for a space,
``*`` kept, ``~`` escaped), ``CHR`` takes the code modulo 256. The temporal functions are
``functions/temporal.py``.
"""

from __future__ import annotations

import datetime
import decimal
import json
import math
import re
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


def _json_path(document: Any, path: str) -> tuple[bool, Any]:
    """(found, value) of a simple JSON path (``$``, ``.field``, ``[index]``, ``['field']``)."""
    text = path.strip()
    for mode in ("lax ", "strict "):
        if text.startswith(mode):
            text = text[len(mode) :].strip()
    if not text.startswith("$"):
        return False, None
    value = document
    for name, quoted, index in re.findall(r"\.([A-Za-z_]\w*)|\[['\"](.+?)['\"]\]|\[(\d+)\]", text[1:]):
        key = name or quoted
        if key:
            if not isinstance(value, dict) or key not in value:
                return False, None
            value = value[key]
        else:
            if not isinstance(value, list) or int(index) >= len(value):
                return False, None
            value = value[int(index)]
    return True, value


def _json_exists(text: str, path: str) -> bool:
    try:
        return _json_path(json.loads(text), path)[0]
    except ValueError:
        return False


def _json_query(text: str, path: str) -> str | None:
    try:
        found, value = _json_path(json.loads(text), path)
    except ValueError:
        return None
    if not found or not isinstance(value, (dict, list)):
        return None  # WITHOUT ARRAY WRAPPER: scalars are NULL
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _json_unquote(text: str) -> str:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, str) else text


def _json_value_of(value: Any, raw: bool) -> Any:
    """A value as JSON holds it; ``raw``: it is the text of a nested JSON_OBJECT/JSON_ARRAY."""
    if raw and value is not None:
        return json.loads(value)
    if isinstance(value, decimal.Decimal):
        return float(value) if value != value.to_integral_value() else int(value)
    if isinstance(value, (datetime.date, datetime.time, datetime.datetime)):
        return value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(value)).decode()
    return value


def _json_object(on_null: str, raw: str, *pairs: Any) -> str:
    """JSON_OBJECT(KEY k VALUE v ... [NULL | ABSENT ON NULL]) (NULL ON NULL by default)."""
    out: dict[str, Any] = {}
    for i in range(0, len(pairs), 2):
        key, value = pairs[i], pairs[i + 1]
        if key is None:
            raise ValueError("JSON_OBJECT: a key is NULL")
        if value is None and on_null == "ABSENT":
            continue
        out[str(key)] = _json_value_of(value, raw[i // 2] == "1")
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


def _json_array(on_null: str, raw: str, *values: Any) -> str:
    """JSON_ARRAY(v ... [NULL | ABSENT ON NULL]) (ABSENT ON NULL by default)."""
    items = [
        _json_value_of(v, raw[i] == "1") for i, v in enumerate(values) if v is not None or on_null == "NULL"
    ]
    return json.dumps(items, separators=(",", ":"), ensure_ascii=False)


def _is_json(text: str, kind: str = "VALUE") -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    if kind == "OBJECT":
        return isinstance(value, dict)
    if kind == "ARRAY":
        return isinstance(value, list)
    if kind == "SCALAR":
        return not isinstance(value, (dict, list))
    return True


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
    # JSON
    FunctionDefinition("JSON_EXISTS", _json_exists, _BOOLEAN),
    FunctionDefinition("JSON_QUERY", _json_query, _STRINGS),
    FunctionDefinition("JSON_QUOTE", lambda text: json.dumps(text, ensure_ascii=False), _STRING),
    FunctionDefinition("JSON_UNQUOTE", _json_unquote, _STRING),
    FunctionDefinition("JSON_OBJECT", _json_object, _always(DataTypes.STRING(False)), null_aware=True),
    FunctionDefinition("JSON_ARRAY", _json_array, _always(DataTypes.STRING(False)), null_aware=True),
    FunctionDefinition("IS_JSON", _is_json, _always(DataTypes.BOOLEAN(False))),
]
