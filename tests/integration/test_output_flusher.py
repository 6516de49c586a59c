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

from millstream.common import Configuration, Types
from millstream.datastream import MapFunction, RuntimeContext, StreamExecutionEnvironment

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
