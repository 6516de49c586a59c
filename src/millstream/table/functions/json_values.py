"""SQL values as JSON for Flink 2.3's JSON functions (``JsonGenerateUtils`` and the runtime
functions): JSON_STRING(x), JSON_OBJECT(KEY k VALUE v ... [NULL | ABSENT ON NULL]),
JSON_ARRAY(v ... [NULL | ABSENT ON NULL]), JSON(s), JSON_QUOTE, JSON_UNQUOTE and IS JSON.

Numbers are written as ``BigDecimal`` text (a DOUBLE ``1e20`` is ``1.0E+20``, a FLOAT ``0.1``
is ``0.10000000149011612``, NaN the string ``"NaN"``), DECIMAL with every digit of its scale,
TIMESTAMP as ISO ``2024-01-15T10:20:30.5``, TIMESTAMP_LTZ in UTC with a ``Z``, BYTES base64,
ROW / MAP as objects (a MAP's keys must be character strings), ARRAY as arrays; DATE, TIME,
intervals and an untyped NULL are refused. A nested JSON_OBJECT / JSON_ARRAY / JSON() value is
written as JSON, not as text (``RawJson``). JSON(s) is only written inside JSON_OBJECT and
JSON_ARRAY: ``s`` parsed and written again, blank is NULL.

JSON_QUOTE escapes ``/`` as ``\\/`` and every character above ASCII as ``\\u00e9`` (lower-case
hex; an emoji as its code point and its low surrogate, as Flink's loop writes it), control
characters other than ``\\b \\f \\n \\r \\t`` as they are; JSON_UNQUOTE returns text that is
not a JSON string literal unchanged.
"""

from __future__ import annotations

import base64
import datetime
import struct
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from millstream.table.common.printing import summary_string
from millstream.table.common.timestamps import nano_of_second
from millstream.table.common.types import ArrayType, DataType, DataTypes, MapType, RowType
from millstream.table.functions.definition import NOT_LITERAL
from millstream.table.functions.json_text import JsonParseError, RawJson, jsonize, parse_json

__all__ = [
    "JsonFunctionError",
    "is_json",
    "json_array",
    "json_constructor_type",
    "json_node",
    "json_object",
    "json_quote",
    "json_string",
    "json_string_type",
    "json_text",
    "json_unquote",
]

_TEXT = ("CHAR", "VARCHAR", "STRING")


class JsonFunctionError(ValueError):
    """A JSON function failed the job (Flink's ``TableRuntimeException``, or the Java error
    Flink's generated code raises)."""


def _literal_text(literals: list[Any], at: int, default: str) -> str:
    value = literals[at] if at < len(literals) else default
    return default if value is NOT_LITERAL or value is None else str(value)


Node = Callable[[Any], Any]


class _NotJson(ValueError):
    """A type Flink cannot write as JSON (its CodeGenException)."""


def _float32(value: Any) -> float:
    number = float(value)
    return struct.unpack("f", struct.pack("f", number))[0] if number == number else number


def _iso_text(value: datetime.datetime, nanos: int) -> str:
    """``DateTimeFormatter.ISO_LOCAL_DATE_TIME``: seconds always, the fraction as needed."""
    fraction = f".{nanos:09d}".rstrip("0") if nanos else ""
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d}T"
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}{fraction}"
    )


def _iso(value: datetime.datetime) -> str:
    return _iso_text(value, nano_of_second(value))


def _utc_iso(value: datetime.datetime) -> str:
    """A TIMESTAMP_LTZ (the session zone's wall clock) as its UTC time and ``Z``."""
    aware = value.astimezone() if value.tzinfo is None else value
    return _iso_text(aware.astimezone(datetime.UTC), nano_of_second(value)) + "Z"


def _base64(value: Any) -> str:
    return base64.b64encode(bytes(value)).decode("ascii")


_SCALAR_NODES: dict[str, Node] = {
    "CHAR": str,
    "VARCHAR": str,
    "STRING": str,
    "BOOLEAN": bool,
    "TINYINT": int,
    "SMALLINT": int,
    "INT": int,
    "BIGINT": int,
    "FLOAT": _float32,
    "DOUBLE": float,
    "TIMESTAMP": _iso,
    "TIMESTAMP_LTZ": _utc_iso,
    "BINARY": _base64,
    "VARBINARY": _base64,
    "BYTES": _base64,
}


