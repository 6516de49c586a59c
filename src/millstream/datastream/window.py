"""Windows, window assigners, triggers and evictors, as ``pyflink.datastream.window``.

These are pure logic: an assigner maps an element to windows, a trigger answers
``TriggerResult``s and uses its context for timers and per-window state, an evictor
removes elements from a window's buffer. The runtime's WindowOperator drives them.
Semantics follow Flink: windows are ``[start, end)`` with ``max_timestamp() = end - 1``;
window starts are aligned to the epoch plus the offset; session windows that touch
are merged; ``count_window`` behaves as PyFlink's (see ``CountSlidingWindowAssigner``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any, Generic, TypeVar

from millstream.common.time import MAX_TIMESTAMP, MIN_TIMESTAMP, Time, TimestampedValue
from millstream.datastream.state import ReducingStateDescriptor, ValueStateDescriptor

__all__ = [
    "ContinuousEventTimeTrigger",
    "ContinuousProcessingTimeTrigger",
    "CountEvictor",
    "CountSlidingWindowAssigner",
    "CountTrigger",
    "CountTumblingWindowAssigner",
    "CountWindow",
    "DeltaEvictor",
    "DynamicEventTimeSessionWindows",
    "DynamicProcessingTimeSessionWindows",
    "EventTimeSessionWindows",
    "EventTimeTrigger",
    "Evictor",
    "GlobalWindow",
    "GlobalWindows",
    "MergingWindowAssigner",
    "NeverTrigger",
    "ProcessingTimeSessionWindows",
    "ProcessingTimeTrigger",
    "PurgingTrigger",
    "SessionWindowTimeGapExtractor",
    "SlidingEventTimeWindows",
    "SlidingProcessingTimeWindows",
    "TimeEvictor",
    "TimeWindow",
    "TimestampedValue",
    "Trigger",
    "TriggerResult",
    "TumblingEventTimeWindows",
    "TumblingProcessingTimeWindows",
    "Window",
    "WindowAssigner",
]

# Type parameters, named as PyFlink's: its classes are Generic, and programs subscript them
# (``class MyFn(ProcessWindowFunction[tuple, tuple, str, TimeWindow])``).
T = TypeVar("T")
W = TypeVar("W")
W2 = TypeVar("W2")


def _ms(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    return int(value.to_milliseconds())


# -- windows ------------------------------------------------------------------------------


class Window(ABC):
    """A finite bucket of elements; all its elements have arrived once time passes max_timestamp."""

    @abstractmethod
    def max_timestamp(self) -> int:
        """The largest timestamp that still belongs to this window."""


class TimeWindow(Window):
    """The interval ``[start, end)`` (epoch ms)."""

    __slots__ = ("end", "start")

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end

    def max_timestamp(self) -> int:
        """``end - 1``."""
        return self.end - 1

    def intersects(self, other: TimeWindow) -> bool:
        """True if the windows overlap or touch."""
        return self.start <= other.end and self.end >= other.start

    def cover(self, other: TimeWindow) -> TimeWindow:
        """The smallest window containing both."""
        return TimeWindow(min(self.start, other.start), max(self.end, other.end))

    @staticmethod
    def get_window_start_with_offset(timestamp: int, offset: int, window_size: int) -> int:
        """Start of the window of size ``window_size`` (aligned to ``offset``) holding ``timestamp``."""
        return timestamp - (timestamp - offset + window_size) % window_size

    @staticmethod
    def merge_windows(windows: Iterable[TimeWindow], callback: Any) -> None:
        """Merge overlapping (or touching) windows: ``callback.merge(to_be_merged, result)``."""
        merged: list[tuple[TimeWindow, set[TimeWindow]]] = []
        current: TimeWindow | None = None
        members: set[TimeWindow] = set()
        for candidate in sorted(windows, key=lambda w: (w.start, w.end)):
            if current is None:
                current, members = candidate, {candidate}
            elif current.intersects(candidate):
                current = current.cover(candidate)
                members.add(candidate)
            else:
                merged.append((current, members))
                current, members = candidate, {candidate}
        if current is not None:
            merged.append((current, members))
        for result, to_merge in merged:
            if len(to_merge) > 1:
                _merge(callback, to_merge, result)

    def __eq__(self, other: object) -> bool:
        return type(other) is TimeWindow and other.start == self.start and other.end == self.end

    def __hash__(self) -> int:
        return hash((self.start, self.end))

    def __lt__(self, other: TimeWindow) -> bool:
        return (self.start, self.end) < (other.start, other.end)

    def __reduce__(self) -> tuple[Any, tuple[int, int]]:
        return (TimeWindow, (self.start, self.end))

    def __repr__(self) -> str:
        return f"TimeWindow(start={self.start}, end={self.end})"


def _merge(callback: Any, to_merge: Any, result: Any) -> None:
    if hasattr(callback, "merge"):
        callback.merge(to_merge, result)
    else:
        callback(to_merge, result)


class CountWindow(Window):
    """A count window, identified by its id."""

    __slots__ = ("id",)

    def __init__(self, id: int) -> None:
        self.id = id

    def max_timestamp(self) -> int:
        """Count windows never end in time."""
        return MAX_TIMESTAMP

    def __eq__(self, other: object) -> bool:
        return type(other) is CountWindow and other.id == self.id

    def __hash__(self) -> int:
        return hash(("count", self.id))

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (CountWindow, (self.id,))

    def __repr__(self) -> str:
        return f"CountWindow(id={self.id})"


class GlobalWindow(Window):
    """The single window of ``GlobalWindows``."""

    __slots__ = ()

    @staticmethod
    def get() -> GlobalWindow:
        """The global window."""
        return _GLOBAL_WINDOW

    def max_timestamp(self) -> int:
        """Never ends."""
        return MAX_TIMESTAMP

    def __eq__(self, other: object) -> bool:
        return type(other) is GlobalWindow

    def __hash__(self) -> int:
        return 0

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (GlobalWindow.get, ())

    def __repr__(self) -> str:
        return "GlobalWindow"


_GLOBAL_WINDOW = GlobalWindow()


# -- triggers -----------------------------------------------------------------------------


def _java_rem(a: int, b: int) -> int:
    """``a % b`` as Java computes it (the sign of ``a``): Flink's continuous triggers align
    negative timestamps towards zero."""
    r = abs(a) % b
    return -r if a < 0 else r


class TriggerResult(Enum):
    """What happens to a window: (fire the function?, purge the contents?)."""

    CONTINUE = (False, False)
    FIRE_AND_PURGE = (True, True)
    FIRE = (True, False)
    PURGE = (False, True)

    def is_fire(self) -> bool:
        """Whether the window function runs."""
        return bool(self.value[0])

    def is_purge(self) -> bool:
        """Whether the window's contents are cleared."""
        return bool(self.value[1])


