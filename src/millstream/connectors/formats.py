"""File formats with a schema: CSV, JSON Lines and Parquet (readers for ``FileSource``).

Names follow ``pyflink.datastream.formats`` (``CsvSchema``, ``CsvReaderFormat``,
``JsonRowDeserializationSchema``, ``ParquetColumnarRowInputFormat``). Records are ``Row``s
with the schema's field names, and the source's type is the schema's row type, so
``print`` shows them as Flink does (``+I[1, Alice]``).

Semantics follow Flink's converters: a CSV row with another number of fields than the
schema fails ("Row length mismatch"), numbers are parsed after trimming, an empty line is
skipped, the null literal (``set_null_value``) reads as None; a JSON field missing from
an object is None unless ``fail_on_missing_field``; a line that cannot be parsed fails
the job, or is skipped with ``ignore_parse_errors``. Every error names the file and the
line (CSV: line number; JSON Lines: byte offset, as lines are read in byte ranges) and
the column. PyFlink has no JSON Lines file format; ``JsonLinesReaderFormat`` is
millstream's, configured by PyFlink's ``JsonRowDeserializationSchema``.
"""

from __future__ import annotations

import csv
import decimal
import json
from collections.abc import Callable
from typing import Any, Self

from millstream.common.typeinfo import (
    BasicTypeInfo,
    ListTypeInfo,
    MapTypeInfo,
    RowTypeInfo,
    TypeInformation,
)
from millstream.common.types import Row
from millstream.connectors.file import BulkFormat, FileReader, LineDecoder, LineError, StreamFormat, _Split
from millstream.table.types import ArrayType, DataType, DataTypes, RowType

__all__ = [
    "CsvBulkWriter",
    "CsvBulkWriters",
    "CsvReaderFormat",
    "CsvSchema",
    "CsvSchemaBuilder",
    "JsonLinesReaderFormat",
    "JsonRowDeserializationSchema",
    "ParquetBulkWriters",
    "ParquetColumnarRowInputFormat",
]


def _named_row(names: list[str], values: list[Any]) -> Row:
    row = Row(*values)
    object.__setattr__(row, "_fields", names)  # shared, never mutated (set_field_names copies)
    return row


# -- CSV ---------------------------------------------------------------------------------


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


class _SchemaReaderFormat(StreamFormat):
    """A stream format configured by a schema object of ``schema_type``."""

    schema_type: type

    def __init__(self, schema: Any, charset: str = "UTF-8") -> None:
        super().__init__(charset)
        self.schema = schema

    @classmethod
    def for_schema(cls, schema: Any) -> Self:
        """The format reading records of ``schema``."""
        if not isinstance(schema, cls.schema_type):
            raise TypeError(
                f"{cls.__name__}.for_schema expects a {cls.schema_type.__name__}, got {type(schema).__name__}"
            )
        return cls(schema)


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

    def create_reader(self, splits: list[_Split]) -> FileReader:
        """Reads whole files."""
        return _CsvReader(splits, self)


