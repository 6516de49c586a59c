"""The Table API's planner: logical plan nodes, changelog modes, and their translation into
DataStream transformations that run on millstream's own runtime.

::

    Table calls ──► PlanNode tree ──► translate(node, env) ──► DataStream of (row kind, values)

Every node knows its columns (names, data types) and whether it produces an updating
changelog (``updating``: rows may be retracted with ``-U``/``-D``) or inserts only. Rows
travel as ``(kind, values)`` pairs, ``kind`` being ``+I``, ``-U``, ``+U`` or ``-D``.

A group aggregation keeps, per key, the number of rows it holds, one accumulator per
aggregate call and the row it emitted last (keyed state, so it takes part in checkpoints):
streaming, it emits Flink's changelog (``+I`` for a new group, ``-U``/``+U`` when the result
changes, nothing when it does not, ``-D`` when the group's last row is retracted); BATCH, it
emits each group's final row once (a timer at the end of the key).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from millstream.common.types import Row
from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import ValueStateDescriptor
from millstream.table.aggregates import accumulator_for, to_float32
from millstream.table.binary_row import BinaryRowKeyType
from millstream.table.expressions import AggregateCall, Expression
from millstream.table.plan_reuse import reusing
from millstream.table.table_options import ARROW_BATCH_SIZE, COLUMNAR_ENABLED, option_value
from millstream.table.timestamps import from_epoch_millis
from millstream.table.types import DataType

__all__ = [
    "END_OF_INPUT",
    "Aggregate",
    "DataGen",
    "Filter",
    "FlatMap",
    "FromDataStream",
    "Limit",
    "PlanNode",
    "Project",
    "Sink",
    "SourceScan",
    "Values",
    "translate",
]

INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = "+I", "-U", "+U", "-D"
_MAX_TIMESTAMP = 2**63 - 1


END_OF_INPUT = 2**63 - 2  # an event-time timer only the final watermark (MAX) reaches


@dataclass
class PlanNode:
    """A relational operator; ``names``/``types``: its columns."""

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
    # when the expression is there, sub-plan reuse compares it instead (``plan_reuse.py``)
    compiled: ClassVar[dict[str, str]] = {}
    reads_source: ClassVar[bool] = False  # a scan of a connector table (table.optimizer.reuse-source-enabled)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "translate" in cls.__dict__:  # a part of the plan met twice is translated once
            cls.translate = reusing(cls.__dict__["translate"])  # type: ignore[method-assign,assignment]

    def translate(self, env: Any) -> Any:
        """The DataStream of ``(kind, values)`` this node produces on ``env``."""
        raise NotImplementedError


@dataclass
class Values(PlanNode):
    """Rows given in the program (``from_elements``)."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)

    def translate(self, env: Any) -> Any:
        """A source at the default parallelism whose first subtask emits the rows (Flink's
        values source: the rows arrive at subtask 1, so a print sink prefixes them ``1>``)."""
        from millstream.connectors.collection import CollectionSource
        from millstream.graph.operator_specs import SourceSpec

        spec = SourceSpec(CollectionSource([(INSERT, row) for row in self.rows]))
        return env._source("Values", spec, None)


@dataclass
class Project(PlanNode):
    """Computed columns."""

    input: PlanNode | None = None
    functions: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    expressions: list[Expression] | None = None  # the same as expressions: generated into one function
    compiled: ClassVar[dict[str, str]] = {"functions": "expressions"}

    def translate(self, env: Any) -> Any:
        assert self.input is not None
        source = self.input
        if self.expressions is None:
            fns = self.functions
            return source.translate(env).map(lambda kv: (kv[0], tuple([f(kv[1]) for f in fns])))
        scanned = columnar_scan(self, env)
        if scanned is not None:
            return scanned

        condition = None
        if isinstance(source, Filter) and source.expression is not None and source.input is not None:
            condition, source = source.expression, source.input  # a filter then a projection: one calc
        return calc_stream(source, env, condition, self.expressions)


@dataclass
class Filter(PlanNode):
    """Rows whose condition is TRUE (NULL and FALSE drop the row)."""

    input: PlanNode | None = None
    condition: Callable[[tuple[Any, ...]], Any] | None = None
    expression: Expression | None = None  # the condition as an expression: generated code
    compiled: ClassVar[dict[str, str]] = {"condition": "expression"}

    def translate(self, env: Any) -> Any:
        assert self.input is not None and self.condition is not None
        if self.expression is not None:
            return columnar_scan(self, env) or calc_stream(self.input, env, self.expression, None)
        condition = self.condition
        return self.input.translate(env).filter(lambda kv: condition(kv[1]) is True)


