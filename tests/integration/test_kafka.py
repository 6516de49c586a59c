"""The Kafka connector against a real Kafka-protocol broker (Tansu, started per module).

What Tansu does differently from Apache Kafka is in ``test_kafka_broker.py``; these tests
hold on both.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from millstream.common import Encoder, Types, WatermarkStrategy
from millstream.common.serialization import SimpleStringSchema
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import ProcessFunction
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.kafka import (
    DeliveryGuarantee,
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
    KafkaTopicPartition,
)
from millstream.testing.chaos import ChaosJob, run_trial
from millstream.testing.kafka_broker import KafkaBroker, produce_records, read_partition
from tests.conftest import make_env

pytestmark = pytest.mark.timeout(300)


def _topic(
    broker: KafkaBroker, name: str, partitions: int, records: list[tuple[int, bytes | None, bytes, int]]
) -> str:
    broker.create_topic(name, partitions)
    produce_records(broker.bootstrap_servers, name, records)
    return name


def _source(broker: KafkaBroker, *topics: str, bounded: bool = True, **props: str) -> KafkaSource:
    builder = (
        KafkaSource.builder()
        .set_bootstrap_servers(broker.bootstrap_servers)
        .set_topics(*topics)
        .set_starting_offsets(KafkaOffsetsInitializer.earliest())
        .set_value_only_deserializer(SimpleStringSchema())
    )
    if bounded:
        builder.set_bounded(KafkaOffsetsInitializer.latest())
    for key, value in props.items():
        builder.set_property(key.replace("_", "."), value)
    return builder.build()


def _sink(
    broker: KafkaBroker, topic: str, guarantee: DeliveryGuarantee, prefix: str | None = None
) -> KafkaSink:
    builder = (
        KafkaSink.builder()
        .set_bootstrap_servers(broker.bootstrap_servers)
        .set_record_serializer(
            KafkaRecordSerializationSchema.builder()
            .set_topic(topic)
            .set_value_serialization_schema(SimpleStringSchema())
            .build()
        )
        .set_delivery_guarantee(guarantee)
    )
    if prefix:
        builder.set_transactional_id_prefix(prefix)
    return builder.build()


def _values(
    broker: KafkaBroker, topic: str, partitions: int, isolation: str = "read_uncommitted"
) -> list[str]:
    return sorted(
        m.value().decode()
        for p in range(partitions)
        for m in read_partition(broker.bootstrap_servers, topic, p, isolation)
    )


class _WithTimestamp(ProcessFunction):
    def process_element(self, value, ctx):
        yield f"{value}@{ctx.timestamp()}"


def test_a_bounded_source_reads_every_partition_once_with_kafka_timestamps(broker):
    """3 partitions, parallelism 2: each record once, with its Kafka timestamp as the record's."""
    records = [(i % 3, None, f"r{i}".encode(), 1_000 + i) for i in range(900)]
    topic = _topic(broker, "bounded-in", 3, records)
    env = make_env(2)
    stream = env.from_source(_source(broker, topic), WatermarkStrategy.no_watermarks(), "kafka")
    got = sorted(stream.process(_WithTimestamp(), Types.STRING()).execute_and_collect())
    assert got == sorted(f"r{i}@{1_000 + i}" for i in range(900))


