"""Over aggregation and Top-N in the plan: ``SUM(x) OVER (PARTITION BY k ORDER BY ts ...)``, the Table
API's ``over_window(...)``, and the ranks of Top-N queries (``ROW_NUMBER() OVER ...`` under a
filter on it), each with how it runs on the operators of :mod:`millstream.table.runtime.over`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from millstream.datastream import KeyedProcessFunction
from millstream.table.common.timestamps import to_epoch_millis
from millstream.table.common.types import DataType
from millstream.table.expression.expression import Expression, OverCall, col
from millstream.table.expression.over_frame import OverFrame
from millstream.table.expression.walk import fingerprint, replaced
from millstream.table.functions.aggregate_calls import accumulator_spec, result_type
from millstream.table.functions.aggregates_more import LAG, LEAD, NTILE, RANKINGS
from millstream.table.planner.nodes import PlanNode, single_subtask_changelog
from millstream.table.planner.projection import project
from millstream.table.runtime.over import (
    BatchOverFunction,
    BatchRankFunction,
    OverFunction,
    RetractableTopNFunction,
    RowTimeFirstRowFunction,
    TopNFunction,
    WindowRankFunction,
)
from millstream.table.runtime.over_nontime import NonTimeOverFunction
from millstream.table.runtime.over_proctime import ProcTimeOverFunction

if TYPE_CHECKING:
    from millstream.table.planner.planning import PlanningContext

__all__ = ["OverAggregate", "Rank", "WindowRank", "over_aggregate"]


@dataclass(frozen=True)
class OverAggregate(PlanNode):
    """The input's columns and one column per over aggregate."""

    input: PlanNode | None = None
    partition_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    time_column: int = 0
    rows: bool = True
    preceding: int | None = None
    calls: list[tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]] = field(default_factory=list)
    # the partition keys and the aggregate calls as expressions, for explain
    partition_expressions: list[Expression] = field(default_factory=list, kw_only=True)
    call_expressions: list[Expression] = field(default_factory=list, kw_only=True)
    # BATCH: ordered by any keys (key, descending, NULLs first), the frame ending ``following``
    # after the current row (None: UNBOUNDED FOLLOWING), RANGE distances in the first key's units
    batch: bool = field(default=False, kw_only=True)
    order_keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool, bool]] = field(
        default_factory=list, kw_only=True
    )
    order_expressions: list[tuple[Expression, bool]] = field(default_factory=list, kw_only=True)
    order_root: str = field(default="", kw_only=True)
    following: int | None = field(default=0, kw_only=True)
    # STREAMING ordered by the processing-time attribute: rows in arrival order
    proctime_order: bool = field(default=False, kw_only=True)
    # STREAMING ordered by a column that is no time attribute (UNBOUNDED PRECEDING): updating
    non_time: bool = field(default=False, kw_only=True)

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        keys = self.partition_keys
        root = self.input.types[self.time_column].root
        function: KeyedProcessFunction
        if self.batch:
            range_value = _range_value(self.order_root)
            function = BatchOverFunction(
                self.order_keys, range_value, self.rows, self.preceding, self.following, self.calls
            )
        elif self.non_time:
            function = NonTimeOverFunction(self.order_keys[0][0], self.rows, self.calls)
        elif self.proctime_order:
            function = ProcTimeOverFunction(self.time_column, root, self.rows, self.preceding, self.calls)
        else:
            function = OverFunction(self.time_column, root, self.rows, self.preceding, self.calls)
        stream = self.input.translate(ctx)
        keyed = stream.key_by(lambda kv: tuple([k(kv[1]) for k in keys]))
        result = keyed.process(function)
        if not keys:
            result.set_parallelism(1)
        return result


def _range_value(root: str) -> Callable[[Any], Any]:
    """A RANGE frame's measure of an ORDER BY key of type ``root``: a time's epoch ms (its
    distances are intervals), a number itself."""
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE", "TIME"):
        return lambda value: to_epoch_millis(value, root) if root != "TIME" else _millis_of_day(value)
    return lambda value: value


def _millis_of_day(value: Any) -> int:
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


