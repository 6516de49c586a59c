"""ExecutionGraph: the parallel, schedulable form of a JobGraph, kept by the JobMaster.

ExecutionJobVertex (one per JobVertex) -> ExecutionVertex (one per subtask) ->
Execution (one per attempt). IntermediateResults hold one partition per producer
subtask; ExecutionEdges connect consumer subtasks to the subpartitions they read.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from millstream.graph.job_graph import JobGraph, JobVertex, JobVertexID
from millstream.runtime.execution_state import ExecutionState, check_transition
from millstream.runtime.executiongraph.intermediate_result import (
    ExecutionEdge,
    IntermediateResult,
    IntermediateResultPartition,
    wiring_for,
)
from millstream.runtime.ids import ExecutionAttemptID, new_id

__all__ = [
    "Execution",
    "ExecutionGraph",
    "ExecutionJobVertex",
    "ExecutionVertex",
    "build_execution_graph",
]


@dataclass(eq=False)
class Execution:
    """One attempt to run an ExecutionVertex."""

    vertex: ExecutionVertex
    attempt_number: int
    attempt_id: ExecutionAttemptID = field(default_factory=lambda: ExecutionAttemptID(new_id()))
    state: ExecutionState = ExecutionState.CREATED
    assigned_resource: str | None = None
    failure: BaseException | None = None
    final_metrics: dict[str, Any] | None = None  # reported with its terminal state
    # when it entered each state (epoch ms; Flink's state timestamps, shown by the REST API)
    timestamps: dict[ExecutionState, int] = field(
        default_factory=lambda: {ExecutionState.CREATED: int(time.time() * 1000)}
    )

    def transition(self, target: ExecutionState) -> None:
        """Move to ``target`` (checked against the state machine)."""
        check_transition(self.state, target)
        self.state = target
        self.timestamps[target] = int(time.time() * 1000)


@dataclass(eq=False)
class ExecutionVertex:
    """One subtask of a JobVertex."""

    job_vertex: ExecutionJobVertex
    subtask_index: int
    inputs: list[list[ExecutionEdge]] = field(default_factory=list)
    produced: list[IntermediateResultPartition] = field(default_factory=list)
    current_execution: Execution | None = None

    @property
    def task_name_with_subtask(self) -> str:
        """``name (i/n)``."""
        return f"{self.job_vertex.job_vertex.name} ({self.subtask_index + 1}/{self.job_vertex.parallelism})"

    def new_execution(self) -> Execution:
        """Start a new attempt."""
        number = 0 if self.current_execution is None else self.current_execution.attempt_number + 1
        self.current_execution = Execution(self, number)
        return self.current_execution


@dataclass(eq=False)
class ExecutionJobVertex:
    """The subtasks of one JobVertex and the results it produces."""

    job_vertex: JobVertex
    task_vertices: list[ExecutionVertex] = field(default_factory=list)
    produced: list[IntermediateResult] = field(default_factory=list)

    @property
    def parallelism(self) -> int:
        """Number of subtasks."""
        return self.job_vertex.parallelism


@dataclass(eq=False)
class ExecutionGraph:
    """All vertices (topological order) and results of one job."""

    job_graph: JobGraph
    job_vertices: dict[JobVertexID, ExecutionJobVertex]
    results: dict[str, IntermediateResult]

    def all_execution_vertices(self) -> list[ExecutionVertex]:
        """Every subtask, vertex by vertex."""
        return [ev for ejv in self.job_vertices.values() for ev in ejv.task_vertices]

    def describe(self) -> str:
        """A text view: subtasks and the subpartitions they read."""
        lines = [f"ExecutionGraph '{self.job_graph.job_name}'"]
        for ejv in self.job_vertices.values():
            lines.append(f"  {ejv.job_vertex.name} (parallelism {ejv.parallelism})")
            for ev in ejv.task_vertices:
                reads = [
                    f"{e.source.producer.task_name_with_subtask}[{e.subpartition_index}]"
                    for edges in ev.inputs
                    for e in edges
                ]
                suffix = f" <- {', '.join(reads)}" if reads else ""
                lines.append(f"    {ev.task_name_with_subtask}{suffix}")
        return "\n".join(lines)


def build_execution_graph(job_graph: JobGraph) -> ExecutionGraph:
    """Expand ``job_graph`` into subtasks, partitions and edges."""
    job_vertices: dict[JobVertexID, ExecutionJobVertex] = {}
    results: dict[str, IntermediateResult] = {}
    for vertex in job_graph.vertices:
        ejv = ExecutionJobVertex(vertex)
        ejv.task_vertices = [ExecutionVertex(ejv, i) for i in range(vertex.parallelism)]
        for data_set_id in vertex.produced_data_sets:
            result = IntermediateResult(data_set_id, ejv)
            result.partitions = [
                IntermediateResultPartition(result, i, ev) for i, ev in enumerate(ejv.task_vertices)
            ]
            for ev, partition in zip(ejv.task_vertices, result.partitions):
                ev.produced.append(partition)
            ejv.produced.append(result)
            results[data_set_id] = result
        for edge in vertex.inputs:
            result = results[edge.source_id]
            wiring = wiring_for(edge.distribution, result.producer.parallelism, vertex.parallelism)
            for ev, reads in zip(ejv.task_vertices, wiring):
                edges = []
                for partition_number, subpartition in reads:
                    partition = result.partitions[partition_number]
                    execution_edge = ExecutionEdge(partition, ev, subpartition, edge.input_index)
                    partition.consumers.append(execution_edge)
                    partition.num_subpartitions = max(partition.num_subpartitions, subpartition + 1)
                    edges.append(execution_edge)
                ev.inputs.append(edges)
        job_vertices[vertex.id] = ejv
    return ExecutionGraph(job_graph, job_vertices, results)
