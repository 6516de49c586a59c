"""Event time in tables: the watermark assigner, window table functions (TUMBLE, HOP,
CUMULATE, SESSION) and window aggregation, as plan nodes and the operators they run.

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

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from millstream.datastream import KeyedProcessFunction, ProcessFunction
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from millstream.table.aggregates import accumulator_for
from millstream.table.binary_row import BinaryRowKeyType
from millstream.table.planner import END_OF_INPUT, INSERT, PlanNode
from millstream.table.table_options import AGG_PHASE_STRATEGY, option_value
from millstream.table.timestamps import from_epoch_millis, to_epoch_millis
from millstream.table.types import DataType

# a window aggregation's calls: (built-in name or AggregateFunction, argument of a row, result type)
CallSpecs = list[tuple[Any, Callable[[tuple[Any, ...]], Any], DataType]]

__all__ = ["WatermarkAssigner", "WindowAggregate", "WindowSpec", "WindowTVF", "window_time_type"]

_MIN_WATERMARK = -(2**63)


@dataclass(frozen=True)
class WindowSpec:
    """A window definition: TUMBLE(size), HOP(slide, size), CUMULATE(step, size) or SESSION(gap);
    sizes in ms."""

    kind: str
    size: int
    slide: int = 0  # HOP: the slide; CUMULATE: the step
    offset: int = 0

    def __post_init__(self) -> None:
        if self.size <= 0 or (self.kind in ("HOP", "CUMULATE") and self.slide <= 0):
            raise ValueError(
                f"{self.kind} window needs positive sizes, got size={self.size} slide={self.slide}"
            )
        if self.kind == "CUMULATE" and self.size % self.slide:
            raise ValueError("CUMULATE's max size must be a multiple of its step")

    @property
    def slice_size(self) -> int:
        """The length of the slices windows are made of."""
        if self.kind == "HOP":
            return math.gcd(self.size, self.slide)
        if self.kind == "CUMULATE":
            return self.slide
        return self.size

    def slice_end(self, ts: int) -> int:
        """The end of the slice holding time ``ts``."""
        size = self.slice_size
        start = ts - (ts - self.offset) % size
        return start + size

    def window_ends(self, slice_end: int) -> list[int]:
        """The ends of the windows the slice ending at ``slice_end`` belongs to, ascending."""
        if self.kind == "TUMBLE":
            return [slice_end]
        if self.kind == "HOP":  # windows start at multiples of the slide (plus the offset)
            slice_start = slice_end - self.slice_size
            lowest = slice_end - self.size
            first_start = lowest + (self.offset - lowest) % self.slide
            return [s + self.size for s in range(first_start, slice_start + 1, self.slide)]
        window_start = (slice_end - 1) - ((slice_end - 1 - self.offset) % self.size)
        return list(range(slice_end, window_start + self.size + 1, self.slide))

    def window_start(self, window_end: int) -> int:
        """The start of the window ending at ``window_end``."""
        if self.kind == "CUMULATE":
            return (window_end - 1) - ((window_end - 1 - self.offset) % self.size)
        return window_end - self.size

    def windows_of(self, ts: int) -> list[tuple[int, int]]:
        """The (start, end) windows a row at ``ts`` is assigned to (the windowing TVF)."""
        if self.kind == "TUMBLE":
            start = ts - (ts - self.offset) % self.size
            return [(start, start + self.size)]
        if self.kind == "HOP":
            last_start = ts - (ts - self.offset) % self.slide
            starts = range(last_start, ts - self.size, -self.slide)
            return [(s, s + self.size) for s in reversed(list(starts))]
        start = ts - (ts - self.offset) % self.size
        first_end = self.slice_end(ts)
        return [(start, end) for end in range(first_end, start + self.size + 1, self.slide)]


def window_time_type(rowtime_type: DataType) -> DataType:
    """The type of window_start / window_end / window_time: the rowtime's kind, precision 3."""
    root = "TIMESTAMP_LTZ" if rowtime_type.root == "TIMESTAMP_LTZ" else "TIMESTAMP"
    return DataType(root, False, 3)


# -- watermarks ------------------------------------------------------------------------------------------


