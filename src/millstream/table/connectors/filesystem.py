"""The ``filesystem`` connector of tables: CSV, JSON-lines and Parquet files, read and written
through millstream's FileSource and FileSink (so reading is split over subtasks and
checkpointed, and writing commits part files exactly once).

Options, as Flink's: ``path`` (a file or a directory, read recursively, hidden ``.``/``_`` files
skipped), ``format`` (``csv``, ``json``, ``parquet``), ``csv.field-delimiter`` (``,``),
``csv.quote-character`` (``"``), ``csv.null-literal``, ``csv.allow-comments``,
``csv.ignore-parse-errors`` and ``json.ignore-parse-errors`` (skip a bad row instead of failing
the job, whose error otherwise names the file, line and column), ``json.fail-on-missing-field``,
``partition.default-name`` (``__DEFAULT_PARTITION__``, the directory of a NULL partition value).

A partitioned table (``PARTITIONED BY (dt)`` / ``TableDescriptor...partitioned_by('dt')``)
keeps its partition columns in the directory names (``path/dt=2024-01-01/part-...``), not in
the files: reading takes them from the path, writing puts each row under its partition's
directory. The sink accepts insert-only tables (Flink's filesystem sink is append-only).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import os
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pyarrow.parquet as pq

from millstream.common.serialization import Encoder
from millstream.connectors.file.readers import FileReader, FileSourceSplit
from millstream.connectors.file.sink import FileSink, OutputFileConfig
from millstream.connectors.file.source import FileSource, StreamFormat
from millstream.connectors.formats.avro import AvroFileWriterFactory, read_avro_file
from millstream.connectors.formats.csv_jackson import arity_error, jackson_fields
from millstream.connectors.formats.json_converters import json_loads, json_row_converter
from millstream.connectors.formats.parquet import ParquetBulkWriters
from millstream.connectors.formats.row_formats import csv_field as _csv_value
from millstream.connectors.formats.row_formats import csv_write_options, lenient_csv_row
from millstream.table.common.factories import (
    DynamicTableFactory,
    TableContext,
    TableSink,
    find_format_factory,
)
from millstream.table.common.lookup_source import LookupContext, LookupFunctionProvider, LookupTableSource
from millstream.table.common.options import parse_duration_ms
from millstream.table.common.row_kind import INSERT
from millstream.table.common.table_source import TableSource
from millstream.table.common.timestamps import arrow_nano_timestamps
from millstream.table.common.types import DataType, DataTypes, _same
from millstream.table.connectors.filesystem_lookup import (
    DEFAULT_CACHE_TTL,
    LOOKUP_CACHE_TTL,
    FileSystemLookupFunction,
)
from millstream.table.functions.aggregates import to_float32

__all__ = ["FILESYSTEM", "FileSystemSource", "write_filesystem"]

_FORMATS = ("csv", "json", "parquet", "avro")  # whole files here; other formats through the registry
DEFAULT_PARTITION = "__DEFAULT_PARTITION__"


def _format_of(options: dict[str, str]) -> str:
    """The table's format: csv, json, parquet, or a line format of the format registry
    (``raw``, ``debezium-json``, ``canal-json`` ...: one record per line)."""
    name = options.get("format")
    if name is None:
        raise ValueError(f"the filesystem connector needs a 'format' ({', '.join(_FORMATS)}, raw, ...)")
    if name not in _FORMATS:
        find_format_factory(name)  # fails naming the formats there are
    return name


def _changelog(table_format: str) -> bool:
    return table_format not in _FORMATS and find_format_factory(table_format).changelog


@dataclass(frozen=True)
class FileSystemSource(TableSource, LookupTableSource):
    """The rows of a filesystem table: physical columns from the files, partition columns
    from the directories; also a lookup table (``filesystem_lookup.py``: the whole table
    cached, read again after ``lookup.join.cache.ttl``).

    As Flink's FileSystemTableSource it supports projection push-down (``apply_projection``:
    its columns become the ones its consumers read, the files' formats decode only those
    where they can, ``table_columns`` keeps the table's) and filter push-down
    (``apply_filters``: it keeps the conjuncts, every one also remaining in the filter above;
    a columnar Parquet scan skips the row groups whose statistics rule them out)."""

    options: dict[str, str] = field(default_factory=dict)
    partition_keys: list[str] = field(default_factory=list)
    # the table's columns (partition columns included) when a projection was pushed; None: ``names``
    table_columns: tuple[tuple[str, DataType], ...] | None = None
    filters: tuple[Any, ...] = ()  # the conjuncts pushed into the scan (expressions)

    def apply_projection(self, names: list[str]) -> FileSystemSource:
        """This table's columns ``names`` only, in that order."""
        columns = self.table_columns or tuple(zip(self.names, self.types, strict=True))
        types = dict(columns)
        return dataclasses.replace(
            self, names=list(names), types=[types[n] for n in names], table_columns=columns
        )

    def apply_filters(self, filters: list[Any]) -> FileSystemSource:
        """This table with ``filters`` pushed (all of them remain in the filter above)."""
        return dataclasses.replace(self, filters=tuple(filters))

    def get_lookup_runtime_provider(self, context: LookupContext) -> LookupFunctionProvider:
        path = self.options.get("path")
        if not path:
            raise ValueError("the filesystem connector needs the 'path' option")
        ttl_ms = parse_duration_ms(self.options.get(LOOKUP_CACHE_TTL, DEFAULT_CACHE_TTL))
        load = functools.partial(_read_table, dataclasses.replace(self, filters=()))
        return LookupFunctionProvider.of(FileSystemLookupFunction(load, context.key_indexes(), ttl_ms, path))

    def produce(self, env: Any, watermarks: Any) -> Any:
        path = self.options.get("path")
        if not path:
            raise ValueError("the filesystem connector needs the 'path' option")
        table_format = _TableFileFormat(
            list(self.names), list(self.types), self.partition_keys, self.options, path, self.table_columns
        )
        builder = FileSource.for_record_stream_format(table_format, path)
        interval = self.options.get("source.monitor-interval")
        if interval is not None:  # Flink's directory watching: new files as they appear (unbounded)
            millis = parse_duration_ms(interval)
            if millis <= 0:
                raise ValueError(f"'source.monitor-interval' must be greater than 0, got {interval!r}")
            builder.monitor_continuously(millis)
        source = builder.build()
        return env.from_source(source, watermarks, f"filesystem: {path}")


