"""The window operator's fast path (aligned event-time windows, EventTimeTrigger, incremental
state) gives exactly what the general path gives, on random out-of-order input with random
watermarks and allowed lateness."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from millstream.datastream import OutputTag, StreamExecutionEnvironment
from millstream.datastream.functions import AggregateFunction, ProcessWindowFunction
from millstream.datastream.window import (
    EventTimeSessionWindows,
    EventTimeTrigger,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
)
from millstream.testing import OperatorHarness
from tests.conftest import ci_examples


class _GeneralTumbling(TumblingEventTimeWindows):
    pass


class _GeneralSliding(SlidingEventTimeWindows):
    pass


class _GeneralTrigger(EventTimeTrigger):
    pass


def _add(a, b):  # type: ignore[no-untyped-def]
    return (a[0], a[1] + b[1])


# times on a 2500 ms grid (and one before it), the grid of the window starts, sizes and the
# lateness, so elements and watermarks hit window ends and cleanup times exactly
times = st.integers(-2, 10).flatmap(lambda k: st.sampled_from([k * 2500 - 1, k * 2500]))
events = st.lists(
    st.one_of(
        st.tuples(st.just("e"), st.sampled_from("ab"), times),
        st.tuples(st.just("w"), st.just(""), times),
    ),
    max_size=30,
)


def _run(window, trigger, script, lateness):  # type: ignore[no-untyped-def]
    env = StreamExecutionEnvironment.get_execution_environment()
    windowed = env.from_collection([]).key_by(lambda v: v[0]).window(window).trigger(trigger)
    windowed = windowed.allowed_lateness(lateness).side_output_late_data(OutputTag("late"))
    h = OperatorHarness.of(windowed.reduce(_add))
    watermark = -(2**63)
    for kind, key, ts in script:
        if kind == "e":
            h.process_element((key, ts % 7), ts)
        elif ts > watermark:
            watermark = ts
            h.process_watermark(ts)
    h.end_input()
    # the final watermark fired every cleanup timer: no window contents are left behind
    assert sum(map(len, h.operator._window_table.groups)) == 0
    return h.output, h.side_outputs, h.operator._fast


@ci_examples(600)  # cheap (ms each); boundary cases need several exact hits
@given(events, st.sampled_from([0, 2500]), st.booleans())
def test_the_fast_path_equals_the_general_path(script, lateness, sliding):  # type: ignore[no-untyped-def]
    if sliding:
        fast_window, general_window = (
            SlidingEventTimeWindows(10_000, 4_000, 1_000),
            _GeneralSliding(10_000, 4_000, 1_000),
        )
    else:
        fast_window, general_window = TumblingEventTimeWindows(10_000, 2_000), _GeneralTumbling(10_000, 2_000)
    fast_out, fast_late, fast = _run(fast_window, EventTimeTrigger(), script, lateness)
    general_out, general_late, general = _run(general_window, _GeneralTrigger(), script, lateness)
    assert fast is not None and general is None
    assert fast_out == general_out
    assert fast_late == general_late


# -- session windows -------------------------------------------------------------------------


class _GeneralSessions(EventTimeSessionWindows):
    """The general path and Flink's merge algorithm (every window sorted and merged)."""

    merges_intersecting_time_windows = False


sessions_script = st.lists(
    st.one_of(
        st.tuples(st.just("e"), st.sampled_from("ab"), st.integers(-1, 16).map(lambda k: k * 1250)),
        st.tuples(st.just("w"), st.just(""), st.integers(-1, 16).map(lambda k: k * 1250 - 1)),
        st.tuples(st.just("s"), st.just(""), st.just(0)),
    ),
    max_size=40,
)


class _Average(AggregateFunction):
    """(key, sum, count) accumulators: a result unlike the accumulator."""

    def create_accumulator(self):  # type: ignore[no-untyped-def]
        return ("", 0, 0)

    def add(self, value, accumulator):  # type: ignore[no-untyped-def]
        return (value[0], accumulator[1] + value[1], accumulator[2] + 1)

    def get_result(self, accumulator):  # type: ignore[no-untyped-def]
        return (accumulator[0], f"{accumulator[1]}/{accumulator[2]}")

    def merge(self, a, b):  # type: ignore[no-untyped-def]
        return (a[0] or b[0], a[1] + b[1], a[2] + b[2])


