"""Watermark valve, watermark generation, keyed state and timers (Flink's rules)."""

from __future__ import annotations

import pytest

from millstream.common import Duration, WatermarkStrategy
from millstream.common.time import Time, TimeDomain
from millstream.common.watermark_strategy import WatermarkGenerator
from millstream.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from millstream.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    StateTtlConfig,
    ValueStateDescriptor,
)
from millstream.runtime.operators.elements import MIN_TIMESTAMP, Watermark, WatermarkStatus
from millstream.runtime.state.heap import HeapKeyedStateBackend, KeyedStateError
from millstream.runtime.state.key_groups import KeyGroupRange, assign_to_key_group, compute_key_group_range
from millstream.runtime.taskmanager.watermark_valve import StatusWatermarkValve
from millstream.testing import OperatorHarness

# -- the valve ------------------------------------------------------------------------------


def valve(n: int):  # type: ignore[no-untyped-def]
    out: list[object] = []
    v = StatusWatermarkValve(n, lambda wm: out.append(wm.timestamp), lambda s: out.append(repr(s)))
    return v, out


def test_the_valve_emits_the_minimum_over_channels_and_never_goes_back():
    v, out = valve(3)
    v.input_watermark(Watermark(10), 0)
    v.input_watermark(Watermark(5), 1)
    assert out == []
    v.input_watermark(Watermark(7), 2)
    assert out == [5]
    v.input_watermark(Watermark(3), 1)  # a channel going back is ignored
    v.input_watermark(Watermark(8), 1)
    assert out == [5, 7]
    v.input_watermark(Watermark(20), 2)
    assert out == [5, 7, 8]


def test_idle_channels_do_not_hold_the_watermark_back():
    v, out = valve(2)
    v.input_watermark(Watermark(10), 0)
    v.input_status(WatermarkStatus.IDLE, 1)
    assert out == [10]
    v.input_watermark(Watermark(12), 1)  # ignored: the channel is idle
    assert out == [10]
    v.input_status(WatermarkStatus.ACTIVE, 1)
    v.input_watermark(Watermark(15), 0)
    # channel 1 is back but not aligned (its watermark 12 was never accepted; MIN < 10)
    assert out == [10, 15]
    v.input_watermark(Watermark(11), 1)
    assert out == [10, 15]
    v.input_watermark(Watermark(16), 1)  # caught up: aligned again
    v.input_watermark(Watermark(30), 0)
    assert out == [10, 15, 16]


def test_all_idle_flushes_the_highest_watermark_and_turns_the_input_idle():
    v, out = valve(2)
    v.input_watermark(Watermark(4), 0)
    v.input_watermark(Watermark(9), 1)
    assert out == [4]
    v.input_status(WatermarkStatus.IDLE, 1)
    v.input_status(WatermarkStatus.IDLE, 0)
    assert out == [4, 9, "WatermarkStatus.IDLE"]
    v.input_status(WatermarkStatus.ACTIVE, 0)
    assert out[-1] == "WatermarkStatus.ACTIVE"


# -- watermark generation -------------------------------------------------------------------


def test_bounded_out_of_orderness_watermark_is_max_minus_bound_minus_one():
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_seconds(3))
    gen = strategy.create_watermark_generator()
    emitted: list[int] = []

    class Out:
        def emit_watermark(self, wm):  # type: ignore[no-untyped-def]
            emitted.append(wm)

    gen.on_periodic_emit(Out())
    for ts in [1000, 5000, 4000]:
        gen.on_event(None, ts, Out())
    gen.on_periodic_emit(Out())
    assert emitted == [MIN_TIMESTAMP, 1999]
    mono = WatermarkStrategy.for_monotonous_timestamps().create_watermark_generator()
    mono.on_event(None, 100, Out())
    mono.on_periodic_emit(Out())
    assert emitted[-1] == 99


