"""MiniCluster: JobManager components and TaskExecutors for running a job on this machine.

``MiniClusterExecutor`` is the ``embedded`` execution target: ``env.execute()`` starts a
MiniCluster sized for the job (one TaskExecutor with a slot per shared slot), runs the
job, and shuts everything down (also on failure), leaving no thread behind.
"""

from __future__ import annotations

import gc
import os
import queue
import sys
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future
from typing import Any

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.common.job_execution_result import (
    JobExecutionException,
    JobExecutionResult,
    JobID,
    JobStatus,
)
from millstream.graph.job_graph import JobGraph
from millstream.runtime.blob import BlobServer, job_module_files, package_files
from millstream.runtime.ids import ResourceID, new_id
from millstream.runtime.jobmanager.dispatcher import Dispatcher
from millstream.runtime.jobmanager.job_master import JobMaster, JobResult
from millstream.runtime.jobmanager.resource_manager import ResourceManager
from millstream.runtime.jobmanager.scheduler import required_slots
from millstream.runtime.jobmanager.task_manager_registry import TaskManagerRegistry
from millstream.runtime.rpc.event_loop import EventLoopThread
from millstream.runtime.rpc.service import RpcService
from millstream.runtime.rpc.wire import generate_secret
from millstream.runtime.task_manager_processes import TaskManagerProcesses
from millstream.runtime.taskmanager import cpu_affinity
from millstream.runtime.taskmanager.task_executor import TaskExecutor

__all__ = ["CollectChannel", "CollectChannels", "JobClient", "MiniCluster", "MiniClusterExecutor"]

_END = object()
COLLECT_QUEUE_BATCHES = 16
REGISTRATION_TIMEOUT_S = 60.0


class CollectChannel:
    """Bounded channel from collect-sink subtasks to the client.

    ``offer`` never blocks: it returns a future that completes once the batch is in the
    client's queue (at once while there is room), so a TaskManager process can wait for
    it over RPC; a closed channel (client gone) completes every offer and drops the batch.
    """

    def __init__(self, producers: int) -> None:
        self._cond = threading.Condition()
        self._queue: deque[Any] = deque()  # under _cond
        self._waiting: deque[tuple[Any, Future[None]]] = deque()  # under _cond: offers beyond capacity
        self._producers = producers  # under _cond
        self.closed = False  # under _cond

    def offer(self, batch: Any) -> Future[None]:
        """Queue a batch (or ``_END``); the future completes when the client has room for it."""
        future: Future[None] = Future()
        with self._cond:
            if self.closed:
                future.set_result(None)
            elif len(self._queue) < COLLECT_QUEUE_BATCHES:
                self._queue.append(batch)
                future.set_result(None)
                self._cond.notify_all()
            else:
                self._waiting.append((batch, future))
        return future

    def put(self, batch: list[Any]) -> None:
        """Hand a batch to the client; blocks while the client is behind."""
        self.offer(batch).result()

    def producer_finished(self) -> None:
        """One collect subtask reached its end."""
        with self._cond:
            self._producers -= 1
            last = self._producers == 0
        if last:
            self.offer(_END)

    def get(self, timeout: float) -> Any:
        """The next batch, ``_END``, or raises ``queue.Empty``."""
        admitted: list[Future[None]] = []
        with self._cond:
            if not self._queue and not self._cond.wait_for(lambda: bool(self._queue), timeout):
                raise queue.Empty
            item = self._queue.popleft()
            while self._waiting and len(self._queue) < COLLECT_QUEUE_BATCHES:
                batch, future = self._waiting.popleft()
                self._queue.append(batch)
                admitted.append(future)
        for future in admitted:
            future.set_result(None)
        return item

    def close(self) -> None:
        """The client stopped reading: release every waiting producer."""
        with self._cond:
            self.closed = True
            waiting = list(self._waiting)
            self._waiting.clear()
            self._queue.clear()
        for _, future in waiting:
            future.set_result(None)


class CollectChannels:
    """Collect channels of a cluster, by collect-sink id (also the ``collect`` RPC endpoint)."""

    RPC_METHODS = frozenset({"offer", "producer_finished"})

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._channels: dict[str, CollectChannel] = {}

    def open(self, collect_id: str, producers: int) -> CollectChannel:
        """Create the channel of one collect sink."""
        with self._lock:
            channel = self._channels[collect_id] = CollectChannel(producers)
            return channel

    def channel(self, collect_id: str) -> CollectChannel:
        """The channel of one collect sink."""
        with self._lock:
            return self._channels[collect_id]

    def offer(self, collect_id: str, batch: Any) -> Future[None]:
        """RPC: a TaskManager's collect sink hands over a batch."""
        return self.channel(collect_id).offer(batch)

    def producer_finished(self, collect_id: str) -> None:
        """RPC: a TaskManager's collect subtask finished."""
        self.channel(collect_id).producer_finished()

    def close_all(self) -> None:
        """Release every producer (the client is gone)."""
        with self._lock:
            channels = list(self._channels.values())
        for channel in channels:
            channel.close()


