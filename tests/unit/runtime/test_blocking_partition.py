"""BLOCKING result partitions (spill files) and pipelined-region scheduling decisions."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.graph import stream_graph_generator as sgg
from millstream.graph.job_config import JobConfig
from millstream.graph.job_graph import ResultPartitionType
from millstream.graph.job_graph_generator import create_job_graph
from millstream.runtime.executiongraph.execution_graph import build_execution_graph
from millstream.runtime.ids import ResultPartitionID
from millstream.runtime.io.network.buffer_pool import NetworkBufferPool
from millstream.runtime.io.network.events import EndOfPartitionEvent, deserialize_event
from millstream.runtime.io.network.partition.partition_manager import ResultPartitionManager
from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.io.network.serialization import RecordDeserializer
from millstream.runtime.jobmanager.scheduler import pipelined_regions, strongly_connected
from tests.conftest import make_env


class _Listener:
    def notify_data_available(self) -> None:
        raise AssertionError("a blocking reader has all its data: nobody waits for a notification")


def _blocking_partition(tmp_path, subpartitions=2, segment_size=64, consumable=None):
    network = NetworkBufferPool(16, segment_size)
    pool = network.create_buffer_pool(subpartitions + 1, subpartitions + 1)
    partition = ResultPartition(
        ResultPartitionID("ds#0@a1"), subpartitions, pool, lambda: False, consumable, str(tmp_path)
    )
    return network, partition


def _read_all(reader):
    """Every record and event of a reader, recycling each buffer as a consumer does."""
    deserializer = RecordDeserializer()
    records, events = [], []
    while True:
        buffer, more = reader.get_next_buffer()
        if buffer is None:
            break
        if buffer.is_buffer:
            records.extend(bytes(r) for r in deserializer.records(memoryview(buffer.segment)[: buffer.size]))
        else:
            events.append(deserialize_event(buffer))
        buffer.recycle()
        if not more:
            break
    reader.release()
    return records, events


def test_records_spanning_buffers_survive_the_spill_file_and_memory_goes_back_at_once(tmp_path):
    consumable = []
    network, partition = _blocking_partition(tmp_path, consumable=consumable.append)
    records = [bytes([i]) * (i * 7 % 150) for i in range(200)]  # many longer than a 64 B buffer
    for i, record in enumerate(records):
        partition.emit_record(i % 2, record)
        # Written buffers are recycled as soon as they are on disk: only the segments being
        # filled (one per subpartition) are held, however much was written.
        assert partition.buffer_pool.number_of_requested_segments <= 2
    assert consumable == []  # not before the producer finished
    partition.finish()
    assert consumable == [ResultPartitionID("ds#0@a1")]
    assert network.number_of_pools == 0  # the pool is gone with every segment returned
    assert network.number_of_available_segments == network.total_segments

    got = []
    partition.request_view(0, _Listener(), got.append)
    partition.request_view(0, _Listener(), got.append)  # a second reader (a restarted consumer)
    first, second = (_read_all(r) for r in got)
    assert first == second == ([r for i, r in enumerate(records) if i % 2 == 0], [EndOfPartitionEvent()])
    assert sorted(os.listdir(tmp_path)) == ["ds_0_a1.0.spill", "ds_0_a1.1.spill"]
    partition.release()
    assert os.listdir(tmp_path) == []


def test_a_request_before_the_producer_finished_is_served_at_finish(tmp_path):
    _, partition = _blocking_partition(tmp_path)
    manager = ResultPartitionManager()
    early, gone = [], []
    manager.request_subpartition(partition.partition_id, 1, _Listener(), early.append)  # not registered
    manager.register(partition)
    cancelled = _Listener()
    manager.request_subpartition(partition.partition_id, 1, cancelled, gone.append)
    manager.cancel_request(partition.partition_id, cancelled)
    partition.emit_record(1, b"x" * 100)
    assert early == []
    partition.finish()
    assert len(early) == 1 and gone == []
    assert _read_all(early[0]) == ([b"x" * 100], [EndOfPartitionEvent()])


def test_credit_and_backlog_of_a_blocking_reader(tmp_path):
    _, partition = _blocking_partition(tmp_path, subpartitions=1)
    for _ in range(3):
        partition.emit_record(0, b"y" * 60)  # 64 B each with the length header: one buffer each
    partition.finish()
    readers = []
    partition.request_view(0, _Listener(), readers.append)
    reader = readers[0]
    assert reader.backlog() == 3
    assert not reader.is_available(0) and reader.is_available(1)
    buffer, backlog = reader.get_next_buffer_with_backlog()
    assert buffer is not None and buffer.is_buffer and backlog == 2
    buffer.recycle()
    for _ in range(2):
        buffer, backlog = reader.get_next_buffer_with_backlog()
        assert buffer is not None
        buffer.recycle()
    assert backlog == 0
    assert reader.is_available(0)  # the end-of-partition event needs no credit
    event, _ = reader.get_next_buffer_with_backlog()
    assert event is not None and not event.is_buffer
    assert not reader.is_available(5)
    reader.release()
    partition.release()


def test_release_while_being_written_deletes_the_files(tmp_path):
    _, partition = _blocking_partition(tmp_path)
    partition.emit_record(0, b"z" * 200)
    partition.release()
    assert os.listdir(tmp_path) == []
    with pytest.raises(RuntimeError, match="released"):
        partition.request_view(0, _Listener(), lambda reader: None)


def _graph(monkeypatch, blocking, build):
    if blocking:
        monkeypatch.setattr(sgg, "exchange_mode", lambda settings: "BLOCKING")
    env = make_env(2)
    build(env)
    return build_execution_graph(create_job_graph(env.get_stream_graph()))


def _names(region):
    return sorted(ev.task_name_with_subtask for ev in region.vertices)


def test_a_streaming_job_is_one_region_deployed_at_once(monkeypatch):
    graph = _graph(
        monkeypatch, False, lambda env: env.from_collection([1]).key_by(lambda x: x).map(str).print()
    )
    regions = pipelined_regions(graph, lambda ds: False)
    assert len(regions) == 1
    assert len(regions[0].vertices) == 3 and regions[0].consumed_blocking == []


def test_blocking_exchanges_split_regions_and_consumers_wait_for_every_partition(monkeypatch):
    def build(env):
        env.from_collection([1]).rebalance().map(str).key_by(len).map(len).print()

    graph = _graph(monkeypatch, True, build)
    blocking = {
        ds for ds, d in graph.job_graph.data_sets.items() if d.result_type is ResultPartitionType.BLOCKING
    }
    assert blocking == set(graph.job_graph.data_sets)
    regions = pipelined_regions(graph, blocking.__contains__)
    # source (1) | map 1, map 2 | map+sink 1, map+sink 2: with only blocking edges, every subtask alone.
    assert [len(r.vertices) for r in regions] == [1, 1, 1, 1, 1]
    source, map1, _, last1, last2 = regions
    assert source.consumed_blocking == []
    assert [p.producer.task_name_with_subtask for p in map1.consumed_blocking] == [
        source.vertices[0].task_name_with_subtask
    ]
    # key_by is all-to-all: each consumer reads both map partitions.
    assert sorted(p.producer.subtask_index for p in last1.consumed_blocking) == [0, 1]
    assert sorted(p.producer.subtask_index for p in last2.consumed_blocking) == [0, 1]


def test_strongly_connected_components_of_a_region_graph():
    # 0 -> 1 -> 2 -> 0 wait on each other (merged into one region); 3 only waits.
    successors = {0: [1], 1: [2], 2: [0, 3], 3: []}
    components = strongly_connected([0, 1, 2, 3], successors)
    assert sorted(sorted(c) for c in components) == [[0, 1, 2], [3]]
    assert strongly_connected([0, 1], {0: [1], 1: []}) == [[0], [1]]


def test_batch_mode_with_default_shuffle_mode_makes_every_exchange_blocking():
    settings = sgg.GraphSettings("j", 2, 128, True, 100, JobConfig(runtime_mode=RuntimeExecutionMode.BATCH))
    assert sgg.exchange_mode(settings) == "BLOCKING"
    assert sgg.exchange_mode(replace(settings, batch_shuffle_mode="ALL_EXCHANGES_PIPELINED")) == "PIPELINED"
    assert sgg.exchange_mode(replace(settings, job_config=JobConfig())) == "PIPELINED"
    with pytest.raises(ValueError, match=r"execution\.batch-shuffle-mode"):
        sgg.exchange_mode(replace(settings, batch_shuffle_mode="ALL_EXCHANGES_HYBRID_FULL"))
