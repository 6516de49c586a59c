"""TaskDeploymentDescriptor and its partition / gate descriptors: what a task is deployed with."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from millstream.graph.job_config import JobConfig
from millstream.graph.job_graph import ResultPartitionType
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
    partition_type: ResultPartitionType = ResultPartitionType.PIPELINED_BOUNDED


@dataclass(frozen=True, slots=True)
class InputChannelDeploymentDescriptor:
    """One subpartition the task consumes and where its producer runs."""

    partition_id: ResultPartitionID
    subpartition_index: int
    producer_location: ResourceID
    producer_data_address: tuple[str, int] | None = None  # the producer TaskManager's data server


@dataclass(frozen=True, slots=True)
class InputGateDeploymentDescriptor:
    """The channels of one consumed result."""

    data_set_id: str
    input_index: int
    channels: tuple[InputChannelDeploymentDescriptor, ...]


@dataclass(frozen=True, slots=True)
class TaskDeploymentDescriptor:
    """Everything a TaskExecutor needs to run one subtask attempt.

    It holds no user code: the vertex's operators travel as separate bytes, unpickled by
    the task once the job's Python files (``user_artifacts``, blob keys) are importable.
    """

    job_id: str
    job_name: str
    task_name: str
    parallelism: int
    max_parallelism: int
    execution_attempt_id: ExecutionAttemptID
    attempt_number: int
    subtask_index: int
    allocation_id: AllocationID
    produced_partitions: tuple[ResultPartitionDeploymentDescriptor, ...]
    input_gates: tuple[InputGateDeploymentDescriptor, ...]
    job_config: JobConfig = field(default_factory=JobConfig)
    user_artifacts: tuple[str, ...] = ()
    # operator snapshots by stream node id, or the state file holding them (a restart)
    restored_state: Any = None
