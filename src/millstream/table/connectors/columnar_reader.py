"""The columnar reader of a filesystem table: JSON lines in byte ranges (several subtasks share a
file), whole CSV files or whole Parquet files read as Arrow record batches, only the columns and
ROW fields the scan's steps read, each batch run through the steps (projections, filter,
watermark) on Arrow and handed on as ``ChangeBatch`` elements, cut where a watermark would be
emitted inline.

A JSON chunk Arrow cannot read (a value of another JSON type than the column's) is read by the
row path's parser instead (``filesystem._read_json``), which either converts the value as it
always has or fails naming the file, line and column; the rows then go through the same Arrow
steps. A CSV file whose record or value Arrow cannot read as the row path does
(``formats/csv_arrow.py``) is read by the row path from that record on. A Parquet file skips the
row groups whose statistics rule out a filter pushed into the scan (``formats/parquet_pruning.py``);
the filter itself runs on the rows of the others."""

from __future__ import annotations

import datetime
import decimal
import io
import os
import tempfile
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
import pyarrow.parquet as pq

from millstream.connectors.file.readers import FileReader, FileSourceSplit
from millstream.connectors.file.source import StreamFormat
from millstream.connectors.formats.csv_arrow import CsvArrowFallback, csv_batches, typed_columns
from millstream.connectors.formats.parquet_pruning import COMPARISONS, kept_row_groups
from millstream.table.common.types import DataType
from millstream.table.connectors.filesystem import _read_csv, _read_json
from millstream.table.expression import expression as e
from millstream.table.runtime.batch_calc import Step, empty_batch, evaluator, projected
from millstream.table.runtime.change_batch import ChangeBatch
from millstream.table.runtime.columnar_fields import needed_columns, read_schemas
from millstream.table.runtime.vectorized import (
    _arrow_input,
    as_array,
    int64_numpy,
    true_only,
)

__all__ = ["CHUNK_BYTES"]

CHUNK_BYTES = 4 << 20  # JSON bytes parsed per Arrow call


class ColumnarFormat(StreamFormat):
    """The files of a fused scan: byte ranges of JSON lines, or whole Parquet files."""

    def __init__(
        self, source: Any, steps: list[Step], names: list[str], types: list[DataType], interval: int
    ) -> None:
        super().__init__()
        self.source, self.steps, self.names, self.types = source, steps, names, types
        self.interval = interval
        self.format = source.options["format"]
        self.fields: dict[str, tuple[str, ...] | None] | None = None  # ColumnarScan.fields

    def needed(self) -> dict[str, set[str] | None]:
        """The source columns (and ROW fields) the scan parses."""
        fields = self.fields
        top = (
            list(self.names)
            if fields is None
            else {n: None if f is None else set(f) for n, f in fields.items()}
        )
        return needed_columns(self.steps, top)

    def is_splittable(self) -> bool:
        return self.format == "json"

    def create_reader(self, splits: list[FileSourceSplit]) -> FileReader:
        return ColumnarReader(splits, self)

    def parquet_predicate(self) -> list[tuple[str, str, Any]]:
        """The comparisons of the filters pushed into the scan that Parquet's statistics can
        decide (``parquet_pruning``)."""
        columns = dict(zip(self.source.names, self.source.types, strict=True))
        found = (_comparison(f, columns) for f in getattr(self.source, "filters", ()))
        return [c for c in found if c is not None]


