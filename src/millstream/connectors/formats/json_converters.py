"""Parsed JSON values -> column values, as Flink's JSON format converts them
(``JsonParserToRowDataConverters``, the converters of ``'format' = 'json'`` since Flink 1.18).

- Numbers: an INT or BIGINT column takes a JSON integer in range, or a JSON number with a
  fraction truncated toward zero (``4.5`` -> 4), or a string Java's ``Integer.parseInt`` reads
  after trimming (``" 9 "`` -> 9); an integer out of range, ``true`` or ``"x3"`` is an error.
  TINYINT and SMALLINT take integers in range or such strings; FLOAT and DOUBLE any number or a
  string ``Double.parseDouble`` reads; DECIMAL a number or string, rounded half up to its scale
  (NULL when it has more digits than its precision, as ``DecimalData.fromBigDecimal``).
- BOOLEAN: ``true``/``false``, else ``Boolean.parseBoolean`` of the text (``"TRUE"`` -> True,
  anything else False). STRING: a string's text, a number's text as written, an object or
  array as compact JSON.
- DATE ``yyyy-MM-dd``; TIME ``HH:mm:ss[.fraction]`` (milliseconds kept); TIMESTAMP and
  TIMESTAMP_LTZ in ``json.timestamp-format.standard``'s form, ``SQL`` (``2024-01-02
  03:04:05.6``, LTZ with a trailing ``Z``) or ``ISO-8601`` (``2024-01-02T03:04:05.6``).
  BYTES: base64 text.

Without ``ignore_parse_errors`` a value that does not convert raises ValueError naming the
field. With it, the value is NULL, and only that value: the other fields of the row (and the
other elements of an array) are kept, as Flink wraps every converter so; a record that is not
a JSON object, or not JSON at all, is dropped (``None``).

Per-record path: one closure per column, built once.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import decimal
import json
import re
import struct
from collections.abc import Callable
from typing import Any

from millstream.common.types import Row
from millstream.table.common.timestamps import with_nano_of_second
from millstream.table.common.types import ArrayType, DataType, MapType, RowType

__all__ = ["JsonFormatError", "json_loads", "json_row_converter", "json_text", "json_value_converter"]

Convert = Callable[[Any], Any]


class JsonFormatError(ValueError):
    """A JSON record or value the format cannot read."""


class _NumberText(float):
    """A JSON number with a fraction or exponent, remembering its text as written (Jackson's
    ``getText`` of the token: what a STRING column reads, what a DECIMAL column parses)."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> _NumberText:
        number = super().__new__(cls, text)
        number.text = text
        return number


def _no_constant(name: str) -> Any:
    raise JsonFormatError(f"Non-standard token '{name}': JSON has no NaN or Infinity")


_DECODER = json.JSONDecoder(parse_float=_NumberText, parse_constant=_no_constant)
_LEADING_SPACE = re.compile(r"[ \t\n\r]*")


def json_loads(data: bytes | str) -> Any:
    """The first JSON value of ``data``, as Jackson's parser reads a record: what follows the
    value is not read (``{"a":1} trailing`` is ``{"a": 1}``); raises ValueError."""
    text = data.decode("utf-8") if isinstance(data, bytes | bytearray) else data
    start = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]
    return _DECODER.raw_decode(text, start)[0]


def json_row_converter(
    names: list[str],
    types: list[DataType],
    fail_on_missing: bool,
    ignore_parse_errors: bool,
    timestamp_standard: str = "SQL",
) -> Callable[[Any], tuple[Any, ...]]:
    """A parsed JSON object -> the tuple of the named columns (a missing field: NULL, or an
    error with ``fail_on_missing``); raises JsonFormatError for a value that is not an object,
    and, without ``ignore_parse_errors``, for a field that does not convert (naming it)."""
    fields = [
        (name, json_value_converter(t, ignore_parse_errors, timestamp_standard))
        for name, t in zip(names, types, strict=True)
    ]
    missing = object()

    def convert(record: Any) -> tuple[Any, ...]:
        if type(record) is not dict:
            raise JsonFormatError(f"not a JSON object: {json_text(record)[:80]}")
        values: list[Any] = []
        for name, field in fields:
            value = record.get(name, missing)
            if value is missing:
                if fail_on_missing:
                    raise JsonFormatError(f"Could not find field with name '{name}'.")
                values.append(None)
            elif value is not None:
                try:
                    values.append(field(value))
                except (ValueError, TypeError, ArithmeticError) as err:
                    raise JsonFormatError(f"Fail to deserialize at field: {name}: {err}") from err
            else:
                values.append(None)
        return tuple(values)

    return convert


