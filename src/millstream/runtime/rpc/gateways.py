"""The gateways of the three control-plane endpoints, as the others see them (Flink's names).

A gateway is what one endpoint may call on another: the JobMaster deploys and cancels
tasks through a ``TaskExecutorGateway``; a TaskExecutor reports task states to a
``JobMasterGateway``; TaskExecutors register with, and JobMasters ask slots of, the
``ResourceManagerGateway``. In one process (the MiniCluster) the gateway is the endpoint
itself; across processes it is a ``RemoteGateway`` (``rpc.service``) whose calls return
futures. Both satisfy these Protocols, so the callers are written once.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from millstream.runtime.ids import AllocationID, ResourceID, ResultPartitionID

if TYPE_CHECKING:
    from millstream.runtime.deployment import TaskDeploymentDescriptor
    from millstream.runtime.execution_state import TaskExecutionState

__all__ = ["JobMasterGateway", "ResourceManagerGateway", "SlotOffer", "TaskExecutorGateway"]


class TaskExecutorGateway(Protocol):
    """What a JobMaster calls on a TaskExecutor."""

    def submit_task(self, tdd: TaskDeploymentDescriptor, serialized_vertex: bytes) -> Future[Any]:
        """Deploy one task; the future completes once the TaskExecutor accepted it."""
        ...

    def cancel_task(self, attempt_id: str) -> Future[Any]:
        """Cancel one task attempt."""
        ...

    def release_partitions(self, job_id: str) -> Any:
        """Release the job's result partitions held there (spill files of blocking results)."""
        ...

    def task_metrics(self, job_id: str) -> Future[Any]:
        """The job's task metrics there, by execution attempt."""
        ...

    def trigger_checkpoint(
        self,
        attempt_id: str,
        checkpoint_id: int,
        timestamp: int,
        savepoint: str | None = None,
        drain: bool = False,
    ) -> Any:
        """Start a checkpoint (``savepoint``: a savepoint into that directory; ``drain``: end
        the input first) at a source task (it injects the barrier)."""
        ...

    def notify_checkpoint_complete(self, attempt_id: str, checkpoint_id: int) -> Any:
        """A checkpoint completed: the task's operators may commit what it covers."""
        ...

    def notify_checkpoint_aborted(self, attempt_id: str, checkpoint_id: int) -> Any:
        """A checkpoint was aborted."""
        ...

    def send_operator_event_to_task(self, attempt_id: str, node_id: int, event: Any) -> Any:
        """An operator coordinator's event for operator ``node_id`` of a task (a source's splits)."""
        ...


class JobMasterGateway(Protocol):
    """What a TaskExecutor calls on the JobMaster of a job (fire and forget)."""

    def update_task_execution_state(self, update: TaskExecutionState) -> Any:
        """A task attempt changed state."""
        ...

    def notify_partition_consumable(self, partition_id: ResultPartitionID) -> Any:
        """A blocking result partition is complete: its consumers may be deployed."""
        ...

    def acknowledge_checkpoint(self, attempt_id: str, checkpoint_id: int, snapshots: Any) -> Any:
        """A task snapshotted its operators for a checkpoint."""
        ...

    def decline_checkpoint(self, attempt_id: str, checkpoint_id: int, reason: str, kind: str = "") -> Any:
        """A task cannot take part in a checkpoint (``kind``: "task-not-ready", "task-closing")."""
        ...

    def send_operator_event_to_coordinator(self, attempt_id: str, node_id: int, event: Any) -> Any:
        """An operator of a task sends an event to its coordinator (a reader asks for a split)."""
        ...


@dataclass(frozen=True, slots=True)
class SlotOffer:
    """A slot allocated to a job, with the gateway of the TaskExecutor that holds it."""

    allocation_id: AllocationID
    resource_id: ResourceID
    slot_index: int
    task_executor: TaskExecutorGateway
    data_address: tuple[str, int] | None = None  # the TaskManager's data-plane server


class ResourceManagerGateway(Protocol):
    """What TaskExecutors (registration) and JobMasters (slots) call on the ResourceManager."""

    def register_task_executor(
        self,
        resource_id: ResourceID,
        gateway: TaskExecutorGateway,
        num_slots: int,
        data_address: tuple[str, int] | None = None,
    ) -> Future[None]:
        """A TaskExecutor joins with its slots."""
        ...

    def request_slots(
        self, job_id: str, count: int, timeout_s: float | None = None
    ) -> Future[list[SlotOffer]]:
        """``count`` slots for ``job_id`` once they are free (``timeout_s``: the job's own
        slot request timeout; None: the cluster's)."""
        ...

    def slot_report(self) -> Future[tuple[int, int, int]]:
        """(TaskManagers, slots, free slots) registered now."""
        ...

    def release_slots(self, job_id: str) -> None:
        """The job's slots are free again (a waiting request is withdrawn)."""
        ...

    def task_executor_lost(self, resource_id: ResourceID, reason: str) -> None:
        """A TaskExecutor disconnected or missed its heartbeats."""
        ...

    def add_lost_listener(self, listener: Callable[[ResourceID, str], None]) -> None:
        """``listener(resource_id, reason)`` when a TaskExecutor is lost."""
        ...

    def add_resources_needed_listener(self, listener: Callable[[], None]) -> None:
        """``listener()`` when a slot request cannot be served by the registered TaskExecutors."""
        ...
