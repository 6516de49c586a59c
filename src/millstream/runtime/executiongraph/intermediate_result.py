"""IntermediateResult and IntermediateResultPartition, with Flink's consumer wiring.

A result has one partition per producer subtask. ALL_TO_ALL: consumer j reads
subpartition j of every partition. POINTWISE (forward, rescale): with equal
parallelism partition i goes to consumer i; with more producers, consumer j reads a
contiguous range of partitions; with more consumers, partition i is split over a
contiguous range of consumers, one subpartition each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from millstream.graph.job_graph import DistributionPattern, IntermediateDataSetID

if TYPE_CHECKING:
    from millstream.runtime.executiongraph.execution_graph import (
        ExecutionJobVertex,
        ExecutionVertex,
    )

__all__ = ["ExecutionEdge", "IntermediateResult", "IntermediateResultPartition", "pointwise_wiring"]


@dataclass(eq=False)
class IntermediateResultPartition:
    """The part of a result one producer subtask writes."""

    result: IntermediateResult
    partition_number: int
    producer: ExecutionVertex
    num_subpartitions: int = 0
    consumers: list[ExecutionEdge] = field(default_factory=list)
    consumable: bool = False

    @property
    def partition_id(self) -> str:
        """Stable id of this partition (without the attempt)."""
        return f"{self.result.id}#{self.partition_number}"


@dataclass(eq=False)
class ExecutionEdge:
    """A consumer subtask reading one subpartition of one partition."""

    source: IntermediateResultPartition
    target: ExecutionVertex
    subpartition_index: int
    input_index: int


@dataclass(eq=False)
class IntermediateResult:
    """The parallel data one JobVertex produces for one consumer edge."""

    id: IntermediateDataSetID
    producer: ExecutionJobVertex
    partitions: list[IntermediateResultPartition] = field(default_factory=list)


def pointwise_wiring(producers: int, consumers: int) -> list[list[tuple[int, int]]]:
    """For each consumer: the (partition, subpartition) pairs it reads on a POINTWISE edge."""
    wiring: list[list[tuple[int, int]]] = [[] for _ in range(consumers)]
    if producers == consumers:
        for i in range(producers):
            wiring[i].append((i, 0))
    elif producers > consumers:
        for j in range(consumers):
            start = j * producers // consumers
            end = (j + 1) * producers // consumers
            wiring[j].extend((p, 0) for p in range(start, end))
    else:
        for p in range(producers):
            start = (p * consumers + producers - 1) // producers
            end = ((p + 1) * consumers + producers - 1) // producers
            for j in range(start, end):
                wiring[j].append((p, j - start))
    return wiring


def all_to_all_wiring(producers: int, consumers: int) -> list[list[tuple[int, int]]]:
    """For each consumer j: subpartition j of every partition."""
    return [[(p, j) for p in range(producers)] for j in range(consumers)]


def wiring_for(pattern: DistributionPattern, producers: int, consumers: int) -> list[list[tuple[int, int]]]:
    """The wiring of an edge with ``pattern``."""
    if pattern is DistributionPattern.POINTWISE:
        return pointwise_wiring(producers, consumers)
    return all_to_all_wiring(producers, consumers)
