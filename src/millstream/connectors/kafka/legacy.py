"""The legacy Kafka connectors public programs still use: ``FlinkKafkaConsumer`` (with
``env.add_source``) and ``FlinkKafkaProducer`` (with ``ds.add_sink``), deprecated since Flink
1.16 and gone from Flink 2 but kept by PyFlink's module.

Each runs as its FLIP-27 successor, with the legacy defaults: the consumer is a parallel source
starting from the group's committed offsets (``auto.offset.reset`` from the properties, the Java
client's ``latest`` when unset) and committing offsets on checkpoints when a ``group.id`` is
set; partitions go to subtasks by the same rule as the KafkaSource (``KafkaTopicPartitionAssigner``
and ``getSplitOwner`` agree). The producer's default semantic is AT_LEAST_ONCE; EXACTLY_ONCE
uses transactions named after the topic (``FlinkKafkaProducer-<topic>``).
"""

from __future__ import annotations

import warnings
from enum import Enum
from typing import Any

from millstream.common.connector import DeliveryGuarantee
from millstream.connectors.kafka.offsets import (
    KafkaOffsetResetStrategy,
    KafkaOffsetsInitializer,
    KafkaTopicPartition,
)
from millstream.connectors.kafka.sink import KafkaRecordSerializationSchema, KafkaSink
from millstream.connectors.kafka.source import KafkaSource

__all__ = ["FlinkKafkaConsumer", "FlinkKafkaProducer", "Semantic"]


class FlinkKafkaConsumer:
    """Reads topics (``env.add_source(FlinkKafkaConsumer(topics, schema, properties))``)."""

    def __init__(
        self, topics: str | list[str], deserialization_schema: Any, properties: dict[str, str]
    ) -> None:
        warnings.warn("Deprecated in 1.16. Use KafkaSource instead.", DeprecationWarning, stacklevel=2)
        self.topics = [topics] if isinstance(topics, str) else list(topics)
        self.deserialization_schema = deserialization_schema
        self.properties = {str(k): str(v) for k, v in dict(properties).items()}
        self._starting = self._group_offsets()
        self._commit = True
        self._watermark_strategy: Any = None

    def set_commit_offsets_on_checkpoints(self, commit_on_checkpoints: bool) -> FlinkKafkaConsumer:
        """Commit the checkpointed offsets to the group (default true, with a group.id)."""
        self._commit = bool(commit_on_checkpoints)
        return self

    def set_start_from_earliest(self) -> FlinkKafkaConsumer:
        """Start from the earliest offset of each partition."""
        self._starting = KafkaOffsetsInitializer.earliest()
        return self

    def set_start_from_latest(self) -> FlinkKafkaConsumer:
        """Start from the end of each partition."""
        self._starting = KafkaOffsetsInitializer.latest()
        return self

    def set_start_from_timestamp(self, startup_offsets_timestamp: int) -> FlinkKafkaConsumer:
        """Start from the first record at or after this timestamp (ms)."""
        self._starting = KafkaOffsetsInitializer.timestamp(startup_offsets_timestamp)
        return self

    def set_start_from_group_offsets(self) -> FlinkKafkaConsumer:
        """Start from the group's committed offsets (the default)."""
        self._starting = self._group_offsets()
        return self

    def _group_offsets(self) -> KafkaOffsetsInitializer:
        reset = self.properties.get("auto.offset.reset", "latest").upper()  # the Java client's default
        strategy = KafkaOffsetResetStrategy.__members__.get(reset, KafkaOffsetResetStrategy.LATEST)
        return KafkaOffsetsInitializer.committed_offsets(strategy)

    def set_start_from_specific_offsets(
        self, specific_offsets: dict[KafkaTopicPartition, int]
    ) -> FlinkKafkaConsumer:
        """Start each named partition at its offset (the others from the group's offsets)."""
        self._starting = KafkaOffsetsInitializer.offsets(
            dict(specific_offsets), KafkaOffsetResetStrategy.LATEST
        )
        return self

    def disable_filter_restored_partitions_with_subscribed_topics(self) -> FlinkKafkaConsumer:
        """Accepted: restored partitions are those of the subscribed topics either way."""
        return self

    def assign_timestamps_and_watermarks(self, watermark_strategy: Any) -> FlinkKafkaConsumer:
        """Watermarks generated per partition inside the source."""
        self._watermark_strategy = watermark_strategy
        return self

    def get_produced_type(self) -> Any:
        """The deserializer's type."""
        return self.as_source().get_produced_type()

    def as_source(self) -> Any:
        """The KafkaSource this consumer runs as."""
        starting = self._starting
        if starting.kind == "committed" and "group.id" not in self.properties:
            # no group to read offsets of: where auto.offset.reset points
            latest = starting.reset is not KafkaOffsetResetStrategy.EARLIEST
            starting = KafkaOffsetsInitializer.latest() if latest else KafkaOffsetsInitializer.earliest()
        builder = (
            KafkaSource.builder()
            .set_properties(self.properties)
            .set_topics(*self.topics)
            .set_starting_offsets(starting)
            .set_value_only_deserializer(self.deserialization_schema)
        )
        if self._commit and "group.id" in self.properties:
            builder.set_property("commit.offsets.on.checkpoint", "true")
        else:
            builder.set_property("commit.offsets.on.checkpoint", "false")
        builder.set_property(
            "partition.discovery.interval.ms",
            self.properties.get("flink.partition-discovery.interval-millis", "-1"),
        )  # the legacy key; off by default
        return builder.build()

    def watermark_strategy(self) -> Any:
        """The strategy given to ``assign_timestamps_and_watermarks`` (None: no watermarks)."""
        return self._watermark_strategy


