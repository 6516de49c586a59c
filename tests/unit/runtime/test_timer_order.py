"""The event-time timer service fires as a heap by (timestamp, registration) would, as
Flink's ``InternalTimerServiceImpl`` polls its queue: timers kept per timestamp must give the
same order in every case, including timers registered, deleted and registered again while
the watermark fires them."""

from __future__ import annotations

import heapq
import random

import pytest

from millstream.runtime.operators.timer_service import InternalTimerService, ProcessingTimeService


class _Keys:
    def __init__(self) -> None:
        self.current_key: object = None

    def set_current_key(self, key: object) -> None:
        self.current_key = key


class _Reference:
    """A heap of (timestamp, registration number, key) with the live set, as Flink's queue."""

    def __init__(self) -> None:
        self.heap: list[tuple[int, int, object]] = []
        self.live: set[tuple[int, object]] = set()
        self.seq = 0

    def register(self, key: object, timestamp: int) -> None:
        if (timestamp, key) not in self.live:
            self.live.add((timestamp, key))
            self.seq += 1
            heapq.heappush(self.heap, (timestamp, self.seq, key))

    def delete(self, key: object, timestamp: int) -> None:
        self.live.discard((timestamp, key))


@pytest.mark.parametrize("seed", range(30))
def test_timers_fire_in_heap_order_whatever_the_callbacks_register(seed: int) -> None:
    rng = random.Random(seed)
    keys = _Keys()
    fired: list[tuple[int, object]] = []
    reference = _Reference()
    expected: list[tuple[int, object]] = []
    plans: dict[tuple[int, object], list[tuple[str, object, int]]] = {}  # what a firing timer does

    class Target:
        def on_event_time(self, timestamp: int, key: object, namespace: object) -> None:
            first = (timestamp, key) not in fired  # a plan runs once: no endless re-registration
            fired.append((timestamp, key))
            for action, other, at in plans.get((timestamp, key), []) if first else []:
                keys.set_current_key(other)
                if action == "register":
                    service.register_event_time_timer(None, at)
                else:
                    service.delete_event_time_timer(None, at)
            keys.set_current_key(key)

        def on_processing_time(self, timestamp: int, key: object, namespace: object) -> None:
            raise AssertionError

    service = InternalTimerService(keys, ProcessingTimeService(), Target())
    for _ in range(60):
        key, at = rng.randrange(6), rng.randrange(20)
        keys.set_current_key(key)
        if rng.random() < 0.8:
            service.register_event_time_timer(None, at)
            reference.register(key, at)
        else:
            service.delete_event_time_timer(None, at)
            reference.delete(key, at)
        if rng.random() < 0.5:  # when it fires, this timer registers (maybe in the past) or deletes others
            plans.setdefault((at, key), []).append(
                (rng.choice(["register", "register", "delete"]), rng.randrange(6), rng.randrange(25))
            )

    def reference_advance(watermark: int) -> None:
        while reference.heap and reference.heap[0][0] <= watermark:
            timestamp, _, key = heapq.heappop(reference.heap)
            if (timestamp, key) in reference.live:
                reference.live.discard((timestamp, key))
                first = (timestamp, key) not in expected
                expected.append((timestamp, key))
                for action, other, at in plans.get((timestamp, key), []) if first else []:
                    if action == "register":
                        reference.register(other, at)
                    else:
                        reference.delete(other, at)

    for watermark in (5, 12, 30):
        service.advance_watermark(watermark)
        reference_advance(watermark)
        assert fired == expected
    assert fired and service.num_event_time_timers == len(reference.live)


def test_a_snapshot_lists_timers_in_firing_order_once_each() -> None:
    keys = _Keys()
    service = InternalTimerService(keys, ProcessingTimeService(), object())  # type: ignore[arg-type]
    for key, at in [("a", 5), ("b", 3), ("a", 3), ("c", 5)]:
        keys.set_current_key(key)
        service.register_event_time_timer(None, at)
    keys.set_current_key("b")
    service.delete_event_time_timer(None, 3)
    service.register_event_time_timer(None, 3)  # again: it keeps its first place, as in a heap
    event, processing = service.snapshot_timers()
    assert event == [(3, "b", None), (3, "a", None), (5, "a", None), (5, "c", None)] and processing == []
