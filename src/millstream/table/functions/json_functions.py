"""Flink's JSON functions as Flink 2.3 computes and types them (``SqlJsonUtils`` and the
planner's JSON call generators), over ``json_text``'s Jackson reader and writer and Jayway
paths.

- A path is ``lax`` or ``strict`` (the default): in lax mode a missing value is empty (NULL,
  or the ``ON EMPTY`` behaviour) and JSON that does not parse is empty too; in strict mode
  both are errors (the ``ON ERROR`` behaviour), and so is a JSON null.
- JSON_EXISTS(j, path [TRUE | FALSE | UNKNOWN | ERROR ON ERROR]): FALSE on error by default;
  a path that finds a JSON null does not exist. BOOLEAN, nullable.
- JSON_VALUE(j, path [RETURNING t] [NULL | ERROR | DEFAULT x ON EMPTY] [... ON ERROR]): a
  scalar's Java text (``1.50``, ``1E+2``, ``true``), an object or array empty (lax) or an error
  (strict). RETURNING STRING / VARCHAR(n), INT, BOOLEAN, DOUBLE only (Flink's casts of the
  value Jackson read: ``'$.a' RETURNING INT`` of ``1.5`` fails the job with Java's
  ClassCastException, as Flink's does); other types are refused.
- JSON_QUERY(j, path [RETURNING STRING | ARRAY<STRING>] [WITH [CONDITIONAL | UNCONDITIONAL]
  [ARRAY] WRAPPER | WITHOUT [ARRAY] WRAPPER] [NULL | ERROR | EMPTY ARRAY | EMPTY OBJECT ON
  EMPTY] [... ON ERROR]): an object or array as JSON text (keys in order), or its elements as
  text; a scalar is empty (lax) or an error (strict) unless wrapped.
- JSON_STRING, JSON_OBJECT, JSON_ARRAY, JSON(), JSON_QUOTE, JSON_UNQUOTE and IS [NOT] JSON
  [VALUE | SCALAR | ARRAY | OBJECT] (IS_JSON): SQL values as JSON, ``json_values``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from millstream.common.java_values import java_double_str
from millstream.table.common.printing import summary_string
from millstream.table.common.timestamps import java_local_date_time_string
from millstream.table.common.types import DataType, DataTypes
from millstream.table.functions.definition import NOT_LITERAL, FunctionDefinition
from millstream.table.functions.json_path import JsonPathError, read_path
from millstream.table.functions.json_text import (
    JsonParseError,
    java_class_name,
    java_decimal_str,
    jsonize,
    parse_json,
)
from millstream.table.functions.json_values import (
    JsonFunctionError,
    is_json,
    json_array,
    json_constructor_type,
    json_object,
    json_quote,
    json_string,
    json_string_type,
    json_text,
    json_unquote,
)

__all__ = [
    "JSON_FUNCTIONS",
    "JsonFunctionError",
    "json_exists",
    "json_query",
    "json_value",
]

_STRING = DataTypes.STRING()
_TEXT = ("CHAR", "VARCHAR", "STRING")
_MODE = re.compile(r"[ \t\n\x0b\f\r]*(strict|lax)[ \t\n\x0b\f\r]+(.+)", re.IGNORECASE | re.DOTALL)


# -- SqlJsonUtils ---------------------------------------------------------------------------------


class _PathContext:
    """What a path found in a JSON text: its mode, the value (None: nothing) or the error."""

    __slots__ = ("error", "mode", "value")

    def __init__(self, mode: str, value: Any = None, error: Exception | None = None) -> None:
        self.mode, self.value, self.error = mode, value, error


def _context(text: str, spec: str) -> _PathContext:
    """``SqlJsonUtils.jsonApiCommonSyntax``."""
    matched = _MODE.fullmatch(spec)
    mode, path = ("STRICT", spec) if matched is None else (matched.group(1).upper(), matched.group(2))
    try:
        document = parse_json(text)
    except JsonParseError as error:
        return _PathContext("LAX") if mode == "LAX" else _PathContext("STRICT", error=error)
    if document is None:  # JsonPath.parse(null): an IllegalArgumentException
        return _PathContext("UNKNOWN", error=JsonFunctionError("json can not be null"))
    try:
        value = read_path(document, path, suppress=mode == "LAX")
    except JsonPathError as error:
        if error.invalid:
            shape = "''<lax|strict> $'{'expr'}''"
            message = f"Illegal jsonpath spec ''{spec}'', format of the spec should be: {shape}"
            return _PathContext("STRICT", error=JsonFunctionError(message))
        return _PathContext("STRICT", error=error)
    if mode == "STRICT" and value is None:
        message = "Strict jsonpath mode requires a non empty returned value, but is null"
        return _PathContext("STRICT", error=JsonFunctionError(message))
    return _PathContext(mode, value)


def _scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _java_text(value: Any) -> str:
    """Java's ``toString`` of a value Jackson read (``String.valueOf``)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Decimal):
        return java_decimal_str(value)
    if isinstance(value, float):  # a Jayway aggregation's Double (or a DEFAULT's)
        return java_double_str(value)
    # a DEFAULT's value, as Flink's internal data prints it: a DATE its epoch day, a TIME its
    # milliseconds of the day, a TIMESTAMP LocalDateTime's text
    if isinstance(value, datetime.datetime):
        return java_local_date_time_string(value)
    if isinstance(value, datetime.date):
        return str((value - datetime.date(1970, 1, 1)).days)
    if isinstance(value, datetime.time):
        return str(((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_java_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join("null" if v is None else _java_text(v) for v in value) + "]"
    return str(value)


def _failed(error: Exception) -> JsonFunctionError:
    return error if isinstance(error, JsonFunctionError) else JsonFunctionError(str(error).split("\n")[0])


def json_exists(text: str, spec: str, on_error: str = "FALSE") -> bool | None:
    """``SqlJsonUtils.jsonExists``: whether the path finds a value (not a JSON null)."""
    context = _context(text, spec)
    if context.error is not None:
        if on_error == "ERROR":
            raise _failed(context.error)
        return {"TRUE": True, "FALSE": False}.get(on_error)
    return context.value is not None


def json_value(
    text: str,
    spec: str,
    on_empty: str = "NULL",
    default_on_empty: Any = None,
    on_error: str = "NULL",
    default_on_error: Any = None,
) -> Any:
    """``SqlJsonUtils.jsonValue``: the scalar the path finds, as Jackson read it."""
    context = _context(text, spec)
    error = context.error
    if error is None:
        value = context.value
        if value is None or (context.mode == "LAX" and not _scalar(value)):
            if on_empty == "ERROR":
                raise JsonFunctionError("Empty result of JSON_VALUE function is not allowed")
            return default_on_empty if on_empty == "DEFAULT" else None
        if context.mode == "STRICT" and not _scalar(value):
            error = JsonFunctionError(
                "Strict jsonpath mode requires scalar value, and the actual value is: "
                f"''{_java_text(value)}''"
            )
        else:
            return value
    if on_error == "ERROR":
        raise _failed(error)
    return default_on_error if on_error == "DEFAULT" else None


def _query_fallback(behaviour: str, returns_array: bool, error: Exception | None) -> Any:
    """An empty or failed JSON_QUERY's result by its ON EMPTY / ON ERROR behaviour."""
    if behaviour == "ERROR":
        if error is None:
            raise JsonFunctionError("Empty result of JSON_QUERY function is not allowed")
        raise _failed(error)
    if behaviour == "EMPTY ARRAY":
        return [] if returns_array else "[]"
    if behaviour == "EMPTY OBJECT":
        if returns_array:
            raise JsonFunctionError("Illegal empty behavior 'EMPTY_OBJECT' specified in JSON_QUERY function")
        return "{}"
    return None


def json_query(
    text: str,
    spec: str,
    returns_array: bool = False,
    wrapper: str = "WITHOUT ARRAY",
    on_empty: str = "NULL",
    on_error: str = "NULL",
) -> Any:
    """``SqlJsonUtils.jsonQuery``: the object or array the path finds, as JSON text (or, when
    ``returns_array``, its elements as text)."""
    context = _context(text, spec)
    error = context.error
    if error is None:
        found = context.value
        if found is None:
            value = None
        elif wrapper == "UNCONDITIONAL ARRAY" or (
            wrapper == "CONDITIONAL ARRAY" and not isinstance(found, list)
        ):
            value = [found]
        else:
            value = found
        if value is None or (context.mode == "LAX" and _scalar(value)):
            return _query_fallback(on_empty, returns_array, None)
        if context.mode == "STRICT" and _scalar(value):
            error = JsonFunctionError(
                "Strict jsonpath mode requires array or object value, and the actual value is: "
                f"''{_java_text(value)}''"
            )
        elif not returns_array:
            return jsonize(value)
        elif isinstance(value, list):
            return [None if v is None else _java_text(v) if _scalar(v) else jsonize(v) for v in value]
        else:
            error = JsonFunctionError(_cast_message(value, "java.util.List"))
    return _query_fallback(on_error, returns_array, error)


def _cast_message(value: Any, target: str) -> str:
    source = java_class_name(value)
    module = "are in module java.base of loader 'bootstrap'"
    return f"class {source} cannot be cast to class {target} ({source} and {target} {module})"


# -- JSON_EXISTS / JSON_VALUE / JSON_QUERY as SQL calls ----------------------------------------------


def _check_text(name: str, args: list[DataType]) -> None:
    for arg in args[:2]:
        if arg.root not in (*_TEXT, "NULL"):
            shown = ", ".join(f"<{summary_string(a.nullable())}>" for a in args[:2])
            raise ValueError(
                f"Cannot apply '{name}' to arguments of type '{name}({shown})'. Supported form(s): "
                f"'{name}(<CHARACTER>, <CHARACTER>)'"
            )


def _literal_text(literals: list[Any], at: int, default: str) -> str:
    value = literals[at] if at < len(literals) else default
    return default if value is NOT_LITERAL or value is None else str(value)


def _exists_type(args: list[DataType], literals: list[Any]) -> DataType:
    _check_text("JSON_EXISTS", args)
    return DataTypes.BOOLEAN()


def _returning(text: str) -> str:
    """A RETURNING type's kind: STRING (VARCHAR), INT, BOOLEAN, DOUBLE, ARRAY, or its name."""
    if text == "STRING" or text.startswith("VARCHAR"):
        return "STRING"
    if text.startswith("ARRAY<"):
        return "ARRAY"
    return text


def _value_type(args: list[DataType], literals: list[Any]) -> DataType:
    _check_text("JSON_VALUE", args)
    text = _literal_text(literals, 2, "STRING")
    if _returning(text) not in ("STRING", "INT", "BOOLEAN", "DOUBLE"):
        raise ValueError(f"Unsupported type '{text}' for RETURNING in JSON_VALUE().")
    return _type_named(text).nullable()


def _type_named(text: str) -> DataType:
    if text == "STRING":
        return DataTypes.STRING()
    if text.startswith("VARCHAR("):
        return DataTypes.VARCHAR(int(text[8:-1]))
    if text.startswith("ARRAY<"):
        return DataTypes.ARRAY(_type_named(text[6:-1].removesuffix(" NOT NULL")))
    if text.startswith("CHAR("):
        return DataTypes.CHAR(int(text[5:-1]))
    return {"INT": DataTypes.INT(), "BOOLEAN": DataTypes.BOOLEAN(), "DOUBLE": DataTypes.DOUBLE()}.get(
        text, _STRING
    )


def _cast(value: Any, kind: str) -> Any:
    """Flink's cast of JSON_VALUE's result to the RETURNING type (``JsonValueCallGen``)."""
    if kind == "STRING":
        return _java_text(value) if not isinstance(value, str) else value
    if kind == "INT":
        if isinstance(value, int) and not isinstance(value, bool) and -(2**31) <= value < 2**31:
            return value
        raise JsonFunctionError(_cast_message(value, "java.lang.Integer"))
    if kind == "BOOLEAN":
        if isinstance(value, bool):
            return value
        raise JsonFunctionError(_cast_message(value, "java.lang.Boolean"))
    if isinstance(value, Decimal):  # DOUBLE: BigDecimal.doubleValue
        return float(value)
    raise JsonFunctionError(_cast_message(value, "java.math.BigDecimal"))


def _sql_json_value(text: str, spec: str, returning: str = "STRING", *behaviours: Any) -> Any:
    """JSON_VALUE(j, path, returning, on empty, on error, [default on empty], [default on error])."""
    on_empty = behaviours[0] if behaviours else "NULL"
    on_error = behaviours[1] if len(behaviours) > 1 else "NULL"
    defaults = list(behaviours[2:])
    default_on_empty = defaults.pop(0) if on_empty == "DEFAULT" and defaults else None
    default_on_error = defaults.pop(0) if on_error == "DEFAULT" and defaults else None
    value = json_value(text, spec, on_empty, default_on_empty, on_error, default_on_error)
    return None if value is None else _cast(value, _returning(returning))


def _query_type(args: list[DataType], literals: list[Any]) -> DataType:
    _check_text("JSON_QUERY", args)
    text = _literal_text(literals, 2, "STRING")
    if text.startswith("ARRAY<"):
        element = text[6:-1].removesuffix(" NOT NULL")
        if not element.startswith(("STRING", "VARCHAR", "CHAR")):  # Calcite's validation
            shown = {"INT": "INTEGER"}.get(element, element)
            raise ValueError(f"Unsupported array element type '{shown}' for RETURNING ARRAY in JSON_QUERY().")
        for at, which in ((5, "error"), (4, "empty")):
            if _literal_text(literals, at, "NULL") == "EMPTY OBJECT":
                raise ValueError(f"Illegal on {which} behavior 'EMPTY OBJECT' for return type: {text}")
        if element.startswith("CHAR"):  # the code generator's: VARCHAR elements only
            raise ValueError(
                f"Unsupported array element type '{element}' for RETURNING ARRAY in JSON_QUERY()."
            )
    elif _returning(text) != "STRING":
        raise ValueError(f"Unsupported type '{text}' for RETURNING in JSON_VALUE().")
    return _type_named(text).nullable()


def _sql_json_query(
    text: str,
    spec: str,
    returning: str = "STRING",
    wrapper: str = "WITHOUT ARRAY",
    on_empty: str = "NULL",
    on_error: str = "NULL",
) -> Any:
    return json_query(text, spec, returning.startswith("ARRAY<"), wrapper, on_empty, on_error)


def _nullable_if_any(result: DataType) -> Callable[[list[DataType]], DataType]:
    return lambda args: result.nullable() if any(a.is_nullable() for a in args) else result.not_null()


def _unused(*args: Any) -> Any:  # the bound implementation runs instead
    raise AssertionError("a JSON constructor runs its bound implementation")


JSON_FUNCTIONS: list[FunctionDefinition] = [
    FunctionDefinition(
        "JSON_EXISTS", json_exists, lambda args: DataTypes.BOOLEAN(), literal_result=_exists_type
    ),
    FunctionDefinition("JSON_VALUE", _sql_json_value, lambda args: _STRING, literal_result=_value_type),
    FunctionDefinition("JSON_QUERY", _sql_json_query, lambda args: _STRING, literal_result=_query_type),
    FunctionDefinition("JSON_STRING", _unused, json_string_type, bind=json_string),
    FunctionDefinition(
        "JSON_OBJECT",
        _unused,
        lambda args: DataTypes.STRING(False),
        null_aware=True,
        literal_result=json_constructor_type("JSON_OBJECT", 3, 2),
        bind=json_object,
    ),
    FunctionDefinition(
        "JSON_ARRAY",
        _unused,
        lambda args: DataTypes.STRING(False),
        null_aware=True,
        literal_result=json_constructor_type("JSON_ARRAY", 2, 1),
        bind=json_array,
    ),
    FunctionDefinition("$JSON", json_text, lambda args: _STRING),
    FunctionDefinition("JSON_QUOTE", json_quote, _nullable_if_any(_STRING)),
    FunctionDefinition("JSON_UNQUOTE", json_unquote, _nullable_if_any(_STRING)),
    FunctionDefinition("IS_JSON", is_json, lambda args: DataTypes.BOOLEAN(False)),
]
