"""The operator of MATCH_RECOGNIZE (Flink's ``CepOperator`` as the table planner runs it) and
the expressions of its DEFINE and MEASURES clauses (the plan node is
:mod:`millstream.table.planner.match`; the automaton :mod:`millstream.table.runtime.nfa`).

Per-record code: ``process_element`` buffers each row, ``on_timer`` feeds them to the NFA.

::

    row ──► late? (time <= watermark: dropped) ──► queue[time] (map state) ──► timer at time
    watermark passes time ──► each buffered time <= watermark, in order: the WITHIN clock moves
      to it, its rows (ORDER BY's further keys sort them) go through the NFA one by one, each
      completed match becomes one row: the partition keys, then the MEASURES
    ──► the WITHIN clock moves to the watermark (runs older than WITHIN are dropped)

Ordered by a processing-time attribute, a row goes through the NFA when it arrives (at the
current processing time), unless further ORDER BY keys must sort the rows of one
millisecond: then they wait for a processing-time timer. The NFA state (runs, completed
matches not emitted yet) and the queue are keyed state: checkpointed with the job, restored
from a savepoint, and cleared when no run is open and no row waits.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from millstream.datastream import KeyedProcessFunction
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from millstream.table.common.row_kind import INSERT
from millstream.table.common.timestamps import from_epoch_millis, to_epoch_millis
from millstream.table.common.types import DataType
from millstream.table.functions.aggregate_calls import accumulator_for
from millstream.table.runtime.nfa import NFA, NFAState, Run

__all__ = [
    "MatchRecognizeFunction",
    "MatchTime",
    "Navigation",
    "PatternAggregate",
    "PatternExpression",
]

Row = tuple[Any, ...]


@dataclass(frozen=True)
class Navigation:
    """``FIRST(A.x, n)`` / ``LAST(A.x, n)`` (``A.x`` is ``LAST(A.x, 0)``): ``value`` of the
    n-th row from the start or the end of ``variable``'s rows (None: the rows of every
    variable); NULL without one, or the Java default of a NOT NULL type (``default``), as
    Flink's generated code reads a missing row of a NOT NULL column."""

    variable: str | None
    first: bool
    offset: int
    value: Callable[[Row], Any]
    default: Any = None

    def __call__(self, rows: Sequence[Row]) -> Any:
        if len(rows) <= self.offset:
            return self.default
        return self.value(rows[self.offset if self.first else len(rows) - 1 - self.offset])


@dataclass(frozen=True)
class PatternAggregate:
    """An aggregate over ``variable``'s rows (None: every row of the match): ``function`` an
    accumulator's name (``accumulator_for``) over ``argument`` of each row."""

    variable: str | None
    function: str
    argument: Callable[[Row], Any]
    operand_type: DataType

    def __call__(self, rows: Sequence[Row]) -> Any:
        accumulator = accumulator_for(self.function, self.operand_type, False)
        value = accumulator.create()
        argument = self.argument
        for row in rows:
            value = accumulator.add(value, argument(row))
        return accumulator.result(value)


@dataclass(frozen=True)
class MatchTime:
    """``MATCH_ROWTIME()`` (the time of the match's last row, a TIMESTAMP(3), or of the root
    of its argument's type), or ``MATCH_PROCTIME()`` (``root`` None: the time it is emitted)."""

    root: str | None

    def value(self, timestamp: int, now: int) -> Any:
        if self.root is None:
            return from_epoch_millis(now, "TIMESTAMP_LTZ")
        return from_epoch_millis(timestamp, self.root)


Part = Navigation | PatternAggregate | MatchTime


class PatternExpression:
    """A DEFINE condition or a MEASURES expression: ``fn`` over one value per part (a row
    navigated to, an aggregate over a variable's rows, the match's time). In DEFINE, the
    variable defined (``defined``) and the rows of every variable include the row being
    tested, as Flink's generated condition reads them."""

    def __init__(self, parts: Sequence[Part], fn: Callable[[Row], Any], defined: str | None = None) -> None:
        self.parts, self.fn, self.defined = tuple(parts), fn, defined

    def _values(self, rows_of: Callable[[str | None], Sequence[Row]], timestamp: int, now: int) -> Row:
        values = []
        for part in self.parts:
            if isinstance(part, MatchTime):
                values.append(part.value(timestamp, now))
            else:
                values.append(part(rows_of(part.variable)))
        return tuple(values)

    def condition(self, events: Mapping[str, list[Row]], row: Row, timestamp: int) -> bool:
        """Whether ``row`` (at ``timestamp``) may be taken as the defined variable after
        ``events`` (NULL: no)."""
        defined = self.defined

        def rows_of(variable: str | None) -> Sequence[Row]:
            if variable is None:
                return [r for taken in events.values() for r in taken] + [row]
            taken = events.get(variable, [])
            return [*taken, row] if variable == defined else taken

        return self.fn(self._values(rows_of, timestamp, int(time.time() * 1000))) is True

    def measure(self, events: Mapping[str, list[Row]], timestamp: int, now: int) -> Any:
        """The value of a match (its rows by variable, its time)."""

        def rows_of(variable: str | None) -> Sequence[Row]:
            if variable is None:
                return [r for taken in events.values() for r in taken]
            return events.get(variable, [])

        return self.fn(self._values(rows_of, timestamp, now))