@dataclass
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

    def translate(self, env: Any) -> Any:
        assert self.input is not None
        keys = self.keys
        if self.attached is not None:  # a window aggregation over the window the rows carry
            from millstream.table.window_agg import AttachedWindowAggregate

            root = self.types[self.attached[1]].root
            attached = AttachedWindowAggregate(self.calls, self.attached[1], root)
            stream = self.input.translate(env)
            others = [i for i in range(len(keys)) if i not in self.attached]  # Flink's window agg key
            key_type = BinaryRowKeyType.of(self.types[: len(keys)], others)
            return stream.key_by(lambda kv: tuple([k(kv[1]) for k in keys]), key_type).process(attached)
        function = GroupAggregateFunction(
            self.calls, retracting=self.input.updating, batch=self.batch, key_count=len(keys)
        )
        function.ttl_ms = 0 if self.batch else state_ttl_ms(env)
        # BATCH emits final rows only: every batch is grouped by key; streaming only with
        # table.exec.mini-batch.enabled (one update per key and mini-batch)
        function.key_group_size = _BATCH_GROUP if self.batch else mini_batch_size(env)
        function.key_group_latency_ms = mini_batch_latency_ms(env) if function.key_group_size else 0
        if (
            not self.batch
            and not function.key_group_size
            and any(not isinstance(f, str) for f, _, _ in self.calls)
        ):
            # PyFlink runs a group aggregation with Python UDAFs in its Python operator, which
            # buffers each bundle by key and emits once per key at the bundle's end
            function.key_group_size, function.key_group_latency_ms = python_bundle(env)
        stream = self.input.translate(env)
        key_type = BinaryRowKeyType.of(self.types[: len(keys)])  # the subtask Flink's would pick
        return stream.key_by(lambda kv: tuple([k(kv[1]) for k in keys]), key_type).process(function)


@dataclass
class Limit(PlanNode):
    """The first ``fetch`` rows (after ``offset``), in arrival order, over one subtask."""

    input: PlanNode | None = None
    offset: int = 0
    fetch: int | None = None

    def translate(self, env: Any) -> Any:
        assert self.input is not None
        return (
            self.input.translate(env)
            .key_by(lambda kv: 0)
            .process(_LimitFunction(self.offset, self.fetch))
            .set_parallelism(1)
        )


def calc_stream(
    source: PlanNode, env: Any, condition: Expression | None, projection: list[Expression] | None
) -> Any:
    """``source``'s rows filtered by ``condition`` and projected to ``projection``: vectorized on
    Arrow batches when every expression has an Arrow equal, else generated row-at-a-time code."""
    from millstream.table.async_calc import AsyncOptions
    from millstream.table.codegen import calc_function
    from millstream.table.pandas_calc import BatchedCallCalc, bound_calls, has_batched_call
    from millstream.table.vectorized import VectorizedCalc, vectorizable

    names, types = list(source.names), list(source.types)
    expressions = ([condition] if condition is not None else []) + list(projection or [])
    bound = [bound_calls(e) for e in expressions]  # SQL's f(x) as the function it names
    if any(has_batched_call(e) for e in bound):  # pandas or async UDFs: per chunk of rows
        bound_condition = bound.pop(0) if condition is not None else None
        bound_projection = bound if projection is not None else None
        size = option_value(env, ARROW_BATCH_SIZE)
        batched = BatchedCallCalc(names, types, bound_condition, bound_projection, size, AsyncOptions.of(env))
        return source.translate(env)._map_batches(batched, method="__call__")
    calc = calc_function(names, types, condition, projection)
    if all(vectorizable(e, names, types) for e in expressions):
        return source.translate(env)._map_batches(VectorizedCalc(names, types, condition, projection, calc))
    return source.translate(env).flat_map(calc)


def columnar_enabled(env: Any) -> bool:
    """``table.exec.columnar.enabled`` (default true): scans and the Calcs above them may run on
    Arrow batches (``columnar_scan``); false keeps every row a Python tuple from the source on."""
    return option_value(env, COLUMNAR_ENABLED)


def columnar_scan(node: PlanNode, env: Any) -> Any:
    """The stream of ``node``'s rows computed by a columnar scan, or None when it cannot be."""
    batches = columnar_batches(node, env)
    if batches is None:
        return None
    from millstream.table.change_batch import BatchRows

    return batches._map_batches(BatchRows(list(node.types))).name("Rows")


def columnar_batches(node: PlanNode, env: Any) -> Any:
    """The stream of ``ChangeBatch`` elements of a columnar scan computing ``node`` (a scan of
    the same table and steps is translated once, ``plan_reuse.py``), or None."""
    if not columnar_enabled(env):
        return None
    from millstream.table.columnar_scan import fuse

    scan = fuse(node)
    return scan.translate(env) if scan is not None else None


def single_subtask_changelog(stream: Any) -> Any:
    """An updating changelog made by one subtask (no key to partition by), partitioned by row
    for the operators after it: a row's +I and its later -D then travel one channel, in order
    (a round-robin hand-over to parallel successors could swap them)."""
    return stream.partition_custom(_by_row, lambda kv: kv[1])


