"""ProcessFunction and KeyedProcessFunction operators, with timers and side outputs.

A process function returns (or yields) its outputs; ``yield tag, value`` sends ``value``
to side output ``tag``. Outputs keep the timestamp of the element being processed; the
outputs of an event-time timer carry the timer's timestamp, those of a processing-time
timer none (Flink's TimestampedCollector).

``KeyedProcessOperator``: before each element the element's key becomes the current key
of the keyed state backend; ``ctx.timer_service()`` registers timers of that key
(deduplicated per key and time); ``on_timer(timestamp, ctx)`` runs with the timer's key.

Key groups (internal, the Table API's mini-batch aggregation and Python UDAFs): a function
whose ``key_group_size`` is positive gets its input as bundles, as Flink's
``KeyedMapBundleOperator`` does: elements are held until ``key_group_size`` of them are in
or ``key_group_latency_ms`` passed since the first (STREAMING; BATCH: each input batch is a
bundle), and before every watermark, checkpoint snapshot and the end of input; then each
bundle's elements are grouped by key (keys in order of first appearance, each key's
elements in order) and ``process_key_group(values, ctx)`` is called once per key: state is
read and written once per key and bundle, and the function emits once per key. Held
elements are not in any snapshot: the flush before it puts their effect in the state.
A function whose ``groups_each_batch`` is true (the SQL regular join) gets each batch that
arrives grouped by key the same way, nothing held: its output is what calling
``process_element`` per element gives, each key's elements taken in order.
"""

from __future__ import annotations

from typing import Any

from millstream.common.hashable_keys import hashable_key
from millstream.common.time import TimeDomain
from millstream.graph.transformations import SideOutputTag
from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.base import Emit, OperatorContext, StreamOperator
from millstream.runtime.operators.elements import MIN_TIMESTAMP, Watermark
from millstream.runtime.operators.timer_service import InternalTimerService
from millstream.runtime.state.heap import VOID_NAMESPACE

__all__ = [
    "KeyedProcessOperator",
    "OutputCollector",
    "ProcessContext",
    "ProcessOperator",
    "TimerServiceView",
    "process_each",
]


class OutputCollector:
    """Gathers a function's results (main and side outputs) into batches, then emits them."""

    __slots__ = ("_main", "_main_ts", "_output", "_side", "_side_outputs")

    def __init__(self, output: Emit, side_outputs: dict[str, Emit]) -> None:
        self._output = output
        self._side_outputs = side_outputs
        self._main: list[Any] = []
        self._main_ts: list[Any] = []
        self._side: dict[str, tuple[list[Any], list[Any]]] = {}

    def collect(self, result: Any, timestamp: int | None) -> None:
        """Every item of ``result`` (an iterable or None) with ``timestamp``."""
        if result is None:
            return
        main = self._main
        main_ts = self._main_ts
        for item in result:
            if type(item) is tuple and len(item) == 2 and isinstance(item[0], SideOutputTag):
                entry = self._side.get(item[0].tag_id)
                if entry is None:
                    entry = self._side[item[0].tag_id] = ([], [])
                entry[0].append(item[1])
                entry[1].append(timestamp)
            else:
                main.append(item)
                main_ts.append(timestamp)

    def flush(self) -> None:
        """Emit what was collected (batches without timestamps where none had one)."""
        if self._main:
            values, timestamps = self._main, self._main_ts
            self._main, self._main_ts = [], []
            self._output(values, _timestamps_or_none(timestamps))
        if self._side:
            side, self._side = self._side, {}
            for tag_id, (values, timestamps) in side.items():
                emit = self._side_outputs.get(tag_id)
                if emit is not None:
                    emit(values, _timestamps_or_none(timestamps))


def _timestamps_or_none(timestamps: list[Any]) -> list[int] | None:
    if timestamps[0] is None and timestamps[-1] is None and all(t is None for t in timestamps):
        return None
    if any(t is None for t in timestamps):
        # Mixed: records without a timestamp get Long.MIN_VALUE, as Flink's StreamRecord.
        return [MIN_TIMESTAMP if t is None else t for t in timestamps]
    return timestamps


class TimerServiceView:
    """``TimerService`` as process functions see it (PyFlink's method names)."""

    __slots__ = ("_operator", "_timers")

    def __init__(self, operator: StreamOperator, timers: InternalTimerService | None) -> None:
        self._operator = operator
        self._timers = timers

    def current_processing_time(self) -> int:
        """Now, epoch ms."""
        return self._operator.context.processing_time_service.current_processing_time()

    def current_watermark(self) -> int:
        """The operator's current event-time watermark."""
        return self._operator.current_watermark

    def _keyed(self) -> InternalTimerService:
        if self._timers is None:
            raise UnsupportedOperationError("Setting timers is only supported on a keyed streams.")
        return self._timers

    def register_event_time_timer(self, timestamp: int) -> None:
        """``on_timer`` when the watermark passes ``timestamp`` (once per key and time)."""
        self._keyed().register_event_time_timer(VOID_NAMESPACE, timestamp)

    def register_processing_time_timer(self, timestamp: int) -> None:
        """``on_timer`` when the wall clock reaches ``timestamp`` (once per key and time)."""
        self._keyed().register_processing_time_timer(VOID_NAMESPACE, timestamp)

    def delete_event_time_timer(self, timestamp: int) -> None:
        """Delete an event-time timer of the current key."""
        self._keyed().delete_event_time_timer(VOID_NAMESPACE, timestamp)

    def delete_processing_time_timer(self, timestamp: int) -> None:
        """Delete a processing-time timer of the current key."""
        self._keyed().delete_processing_time_timer(VOID_NAMESPACE, timestamp)


