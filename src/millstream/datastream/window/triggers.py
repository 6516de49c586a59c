"""Triggers: when a window fires and purges (``TriggerResult``), Flink's built-in triggers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from typing import Any, Generic

from millstream.common.time import Time
from millstream.datastream.state import ReducingStateDescriptor
from millstream.datastream.window.windows import GlobalWindow, T, TimeWindow, W, Window, _ms

__all__ = [
    "ContinuousEventTimeTrigger",
    "ContinuousProcessingTimeTrigger",
    "CountTrigger",
    "EventTimeTrigger",
    "NeverTrigger",
    "ProcessingTimeTrigger",
    "PurgingTrigger",
    "Trigger",
    "TriggerResult",
]

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
    """Fires when the window holds ``window_size`` elements (then counts again from zero)."""

    def __init__(self, window_size: int) -> None:
        self.count = window_size
        self.state_desc = ReducingStateDescriptor("count", _sum)

    @staticmethod
    def of(window_size: int) -> CountTrigger:
        """Fire every ``window_size`` elements."""
        return CountTrigger(window_size)

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