def _by_row(row: tuple[Any, ...], parallelism: int) -> int:
    import zlib

    return zlib.crc32(repr(row).encode()) % parallelism


def translate(node: PlanNode, env: Any) -> Any:
    """The DataStream of ``(kind, values)`` pairs for ``node``."""
    return node.translate(env)


# -- state retention ---------------------------------------------------------------------------------

_DURATION_UNITS = {"": 1, "ms": 1, "milli": 1, "millis": 1, "s": 1000, "sec": 1000, "secs": 1000,
                   "second": 1000, "seconds": 1000, "min": 60_000, "m": 60_000, "minute": 60_000,
                   "minutes": 60_000, "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
                   "d": 86_400_000, "day": 86_400_000, "days": 86_400_000}  # fmt: skip


_BATCH_GROUP = 1 << 30  # a whole input batch per key group


def mini_batch_size(env: Any) -> int:
    """``table.exec.mini-batch.size`` when ``table.exec.mini-batch.enabled`` (else 0). As in
    Flink both ``allow-latency`` and ``size`` must then be set: a mini-batch ends when it holds
    ``size`` records or ``allow-latency`` after its first, and before watermarks and
    checkpoints."""
    config = getattr(env, "_table_config", None)
    if config is None or str(config.get("table.exec.mini-batch.enabled", "false")).lower() != "true":
        return 0
    latency = config.get("table.exec.mini-batch.allow-latency", None)
    size = config.get("table.exec.mini-batch.size", None)
    if latency in (None, "") or parse_duration_ms(latency) <= 0:
        raise ValueError(
            "table.exec.mini-batch.allow-latency must be a positive duration when "
            "table.exec.mini-batch.enabled is true (e.g. '5 s')"
        )
    try:
        count = int(size) if size not in (None, "") else 0
    except ValueError:
        count = 0
    if count <= 0:
        raise ValueError(
            "table.exec.mini-batch.size must be a positive number of records when "
            f"table.exec.mini-batch.enabled is true (got {size!r})"
        )
    return count


def python_bundle(env: Any) -> tuple[int, int]:
    """``python.fn-execution.bundle.size`` and ``.time`` (ms) of the job (PyFlink 2.3's
    defaults: 1000 records, 1000 ms)."""
    config = getattr(env, "_table_config", None)
    size = config.get("python.fn-execution.bundle.size", None) if config is not None else None
    time_ms = config.get("python.fn-execution.bundle.time", None) if config is not None else None
    return (
        int(size) if size not in (None, "") else 1000,
        int(time_ms) if time_ms not in (None, "") else 1000,
    )


def mini_batch_latency_ms(env: Any) -> int:
    """``table.exec.mini-batch.allow-latency`` in ms (checked by ``mini_batch_size``)."""
    config = getattr(env, "_table_config", None)
    value = config.get("table.exec.mini-batch.allow-latency", None) if config is not None else None
    return parse_duration_ms(value) if value not in (None, "") else 0


def parse_duration_ms(text: str) -> int:
    """Flink's duration text (``3600000``, ``500 ms``, ``10 min``, ``1 h``, ``1d``) in ms."""
    import re

    match = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", str(text))
    if match is None or match.group(2).lower() not in _DURATION_UNITS:
        raise ValueError(f"not a duration: {text!r} (e.g. '1 h', '10 min', '5000 ms')")
    return int(match.group(1)) * _DURATION_UNITS[match.group(2).lower()]


def state_ttl_ms(env: Any) -> int:
    """``table.exec.state.ttl`` of the table job on ``env`` (0: state kept forever)."""
    config = getattr(env, "_table_config", None)
    value = config.get("table.exec.state.ttl", None) if config is not None else None
    return parse_duration_ms(value) if value not in (None, "", "0") else 0


def with_ttl(descriptor: Any, ttl_ms: int) -> Any:
    """``descriptor`` expiring entries ``ttl_ms`` after their last write (Flink's idle state
    retention for SQL operators), when ``ttl_ms`` is set."""
    if ttl_ms > 0:
        from millstream.common.time import Time
        from millstream.datastream.state import StateTtlConfig

        descriptor.enable_time_to_live(StateTtlConfig.new_builder(Time.milliseconds(ttl_ms)).build())
    return descriptor


# -- group aggregation ---------------------------------------------------------------------------------