def test_fixed_partitions_and_offsets_read_exactly_that_range(broker):
    records = [(i % 2, None, f"v{i}".encode(), None) for i in range(40)]  # partition 0: v0, v2, ...
    topic = _topic(broker, "ranges", 2, records)
    partition = KafkaTopicPartition(topic, 0)
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers(broker.bootstrap_servers)
        .set_partitions({partition})
        .set_starting_offsets(KafkaOffsetsInitializer.offsets({partition: 5}))
        .set_bounded(KafkaOffsetsInitializer.offsets({partition: 8}))
        .set_value_only_deserializer(SimpleStringSchema())
        .build()
    )
    env = make_env(1)
    got = list(env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka").execute_and_collect())
    assert got == ["v10", "v12", "v14"]  # offsets 5, 6 and 7 of partition 0


class _ValueTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return int(value)


def test_watermarks_are_generated_per_partition(broker):
    """Partition 0 holds times 0..990, partition 1 times 10_000..10_990; librdkafka may hand
    over one partition before the other. With watermarks per partition (Flink's split-aware
    generation) no record is late: every one reaches a 1 s event-time window."""
    from millstream.common import Time
    from millstream.datastream.window import TumblingEventTimeWindows

    records = [(0, None, str(t).encode(), None) for t in range(0, 1_000, 10)]
    records += [(1, None, str(t).encode(), None) for t in range(10_000, 11_000, 10)]
    topic = _topic(broker, "per-partition", 2, records)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_ValueTime())
    env = make_env(1)
    counts = (
        env.from_source(_source(broker, topic), strategy, "kafka")
        .map(lambda v: ("all", 1), Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda pair: pair[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .map(lambda pair: pair[1], Types.INT())
        .execute_and_collect()
    )
    assert sorted(counts) == [100, 100]


@pytest.mark.parametrize("guarantee", [DeliveryGuarantee.AT_LEAST_ONCE, DeliveryGuarantee.NONE])
def test_a_sink_writes_every_record(broker, guarantee):
    out = f"sink-{guarantee.name.lower()}"
    broker.create_topic(out, 2)
    env = make_env(2)
    env.from_collection([f"w{i}" for i in range(500)], Types.STRING()).sink_to(_sink(broker, out, guarantee))
    env.execute("kafka sink")
    assert _values(broker, out, 2) == sorted(f"w{i}" for i in range(500))


def test_exactly_once_sink_commits_one_transaction_per_subtask_and_checkpoint(broker):
    """Kafka -> Kafka with EXACTLY_ONCE and checkpoints: a read_committed consumer sees every
    record once; each subtask's transactional ids are <prefix>-<subtask>-<checkpoint>."""
    records = [(i % 4, None, f"e{i}".encode(), None) for i in range(4_000)]
    topic = _topic(broker, "eo-in", 4, records)
    out = "eo-out"
    broker.create_topic(out, 2)
    env = make_env(2)
    env.enable_checkpointing(200)
    (
        env.from_source(_source(broker, topic), WatermarkStrategy.no_watermarks(), "kafka")
        .map(_Slow(), Types.STRING())
        .sink_to(_sink(broker, out, DeliveryGuarantee.EXACTLY_ONCE, "eo-test"))
    )
    env.execute("kafka exactly once")
    assert _values(broker, out, 2, "read_committed") == sorted(f"e{i}" for i in range(4_000))
    ids = _transactional_ids(broker, "eo-test")
    assert {i.rsplit("-", 2)[1] for i in ids} == {"0", "1"}
    per_subtask = [sorted(int(i.rsplit("-", 1)[1]) for i in ids if i.rsplit("-", 2)[1] == s) for s in "01"]
    for offsets in per_subtask:
        assert len(offsets) >= 3, ids  # several checkpoints, each with its transaction
        assert offsets == list(range(offsets[0], offsets[0] + len(offsets)))  # contiguous


class _Slow:
    """A map that takes about 1.5 s for 4,000 records, so that checkpoints fall inside."""

    def __call__(self, value):
        time.sleep(0.0004)
        return value


def _transactional_ids(broker: KafkaBroker, prefix: str) -> list[str]:
    """The ids <prefix>-<subtask>-<n> that were used: probed as the sink's abort does (a
    producer initialized on an id that never was gets epoch 0); Tansu lists no transactions."""
    from millstream.connectors.kafka.transactions import producer_identity, transactional_producer

    used = []
    for subtask in (0, 1):
        for n in range(1, 200):
            transactional_id = f"{prefix}-{subtask}-{n}"
            producer, stats = transactional_producer(
                {"bootstrap.servers": broker.bootstrap_servers}, transactional_id, "probe"
            )
            epoch = producer_identity(producer, stats)[1]
            producer.flush(0)
            if epoch == 0:
                break
            used.append(transactional_id)
    return used


def test_a_task_manager_killed_mid_run_changes_nothing_committed_with_a_kafka_source(broker, tmp_path):
    """Issue 31's acceptance (a): 4 partitions, parallelism 2, keyed state, the exactly-once
    FileSink; a TaskManager SIGKILLed at random moments. The committed output equals the
    failure-free run's every time: the source's offsets are in the checkpoints."""
    job = ChaosJob(
        records=12_000, source="kafka", kafka_servers=broker.bootstrap_servers, kafka_topic="chaos-ci"
    )
    job.write_kafka_input()
    reference = run_trial(job, str(tmp_path / "reference"), "none")
    assert reference.output
    rng = random.Random(31)
    for trial in range(5):
        result = run_trial(
            job, str(tmp_path / f"trial-{trial}"), "kill", rng.uniform(0.0, 0.6), rng=rng, after_running=True
        )
        context = f"trial {trial}: killed at {result.failed_after_s} s of a {reference.duration_s:.1f} s run"
        assert result.output == reference.output, context
        assert not result.leftover, context


def test_an_unbounded_source_reads_a_topic_created_while_it_runs(broker):
    """Partition discovery: a topic matching the pattern, created after the job started, is
    read (Tansu cannot add partitions to a topic; a new topic brings new partitions alike)."""
    _topic(broker, "disc-a", 1, [(0, None, b"a0", None)])
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers(broker.bootstrap_servers)
        .set_topic_pattern("disc-.*")
        .set_starting_offsets(KafkaOffsetsInitializer.earliest())
        .set_value_only_deserializer(SimpleStringSchema())
        .set_property("partition.discovery.interval.ms", "200")
        .build()
    )
    env = make_env(2)
    seen: list[str] = []
    with env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka").execute_and_collect() as results:
        for value in results:
            seen.append(value)
            if value == "a0":
                _topic(broker, "disc-b", 2, [(0, None, b"b0", None), (1, None, b"b1", None)])
            if {"a0", "b0", "b1"} <= set(seen):
                break
    assert sorted(seen) == ["a0", "b0", "b1"]


def test_a_missing_topic_fails_the_job_with_one_line_naming_it(broker):
    env = make_env(1)
    env.from_source(_source(broker, "no-such-topic"), WatermarkStrategy.no_watermarks(), "kafka").print()
    with pytest.raises(Exception) as failure:
        env.execute("missing topic")
    text = "".join(str(e) for e in _chain(failure.value))
    assert "no-such-topic" in text and "KafkaSource" in text


def test_an_unreachable_broker_fails_the_job_naming_the_servers():
    env = make_env(1)
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers("127.0.0.1:1")
        .set_topics("t")
        .set_bounded(KafkaOffsetsInitializer.latest())
        .set_value_only_deserializer(SimpleStringSchema())
        .set_property("default.api.timeout.ms", "2000")
        .build()
    )
    env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka").print()
    with pytest.raises(Exception) as failure:
        env.execute("unreachable")
    text = "".join(str(e) for e in _chain(failure.value))
    assert "127.0.0.1:1" in text and "KafkaSource" in text