class MatchRecognizeFunction(KeyedProcessFunction):
    """Flink's ``CepOperator`` over one partition's rows (the key is the PARTITION BY
    columns): ``time_column`` of ``time_root`` orders them (``proctime``: by arrival),
    ``sort_keys`` (``(column, descending)``) orders rows of one time; each completed match of
    ``nfa`` is emitted as the values of ``partition`` followed by ``measures``."""

    def __init__(
        self,
        nfa: NFA,
        time_column: int,
        time_root: str,
        proctime: bool,
        sort_keys: Sequence[tuple[int, bool]],
        partition: Sequence[int],
        measures: Sequence[PatternExpression],
        time_name: str,
    ) -> None:
        self.nfa, self.time_column, self.time_root, self.proctime = nfa, time_column, time_root, proctime
        self.sort_keys, self.partition, self.measures = list(sort_keys), list(partition), list(measures)
        self.time_name = time_name

    def open(self, runtime_context: Any) -> None:
        self.state = runtime_context.get_state(ValueStateDescriptor("nfaStateName", None))
        self.queue = runtime_context.get_map_state(MapStateDescriptor("eventQueuesStateName", None, None))
        self.order = _row_order(self.sort_keys) if len(self.sort_keys) > 1 else None

    def process_element(self, value: Any, ctx: Any) -> Any:
        row = value[1]
        timers = ctx.timer_service()
        if self.proctime:
            now = timers.current_processing_time()
            if self.order is None:  # in order of arrival: at once
                state = self._load()
                self.nfa.advance_time(state, now)
                out = self._feed(state, [row], now, timers)
                self._save(state)
                return out or None
            self._buffer(row, now, timers)
            return None
        time = row[self.time_column]
        if time is None:
            raise ValueError(
                f"MATCH_RECOGNIZE: the rowtime attribute '{self.time_name}' is NULL in row {row!r}"
            )
        timestamp = to_epoch_millis(time, self.time_root)
        if timestamp <= timers.current_watermark():
            return None  # late, as Flink's CepOperator drops it
        self._buffer(row, timestamp, timers)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        timers = ctx.timer_service()
        # the watermark that fired the timer (BATCH: the end of the key fires each timer in turn)
        until = None if self.proctime else max(timers.current_watermark(), timestamp)
        times = sorted(t for t in self.queue.keys() if until is None or t <= until)  # noqa: SIM118 - a map state
        state = self._load()
        out: list[tuple[str, Row]] = []
        for at in times:
            self.nfa.advance_time(state, at)
            rows = list(self.queue.get(at))
            if self.order is not None:
                rows.sort(key=self.order)
            out.extend(self._feed(state, rows, at, timers))
            self.queue.remove(at)
        if until is not None:
            self.nfa.advance_time(state, until)
            # no row at or before the watermark comes any more: their ids are no longer needed
            state.counts = {t: n for t, n in state.counts.items() if t > until}
        self._save(state)
        return out or None

    def _buffer(self, row: Row, time: int, timers: Any) -> None:
        waiting = self.queue.get(time)
        if waiting is None:
            waiting = []
            if self.proctime:
                timers.register_processing_time_timer(time)
            else:
                timers.register_event_time_timer(time)
        self.queue.put(time, [*waiting, row])

    def _feed(self, state: NFAState, rows: list[Row], time: int, timers: Any) -> list[tuple[str, Row]]:
        """Each row through the NFA at ``time``; a row per completed match."""
        out: list[tuple[str, Row]] = []
        nfa = self.nfa
        for row in rows:
            matches, started = nfa.process(state, row, time)
            if started and nfa.window > 0:  # a run's end of WITHIN: drop it then (state cleanup)
                if self.proctime:
                    timers.register_processing_time_timer(time + nfa.window)
                else:
                    timers.register_event_time_timer(time + nfa.window)
            if matches:
                now = timers.current_processing_time()
                out.extend((INSERT, self._row(match, time, now)) for match in matches)
        return out

    def _row(self, match: Run, time: int, now: int) -> Row:
        events: dict[str, list[Row]] = {}
        for variable, _, row in match.path:
            events.setdefault(variable, []).append(row)
        first = match.path[0][2]
        keys = tuple(first[i] for i in self.partition)
        return keys + tuple(m.measure(events, time, now) for m in self.measures)

    def _load(self) -> NFAState:
        stored = self.state.value()
        return self.nfa.initial_state() if stored is None else NFAState.restore(stored)

    def _save(self, state: NFAState) -> None:
        idle = (
            len(state.partial) == 1
            and state.partial.items[0].start_id is None
            and not state.completed.items
            and not state.counts
        )
        if idle:
            self.state.clear()
        else:
            self.state.update(state.snapshot())


def _row_order(sort_keys: Sequence[tuple[int, bool]]) -> Callable[[Row], Any]:
    """The order of rows of one time by ORDER BY's keys (Flink's ``RowDataEventComparator``:
    ascending NULLs first, descending NULLs last)."""

    def compare(a: Row, b: Row) -> int:
        for column, descending in sort_keys:
            x, y = a[column], b[column]
            if x == y:
                continue
            if x is None or y is None:
                result = -1 if x is None else 1  # NULL first ascending, last descending
                return -result if descending else result
            result = -1 if x < y else 1
            return -result if descending else result
        return 0

    return functools.cmp_to_key(compare)