def over_aggregate(
    node: PlanNode, frames: dict[str, OverFrame], selected: list[Expression], batch: bool = False
) -> PlanNode:
    """``selected`` over ``node`` with its over aggregates (``.over(col('w'))``, each window
    named in ``frames``) computed by over aggregations, one per window: the projection reads
    each aggregate's column (``w0$o0``, as Flink names it); the expressions given are left as
    they are. Streaming orders by the event-time attribute or, in arrival order, the
    processing-time attribute (frames end at the current row);
    BATCH (as Flink's) by any keys, with LEAD, NTILE, RANK ... too."""
    calls: list[OverCall] = []
    for expression in selected:
        for call in _over_calls(expression):
            if not any(call is seen for seen in calls):
                calls.append(call)
    plan, window = node, -1
    slots: dict[int, str] = {}  # id(over call) -> the column its over aggregation computes
    for frame, aliases in _same_windows(frames):
        mine = [c for c in calls if getattr(c.window, "name", c.window) in aliases]
        if not mine:
            continue
        window += 1
        non_time = not batch and _check_streaming(plan, frame, mine)
        ordered_by = frame.order_by
        time_name = ordered_by.resolve(plan.names, plan.types).name if ordered_by is not None else None
        specs: list[tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]] = []
        slot_names: list[str] = []
        slot_types: list[DataType] = []
        # a frame from the partition's start or the current row always holds a row (Calcite's
        # isAlwaysNonEmpty): a NOT NULL operand's SUM ... is NOT NULL there
        non_empty = frame.preceding in (None, 0) and frame.following in (None, 0)
        for call in mine:
            operand = call.call.operand.resolve(plan.names, plan.types)
            typed = result_type(call.call, operand.data_type, non_empty)
            spec = accumulator_spec(call.call, operand.data_type, typed)
            specs.append((spec, operand.fn, operand.data_type))
            slot = f"w{window}$o{len(slot_names)}"  # the column, as Flink names it (window w0, w1 ...)
            while slot in plan.names:
                slot = "$" + slot
            slot_names.append(slot)
            slot_types.append(typed)
            slots[id(call)] = slot
        keys = [k.resolve(plan.names, plan.types).fn for k in frame.partition_by]
        ordering = list(frame.order_keys) or ([(ordered_by, False, True)] if ordered_by is not None else [])
        resolved = [(e.resolve(plan.names, plan.types), d, n) for e, d, n in ordering]
        plan = OverAggregate(
            list(plan.names) + slot_names,
            list(plan.types) + slot_types,
            non_time or plan.updating,
            plan,
            keys,
            plan.names.index(time_name) if time_name in plan.names else 0,
            frame.rows or (non_time and all(c.call.function == "ROW_NUMBER" for c in mine)),
            frame.preceding,
            specs,
            rowtime=plan.rowtime,
            proctime=plan.proctime,
            proctime_order=not batch and _is_proctime(plan, time_name),
            partition_expressions=list(frame.partition_by),
            call_expressions=[c.call for c in mine],
            batch=batch,
            order_keys=[(c.fn, d, n) for c, d, n in resolved],
            order_expressions=[(e, d) for e, d, _ in ordering],
            order_root=resolved[0][0].data_type.root if resolved else "",
            following=frame.following,
            non_time=non_time,
        )

    def column(x: Any) -> Any:
        return col(slots[id(x)]) if isinstance(x, OverCall) and id(x) in slots else None

    reading = [
        col(slots[id(e)]).alias(f"EXPR${i}")
        if isinstance(e, OverCall) and id(e) in slots
        else replaced(e, column)
        for i, e in enumerate(selected)
    ]
    return project(plan, reading, lambda i: f"EXPR${i}")


def _same_windows(frames: dict[str, OverFrame]) -> list[tuple[OverFrame, set[str]]]:
    """The frames with the names of every window written as each (``SUM(v) OVER (ORDER BY v),
    COUNT(*) OVER (ORDER BY v)``: one window, one over aggregation, as Flink's)."""
    windows: dict[Any, tuple[OverFrame, set[str]]] = {}
    for alias, frame in frames.items():
        key = (
            tuple(fingerprint(k) for k in frame.partition_by),
            tuple((fingerprint(k), d, n) for k, d, n in frame.order_keys),
            frame.rows,
            frame.preceding,
            frame.following,
        )
        windows.setdefault(key, (frame, set()))[1].add(alias)
    return list(windows.values())


def _check_streaming(plan: PlanNode, frame: OverFrame, calls: list[OverCall]) -> bool:
    """What Flink's streaming over aggregation refuses, in its words: an order by more than one
    column, none, or descending; a frame ending past the current row; an order by a column that
    is no time attribute with a bounded frame; LEAD and NTILE, the ranking functions and LAG
    but over such a column (Top-N queries rank rows by time). Whether the order is by such a
    column (Flink 2.3's non-time over aggregation, an updating changelog)."""
    if frame.order_by is None or len(frame.order_keys) > 1:
        raise ValueError("The window can only be ordered by a single time column.")
    if any(descending for _, descending, _ in frame.order_keys):
        raise ValueError("The window can only be ordered in ASCENDING mode.")
    time_name = frame.order_by.resolve(plan.names, plan.types).name
    rowtime = plan.rowtime is not None and plan.names[plan.rowtime] == time_name
    non_time = not (rowtime or _is_proctime(plan, time_name))
    if non_time and frame.preceding is not None:
        raise ValueError("Non-time attribute sort is not supported for bounded OVER window.")
    for call in calls:
        name = call.call.function
        ranking = name in RANKINGS and non_time
        if (
            name in RANKINGS or name.startswith((LEAD, NTILE)) or (non_time and name.startswith(LAG))
        ) and not ranking:
            shown = name.split(" ")[0]
            raise ValueError(f"{shown} Function is not supported in stream mode (BATCH runs it)")
    if frame.following != 0:
        raise ValueError("OVER windows in stream mode end at CURRENT ROW")
    return non_time


