"""CSV: ``CsvSchema`` (PyFlink's builder), ``CsvReaderFormat`` for ``FileSource`` and
``CsvBulkWriters`` for ``FileSink``.

Flink's converters: a row with another number of fields than the schema fails ("Row length
mismatch"), numbers are parsed after trimming, an empty line is skipped, the null literal
(``set_null_value``) reads as None; errors name the file, the line number and the column.
"""

from __future__ import annotations

import csv
import dataclasses
from collections.abc import Callable
from typing import Any

from millstream.common.typeinfo import (
    TypeInformation,
)
from millstream.connectors.file.readers import FileReader, FileSourceSplit
from millstream.connectors.formats.common import _fields_of, _named_row, _SchemaReaderFormat
from millstream.connectors.formats.csv_jackson import CsvWriteOptions, jackson_fields
from millstream.table.common.types import ArrayType, DataType, DataTypes, RowType

__all__ = [
    "CsvBulkWriter",
    "CsvBulkWriters",
    "CsvReaderFormat",
    "CsvSchema",
    "CsvSchemaBuilder",
    "csv_column_writers",
    "csv_dialect",
    "csv_field",
    "single_char",
]


class CsvSchema:
    """The columns and dialect of a CSV file (Jackson's ``CsvSchema`` as Flink uses it)."""

    def __init__(
        self, row_type: RowType, options: dict[str, Any], array_separators: list[str | None]
    ) -> None:
        self._row_type = row_type
        self.options = dict(options)
        self.array_separators = list(array_separators)  # per column; None: the global one

    @staticmethod
    def builder() -> CsvSchemaBuilder:
        """A builder."""
        return CsvSchemaBuilder()

    def get_type_info(self) -> TypeInformation:
        """The row type of the records (``Types.ROW_NAMED``)."""
        return self._row_type.to_type_info()

    def size(self) -> int:
        """Number of columns."""
        return len(self._row_type)

    def __len__(self) -> int:
        return self.size()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CsvSchema) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash(tuple(self._row_type.field_names()))

    def __repr__(self) -> str:
        return f"CsvSchema({self._row_type!r}, {self.options})"


_CSV_DEFAULTS: dict[str, Any] = {
    "column_separator": ",",
    "quote_char": '"',
    "escape_char": None,
    "array_element_separator": ";",
    "null_value": None,
    "allow_comments": False,
    "skip_first_data_row": False,
    "use_header": False,
    "strict_headers": False,
    "line_separator": "\n",
}


def single_char(what: str, char: str) -> str:
    if len(char) != 1:
        raise ValueError(f"{what} must be a single char, got {char!r}")
    return char


