"""The bound on element batches queued for a consumer in the same TaskManager.

``ResultPartition(max_queued_batches=n)``: ``emit_objects`` of a batch waits while the
subpartition already holds ``n`` data buffers, and goes on when the consumer takes one.
Stream elements (watermarks ...) are never held by it. (Blocking partitions take no object
batches: their consumers start after the producer ends.)
"""

from __future__ import annotations

import threading
import time

import pytest

from millstream.runtime.io.network.buffer_pool import NetworkBufferPool
from millstream.runtime.io.network.partition.result_partition import ResultPartition


def make_partition(queued: int = 2, should_abort=lambda: False) -> ResultPartition:
    pool = NetworkBufferPool(total_segments=32, segment_size=256).create_buffer_pool(3, 20)
    return ResultPartition("p", 2, pool, should_abort, max_queued_batches=queued)


def wait_for(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.002)


class Emitter(threading.Thread):
    """Emits one batch the way the task thread does; keeps what it raised."""

    def __init__(self, partition: ResultPartition, subpartition: int, batch: list[int]) -> None:
        super().__init__(daemon=True)
        self.partition, self.subpartition, self.batch = partition, subpartition, batch
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.partition.emit_objects(self.subpartition, (self.batch, None), len(self.batch))
        except BaseException as err:  # reported by the test
            self.error = err


def payloads(partition: ResultPartition, subpartition: int) -> list[object]:
    taken = []
    while True:
        buffer, _ = partition.subpartitions[subpartition].poll()
        if buffer is None:
            return taken
        taken.append(buffer.payload)
        buffer.recycle()


@pytest.mark.timeout(30)
def test_the_producer_waits_while_its_consumer_has_the_bound_queued_and_goes_on_when_one_is_taken():
    partition = make_partition(queued=2)
    partition.emit_objects(0, ([1], None), 1)
    partition.emit_objects(0, ([2], None), 1)
    partition.emit_objects(1, ([10], None), 1)  # another consumer's queue is its own
    partition.emit_objects(1, ([11], None), 1)
    third = Emitter(partition, 0, [3])
    third.start()
    wait_for(lambda: partition.blocked_since > 0)
    assert third.is_alive() and partition.subpartitions[0].backlog() == 2

    buffer, _ = partition.subpartitions[0].poll()  # the consumer takes one batch
    assert buffer is not None and buffer.payload == ([1], None)
    buffer.recycle()
    third.join(10)
    assert not third.is_alive() and third.error is None
    assert partition.blocked_since == 0.0 and partition.backpressured_time() > 0
    assert payloads(partition, 0) == [([2], None), ([3], None)]  # order kept
    assert payloads(partition, 1) == [([10], None), ([11], None)]


@pytest.mark.timeout(30)
def test_stream_elements_pass_a_full_queue():
    partition = make_partition(queued=1)
    partition.emit_objects(0, ([1], None), 1)
    partition.emit_objects(0, "a watermark", 0)  # count 0: an element, not a batch; not held
    assert partition.blocked_since == 0.0
    assert payloads(partition, 0) == [([1], None), "a watermark"]


@pytest.mark.timeout(30)
def test_a_cancelled_task_stops_waiting():
    cancelled = threading.Event()
    partition = make_partition(queued=1, should_abort=cancelled.is_set)
    partition.emit_objects(0, ([1], None), 1)
    waiting = Emitter(partition, 0, [2])
    waiting.start()
    wait_for(lambda: partition.blocked_since > 0)
    cancelled.set()
    waiting.join(10)
    assert isinstance(waiting.error, InterruptedError)
    assert partition.subpartitions[0].backlog() == 1  # the batch was not queued


@pytest.mark.timeout(30)
def test_a_released_subpartition_lets_the_producer_go():
    partition = make_partition(queued=1)
    partition.emit_objects(0, ([1], None), 1)
    waiting = Emitter(partition, 0, [2])
    waiting.start()
    wait_for(lambda: partition.blocked_since > 0)
    partition.subpartitions[0].release()  # the consumer is gone (failover, cancel)
    waiting.join(10)
    assert not waiting.is_alive() and waiting.error is None
    assert partition.subpartitions[0].backlog() == 0  # dropped, its segment recycled


@pytest.mark.timeout(30)
def test_without_a_bound_only_the_pool_limits():
    partition = make_partition(queued=0)
    for i in range(5):
        partition.emit_objects(0, ([i], None), 1)
    assert partition.blocked_since == 0.0 and partition.backpressured_s == 0.0
    assert partition.subpartitions[0].backlog() == 5
