"""Event time in tables: the watermark assigner, window table functions (TUMBLE, HOP,
CUMULATE, SESSION) and window aggregation, as plan nodes (the windows are
``common/window_spec.py``, the operators ``runtime/watermarks.py`` and
``runtime/window_operators.py``).

**Watermarks.** A table's event-time attribute (``WATERMARK FOR ts AS ts - INTERVAL '3'
SECOND``, or ``Schema.watermark`` in ``from_data_stream``) becomes a ``WatermarkAssigner``:
each row's timestamp is its rowtime column, and the watermark is the largest value of the
watermark expression seen so far, emitted periodically (``pipeline.auto-watermark-interval``)
and at the end of a bounded input, as Flink's ``WatermarkAssignerOperator``.

**Window aggregation** follows Flink's slicing window operator: a window is cut into slices
(tumbling: one slice per window; hopping: slices of ``gcd(size, slide)``; cumulating: slices
of ``step``), each row is added to its slice's accumulators (keyed state, so checkpointed),
and when the watermark passes a window's end the window's slices are merged in time order
into its result (a window without rows emits nothing). A row is late, and dropped, when the
last window its slice belongs to has already fired. Session windows keep each key's open
sessions; a row opens ``[ts, ts + gap)`` and merges every session it touches (Flink's
``TimeWindow.intersects``: touching sessions merge). Results are insert-only rows: the group
keys, the aggregates, then ``window_start``, ``window_end`` and ``window_time`` (end - 1 ms,
the result's event-time attribute), typed as the input's rowtime column (precision 3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from millstream.common import WatermarkStrategy
from millstream.datastream import KeyedProcessFunction
from millstream.graph.operator_specs import KeyedProcessSpec
from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.common.timestamps import to_epoch_millis
from millstream.table.common.types import DataType
from millstream.table.common.window_spec import WindowSpec, window_output_columns
from millstream.table.planner.nodes import PlanNode, columnar_batches, columnar_scan
from millstream.table.planner.projection import (
    aggregate_calls,
    distinct_calls,
    expr_names,
    grouped_expression,
    project,
)
from millstream.table.runtime.arrow_sessions import GroupedSessionAggregate, session_groups
from millstream.table.runtime.arrow_slicing import ArrowSlicingAggregate
from millstream.table.runtime.watermarks import ExpressionWatermarks, RowtimeAssigner
from millstream.table.runtime.window_operators import (
    AssignWindows,
    LocalSlices,
    ProcessingTimeSlices,
    SessionAggregate,
    SlicingAggregate,
)

__all__ = [
    "WatermarkAssigner",
    "WindowAggregate",
    "WindowTVF",
    "tvf_columns",
    "window_aggregate",
    "window_time_column",
]
if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

_MIN_WATERMARK = -(2**63)


@dataclass(frozen=True)
class WatermarkAssigner(PlanNode):
    """Event-time timestamps and watermarks of a table (its rowtime column ``rowtime``)."""

    input: PlanNode | None = None
    watermark: Callable[[tuple[Any, ...]], Any] | None = None  # the watermark expression
    watermark_sql: str = ""
    watermark_expression: Any = None  # the watermark as an expression (a columnar scan's step)
    delay_ms: int | None = None  # the expression is ``rowtime - INTERVAL delay`` (None: another one)
    compiled: ClassVar[dict[str, str]] = {"watermark": "watermark_sql"}

    pushed_down: bool = False  # the source generates the watermarks (per partition) itself

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        if self.pushed_down:
            return self.input.translate(ctx)

        scanned = columnar_scan(self, ctx)
        if scanned is not None:
            return scanned
        return self.input.translate(ctx).assign_timestamps_and_watermarks(self.strategy(ctx.env))

    def strategy(self, env: Any, row_of: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None) -> Any:
        """The WatermarkStrategy of the expression; ``row_of``: the source's row -> this
        node's row (the computed columns), for a strategy pushed into the source."""
        assert self.rowtime is not None and self.watermark is not None
        index, root = self.rowtime, self.types[self.rowtime].root
        interval = env.get_config().get_auto_watermark_interval()
        expression = self.watermark
        if row_of is not None:
            watermark, expression = expression, lambda values: watermark(row_of(values))

        def timestamp_of(change: tuple[str, tuple[Any, ...]], record_timestamp: int) -> int:
            value = (change[1] if row_of is None else row_of(change[1]))[index]
            if value is None:
                raise ValueError(
                    "RowTime field should not be null, please convert it to a non-null long value."
                )
            return to_epoch_millis(value, root)

        return WatermarkStrategy.for_generator(
            lambda context: ExpressionWatermarks(expression, root, interval, self.delay_ms)
        ).with_timestamp_assigner(RowtimeAssigner(timestamp_of))


