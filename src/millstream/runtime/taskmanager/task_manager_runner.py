"""TaskManagerRunner: one TaskManager process (Flink's ``TaskManagerRunner``).

::

    TaskManager process
      main thread ........ registers with the JobManager, and again after losing it
                           (run / run_step), until shut down
      network-io thread .. EventLoopThread: RPC connection to the JobManager and the
                           data plane (ConnectionManager: server + client connections)
      taskexecutor-main .. TaskExecutor's endpoint thread (deploy / cancel, in order)
      task threads ....... one per deployed subtask (pinned together, see cpu_affinity)

Start-up: listen for data connections, connect to the JobManager with the shared
secret, register (resource id, slots, data address). The JobManager then deploys tasks
over the same connection; task state updates, partition notifications and collected
elements go back on it. Coordinating code.

Losing the JobManager (connection closed, or no heartbeat for ``heartbeat.timeout``) is
handled as Flink's TaskExecutor handles losing its ResourceManager and JobMasters::

    registering ──registered──> registered ──JobManager lost──> tasks cancelled, partitions
        ^  │ attempt timed out: retry, waiting twice as long  released, one WARNING line
        │  │   (cluster.registration.initial-timeout .. max-timeout)        │
        │  │ attempt failed (nobody listening): retry after                 │
        │  │   cluster.registration.error-delay                             │
        │  └─ not registered within taskmanager.registration.timeout ──> exit
        └───────────────────────────────────────────────────────────────────┘

so a restarted JobManager at the same address gets its TaskManagers back, and a
TaskManager that was paused past the heartbeat timeout rejoins. A MiniCluster's child
(``reconnect=False``) registers once and exits when it loses its JobManager, which is
its parent process: no TaskManager outlives its MiniCluster client.
"""

from __future__ import annotations

import gc
import logging
import os
import shutil
import socket
import tempfile
import threading
import time
from typing import Any

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.runtime.blob import BlobCache
from millstream.runtime.collect_messages import CollectMessage
from millstream.runtime.ids import ResourceID, ResultPartitionID
from millstream.runtime.io.network.transport.connection_manager import ConnectionManager
from millstream.runtime.log_files import process_log_files, read_log_file
from millstream.runtime.plugins import close_plugins, start_plugins
from millstream.runtime.process_metrics import process_report
from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.service import RpcConnection, RpcConnectionLost, RpcService
from millstream.runtime.taskmanager.network_environment import NetworkEnvironment
from millstream.runtime.taskmanager.task_executor import TaskExecutor

__all__ = ["RegistrationTimeoutError", "TaskManagerRunner"]

log = logging.getLogger(__name__)

TASK_EXECUTOR_RPC_METHODS = frozenset(
    {
        "submit_task",
        "cancel_task",
        "task_metrics",
        "release_partitions",
        "trigger_checkpoint",
        "notify_checkpoint_complete",
        "notify_checkpoint_aborted",
        "send_operator_event_to_task",
    }
)


class _RemoteCollectChannel:
    """A collect sink's channel to the client, through the JobManager."""

    def __init__(self, connection: RpcConnection, collect_id: str) -> None:
        self._connection = connection
        self._collect_id = collect_id

    def send(self, message: CollectMessage) -> None:
        """Blocks until the client has room for the message (or the JobManager is gone)."""
        self._connection.call("collect", "offer", self._collect_id, message).result()


class _RemoteCollectChannels:
    def __init__(self, connection: RpcConnection) -> None:
        self._connection = connection

    def channel(self, collect_id: str) -> _RemoteCollectChannel:
        return _RemoteCollectChannel(self._connection, collect_id)