def _read_table(source: FileSystemSource) -> list[tuple[str, tuple[Any, ...]]]:
    """Every change in the files of ``source``'s table, file after file."""
    path = source.options["path"]
    table_format = _TableFileFormat(
        list(source.names),
        list(source.types),
        source.partition_keys,
        source.options,
        path,
        source.table_columns,
    )
    reader = _TableFileReader([], table_format)
    changes: list[tuple[str, tuple[Any, ...]]] = []
    for split in FileSource.for_record_stream_format(table_format, path).build().splits():
        changes.extend(reader._decode(split.path))
    return changes


class _TableFileFormat(StreamFormat):
    """Whole files (not split) of one format, read into ``(kind, row)`` changes."""

    def __init__(
        self,
        names: list[str],
        types: list[DataType],
        partition_keys: list[str],
        options: dict[str, str],
        root: str,
        table_columns: tuple[tuple[str, DataType], ...] | None = None,
    ) -> None:
        super().__init__()
        self.names, self.types, self.options = names, types, options  # the columns read
        self.partition_keys = partition_keys
        self.table_columns = list(table_columns or zip(names, types, strict=True))  # the table's
        self.root = os.path.abspath(root.removeprefix("file://"))
        self.format = _format_of(options)

    def is_splittable(self) -> bool:
        return False

    def create_reader(self, splits: list[FileSourceSplit]) -> FileReader:
        return _TableFileReader(splits, self)


