"""Timers: the task's processing-time service and the keyed timer services of operators.

``ProcessingTimeService`` (one per task): callbacks at wall-clock times. They run on the
task thread from the mailbox loop (the StreamTask fires due timers before processing
input and sleeps no longer than the next timer), so a timer never runs concurrently
with element processing. At the end of input pending processing-time timers are
dropped (Flink quiesces the service before ``finish``).

``InternalTimerService`` (one per keyed operator that uses timers): event-time and
processing-time timers per (key, namespace, timestamp), deduplicated as in Flink (a
second registration of the same timer is a no-op; deleting it removes it). Event-time
timers fire when a watermark reaches their time, in timestamp order (registration order
among equal timestamps), with the backend's current key set to the timer's key.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable
from typing import Any, Protocol

from millstream.runtime.operators.elements import MAX_TIMESTAMP, MIN_TIMESTAMP

__all__ = ["InternalTimerService", "ProcessingTimeService", "Triggerable"]


class _ScheduledTimer:
    __slots__ = ("callback", "cancelled", "timestamp")

    def __init__(self, timestamp: int, callback: Callable[[int], None]) -> None:
        self.timestamp = timestamp
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        """Do not fire."""
        self.cancelled = True


class ProcessingTimeService:
    """Wall-clock timers of one task, fired from its mailbox loop."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._heap: list[tuple[int, int, _ScheduledTimer]] = []  # owner: task thread
        self._seq = 0
        self._quiesced = False

    def current_processing_time(self) -> int:
        """Now, in epoch ms."""
        return int(self._clock() * 1000)

    def register_timer(self, timestamp: int, callback: Callable[[int], None]) -> _ScheduledTimer:
        """Call ``callback(timestamp)`` on the task thread once the clock reaches ``timestamp``."""
        timer = _ScheduledTimer(timestamp, callback)
        if not self._quiesced:
            self._seq += 1
            heapq.heappush(self._heap, (timestamp, self._seq, timer))
        return timer

    @property
    def has_timers(self) -> bool:
        """Whether any timer is pending."""
        return bool(self._heap)

    def next_deadline(self) -> float:
        """Monotonic time of the next timer (inf if none)."""
        heap = self._heap
        while heap and heap[0][2].cancelled:
            heapq.heappop(heap)
        if not heap:
            return float("inf")
        wait_ms = heap[0][0] - self.current_processing_time()
        return time.monotonic() + max(wait_ms, 0) / 1000.0

    def fire_due(self) -> None:
        """Run every timer whose time has come (task thread)."""
        heap = self._heap
        if not heap:
            return
        now = self.current_processing_time()
        while heap and heap[0][0] <= now:
            _, _, timer = heapq.heappop(heap)
            if not timer.cancelled:
                timer.callback(timer.timestamp)

    def quiesce(self) -> None:
        """Drop pending timers and accept no new ones (end of input, cancellation)."""
        self._quiesced = True
        self._heap.clear()


def _in_firing_order(heap: list[tuple[int, int, Any, Any]], live: set[Any]) -> list[tuple[int, Any, Any]]:
    """The live timers of ``heap`` in the order ``_fire_until`` would fire them."""
    ordered = sorted(heap, key=lambda entry: entry[:2])
    return _first_live([(timestamp, key, namespace) for timestamp, _, key, namespace in ordered], live)


def _first_live(timers: list[tuple[int, Any, Any]], live: set[Any]) -> list[tuple[int, Any, Any]]:
    """The live ones of ``timers`` (in firing order), each once: a deleted and registered-again
    timer fires at its first live entry."""
    out: list[tuple[int, Any, Any]] = []
    seen: set[Any] = set()
    for timer in timers:
        if timer in live and timer not in seen:
            seen.add(timer)
            out.append(timer)
    return out


class Triggerable(Protocol):
    """What an operator with timers implements."""

    def on_event_time(self, timestamp: int, key: Any, namespace: Any) -> None:
        """An event-time timer fired."""

    def on_processing_time(self, timestamp: int, key: Any, namespace: Any) -> None:
        """A processing-time timer fired."""


