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
  for any other, ``nodes.columnar_scan`` turns them into ``(INSERT, row)`` tuples, each with
  its rowtime as the record timestamp;
* the watermark expression is evaluated for every row read (before the filter, as Flink's
  watermark assigner sits below it), and the reader cuts its output where Flink's assigner
  would emit a watermark inline (the running maximum more than the interval ahead of the last
  one), so records and watermarks interleave as they would row by row.

The reading is the filesystem connector's (``connectors/columnar_reader.py``); the Arrow steps
are ``runtime/batch_calc.py``'s. ``explain`` names the fused scan and its steps.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from millstream.common import WatermarkStrategy
from millstream.connectors.file.source import FileSource
from millstream.connectors.formats.csv_arrow import arrow_readable
from millstream.table.connectors.columnar_reader import ColumnarFormat
from millstream.table.connectors.filesystem import FileSystemSource
from millstream.table.functions.arrow_temporal import session_zone
from millstream.table.planner.nodes import Filter, PlanNode, Project, SourceScan
from millstream.table.planner.windows import WatermarkAssigner
from millstream.table.runtime.batch_calc import BatchCalc, Step
from millstream.table.runtime.columnar_fields import merge_fields, needed_columns
from millstream.table.runtime.vectorized import (
    arrow_type_exact,
    vectorizable,
)
from millstream.table.runtime.watermarks import ExpressionWatermarks

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = ["ColumnarScan", "fuse", "fuse_steps"]
if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

_JSON_OPTIONS = {"format", "path", "json.fail-on-missing-field", "json.timestamp-format.standard"}


_PARQUET_OPTIONS = {"format", "path"}


@dataclass(frozen=True)
class ColumnarScan(PlanNode):
    """A filesystem source and the Calc / watermark nodes above it, run on Arrow batches."""

    source: Any = None  # the FileSystemSource
    steps: list[Step] = field(default_factory=list)
    watermark: Any = None  # the WatermarkAssigner fused (its strategy's interval and delay)
    # the output columns its consumers read, with the ROW fields read of each (None: whole);
    # None: every column whole (planner.columnar_plan: a scan shared by consumers)
    fields: dict[str, tuple[str, ...] | None] | None = None
    reads_source: ClassVar[bool] = True

    def translate(self, ctx: PlanningContext) -> Any:
        path = self.source.options["path"]
        interval = ctx.env.get_config().get_auto_watermark_interval()
        fmt = ColumnarFormat(self.source, self.steps, list(self.names), list(self.types), interval)
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
    chain: list[PlanNode] = []
    current: PlanNode | None = node
    while current is not None and not _file_scan(current):
        if (isinstance(current, Project) and current.expressions is not None) or (
            isinstance(current, Filter) and current.expression is not None
        ):
            chain.append(current)
        elif (
            isinstance(current, WatermarkAssigner)
            and not current.pushed_down
            and current.watermark_expression is not None
        ):
            if any(isinstance(c, WatermarkAssigner) for c in chain):
                return None
            chain.append(current)
        else:
            return None
        current = getattr(current, "input", None)
    if current is None or not _readable(current.source) or not chain:  # type: ignore[attr-defined]
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
        source=current.source,  # type: ignore[attr-defined]
        steps=steps,  # type: ignore[arg-type]
        watermark=watermark,
        rowtime=node.rowtime,
    )


def _file_scan(node: PlanNode) -> bool:
    """Whether ``node`` is the scan of a filesystem table."""
    return isinstance(node, SourceScan) and isinstance(node.source, FileSystemSource)


def fuse_steps(node: PlanNode, below: PlanNode) -> list[Step] | None:
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


def _step(plan: PlanNode) -> Step | None:
    """The Arrow step of one Calc or watermark node, or None."""
    below = plan.input  # type: ignore[attr-defined]
    names, types = list(below.names), list(below.types)
    if isinstance(plan, WatermarkAssigner):
        step = Step("watermark", names, types, [plan.watermark_expression], plan.rowtime)
    elif isinstance(plan, Filter):
        step = Step("filter", names, types, [plan.expression])
    else:
        assert isinstance(plan, Project) and plan.expressions is not None
        step = Step("project", names, types, list(plan.expressions))
    if not all(vectorizable(e, names, types) for e in step.expressions):
        return None
    step.names_out = list(plan.names)
    return step


