"""Totals per customer from a Kafka topic, written to another topic exactly once.

The broker's address comes from KAFKA_BOOTSTRAP_SERVERS (default 127.0.0.1:9092); start a
local broker with: .venv/bin/python -m millstream.testing.kafka_broker
"""

import os

from confluent_kafka import Producer

from millstream.common import SimpleStringSchema, Types, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.base import DeliveryGuarantee
from millstream.datastream.connectors.kafka import (
    KafkaOffsetsInitializer,
    KafkaRecordSerializationSchema,
    KafkaSink,
    KafkaSource,
)

servers = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092")

# some input: orders as "customer,amount" lines, keyed by customer (one partition each)
producer = Producer({"bootstrap.servers": servers})
for line in ["alice,12", "bob,5", "alice,30"]:
    producer.produce("orders", line.encode(), key=line.split(",")[0].encode())
    producer.flush()  # one record per request: Tansu, the test broker, miscounts batches' end offsets

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(1)
env.enable_checkpointing(1000)  # the sink commits its transaction when a checkpoint completes
source = (
    KafkaSource.builder()
    .set_bootstrap_servers(servers)
    .set_topics("orders")
    .set_group_id("reports")
    .set_starting_offsets(KafkaOffsetsInitializer.earliest())
    .set_bounded(KafkaOffsetsInitializer.latest())  # stop at the end: a bounded job
    .set_value_only_deserializer(SimpleStringSchema())
    .build()
)
sink = (
    KafkaSink.builder()
    .set_bootstrap_servers(servers)
    .set_record_serializer(
        KafkaRecordSerializationSchema.builder()
        .set_topic("totals")
        .set_value_serialization_schema(SimpleStringSchema())
        .build()
    )
    .set_delivery_guarantee(DeliveryGuarantee.EXACTLY_ONCE)
    .set_transactional_id_prefix("reports")
    .build()
)
totals = (
    env.from_source(source, WatermarkStrategy.no_watermarks(), "orders")
    .map(lambda line: (line.split(",")[0], int(line.split(",")[1])),
         output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
    .key_by(lambda order: order[0])
    .reduce(lambda a, b: (a[0], a[1] + b[1]))
    .map(lambda total: f"{total[0]},{total[1]}", output_type=Types.STRING())
)
totals.print()
totals.sink_to(sink)
env.execute("totals")
