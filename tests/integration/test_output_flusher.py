"""The output flusher (issue 30, point 3): a record a task has emitted reaches its consumer
within the buffer timeout, whatever the task does next.

As Flink's OutputFlusher (one beside each RecordWriter, flushing every
``execution.buffer-timeout``), a TaskManager's flusher hands partly filled buffers and
pending batches to the consumers while the task thread is busy in user code. Before, the
records a task had emitted since its last flush waited until the slow call returned."""

from __future__ import annotations

import time
from typing import Any

import pytest

from millstream.common import Configuration, Types, WatermarkStrategy
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import (
    KeyedProcessFunction,
    MapFunction,
    RuntimeContext,
    SourceFunction,
    StreamExecutionEnvironment,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

RECORDS = 200  # few enough that the consumers never fall behind (no backpressure)
SLEEP_S = 4.0


class StampThenSleep(MapFunction):
    """Passes each number on with its emission time; after the second-to-last it sleeps."""

    def map(self, value: int) -> tuple[int, float]:
        if value == RECORDS - 1:
            time.sleep(SLEEP_S)  # the task thread is busy: only the flusher can send
        return (value, time.time())


class Latency(MapFunction):
    """(number, seconds from its emission to its arrival here, subtask)."""

    def open(self, runtime_context: RuntimeContext) -> None:
        self.subtask = runtime_context.get_index_of_this_subtask()

    def map(self, value: tuple[int, float]) -> tuple[int, float, int]:
        return (value[0], time.time() - value[1], self.subtask)


@pytest.mark.parametrize("buffer_timeout_ms", [500, 100])
def test_records_emitted_before_a_slow_call_reach_the_consumers_within_the_buffer_timeout(
    buffer_timeout_ms: Any,
) -> None:
    # two TaskManagers of one slot: consumer 0 shares the producer's process (a local
    # channel), consumer 1 is in the other one (a remote channel)
    conf = Configuration()
    conf.set_string("minicluster.number-of-taskmanagers", "2")
    conf.set_string("taskmanager.numberOfTaskSlots", "1")
    conf.set_string("execution.buffer-timeout", f"{buffer_timeout_ms} ms")
    # every record is a bundle of its own: its output leaves the function (it is emitted)
    # before the next record's call; with larger bundles a bundle's outputs wait for the
    # bundle, as in PyFlink (bundles.py)
    conf.set_string("python.fn-execution.bundle.size", "1")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    numbers = env.from_collection(list(range(RECORDS)), type_info=Types.INT()).set_parallelism(1)
    stamped = numbers.map(StampThenSleep()).set_parallelism(1)
    with stamped.rebalance().map(Latency()).execute_and_collect("flusher") as results:
        arrivals = list(results)
    assert len(arrivals) == RECORDS
    # every record emitted before the sleep, on both channels: the task did not flush them
    # (they took less than the buffer timeout), so they were pending when the sleep began
    before_sleep = [a for a in arrivals if a[0] < RECORDS - 1]
    assert {subtask for _, _, subtask in before_sleep} == {0, 1}
    worst = max(latency for _, latency, _ in before_sleep)
    # within the buffer timeout plus scheduling on a loaded machine; far below the sleep
    assert worst < buffer_timeout_ms / 1000 + 1.0, f"a record waited {worst:.2f} s for the slow call"


class EmitThenIdle(SourceFunction):
    """Three events with event times, then idle for IDLE_S (writing when it went idle)."""

    IDLE_S = 4.0

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.running = True

    def run(self, ctx: Any) -> None:
        for ts in (1000, 2000, 3000):
            ctx.collect(("k", ts))
        with open(self.marker, "w") as f:
            f.write(str(time.time()))
        deadline = time.monotonic() + self.IDLE_S
        while self.running and time.monotonic() < deadline:
            time.sleep(0.01)  # the source is idle: nothing but its periodic watermarks moves

    def cancel(self) -> None:
        self.running = False


class FireAt(KeyedProcessFunction):
    """An event-time timer just after each event; a fired timer says when it fired."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        ctx.timer_service().register_event_time_timer(value[1] + 1)
        return iter(())

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        yield (timestamp, time.time())


class EventTime(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return int(value[1])


def test_periodic_watermarks_of_an_idle_source_reach_the_next_task_on_time(tmp_path: Any) -> None:
    """Issue 30, point 3: while a source has nothing to emit, its periodic watermarks still
    go downstream within the buffer timeout: a timer behind them fires while the source idles,
    not when it ends (the final watermark)."""
    marker = str(tmp_path / "idle-since")
    conf = Configuration()
    conf.set_string("minicluster.number-of-taskmanagers", "2")
    conf.set_string("taskmanager.numberOfTaskSlots", "1")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    events = env.add_source(EmitThenIdle(marker)).assign_timestamps_and_watermarks(strategy)
    fired = events.key_by(lambda e: e[0], Types.STRING()).process(FireAt()).set_parallelism(2)
    with fired.execute_and_collect("idle source") as results:
        timers = sorted(results)
    idle_since = float(open(marker).read())
    assert [t for t, _ in timers] == [1001, 2001, 3001]
    # the watermark 2999 (monotonous: the latest event time - 1) fires 1001 and 2001 during
    # the idle time; 3001 waits for the final watermark at the end
    for _, when in timers[:2]:
        assert when - idle_since < EmitThenIdle.IDLE_S / 2, (
            f"fired {when - idle_since:.2f} s into the idle time"
        )
