"""CSV files read with Arrow's CSV reader, into the values the row path reads (Flink's CSV
format: ``csv.field-delimiter``, ``csv.quote-character``, ``csv.null-literal``).

::

    file ──► pyarrow.csv (every field as text, in blocks) ──► typed_columns ──► Arrow table
                 │ a record Arrow cannot take                    │ a value only the row
                 ▼                                               ▼ path decides
              CsvArrowFallback: the caller reads the file's remaining records by rows

Each field is read as text, then typed as the row path types it (``row_formats.csv_field``):
the null literal is NULL; an empty field of a non-string column is NULL; numbers, dates and
timestamps are trimmed and parsed. Arrow's parsers take more than Python's in places (a
hexadecimal integer, say), so a column is parsed on Arrow only when every value has the plain
form both read alike (``_PLAIN``); any other value, a record with another number of fields
than the schema (Jackson's trailing-comma rule, its errors) or a quoting Arrow refuses raises
``CsvArrowFallback``, and the caller reads the rest of the file by rows, which gives the value
or fails naming the file, line and column. Only the types listed in ``_PLAIN`` and text are
typed here (``arrow_readable``).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as arrow_csv

from millstream.table.common.types import DataType

__all__ = ["ARROW_CSV_OPTIONS", "CsvArrowFallback", "arrow_readable", "csv_batches", "typed_columns"]

# the options a table may set for its CSV files to be read on Arrow (others: by rows)
ARROW_CSV_OPTIONS = frozenset(
    {"format", "path", "csv.field-delimiter", "csv.quote-character", "csv.null-literal"}
)

_TEXT = ("STRING", "VARCHAR", "CHAR")
_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
# per type: the forms Arrow's cast and the row path's parser read as the same value
_PLAIN = {
    "TINYINT": r"-?[0-9]+",
    "SMALLINT": r"-?[0-9]+",
    "INT": r"-?[0-9]+",
    "BIGINT": r"-?[0-9]+",
    "DOUBLE": rf"{_NUMBER}|[+-]?(?i:inf|infinity|nan)",
    "DECIMAL": _NUMBER,
    "DATE": r"[0-9]{4}-[0-9]{2}-[0-9]{2}",
    "TIMESTAMP": r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[ T][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,3})?)?)?",
}


class CsvArrowFallback(Exception):
    """The file's records from here on are for the row path to read."""


def arrow_readable(options: dict[str, str], types: list[DataType]) -> bool:
    """Whether a table's CSV files with these options and column types read on Arrow."""
    if set(options) - ARROW_CSV_OPTIONS:
        return False
    if len(_delimiter(options)) != 1 or len(options.get("csv.quote-character", '"')) > 1:
        return False
    for data_type in types:
        root = data_type.root
        if root == "TIMESTAMP" and data_type.params and int(data_type.params[0]) > 3:
            return False
        if root not in _TEXT and root not in _PLAIN and root != "BOOLEAN":
            return False
    return True


def _delimiter(options: dict[str, str]) -> str:
    return options.get("csv.field-delimiter", ",").encode().decode("unicode_escape")


def csv_batches(path: str, names: list[str], options: dict[str, str], block_size: int) -> Iterator[Any]:
    """The records of the CSV file at ``path`` as Arrow record batches of text columns
    ``names`` (the table's physical columns), about ``block_size`` bytes each. Raises
    ``CsvArrowFallback`` at a record Arrow cannot read as the row path does."""
    quote = options.get("csv.quote-character", '"')
    read = arrow_csv.ReadOptions(column_names=names, block_size=block_size, encoding="utf8")
    parse = arrow_csv.ParseOptions(
        delimiter=_delimiter(options),
        quote_char=quote or False,
        double_quote=True,
        newlines_in_values=True,
        ignore_empty_lines=False,  # Jackson reads an empty line as one empty field
    )
    convert = arrow_csv.ConvertOptions(
        column_types={n: pa.string() for n in names},
        null_values=[],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    try:
        with open(path, "rb") as raw:
            if raw.read(3) != b"\xef\xbb\xbf":  # a leading UTF-8 BOM is not data
                raw.seek(0)
            reader = arrow_csv.open_csv(raw, read_options=read, parse_options=parse, convert_options=convert)
            yield from reader
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError) as err:
        raise CsvArrowFallback(str(err)) from err


def typed_columns(batch: Any, columns: list[tuple[str, DataType]], null_literal: str | None) -> list[Any]:
    """The text ``columns`` (name, type) of ``batch`` as Arrow arrays of their types, valued
    as the row path values them. Raises ``CsvArrowFallback`` for a value only it decides."""
    return [_typed(batch.column(name), data_type, null_literal) for name, data_type in columns]


def _text(value: str) -> Any:
    """A string Arrow scalar made from its bytes: a Python string handed to a compute function
    makes pyarrow import pandas (0.3 s of a TaskManager's first job)."""
    data = value.encode()
    offsets = pa.py_buffer(struct.pack("<ii", 0, len(data)))
    return pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(data)])[0]


def _typed(text: Any, data_type: DataType, null_literal: str | None) -> Any:
    root = data_type.root
    nothing = pa.nulls(1, pa.string())[0]
    nulls = pc.equal(text, _text(null_literal)) if null_literal is not None else None
    if root in _TEXT:
        return text if nulls is None else pc.if_else(nulls, nothing, text)
    trimmed = pc.utf8_trim_whitespace(text)
    empty = pc.equal(text, _text(""))  # only an empty field is NULL: a blank one is the parser's to refuse
    missing = empty if nulls is None else pc.or_(empty, nulls)
    values = pc.if_else(missing, nothing, trimmed)
    if root == "BOOLEAN":  # Java's Boolean.parseBoolean
        return pc.equal(pc.utf8_lower(values), _text("true"))
    plain = pc.match_substring_regex(values, f"^(?:{_PLAIN[root]})$")
    if pc.any(pc.invert(plain)).as_py():
        raise CsvArrowFallback(f"a {root} value of another form than {_PLAIN[root]}")
    try:
        return values.cast(data_type.to_arrow())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:  # out of range, more digits than kept
        raise CsvArrowFallback(str(err)) from err
