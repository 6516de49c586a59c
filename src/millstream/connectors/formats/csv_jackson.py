"""CSV as Jackson's ``dataformat-csv`` reads and writes it, which every Flink CSV format runs
on (the ``csv`` table format, the filesystem connector's CSV files, the DataStream
``CsvReaderFormat`` / ``CsvBulkWriters`` / ``CsvRow(De)SerializationSchema``).

Reading (``jackson_fields``): a record with one field more than the schema's columns whose
last field is empty or blank (``three four,`` of one column) is read without it
(``CsvParser.Feature.ALLOW_TRAILING_COMMA``, on by default); any other extra field is an error
("Too many entries").

Writing (``CsvWriteOptions.column_writer``): each value's text is Flink's
(``RowDataToCsvConverters``: Java's number texts, decimals with trailing zeros stripped in
files (``1.5``, ``1E+2``) and kept in records (``1.50``), ``2024-01-02 03:04:05.6`` timestamps,
base64 bytes, array elements joined by the array separator), and a text field is quoted as
Jackson's ``CsvEncoder`` decides (its loose check, the default): when it is longer than 24
characters, or holds a character below the "safe" one (one past the highest of the column
separator, the quote character and the line separator: with ``,`` and ``"`` every character up
to ``,``, so a space, ``'``, ``#``, ``(`` or ``+`` too), or the quote character, or a backslash
(the escape character instead, when one is set). Inside quotes the quote character is doubled,
and so is the escape character. Numbers and booleans are never quoted; NULL is the null
literal, unquoted. PyFlink 2.3.0 writes ``'tis`` as ``"'tis"``, ``two words`` as ``"two
words"``, ``x-y_z.w`` as it is, and with ``|`` as separator quotes ``plain`` too.

Per-record path: one closure per column, built once.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.common.java_values import java_double_str, java_float_str
from millstream.table.common.types import ArrayType, DataType

__all__ = ["CsvWriteOptions", "arity_error", "jackson_fields", "strip_zeros"]

_MAX_QUOTE_CHECK_CHARS = 24  # CsvEncoder: a longer value is quoted without looking at it
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 units each in Java's length


def jackson_fields(fields: list[str], arity: int) -> list[str]:
    """The fields of a record as Jackson's CSV parser maps them to ``arity`` columns: one
    trailing field more, empty or blank, is dropped (``ALLOW_TRAILING_COMMA``)."""
    if len(fields) == arity + 1 and not fields[-1].strip():
        return fields[:-1]
    return fields


def arity_error(fields: list[str], arity: int) -> str | None:
    """Why a record (after ``jackson_fields``) does not fit ``arity`` columns, in Flink's words
    (Jackson's for an extra field), or None."""
    if len(fields) > arity:
        value = fields[arity]
        return f'Too many entries: expected at most {arity} (value #{arity} ({len(value)} chars) "{value}")'
    if len(fields) < arity:
        return f"Row length mismatch. {arity} fields expected but was {len(fields)}."
    return None


@dataclass(frozen=True)
class CsvWriteOptions:
    """How Flink's CSV writer of one schema writes fields (``quote`` None: never quotes)."""

    separator: str = ","
    quote: str | None = '"'
    escape: str | None = None
    null_literal: str = ""
    array_separator: str = ";"
    line_separator: str = "\n"
    # a record schema's decimals keep their scale (1.50, 100.000); a file writer's Jackson
    # nodes strip the trailing zeros (1.5, 1E+2), as PyFlink 2.3.0 writes each
    exact_decimals: bool = False

    def column_writer(self, data_type: DataType) -> Callable[[Any], str]:
        """A value of ``data_type`` (or None) -> its field in a CSV line."""
        null = self.null_literal
        text = _text_of(data_type, self)
        if not _is_text(data_type):
            return lambda value: null if value is None else text(value)
        quoted = self.quoter()
        return lambda value: null if value is None else quoted(text(value))

    def quoter(self) -> Callable[[str], str]:
        """A text field as Jackson's ``CsvEncoder`` writes it: quoted when it must be."""
        quote, escape = self.quote, self.escape
        if quote is None:
            return lambda text: text
        safe = max(ord(self.separator), ord(quote), *(ord(c) for c in self.line_separator)) + 1
        specials = re.escape(escape if escape else quote + "\\")
        unsafe = re.compile(f"[\\x00-\\x{safe - 1:02x}{specials}]")
        doubled = re.compile(re.escape(quote) + (f"|{re.escape(escape)}" if escape else ""))

        def quoted(text: str) -> str:
            if (
                len(text) > _MAX_QUOTE_CHECK_CHARS
                or unsafe.search(text) is not None
                or (len(text) > _MAX_QUOTE_CHECK_CHARS // 2 and _java_length(text) > _MAX_QUOTE_CHECK_CHARS)
            ):
                return quote + doubled.sub(lambda m: m.group() * 2, text) + quote
            return text

        return quoted


def _java_length(text: str) -> int:
    return len(text) + len(_ASTRAL.findall(text))


def _is_text(data_type: DataType) -> bool:
    """Written by Jackson as a string (checked for quoting), not as a number or boolean."""
    return data_type.root not in _NUMBERS and data_type.root != "BOOLEAN"


_NUMBERS = frozenset({"TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL"})


def _text_of(data_type: DataType, options: CsvWriteOptions) -> Callable[[Any], str]:
    """``RowDataToCsvConverters``' text of a (non-null) value."""
    if isinstance(data_type, ArrayType):
        element = _text_of(data_type.element_type, options)
        separator, null = options.array_separator, options.null_literal
        return lambda value: separator.join(null if v is None else element(v) for v in value)
    root = data_type.root
    if root == "BOOLEAN":
        return lambda value: "true" if value else "false"
    if root == "DOUBLE":
        return lambda value: java_double_str(float(value))
    if root == "FLOAT":
        return lambda value: java_float_str(float(value))
    if root == "DECIMAL":
        if options.exact_decimals:
            return str
        return lambda value: str(strip_zeros(value))
    if root == "TIMESTAMP":
        return _sql_timestamp
    if root == "TIMESTAMP_LTZ":
        return lambda value: _sql_timestamp(_utc(value)) + "Z"
    if root == "TIME":
        return _iso_time
    if root in ("BYTES", "BINARY", "VARBINARY"):
        return lambda value: base64.b64encode(bytes(value)).decode("ascii")
    return lambda value: value.isoformat() if isinstance(value, datetime.date) else str(value)


def strip_zeros(value: decimal.Decimal) -> decimal.Decimal:
    """``BigDecimal.stripTrailingZeros``: every digit kept (``normalize`` in the default
    context would round to 28 digits)."""
    return value.normalize(decimal.Context(prec=max(1, len(value.as_tuple().digits))))


def _fraction(microsecond: int) -> str:
    """``appendFraction(NANO_OF_SECOND, 0, 9, true)``: as many digits as needed, or none."""
    return f".{microsecond:06d}".rstrip("0") if microsecond else ""


def _sql_timestamp(value: datetime.datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") + _fraction(value.microsecond)


def _iso_time(value: datetime.time) -> str:
    return value.strftime("%H:%M:%S") + _fraction(value.microsecond)


def _utc(value: datetime.datetime) -> datetime.datetime:
    """A TIMESTAMP_LTZ value (the local wall-clock time of an instant) at UTC."""
    return value.astimezone(datetime.UTC).replace(tzinfo=None)  # naive: taken as local time