@dataclass(frozen=True)
class WindowTVF(PlanNode):
    """``TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size))`` and its kin without an aggregation:
    each row once per window it belongs to, with window_start, window_end and window_time
    appended; rows of windows the watermark has passed are dropped (late)."""

    input: PlanNode | None = None
    spec: WindowSpec | None = None
    time_column: int = 0

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None and self.spec is not None
        if self.spec.kind == "SESSION":
            raise ValueError("a SESSION window table function must be followed by a window aggregation")
        root = self.input.types[self.time_column].root
        return self.input.translate(ctx).process(AssignWindows(self.spec, self.time_column, root))


@dataclass(frozen=True)
class WindowAggregate(PlanNode):
    """Aggregates per group key and window (see the module docstring); output: keys,
    aggregates, window_start, window_end, window_time."""

    input: PlanNode | None = None
    spec: WindowSpec | None = None
    time_column: int = 0
    keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    calls: list[tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]] = field(default_factory=list)
    key_expressions: list[Any] | None = None  # the same keys and call arguments, as expressions
    argument_expressions: list[Any] | None = None
    processing_time: bool = False  # windows of the operator's clock (a PROCTIME() attribute)
    compiled: ClassVar[dict[str, str]] = {"keys": "key_expressions", "calls": "argument_expressions"}

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None and self.spec is not None
        if self.input.updating:
            raise ValueError(
                "a window aggregation needs an insert-only input; this one produces updates and deletions"
            )
        keys = self.keys
        root = self.input.types[self.time_column].root
        key_type = BinaryRowKeyType.of(self.types[: len(keys)])  # the subtask Flink's would pick
        if self.processing_time:
            if self.spec.kind == "SESSION":
                raise ValueError("SESSION windows over a processing-time attribute are not supported yet")
            clocked = ProcessingTimeSlices(self.spec, self.time_column, root, self.calls)
            stream = self.input.translate(ctx)
            return stream.key_by(lambda kv: tuple([k(kv[1]) for k in keys]), key_type).process(clocked)
        how = ctx.physical.of(self)  # decided in the physical phase (planner/exec_nodes.py)
        if how.two_phase:
            # Flink's local-global window aggregation: each subtask folds its batch into
            # per-(key, slice) accumulators, the keyed operator merges them
            if how.local is not None:  # on the scan's Arrow batches (runtime/arrow_window.py)
                batches = columnar_batches(self.input, ctx)
                partials = batches._map_batches(how.local).name("LocalWindowAggregate")
            else:
                local = LocalSlices(self.spec, self.time_column, root, self.calls, keys)
                partials = self.input.translate(ctx)._map_batches(local)
            keyed = partials.key_by(_partial_key, key_type)
            merge = SlicingAggregate(self.spec, self.time_column, root, self.calls, partial=True)
            if not how.global_on_arrow:
                return keyed.process(merge)
            functions = [f for f, _, _ in self.calls]  # every key's windows at once (arrow_slicing.py)
            columnar = ArrowSlicingAggregate(self.spec, root, functions, [t for _, _, t in self.calls])
            spec = KeyedProcessSpec(merge, "process_element", columnar=columnar)  # the row function kept
            return keyed._one_input("GlobalWindowAggregate", spec, None, keyed.get_key_selector())
        if self.spec.kind == "SESSION":
            batches = columnar_batches(self.input, ctx)
            groups = session_groups(self) if batches is not None else None
            if groups is not None:  # a key's rows of each Arrow batch at a time (runtime/arrow_sessions.py)
                grouped = GroupedSessionAggregate(self.spec, self.time_column, root, self.calls)
                return (
                    batches._map_batches(groups).name("Calc").key_by(_partial_key, key_type).process(grouped)
                )
        stream = self.input.translate(ctx)
        if self.spec.kind == "SESSION":
            function: KeyedProcessFunction = SessionAggregate(self.spec, self.time_column, root, self.calls)
        else:
            function = SlicingAggregate(self.spec, self.time_column, root, self.calls)
        return stream.key_by(lambda kv: tuple([k(kv[1]) for k in keys]), key_type).process(function)


