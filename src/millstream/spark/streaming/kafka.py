"""An unbounded KafkaSource on Spark: a PySpark 4 Python streaming data source
(``pyspark.sql.datasource``) on the same client library, registered as ``millstream_kafka``.

Offsets are Structured Streaming's: ``initialOffset`` resolves the source's starting offsets
(earliest, latest, timestamp, given or committed) for the subscribed partitions,
``latestOffset`` reads each partition's end (capped by the stopping offsets) and adds the
partitions found since (from their starting offset), ``partitions`` makes one input partition
per Kafka partition and offset range, and Spark keeps the ranges in the query's checkpoint
location, so a restarted query reads on where the last committed micro-batch ended. Each
message becomes a row (topic, partition, offset, timestamp, timestamp type, key, value,
headers); the vertex program hands it to the source's deserializer as the message object a
reader would see, and the record's Kafka timestamp is its event time unless the job's
strategy assigns one. Spark's own Kafka source is not used (it needs the spark-sql-kafka jar
on Spark's classpath, which this runner does not assume).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import cloudpickle
from confluent_kafka import Consumer, TopicPartition
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition

from millstream.connectors.kafka.client import create_client
from millstream.connectors.kafka.discovery import discover_splits
from millstream.connectors.kafka.offsets import KafkaTopicPartition

__all__ = ["KAFKA_ROW_SCHEMA", "KafkaDataSource", "KafkaMessage", "kafka_frame"]

FORMAT = "millstream_kafka"
KAFKA_ROW_SCHEMA = (
    "topic STRING, partition INT, offset BIGINT, timestamp BIGINT, timestamp_type INT, "
    "key BINARY, value BINARY, headers ARRAY<STRUCT<key: STRING, value: BINARY>>"
)
_POLL_S = 1.0


class KafkaMessage:
    """A row of the data source as the confluent-kafka ``Message`` a reader would see."""

    __slots__ = ("_headers", "_key", "_offset", "_partition", "_timestamp", "_topic", "_type", "_value")

    def __init__(self, row: Any) -> None:
        self._topic, self._partition, self._offset = row[0], int(row[1]), int(row[2])
        self._timestamp, self._type = int(row[3]), int(row[4])
        self._key, self._value = row[5], row[6]
        self._headers = row[7]

    def topic(self) -> str:
        return str(self._topic)

    def partition(self) -> int:
        return self._partition

    def offset(self) -> int:
        return self._offset

    def timestamp(self) -> tuple[int, int]:
        return self._type, self._timestamp

    def key(self) -> bytes | None:
        return None if self._key is None else bytes(self._key)

    def value(self) -> bytes | None:
        return None if self._value is None else bytes(self._value)

    def headers(self) -> list[tuple[str, bytes]] | None:
        if self._headers is None or len(self._headers) == 0:
            return None
        return [(h["key"], bytes(h["value"])) for h in self._headers]

    def leader_epoch(self) -> int | None:
        return None

    def error(self) -> None:
        return None


class _Range(InputPartition):
    """One Kafka partition's offsets [start, end) of a micro-batch."""

    def __init__(self, topic: str, partition: int, start: int, end: int) -> None:
        self.topic, self.partition, self.start, self.end = topic, partition, start, end


class _Reader(DataSourceStreamReader):
    """The driver's offsets and the executors' reads of one query's KafkaSource."""

    def __init__(self, options: Any) -> None:
        self.source = cloudpickle.loads(base64.b64decode(options["source"]))

    def _consumer(self) -> Any:
        return create_client(Consumer, self.source.consumer_config(None), "KafkaSource on Spark")

    def _discover(self, known: dict[str, int]) -> dict[str, int]:
        """The starting offsets of partitions not in ``known`` ("topic:partition" keys);
        their starting and stopping offsets are kept for later micro-batches."""
        consumer = self._consumer()
        try:
            seen = {KafkaTopicPartition(*_split_key(k)) for k in known}
            found = discover_splits(self.source, consumer, seen)
        finally:
            consumer.close()
        starts = self.__dict__.setdefault("_starts", {})
        stops = self.__dict__.setdefault("_stops", {})
        out = {}
        for split in found:
            key = f"{split.topic}:{split.partition}"
            out[key] = starts[key] = split.starting_offset
            if split.bounded:
                stops[key] = split.stopping_offset
        return out

    def initialOffset(self) -> dict[str, int]:
        """The starting offsets of the partitions subscribed now."""
        return self._discover({})

    def latestOffset(self, start: Any = None, limit: Any = None) -> dict[str, int]:
        """Each partition's end now (PySpark 4.2+ passes the batch's start; every available
        record is read: no read limit)."""
        known = start or self.__dict__.get("_latest") or self.initialOffset()
        latest = dict(known)
        latest.update(self._discover(known))
        stops = self.__dict__.get("_stops", {})
        consumer = self._consumer()
        try:
            for key in latest:
                topic, partition = _split_key(key)
                _, high = consumer.get_watermark_offsets(
                    TopicPartition(topic, partition), timeout=self.source.api_timeout_s
                )
                stop = stops.get(key)
                latest[key] = max(latest[key], high if stop is None else min(high, stop))
        finally:
            consumer.close()
        self._latest = latest
        return latest

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[Any]:
        starts = self.__dict__.get("_starts", {})
        ranges = []
        for key, offset in sorted(end.items()):
            first = start.get(key, starts.get(key, 0))
            if offset > first:
                ranges.append(_Range(*_split_key(key), first, offset))
        return ranges

    def read(self, partition: Any) -> Iterator[tuple[Any, ...]]:
        consumer = self._consumer()
        try:
            consumer.assign([TopicPartition(partition.topic, partition.partition, partition.start)])
            position = partition.start
            while position < partition.end:
                for message in consumer.consume(1000, _POLL_S):
                    error = message.error()
                    if error is not None:
                        if error.code() == -191:  # _PARTITION_EOF
                            continue
                        where = f"{partition.topic}-{partition.partition}"
                        raise RuntimeError(f"KafkaSource: reading {where} failed: {error}")
                    if message.offset() >= partition.end:
                        position = partition.end
                        break
                    position = message.offset() + 1
                    yield _row_of(message)
        finally:
            consumer.close()

    def commit(self, end: dict[str, int]) -> None:
        """Spark's checkpoint holds the offsets; nothing to do here."""


class KafkaDataSource(DataSource):
    """``spark.readStream.format("millstream_kafka").option("source", <pickled KafkaSource>)``."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> str:
        return KAFKA_ROW_SCHEMA

    def streamReader(self, schema: Any) -> Any:
        """The query's stream reader."""
        return _Reader(self.options)


def _row_of(message: Any) -> tuple[Any, ...]:
    """A confluent-kafka Message as a row of ``KAFKA_ROW_SCHEMA``."""
    kind, timestamp = message.timestamp()
    headers = [{"key": k, "value": v} for k, v in (message.headers() or ())]
    return (
        message.topic(),
        message.partition(),
        message.offset(),
        timestamp,
        kind,
        message.key(),
        message.value(),
        headers,
    )


def _split_key(key: str) -> tuple[str, int]:
    topic, _, partition = key.rpartition(":")
    return topic, int(partition)


def kafka_frame(spark: Any, source: Any) -> Any:
    """The streaming DataFrame of a KafkaSource's messages (one row each)."""
    spark.dataSource.register(KafkaDataSource)
    encoded = base64.b64encode(cloudpickle.dumps(source)).decode("ascii")
    return spark.readStream.format(FORMAT).option("source", encoded).load()