class Trigger(ABC, Generic[T, W]):
    """Decides when a window (pane) is evaluated; state lives in the context, not in the trigger."""

    @abstractmethod
    def on_element(self, element: Any, timestamp: int, window: Any, ctx: Any) -> TriggerResult:
        """An element was added to ``window``."""

    @abstractmethod
    def on_processing_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """A processing-time timer of this trigger fired."""

    @abstractmethod
    def on_event_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """An event-time timer of this trigger fired."""

    def can_merge(self) -> bool:
        """Whether this trigger works with merging (session) windows."""
        return False

    def on_merge(self, window: Any, ctx: Any) -> None:
        """Windows were merged into ``window``."""
        raise NotImplementedError(f"{type(self).__name__} does not support merging windows")

    @abstractmethod
    def clear(self, window: Any, ctx: Any) -> None:
        """Drop the trigger's timers and state of ``window``."""


class EventTimeTrigger(Trigger[T, TimeWindow]):
    """Fires once the watermark passes the window's end (at once for a late-but-allowed element)."""

    def on_element(self, element: Any, timestamp: int, window: Any, ctx: Any) -> TriggerResult:
        """Fire if the watermark is past the window, else wait for it."""
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_processing_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Nothing."""
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Fire at the window's end."""
        return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        """Yes."""
        return True

    def on_merge(self, window: Any, ctx: Any) -> None:
        """Wait for the merged window's end (unless the watermark passed it)."""
        if window.max_timestamp() > ctx.get_current_watermark():
            ctx.register_event_time_timer(window.max_timestamp())

    def clear(self, window: Any, ctx: Any) -> None:
        """Delete the timer."""
        ctx.delete_event_time_timer(window.max_timestamp())

    def fires_at_window_end(self) -> bool:
        """True for this trigger itself (the runtime's fast path inlines it); a subclass may
        change any callback, so it says False."""
        return type(self) is EventTimeTrigger

    @staticmethod
    def create() -> EventTimeTrigger:
        """An EventTimeTrigger."""
        return EventTimeTrigger()

    def __repr__(self) -> str:
        return "EventTimeTrigger()"


