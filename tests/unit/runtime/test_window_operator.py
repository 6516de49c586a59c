"""WindowOperator: out-of-order input replayed against known outputs, per assigner, trigger,
evictor, lateness setting and function kind (Flink's semantics)."""

from __future__ import annotations

import pytest

from millstream.common import Time
from millstream.datastream import AggregateFunction, OutputTag, StreamExecutionEnvironment
from millstream.datastream.functions import ProcessWindowFunction, WindowFunction
from millstream.datastream.state import ValueStateDescriptor
from millstream.datastream.window import (
    ContinuousEventTimeTrigger,
    CountEvictor,
    CountTrigger,
    DeltaEvictor,
    EventTimeSessionWindows,
    EventTimeTrigger,
    GlobalWindows,
    ProcessingTimeSessionWindows,
    PurgingTrigger,
    SlidingEventTimeWindows,
    TimeEvictor,
    Trigger,
    TriggerResult,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
)
from millstream.testing import OperatorHarness

MAX = 2**63 - 1


def keyed():  # type: ignore[no-untyped-def]
    env = StreamExecutionEnvironment.get_execution_environment()
    return env.from_collection([]).key_by(lambda v: v[0])


def add(a, b):  # type: ignore[no-untyped-def]
    return (a[0], a[1] + b[1])


class Collect(ProcessWindowFunction):
    def process(self, key, context, elements):  # type: ignore[no-untyped-def]
        w = context.window()
        yield (key, w.start, w.end, [e[1] for e in elements])


class Contents(ProcessWindowFunction):
    def process(self, key, context, elements):  # type: ignore[no-untyped-def]
        yield [e[1] for e in elements]


class Avg(AggregateFunction):
    def create_accumulator(self):  # type: ignore[no-untyped-def]
        return [0, 0]

    def add(self, value, accumulator):  # type: ignore[no-untyped-def]
        return [accumulator[0] + value[1], accumulator[1] + 1]

    def get_result(self, accumulator):  # type: ignore[no-untyped-def]
        return accumulator[0] / accumulator[1]

    def merge(self, a, b):  # type: ignore[no-untyped-def]
        return [a[0] + b[0], a[1] + b[1]]


def test_tumbling_reduce_fires_when_the_watermark_passes_the_window_end():
    h = OperatorHarness.of(keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).reduce(add))
    h.process_elements([(("a", 1), 3000), (("b", 5), 9999), (("a", 2), 12000), (("a", 4), 1000)])
    h.process_watermark(9998)
    assert h.records() == []
    h.process_watermark(9999)  # window [0, 10000) ends at 9999
    assert sorted(h.records()) == [(("a", 5), 9999), (("b", 5), 9999)]
    h.process_element(("a", 7), 19999)
    h.end_input()
    assert h.records() == [(("a", 9), 19999)]


def test_the_window_boundary_is_exclusive_at_the_end_and_offsets_shift_starts():
    h = OperatorHarness.of(keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).process(Collect()))
    h.process_elements([(("a", 1), 9999), (("a", 2), 10000), (("a", 3), -1)])
    h.end_input()
    assert sorted(h.values()) == [("a", -10000, 0, [3]), ("a", 0, 10000, [1]), ("a", 10000, 20000, [2])]

    offset = TumblingEventTimeWindows.of(Time.seconds(10), Time.seconds(3))
    h = OperatorHarness.of(keyed().window(offset).process(Collect()))
    h.process_elements([(("a", 1), 2999), (("a", 2), 3000), (("a", 3), 12999)])
    h.end_input()
    assert sorted(h.values()) == [("a", -7000, 3000, [1]), ("a", 3000, 13000, [2, 3])]


def test_sliding_windows_hold_each_element_size_over_slide_times():
    h = OperatorHarness.of(
        keyed().window(SlidingEventTimeWindows.of(Time.seconds(10), Time.seconds(5))).process(Collect())
    )
    h.process_elements([(("a", 1), 1000), (("a", 2), 6000), (("a", 3), 11000)])
    h.process_watermark(9999)
    assert h.values() == [("a", -5000, 5000, [1]), ("a", 0, 10000, [1, 2])]
    h.end_input()
    assert sorted(h.values()) == [("a", 5000, 15000, [2, 3]), ("a", 10000, 20000, [3])]