class CsvSchemaBuilder:
    """Builds a ``CsvSchema`` column by column."""

    def __init__(self) -> None:
        self._fields: list[Any] = []
        self._separators: list[str | None] = []
        self._options = dict(_CSV_DEFAULTS)

    def build(self) -> CsvSchema:
        """The schema."""
        return CsvSchema(DataTypes.ROW(list(self._fields)), self._options, self._separators)

    def add_array_column(
        self, name: str, separator: str = ";", element_type: DataType | None = None
    ) -> CsvSchemaBuilder:
        """An array column; elements are separated by ``separator`` inside the field."""
        self._fields.append(DataTypes.FIELD(name, DataTypes.ARRAY(element_type or DataTypes.STRING())))
        self._separators.append(separator)
        return self

    def add_boolean_column(self, name: str) -> CsvSchemaBuilder:
        """A BOOLEAN column (``true``, case-insensitive, is True; anything else False)."""
        return self._add(name, DataTypes.BOOLEAN())

    def add_number_column(self, name: str, number_type: DataType | None = None) -> CsvSchemaBuilder:
        """A number column of ``number_type`` (default ``DataTypes.BIGINT()``)."""
        return self._add(name, number_type or DataTypes.BIGINT())

    def add_string_column(self, name: str) -> CsvSchemaBuilder:
        """A STRING column."""
        return self._add(name, DataTypes.STRING())

    def _set(self, option: str, value: Any) -> CsvSchemaBuilder:
        self._options[option] = value
        return self

    def _add(self, name: str, data_type: DataType) -> CsvSchemaBuilder:
        self._fields.append(DataTypes.FIELD(name, data_type))
        self._separators.append(None)
        return self

    def add_columns_from(self, schema: CsvSchema) -> CsvSchemaBuilder:
        """Every column of ``schema``, after the ones added so far."""
        self._fields.extend(schema._row_type.fields)
        self._separators.extend(schema.array_separators)
        return self

    def clear_columns(self) -> CsvSchemaBuilder:
        """Remove all columns."""
        self._fields.clear()
        self._separators.clear()
        return self

    def set_allow_comments(self, allow: bool = True) -> CsvSchemaBuilder:
        """Skip lines starting with ``#``."""
        return self._set("allow_comments", allow)

    def set_any_property_name(self, name: str) -> CsvSchemaBuilder:
        """Accepted for compatibility; extra columns still fail the row."""
        return self

    def disable_array_element_separator(self) -> CsvSchemaBuilder:
        """Array fields are not split (one element each) unless their column sets a separator."""
        return self._set("array_element_separator", "")

    def remove_array_element_separator(self, index: int) -> CsvSchemaBuilder:
        """The array field of column ``index`` is not split."""
        self._separators[index] = ""
        return self

    def set_array_element_separator(self, separator: str) -> CsvSchemaBuilder:
        """The separator of array elements for columns without their own (default ``;``)."""
        return self._set("array_element_separator", separator)

    def set_column_separator(self, char: str) -> CsvSchemaBuilder:
        """The column separator (default ``,``)."""
        return self._set("column_separator", single_char("Column separator", char))

    def disable_escape_char(self) -> CsvSchemaBuilder:
        """No escape character (the default)."""
        return self._set("escape_char", None)

    def set_escape_char(self, char: str) -> CsvSchemaBuilder:
        """The escape character (default: none)."""
        return self._set("escape_char", single_char("Escape char", char))

    def set_line_separator(self, separator: str) -> CsvSchemaBuilder:
        """The line separator when writing (reading accepts ``\\n``, ``\\r``, ``\\r\\n``)."""
        return self._set("line_separator", separator)

    def set_null_value(self, null_value: str) -> CsvSchemaBuilder:
        """The text that reads as None (default: none; an empty field is an empty value)."""
        return self._set("null_value", null_value)

    def disable_quote_char(self) -> CsvSchemaBuilder:
        """Quotes are ordinary characters."""
        return self._set("quote_char", None)

    def set_quote_char(self, char: str) -> CsvSchemaBuilder:
        """The quote character (default ``"``)."""
        return self._set("quote_char", single_char("Quote char", char))

    def set_skip_first_data_row(self, skip: bool = True) -> CsvSchemaBuilder:
        """Skip the first data row of each file."""
        return self._set("skip_first_data_row", skip)

    def set_strict_headers(self, strict: bool = True) -> CsvSchemaBuilder:
        """With a header: fail when its names differ from the schema's."""
        return self._set("strict_headers", strict)

    def set_use_header(self, use: bool = True) -> CsvSchemaBuilder:
        """The first line of each file is a header (skipped, or checked if strict)."""
        return self._set("use_header", use)

    def size(self) -> int:
        """Number of columns so far."""
        return len(self._fields)

    def __len__(self) -> int:
        return self.size()


class CsvReaderFormat(_SchemaReaderFormat):
    """Reads CSV files into ``Row``s of a ``CsvSchema``; each file is read whole by one subtask."""

    kind = "csv"
    schema_type = CsvSchema

    def is_splittable(self) -> bool:
        """No: a header and quoted line breaks need the file from its start."""
        return False

    def get_produced_type(self) -> TypeInformation:
        """The schema's row type."""
        return self.schema.get_type_info()

    def create_reader(self, splits: list[FileSourceSplit]) -> FileReader:
        """Reads whole files."""
        return _CsvReader(splits, self)