def json_node(data_type: DataType) -> Node:
    """The conversion of a value of ``data_type`` to what ``jsonize`` writes; raises _NotJson
    for a type Flink cannot write (``JsonGenerateUtils.createNodeTerm``)."""
    if isinstance(data_type, ArrayType):
        element = _nullable_node(json_node(data_type.element_type))
        return lambda values: [element(v) for v in values]
    if isinstance(data_type, RowType):
        fields = [(f.name, _nullable_node(json_node(f.data_type))) for f in data_type.fields]
        return lambda row: {name: convert(row[i]) for i, (name, convert) in enumerate(fields)}
    if isinstance(data_type, MapType):
        key_type = data_type.key_type
        if key_type.root not in _TEXT:
            raise _NotJson(
                f"Type '{summary_string(key_type)}' is not supported for JSON conversion. The key type must "
                "be a character string."
            )
        value = _nullable_node(json_node(data_type.value_type))

        def convert_map(entries: Any) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for index, (key, item) in enumerate(dict(entries).items()):
                if key is None:
                    raise JsonFunctionError(
                        f"Key at index {index} was null. This is not supported during conversion to JSON."
                    )
                out[str(key)] = value(item)
            return out

        return convert_map
    if data_type.root == "DECIMAL":  # DecimalData: every digit of the type's scale
        exponent = Decimal(1).scaleb(-int(data_type.params[1])) if len(data_type.params) > 1 else None
        return lambda v: _decimal(v, exponent)
    node = _SCALAR_NODES.get(data_type.root)
    if node is None:
        raise _NotJson(f"Type '{summary_string(data_type)}' is not scalar or cannot be converted into JSON.")
    return node


def _decimal(value: Any, exponent: Decimal | None) -> Decimal:
    number = value if isinstance(value, Decimal) else Decimal(str(value))
    if exponent is not None and number.as_tuple().exponent != exponent.as_tuple().exponent:
        return number.quantize(exponent)
    return number


def _nullable_node(node: Node) -> Node:
    return lambda value: None if value is None else node(value)


def _nodes(types: list[DataType], raw: str) -> list[Node]:
    """The conversion of each value argument (a raw one, a nested constructor's text: as it is)."""
    nodes: list[Node] = []
    for at, data_type in enumerate(types):
        if at < len(raw) and raw[at] == "1":
            nodes.append(RawJson)
        elif data_type.root == "NULL":  # an untyped NULL: Calcite's ANY
            raise ValueError("Type is not supported: ANY")
        else:
            try:
                nodes.append(json_node(data_type))
            except _NotJson as error:
                raise ValueError(str(error)) from None
    return nodes


def json_string_type(args: list[DataType]) -> DataType:
    (arg,) = args
    if arg.root in ("DATE", "TIME", "INTERVAL_DAY_TIME", "INTERVAL_YEAR_MONTH"):
        raise ValueError(
            "Unsupported argument type. Expected type of family 'CHARACTER_STRING' but actual type was "
            f"'{summary_string(arg)}'."
        )
    return DataTypes.STRING(arg.is_nullable())


