"""Column values -> JSON, as Flink's JSON formats write them (``RowDataToJsonConverters`` and
``JsonRowDataSerializationSchema``): the ``json`` format's records, and the rows inside the
``debezium-json`` and ``canal-json`` envelopes.

- ROW: an object of its field names (``json.encode.ignore-null-fields``: a NULL field left out,
  in nested rows too); ARRAY: an array (NULL elements kept); MAP: an object of its (character
  string) keys, NULL values kept; a NULL key fails, is dropped or written as
  ``json.map-null-key.literal`` by ``json.map-null-key.mode`` (``FAIL`` / ``DROP`` /
  ``LITERAL``). A map whose keys are not character strings is refused when the encoder is
  built, as Flink refuses it while planning.
- DECIMAL: a number, Jackson's ``BigDecimal`` text of the value without its trailing zeros
  (``1.50`` -> ``1.5``, ``100`` -> ``1E+2``), or with ``json.encode.decimal-as-plain-number``
  every digit of the column's scale (``1.50``, ``100``). FLOAT / DOUBLE: Java's text
  (``1.0E20``), NaN and the infinities as strings.
- BYTES / BINARY / VARBINARY: base64. DATE: ``yyyy-MM-dd``. TIME: ``HH:mm:ss`` and the
  fraction without trailing zeros. TIMESTAMP: ``json.timestamp-format.standard`` ``SQL``
  (``2024-01-02 03:04:05.12``) or ``ISO-8601`` (``2024-01-02T03:04:05.12``), the fraction to the
  nanosecond without trailing zeros; TIMESTAMP_LTZ the same instant in UTC with a ``Z``.
- Intervals: a year-month interval its months, a day-time interval its milliseconds.

Text is written as Jackson writes it: compact, non-ASCII characters as they are, control
characters escaped (``\\u001F``, upper-case hex, ``\\t`` ...).
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.common.java_values import java_double_str, java_float_str
from millstream.table.common.factories import format_option
from millstream.table.common.types import ArrayType, DataType, MapType, RowType

__all__ = ["JsonWriteOptions", "dumps", "json_encoder_of", "json_object_encoder"]

Encode = Callable[[Any], Any]

_TIMESTAMP_STANDARDS = ("SQL", "ISO-8601")
_MAP_NULL_KEY_MODES = ("FAIL", "DROP", "LITERAL")
_TEXT = frozenset({"CHAR", "VARCHAR", "STRING"})


class JsonWriteError(ValueError):
    """A value the JSON format cannot write (a NULL map key under ``FAIL``)."""


@dataclass(frozen=True)
class JsonWriteOptions:
    """The options of Flink's JSON writers (``JsonFormatOptions``)."""

    timestamp_standard: str = "SQL"
    map_null_key_mode: str = "FAIL"
    map_null_key_literal: str = "null"
    plain_decimals: bool = False
    ignore_null_fields: bool = False

    @staticmethod
    def of(options: dict[str, str], prefix: str, identifier: str) -> JsonWriteOptions:
        """The options of format ``identifier`` (``json``, ``debezium-json`` ...) in a table's
        options, checked as Flink's ``JsonFormatOptionsUtil`` checks them."""

        def option(key: str, default: str) -> str:
            return format_option(options, prefix, identifier, key, default)

        standard = option("timestamp-format.standard", "SQL")
        if standard not in _TIMESTAMP_STANDARDS:
            raise ValueError(
                f"Unsupported value '{standard}' for {identifier}.timestamp-format.standard. "
                f"Supported values are [SQL, ISO-8601]."
            )
        mode = option("map-null-key.mode", "FAIL").upper()
        if mode not in _MAP_NULL_KEY_MODES:
            raise ValueError(
                f"Unsupported value '{option('map-null-key.mode', 'FAIL')}' for option "
                f"{identifier}.map-null-key.mode. Supported values are [LITERAL, FAIL, DROP]."
            )
        return JsonWriteOptions(
            timestamp_standard=standard,
            map_null_key_mode=mode,
            map_null_key_literal=option("map-null-key.literal", "null"),
            plain_decimals=option("encode.decimal-as-plain-number", "false").lower() == "true",
            ignore_null_fields=option("encode.ignore-null-fields", "false").lower() == "true",
        )


_DEFAULT = JsonWriteOptions()


def json_object_encoder(
    names: list[str], types: list[DataType], options: JsonWriteOptions = _DEFAULT
) -> Callable[[tuple[Any, ...]], dict[str, Any]]:
    """A row (its values in column order) -> its JSON object."""
    return _row_encoder(names, types, options)


def json_encoder_of(data_type: DataType, options: JsonWriteOptions = _DEFAULT) -> Encode:
    """A value of ``data_type`` (not NULL) -> its JSON value (``dumps`` writes it)."""
    if isinstance(data_type, RowType):
        return _row_encoder(data_type.field_names(), data_type.field_types(), options)
    if isinstance(data_type, ArrayType):
        element = _nullable(json_encoder_of(data_type.element_type, options))
        return lambda values: [element(v) for v in values]
    if isinstance(data_type, MapType):
        return _map_encoder(data_type, options)
    root = data_type.root
    if root == "DECIMAL":
        return _decimal_encoder(data_type, options.plain_decimals)
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _timestamp_encoder(root == "TIMESTAMP_LTZ", options.timestamp_standard == "ISO-8601")
    if root == "RAW":
        raise ValueError(f"Not support to parse type: {data_type!r}")
    return _SCALARS.get(root, _same)  # BOOLEAN, the integers, a year-month interval (its months)


def _same(value: Any) -> Any:
    return value