class _Bounds(ProcessWindowFunction):
    """The reduced value with its window's bounds and the windows cleared before it."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.cleared: list[tuple[int, int]] = []

    def process(self, key, context, elements):  # type: ignore[no-untyped-def]
        window = context.window()
        return [(key, window.start, window.end, *elements, tuple(self.cleared))]

    def clear(self, context):  # type: ignore[no-untyped-def]
        self.cleared.append((context.window().start, context.window().end))


FUNCTIONS = {
    "reduce": lambda windowed: windowed.reduce(_add),
    "aggregate": lambda windowed: windowed.aggregate(_Average()),
    "reduce+process": lambda windowed: windowed.reduce(_add, _Bounds()),
}


def _run_sessions(window, trigger, script, function="reduce"):  # type: ignore[no-untyped-def]
    """Outputs, late outputs and the fast path's gap; at each "s" the operator is snapshotted
    and a fresh one restored from it carries on (the fast path's state is the general one's)."""
    import pickle

    env = StreamExecutionEnvironment.get_execution_environment()
    windowed = env.from_collection([]).key_by(lambda v: v[0]).window(window).trigger(trigger)
    stream = FUNCTIONS[function](windowed.side_output_late_data(OutputTag("late")))
    h = OperatorHarness.of(stream)
    output: list = []
    late: list = []
    watermark = -(2**63)
    batch: list = []  # consecutive elements go in as one batch (as they come off a channel)
    for kind, key, ts in script + [("end", "", 0)]:
        if kind == "e":
            batch.append(((key, ts % 7), ts))
            continue
        if batch:
            h.process_elements(batch)
            batch = []
        if kind == "w" and ts > watermark:
            watermark = ts
            h.process_watermark(ts)
        elif kind == "s":
            snapshot = pickle.loads(pickle.dumps(h.snapshot()))
            output += h.output
            late += h.side_outputs.get("late", [])
            h.close()
            h = OperatorHarness.of(stream, restored_state=snapshot)
            if watermark > -(2**63):
                h.process_watermark(watermark)
    h.end_input()
    return output + h.output, late + h.side_outputs.get("late", []), h.operator._session_gap


@ci_examples(400)
@given(sessions_script, st.sampled_from(sorted(FUNCTIONS)))
def test_the_session_fast_path_equals_the_general_path(script, function):  # type: ignore[no-untyped-def]
    """Gap 2500 ms on a 1250 ms grid: sessions touch, overlap, merge two and three at a time,
    and elements fall behind the watermark; reduce, aggregate, and a reduce with a process
    window function (its window, its clear)."""
    fast_out, fast_late, fast = _run_sessions(
        EventTimeSessionWindows(2500), EventTimeTrigger(), script, function
    )
    general_out, general_late, general = _run_sessions(
        _GeneralSessions(2500), _GeneralTrigger(), script, function
    )
    assert fast == 2500 and general is None
    assert fast_out == general_out
    assert fast_late == general_late


def test_a_fired_session_among_open_ones_is_gone_for_later_merges():
    """Two open sessions of a key, the first fires; an element touching both the fired one
    and the open one merges with the open one only (the fired one was purged)."""
    script = [
        ("e", "a", 0),  # [0, 2500)
        ("e", "a", 3750),  # [3750, 6250)
        ("w", "", 2499),  # fires [0, 2500)
        ("e", "a", 1250),  # [1250, 3750): touches both
        ("e", "a", 5000),
    ]
    fast = _run_sessions(EventTimeSessionWindows(2500), EventTimeTrigger(), script)
    general = _run_sessions(_GeneralSessions(2500), _GeneralTrigger(), script)
    assert fast[2] == 2500
    assert fast[:2] == general[:2]
    assert [v for kind, v, _ in fast[0] if kind == "record"] == [("a", 0), ("a", 5 + 4 + 2)]  # ts % 7
