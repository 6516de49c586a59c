"""PyFlink's generic classes accept subscripts here too (issue 13, point 1).

PyFlink declares its functions, window assigners, triggers and state interfaces as
``Generic[...]`` and its own examples subscript them:
``class CountWindowProcessFunction(ProcessWindowFunction[tuple, tuple, str, CountWindow])``
in pyflink/examples/datastream/windowing/tumbling_count_window.py. The table below was
taken from apache-flink 2.3.0 by introspection (every public class of pyflink.datastream,
nested ones included, with ``__parameters__``); the millstream class of the same module
and name takes the same type parameters, so a ported program defines its classes
unchanged.
"""

from __future__ import annotations

import importlib

import pytest

from millstream.common import Time, Types, WatermarkStrategy
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.functions import ProcessWindowFunction
from millstream.datastream.state import ValueState, ValueStateDescriptor
from millstream.datastream.window import (
    CountWindow,
    TimeWindow,
    Trigger,
    TriggerResult,
    TumblingEventTimeWindows,
)

PYFLINK_GENERIC_CLASSES = [
    ("datastream.functions", "ProcessWindowFunction.Context", ["W2"]),
    ("datastream.functions", "ProcessAllWindowFunction.Context", ["W2"]),
    ("datastream.window", "MergingWindowAssigner.MergeCallback", ["W2"]),
    ("datastream.functions", "AllWindowFunction", ["IN", "OUT", "W"]),
    ("datastream.functions", "BroadcastProcessFunction", ["IN1", "IN2", "OUT"]),
    ("datastream.functions", "KeyedBroadcastProcessFunction", ["KEY", "IN1", "IN2", "OUT"]),
    ("datastream.functions", "ProcessAllWindowFunction", ["IN", "OUT", "W"]),
    ("datastream.functions", "ProcessWindowFunction", ["IN", "OUT", "KEY", "W"]),
    ("datastream.functions", "WindowFunction", ["IN", "OUT", "KEY", "W"]),
    ("datastream.state", "AggregatingState", ["IN", "OUT"]),
    ("datastream.state", "AppendingState", ["IN", "OUT"]),
    ("datastream.state", "BroadcastState", ["K", "V"]),
    ("datastream.state", "ListState", ["T"]),
    ("datastream.state", "MapState", ["K", "V"]),
    ("datastream.state", "MergingState", ["IN", "OUT"]),
    ("datastream.state", "ReadOnlyBroadcastState", ["K", "V"]),
    ("datastream.state", "ReducingState", ["T"]),
    ("datastream.state", "ValueState", ["T"]),
    ("datastream.window", "ContinuousEventTimeTrigger", ["T"]),
    ("datastream.window", "ContinuousProcessingTimeTrigger", ["T"]),
    ("datastream.window", "CountSlidingWindowAssigner", ["T"]),
    ("datastream.window", "CountTrigger", ["T"]),
    ("datastream.window", "CountTumblingWindowAssigner", ["T"]),
    ("datastream.window", "DynamicEventTimeSessionWindows", ["T"]),
    ("datastream.window", "DynamicProcessingTimeSessionWindows", ["T"]),
    ("datastream.window", "EventTimeSessionWindows", ["T"]),
    ("datastream.window", "EventTimeTrigger", ["T"]),
    ("datastream.window", "GlobalWindows", ["T"]),
    ("datastream.window", "MergingWindowAssigner", ["T", "W"]),
    ("datastream.window", "NeverTrigger", ["T"]),
    ("datastream.window", "ProcessingTimeSessionWindows", ["T"]),
    ("datastream.window", "ProcessingTimeTrigger", ["T"]),
    ("datastream.window", "PurgingTrigger", ["T"]),
    ("datastream.window", "SlidingEventTimeWindows", ["T"]),
    ("datastream.window", "SlidingProcessingTimeWindows", ["T"]),
    ("datastream.window", "Trigger", ["T", "W"]),
    ("datastream.window", "TumblingEventTimeWindows", ["T"]),
    ("datastream.window", "TumblingProcessingTimeWindows", ["T"]),
    ("datastream.window", "WindowAssigner", ["T", "W"]),
]


@pytest.mark.parametrize(("module", "name", "parameters"), PYFLINK_GENERIC_CLASSES)
def test_the_class_takes_pyflinks_type_parameters(module: str, name: str, parameters: list[str]) -> None:
    cls = importlib.import_module(f"millstream.{module}")
    for part in name.split("."):  # nested classes (ProcessWindowFunction.Context) too
        cls = getattr(cls, part)
    assert [p.__name__ for p in cls.__parameters__] == parameters
    subscripted = cls[tuple([object] * len(parameters)) if len(parameters) > 1 else object]
    assert subscripted.__origin__ is cls
    with pytest.raises(TypeError):
        cls[tuple([object] * (len(parameters) + 1))]


class SumPerWindow(ProcessWindowFunction[tuple, tuple, str, TimeWindow]):
    def process(self, key, context, elements):  # type: ignore[no-untyped-def]
        yield key, context.window().start, sum(e[1] for e in elements)


class FireEveryTwo(Trigger[tuple, TimeWindow]):
    """A user trigger written against the generic base, with typed state."""

    def __init__(self) -> None:
        self.seen: ValueState[int] | None = None

    def on_element(self, element, timestamp, window, ctx):  # type: ignore[no-untyped-def]
        count = ctx.get_partitioned_state(ValueStateDescriptor("n", Types.INT()))
        n = (count.value() or 0) + 1
        count.update(n)
        return TriggerResult.FIRE_AND_PURGE if n % 2 == 0 else TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):  # type: ignore[no-untyped-def]
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):  # type: ignore[no-untyped-def]
        return TriggerResult.CONTINUE

    def on_merge(self, window, ctx):  # type: ignore[no-untyped-def]
        pass

    def clear(self, window, ctx):  # type: ignore[no-untyped-def]
        ctx.get_partitioned_state(ValueStateDescriptor("n", Types.INT())).clear()


class SecondField(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):  # type: ignore[no-untyped-def]
        return value[2]


def test_subclasses_of_subscripted_generics_run_in_a_pipeline() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    data = [("a", 1, 1), ("a", 2, 2), ("b", 5, 3), ("a", 3, 4), ("a", 4, 1_500), ("b", 6, 1_600)]
    stream = env.from_collection(data).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(SecondField())
    )
    windows = stream.key_by(lambda e: e[0]).window(TumblingEventTimeWindows.of(Time.seconds(1)))
    summed = sorted(windows.process(SumPerWindow()).execute_and_collect())
    assert summed == [("a", 0, 6), ("a", 1000, 4), ("b", 0, 5), ("b", 1000, 6)]
    pairs = sorted(windows.trigger(FireEveryTwo()).process(SumPerWindow()).execute_and_collect())
    assert pairs == [("a", 0, 3)]  # the one window that saw two elements before the end
    assert CountWindow(0).max_timestamp() >= 0
