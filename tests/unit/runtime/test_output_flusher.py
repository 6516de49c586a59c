"""The output flusher and RecordWriter.try_flush (issue 30, point 3), driven by hand: real
partitions and writers, a manual clock, ``run_step`` instead of the thread's loop."""

from __future__ import annotations

import pickle
import threading

import pytest

from millstream.runtime.io.network.buffer_pool import NetworkBufferPool
from millstream.runtime.io.network.output_flusher import OutputFlusher
from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.io.network.record_writer import RecordWriter
from millstream.runtime.io.network.serialization import RecordDeserializer
from millstream.runtime.partitioning import SingleChannelSelector


def make_writer(local: bool = False, segments: int = 20) -> RecordWriter:
    pool = NetworkBufferPool(total_segments=segments, segment_size=4096).create_buffer_pool(2, segments)
    partition = ResultPartition("p", 1, pool, lambda: False, max_queued_batches=2 if local else 0)
    return RecordWriter(partition, SingleChannelSelector(1), [local])


def received(writer: RecordWriter) -> list[object]:
    """The elements the consumer could read now, in order."""
    values: list[object] = []
    deserializer = RecordDeserializer()
    while True:
        buffer, _ = writer.partition.subpartitions[0].poll()
        if buffer is None:
            return values
        if buffer.payload is not None:
            values.extend(buffer.payload[0])
        else:
            for record in deserializer.records(memoryview(buffer.segment)[: buffer.size]):
                values.extend(pickle.loads(record)[0])
        buffer.recycle()


@pytest.mark.parametrize("local", [False, True], ids=["remote", "local"])
def test_written_output_goes_to_the_consumer_once_nobody_flushed_it_for_the_age(local: bool) -> None:
    writer = make_writer(local)
    writer.emit([1, 2, 3], None)
    assert received(writer) == []  # pending: fewer than a batch, no flush yet
    assert not writer.try_flush(now=writer._flushed_at + 0.01, age=0.05)  # flushed too recently
    assert writer.try_flush(now=writer._flushed_at + 0.06, age=0.05)
    assert received(writer) == [1, 2, 3]
    assert not writer.try_flush(now=writer._flushed_at + 10, age=0.05)  # nothing new written


def test_the_flusher_leaves_a_writer_alone_while_the_task_thread_writes() -> None:
    writer = make_writer()
    writer.emit([1], None)
    with writer._lock:  # the task thread is inside emit
        assert not writer.try_flush(now=writer._flushed_at + 1, age=0.05)
    assert received(writer) == []


def test_without_a_free_buffer_pending_elements_wait_for_the_task_thread_in_order() -> None:
    """A backpressured consumer: the flusher never waits for a buffer; what it cannot write
    stays pending, and the task thread's next flush sends it after what came before."""
    writer = make_writer(segments=2)
    partition = writer.partition
    taken = [partition.buffer_pool.request_segment() for _ in range(2)]
    assert all(taken) and partition.buffer_pool.request_segment() is None
    writer.emit([1, 2], None)
    assert writer.try_flush(now=writer._flushed_at + 1, age=0.05)
    assert received(writer) == [] and writer._dirty  # still pending
    for segment in taken:
        partition.buffer_pool.recycle(segment)
    writer.emit([3], None)
    writer.flush_all()
    assert received(writer) == [1, 2, 3]


def test_flusher_rounds_flush_what_is_due_and_unregistered_writers_are_left_alone() -> None:
    now = [100.0]
    flusher = OutputFlusher(clock=lambda: now[0])
    due, other = make_writer(), make_writer()
    assert flusher.register([due], 0) is None and flusher.register([due], -1) is None
    handle = flusher.register([due], 100)
    other_handle = flusher.register([other], 100)
    flusher.unregister(other_handle)
    due.emit(["a"], None)
    other.emit(["b"], None)
    now[0] = due._flushed_at + 0.06  # not a whole timeout since the last flush: not yet
    assert flusher.run_step() == pytest.approx(0.025)
    assert received(due) == []
    now[0] = due._flushed_at + 0.11
    flusher.run_step()
    assert received(due) == ["a"] and received(other) == []
    flusher.unregister(handle)
    assert flusher.run_step() is None
    flusher.close()


def test_a_flusher_thread_flushes_a_writer_whose_task_is_busy() -> None:
    flusher = OutputFlusher()
    writer = make_writer()
    flusher.register([writer], 20)
    writer.emit(["x"], None)  # then the task thread goes away into a slow call
    done = threading.Event()
    deadline = 10.0
    while not done.wait(0.01):
        deadline -= 0.01
        got = received(writer)
        if got:
            assert got == ["x"]
            done.set()
        assert deadline > 0, "the flusher never flushed"
    flusher.close()