def _readable(source: Any) -> bool:
    """JSON lines, CSV or Parquet with the parsing options Arrow reads as the row path does
    (``csv_arrow.arrow_readable`` for CSV), no partitions, not watched; a TIMESTAMP_LTZ column
    read from a file only in a session zone of UTC (the file's text is a UTC instant on Arrow,
    a session wall-clock time on rows)."""
    options = source.options
    fmt = options.get("format")
    if source.partition_keys or fmt not in ("json", "csv", "parquet"):
        return False
    if any(t.root == "TIMESTAMP_LTZ" for t in source.types) and session_zone() != "UTC":
        return False
    if fmt == "csv":
        columns = source.table_columns or list(zip(source.names, source.types, strict=True))
        return arrow_readable(options, [t for _, t in columns])
    if set(options) - (_JSON_OPTIONS if fmt == "json" else _PARQUET_OPTIONS):
        return False
    if options.get("json.fail-on-missing-field", "false").lower() != "false":
        return False
    if options.get("json.timestamp-format.standard", "SQL").upper() != "SQL":
        return False
    return all(arrow_type_exact(t) for t in source.types)


def _watermark_strategy(assigner: Any, env: Any) -> Any:
    root = assigner.types[assigner.rowtime].root
    interval = env.get_config().get_auto_watermark_interval()
    delay = assigner.delay_ms
    # the reader hands each record its rowtime, and the watermark expression's values as events
    return WatermarkStrategy.for_generator(
        lambda context: ExpressionWatermarks(assigner.watermark, root, interval, delay)
    )


@dataclass(frozen=True)
class ArrowPlan:
    """How a node's rows come as Arrow batches: ``translate(ctx)`` makes the stream of its
    ``ChangeBatch`` elements; ``scan``: the columnar scan fusing its chain with the file scan
    below (None: an Arrow Calc over the batches of a scan shared with other consumers)."""

    translate: Callable[[Any], Any]
    scan: Any = None


def columnar_plan(node: PlanNode, reuse: Any) -> ArrowPlan | None:
    """How ``node``'s rows come as a stream of ``ChangeBatch`` elements, or None when they
    cannot come as Arrow batches: a columnar scan of ``node``'s chain (a scan of the same table
    and steps is translated once, ``planner/reuse.py``) or, when a node of the chain below
    ``node`` also feeds another consumer (``reuse``), that node's batches (one scan for every
    consumer) through an Arrow Calc of the nodes above it (``runtime/batch_calc.py``)."""
    shared = _shared_below(node, reuse)
    if shared is None:
        scan = fuse(node)
        if scan is not None and reuse is not None and reuse.shared(node):
            # one scan for every consumer: what they read
            scan = dataclasses.replace(scan, fields=_fields_read(node, reuse))
        return None if scan is None else ArrowPlan(scan.translate, scan)
    steps = fuse_steps(node, shared)
    below = None if steps is None else columnar_plan(shared, reuse)
    if steps is None or below is None:
        return None

    read = _fields_read(node, reuse) if reuse.shared(node) else None  # its consumers' union
    batches = below.translate

    def translate(ctx: Any) -> Any:
        return batches(ctx)._map_batches(BatchCalc(steps, list(node.types), _top(node, read))).name("Calc")

    return ArrowPlan(translate)


def _fields_read(node: PlanNode, reuse: Any) -> dict[str, tuple[str, ...] | None] | None:
    """The columns of ``node`` its consumers read, each with the ROW fields read (None:
    whole), through the Calc nodes above it (Flink's scan reuse reads the union of the
    fields its consumers project); None: every column whole (a consumer that is no Calc).
    The Arrow Calc of the nodes above computes only what is read (``BatchCalc``'s ``top``)."""
    read: dict[str, set[str] | None] = {}
    for consumer in reuse.consumers(node):
        calc = (isinstance(consumer, Project) and consumer.expressions is not None) or (
            isinstance(consumer, Filter) and consumer.expression is not None
        )
        step = _step(consumer) if calc else None
        if step is None:
            return None
        above = _fields_read(consumer, reuse) if reuse.consumers(consumer) else None
        for name, fields in needed_columns([step], _top(consumer, above)).items():
            merge_fields(read, name, fields)
    return {name: None if fields is None else tuple(sorted(fields)) for name, fields in read.items()}


def _top(node: PlanNode, fields: dict[str, tuple[str, ...] | None] | None) -> Any:
    """The output columns of ``node`` read, for ``columnar_fields.needed_columns``."""
    if fields is None:
        return list(node.names)
    return {name: None if read is None else set(read) for name, read in fields.items()}


def _shared_below(node: PlanNode, reuse: Any) -> PlanNode | None:
    """The highest node of ``node``'s chain of single inputs (below ``node``) that another
    consumer also reads, or None."""
    if reuse is None:
        return None
    current = getattr(node, "input", None)
    while current is not None:
        if reuse.shared(current):
            return current
        current = getattr(current, "input", None)
    return None
