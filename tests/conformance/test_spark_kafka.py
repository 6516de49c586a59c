"""Kafka jobs with ``execution.target: spark`` against the test broker (Tansu).

A bounded KafkaSource runs in the batch runner: each Spark task's reader finds the
partitions its subtask owns (Flink's owner rule) and reads them to their stopping offsets.
An unbounded one is a Structured Streaming query over millstream's Python data source
(``millstream_kafka``): the offsets live in the query's checkpoint location, so the same job
started again reads on from where it stopped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from millstream.common import Configuration, Types, WatermarkStrategy
from millstream.common.serialization import SimpleStringSchema
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.kafka import (
    DeliveryGuarantee,
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
)
from millstream.table import StreamTableEnvironment
from millstream.testing.kafka_broker import KafkaBroker, produce_records, read_partition

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("spark")]  # the suite's session


def _env(**settings: str) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("execution.target", "spark").set_string("spark.master", "local[2]")
    for key, value in settings.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    return env


def _source(broker: KafkaBroker, topic: str, bounded: bool) -> KafkaSource:
    builder = (
        KafkaSource.builder()
        .set_bootstrap_servers(broker.bootstrap_servers)
        .set_topics(topic)
        .set_starting_offsets(KafkaOffsetsInitializer.earliest())
        .set_value_only_deserializer(SimpleStringSchema())
    )
    if bounded:
        builder.set_bounded(KafkaOffsetsInitializer.latest())
    return builder.build()


def test_a_bounded_kafka_to_kafka_job_and_a_kafka_table_run_on_spark(broker: KafkaBroker):
    servers = broker.bootstrap_servers
    broker.create_topic("spark-in", 3)
    broker.create_topic("spark-out", 1)
    broker.create_topic("spark-table-out", 1)
    produce_records(servers, "spark-in", [(i % 3, None, f"v{i}".encode(), 1000 + i) for i in range(60)])
    env = _env()
    sink = (
        KafkaSink.builder()
        .set_bootstrap_servers(servers)
        .set_record_serializer(
            KafkaRecordSerializationSchema.builder()
            .set_topic("spark-out")
            .set_value_serialization_schema(SimpleStringSchema())
            .build()
        )
        .set_delivery_guarantee(DeliveryGuarantee.AT_LEAST_ONCE)
        .build()
    )
    stream = env.from_source(_source(broker, "spark-in", True), WatermarkStrategy.no_watermarks(), "kafka")
    stream.map(lambda v: v.upper(), Types.STRING()).sink_to(sink)
    env.execute("kafka on spark")
    assert sorted(m.value() for m in read_partition(servers, "spark-out", 0)) == sorted(
        f"V{i}".encode() for i in range(60)
    )

    t_env = StreamTableEnvironment.create(_env())
    bounded = "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'"
    t_env.execute_sql(
        f"CREATE TABLE src (v STRING) WITH ('connector' = 'kafka', 'topic' = 'spark-in', "
        f"'properties.bootstrap.servers' = '{servers}', 'format' = 'raw', {bounded})"
    )
    t_env.execute_sql(
        f"CREATE TABLE dst (v STRING, n INT) WITH ('connector' = 'kafka', 'topic' = 'spark-table-out', "
        f"'properties.bootstrap.servers' = '{servers}', 'format' = 'json')"
    )
    t_env.execute_sql("INSERT INTO dst SELECT v, CHAR_LENGTH(v) FROM src").wait()
    written = [json.loads(m.value()) for m in read_partition(servers, "spark-table-out", 0)]
    assert sorted((r["v"], r["n"]) for r in written) == sorted((f"v{i}", len(f"v{i}")) for i in range(60))


def _collect(env: StreamExecutionEnvironment, stream: Any, count: int, then: Any = None) -> list[Any]:
    out: list[Any] = []
    with stream.execute_and_collect("kafka stream") as results:
        for value in results:
            out.append(value)
            if len(out) == count // 2 and then is not None:
                then()
            if len(out) == count:
                break
    return out


def test_an_unbounded_kafka_source_streams_on_spark_and_resumes_from_its_checkpoint(broker, tmp_path):
    servers = broker.bootstrap_servers
    broker.create_topic("spark-stream", 2)
    produce_records(servers, "spark-stream", [(i % 2, None, f"a{i}".encode(), None) for i in range(20)])
    settings = {
        "execution.checkpointing.dir": str(tmp_path / "checkpoints"),
        "execution.checkpointing.interval": "500 ms",
    }

    def job() -> tuple[StreamExecutionEnvironment, Any]:
        env = _env(**settings)
        stream = env.from_source(
            _source(broker, "spark-stream", False), WatermarkStrategy.no_watermarks(), "kafka"
        )
        return env, stream.map(lambda v: v.upper(), Types.STRING())

    # records produced while the query runs arrive too
    more = [(i % 2, None, f"b{i}".encode(), None) for i in range(10)]
    env, stream = job()
    first = _collect(env, stream, 30, then=lambda: produce_records(servers, "spark-stream", more))
    assert sorted(first) == sorted([f"A{i}" for i in range(20)] + [f"B{i}" for i in range(10)])
    # started again under the same name: on from the offsets in the query's checkpoint
    produce_records(servers, "spark-stream", [(i % 2, None, f"c{i}".encode(), None) for i in range(6)])
    env, stream = job()
    assert sorted(_collect(env, stream, 6)) == sorted(f"C{i}" for i in range(6))
