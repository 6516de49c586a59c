"""The data plane over real sockets: two TaskManagers' network stacks in this process.

Each side has its own event loop, NetworkBufferPool, partition manager and
ConnectionManager, exactly as a TaskManager process has; only the process boundary is
left out so the tests can look at buffer pools and credit directly.
"""

from __future__ import annotations

import pickle
import socket
import threading
import time

import pytest

from millstream.runtime.io.network.buffer import DataType
from millstream.runtime.io.network.buffer_pool import BufferPoolDestroyedError, NetworkBufferPool
from millstream.runtime.io.network.consumer.input_gate import SingleInputGate
from millstream.runtime.io.network.consumer.remote_input_channel import (
    RemoteInputChannel,
    RemoteTransportError,
)
from millstream.runtime.io.network.events import EndOfPartitionEvent, deserialize_event
from millstream.runtime.io.network.partition.partition_manager import ResultPartitionManager
from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.io.network.transport.connection_manager import ConnectionManager
from millstream.runtime.rpc.event_loop import EventLoopThread

pytestmark = pytest.mark.timeout(60)

SECRET = "test-secret"


class Side:
    """One TaskManager's network stack."""

    def __init__(self, name: str, segments: int = 64, secret: str = SECRET) -> None:
        self.loop = EventLoopThread(name)
        self.loop.start()
        self.pool = NetworkBufferPool(segments, 4096)
        self.partitions = ResultPartitionManager()
        self.connections = ConnectionManager(self.loop, secret, self.partitions)
        self.address = self.connections.start()

    def close(self) -> None:
        self.connections.close()
        self.loop.stop()


@pytest.fixture
def sides():
    producer, consumer = Side("producer-io"), Side("consumer-io")
    yield producer, consumer
    consumer.close()
    producer.close()


class Reader:
    """A consuming task: one gate with one remote channel per partition."""

    def __init__(self, producer: Side, consumer: Side, partition_ids: list[str]) -> None:
        self.wakeup = threading.Event()
        self.gate = SingleInputGate(0, 0, self.wakeup.set)
        self.gate.buffer_pool = consumer.pool.create_buffer_pool(1, 8)
        for index, pid in enumerate(partition_ids):
            self.gate.add_channel(
                RemoteInputChannel(
                    self.gate,
                    index,
                    pid,
                    0,
                    lambda: consumer.connections.client_for(producer.address),
                    producer.address,
                    consumer.pool,
                    self.gate.buffer_pool,
                    2,
                )
            )
        self.records: dict[int, list[object]] = {i: [] for i in range(len(partition_ids))}
        self.gate.request_partitions()

    def poll_once(self, timeout: float = 1.0) -> bool:
        """Consume one buffer if one comes within ``timeout``."""
        polled = self.gate.poll_next()
        if polled is None:
            self.wakeup.wait(timeout)
            self.wakeup.clear()
            return False
        channel, buffer = polled
        if buffer.data_type is DataType.EVENT:
            assert isinstance(deserialize_event(buffer), EndOfPartitionEvent)
            channel.finished = True
            self.gate.finished_channels += 1
            channel.release()
            return True
        for record in channel.deserializer.records(memoryview(buffer.segment)[: buffer.size]):
            self.records[channel.channel_index].extend(pickle.loads(record))
        buffer.recycle()
        return True

    def run_until_finished(self, deadline_s: float = 30.0) -> None:
        deadline = time.monotonic() + deadline_s
        while not self.gate.is_finished:
            assert time.monotonic() < deadline, "consumer did not finish"
            self.poll_once(0.5)
        self.gate.release()


def produce(partition: ResultPartition, count: int, per_record: int = 50) -> threading.Thread:
    def run() -> None:
        try:
            for start in range(0, count, per_record):
                partition.emit_record(0, pickle.dumps(list(range(start, min(count, start + per_record)))))
            partition.finish()
        except BufferPoolDestroyedError:
            pass  # the partition was released under a blocked producer (test teardown)

    thread = threading.Thread(target=run, name="producer")
    thread.start()
    return thread


def register(side: Side, pid: str, max_buffers: int = 6) -> ResultPartition:
    partition = ResultPartition(pid, 1, side.pool.create_buffer_pool(2, max_buffers), lambda: False)
    side.partitions.register(partition)
    return partition