class ProcessingTimeTrigger(Trigger[T, TimeWindow]):
    """Fires once the wall clock passes the window's end."""

    def on_element(self, element: Any, timestamp: int, window: Any, ctx: Any) -> TriggerResult:
        """Wait for the window's end."""
        ctx.register_processing_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_processing_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Fire."""
        return TriggerResult.FIRE

    def on_event_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Nothing."""
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        """Yes."""
        return True

    def on_merge(self, window: Any, ctx: Any) -> None:
        """Wait for the merged window's end."""
        if window.max_timestamp() > ctx.get_current_processing_time():
            ctx.register_processing_time_timer(window.max_timestamp())

    def clear(self, window: Any, ctx: Any) -> None:
        """Delete the timer."""
        ctx.delete_processing_time_timer(window.max_timestamp())

    @staticmethod
    def create() -> ProcessingTimeTrigger:
        """A ProcessingTimeTrigger."""
        return ProcessingTimeTrigger()

    def __repr__(self) -> str:
        return "ProcessingTimeTrigger()"


def _min(a: int, b: int) -> int:
    return a if a <= b else b


def _sum(a: int, b: int) -> int:
    return a + b


class _ContinuousTrigger(Trigger[T, W]):
    """Fires every ``interval`` (in the time domain of the subclass's timers)."""

    def __init__(self, interval: int) -> None:
        self.interval = interval
        self.state_desc = ReducingStateDescriptor("fire-time", _min)

    def _register(self, ctx: Any, time: int) -> None:
        raise NotImplementedError

    def _delete(self, ctx: Any, time: int) -> None:
        raise NotImplementedError

    def _register_next(self, time: int, window: Any, ctx: Any, fire_time: Any) -> None:
        next_fire = min(time + self.interval, window.max_timestamp())
        fire_time.add(next_fire)
        self._register(ctx, next_fire)

    def _schedule_first(self, time: int, window: Any, ctx: Any) -> None:
        fire_time = ctx.get_partitioned_state(self.state_desc)
        if fire_time.get() is None:
            self._register_next(time - _java_rem(time, self.interval), window, ctx, fire_time)

    def _fire_if_scheduled(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        fire_time = ctx.get_partitioned_state(self.state_desc)
        if fire_time.get() == time:
            fire_time.clear()
            self._register_next(time, window, ctx, fire_time)
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        """Yes."""
        return True

    def on_merge(self, window: Any, ctx: Any) -> None:
        """Keep the earliest scheduled firing."""
        ctx.merge_partitioned_state(self.state_desc)
        scheduled = ctx.get_partitioned_state(self.state_desc).get()
        if scheduled is not None:
            self._register(ctx, scheduled)

    def clear(self, window: Any, ctx: Any) -> None:
        """Delete the scheduled firing."""
        fire_time = ctx.get_partitioned_state(self.state_desc)
        scheduled = fire_time.get()
        if scheduled is not None:
            self._delete(ctx, scheduled)
            fire_time.clear()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.interval})"


