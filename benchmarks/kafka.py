"""Kafka connector throughput against the floor of a plain confluent-kafka program, on the
test broker (Tansu, started here), in the same run.

1. Source: a topic of N records (``--partitions`` partitions, ~100-byte values) read to its
   end by a bounded KafkaSource (SimpleStringSchema) into a counting sink, at parallelism 1
   and 2, against a plain confluent-kafka loop (partitions assigned, ``consume(1000)`` batches,
   each value decoded to a str, the same client settings). Two ratios: the whole job (its
   TaskManagers' start-up included, about half a second) to the plain loop from assigning
   its partitions to its last record; and the source's throughput, from the first record to
   the last in both. Target: at least 0.5 of the plain loop's throughput at p1.
2. Sink: N records written by a KafkaSink with NONE, AT_LEAST_ONCE and EXACTLY_ONCE
   (checkpoints every second: a transaction per subtask and checkpoint) against a plain
   producer loop (``produce`` + ``flush``).

    python benchmarks/kafka.py [--records N] [--partitions P] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from millstream.common import Configuration, WatermarkStrategy
from millstream.common.serialization import SimpleStringSchema
from millstream.connectors.kafka.source import FETCH_QUEUE_BACKOFF_MS
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.connectors.kafka import (
    DeliveryGuarantee,
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
)
from millstream.testing.kafka_broker import KafkaBroker, create_topic, produce_records


def value_of(i: int) -> str:
    return f"{i:012d},user-{i % 9973},page-{i % 101},{'x' * 70}"


class Count:
    """A sink counting the batches it is given (a batch writer: no per-record call, so the
    source's cost is what is measured); each subtask writes its count and the times of its
    first and last batch to ``<prefix>-<subtask>`` when its input ends."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def create_writer(self, context: Any, renderer: Any) -> _CountWriter:
        return _CountWriter(f"{self.prefix}-{context.subtask_index}")


class _CountWriter:
    def __init__(self, path: str) -> None:
        self.path, self.count, self.first, self.last = path, 0, 0.0, 0.0

    def write_batch(self, values: list[Any]) -> None:
        now = time.time()
        if not self.count:
            self.first = now
        self.count += len(values)
        self.last = now

    def finish(self) -> None:
        Path(self.path).write_text(f"{self.count} {self.first} {self.last}")

    def close(self) -> None:
        pass


def plain_consume(servers: str, topic: str, partitions: int, records: int) -> tuple[float, float]:
    """Seconds a plain confluent-kafka loop takes to read and decode every record: from
    assigning the partitions to the last record, and from its first record to its last."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": servers,
            "group.id": f"plain-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "log_level": 0,
            "fetch.queue.backoff.ms": FETCH_QUEUE_BACKOFF_MS,  # as the KafkaSource's consumers
        }
    )
    started = time.perf_counter()
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    seen = 0
    first = 0.0
    while seen < records:
        for message in consumer.consume(1000, 5.0):
            if message.error() is None:
                message.value().decode("utf-8")
                seen += 1
        if not first and seen:
            first = time.perf_counter()
    last = time.perf_counter()
    consumer.close()
    return last - started, last - first


def millstream_consume(servers: str, topic: str, parallelism: int, records: int) -> tuple[float, float]:
    """Seconds a bounded KafkaSource job takes to read the topic: from submission to its
    result, and from its first record to its last (the TaskManagers' start-up left out)."""
    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    env.set_parallelism(parallelism)
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers(servers)
        .set_topics(topic)
        .set_starting_offsets(KafkaOffsetsInitializer.earliest())
        .set_bounded(KafkaOffsetsInitializer.latest())
        .set_value_only_deserializer(SimpleStringSchema())
        .build()
    )
    with tempfile.TemporaryDirectory() as counts:
        env.from_source(source, WatermarkStrategy.no_watermarks(), "kafka").sink_to(Count(f"{counts}/n"))
        started = time.perf_counter()
        env.execute(f"kafka source p{parallelism}")
        elapsed = time.perf_counter() - started
        reports = [Path(counts, name).read_text().split() for name in os.listdir(counts)]
    read = sum(int(count) for count, _, _ in reports)
    if read != records:
        print(f"  MISMATCH: read {read} of {records}")
    first = min(float(f) for count, f, _ in reports if int(count))
    last = max(float(end) for count, _, end in reports if int(count))
    return elapsed, last - first


def plain_produce(servers: str, topic: str, records: int) -> float:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": servers, "log_level": 0, "linger.ms": 5})
    started = time.perf_counter()
    for i in range(records):
        while True:
            try:
                producer.produce(topic, value_of(i).encode())
                break
            except BufferError:
                producer.poll(0.05)
    producer.flush(120)
    return time.perf_counter() - started


def millstream_produce(servers: str, topic: str, records: int, guarantee: DeliveryGuarantee) -> float:
    env = StreamExecutionEnvironment.get_execution_environment(Configuration())
    env.set_parallelism(1)
    env.enable_checkpointing(1000)
    builder = (
        KafkaSink.builder()
        .set_bootstrap_servers(servers)
        .set_record_serializer(
            KafkaRecordSerializationSchema.builder()
            .set_topic(topic)
            .set_value_serialization_schema(SimpleStringSchema())
            .build()
        )
        .set_delivery_guarantee(guarantee)
    )
    if guarantee is DeliveryGuarantee.EXACTLY_ONCE:
        builder.set_transactional_id_prefix(f"bench-{uuid.uuid4().hex[:8]}")
    source = DataGeneratorSource(value_of, records)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "gen").sink_to(builder.build())
    started = time.perf_counter()
    env.execute(f"kafka sink {guarantee.name}")
    return time.perf_counter() - started


