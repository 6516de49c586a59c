"""BATCH runtime mode end to end: final-only keyed reduce, timers at the end of each key,
broadcast input first, sorting with spills, AUTOMATIC mode, two-input keyed operators."""

from __future__ import annotations

import pytest

from millstream.common import Configuration, Duration, Time, WatermarkStrategy
from millstream.datastream import KeyedProcessFunction, RuntimeExecutionMode, StreamExecutionEnvironment
from millstream.datastream.functions import BroadcastProcessFunction, ProcessJoinFunction
from millstream.datastream.state import ListStateDescriptor, MapStateDescriptor, ValueStateDescriptor
from millstream.datastream.window import EventTimeSessionWindows, TumblingEventTimeWindows
from tests.conftest import make_env

MAX = 2**63 - 1


def batch_env(parallelism: int, sort_memory_records: int | None = None):  # type: ignore[no-untyped-def]
    conf = Configuration()
    conf.set_string("execution.runtime-mode", "BATCH")
    if sort_memory_records is not None:
        conf.set_string("execution.sorted-inputs.memory-records", str(sort_memory_records))
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    return env


def with_timestamps(env, data):  # type: ignore[no-untyped-def]
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda v, ts: v[2])
    return env.from_collection(data).assign_timestamps_and_watermarks(strategy)


DATA = [("a", 1, 300), ("b", 2, 100), ("a", 3, 100), ("b", 4, 900), ("a", 5, 200), ("c", 6, 50)]


@pytest.mark.parametrize("parallelism", [1, 2])
def test_keyed_reduce_emits_only_the_final_value_per_key(parallelism: int):
    env = batch_env(parallelism)
    summed = env.from_collection(DATA).key_by(lambda v: v[0]).reduce(lambda x, y: (x[0], x[1] + y[1], 0))
    with summed.execute_and_collect() as results:
        assert sorted(results) == [("a", 9, 0), ("b", 6, 0), ("c", 6, 50)]  # c: one element, never reduced


class Ordered(KeyedProcessFunction):
    """Records arrival order per key and the watermark it saw; a timer reports them."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.seen = runtime_context.get_list_state(ListStateDescriptor("seen"))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        self.seen.add((value[2], ctx.timer_service().current_watermark()))
        ctx.timer_service().register_event_time_timer(1_000)
        return []

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        yield ctx.get_current_key(), list(self.seen.get()), timestamp


def test_timers_fire_at_the_end_of_each_key_which_sees_its_elements_sorted_by_timestamp():
    env = batch_env(1)
    out = with_timestamps(env, DATA).key_by(lambda v: v[0]).process(Ordered())
    with out.execute_and_collect() as results:
        got = sorted(results)
    min_wm = -(2**63)
    assert got == [
        ("a", [(100, min_wm), (200, min_wm), (300, min_wm)], 1_000),
        ("b", [(100, min_wm), (900, min_wm)], 1_000),
        ("c", [(50, min_wm)], 1_000),
    ]


class StateLeak(KeyedProcessFunction):
    """Counts the entries of every key's state visible when a key starts: BATCH holds one."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        self.count.update((self.count.value() or 0) + 1)
        ctx.timer_service().register_event_time_timer(MAX - 1)
        return []

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        backend = self.count._backend
        yield ctx.get_current_key(), self.count.value(), len(backend.tables["count"])


def test_only_one_keys_state_is_held_at_a_time():
    env = batch_env(1)
    data = [(f"k{i % 50}", i, i) for i in range(1_000)]
    out = with_timestamps(env, data).key_by(lambda v: v[0]).process(StateLeak())
    with out.execute_and_collect() as results:
        got = sorted(results)
    assert [(k, n) for k, n, _ in got] == sorted((f"k{i}", 20) for i in range(50))
    assert {held for _, _, held in got} == {1}


@pytest.mark.parametrize("parallelism", [1, 2])
def test_windows_and_sessions_fire_without_watermarks(parallelism: int):
    env = batch_env(parallelism)
    data = [("a", 1, 100), ("a", 2, 400), ("a", 3, 5_000), ("b", 4, 9_000), ("b", 5, 9_500)]
    strategy = WatermarkStrategy.no_watermarks().with_timestamp_assigner(lambda v, ts: v[2])
    sessions = (
        env.from_collection(data)
        .assign_timestamps_and_watermarks(strategy)
        .key_by(lambda v: v[0])
        .window(EventTimeSessionWindows.with_gap(Time.seconds(1)))
        .reduce(lambda x, y: (x[0], x[1] + y[1], max(x[2], y[2])))
    )
    with sessions.execute_and_collect() as results:
        assert sorted(results) == [("a", 3, 400), ("a", 3, 5_000), ("b", 9, 9_500)]


