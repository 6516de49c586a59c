"""Two-input operators one at a time: watermark combination, connect functions, broadcast
state, interval join and operator state, driven through the operator harness."""

from __future__ import annotations

import pytest

from millstream.datastream.functions import (
    BroadcastProcessFunction,
    CheckpointedFunction,
    CoFlatMapFunction,
    CoMapFunction,
    CoProcessFunction,
    KeyedBroadcastProcessFunction,
    KeyedCoProcessFunction,
    MapFunction,
    ProcessJoinFunction,
)
from millstream.datastream.state import ListStateDescriptor, MapStateDescriptor, ValueStateDescriptor
from millstream.runtime.location import UserFunctionError
from millstream.runtime.state.operator_state import (
    BROADCAST,
    SPLIT_DISTRIBUTE,
    UNION,
    OperatorStateBackend,
    redistribute,
)
from millstream.testing import OperatorHarness
from tests.conftest import make_env

MAX = 2**63 - 1


class Tag(CoMapFunction):
    def map1(self, value):  # type: ignore[no-untyped-def]
        return ("first", value)

    def map2(self, value):  # type: ignore[no-untyped-def]
        return ("second", value)


def harness(build, **kwargs):  # type: ignore[no-untyped-def]
    env = make_env(1)
    a = env.from_collection([0])
    b = env.from_collection([0])
    return OperatorHarness.of(build(a, b), **kwargs)


def test_watermark_is_the_minimum_of_both_inputs():
    h = harness(lambda a, b: a.connect(b).map(Tag()))
    h.process_watermark_of(1, 10)
    assert h.watermarks() == []  # input 2 is still at MIN
    h.process_watermark_of(2, 5)
    h.process_watermark_of(2, 20)
    h.process_watermark_of(1, 30)
    h.process_watermark_of(1, 31)
    assert h.watermarks() == [5, 10, 20]


def test_an_idle_input_does_not_hold_the_watermark_back():
    h = harness(lambda a, b: a.connect(b).map(Tag()))
    h.process_watermark_of(1, 100)
    h.process_status_of(2, idle=True)
    assert h.watermarks() == [100]
    assert [s for kind, s, _ in h.output if kind == "status"] == []  # input 1 still active
    h.process_status_of(1, idle=True)
    h.process_status_of(1, idle=False)
    assert [s for kind, s, _ in h.output if kind == "status"] == ["IDLE", "ACTIVE"]
    h.process_watermark_of(1, 150)
    assert h.watermarks() == [100, 150]


def test_co_map_and_co_flat_map_keep_timestamps():
    h = harness(lambda a, b: a.connect(b).map(Tag()))
    h.process_element_of(1, "x", 7)
    h.process_element_of(2, "y", 9)
    assert h.records() == [(("first", "x"), 7), (("second", "y"), 9)]

    class Split(CoFlatMapFunction):
        def flat_map1(self, value):  # type: ignore[no-untyped-def]
            return value.split()

        def flat_map2(self, value):  # type: ignore[no-untyped-def]
            yield value * 2

    h = harness(lambda a, b: a.connect(b).flat_map(Split()))
    h.process_element_of(1, "a b", 3)
    h.process_element_of(2, 21)
    assert h.records() == [("a", 3), ("b", 3), (42, None)]


def test_a_failing_co_function_names_the_operator_and_the_record():
    class Fails(CoMapFunction):
        def map1(self, value):  # type: ignore[no-untyped-def]
            return 1 // value

        def map2(self, value):  # type: ignore[no-untyped-def]
            return value

    h = harness(lambda a, b: a.connect(b).map(Fails()))
    with pytest.raises(UserFunctionError) as info:
        h.operator.process_batch1([1, 0], None)
    assert "Co-Map" in str(info.value)
    assert info.value.record_index == 1
    assert "on record 0" in str(info.value)