def best(times: list[float]) -> float:
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.records
    with KafkaBroker() as broker:
        servers = broker.bootstrap_servers
        topic = "bench-source"
        create_topic(servers, topic, args.partitions)
        produce_records(
            servers, topic, [(i % args.partitions, None, value_of(i).encode(), None) for i in range(n)]
        )
        print(f"== source: {n} records in {args.partitions} partitions (best of {args.repeat})")
        floor = [plain_consume(servers, topic, args.partitions, n) for _ in range(args.repeat)]
        plain, plain_reading = best([f[0] for f in floor]), best([f[1] for f in floor])
        print(f"plain confluent-kafka consume loop:  {plain:7.2f} s  {n / plain:10,.0f} records/s")
        rate = n / plain_reading
        print(f"  first to last record:              {plain_reading:7.2f} s  {rate:10,.0f} records/s")
        for parallelism in (1, 2):
            runs = [millstream_consume(servers, topic, parallelism, n) for _ in range(args.repeat)]
            took, reading = best([r[0] for r in runs]), best([r[1] for r in runs])
            target = "  (target >= 0.5)" if parallelism == 1 else ""
            print(
                f"millstream KafkaSource p{parallelism}, whole job:  {took:7.2f} s"
                f"  {n / took:10,.0f} records/s  ratio to floor {plain / took:5.2f}"
            )
            print(
                f"  first to last record:              {reading:7.2f} s  {n / reading:10,.0f} records/s"
                f"  ratio to floor {plain_reading / reading:5.2f}{target}"
            )

        print(f"== sink: {n} records (best of {args.repeat})")
        plain_times = []
        for attempt in range(args.repeat):
            create_topic(servers, f"bench-plain-{attempt}", 1)
            plain_times.append(plain_produce(servers, f"bench-plain-{attempt}", n))
        plain = best(plain_times)
        print(f"plain confluent-kafka produce loop: {plain:7.2f} s  {n / plain:10,.0f} records/s")
        for guarantee in (
            DeliveryGuarantee.NONE,
            DeliveryGuarantee.AT_LEAST_ONCE,
            DeliveryGuarantee.EXACTLY_ONCE,
        ):
            times = []
            for attempt in range(args.repeat):
                name = f"bench-{guarantee.name.lower()}-{attempt}"
                create_topic(servers, name, 1)
                times.append(millstream_produce(servers, name, n, guarantee))
            took = best(times)
            print(
                f"millstream KafkaSink {guarantee.name:13s}: {took:7.2f} s  {n / took:10,.0f} records/s"
                f"  ratio to floor {plain / took:5.2f}"
            )
        print(f"(median of the floor's runs: {statistics.median(plain_times):.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