def _partial_key(change: tuple[str, tuple[Any, ...]]) -> Any:
    return change[1][0]


def tvf_columns(node: PlanNode, time_column: int) -> tuple[list[str], list[DataType]]:
    """The columns of a windowing TVF over ``node``: its own, then the window columns."""
    names, types = window_output_columns(node.types[time_column])
    return list(node.names) + names, list(node.types) + types


def window_time_column(node: PlanNode, time_column: int, batch: bool) -> bool:
    """Whether windows may be taken over ``time_column``: the event-time attribute, or in a
    batch job any TIMESTAMP / TIMESTAMP_LTZ column (as Flink's batch planner allows)."""
    if node.rowtime is not None and node.rowtime == time_column:
        return True
    if node.proctime is not None and node.proctime == time_column:
        return True  # a processing-time window (batch: by the column's values)
    return batch and node.types[time_column].root in ("TIMESTAMP", "TIMESTAMP_LTZ")


def window_aggregate(
    node: PlanNode,
    spec: WindowSpec,
    time_column: int,
    keys: list[Any],
    selected: list[Any],
    window_names: tuple[str, str, str],
    batch: bool = False,
) -> PlanNode:
    """A window aggregation of ``node`` grouped by ``keys`` and the window, then ``selected``
    over it; the window's start, end and time are the columns ``window_names``."""
    if not window_time_column(node, time_column, batch):
        name = node.names[time_column]
        raise ValueError(
            f"A group window expects a time attribute for grouping in a stream environment: '{name}' is "
            "not an event-time attribute (declare a watermark for it)"
        )
    key_compiled = [k.resolve(node.names, node.types) for k in keys]
    key_names = [c.name or f"$key{i}" for i, c in enumerate(key_compiled)]
    selected = [
        grouped_expression(e, keys, key_names) for e in selected
    ]  # SELECT MOD(a, 3) ... GROUP BY MOD(a, 3)
    call_specs, slot_names, slot_types, selected = aggregate_calls(node, selected)
    _, window_types = window_output_columns(node.types[time_column])
    if window_names[0] != "window_start":  # group window properties are nullable, TVF columns not
        window_types = [t.nullable() for t in window_types]
    names = key_names + slot_names + list(window_names)
    types = [c.data_type for c in key_compiled] + slot_types + window_types
    processing = not batch and node.proctime is not None and node.proctime == time_column
    grouped = WindowAggregate(
        names,
        types,
        False,
        node,
        spec,
        time_column,
        [c.fn for c in key_compiled],
        call_specs,
        list(keys),
        [c.operand for c in distinct_calls(selected)],
        rowtime=None if processing else len(names) - 1,
        proctime=len(names) - 1 if processing else None,
        processing_time=processing,
        window=(len(names) - 3, len(names) - 2),
    )
    return project(grouped, selected, expr_names(selected))
