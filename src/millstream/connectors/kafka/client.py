"""Kafka client settings: Flink's (Java client) property names to librdkafka's, and errors.

Users pass the Java client's properties (``set_property``, ``properties.*`` table options,
the legacy consumer's ``properties``); librdkafka (confluent-kafka) shares most names.
Settings that only the Java client or Flink has are dropped here: Flink's own source
options are read before (``partition.discovery.interval.ms`` ...), and the (de)serializer
classes are the job's schemas. A name librdkafka does not know fails when the client is
created, naming the property.
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["KafkaConnectorError", "client_config", "java_string_hash"]

log = logging.getLogger(__name__)

# The Java client's and Flink's settings that librdkafka has no use for.
JAVA_ONLY = frozenset(
    {
        "key.deserializer",
        "value.deserializer",
        "key.serializer",
        "value.serializer",
        "max.poll.records",
        "partition.discovery.interval.ms",
        "flink.partition-discovery.interval-millis",
        "commit.offsets.on.checkpoint",
        "client.id.prefix",
        "register.consumer.metrics",
        "register.producer.metrics",
        "poll.timeout.ms",
        "default.api.timeout.ms",
        "scan.topic-integrity-check.enabled",
        "transaction.naming.strategy",
        "transaction.abort.strategy",
    }
)


class KafkaConnectorError(RuntimeError):
    """A Kafka source or sink cannot go on (broker, topic, partition or record named)."""


def client_config(properties: dict[str, str], **overrides: Any) -> dict[str, Any]:
    """librdkafka settings from Java-client ``properties`` plus ``overrides``."""
    config: dict[str, Any] = {"log_level": 3}  # librdkafka's own errors only; ours are logged
    for key, value in properties.items():
        if key in JAVA_ONLY:
            continue
        config[key] = value
    config.update(overrides)
    return config


def create_client(kind: Any, config: dict[str, Any], what: str) -> Any:
    """``kind(config)`` (a confluent-kafka Consumer or Producer) with a readable error."""
    try:
        return kind(config)
    except Exception as err:  # KafkaException: an unknown or invalid property
        raise KafkaConnectorError(f"{what}: invalid Kafka client settings: {err}") from err


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` (a signed 32-bit int) over UTF-16 code units."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def split_owner(topic: str, partition: int, readers: int) -> int:
    """The reader that owns a partition (Flink's ``KafkaSourceEnumerator.getSplitOwner``): a
    topic's partitions go round-robin from a start reader chosen by the topic's hash, so
    partitions of several topics spread evenly and a partition keeps its reader."""
    start = ((java_string_hash(topic) * 31) & 0x7FFFFFFF) % readers
    return (start + partition) % readers