def test_sliding_first_window_fires_at_its_own_end():
    h = OperatorHarness.of(
        keyed().window(SlidingEventTimeWindows.of(Time.seconds(10), Time.seconds(5))).reduce(add)
    )
    h.process_element(("a", 1), 1000)
    h.process_watermark(4999)
    assert h.records() == [(("a", 1), 4999)]


def test_incremental_aggregate_keeps_one_accumulator_per_key_and_window():
    stream = keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).aggregate(Avg())
    h = OperatorHarness.of(stream)
    h.process_elements([(("a", v), 1000 + v) for v in range(100)] + [(("b", 4), 5)])
    table = h.operator.keyed_backend.tables["window-contents"]  # type: ignore[union-attr]
    entries = list(table.entries())
    assert len(entries) == 2
    assert sorted(value for _, _, value in entries) == [[4, 1], [4950, 100]]
    h.end_input()
    assert sorted(h.values()) == [4.0, 49.5]


def test_aggregate_with_a_process_window_function_gets_the_result_and_the_window():
    class WithWindow(ProcessWindowFunction):
        def process(self, key, context, elements):  # type: ignore[no-untyped-def]
            (avg,) = elements
            yield (key, context.window().end, avg)

    h = OperatorHarness.of(
        keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).aggregate(Avg(), WithWindow())
    )
    h.process_elements([(("a", 1), 1), (("a", 2), 2), (("a", 6), 10001)])
    h.end_input()
    assert h.values() == [("a", 10000, 1.5), ("a", 20000, 6.0)]


def test_reduce_with_a_window_function_and_apply():
    class Apply(WindowFunction):
        def apply(self, key, window, inputs):  # type: ignore[no-untyped-def]
            return [(key, window.start, list(inputs))]

    h = OperatorHarness.of(keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).reduce(add, Apply()))
    h.process_elements([(("a", 1), 1), (("a", 2), 2)])
    h.end_input()
    assert h.values() == [("a", 0, [("a", 3)])]

    h = OperatorHarness.of(keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).apply(Apply()))
    h.process_elements([(("a", 1), 1), (("a", 2), 2)])
    h.end_input()
    assert h.values() == [("a", 0, [("a", 1), ("a", 2)])]


def test_session_windows_merge_touching_and_overlapping_sessions():
    h = OperatorHarness.of(
        keyed().window(EventTimeSessionWindows.with_gap(Time.seconds(3))).process(Collect())
    )
    # 1000 -> [1000, 4000); 4000 touches it -> [1000, 7000); 11000 is a new session.
    h.process_elements([(("a", 1), 1000), (("a", 2), 4000), (("a", 3), 11000), (("b", 9), 5000)])
    h.process_watermark(5999)
    assert h.values() == []
    # 6000 extends the first session to [1000, 9000); 8000 bridges it and [11000, 14000).
    h.process_elements([(("a", 4), 6000), (("a", 5), 8000)])
    h.process_watermark(7999)
    assert h.values() == [("b", 5000, 8000, [9])]
    h.end_input()
    ((key, start, end, contents),) = h.values()
    assert (key, start, end, sorted(contents)) == ("a", 1000, 14000, [1, 2, 3, 4, 5])


def test_session_with_dynamic_gaps():
    sessions = EventTimeSessionWindows.with_dynamic_gap(lambda v: v[1] * 1000)
    h = OperatorHarness.of(keyed().window(sessions).process(Collect()))
    h.process_elements([(("a", 1), 0), (("a", 5), 2000), (("a", 1), 6500)])
    h.end_input()
    # [0,1000) alone; [2000,7000) and [6500,7500) overlap
    assert h.values() == [("a", 0, 1000, [1]), ("a", 2000, 7500, [5, 1])]