class GroupAggregateFunction(KeyedProcessFunction):
    """The group aggregation of one key (see the module docstring)."""

    def __init__(
        self,
        calls: list[tuple[str, Callable[[tuple[Any, ...]], Any], DataType]],
        retracting: bool,
        batch: bool,
        key_count: int,
    ) -> None:
        self.calls = calls
        self.retracting = retracting
        self.batch = batch
        self.key_count = key_count
        self.ttl_ms = 0  # table.exec.state.ttl (streaming)
        self.key_group_size = 0  # >0: the operator hands it key groups (mini-batch, BATCH)
        self.key_group_latency_ms = 0  # ... of the elements held at most this long

    def open(self, runtime_context: Any) -> None:
        self.state = runtime_context.get_state(
            with_ttl(ValueStateDescriptor("group"), getattr(self, "ttl_ms", 0))
        )
        self.accumulators = [
            accumulator_for(f, t, self.retracting) if isinstance(f, str) else f for f, _, t in self.calls
        ]
        self.arguments = [fn for _, fn, _ in self.calls]
        self.pairs = list(zip(self.accumulators, self.arguments, strict=True))

    def process_element(self, value: Any, ctx: Any) -> Any:
        return self.process_key_group([value], ctx)

    def process_key_group(self, values: list[Any], ctx: Any) -> Any:
        """The changes of one key (one, or a mini-batch's): the state read and written once,
        one update emitted for them all (Flink's MiniBatchGroupAggFunction)."""
        held = self.state.value()
        if held is None:
            held = [0, [a.create() for a in self.accumulators], None]
        accs = held[1]
        pairs = self.pairs
        for kind, row in values:
            adding = kind in (INSERT, UPDATE_AFTER)
            held[0] += 1 if adding else -1
            for i, (acc, argument) in enumerate(pairs):
                argument_value = argument(row)
                accs[i] = acc.add(accs[i], argument_value) if adding else acc.retract(accs[i], argument_value)
        if self.batch:
            self.state.update(held)
            if held[2] is None:
                held[2] = True
                ctx.timer_service().register_event_time_timer(_MAX_TIMESTAMP)
            return None
        previous = held[2]
        if held[0] <= 0:
            self.state.clear()
            return [(DELETE, previous)] if previous is not None else None
        result = self._result(ctx.get_current_key(), accs)
        held[2] = result
        self.state.update(held)
        if previous is None:
            return [(INSERT, result)]
        if previous == result:
            return None
        return [(UPDATE_BEFORE, previous), (UPDATE_AFTER, result)]

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        held = self.state.value()
        if held is None or held[0] <= 0:
            return None
        return [(INSERT, self._result(ctx.get_current_key(), held[1]))]

    def _result(self, key: tuple[Any, ...], accs: list[Any]) -> tuple[Any, ...]:
        return tuple(key) + tuple(a.result(acc) for a, acc in zip(self.accumulators, accs, strict=True))


class _LimitFunction(KeyedProcessFunction):
    def __init__(self, offset: int, fetch: int | None) -> None:
        self.offset, self.fetch = offset, fetch

    def open(self, runtime_context: Any) -> None:
        self.seen = runtime_context.get_state(ValueStateDescriptor("seen"))

    def process_element(self, value: Any, ctx: Any) -> Any:
        seen = self.seen.value() or 0
        self.seen.update(seen + 1)
        if seen < self.offset or (self.fetch is not None and seen >= self.offset + self.fetch):
            return None
        return [value]


# -- planning helpers used by Table ---------------------------------------------------------------------


def project(node: PlanNode, expressions: list[Expression], unnamed: Callable[[int], str]) -> Project:
    """``node``'s rows through ``expressions`` (``unnamed(i)``: the name of unnamed column i).
    A column that is the input's event-time attribute, passed through, stays one."""
    compiled = [e.resolve(node.names, node.types) for e in expressions]
    names = [c.name if c.name is not None else unnamed(i) for i, c in enumerate(compiled)]
    _check_unique(names)
    rowtime = proctime = None
    if node.rowtime is not None:
        time_name = node.names[node.rowtime]
        for i, e in enumerate(expressions):
            if referenced_column(e) == time_name:
                rowtime = i
                break
    # the processing-time attribute: a PROCTIME() call, else the input's passed through (one per
    # table here; Flink marks every such column)
    calls = [i for i, e in enumerate(expressions) if is_proctime_call(e)]
    if calls:
        proctime = calls[-1]
    elif node.proctime is not None:
        proctime_name = node.names[node.proctime]
        proctime = next((i for i, e in enumerate(expressions) if referenced_column(e) == proctime_name), None)
    window = None
    if node.window is not None:
        positions = [
            next((i for i, e in enumerate(expressions) if referenced_column(e) == node.names[w]), None)
            for w in node.window
        ]
        if None not in positions:
            window = (positions[0], positions[1])
    return Project(
        names,
        [c.data_type for c in compiled],
        node.updating,
        node,
        [c.fn for c in compiled],
        list(expressions),
        rowtime=rowtime,
        proctime=proctime,
        window=window,  # type: ignore[arg-type]
    )


def is_proctime_call(expression: Expression) -> bool:
    """Whether ``expression`` is ``PROCTIME()`` (under any alias): a processing-time attribute."""
    while type(expression).__name__ == "_Alias":
        expression = expression.operand  # type: ignore[attr-defined]
    return type(expression).__name__ == "_Call" and getattr(expression, "name_", None) == "PROCTIME"


