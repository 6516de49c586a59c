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

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from millstream.table.connectors.columnar_reader import ColumnarFormat
from millstream.table.planner.nodes import Filter, PlanNode, Project
from millstream.table.runtime.batch_calc import Step
from millstream.table.runtime.vectorized import (
    arrow_type_exact,
    vectorizable,
)

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
        from millstream.common import WatermarkStrategy
        from millstream.connectors.file.source import FileSource

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
    from millstream.table.connectors.filesystem import FileSystemSource
    from millstream.table.planner.windows import WatermarkAssigner

    chain: list[PlanNode] = []
    current: PlanNode | None = node
    while current is not None and not isinstance(current, FileSystemSource):
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
    from millstream.table.planner.windows import WatermarkAssigner

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
    from millstream.table.runtime.watermarks import ExpressionWatermarks

    root = assigner.types[assigner.rowtime].root
    interval = env.get_config().get_auto_watermark_interval()
    delay = assigner.delay_ms
    # the reader hands each record its rowtime, and the watermark expression's values as events
    return WatermarkStrategy.for_generator(
        lambda context: ExpressionWatermarks(assigner.watermark, root, interval, delay)
    )