class _TableFileReader(FileReader):
    """Decodes one file at a time, then hands its rows out in batches (never two files in one)."""

    def __init__(self, splits: list[FileSourceSplit], fmt: _TableFileFormat) -> None:
        super().__init__(splits)
        self.fmt = fmt
        partitions = set(fmt.partition_keys)
        self.physical = [(n, t) for n, t in zip(fmt.names, fmt.types, strict=True) if n not in partitions]
        # what a file holds, for the formats that decode by position (CSV, the line formats)
        self.file_columns = [(n, t) for n, t in fmt.table_columns if n not in partitions]
        self.changes: list[tuple[str, tuple[Any, ...]]] | None = None
        self.position = 0

    def _poll(self, max_records: int) -> list[Any] | None:
        while self.changes is None or self.position >= len(self.changes):
            split = self._next_split()
            if split is None:
                return None
            self.changes = self._decode(split.path)
            self.position = 0
        batch = self.changes[self.position : self.position + max_records]
        self.position += len(batch)
        return batch

    def _decode(self, path: str) -> list[tuple[str, tuple[Any, ...]]]:
        fmt = self.fmt
        if fmt.format == "parquet":
            changes = [(INSERT, row) for row in _read_parquet(path, self.physical)]
        elif fmt.format == "json":
            changes = [(INSERT, row) for row in _read_json(path, self.physical, fmt.options)]
        elif fmt.format == "avro":
            names = [n for n, _ in self.physical]
            changes = [(INSERT, row) for row in read_avro_file(path, names, [t for _, t in self.physical])]
        elif fmt.format == "csv":
            changes = [
                (INSERT, row) for row in _read_csv(path, self.file_columns, fmt.options, self.physical)
            ]
        else:
            changes = self._projected(_read_lines(path, self.file_columns, fmt.format, fmt.options))
        if not fmt.partition_keys:
            return changes
        values = _partition_values(path, fmt)
        positions = {n: i for i, (n, _) in enumerate(self.physical)}
        return [
            (kind, tuple(values[n] if n in values else row[positions[n]] for n in fmt.names))
            for kind, row in changes
        ]

    def _projected(self, changes: list[tuple[str, tuple[Any, ...]]]) -> list[tuple[str, tuple[Any, ...]]]:
        """Changes decoded with every column of the files, cut to the columns read."""
        if self.file_columns == self.physical:
            return changes
        positions = {n: i for i, (n, _) in enumerate(self.file_columns)}
        indexes = [positions[n] for n, _ in self.physical]
        return [(kind, tuple([row[i] for i in indexes])) for kind, row in changes]

    def close(self) -> None:
        self.changes = None


def _partition_values(path: str, fmt: _TableFileFormat) -> dict[str, Any]:
    """``k=v`` directories between the table's root and the file, typed by the schema."""
    relative = os.path.relpath(os.path.dirname(os.path.abspath(path)), fmt.root)
    default = fmt.options.get("partition.default-name", DEFAULT_PARTITION)
    types = dict(fmt.table_columns)
    values: dict[str, Any] = dict.fromkeys(fmt.partition_keys)
    for segment in relative.split(os.sep):
        key, sep, text = segment.partition("=")
        if sep and key in values:
            text = urllib.parse.unquote(text)
            values[key] = None if text == default else types[key].from_text()(text)
    return values


def _error(path: str, line: int, column: str | None, err: Exception) -> ValueError:
    where = f"{path}, line {line}" + (f", column '{column}'" if column else "")
    return ValueError(f"{where}: {err}")