def referenced_column(expression: Expression) -> str | None:
    """The input column an expression passes through unchanged (under any alias), if any."""
    from millstream.table.expressions import WindowProperty

    while hasattr(expression, "operand") and type(expression).__name__ == "_Alias":
        expression = expression.operand
    if type(expression).__name__ == "_Column":
        return str(getattr(expression, "name"))  # noqa: B009
    if isinstance(expression, WindowProperty):
        return expression.column_name()
    return None


def aggregate_calls(
    node: PlanNode, selected: list[Expression]
) -> tuple[list[tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]], list[str], list[DataType]]:
    """The aggregate calls in ``selected``, each given a slot column (``$agg<i>``): their
    (function, argument, argument type) specs, slot names and result types."""
    calls = distinct_calls(selected)
    call_specs: list[tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]] = []
    slot_names, slot_types = [], []
    for i, call in enumerate(calls):
        operand = call.operand.resolve(node.names, node.types)
        call_specs.append((call.accumulator_spec(operand.data_type), operand.fn, operand.data_type))
        slot_names.append(f"$agg{i}")
        slot_types.append(call.result_type(operand.data_type))
        call.slot = f"$agg{i}"  # type: ignore[attr-defined]
    return call_specs, slot_names, slot_types


def distinct_calls(selected: list[Expression]) -> list[AggregateCall]:
    """The aggregate calls inside ``selected``, each once, in order (their slots' order)."""
    calls: list[AggregateCall] = []
    for expression in selected:
        for call in expression.aggregates():
            if not any(call is seen for seen in calls):  # Expression.__eq__ builds an expression
                calls.append(call)
    return calls


def expr_names(selected: list[Expression]) -> Callable[[int], str]:
    """Flink's names of unnamed select items over an aggregation: aggregate expressions and
    window properties are numbered ``EXPR$0``, ``EXPR$1`` ... in order, named or not (so
    select(x.sum.alias('t'), x.max) calls the second EXPR$1)."""
    ordinals: dict[int, int] = {}
    for position, expression in enumerate(selected):
        if expression.aggregates() or expression.window_properties():
            ordinals[position] = len(ordinals)
    return lambda i: f"EXPR${ordinals.get(i, i)}"


def aggregate(node: PlanNode, keys: list[Expression], selected: list[Expression], batch: bool) -> Project:
    """``group_by(keys).select(selected)``: the aggregation, then the select list over it
    (aggregate calls become columns; unnamed results are ``EXPR$0``, ``EXPR$1`` ...)."""
    key_compiled = [k.resolve(node.names, node.types) for k in keys]
    key_names = [c.name or f"$key{i}" for i, c in enumerate(key_compiled)]
    selected = [grouped_expression(e, keys, key_names) for e in selected]
    call_specs, slot_names, slot_types = aggregate_calls(node, selected)
    removed = _aggregate_removed(node, keys, key_compiled, key_names, selected, slot_names, slot_types)
    if removed is not None:
        return project(removed, selected, expr_names(selected))
    attached = _attached_window(node, keys, batch)
    grouped = Aggregate(
        key_names + slot_names,
        [c.data_type for c in key_compiled] + slot_types,
        not batch and attached is None,
        node,
        [c.fn for c in key_compiled],
        call_specs,
        batch,
        list(keys),
        [c.operand for c in distinct_calls(selected)],
        attached,
        window=attached,
    )
    return project(grouped, selected, expr_names(selected))


def _attached_window(node: PlanNode, keys: list[Expression], batch: bool) -> tuple[int, int] | None:
    """The positions among ``keys`` of the input's window_start and window_end, when a
    streaming GROUP BY has both (and the input is insert-only): then it aggregates per window,
    as Flink's planner makes it a window aggregation, instead of an updating one."""
    if batch or node.window is None or node.updating:
        return None
    names = [referenced_column(k) for k in keys]
    start, end = (node.names[w] for w in node.window)
    if start in names and end in names:
        return names.index(start), names.index(end)
    return None


def unique_columns(node: PlanNode) -> set[str] | None:
    """Columns on which ``node``'s rows are unique (an upsert source's primary key, through
    projections and filters), if known."""
    from millstream.table.expressions import _Alias, _Column

    if isinstance(node, ChangelogNormalize) and node.input is not None:
        return {node.input.names[i] for i in node.key_indexes}
    if isinstance(node, Filter) and node.input is not None:
        return unique_columns(node.input)
    if isinstance(node, Project) and node.input is not None and node.expressions is not None:
        below = unique_columns(node.input)
        if below is None:
            return None
        renamed: dict[str, str] = {}
        for name, expression in zip(node.names, node.expressions, strict=True):
            inner = expression.operand if type(expression) is _Alias else expression
            if type(inner) is _Column:
                renamed.setdefault(inner.name, name)
        return {renamed[c] for c in below} if all(c in renamed for c in below) else None
    return None