def test_sorting_spills_to_disk_with_a_small_memory_budget():
    env = batch_env(2, sort_memory_records=100)
    data = [(f"k{i % 37}", i, (i * 7919) % 10_000) for i in range(5_000)]
    sums = (
        with_timestamps(env, sorted(data, key=lambda v: v[2]))
        .key_by(lambda v: v[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(2)))
        .reduce(lambda x, y: (x[0], x[1] + y[1], x[2]))
    )
    expected: dict[tuple[str, int], int] = {}
    for k, v, t in data:
        expected[(k, t - t % 2_000)] = expected.get((k, t - t % 2_000), 0) + v
    with sums.execute_and_collect() as results:
        got = {(k, t - t % 2_000): v for k, v, t in results}
    assert got == expected


class Enrich(BroadcastProcessFunction):
    RATES = MapStateDescriptor("rates")

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        yield value, ctx.get_broadcast_state(self.RATES).get(value)

    def process_broadcast_element(self, value, ctx):  # type: ignore[no-untyped-def]
        ctx.get_broadcast_state(self.RATES).put(value[0], value[1])
        return []


@pytest.mark.parametrize("parallelism", [1, 2])
def test_the_broadcast_input_is_read_before_the_other_input(parallelism: int):
    env = batch_env(parallelism)
    rates = env.from_collection([(f"c{i}", i) for i in range(20)]).broadcast(Enrich.RATES)
    main = env.from_collection([f"c{i % 20}" for i in range(200)])
    with main.connect(rates).process(Enrich()).execute_and_collect() as results:
        got = sorted(results)
    assert got == sorted((f"c{i % 20}", i % 20) for i in range(200))


class Pair(ProcessJoinFunction):
    def process_element(self, left, right, ctx):  # type: ignore[no-untyped-def]
        yield left[1], right[1]


def test_interval_join_in_batch_matches_every_pair():
    env = batch_env(2)
    left = with_timestamps(env, [("k", "l1", 100), ("k", "l2", 500), ("j", "l3", 100)])
    right = with_timestamps(env, [("k", "r1", 150), ("k", "r2", 1_000), ("j", "r3", 90), ("k", "r3", 480)])
    joined = (
        left.key_by(lambda v: v[0])
        .interval_join(right.key_by(lambda v: v[0]))
        .between(Time.milliseconds(-20), Time.milliseconds(60))
        .process(Pair())
    )
    with joined.execute_and_collect() as results:
        assert sorted(results) == [("l1", "r1"), ("l2", "r3"), ("l3", "r3")]


def test_automatic_mode_runs_bounded_jobs_as_batch():
    env = make_env(1)
    env.set_runtime_mode(RuntimeExecutionMode.AUTOMATIC)
    summed = env.from_collection(DATA).key_by(lambda v: v[0]).reduce(lambda x, y: (x[0], x[1] + y[1], 0))
    assert env.get_stream_graph().runtime_mode is RuntimeExecutionMode.BATCH
    with summed.execute_and_collect() as results:
        assert sorted(results) == [("a", 9, 0), ("b", 6, 0), ("c", 6, 50)]  # c: one element, never reduced


def test_streaming_mode_emits_every_rolling_update_of_the_same_job():
    env = make_env(1)
    summed = env.from_collection(DATA).key_by(lambda v: v[0]).reduce(lambda x, y: (x[0], x[1] + y[1], 0))
    with summed.execute_and_collect() as results:
        assert len(list(results)) == len(DATA)


def test_out_of_order_input_needs_no_watermark_strategy_bound_in_batch():
    """In BATCH nothing is late: a strategy without out-of-orderness still counts every element."""
    env = batch_env(1)
    data = [("a", 1, 5_000), ("a", 1, 100), ("a", 1, 1_500)]
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(0))
    counted = (
        env.from_collection(data)
        .assign_timestamps_and_watermarks(strategy.with_timestamp_assigner(lambda v, ts: v[2]))
        .key_by(lambda v: v[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .reduce(lambda x, y: (x[0], x[1] + y[1], x[2]))
    )
    with counted.execute_and_collect() as results:
        assert sorted((n, t - t % 1000) for _, n, t in results) == [(1, 0), (1, 1_000), (1, 5_000)]