class _RemoteJobMaster:
    """A job's JobMaster as the TaskExecutor sees it (calls are fire-and-forget)."""

    def __init__(self, connection: RpcConnection, job_id: str) -> None:
        self._connection = connection
        self._target = f"jobmaster/{job_id}"

    def update_task_execution_state(self, update: Any) -> None:
        self._connection.tell(self._target, "update_task_execution_state", update)

    def acknowledge_checkpoint(self, attempt_id: str, checkpoint_id: int, snapshots: Any) -> None:
        self._connection.tell(self._target, "acknowledge_checkpoint", attempt_id, checkpoint_id, snapshots)

    def decline_checkpoint(self, attempt_id: str, checkpoint_id: int, reason: str, kind: str = "") -> None:
        self._connection.tell(self._target, "decline_checkpoint", attempt_id, checkpoint_id, reason, kind)

    def notify_partition_consumable(self, partition_id: ResultPartitionID) -> None:
        self._connection.tell(self._target, "notify_partition_consumable", partition_id)

    def send_operator_event_to_coordinator(self, attempt_id: str, node_id: int, event: Any) -> None:
        self._connection.tell(self._target, "send_operator_event_to_coordinator", attempt_id, node_id, event)


# Plugins of the operations tools, started with the TaskManager (see runtime/plugins.py).
PLUGINS: dict[str, str] = {"prometheus": "millstream.metrics.prometheus:start_task_manager_reporter"}


class RegistrationTimeoutError(Exception):
    """No JobManager accepted the TaskManager's registration within ``taskmanager.registration.timeout``."""


def _describe(err: BaseException) -> str:
    """A failed registration attempt in words (``Connection refused``)."""
    if isinstance(err, OSError) and err.errno:  # asyncio's strerror is "Connect call failed (...)"
        return os.strerror(err.errno)
    return str(err) or type(err).__name__


