"""Parquet (pyarrow): ``ParquetColumnarRowInputFormat`` for ``FileSource``, ``ParquetBulkWriters``
for ``FileSink``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from millstream.common.typeinfo import (
    TypeInformation,
)
from millstream.common.types import Row
from millstream.connectors.file.readers import FileReader, FileSourceSplit
from millstream.connectors.file.source import BulkFormat
from millstream.connectors.formats.common import _fields_of, _named_row, _nullable
from millstream.table.common.factories import Decoder, Encoder, FormatFactory
from millstream.table.common.timestamps import arrow_nano_timestamps, instant_epoch_nanos, to_epoch_nanos
from millstream.table.common.types import ArrayType, DataType, RowType

__all__ = ["PARQUET", "ParquetBulkWriters", "ParquetColumnarRowInputFormat"]


class ParquetColumnarRowInputFormat(BulkFormat):
    """Reads Parquet files into ``Row``s of ``row_type`` (with ``pyarrow``), a row group at a time.

    Columns are matched by name (case-insensitively unless ``is_case_sensitive``); a column
    of the row type that the file lacks reads as None. Row groups are the units of work,
    so one large file is read by several subtasks.
    """

    kind = "parquet"

    def __init__(
        self,
        row_type: RowType | None = None,
        hadoop_config: Any = None,
        batch_size: int = 2048,
        is_utc_timestamp: bool = False,
        is_case_sensitive: bool = True,
    ) -> None:
        super().__init__()
        if not isinstance(row_type, RowType) and isinstance(hadoop_config, RowType):
            row_type, hadoop_config = hadoop_config, row_type  # PyFlink 1.x's order
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

    def units(self, path: str, size: int) -> list[FileSourceSplit]:
        """One unit per row group, weighted by its bytes."""
        try:
            metadata = pq.ParquetFile(path).metadata
        except Exception as err:
            raise ValueError(f"{path}: not a Parquet file: {err}") from err
        return [
            FileSourceSplit(path, i, i + 1, max(1, metadata.row_group(i).total_byte_size))
            for i in range(metadata.num_row_groups)
        ]

    def create_reader(self, splits: list[FileSourceSplit]) -> FileReader:
        """Reads row groups."""
        return _ParquetReader(splits, self)


class _ParquetReader(FileReader):
    def __init__(self, splits: list[FileSourceSplit], fmt: ParquetColumnarRowInputFormat) -> None:
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

    def _poll(self, max_records: int) -> list[Any] | None:
        """Up to ``max_records`` rows of one unit; None when every row group is read."""
        while len(self._pending) < max_records:
            if self._batches is None and (self._pending or not self._open_next()):
                break  # a batch holds the rows of one unit
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
        columns: list[list[Any]] = []
        for name, convert in zip(self._columns, self._converters):
            if name is None:
                columns.append([None] * n)
                continue
            column = batch.column(name)
            nanos = arrow_nano_timestamps(column)  # (to_pylist would lose the nanoseconds)
            if nanos is not None:
                columns.append(nanos)
                continue
            values = column.to_pylist()
            columns.append(values if convert is None else [convert(v) for v in values])
        names = self._names
        return [_named_row(names, list(values)) for values in zip(*columns)]

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._file = None
        self._batches = None


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
        self._schema = row_type.to_arrow_schema()
        self._writer = pq.ParquetWriter(path, self._schema)
        self._to_arrow = [_arrow_value(t) for t in row_type.field_types()]
        self._rows: list[list[Any]] = []

    def add_batch(self, values: list[Any]) -> None:
        self._rows.extend(_fields_of(v) for v in values)
        if len(self._rows) >= _ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
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
    if data_type.root in ("TIMESTAMP", "TIMESTAMP_LTZ") and data_type.params and data_type.params[0] > 6:
        # a timestamp[ns] column (DataType.to_arrow): the epoch nanoseconds, which a datetime
        # (to the microsecond) would lose; a TIMESTAMP_LTZ's of its instant
        epoch = instant_epoch_nanos if data_type.root == "TIMESTAMP_LTZ" else to_epoch_nanos
        return lambda v: None if v is None else epoch(v)
    return lambda v: v


class ParquetFormatFactory(FormatFactory):
    """``'format' = 'parquet'``: whole files (the filesystem connector reads and writes them
    with pyarrow); a single record (a Kafka message) cannot be Parquet."""

    identifier = "parquet"

    def decoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Decoder:
        raise ValueError("'parquet' is a file format: only the filesystem connector reads it")

    def encoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Encoder:
        raise ValueError("'parquet' is a file format: only the filesystem connector writes it")


PARQUET = ParquetFormatFactory()