def _read_csv(
    path: str,
    columns: list[tuple[str, DataType]],
    options: dict[str, str],
    read: list[tuple[str, DataType]] | None = None,
) -> list[tuple[Any, ...]]:
    """The rows of a CSV file of ``columns``, each cut to the columns ``read`` (None: all),
    whose values alone are converted (Flink's projected CSV converter)."""
    delimiter = options.get("csv.field-delimiter", ",").encode().decode("unicode_escape")
    quote = options.get("csv.quote-character", '"')
    null_literal = options.get("csv.null-literal")
    comments = options.get("csv.allow-comments", "false").lower() == "true"
    ignore = options.get("csv.ignore-parse-errors", "false").lower() == "true"
    wanted = {n for n, _ in read or columns}
    parsers = [(n, t.root, t.from_text()) if n in wanted else (n, "STRING", str) for n, t in columns]
    rows = []
    with open(path, encoding="utf-8-sig", newline="") as file:  # a leading UTF-8 BOM is not data
        reader = csv.reader(file, delimiter=delimiter, quotechar=quote or None, strict=False)
        for fields in reader:
            if comments and fields and fields[0].startswith("#"):
                continue
            # Jackson reads an empty line as one empty field, and drops one empty trailing field
            record = jackson_fields(fields or [""], len(parsers))
            if ignore:
                lenient = lenient_csv_row(parsers, record, null_literal)
                if lenient is not None:
                    rows.append(lenient)
                continue
            try:
                mismatch = arity_error(record, len(parsers))
                if mismatch is not None:
                    raise ValueError(mismatch)
                rows.append(
                    tuple(_csv_value(p, text, null_literal) for p, text in zip(parsers, record, strict=True))
                )
            except ValueError as err:
                if ignore:
                    continue
                column = next(
                    (
                        n
                        for (n, r, parse), t in zip(parsers, record, strict=False)
                        if not _parses(r, parse, t, null_literal)
                    ),
                    None,
                )
                raise _error(path, reader.line_num, column, err) from err
    if read is None or [n for n, _ in read] == [n for n, _ in columns]:
        return rows
    positions = {n: i for i, (n, _) in enumerate(columns)}
    indexes = [positions[n] for n, _ in read]
    return [tuple([row[i] for i in indexes]) for row in rows]


def _parses(root: str, parse: Callable[[str], Any], text: str, null_literal: str | None) -> bool:
    try:
        _csv_value(("", root, parse), text, null_literal)
        return True
    except ValueError:
        return False


def _read_json(
    path: str, columns: list[tuple[str, DataType]], options: dict[str, str]
) -> list[tuple[Any, ...]]:
    """The rows of a JSON-lines file, converted as Flink's JSON format: with
    ``json.ignore-parse-errors`` a value that does not convert is NULL (the row kept) and a line
    that is not a JSON object is skipped; otherwise either fails naming the file and line."""
    ignore = options.get("json.ignore-parse-errors", "false").lower() == "true"
    to_row = json_row_converter(
        [n for n, _ in columns],
        [t for _, t in columns],
        options.get("json.fail-on-missing-field", "false").lower() == "true",
        ignore,
        options.get("json.timestamp-format.standard", "SQL"),
    )
    rows = []
    with open(path, encoding="utf-8") as file:
        for line_number, line in enumerate(file, 1):
            if not line.strip():
                continue
            try:
                rows.append(to_row(json_loads(line)))
            except ValueError as err:
                if ignore:
                    continue
                raise _error(path, line_number, None, err) from err
    return rows


def _read_lines(
    path: str, columns: list[tuple[str, DataType]], table_format: str, options: dict[str, str]
) -> list[tuple[str, tuple[Any, ...]]]:
    """A file of one record per line in a format of the registry; errors name the line."""
    factory = find_format_factory(table_format)
    decode = factory.decoder([n for n, _ in columns], [t for _, t in columns], options, "")
    changes: list[tuple[str, tuple[Any, ...]]] = []
    with open(path, "rb") as file:
        for line_number, line in enumerate(file, 1):
            record = line.rstrip(b"\r\n")
            if not record:
                continue
            try:
                decoded = decode(record)
            except ValueError as err:
                raise _error(path, line_number, None, err) from err
            if factory.changelog:
                changes.extend(decoded)
            elif decoded is not None:
                changes.append((INSERT, decoded))
    return changes