class Semantic(Enum):
    """The legacy producer's delivery guarantee."""

    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1
    NONE = 2


_GUARANTEE = {
    Semantic.EXACTLY_ONCE: DeliveryGuarantee.EXACTLY_ONCE,
    Semantic.AT_LEAST_ONCE: DeliveryGuarantee.AT_LEAST_ONCE,
    Semantic.NONE: DeliveryGuarantee.NONE,
}


class FlinkKafkaProducer:
    """Writes a topic (``ds.add_sink(FlinkKafkaProducer(topic, schema, producer_config))``)."""

    def __init__(
        self,
        topic: str,
        serialization_schema: Any,
        producer_config: dict[str, str],
        kafka_producer_pool_size: int = 5,
        semantic: Semantic = Semantic.AT_LEAST_ONCE,
    ) -> None:
        warnings.warn("Deprecated in 1.16. Use KafkaSink instead.", DeprecationWarning, stacklevel=2)
        self.topic = topic
        self.serialization_schema = serialization_schema
        self.producer_config = {str(k): str(v) for k, v in dict(producer_config).items()}
        self.semantic = semantic

    def set_log_failures_only(self, log_failures_only: bool) -> FlinkKafkaProducer:
        """Only ``False`` (failures fail the job) is supported: losing records silently is not."""
        if log_failures_only:
            raise ValueError("FlinkKafkaProducer: log_failures_only is not supported (failures fail the job)")
        return self

    def set_flush_on_checkpoint(self, flush_on_checkpoint: bool) -> FlinkKafkaProducer:
        """AT_LEAST_ONCE always flushes on checkpoints; turning it off means NONE."""
        if not flush_on_checkpoint and self.semantic is Semantic.AT_LEAST_ONCE:
            self.semantic = Semantic.NONE
        return self

    def set_write_timestamp_to_kafka(self, write_timestamp_to_kafka: bool) -> FlinkKafkaProducer:
        """Not supported yet: records get the producer's timestamp."""
        if write_timestamp_to_kafka:
            raise ValueError("FlinkKafkaProducer: writing element timestamps to Kafka is not supported yet")
        return self

    def ignore_failures_after_transaction_timeout(self) -> FlinkKafkaProducer:
        """Accepted (a transaction the broker timed out fails its commit either way)."""
        return self

    def as_sink(self) -> Any:
        """The KafkaSink this producer runs as."""
        serializer = (
            KafkaRecordSerializationSchema.builder()
            .set_topic(self.topic)
            .set_value_serialization_schema(self.serialization_schema)
            .build()
        )
        builder = KafkaSink.builder().set_record_serializer(serializer)
        for key, value in self.producer_config.items():
            builder.set_property(key, value)
        builder.set_delivery_guarantee(_GUARANTEE[self.semantic])
        if self.semantic is Semantic.EXACTLY_ONCE:
            builder.set_transactional_id_prefix(f"FlinkKafkaProducer-{self.topic}")
        return builder.build()