def test_allowed_lateness_refires_and_later_elements_go_to_the_side_output():
    late = OutputTag("late")
    stream = (
        keyed()
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .allowed_lateness(5000)
        .side_output_late_data(late)
        .reduce(add)
    )
    h = OperatorHarness.of(stream)
    h.process_element(("a", 1), 1000)
    h.process_watermark(10000)
    assert h.records() == [(("a", 1), 9999)]
    h.process_element(("a", 2), 2000)  # late but within lateness: fires again at once
    assert h.records() == [(("a", 3), 9999)]
    h.process_watermark(14999)  # cleanup time 9999 + 5000
    h.process_element(("a", 4), 3000)  # too late
    assert h.records() == []
    assert h.side_outputs == {"late": [(("a", 4), 3000)]}


def test_late_elements_are_dropped_without_a_side_output():
    h = OperatorHarness.of(keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).reduce(add))
    h.process_watermark(20000)
    h.process_elements([(("a", 1), 5000), (("a", 2), 25000)])
    h.end_input()
    assert h.values() == [("a", 2)]
    assert h.operator.late_records_dropped == 1  # type: ignore[attr-defined]


def test_count_windows_follow_pyflink_and_incomplete_ones_never_fire():
    h = OperatorHarness.of(keyed().count_window(3, 2).process(Contents()))
    for v in [1, 3, 12, 5, 6, 8, 10]:
        h.process_element(("k", v))
    h.end_input()
    assert h.values() == [[1, 3, 12], [12, 5, 6], [6, 8, 10]]

    h = OperatorHarness.of(keyed().count_window(2).reduce(add))
    for v in [1, 2, 3, 4, 5]:
        h.process_element(("k", v))
    h.end_input()
    assert h.values() == [("k", 3), ("k", 7)]


def test_count_trigger_fires_without_purging_and_purging_trigger_purges():
    window = TumblingEventTimeWindows.of(Time.seconds(10))
    h = OperatorHarness.of(keyed().window(window).trigger(CountTrigger.of(2)).reduce(add))
    for v in [1, 2, 3, 4, 5]:
        h.process_element(("a", v), 100)
    h.end_input()
    assert h.values() == [("a", 3), ("a", 10)]  # CountTrigger never fires on time

    h = OperatorHarness.of(keyed().window(window).trigger(PurgingTrigger.of(CountTrigger.of(2))).reduce(add))
    for v in [1, 2, 3, 4, 5]:
        h.process_element(("a", v), 100)
    h.end_input()
    assert h.values() == [("a", 3), ("a", 7)]


def test_continuous_event_time_trigger_fires_every_interval_and_at_the_end():
    window = TumblingEventTimeWindows.of(Time.seconds(10))
    trigger = ContinuousEventTimeTrigger.of(Time.seconds(3))
    h = OperatorHarness.of(keyed().window(window).trigger(trigger).reduce(add))
    h.process_element(("a", 1), 1000)  # next firing at 3000
    h.process_watermark(3000)
    assert h.records() == [(("a", 1), 9999)]
    h.process_element(("a", 2), 4000)
    h.process_watermark(6000)
    assert h.values() == [("a", 3)]
    h.process_watermark(9999)
    assert h.values() == [("a", 3), ("a", 3)]  # the 9000 firing and the end of the window


def test_continuous_trigger_aligns_negative_timestamps_as_java_does():
    window = TumblingEventTimeWindows.of(Time.seconds(10))
    trigger = ContinuousEventTimeTrigger.of(Time.seconds(1))
    h = OperatorHarness.of(keyed().window(window).trigger(trigger).reduce(add))
    h.process_element(("a", 1), -2822)  # Java: -2822 - (-2822 % 1000) = -2000, next firing -1000
    h.process_watermark(-1500)
    assert h.values() == []
    h.process_watermark(-1000)
    assert h.values() == [("a", 1)]


