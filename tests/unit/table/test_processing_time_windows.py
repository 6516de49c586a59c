"""A processing-time window fires when the operator's clock reaches its end, and only then: a
window still open when a bounded input ends is not emitted (issue 48, point 6), as Flink's task
drops the processing-time timers it has not fired when it finishes. Before, millstream emitted
every open window at the end of the input (official Nexmark q12 counted 92,000 bids here,
26,379 on PyFlink 2.3.0, whose 10-second windows were still open when its source ended).

PyFlink 2.3.0, a datagen table ``src (k INT, v INT, p AS PROCTIME())`` of 60 rows at 40 rows a
second, ``SELECT k, COUNT(*) ... FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(p), INTERVAL '10'
SECOND)) GROUP BY k, window_start, window_end`` collected: no row (the job ended 1.5 s in, its
window open); with ``INTERVAL '0.5' SECOND`` windows: 40 of the 60 rows, the last window's left
out.
"""

from __future__ import annotations

from typing import Any

from millstream.datastream import StreamExecutionEnvironment
from millstream.table.common.window_spec import WindowSpec
from millstream.table.runtime.window_operators import ProcessingTimeSlices
from millstream.table.types import DataTypes
from millstream.testing import OperatorHarness

COUNT = [("COUNT", lambda row: row[1], DataTypes.BIGINT())]


def _harness(size_ms: int) -> OperatorHarness:
    env = StreamExecutionEnvironment.get_execution_environment()
    keyed = env.from_collection([]).key_by(lambda change: change[1][0])
    windows = ProcessingTimeSlices(WindowSpec("TUMBLE", size_ms), 2, "TIMESTAMP_LTZ", COUNT)
    return OperatorHarness.of(keyed.process(windows), processing_time=1_000)


def _counts(harness: OperatorHarness) -> list[tuple[Any, int]]:
    return [(row[0], row[1]) for _, row in harness.values()]


def test_a_window_still_open_when_the_input_ends_is_not_emitted() -> None:
    harness = _harness(10_000)
    for i in range(60):
        harness.process_element(("+I", ("ab"[i % 2], i, None)))
    harness.set_processing_time(2_500)  # the source ended 1.5 s in: the window [0, 10 s) is open
    harness.end_input()
    assert _counts(harness) == []  # PyFlink 2.3.0: no row


def test_the_windows_the_clock_passed_fire_the_open_one_does_not() -> None:
    harness = _harness(500)
    for i in range(60):
        if i in (20, 40):  # 20 rows in each half second
            harness.set_processing_time(1_000 + i * 25)
        harness.process_element(("+I", ("a", i, None)))
    assert _counts(harness) == [("a", 20), ("a", 20)]  # [1.0, 1.5) and [1.5, 2.0) fired
    harness.end_input()
    assert _counts(harness) == []  # [2.0, 2.5) holds 20 rows, open at the end: left out, as PyFlink's
