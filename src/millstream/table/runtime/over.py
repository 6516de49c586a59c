"""The operators of over aggregation and Top-N (the plan nodes are
:mod:`millstream.table.planner.over`). Over aggregation: ``SUM(x) OVER (PARTITION BY k ORDER BY
ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)`` and the Table API's
``over_window(Over.partition_by(...)...)``.

As Flink's event-time over aggregation (``RowTimeRowsBoundedPrecedingFunction`` and kin), the
rows of each partition wait in keyed state until the watermark passes their time, then are
taken in time order (rows of equal time in arrival order), each emitted once with its
aggregates appended: ``ROWS n PRECEDING`` aggregates the row and the n before it; ``RANGE
interval PRECEDING`` every row whose time lies within the interval before it, rows of the same
time included (they get the same values); UNBOUNDED every row before. Rows at or behind the
watermark when they arrive are late and dropped. The output is insert-only and keeps the
input's event-time attribute.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import ListStateDescriptor, MapStateDescriptor, ValueStateDescriptor
from millstream.table.common.row_kind import INSERT
from millstream.table.common.timestamps import to_epoch_millis
from millstream.table.common.types import DataType
from millstream.table.functions.aggregate_calls import accumulator_for
from millstream.table.functions.aggregates_more import LAG, LEAD, NTILE, RANKINGS
from millstream.table.runtime.window_operators import END_OF_INPUT

__all__ = [
    "BatchOverFunction",
    "BatchRankFunction",
    "OverFunction",
    "RetractableTopNFunction",
    "RowTimeFirstRowFunction",
    "TopNFunction",
    "WindowRankFunction",
]


class OverFunction(KeyedProcessFunction):
    def __init__(
        self,
        column: int,
        root: str,
        rows: bool,
        preceding: int | None,
        calls: list[tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]],
    ) -> None:
        self.column, self.root, self.rows, self.preceding = column, root, rows, preceding
        self.calls = calls

    def open(self, runtime_context: Any) -> None:
        self.pending = runtime_context.get_map_state(MapStateDescriptor("pending", None, None))
        # the rows the frame may still reach: [(time, row)] in order; unbounded: accumulators
        self.history = runtime_context.get_state(ValueStateDescriptor("history", None))
        self.accumulators = [
            accumulator_for(f, t, False) if isinstance(f, str) else f for f, _, t in self.calls
        ]
        self.arguments = [fn for _, fn, _ in self.calls]

    def process_element(self, value: Any, ctx: Any) -> Any:
        row = value[1]
        time = row[self.column]
        if time is None:
            return None
        ts = to_epoch_millis(time, self.root)
        timers = ctx.timer_service()
        if ts <= timers.current_watermark():
            return None  # late
        waiting = self.pending.get(ts)
        self.pending.put(ts, [row] if waiting is None else [*waiting, row])
        timers.register_event_time_timer(ts)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        rows = self.pending.get(timestamp)
        if rows is None:
            return None
        self.pending.remove(timestamp)
        if self.preceding is None:
            return self._unbounded(rows)
        history: list[tuple[int, tuple[Any, ...]]] = self.history.value() or []
        out = []
        if self.rows:
            for row in rows:
                history.append((timestamp, row))
                history = history[-(self.preceding + 1) :]
                out.append((INSERT, row + self._aggregate([r for _, r in history])))
        else:
            history.extend((timestamp, row) for row in rows)
            history = [(t, r) for t, r in history if t >= timestamp - self.preceding]
            values = self._aggregate([r for _, r in history])
            out.extend((INSERT, row + values) for row in rows)
        self.history.update(history)
        return out

    def _aggregate(self, rows: list[tuple[Any, ...]]) -> tuple[Any, ...]:
        results = []
        for acc_ops, argument in zip(self.accumulators, self.arguments, strict=True):
            acc = acc_ops.create()
            for row in rows:
                acc = acc_ops.add(acc, argument(row))
            results.append(acc_ops.result(acc))
        return tuple(results)

    def _unbounded(self, rows: list[tuple[Any, ...]]) -> list[tuple[str, tuple[Any, ...]]]:
        accs = self.history.value()
        if accs is None:
            accs = [a.create() for a in self.accumulators]
        out = []
        if self.rows:
            for row in rows:
                accs = self._add(accs, row)
                out.append((INSERT, row + self._results(accs)))
        else:  # RANGE UNBOUNDED: rows of the same time see each other
            for row in rows:
                accs = self._add(accs, row)
            values = self._results(accs)
            out = [(INSERT, row + values) for row in rows]
        self.history.update(accs)
        return out

    def _add(self, accs: list[Any], row: tuple[Any, ...]) -> list[Any]:
        return [a.add(acc, f(row)) for a, acc, f in zip(self.accumulators, accs, self.arguments, strict=True)]

    def _results(self, accs: list[Any]) -> tuple[Any, ...]:
        return tuple(a.result(acc) for a, acc in zip(self.accumulators, accs, strict=True))


class BatchOverFunction(KeyedProcessFunction):
    """Over aggregation of a bounded input (BATCH), as Flink's batch ``OverAggregate``: a
    partition's rows once all have arrived, sorted by the ORDER BY keys (stable: ties in
    arrival order; NULLs first ascending unless told otherwise), each emitted in that order
    with its values appended. An aggregate covers the row's frame: ``ROWS`` a count of rows
    around it, ``RANGE`` the rows whose first ORDER BY key lies within the distance (its peers,
    rows of equal keys, at the current row), the whole partition without ORDER BY. ROW_NUMBER,
    RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LEAD and LAG read the row's position in
    the partition instead."""

    def __init__(
        self,
        order_keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool, bool]],
        range_value: Callable[[Any], Any],
        rows: bool,
        preceding: int | None,
        following: int | None,
        calls: list[tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]],
    ) -> None:
        self.order_keys, self.range_value = order_keys, range_value
        self.rows, self.preceding, self.following = rows, preceding, following
        self.calls = calls

    def open(self, runtime_context: Any) -> None:
        self.partition = runtime_context.get_list_state(ListStateDescriptor("partition_rows", None))
        self.accumulators = [
            (None if _positional(f) else accumulator_for(f, t, False)) if isinstance(f, str) else f
            for f, _, t in self.calls
        ]

    def process_element(self, value: Any, ctx: Any) -> Any:
        self.partition.add(value[1])
        ctx.timer_service().register_event_time_timer(END_OF_INPUT)  # once per key (a set)
        return None

    def _sort_key(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        key: list[tuple[int, Any]] = []
        for f, descending, nulls_first in self.order_keys:
            value = f(row)
            if value is None:
                key.append((0 if nulls_first else 2, None))
            else:
                key.append((1, Descending(value) if descending else value))
        return tuple(key)

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        rows = sorted(self.partition.get() or [], key=self._sort_key)
        self.partition.clear()
        if not rows:
            return None
        keys = [self._sort_key(r) for r in rows]
        peers = _peer_groups(keys)
        columns = []
        for (function, argument, _), accumulator in zip(self.calls, self.accumulators, strict=True):
            if accumulator is None:
                columns.append(_positional_values(function, argument, rows, peers))
            else:
                columns.append(self._framed(accumulator, argument, rows, peers))
        return [(INSERT, row + tuple(c[i] for c in columns)) for i, row in enumerate(rows)]

    def _frame(self, i: int, rows: list[tuple[Any, ...]], peers: list[tuple[int, int]]) -> tuple[int, int]:
        """The first and last index of row ``i``'s frame."""
        n = len(rows)
        if self.rows or not self.order_keys:
            if not self.order_keys and not self.rows:
                return 0, n - 1
            start = 0 if self.preceding is None else max(0, i - self.preceding)
            end = n - 1 if self.following is None else min(n - 1, i + self.following)
            return start, end
        first, last = peers[i]
        if self.preceding is None:
            start = 0
        elif self.preceding == 0:
            start = first
        else:
            start = self._range_edge(i, rows, self.preceding, True)
        if self.following is None:
            end = n - 1
        elif self.following == 0:
            end = last
        else:
            end = self._range_edge(i, rows, self.following, False)
        return start, end

    def _range_edge(self, i: int, rows: list[tuple[Any, ...]], distance: int, backward: bool) -> int:
        """The first (``backward``) or last row of row ``i``'s RANGE frame: the rows whose
        first ORDER BY key is within ``distance`` of its key on that side of it."""
        key, descending, _ = self.order_keys[0]
        current = key(rows[i])
        step = -1 if backward else 1
        if current is None:  # a NULL key's range: its peers
            j = i
            while 0 <= j + step < len(rows) and key(rows[j + step]) is None:
                j += step
            return j
        low_side = backward != descending  # the rows on this side hold smaller values
        bound = self.range_value(current) + (-distance if low_side else distance)

        def inside(value: Any) -> bool:
            if value is None:
                return False
            v = self.range_value(value)
            return bool(v >= bound) if low_side else bool(v <= bound)

        j = i
        while 0 <= j + step < len(rows) and inside(key(rows[j + step])):
            j += step
        return j

    def _framed(
        self,
        accumulator: Any,
        argument: Callable[[tuple[Any, ...]], Any],
        rows: list[tuple[Any, ...]],
        peers: list[tuple[int, int]],
    ) -> list[Any]:
        """An aggregate's value for each row, over its frame (frames starting at the
        partition's first row grow: their accumulator is carried along)."""
        values = [argument(r) for r in rows]
        out = []
        carried, reached = accumulator.create(), -1
        for i in range(len(rows)):
            start, end = self._frame(i, rows, peers)
            if start == 0 and end >= reached:
                for j in range(reached + 1, end + 1):
                    carried = accumulator.add(carried, values[j])
                reached = end
                out.append(accumulator.result(carried))
                continue
            acc = accumulator.create()
            for j in range(start, end + 1):
                acc = accumulator.add(acc, values[j])
            out.append(accumulator.result(acc))
        return out


