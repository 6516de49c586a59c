"""TaskManagerRegistry: the JobManager's side of TaskManager processes.

A TaskManager process connects to the JobManager's RPC port and calls
``register_task_manager``; the registry turns that connection into the TaskExecutor
gateway the ResourceManager hands to JobMasters, and watches it: the connection closing
or heartbeats going unanswered for ``heartbeat.timeout`` makes the TaskManager lost, which
fails the jobs that had tasks on it. Heartbeats go both ways: the registry asks each
TaskManager every ``heartbeat.interval`` (its answer carries the TaskManager's metrics),
and a TaskManager that stops hearing from the JobManager cancels its tasks.

A standalone TaskManager that lost this JobManager (or lost an earlier JobManager at this
address) registers again under its resource id, as Flink's TaskExecutors do: a
registration from a new connection replaces the one before it (that TaskManager's old
connection is closed and it counts as lost first), and a registration repeated on the same
connection (its earlier attempt timed out on the TaskManager's side) is answered as that
first one. Coordinating code on the JobManager's RPC loop.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from millstream.runtime.ids import ResourceID
from millstream.runtime.jobmanager.resource_manager import ResourceManager
from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.service import RpcConnection, current_connection

__all__ = ["TaskManagerRegistry"]

log = logging.getLogger(__name__)


@dataclass
class _Registered:
    connection: RpcConnection
    info: dict[str, Any]
    last_heartbeat: float
    registration: Future[None]  # the ResourceManager's registration of its slots
    report: dict[str, Any] = field(default_factory=dict)


class TaskManagerRegistry:
    """Registration, heartbeats and loss of TaskManager processes (``taskmanagers`` RPC endpoint)."""

    RPC_METHODS = frozenset({"register_task_manager", "heartbeat_from_task_manager"})

    def __init__(
        self,
        resource_manager: ResourceManager,
        loop: EventLoopThread,
        heartbeat_interval_s: float,
        heartbeat_timeout_s: float,
    ) -> None:
        self._rm = resource_manager
        self._loop = loop
        self._interval = heartbeat_interval_s
        self._timeout = heartbeat_timeout_s
        self._lock = threading.Lock()
        self._task_managers: dict[ResourceID, _Registered] = {}  # under _lock
        self._registered = threading.Condition(self._lock)
        self._stopped = False  # under _lock
        self._heartbeating = False  # a heartbeat round is scheduled, under _lock

    def register_task_manager(
        self, resource_id: ResourceID, num_slots: int, data_address: tuple[str, int], info: dict[str, Any]
    ) -> Future[None]:
        """RPC from a starting TaskManager, or one registering again (runs on the RPC loop)."""
        connection = current_connection()
        if connection is None:
            raise RuntimeError("register_task_manager is an RPC")
        with self._lock:
            if self._stopped:  # registering while the cluster shuts down: it is not wanted
                connection.call("taskmanager", "shutdown").add_done_callback(lambda f: f.exception())
                stopped: Future[None] = Future()
                stopped.set_result(None)
                return stopped
            previous = self._task_managers.get(resource_id)
        if previous is not None and previous.connection is connection:
            return previous.registration  # the same registration, asked again
        if previous is not None:
            self._lost(resource_id, f"it registered again from {connection.peer}", previous.connection)
            previous.connection.close()
        host, port = data_address  # a list after the RPC's encoding
        gateway = connection.gateway("taskexecutor")
        registration = self._rm.register_task_executor(
            resource_id, gateway, num_slots, (str(host), int(port))
        )
        info = dict(info)
        first_report = info.pop("report", None) or {}  # its process at registration
        with self._lock:
            self._task_managers[resource_id] = _Registered(
                connection, info, time.monotonic(), registration, first_report
            )
            self._registered.notify_all()
            start_heartbeats, self._heartbeating = not self._heartbeating, True
        connection.add_close_listener(
            lambda c: self._lost(resource_id, f"connection to {c.peer} closed", connection)
        )
        if start_heartbeats:
            self._loop.loop.call_later(self._interval, self._heartbeat_round)
        log.info("TaskManager %s registered from %s with %d slots", resource_id, connection.peer, num_slots)
        return registration

    def heartbeat_from_task_manager(self, resource_id: ResourceID) -> bool:
        """RPC: a TaskManager checks that the JobManager still knows it."""
        with self._lock:
            return resource_id in self._task_managers

    def _heartbeat_round(self) -> None:
        now = time.monotonic()
        with self._lock:
            registered = list(self._task_managers.items())
            self._heartbeating = bool(registered) and not self._stopped
            if not self._heartbeating:
                return
        for resource_id, tm in registered:
            if now - tm.last_heartbeat > self._timeout:
                self._lost(resource_id, f"no heartbeat for {now - tm.last_heartbeat:.1f} s", tm.connection)
                tm.connection.close()
                continue
            reply = tm.connection.call("taskmanager", "heartbeat_from_resource_manager")
            reply.add_done_callback(self._heartbeat_handler(resource_id))
        self._loop.loop.call_later(self._interval, self._heartbeat_round)

    def _heartbeat_handler(self, resource_id: ResourceID) -> Any:
        return lambda reply: self._on_heartbeat(resource_id, reply)

    def _on_heartbeat(self, resource_id: ResourceID, reply: Future[Any]) -> None:
        if reply.exception() is not None:
            return
        with self._lock:
            tm = self._task_managers.get(resource_id)
            if tm is not None:
                tm.last_heartbeat = time.monotonic()
                tm.report = reply.result() or {}

    def _lost(self, resource_id: ResourceID, reason: str, connection: RpcConnection) -> None:
        """The TaskManager registered over ``connection`` is lost (a later registration of the
        same TaskManager is not)."""
        with self._lock:
            tm = self._task_managers.get(resource_id)
            if tm is None or tm.connection is not connection:
                return
            del self._task_managers[resource_id]
            stopped = self._stopped
        if not stopped:
            log.warning("TaskManager %s is lost: %s", resource_id, reason)
        self._rm.task_executor_lost(resource_id, reason)

    def wait_for(self, count: int, timeout: float, check: Any = None) -> None:
        """Block until ``count`` TaskManagers registered; ``check()`` may raise meanwhile."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self._task_managers) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(
                        f"only {len(self._task_managers)} of {count} TaskManagers registered in {timeout} s"
                    )
                self._registered.wait(min(remaining, 0.1))
                if check is not None:
                    self._lock.release()
                    try:
                        check()
                    finally:
                        self._lock.acquire()

    def task_managers(self) -> dict[ResourceID, dict[str, Any]]:
        """Registered TaskManagers: their info and latest heartbeat report."""
        with self._lock:
            return {rid: {**tm.info, "report": tm.report} for rid, tm in self._task_managers.items()}

    def call_task_manager(self, resource_id: str, method: str, *args: Any) -> Future[Any]:
        """Call one of a registered TaskManager's process methods (``log_files``, ``read_log``).

        Raises:
            KeyError: no TaskManager of that id is registered.
        """
        with self._lock:
            for rid, tm in self._task_managers.items():
                if str(rid) == resource_id:
                    return tm.connection.call("taskmanager", method, *args)
        raise KeyError(resource_id)

    def shutdown_all(self, timeout: float = 10.0) -> None:
        """Ask every TaskManager to stop (they exit; their connections close)."""
        with self._lock:
            self._stopped = True
            connections = [tm.connection for tm in self._task_managers.values()]
        futures = [c.call("taskmanager", "shutdown") for c in connections]
        deadline = time.monotonic() + timeout
        for future in futures:
            try:
                future.result(max(0.0, deadline - time.monotonic()))
            except Exception:
                pass