class _CsvReader(FileReader):
    def __init__(self, splits: list[FileSourceSplit], fmt: CsvReaderFormat) -> None:
        super().__init__(splits)
        schema = fmt.schema
        options = schema.options
        self._charset = fmt.charset
        self._options = options
        self._names = schema._row_type.field_names()
        self._converters = [
            csv_field(t, sep, options)
            for t, sep in zip(schema._row_type.field_types(), schema.array_separators)
        ]
        self._file: Any = None
        self._rows: Any = None
        self._skip_data_row = False

    def _open_next(self) -> bool:
        split = self._next_split()
        if split is None:
            return False
        self._file = open(split.path, encoding=self._charset, newline="")  # noqa: SIM115 - closed by close()
        options = self._options
        self._rows = csv.reader(self._file, **csv_dialect(options), strict=False)
        if options["use_header"]:
            header = self._next_row()
            if options["strict_headers"] and header is not None and header != self._names:
                raise ValueError(
                    f"{split.path}, line {self._rows.line_num}: the header {header} does not match "
                    f"the schema's columns {self._names}"
                )
        self._skip_data_row = options["skip_first_data_row"]
        return True

    def _next_row(self) -> list[str] | None:
        comments = self._options["allow_comments"]
        for row in self._rows:
            if not row or (comments and row[0].startswith("#")):
                continue
            return row
        return None

    def _poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` rows of one file; None when every file is read."""
        out: list[Any] = []
        names, converters = self._names, self._converters
        arity = len(names)
        while len(out) < max_records:
            if self._rows is None and not self._open_next():
                break
            row = self._next_row()
            if row is None:
                self.close()
                if out:
                    break  # a batch holds the rows of one file
                continue
            if self._skip_data_row:
                self._skip_data_row = False
                continue
            row = jackson_fields(row, arity)
            if len(row) != arity:
                raise ValueError(
                    f"{self.current_file}, line {self._rows.line_num}: Row length mismatch. "
                    f"{arity} fields expected but was {len(row)}."
                )
            try:
                values = [convert(text) for convert, text in zip(converters, row)]
            except ValueError as err:
                column = next((n for n, c, t in zip(names, converters, row) if not _converts(c, t)), "?")
                raise ValueError(
                    f"{self.current_file}, line {self._rows.line_num}, column '{column}': {err}"
                ) from err
            out.append(_named_row(names, values))
        return out or None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._file = None
        self._rows = None


def csv_dialect(options: dict[str, Any]) -> dict[str, Any]:
    """The ``csv`` module's dialect of a schema's options (reading and writing)."""
    quote = options["quote_char"]
    return {
        "delimiter": options["column_separator"],
        "quotechar": quote or '"',
        "quoting": csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE,
        "escapechar": options["escape_char"],
        "doublequote": True,
    }


def _converts(convert: Callable[[str], Any], text: str) -> bool:
    try:
        convert(text)
    except ValueError:
        return False
    return True


def csv_field(data_type: DataType, separator: str | None, options: dict[str, Any]) -> Callable[[str], Any]:
    null = options["null_value"]
    if isinstance(data_type, ArrayType):
        element = data_type.element_type.from_text()
        sep = options["array_element_separator"] if separator is None else separator

        def parse_array(text: str) -> Any:
            if text == null:
                return None
            if not text.strip():
                return []  # Jackson: an empty array field has no elements
            parts = text.split(sep) if sep else [text]
            return [None if p == null else element(p) for p in parts]

        return parse_array
    parse = data_type.from_text()
    if null is None:
        return parse
    return lambda text: None if text == null else parse(text)


class CsvBulkWriters:
    """Bulk writer factories of CSV files (``pyflink.datastream.formats.csv``)."""

    @staticmethod
    def for_schema(schema: CsvSchema) -> _CsvBulkWriterFactory:
        """Rows written as CSV lines of ``schema`` (a header first if it uses one)."""
        if not isinstance(schema, CsvSchema):
            raise TypeError(f"CsvBulkWriters.for_schema expects a CsvSchema, got {type(schema).__name__}")
        return _CsvBulkWriterFactory(schema)


CsvBulkWriter = CsvBulkWriters  # PyFlink 1.16's name


class _CsvBulkWriterFactory:
    def __init__(self, schema: CsvSchema) -> None:
        self.schema = schema

    def create(self, path: str) -> _CsvBulkWriter:
        return _CsvBulkWriter(path, self.schema)


class _CsvBulkWriter:
    def __init__(self, path: str, schema: CsvSchema) -> None:
        options = schema.options
        self._file = open(path, "w", encoding="utf-8", newline="")  # noqa: SIM115 - closed by finish/close
        self._line = options["line_separator"]
        write = csv_write_options(options)
        self._separator = write.separator
        self._columns = csv_column_writers(schema._row_type.field_types(), schema.array_separators, options)
        if options["use_header"]:
            quoted = write.quoter()
            self._file.write(
                self._separator.join(quoted(n) for n in schema._row_type.field_names()) + self._line
            )

    def add_batch(self, values: list[Any]) -> None:
        columns, separator, line = self._columns, self._separator, self._line
        self._file.write(
            "".join(
                separator.join([w(v) for w, v in zip(columns, _fields_of(value))]) + line for value in values
            )
        )

    def finish(self) -> None:
        self._file.close()

    def close(self) -> None:
        self._file.close()


def csv_write_options(options: dict[str, Any], records: bool = False) -> CsvWriteOptions:
    """How a schema's options write fields (Jackson's CSV writer, as Flink's): in files, or in
    ``records`` (``CsvRowSerializationSchema``: decimals keep their trailing zeros)."""
    return CsvWriteOptions(
        separator=options["column_separator"],
        quote=options["quote_char"],
        escape=options["escape_char"],
        null_literal=options["null_value"] or "",
        array_separator=options["array_element_separator"],
        line_separator=options["line_separator"],
        exact_decimals=records,
    )


def csv_column_writers(
    types: list[DataType], array_separators: list[str | None], options: dict[str, Any], records: bool = False
) -> list[Callable[[Any], str]]:
    """Each column's field writer (a column's own array separator, else the schema's)."""
    write = csv_write_options(options, records)
    return [
        (write if sep is None else dataclasses.replace(write, array_separator=sep)).column_writer(t)
        for t, sep in zip(types, array_separators, strict=True)
    ]


# -- row schemas of single records (Kafka messages) ----------------------------------------------
