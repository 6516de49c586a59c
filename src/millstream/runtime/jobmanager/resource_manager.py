"""ResourceManager: registered TaskExecutors, their slots, and slot allocation to jobs."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from millstream.runtime.ids import AllocationID, ResourceID, new_id
from millstream.runtime.rpc.endpoint import RpcEndpoint

__all__ = ["NoResourceAvailableError", "ResourceManager", "SlotOffer"]


class NoResourceAvailableError(RuntimeError):
    """Not enough free slots for a job."""


@dataclass(frozen=True, slots=True)
class SlotOffer:
    """A slot allocated to a job."""

    allocation_id: AllocationID
    resource_id: ResourceID
    slot_index: int
    task_executor: Any
    data_address: tuple[str, int] | None = None  # the TaskManager's data-plane server


class ResourceManager(RpcEndpoint):
    """Tracks TaskExecutors and hands out their slots."""

    def __init__(self) -> None:
        super().__init__("resourcemanager")
        self._executors: dict[ResourceID, Any] = {}  # owner: main thread
        self._data_addresses: dict[ResourceID, tuple[str, int] | None] = {}  # owner: main thread
        self._lost_listeners: list[Any] = []  # owner: main thread: f(resource_id, reason)
        self._free: list[tuple[ResourceID, int]] = []  # owner: main thread
        self._allocated: dict[str, list[SlotOffer]] = {}  # job id -> slots, owner: main thread

    def register_task_executor(
        self,
        resource_id: ResourceID,
        gateway: Any,
        num_slots: int,
        data_address: tuple[str, int] | None = None,
    ) -> Future[None]:
        """A TaskExecutor joins with its slot report (any thread; the future completes once done)."""
        return self.call_async(self._register, resource_id, gateway, num_slots, data_address)

    def _register(
        self, resource_id: ResourceID, gateway: Any, num_slots: int, data_address: tuple[str, int] | None
    ) -> None:
        if resource_id in self._executors:
            raise ValueError(f"TaskManager {resource_id} is already registered")
        self._executors[resource_id] = gateway
        self._data_addresses[resource_id] = data_address
        self._free.extend((resource_id, i) for i in range(num_slots))

    def add_lost_listener(self, listener: Any) -> None:
        """``listener(resource_id, reason)`` when a TaskManager is lost (any thread)."""
        self.run_async(self._lost_listeners.append, listener)

    def task_executor_lost(self, resource_id: ResourceID, reason: str) -> None:
        """A TaskManager disconnected or missed its heartbeats (any thread)."""
        self.run_async(self._task_executor_lost, resource_id, reason)

    def _task_executor_lost(self, resource_id: ResourceID, reason: str) -> None:
        if self._executors.pop(resource_id, None) is None:
            return
        self._data_addresses.pop(resource_id, None)
        self._free = [(rid, i) for rid, i in self._free if rid != resource_id]
        for listener in self._lost_listeners:
            listener(resource_id, reason)

    def request_slots(self, job_id: str, count: int) -> list[SlotOffer]:
        """Allocate ``count`` slots to ``job_id`` (any thread)."""
        return self.call_async(self._request_slots, job_id, count).result()

    def _request_slots(self, job_id: str, count: int) -> list[SlotOffer]:
        if count > len(self._free):
            raise NoResourceAvailableError(
                f"Could not acquire the minimum required resources: the job needs {count} slots, "
                f"{len(self._free)} are free"
            )
        taken, self._free = self._free[:count], self._free[count:]
        offers = [
            SlotOffer(AllocationID(new_id()), rid, index, self._executors[rid], self._data_addresses[rid])
            for rid, index in taken
        ]
        self._allocated.setdefault(job_id, []).extend(offers)
        return offers

    def release_slots(self, job_id: str) -> None:
        """Return a job's slots (any thread)."""
        self.run_async(self._release, job_id)

    def _release(self, job_id: str) -> None:
        for offer in self._allocated.pop(job_id, []):
            if offer.resource_id in self._executors:
                self._free.append((offer.resource_id, offer.slot_index))

    def number_of_free_slots(self) -> int:
        """Free slots (any thread)."""
        return self.call_async(lambda: len(self._free)).result()
