"""The Table API's planner: logical plan nodes, changelog modes, and their translation into
DataStream transformations that run on millstream's own runtime.

::

    Table calls ──► PlanNode tree ──► phases (planner/planning.py) ──► translate(node, ctx)
                                                           ──► DataStream of (kind, values)

Every node knows its columns (names, data types) and whether it produces an updating
changelog (``updating``: rows may be retracted with ``-U``/``-D``) or inserts only. Rows
travel as ``(kind, values)`` pairs, ``kind`` being ``+I``, ``-U``, ``+U`` or ``-D``.

The nodes of one kind of work live with their operators: GROUP BY in ``runtime/group_agg.py``,
windows in ``runtime/window_agg.py``, joins in ``runtime/join.py``, over windows in
``runtime/over.py``, sources in ``planner/sources.py`` and the connectors; resolving select
lists is ``planner/projection.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from millstream.common import WatermarkStrategy
from millstream.common.types import Row
from millstream.connectors.collection import CollectionSource
from millstream.graph.operator_specs import SourceSpec
from millstream.table.common.binary_row import BinaryRowKeyType
from millstream.table.common.options import (
    ARROW_BATCH_SIZE,
    SINK_NOT_NULL_ENFORCER,
    option_value,
    state_ttl_ms,
)
from millstream.table.common.row_kind import INSERT
from millstream.table.common.table_source import TableSource
from millstream.table.common.types import DataType
from millstream.table.expression.expression import Expression
from millstream.table.expression.watermarks import watermark_clocks
from millstream.table.functions.async_calls import AsyncOptions
from millstream.table.planner.reuse import reusing
from millstream.table.runtime.change_batch import BatchRows
from millstream.table.runtime.changelog_normalize import NormalizeFunction
from millstream.table.runtime.codegen import calc_function
from millstream.table.runtime.exchange import by_row
from millstream.table.runtime.pandas_calc import BatchedCallCalc, bound_calls, has_batched_call
from millstream.table.runtime.sink_constraints import NotNullBatchEnforcer, NotNullEnforcer
from millstream.table.runtime.sort_limit import LimitFunction, SortFunction
from millstream.table.runtime.vectorized import VectorizedCalc, vectorizable
from millstream.table.runtime.watermark_calc import WatermarkCalc

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = ["Filter", "FlatMap", "Limit", "PlanNode", "Project", "Sink", "SourceScan", "Values", "table_scan"]


@dataclass(frozen=True)
class PlanNode:
    """A relational operator; ``names``/``types``: its columns. Frozen: a rewrite makes a new
    node (``dataclasses.replace``), so a node shared by several consumers never changes under
    one of them."""

    names: list[str]
    types: list[DataType]
    updating: bool = False  # produces retractions (-U / -D)
    rowtime: int | None = field(default=None, kw_only=True)  # the event-time attribute column
    proctime: int | None = field(default=None, kw_only=True)  # the processing-time attribute column
    # window_start and window_end of a window aggregation or window TVF, still marked as the
    # window after projections: a GROUP BY on both is a window aggregation too (Flink's
    # window property propagation), emitting each group once, when its window ends
    window: tuple[int, int] | None = field(default=None, kw_only=True)
    label: str = field(default="", kw_only=True)  # a source's table name in explain output
    # how the keys of this node's keyed exchange hash: as Flink's BinaryRowData key row
    # (``binary_row.BinaryRowKeyType``), so each key reaches the subtask Flink's would; None:
    # as Python values
    key_type: Any = field(default=None, kw_only=True)

    # fields holding functions compiled from an expression field (name -> that field's name):
    # when the expression is there, sub-plan reuse compares it instead (``planner/reuse.py``)
    compiled: ClassVar[dict[str, str]] = {}
    reads_source: ClassVar[bool] = False  # a scan of a connector table (table.optimizer.reuse-source-enabled)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "translate" in cls.__dict__:  # a part of the plan met twice is translated once
            cls.translate = reusing(cls.__dict__["translate"])  # type: ignore[method-assign,assignment]

    def translate(self, ctx: PlanningContext) -> Any:
        """The DataStream of ``(kind, values)`` this node produces, added to ``ctx.env``."""
        raise NotImplementedError

    def plan_inputs(self) -> list[PlanNode]:
        """The plan nodes this node reads: its ``input``, or a join's ``left`` and ``right``."""
        found = (getattr(self, name, None) for name in ("left", "right", "input"))
        return [child for child in found if isinstance(child, PlanNode)]


