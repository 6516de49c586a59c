"""The DataStream row schemas at PyFlink's import paths, written to and read back from a topic
as PyFlink's ``datastream/connectors/kafka_*`` examples do (a program that ports by swapping
its imports: ``env.add_jars`` of the connector jar included), and the legacy
``FlinkKafkaConsumer`` / ``FlinkKafkaProducer``.

PyFlink 2.3's five Kafka examples, imports swapped to millstream and pointed at the Tansu
broker, printed the records they wrote (checked by hand: the examples ship in PyFlink's wheel,
which is no dependency of this project).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from millstream.common import ByteArraySchema, Types, WatermarkStrategy
from millstream.common.serialization import RowFieldExtractorSchema
from millstream.datastream.connectors.kafka import (
    FlinkKafkaConsumer,
    FlinkKafkaProducer,
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
    Semantic,
)
from millstream.datastream.formats.avro import AvroRowDeserializationSchema, AvroRowSerializationSchema
from millstream.datastream.formats.csv import CsvRowDeserializationSchema, CsvRowSerializationSchema
from millstream.datastream.formats.json import JsonRowDeserializationSchema, JsonRowSerializationSchema
from millstream.testing.kafka_broker import KafkaBroker, read_partition
from tests.conftest import make_env

pytestmark = pytest.mark.timeout(300)

ROWS = [(1, "hi"), (2, "hello, world"), (3, None)]
ROW_TYPE = Types.ROW([Types.INT(), Types.STRING()])
AVRO_SCHEMA = """{"type": "record", "name": "TestRecord", "fields": [
    {"name": "id", "type": "int"}, {"name": "name", "type": ["null", "string"]}]}"""


def _write(
    broker: KafkaBroker, topic: str, rows: list[Any], type_info: Any, value_schema: Any, key: Any = None
) -> None:
    env = make_env(1)
    env.add_jars("file:///path/to/flink-sql-connector-kafka.jar")  # as PyFlink programs do: not needed here
    serializer = (
        KafkaRecordSerializationSchema.builder().set_topic(topic).set_value_serialization_schema(value_schema)
    )
    if key is not None:
        serializer.set_key_serialization_schema(key)
    sink = (
        KafkaSink.builder()
        .set_bootstrap_servers(broker.bootstrap_servers)
        .set_record_serializer(serializer.build())
        .build()
    )
    env.from_collection(rows, type_info=type_info).sink_to(sink)
    env.execute()


def _read(broker: KafkaBroker, topic: str, deserializer: Any, count: int) -> list[Any]:
    env = make_env(1)
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers(broker.bootstrap_servers)
        .set_topics(topic)
        .set_group_id("test_group")
        .set_starting_offsets(KafkaOffsetsInitializer.earliest())
        .set_value_only_deserializer(deserializer)
        .build()
    )
    stream = env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "Kafka Source")
    return stream.execute_and_collect(limit=count)


@pytest.mark.parametrize("fmt", ["json", "csv", "avro"])
def test_row_schemas_write_and_read_back_rows(broker: KafkaBroker, fmt: str):
    topic = f"rows-{fmt}"
    broker.create_topic(topic, 1)
    if fmt == "json":
        writer: Any = JsonRowSerializationSchema.Builder().with_type_info(ROW_TYPE).build()
        reader: Any = JsonRowDeserializationSchema.Builder().type_info(ROW_TYPE).build()
    elif fmt == "csv":
        writer = CsvRowSerializationSchema.Builder(ROW_TYPE).build()
        reader = CsvRowDeserializationSchema.Builder(ROW_TYPE).build()
    else:
        writer = AvroRowSerializationSchema(avro_schema_string=AVRO_SCHEMA)
        reader = AvroRowDeserializationSchema(avro_schema_string=AVRO_SCHEMA)
    _write(broker, topic, ROWS, ROW_TYPE, writer)
    values = [m.value() for m in read_partition(broker.bootstrap_servers, topic, 0)]
    if fmt == "json":  # Flink's JsonRowSerializationSchema names Types.ROW fields f0, f1
        assert [json.loads(v) for v in values] == [{"f0": i, "f1": s} for i, s in ROWS]
    elif fmt == "csv":  # Flink's CsvRowSerializationSchema: quoted when needed, "\n" at the end
        assert values == [b"1,hi\n", b'2,"hello, world"\n', b"3,\n"]
    rows = _read(broker, topic, reader, len(ROWS))
    # CSV without a null literal: the NULL was written as an empty field, which reads as ""
    expected = ROWS if fmt != "csv" else [(1, "hi"), (2, "hello, world"), (3, "")]
    assert [tuple(r) for r in rows] == expected


def test_byte_arrays_and_row_fields_as_keys_and_values(broker: KafkaBroker):
    broker.create_topic("bytes", 1)
    type_info = Types.ROW([Types.PRIMITIVE_ARRAY(Types.BYTE()), Types.PRIMITIVE_ARRAY(Types.BYTE())])
    rows = [(b"user-1", b'{"e": 1}'), (b"user-2", b'{"e": 2}')]
    _write(broker, "bytes", rows, type_info, RowFieldExtractorSchema(1), key=RowFieldExtractorSchema(0))
    assert [(m.key(), m.value()) for m in read_partition(broker.bootstrap_servers, "bytes", 0)] == rows
    assert _read(broker, "bytes", ByteArraySchema(), 2) == [b'{"e": 1}', b'{"e": 2}']
    with pytest.raises(ValueError, match="non-negative"):
        RowFieldExtractorSchema(-1)


@pytest.mark.parametrize("semantic", [Semantic.AT_LEAST_ONCE, Semantic.EXACTLY_ONCE])
def test_the_legacy_producer_and_consumer(broker: KafkaBroker, semantic: Semantic):
    topic = f"legacy-{semantic.name.lower()}"
    broker.create_topic(topic, 2)
    servers = broker.bootstrap_servers
    env = make_env(2, execution__checkpointing__interval="200 ms")
    schema = JsonRowSerializationSchema.builder().with_type_info(ROW_TYPE).build()
    with pytest.warns(DeprecationWarning):
        producer = FlinkKafkaProducer(topic, schema, {"bootstrap.servers": servers}, semantic=semantic)
    env.from_collection(ROWS, type_info=ROW_TYPE).add_sink(producer)
    env.execute()
    written = [m for p in (0, 1) for m in read_partition(servers, topic, p, isolation="read_committed")]
    assert sorted(json.loads(m.value())["f0"] for m in written) == [1, 2, 3]

    env = make_env(2)
    deserializer = JsonRowDeserializationSchema.builder().type_info(ROW_TYPE).build()
    with pytest.warns(DeprecationWarning):
        consumer = FlinkKafkaConsumer(
            topic, deserializer, {"bootstrap.servers": servers, "group.id": "legacy"}
        )
    consumer.set_start_from_earliest()
    rows = env.add_source(consumer).execute_and_collect(limit=3)
    assert sorted(tuple(r) for r in rows) == sorted(ROWS, key=lambda r: r[0])