def test_timestamps_and_periodic_watermarks_of_assign_timestamps_and_watermarks():
    env = StreamExecutionEnvironment.get_execution_environment()
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(100)
    ).with_timestamp_assigner(lambda v, ts: v * 10)
    h = OperatorHarness.of(
        env.from_collection([]).assign_timestamps_and_watermarks(strategy), processing_time=0
    )
    h.process_element(50)
    h.process_element(20)
    assert h.records() == [(50, 500), (20, 200)]
    h.set_processing_time(199)
    assert h.watermarks() == []
    h.set_processing_time(200)  # pipeline.auto-watermark-interval = 200 ms
    assert h.watermarks() == [399]
    h.process_watermark(10**6)  # upstream watermarks are replaced ...
    assert h.watermarks() == [399]
    h.end_input()  # ... except the final one
    assert h.watermarks() == [399, 2**63 - 1]


def test_a_user_watermark_generator_and_idleness():
    class Punctuated(WatermarkGenerator):
        def on_event(self, event, event_timestamp, output):  # type: ignore[no-untyped-def]
            if event == "mark":
                output.emit_watermark(Watermark(event_timestamp))

        def on_periodic_emit(self, output):  # type: ignore[no-untyped-def]
            pass

    env = StreamExecutionEnvironment.get_execution_environment()
    strategy = (
        WatermarkStrategy.for_generator(Punctuated)
        .with_timestamp_assigner(lambda v, ts: 7)
        .with_idleness(Duration.of_millis(500))
    )
    h = OperatorHarness.of(
        env.from_collection([]).assign_timestamps_and_watermarks(strategy), processing_time=0
    )
    h.operator.process_batch(["x", "mark", "y"], None)
    # a record goes out before the watermark its on_event produced (Flink's order)
    assert h.output == [("record", "x", 7), ("record", "mark", 7), ("watermark", 7, None), ("record", "y", 7)]
    h.output.clear()
    for now in range(200, 1400, 200):
        h.set_processing_time(now)
    assert ("status", "IDLE", None) in h.output


def test_strategy_arguments_are_checked():
    with pytest.raises(ValueError):
        WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(-1))
    with pytest.raises(TypeError):
        WatermarkStrategy.no_watermarks().with_timestamp_assigner(42)


# -- keyed state ----------------------------------------------------------------------------


def backend(clock=None):  # type: ignore[no-untyped-def]
    kwargs = {"clock": clock} if clock else {}
    return HeapKeyedStateBackend(128, KeyGroupRange(0, 127), **kwargs)


def test_state_kinds_are_scoped_by_key_and_namespace_and_stored_in_key_groups():
    b = backend()
    value = b.get_state(ValueStateDescriptor("v"))
    lst = b.get_state(ListStateDescriptor("l"))
    mp = b.get_state(MapStateDescriptor("m"))
    red = b.get_state(ReducingStateDescriptor("r", lambda x, y: x + y))

    class Mean:
        def create_accumulator(self):  # type: ignore[no-untyped-def]
            return (0, 0)

        def add(self, v, acc):  # type: ignore[no-untyped-def]
            return (acc[0] + v, acc[1] + 1)

        def get_result(self, acc):  # type: ignore[no-untyped-def]
            return acc[0] / acc[1]

    agg = b.get_state(AggregatingStateDescriptor("a", Mean()))
    for key in ["x", "y"]:
        b.set_current_key(key)
        value.update(key * 2)
        lst.add(1)
        lst.add_all([2, 3])
        mp.put("k", key)
        red.add(5)
        red.add(6)
        agg.add(1)
        agg.add(4)
    b.set_current_key("x")
    assert (value.value(), lst.get(), dict(mp.items()), red.get(), agg.get()) == (
        "xx",
        [1, 2, 3],
        {"k": "x"},
        11,
        2.5,
    )
    value.clear()
    assert value.value() is None
    b.set_current_key("y")
    assert value.value() == "yy"
    group = assign_to_key_group("y", 128)
    assert ("y", None) in b.tables["v"].groups[group]
    assert b.get_state(ValueStateDescriptor("v")) is value
    with pytest.raises(KeyedStateError, match="registered as value state"):
        b.get_state(ListStateDescriptor("v"))


