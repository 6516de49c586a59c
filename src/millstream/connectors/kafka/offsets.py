"""Topic partitions, splits and where reading starts and stops (Flink's ``OffsetsInitializer``).

A split is one topic partition with the offset of its next record and, for a bounded
source, the offset it stops before. The enumerator resolves every starting and stopping
offset to a concrete offset when it discovers the partition (earliest and latest through
the partition's watermark offsets, a timestamp through ``offsets_for_times``, committed
offsets through the group), so a checkpoint taken before the first record was read still
names an exact position.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from confluent_kafka import TopicPartition

from millstream.connectors.kafka.client import KafkaConnectorError

__all__ = [
    "NO_STOPPING_OFFSET",
    "KafkaOffsetResetStrategy",
    "KafkaOffsetsInitializer",
    "KafkaPartitionSplit",
    "KafkaTopicPartition",
]

NO_STOPPING_OFFSET = -(1 << 63)  # Flink's KafkaPartitionSplit.NO_STOPPING_OFFSET
METADATA_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True, order=True)
class KafkaTopicPartition:
    """A topic and a partition number (``pyflink.datastream.connectors.kafka``)."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True, slots=True)
class KafkaPartitionSplit:
    """A partition to read from ``starting_offset`` up to (not including) ``stopping_offset``."""

    topic: str
    partition: int
    starting_offset: int
    stopping_offset: int = NO_STOPPING_OFFSET

    @property
    def bounded(self) -> bool:
        return self.stopping_offset != NO_STOPPING_OFFSET

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


class KafkaOffsetResetStrategy(Enum):
    """Where to start when a partition has no committed offset (PyFlink's enum)."""

    LATEST = 0
    EARLIEST = 1
    NONE = 2


class KafkaOffsetsInitializer:
    """Starting or stopping offsets (PyFlink's ``KafkaOffsetsInitializer``)."""

    def __init__(
        self,
        kind: str,
        timestamp: int | None = None,
        offsets: dict[KafkaTopicPartition, int] | None = None,
        reset: KafkaOffsetResetStrategy = KafkaOffsetResetStrategy.EARLIEST,
    ) -> None:
        self.kind = kind
        self.at_timestamp = timestamp
        self.given = dict(offsets or {})
        self.reset = reset

    @staticmethod
    def earliest() -> KafkaOffsetsInitializer:
        """The earliest offset of each partition."""
        return KafkaOffsetsInitializer("earliest")

    @staticmethod
    def latest() -> KafkaOffsetsInitializer:
        """The end of each partition when it is discovered."""
        return KafkaOffsetsInitializer("latest")

    @staticmethod
    def timestamp(timestamp: int) -> KafkaOffsetsInitializer:
        """The first record whose timestamp is at least ``timestamp`` (ms); the end if none."""
        return KafkaOffsetsInitializer("timestamp", timestamp=int(timestamp))

    @staticmethod
    def offsets(
        offsets: dict[KafkaTopicPartition, int],
        offset_reset_strategy: KafkaOffsetResetStrategy = KafkaOffsetResetStrategy.EARLIEST,
    ) -> KafkaOffsetsInitializer:
        """These offsets; partitions not named start by ``offset_reset_strategy``."""
        return KafkaOffsetsInitializer("offsets", offsets=offsets, reset=offset_reset_strategy)

    @staticmethod
    def committed_offsets(
        offset_reset_strategy: KafkaOffsetResetStrategy = KafkaOffsetResetStrategy.NONE,
    ) -> KafkaOffsetsInitializer:
        """The consumer group's committed offsets; without one, ``offset_reset_strategy``
        (NONE: fail, as Flink's default)."""
        return KafkaOffsetsInitializer("committed", reset=offset_reset_strategy)

    def __repr__(self) -> str:
        return f"KafkaOffsetsInitializer.{self.kind}()"

    # -- resolution (the enumerator's worker thread) -------------------------------------------

    def resolve(self, consumer: Any, partitions: list[KafkaTopicPartition]) -> dict[KafkaTopicPartition, int]:
        """A concrete offset for each partition."""
        if not partitions:
            return {}
        if self.kind == "earliest":
            return {p: _watermarks(consumer, p)[0] for p in partitions}
        if self.kind == "latest":
            return {p: _watermarks(consumer, p)[1] for p in partitions}
        if self.kind == "timestamp":
            found = consumer.offsets_for_times(
                [TopicPartition(p.topic, p.partition, int(self.at_timestamp or 0)) for p in partitions],
                timeout=METADATA_TIMEOUT_S,
            )
            out = {}
            for p, tp in zip(partitions, found, strict=True):
                _check(tp, "looking up offsets by timestamp")
                # none at or after the timestamp: the end (Flink: the partition's end offset)
                out[p] = tp.offset if tp.offset >= 0 else _watermarks(consumer, p)[1]
            return out
        if self.kind == "offsets":
            missing = [p for p in partitions if p not in self.given]
            out = {p: self.given[p] for p in partitions if p in self.given}
            out.update(self._reset(consumer, missing, "no offset was given"))
            return out
        if self.kind == "committed":
            committed = consumer.committed(
                [TopicPartition(p.topic, p.partition) for p in partitions], timeout=METADATA_TIMEOUT_S
            )
            out = {}
            missing = []
            for p, tp in zip(partitions, committed, strict=True):
                _check(tp, "reading committed offsets")
                if tp.offset >= 0:
                    out[p] = tp.offset
                else:
                    missing.append(p)
            out.update(self._reset(consumer, missing, "the group has no committed offset"))
            return out
        raise ValueError(f"unknown offsets initializer {self.kind!r}")

    def _reset(
        self, consumer: Any, partitions: list[KafkaTopicPartition], why: str
    ) -> dict[KafkaTopicPartition, int]:
        if not partitions:
            return {}
        if self.reset is KafkaOffsetResetStrategy.NONE:
            names = ", ".join(map(str, partitions))
            raise KafkaConnectorError(
                f"KafkaSource: {why} for partition(s) {names} and the offset reset strategy is NONE "
                "(use committed_offsets(KafkaOffsetResetStrategy.EARLIEST) or LATEST)"
            )
        end = 1 if self.reset is KafkaOffsetResetStrategy.LATEST else 0
        return {p: _watermarks(consumer, p)[end] for p in partitions}


def _watermarks(consumer: Any, partition: KafkaTopicPartition) -> tuple[int, int]:
    try:
        low, high = consumer.get_watermark_offsets(
            TopicPartition(partition.topic, partition.partition), timeout=METADATA_TIMEOUT_S, cached=False
        )
    except Exception as err:
        raise KafkaConnectorError(
            f"KafkaSource: reading the offsets of partition {partition} failed: {err}"
        ) from err
    return int(low), int(high)


def _check(tp: Any, what: str) -> None:
    if tp.error is not None:
        raise KafkaConnectorError(
            f"KafkaSource: {what} of partition {tp.topic}-{tp.partition} failed: {tp.error}"
        )