class UnsupportedOperationError(RuntimeError):
    """Timers on a non-keyed stream (Flink's UnsupportedOperationException)."""


class ProcessContext:
    """``(Keyed)ProcessFunction.Context`` and ``OnTimerContext``."""

    __slots__ = ("_domain", "_key", "_timer_service", "_timestamp")

    def __init__(self, timer_service: TimerServiceView) -> None:
        self._timestamp: int | None = None
        self._key: Any = None
        self._domain: TimeDomain | None = None
        self._timer_service = timer_service

    def timestamp(self) -> int | None:
        """Timestamp of the current element (or the firing timer), or None."""
        return self._timestamp

    def get_current_key(self) -> Any:
        """Key of the current element or timer (keyed streams)."""
        return self._key

    def timer_service(self) -> TimerServiceView:
        """Timers and the current watermark / processing time."""
        return self._timer_service

    def time_domain(self) -> TimeDomain | None:
        """EVENT_TIME or PROCESSING_TIME: the domain of the firing timer (``on_timer`` only)."""
        return self._domain


class ProcessOperator(StreamOperator):
    """Runs a ProcessFunction (or a KeyedProcessFunction's ``process_element``) per element."""

    def __init__(
        self,
        context: OperatorContext,
        fn: Any,
        lifecycle: Any,
        output: Emit,
        side_outputs: dict[str, Emit],
    ) -> None:
        super().__init__(context, lifecycle)
        self._fn = fn
        self._collector = OutputCollector(output, side_outputs)
        self._ctx = ProcessContext(TimerServiceView(self, self.timer_service))

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Call the function per element, routing yielded side outputs by tag."""
        self._run(values, timestamps, self._fn, self._ctx)

    def _run(self, values: list[Any], timestamps: list[int] | None, fn: Any, ctx: Any) -> None:
        process_each(self, self._collector, values, timestamps, fn, ctx)


def process_each(
    operator: StreamOperator,
    collector: OutputCollector,
    values: list[Any],
    timestamps: list[int] | None,
    fn: Any,
    ctx: Any,
) -> None:
    """``fn(value, ctx)`` per element (no current key), outputs through ``collector``."""
    collect = collector.collect
    index = 0
    try:
        for index, v in enumerate(values):
            ts = None if timestamps is None else timestamps[index]
            ctx._timestamp = ts
            collect(fn(v, ctx), ts)
    except Exception as err:
        collector.flush()
        raise operator.error(index, values) from err
    operator.records_in += len(values)
    collector.flush()


class KeyedProcessOperator(StreamOperator):
    """Runs a KeyedProcessFunction: keyed state, timers, ``on_timer``."""

    def __init__(
        self,
        context: OperatorContext,
        fn: Any,
        lifecycle: Any,
        output: Emit,
        side_outputs: dict[str, Emit],
        key_selector: Any,
    ) -> None:
        super().__init__(context, lifecycle)
        self._fn = fn
        self._function = lifecycle
        self._key_selector = key_selector
        self._collector = OutputCollector(output, side_outputs)
        self.create_keyed_backend(key_selector)
        timers = self.create_timer_service(self)
        self._ctx = ProcessContext(TimerServiceView(self, timers))
        self._timer_ctx = self._ctx
        self._on_timer = getattr(lifecycle, "on_timer", None)
        self._group_size = int(getattr(lifecycle, "key_group_size", 0) or 0)
        self._group_latency_ms = int(getattr(lifecycle, "key_group_latency_ms", 0) or 0)
        self._each_batch = bool(getattr(lifecycle, "groups_each_batch", False))
        self.vectorized = self._group_size > 0 or self._each_batch  # whole bundles (bundles.py)
        self._held: list[Any] = []  # a bundle being filled (key groups, STREAMING)
        self._held_ts: list[int | None] = []
        self._held_timer: Any = None

    def process_batch(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Set the key, call ``process_element`` per element (or hold the elements for a
        bundle of ``process_key_group`` calls)."""
        if self._each_batch:
            self._run_key_groups(values, timestamps, len(values))
        elif self._group_size <= 0:
            self._run(values, timestamps, self._fn, self._key_selector, self._ctx)
        elif self.context.batch:
            self._run_key_groups(values, timestamps, self._group_size)
        else:
            self._held.extend(values)
            self._held_ts.extend(timestamps if timestamps is not None else [None] * len(values))
            held = len(self._held)
            if held >= self._group_size:  # full bundles go now; the rest starts the next one
                self.flush_bundle(held - held % self._group_size)
            if self._held and self._held_timer is None and self._group_latency_ms > 0:
                service = self.context.processing_time_service
                due = service.current_processing_time() + self._group_latency_ms
                self._held_timer = service.register_timer(due, self._bundle_due)

    def _bundle_due(self, timestamp: int) -> None:
        self._held_timer = None
        self.flush_bundle()

    def flush_bundle(self, count: int | None = None) -> None:
        """Process the held elements now (the first ``count`` of them: whole bundles)."""
        timer, self._held_timer = self._held_timer, None
        if timer is not None:
            timer.cancel()
        if not self._held:
            return
        count = len(self._held) if count is None else count
        values, stamps = self._held[:count], self._held_ts[:count]
        self._held, self._held_ts = self._held[count:], self._held_ts[count:]
        timestamps = None if all(t is None for t in stamps) else stamps
        self._run_key_groups(values, timestamps, self._group_size)  # type: ignore[arg-type]

    def _run_key_groups(self, values: list[Any], timestamps: list[int] | None, size: int) -> None:
        set_key = self.keyed_backend.set_current_key  # type: ignore[union-attr]
        collect = self._collector.collect
        process_group = self._function.process_key_group
        key_selector = self._key_selector
        ctx = self._ctx
        first = 0
        try:
            for start in range(0, len(values), max(1, size)):
                groups: dict[Any, list[int]] = {}
                for index in range(start, min(start + size, len(values))):
                    first = index
                    key = key_selector(values[index])
                    try:
                        members = groups.get(key)
                    except TypeError:  # an unhashable key (a list ...): its hashable form
                        key = hashable_key(key)
                        members = groups.get(key)
                    if members is None:
                        groups[key] = [index]
                    else:
                        members.append(index)
                for key, members in groups.items():
                    first = members[0]
                    ts = None if timestamps is None else timestamps[members[-1]]
                    set_key(key)
                    ctx._key = key
                    ctx._timestamp = ts
                    collect(process_group([values[i] for i in members], ctx), ts)
        except Exception as err:
            self._collector.flush()
            raise self.error(first, values) from err
        self.records_in += len(values)
        self._collector.flush()

    def _run(
        self, values: list[Any], timestamps: list[int] | None, fn: Any, key_selector: Any, ctx: Any
    ) -> None:
        set_key = self.keyed_backend.set_current_key  # type: ignore[union-attr]
        collect = self._collector.collect
        index = 0
        try:
            for index, v in enumerate(values):
                ts = None if timestamps is None else timestamps[index]
                key = key_selector(v)
                set_key(key)
                ctx._key = key
                ctx._timestamp = ts
                collect(fn(v, ctx), ts)
        except Exception as err:
            self._collector.flush()
            raise self.error(index, values) from err
        self.records_in += len(values)
        self._collector.flush()

    def _fire(self, timestamp: int, key: Any, domain: TimeDomain) -> None:
        if self._on_timer is None:
            return
        ctx = self._timer_ctx
        ctx._key = key
        ctx._timestamp = timestamp if domain is TimeDomain.EVENT_TIME else None
        ctx._domain = domain
        try:
            self._collector.collect(self._on_timer(timestamp, ctx), ctx._timestamp)
        except Exception as err:
            self._collector.flush()
            raise UserFunctionError(
                self.name,
                self.context.location,
                None,
                message=f"on_timer({timestamp}) for key {key!r} raised",
            ) from err
        finally:
            ctx._domain = None

    def process_watermark(self, watermark: Watermark) -> None:
        """Fire due event-time timers, emit their outputs, then forward the watermark."""
        self.flush_bundle()
        self.current_watermark = watermark.timestamp
        self.timer_service.advance_watermark(watermark.timestamp)  # type: ignore[union-attr]
        self._collector.flush()
        self.emit_watermark(watermark)

    def snapshot_state(self, checkpoint_id: int, timestamp: int = 0, canonical: bool = True) -> Any:
        """Held elements first go into the state (their outputs ahead of the barrier)."""
        self.flush_bundle()
        return super().snapshot_state(checkpoint_id, timestamp, canonical)

    def finish(self) -> None:
        """End of input: the held elements are processed."""
        self.flush_bundle()
        super().finish()

    def on_event_time(self, timestamp: int, key: Any, namespace: Any) -> None:
        """An event-time timer fired (outputs are emitted before the watermark)."""
        self._fire(timestamp, key, TimeDomain.EVENT_TIME)

    def on_processing_time(self, timestamp: int, key: Any, namespace: Any) -> None:
        """A processing-time timer fired."""
        self._fire(timestamp, key, TimeDomain.PROCESSING_TIME)
        self._collector.flush()
