"""Network stack: throughput of one remote channel and the latency of a record across it.

Throughput: a producer process fills a ResultPartition with one subpartition (records of
``--record-bytes``, by default the RecordWriter's 16 KiB element batches, spanning 32 KiB
buffers); this process consumes it through one
RemoteInputChannel over an authenticated loopback connection, against credit (2 exclusive
buffers, 8 floating), recycling each buffer once its records are split out. Reported:
buffers/second and MB/second, measured at the consumer from first to last buffer, with
the Python floor of the same process boundary in the same run: a plain
``multiprocessing.Pipe`` carrying the same bytes as 32 KiB messages.

Record cost: (word, 1) records emitted through a RecordWriter that routes them by key group
(the word, its type declared STRING or undeclared) into one remote subpartition of a
producer process, decoded by this process: CPU nanoseconds per record on each side, of the
emitting / decoding thread and of the whole process (its network I/O threads included).

Latency: a job on the embedded runtime whose source (one TaskManager process) emits
``--rate`` records per second, each holding ``time.monotonic()`` at its creation, to a
map in another slot-sharing group (the other TaskManager process), so every record
crosses a remote channel. The map computes the record's age; p50 and p99 are reported
at buffer timeout 0 (flush every record) and 100 ms (Flink's default), where a record
waits up to the timeout for its buffer to be flushed.

    python benchmarks/network.py [--buffers N] [--record-bytes B] [--rate R] [--seconds S]
        [--records N]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import pickle
import statistics
import tempfile
import threading
import time
from typing import Any

from millstream.common import Configuration, WatermarkStrategy
from millstream.datastream import SinkFunction, StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.runtime.io.network.buffer import DataType
from millstream.runtime.io.network.buffer_pool import NetworkBufferPool
from millstream.runtime.io.network.consumer.input_gate import SingleInputGate
from millstream.runtime.io.network.consumer.remote_input_channel import RemoteInputChannel
from millstream.runtime.io.network.partition.partition_manager import ResultPartitionManager
from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.io.network.transport.connection_manager import ConnectionManager
from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.wire import generate_secret

SEGMENT = 32 * 1024
PARTITION = "bench-partition"


class _Stack:
    """One TaskManager's network stack (event loop, buffers, partitions, connections)."""

    def __init__(self, name: str, secret: str) -> None:
        self.loop = EventLoopThread(name)
        self.loop.start()
        self.pool = NetworkBufferPool(256, SEGMENT)
        self.partitions = ResultPartitionManager()
        self.connections = ConnectionManager(self.loop, secret, self.partitions)
        self.address = self.connections.start()

    def close(self) -> None:
        self.connections.close()
        self.loop.stop()


