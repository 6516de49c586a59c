"""Partition discovery of a Kafka source: the splits of the partitions it subscribes to (topics, a
pattern or given partitions), their starting and stopping offsets resolved, as Flink's
``KafkaSourceEnumerator`` discovers them; the enumerator calls it, and so does a reader that runs
without one (a runner with no enumerator)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from millstream.connectors.kafka.client import (
    KafkaClientLog,
    KafkaConnectorError,
    kafka_error_text,
)
from millstream.connectors.kafka.offsets import (
    NO_STOPPING_OFFSET,
    KafkaPartitionSplit,
    KafkaTopicPartition,
)

if TYPE_CHECKING:
    from millstream.connectors.kafka.source import KafkaSource

__all__ = ["discover_splits"]


def discover_splits(
    source: KafkaSource,
    consumer: Any,
    known: set[KafkaTopicPartition],
    client_log: KafkaClientLog | None = None,
) -> list[KafkaPartitionSplit]:
    """The splits of the subscribed partitions not in ``known``, their starting and stopping
    offsets resolved (the enumerator's discovery; a runner without one calls it per reader).
    ``client_log``: the consumer's, whose latest broker error a failure names."""
    new = sorted(p for p in _subscribed(source, consumer, client_log) if p not in known)
    if not new:
        return []
    starts = source.starting.resolve(consumer, new)
    stops = source.stopping.resolve(consumer, new) if source.stopping is not None else {}
    return [
        KafkaPartitionSplit(p.topic, p.partition, starts[p], stops.get(p, NO_STOPPING_OFFSET)) for p in new
    ]


def _subscribed(
    source: KafkaSource, consumer: Any, client_log: KafkaClientLog | None
) -> list[KafkaTopicPartition]:
    if source.partitions:
        return list(source.partitions)
    try:
        if source.pattern is not None:
            metadata = consumer.list_topics(timeout=source.api_timeout_s)
            pattern = re.compile(source.pattern)
            topics = {name: t for name, t in metadata.topics.items() if pattern.fullmatch(name)}
        else:
            topics = {}
            for name in source.topics:
                topics.update(consumer.list_topics(name, timeout=source.api_timeout_s).topics)
    except KafkaConnectorError:
        raise
    except Exception as err:
        servers = source.properties.get("bootstrap.servers")
        who = client_log.what if client_log is not None else "KafkaSource"
        # the message says all the exception does (its frames are confluent-kafka's C code)
        raise KafkaConnectorError(
            f"{who}: cannot list the partitions of {source.describe()} at {servers} "
            f"(bootstrap.servers): {_broker_error(consumer, client_log, err)}"
        ) from None
    out: list[KafkaTopicPartition] = []
    for name, topic in sorted(topics.items()):
        if topic.error is not None:
            raise KafkaConnectorError(f"KafkaSource: topic {name!r} cannot be read: {topic.error.str()}")
        out.extend(KafkaTopicPartition(name, p) for p in topic.partitions)
    return out


def _broker_error(consumer: Any, client_log: KafkaClientLog | None, err: BaseException) -> str:
    """Why a call failed: its error (``Failed to get metadata: Local: Broker transport
    failure``) and what librdkafka last reported about the brokers (``127.0.0.1:9092/bootstrap:
    Connect to ipv4#127.0.0.1:9092 failed: Connection refused``)."""
    text = kafka_error_text(err)
    if client_log is not None:
        consumer.poll(0)  # librdkafka hands its queued errors over when the client is polled
        if client_log.latest_error and client_log.latest_error not in text:
            return f"{text} ({client_log.latest_error})"
    return text
