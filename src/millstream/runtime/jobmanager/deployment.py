"""TaskDeploymentDescriptor and its partition / gate descriptors: what a task is deployed with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from millstream.graph.job_graph import JobVertex
from millstream.runtime.ids import AllocationID, ExecutionAttemptID, ResourceID, ResultPartitionID

__all__ = [
    "InputChannelDeploymentDescriptor",
    "InputGateDeploymentDescriptor",
    "ResultPartitionDeploymentDescriptor",
    "TaskDeploymentDescriptor",
]


@dataclass(frozen=True, slots=True)
class ResultPartitionDeploymentDescriptor:
    """A partition the task produces."""

    partition_id: ResultPartitionID
    data_set_id: str
    partition_number: int
    num_subpartitions: int
    local_consumers: tuple[bool, ...] = ()  # per subpartition: consumer in the same TaskManager


@dataclass(frozen=True, slots=True)
class InputChannelDeploymentDescriptor:
    """One subpartition the task consumes and where its producer runs."""

    partition_id: ResultPartitionID
    subpartition_index: int
    producer_location: ResourceID


@dataclass(frozen=True, slots=True)
class InputGateDeploymentDescriptor:
    """The channels of one consumed result."""

    data_set_id: str
    input_index: int
    channels: tuple[InputChannelDeploymentDescriptor, ...]


@dataclass(frozen=True, slots=True)
class TaskDeploymentDescriptor:
    """Everything a TaskExecutor needs to run one subtask attempt."""

    job_id: str
    job_name: str
    vertex: JobVertex
    execution_attempt_id: ExecutionAttemptID
    attempt_number: int
    subtask_index: int
    allocation_id: AllocationID
    produced_partitions: tuple[ResultPartitionDeploymentDescriptor, ...]
    input_gates: tuple[InputGateDeploymentDescriptor, ...]
    job_config: dict[str, Any] = field(default_factory=dict)

    @property
    def task_name(self) -> str:
        """The chain's name."""
        return self.vertex.name

    @property
    def parallelism(self) -> int:
        """Number of subtasks of the vertex."""
        return self.vertex.parallelism
