"""``pyflink.datastream.connectors.kafka`` names: KafkaSource, KafkaSink and their builders."""

from millstream.common.connector import DeliveryGuarantee
from millstream.connectors.kafka.legacy import FlinkKafkaConsumer, FlinkKafkaProducer, Semantic
from millstream.connectors.kafka.offsets import (
    KafkaOffsetResetStrategy,
    KafkaOffsetsInitializer,
    KafkaTopicPartition,
)
from millstream.connectors.kafka.sink import (
    KafkaRecordSerializationSchema,
    KafkaRecordSerializationSchemaBuilder,
    KafkaSink,
    KafkaSinkBuilder,
)
from millstream.connectors.kafka.source import KafkaSource, KafkaSourceBuilder


class KafkaTopicSelector:
    """Picks a record's topic (PyFlink's abstract ``KafkaTopicSelector``): implement ``apply``."""

    def apply(self, data: object) -> str:
        """The topic of ``data``."""
        raise NotImplementedError


__all__ = [
    "DeliveryGuarantee",
    "FlinkKafkaConsumer",
    "FlinkKafkaProducer",
    "KafkaOffsetResetStrategy",
    "KafkaOffsetsInitializer",
    "KafkaRecordSerializationSchema",
    "KafkaRecordSerializationSchemaBuilder",
    "KafkaSink",
    "KafkaSinkBuilder",
    "KafkaSource",
    "KafkaSourceBuilder",
    "KafkaTopicPartition",
    "KafkaTopicSelector",
    "Semantic",
]
