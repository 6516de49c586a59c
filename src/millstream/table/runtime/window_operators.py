"""The operators of window aggregation (Flink's slicing window operators): the local phase
that folds a batch of rows into partials per key and slice, the slicing aggregation over
event time (one phase, or the global phase over partials) and over processing time, the
session aggregation, and the aggregation of a GROUP BY over a window the rows carry.

A row is added to its slice's accumulators (keyed state, so checkpointed); when the watermark
passes a window's end the window's slices are merged in time order into its result (a window
without rows emits nothing). A row is late, and dropped, when the last window its slice
belongs to has already fired. Session windows keep each key's open sessions; a row opens
``[ts, ts + gap)`` and merges every session it touches (Flink's ``TimeWindow.intersects``:
touching sessions merge).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.datastream import KeyedProcessFunction, ProcessFunction
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from millstream.table.common.row_kind import INSERT
from millstream.table.common.timestamps import from_epoch_millis, to_epoch_millis
from millstream.table.common.types import DataType
from millstream.table.common.window_spec import WindowSpec
from millstream.table.functions.aggregate_calls import accumulator_for

END_OF_INPUT = 2**63 - 2  # an event-time timer only the final watermark (MAX) reaches

# a window aggregation's calls: (built-in name or AggregateFunction, argument of a row, result type)
CallSpecs = list[tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]]

__all__ = [
    "END_OF_INPUT",
    "AssignWindows",
    "AttachedWindowAggregate",
    "CallSpecs",
    "LocalSlices",
    "ProcessingTimeSlices",
    "SessionAggregate",
    "SlicingAggregate",
]


class LocalSlices:
    """The local phase (Flink's ``LocalSlicingWindowAggOperator``): a batch of rows folded into
    one ``(key, slice end, rows, accumulators)`` partial per key and slice. A batch holds no
    watermark, so every row of a partial meets the same watermark downstream as it would have
    alone (the same rows are late); nothing is kept between batches."""

    def __init__(
        self, spec: WindowSpec, column: int, root: str, calls: CallSpecs, keys: list[Callable[..., Any]]
    ) -> None:
        self.fold = SlicingAggregate(spec, column, root, calls)  # its accumulators, no state
        self.keys = keys
        self.opened = False

    def __call__(self, values: list[Any]) -> tuple[list[Any], list[int]]:
        fold = self.fold
        if not self.opened:
            _WindowFunctionBase.open(fold, None)
            self.opened = True
        keys, column, root, slice_end = self.keys, fold.column, fold.root, fold.spec.slice_end
        fresh, add = fold._fresh, fold._add
        groups: dict[tuple[Any, int], list[Any]] = {}
        first: list[int] = []
        for i, change in enumerate(values):
            row = change[1]
            time = row[column]
            if time is None:
                continue
            group = (tuple([k(row) for k in keys]), slice_end(to_epoch_millis(time, root)))
            held = groups.get(group)
            if held is None:
                held = groups[group] = [0, fresh()]
                first.append(i)
            held[0] += 1
            add(held[1], row)
        return [(INSERT, (key, end, held[0], held[1])) for (key, end), held in groups.items()], first


class _WindowFunctionBase(KeyedProcessFunction):
    def __init__(self, spec: WindowSpec, column: int, root: str, calls: CallSpecs) -> None:
        self.spec, self.column, self.root = spec, column, root
        self.calls = calls

    def open(self, runtime_context: Any) -> None:
        self.accumulators = [
            f if not isinstance(f, str) else accumulator_for(f, t, False) for f, _, t in self.calls
        ]
        self.arguments = [fn for _, fn, _ in self.calls]
        self._bounds: dict[tuple[int, int], tuple[Any, ...]] = {}  # (start, end) -> window columns

    def _add(self, accs: list[Any], row: tuple[Any, ...]) -> None:
        for i, (acc, argument) in enumerate(zip(self.accumulators, self.arguments, strict=True)):
            accs[i] = acc.add(accs[i], argument(row))

    def _merge(self, accs: list[Any], other: list[Any]) -> None:
        for i, acc in enumerate(self.accumulators):
            accs[i] = acc.merge(accs[i], other[i])

    def _fresh(self) -> list[Any]:
        return [a.create() for a in self.accumulators]

    def _row(
        self, key: tuple[Any, ...], accs: list[Any], start: int, end: int
    ) -> tuple[str, tuple[Any, ...]]:
        results = tuple([a.result(acc) for a, acc in zip(self.accumulators, accs, strict=True)])
        bounds = self._bounds.get((start, end))
        if bounds is None:  # every key's window fired by one watermark has the same bounds
            if len(self._bounds) > 1024:
                self._bounds.clear()
            root = self.root
            bounds = self._bounds[(start, end)] = (
                from_epoch_millis(start, root),
                from_epoch_millis(end, root),
                from_epoch_millis(end - 1, root),
            )
        return (INSERT, tuple(key) + results + bounds)


class SlicingAggregate(_WindowFunctionBase):
    """TUMBLE, HOP and CUMULATE aggregation over slices (Flink's SlicingWindowOperator);
    ``partial``: its input is the local phase's ``(key, slice end, rows, accumulators)``."""

    def __init__(
        self, spec: WindowSpec, column: int, root: str, calls: CallSpecs, partial: bool = False
    ) -> None:
        super().__init__(spec, column, root, calls)
        self.partial = partial

    def open(self, runtime_context: Any) -> None:
        super().open(runtime_context)
        self.slices = runtime_context.get_map_state(MapStateDescriptor("slices", None, None))

    def process_element(self, value: Any, ctx: Any) -> Any:
        row = value[1]
        spec = self.spec
        if self.partial:
            slice_end = row[1]
        else:
            time = row[self.column]
            if time is None:
                return None
            slice_end = spec.slice_end(to_epoch_millis(time, self.root))
        ends = spec.window_ends(slice_end)
        watermark = ctx.timer_service().current_watermark()
        if not ends or ends[-1] - 1 <= watermark:
            return None  # in no window (hops wider than windows), or late: its windows have fired
        held = self.slices.get(slice_end)
        if held is None:
            held = [0, self._fresh()]
        if self.partial:
            held[0] += row[2]
            self._merge(held[1], row[3])
        else:
            held[0] += 1
            self._add(held[1], row)
        self.slices.put(slice_end, held)
        timers = ctx.timer_service()
        for end in ends:
            if end - 1 > watermark:
                timers.register_event_time_timer(end - 1)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        spec = self.spec
        end = timestamp + 1
        start = spec.window_start(end)
        size = spec.slice_size
        count, accs = 0, None
        for slice_end in range(start + size, end + 1, size):
            held = self.slices.get(slice_end)
            if held is None:
                continue
            if accs is None:
                accs = self._fresh()
            count += held[0]
            self._merge(accs, held[1])
        self._expire(start, end)
        if not count or accs is None:
            return None
        return [self._row(ctx.get_current_key(), accs, start, end)]

    def _expire(self, start: int, end: int) -> None:
        """Drop the slices no later window needs."""
        spec = self.spec
        size = spec.slice_size
        if spec.kind == "TUMBLE":
            self.slices.remove(end)
            return
        if spec.kind == "HOP":
            next_start = start + spec.slide
            for slice_end in range(start + size, next_start + 1, size):
                self.slices.remove(slice_end)
            return
        if end == start + spec.size:  # the last cumulating window of this range
            for slice_end in range(start + size, end + 1, size):
                self.slices.remove(slice_end)


class ProcessingTimeSlices(SlicingAggregate):
    """TUMBLE, HOP and CUMULATE over a processing-time attribute (Flink's slicing window
    operator on processing time): a row goes to the slice of the operator's clock when it
    arrives, windows fire on processing-time timers, none is ever late. A window fires only
    when the clock reaches its end while the job runs: when a bounded input ends, the windows
    still open are not emitted, as Flink's task drops the processing-time timers it has not
    fired when it finishes (PyFlink 2.3.0 counted 0 of 60 rows in 10-second windows over a
    datagen source of 1.5 seconds; official Nexmark q12 counts 26,379 of 92,000 bids)."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        row = value[1]
        timers = ctx.timer_service()
        spec = self.spec
        slice_end = spec.slice_end(timers.current_processing_time())
        held = self.slices.get(slice_end)
        if held is None:
            held = [0, self._fresh()]
        held[0] += 1
        self._add(held[1], row)
        self.slices.put(slice_end, held)
        for end in spec.window_ends(slice_end):
            timers.register_processing_time_timer(end - 1)
        return None


class AttachedWindowAggregate(KeyedProcessFunction):
    """Aggregation per group of a GROUP BY that has the input's window_start and window_end
    among its keys (the window is attached to the rows): each group is emitted once, when the
    watermark passes its window's end; rows of a window already emitted are late (dropped)."""

    def __init__(self, calls: CallSpecs, end_key: int, root: str) -> None:
        self.calls, self.end_key, self.root = calls, end_key, root

    def open(self, runtime_context: Any) -> None:
        self.accumulators = [
            f if not isinstance(f, str) else accumulator_for(f, t, False) for f, _, t in self.calls
        ]
        self.arguments = [fn for _, fn, _ in self.calls]
        self._bounds: dict[tuple[int, int], tuple[Any, ...]] = {}  # (start, end) -> window columns
        self.state = runtime_context.get_state(ValueStateDescriptor("window-group", None))

    def process_element(self, value: Any, ctx: Any) -> Any:
        end = ctx.get_current_key()[self.end_key]
        if end is None:
            return None
        fire = to_epoch_millis(end, self.root) - 1
        timers = ctx.timer_service()
        if fire <= timers.current_watermark():
            return None  # its window has been emitted: late
        held = self.state.value()
        if held is None:
            held = [a.create() for a in self.accumulators]
            timers.register_event_time_timer(fire)
        row = value[1]
        for i, (acc, argument) in enumerate(zip(self.accumulators, self.arguments, strict=True)):
            held[i] = acc.add(held[i], argument(row))
        self.state.update(held)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        held = self.state.value()
        self.state.clear()
        if held is None:
            return None
        results = tuple(a.result(acc) for a, acc in zip(self.accumulators, held, strict=True))
        return [(INSERT, tuple(ctx.get_current_key()) + results)]


class SessionAggregate(_WindowFunctionBase):
    """SESSION windows of each key: sessions [start, end) merge when they touch."""

    def open(self, runtime_context: Any) -> None:
        super().open(runtime_context)
        self.sessions = runtime_context.get_state(ValueStateDescriptor("sessions", None))

    def process_element(self, value: Any, ctx: Any) -> Any:
        row = value[1]
        time = row[self.column]
        if time is None:
            return None
        ts = to_epoch_millis(time, self.root)
        start, end = ts, ts + self.spec.size
        sessions: list[list[Any]] = self.sessions.value() or []
        touching = [s for s in sessions if s[0] <= end and s[1] >= start]
        merged_start = min([start, *(s[0] for s in touching)])
        merged_end = max([end, *(s[1] for s in touching)])
        timers = ctx.timer_service()
        if merged_end - 1 <= timers.current_watermark():
            return None  # late
        accs = self._fresh()
        count = 0
        for session in sorted(touching, key=lambda s: s[0]):
            self._merge(accs, session[3])
            count += session[2]
            if session[1] != merged_end:
                timers.delete_event_time_timer(session[1] - 1)
        self._add(accs, row)
        kept = [s for s in sessions if not any(s is t for t in touching)]
        kept.append([merged_start, merged_end, count + 1, accs])
        kept.sort(key=lambda s: s[0])
        self.sessions.update(kept)
        timers.register_event_time_timer(merged_end - 1)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        sessions: list[list[Any]] = self.sessions.value() or []
        fired = [s for s in sessions if s[1] - 1 == timestamp]
        if not fired:
            return None
        rest = [s for s in sessions if s[1] - 1 != timestamp]
        if rest:
            self.sessions.update(rest)
        else:
            self.sessions.clear()
        key = ctx.get_current_key()
        return [self._row(key, s[3], s[0], s[1]) for s in fired]


class AssignWindows(ProcessFunction):
    """Each row once per window of ``spec`` it belongs to, with window_start, window_end and
    window_time appended; rows of windows the watermark has passed are dropped (late)."""

    def __init__(self, spec: WindowSpec, column: int, root: str) -> None:
        self.spec, self.column, self.root = spec, column, root

    def process_element(self, value: Any, ctx: Any) -> Any:
        kind, row = value
        time = row[self.column]
        if time is None:
            return None
        watermark = ctx.timer_service().current_watermark()
        out = []
        root = self.root
        for start, end in self.spec.windows_of(to_epoch_millis(time, root)):
            if end - 1 <= watermark:
                continue
            bounds = (
                from_epoch_millis(start, root),
                from_epoch_millis(end, root),
                from_epoch_millis(end - 1, root),
            )
            out.append((kind, row + bounds))
        return out
