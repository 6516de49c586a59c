"""The insert-only table formats of single records (a Kafka message, a line of a file):
``json``, ``csv`` and ``raw``, with Flink's option names.

- ``json``: one JSON object per record, its values converted as Flink's (``json_converters``).
  ``json.fail-on-missing-field`` (false: a missing field is NULL), ``json.ignore-parse-errors``
  (a value that does not convert is NULL and the rest of the row kept; a record that is not a
  JSON object is skipped), ``json.timestamp-format.standard`` (``SQL`` or ``ISO-8601``),
  ``json.map-null-key.mode`` / ``.literal``, ``json.encode.decimal-as-plain-number``,
  ``json.encode.ignore-null-fields``; values written as ``json_encoders`` says (ROW, ARRAY
  and MAP as JSON objects and arrays).
- ``csv``: one CSV line per record, read and written as Jackson's CSV (``csv_jackson``: an
  empty trailing field more is allowed; a text field is quoted when Jackson would quote it).
  ``csv.field-delimiter`` (``,``), ``csv.quote-character`` (``"``),
  ``csv.disable-quote-character``, ``csv.escape-character``, ``csv.null-literal``,
  ``csv.array-element-delimiter``, ``csv.ignore-parse-errors``, ``csv.allow-comments``.
- ``raw``: the record's bytes as the table's single column: STRING (``raw.charset``, UTF-8),
  BYTES, or a number in ``raw.endianness`` (big-endian) byte order; a NULL is a null message.
"""

from __future__ import annotations

import csv
import struct
from collections.abc import Callable
from typing import Any

from millstream.connectors.formats.csv_jackson import (
    CsvWriteOptions,
    arity_error,
    jackson_fields,
)
from millstream.connectors.formats.json_converters import json_loads, json_row_converter
from millstream.connectors.formats.json_encoders import (
    JsonWriteOptions,
    dumps,
    json_encoder_of,
    json_object_encoder,
)
from millstream.table.common.factories import Decoder, Encoder, FormatFactory, format_option
from millstream.table.common.types import DataType

__all__ = ["CSV", "JSON", "RAW", "csv_field", "json_encoder_of"]


class FormatError(ValueError):
    """A record the format cannot read or write."""


def _flag(options: dict[str, str], prefix: str, identifier: str, key: str) -> bool:
    return format_option(options, prefix, identifier, key, "false").lower() == "true"


# -- json -------------------------------------------------------------------------------------------------


def json_object_decoder(
    names: list[str], types: list[DataType], fail_on_missing: bool, ignore_parse_errors: bool = False
) -> Callable[[Any], tuple[Any, ...]]:
    """A parsed JSON object (``json_loads``) -> the row of the named fields (a missing field:
    NULL), converted as Flink's JSON format (``json_converters``); with ``ignore_parse_errors``
    a field that does not convert is NULL."""
    return json_row_converter(names, types, fail_on_missing, ignore_parse_errors)


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
        to_object = json_object_encoder(names, types, JsonWriteOptions.of(options, prefix, "json"))
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