def json_value_converter(
    data_type: DataType, ignore_parse_errors: bool, timestamp_standard: str = "SQL"
) -> Convert:
    """A parsed JSON value (not None) -> the value of ``data_type``; with ``ignore_parse_errors``
    a value that does not convert is None instead of an error."""
    convert = _converter(data_type, ignore_parse_errors, timestamp_standard.upper())
    if not ignore_parse_errors:
        return convert

    def lenient(value: Any) -> Any:
        try:
            return convert(value)
        except (ValueError, TypeError, ArithmeticError):
            return None

    return lenient


def _nullable(convert: Convert) -> Convert:
    return lambda value: None if value is None else convert(value)


def _converter(data_type: DataType, ignore: bool, standard: str) -> Convert:
    if isinstance(data_type, ArrayType):
        element = _nullable(json_value_converter(data_type.element_type, ignore, standard))
        return lambda value: [element(v) for v in _expect(list, value, "array")]
    if isinstance(data_type, MapType):
        if data_type.key_type.root not in ("STRING", "VARCHAR", "CHAR"):
            raise ValueError(
                f"JSON format doesn't support non-string as key type of map. The type is: {data_type!r}"
            )
        item = _nullable(json_value_converter(data_type.value_type, ignore, standard))
        return lambda value: {k: item(v) for k, v in _expect(dict, value, "object").items()}
    if isinstance(data_type, RowType):
        return _nested_row(data_type, ignore, standard)
    root = data_type.root
    if root == "DECIMAL":
        return _decimal(*data_type.params)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _timestamp(root, standard)
    make = _SCALARS.get(root)
    if make is None:
        raise ValueError(f"the JSON format cannot read values of type {data_type!r}")
    return make


def _nested_row(data_type: RowType, ignore: bool, standard: str) -> Convert:
    names = data_type.field_names()
    fields = [_nullable(json_value_converter(t, ignore, standard)) for t in data_type.field_types()]

    def convert(value: Any) -> Row:
        obj = _expect(dict, value, "object")
        row = Row(*[field(obj.get(name)) for name, field in zip(names, fields, strict=True)])
        row.set_field_names(names)
        return row

    return convert


def _expect(kind: type, value: Any, name: str) -> Any:
    if type(value) is not kind:
        raise JsonFormatError(f"expected a JSON {name}, got {json_text(value)[:80]}")
    return value


def json_text(value: Any) -> str:
    """Jackson's ``getText`` of a value: a string's text, a number as written, ``true``; an
    object or array as compact JSON (its tree's ``toString``)."""
    kind = type(value)
    if kind is str:
        return value
    if kind is _NumberText:
        return value.text
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _is_integer(value: Any) -> bool:
    return type(value) is int


def _is_number(value: Any) -> bool:
    return type(value) is int or type(value) is _NumberText


# -- numbers, as Java parses them ---------------------------------------------------------------------------

_JAVA_INTEGER = re.compile(r"[+-]?[0-9]+")
_JAVA_FLOATING = re.compile(r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)")
_JAVA_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _java_trim(text: str) -> str:
    """``String.trim``: the characters up to a space stripped from both ends."""
    return text.strip("".join(chr(c) for c in range(0x21)))


def _parse_integer(text: str, bits: int) -> int:
    """``Integer.parseInt`` (``Long``, ``Short``, ``Byte``) of ``text`` trimmed."""
    trimmed = _java_trim(text)
    if _JAVA_INTEGER.fullmatch(trimmed) is None:
        raise JsonFormatError(f'For input string: "{trimmed}"')
    return _in_range(int(trimmed), bits, trimmed)


def _in_range(value: int, bits: int, text: str) -> int:
    if not -(1 << (bits - 1)) <= value < 1 << (bits - 1):
        raise JsonFormatError(f"Numeric value ({text}) out of range of a {bits}-bit integer")
    return value


def _parse_floating(text: str) -> float:
    """``Double.parseDouble`` of ``text`` trimmed (``1.5``, ``1e3``, ``2f``, ``NaN``, ``-Infinity``)."""
    trimmed = _java_trim(text)
    if _JAVA_FLOATING.fullmatch(trimmed) is None:
        raise JsonFormatError(f'For input string: "{trimmed}"')
    return float(trimmed.rstrip("fFdD"))


def _integer(bits: int, takes_fractions: bool) -> Convert:
    """An integer column: a JSON integer in range; with ``takes_fractions`` (INT, BIGINT) a
    number with a fraction truncated toward zero (Jackson's ``getIntValue``); else a string."""

    def convert(value: Any) -> int:
        kind = type(value)
        if kind is int:
            return _in_range(value, bits, str(value))
        if kind is _NumberText:
            if not takes_fractions:
                return _parse_integer(value.text, bits)
            return _in_range(int(value), bits, value.text)
        return _parse_integer(json_text(value), bits)

    return convert


_FLOAT32 = struct.Struct("f")


