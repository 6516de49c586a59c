"""The insert-only table formats of single records (a Kafka message, a line of a file):
``json``, ``csv`` and ``raw``, with Flink's option names.

- ``json``: one JSON object per record, its values converted as Flink's (``json_converters``).
  ``json.fail-on-missing-field`` (false: a missing field is NULL), ``json.ignore-parse-errors``
  (a value that does not convert is NULL and the rest of the row kept; a record that is not a
  JSON object is skipped), ``json.timestamp-format.standard`` (``SQL`` or ``ISO-8601``),
  ``json.encode.decimal-as-plain-number``. Timestamps are written in Flink's SQL
  format (``2024-01-01 12:00:00.5``; TIMESTAMP_LTZ with a ``Z``), BYTES as base64.
- ``csv``: one CSV line per record, read and written as Jackson's CSV (``csv_jackson``: an
  empty trailing field more is allowed; a text field is quoted when Jackson would quote it).
  ``csv.field-delimiter`` (``,``), ``csv.quote-character`` (``"``),
  ``csv.disable-quote-character``, ``csv.escape-character``, ``csv.null-literal``,
  ``csv.array-element-delimiter``, ``csv.ignore-parse-errors``, ``csv.allow-comments``.
- ``raw``: the record's bytes as the table's single column: STRING (``raw.charset``, UTF-8),
  BYTES, or a number in ``raw.endianness`` (big-endian) byte order; a NULL is a null message.
"""

from __future__ import annotations

import base64
import csv
import datetime
import json
import math
import re
import struct
from collections.abc import Callable
from typing import Any

from millstream.common.java_values import java_double_str, java_float_str
from millstream.connectors.formats.csv_jackson import (
    CsvWriteOptions,
    arity_error,
    jackson_fields,
    strip_zeros,
)
from millstream.connectors.formats.json_converters import json_loads, json_row_converter
from millstream.table.common.factories import Decoder, Encoder, FormatFactory, format_option
from millstream.table.common.types import DataType

__all__ = ["CSV", "JSON", "RAW", "csv_field", "json_encoder_of"]


class FormatError(ValueError):
    """A record the format cannot read or write."""


def _flag(options: dict[str, str], prefix: str, identifier: str, key: str) -> bool:
    return format_option(options, prefix, identifier, key, "false").lower() == "true"


# -- json -------------------------------------------------------------------------------------------------


