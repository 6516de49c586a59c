"""What the window operator needs from window assigners and triggers, and what it gives them.

The assigners and triggers users pick or write live in the API (``millstream.datastream``,
which the runtime never imports); the runtime reaches them only through these Protocols.
The contexts it hands them (``TriggerContext``, ``OnMergeContext``,
``WindowAssignerContext``) are PyFlink's, implemented in ``runtime.operators.window``.

``AlignedWindowAssigner`` and ``WatermarkTrigger`` are how the window operator picks its
per-record fast path: an assigner that says its windows are aligned event-time slices and
a trigger that fires only when the watermark passes a window's end let the operator fold
elements straight into the state table, with the same results as the general path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "AlignedWindowAssigner",
    "MergingWindowAssigner",
    "OnMergeContext",
    "Trigger",
    "TriggerContext",
    "WatermarkTrigger",
    "WindowAssigner",
    "WindowAssignerContext",
    "no_timestamp_error",
]


class TriggerContext(Protocol):
    """Trigger.TriggerContext: timers and state of the current key and window."""

    def get_current_watermark(self) -> int: ...
    def get_current_processing_time(self) -> int: ...
    def register_event_time_timer(self, time: int) -> None: ...
    def register_processing_time_timer(self, time: int) -> None: ...
    def delete_event_time_timer(self, time: int) -> None: ...
    def delete_processing_time_timer(self, time: int) -> None: ...
    def get_partitioned_state(self, state_descriptor: Any) -> Any: ...


class OnMergeContext(TriggerContext, Protocol):
    """Trigger.OnMergeContext: a TriggerContext that can also fold the merged windows' state."""

    def merge_partitioned_state(self, state_descriptor: Any) -> None: ...


class WindowAssignerContext(Protocol):
    """WindowAssigner.WindowAssignerContext."""

    def get_current_processing_time(self) -> int: ...
    def get_runtime_context(self) -> Any: ...


class WindowAssigner(Protocol):
    """Assigns an element to its windows."""

    def assign_windows(self, element: Any, timestamp: int, context: Any) -> list[Any]: ...
    def is_event_time(self) -> bool: ...


@runtime_checkable
class MergingWindowAssigner(WindowAssigner, Protocol):
    """An assigner whose windows merge (sessions)."""

    def merge_windows(self, windows: Iterable[Any], callback: Callable[[Any, Any], None]) -> None: ...


class Trigger(Protocol):
    """Decides when a window fires and when its contents are purged."""

    def on_element(self, element: Any, timestamp: int, window: Any, ctx: Any) -> Any: ...
    def on_event_time(self, time: int, window: Any, ctx: Any) -> Any: ...
    def on_processing_time(self, time: int, window: Any, ctx: Any) -> Any: ...
    def can_merge(self) -> bool: ...
    def on_merge(self, window: Any, ctx: Any) -> None: ...
    def clear(self, window: Any, ctx: Any) -> None: ...


@runtime_checkable
class AlignedWindowAssigner(Protocol):
    """An assigner that can describe its windows as aligned event-time slices."""

    def aligned_windows(self) -> tuple[int, int, int] | None:
        """``(size, slide, offset)`` when every element at time ``t`` belongs exactly to the
        windows ``[s, s + size)`` with ``s`` in ``offset + k * slide`` and ``t - size < s <= t``
        (tumbling: ``slide == size``); None otherwise."""
        ...


@runtime_checkable
class WatermarkTrigger(Protocol):
    """A trigger that can say it behaves as Flink's EventTimeTrigger."""

    def fires_at_window_end(self) -> bool:
        """True when it fires exactly when the watermark passes a window's ``max_timestamp``
        (at once for an element of a window the watermark already passed), never purges,
        and keeps no state of its own."""
        ...


def no_timestamp_error() -> ValueError:
    """Flink's error for an element without a timestamp in event-time windows."""
    return ValueError(
        "Record has Long.MIN_VALUE timestamp (= no timestamp marker). Did you forget "
        "to call 'data_stream.assign_timestamps_and_watermarks(...)'?"
    )
