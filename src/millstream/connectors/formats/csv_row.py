"""CSV rows of records, as PyFlink's CsvRowSerializationSchema /
CsvRowDeserializationSchema (.Builder(type_info)): one record's fields as one CSV
line, with the same dialect options and field conversions as the CSV file format
(csv.py), for Kafka and other record-at-a-time connectors.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from typing import Any

from millstream.common.typeinfo import RowTypeInfo
from millstream.connectors.formats.common import _named_row
from millstream.connectors.formats.csv import csv_column_writers, csv_dialect, csv_field, single_char
from millstream.connectors.formats.csv_jackson import arity_error, jackson_fields
from millstream.table.common.types import DataType, from_type_info

__all__ = ["CsvRowDeserializationSchema", "CsvRowSerializationSchema"]


def _row_types(type_info: Any, what: str) -> tuple[list[str], list[DataType]]:
    if not isinstance(type_info, RowTypeInfo):
        raise TypeError(f"{what} needs a row type (Types.ROW / Types.ROW_NAMED), got {type_info}")
    return type_info.get_field_names(), [from_type_info(t) for t in type_info.get_field_types()]


class _CsvRowSchemaBuilder:
    """The settings both CSV row schemas' builders share (Flink's defaults)."""

    def __init__(self, type_info: Any) -> None:
        if type_info is None:
            raise TypeError("Type information must not be None")
        self._type_info = type_info
        self._options: dict[str, Any] = {
            "column_separator": ",",
            "quote_char": '"',
            "escape_char": None,
            "null_value": None,  # none: an empty string field is "", an empty other field NULL
            "array_element_separator": ";",
            "line_separator": "\n",
            "allow_comments": False,
            "ignore_parse_errors": False,
        }

    def set_field_delimiter(self, delimiter: str) -> Any:
        """The column separator (``,``)."""
        self._options["column_separator"] = single_char("field delimiter", delimiter)
        return self

    def set_array_element_delimiter(self, delimiter: str) -> Any:
        """The separator of an array's elements (``;``)."""
        self._options["array_element_separator"] = delimiter
        return self

    def set_quote_character(self, c: str) -> Any:
        """The quote character (``"``)."""
        self._options["quote_char"] = single_char("quote character", c)
        return self

    def set_escape_character(self, c: str) -> Any:
        """An escape character (none by default)."""
        self._options["escape_char"] = single_char("escape character", c)
        return self

    def set_null_literal(self, null_literal: str) -> Any:
        """The text of a NULL (empty by default)."""
        self._options["null_value"] = null_literal
        return self


def _empty_is_null(data_type: DataType, parse: Callable[[str], Any]) -> Callable[[str], Any]:
    if data_type.root in ("STRING", "VARCHAR", "CHAR"):
        return parse
    return lambda text: None if text == "" else parse(text)


def _lenient_row(names: list[str], fields: list[Callable[[str], Any]], record: list[str]) -> Any:
    """A record read with ``ignore_parse_errors``, as PyFlink 2.3.0 reads it: a field that does
    not parse is None, missing fields are None, a record with an extra field is dropped
    (``c,x`` / ``d`` / ``f,4,z`` of (s STRING, n INT) gave +I[c, null], +I[d, null], null)."""
    if len(record) > len(fields):
        return None
    values: list[Any] = []
    for index, field in enumerate(fields):
        try:
            values.append(field(record[index]) if index < len(record) else None)
        except ValueError:
            values.append(None)
    return _named_row(names, values)