def _aggregate_removed(
    node: PlanNode,
    keys: list[Expression],
    key_compiled: list[Any],
    key_names: list[str],
    selected: list[Expression],
    slot_names: list[str],
    slot_types: list[DataType],
) -> PlanNode | None:
    """Flink's FlinkAggregateRemoveRule: grouped by columns on which the input is unique,
    with only SUM / MIN / MAX of one argument, every group has one row, so the aggregation
    is the projection of the keys and the arguments (an upsert source's changelog then passes
    through: -U/+U where an aggregation would retract and re-insert)."""
    from millstream.table.expressions import _Column

    unique = unique_columns(node)
    if unique is None or not keys or not all(type(k) is _Column for k in keys):
        return None
    if not unique <= {k.name for k in keys}:  # type: ignore[attr-defined]
        return None
    calls = distinct_calls(selected)
    plain = [type(c) is AggregateCall and c.where is None and not c.is_distinct for c in calls]
    if not all(p and c.function in ("SUM", "MIN", "MAX") for p, c in zip(plain, calls, strict=True)):
        return None
    operands = [c.operand.resolve(node.names, node.types) for c in calls]
    if any(o.data_type.root == "DECIMAL" for o in operands):  # SUM widens DECIMAL precision
        return None
    return Project(
        key_names + slot_names,
        [c.data_type for c in key_compiled] + slot_types,
        node.updating,
        node,
        [c.fn for c in key_compiled] + [o.fn for o in operands],
        list(keys) + [c.operand for c in calls],
    )


def grouped_expression(expression: Expression, keys: list[Expression], key_names: list[str]) -> Expression:
    """``expression`` over the aggregation's output: a part equal to a group key that is not
    a plain column (``GROUP BY UPPER(s)`` ... ``SELECT UPPER(s)``) reads that key's column
    (aggregate calls' arguments are evaluated on the input rows, so they are left alone)."""
    from millstream.table.expressions import AggregateCall, _Column, fingerprint, replaced

    computed = {
        fingerprint(k): name for k, name in zip(keys, key_names, strict=True) if type(k) is not _Column
    }
    if not computed:
        return expression

    def key_column(node: Any) -> Any:
        name = computed.get(fingerprint(node))
        return None if name is None else _Column(name)

    return replaced(expression, key_column, top_down=True, stop=lambda n: isinstance(n, AggregateCall))


def _check_unique(names: list[str]) -> None:
    duplicates = [n for n, c in Counter(names).items() if c > 1]
    if duplicates:
        raise ValueError(f"Ambiguous column name: {duplicates[0]}")


@dataclass
class FlatMap(PlanNode):
    """The rows a table function yields for each input row (the input's change kind kept)."""

    input: PlanNode | None = None
    rows_of: Callable[[Any], list[tuple[Any, ...]]] | None = None

    def translate(self, env: Any) -> Any:
        assert self.input is not None and self.rows_of is not None
        rows_of, names = self.rows_of, list(self.input.names)

        def expand(kv: tuple[str, tuple[Any, ...]]) -> list[tuple[str, tuple[Any, ...]]]:
            row = Row(*kv[1])
            row.set_field_names(names)
            return [(kv[0], out) for out in rows_of(row)]

        return self.input.translate(env).flat_map(expand)


@dataclass
class Sink(PlanNode):
    """A table sink: the connector's ``TableSink`` (from its factory) consuming the query's
    changes. ``columns``: the sink table's persisted columns."""

    input: PlanNode | None = None
    connector: str = "print"
    options: dict[str, str] = field(default_factory=dict)
    partition_keys: list[str] = field(default_factory=list)
    table_sink: Any = None  # the factory's TableSink

    def translate(self, env: Any) -> Any:
        assert self.input is not None and self.table_sink is not None
        if self.input.updating and self.table_sink.changelog == "insert-only":
            raise ValueError(
                f"Table sink '{self.label or self.connector}' ({self.connector}) doesn't support consuming "
                "update and delete changes which is produced by the query (an aggregation or join): "
                "write it in batch mode, or to a connector or format that takes a changelog "
                "(upsert-kafka, debezium-json, canal-json)"
            )
        batches = self.batch_scan(env)
        if batches is not None:  # inserted rows as Arrow batches, straight from the scan
            return self.table_sink.consume_batches(batches, list(self.names), list(self.input.types))
        stream = self.input.translate(env)
        return self.table_sink.consume(stream, list(self.names), list(self.input.types))

    def batch_scan(self, env: Any) -> Any:
        """The stream of ``ChangeBatch`` elements of a columnar scan computing the input, when
        the sink takes them (None: rows)."""
        if not getattr(self.table_sink, "takes_batches", False):
            return None
        assert self.input is not None
        return columnar_batches(self.input, env)


