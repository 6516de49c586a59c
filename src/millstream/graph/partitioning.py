"""Partitioner specs: how records of one StreamEdge are distributed over consumer subtasks.

Pure data shared by the graph layer (chaining, plan printing, pointwise wiring) and the
runtime, which turns each spec into a ChannelSelector. ``str(spec)`` is Flink's ship
strategy name as it appears in the execution plan.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BroadcastPartitioner",
    "CustomPartitionerWrapper",
    "ForwardPartitioner",
    "GlobalPartitioner",
    "KeyGroupStreamPartitioner",
    "Partitioner",
    "RebalancePartitioner",
    "RescalePartitioner",
    "ShufflePartitioner",
    "key_type_of",
    "typed_key_selector",
]


def typed_key_selector(function: Callable[[Any], Any], key_type: Any) -> Callable[[Any], Any]:
    """``function`` as a key selector carrying the declared type of its keys (``key_type``).

    The type decides how a key hashes to its key group (PyFlink hashes a declared key by
    its Java type and an undeclared one by its pickled bytes), so partitioners and keyed
    state read it with ``key_type_of``. A ``functools.partial``: calling it adds no
    Python frame per record, and it pickles with its attribute.
    """
    selector = functools.partial(function)
    selector.key_type = key_type  # type: ignore[attr-defined]
    return selector


def key_type_of(key_selector: Any) -> Any:
    """The declared key type of a key selector (None: undeclared, keys hash pickled)."""
    return getattr(key_selector, "key_type", None)


@dataclass(frozen=True, slots=True)
class ForwardPartitioner:
    """Subtask i sends to subtask i; requires equal parallelism; chainable."""

    def is_pointwise(self) -> bool:
        """Each producer subtask talks to a subset of consumers."""
        return True

    def __str__(self) -> str:
        return "FORWARD"


@dataclass(frozen=True, slots=True)
class RescalePartitioner:
    """Round-robin over the consumers this producer is pointwise-connected to."""

    def is_pointwise(self) -> bool:
        """Each producer subtask talks to a subset of consumers."""
        return True

    def __str__(self) -> str:
        return "RESCALE"


@dataclass(frozen=True, slots=True)
class RebalancePartitioner:
    """Round-robin over all consumers, starting at a random one."""

    def is_pointwise(self) -> bool:
        """All-to-all."""
        return False

    def __str__(self) -> str:
        return "REBALANCE"


@dataclass(frozen=True, slots=True)
class ShufflePartitioner:
    """A uniformly random consumer per record."""

    def is_pointwise(self) -> bool:
        """All-to-all."""
        return False

    def __str__(self) -> str:
        return "SHUFFLE"


@dataclass(frozen=True, slots=True)
class BroadcastPartitioner:
    """Every record to every consumer."""

    def is_pointwise(self) -> bool:
        """All-to-all."""
        return False

    def __str__(self) -> str:
        return "BROADCAST"


@dataclass(frozen=True, slots=True)
class GlobalPartitioner:
    """Every record to consumer 0."""

    def is_pointwise(self) -> bool:
        """All-to-all."""
        return False

    def __str__(self) -> str:
        return "GLOBAL"


@dataclass(frozen=True, slots=True)
class KeyGroupStreamPartitioner:
    """By key: key -> key group (hash mod max parallelism) -> consumer owning that group."""

    key_selector: Any
    max_parallelism: int

    def is_pointwise(self) -> bool:
        """All-to-all."""
        return False

    def __str__(self) -> str:
        return "HASH"


@dataclass(frozen=True, slots=True)
class CustomPartitionerWrapper:
    """``partitioner.partition(key_selector(value), n)`` chooses the consumer."""

    partitioner: Any
    key_selector: Any

    def is_pointwise(self) -> bool:
        """All-to-all."""
        return False

    def __str__(self) -> str:
        return "CUSTOM"


Partitioner = (
    ForwardPartitioner
    | RescalePartitioner
    | RebalancePartitioner
    | ShufflePartitioner
    | BroadcastPartitioner
    | GlobalPartitioner
    | KeyGroupStreamPartitioner
    | CustomPartitionerWrapper
)