def _nullable(encode: Encode) -> Encode:
    return lambda value: None if value is None else encode(value)


def _row_encoder(
    names: list[str], types: list[DataType], options: JsonWriteOptions
) -> Callable[[Any], dict[str, Any]]:
    fields = [(name, json_encoder_of(t, options)) for name, t in zip(names, types, strict=True)]
    if options.ignore_null_fields:
        return lambda row: {n: f(v) for (n, f), v in zip(fields, row, strict=True) if v is not None}
    return lambda row: {n: None if v is None else f(v) for (n, f), v in zip(fields, row, strict=True)}


def _map_encoder(data_type: MapType, options: JsonWriteOptions) -> Encode:
    if data_type.key_type.root not in _TEXT:
        raise ValueError(
            f"JSON format doesn't support non-string as key type of map. The type is: {data_type!r}"
        )
    value = _nullable(json_encoder_of(data_type.value_type, options))
    mode, literal = options.map_null_key_mode, options.map_null_key_literal

    def encode(entries: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in entries.items():
            if key is None:
                if mode == "DROP":
                    continue
                if mode == "FAIL":
                    raise JsonWriteError(
                        "JSON format doesn't support to serialize map data with null keys. You can drop "
                        "null key entries or encode null in literals by specifying map-null-key.mode option."
                    )
                key = literal
            out[str(key)] = value(item)
        return out

    return encode


def _decimal_encoder(data_type: DataType, plain: bool) -> Encode:
    """A DECIMAL as Jackson writes the node Flink makes of it: the value without trailing zeros
    (``BigDecimal.toString``), or, plain, the digits of the column's scale."""
    params = list(data_type.params)
    scale = int(params[1]) if len(params) > 1 else 0
    quantum = decimal.Decimal(1).scaleb(-scale)
    context = decimal.Context(prec=80)
    if plain:
        return lambda v: _NUMBER_MARK + format(decimal.Decimal(v).quantize(quantum, context=context), "f")

    def stripped(value: Any) -> str:
        number = decimal.Decimal(value)
        if number.is_zero():
            return _NUMBER_MARK + "0"
        return _NUMBER_MARK + str(number.normalize(context))

    return stripped


def _java_floating(text: Callable[[float], str]) -> Encode:
    """A FLOAT / DOUBLE as Jackson writes it: Java's text (``1.0E20``, ``0.1``); NaN and the
    infinities as strings (``QUOTE_NON_NUMERIC_NUMBERS``)."""

    def encode(value: Any) -> Any:
        number = float(value)
        if math.isfinite(number):
            return _NUMBER_MARK + text(number)  # put in place by dumps, as written
        return text(number)

    return encode


def _nano_of_second(value: Any) -> int:
    """The nanoseconds within the second of a time or timestamp (``nanosecond``: those below
    its microseconds, of a value that keeps them)."""
    return value.microsecond * 1000 + int(getattr(value, "nanosecond", 0) or 0)


def _fraction(nanos: int) -> str:
    """Java's ``appendFraction(NANO_OF_SECOND, 0, 9, true)``: none, or the digits needed."""
    return f".{nanos:09d}".rstrip("0") if nanos else ""


def _timestamp_encoder(local_zone: bool, iso: bool) -> Encode:
    """``TimeFormats``' SQL / ISO-8601 timestamps; a TIMESTAMP_LTZ (held as the wall clock of
    the session zone) written as its UTC time with a ``Z``."""
    separator = "T" if iso else " "
    suffix = "Z" if local_zone else ""

    def encode(value: datetime.datetime) -> str:
        nanos = _nano_of_second(value)
        if local_zone:
            value = (value.astimezone() if value.tzinfo is None else value).astimezone(datetime.UTC)
        return (
            f"{value.year:04d}-{value.month:02d}-{value.day:02d}{separator}"
            f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}{_fraction(nanos)}{suffix}"
        )

    return encode


def _base64(value: Any) -> str:
    return base64.b64encode(bytes(value)).decode("ascii")


def _date(value: datetime.date) -> str:
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


def _time(value: datetime.time) -> str:
    return f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}{_fraction(_nano_of_second(value))}"


def _interval_millis(value: Any) -> int:
    if isinstance(value, datetime.timedelta):
        micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
        return int(micros / 1000)
    return int(value)


_SCALARS: dict[str, Encode] = {
    "FLOAT": _java_floating(java_float_str),
    "DOUBLE": _java_floating(java_double_str),
    "BYTES": _base64,
    "BINARY": _base64,
    "VARBINARY": _base64,
    "DATE": _date,
    "TIME": _time,
    "INTERVAL_DAY_TIME": _interval_millis,
    "CHAR": str,
    "VARCHAR": str,
    "STRING": str,
}


# A number's text is written as a string marked with _NUMBER_MARK, which dumps unquotes: the
# digits as Java writes them, which json.dumps would not (1.0E20, 1.50).
_NUMBER_MARK = "\x00number:"
_MARKED_NUMBER = re.compile(r'"\\u0000number:([-+0-9.Ee]+)"')
_CONTROL = re.compile(r"(?<!\\)((?:\\\\)*)\\u00([01][0-9a-f])")  # an escape, not an escaped backslash


def dumps(value: Any) -> bytes:
    """Compact JSON text as Jackson writes it: numbers with their Java digits, non-ASCII text
    as it is, control characters as ``\\u001F`` (upper-case hex)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if "\\u00" in text:
        if "\\u0000number:" in text:
            text = _MARKED_NUMBER.sub(r"\1", text)
        text = _CONTROL.sub(lambda m: m.group(1) + "\\u00" + m.group(2).upper(), text)
    return text.encode("utf-8")