class CsvRowDeserializationSchema:
    """CSV bytes (one record) -> a ``Row`` of a row type (``pyflink.datastream.formats.csv``)."""

    def __init__(self, type_info: Any, options: dict[str, Any]) -> None:
        self.type_info, self.options = type_info, dict(options)
        self._decode: Callable[[bytes], Any] | None = None

    def get_produced_type(self) -> Any:
        """The row type."""
        return self.type_info

    def __getstate__(self) -> dict[str, Any]:
        return {"type_info": self.type_info, "options": self.options, "_decode": None}

    def deserialize(self, message: bytes) -> Any:
        """The Row of one CSV record (None: skipped, a comment or a bad record ignored)."""
        decode = self._decode
        if decode is None:
            decode = self._decode = self._decoder()
        return decode(message)

    def _decoder(self) -> Callable[[bytes], Any]:
        names, types = _row_types(self.type_info, "CsvRowDeserializationSchema")
        options = self.options
        fields = [_empty_is_null(t, csv_field(t, None, options)) for t in types]
        dialect = csv_dialect(options)

        def decode(message: bytes) -> Any:
            text = message.decode("utf-8").rstrip("\r\n")
            if options["allow_comments"] and text.startswith("#"):
                return None
            try:
                record = jackson_fields(next(csv.reader([text], **dialect), []), len(fields))
                if options["ignore_parse_errors"]:
                    return _lenient_row(names, fields, record)
                mismatch = arity_error(record, len(fields))
                if mismatch is not None:
                    raise ValueError(mismatch)
                return _named_row(names, [f(v) for f, v in zip(fields, record, strict=True)])
            except (ValueError, csv.Error) as err:
                if options["ignore_parse_errors"]:
                    return None
                raise ValueError(f"Failed to deserialize CSV row '{text[:80]}': {err}") from err

        return decode

    class Builder(_CsvRowSchemaBuilder):
        """Builds a ``CsvRowDeserializationSchema`` (``Builder(type_info)``)."""

        def set_allow_comments(self, allow_comments: bool) -> CsvRowDeserializationSchema.Builder:
            """Skip records starting with ``#``."""
            self._options["allow_comments"] = bool(allow_comments)
            return self

        def set_ignore_parse_errors(self, ignore_parse_errors: bool) -> CsvRowDeserializationSchema.Builder:
            """Skip a record that cannot be parsed instead of failing."""
            self._options["ignore_parse_errors"] = bool(ignore_parse_errors)
            return self

        def build(self) -> CsvRowDeserializationSchema:
            """The schema."""
            return CsvRowDeserializationSchema(self._type_info, self._options)


class CsvRowSerializationSchema:
    """A ``Row`` -> CSV bytes ending with the line delimiter, as Flink's
    ``CsvRowSerializationSchema`` (``pyflink.datastream.formats.csv``)."""

    def __init__(self, type_info: Any, options: dict[str, Any]) -> None:
        self.type_info, self.options = type_info, dict(options)
        self._encode: Callable[[Any], bytes] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"type_info": self.type_info, "options": self.options, "_encode": None}

    def serialize(self, element: Any) -> bytes:
        """The CSV record of ``element`` (a Row, tuple or list in field order)."""
        encode = self._encode
        if encode is None:
            encode = self._encode = self._encoder()
        return encode(element)

    def _encoder(self) -> Callable[[Any], bytes]:
        _, types = _row_types(self.type_info, "CsvRowSerializationSchema")
        options = self.options
        columns = csv_column_writers(types, [None] * len(types), options, records=True)
        separator, line = options["column_separator"], options["line_separator"]

        def encode(element: Any) -> bytes:
            values = list(element)
            if len(values) != len(columns):
                raise ValueError(
                    f"Could not serialize row '{element}' with CsvRowSerializationSchema of "
                    f"{self.type_info}: Row length mismatch. {len(columns)} fields expected but was "
                    f"{len(values)}."
                )
            return (separator.join([w(v) for w, v in zip(columns, values)]) + line).encode("utf-8")

        return encode

    class Builder(_CsvRowSchemaBuilder):
        """Builds a ``CsvRowSerializationSchema`` (``Builder(type_info)``)."""

        def set_line_delimiter(self, delimiter: str) -> CsvRowSerializationSchema.Builder:
            """What ends each record (``\\n``)."""
            self._options["line_separator"] = delimiter
            return self

        def disable_quote_character(self) -> CsvRowSerializationSchema.Builder:
            """Never quote fields."""
            self._options["quote_char"] = None
            return self

        def build(self) -> CsvRowSerializationSchema:
            """The schema."""
            return CsvRowSerializationSchema(self._type_info, self._options)