def _produce(secret: str, total_bytes: int, record_bytes: int, conn: Any) -> None:
    """Child process: serve one partition of ``total_bytes`` of records, then wait to be told."""
    stack = _Stack("producer-io", secret)
    partition = ResultPartition(PARTITION, 1, stack.pool.create_buffer_pool(2, 10), lambda: False)
    stack.partitions.register(partition)
    conn.send(stack.address)
    conn.recv()  # the consumer is ready
    record = b"x" * record_bytes
    for _ in range(total_bytes // record_bytes):
        partition.emit_record(0, record)
    partition.finish()
    conn.recv()  # the consumer has everything
    stack.close()


def _remote_gate(stack: _Stack, address: Any) -> tuple[SingleInputGate, threading.Event]:
    """An input gate with one remote channel reading the producer's partition (requested),
    and the event it sets when data arrives."""
    wakeup = threading.Event()
    gate = SingleInputGate(0, 0, wakeup.set)
    gate.buffer_pool = stack.pool.create_buffer_pool(1, 8)
    client = stack.connections.client_for(address)
    gate.add_channel(
        RemoteInputChannel(gate, 0, PARTITION, 0, lambda: client, address, stack.pool, gate.buffer_pool, 2)
    )
    gate.request_partitions()
    return gate, wakeup


def _data_buffers(gate: SingleInputGate, wakeup: threading.Event) -> Any:
    """(channel, buffer) for every data buffer the gate brings until its channels end (the
    end-of-partition event finishes its channel); the caller recycles each buffer."""
    while not gate.is_finished:
        polled = gate.poll_next()
        if polled is None:
            wakeup.wait(1.0)
            wakeup.clear()
            continue
        channel, buffer = polled
        if buffer.data_type is DataType.EVENT:
            channel.finished = True
            gate.finished_channels += 1
            channel.release()
            continue
        yield channel, buffer


def remote_channel_throughput(total_bytes: int, record_bytes: int) -> dict[str, float]:
    """Consume one remote subpartition; buffers/s and MB/s at the consumer."""
    secret = generate_secret()
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    producer = ctx.Process(target=_produce, args=(secret, total_bytes, record_bytes, child), daemon=True)
    producer.start()
    stack = _Stack("consumer-io", secret)
    try:
        address = parent.recv()
        gate, wakeup = _remote_gate(stack, address)
        parent.send("go")
        buffers = nbytes = records = 0
        first = 0.0
        for channel, buffer in _data_buffers(gate, wakeup):
            if not first:
                first = time.perf_counter()
            buffers += 1
            nbytes += buffer.size
            records += len(channel.deserializer.records(memoryview(buffer.segment)[: buffer.size]))
            buffer.recycle()
        last = time.perf_counter()  # the end-of-partition event just arrived
        gate.release()
        parent.send("done")
        producer.join(30)
    finally:
        stack.close()
        if producer.is_alive():
            producer.kill()
    assert records == total_bytes // record_bytes, f"lost records: {records}"
    seconds = last - first
    return {
        "buffers": buffers,
        "seconds": seconds,
        "buffers_s": buffers / seconds,
        "mb_s": nbytes / seconds / 1e6,
    }


def _produce_records(secret: str, batches: int, typed: bool, conn: Any) -> None:
    """Child process: (word, 1) records through a RecordWriter routing by key group (the
    word; declared STRING or undeclared) into one remote subpartition; sends the CPU
    seconds of the emitting thread and of the whole process (its network I/O included)."""
    from operator import itemgetter

    from millstream.common import Types
    from millstream.graph.partitioning import typed_key_selector
    from millstream.runtime.io.network.record_writer import RecordWriter
    from millstream.runtime.partitioning import KeyGroupChannelSelector

    stack = _Stack("producer-io", secret)
    partition = ResultPartition(PARTITION, 1, stack.pool.create_buffer_pool(2, 10), lambda: False)
    stack.partitions.register(partition)
    conn.send(stack.address)
    conn.recv()  # the consumer is ready
    key = typed_key_selector(itemgetter(0), Types.STRING() if typed else None)
    writer = RecordWriter(partition, KeyGroupChannelSelector(1, key, 128))
    batch = [(f"w{(i * 7919) % 10_000}", 1) for i in range(RECORD_BATCH)]
    thread0, process0 = time.thread_time(), time.process_time()
    for _ in range(batches):
        writer.emit(batch, None)
    writer.finish()
    thread_s = time.thread_time() - thread0
    conn.recv()  # the consumer has everything
    conn.send((thread_s, time.process_time() - process0))
    stack.close()


RECORD_BATCH = 1024


def record_costs(records: int, typed: bool) -> dict[str, float]:
    """ns per (word, 1) record on each side of one remote channel: the producer's emitting
    thread (routing, pickling, framing) and whole process, the consumer's decoding thread
    (deframing, unpickling) and whole process."""
    secret = generate_secret()
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    batches = max(1, records // RECORD_BATCH)
    producer = ctx.Process(target=_produce_records, args=(secret, batches, typed, child), daemon=True)
    producer.start()
    stack = _Stack("consumer-io", secret)
    try:
        address = parent.recv()
        gate, wakeup = _remote_gate(stack, address)
        process0 = time.process_time()
        parent.send("go")
        decoded = 0
        decode_s = 0.0
        for channel, buffer in _data_buffers(gate, wakeup):
            started = time.thread_time()
            for record in channel.deserializer.records(memoryview(buffer.segment)[: buffer.size]):
                element = pickle.loads(record)
                if type(element) is tuple:
                    decoded += len(element[0])
            buffer.recycle()
            decode_s += time.thread_time() - started
        consumer_process_s = time.process_time() - process0
        gate.release()
        parent.send("done")
        producer_thread_s, producer_process_s = parent.recv()
        producer.join(30)
    finally:
        stack.close()
        if producer.is_alive():
            producer.kill()
    n = batches * RECORD_BATCH
    assert decoded == n, f"lost records: {decoded} of {n}"
    return {
        "producer_thread": producer_thread_s / n * 1e9,
        "producer_process": producer_process_s / n * 1e9,
        "consumer_thread": decode_s / n * 1e9,
        "consumer_process": consumer_process_s / n * 1e9,
    }


def _rates(buffers: int, nbytes: int, seconds: float) -> dict[str, float]:
    return {
        "buffers": buffers,
        "seconds": seconds,
        "buffers_s": buffers / seconds,
        "mb_s": nbytes / seconds / 1e6,
    }


def _pipe_send(conn: Any, total_bytes: int) -> None:
    chunk = b"x" * SEGMENT
    for _ in range(total_bytes // SEGMENT):
        conn.send_bytes(chunk)
    conn.send_bytes(b"")
    conn.recv()


def pipe_floor(total_bytes: int) -> dict[str, float]:
    """The same bytes as 32 KiB messages over a multiprocessing Pipe (no credit, no framing of ours)."""
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    sender = ctx.Process(target=_pipe_send, args=(child, total_bytes), daemon=True)
    sender.start()
    buffers = nbytes = 0
    first = 0.0
    while True:
        data = parent.recv_bytes()
        if not first:
            first = time.perf_counter()
        if not data:
            break
        buffers += 1
        nbytes += len(data)
    seconds = time.perf_counter() - first
    parent.send("done")
    sender.join(30)
    return {
        "buffers": buffers,
        "seconds": seconds,
        "buffers_s": buffers / seconds,
        "mb_s": nbytes / seconds / 1e6,
    }


def _now(_index: int) -> float:
    return time.monotonic()  # system-wide on Linux: comparable across processes


class _AgeSink(SinkFunction):
    """Records each element's age on arrival; writes them to ``path`` when closed."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.ages: list[float] = []

    def invoke(self, value: float, context: Any) -> None:
        self.ages.append(time.monotonic() - value)

    def close(self) -> None:
        with open(self.path, "wb") as f:
            pickle.dump(self.ages, f)


def record_latency(buffer_timeout_ms: int, rate: int, seconds: float) -> dict[str, float]:
    """Ages (ms) of records crossing from one TaskManager process to another."""
    conf = Configuration()
    conf.set_string("minicluster.mode", "processes")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.set_buffer_timeout(buffer_timeout_ms)
    count = int(rate * seconds)
    source = env.from_source(
        DataGeneratorSource(_now, count, records_per_second=rate), WatermarkStrategy.no_watermarks(), "clock"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ages")
        source.add_sink(_AgeSink(path)).slot_sharing_group("receiver")
        env.execute("record latency")
        with open(path, "rb") as f:
            ages = pickle.load(f)
    assert len(ages) == count, f"lost records: {len(ages)} of {count}"
    values = sorted(1000 * a for a in ages[len(ages) // 10 :])  # without the warm-up tenth
    return {
        "p50": statistics.median(values),
        "p99": values[min(len(values) - 1, int(len(values) * 0.99))],
        "max": values[-1],
        "records": count,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--buffers", type=int, default=20_000, help="32 KiB buffers through the channel")
    parser.add_argument(
        "--record-bytes", type=int, default=16 * 1024, help="16 KiB: the RecordWriter's serialized batch size"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rate", type=int, default=1000, help="records/second for the latency runs")
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each latency run")
    parser.add_argument("--records", type=int, default=1_000_000, help="(word, 1) records per cost run")
    args = parser.parse_args(argv)
    total = args.buffers * SEGMENT

    print(f"one remote channel, {args.buffers} x 32 KiB, records of {args.record_bytes} B spanning buffers")
    ratios = []
    for attempt in range(args.repeat):
        ours = remote_channel_throughput(total, args.record_bytes)
        floor = pipe_floor(total)
        ratios.append(ours["mb_s"] / floor["mb_s"])
        print(
            f"  attempt {attempt + 1}: {ours['buffers_s']:>9,.0f} buffers/s {ours['mb_s']:>8,.1f} MB/s"
            f" | Pipe floor {floor['buffers_s']:>9,.0f} msgs/s {floor['mb_s']:>8,.1f} MB/s"
            f" | ratio to floor {ratios[-1]:.2f}"
        )
    print(f"  median ratio to the Pipe floor: {statistics.median(ratios):.2f}")

    print(f"cost of a (word, 1) record across one remote channel, {args.records:,} records, ns/record")
    for typed in (True, False):
        costs = [record_costs(args.records, typed) for _ in range(args.repeat)]
        median = {k: statistics.median(c[k] for c in costs) for k in costs[0]}
        label = "key declared STRING" if typed else "key undeclared    "
        print(
            f"  {label}: producer {median['producer_thread']:6.0f} (emitting thread) "
            f"{median['producer_process']:6.0f} (process) | consumer {median['consumer_thread']:6.0f} "
            f"(decoding thread) {median['consumer_process']:6.0f} (process)"
        )

    print(f"record latency across TaskManager processes, {args.rate} records/s for {args.seconds:g} s")
    for timeout in (0, 100):
        lat = record_latency(timeout, args.rate, args.seconds)
        print(
            f"  buffer timeout {timeout:>3} ms: p50 {lat['p50']:7.2f} ms  p99 {lat['p99']:7.2f} ms"
            f"  max {lat['max']:7.2f} ms  ({lat['records']} records)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