@dataclass(frozen=True)
class Values(PlanNode):
    """Rows given in the program (``from_elements``)."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)

    def translate(self, ctx: PlanningContext) -> Any:
        """A source at the default parallelism whose first subtask emits the rows (Flink's
        values source: the rows arrive at subtask 1, so a print sink prefixes them ``1>``)."""
        spec = SourceSpec(CollectionSource([(INSERT, row) for row in self.rows]))
        return ctx.env._source("Values", spec, None)


@dataclass(frozen=True)
class Project(PlanNode):
    """Computed columns."""

    input: PlanNode | None = None
    functions: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    expressions: list[Expression] | None = None  # the same as expressions: generated into one function
    compiled: ClassVar[dict[str, str]] = {"functions": "expressions"}

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        source = self.input
        if self.expressions is None:
            fns = self.functions
            stream = source.translate(ctx).map(lambda kv: (kv[0], tuple([f(kv[1]) for f in fns])))
        else:
            scanned = columnar_scan(self, ctx)
            if scanned is not None:
                return scanned
            condition = None
            if isinstance(source, Filter) and source.expression is not None and source.input is not None:
                condition, source = source.expression, source.input  # a filter then a projection: one calc
            stream = calc_stream(source, ctx, condition, self.expressions)
        # after a sort (one subtask), one subtask too: the rows keep their order (ORDER BY a column
        # the select list leaves out projects it away after the sort)
        return stream.set_parallelism(1) if isinstance(source, Sort) else stream


@dataclass(frozen=True)
class Filter(PlanNode):
    """Rows whose condition is TRUE (NULL and FALSE drop the row)."""

    input: PlanNode | None = None
    condition: Callable[[tuple[Any, ...]], Any] | None = None
    expression: Expression | None = None  # the condition as an expression: generated code
    compiled: ClassVar[dict[str, str]] = {"condition": "expression"}

    @classmethod
    def over(cls, node: PlanNode, condition: Expression) -> Filter:
        """``node``'s rows where ``condition`` is TRUE; its time attributes and window kept."""
        compiled = condition.resolve(list(node.names), list(node.types))
        return cls(
            list(node.names),
            list(node.types),
            node.updating,
            node,
            compiled.fn,
            condition,
            rowtime=node.rowtime,
            proctime=node.proctime,
            window=node.window,
        )

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None and self.condition is not None
        if self.expression is not None:
            return columnar_scan(self, ctx) or calc_stream(self.input, ctx, self.expression, None)
        condition = self.condition
        return self.input.translate(ctx).filter(lambda kv: condition(kv[1]) is True)


@dataclass(frozen=True)
class Limit(PlanNode):
    """The first ``fetch`` rows (after ``offset``), in arrival order, over one subtask."""

    input: PlanNode | None = None
    offset: int = 0
    fetch: int | None = None

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        return (
            self.input.translate(ctx)
            .key_by(lambda kv: 0)
            .process(LimitFunction(self.offset, self.fetch))
            .set_parallelism(1)
        )


