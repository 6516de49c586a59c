"""Two-input operators end to end: connect, broadcast state, window join / co-group and
interval join at parallelism 1 and 2, in TaskManager threads and processes, checked
against brute-force results."""

from __future__ import annotations

from collections import defaultdict

import pytest

from millstream.common import Duration, Time, WatermarkStrategy
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.functions import (
    BroadcastProcessFunction,
    CoGroupFunction,
    KeyedCoProcessFunction,
    ProcessJoinFunction,
)
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from millstream.datastream.window import TumblingEventTimeWindows
from tests.conftest import make_env as _make_env

N = 3_000


def make_env(parallelism: int, mode: str = "threads"):  # type: ignore[no-untyped-def]
    env = _make_env(parallelism, minicluster__mode=mode)
    env.get_config().set_auto_watermark_interval(10)
    return env


def order(i: int) -> tuple[str, int, int]:
    """(customer, amount, timestamp): up to 400 ms out of order."""
    return (f"c{i % 11}", i % 50, 1_000 + i * 5 - (i * 7919) % 400)


def payment(i: int) -> tuple[str, int, int]:
    return (f"c{(i * 3) % 11}", i % 7, 1_200 + i * 4 - (i * 104729) % 300)


def ts_of(value, record_ts):  # type: ignore[no-untyped-def]
    return value[2]


STRATEGY = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(400))
STRATEGY = STRATEGY.with_timestamp_assigner(ts_of)


def sources(env, n: int = N):  # type: ignore[no-untyped-def]
    orders = env.from_source(DataGeneratorSource(order, n), STRATEGY, "orders")
    payments = env.from_source(DataGeneratorSource(payment, n), STRATEGY, "payments")
    return orders, payments