class Totals(KeyedCoProcessFunction):
    """Adds input-1 amounts and subtracts input-2 amounts per key; reports at the timer."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.total = runtime_context.get_state(ValueStateDescriptor("total"))

    def process_element1(self, value, ctx):  # type: ignore[no-untyped-def]
        self.total.update((self.total.value() or 0) + value[1])
        ctx.timer_service().register_event_time_timer(100)
        return []

    def process_element2(self, value, ctx):  # type: ignore[no-untyped-def]
        self.total.update((self.total.value() or 0) - value[1])
        ctx.timer_service().register_event_time_timer(100)
        return []

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        yield (ctx.get_current_key(), self.total.value(), ctx.timestamp())


def test_keyed_co_process_shares_state_and_timers_per_key_across_inputs():
    h = harness(lambda a, b: a.connect(b).key_by(lambda v: v[0], lambda v: v[0]).process(Totals()))
    h.process_element_of(1, ("a", 5), 1)
    h.process_element_of(2, ("a", 2), 2)
    h.process_element_of(1, ("b", 1), 3)
    h.process_element_of(2, ("b", 4), 4)
    h.process_watermark_of(1, 150)
    assert h.values() == []  # input 2 still at MIN: no timer fires
    h.process_watermark_of(2, 120)
    assert sorted(h.records()) == [(("a", 3, 100), 100), (("b", -3, 100), 100)]
    assert h.watermarks() == [120]


def test_keyed_co_process_needs_keyed_inputs_and_co_process_has_no_timers():
    env = make_env(1)
    a, b = env.from_collection([1]), env.from_collection([2])
    with pytest.raises(TypeError, match="both keyed"):
        a.connect(b).process(Totals())

    class Timers(CoProcessFunction):
        def process_element1(self, value, ctx):  # type: ignore[no-untyped-def]
            ctx.timer_service().register_event_time_timer(5)
            return []

        def process_element2(self, value, ctx):  # type: ignore[no-untyped-def]
            yield value, ctx.timestamp()

    h = harness(lambda a, b: a.connect(b).process(Timers()))
    h.process_element_of(2, "v", 11)
    assert h.values() == [("v", 11)]
    with pytest.raises(UserFunctionError) as info:
        h.process_element_of(1, "v")
    assert "only supported on a keyed streams" in str(info.value.__cause__)


RULES = MapStateDescriptor("rules")


class Lookup(BroadcastProcessFunction):
    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        yield value, ctx.get_broadcast_state(RULES).get(value)

    def process_broadcast_element(self, value, ctx):  # type: ignore[no-untyped-def]
        ctx.get_broadcast_state(RULES).put(value[0], value[1])
        return []


def test_broadcast_state_is_written_by_the_broadcast_side_and_read_by_the_other():
    h = harness(lambda a, b: a.connect(b.broadcast(RULES)).process(Lookup()))
    h.process_element_of(1, "x")
    h.process_element_of(2, ("x", 1))
    h.process_element_of(1, "x")
    h.process_element_of(2, ("x", 2))
    h.process_element_of(1, "x")
    assert h.values() == [("x", None), ("x", 1), ("x", 2)]
    assert dict(h.operator.operator_state_backend.snapshot()["rules"][1]) == {"x": 2}


def test_broadcast_state_is_read_only_on_the_non_broadcast_side_and_must_be_registered():
    class Writes(BroadcastProcessFunction):
        def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
            ctx.get_broadcast_state(RULES).put(value, 1)
            return []

        def process_broadcast_element(self, value, ctx):  # type: ignore[no-untyped-def]
            ctx.get_broadcast_state(MapStateDescriptor("other")).put(value, 1)
            return []

    h = harness(lambda a, b: a.connect(b.broadcast(RULES)).process(Writes()))
    with pytest.raises(UserFunctionError) as info:
        h.process_element_of(1, "x")
    assert "read-only" in str(info.value.__cause__)
    with pytest.raises(UserFunctionError) as info:
        h.process_element_of(2, "x")
    assert "does not exist" in str(info.value.__cause__)


def test_a_keyed_stream_needs_a_keyed_broadcast_function():
    env = make_env(1)
    keyed = env.from_collection([1]).key_by(lambda v: v)
    rules = env.from_collection([2]).broadcast(RULES)
    with pytest.raises(TypeError, match="KeyedBroadcastProcessFunction"):
        keyed.connect(rules).process(Lookup())


class Thresholds(KeyedBroadcastProcessFunction):
    """Counts per key; the broadcast side sets a threshold and resets every key's count."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        self.count.update((self.count.value() or 0) + 1)
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 10)
        return []

    def process_broadcast_element(self, value, ctx):  # type: ignore[no-untyped-def]
        ctx.get_broadcast_state(RULES).put("threshold", value)
        ctx.apply_to_keyed_state(ValueStateDescriptor("count"), lambda key, state: state.update(0))
        return []

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        threshold = ctx.get_broadcast_state(RULES).get("threshold")
        if self.count.value() >= threshold:
            yield ctx.get_current_key(), self.count.value(), timestamp


