"""The time a task spends idle is measured as Flink's TimerGauge measures it (a wait in
progress counts now, not once it ends), and operators report Flink's operator metrics:
records in, input and output watermark, a window's late records dropped."""

from __future__ import annotations

import threading
import time

from millstream.common import Time
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.window import TumblingEventTimeWindows
from millstream.runtime.operators.elements import MIN_TIMESTAMP
from millstream.runtime.taskmanager.mailbox import MailboxProcessor, TaskMailbox
from millstream.runtime.taskmanager.task_metrics import TimerGauge
from millstream.testing import OperatorHarness

DEADLINE_S = 30.0


def _wait_for(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)  # polling an observable condition, bounded by the deadline


def test_a_timer_gauge_counts_a_measurement_in_progress() -> None:
    gauge = TimerGauge()
    assert gauge.accumulated() == 0.0
    gauge.mark_start()
    gauge.mark_start()  # a second start while measuring changes nothing
    _wait_for(lambda: gauge.accumulated() > 0.01, "an ongoing measurement was not counted")
    gauge.mark_end()
    ended = gauge.accumulated()
    assert ended > 0.01
    gauge.mark_end()  # nothing is being measured: nothing changes
    assert gauge.accumulated() == ended


def test_the_mailbox_waiting_for_input_is_idle_time_while_it_waits() -> None:
    """An idle task is idle now: its idle time grows during the wait (before, it was added
    only once the wait ended, so a task waiting for input that never came showed busy)."""
    mailbox = TaskMailbox()
    idle = TimerGauge()
    processor = MailboxProcessor(mailbox, lambda: time.monotonic() + 60, idle)
    stepped = threading.Thread(target=processor.run_step)
    stepped.start()
    try:
        _wait_for(lambda: idle.accumulated() > 0.05, "the wait did not count as idle time")
        assert stepped.is_alive()  # still waiting: the time was counted during the wait
    finally:
        mailbox.signal()
        stepped.join(DEADLINE_S)
    assert not stepped.is_alive()
    waited = idle.accumulated()
    assert waited == idle.accumulated()  # the wait ended: the gauge stands still


def test_work_is_not_idle_time() -> None:
    mailbox = TaskMailbox()
    idle = TimerGauge()
    processor = MailboxProcessor(mailbox, lambda: time.sleep(0.05), idle)  # busy, then "did work"
    assert processor.run_step()
    assert idle.accumulated() == 0.0


def _window_harness() -> OperatorHarness:
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = (
        env.from_collection([])
        .key_by(lambda v: v[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(10)))
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
    )
    return OperatorHarness.of(stream)


def test_a_window_reports_its_watermarks_and_the_late_records_it_dropped() -> None:
    """Flink's WindowOperator metrics: numRecordsIn, currentInputWatermark,
    currentOutputWatermark and numLateRecordsDropped (a late element without a side output)."""
    h = _window_harness()
    assert h.operator.operator_metrics() == {
        "numRecordsIn": 0,
        "currentInputWatermark": MIN_TIMESTAMP,
        "currentOutputWatermark": MIN_TIMESTAMP,
        "numLateRecordsDropped": 0,
    }
    h.process_element(("a", 1), 5000)
    h.process_watermark(20000)
    h.process_elements([(("a", 2), 5000), (("a", 3), 25000)])  # the first is late
    metrics = h.operator.operator_metrics()
    assert metrics["numRecordsIn"] == 3
    assert metrics["currentInputWatermark"] == metrics["currentOutputWatermark"] == 20000
    assert metrics["numLateRecordsDropped"] == 1
    assert h.watermarks() == [20000]


def test_the_output_watermark_is_what_the_operator_sent_on() -> None:
    h = _window_harness()
    h.process_watermark(1000)
    h.process_watermark(7000)
    assert h.operator.output_watermark == 7000 and h.watermarks() == [1000, 7000]