@dataclass
class WatermarkAssigner(PlanNode):
    """Event-time timestamps and watermarks of a table (its rowtime column ``rowtime``)."""

    input: PlanNode | None = None
    watermark: Callable[[tuple[Any, ...]], Any] | None = None  # the watermark expression
    watermark_sql: str = ""
    delay_ms: int | None = None  # the expression is ``rowtime - INTERVAL delay`` (None: another one)
    compiled: ClassVar[dict[str, str]] = {"watermark": "watermark_sql"}

    pushed_down: bool = False  # the source generates the watermarks (per partition) itself

    def translate(self, env: Any) -> Any:
        assert self.input is not None
        if self.pushed_down:
            return self.input.translate(env)
        from millstream.table.planner import columnar_scan

        scanned = columnar_scan(self, env)
        if scanned is not None:
            return scanned
        return self.input.translate(env).assign_timestamps_and_watermarks(self.strategy(env))

    def strategy(self, env: Any, row_of: Callable[[tuple[Any, ...]], tuple[Any, ...]] | None = None) -> Any:
        """The WatermarkStrategy of the expression; ``row_of``: the source's row -> this
        node's row (the computed columns), for a strategy pushed into the source."""
        from millstream.common import WatermarkStrategy

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
            lambda context: _ExpressionWatermarks(expression, root, interval, self.delay_ms)
        ).with_timestamp_assigner(_Assigner(timestamp_of))


class _Assigner:
    def __init__(self, fn: Callable[[Any, int], int]) -> None:
        self.extract_timestamp = fn


class _ExpressionWatermarks:
    """Watermark = the largest value of the watermark expression over the rows seen, starting
    from 0 (so no negative watermark is emitted); emitted periodically, and at once when it ran
    more than the interval ahead of the last one emitted, as Flink's ``WatermarkAssignerOperator``
    (``currentWatermark - lastWatermark > interval``). ``bounded_delay_ms``: the watermark is the
    largest rowtime seen minus this delay (None: the expression is not of that form), which lets
    a runtime with its own watermark (Spark's ``withWatermark``) express it."""

    def __init__(
        self,
        expression: Callable[[tuple[Any, ...]], Any],
        root: str,
        interval: int,
        bounded_delay_ms: int | None = None,
    ) -> None:
        self.expression, self.root, self.interval = expression, root, interval
        self.bounded_delay_ms = bounded_delay_ms
        self.current = self.emitted = 0

    def on_event(self, event: Any, event_timestamp: int, output: Any) -> None:
        value = self.expression(event[1])
        if value is not None:
            millis = to_epoch_millis(value, self.root)
            if millis > self.current:
                self.current = millis
        if self.current - self.emitted > self.interval:
            self.emitted = self.current
            output.emit_watermark(self.current)

    def on_marks(self, values: list[int], output: Any) -> None:
        """The watermark expression's values (epoch millis) of rows a columnar scan read; the
        scan cuts its output where ``on_event`` would have emitted inline, so this emits at
        the same places."""
        largest = max(values, default=self.current)
        if largest > self.current:
            self.current = largest
        if self.current - self.emitted > self.interval:
            self.emitted = self.current
            output.emit_watermark(self.current)

    def on_periodic_emit(self, output: Any) -> None:
        if self.current > self.emitted:
            self.emitted = self.current
            output.emit_watermark(self.current)


# -- the windowing table functions ------------------------------------------------------------------------


@dataclass
class WindowTVF(PlanNode):
    """``TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size))`` and its kin without an aggregation:
    each row once per window it belongs to, with window_start, window_end and window_time
    appended; rows of windows the watermark has passed are dropped (late)."""

    input: PlanNode | None = None
    spec: WindowSpec | None = None
    time_column: int = 0

    def translate(self, env: Any) -> Any:
        assert self.input is not None and self.spec is not None
        if self.spec.kind == "SESSION":
            raise ValueError("a SESSION window table function must be followed by a window aggregation")
        root = self.input.types[self.time_column].root
        return self.input.translate(env).process(_AssignWindows(self.spec, self.time_column, root))


class _AssignWindows(ProcessFunction):
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


# -- window aggregation ---------------------------------------------------------------------------------