@dataclass
class FromDataStream(PlanNode):
    """A DataStream's elements as rows (``from_data_stream``): Rows, tuples or atomic values."""

    stream: Any = None

    def translate(self, env: Any) -> Any:
        width = len(self.names)
        instants = [i for i, t in enumerate(self.types) if t.root == "TIMESTAMP_LTZ"]
        floats = [i for i, t in enumerate(self.types) if t.root == "FLOAT"]

        def to_change(value: Any) -> tuple[str, tuple[Any, ...]]:
            if isinstance(value, Row):
                change = (str(value.get_row_kind()), tuple(value))
            elif isinstance(value, (tuple, list)) and width > 1:
                change = (INSERT, tuple(value))
            else:
                change = (INSERT, (value,))
            if instants or floats:  # Instants become TIMESTAMP_LTZ values, FLOATs 32-bit floats
                values = list(change[1])
                for i in instants:
                    if hasattr(values[i], "to_epoch_milli"):
                        values[i] = from_epoch_millis(values[i].to_epoch_milli(), "TIMESTAMP_LTZ")
                for i in floats:
                    if values[i] is not None:
                        values[i] = to_float32(values[i])
                change = (change[0], tuple(values))
            return change

        return self.stream.map(to_change)


@dataclass
class ChangelogNormalize(PlanNode):
    """An upsert changelog (``+I``/``+U`` replace the row of their key, ``-D`` deletes it,
    no ``-U``) as a full changelog, as Flink's ChangelogNormalize: the last row of each key
    is kept; a repeated row changes nothing."""

    input: PlanNode | None = None
    key_indexes: list[int] = field(default_factory=list)

    def translate(self, env: Any) -> Any:
        assert self.input is not None
        indexes = list(self.key_indexes)
        function = _NormalizeFunction()
        function.ttl_ms = state_ttl_ms(env)
        stream = self.input.translate(env)
        key_type = BinaryRowKeyType.of([self.input.types[i] for i in indexes])
        return stream.key_by(lambda kv: tuple([kv[1][i] for i in indexes]), key_type).process(function)


class _NormalizeFunction(KeyedProcessFunction):
    ttl_ms = 0

    def open(self, runtime_context: Any) -> None:
        self.last = runtime_context.get_state(with_ttl(ValueStateDescriptor("last"), self.ttl_ms))

    def process_element(self, value: Any, ctx: Any) -> Any:
        kind, row = value
        previous = self.last.value()
        if kind == DELETE:
            if previous is None:
                return None
            self.last.clear()
            return [(DELETE, previous)]
        if kind == UPDATE_BEFORE:  # an upsert stream's -U carries nothing the +U does not
            return None
        if previous == row:
            return None
        self.last.update(row)
        if previous is None:
            return [(INSERT, row)]
        return [(UPDATE_BEFORE, previous), (UPDATE_AFTER, row)]


@dataclass
class SourceScan(PlanNode):
    """A connector table's source (explain prints it as a TableSourceScan)."""

    reads_source: ClassVar[bool] = True


@dataclass
class DataGen(SourceScan):
    """The ``datagen`` connector: ``number-of-rows`` rows (unbounded without it) at
    ``rows-per-second``, each field random (``fields.<f>.min/max/length``) or a sequence
    (``fields.<f>.kind = sequence``, ``start``/``end``), as Flink's."""

    options: dict[str, str] = field(default_factory=dict)

    def translate(self, env: Any) -> Any:
        from millstream.common import WatermarkStrategy
        from millstream.datastream.connectors.datagen import DataGeneratorSource

        fields = [
            _field_generator(name, t, self.options) for name, t in zip(self.names, self.types, strict=True)
        ]
        rows = self.options.get("number-of-rows")
        sequences = [
            int(self.options[f"fields.{n}.end"]) - int(self.options[f"fields.{n}.start"]) + 1
            for n in self.names
            if self.options.get(f"fields.{n}.kind") == "sequence"
        ]
        count = int(rows) if rows is not None else (min(sequences) if sequences else None)
        rate = float(self.options.get("rows-per-second", "10000"))

        def generate(index: int) -> tuple[str, tuple[Any, ...]]:
            return (INSERT, tuple(f(index) for f in fields))

        source = DataGeneratorSource(generate, count, rate)
        return env.from_source(source, WatermarkStrategy.no_watermarks(), "datagen")