def _is_proctime(plan: PlanNode, name: str | None) -> bool:
    """Whether ``name`` is ``plan``'s processing-time attribute."""
    return plan.proctime is not None and plan.names[plan.proctime] == name


def _over_calls(expression: Any) -> list[OverCall]:
    if isinstance(expression, OverCall):
        return [expression]
    found: list[OverCall] = []
    for attribute in ("operand", "left", "right", "condition", "then", "otherwise"):
        child = getattr(expression, attribute, None)
        if isinstance(child, Expression):
            found.extend(_over_calls(child))
    for child in getattr(expression, "args", None) or getattr(expression, "operands", None) or []:
        if isinstance(child, Expression):
            found.extend(_over_calls(child))
    return found


@dataclass(frozen=True)
class Rank(PlanNode):
    """``ROW_NUMBER() OVER (PARTITION BY k ORDER BY s) ... WHERE rn <= n``: per partition the
    first ``limit`` rows by the sort key, with their row number at ``rank_column`` (or none).

    As Flink's ``AppendOnlyTopNFunction``: a row entering the top N is emitted (``+I``); with
    the row number in the output every row whose rank it shifts is updated (``-U`` old, ``+U``
    new at that rank), without it the row pushed out is withdrawn (``-D``) before, or in a
    top-1 updated (``-U``, ``+U``: Flink's ``FastTop1Function``). Rows equal in the
    sort key keep their arrival order. Ordering by the event-time attribute with ``rn = 1`` is
    deduplication (Flink's ``RowTimeDeduplicateFunction``): the first (ASC) or last (DESC)
    row per key, a row replacing the kept one when its time comes earlier / not earlier."""

    input: PlanNode | None = None
    partition_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    sort_keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]] = field(
        default_factory=list
    )  # (key, desc)
    limit: int = 1
    rank_column: int | None = None  # where the row number goes in the output, None: not output
    dedup: bool = False  # top-1 by the time attribute: a replacement is an update (-U/+U)
    rank_type: str = "ROW_NUMBER"  # or RANK / DENSE_RANK (batch only, as Flink's)
    # the partition keys' columns when each is one (a deduplication's unique key), else empty
    partition_names: tuple[str, ...] = ()
    # a streaming deduplication's order: ROWTIME or PROCTIME (Flink's Deduplicate), else ""
    time_order: str = ""

    @property
    def keeps_last_row(self) -> bool:
        """A deduplication ordered by its time attribute descending keeps the last row."""
        return bool(self.sort_keys) and self.sort_keys[0][1]

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        keys = self.partition_keys
        function: KeyedProcessFunction
        if self.rank_type != "ROW_NUMBER":
            function = BatchRankFunction(self.sort_keys, self.limit, self.rank_column, self.rank_type)
        elif self.input.updating:
            if self.dedup:
                raise ValueError("Deduplicate doesn't support consuming update and delete changes")
            function = RetractableTopNFunction(self.sort_keys, self.limit, self.rank_column)
        elif self.time_order == "ROWTIME" and not self.keeps_last_row:
            assert self.input.rowtime is not None
            root = self.input.types[self.input.rowtime].root
            function = RowTimeFirstRowFunction(self.input.rowtime, root)
        else:
            function = TopNFunction(self.sort_keys, self.limit, self.rank_column, self.dedup)
        result = (
            self.input.translate(ctx)
            .key_by(lambda kv: tuple([k(kv[1]) for k in keys]), self.key_type)
            .process(function)
        )
        if not keys:
            result.set_parallelism(1)
            return single_subtask_changelog(result)
        return result


@dataclass(frozen=True)
class WindowRank(PlanNode):
    """Window Top-N: ``ROW_NUMBER() OVER (PARTITION BY window_start, window_end, ... ORDER BY
    s)`` over a windowed table, ``WHERE rn <= n``. As Flink's window rank, the rows of each
    window are held until the watermark passes the window's end, then its first ``limit`` rows
    are emitted once, in rank order (insert-only)."""

    input: PlanNode | None = None
    partition_keys: list[Callable[[tuple[Any, ...]], Any]] = field(default_factory=list)
    sort_keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]] = field(default_factory=list)
    limit: int = 1
    rank_column: int | None = None
    end_column: int = 0  # the window_end column of the input

    def translate(self, ctx: PlanningContext) -> Any:
        assert self.input is not None
        if self.input.updating:
            raise ValueError("window Top-N needs an insert-only windowed input")
        keys = self.partition_keys
        function = WindowRankFunction(
            self.sort_keys,
            self.limit,
            self.rank_column,
            self.end_column,
            self.input.types[self.end_column].root,
        )
        return self.input.translate(ctx).key_by(lambda kv: tuple([k(kv[1]) for k in keys])).process(function)