def test_a_record_the_broker_never_acknowledges_fails_the_sink_naming_it():
    """Delivery reports come for failures only (none per record delivered): a failed one
    still fails the job, naming the sink and the partition."""
    env = make_env(1)
    sink = (
        KafkaSink.builder()
        .set_bootstrap_servers("127.0.0.1:1")
        .set_record_serializer(
            KafkaRecordSerializationSchema.builder()
            .set_topic("t")
            .set_value_serialization_schema(SimpleStringSchema())
            .build()
        )
        .set_delivery_guarantee(DeliveryGuarantee.AT_LEAST_ONCE)
        .set_property("message.timeout.ms", "1500")
        .build()
    )
    env.from_collection(["a", "b"]).sink_to(sink)
    with pytest.raises(Exception) as failure:
        env.execute("undelivered")
    text = "".join(str(e) for e in _chain(failure.value))
    assert "KafkaSink" in text and "delivering to partition t-" in text and "timed out" in text


def test_a_record_that_cannot_be_parsed_names_topic_partition_and_offset(broker):
    from millstream.datastream.formats.json import JsonRowDeserializationSchema

    records = [(0, None, b'{"n": 1}', None), (0, None, b"not json", None), (0, None, b'{"n": 3}', None)]
    topic = _topic(broker, "bad-json", 1, records)
    row = Types.ROW_NAMED(["n"], [Types.INT()])

    def job(schema):
        source = (
            KafkaSource.builder()
            .set_bootstrap_servers(broker.bootstrap_servers)
            .set_topics(topic)
            .set_bounded(KafkaOffsetsInitializer.latest())
            .set_value_only_deserializer(schema)
            .build()
        )
        env = make_env(1)
        return env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka").map(
            lambda r: r[0], Types.INT()
        )

    strict = JsonRowDeserializationSchema.builder().type_info(row).build()
    with pytest.raises(Exception) as failure:
        list(job(strict).execute_and_collect())
    text = "".join(str(e) for e in _chain(failure.value))
    assert "offset 1 of partition bad-json-0" in text
    lenient = JsonRowDeserializationSchema.builder().type_info(row).ignore_parse_errors().build()
    assert sorted(job(lenient).execute_and_collect()) == [1, 3]