def _sql_timestamp(value: datetime.datetime) -> str:
    """Flink's JSON ``SQL`` timestamp format: the fraction only as long as it needs."""
    text = value.strftime("%Y-%m-%d %H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    return text


def _sql_time(value: datetime.time) -> str:
    """Flink's JSON ``SQL_TIME_FORMAT``: the fraction only as long as it needs."""
    text = value.strftime("%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    return text


def json_encoder_of(data_type: DataType, plain_decimals: bool = False) -> Callable[[Any], Any]:
    """A column value -> its JSON value, as Flink's ``RowDataToJsonConverters``."""
    from millstream.table.common.types import ArrayType, MapType, RowType

    root = data_type.root
    if isinstance(data_type, ArrayType):
        element = json_encoder_of(data_type.element_type, plain_decimals)
        return lambda v: [None if e is None else element(e) for e in v]
    if isinstance(data_type, MapType):
        value = json_encoder_of(data_type.value_type, plain_decimals)
        return lambda v: {str(k): None if e is None else value(e) for k, e in v.items()}
    if isinstance(data_type, RowType):
        fields = [
            (n, json_encoder_of(t, plain_decimals))
            for n, t in zip(data_type.field_names(), data_type.field_types(), strict=True)
        ]
        return lambda v: {n: None if e is None else f(e) for (n, f), e in zip(fields, v, strict=True)}
    if root == "DECIMAL":
        # Jackson's decimal node strips trailing zeros (1.50 -> 1.5, 100 -> 1E+2) and writes
        # BigDecimal.toString, or the plain digits when asked (dumps puts them in place)
        if plain_decimals:
            return lambda v: _DECIMAL_MARK + format(strip_zeros(v), "f")
        return lambda v: _DECIMAL_MARK + str(strip_zeros(v))
    if root == "TIMESTAMP":
        return _sql_timestamp
    if root == "TIMESTAMP_LTZ":
        return lambda v: _sql_timestamp(v.astimezone(datetime.UTC) if v.tzinfo is None else v) + "Z"
    if root == "DATE":
        return lambda v: v.isoformat()
    if root == "TIME":
        return _sql_time
    if root in ("BYTES", "BINARY", "VARBINARY"):
        return lambda v: base64.b64encode(bytes(v)).decode("ascii")
    if root in ("FLOAT", "DOUBLE"):
        return _java_floating(java_float_str if root == "FLOAT" else java_double_str)
    return lambda v: v


def _java_floating(text: Callable[[float], str]) -> Callable[[Any], Any]:
    """A FLOAT / DOUBLE as Jackson writes it: Java's text (``1.0E20``, ``0.1``); NaN and the
    infinities as strings (``QUOTE_NON_NUMERIC_NUMBERS``)."""

    def encode(value: Any) -> Any:
        number = float(value)
        if math.isfinite(number):
            return _DECIMAL_MARK + text(number)  # put in place by dumps, as a decimal's digits
        return text(number)

    return encode


_DECIMAL_MARK = "\x00decimal:"
_MARKED_DECIMAL = re.compile(r'"\\u0000decimal:([-+0-9.Ee]+)"')


def json_object_decoder(
    names: list[str], types: list[DataType], fail_on_missing: bool, ignore_parse_errors: bool = False
) -> Callable[[Any], tuple[Any, ...]]:
    """A parsed JSON object (``json_loads``) -> the row of the named fields (a missing field:
    NULL), converted as Flink's JSON format (``json_converters``); with ``ignore_parse_errors``
    a field that does not convert is NULL."""
    return json_row_converter(names, types, fail_on_missing, ignore_parse_errors)


def json_object_encoder(
    names: list[str], types: list[DataType], plain_decimals: bool = False
) -> Callable[[tuple[Any, ...]], dict[str, Any]]:
    """A row -> its JSON object."""
    fields = [(n, json_encoder_of(t, plain_decimals)) for n, t in zip(names, types, strict=True)]
    return lambda row: {n: None if v is None else f(v) for (n, f), v in zip(fields, row, strict=True)}


def dumps(value: Any) -> bytes:
    """Compact JSON text, as Jackson writes it (decimals as numbers with their digits)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if "\\u0000decimal:" in text:
        text = _MARKED_DECIMAL.sub(r"\1", text)
    return text.encode("utf-8")


class JsonFormatFactory(FormatFactory):
    """``'format' = 'json'``."""

    identifier = "json"

    def decoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Decoder:
        ignore = _flag(options, prefix, "json", "ignore-parse-errors")
        to_row = json_row_converter(
            names,
            types,
            _flag(options, prefix, "json", "fail-on-missing-field"),
            ignore,
            format_option(options, prefix, "json", "timestamp-format.standard", "SQL"),
        )

        def decode(data: bytes) -> tuple[Any, ...] | None:
            try:
                return to_row(json_loads(data))
            except ValueError as err:
                if ignore:
                    return None
                raise FormatError(f"Failed to deserialize JSON '{_preview(data)}': {err}") from err

        return decode

    def encoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Encoder:
        to_object = json_object_encoder(
            names, types, _flag(options, prefix, "json", "encode.decimal-as-plain-number")
        )
        return lambda change: dumps(to_object(change[1]))


def _preview(data: bytes) -> str:
    text = data.decode("utf-8", "replace")
    return text if len(text) <= 80 else text[:77] + "..."


# -- csv --------------------------------------------------------------------------------------------------


def _single_character(options: dict[str, str], prefix: str, key: str, default: str) -> str:
    """A character option, checked as Flink's ``CsvCommons.validateCharacterVal``."""
    value = format_option(options, prefix, "csv", key, default)
    if key == "field-delimiter":
        value = value.encode().decode("unicode_escape")  # '\t'
    if len(value) != 1 and value != default:
        raise ValueError(f"Option 'csv.{key}' must be a string with single character, but was: {value}")
    return value


def _csv_dialect(options: dict[str, str], prefix: str) -> dict[str, Any]:
    delimiter = _single_character(options, prefix, "field-delimiter", ",")
    quote: str | None = _single_character(options, prefix, "quote-character", '"')
    if _flag(options, prefix, "csv", "disable-quote-character"):
        quote = None
    escape = _single_character(options, prefix, "escape-character", "") or None
    return {
        "delimiter": delimiter,
        "quotechar": quote,
        "quoting": csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE,
        "escapechar": escape,
    }


def csv_write_options(
    options: dict[str, str], prefix: str = "", line_separator: str = "", records: bool = True
) -> CsvWriteOptions:
    """How the ``csv`` format's options (``csv.field-delimiter``, ``csv.quote-character``,
    ``csv.disable-quote-character``, ``csv.escape-character``, ``csv.null-literal``,
    ``csv.array-element-delimiter``) write fields: of records (``CsvRowDataSerializationSchema``)
    or, not ``records``, of files (``CsvBulkWriter``: decimals without trailing zeros)."""
    dialect = _csv_dialect(options, prefix)
    return CsvWriteOptions(
        separator=dialect["delimiter"],
        quote=dialect["quotechar"],
        escape=dialect["escapechar"],
        null_literal=format_option(options, prefix, "csv", "null-literal", ""),
        array_separator=format_option(options, prefix, "csv", "array-element-delimiter", ";"),
        line_separator=line_separator,
        exact_decimals=records,
    )


class CsvFormatFactory(FormatFactory):
    """``'format' = 'csv'``."""

    identifier = "csv"

    def decoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Decoder:
        dialect = _csv_dialect(options, prefix)
        null_literal = format_option(options, prefix, "csv", "null-literal", "") or None
        ignore = _flag(options, prefix, "csv", "ignore-parse-errors")
        comments = _flag(options, prefix, "csv", "allow-comments")
        parsers = [(n, t.root, t.from_text()) for n, t in zip(names, types, strict=True)]

        def decode(data: bytes) -> tuple[Any, ...] | None:
            text = data.decode("utf-8")
            if comments and text.startswith("#"):
                return None
            try:
                fields = next(csv.reader([text.rstrip("\r\n")], strict=True, **dialect), [])
                fields = jackson_fields(fields, len(parsers))
                if ignore:
                    return lenient_csv_row(parsers, fields, null_literal)
                mismatch = arity_error(fields, len(parsers))
                if mismatch is not None:
                    raise FormatError(mismatch)
                return tuple(csv_field(p, f, null_literal) for p, f in zip(parsers, fields, strict=True))
            except (ValueError, csv.Error) as err:
                if ignore:
                    return None
                raise FormatError(f"Failed to deserialize CSV row '{_preview(data)}': {err}") from err

        return decode

    def encoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Encoder:
        write = csv_write_options(options, prefix)
        separator = write.separator
        columns = [write.column_writer(t) for t in types]

        def encode(change: tuple[str, tuple[Any, ...]]) -> bytes:
            return separator.join([w(v) for w, v in zip(columns, change[1], strict=True)]).encode("utf-8")

        return encode


def lenient_csv_row(
    parsers: list[tuple[str, str, Callable[[str], Any]]], fields: list[str], null_literal: str | None
) -> tuple[Any, ...] | None:
    """A CSV row read as Flink's ``csv.ignore-parse-errors`` reads it (after ``jackson_fields``
    dropped an empty trailing field): a field that does not parse is NULL, missing trailing
    fields are NULL, and a row with more fields than columns is skipped (None). Seen in PyFlink
    2.3: ``1,x,1.5 / oops,y,2.5 / 3,z / 4,w,5.5,extra / 5,v,notadouble`` into (INT, STRING,
    DOUBLE) gave (1,x,1.5), (NULL,y,2.5), (3,z,NULL), (5,v,NULL)."""
    if len(fields) > len(parsers):
        return None
    values: list[Any] = []
    for index, parser in enumerate(parsers):
        if index >= len(fields):
            values.append(None)
            continue
        try:
            values.append(csv_field(parser, fields[index], null_literal))
        except ValueError:
            values.append(None)
    return tuple(values)


def csv_field(parser: tuple[str, str, Callable[[str], Any]], text: str, null_literal: str | None) -> Any:
    """A CSV field's value by its (column name, type root, parser); raises FormatError naming
    the column."""
    name, root, parse = parser
    if null_literal is not None and text == null_literal:
        return None
    if text == "" and root not in ("STRING", "VARCHAR", "CHAR"):
        return None  # Flink's CSV reads an empty field of a non-string column as NULL
    try:
        return parse(text)
    except ValueError as err:
        raise FormatError(f"field '{name}': {err}") from err


# -- raw --------------------------------------------------------------------------------------------------

_RAW_NUMBERS = {
    "TINYINT": "b",
    "SMALLINT": "h",
    "INT": "i",
    "BIGINT": "q",
    "FLOAT": "f",
    "DOUBLE": "d",
    "BOOLEAN": "?",
}


class RawFormatFactory(FormatFactory):
    """``'format' = 'raw'``: the table has exactly one physical column."""

    identifier = "raw"

    def _codec(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> tuple[Callable[[bytes], Any], Callable[[Any], bytes]]:
        if len(types) != 1:
            raise ValueError(
                f"The 'raw' format only supports single physical column, got {len(types)}: {names}"
            )
        root = types[0].root
        charset = format_option(options, prefix, "raw", "charset", "UTF-8")
        endianness = format_option(options, prefix, "raw", "endianness", "big-endian")
        if endianness not in ("big-endian", "little-endian"):
            raise ValueError(f"'raw.endianness' must be 'big-endian' or 'little-endian', got {endianness!r}")
        if root in ("STRING", "VARCHAR", "CHAR"):
            return (lambda b: b.decode(charset)), (lambda v: str(v).encode(charset))
        if root in ("BYTES", "BINARY", "VARBINARY"):
            return bytes, bytes
        if root in _RAW_NUMBERS:
            layout = struct.Struct((">" if endianness == "big-endian" else "<") + _RAW_NUMBERS[root])
            return (lambda b: layout.unpack(b)[0]), layout.pack
        raise ValueError(f"The 'raw' format does not support the type {types[0]!r} of column '{names[0]}'")

    def decoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Decoder:
        parse, _ = self._codec(names, types, options, prefix)

        def decode(data: bytes | None) -> tuple[Any, ...]:
            if data is None:
                return (None,)
            try:
                return (parse(data),)
            except (ValueError, struct.error) as err:
                raise FormatError(f"the raw value {data[:40]!r} is not a {types[0]!r}: {err}") from err

        return decode

    def encoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Encoder:
        _, write = self._codec(names, types, options, prefix)
        return lambda change: None if change[1][0] is None else write(change[1][0])


JSON = JsonFormatFactory()
CSV = CsvFormatFactory()
RAW = RawFormatFactory()
