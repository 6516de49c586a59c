"""CSV: ``CsvSchema`` (PyFlink's builder), ``CsvReaderFormat`` for ``FileSource`` and
``CsvBulkWriters`` for ``FileSink``.

Flink's converters: a row with another number of fields than the schema fails ("Row length
mismatch"), numbers are parsed after trimming, an empty line is skipped, the null literal
(``set_null_value``) reads as None; errors name the file, the line number and the column.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

from millstream.common.typeinfo import (
    TypeInformation,
)
from millstream.connectors.file.readers import FileReader, FileSourceSplit
from millstream.connectors.formats.common import _fields_of, _named_row, _SchemaReaderFormat
from millstream.table.types import ArrayType, DataType, DataTypes, RowType

__all__ = [
    "CsvBulkWriter",
    "CsvBulkWriters",
    "CsvReaderFormat",
    "CsvRowDeserializationSchema",
    "CsvRowSerializationSchema",
    "CsvSchema",
    "CsvSchemaBuilder",
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


def _single_char(what: str, char: str) -> str:
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
        return self._set("column_separator", _single_char("Column separator", char))

    def disable_escape_char(self) -> CsvSchemaBuilder:
        """No escape character (the default)."""
        return self._set("escape_char", None)

    def set_escape_char(self, char: str) -> CsvSchemaBuilder:
        """The escape character (default: none)."""
        return self._set("escape_char", _single_char("Escape char", char))

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
        return self._set("quote_char", _single_char("Quote char", char))

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
            _csv_field(t, sep, options)
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
        self._rows = csv.reader(self._file, **_dialect(options), strict=False)
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


def _dialect(options: dict[str, Any]) -> dict[str, Any]:
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


def _csv_field(data_type: DataType, separator: str | None, options: dict[str, Any]) -> Callable[[str], Any]:
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
        dialect = _dialect(options)
        if dialect["quoting"] == csv.QUOTE_NONE and dialect["escapechar"] is None:
            dialect["escapechar"] = "\\"  # without quotes, separators in values must be escaped
        self._csv = csv.writer(self._file, **dialect, lineterminator=options["line_separator"])
        self._render = [
            _csv_text(t, sep, options)
            for t, sep in zip(schema._row_type.field_types(), schema.array_separators)
        ]
        if options["use_header"]:
            self._csv.writerow(schema._row_type.field_names())

    def add_batch(self, values: list[Any]) -> None:
        render = self._render
        self._csv.writerows([[r(v) for r, v in zip(render, _fields_of(value))] for value in values])

    def finish(self) -> None:
        self._file.close()

    def close(self) -> None:
        self._file.close()


def _csv_text(data_type: DataType, separator: str | None, options: dict[str, Any]) -> Callable[[Any], str]:
    """The CSV text of a value of ``data_type`` (None: the null literal, or empty)."""
    from millstream.common.typeinfo import java_double_str, java_float_str

    null = options["null_value"] or ""
    if isinstance(data_type, ArrayType):
        element = _csv_text(data_type.element_type, None, options)
        sep = options["array_element_separator"] if separator is None else separator

        def array(value: Any) -> str:
            return null if value is None else sep.join(element(v) for v in value)

        return array
    root = data_type.root
    if root == "BOOLEAN":
        return lambda v: null if v is None else ("true" if v else "false")
    if root in ("DOUBLE", "FLOAT"):
        fmt = java_double_str if root == "DOUBLE" else java_float_str
        return lambda v: null if v is None else fmt(float(v))
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return lambda v: null if v is None else v.isoformat(sep=" ")
    if root in ("BYTES", "BINARY", "VARBINARY"):
        import base64

        return lambda v: null if v is None else base64.b64encode(v).decode("ascii")
    return lambda v: null if v is None else (v.isoformat() if hasattr(v, "isoformat") else str(v))


# -- row schemas of single records (Kafka messages) ----------------------------------------------


def _row_types(type_info: Any, what: str) -> tuple[list[str], list[DataType]]:
    from millstream.common.typeinfo import RowTypeInfo
    from millstream.table.types import from_type_info

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
        self._options["column_separator"] = _single_char("field delimiter", delimiter)
        return self

    def set_array_element_delimiter(self, delimiter: str) -> Any:
        """The separator of an array's elements (``;``)."""
        self._options["array_element_separator"] = delimiter
        return self

    def set_quote_character(self, c: str) -> Any:
        """The quote character (``"``)."""
        self._options["quote_char"] = _single_char("quote character", c)
        return self

    def set_escape_character(self, c: str) -> Any:
        """An escape character (none by default)."""
        self._options["escape_char"] = _single_char("escape character", c)
        return self

    def set_null_literal(self, null_literal: str) -> Any:
        """The text of a NULL (empty by default)."""
        self._options["null_value"] = null_literal
        return self


def _empty_is_null(data_type: DataType, parse: Callable[[str], Any]) -> Callable[[str], Any]:
    if data_type.root in ("STRING", "VARCHAR", "CHAR"):
        return parse
    return lambda text: None if text == "" else parse(text)


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
        fields = [_empty_is_null(t, _csv_field(t, None, options)) for t in types]
        dialect = _dialect(options)

        def decode(message: bytes) -> Any:
            text = message.decode("utf-8").rstrip("\r\n")
            if options["allow_comments"] and text.startswith("#"):
                return None
            try:
                record = next(csv.reader([text], **dialect), [])
                if len(record) != len(fields):
                    raise ValueError(
                        f"Row length mismatch. {len(fields)} fields expected but was {len(record)}."
                    )
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
        texts = [_csv_text(t, None, options) for t in types]
        dialect = _dialect(options)
        line = options["line_separator"]

        def encode(element: Any) -> bytes:
            out = io.StringIO()
            csv.writer(out, lineterminator=line, **dialect).writerow(
                [f(v) for f, v in zip(texts, element, strict=True)]
            )
            return out.getvalue().encode("utf-8")

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