def json_string(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    if args[0].root == "NULL":  # JSON_STRING(NULL): NULL
        return lambda value: None
    (node,) = _nodes(args, "")
    return lambda value: jsonize(node(value))


def json_object(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    raw = _literal_text(literals, 1, "")
    values = _nodes(args[3::2], raw)

    def apply(on_null: str, raw_flags: str, *pairs: Any) -> str:
        out: dict[str, Any] = {}
        for at, convert in enumerate(values):
            key, value = pairs[2 * at], pairs[2 * at + 1]
            if key is None:
                raise JsonFunctionError("JSON_OBJECT's key must not be NULL")
            if value is None:
                if on_null == "ABSENT":
                    continue
                out[str(key)] = None
            else:
                out[str(key)] = convert(value)
        return jsonize(out)

    return apply


def json_array(args: list[DataType], literals: list[Any]) -> Callable[..., Any]:
    raw = _literal_text(literals, 1, "")
    values = _nodes(args[2:], raw)

    def apply(on_null: str, raw_flags: str, *items: Any) -> str:
        out: list[Any] = []
        for convert, value in zip(values, items, strict=True):
            if value is None:
                if on_null == "NULL":
                    out.append(None)
            else:
                out.append(convert(value))
        return jsonize(out)

    return apply


def json_constructor_type(
    name: str, first: int, step: int
) -> Callable[[list[DataType], list[Any]], DataType]:
    """JSON_OBJECT / JSON_ARRAY: STRING NOT NULL; a key must be a character string."""

    def rule(args: list[DataType], literals: list[Any]) -> DataType:
        if step == 2:
            for key in args[2::2]:
                if key.is_nullable():
                    raise ValueError(
                        "Argument to function JSON_OBJECT must not be NULL: a key may not be NULL"
                    )
                if key.root not in _TEXT:
                    raise ValueError(
                        f"Cannot apply '{name}' to arguments: the key of a JSON_OBJECT entry must be a "
                        f"character string, got {summary_string(key)}"
                    )
        raw = _literal_text(literals, 1, "")
        _nodes(args[first::step], raw)  # refuses the types Flink cannot write
        return DataTypes.STRING(False)

    return rule


def json_text(text: str) -> str | None:
    """``SqlJsonUtils.json``: the text parsed and written again; blank is NULL."""
    trimmed = text.strip("".join(chr(c) for c in range(33)))
    if not trimmed:
        return None
    try:
        return jsonize(parse_json(trimmed))
    except JsonParseError as error:
        reason = str(error).split("\n")[0]
        raise JsonFunctionError(
            f'Invalid JSON string in JSON(value) function: "{text}". Error: {reason}'
        ) from None


# -- JSON_QUOTE / JSON_UNQUOTE / IS JSON ----------------------------------------------------------

_QUOTE_ASCII = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def json_quote(text: str) -> str:
    """Flink's ``JsonQuoteFunction``: per UTF-16 unit, its code point (the code point of a
    surrogate pair at its high surrogate) as ``\\u%04x`` above ASCII."""
    units = text.encode("utf-16-be", "surrogatepass")
    codes = [int.from_bytes(units[i : i + 2], "big") for i in range(0, len(units), 2)]
    out = []
    for at, code in enumerate(codes):
        if 0xD800 <= code < 0xDC00 and at + 1 < len(codes) and 0xDC00 <= codes[at + 1] < 0xE000:
            code = 0x10000 + ((code - 0xD800) << 10) + (codes[at + 1] - 0xDC00)
        if code < 128:
            out.append(_QUOTE_ASCII.get(chr(code), chr(code)))
        else:
            out.append(f"\\u{code:04x}")
    return '"' + "".join(out) + '"'


_UNQUOTE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _is_json_value(text: str) -> bool:
    try:
        parse_json(text)
    except JsonParseError:
        return False
    return True


def json_unquote(text: str) -> str:
    """Flink's ``JsonUnquoteFunction``: a JSON text that starts and ends with a quote, its
    escapes undone; any other text as it is."""
    if not _is_json_value(text) or not (text.startswith('"') and text.endswith('"')):
        return text
    inner, out, at = text[1:-1], [], 0
    while at < len(inner):
        char = inner[at]
        if char == "\\" and at + 1 < len(inner):
            escape = inner[at + 1]
            if escape == "u":
                out.append(chr(int(inner[at + 2 : at + 6], 16)))
                at += 6
                continue
            if escape not in _UNQUOTE:  # Flink's IllegalArgumentException: the text as it is
                return text
            out.append(_UNQUOTE[escape])
            at += 2
            continue
        out.append(char)
        at += 1
    joined = "".join(out)
    return joined.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def is_json(text: str, kind: str = "VALUE") -> bool:
    try:
        value = parse_json(text)
    except JsonParseError:
        return False
    if kind == "OBJECT":
        return isinstance(value, dict)
    if kind == "ARRAY":
        return isinstance(value, list)
    if kind == "SCALAR":
        return not isinstance(value, (dict, list))
    return True
