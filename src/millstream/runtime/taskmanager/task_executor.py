"""TaskExecutor: a TaskManager's slots and tasks; receives deployments and cancellations."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from millstream.common import config_options as opts
from millstream.common.configuration import Configuration
from millstream.runtime.checkpoint.storage import (
    FileStateHandle,
    SerializedState,
    complete_task_state,
    dumps_task_state,
    write_state_file,
)
from millstream.runtime.deployment import TaskDeploymentDescriptor
from millstream.runtime.execution_state import TaskExecutionState
from millstream.runtime.ids import ResourceID, ResultPartitionID
from millstream.runtime.operators.sinks import CollectChannels
from millstream.runtime.rpc.endpoint import RpcEndpoint
from millstream.runtime.rpc.gateways import JobMasterGateway
from millstream.runtime.state.backends import add_task_manager_slots
from millstream.runtime.state.incremental import PendingUpload, delete_files, incremental_handles
from millstream.runtime.state.rocksdb_snapshots import SnapshotAbortedError
from millstream.runtime.state.snapshot import DeferredSnapshot, OperatorSnapshot
from millstream.runtime.taskmanager import cpu_affinity
from millstream.runtime.taskmanager.network_environment import NetworkEnvironment
from millstream.runtime.taskmanager.task import Task

__all__ = ["TaskExecutor"]

log = logging.getLogger(__name__)


class TaskExecutor(RpcEndpoint):
    """Runs tasks in slots; reports their state changes to their JobMaster."""

    def __init__(
        self,
        resource_id: ResourceID,
        configuration: Configuration,
        num_slots: int,
        collect_channels: CollectChannels | Callable[[str], CollectChannels],
        job_masters: Callable[[str], JobMasterGateway],
        network: NetworkEnvironment | None = None,
        prepare_user_code: Callable[[TaskDeploymentDescriptor], None] | None = None,
    ) -> None:
        """``job_masters(job_id)`` is the gateway of a job's JobMaster; ``collect_channels``
        either a CollectChannels or a ``job_id -> CollectChannels`` callable."""
        super().__init__(f"taskexecutor-{resource_id}")
        self.resource_id = resource_id
        self.num_slots = num_slots
        add_task_manager_slots(num_slots)
        self.network = network or NetworkEnvironment(configuration)
        self._job_masters = job_masters
        self._prepare_user_code = prepare_user_code
        # CPUs for every task thread of this TaskManager (see cpu_affinity), or None.
        self.cpus = cpu_affinity.resolve(cpu_affinity.parse_affinity(configuration.get(opts.CPU_AFFINITY)))
        self._collect_channels = collect_channels
        self._cancellation_interval_s = configuration.get(opts.TASK_CANCELLATION_INTERVAL) / 1000
        self._lock = threading.Lock()
        self._tasks: dict[str, Task] = {}  # under _lock
        self._finished_threads: list[threading.Thread] = []  # under _lock
        self._job_partitions: dict[str, list[ResultPartitionID]] = {}  # under _lock
        self._io_executor: ThreadPoolExecutor | None = None  # under _lock: writes state files

    def _checkpoint_io(self) -> ThreadPoolExecutor:
        """The thread that writes the tasks' state files (created on first use)."""
        with self._lock:
            if self._io_executor is None:
                self._io_executor = ThreadPoolExecutor(
                    1, thread_name_prefix=f"checkpoint-io-{self.resource_id}"
                )
            return self._io_executor

    def submit_task(self, tdd: TaskDeploymentDescriptor, serialized_vertex: bytes) -> Future[None]:
        """Deploy a task (any thread); its state changes go to the job's JobMaster."""
        return self.call_async(self._submit_task, tdd, serialized_vertex)

    def _submit_task(self, tdd: TaskDeploymentDescriptor, serialized_vertex: bytes) -> None:
        attempt_id = tdd.execution_attempt_id
        job_master = self._job_masters(tdd.job_id)

        def on_state(update: TaskExecutionState) -> None:
            job_master.update_task_execution_state(update)
            if update.state.is_terminal:
                self._task_terminated(attempt_id)

        collect = self._collect_channels
        channels = collect(tdd.job_id) if callable(collect) else collect
        task = Task(
            tdd,
            serialized_vertex,
            self.network,
            channels,
            on_state,
            self.cpus,
            self._prepare_user_code,
            job_master.notify_partition_consumable,
            _CheckpointResponder(
                job_master, attempt_id, tdd.job_id, tdd.job_config.checkpointing_dir, self._checkpoint_io
            ),
            lambda node_id, event: job_master.send_operator_event_to_coordinator(attempt_id, node_id, event),
        )
        with self._lock:
            self._tasks[attempt_id] = task
            self._job_partitions.setdefault(tdd.job_id, []).extend(
                p.partition_id for p in tdd.produced_partitions
            )
        task.start()

    def trigger_checkpoint(
        self,
        attempt_id: str,
        checkpoint_id: int,
        timestamp: int,
        savepoint: str | None = None,
        drain: bool = False,
    ) -> None:
        """The JobMaster starts checkpoint ``checkpoint_id`` (``savepoint``: a savepoint into that
        directory; ``drain``: after ending the input) at this source task (any thread)."""
        with self._lock:
            task = self._tasks.get(attempt_id)
        if task is not None:
            task.trigger_checkpoint(checkpoint_id, timestamp, savepoint, drain)

    def send_operator_event_to_task(self, attempt_id: str, node_id: int, event: Any) -> None:
        """An event of an operator coordinator for operator ``node_id`` of a task (any thread;
        in order with the checkpoint triggers the JobMaster sends after it)."""
        with self._lock:
            task = self._tasks.get(attempt_id)
        if task is not None:
            task.deliver_operator_event(node_id, event)

    def notify_checkpoint_complete(self, attempt_id: str, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` completed: the task's operators hear of it (any thread)."""
        with self._lock:
            task = self._tasks.get(attempt_id)
        if task is not None:
            task.notify_checkpoint_complete(checkpoint_id)

    def notify_checkpoint_aborted(self, attempt_id: str, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` was aborted (nothing to undo yet: sinks commit only on
        completion)."""

    def release_partitions(self, job_id: str) -> None:
        """Release what the job's tasks produced here (blocking results' spill files; any thread)."""
        with self._lock:
            partition_ids = self._job_partitions.pop(job_id, [])
        for partition_id in partition_ids:
            self.network.partition_manager.release(partition_id)

    def _task_terminated(self, attempt_id: str) -> None:
        with self._lock:
            task = self._tasks.pop(attempt_id, None)
            if task is not None:
                self._finished_threads.append(task.thread)

    def cancel_task(self, attempt_id: str) -> Future[None]:
        """Cancel a task (any thread); ordered after its submission on the main thread."""
        return self.call_async(self._cancel_task, attempt_id)

    def _cancel_task(self, attempt_id: str) -> None:
        with self._lock:
            task = self._tasks.get(attempt_id)
        if task is not None:
            task.cancel()
            self.schedule_run_async(self._cancellation_interval_s, self._interrupt_task, attempt_id)

    def _interrupt_task(self, attempt_id: str) -> None:
        """Flink's TaskInterrupter: interrupt a cancelled task until its thread ends."""
        with self._lock:
            task = self._tasks.get(attempt_id)
        if task is not None and task.thread.is_alive() and task.interrupt():
            self.schedule_run_async(self._cancellation_interval_s, self._interrupt_task, attempt_id)

    def disconnect_job_manager(self) -> int:
        """The JobManager is lost (Flink: the JobMaster connection closed): every task is
        cancelled, since no JobMaster hears of it any more, and what the jobs produced here is
        released. Returns how many tasks had not ended (any thread)."""
        with self._lock:
            attempts = list(self._tasks)
            job_ids = list(self._job_partitions)
        for attempt_id in attempts:
            self.cancel_task(attempt_id)
        for job_id in job_ids:
            self.release_partitions(job_id)
        return len(attempts)

    def task_metrics(self, job_id: str) -> Future[dict[str, Any]]:
        """Metrics of this TaskManager's tasks of ``job_id``, by execution attempt (any thread)."""

        def sample() -> dict[str, Any]:
            with self._lock:
                tasks = [t for t in self._tasks.values() if t.tdd.job_id == job_id]
            return {t.tdd.execution_attempt_id: t.metrics.sample() for t in tasks}

        return self.call_async(sample)

    def task_samples(self) -> list[tuple[Any, dict[str, Any]]]:
        """(deployment descriptor, metrics) of every task now (any thread: the counters are
        read without locks, a moment stale at worst)."""
        with self._lock:
            tasks = list(self._tasks.values())
        samples = []
        for task in tasks:
            try:
                samples.append((task.tdd, task.metrics.sample()))
            except Exception:  # a task starting or ending meanwhile: left out this time
                continue
        return samples

    def running_tasks(self) -> int:
        """Tasks not yet terminated."""
        with self._lock:
            return len(self._tasks)

    def shutdown(self, timeout: float = 30.0) -> None:
        """Cancel every task and wait for the task threads."""
        with self._lock:
            tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:  # a task stuck in user code gets interrupted
            if task.thread is not threading.current_thread():
                task.thread.join(self._cancellation_interval_s)
                task.interrupt()
        with self._lock:
            threads = [t.thread for t in tasks] + self._finished_threads
        for thread in threads:
            if thread.is_alive() and thread is not threading.current_thread():
                thread.join(timeout)
        with self._lock:
            io_executor, self._io_executor = self._io_executor, None
        if io_executor is not None:
            io_executor.shutdown(wait=True)  # state files in the middle of a write finish
        self.network.close()
        self.stop()