def test_a_transaction_timeout_below_the_checkpoint_interval_is_refused(broker):
    env = make_env(1)
    env.enable_checkpointing(60_000)
    sink = _sink(broker, "never", DeliveryGuarantee.EXACTLY_ONCE, "short")
    sink.properties["transaction.timeout.ms"] = "30000"
    env.from_collection(["x"], Types.STRING()).sink_to(sink)
    with pytest.raises(Exception, match=r"transaction.timeout.ms \(30000 ms\) must be longer"):
        env.execute("short timeout")


def _chain(error: BaseException | None) -> Iterator[BaseException]:
    while error is not None:
        yield error
        error = error.__cause__ or error.__context__


class _Gated:
    """A map taking 0.5 ms per record while ``flag`` exists (checked every 50 records): the
    first job still runs when it is stopped (its 20,000 records take 5 s at least), the
    resumed one reads at full speed. Short sleeps: a barrier waits for the batch in hand."""

    def __init__(self, flag: str) -> None:
        self.flag, self.seen, self.slow = flag, 0, True

    def __call__(self, value):
        self.seen += 1
        if self.seen % 50 == 1:
            self.slow = os.path.exists(self.flag)
        if self.slow:
            time.sleep(0.0005)
        return value


def test_stop_with_a_savepoint_and_resume_at_another_parallelism_loses_and_repeats_nothing(broker, tmp_path):
    """Issue 31's acceptance: 4 partitions read at parallelism 2 into the exactly-once
    FileSink, stopped with a savepoint part-way, resumed from it at parallelism 3 (the
    partitions' offsets redistributed): every record is committed exactly once."""
    from tests.integration.test_checkpoints import committed_lines
    from tests.integration.test_savepoints import env_for, wait_for_state_in_checkpoints

    count = 20_000
    topic = _topic(broker, "sp-in", 4, [(i % 4, None, f"r{i}".encode(), None) for i in range(count)])
    flag, out = tmp_path / "slow", tmp_path / "out"
    flag.write_text("")

    def build(env: Any) -> None:
        env.enable_checkpointing(100)
        source = (
            KafkaSource.builder()
            .set_bootstrap_servers(broker.bootstrap_servers)
            .set_topics(topic)
            .set_starting_offsets(KafkaOffsetsInitializer.earliest())
            # a streaming job ending at the partitions' ends (without discovery, as Flink's
            # enumerator then signals that no more splits come)
            .set_unbounded(KafkaOffsetsInitializer.latest())
            .set_property("partition.discovery.interval.ms", "0")
            .set_value_only_deserializer(SimpleStringSchema())
            .build()
        )
        sink = FileSink.for_row_format(str(out), Encoder.simple_string_encoder()).build()
        stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka").uid("kafka")
        stream.map(_Gated(str(flag)), Types.STRING()).uid("gate").sink_to(sink).uid("files")

    env = env_for(2, "hashmap")
    build(env)
    client = env.execute_async("kafka stopped")
    wait_for_state_in_checkpoints(client, out, 1)
    path = client.stop_with_savepoint(savepoint_directory=str(tmp_path / "savepoints")).result(60)
    client.get_job_execution_result(60)
    before = committed_lines(out)
    assert 0 < sum(before.values()) < count  # stopped part-way
    flag.unlink()
    env = env_for(3, "rocksdb", restore=str(path))
    build(env)
    env.execute("kafka resumed")
    assert committed_lines(out) == Counter(f"r{i}" for i in range(count))