class MiniCluster:
    """JobManager components in this process; TaskManagers as child processes or threads.

    ``processes=True`` (``minicluster.mode: processes``, the default): the JobManager
    listens on 127.0.0.1 with a fresh secret and ``num_task_managers`` TaskManager
    processes register with it, as in a standalone cluster. ``processes=False``: one
    process, TaskExecutors as in-process objects (for debugging and fast tests).
    """

    def __init__(
        self,
        configuration: Configuration,
        num_task_managers: int,
        slots_per_task_manager: int,
        processes: bool = False,
    ) -> None:
        self.configuration = configuration
        self.processes = processes
        self.collect_channels = CollectChannels()
        self.resource_manager = ResourceManager()
        self.blob_server = BlobServer()
        self.task_executors: list[TaskExecutor] = []
        self.task_manager_processes: TaskManagerProcesses | None = None
        self.registry: TaskManagerRegistry | None = None
        self.rpc: RpcService | None = None
        self._loop: EventLoopThread | None = None
        if processes:
            self._loop = EventLoopThread("jobmanager-io")
            self.rpc = RpcService(self._loop, generate_secret())
            self.registry = TaskManagerRegistry(
                self.resource_manager,
                self._loop,
                configuration.get(opts.HEARTBEAT_INTERVAL) / 1000,
                configuration.get(opts.HEARTBEAT_TIMEOUT) / 1000,
            )
            self.task_manager_processes = TaskManagerProcesses(
                configuration, num_task_managers, slots_per_task_manager
            )
        else:
            self.task_executors = [
                TaskExecutor(
                    ResourceID(f"tm-{i}-{new_id()[:6]}"),
                    configuration,
                    slots_per_task_manager,
                    self.collect_channels,
                    self._job_master,
                )
                for i in range(num_task_managers)
            ]
        self.dispatcher = Dispatcher(self.resource_manager, self.rpc)
        self._started = False
        self._saved_gc = gc.get_threshold()

    def start(self) -> None:
        """Start every component and register the TaskManagers."""
        threshold = self.configuration.get(opts.GC_THRESHOLD)
        self._saved_gc = gc.get_threshold()
        if threshold > 0:
            gc.set_threshold(threshold, *self._saved_gc[1:])
        self.resource_manager.start()
        self.dispatcher.start()
        self._started = True
        for te in self.task_executors:
            te.start()
            self.resource_manager.register_task_executor(te.resource_id, te, te.num_slots).result()
        if self.processes:
            self._start_processes()

    def _start_processes(self) -> None:
        assert self._loop is not None and self.rpc is not None and self.registry is not None
        assert self.task_manager_processes is not None
        self._loop.start()
        self.rpc.register("taskmanagers", self.registry, TaskManagerRegistry.RPC_METHODS)
        self.rpc.register("blobserver", self.blob_server, BlobServer.RPC_METHODS)
        self.rpc.register("collect", self.collect_channels, CollectChannels.RPC_METHODS)
        address = self.rpc.listen("127.0.0.1", 0)
        self.task_manager_processes.start(address, self.rpc.secret)
        self.registry.wait_for(
            self.task_manager_processes.count, REGISTRATION_TIMEOUT_S, self.task_manager_processes.check_alive
        )

    def _job_master(self, job_id: str) -> JobMaster:
        return self.dispatcher.job_masters[job_id]

    def submit(self, job_graph: JobGraph) -> JobMaster:
        """Submit a job; returns its JobMaster (``.result`` is a future)."""
        for vertex in job_graph.vertices:
            for op in vertex.operators:
                if op.operator.kind == "collect":
                    self.collect_channels.open(op.operator.params["collect_id"], vertex.parallelism)
        artifacts = self._upload_job_files(job_graph) if self.processes else ()
        return self.dispatcher.submit_job(job_graph, artifacts)

    def _upload_job_files(self, job_graph: JobGraph) -> tuple[str, ...]:
        entries: list[tuple[str, str]] = []
        main_file = getattr(sys.modules.get("__main__"), "__file__", None)
        if main_file:
            entries += job_module_files(os.path.dirname(os.path.abspath(main_file)))
        for path in filter(None, str(job_graph.job_config.get("python.files", "")).split(",")):
            entries.append((path, os.path.basename(path.rstrip(os.sep))))
        if not entries:
            return ()
        return (self.blob_server.put_blob(package_files(entries)),)

    def close(self) -> None:
        """Stop every component; TaskManager processes exit, threads are joined."""
        if not self._started:
            return
        self._started = False
        try:
            for te in self.task_executors:
                te.shutdown()
            if self.registry is not None and self.task_manager_processes is not None:
                self.registry.shutdown_all()
                self.task_manager_processes.stop()
        finally:
            if self.task_manager_processes is not None:
                self.task_manager_processes.kill()
            self.dispatcher.stop()
            self.resource_manager.stop()
            if self.rpc is not None:
                self.rpc.close()
            if self._loop is not None:
                self._loop.stop()
            gc.set_threshold(*self._saved_gc)