def test_keyed_broadcast_process_has_keyed_state_timers_and_apply_to_keyed_state():
    h = harness(lambda a, b: a.key_by(lambda v: v).connect(b.broadcast(RULES)).process(Thresholds()))
    h.process_element_of(2, 2)
    for key, ts in [("a", 1), ("a", 2), ("b", 3), ("a", 4)]:
        h.process_element_of(1, key, ts)
    h.process_element_of(2, 1)  # resets every count to 0
    h.process_element_of(1, "b", 5)
    h.process_watermark_of(2, MAX)
    h.process_watermark_of(1, 100)
    assert h.records() == [(("b", 1, 13), 13), (("b", 1, 15), 15)]  # "a" was reset to 0


class Pair(ProcessJoinFunction):
    def process_element(self, left, right, ctx):  # type: ignore[no-untyped-def]
        yield left, right, ctx.get_left_timestamp(), ctx.get_right_timestamp()


def join_harness(lower: int, upper: int, lower_exclusive: bool = False, upper_exclusive: bool = False):  # type: ignore[no-untyped-def]
    def build(a, b):  # type: ignore[no-untyped-def]
        joined = a.key_by(lambda v: v[0]).interval_join(b.key_by(lambda v: v[0])).between(lower, upper)
        if lower_exclusive:
            joined = joined.lower_bound_exclusive()
        if upper_exclusive:
            joined = joined.upper_bound_exclusive()
        return joined.process(Pair())

    return harness(build)


@pytest.mark.parametrize(
    ("lower_exclusive", "upper_exclusive", "expected_right_ts"),
    [(False, False, [8, 10, 12]), (True, False, [10, 12]), (False, True, [8, 10]), (True, True, [10])],
)
def test_interval_join_bounds(lower_exclusive: bool, upper_exclusive: bool, expected_right_ts: list[int]):
    h = join_harness(-2, 2, lower_exclusive, upper_exclusive)
    h.process_element_of(1, ("k", "L"), 10)
    for ts in (7, 8, 10, 12, 13):
        h.process_element_of(2, ("k", f"R{ts}"), ts)
    h.process_element_of(2, ("other", "R10"), 10)
    records = h.records()
    assert [r[0][3] for r in records] == expected_right_ts
    assert all(ts == max(10, value[3]) for value, ts in records)  # the larger timestamp


def test_interval_join_matches_in_both_arrival_orders_and_drops_late_elements():
    h = join_harness(0, 5)
    h.process_element_of(2, ("k", "R"), 14)  # right first
    h.process_element_of(1, ("k", "L"), 10)
    assert h.values() == [(("k", "L"), ("k", "R"), 10, 14)]
    h.process_watermark_of(1, 20)
    h.process_watermark_of(2, 20)
    h.process_element_of(1, ("k", "late"), 19)  # behind the watermark: dropped
    h.process_element_of(2, ("k", "R2"), 21)
    assert h.values() == []


