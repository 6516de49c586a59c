"""Backpressure and flushing on the embedded runtime.

A consumer that stops consuming lets the producer fill its bounded queue (a consumer in
the same TaskManager: ``taskmanager.network.local-exchange.max-queued-batches``) and then
blocks it: the number of generated elements stays bounded while the sink is stalled.
Output waiting in partly filled buffers is flushed by the buffer timeout.
"""

from __future__ import annotations

import threading
import time

import pytest

from millstream.common import WatermarkStrategy
from millstream.common.config_options import LOCAL_EXCHANGE_QUEUED_BATCHES
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.runtime.io.network.record_writer import LOCAL_BATCH
from millstream.runtime.operators.sources import SOURCE_BATCH
from tests.conftest import make_env

# Module-level state: functions of an importable module are shipped by reference, so
# tasks in this process see these objects.
GENERATED = [0]
RELEASE = threading.Event()
STALLED = threading.Event()  # the sink is inside its first element, waiting for RELEASE
ARRIVALS: list[tuple[int, float]] = []


def generate(i: int) -> int:
    GENERATED[0] = max(GENERATED[0], i + 1)
    return i


def stalled_sink(value: int) -> None:
    STALLED.set()
    RELEASE.wait(60)


def record_arrival(value: int) -> None:
    ARRIVALS.append((value, time.monotonic()))


def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.005)


def partitions_of(client):
    network = client.cluster.task_executors[0].network
    return [network.partition_manager._partitions[pid] for pid in network.partition_manager.partition_ids()]


@pytest.mark.timeout(120)
def test_stalled_consumer_blocks_the_producer_with_bounded_buffers():
    GENERATED[0] = 0
    RELEASE.clear()
    STALLED.clear()
    total = 1_000_000
    env = make_env(1, minicluster__mode="threads")  # inspects buffer pools in this process
    source = DataGeneratorSource(generate, count=total)
    # One exchange: source -> map (chained) | sink (not chained).
    env.from_source(source, WatermarkStrategy.no_watermarks(), "gen").map(lambda x: x).add_sink(
        stalled_sink
    ).disable_chaining()
    client = env.execute_async("backpressure")
    try:
        queued = LOCAL_EXCHANGE_QUEUED_BATCHES.default
        # The steady state: the sink stalls inside a batch, the producer waits with the bound
        # queued. (Waiting for "blocked" alone raced on a loaded machine: the sink had just
        # taken a batch, and the producer had not refilled the queue yet: backlog 1.)
        assert STALLED.wait(60), "the sink never got an element"
        wait_for(
            lambda: any(
                p.blocked_since and p.subpartitions[0].backlog() == queued for p in partitions_of(client)
            )
        )
        partition = partitions_of(client)[0]
        # The consumer is in this TaskManager: its queue, not the pool of 10, holds the producer.
        assert partition.subpartitions[0].backlog() == queued < partition.buffer_pool.max_segments
        assert partition.buffer_pool.blocked_requesters == 0
        # What may exist while blocked: the queued batches + the one waiting to be queued + a
        # pending batch + the sink's batch.
        bound = (queued + 3) * max(LOCAL_BATCH, SOURCE_BATCH)
        assert GENERATED[0] <= bound < total
        assert partition.buffer_pool.number_of_requested_segments <= partition.buffer_pool.max_segments
        RELEASE.set()
        client.get_job_execution_result(timeout=90)
    finally:
        RELEASE.set()
        client.close()
    assert GENERATED[0] == total


@pytest.mark.timeout(120)
@pytest.mark.parametrize("timeout_ms", [0, 30])
def test_buffer_timeout_flushes_an_idle_producer(timeout_ms):
    ARRIVALS.clear()
    env = make_env(1, minicluster__mode="threads")  # inspects buffer pools in this process
    env.set_buffer_timeout(timeout_ms)
    # 5 elements per second: far slower than a buffer fills.
    source = DataGeneratorSource(lambda i: i, count=4, records_per_second=5)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "slow").rebalance().add_sink(record_arrival)
    started = time.monotonic()
    env.execute()
    first_arrival = ARRIVALS[0][1] - started
    last_arrival = ARRIVALS[-1][1] - started
    assert [v for v, _ in ARRIVALS] == [0, 1, 2, 3]
    # Generation of element 3 starts ~0.6 s in; element 0 arrived long before that.
    assert first_arrival < last_arrival - 0.3


@pytest.mark.timeout(120)
def test_a_source_waiting_for_input_at_buffer_timeout_0_sleeps_instead_of_spinning():
    """Flushing every record must not turn the wait for the next record into a busy loop.

    A spinning task thread burns a core and holds the GIL that the TaskManager's network
    thread needs to send what was just flushed (seen as 15-60 ms record latency).
    """
    env = make_env(1, minicluster__mode="threads")
    env.set_buffer_timeout(0)
    source = DataGeneratorSource(lambda i: i, count=10, records_per_second=5)  # ~2 s of waiting
    env.from_source(source, WatermarkStrategy.no_watermarks(), "slow").rebalance().add_sink(record_arrival)
    ARRIVALS.clear()
    wall, cpu = time.monotonic(), time.process_time()
    env.execute()
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    assert len(ARRIVALS) == 10
    assert cpu < 0.5 * wall, f"{cpu:.2f} s of CPU in {wall:.2f} s: the waiting task spins"


@pytest.mark.timeout(120)
def test_without_timeout_only_full_buffers_or_the_end_flush():
    ARRIVALS.clear()
    env = make_env(1, minicluster__mode="threads")  # inspects buffer pools in this process
    env.set_buffer_timeout(-1)
    source = DataGeneratorSource(lambda i: i, count=4, records_per_second=5)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "slow").rebalance().add_sink(record_arrival)
    env.execute()
    times = [t for _, t in ARRIVALS]
    assert [v for v, _ in ARRIVALS] == [0, 1, 2, 3]
    assert times[-1] - times[0] < 0.2  # all arrived together at the end of input


class QuietSource:
    """Emits one element, then waits (without emitting) until the element was delivered."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.running = True

    def run(self, ctx):
        import os

        ctx.collect("first")
        deadline = time.monotonic() + 30
        while self.running and not os.path.exists(self.marker) and time.monotonic() < deadline:
            time.sleep(0.01)  # the source is idle: only the buffer timeout can deliver "first"
        ctx.collect("second")

    def cancel(self):
        self.running = False


def touch_marker(value):
    with open(MARKER[0], "a") as f:
        f.write(f"{value}\n")


MARKER = [""]


@pytest.mark.timeout(120)
def test_quiet_source_function_is_flushed_by_the_buffer_timeout(tmp_path):
    from millstream.datastream import SourceFunction

    class Quiet(QuietSource, SourceFunction):
        pass

    MARKER[0] = str(tmp_path / "delivered")
    env = make_env(1, minicluster__mode="threads")  # inspects buffer pools in this process
    env.set_buffer_timeout(20)
    env.add_source(Quiet(MARKER[0])).rebalance().add_sink(touch_marker)
    started = time.monotonic()
    env.execute()
    # "first" reached the sink while the source waited, so the source did not time out.
    assert time.monotonic() - started < 25
    assert open(MARKER[0]).read().split() == ["first", "second"]