def _to_result(result: JobResult) -> JobExecutionResult:
    if result.status is JobStatus.FAILED:
        cause = result.failure
        raise JobExecutionException(
            result.job_id, f"Job execution failed: {cause}" if cause else "Job execution failed"
        ) from cause
    if result.status is JobStatus.CANCELED:
        raise JobExecutionException(result.job_id, "Job was cancelled")
    return JobExecutionResult(
        JobID(result.job_id), result.net_runtime_ms, dict(result.accumulators), result.job_name
    )


class JobClient:
    """A running job: its result, cancellation and collected elements."""

    def __init__(self, cluster: MiniCluster, master: JobMaster) -> None:
        self._cluster = cluster
        self._master = master
        self._closed = False

    def get_job_id(self) -> JobID:
        """The job id."""
        return JobID(self._master.job_graph.job_id)

    def get_job_status(self) -> JobStatus:
        """Current status."""
        return self._master.status

    def get_job_execution_result(self, timeout: float | None = None) -> JobExecutionResult:
        """Wait for the job and return its result (raises if it failed)."""
        try:
            return _to_result(self._master.result.result(timeout))
        finally:
            if self._master.result.done():
                self.close()

    def cancel(self) -> None:
        """Cancel the job."""
        self._master.cancel()

    def collect(self, collect_id: str) -> Iterator[Any]:
        """The elements reaching collect sink ``collect_id``, as they arrive."""
        channel = self._cluster.collect_channels.channel(collect_id)
        while True:
            try:
                batch = channel.get(timeout=0.05)
            except queue.Empty:
                if self._master.result.done():
                    result = self._master.result.result()
                    if result.status is not JobStatus.FINISHED:
                        self.close()
                        _to_result(result)
                        return
                continue
            if batch is _END:
                self.get_job_execution_result()
                return
            yield from batch

    def close(self) -> None:
        """Cancel the job if it still runs; shut the cluster down."""
        if self._closed:
            return
        self._closed = True
        self._cluster.collect_channels.close_all()
        if not self._master.result.done():
            self._master.cancel()
            try:
                self._master.result.result(timeout=30)
            except Exception:
                pass
        self._cluster.close()


class MiniClusterExecutor:
    """The ``embedded`` PipelineExecutor."""

    def execute_async(self, job_graph: JobGraph, configuration: Configuration) -> JobClient:
        """Start a MiniCluster sized for the job and submit it."""
        slots = len(required_slots(job_graph))
        mode = configuration.get(opts.MINICLUSTER_MODE).strip().lower()
        if mode not in ("processes", "threads"):
            raise ValueError(f"{opts.MINICLUSTER_MODE.key}: expected 'processes' or 'threads', got {mode!r}")
        cpu_affinity.parse_affinity(configuration.get(opts.CPU_AFFINITY))  # a bad value fails here, clearly
        if mode == "threads":
            configured = configuration.get_integer(opts.TASK_SLOTS.key, 0)
            cluster = MiniCluster(configuration, 1, max(slots, configured))
        else:
            per_tm = max(1, configuration.get(opts.TASK_SLOTS))
            count = configuration.get(opts.MINICLUSTER_TASK_MANAGERS)
            if count <= 0:
                count = -(-slots // per_tm)
            cluster = MiniCluster(configuration, count, per_tm, processes=True)
        try:
            cluster.start()
            master = cluster.submit(job_graph)
        except BaseException:
            cluster.close()
            raise
        return JobClient(cluster, master)

    def execute(self, job_graph: JobGraph, configuration: Configuration) -> JobExecutionResult:
        """Run the job to completion."""
        client = self.execute_async(job_graph, configuration)
        try:
            return client.get_job_execution_result()
        except KeyboardInterrupt:
            client.close()
            raise
        finally:
            client.close()