class _CheckpointResponder:
    """A task's checkpoint reports, to its job's JobMaster (fire and forget).

    With file checkpoint storage the task's snapshot is written to a state file of the
    checkpoint's directory and the acknowledgement carries its handle, as Flink's tasks do.
    Pickling is the synchronous part (on the task thread: a consistent copy of the state);
    writing the file and acknowledging are asynchronous (the TaskManager's checkpoint I/O
    thread), so the task goes on processing meanwhile.
    """

    __slots__ = ("_attempt_id", "_directory", "_io", "_job_id", "_job_master")

    def __init__(
        self,
        job_master: JobMasterGateway,
        attempt_id: str,
        job_id: str,
        directory: str | None,
        io: Callable[[], ThreadPoolExecutor],
    ) -> None:
        self._job_master = job_master
        self._attempt_id = attempt_id
        self._job_id = job_id
        self._directory = directory
        self._io = io

    def acknowledge(
        self, checkpoint_id: int, snapshots: dict[int, OperatorSnapshot], savepoint: str | None = None
    ) -> None:
        """``savepoint``: the savepoint's directory, where the state file goes."""
        # pickled here, on the task thread: the snapshot's values may be the live state's
        # objects, which the task changes as soon as it goes on
        state, deferred = dumps_task_state(snapshots)
        handles = incremental_handles(snapshots)
        uploads = [h.pending for h in handles if h.pending is not None]
        shared = frozenset(path for h in handles for path in h.shared.values())
        sizes = (sum(h.shared_size for h in handles), sum(h.uploaded_size for h in handles))
        if savepoint is not None:
            target = savepoint
        elif self._directory is not None:
            target = os.path.join(
                self._directory.removeprefix("file://"), self._job_id, f"chk-{checkpoint_id}"
            )
        else:
            for upload in uploads:  # no directory: no incremental snapshots (never happens)
                upload.discard()
            try:
                state = complete_task_state(state, deferred)  # kept in the JobManager: read now
            except Exception as err:
                self.decline(checkpoint_id, f"reading the task's state failed: {err!r}")
                return
            self._job_master.acknowledge_checkpoint(self._attempt_id, checkpoint_id, SerializedState(state))
            return
        try:
            self._io().submit(
                self._write_and_acknowledge, checkpoint_id, target, state, deferred, uploads, shared, sizes
            )
        except RuntimeError:  # the TaskManager is shutting down
            for upload in uploads:
                upload.discard()
            raise

    def _write_and_acknowledge(
        self,
        checkpoint_id: int,
        target: str,
        state: bytes,
        deferred: list[DeferredSnapshot],
        uploads: list[PendingUpload],
        shared: frozenset[str],
        sizes: tuple[int, int],
    ) -> None:
        """Read the deferred snapshots, upload the new files of incremental snapshots, write the
        state file, acknowledge (``sizes``: bytes of the shared files referenced and of those
        uploaded)."""
        uploaded: list[str] = []
        try:
            state = complete_task_state(state, deferred)
            for upload in uploads:
                uploaded.extend(upload.run())
            handle = write_state_file(target, f"task-{self._attempt_id}", state)
        except SnapshotAbortedError as err:  # the task ended meanwhile (its state is disposed)
            for upload in uploads:
                upload.discard()
            delete_files(uploaded)
            self.decline(checkpoint_id, f"the task closed while its state was written: {err}", "task-closing")
            return
        except Exception as err:  # storage full, permissions: the checkpoint fails, not the task
            log.warning(
                "checkpoint %d: writing the state of %s failed: %r",
                checkpoint_id,
                self._attempt_id,
                err,
                exc_info=True,
            )
            for upload in uploads:
                upload.discard()
            delete_files(uploaded)
            self.decline(checkpoint_id, f"writing the task's state failed: {err!r}")
            return
        if handle is None:  # the checkpoint was aborted meanwhile: nobody references the files
            delete_files(uploaded)
            return
        if shared:
            handle = FileStateHandle(handle.path, handle.size, shared, frozenset(uploaded), *sizes)
        self._job_master.acknowledge_checkpoint(self._attempt_id, checkpoint_id, handle)

    def decline(self, checkpoint_id: int, reason: str, kind: str = "") -> None:
        self._job_master.decline_checkpoint(self._attempt_id, checkpoint_id, reason, kind)