def _read_parquet(path: str, columns: list[tuple[str, DataType]]) -> list[tuple[Any, ...]]:
    table = pq.read_table(path, columns=[n for n, _ in columns])
    if not columns:  # a query reading no column of the file (SELECT RAND() FROM t): its rows
        return [()] * table.num_rows
    data = []
    for i, (_, data_type) in enumerate(columns):
        nanos = arrow_nano_timestamps(table.column(i))  # a TIMESTAMP(9)'s, to the nanosecond
        if nanos is not None:
            data.append(nanos)
            continue
        values = table.column(i).to_pylist()
        convert = data_type.from_arrow()
        if convert is not _same:  # only types whose Arrow value differs from the Python one
            values = [None if v is None else convert(v) for v in values]
        if data_type.root == "FLOAT":  # FLOAT columns hold 32-bit values (Arrow gives them widened)
            values = [None if v is None else to_float32(v) for v in values]
        data.append(values)
    return list(zip(*data, strict=True))


# -- writing ---------------------------------------------------------------------------------------------


class _PartitionBuckets:
    """The FileSink bucket of each row: its partition directories (``dt=2024-01-01/``)."""

    def __init__(
        self,
        indexes: list[tuple[str, int]],
        default_name: str,
        encode: Callable[[Any], Any],
        row_of: Callable[[Any], tuple[Any, ...]] | None = None,
    ) -> None:
        self.indexes, self.default_name, self.encode = indexes, default_name, encode
        self.row_of = row_of

    def bucket_id(self, now: float) -> str:
        return ""

    def bucket_of(self, element: Any) -> tuple[str, Any]:
        row = element if self.row_of is None else self.row_of(element)
        parts = []
        for name, index in self.indexes:
            value = row[index]
            text = self.default_name if value is None else _partition_text(value)
            parts.append(f"{name}={urllib.parse.quote(text, safe='')}")
        return "/".join(parts), self.encode(element)


def _partition_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def write_filesystem(
    stream: Any, names: list[str], types: list[DataType], options: dict[str, str], partition_keys: list[str]
) -> Any:
    """Write a stream of insert-only ``(kind, row)`` changes as the table's files."""
    path = options.get("path")
    if not path:
        raise ValueError("the filesystem connector needs the 'path' option")
    table_format = _format_of(options)
    partitions = [(n, names.index(n)) for n in partition_keys]
    physical = [i for i, n in enumerate(names) if n not in partition_keys]
    physical_types = [types[i] for i in physical]

    if table_format not in _FORMATS:  # a line format of the registry (changelogs: each change)
        return _write_lines(stream, names, types, options, partitions, physical, table_format)

    def rows(change: tuple[str, tuple[Any, ...]]) -> tuple[Any, ...]:
        if change[0] != INSERT:
            raise ValueError(
                "Table sink 'filesystem' doesn't support consuming update and delete changes "
                f"(got {change[0]}): the filesystem connector is append-only"
            )
        return change[1]

    if table_format in ("parquet", "avro"):  # whole files of rows
        row_type = DataTypes.ROW([DataTypes.FIELD(names[i], types[i]) for i in physical])
        encode: Callable[[tuple[Any, ...]], Any] = lambda row: tuple(row[i] for i in physical)  # noqa: E731
        factory = (
            ParquetBulkWriters.for_row_type(row_type)
            if table_format == "parquet"
            else AvroFileWriterFactory([names[i] for i in physical], physical_types)
        )
        builder: Any = FileSink.for_bulk_format(path, factory)
        suffix = f".{table_format}"
    else:
        encode = _line_encoder(table_format, [names[i] for i in physical], physical_types, physical, options)

        builder = FileSink.for_row_format(path, Encoder.simple_string_encoder())
        suffix = f".{table_format}"
    assigner: Any = _PartitionBuckets(
        partitions, options.get("partition.default-name", DEFAULT_PARTITION), encode
    )
    config = OutputFileConfig.builder().with_part_prefix("part").with_part_suffix(suffix).build()
    sink = builder.with_bucket_assigner(assigner).with_output_file_config(config).build()
    return stream.map(rows).sink_to(sink)


