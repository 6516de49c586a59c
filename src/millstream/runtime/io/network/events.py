"""In-band events that travel through the same channels as records."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

from millstream.runtime.io.network.buffer import Buffer, DataType

__all__ = [
    "CancelCheckpointMarker",
    "CheckpointBarrier",
    "EndOfData",
    "EndOfPartitionEvent",
    "TaskEvent",
    "deserialize_event",
    "serialize_event",
]


@dataclass(frozen=True, slots=True)
class EndOfPartitionEvent:
    """The producer finished this subpartition; nothing follows."""


@dataclass(frozen=True, slots=True)
class EndOfData:
    """The producer emitted all its records (Flink's EndOfData, FLIP-147): barriers may still
    follow, EndOfPartition comes once the producer's final checkpoint completed."""


@dataclass(frozen=True, slots=True)
class CheckpointBarrier:
    """Everything before it belongs to checkpoint ``checkpoint_id`` (injected at the sources,
    forwarded by every task once it snapshotted); ``unaligned``: it may overtake data;
    ``savepoint``: the checkpoint is a savepoint, the tasks write their state into that
    directory."""

    checkpoint_id: int
    timestamp: int
    unaligned: bool = False
    savepoint: str | None = None


@dataclass(frozen=True, slots=True)
class CancelCheckpointMarker:
    """Checkpoint ``checkpoint_id`` was abandoned upstream: stop aligning for it."""

    checkpoint_id: int


@dataclass(frozen=True, slots=True)
class TaskEvent:
    """A user-level event between tasks (reserved for iterations)."""

    payload: bytes


def serialize_event(event: object) -> Buffer:
    """An unpooled EVENT buffer holding ``event``."""
    data = pickle.dumps(event, protocol=pickle.HIGHEST_PROTOCOL)
    return Buffer(data, len(data), None, DataType.EVENT)


def deserialize_event(buffer: Buffer) -> object:
    """The event in an EVENT buffer."""
    return pickle.loads(memoryview(buffer.segment)[: buffer.size])