def test_a_key_outside_the_subtask_key_groups_is_a_clear_error():
    b = HeapKeyedStateBackend(128, compute_key_group_range(128, 2, 0))
    key = next(k for k in range(1000) if assign_to_key_group(k, 128) >= 64)
    with pytest.raises(KeyedStateError, match="outside this subtask's key groups"):
        b.set_current_key(key)


def test_ttl_expires_entries_on_read_per_update_type_and_visibility():
    now = [0.0]
    b = backend(clock=lambda: now[0])
    never = ValueStateDescriptor("never")
    never.enable_time_to_live(StateTtlConfig.new_builder(Time.seconds(10)).build())
    on_read = ValueStateDescriptor("on_read")
    on_read.enable_time_to_live(
        StateTtlConfig.new_builder(Time.seconds(10)).update_ttl_on_read_and_write().build()
    )
    expired_ok = ListStateDescriptor("expired_ok")
    expired_ok.enable_time_to_live(
        StateTtlConfig.new_builder(Time.seconds(10)).return_expired_if_not_cleaned_up().build()
    )
    b.set_current_key("k")
    s1, s2, s3 = b.get_state(never), b.get_state(on_read), b.get_state(expired_ok)
    s1.update(1)
    s2.update(2)
    s3.add(3)
    now[0] = 8.0
    assert (s1.value(), s2.value()) == (1, 2)  # reading s2 refreshes it
    now[0] = 12.0
    assert s1.value() is None
    assert s2.value() == 2
    assert s3.get() == [3]  # expired, returned once, removed
    assert s3.get() == []
    now[0] = 30.0
    assert s2.value() is None


def test_keyed_state_outside_a_keyed_stream_names_key_by():
    from millstream.runtime.operators.base import StreamingRuntimeContext

    ctx = StreamingRuntimeContext("t", 0, 1, 128, 0, operator_name="Map")
    with pytest.raises(KeyedStateError, match=r"after a 'keyBy\(\)' operation \(operator 'Map'\)"):
        ctx.get_state(ValueStateDescriptor("v"))


# -- KeyedProcessFunction timers ------------------------------------------------------------


class Timers(KeyedProcessFunction):
    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        self.count.update((self.count.value() or 0) + 1)
        timers = ctx.timer_service()
        timers.register_event_time_timer(value[1])
        timers.register_event_time_timer(value[1])  # deduplicated
        if value[1] == 500:
            timers.delete_event_time_timer(500)
        timers.register_processing_time_timer(1000)
        return []

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        yield (ctx.get_current_key(), timestamp, ctx.time_domain(), self.count.value(), ctx.timestamp())


def test_timers_fire_once_per_key_and_time_in_order_with_their_key():
    env = StreamExecutionEnvironment.get_execution_environment()
    h = OperatorHarness.of(
        env.from_collection([]).key_by(lambda v: v[0]).process(Timers()), processing_time=0
    )
    h.process_elements([(("a", 300), 1), (("b", 100), 2), (("a", 300), 3), (("a", 500), 4), (("b", 200), 5)])
    h.process_watermark(250)
    assert h.records() == [
        (("b", 100, TimeDomain.EVENT_TIME, 2, 100), 100),
        (("b", 200, TimeDomain.EVENT_TIME, 2, 200), 200),
    ]
    assert h.watermarks() == [250]
    h.process_watermark(1000)
    assert h.values() == [("a", 300, TimeDomain.EVENT_TIME, 3, 300)]  # 500 was deleted
    h.set_processing_time(1000)
    assert sorted(h.records()) == [
        (("a", 1000, TimeDomain.PROCESSING_TIME, 3, None), None),
        (("b", 1000, TimeDomain.PROCESSING_TIME, 2, None), None),
    ]


def test_timers_on_a_non_keyed_stream_are_refused():
    from millstream.datastream import ProcessFunction

    class SetsTimer(ProcessFunction):
        def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
            ctx.timer_service().register_event_time_timer(5)

    env = StreamExecutionEnvironment.get_execution_environment()
    h = OperatorHarness.of(env.from_collection([]).process(SetsTimer()))
    with pytest.raises(Exception) as info:
        h.process_element(1, 1)
    assert "only supported on a keyed streams" in str(info.value.__cause__)