@pytest.mark.parametrize("guarantee", [DeliveryGuarantee.EXACTLY_ONCE, DeliveryGuarantee.AT_LEAST_ONCE])
def test_a_task_manager_killed_under_a_transactional_sink(broker, guarantee):
    """Issue 31's acceptance (c), checked on the log itself (the test broker hands aborted
    records to read_committed consumers, so its markers are read): Kafka -> Kafka at
    parallelism 2, a TaskManager SIGKILLed after a checkpoint completed. EXACTLY_ONCE: the
    transactions that ended in COMMIT hold every record exactly once (what the killed attempt
    wrote after the restored checkpoint ended in ABORT or never ended); each subtask's
    transactional ids are contiguous. AT_LEAST_ONCE: every record is there, some perhaps twice."""
    from millstream.testing.kafka_log import committed_values, read_log

    name = guarantee.name.lower().replace("_", "-")
    count = 8_000
    topic = _topic(
        broker, f"kill-{name}-in", 4, [(i % 4, None, f"k{i}".encode(), None) for i in range(count)]
    )
    out = f"kill-{name}-out"
    broker.create_topic(out, 2)
    env = make_env(2, restart_strategy__type="fixed-delay", restart_strategy__fixed_delay__delay="100 ms")
    env.enable_checkpointing(200)
    prefix = f"kill-{name}" if guarantee is DeliveryGuarantee.EXACTLY_ONCE else None
    (
        env.from_source(_source(broker, topic), WatermarkStrategy.no_watermarks(), "kafka")
        .map(_Slow(), Types.STRING())
        .sink_to(_sink(broker, out, guarantee, prefix))
    )
    client = env.execute_async(f"kafka {name} killed")
    deadline = time.monotonic() + 120
    while client.get_checkpoint_statistics().get("numberOfCompletedCheckpoints", 0) < 2:
        assert not client.get_job_status().is_globally_terminal_state(), "the job ended before the kill"
        assert time.monotonic() < deadline, "no checkpoint completed"
        time.sleep(0.05)  # polling an observable condition, bounded by the deadline
    os.kill(client.cluster.task_manager_processes.processes[0].pid, signal.SIGKILL)
    result = client.get_job_execution_result(240)
    assert int(result.get_all_accumulator_results().get("numRestarts", 0)) >= 1
    expected = Counter(f"k{i}".encode() for i in range(count))
    logs = [read_log(broker.bootstrap_servers, out, p) for p in (0, 1)]
    committed = Counter(v for log in logs for v in committed_values(log)[0])
    if guarantee is DeliveryGuarantee.EXACTLY_ONCE:
        assert committed == expected
        assert all(b.transactional for log in logs for b in log)
        ids = _transactional_ids(broker, prefix or "")
        for subtask in "01":
            offsets = sorted(int(i.rsplit("-", 1)[1]) for i in ids if i.rsplit("-", 2)[1] == subtask)
            assert offsets == list(range(offsets[0], offsets[0] + len(offsets))), ids
    else:
        assert set(committed) == set(expected) and all(committed[v] >= 1 for v in expected)