def test_user_trigger_and_event_time_trigger_are_interchangeable():
    class FireOnBig(Trigger):
        def on_element(self, element, timestamp, window, ctx):  # type: ignore[no-untyped-def]
            return TriggerResult.FIRE_AND_PURGE if element[1] >= 10 else TriggerResult.CONTINUE

        def on_processing_time(self, time, window, ctx):  # type: ignore[no-untyped-def]
            return TriggerResult.CONTINUE

        def on_event_time(self, time, window, ctx):  # type: ignore[no-untyped-def]
            return TriggerResult.CONTINUE

        def clear(self, window, ctx):  # type: ignore[no-untyped-def]
            pass

    window = TumblingEventTimeWindows.of(Time.seconds(10))
    h = OperatorHarness.of(keyed().window(window).trigger(FireOnBig()).reduce(add))
    for v in [1, 2, 10, 3, 20]:
        h.process_element(("a", v), 5)
    h.end_input()
    assert h.values() == [("a", 13), ("a", 23)]

    h = OperatorHarness.of(keyed().window(window).trigger(EventTimeTrigger.create()).process(Collect()))
    h.process_elements([(("a", 1), 5), (("a", 2), 6)])
    h.end_input()
    assert h.values() == [("a", 0, 10000, [1, 2])]


def test_processing_time_windows_fire_on_the_clock():
    window = TumblingProcessingTimeWindows.of(Time.seconds(10))
    h = OperatorHarness.of(keyed().window(window).reduce(add), processing_time=1000)
    h.process_element(("a", 1))
    h.process_element(("a", 2))
    h.set_processing_time(9998)
    assert h.records() == []
    h.set_processing_time(9999)
    assert h.records() == [(("a", 3), 9999)]
    h.process_element(("a", 5))
    h.set_processing_time(25000)
    assert h.values() == [("a", 5)]


def test_processing_time_sessions_merge_on_the_clock():
    h = OperatorHarness.of(
        keyed().window(ProcessingTimeSessionWindows.with_gap(Time.seconds(1))).process(Collect()),
        processing_time=0,
    )
    h.process_element(("a", 1))
    h.set_processing_time(500)
    h.process_element(("a", 2))
    h.set_processing_time(1498)
    assert h.records() == []
    h.set_processing_time(1499)  # the merged window [0, 1500) ends at 1499
    assert h.values() == [("a", 0, 1500, [1, 2])]


@pytest.mark.parametrize(
    ("evictor", "expected"),
    [
        (CountEvictor.of(2), [[3, 4]]),
        (CountEvictor.of(2, do_evict_after=True), [[1, 2, 3, 4]]),
        (TimeEvictor.of(Time.seconds(2)), [[3, 4]]),
        (DeltaEvictor.of(2.5, lambda a, b: abs(a[1] - b[1])), [[2, 3, 4]]),
    ],
)
def test_evictors(evictor, expected):  # type: ignore[no-untyped-def]
    window = TumblingEventTimeWindows.of(Time.seconds(10))
    h = OperatorHarness.of(keyed().window(window).evictor(evictor).process(Collect()))
    h.process_elements([(("a", 1), 1000), (("a", 2), 2000), (("a", 3), 3500), (("a", 4), 4000)])
    h.end_input()
    assert [r[3] for r in h.values()] == expected


def test_count_evictor_with_a_count_trigger_keeps_a_sliding_buffer():
    h = OperatorHarness.of(
        keyed()
        .window(GlobalWindows.create())
        .trigger(CountTrigger.of(2))
        .evictor(CountEvictor.of(3))
        .process(Contents())
    )
    for v in [1, 2, 3, 4, 5, 6]:
        h.process_element(("a", v))
    h.end_input()
    assert h.values() == [[1, 2], [2, 3, 4], [4, 5, 6]]


def test_evicting_reduce_and_aggregate():
    window = TumblingEventTimeWindows.of(Time.seconds(10))
    h = OperatorHarness.of(keyed().window(window).evictor(CountEvictor.of(2)).reduce(add))
    h.process_elements([(("a", 1), 1), (("a", 2), 2), (("a", 3), 3)])
    h.end_input()
    assert h.values() == [("a", 5)]
    h = OperatorHarness.of(keyed().window(window).evictor(CountEvictor.of(2)).aggregate(Avg()))
    h.process_elements([(("a", 1), 1), (("a", 2), 2), (("a", 3), 3)])
    h.end_input()
    assert h.values() == [2.5]