class ContinuousEventTimeTrigger(_ContinuousTrigger[T, Window]):
    """Fires every ``interval`` of event time and at the window's end."""

    @staticmethod
    def of(interval: Time) -> ContinuousEventTimeTrigger:
        """Fire every ``interval``."""
        return ContinuousEventTimeTrigger(_ms(interval))

    def _register(self, ctx: Any, time: int) -> None:
        ctx.register_event_time_timer(time)

    def _delete(self, ctx: Any, time: int) -> None:
        ctx.delete_event_time_timer(time)

    def on_element(self, element: Any, timestamp: int, window: Any, ctx: Any) -> TriggerResult:
        """Fire at once if the window is late; else schedule the next periodic firing."""
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        self._schedule_first(timestamp, window, ctx)
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Fire at the window's end or at the scheduled time."""
        if time == window.max_timestamp():
            return TriggerResult.FIRE
        return self._fire_if_scheduled(time, window, ctx)

    def on_processing_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Nothing."""
        return TriggerResult.CONTINUE


class ContinuousProcessingTimeTrigger(_ContinuousTrigger[T, Window]):
    """Fires every ``interval`` of processing time."""

    @staticmethod
    def of(interval: Time) -> ContinuousProcessingTimeTrigger:
        """Fire every ``interval``."""
        return ContinuousProcessingTimeTrigger(_ms(interval))

    def _register(self, ctx: Any, time: int) -> None:
        ctx.register_processing_time_timer(time)

    def _delete(self, ctx: Any, time: int) -> None:
        ctx.delete_processing_time_timer(time)

    def on_element(self, element: Any, timestamp: int, window: Any, ctx: Any) -> TriggerResult:
        """Schedule the first firing."""
        self._schedule_first(ctx.get_current_processing_time(), window, ctx)
        return TriggerResult.CONTINUE

    def on_processing_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Fire at the scheduled time and schedule the next one."""
        return self._fire_if_scheduled(time, window, ctx)

    def on_event_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Nothing."""
        return TriggerResult.CONTINUE


class CountTrigger(Trigger[T, Window]):
    """Fires when the window holds ``count`` elements (then counts again from zero)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.state_desc = ReducingStateDescriptor("count", _sum)

    @staticmethod
    def of(count: int) -> CountTrigger:
        """Fire every ``count`` elements."""
        return CountTrigger(count)

    def on_element(self, element: Any, timestamp: int, window: Any, ctx: Any) -> TriggerResult:
        """Count; fire at ``count``."""
        counter = ctx.get_partitioned_state(self.state_desc)
        counter.add(1)
        if counter.get() >= self.count:
            counter.clear()
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Nothing."""
        return TriggerResult.CONTINUE

    def on_processing_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Nothing."""
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        """Yes."""
        return True

    def on_merge(self, window: Any, ctx: Any) -> None:
        """Add the counts up."""
        ctx.merge_partitioned_state(self.state_desc)

    def clear(self, window: Any, ctx: Any) -> None:
        """Forget the count."""
        ctx.get_partitioned_state(self.state_desc).clear()

    def __repr__(self) -> str:
        return f"CountTrigger({self.count})"


class PurgingTrigger(Trigger[T, Window]):
    """Turns every FIRE of the nested trigger into FIRE_AND_PURGE."""

    def __init__(self, nested_trigger: Trigger) -> None:
        self.nested_trigger = nested_trigger

    @staticmethod
    def of(nested_trigger: Trigger) -> PurgingTrigger:
        """Purge whenever ``nested_trigger`` fires."""
        return PurgingTrigger(nested_trigger)

    @staticmethod
    def _purging(result: TriggerResult) -> TriggerResult:
        return TriggerResult.FIRE_AND_PURGE if result.is_fire() else result

    def on_element(self, element: Any, timestamp: int, window: Any, ctx: Any) -> TriggerResult:
        """The nested result, purging when it fires."""
        return self._purging(self.nested_trigger.on_element(element, timestamp, window, ctx))

    def on_event_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """The nested result, purging when it fires."""
        return self._purging(self.nested_trigger.on_event_time(time, window, ctx))

    def on_processing_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """The nested result, purging when it fires."""
        return self._purging(self.nested_trigger.on_processing_time(time, window, ctx))

    def can_merge(self) -> bool:
        """As the nested trigger."""
        return self.nested_trigger.can_merge()

    def on_merge(self, window: Any, ctx: Any) -> None:
        """As the nested trigger."""
        self.nested_trigger.on_merge(window, ctx)

    def clear(self, window: Any, ctx: Any) -> None:
        """As the nested trigger."""
        self.nested_trigger.clear(window, ctx)

    def __repr__(self) -> str:
        return f"PurgingTrigger({self.nested_trigger!r})"


