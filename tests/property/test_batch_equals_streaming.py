"""Property: on the same bounded input, STREAMING and BATCH give the same final results.

Random keyed events, out of order by less than the watermark bound (so STREAMING drops
nothing as late), through keyed reduce (last rolling update vs BATCH's final value),
tumbling and session windows, and a KeyedProcessFunction with event-time timers.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from millstream.common import Duration, Time, WatermarkStrategy
from millstream.datastream import KeyedProcessFunction, RuntimeExecutionMode
from millstream.datastream.state import MapStateDescriptor, ValueStateDescriptor
from millstream.datastream.window import EventTimeSessionWindows, TumblingEventTimeWindows
from tests.conftest import make_env

DISORDER = 500

events = st.lists(
    st.tuples(st.sampled_from("abcde"), st.integers(-50, 50), st.integers(0, DISORDER - 1)),
    min_size=1,
    max_size=120,
).map(lambda rows: [(k, v, i * 37 + jitter) for i, (k, v, jitter) in enumerate(rows)])


def run(mode: RuntimeExecutionMode, data, build, parallelism: int) -> list:  # type: ignore[no-untyped-def]
    env = make_env(parallelism, minicluster__mode="threads")
    env.set_runtime_mode(mode)
    env.get_config().set_auto_watermark_interval(1)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(DISORDER + 37))
    stream = env.from_collection(data).assign_timestamps_and_watermarks(
        strategy.with_timestamp_assigner(lambda v, ts: v[2])
    )
    with build(stream).execute_and_collect() as results:
        return list(results)


def both(data, build, parallelism: int = 2) -> tuple[list, list]:  # type: ignore[no-untyped-def]
    return (
        run(RuntimeExecutionMode.STREAMING, data, build, parallelism),
        run(RuntimeExecutionMode.BATCH, data, build, parallelism),
    )


def add(x, y):  # type: ignore[no-untyped-def]
    return (x[0], x[1] + y[1], max(x[2], y[2]))


class Balance(KeyedProcessFunction):
    """Folds amounts into a balance at event-time timers (end of each 200 ms)."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.total = runtime_context.get_state(ValueStateDescriptor("total"))
        self.pending = runtime_context.get_map_state(MapStateDescriptor("pending"))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        ts = ctx.timestamp()
        self.pending.put(ts, (self.pending.get(ts) or 0) + value[1])
        ctx.timer_service().register_event_time_timer(ts - ts % 200 + 199)
        return []

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        due = [t for t in self.pending if t <= timestamp]
        total = (self.total.value() or 0) + sum(self.pending.get(t) for t in due)
        for t in due:
            self.pending.remove(t)
        self.total.update(total)
        yield ctx.get_current_key(), timestamp, total


slow = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@slow
@given(data=events)
def test_keyed_sum_final_values_agree(data):
    streaming, batch = both(data, lambda s: s.key_by(lambda v: v[0]).reduce(add))
    last = {}
    for row in streaming:
        last[row[0]] = row
    assert sorted(batch) == sorted(last.values())


@slow
@given(data=events)
def test_tumbling_window_sums_agree(data):
    tumbling = TumblingEventTimeWindows.of(Time.milliseconds(300))
    streaming, batch = both(data, lambda s: s.key_by(lambda v: v[0]).window(tumbling).reduce(add))
    assert sorted(streaming) == sorted(batch)


@slow
@given(data=events)
def test_session_window_sums_agree(data):
    sessions = EventTimeSessionWindows.with_gap(Time.milliseconds(60))
    streaming, batch = both(data, lambda s: s.key_by(lambda v: v[0]).window(sessions).reduce(add))
    assert sorted(streaming) == sorted(batch)


@slow
@given(data=events)
def test_keyed_process_function_timers_agree(data):
    streaming, batch = both(data, lambda s: s.key_by(lambda v: v[0]).process(Balance()), parallelism=1)
    assert sorted(streaming) == sorted(batch)