def _write_lines(
    stream: Any,
    names: list[str],
    types: list[DataType],
    options: dict[str, str],
    partitions: list[tuple[str, int]],
    physical: list[int],
    table_format: str,
) -> Any:
    factory = find_format_factory(table_format)
    encoder = factory.encoder([names[i] for i in physical], [types[i] for i in physical], options, "")

    def encode(change: tuple[str, tuple[Any, ...]]) -> str:
        data = encoder((change[0], tuple(change[1][i] for i in physical)))
        return "" if data is None else data.decode("utf-8")

    def checked(change: tuple[str, tuple[Any, ...]]) -> tuple[str, tuple[Any, ...]]:
        if change[0] != INSERT and not factory.changelog:
            raise ValueError(
                f"Table sink 'filesystem' doesn't support consuming update and delete changes "
                f"(got {change[0]}): the '{table_format}' format is insert-only"
            )
        return change

    assigner: Any = _PartitionBuckets(
        partitions,
        options.get("partition.default-name", DEFAULT_PARTITION),
        encode,
        row_of=lambda change: change[1],
    )
    config = OutputFileConfig.builder().with_part_prefix("part").build()  # no suffix, as PyFlink 2.3 wrote
    builder = FileSink.for_row_format(options["path"], Encoder.simple_string_encoder())
    sink = builder.with_bucket_assigner(assigner).with_output_file_config(config).build()
    return stream.map(checked).sink_to(sink)


def _line_encoder(
    table_format: str, names: list[str], types: list[DataType], indexes: list[int], options: dict[str, str]
) -> Callable[[tuple[Any, ...]], str]:
    if table_format == "json":  # the json format's records, one per line
        encode = find_format_factory("json").encoder(names, types, options, "")

        def to_json(row: tuple[Any, ...]) -> str:
            return bytes(encode((INSERT, tuple(row[i] for i in indexes))) or b"").decode("utf-8")

        return to_json
    write = csv_write_options(options, line_separator="\n", records=False)
    separator = write.separator
    columns = [(write.column_writer(t), i) for t, i in zip(types, indexes, strict=True)]

    def to_csv(row: tuple[Any, ...]) -> str:
        return separator.join([column(row[i]) for column, i in columns])

    return to_csv


class _FileSystemSink(TableSink):
    def __init__(self, context: TableContext) -> None:
        self.options, self.partition_keys = dict(context.options), list(context.partition_keys)
        self.changelog = "all" if _changelog(_format_of(self.options)) else "insert-only"
        self.names = [n for n, _ in context.physical]  # the table's columns, as the files name them

    def consume(self, stream: Any, names: list[str], types: list[DataType]) -> Any:
        if len(self.names) == len(names):  # an INSERT's query may name its columns otherwise
            names = self.names
        return write_filesystem(stream, names, types, self.options, self.partition_keys)


class FileSystemFactory(DynamicTableFactory):
    """``'connector' = 'filesystem'``."""

    identifier = "filesystem"

    def create_source(self, context: TableContext) -> TableSource:
        names = [n for n, _ in context.physical]
        types = [t for _, t in context.physical]
        changelog = "all" if _changelog(_format_of(context.options)) else "insert-only"
        options, partitions = dict(context.options), list(context.partition_keys)
        return FileSystemSource(names, types, changelog, options=options, partition_keys=partitions)

    def create_sink(self, context: TableContext) -> TableSink:
        return _FileSystemSink(context)


FILESYSTEM = FileSystemFactory()