def _positional(function: str) -> bool:
    return function in RANKINGS or function.startswith((LAG, LEAD, NTILE))


def _peer_groups(keys: list[Any]) -> list[tuple[int, int]]:
    """For each row, the first and last index of the rows with its ORDER BY keys (its peers)."""
    groups: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[start]:
            groups.extend([(start, i - 1)] * (i - start))
            start = i
    return groups


def _positional_values(
    function: str,
    argument: Callable[[tuple[Any, ...]], Any],
    rows: list[tuple[Any, ...]],
    peers: list[tuple[int, int]],
) -> list[Any]:
    """A window function of the partition's order, for each row (as Flink's ``RankAggFunction``,
    ``NtileAggFunction``, ``LeadLagAggFunction`` ...)."""
    n = len(rows)
    if function == "ROW_NUMBER":
        return [i + 1 for i in range(n)]
    if function == "RANK":
        return [first + 1 for first, _ in peers]
    if function == "DENSE_RANK":
        dense, out, previous = 0, [], None
        for first, _ in peers:
            if first != previous:
                dense, previous = dense + 1, first
            out.append(dense)
        return out
    if function == "PERCENT_RANK":
        return [first / (n - 1) if n > 1 else 0.0 for first, _ in peers]
    if function == "CUME_DIST":
        return [(last + 1) / n for _, last in peers]
    if function.startswith(NTILE):
        buckets = int(function[len(NTILE) :])
        size, extra = divmod(n, buckets)
        wide = extra * (size + 1)  # the first ``extra`` buckets hold one row more
        return [i // (size + 1) + 1 if i < wide else (i - wide) // size + extra + 1 for i in range(n)]
    offset, default = json.loads(function.split(" ", 1)[1])
    step = offset if function.startswith(LEAD) else -offset
    values = [argument(r) for r in rows]
    return [values[i + step] if 0 <= i + step < n else default for i in range(n)]


# -- Top-N and deduplication ----------------------------------------------------------------------------


class Descending:
    """Reverses the order of a sort key."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: Descending) -> bool:
        return bool(other.value < self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Descending) and self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)


def _null_first(value: Any) -> tuple[int, Any]:
    return (0, None) if value is None else (1, value)


class TopNFunction(KeyedProcessFunction):
    """Top-N of an insert-only input, as Flink's ``AppendOnlyTopNFunction`` and, for a top-1
    without the row number, its ``FastTop1Function``: a row entering the top N is emitted.
    With the row number every row whose rank it shifts is updated (``-U`` old, ``+U`` new at
    that rank); without it the row pushed out is withdrawn first (``-D``), then the new one
    inserted (``+I``), except in a top-1, whose partition key is a unique key of the result:
    the new row updates the old (``-U``, ``+U``), as a deduplication's does. PyFlink 2.3.0
    prints ``-D[a, 1]`` before ``+I[a, 3]`` for a top-2 and ``-U[a, 1]``, ``+U[a, 5]`` for a
    top-1 by ``v DESC``."""

    def __init__(
        self,
        sort_keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]],
        limit: int,
        rank_column: int | None,
        dedup: bool = False,
    ) -> None:
        self.sort_keys, self.limit, self.rank_column = sort_keys, limit, rank_column
        self.dedup = dedup

    def open(self, runtime_context: Any) -> None:
        self.top = runtime_context.get_state(ValueStateDescriptor("top_n", None))

    def _sort_key(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(
            Descending(_null_first(f(row))) if desc else _null_first(f(row)) for f, desc in self.sort_keys
        )

    def _with_rank(self, row: tuple[Any, ...], rank: int) -> tuple[Any, ...]:
        at = self.rank_column
        return row if at is None else row[:at] + (rank,) + row[at:]

    def process_element(self, value: Any, ctx: Any) -> Any:
        row = value[1]
        top: list[tuple[Any, ...]] = self.top.value() or []
        key = self._sort_key(row)
        position = len(top)
        # after every row that sorts before or equal; deduplication keeping the last row (time
        # descending) lets a row of the same time replace the held one, as Flink's does
        newest_wins = self.dedup and self.sort_keys[0][1]
        for i, held in enumerate(top):
            held_key = self._sort_key(held)
            if key < held_key or (newest_wins and not held_key < key):
                position = i
                break
        if position >= self.limit:
            return None
        new = top[:position] + [row] + top[position:]
        pushed = new[self.limit :]
        new = new[: self.limit]
        self.top.update(new)
        if pushed and (self.dedup or (self.limit == 1 and self.rank_column is None)):
            return [("-U", pushed[0]), ("+U", row)]
        if self.rank_column is None:
            return [("-D", r) for r in pushed] + [(INSERT, row)]
        out: list[tuple[str, tuple[Any, ...]]] = []
        for rank in range(position + 1, len(new) + 1):
            if rank <= len(top):
                out.append(("-U", self._with_rank(top[rank - 1], rank)))
                out.append(("+U", self._with_rank(new[rank - 1], rank)))
            else:
                out.append((INSERT, self._with_rank(new[rank - 1], rank)))
        return out


class RowTimeFirstRowFunction(KeyedProcessFunction):
    """Deduplication keeping each key's first row by event time, as Flink's
    ``RowTimeDeduplicateKeepFirstRowFunction``: the earliest row so far waits for the watermark
    to pass its time and is then emitted once (``+I``, insert-only); rows behind the watermark
    when they arrive and every row after the emitted one are dropped. PyFlink 2.3.0 emits
    ``+I[a, 4, 10:00:01]`` alone for rows of key ``a`` at 10:00:05, 10:00:03 and 10:00:01."""

    def __init__(self, column: int, root: str) -> None:
        self.column, self.root = column, root

    def open(self, runtime_context: Any) -> None:
        self.waiting = runtime_context.get_state(ValueStateDescriptor("waiting-to-emit-on-timer", None))
        self.emitted = runtime_context.get_state(ValueStateDescriptor("already-emitted", None))

    def process_element(self, value: Any, ctx: Any) -> Any:
        row = value[1]
        if row[self.column] is None:
            return None
        time = to_epoch_millis(row[self.column], self.root)
        timers = ctx.timer_service()
        if time < timers.current_watermark() or self.emitted.value():
            return None  # late, or the key's row is out already
        held = self.waiting.value()
        if held is None or time < to_epoch_millis(held[self.column], self.root):
            if held is not None:
                timers.delete_event_time_timer(to_epoch_millis(held[self.column], self.root))
            timers.register_event_time_timer(time)
            self.waiting.update(row)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        row = self.waiting.value()
        self.waiting.clear()
        self.emitted.update(True)
        return None if row is None else [(INSERT, row)]


class BatchRankFunction(TopNFunction):
    """RANK / DENSE_RANK Top-N of a bounded input (Flink runs them in batch mode only): a
    partition's rows are ranked once all have arrived, ties sharing a rank (RANK leaves gaps
    after ties, DENSE_RANK does not); the rows ranked at most N are emitted."""

    def __init__(
        self,
        sort_keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]],
        limit: int,
        rank_column: int | None,
        rank_type: str,
    ) -> None:
        super().__init__(sort_keys, limit, rank_column)
        self.dense = rank_type == "DENSE_RANK"

    def open(self, runtime_context: Any) -> None:
        self.rows = runtime_context.get_list_state(ListStateDescriptor("partition_rows", None))

    def process_element(self, value: Any, ctx: Any) -> Any:
        self.rows.add(value[1])
        ctx.timer_service().register_event_time_timer(END_OF_INPUT)  # once per key (a set)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        rows = sorted(self.rows.get() or [], key=self._sort_key)  # stable: ties in arrival order
        self.rows.clear()
        out: list[tuple[str, tuple[Any, ...]]] = []
        rank, distinct, previous = 0, 0, None
        for i, row in enumerate(rows):
            key = self._sort_key(row)
            if previous is None or previous < key:
                rank, distinct = i + 1, distinct + 1
            previous = key
            shown = distinct if self.dense else rank
            if shown > self.limit:
                break
            out.append((INSERT, self._with_rank(row, shown)))
        return out


class RetractableTopNFunction(TopNFunction):
    """Top-N over an updating input, as Flink's ``RetractableTopNFunction``: every row of the
    partition is kept in sort order (a row that leaves the top N may come back when a row
    above it is retracted); each change emits the difference of the top N before and after:
    with the row number, ``-U``/``+U`` at every rank whose row changed, ``+I`` / ``-D`` where
    the top N grew or shrank; without it, ``-D`` of the rows that left, then ``+I`` of those
    that entered (the order PyFlink 2.3 prints)."""

    def __init__(
        self,
        sort_keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]],
        limit: int,
        rank_column: int | None,
    ) -> None:
        super().__init__(sort_keys, limit, rank_column)

    def open(self, runtime_context: Any) -> None:
        self.top = runtime_context.get_state(ValueStateDescriptor("sorted_rows", None))

    def process_element(self, value: Any, ctx: Any) -> Any:
        kind, row = value
        rows: list[tuple[Any, ...]] = self.top.value() or []
        before = rows[: self.limit]
        key = self._sort_key(row)
        if kind in (INSERT, "+U"):
            position = len(rows)
            for i, held in enumerate(rows):  # after every row that sorts before or equal
                if key < self._sort_key(held):
                    position = i
                    break
            rows = rows[:position] + [row] + rows[position:]
        else:
            if row not in rows:  # never added (or expired): nothing to take back, as Flink
                return None
            index = rows.index(row)
            rows = rows[:index] + rows[index + 1 :]
        if rows:
            self.top.update(rows)
        else:
            self.top.clear()
        after = rows[: self.limit]
        if before == after:
            return None
        if self.rank_column is None:
            left = [r for r in before if r not in after]
            entered = [r for r in after if r not in before]
            return [("-D", r) for r in left] + [(INSERT, r) for r in entered]  # Flink's order
        out: list[tuple[str, tuple[Any, ...]]] = []
        for rank in range(1, max(len(before), len(after)) + 1):
            old = before[rank - 1] if rank <= len(before) else None
            new = after[rank - 1] if rank <= len(after) else None
            if old == new:
                continue
            if old is None:
                out.append((INSERT, self._with_rank(new, rank)))  # type: ignore[arg-type]
            elif new is None:
                out.append(("-D", self._with_rank(old, rank)))
            else:
                out.append(("-U", self._with_rank(old, rank)))
                out.append(("+U", self._with_rank(new, rank)))
        return out


class WindowRankFunction(TopNFunction):
    def __init__(
        self,
        sort_keys: list[tuple[Callable[[tuple[Any, ...]], Any], bool]],
        limit: int,
        rank_column: int | None,
        end_column: int,
        root: str,
    ) -> None:
        super().__init__(sort_keys, limit, rank_column)
        self.end_column, self.root = end_column, root

    def open(self, runtime_context: Any) -> None:
        self.rows = runtime_context.get_state(ValueStateDescriptor("window_rows", None))

    def process_element(self, value: Any, ctx: Any) -> Any:
        row = value[1]
        end = to_epoch_millis(row[self.end_column], self.root)
        timers = ctx.timer_service()
        if end - 1 < timers.current_watermark():
            return None  # its window was ranked already: late
        held: list[tuple[Any, ...]] = self.rows.value() or []
        held.append(row)
        self.rows.update(held)
        timers.register_event_time_timer(end - 1)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        held: list[tuple[Any, ...]] = self.rows.value() or []
        self.rows.clear()
        ranked = sorted(held, key=self._sort_key)[: self.limit]  # stable: ties keep arrival order
        return [(INSERT, self._with_rank(row, i + 1)) for i, row in enumerate(ranked)] or None