def _field_generator(name: str, data_type: DataType, options: dict[str, str]) -> Callable[[int], Any]:
    """Field ``name``'s value for row ``index``: a sequence, or random (seeded by the index, so
    a restarted source produces the same rows)."""
    import random
    import string
    import zlib

    prefix = f"fields.{name}."
    root = data_type.root
    if options.get(prefix + "kind") == "sequence":
        start = int(options[prefix + "start"])
        return (lambda i: str(start + i)) if root in ("STRING", "VARCHAR", "CHAR") else (lambda i: start + i)
    salt = zlib.crc32(name.encode()) & 0xFFFF  # the same in every process (str hashes are not)
    if root in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        bits = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}[root]
        low = int(options.get(prefix + "min", -(1 << (bits - 1))))
        high = int(options.get(prefix + "max", (1 << (bits - 1)) - 1))
        return lambda i: random.Random(i * 65537 + salt).randint(low, high)
    if root in ("DOUBLE", "FLOAT", "DECIMAL"):
        lo = float(options.get(prefix + "min", "0"))
        hi = float(options.get(prefix + "max", str(2**31)))
        return lambda i: random.Random(i * 65537 + salt).uniform(lo, hi)
    if root == "BOOLEAN":
        return lambda i: random.Random(i * 65537 + salt).random() < 0.5
    if root in ("STRING", "VARCHAR", "CHAR"):
        length = int(options.get(prefix + "length", "100"))
        alphabet = string.ascii_letters + string.digits
        return lambda i: "".join(random.Random(i * 65537 + salt).choices(alphabet, k=length))
    raise ValueError(f"datagen cannot generate {root} values for field '{name}' yet")


@dataclass
class TableAggregate(PlanNode):
    """``group_by(keys).flat_aggregate(udtaf)``: per group, the rows the function emits."""

    input: PlanNode | None = None
    keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    function: Any = None
    input_names: list[str] = field(default_factory=list)

    def translate(self, env: Any) -> Any:
        assert self.input is not None
        keys = self.keys
        process = _TableAggregateFunction(self.function, self.input_names)
        return self.input.translate(env).key_by(lambda kv: tuple([k(kv[1]) for k in keys])).process(process)


class _TableAggregateFunction(KeyedProcessFunction):
    """Keeps the group's accumulator; after each row withdraws the rows emitted before (-D)
    and emits the function's current rows (+I), as Flink's table aggregation."""

    def __init__(self, function: Any, names: list[str]) -> None:
        self.function, self.names = function, names

    def open(self, runtime_context: Any) -> None:
        self.state = runtime_context.get_state(ValueStateDescriptor("table_aggregate"))

    def process_element(self, value: Any, ctx: Any) -> Any:
        kind, values = value
        held = self.state.value()
        acc, emitted = (self.function.create_accumulator(), []) if held is None else held
        row = Row(*values)
        row.set_field_names(self.names)
        if kind in (INSERT, UPDATE_AFTER):
            self.function.accumulate(acc, row)
        else:
            self.function.retract(acc, row)
        key = tuple(ctx.get_current_key())
        rows = [
            key + (tuple(r) if isinstance(r, (tuple, list, Row)) else (r,))
            for r in self.function.emit_value(acc)
        ]
        self.state.update([acc, rows])
        out = [(DELETE, r) for r in emitted] + [(INSERT, r) for r in rows]
        return out or None


@dataclass
class Sort(PlanNode):
    """``ORDER BY`` in batch mode: every row, sorted once the input ended (one subtask), then
    ``offset``/``fetch`` applied. ``keys``: (key function, descending) pairs; NULLs sort first
    ascending and last descending, as Flink's default."""

    input: PlanNode | None = None
    keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]] = field(default_factory=list)
    offset: int = 0
    fetch: int | None = None
    key_expressions: list[tuple[Expression, bool]] | None = None

    def translate(self, env: Any) -> Any:
        assert self.input is not None
        function = _SortFunction(self.keys, self.offset, self.fetch)
        return self.input.translate(env).key_by(lambda kv: 0).process(function).set_parallelism(1)


def _nulls_low(key: Callable[[tuple[Any, ...]], Any], row: tuple[Any, ...]) -> tuple[bool, Any]:
    """A sort key placing NULL below every value."""
    value = key(row)
    return (False, 0) if value is None else (True, value)


class _SortFunction(KeyedProcessFunction):
    def __init__(
        self, keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]], offset: int, fetch: int | None
    ) -> None:
        self.keys, self.offset, self.fetch = keys, offset, fetch

    def open(self, runtime_context: Any) -> None:
        from millstream.datastream.state import ListStateDescriptor

        self.rows = runtime_context.get_list_state(ListStateDescriptor("rows"))

    def process_element(self, value: Any, ctx: Any) -> Any:
        self.rows.add(value[1])
        ctx.timer_service().register_event_time_timer(_MAX_TIMESTAMP)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        rows = list(self.rows.get() or [])
        for key, descending in reversed(self.keys):  # stable sorts, last key first
            rows.sort(key=functools.partial(_nulls_low, key), reverse=descending)
        end = None if self.fetch is None else self.offset + self.fetch
        return [(INSERT, r) for r in rows[self.offset : end]]
