"""JobGraph: chains of operators as JobVertices, connected through IntermediateDataSets.

The JobGraph is what a client submits: everything a JobManager needs to build the
ExecutionGraph and everything a task needs to instantiate its operator chain.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, NewType

from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.graph.job_config import JobConfig
from millstream.graph.operator_specs import CollectSpec, KeyedProcessSpec, OperatorSpec
from millstream.graph.partitioning import Partitioner
from millstream.graph.transformations import SideOutputTag

__all__ = [
    "ChainedOperator",
    "DistributionPattern",
    "IntermediateDataSet",
    "IntermediateDataSetID",
    "JobEdge",
    "JobGraph",
    "JobVertex",
    "JobVertexID",
    "NonChainedOutput",
    "ResultPartitionType",
]

JobVertexID = NewType("JobVertexID", str)
IntermediateDataSetID = NewType("IntermediateDataSetID", str)


class DistributionPattern(Enum):
    """How producer subtasks connect to consumer subtasks."""

    ALL_TO_ALL = "ALL_TO_ALL"
    POINTWISE = "POINTWISE"


class ResultPartitionType(Enum):
    """PIPELINED: consumable while produced, bounded, backpressured. BLOCKING: when finished."""

    PIPELINED_BOUNDED = "PIPELINED_BOUNDED"
    BLOCKING = "BLOCKING"


@dataclass(frozen=True, slots=True)
class NonChainedOutput:
    """An edge leaving the chain: records of ``node_id`` (or its side output) go to a dataset."""

    node_id: int
    data_set_id: IntermediateDataSetID
    partitioner: Partitioner
    output_tag: SideOutputTag | None
    consumer_parallelism: int


@dataclass(frozen=True, slots=True)
class ChainedOperator:
    """One operator inside a task: its spec and where its outputs go."""

    node_id: int
    name: str
    operator: OperatorSpec
    state_key_selector: Any
    max_parallelism: int
    chained_targets: tuple[tuple[int, SideOutputTag | None], ...]
    non_chained_outputs: tuple[NonChainedOutput, ...]
    output_type: Any
    uid: str | None


@dataclass(frozen=True, slots=True)
class JobEdge:
    """Consumption of a dataset by a vertex: partitioner and distribution pattern."""

    source_id: IntermediateDataSetID
    target_id: JobVertexID
    partitioner: Partitioner
    distribution: DistributionPattern
    input_index: int

    @property
    def ship_strategy_name(self) -> str:
        """Flink's name for the partitioner (plan output)."""
        return str(self.partitioner)


@dataclass(frozen=True, slots=True)
class IntermediateDataSet:
    """The data one vertex produces for one consumer edge."""

    id: IntermediateDataSetID
    producer_id: JobVertexID
    result_type: ResultPartitionType


@dataclass(frozen=True, slots=True)
class JobVertex:
    """A chain of operators that runs as one task per subtask."""

    id: JobVertexID
    name: str
    parallelism: int
    max_parallelism: int
    slot_sharing_group: str
    head_node_id: int
    operators: tuple[ChainedOperator, ...]
    inputs: tuple[JobEdge, ...]
    produced_data_sets: tuple[IntermediateDataSetID, ...]
    buffer_timeout: int

    @property
    def is_input_vertex(self) -> bool:
        """True for vertices that start with a source."""
        return not self.inputs

    def operator(self, node_id: int) -> ChainedOperator:
        """The chained operator of stream node ``node_id``."""
        for op in self.operators:
            if op.node_id == node_id:
                return op
        raise KeyError(node_id)


@dataclass(frozen=True, slots=True)
class JobGraph:
    """Vertices in topological order, their datasets and settings."""

    job_id: str
    job_name: str
    vertices: tuple[JobVertex, ...]
    data_sets: dict[IntermediateDataSetID, IntermediateDataSet]
    job_config: JobConfig

    @property
    def runtime_mode(self) -> RuntimeExecutionMode:
        """STREAMING or BATCH (resolved)."""
        return self.job_config.runtime_mode

    def vertex(self, vertex_id: JobVertexID) -> JobVertex:
        """The vertex with ``vertex_id``."""
        for v in self.vertices:
            if v.id == vertex_id:
                return v
        raise KeyError(vertex_id)

    def collect_sinks(self) -> list[tuple[str, int]]:
        """(collect id, parallelism) of every ``execute_and_collect`` sink, in vertex order."""
        return [
            (op.operator.collect_id, vertex.parallelism)
            for vertex in self.vertices
            for op in vertex.operators
            if isinstance(op.operator, CollectSpec)
        ]

    def with_row_operators(self) -> JobGraph:
        """This graph with every keyed function that the embedded runtime runs as a columnar
        operator (``KeyedProcessSpec.columnar``) run as the function itself: what a runner
        that hosts only the functions (Spark) executes. State formats are the same."""

        def rows(op: ChainedOperator) -> ChainedOperator:
            spec = op.operator
            if isinstance(spec, KeyedProcessSpec) and spec.columnar is not None:
                return replace(op, operator=replace(spec, columnar=None))
            return op

        vertices = tuple(replace(v, operators=tuple(rows(op) for op in v.operators)) for v in self.vertices)
        return replace(self, vertices=vertices)

    def consumers_of(self, data_set_id: IntermediateDataSetID) -> list[tuple[JobVertex, JobEdge]]:
        """Vertices (and their edges) that consume ``data_set_id``."""
        return [(v, e) for v in self.vertices for e in v.inputs if e.source_id == data_set_id]
