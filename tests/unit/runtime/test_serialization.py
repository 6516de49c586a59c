"""Records spanning buffers: everything written comes back, in order, from any split."""

from __future__ import annotations

import pickle

import pytest

from millstream.runtime.io.network.buffer_pool import NetworkBufferPool
from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.io.network.record_writer import RecordWriter
from millstream.runtime.io.network.serialization import RecordDeserializer
from millstream.runtime.partitioning import SingleChannelSelector


def drain(partition: ResultPartition, sub: int = 0) -> list:
    deserializer = RecordDeserializer()
    out = []
    sizes = []
    while True:
        buffer, _ = partition.subpartitions[sub].poll()
        if buffer is None:
            break
        if buffer.is_buffer:
            sizes.append(buffer.size)
            for record in deserializer.records(memoryview(buffer.segment)[: buffer.size]):
                out.append(pickle.loads(record))
        buffer.recycle()
    assert not deserializer.has_partial_record
    return out, sizes


@pytest.mark.parametrize("segment_size", [5, 16, 64, 4096])
def test_records_of_any_size_survive_any_segment_size(segment_size):
    network = NetworkBufferPool(512, segment_size)
    partition = ResultPartition("p", 1, network.create_buffer_pool(2, 512), lambda: False)
    payloads = [b"", b"x", b"0123456789" * 7, bytes(range(256)) * 3, b"tail"]
    for payload in payloads:
        partition.emit_record(0, pickle.dumps(payload))
    partition.flush_all()
    out, sizes = drain(partition)
    assert out == payloads
    assert all(size <= segment_size for size in sizes)


def test_record_writer_batches_and_keeps_order_and_timestamps():
    network = NetworkBufferPool(512, 128)
    partition = ResultPartition("p", 1, network.create_buffer_pool(2, 512), lambda: False)
    writer = RecordWriter(partition, SingleChannelSelector(1))
    writer.emit(list(range(1000)), None)
    writer.emit(["a", "b"], [5, 6])
    writer.flush_all()
    out, _ = drain(partition)
    values = [v for vals, _ in out for v in vals]
    assert values == list(range(1000)) + ["a", "b"]
    assert out[-1] == (["a", "b"], [5, 6])


def test_local_consumers_receive_object_batches_without_pickling():
    network = NetworkBufferPool(16, 64)
    partition = ResultPartition("p", 1, network.create_buffer_pool(2, 16), lambda: False)
    writer = RecordWriter(partition, SingleChannelSelector(1), local=[True])
    unpicklable = [lambda: 1, object()]
    writer.emit(unpicklable, None)
    writer.flush_all()
    buffer, _ = partition.subpartitions[0].poll()
    assert buffer.payload[0] == unpicklable and buffer.payload[0][0] is unpicklable[0]
    buffer.recycle()


def test_batches_of_any_picklable_value_round_trip():
    from millstream.runtime.io.network.record_writer import dumps_batch

    # frozensets defeat the memo-less fast pickler (CPython looks into the memo anyway).
    batch = ([frozenset({1, 2}), {"a": [1, 2]}, (1, "x"), None, 2.5], None)
    assert pickle.loads(dumps_batch(batch)) == batch