def test_records_cross_the_connection_in_order_and_every_buffer_comes_back(sides):
    producer, consumer = sides
    partition = register(producer, "p-order")
    reader = Reader(producer, consumer, ["p-order"])
    thread = produce(partition, 50_000)
    reader.run_until_finished()
    thread.join()
    assert reader.records[0] == list(range(50_000))
    channel = reader.gate.channels[0]
    assert channel.credit_announced > channel.initial_credit  # credit flowed back during the run
    assert consumer.pool.number_of_available_segments == consumer.pool.total_segments
    deadline = time.monotonic() + 5
    while producer.pool.number_of_available_segments != producer.pool.total_segments:
        assert time.monotonic() < deadline, "producer buffers not returned"
        time.sleep(0.01)


def test_a_stalled_consumer_holds_the_producer_at_its_credit_and_pool(sides):
    producer, consumer = sides
    partition = register(producer, "p-stall", max_buffers=4)
    reader = Reader(producer, consumer, ["p-stall"])
    thread = produce(partition, 1_000_000, per_record=200)
    # Nobody consumes: the receiver holds at most its exclusive + floating buffers, the
    # producer at most its pool; then the producer blocks (backpressure).
    channel = reader.gate.channels[0]
    deadline = time.monotonic() + 10
    while partition.buffer_pool.blocked_requesters == 0 or len(channel._received) < 2:
        assert time.monotonic() < deadline, "producer never blocked"
        time.sleep(0.01)
    received = len(channel._received)
    assert 2 <= received <= 2 + 8  # exclusive + floating buffers, never more
    assert partition.buffer_pool.number_of_requested_segments <= 4
    reader.run_until_finished()
    thread.join()
    assert reader.records[0] == list(range(1_000_000))


def test_a_stalled_channel_does_not_slow_another_on_the_same_connection(sides):
    producer, consumer = sides
    stalled_partition = register(producer, "p-stalled", max_buffers=3)
    flowing_partition = register(producer, "p-flowing")
    stalled = Reader(producer, consumer, ["p-stalled"])
    flowing = Reader(producer, consumer, ["p-flowing"])
    stalled_thread = produce(stalled_partition, 10_000_000, per_record=500)
    deadline = time.monotonic() + 10
    while stalled_partition.buffer_pool.blocked_requesters == 0:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert consumer.connections.number_of_client_connections == 1  # one shared connection
    flowing_thread = produce(flowing_partition, 200_000)
    flowing.run_until_finished(deadline_s=20)
    flowing_thread.join()
    assert flowing.records[0] == list(range(200_000))
    assert stalled_partition.buffer_pool.blocked_requesters == 1  # still stalled, still bounded
    stalled_partition.release()
    stalled_thread.join(5)
    stalled.gate.release()


def test_garbage_and_a_wrong_secret_are_refused_and_the_listener_keeps_serving(sides, caplog):
    producer, consumer = sides
    with socket.create_connection(producer.address) as raw:
        raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
        raw.settimeout(5)
        try:
            while raw.recv(4096):
                pass
        except OSError:
            pass
    intruder = Side("intruder-io", secret="wrong")
    try:
        from millstream.runtime.rpc.wire import AuthenticationError

        with pytest.raises(AuthenticationError):
            intruder.connections.client_for(producer.address)
    finally:
        intruder.close()
    assert "refused data connection" in caplog.text
    partition = register(producer, "p-after")
    reader = Reader(producer, consumer, ["p-after"])
    thread = produce(partition, 1000)
    reader.run_until_finished()
    thread.join()
    assert reader.records[0] == list(range(1000))


def test_losing_the_producer_fails_the_channel_with_a_clear_error(sides):
    producer, consumer = sides
    partition = register(producer, "p-lost")
    reader = Reader(producer, consumer, ["p-lost"])
    partition.emit_record(0, pickle.dumps([1, 2, 3]))
    partition.flush_all()
    while not reader.records[0]:
        reader.poll_once(0.5)
    producer.connections.close()  # the producer TaskManager goes away
    with pytest.raises(RemoteTransportError, match="remote TaskManager was lost"):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            reader.poll_once(0.2)
    reader.gate.release()
    partition.release()
