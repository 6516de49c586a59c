"""A columnar scan: a filesystem table read with Arrow, with the projections, filters and
watermark above it evaluated on Arrow record batches inside the source (Flink's projection,
filter and watermark push-down into a scan, on Arrow instead of generated Java).

``fuse(node)`` looks down from a plan node through Calc nodes (``Project`` / ``Filter`` with
their expressions) and a ``WatermarkAssigner`` to a ``FileSystemSource`` of JSON lines or
Parquet. When every expression on the way has an exact Arrow compute equal
(``vectorized.vectorizable``), the chain runs as one ``ColumnarScan``:

* only the columns (and the fields of ROW columns) some expression reads are parsed: the JSON
  reader skips the rest of every object, Parquet reads only those columns;
* JSON-lines files are read in byte ranges cut at line starts, so several subtasks share one
  file, each range in chunks of a few MiB;
* each chunk becomes one Arrow record batch; projections are Arrow kernels, a filter keeps the
  rows whose condition is TRUE (NULL drops), field access is ``struct_field``;
* the rows that pass leave as Arrow batches (``ChangeBatch``, each row's rowtime beside it):
  an operator that takes batches reads them so (a sink, a window aggregation's local phase);
  for any other, ``planner.columnar_scan`` turns them into ``(INSERT, row)`` tuples, each with
  its rowtime as the record timestamp;
* the watermark expression is evaluated for every row read (before the filter, as Flink's
  watermark assigner sits below it), and the reader cuts its output where Flink's assigner
  would emit a watermark inline (the running maximum more than the interval ahead of the last
  one), so records and watermarks interleave as they would row by row.

A chunk Arrow cannot read (a value of another JSON type than the column's) is read by the row
path's parser instead (``filesystem._read_json``), which either converts the value as it
always has or fails naming the file, line and column; the rows then go through the same Arrow
steps. ``explain`` names the fused scan and its steps.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from millstream.connectors.file.readers import FileReader, FileSourceSplit
from millstream.connectors.file.source import StreamFormat
from millstream.table.common.types import DataType
from millstream.table.planner.columnar_fields import needed_columns, read_schemas
from millstream.table.planner.nodes import Filter, PlanNode, Project
from millstream.table.runtime.change_batch import ChangeBatch
from millstream.table.runtime.vectorized import (
    _arrow_input,
    _evaluate,
    arrow_type_exact,
    int64_numpy,
    true_only,
    vectorizable,
)

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = ["ColumnarScan", "fuse", "fuse_steps"]

CHUNK_BYTES = 4 << 20  # JSON bytes parsed per Arrow call
_JSON_OPTIONS = {"format", "path", "json.fail-on-missing-field", "json.timestamp-format.standard"}
_PARQUET_OPTIONS = {"format", "path"}


@dataclass
class _Step:
    """One operation of the fused chain over rows with columns ``names`` / ``types``."""

    kind: str  # "project", "filter" or "watermark"
    names: list[str]
    types: list[DataType]
    expressions: list[Any]  # project: one per output column; filter: [condition]; watermark: [expr]
    rowtime: int | None = None  # watermark: the rowtime column
    names_out: list[str] = field(default_factory=list)  # the columns after this step
    live: list[bool] = field(default_factory=list)  # project: which outputs a later step reads


@dataclass(frozen=True)
class ColumnarScan(PlanNode):
    """A filesystem source and the Calc / watermark nodes above it, run on Arrow batches."""

    source: Any = None  # the FileSystemSource
    steps: list[_Step] = field(default_factory=list)
    watermark: Any = None  # the WatermarkAssigner fused (its strategy's interval and delay)
    # the output columns its consumers read, with the ROW fields read of each (None: whole);
    # None: every column whole (planner.columnar_plan: a scan shared by consumers)
    fields: dict[str, tuple[str, ...] | None] | None = None
    reads_source: ClassVar[bool] = True

    def translate(self, ctx: PlanningContext) -> Any:
        from millstream.common import WatermarkStrategy
        from millstream.connectors.file.source import FileSource

        path = self.source.options["path"]
        interval = ctx.env.get_config().get_auto_watermark_interval()
        fmt = _ColumnarFormat(self.source, self.steps, list(self.names), list(self.types), interval)
        fmt.fields = self.fields
        strategy = WatermarkStrategy.no_watermarks()
        if self.watermark is not None:
            strategy = _watermark_strategy(self.watermark, ctx.env)
        return ctx.env.from_source(
            FileSource.for_record_stream_format(fmt, path).build(), strategy, self.describe()
        )

    def describe(self) -> str:
        """The scan as ``explain`` and the job graph name it."""
        kinds = {"project": "Calc", "filter": "Filter", "watermark": "WatermarkAssigner"}
        steps = ", ".join(kinds[s.kind] for s in self.steps)
        return f"ColumnarScan(filesystem: {self.source.options['path']}, arrow: {steps or 'scan'})"


def fuse(node: PlanNode) -> ColumnarScan | None:
    """The columnar scan that computes ``node``, or None when its chain cannot run on Arrow."""
    from millstream.table.connectors.filesystem import FileSystemSource
    from millstream.table.runtime.window_agg import WatermarkAssigner

    chain: list[PlanNode] = []
    current: PlanNode | None = node
    while current is not None and not isinstance(current, FileSystemSource):
        if (isinstance(current, Project) and current.expressions is not None) or (
            isinstance(current, Filter) and current.expression is not None
        ):
            chain.append(current)
        elif isinstance(current, WatermarkAssigner) and not current.pushed_down and current.watermark_sql:
            if any(isinstance(c, WatermarkAssigner) for c in chain):
                return None
            chain.append(current)
        else:
            return None
        current = getattr(current, "input", None)
    if current is None or not _readable(current) or not chain:
        return None
    steps = [_step(plan) for plan in reversed(chain)]  # from the source up
    if any(step is None for step in steps):
        return None
    watermark = next((plan for plan in chain if isinstance(plan, WatermarkAssigner)), None)
    if not all(arrow_type_exact(t) for t in node.types):
        return None
    return ColumnarScan(
        list(node.names),
        list(node.types),
        node.updating,
        source=current,
        steps=steps,  # type: ignore[arg-type]
        watermark=watermark,
        rowtime=node.rowtime,
    )


def fuse_steps(node: PlanNode, below: PlanNode) -> list[_Step] | None:
    """The Arrow steps of the Calc nodes from ``below`` (exclusive) up to ``node``, or None
    when a node between is not a Calc, or an expression has no exact Arrow equal."""
    chain: list[PlanNode] = []
    current: PlanNode | None = node
    while current is not below:
        if not (
            (isinstance(current, Project) and current.expressions is not None)
            or (isinstance(current, Filter) and current.expression is not None)
        ):
            return None
        chain.append(current)
        current = current.input
    steps = [_step(plan) for plan in reversed(chain)]
    if any(step is None for step in steps) or not all(arrow_type_exact(t) for t in node.types):
        return None
    return steps  # type: ignore[return-value]


def _step(plan: PlanNode) -> _Step | None:
    """The Arrow step of one Calc or watermark node, or None."""
    from millstream.table.runtime.window_agg import WatermarkAssigner

    below = plan.input  # type: ignore[attr-defined]
    names, types = list(below.names), list(below.types)
    if isinstance(plan, WatermarkAssigner):
        from millstream.table.sql.expressions import parse_expression

        step = _Step("watermark", names, types, [parse_expression(plan.watermark_sql)], plan.rowtime)
    elif isinstance(plan, Filter):
        step = _Step("filter", names, types, [plan.expression])
    else:
        assert isinstance(plan, Project) and plan.expressions is not None
        step = _Step("project", names, types, list(plan.expressions))
    if not all(vectorizable(e, names, types) for e in step.expressions):
        return None
    step.names_out = list(plan.names)
    return step


def _readable(source: Any) -> bool:
    """JSON lines or Parquet with the default parsing options, no partitions, not watched."""
    options = source.options
    fmt = options.get("format")
    allowed = _JSON_OPTIONS if fmt == "json" else _PARQUET_OPTIONS if fmt == "parquet" else None
    if allowed is None or source.partition_keys or set(options) - allowed:
        return False
    if options.get("json.fail-on-missing-field", "false").lower() != "false":
        return False
    if options.get("json.timestamp-format.standard", "SQL").upper() != "SQL":
        return False
    return all(arrow_type_exact(t) for t in source.types)


def _watermark_strategy(assigner: Any, env: Any) -> Any:
    from millstream.common import WatermarkStrategy
    from millstream.table.runtime.window_agg import _ExpressionWatermarks

    root = assigner.types[assigner.rowtime].root
    interval = env.get_config().get_auto_watermark_interval()
    delay = assigner.delay_ms
    # the reader hands each record its rowtime, and the watermark expression's values as events
    return WatermarkStrategy.for_generator(
        lambda context: _ExpressionWatermarks(assigner.watermark, root, interval, delay)
    )


# -- reading ------------------------------------------------------------------------------------------------


class _ColumnarFormat(StreamFormat):
    """The files of a fused scan: byte ranges of JSON lines, or whole Parquet files."""

    def __init__(
        self, source: Any, steps: list[_Step], names: list[str], types: list[DataType], interval: int
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
        return _ColumnarReader(splits, self)


class _ColumnarReader(FileReader):
    """Reads Arrow batches of its splits, runs the steps on them and hands out the rows that
    pass, cut where a watermark would be emitted inline."""

    def __init__(self, splits: list[FileSourceSplit], fmt: _ColumnarFormat) -> None:
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
        import pyarrow as pa

        while True:
            if self.fmt.format == "parquet":
                if self._parquet is None and not self._open_next():
                    return None
                try:
                    return pa.Table.from_batches([next(self._parquet)])
                except StopIteration:
                    self._parquet = None
                    continue
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
            import pyarrow.parquet as pq

            reader = pq.ParquetFile(split.path)
            columns = [f.name for f in self.read_schema]
            self._parquet = reader.iter_batches(batch_size=65536, columns=columns)
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
        self._parquet = None

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
        import pyarrow as pa
        import pyarrow.json as pj

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
        import os
        import tempfile

        import pyarrow as pa

        from millstream.table.connectors.filesystem import _read_json

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
        import pyarrow.compute as pc

        batch = table.combine_chunks()  # a Table still: its columns are ChunkedArrays of one chunk
        arrays = {f.name: _as_array(batch.column(i), batch.num_rows) for i, f in enumerate(batch.schema)}
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
            import pyarrow as pa

            columns = [
                pa.nulls(size, t.to_arrow()) if c is None and n not in fields else c
                for n, t, c in zip(self.fmt.names, self.fmt.types, columns, strict=True)
            ]
        missing = [n for n, c in zip(self.fmt.names, columns, strict=True) if c is None]
        if missing:
            raise AssertionError(f"columnar scan: the columns {missing} were not read")
        self._convert(columns, size, stamps, marks, positions)

    def _convert(self, columns: list[Any], size: int, stamps: Any, marks: Any, positions: Any) -> None:
        import pyarrow as pa

        self.size, self.position = size, 0
        names = [f"f{i}" for i in range(len(columns))]  # output names may repeat
        batch = pa.RecordBatch.from_arrays(columns, names=names) if columns else _empty_batch(size)
        self.out = ChangeBatch(batch, None if stamps is None else int64_numpy(stamps))
        self.cuts = _cuts(marks, positions, self) if marks is not None else []


def evaluator(step: _Step, columns: list[Any], size: int) -> Callable[[Any], Any]:
    """``evaluate(expression)``: an expression of ``step`` over its input ``columns`` (Arrow
    arrays of ``size`` rows), as an Arrow array of ``size`` rows."""

    def evaluate(expression: Any) -> Any:
        return _as_array(_evaluate(expression, step.names, columns.__getitem__, size, step.types), size)

    return evaluate


def projected(step: _Step, evaluate: Callable[[Any], Any]) -> list[Any]:
    """The columns after a projection step: those a later step reads computed, None others."""
    return [evaluate(x) if live else None for x, live in zip(step.expressions, step.live, strict=True)]


def _empty_batch(size: int) -> Any:
    """A batch of ``size`` rows without columns (``SELECT 1`` above a scan reads none)."""
    import pyarrow as pa

    return pa.RecordBatch.from_arrays([pa.nulls(size)], names=["_"]).select([])


def _millis(array: Any) -> Any:
    import pyarrow as pa

    return array.cast(pa.timestamp("ms")).cast(pa.int64())


def _as_array(value: Any, size: int) -> Any:
    import pyarrow as pa

    if isinstance(value, pa.ChunkedArray):
        return value.combine_chunks()
    if isinstance(value, pa.Scalar):  # a constant: repeated without a Python list
        return pa.repeat(value, size)
    return value


def _cuts(marks: Any, positions: Any, reader: _ColumnarReader) -> list[tuple[int, int]]:
    """Where the output is cut so each watermark the expression's running maximum would emit
    inline (more than the interval past the last one) follows its record: (end row, value)."""
    import numpy as np

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