def _floating(single: bool) -> Convert:
    def convert(value: Any) -> float:
        number = float(value) if _is_number(value) else _parse_floating(json_text(value))
        return _FLOAT32.unpack(_FLOAT32.pack(number))[0] if single else number

    return convert


def _decimal(precision: int, scale: int) -> Convert:
    exponent = decimal.Decimal(1).scaleb(-scale)
    context = decimal.Context(prec=precision + 2)  # the digits a value that fits can have, and more

    def convert(value: Any) -> decimal.Decimal | None:
        if type(value) is str:
            text = _java_trim(value)
        elif _is_number(value):
            text = json_text(value)
        else:
            raise JsonFormatError(f"cannot read {json_text(value)[:80]} as a DECIMAL")
        if _JAVA_DECIMAL.fullmatch(text) is None:
            raise JsonFormatError(f"Character array is missing \"exponent\" mark 'e' or 'E': {text!r}")
        exact = decimal.Decimal(text)
        # DecimalData.fromBigDecimal: rounded half up to the scale; NULL with more digits than
        # the precision (a value whose integer part alone has too many is not rounded at all)
        if exact.adjusted() > precision - scale:
            return None
        rounded = exact.quantize(exponent, rounding=decimal.ROUND_HALF_UP, context=context)
        return None if rounded.adjusted() >= precision - scale else rounded

    return convert


def _boolean(value: Any) -> bool:
    if type(value) is bool:
        return value
    return type(value) is str and _java_trim(value).lower() == "true"


def _string(value: Any) -> str:
    return value if type(value) is str else json_text(value)


def _bytes(value: Any) -> bytes:
    if type(value) is not str:
        raise JsonFormatError(f"cannot read {json_text(value)[:80]} as base64 bytes")
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error as err:
        raise JsonFormatError(f"not base64: {value[:80]!r}") from err


# -- dates and times ----------------------------------------------------------------------------------------

_DATE = r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?"
_ISO_TIME = r"([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?"
_TIMESTAMP_FORMS = {
    ("TIMESTAMP", "SQL"): re.compile(f"{_DATE} {_TIME}"),
    ("TIMESTAMP_LTZ", "SQL"): re.compile(f"{_DATE} {_TIME}Z"),
    ("TIMESTAMP", "ISO-8601"): re.compile(f"{_DATE}T{_ISO_TIME}"),
    ("TIMESTAMP_LTZ", "ISO-8601"): re.compile(f"{_DATE}T{_ISO_TIME}Z"),
}


def _fields(match: re.Match[str]) -> list[int]:
    """Year ... second and nanosecond of a matched date-time."""
    *whole, fraction = match.groups()
    return [int(part or 0) for part in whole] + [int((fraction or "").ljust(9, "0"))]


def _matched(pattern: re.Pattern[str], value: Any, what: str) -> re.Match[str]:
    match = pattern.fullmatch(value) if type(value) is str else None
    if match is None:
        raise JsonFormatError(f"Text '{json_text(value)[:80]}' could not be parsed as a {what}")
    return match


def _date(value: Any) -> datetime.date:
    year, month, day = (int(part) for part in _matched(_DATE_ONLY, value, "DATE").groups())
    return datetime.date(year, month, day)


_DATE_ONLY = re.compile(_DATE)
_TIME_ONLY = re.compile(_TIME)


def _time(value: Any) -> datetime.time:
    hour, minute, second, nano = _fields(_matched(_TIME_ONLY, value, "TIME"))
    return datetime.time(hour, minute, second, nano // 1_000_000 * 1000)  # milliseconds of the day


def _timestamp(root: str, standard: str) -> Convert:
    pattern = _TIMESTAMP_FORMS.get((root, standard))
    if pattern is None:
        raise ValueError(f"Unsupported timestamp format '{standard}': use 'SQL' or 'ISO-8601'")

    def convert(value: Any) -> datetime.datetime:
        year, month, day, hour, minute, second, nano = _fields(_matched(pattern, value, root))
        stamp = with_nano_of_second(datetime.datetime(year, month, day, hour, minute, second), nano)
        if root == "TIMESTAMP_LTZ":  # an instant in UTC, held as the local wall-clock time
            return stamp.replace(tzinfo=datetime.UTC).astimezone().replace(tzinfo=None)
        return stamp

    return convert


_SCALARS: dict[str, Convert] = {
    "NULL": lambda value: None,
    "BOOLEAN": _boolean,
    "TINYINT": _integer(8, False),
    "SMALLINT": _integer(16, False),
    "INT": _integer(32, True),
    "BIGINT": _integer(64, True),
    "FLOAT": _floating(True),
    "DOUBLE": _floating(False),
    "CHAR": _string,
    "VARCHAR": _string,
    "STRING": _string,
    "BYTES": _bytes,
    "BINARY": _bytes,
    "VARBINARY": _bytes,
    "DATE": _date,
    "TIME": _time,
}