class TaskManagerRunner:
    """Starts, registers and stops one TaskManager process."""

    RPC_METHODS = frozenset({"heartbeat_from_resource_manager", "shutdown", "log_files", "read_log"})

    def __init__(
        self,
        configuration: Configuration,
        jobmanager: tuple[str, int],
        secret: str,
        resource_id: ResourceID,
        num_slots: int,
        bind_host: str = "127.0.0.1",
        reconnect: bool = True,
    ) -> None:
        """``reconnect``: register again after losing the JobManager (a standalone
        TaskManager); False: exit then (a MiniCluster's child)."""
        self.configuration = configuration
        self.jobmanager = jobmanager
        self.resource_id = resource_id
        self.num_slots = num_slots
        self._bind_host = bind_host
        self._secret = secret
        self._reconnect = reconnect
        self._loop = EventLoopThread("network-io")
        self._rpc = RpcService(self._loop, secret)
        self._stopped = threading.Event()
        self._wake = threading.Event()  # set when stopped or the JobManager is lost
        self._lock = threading.Lock()
        self._lost_reason: str | None = None  # under _lock: set on the network loop, taken by run_step
        self._work_dir = tempfile.mkdtemp(prefix=f"millstream-{resource_id}-")
        self._last_heartbeat = time.monotonic()  # owner: network loop
        self._data_address: tuple[str, int] = ("", 0)  # set by start
        # The connection to the JobManager being registered with, or registered; None once lost.
        # Written by the main thread (start, run_step), read by any.
        self.connection: RpcConnection | None = None
        self.task_executor: TaskExecutor | None = None
        self.connection_manager: ConnectionManager | None = None
        self.plugins: dict[str, Any] = {}  # started plugins (the Prometheus reporter)
        self.exit_reason = ""

    def start(self) -> None:
        """Listen, connect to the JobManager and register (standalone: retrying until the
        registration timeout, see ``register``)."""
        threshold = self.configuration.get(opts.GC_THRESHOLD)
        if threshold > 0:
            gc.set_threshold(threshold, *gc.get_threshold()[1:])
        self._loop.start()
        network = NetworkEnvironment(self.configuration, self.resource_id)
        self.connection_manager = ConnectionManager(self._loop, self._secret, network.partition_manager)
        network.connection_manager = self.connection_manager
        self._data_address = self.connection_manager.start(self._bind_host, 0)
        jobmanager = self._jobmanager_connection
        blobs = BlobCache(
            lambda key: jobmanager().call("blobserver", "get_blob", key).result(), self._work_dir
        )
        te = TaskExecutor(
            self.resource_id,
            self.configuration,
            self.num_slots,
            lambda job_id: _RemoteCollectChannels(jobmanager()),
            lambda job_id: _RemoteJobMaster(jobmanager(), job_id),
            network,
            lambda tdd: blobs.prepare(tdd.user_artifacts),
        )
        self.task_executor = te
        te.start()
        self._rpc.register("taskexecutor", te, TASK_EXECUTOR_RPC_METHODS)
        self._rpc.register("taskmanager", self, self.RPC_METHODS)
        self.plugins.update(start_plugins(PLUGINS, self))
        if self.register():
            log.info("TaskManager %s registered at %s:%d", self.resource_id, *self.jobmanager)

    def _jobmanager_connection(self) -> RpcConnection:
        """The JobManager's connection for a task being deployed: the one it came on."""
        connection = self.connection
        if connection is None:
            raise RpcConnectionLost(f"TaskManager {self.resource_id} is not connected to a JobManager")
        return connection

    def _registration_info(self) -> dict[str, Any]:
        return {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "data_address": self._data_address,
            "report": {"running_tasks": self._running_tasks(), **process_report()},
            "plugins": {name: getattr(p, "address", None) for name, p in self.plugins.items()},
        }

    def _running_tasks(self) -> int:
        te = self.task_executor
        return te.running_tasks() if te is not None else 0

    def register(self) -> bool:
        """Connect to the JobManager and register with it (main thread); False if shut down meanwhile.

        A MiniCluster's child tries once (its JobManager is its parent). A standalone
        TaskManager retries as Flink's RetryingRegistration: an attempt that gets no answer is
        repeated at once waiting twice as long (up to ``cluster.registration.max-timeout``), one
        that fails (no JobManager listening) after ``cluster.registration.error-delay``.

        Raises:
            RegistrationTimeoutError: not registered within ``taskmanager.registration.timeout``.
            Exception: a MiniCluster child's failed attempt, as it is.
        """
        if not self._reconnect:
            self._attempt_registration(None, 30.0)
            return True
        timeout_s = self.configuration.get(opts.CLUSTER_REGISTRATION_INITIAL_TIMEOUT) / 1000
        max_timeout_s = self.configuration.get(opts.CLUSTER_REGISTRATION_MAX_TIMEOUT) / 1000
        total_s = self.configuration.get(opts.TASK_MANAGER_REGISTRATION_TIMEOUT) / 1000
        deadline = time.monotonic() + total_s
        connection: RpcConnection | None = None
        while not self._stopped.is_set():
            try:
                connection = self._attempt_registration(connection, timeout_s)
                return True
            except TimeoutError:
                failure, delay = f"no answer within {timeout_s:g} s", 0.0
                timeout_s = min(2 * timeout_s, max_timeout_s)
            except Exception as err:  # refused, reset, wrong secret, refused by the JobManager
                failure = _describe(err)
                delay = self.configuration.get(opts.CLUSTER_REGISTRATION_ERROR_DELAY) / 1000
                self._drop(connection)
                connection = None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._drop(connection)
                host, port = self.jobmanager
                raise RegistrationTimeoutError(
                    f"could not register at the JobManager at {host}:{port} within {total_s:g} s "
                    f"({opts.TASK_MANAGER_REGISTRATION_TIMEOUT.key}); last attempt: {failure}"
                )
            log.debug("registration at %s:%d failed: %s", *self.jobmanager, failure)
            self._stopped.wait(min(delay, remaining))
        self._drop(connection)
        return False

    def _attempt_registration(self, connection: RpcConnection | None, timeout_s: float) -> RpcConnection:
        """Register over ``connection`` (a new one if None or closed); returns it, registered."""
        if connection is None or connection.closed:
            connection = self._rpc.connect(*self.jobmanager, timeout=timeout_s)
        self.connection = connection  # what the JobManager deploys comes on it, maybe before the answer
        connection.call(
            "taskmanagers",
            "register_task_manager",
            self.resource_id,
            self.num_slots,
            self._data_address,
            self._registration_info(),
        ).result(timeout_s)
        with self._lock:
            self._lost_reason = None
        self._last_heartbeat = time.monotonic()
        connection.add_close_listener(lambda c: self._jobmanager_lost(c, "its connection closed"))
        timeout = self.configuration.get(opts.HEARTBEAT_TIMEOUT) / 1000
        self._loop.loop.call_soon_threadsafe(self._watch_jobmanager, connection, timeout)
        return connection

    def _drop(self, connection: RpcConnection | None) -> None:
        """Close a connection that holds no registration (any more)."""
        if connection is not None:
            connection.close()
        self.connection = None

    def run(self) -> None:
        """Serve until shut down (main thread, after ``start``).

        Raises:
            RegistrationTimeoutError: the JobManager was lost and no JobManager accepted this
                TaskManager again within ``taskmanager.registration.timeout``.
        """
        while self.run_step(1.0):
            pass

    def run_step(self, timeout: float | None) -> bool:
        """Wait up to ``timeout`` s for the JobManager to be lost, and if it was, cancel the
        tasks and register again (main thread); False once shut down."""
        self._wake.wait(timeout)
        self._wake.clear()
        if self._stopped.is_set():
            return False
        with self._lock:
            reason, self._lost_reason = self._lost_reason, None
        if reason is None:
            return True
        self._drop(self.connection)
        if not self._reconnect:
            log.warning("TaskManager %s lost its JobManager: %s", self.resource_id, reason)
            self.exit_reason = reason
            self.shutdown()  # close() cancels the tasks; the process exits
            return False
        lost_at = time.monotonic()
        cancelled = self.task_executor.disconnect_job_manager() if self.task_executor is not None else 0
        timeout = self.configuration.get(opts.TASK_MANAGER_REGISTRATION_TIMEOUT) / 1000
        log.warning(
            "TaskManager %s lost the JobManager at %s:%d (%s); cancelled %d task%s; registering "
            "again for up to %g s (%s)",
            self.resource_id,
            *self.jobmanager,
            reason,
            cancelled,
            "" if cancelled == 1 else "s",
            timeout,
            opts.TASK_MANAGER_REGISTRATION_TIMEOUT.key,
        )
        if not self.register():
            return False
        log.info(
            "TaskManager %s registered again at %s:%d, %.1f s after losing the JobManager",
            self.resource_id,
            *self.jobmanager,
            time.monotonic() - lost_at,
        )
        return True

    def heartbeat_from_resource_manager(self) -> dict[str, Any]:
        """RPC: the JobManager is alive; answer with this TaskManager's report."""
        self._last_heartbeat = time.monotonic()
        return {"running_tasks": self._running_tasks(), **process_report()}

    def log_files(self) -> list[dict[str, Any]]:
        """RPC: this TaskManager's log files (name, size, mtime)."""
        return process_log_files()

    def read_log(self, name: str) -> str:
        """RPC: the end of one of its log files."""
        return read_log_file(name)

    def _watch_jobmanager(self, connection: RpcConnection, timeout_s: float) -> None:
        if self._stopped.is_set() or connection is not self.connection:
            return
        silent = time.monotonic() - self._last_heartbeat
        if silent > timeout_s:
            self._jobmanager_lost(connection, f"no heartbeat from the JobManager for {silent:.1f} s")
            return
        self._loop.loop.call_later(min(1.0, timeout_s / 4), self._watch_jobmanager, connection, timeout_s)

    def _jobmanager_lost(self, connection: RpcConnection, reason: str) -> None:
        """The registered ``connection`` is gone (network loop): ``run_step`` handles it."""
        with self._lock:
            if connection is not self.connection or self._lost_reason is not None:
                return
            self._lost_reason = reason
        self._wake.set()

    def shutdown(self) -> None:
        """RPC or local: stop accepting work and let ``wait`` and ``run`` return."""
        self._stopped.set()
        self._wake.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until shut down; True if it was."""
        return self._stopped.wait(timeout)

    def close(self) -> None:
        """Cancel tasks and release everything (main thread, after ``wait``)."""
        self._stopped.set()
        close_plugins(self.plugins)
        if self.task_executor is not None:
            self.task_executor.shutdown(timeout=10)
        if self.connection_manager is not None:
            self.connection_manager.close()
        self._rpc.close()
        self._loop.stop()
        shutil.rmtree(self._work_dir, ignore_errors=True)
