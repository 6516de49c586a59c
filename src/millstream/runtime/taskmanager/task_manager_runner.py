"""TaskManagerRunner: one TaskManager process (Flink's ``TaskManagerRunner``).

::

    TaskManager process
      main thread ........ waits for shutdown
      network-io thread .. EventLoopThread: RPC connection to the JobManager and the
                           data plane (ConnectionManager: server + client connections)
      taskexecutor-main .. TaskExecutor's endpoint thread (deploy / cancel, in order)
      task threads ....... one per deployed subtask (pinned together, see cpu_affinity)

Start-up: listen for data connections, connect to the JobManager with the shared
secret, register (resource id, slots, data address). The JobManager then deploys tasks
over the same connection; task state updates, partition notifications and collected
elements go back on it. Losing the JobManager (connection closed, or no heartbeat for
``heartbeat.timeout``) cancels every task and the process exits, so no TaskManager
outlives its MiniCluster client (Flink's TaskManager would try to register again). Coordinating code.
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
from millstream.runtime.ids import ResourceID, ResultPartitionID
from millstream.runtime.io.network.transport.connection_manager import ConnectionManager
from millstream.runtime.log_files import process_log_files, read_log_file
from millstream.runtime.plugins import close_plugins, start_plugins
from millstream.runtime.process_metrics import process_report
from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.service import RpcConnection, RpcService
from millstream.runtime.taskmanager.network_environment import NetworkEnvironment
from millstream.runtime.taskmanager.task_executor import TaskExecutor

__all__ = ["TaskManagerRunner"]

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

    def put(self, batch: list[Any]) -> None:
        """Blocks until the client has room for the batch (or the JobManager is gone)."""
        self._connection.call("collect", "offer", self._collect_id, batch).result()

    def producer_finished(self) -> None:
        """This subtask is done."""
        self._connection.call("collect", "producer_finished", self._collect_id).result()


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
    ) -> None:
        self.configuration = configuration
        self.jobmanager = jobmanager
        self.resource_id = resource_id
        self.num_slots = num_slots
        self._bind_host = bind_host
        self._secret = secret
        self._loop = EventLoopThread("network-io")
        self._rpc = RpcService(self._loop, secret)
        self._stopped = threading.Event()
        self._work_dir = tempfile.mkdtemp(prefix=f"millstream-{resource_id}-")
        self._last_heartbeat = time.monotonic()  # owner: network loop
        self.connection: RpcConnection | None = None
        self.task_executor: TaskExecutor | None = None
        self.connection_manager: ConnectionManager | None = None
        self.plugins: dict[str, Any] = {}  # started plugins (the Prometheus reporter)
        self.exit_reason = ""

    def start(self) -> None:
        """Listen, connect to the JobManager and register."""
        threshold = self.configuration.get(opts.GC_THRESHOLD)
        if threshold > 0:
            gc.set_threshold(threshold, *gc.get_threshold()[1:])
        self._loop.start()
        network = NetworkEnvironment(self.configuration, self.resource_id)
        self.connection_manager = ConnectionManager(self._loop, self._secret, network.partition_manager)
        network.connection_manager = self.connection_manager
        data_address = self.connection_manager.start(self._bind_host, 0)
        connection = self._rpc.connect(*self.jobmanager)
        self.connection = connection
        blobs = BlobCache(lambda key: connection.call("blobserver", "get_blob", key).result(), self._work_dir)
        te = TaskExecutor(
            self.resource_id,
            self.configuration,
            self.num_slots,
            lambda job_id: _RemoteCollectChannels(connection),
            lambda job_id: _RemoteJobMaster(connection, job_id),
            network,
            lambda tdd: blobs.prepare(tdd.user_artifacts),
        )
        self.task_executor = te
        te.start()
        self._rpc.register("taskexecutor", te, TASK_EXECUTOR_RPC_METHODS)
        self._rpc.register("taskmanager", self, self.RPC_METHODS)
        connection.add_close_listener(
            lambda c: self._jobmanager_lost("the connection to the JobManager closed")
        )
        self.plugins.update(start_plugins(PLUGINS, self))
        info = {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "data_address": data_address,
            "report": {"running_tasks": 0, **process_report()},
            "plugins": {name: getattr(p, "address", None) for name, p in self.plugins.items()},
        }
        connection.call(
            "taskmanagers", "register_task_manager", self.resource_id, self.num_slots, data_address, info
        ).result(30)
        timeout_s = self.configuration.get(opts.HEARTBEAT_TIMEOUT) / 1000
        self._loop.loop.call_soon_threadsafe(self._watch_jobmanager, timeout_s)
        log.info("TaskManager %s registered at %s:%d", self.resource_id, *self.jobmanager)

    def heartbeat_from_resource_manager(self) -> dict[str, Any]:
        """RPC: the JobManager is alive; answer with this TaskManager's report."""
        self._last_heartbeat = time.monotonic()
        te = self.task_executor
        return {
            "running_tasks": te.running_tasks() if te is not None else 0,
            **process_report(),
        }

    def log_files(self) -> list[dict[str, Any]]:
        """RPC: this TaskManager's log files (name, size, mtime)."""
        return process_log_files()

    def read_log(self, name: str) -> str:
        """RPC: the end of one of its log files."""
        return read_log_file(name)

    def _watch_jobmanager(self, timeout_s: float) -> None:
        if self._stopped.is_set():
            return
        silent = time.monotonic() - self._last_heartbeat
        if silent > timeout_s:
            self._jobmanager_lost(f"no heartbeat from the JobManager for {silent:.1f} s")
            return
        self._loop.loop.call_later(min(1.0, timeout_s / 4), self._watch_jobmanager, timeout_s)

    def _jobmanager_lost(self, reason: str) -> None:
        if self._stopped.is_set():
            return
        log.warning("TaskManager %s lost its JobManager: %s", self.resource_id, reason)
        self.exit_reason = reason
        self.shutdown()  # close() cancels the tasks; the process exits

    def shutdown(self) -> None:
        """RPC or local: stop accepting work and let ``wait`` return."""
        self._stopped.set()

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