@dataclass
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

    def translate(self, env: Any) -> Any:
        assert self.input is not None and self.spec is not None
        if self.input.updating:
            raise ValueError(
                "a window aggregation needs an insert-only input; this one produces updates and deletions"
            )
        keys = self.keys
        root = self.input.types[self.time_column].root
        key_type = BinaryRowKeyType.of(self.types[: len(keys)])  # the subtask Flink's would pick
        arrow = self._arrow_local_phase(env)
        if arrow is not None:  # the local phase folds the scan's Arrow batches (arrow_window.py)
            return arrow.key_by(_partial_key, key_type).process(
                _SlicingAggregate(self.spec, self.time_column, root, self.calls, partial=True)
            )
        stream = self.input.translate(env)
        if self.processing_time:
            if self.spec.kind == "SESSION":
                raise ValueError("SESSION windows over a processing-time attribute are not supported yet")
            clocked = _ProcessingTimeSlices(self.spec, self.time_column, root, self.calls)
            return stream.key_by(lambda kv: tuple([k(kv[1]) for k in keys]), key_type).process(clocked)
        if self.in_two_phases(env):
            # Flink's local-global window aggregation: each subtask folds its batch into
            # per-(key, slice) accumulators, the keyed operator merges them
            local = _LocalSlices(self.spec, self.time_column, root, self.calls, keys)
            return (
                stream._map_batches(local)
                .key_by(_partial_key, key_type)
                .process(_SlicingAggregate(self.spec, self.time_column, root, self.calls, partial=True))
            )
        if self.spec.kind == "SESSION":
            function: KeyedProcessFunction = _SessionAggregate(self.spec, self.time_column, root, self.calls)
        else:
            function = _SlicingAggregate(self.spec, self.time_column, root, self.calls)
        return stream.key_by(lambda kv: tuple([k(kv[1]) for k in keys]), key_type).process(function)

    def in_two_phases(self, env: Any) -> bool:
        """Whether this aggregation runs as a local and a global phase on ``env`` (a planning
        environment or a TableConfig): the translation and ``explain`` ask the same question."""
        return (
            not self.processing_time
            and self.spec is not None
            and self.spec.kind != "SESSION"
            and two_phase(env, self.calls)
        )

    def _arrow_local_phase(self, env: Any) -> Any:
        """The partials of the local phase on the input scan's Arrow batches, or None (one
        phase, processing time, no columnar scan below, or a part Arrow does not compute as the
        row path)."""
        from millstream.table.arrow_window import arrow_local_phase
        from millstream.table.planner import columnar_batches, columnar_enabled

        if not columnar_enabled(env) or not self.in_two_phases(env):
            return None
        assert self.input is not None
        local = arrow_local_phase(self)
        reuse = getattr(env, "_plan_reuse", None)
        # a part of the input chain that also feeds another consumer takes rows: both then
        # take them from one scan (reading the file once matters more than folding on Arrow)
        if local is None or (reuse is not None and reuse.chain_shared(self.input)):
            return None
        batches = columnar_batches(self.input, env)
        return None if batches is None else batches._map_batches(local).name("LocalWindowAggregate")


def two_phase(env: Any, calls: CallSpecs) -> bool:
    """Whether a window aggregation runs in two phases: ``table.optimizer.agg-phase-strategy``
    AUTO (the default) or TWO_PHASE, and every aggregate a built-in one (their accumulators
    merge; a Python UDAF's ``merge`` is optional)."""
    if option_value(env, AGG_PHASE_STRATEGY) == "ONE_PHASE":
        return False
    return all(isinstance(f, str) for f, _, _ in calls)


def _partial_key(change: tuple[str, tuple[Any, ...]]) -> Any:
    return change[1][0]


class _LocalSlices:
    """The local phase (Flink's ``LocalSlicingWindowAggOperator``): a batch of rows folded into
    one ``(key, slice end, rows, accumulators)`` partial per key and slice. A batch holds no
    watermark, so every row of a partial meets the same watermark downstream as it would have
    alone (the same rows are late); nothing is kept between batches."""

    def __init__(
        self, spec: WindowSpec, column: int, root: str, calls: CallSpecs, keys: list[Callable[..., Any]]
    ) -> None:
        self.fold = _SlicingAggregate(spec, column, root, calls)  # its accumulators, no state
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


def window_output_columns(rowtime_type: DataType) -> tuple[list[str], list[DataType]]:
    """window_start, window_end, window_time and their types."""
    t = window_time_type(rowtime_type)
    return ["window_start", "window_end", "window_time"], [t, t, t]


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


class _SlicingAggregate(_WindowFunctionBase):
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


class _ProcessingTimeSlices(_SlicingAggregate):
    """TUMBLE, HOP and CUMULATE over a processing-time attribute (Flink's slicing window
    operator on processing time): a row goes to the slice of the operator's clock when it
    arrives, windows fire on processing-time timers, none is ever late. When a bounded input
    ends, the windows still open are emitted: PyFlink 2.3 counted all 60 rows of a 3-second
    datagen source in 1-second windows, the last window included."""

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
        timers.register_event_time_timer(END_OF_INPUT)  # the final watermark: flush (see below)
        return None

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        from millstream.datastream import TimeDomain

        if ctx.time_domain() != TimeDomain.EVENT_TIME:
            return super().on_timer(timestamp, ctx)
        # the input ended (only the final watermark reaches an event-time timer here): every
        # window still holding rows is emitted, as Flink's window operator does at the end
        # of a bounded input, in the order their timers would have fired
        timers = ctx.timer_service()
        held = list(self.slices.keys())  # a MapState
        ends = sorted({end for slice_end in held for end in self.spec.window_ends(slice_end)})
        out: list[Any] = []
        for end in ends:
            timers.delete_processing_time_timer(end - 1)
            out.extend(super().on_timer(end - 1, ctx) or [])
        return out


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


class _SessionAggregate(_WindowFunctionBase):
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
    from millstream.table.planner import (
        aggregate_calls,
        distinct_calls,
        expr_names,
        grouped_expression,
        project,
    )

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
    call_specs, slot_names, slot_types = aggregate_calls(node, selected)
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