class ColumnarReader(FileReader):
    """Reads Arrow batches of its splits, runs the steps on them and hands out the rows that
    pass, cut where a watermark would be emitted inline."""

    def __init__(self, splits: list[FileSourceSplit], fmt: ColumnarFormat) -> None:
        super().__init__(splits)
        self.fmt = fmt
        self.physical = list(zip(fmt.source.names, fmt.source.types, strict=True))
        self.read_schema, self.full_schema = read_schemas(self.physical, fmt.needed())
        self.watermark_step = next((s for s in fmt.steps if s.kind == "watermark"), None)
        self.out: ChangeBatch | None = None  # the rows of the batch read that pass
        self.size = 0
        self.cuts: list[tuple[int, int]] = []  # (end row, watermark value): the output in slices
        self.position = 0
        self._file: Any = None
        self._pos = self._end = 0
        self._parquet: Any = None
        self._csv: Any = None  # the record batches of the CSV file being read
        self._csv_rows = 0  # ... and how many of its records they held so far
        self._last_marks: list[int] | None = None
        self.emitted_mark = 0  # the reader's view of the last watermark emitted inline

    def poll_timestamped(self, max_records: int) -> Any:
        batch = self.poll(max_records)
        if batch is None:
            return None
        stamps = (
            None if not batch or batch[0].stamps is None or not len(batch[0]) else [int(batch[0].stamps[-1])]
        )
        return batch, stamps, self._last_marks or []

    def poll(self, max_records: int) -> list[Any] | None:
        """One ``ChangeBatch`` (the rows up to the next watermark cut), the split's position
        counted in rows: a restored reader skips rows, not elements."""
        while True:
            polled = self._poll(max_records)
            if not polled:
                return polled
            rows: ChangeBatch = polled[0]
            if self._skip:
                dropped = min(self._skip, len(rows))
                self._skip -= dropped
                self._returned_in_current += dropped
                rows = rows.slice(dropped)
                if not len(rows) and not self._last_marks:
                    continue
            self._returned_in_current += len(rows)
            return [rows]

    def _poll(self, max_records: int) -> list[Any] | None:
        while self.position >= self.size and not self.cuts:
            if not self._read_batch():
                return None
        end = self.size  # a batch carries everything up to the next watermark cut
        mark = None
        if self.cuts:
            end, mark = self.cuts.pop(0)
            # rows the filter dropped raised the watermark again before the next row that
            # passes: the last of those watermarks follows these rows (it may follow none)
            while self.cuts and self.cuts[0][0] <= end:
                mark = self.cuts.pop(0)[1]
        start, self.position = self.position, end
        self._last_marks = None if mark is None else [mark]
        assert self.out is not None
        return [self.out.slice(start, end - start)]

    # -- reading batches -----------------------------------------------------------------------------------

    def _read_batch(self) -> bool:
        """Read, compute and convert the next batch of the current split (or the next split's);
        False when every split is read."""
        while True:
            table = self._next_table()
            if table is None:
                return False
            if table.num_rows:
                self._compute(table)
                if self.size or self.cuts:
                    return True

    def _next_table(self) -> Any:
        while True:
            if self.fmt.format == "parquet":
                if self._parquet is None and not self._open_next():
                    return None
                try:
                    return pa.Table.from_batches([next(self._parquet)])
                except StopIteration:
                    self._parquet = None
                    continue
            if self.fmt.format == "csv":
                if self._csv is None and not self._open_next():
                    return None
                table = self._next_csv()
                if table is None:
                    self._csv = None
                    continue
                return table
            if self._file is None and not self._open_next():
                return None
            data = self._read_lines()
            if data is None:
                self.close()
                continue
            return self._parse_json(data)

    def _open_next(self) -> bool:
        split = self._next_split()
        if split is None:
            return False
        if self.fmt.format == "parquet":
            reader = pq.ParquetFile(split.path)
            columns = [f.name for f in self.read_schema]
            predicate = self.fmt.parquet_predicate()
            groups = kept_row_groups(reader.metadata, predicate) if predicate else None
            self._parquet = reader.iter_batches(batch_size=65536, columns=columns, row_groups=groups)
            return True
        if self.fmt.format == "csv":
            names = [n for n, _ in self._file_columns()]
            self._csv = csv_batches(split.path, names, self.fmt.source.options, CHUNK_BYTES)
            self._csv_rows = 0
            return True
        self._file = open(split.path, "rb")  # noqa: SIM115 - closed by close()
        self._end, self._pos = split.end, split.start
        if split.start > 0:  # the line that starts before the split is the previous split's
            self._file.seek(split.start - 1)
            self._pos = split.start - 1 + len(self._file.readline())
        return True

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        self._parquet = self._csv = None

    def _file_columns(self) -> list[tuple[str, DataType]]:
        """The columns a CSV file holds, in order (the table's, a projection or not)."""
        return list(self.fmt.source.table_columns or self.physical)

    def _next_csv(self) -> Any:
        """The next records of the CSV file as an Arrow table of the columns read (None: the
        file is done); from the first record Arrow cannot read as the row path does, the
        rest of the file by the row path."""
        columns = [(f.name, dict(self.physical)[f.name]) for f in self.read_schema]
        null_literal = self.fmt.source.options.get("csv.null-literal")
        try:
            batch = next(self._csv)
            arrays = typed_columns(batch, columns, null_literal)
        except StopIteration:
            return None
        except CsvArrowFallback:
            return self._csv_by_rows()
        self._csv_rows += batch.num_rows
        return pa.Table.from_arrays(arrays, schema=self.read_schema)

    def _csv_by_rows(self) -> Any:
        """The records of the CSV file not yet read, by the row path (its values, or its error
        naming the file, line and column)."""
        rows = _read_csv(self.current_file, self._file_columns(), self.fmt.source.options, self.physical)
        self._csv = iter(())  # the file is done after these
        return self._arrow_table(rows[self._csv_rows :])

    def _read_lines(self) -> bytes | None:
        """The next chunk of whole lines that start before the split's end (None: done)."""
        if self._pos >= self._end:
            return None
        data = self._file.read(CHUNK_BYTES)
        if not data:
            return None
        last = data.rfind(b"\n", 0, max(0, self._end - self._pos))
        if len(data) >= self._end - self._pos or last == -1:  # the split ends in this chunk
            stop = data.find(b"\n", max(0, self._end - 1 - self._pos))
            data = data[: stop + 1] if stop != -1 else data + self._file.readline()
        else:
            data = data[: last + 1]
        self._pos += len(data)
        self._file.seek(self._pos)
        return data

    def _parse_json(self, data: bytes) -> Any:
        """A chunk of lines as an Arrow table: parsed in blocks by Arrow's threads (one per
        core; a line longer than a block gets one block for the chunk), or by the row path
        when Arrow refuses it."""
        parse = pj.ParseOptions(explicit_schema=self.read_schema, unexpected_field_behavior="ignore")
        blocks = max(1 << 20, -(-len(data) // max(1, pa.cpu_count())))
        for block_size in (blocks, len(data) + 1):
            try:
                table = pj.read_json(
                    io.BytesIO(data), read_options=pj.ReadOptions(block_size=block_size), parse_options=parse
                )
                return table.cast(self.read_schema)
            except pa.ArrowInvalid as err:
                if "straddl" in str(err) and block_size < len(data) + 1:
                    continue  # a line longer than the block: one block for the chunk
                break
            except (pa.ArrowTypeError, pa.ArrowNotImplementedError):
                break
        return self._parse_by_rows(data)

    def _parse_by_rows(self, data: bytes) -> Any:
        """A chunk Arrow refused, read by the row path (its conversions and its errors, naming
        the file and line), then as Arrow arrays."""

        handle, scratch = tempfile.mkstemp(suffix=".json")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            try:
                rows = _read_json(scratch, self.physical, self.fmt.source.options)
            except ValueError as err:
                raise ValueError(
                    str(err).replace(
                        scratch, f"{self.current_file} (the chunk at byte {self._pos - len(data)})"
                    )
                ) from None
        finally:
            os.unlink(scratch)
        return self._arrow_table(rows)

    def _arrow_table(self, rows: list[tuple[Any, ...]]) -> Any:
        """Rows of the row path (the table's physical columns) as an Arrow table of the columns
        read."""
        columns = {n: i for i, (n, _) in enumerate(self.physical)}
        arrays = []
        for f in self.read_schema:
            index = columns[f.name]
            convert = _arrow_input(self.physical[index][1])
            values = [r[index] for r in rows]
            if convert is not None:
                values = [None if v is None else convert(v) for v in values]
            arrays.append(pa.array(values, type=self.full_schema.field(f.name).type))
        return pa.Table.from_arrays(
            arrays, schema=pa.schema([self.full_schema.field(f.name) for f in self.read_schema])
        )

    def _compute(self, table: Any) -> None:
        """Run the steps on one batch; the rows that pass, their timestamps and the cuts."""
        batch = table.combine_chunks()  # a Table still: its columns are ChunkedArrays of one chunk
        arrays = {f.name: as_array(batch.column(i), batch.num_rows) for i, f in enumerate(batch.schema)}
        columns: list[Any] = [arrays.get(n) for n, _ in self.physical]
        size = batch.num_rows
        stamps = marks = positions = None  # positions: of each row among the rows the marks are of
        for step in self.fmt.steps:
            evaluate = evaluator(step, columns, size)
            if step.kind == "project":
                columns = projected(step, evaluate)
            elif step.kind == "filter":
                mask = true_only(evaluate(step.expressions[0]))
                columns = [None if c is None else pc.filter(c, mask) for c in columns]
                stamps = None if stamps is None else pc.filter(stamps, mask)
                positions = pc.indices_nonzero(mask) if positions is None else pc.filter(positions, mask)
                size = len(positions)
            else:  # the watermark: every row's rowtime and watermark value, before later filters
                assert step.rowtime is not None
                if columns[step.rowtime].null_count:  # as the row path's timestamp assigner
                    raise ValueError(
                        f"{self.current_file}: RowTime field should not be null, please convert it to a "
                        "non-null long value."
                    )
                stamps = _millis(columns[step.rowtime])
                marks = _millis(evaluate(step.expressions[0]))
                positions = None
        fields = self.fmt.fields
        if fields is not None:  # a column no consumer reads: NULLs (cheaper than parsing it)
            columns = [
                pa.nulls(size, t.to_arrow()) if c is None and n not in fields else c
                for n, t, c in zip(self.fmt.names, self.fmt.types, columns, strict=True)
            ]
        missing = [n for n, c in zip(self.fmt.names, columns, strict=True) if c is None]
        if missing:
            raise AssertionError(f"columnar scan: the columns {missing} were not read")
        self._convert(columns, size, stamps, marks, positions)

    def _convert(self, columns: list[Any], size: int, stamps: Any, marks: Any, positions: Any) -> None:
        self.size, self.position = size, 0
        names = [f"f{i}" for i in range(len(columns))]  # output names may repeat
        batch = pa.RecordBatch.from_arrays(columns, names=names) if columns else empty_batch(size)
        self.out = ChangeBatch(batch, None if stamps is None else int64_numpy(stamps))
        self.cuts = _cuts(marks, positions, self) if marks is not None else []


_FLIPPED = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_PRUNABLE = {  # column type -> the Python values its Parquet statistics compare with
    "TINYINT": (int,),
    "SMALLINT": (int,),
    "INT": (int,),
    "BIGINT": (int,),
    "CHAR": (str,),
    "VARCHAR": (str,),
    "STRING": (str,),
    "DATE": (datetime.date,),
    "TIMESTAMP": (datetime.datetime,),
    "DECIMAL": (decimal.Decimal, int),
}


def _comparison(conjunct: Any, columns: dict[str, DataType]) -> tuple[str, str, Any] | None:
    """A pushed conjunct as a comparison Parquet's statistics decide (``column op literal``,
    ``column IS [NOT] NULL`` of a type whose statistics order as the filter does), or None."""
    if type(conjunct) is e._IsNull and type(conjunct.operand) is e._Column:
        return (conjunct.operand.name, "IS NULL" if conjunct.null else "IS NOT NULL", None)
    if type(conjunct) is not e._Binary or conjunct.op not in COMPARISONS:
        return None
    op, left, right = conjunct.op, conjunct.left, conjunct.right
    if type(left) is e._Literal and type(right) is e._Column:
        op, left, right = _FLIPPED[op], right, left
    if type(left) is not e._Column or type(right) is not e._Literal or left.name not in columns:
        return None
    kinds = _PRUNABLE.get(columns[left.name].root)
    value = right.value
    if kinds is None or isinstance(value, bool) or not isinstance(value, kinds):
        return None
    if isinstance(value, datetime.datetime) != (columns[left.name].root == "TIMESTAMP"):
        return None  # a date is no timestamp, nor the reverse
    return (left.name, op, value)


def _millis(array: Any) -> Any:
    return array.cast(pa.timestamp("ms")).cast(pa.int64())


def _cuts(marks: Any, positions: Any, reader: ColumnarReader) -> list[tuple[int, int]]:
    """Where the output is cut so each watermark the expression's running maximum would emit
    inline (more than the interval past the last one) follows its record: (end row, value)."""
    values = np.maximum.accumulate(int64_numpy(marks))
    if not len(values):
        return []
    interval = reader.fmt.interval
    out_positions = int64_numpy(positions) if positions is not None else None
    cuts: list[tuple[int, int]] = []
    emitted = reader.emitted_mark
    while True:
        index = int(np.searchsorted(values, emitted + interval, side="right"))
        if index >= len(values):
            break
        emitted = int(values[index])
        end = index + 1 if out_positions is None else int(np.searchsorted(out_positions, index, side="right"))
        cuts.append((end, emitted))
    final = int(values[-1])
    total = reader.size if out_positions is None else len(out_positions)
    cuts.append((total, final))
    reader.emitted_mark = emitted
    return cuts