class Balance(KeyedCoProcessFunction):
    """Per customer: orders add, payments subtract. Amounts wait in state by timestamp until
    an event-time timer at the end of their second folds them into the balance, so each
    report covers exactly the elements up to that time: only correct if timers wait for the
    watermark of both inputs."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.balance = runtime_context.get_state(ValueStateDescriptor("balance"))
        self.pending = runtime_context.get_map_state(MapStateDescriptor("pending"))

    def _add(self, amount, ctx):  # type: ignore[no-untyped-def]
        ts = ctx.timestamp()
        self.pending.put(ts, (self.pending.get(ts) or 0) + amount)
        ctx.timer_service().register_event_time_timer(ts - ts % 1000 + 999)
        return []

    def process_element1(self, value, ctx):  # type: ignore[no-untyped-def]
        return self._add(value[1], ctx)

    def process_element2(self, value, ctx):  # type: ignore[no-untyped-def]
        return self._add(-value[1], ctx)

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        due = [t for t in self.pending if t <= timestamp]
        total = (self.balance.value() or 0) + sum(self.pending.get(t) for t in due)
        for t in due:
            self.pending.remove(t)
        self.balance.update(total)
        yield ctx.get_current_key(), timestamp, total


@pytest.mark.parametrize(("parallelism", "mode"), [(1, "threads"), (2, "threads"), (2, "processes")])
def test_keyed_co_process_timers_wait_for_the_watermark_of_both_inputs(parallelism: int, mode: str):
    env = make_env(parallelism, mode)
    orders, payments = sources(env)
    stream = orders.connect(payments).key_by(lambda v: v[0], lambda v: v[0]).process(Balance())
    results = stream.execute_and_collect()
    with results:
        reported = sorted(results)
    # A timer at the end of second s fires once both inputs' watermarks passed it: by then
    # every element with timestamp <= s is pending (bounded lateness 400 ms holds).
    events = [order(i) for i in range(N)] + [(k, -a, t) for k, a, t in map(payment, range(N))]
    expected = []
    for key in {k for k, _, _ in events}:
        seconds = sorted({t - t % 1000 + 999 for k, _, t in events if k == key})
        for end in seconds:
            expected.append((key, end, sum(a for k, a, t in events if k == key and t <= end)))
    assert reported == sorted(expected)


class CountPerRule(BroadcastProcessFunction):
    RULES = MapStateDescriptor("rules")

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        return []

    def process_broadcast_element(self, value, ctx):  # type: ignore[no-untyped-def]
        state = ctx.get_broadcast_state(self.RULES)
        state.put(value, True)
        yield value, len(list(state.keys()))


@pytest.mark.parametrize(("parallelism", "mode"), [(2, "threads"), (2, "processes")])
def test_every_subtask_receives_every_broadcast_element(parallelism: int, mode: str):
    env = make_env(parallelism, mode)
    main = env.from_collection(list(range(100)))
    rules = env.from_collection([f"rule{i}" for i in range(10)]).broadcast(CountPerRule.RULES)
    results = main.connect(rules).process(CountPerRule()).execute_and_collect()
    with results:
        seen = sorted(results)
    # Each subtask stores every rule once, in the order they were broadcast.
    assert seen == sorted((f"rule{i}", i + 1) for i in range(10) for _ in range(parallelism))


def brute_force_join(size: int) -> list[tuple[str, int, int, int]]:
    orders = [order(i) for i in range(N)]
    payments = [payment(i) for i in range(N)]
    by_window = defaultdict(list)
    for p in payments:
        by_window[(p[0], p[2] - p[2] % size)].append(p)
    return sorted(
        (o[0], o[2], p[2], o[2] - o[2] % size) for o in orders for p in by_window[(o[0], o[2] - o[2] % size)]
    )


@pytest.mark.parametrize("parallelism", [1, 2])
def test_window_join_pairs_equal_keys_in_the_same_window(parallelism: int):
    env = make_env(parallelism)
    orders, payments = sources(env)
    joined = (
        orders.join(payments)
        .where(lambda o: o[0])
        .equal_to(lambda p: p[0])
        .window(TumblingEventTimeWindows.of(Time.milliseconds(500)))
        .apply(lambda o, p: (o[0], o[2], p[2], o[2] - o[2] % 500))
    )
    with joined.execute_and_collect() as results:
        assert sorted(results) == brute_force_join(500)


class Totals(CoGroupFunction):
    def co_group(self, first, second):  # type: ignore[no-untyped-def]
        first, second = list(first), list(second)
        key = (first or second)[0][0]
        yield key, sum(o[1] for o in first), sum(p[1] for p in second)


def test_co_group_sees_windows_where_one_side_is_empty():
    env = make_env(2)
    orders, payments = sources(env)
    grouped = (
        orders.co_group(payments)
        .where(lambda o: o[0])
        .equal_to(lambda p: p[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .apply(Totals())
    )
    expected: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    for side, events in ((0, map(order, range(N))), (1, map(payment, range(N)))):
        for k, amount, t in events:
            expected[(k, t - t % 1000)][side] += amount
    with grouped.execute_and_collect() as results:
        got = sorted(results)
    assert got == sorted((k, a, b) for (k, _), (a, b) in expected.items())


class Match(ProcessJoinFunction):
    def process_element(self, left, right, ctx):  # type: ignore[no-untyped-def]
        yield left[0], left[2], right[2], ctx.get_timestamp()


@pytest.mark.parametrize(("parallelism", "mode"), [(1, "threads"), (2, "processes")])
def test_interval_join_equals_brute_force(parallelism: int, mode: str):
    env = make_env(parallelism, mode)
    orders, payments = sources(env, 1_500)
    joined = (
        orders.key_by(lambda o: o[0])
        .interval_join(payments.key_by(lambda p: p[0]))
        .between(Time.milliseconds(-50), Time.milliseconds(100))
        .process(Match())
    )
    with joined.execute_and_collect() as results:
        got = sorted(results)
    expected = sorted(
        (o[0], o[2], p[2], max(o[2], p[2]))
        for o in map(order, range(1_500))
        for p in map(payment, range(1_500))
        if o[0] == p[0] and o[2] - 50 <= p[2] <= o[2] + 100
    )
    assert got == expected
    assert len(expected) > 100