class NeverTrigger(Trigger[T, GlobalWindow]):
    """Never fires (GlobalWindows' default)."""

    def on_element(self, element: Any, timestamp: int, window: Any, ctx: Any) -> TriggerResult:
        """Never."""
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Never."""
        return TriggerResult.CONTINUE

    def on_processing_time(self, time: int, window: Any, ctx: Any) -> TriggerResult:
        """Never."""
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        """Yes."""
        return True

    def on_merge(self, window: Any, ctx: Any) -> None:
        """Nothing."""

    def clear(self, window: Any, ctx: Any) -> None:
        """Nothing."""

    def __repr__(self) -> str:
        return "NeverTrigger()"


# -- evictors -----------------------------------------------------------------------------


class Evictor(ABC):
    """Removes elements from a window's buffer before and/or after the window function runs.

    ``elements`` is the window's buffer (a list of ``TimestampedValue``): remove from it in
    place.
    """

    @abstractmethod
    def evict_before(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Before the window function."""

    @abstractmethod
    def evict_after(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """After the window function."""


class CountEvictor(Evictor):
    """Keeps at most ``max_count`` elements (the most recent ones)."""

    def __init__(self, max_count: int, do_evict_after: bool = False) -> None:
        self.max_count = max_count
        self.do_evict_after = do_evict_after

    @staticmethod
    def of(max_count: int, do_evict_after: bool = False) -> CountEvictor:
        """Keep ``max_count`` elements."""
        return CountEvictor(max_count, do_evict_after)

    def _evict(self, elements: list[TimestampedValue], size: int) -> None:
        if size > self.max_count:
            del elements[: size - self.max_count]

    def evict_before(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict unless configured to evict after."""
        if not self.do_evict_after:
            self._evict(elements, size)

    def evict_after(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict if configured to evict after."""
        if self.do_evict_after:
            self._evict(elements, size)


class TimeEvictor(Evictor):
    """Keeps elements within ``window_size`` ms of the newest element's timestamp."""

    def __init__(self, window_size: int, do_evict_after: bool = False) -> None:
        self.window_size = window_size
        self.do_evict_after = do_evict_after

    @staticmethod
    def of(window_size: Time, do_evict_after: bool = False) -> TimeEvictor:
        """Keep ``window_size`` of time."""
        return TimeEvictor(_ms(window_size), do_evict_after)

    def _evict(self, elements: list[TimestampedValue]) -> None:
        stamped = [e.timestamp for e in elements if e.timestamp is not None]
        if not stamped or len(stamped) != len(elements):
            return
        cutoff = max(stamped) - self.window_size
        elements[:] = [e for e in elements if e.get_timestamp() > cutoff]

    def evict_before(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict unless configured to evict after."""
        if not self.do_evict_after:
            self._evict(elements)

    def evict_after(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict if configured to evict after."""
        if self.do_evict_after:
            self._evict(elements)


class DeltaEvictor(Evictor):
    """Evicts elements whose ``delta_function(element, last element)`` >= ``threshold``."""

    def __init__(self, threshold: float, delta_function: Any, do_evict_after: bool = False) -> None:
        self.threshold = threshold
        get_delta = getattr(delta_function, "get_delta", None)
        self.delta_function: Callable[[Any, Any], float] = get_delta or delta_function
        self.do_evict_after = do_evict_after

    @staticmethod
    def of(threshold: float, delta_function: Any, do_evict_after: bool = False) -> DeltaEvictor:
        """Evict elements too far (by ``delta_function``) from the newest one."""
        return DeltaEvictor(threshold, delta_function, do_evict_after)

    def _evict(self, elements: list[TimestampedValue]) -> None:
        if not elements:
            return
        last = elements[-1].value
        delta = self.delta_function
        elements[:] = [e for e in elements if delta(e.value, last) < self.threshold]

    def evict_before(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict unless configured to evict after."""
        if not self.do_evict_after:
            self._evict(elements)

    def evict_after(self, elements: list[TimestampedValue], size: int, window: Any, ctx: Any) -> None:
        """Evict if configured to evict after."""
        if self.do_evict_after:
            self._evict(elements)


# -- assigners ----------------------------------------------------------------------------


class WindowAssigner(ABC, Generic[T, W]):
    """Assigns an element to zero or more windows."""

    @abstractmethod
    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The windows of ``element``; ``context`` gives the processing time and runtime context."""

    @abstractmethod
    def get_default_trigger(self, env: Any = None) -> Trigger:
        """The trigger used when none is set."""

    def get_window_serializer(self) -> Any:
        """Windows are pickled."""
        return None

    @abstractmethod
    def is_event_time(self) -> bool:
        """Whether windows follow event time."""


class MergingWindowAssigner(WindowAssigner[T, W]):
    """An assigner whose windows can merge (sessions)."""

    class MergeCallback(ABC, Generic[W2]):
        """Receives the groups of windows ``merge_windows`` merges."""

        @abstractmethod
        def merge(self, to_be_merged: Iterable[Any], merge_result: Any) -> None:
            """``to_be_merged`` become ``merge_result``."""

    @abstractmethod
    def merge_windows(self, windows: Iterable[Any], callback: Any) -> None:
        """Call ``callback.merge(to_be_merged, result)`` for every group of windows to merge."""


def _no_timestamp_error() -> Exception:
    return ValueError(
        "Record has Long.MIN_VALUE timestamp (= no timestamp marker). Did you forget to call "
        "'data_stream.assign_timestamps_and_watermarks(...)'?"
    )


class TumblingEventTimeWindows(WindowAssigner[T, TimeWindow]):
    """Fixed-size, non-overlapping windows by event time."""

    def __init__(self, size: int, offset: int = 0) -> None:
        if size <= 0 or abs(offset) >= size:
            raise ValueError("TumblingEventTimeWindows parameters must satisfy abs(offset) < size")
        self.size = size
        self.offset = offset

    @staticmethod
    def of(size: Time, offset: Time | None = None) -> TumblingEventTimeWindows:
        """Windows of ``size``, starts shifted by ``offset``."""
        return TumblingEventTimeWindows(_ms(size), _ms(offset))

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The one window holding ``timestamp``."""
        if timestamp is None or timestamp <= MIN_TIMESTAMP:
            raise _no_timestamp_error()
        start = timestamp - (timestamp - self.offset + self.size) % self.size
        return [TimeWindow(start, start + self.size)]

    def aligned_windows(self) -> tuple[int, int, int] | None:
        """(size, size, offset): the runtime assigns these windows itself (not for subclasses)."""
        return (self.size, self.size, self.offset) if type(self) is TumblingEventTimeWindows else None

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """EventTimeTrigger."""
        return EventTimeTrigger()

    def is_event_time(self) -> bool:
        """True."""
        return True

    def __repr__(self) -> str:
        return f"TumblingEventTimeWindows({self.size}, {self.offset})"


class TumblingProcessingTimeWindows(WindowAssigner[T, TimeWindow]):
    """Fixed-size, non-overlapping windows by processing time."""

    def __init__(self, size: int, offset: int = 0) -> None:
        if size <= 0 or abs(offset) >= size:
            raise ValueError("TumblingProcessingTimeWindows parameters must satisfy abs(offset) < size")
        self.size = size
        self.offset = offset

    @staticmethod
    def of(size: Time, offset: Time | None = None) -> TumblingProcessingTimeWindows:
        """Windows of ``size``, starts shifted by ``offset``."""
        return TumblingProcessingTimeWindows(_ms(size), _ms(offset))

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The window holding the current processing time."""
        now = context.get_current_processing_time()
        start = now - (now - self.offset + self.size) % self.size
        return [TimeWindow(start, start + self.size)]

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """ProcessingTimeTrigger."""
        return ProcessingTimeTrigger()

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return f"TumblingProcessingTimeWindows({self.size}, {self.offset})"


def _sliding(time: int, size: int, slide: int, offset: int) -> list[Any]:
    last_start = time - (time - offset + slide) % slide
    return [TimeWindow(start, start + size) for start in range(last_start, time - size, -slide)]


class SlidingEventTimeWindows(WindowAssigner[T, TimeWindow]):
    """Windows of ``size`` every ``slide``, by event time (an element is in size/slide windows)."""

    def __init__(self, size: int, slide: int, offset: int = 0) -> None:
        if size <= 0 or slide <= 0 or abs(offset) >= slide:
            raise ValueError(
                "SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0"
            )
        self.size = size
        self.slide = slide
        self.offset = offset

    @staticmethod
    def of(size: Time, slide: Time, offset: Time | None = None) -> SlidingEventTimeWindows:
        """Windows of ``size`` every ``slide``."""
        return SlidingEventTimeWindows(_ms(size), _ms(slide), _ms(offset))

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """Every window holding ``timestamp``, latest first."""
        if timestamp is None or timestamp <= MIN_TIMESTAMP:
            raise _no_timestamp_error()
        return _sliding(timestamp, self.size, self.slide, self.offset)

    def aligned_windows(self) -> tuple[int, int, int] | None:
        """(size, slide, offset): the runtime assigns these windows itself (not for subclasses)."""
        return (self.size, self.slide, self.offset) if type(self) is SlidingEventTimeWindows else None

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """EventTimeTrigger."""
        return EventTimeTrigger()

    def is_event_time(self) -> bool:
        """True."""
        return True

    def __repr__(self) -> str:
        return f"SlidingEventTimeWindows({self.size}, {self.slide}, {self.offset})"


class SlidingProcessingTimeWindows(WindowAssigner[T, TimeWindow]):
    """Windows of ``size`` every ``slide``, by processing time."""

    def __init__(self, size: int, slide: int, offset: int = 0) -> None:
        if size <= 0 or slide <= 0 or abs(offset) >= slide:
            raise ValueError(
                "SlidingProcessingTimeWindows parameters must satisfy abs(offset) < slide and size > 0"
            )
        self.size = size
        self.slide = slide
        self.offset = offset

    @staticmethod
    def of(size: Time, slide: Time, offset: Time | None = None) -> SlidingProcessingTimeWindows:
        """Windows of ``size`` every ``slide``."""
        return SlidingProcessingTimeWindows(_ms(size), _ms(slide), _ms(offset))

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """Every window holding the current processing time."""
        return _sliding(context.get_current_processing_time(), self.size, self.slide, self.offset)

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """ProcessingTimeTrigger."""
        return ProcessingTimeTrigger()

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return f"SlidingProcessingTimeWindows({self.size}, {self.slide}, {self.offset})"


class SessionWindowTimeGapExtractor(ABC):
    """Extracts the session gap (ms) from an element (dynamic session windows)."""

    @abstractmethod
    def extract(self, element: Any) -> int:
        """The gap after ``element``."""


def _gap_function(extractor: Any) -> Callable[[Any], int]:
    extract = getattr(extractor, "extract", None)
    if extract is not None:
        return extract
    if callable(extractor):
        return extractor
    raise TypeError("the gap extractor must be a SessionWindowTimeGapExtractor or a callable")


class _SessionWindows(MergingWindowAssigner[T, TimeWindow]):
    event_time = True

    def __init__(self, gap: int | None = None, extractor: Any = None) -> None:
        if extractor is None and (gap is None or gap <= 0):
            raise ValueError(f"{type(self).__name__} parameters must satisfy 0 < size")
        self.gap = gap
        self._extract = _gap_function(extractor) if extractor is not None else None

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """``[t, t + gap)`` for the element's time ``t``."""
        if self.event_time:
            if timestamp is None or timestamp <= MIN_TIMESTAMP:
                raise _no_timestamp_error()
            time = timestamp
        else:
            time = context.get_current_processing_time()
        gap = self.gap if self._extract is None else self._extract(element)
        if gap is None or gap <= 0:
            raise ValueError(f"dynamic session gap must be positive, got {gap!r}")
        return [TimeWindow(time, time + gap)]

    def merge_windows(self, windows: Iterable[Any], callback: Any) -> None:
        """Merge overlapping or touching sessions."""
        TimeWindow.merge_windows(windows, callback)

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """Event- or processing-time trigger."""
        return EventTimeTrigger() if self.event_time else ProcessingTimeTrigger()

    def is_event_time(self) -> bool:
        """Whether sessions follow event time."""
        return self.event_time

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.gap})"


class EventTimeSessionWindows(_SessionWindows[T]):
    """Sessions by event time: a gap of inactivity ends a session."""

    @staticmethod
    def with_gap(size: Time) -> EventTimeSessionWindows:
        """Sessions separated by ``size`` of inactivity."""
        return EventTimeSessionWindows(_ms(size))

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicEventTimeSessionWindows:
        """Sessions whose gap each element decides."""
        return DynamicEventTimeSessionWindows(extractor=extractor)


class ProcessingTimeSessionWindows(_SessionWindows[T]):
    """Sessions by processing time."""

    event_time = False

    @staticmethod
    def with_gap(size: Time) -> ProcessingTimeSessionWindows:
        """Sessions separated by ``size`` of inactivity."""
        return ProcessingTimeSessionWindows(_ms(size))

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicProcessingTimeSessionWindows:
        """Sessions whose gap each element decides."""
        return DynamicProcessingTimeSessionWindows(extractor=extractor)


class DynamicEventTimeSessionWindows(_SessionWindows[T]):
    """Event-time sessions with a gap per element."""

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicEventTimeSessionWindows:
        """Sessions whose gap each element decides."""
        return DynamicEventTimeSessionWindows(extractor=extractor)


class DynamicProcessingTimeSessionWindows(_SessionWindows[T]):
    """Processing-time sessions with a gap per element."""

    event_time = False

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicProcessingTimeSessionWindows:
        """Sessions whose gap each element decides."""
        return DynamicProcessingTimeSessionWindows(extractor=extractor)


class GlobalWindows(WindowAssigner[T, GlobalWindow]):
    """One window for everything; fires only through a custom trigger (default: never)."""

    @staticmethod
    def create() -> GlobalWindows:
        """The global windows assigner."""
        return GlobalWindows()

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The global window."""
        return [_GLOBAL_WINDOW]

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """NeverTrigger."""
        return NeverTrigger()

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return "GlobalWindows()"


class CountTumblingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Consecutive groups of ``window_size`` elements per key (PyFlink's ``count_window(size)``)."""

    def __init__(self, window_size: int) -> None:
        if window_size <= 0:
            raise ValueError("count window size must be positive")
        self.window_size = window_size
        self.count_descriptor = ValueStateDescriptor("tumble-count-assigner")

    @staticmethod
    def of(window_size: int) -> CountTumblingWindowAssigner:
        """Windows of ``window_size`` elements."""
        return CountTumblingWindowAssigner(window_size)

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """Window ``n // size`` for the key's n-th element."""
        counter = context.get_runtime_context().get_state(self.count_descriptor)
        count = counter.value() or 0
        counter.update(count + 1)
        return [CountWindow(count // self.window_size)]

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """Fire at ``window_size`` elements."""
        return CountTrigger(self.window_size)

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return f"CountTumblingWindowAssigner({self.window_size})"


class CountSlidingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Windows of ``window_size`` elements every ``window_slide`` elements (PyFlink's).

    The key's n-th element (from 0) belongs to every window ``w`` with
    ``w * slide <= n < w * slide + size``; a window fires when it holds ``size`` elements.
    """

    def __init__(self, window_size: int, window_slide: int) -> None:
        if window_size <= 0 or window_slide <= 0:
            raise ValueError("count window size and slide must be positive")
        self.window_size = window_size
        self.window_slide = window_slide
        self.count_descriptor = ValueStateDescriptor("slide-count-assigner")

    @staticmethod
    def of(window_size: int, window_slide: int) -> CountSlidingWindowAssigner:
        """Windows of ``window_size`` every ``window_slide`` elements."""
        return CountSlidingWindowAssigner(window_size, window_slide)

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]:
        """The windows holding the key's n-th element, latest first."""
        counter = context.get_runtime_context().get_state(self.count_descriptor)
        count = counter.value() or 0
        counter.update(count + 1)
        windows = []
        window_id = count // self.window_slide
        while (
            window_id >= 0
            and window_id * self.window_slide <= count < window_id * self.window_slide + self.window_size
        ):
            windows.append(CountWindow(window_id))
            window_id -= 1
        return windows

    def get_default_trigger(self, env: Any = None) -> Trigger:
        """Fire at ``window_size`` elements."""
        return CountTrigger(self.window_size)

    def is_event_time(self) -> bool:
        """False."""
        return False

    def __repr__(self) -> str:
        return f"CountSlidingWindowAssigner({self.window_size}, {self.window_slide})"