def test_global_windows_never_fire_by_default():
    h = OperatorHarness.of(keyed().window(GlobalWindows.create()).reduce(add))
    for v in range(10):
        h.process_element(("a", v), v)
    h.end_input()
    assert h.values() == []


def test_per_window_state_is_cleared_with_the_window():
    cleared = []

    class Firings(ProcessWindowFunction):
        def process(self, key, context, elements):  # type: ignore[no-untyped-def]
            state = context.window_state().get_state(ValueStateDescriptor("firings"))
            total = context.global_state().get_state(ValueStateDescriptor("total"))
            state.update((state.value() or 0) + 1)
            total.update((total.value() or 0) + 1)
            yield (context.window().start, state.value(), total.value())

        def clear(self, context):  # type: ignore[no-untyped-def]
            cleared.append(context.window().start)

    stream = (
        keyed()
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .allowed_lateness(10000)
        .process(Firings())
    )
    h = OperatorHarness.of(stream)
    h.process_element(("a", 1), 1)
    h.process_watermark(10000)
    h.process_element(("a", 2), 2)  # late, within lateness: fires again
    h.process_element(("a", 3), 10001)
    h.end_input()
    assert h.values() == [(0, 1, 1), (0, 2, 2), (10000, 1, 3)]
    assert sorted(cleared) == [0, 10000]


def test_window_function_errors_name_the_operator_key_and_window():
    def boom(a, b):  # type: ignore[no-untyped-def]
        raise ValueError("bad reduce")

    class Boom(ProcessWindowFunction):
        def process(self, key, context, elements):  # type: ignore[no-untyped-def]
            raise ValueError("bad window")

    h = OperatorHarness.of(keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).process(Boom()))
    h.process_element(("a", 1), 1)
    with pytest.raises(Exception, match=r"window function raised for key 'a', window TimeWindow\(start=0"):
        h.end_input()
    h = OperatorHarness.of(keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).reduce(boom))
    h.process_element(("a", 1), 1)
    with pytest.raises(Exception, match=r"on record \('a', 2\) at input position 1") as info:
        h.process_element(("a", 2), 2)
    assert "bad reduce" in str(info.value.__cause__)


def test_event_time_windows_need_timestamps():
    h = OperatorHarness.of(keyed().window(TumblingEventTimeWindows.of(Time.seconds(10))).reduce(add))
    with pytest.raises(Exception) as info:
        h.process_element(("a", 1))
    assert "assign_timestamps_and_watermarks" in str(info.value.__cause__)


class _Tumbling(TumblingEventTimeWindows):  # a subclass may change assign_windows: general path
    pass


class _Sliding(SlidingEventTimeWindows):
    pass


class _Trigger(EventTimeTrigger):  # a subclass may change any callback: general path
    pass


def test_the_fast_path_is_chosen_by_asking_the_assigner_and_the_trigger():
    tumbling = TumblingEventTimeWindows.of(Time.seconds(10), Time.seconds(3))
    sliding = SlidingEventTimeWindows.of(Time.seconds(10), Time.seconds(5))

    def fast(window, trigger=None):  # type: ignore[no-untyped-def]
        windowed = keyed().window(window)
        if trigger is not None:
            windowed = windowed.trigger(trigger)
        return OperatorHarness.of(windowed.reduce(add)).operator._fast

    assert fast(tumbling) == (10000, 10000, 3000)
    assert fast(sliding) == (10000, 5000, 0)
    assert fast(_Tumbling(10000)) is None
    assert fast(_Sliding(10000, 5000)) is None
    assert fast(tumbling, _Trigger()) is None
    assert fast(tumbling, ContinuousEventTimeTrigger.of(Time.seconds(1))) is None
    assert fast(EventTimeSessionWindows.with_gap(Time.seconds(1))) is None