def test_interval_join_cleans_its_buffers_when_the_watermark_passes():
    h = join_harness(-3, 5)
    for i in range(50):
        h.process_element_of(1, ("k", i), i * 10)
        h.process_element_of(2, ("k", i), i * 10 + 1)
    tables = h.operator.keyed_backend.tables
    assert len(tables["interval-join-left-buffer"]) == 1  # one key, a map of 50 timestamps
    h.process_watermark_of(1, 10_000)
    h.process_watermark_of(2, 10_000)
    left = list(tables["interval-join-left-buffer"].entries())
    right = list(tables["interval-join-right-buffer"].entries())
    assert all(not entry[2] for entry in left + right)
    assert len(h.values()) == 50  # each left joins exactly its right (+1 ms)


def test_interval_join_needs_timestamps():
    h = join_harness(0, 1)
    with pytest.raises(UserFunctionError) as info:
        h.process_element_of(1, ("k", 1))
    assert "timestamps" in str(info.value.__cause__)


def test_interval_join_bounds_are_checked():
    env = make_env(1)
    a = env.from_collection([1]).key_by(lambda v: v)
    with pytest.raises(ValueError, match="lowerBound <= upperBound"):
        a.interval_join(a).between(5, 1)


# -- operator state ------------------------------------------------------------------------


def test_list_state_is_split_union_state_is_shared_and_broadcast_state_copied():
    snapshots = []
    for subtask in range(3):
        backend = OperatorStateBackend()
        offsets = [f"{subtask}-{i}" for i in range(subtask + 1)]
        backend.get_list_state(ListStateDescriptor("offsets")).add_all(offsets)
        backend.get_union_list_state(ListStateDescriptor("seen")).add(subtask)
        backend.get_broadcast_state(RULES).put("x", 1)
        snapshots.append(backend.snapshot())
    new = redistribute(snapshots, 2)
    offsets = [snap["offsets"] for snap in new]
    assert [mode for mode, _ in offsets] == [SPLIT_DISTRIBUTE, SPLIT_DISTRIBUTE]
    assert offsets[0][1] + offsets[1][1] == ["0-0", "1-0", "1-1", "2-0", "2-1", "2-2"]
    assert [len(items) for _, items in offsets] == [3, 3]
    assert all(snap["seen"] == (UNION, [0, 1, 2]) for snap in new)
    assert all(snap["rules"] == (BROADCAST, {"x": 1}) for snap in new)
    restored = OperatorStateBackend(new[1])
    assert restored.is_restored()
    assert restored.get_list_state(ListStateDescriptor("offsets")).get() == ["2-0", "2-1", "2-2"]
    with pytest.raises(ValueError, match="mode"):
        restored.get_union_list_state(ListStateDescriptor("offsets"))


def test_checkpointed_function_gets_operator_state_before_open():
    calls = []

    class Counting(MapFunction, CheckpointedFunction):
        def initialize_state(self, context):  # type: ignore[no-untyped-def]
            calls.append(("initialize", context.is_restored()))
            self.seen = context.get_operator_state_store().get_list_state(ListStateDescriptor("seen"))

        def snapshot_state(self, context):  # type: ignore[no-untyped-def]
            pass

        def open(self, runtime_context):  # type: ignore[no-untyped-def]
            calls.append(("open", self.seen.get()))

        def map(self, value):  # type: ignore[no-untyped-def]
            self.seen.add(value)
            return value

    env = make_env(1)
    h = OperatorHarness.of(env.from_collection([1]).map(Counting()))
    h.process_element("a")
    h.process_element("b")
    assert calls == [("initialize", False), ("open", [])]
    assert h.operator.operator_state_backend.snapshot()["seen"] == (SPLIT_DISTRIBUTE, ["a", "b"])