class _CsvReader(FileReader):
    def __init__(self, splits: list[_Split], fmt: CsvReaderFormat) -> None:
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

    def poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` rows; None when every file is read."""
        out: list[Any] = []
        names, converters = self._names, self._converters
        arity = len(names)
        while len(out) < max_records:
            if self._rows is None and not self._open_next():
                break
            row = self._next_row()
            if row is None:
                self.close()
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


# -- JSON Lines ---------------------------------------------------------------------------


class JsonRowDeserializationSchema:
    """Turns JSON text into a ``Row`` of a row type (``pyflink.datastream.formats.json``)."""

    def __init__(
        self, type_info: TypeInformation, fail_on_missing_field: bool, ignore_parse_errors: bool
    ) -> None:
        self.type_info = type_info
        self.fail_on_missing_field = fail_on_missing_field
        self.ignore_parse_errors = ignore_parse_errors

    @staticmethod
    def builder() -> JsonRowDeserializationSchemaBuilder:
        """A builder."""
        return JsonRowDeserializationSchemaBuilder()

    def converter(self) -> Callable[[Any], Any]:
        """Parsed JSON -> record; raises ValueError."""
        return _json_converter(self.type_info, self.fail_on_missing_field)

    def deserialize(self, message: bytes | str) -> Any:
        """The record of one JSON text (None if it cannot be parsed and errors are ignored)."""
        try:
            return self.converter()(json.loads(message))
        except ValueError:
            if self.ignore_parse_errors:
                return None
            raise


class JsonRowDeserializationSchemaBuilder:
    """Builds a ``JsonRowDeserializationSchema``."""

    def __init__(self) -> None:
        self._type_info: TypeInformation | None = None
        self._fail_on_missing_field = False
        self._ignore_parse_errors = False

    def type_info(self, type_info: TypeInformation) -> JsonRowDeserializationSchemaBuilder:
        """The row type of the records (``Types.ROW_NAMED(...)``)."""
        self._type_info = type_info
        return self

    def json_schema(self, json_schema: str) -> JsonRowDeserializationSchemaBuilder:
        """Not supported: give the type with ``type_info``."""
        raise NotImplementedError(
            "JSON schema strings are not supported; use type_info(Types.ROW_NAMED(...))"
        )

    def fail_on_missing_field(self) -> JsonRowDeserializationSchemaBuilder:
        """A field missing from an object fails instead of reading as None."""
        self._fail_on_missing_field = True
        return self

    def ignore_parse_errors(self) -> JsonRowDeserializationSchemaBuilder:
        """Skip records that cannot be parsed instead of failing."""
        self._ignore_parse_errors = True
        return self

    def build(self) -> JsonRowDeserializationSchema:
        """The schema."""
        if self._type_info is None:
            raise ValueError("JsonRowDeserializationSchema needs a type: builder().type_info(...)")
        return JsonRowDeserializationSchema(
            self._type_info, self._fail_on_missing_field, self._ignore_parse_errors
        )


class JsonLinesReaderFormat(_SchemaReaderFormat):
    """Reads JSON Lines (one JSON object per line) into records of a
    ``JsonRowDeserializationSchema``. Blank lines are skipped. The files are read in byte
    ranges like text lines."""

    kind = "json_lines"
    schema_type = JsonRowDeserializationSchema

    def get_produced_type(self) -> TypeInformation:
        """The schema's type."""
        return self.schema.type_info

    def line_decoder(self) -> LineDecoder:
        """Parses each line."""
        return _JsonLineDecoder(self.schema)


class _JsonLineDecoder(LineDecoder):
    def __init__(self, schema: JsonRowDeserializationSchema) -> None:
        self._convert = schema.converter()
        self._ignore = schema.ignore_parse_errors

    def decode(self, lines: list[str]) -> list[Any]:
        out = []
        convert, loads = self._convert, json.loads
        for index, line in enumerate(lines):
            if not line or line.isspace():
                continue
            try:
                out.append(convert(loads(line)))
            except ValueError as err:  # json.JSONDecodeError is a ValueError
                if not self._ignore:
                    raise LineError(index, str(err)) from err
        return out


def _json_converter(type_info: TypeInformation, fail_on_missing: bool) -> Callable[[Any], Any]:
    """Parsed JSON -> the Python value of ``type_info`` (None stays None)."""
    if isinstance(type_info, RowTypeInfo):
        return _json_row(type_info, fail_on_missing)
    if isinstance(type_info, ListTypeInfo):
        element = _nullable(_json_converter(type_info.element_type, fail_on_missing))
        return lambda value: [element(v) for v in _expect(list, value, "array")]
    if isinstance(type_info, MapTypeInfo):
        key = _json_converter(type_info.key_type, fail_on_missing)
        item = _nullable(_json_converter(type_info.value_type, fail_on_missing))
        return lambda value: {key(k): item(v) for k, v in _expect(dict, value, "object").items()}
    if isinstance(type_info, BasicTypeInfo):
        return _json_basic(type_info.name)
    return lambda value: value  # PICKLED_BYTE_ARRAY and others: the parsed JSON value


def _expect(kind: type, value: Any, name: str) -> Any:
    if not isinstance(value, kind):
        raise ValueError(f"expected a JSON {name}, got {json.dumps(value)}")
    return value


def _json_row(type_info: RowTypeInfo, fail_on_missing: bool) -> Callable[[Any], Any]:
    names = type_info.get_field_names()
    fields = [_nullable(_json_converter(t, fail_on_missing)) for t in type_info.get_field_types()]
    missing = object()

    def row(obj: Any) -> Row:
        _expect(dict, obj, "object")
        values = []
        for name, convert in zip(names, fields):
            value = obj.get(name, missing)
            if value is missing:
                if fail_on_missing:
                    raise ValueError(f"Could not find field with name '{name}'.")
                value = None
            try:
                values.append(convert(value))
            except ValueError as err:
                raise ValueError(f"field '{name}': {err}") from err
        return _named_row(names, values)

    return row


def _json_basic(name: str) -> Callable[[Any], Any]:
    data_type = _BASIC_SQL.get(name)
    if data_type is not None:
        return data_type().from_json()
    if name == "BIG_INT":
        return lambda v: v if type(v) is int else int(str(v).strip())
    if name == "BIG_DEC":
        return lambda v: decimal.Decimal(str(v).strip())
    return lambda value: value


_BASIC_SQL: dict[str, Callable[[], DataType]] = {
    "STRING": DataTypes.STRING,
    "CHAR": DataTypes.STRING,
    "BOOLEAN": DataTypes.BOOLEAN,
    "BYTE": DataTypes.TINYINT,
    "SHORT": DataTypes.SMALLINT,
    "INT": DataTypes.INT,
    "LONG": DataTypes.BIGINT,
    "FLOAT": DataTypes.FLOAT,
    "DOUBLE": DataTypes.DOUBLE,
    "SQL_DATE": DataTypes.DATE,
    "SQL_TIME": DataTypes.TIME,
    "SQL_TIMESTAMP": DataTypes.TIMESTAMP,
    "INSTANT": DataTypes.TIMESTAMP_LTZ,
}


def _nullable(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


# -- Parquet ------------------------------------------------------------------------------


class ParquetColumnarRowInputFormat(BulkFormat):
    """Reads Parquet files into ``Row``s of ``row_type`` (with ``pyarrow``), a row group at a time.

    Columns are matched by name (case-insensitively unless ``is_case_sensitive``); a column
    of the row type that the file lacks reads as None. Row groups are the units of work,
    so one large file is read by several subtasks.
    """

    kind = "parquet"

    def __init__(
        self,
        hadoop_config: Any = None,
        row_type: RowType | None = None,
        batch_size: int = 2048,
        is_utc_timestamp: bool = False,
        is_case_sensitive: bool = True,
    ) -> None:
        super().__init__()
        if not isinstance(row_type, RowType):
            raise TypeError("ParquetColumnarRowInputFormat needs row_type=DataTypes.ROW([...])")
        if batch_size <= 0:
            raise ValueError("batch_size must be positive")
        self.row_type = row_type
        self.batch_size = batch_size
        self.is_utc_timestamp = is_utc_timestamp
        self.is_case_sensitive = is_case_sensitive

    def get_produced_type(self) -> TypeInformation:
        """The row type's ``Types.ROW_NAMED``."""
        return self.row_type.to_type_info()

    def units(self, path: str, size: int) -> list[_Split]:
        """One unit per row group, weighted by its bytes."""
        import pyarrow.parquet as pq

        try:
            metadata = pq.ParquetFile(path).metadata
        except Exception as err:
            raise ValueError(f"{path}: not a Parquet file: {err}") from err
        return [
            _Split(path, i, i + 1, max(1, metadata.row_group(i).total_byte_size))
            for i in range(metadata.num_row_groups)
        ]

    def create_reader(self, splits: list[_Split]) -> FileReader:
        """Reads row groups."""
        return _ParquetReader(splits, self)


class _ParquetReader(FileReader):
    def __init__(self, splits: list[_Split], fmt: ParquetColumnarRowInputFormat) -> None:
        super().__init__(splits)
        self._format = fmt
        self._names = fmt.row_type.field_names()
        self._converters = [
            None if type(t) is DataType else _nullable(t.from_arrow()) for t in fmt.row_type.field_types()
        ]
        self._batches: Any = None
        self._file: Any = None
        self._columns: list[str | None] = []
        self._pending: list[Any] = []

    def _open_next(self) -> bool:
        import pyarrow.parquet as pq

        split = self._next_split()
        if split is None:
            return False
        self._file = pq.ParquetFile(split.path)
        present = self._file.schema_arrow.names
        if self._format.is_case_sensitive:
            lookup = {n: n for n in present}
            self._columns = [lookup.get(n) for n in self._names]
        else:
            lookup = {n.lower(): n for n in present}
            self._columns = [lookup.get(n.lower()) for n in self._names]
        wanted = sorted({c for c in self._columns if c is not None}, key=present.index)
        self._batches = self._file.iter_batches(
            batch_size=self._format.batch_size,
            row_groups=list(range(split.start, split.end)),
            columns=wanted,
        )
        return True

    def poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` rows; None when every row group is read."""
        while len(self._pending) < max_records:
            if self._batches is None and not self._open_next():
                break
            batch = next(self._batches, None)
            if batch is None:
                self.close()
                continue
            self._pending.extend(self._rows(batch))
        if not self._pending:
            return None
        out = self._pending[:max_records]
        del self._pending[:max_records]
        return out

    def _rows(self, batch: Any) -> list[Row]:
        n = batch.num_rows
        columns = []
        for name, convert in zip(self._columns, self._converters):
            if name is None:
                columns.append([None] * n)
                continue
            values = batch.column(name).to_pylist()
            columns.append(values if convert is None else [convert(v) for v in values])
        names = self._names
        return [_named_row(names, list(values)) for values in zip(*columns)]

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._file = None
        self._batches = None


# -- bulk writers (FileSink.for_bulk_format) ----------------------------------------------


def _fields_of(value: Any) -> list[Any]:
    """The fields of a record written by a bulk writer: a Row, tuple or list (by position)."""
    if isinstance(value, Row | tuple | list):
        return list(value)
    raise TypeError(f"a bulk-format file sink writes Rows or tuples, got {type(value).__name__}: {value!r}")


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


class ParquetBulkWriters:
    """Bulk writer factories of Parquet files (``pyflink.datastream.formats.parquet``)."""

    @staticmethod
    def for_row_type(row_type: RowType, hadoop_config: Any = None, utc_timestamp: bool = False) -> Any:
        """Rows of ``row_type`` written to Parquet (with ``pyarrow``), row groups of 64Ki rows."""
        if not isinstance(row_type, RowType):
            raise TypeError("ParquetBulkWriters.for_row_type needs a row type: DataTypes.ROW([...])")
        return _ParquetBulkWriterFactory(row_type)


class _ParquetBulkWriterFactory:
    def __init__(self, row_type: RowType) -> None:
        self.row_type = row_type

    def create(self, path: str) -> _ParquetBulkWriter:
        return _ParquetBulkWriter(path, self.row_type)


_ROW_GROUP_ROWS = 65_536


class _ParquetBulkWriter:
    def __init__(self, path: str, row_type: RowType) -> None:
        import pyarrow.parquet as pq

        self._schema = row_type.to_arrow_schema()
        self._writer = pq.ParquetWriter(path, self._schema)
        self._to_arrow = [_arrow_value(t) for t in row_type.field_types()]
        self._rows: list[list[Any]] = []

    def add_batch(self, values: list[Any]) -> None:
        self._rows.extend(_fields_of(v) for v in values)
        if len(self._rows) >= _ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if not self._rows:
            return
        columns = [
            pa.array([convert(row[i]) for row in self._rows], type=field.type)
            for i, (field, convert) in enumerate(zip(self._schema, self._to_arrow))
        ]
        self._writer.write_table(pa.Table.from_arrays(columns, schema=self._schema))
        self._rows.clear()

    def finish(self) -> None:
        self._flush()
        self._writer.close()

    def close(self) -> None:
        self._writer.close()


def _arrow_value(data_type: DataType) -> Callable[[Any], Any]:
    """A Python value of ``data_type`` as ``pyarrow.array`` takes it (rows as dicts, maps as pairs)."""
    if isinstance(data_type, RowType):
        names = data_type.field_names()
        fields = [_arrow_value(t) for t in data_type.field_types()]
        return lambda v: None if v is None else {n: f(x) for n, f, x in zip(names, fields, _fields_of(v))}
    if isinstance(data_type, ArrayType):
        element = _arrow_value(data_type.element_type)
        return lambda v: None if v is None else [element(x) for x in v]
    if data_type.root == "MAP":
        value = _arrow_value(data_type.value_type)  # type: ignore[attr-defined]
        return lambda v: None if v is None else [(k, value(x)) for k, x in v.items()]
    return lambda v: v
