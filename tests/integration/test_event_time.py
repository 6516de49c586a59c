"""Event time end to end: out-of-order input through sources, exchanges, unions and windows,
at parallelism 1 and 2, in TaskManager threads and processes."""

from __future__ import annotations

import time
from collections import defaultdict

import pytest

from millstream.common import Duration, Time, WatermarkStrategy
from millstream.datastream import KeyedProcessFunction
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.window import (
    EventTimeSessionWindows,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
)
from tests.conftest import make_env as _make_env

N = 20_000


def make_env(parallelism: int, watermark_interval: int = 200, **config: object):  # type: ignore[no-untyped-def]
    env = _make_env(parallelism, **config)
    env.get_config().set_auto_watermark_interval(watermark_interval)
    return env


def event(i: int) -> tuple[str, int, int]:
    """Key, value, timestamp: up to 1.5 s out of order."""
    return (f"k{(i * 7) % 13}", i % 100, 10_000 + i * 3 - (i * 7919) % 1500)


def timestamp(v, ts):  # type: ignore[no-untyped-def]
    return v[2]


def add(a, b):  # type: ignore[no-untyped-def]
    return (a[0], a[1] + b[1], max(a[2], b[2]))


STRATEGY = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(1500)).with_timestamp_assigner(
    timestamp
)


def expected_tumbling(size: int) -> dict[tuple[str, int], int]:
    sums: dict[tuple[str, int], int] = defaultdict(int)
    for i in range(N):
        k, v, ts = event(i)
        sums[(k, ts - ts % size)] += v
    return dict(sums)


def collect_windows(stream, size: int) -> dict[tuple[str, int], int]:  # type: ignore[no-untyped-def]
    out = {}
    with stream.execute_and_collect() as results:
        for k, total, ts in results:
            assert (k, ts - ts % size) not in out, "a window fired twice"
            out[(k, ts - ts % size)] = total
    return out


@pytest.mark.parametrize(("parallelism", "mode"), [(1, "threads"), (2, "threads"), (2, "processes")])
def test_tumbling_window_sums_from_a_parallel_source(parallelism: int, mode: str):
    env = make_env(parallelism, minicluster__mode=mode, watermark_interval=20)
    stream = (
        env.from_source(DataGeneratorSource(event, N), STRATEGY, "events")
        .key_by(lambda v: v[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(2)))
        .reduce(add)
    )
    assert collect_windows(stream, 2000) == expected_tumbling(2000)


def test_watermarks_flow_through_a_union_and_a_rebalance():
    env = make_env(2, minicluster__mode="threads", watermark_interval=10)
    half = N // 2
    first = env.from_source(DataGeneratorSource(event, half), STRATEGY, "first")
    second = env.from_source(
        DataGeneratorSource(lambda i: event(i + half), N - half), STRATEGY, "second"
    ).rebalance()
    stream = (
        first.union(second)
        .map(lambda v: v)
        .key_by(lambda v: v[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(2)))
        .reduce(add)
    )
    assert collect_windows(stream, 2000) == expected_tumbling(2000)


def test_sliding_and_session_windows_at_parallelism_two():
    env = make_env(2, minicluster__mode="threads")
    source = env.from_source(DataGeneratorSource(event, 3000), STRATEGY, "events")
    sliding = source.key_by(lambda v: v[0]).window(
        SlidingEventTimeWindows.of(Time.seconds(2), Time.seconds(1))
    )
    with_end = sliding.reduce(add, lambda key, window, sums: [(key, sums[0][1], window.max_timestamp())])
    got = sorted(with_end.execute_and_collect(limit=10**6))
    expected: dict[tuple[str, int], int] = defaultdict(int)
    for i in range(3000):
        k, v, ts = event(i)
        last = ts - ts % 1000
        for start in (last, last - 1000):
            expected[(k, start + 1999)] += v
    assert sorted((k, ts) for k, _, ts in got) == sorted(expected)
    assert {(k, ts): total for k, total, ts in got} == dict(expected)

    env = make_env(2, watermark_interval=0, minicluster__mode="threads")  # only the final watermark
    sessions = (
        env.from_collection([("a", 1, 0), ("a", 1, 400), ("b", 1, 100), ("a", 1, 2000), ("a", 1, 900)])
        .assign_timestamps_and_watermarks(STRATEGY)
        .key_by(lambda v: v[0])
        .window(EventTimeSessionWindows.with_gap(Time.milliseconds(500)))
        .reduce(add)
    )
    assert sorted(sessions.execute_and_collect(limit=100)) == [("a", 1, 2000), ("a", 3, 900), ("b", 1, 100)]


class HalfIdleSource:
    """Unbounded: subtask 0 emits ascending events forever, subtask 1 never emits."""

    def is_bounded(self) -> bool:
        return False

    def create_reader(self, context):  # type: ignore[no-untyped-def]
        return _HalfIdleReader(context.subtask_index)


class _HalfIdleReader:
    def __init__(self, subtask: int) -> None:
        self.subtask = subtask
        self.next = 0
        self.available_at = 0.0

    def poll(self, max_records: int):  # type: ignore[no-untyped-def]
        if self.subtask == 1:
            self.available_at = time.monotonic() + 0.05
            return []
        batch = [("k", 1, i * 10) for i in range(self.next, self.next + 100)]
        self.next += 100
        return batch

    def close(self) -> None:
        pass


def test_an_idle_source_subtask_does_not_hold_back_windows():
    # Without with_idleness the watermark would wait for subtask 1 forever and no window
    # would fire: the collect below would never return.
    env = make_env(2, minicluster__mode="threads", watermark_interval=20)
    strategy = (
        WatermarkStrategy.for_monotonous_timestamps()
        .with_timestamp_assigner(lambda v, ts: v[2])
        .with_idleness(Duration.of_millis(100))
    )
    windows = (
        env.from_source(HalfIdleSource(), strategy, "half idle")
        .key_by(lambda v: v[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .reduce(add)
    )
    first = windows.execute_and_collect(limit=3)
    assert [(k, total) for k, total, _ in first] == [("k", 100)] * 3


class Expire(KeyedProcessFunction):
    """Emits each key's count when the watermark passes its last event + 1000."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        from millstream.datastream.state import ValueStateDescriptor

        self.count = runtime_context.get_state(ValueStateDescriptor("count"))
        self.last = runtime_context.get_state(ValueStateDescriptor("last"))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        self.count.update((self.count.value() or 0) + 1)
        last = max(self.last.value() or 0, ctx.timestamp())
        self.last.update(last)
        ctx.timer_service().register_event_time_timer(last + 1000)
        return []

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        if timestamp == self.last.value() + 1000:
            yield (ctx.get_current_key(), self.count.value(), timestamp)
            self.count.clear()
            self.last.clear()


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_keyed_process_function_with_state_and_event_time_timers(mode: str):
    data = [("a", 0), ("b", 100), ("a", 500), ("a", 3000), ("b", 4000), ("a", 3100), ("b", 4500)]
    env = make_env(2, watermark_interval=0, minicluster__mode=mode)  # only the final watermark
    out = (
        env.from_collection(data)
        .assign_timestamps_and_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(200)).with_timestamp_assigner(
                lambda v, ts: v[1]
            )
        )
        .key_by(lambda v: v[0])
        .process(Expire())
    )
    # The final watermark fires every timer in time order; only each key's last one emits.
    assert sorted(out.execute_and_collect(limit=100)) == [("a", 4, 4100), ("b", 3, 5500)]
