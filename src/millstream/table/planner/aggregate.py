"""GROUP BY aggregation in the plan (Flink's GroupAggregate and its table aggregation): the nodes
and how they run, as keyed operators of :mod:`millstream.table.runtime.group_agg`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from millstream.connectors.collection import CollectionSource
from millstream.graph.operator_specs import KeyedProcessSpec, SourceSpec
from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.common.options import (
    mini_batch_latency_ms,
    mini_batch_size,
    python_bundle,
    state_ttl_ms,
)
from millstream.table.common.types import DataType
from millstream.table.expression.expression import Expression
from millstream.table.planner.nodes import PlanNode
from millstream.table.runtime.arrow_attached import ArrowAttachedAggregate
from millstream.table.runtime.group_agg import (
    OPEN_GLOBAL_GROUP,
    GroupAggregateFunction,
    TableAggregateFunction,
)
from millstream.table.runtime.window_operators import AttachedWindowAggregate

__all__ = ["Aggregate", "TableAggregate"]
if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext


@dataclass(frozen=True)
class Aggregate(PlanNode):
    """Group aggregation: ``keys`` (functions of a row) and aggregate calls."""

    input: PlanNode | None = None
    keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    calls: list[tuple[str, Callable[[tuple[Any, ...]], Any], DataType]] = field(default_factory=list)
    batch: bool = False
    key_expressions: list[Expression] | None = None  # the same keys and call arguments, as expressions
    argument_expressions: list[Expression] | None = None
    attached: tuple[int, int] | None = None  # keys that are the input's window_start / window_end
    compiled: ClassVar[dict[str, str]] = {"keys": "key_expressions", "calls": "argument_expressions"}

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        keys = self.keys
        if self.attached is not None:  # a window aggregation over the window the rows carry
            root = self.types[self.attached[1]].root
            attached = AttachedWindowAggregate(self.calls, self.attached[1], root)
            stream = self.input.translate(ctx)
            others = [i for i in range(len(keys)) if i not in self.attached]  # Flink's window agg key
            key_type = BinaryRowKeyType.of(self.types[: len(keys)], others)
            keyed = stream.key_by(lambda kv: tuple([k(kv[1]) for k in keys]), key_type)
            if not ctx.physical.of(self).attached_on_arrow:
                return keyed.process(attached)
            columnar = ArrowAttachedAggregate(keys, self.calls, self.attached[1], root)  # arrow_attached.py
            spec = KeyedProcessSpec(attached, "process_element", columnar=columnar)  # the row function kept
            return keyed._one_input("WindowAggregate", spec, None, keyed.get_key_selector())
        function = GroupAggregateFunction(
            self.calls, retracting=self.input.updating, batch=self.batch, key_count=len(keys)
        )
        function.ttl_ms = 0 if self.batch else state_ttl_ms(ctx.config)
        # BATCH emits final rows only: every batch is grouped by key; streaming only with
        # table.exec.mini-batch.enabled (one update per key and mini-batch)
        function.key_group_size = _BATCH_GROUP if self.batch else mini_batch_size(ctx.config)
        function.key_group_latency_ms = mini_batch_latency_ms(ctx.config) if function.key_group_size else 0
        if (
            not self.batch
            and not function.key_group_size
            and any(not isinstance(f, str) for f, _, _ in self.calls)
        ):
            # PyFlink runs a group aggregation with Python UDAFs in its Python operator, which
            # buffers each bundle by key and emits once per key at the bundle's end
            function.key_group_size, function.key_group_latency_ms = python_bundle(ctx.config)
        stream = self.input.translate(ctx)
        if self.batch and not keys:
            # a global aggregation (no GROUP BY) in BATCH emits one row even over no input, as
            # Flink's batch aggregate does (COUNT(*) 0, MIN NULL): a marker opens the one group
            opening = SourceSpec(CollectionSource([OPEN_GLOBAL_GROUP]))
            stream = stream.union(ctx.env._source("Values", opening, None))
        key_type = BinaryRowKeyType.of(self.types[: len(keys)])  # the subtask Flink's would pick
        return stream.key_by(lambda kv: tuple([_grouped(k(kv[1])) for k in keys]), key_type).process(function)


@dataclass(frozen=True)
class TableAggregate(PlanNode):
    """``group_by(keys).flat_aggregate(udtaf)``: per group, the rows the function emits."""

    input: PlanNode | None = None
    keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    function: Any = None
    input_names: list[str] = field(default_factory=list)
    arguments: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None  # None: the whole row

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        keys = self.keys
        process = TableAggregateFunction(self.function, self.input_names, self.arguments)
        # PyFlink runs a Python table aggregate in its Python operator: each bundle is buffered
        # by key, and a key's rows are emitted once, at the bundle's end
        process.key_group_size, process.key_group_latency_ms = python_bundle(ctx.config)
        return self.input.translate(ctx).key_by(lambda kv: tuple([k(kv[1]) for k in keys])).process(process)


_BATCH_GROUP = 1 << 30  # a whole input batch per key group


_NAN = float("nan")


def _grouped(value: Any) -> Any:
    """A group key's value: every NaN the one NaN, so NaN keys meet in one group as Flink's
    binary keys do (Python's NaN equals no other)."""
    return _NAN if value != value and isinstance(value, float) else value