def calc_stream(
    source: PlanNode, ctx: PlanningContext, condition: Expression | None, projection: list[Expression] | None
) -> Any:
    """``source``'s rows filtered by ``condition`` and projected to ``projection``: vectorized on
    Arrow batches when every expression has an Arrow equal, else generated row-at-a-time code."""
    names, types = list(source.names), list(source.types)
    expressions = ([condition] if condition is not None else []) + list(projection or [])
    bound = [bound_calls(e) for e in expressions]  # SQL's f(x) as the function it names
    if any(has_batched_call(e) for e in bound):  # pandas or async UDFs: per chunk of rows
        bound_condition = bound.pop(0) if condition is not None else None
        bound_projection = bound if projection is not None else None
        size = option_value(ctx.config, ARROW_BATCH_SIZE)
        batched = BatchedCallCalc(
            names, types, bound_condition, bound_projection, size, AsyncOptions.of(ctx.config)
        )
        return source.translate(ctx)._map_batches(batched, method="__call__")
    calc = calc_function(names, types, condition, projection)
    clocks = watermark_clocks(expressions)
    if clocks:  # CURRENT_WATERMARK(ts): each row reads the operator's watermark
        return source.translate(ctx).process(WatermarkCalc(calc, clocks))
    if all(vectorizable(e, names, types) for e in expressions):
        return source.translate(ctx)._map_batches(VectorizedCalc(names, types, condition, projection, calc))
    return source.translate(ctx).flat_map(calc)


def columnar_scan(node: PlanNode, ctx: PlanningContext) -> Any:
    """The stream of ``node``'s rows computed on Arrow, when the physical phase decided so
    (``planner/exec_nodes.py``), else None."""
    batches = columnar_batches(node, ctx)
    if batches is None:
        return None

    return batches._map_batches(BatchRows(list(node.types))).name("Rows")


def columnar_batches(node: PlanNode, ctx: PlanningContext) -> Any:
    """The stream of ``ChangeBatch`` elements computing ``node`` on Arrow, when the physical
    phase decided so, else None."""
    arrow = ctx.physical.of(node).arrow
    return None if arrow is None else arrow.translate(ctx)


def single_subtask_changelog(stream: Any) -> Any:
    """An updating changelog made by one subtask (no key to partition by), partitioned by row
    for the operators after it: a row's +I and its later -D then travel one channel, in order
    (a round-robin hand-over to parallel successors could swap them)."""
    return stream.partition_custom(by_row, lambda kv: kv[1])


@dataclass(frozen=True)
class FlatMap(PlanNode):
    """The rows a table function yields for each input row (the input's change kind kept)."""

    input: PlanNode | None = None
    rows_of: Callable[[Any], list[tuple[Any, ...]]] | None = None

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None and self.rows_of is not None
        rows_of, names = self.rows_of, list(self.input.names)

        def expand(kv: tuple[str, tuple[Any, ...]]) -> list[tuple[str, tuple[Any, ...]]]:
            row = Row(*kv[1])
            row.set_field_names(names)
            return [(kv[0], out) for out in rows_of(row)]

        return self.input.translate(ctx).flat_map(expand)


@dataclass(frozen=True)
class Sink(PlanNode):
    """A table sink: the connector's ``TableSink`` (from its factory) consuming the query's
    changes. ``columns``: the sink table's persisted columns."""

    input: PlanNode | None = None
    connector: str = "print"
    options: dict[str, str] = field(default_factory=dict)
    partition_keys: list[str] = field(default_factory=list)
    table_sink: Any = None  # the factory's TableSink
    not_null: tuple[int, ...] = ()  # the sink's NOT NULL columns the query's may leave NULL

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None and self.table_sink is not None
        if self.input.updating and self.table_sink.changelog == "insert-only":
            refused = getattr(self.table_sink, "updates_refused", None)  # the connector's own words
            if refused:
                raise ValueError(refused)
            raise ValueError(
                f"Table sink '{self.label or self.connector}' ({self.connector}) doesn't support consuming "
                "update and delete changes which is produced by the query (an aggregation or join): "
                "write it in batch mode, or to a connector or format that takes a changelog "
                "(upsert-kafka, debezium-json, canal-json)"
            )
        # table.exec.sink.not-null-enforcer: a NULL in a NOT NULL column fails the job or is dropped
        not_null = self.not_null
        drop = option_value(ctx.config, SINK_NOT_NULL_ENFORCER) == "DROP"
        batches = self.batch_scan(ctx)
        if batches is not None:  # inserted rows as Arrow batches, straight from the scan
            if not_null:
                batches = batches.map(NotNullBatchEnforcer(self.names, not_null, drop))
            return self.table_sink.consume_batches(batches, list(self.names), list(self.input.types))
        stream = self.input.translate(ctx)
        if not_null:
            stream = stream.filter(NotNullEnforcer(self.names, not_null, drop))
        return self.table_sink.consume(stream, list(self.names), list(self.input.types))

    def batch_scan(self, ctx: PlanningContext) -> Any:
        """The stream of ``ChangeBatch`` elements computing the input on Arrow, when the sink
        takes them (None: rows)."""
        if not ctx.physical.of(self).sink_batches:
            return None
        assert self.input is not None
        return columnar_batches(self.input, ctx)