class InternalTimerService:
    """Keyed timers of one operator, deduplicated per (timestamp, key, namespace)."""

    def __init__(
        self,
        key_context: Any,
        processing_time_service: ProcessingTimeService,
        triggerable: Triggerable,
    ) -> None:
        self._keys = key_context  # the keyed state backend: current_key, set_current_key
        self._pts = processing_time_service
        self._triggerable = triggerable
        # event-time timers by timestamp (many keys' windows end at the same time): each
        # timestamp's (key, namespace) in registration order, and a heap of the timestamps
        self._event_buckets: dict[int, list[tuple[Any, Any]]] = {}  # owner: task thread
        self._event_times: list[int] = []
        self._event_timers: set[tuple[int, Any, Any]] = set()
        self._proc_heap: list[tuple[int, int, Any, Any]] = []
        self._proc_timers: set[tuple[int, Any, Any]] = set()
        self._seq = 0
        self._scheduled: Any = None  # physical processing-time timer for the earliest one
        self.current_watermark = MIN_TIMESTAMP

    # -- registration (current key) ------------------------------------------------------

    def register_event_time_timer(self, namespace: Any, timestamp: int) -> None:
        """Fire ``on_event_time`` when the watermark reaches ``timestamp``."""
        key = self._keys.current_key
        timer = (timestamp, key, namespace)
        if timer not in self._event_timers:
            self._event_timers.add(timer)
            bucket = self._event_buckets.get(timestamp)
            if bucket is None:
                self._event_buckets[timestamp] = [(key, namespace)]
                heapq.heappush(self._event_times, timestamp)
            else:
                bucket.append((key, namespace))

    def delete_event_time_timer(self, namespace: Any, timestamp: int) -> None:
        """Forget an event-time timer of the current key."""
        self._event_timers.discard((timestamp, self._keys.current_key, namespace))

    def register_processing_time_timer(self, namespace: Any, timestamp: int) -> None:
        """Fire ``on_processing_time`` when the wall clock reaches ``timestamp``."""
        timer = (timestamp, self._keys.current_key, namespace)
        if timer in self._proc_timers:
            return
        self._proc_timers.add(timer)
        self._seq += 1
        heapq.heappush(self._proc_heap, (timestamp, self._seq, timer[1], namespace))
        if self._proc_heap[0][0] == timestamp:
            self._schedule(timestamp)

    def delete_processing_time_timer(self, namespace: Any, timestamp: int) -> None:
        """Forget a processing-time timer of the current key."""
        self._proc_timers.discard((timestamp, self._keys.current_key, namespace))

    def current_processing_time(self) -> int:
        """Now, in epoch ms."""
        return self._pts.current_processing_time()

    # -- firing ---------------------------------------------------------------------------

    def _fire_until(self, heap: list[Any], timers: set[Any], fire: Any, until: int) -> None:
        """Pop and fire (with its key current) every live timer of ``heap`` due by ``until``."""
        keys = self._keys
        while heap and heap[0][0] <= until:
            timestamp, _, key, namespace = heapq.heappop(heap)
            timer = (timestamp, key, namespace)
            if timer in timers:  # deleted timers stay in the heap until their time
                timers.discard(timer)
                keys.set_current_key(key)
                fire(timestamp, key, namespace)

    def advance_watermark(self, watermark: int) -> None:
        """Fire every event-time timer with timestamp <= ``watermark``, in order (a timer
        registered while firing, at a time already reached, fires after those registered
        before it, as in a heap by (timestamp, registration))."""
        self.current_watermark = watermark
        times, buckets, timers = self._event_times, self._event_buckets, self._event_timers
        keys, fire = self._keys, self._triggerable.on_event_time
        while times and times[0] <= watermark:
            timestamp = heapq.heappop(times)
            bucket = buckets.pop(timestamp)
            for index, (key, namespace) in enumerate(bucket):
                timer = (timestamp, key, namespace)
                if timer not in timers:  # deleted timers stay in their bucket until their time
                    continue
                timers.discard(timer)
                keys.set_current_key(key)
                fire(timestamp, key, namespace)
                if times and times[0] < timestamp:  # it registered an earlier timer: that one first
                    self._put_back(timestamp, bucket[index + 1 :])
                    break

    def _schedule(self, timestamp: int) -> None:
        if self._scheduled is not None:
            if self._scheduled.timestamp <= timestamp:
                return
            self._scheduled.cancel()
        self._scheduled = self._pts.register_timer(timestamp, self._on_processing_time)

    def _on_processing_time(self, now: int) -> None:
        self._scheduled = None
        self._fire_until(self._proc_heap, self._proc_timers, self._triggerable.on_processing_time, now)
        if self._proc_heap:
            self._schedule(self._proc_heap[0][0])

    def advance_processing_time(self, now: int) -> None:
        """Fire every processing-time timer due by ``now``, in order (for runners that own the
        clock, such as Spark's timers; tasks fire them from their ``ProcessingTimeService``)."""
        self._fire_until(self._proc_heap, self._proc_timers, self._triggerable.on_processing_time, now)

    def fire_all_for_end_of_key(self) -> None:
        """BATCH: fire every timer of the current key (event time, then processing time), in order."""
        self.advance_watermark(MAX_TIMESTAMP)
        self._fire_until(
            self._proc_heap, self._proc_timers, self._triggerable.on_processing_time, MAX_TIMESTAMP
        )
        self.current_watermark = MIN_TIMESTAMP

    def _put_back(self, timestamp: int, rest: list[tuple[Any, Any]]) -> None:
        """Timers of ``timestamp`` not fired yet, ahead of any registered for it meanwhile."""
        if not rest:
            return
        later = self._event_buckets.get(timestamp)
        if later is None:
            self._event_buckets[timestamp] = rest
            heapq.heappush(self._event_times, timestamp)
        else:
            later[:0] = rest

    def snapshot_timers(self) -> tuple[list[tuple[int, Any, Any]], list[tuple[int, Any, Any]]]:
        """(event-time, processing-time) timers as (timestamp, key, namespace), for a snapshot, in
        the order they would fire (timestamp, then registration): restoring registers them in
        this order, so timers of equal timestamp fire as they would have without the failure."""
        event = [
            (timestamp, key, namespace)
            for timestamp in sorted(self._event_buckets)
            for key, namespace in self._event_buckets[timestamp]
        ]
        return _first_live(event, self._event_timers), _in_firing_order(self._proc_heap, self._proc_timers)

    def restore_timers(
        self, event: list[tuple[int, Any, Any]], processing: list[tuple[int, Any, Any]]
    ) -> None:
        """Replace every timer with those of a snapshot (processing-time timers are rescheduled).

        After rescaling the snapshot holds the timers of several old subtasks: those of keys
        outside this subtask's key groups are left to the subtasks owning them."""
        self.clear()
        keys = self._keys
        owns = getattr(keys, "owns", None)
        for timestamp, key, namespace in event:
            if owns is None or owns(key):
                keys.set_current_key(key)
                self.register_event_time_timer(namespace, timestamp)
        for timestamp, key, namespace in processing:
            if owns is None or owns(key):
                keys.set_current_key(key)
                self.register_processing_time_timer(namespace, timestamp)

    def clear(self) -> None:
        """Drop every timer."""
        self._event_buckets.clear()
        self._event_times.clear()
        self._event_timers.clear()
        self._proc_heap.clear()
        self._proc_timers.clear()
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None

    @property
    def num_event_time_timers(self) -> int:
        """Pending event-time timers."""
        return len(self._event_timers)

    @property
    def num_processing_time_timers(self) -> int:
        """Pending processing-time timers."""
        return len(self._proc_timers)
