"""ResourceManager: registered TaskExecutors, their slots, and slot allocation to jobs.

A job's slot request waits until enough slots are registered and free, as Flink's
declarative slot manager does, and fails with ``NoResourceAvailableError`` only after
``slot.request.timeout`` (default 5 minutes): a job submitted while TaskManagers are
still registering (a MiniCluster starting, a standalone cluster being brought up) runs
once they are there. Coordinating code on the endpoint's main thread.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from millstream.common import config_options as opts
from millstream.runtime.ids import AllocationID, ResourceID, new_id
from millstream.runtime.rpc.endpoint import RpcEndpoint
from millstream.runtime.rpc.gateways import SlotOffer, TaskExecutorGateway

__all__ = ["NoResourceAvailableError", "ResourceManager"]


class NoResourceAvailableError(RuntimeError):
    """Not enough free slots for a job."""


@dataclass(frozen=True, slots=True)
class _SlotRequest:
    """A job waiting for ``count`` slots."""

    job_id: str
    count: int
    future: Future[list[SlotOffer]]
    timeout_s: float


class ResourceManager(RpcEndpoint):
    """Tracks TaskExecutors and hands out their slots."""

    def __init__(self, slot_request_timeout_s: float = opts.SLOT_REQUEST_TIMEOUT.default / 1000) -> None:
        super().__init__("resourcemanager")
        self._slot_request_timeout_s = slot_request_timeout_s
        self._pending: list[_SlotRequest] = []  # in arrival order, owner: main thread
        self._executors: dict[ResourceID, TaskExecutorGateway] = {}  # owner: main thread
        self._data_addresses: dict[ResourceID, tuple[str, int] | None] = {}  # owner: main thread
        self._lost_listeners: list[Callable[[ResourceID, str], None]] = []  # owner: main thread
        self._registered_listeners: list[Callable[[ResourceID], None]] = []  # owner: main thread
        self._needed_listeners: list[Callable[[], None]] = []  # owner: main thread
        self._free: list[tuple[ResourceID, int]] = []  # owner: main thread
        self._allocated: dict[str, list[SlotOffer]] = {}  # job id -> slots, owner: main thread

    def register_task_executor(
        self,
        resource_id: ResourceID,
        gateway: TaskExecutorGateway,
        num_slots: int,
        data_address: tuple[str, int] | None = None,
    ) -> Future[None]:
        """A TaskExecutor joins with its slot report (any thread; the future completes once done)."""
        return self.call_async(self._register, resource_id, gateway, num_slots, data_address)

    def _register(
        self,
        resource_id: ResourceID,
        gateway: TaskExecutorGateway,
        num_slots: int,
        data_address: tuple[str, int] | None,
    ) -> None:
        if resource_id in self._executors:
            raise ValueError(f"TaskManager {resource_id} is already registered")
        self._executors[resource_id] = gateway
        self._data_addresses[resource_id] = data_address
        self._free.extend((resource_id, i) for i in range(num_slots))
        for listener in self._registered_listeners:
            listener(resource_id)
        self._serve_pending()

    def add_resources_needed_listener(self, listener: Callable[[], None]) -> None:
        """``listener()`` when a slot request cannot be served by the registered TaskManagers (an
        active resource manager starts more then; any thread)."""
        self.run_async(self._needed_listeners.append, listener)

    def add_registered_listener(self, listener: Callable[[ResourceID], None]) -> None:
        """``listener(resource_id)`` when a TaskManager registered its slots (any thread)."""
        self.run_async(self._registered_listeners.append, listener)

    def add_lost_listener(self, listener: Callable[[ResourceID, str], None]) -> None:
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

    def request_slots(
        self, job_id: str, count: int, timeout_s: float | None = None
    ) -> Future[list[SlotOffer]]:
        """Allocate ``count`` slots to ``job_id`` once they are free (any thread).

        The future fails with ``NoResourceAvailableError`` when the slots are not there
        within the slot request timeout (``timeout_s``, the job's; None: this cluster's);
        ``release_slots`` withdraws a waiting request.
        """
        future: Future[list[SlotOffer]] = Future()
        timeout = self._slot_request_timeout_s if timeout_s is None else timeout_s
        self.run_async(self._request_slots, _SlotRequest(job_id, count, future, timeout))
        return future

    def slot_report(self) -> Future[tuple[int, int, int]]:
        """(TaskManagers, slots, free slots) registered now (any thread)."""
        return self.call_async(
            lambda: (len(self._executors), len(self._free) + self._allocated_count(), len(self._free))
        )

    def slots_by_task_manager(self) -> Future[dict[str, dict[str, Any]]]:
        """Each registered TaskManager's slots now: total, free, and the job of each taken
        slot (any thread)."""

        def report() -> dict[str, dict[str, Any]]:
            out: dict[str, dict[str, Any]] = {
                str(rid): {"free": 0, "allocated": []} for rid in self._executors
            }
            for rid, _ in self._free:
                if str(rid) in out:
                    out[str(rid)]["free"] += 1
            for job_id, offers in self._allocated.items():
                for offer in offers:
                    if str(offer.resource_id) in out:
                        out[str(offer.resource_id)]["allocated"].append(
                            {"index": offer.slot_index, "jobId": job_id}
                        )
            for info in out.values():
                info["total"] = info["free"] + len(info["allocated"])
            return out

        return self.call_async(report)

    def _allocated_count(self) -> int:
        return sum(
            1 for offers in self._allocated.values() for o in offers if o.resource_id in self._executors
        )

    def _request_slots(self, request: _SlotRequest) -> None:
        self._pending.append(request)
        self._serve_pending()
        if not request.future.done():
            for listener in self._needed_listeners:
                listener()
            self.schedule_run_async(request.timeout_s, self._expire, request)

    def _serve_pending(self) -> None:
        for request in list(self._pending):
            if request.count <= len(self._free):
                self._pending.remove(request)
                request.future.set_result(self._allocate(request.job_id, request.count))

    def _expire(self, request: _SlotRequest) -> None:
        if request not in self._pending:
            return
        self._pending.remove(request)
        registered = len(self._free) + self._allocated_count()
        request.future.set_exception(
            NoResourceAvailableError(
                "Could not acquire the minimum required resources within "
                f"{opts.SLOT_REQUEST_TIMEOUT.key}={request.timeout_s * 1000:.0f} ms: the job "
                f"needs {request.count} slots; {len(self._executors)} TaskManagers registered "
                f"{registered} slots, {len(self._free)} of them free"
            )
        )

    def _allocate(self, job_id: str, count: int) -> list[SlotOffer]:
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
        for request in [r for r in self._pending if r.job_id == job_id]:
            self._pending.remove(request)
            request.future.cancel()
        for offer in self._allocated.pop(job_id, []):
            if offer.resource_id in self._executors:
                self._free.append((offer.resource_id, offer.slot_index))
        self._serve_pending()

    def number_of_free_slots(self) -> int:
        """Free slots (any thread)."""
        return self.call_async(lambda: len(self._free)).result()
