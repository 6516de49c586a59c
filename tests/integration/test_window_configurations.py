"""Every event-time window configuration end to end at parallelism 1 and 2.

Out-of-order events get a punctuated watermark after each element (one assigner subtask,
so the sequence of elements and watermarks every key sees is fixed); the keyed window
operator runs at parallelism 1 or 2 in TaskManager processes. The expected output is the
operator harness replaying that same sequence (its outputs are pinned against
hand-computed results in tests/unit/runtime/test_window_operator.py), so at either
parallelism the distributed run must produce exactly the single-operator result:
assigners, triggers, evictors, allowed lateness with its late side output, and every
window function kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from millstream.common import Time, Types, WatermarkStrategy
from millstream.common.watermark_strategy import Watermark, WatermarkGenerator
from millstream.datastream import OutputTag
from millstream.datastream.functions import AggregateFunction, ProcessWindowFunction
from millstream.datastream.window import (
    ContinuousEventTimeTrigger,
    CountEvictor,
    CountTrigger,
    DeltaEvictor,
    DynamicEventTimeSessionWindows,
    EventTimeSessionWindows,
    GlobalWindows,
    PurgingTrigger,
    SlidingEventTimeWindows,
    TimeEvictor,
    TumblingEventTimeWindows,
)
from millstream.testing import OperatorHarness
from tests.conftest import make_env

LATE = OutputTag("late", Types.PICKLED_BYTE_ARRAY())
LAG = 1_500


def event(i: int) -> tuple[str, int, int]:
    """(key, value, ts): 5 keys, timestamps up to 4 s out of order (some beyond the lag)."""
    return (f"k{(i * 3) % 5}", i % 17, 1_000 + i * 97 - (i * 7919) % 4_000)


EVENTS = [event(i) for i in range(400)]


class Punctuated(WatermarkGenerator):
    def __init__(self) -> None:
        self.highest: int | None = None

    def on_event(self, value, timestamp, output):  # type: ignore[no-untyped-def]
        self.highest = timestamp if self.highest is None else max(self.highest, timestamp)
        output.emit_watermark(Watermark(self.highest - LAG - 1))

    def on_periodic_emit(self, output):  # type: ignore[no-untyped-def]
        pass


def add(a, b):  # type: ignore[no-untyped-def]
    return (a[0], a[1] + b[1], max(a[2], b[2]))


class Average(AggregateFunction):
    def create_accumulator(self):  # type: ignore[no-untyped-def]
        return (0, 0)

    def add(self, value, acc):  # type: ignore[no-untyped-def]
        return (acc[0] + value[1], acc[1] + 1)

    def get_result(self, acc):  # type: ignore[no-untyped-def]
        return acc[0] / acc[1]

    def merge(self, a, b):  # type: ignore[no-untyped-def]
        return (a[0] + b[0], a[1] + b[1])


class Describe(ProcessWindowFunction):
    def process(self, key, context, elements):  # type: ignore[no-untyped-def]
        window = context.window()
        yield key, getattr(window, "start", None), getattr(window, "end", None), sorted(map(repr, elements))


def apply_fn(key, window, inputs):  # type: ignore[no-untyped-def]
    yield key, getattr(window, "start", None), sum(v[1] for v in inputs)


SLIDING = SlidingEventTimeWindows.of(Time.seconds(3), Time.seconds(1))
SESSIONS = EventTimeSessionWindows.with_gap(Time.milliseconds(400))
GLOBAL = GlobalWindows.create()

CONFIGS: dict[str, Callable[[Any], Any]] = {
    "tumbling reduce": lambda k: k.window(TumblingEventTimeWindows.of(Time.seconds(2))).reduce(add),
    "tumbling offset aggregate + process": lambda k: k.window(
        TumblingEventTimeWindows.of(Time.seconds(2), Time.milliseconds(300))
    ).aggregate(Average(), Describe()),
    "sliding process": lambda k: k.window(SLIDING).process(Describe()),
    "session apply": lambda k: k.window(SESSIONS).apply(apply_fn),
    "dynamic session reduce": lambda k: k.window(
        DynamicEventTimeSessionWindows.with_dynamic_gap(lambda v: 200 + v[1] * 20)
    ).reduce(add),
    "allowed lateness + late side output": lambda k: (
        k.window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .allowed_lateness(Time.milliseconds(300))
        .side_output_late_data(LATE)
        .reduce(add)
    ),
    "count window": lambda k: k.count_window(4).reduce(add),
    "sliding count window": lambda k: k.count_window(3, 2).apply(apply_fn),
    "global + count trigger": lambda k: k.window(GLOBAL).trigger(CountTrigger.of(5)).reduce(add),
    "global + purging count trigger": lambda k: (
        k.window(GlobalWindows.create()).trigger(PurgingTrigger.of(CountTrigger.of(5))).process(Describe())
    ),
    "continuous event-time trigger": lambda k: (
        k.window(TumblingEventTimeWindows.of(Time.seconds(5)))
        .trigger(ContinuousEventTimeTrigger.of(Time.seconds(1)))
        .reduce(add)
    ),
    "count evictor": lambda k: (
        k.window(TumblingEventTimeWindows.of(Time.seconds(3))).evictor(CountEvictor.of(3)).process(Describe())
    ),
    "time evictor after": lambda k: (
        k.window(TumblingEventTimeWindows.of(Time.seconds(3)))
        .evictor(TimeEvictor.of(Time.milliseconds(800), do_evict_after=True))
        .reduce(add)
    ),
    "delta evictor": lambda k: (
        k.window(TumblingEventTimeWindows.of(Time.seconds(3)))
        .evictor(DeltaEvictor.of(8, lambda a, b: abs(a[1] - b[1])))
        .apply(apply_fn)
    ),
}


def build(env, config: str):  # type: ignore[no-untyped-def]
    strategy = WatermarkStrategy.for_generator(Punctuated).with_timestamp_assigner(lambda v, ts: v[2])
    stamped = env.from_collection(EVENTS).assign_timestamps_and_watermarks(strategy).set_parallelism(1)
    return CONFIGS[config](stamped.key_by(lambda v: v[0]))


def expected(config: str) -> tuple[list[str], list[str]]:
    """Main and late outputs of one window operator fed the same elements and watermarks."""
    harness = OperatorHarness.of(build(make_env(1), config))
    watermark = None
    for value in EVENTS:
        harness.process_element(value, value[2])
        candidate = value[2] - LAG - 1
        if watermark is None or candidate > watermark:  # watermarks only advance
            watermark = candidate
            harness.process_watermark(watermark)
    harness.end_input()
    late = [repr(v) for v, _ in harness.side_outputs.get(LATE.tag_id, [])]
    return sorted(map(repr, harness.values())), sorted(late)


@pytest.mark.parametrize("parallelism", [1, 2])
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_window_configuration_matches_the_single_operator_result(config: str, parallelism: int):
    main, late = expected(config)
    assert main, "the configuration must produce output"
    env = make_env(parallelism, minicluster__mode="processes" if parallelism == 2 else "threads")
    windows = build(env, config)
    late_stream = windows.get_side_output(LATE).map(lambda v: ("LATE", v))
    with windows.union(late_stream).execute_and_collect() as results:
        got = list(results)
    assert sorted(repr(v) for v in got if not (isinstance(v, tuple) and v[:1] == ("LATE",))) == main
    assert sorted(repr(v[1]) for v in got if isinstance(v, tuple) and v[:1] == ("LATE",)) == late
    if config.startswith("allowed lateness"):
        assert late, "some events are later than the allowed lateness"
