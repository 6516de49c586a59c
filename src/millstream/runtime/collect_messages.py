"""Messages of the collect protocol: a collect sink subtask tells the client's channel.

::

    collect sink subtask (attempt a)                       client's CollectChannel
    CollectStarted(subtask, a, offset)        -->  offsets go on from ``offset`` (restored)
    CollectResults(subtask, a, offset, values) -->  results ``offset .. offset+len-1``
    CollectCheckpointed(subtask, a, offset)   -->  a completed checkpoint covers results < offset
    CollectFinished(subtask, a, offset)       -->  the subtask sent all it has (``offset`` results)

Flink's collect protocol (``CollectSinkFunction``) with the roles of a push channel: the
``attempt`` is Flink's ``version`` (a newer one means the subtask restarted, an older one is
a message of an attempt replaced since), the ``offset`` counts the subtask's results from
the start of the job, and the offset restored from a checkpoint is Flink's
``lastCheckpointedOffset`` that the client reverts to. Every message of an attempt carries
the offset it reached, so the first one to arrive tells the restored offset even when
``CollectStarted`` was overtaken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "CollectCheckpointed",
    "CollectFinished",
    "CollectMessage",
    "CollectResults",
    "CollectStarted",
]


@dataclass(frozen=True, slots=True)
class CollectStarted:
    """Attempt ``attempt`` of subtask ``subtask`` opened; its next result has ``offset``."""

    subtask: int
    attempt: int
    offset: int


@dataclass(frozen=True, slots=True)
class CollectResults:
    """Results ``offset`` to ``offset + len(values) - 1`` of the subtask."""

    subtask: int
    attempt: int
    offset: int
    values: list[Any]


@dataclass(frozen=True, slots=True)
class CollectCheckpointed:
    """A completed checkpoint holds the subtask's state after its first ``offset`` results:
    a restart never takes these back."""

    subtask: int
    attempt: int
    offset: int


@dataclass(frozen=True, slots=True)
class CollectFinished:
    """The subtask reached the end of its input after ``offset`` results."""

    subtask: int
    attempt: int
    offset: int


CollectMessage = CollectStarted | CollectResults | CollectCheckpointed | CollectFinished
