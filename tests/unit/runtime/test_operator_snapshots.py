"""Operator snapshots: an operator restored from ``snapshot_state`` (before it opens, as after
a recovery) and fed the rest of the input produces exactly what the uninterrupted operator
produces after the snapshot: keyed state, window contents, timers and operator state all
come back. Random out-of-order input and random cut points (hypothesis)."""

from __future__ import annotations

import pickle
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from millstream.common import Time
from millstream.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from millstream.datastream.state import ValueStateDescriptor
from millstream.datastream.window import (
    EventTimeSessionWindows,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
)
from millstream.testing import OperatorHarness
from tests.conftest import ci_examples


def keyed():  # type: ignore[no-untyped-def]
    env = StreamExecutionEnvironment.get_execution_environment()
    return env.from_collection([]).key_by(lambda v: v[0])


def add(a, b):  # type: ignore[no-untyped-def]
    return (a[0], a[1] + b[1])


class CountAndRemind(KeyedProcessFunction):
    """Keyed ValueState plus an event-time timer per element."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.count = runtime_context.get_state(ValueStateDescriptor("count", None))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        # a timer behind the watermark fires with the next watermark, which after a restore
        # may be one the operator saw before (the watermark is not part of a snapshot)
        if ctx.timestamp() + 500 > ctx.timer_service().current_watermark():
            ctx.timer_service().register_event_time_timer(ctx.timestamp() + 500)
        yield (value[0], n)

    def on_timer(self, timestamp, ctx):  # type: ignore[no-untyped-def]
        yield (ctx.get_current_key(), "timer", timestamp, self.count.value())


STREAMS = {
    "tumbling reduce": lambda: keyed().window(TumblingEventTimeWindows.of(Time.seconds(1))).reduce(add),
    "sliding reduce": lambda: (
        keyed().window(SlidingEventTimeWindows.of(Time.seconds(2), Time.seconds(1))).reduce(add)
    ),
    "session reduce": lambda: (
        keyed().window(EventTimeSessionWindows.with_gap(Time.milliseconds(700))).reduce(add)
    ),
    "keyed process": lambda: keyed().process(CountAndRemind()),
    "rolling reduce": lambda: keyed().reduce(add),
}

steps = st.lists(
    st.one_of(
        st.tuples(st.just("e"), st.sampled_from("abc"), st.integers(0, 6000)),
        st.tuples(st.just("w"), st.just(""), st.integers(0, 6000)),
    ),
    max_size=40,
)


def feed(h: OperatorHarness, script: list[tuple[str, str, int]], watermark: list[int]) -> None:
    for kind, key, ts in script:
        if kind == "e":
            h.process_element((key, 1), ts)
        elif ts > watermark[0]:
            watermark[0] = ts
            h.process_watermark(ts)


@ci_examples(40)
@given(name=st.sampled_from(sorted(STREAMS)), script=steps, cut=st.integers(0, 40))
def test_a_restored_operator_continues_as_if_nothing_happened(name: str, script: Any, cut: int) -> None:
    first, rest = script[:cut], script[cut:]
    uninterrupted = OperatorHarness.of(STREAMS[name]())
    watermark = [-(2**63)]
    feed(uninterrupted, first, watermark)
    produced_before = len(uninterrupted.output)
    snapshot = pickle.loads(pickle.dumps(uninterrupted.snapshot()))  # as stored in a checkpoint
    saved_watermark = list(watermark)
    feed(uninterrupted, rest, watermark)
    uninterrupted.end_input()

    restored = OperatorHarness.of(STREAMS[name](), restored_state=snapshot)
    restored.process_watermark(saved_watermark[0]) if saved_watermark[0] > -(2**63) else None
    watermark = saved_watermark
    feed(restored, rest, watermark)
    restored.end_input()
    expected = [o for o in uninterrupted.output[produced_before:] if o[0] == "record"]
    assert [o for o in restored.output if o[0] == "record"] == expected