@dataclass(frozen=True)
class ChangelogNormalize(PlanNode):
    """An upsert changelog (``+I``/``+U`` replace the row of their key, ``-D`` deletes it,
    no ``-U``) as a full changelog, as Flink's ChangelogNormalize: the last row of each key
    is kept; a repeated row changes nothing."""

    input: PlanNode | None = None
    key_indexes: list[int] = field(default_factory=list)

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        indexes = list(self.key_indexes)
        function = NormalizeFunction()
        function.ttl_ms = state_ttl_ms(ctx.config)
        stream = self.input.translate(ctx)
        key_type = BinaryRowKeyType.of([self.input.types[i] for i in indexes])
        return stream.key_by(lambda kv: tuple([kv[1][i] for i in indexes]), key_type).process(function)


@dataclass(frozen=True)
class SourceScan(PlanNode):
    """A connector table's source (explain prints it as a TableSourceScan): the factory's
    ``TableSource`` producing the rows; ``watermark``: the table's watermark assigner pushed
    into it, with the function from the source's row to the row it reads (None: not pushed)."""

    source: TableSource | None = None
    watermark: Any = None
    reads_source: ClassVar[bool] = True

    @property
    def supports_watermark_push_down(self) -> bool:
        """Whether the source generates watermarks per split when given a strategy."""
        return self.source is not None and self.source.supports_watermark_push_down

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.source is not None
        strategy = WatermarkStrategy.no_watermarks()
        if self.watermark is not None:
            assigner, row_of = self.watermark
            strategy = assigner.strategy(ctx.env, row_of)
        return self.source.produce(ctx.env, strategy)


def table_scan(source: TableSource, label: str) -> PlanNode:
    """The plan reading ``source`` (labelled ``label`` in explain): its scan, and for an upsert
    source the normalization of its changelog by the primary key, as Flink's planner adds it."""
    if source.changelog != "upsert":
        updating = source.changelog != "insert-only"
        return SourceScan(list(source.names), list(source.types), updating, source=source, label=label)
    scan = SourceScan(list(source.names), list(source.types), True, source=source)
    names, types, key = list(source.names), list(source.types), list(source.primary_key)
    return ChangelogNormalize(names, types, True, input=scan, key_indexes=key, label=label)


@dataclass(frozen=True)
class Sort(PlanNode):
    """``ORDER BY`` in batch mode: every row, sorted once the input ended (one subtask), then
    ``offset``/``fetch`` applied. ``keys``: (key function, descending) pairs; NULLs sort first
    ascending and last descending, as Flink's default."""

    input: PlanNode | None = None
    keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]] = field(default_factory=list)
    offset: int = 0
    fetch: int | None = None
    key_expressions: list[tuple[Expression, bool]] | None = None

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        function = SortFunction(self.keys, self.offset, self.fetch)
        return self.input.translate(ctx).key_by(lambda kv: 0).process(function).set_parallelism(1)
