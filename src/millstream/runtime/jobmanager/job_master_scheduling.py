"""The scheduling part of a JobMaster (Flink's SchedulerBase / DefaultScheduler): the job's
state, its ExecutionGraph, slots, deployment of pipelined regions and the task state
updates that drive the job to its end.

Scheduling: build the ExecutionGraph, get one slot per shared slot from the
ResourceManager, and deploy the pipelined regions (see scheduler.py) to the
TaskExecutors of their shared slots with TaskDeploymentDescriptors: regions without
blocking inputs at once, the others when the TaskManagers report every partition they
read consumable (``notify_partition_consumable``; receiver-initiated exchange: the
consumers then request their subpartitions). State updates from the tasks drive the
job: all FINISHED -> FINISHED; a FAILED task goes to the failover
(``job_master_failover.py``). At the end, the TaskManagers release the job's blocking
partitions.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from millstream.common import config_options as opts
from millstream.common.job_execution_result import JobStatus
from millstream.common.user_code import dumps_user_code
from millstream.graph.job_graph import IntermediateDataSetID, JobGraph, ResultPartitionType
from millstream.runtime.checkpoint.coordinator import CheckpointCoordinator
from millstream.runtime.checkpoint.restore import state_to_restore
from millstream.runtime.checkpoint.storage import CompletedCheckpoint, load_completed_checkpoint
from millstream.runtime.deployment import TaskDeploymentDescriptor
from millstream.runtime.execution_state import ExecutionState, IllegalStateTransitionError, TaskExecutionState
from millstream.runtime.executiongraph.execution_graph import (
    Execution,
    ExecutionGraph,
    build_execution_graph,
)
from millstream.runtime.executiongraph.intermediate_result import IntermediateResultPartition
from millstream.runtime.ids import ResourceID, ResultPartitionID
from millstream.runtime.jobmanager.checkpoint_wiring import (
    create_checkpoint_coordinator,
    trigger_tasks_left_without_barrier,
)
from millstream.runtime.jobmanager.deployment_descriptors import deployment_descriptor, partition_id
from millstream.runtime.jobmanager.exception_history import (
    ExceptionHistoryEntry,
    history_entry,
)
from millstream.runtime.jobmanager.restart_backoff import create_restart_backoff
from millstream.runtime.jobmanager.scheduler import (
    SchedulingPipelinedRegion,
    SharedSlot,
    pipelined_regions,
    required_slots,
    slot_sharing_assignment,
)
from millstream.runtime.jobmanager.source_coordinator import SourceCoordinator, create_source_coordinators
from millstream.runtime.rpc.endpoint import RpcEndpoint
from millstream.runtime.rpc.gateways import ResourceManagerGateway, SlotOffer

__all__ = ["JobResult", "SchedulingJobMaster", "TaskManagerLostError"]

log = logging.getLogger("millstream.runtime.jobmanager.job_master")  # one logger for the whole JobMaster

EXCEPTION_HISTORY_SIZE = 16  # Flink's web.exception-history-size default
# A job still waiting for its slots after this part of its slot.request.timeout tells its
# client, once. Flink says nothing until the timeout; a cluster's TaskManagers register
# within seconds even on a loaded machine, so a wait this long is not a start-up any more.
SLOT_WAIT_NOTICE_FRACTION = 0.1


def _seconds(value: float) -> str:
    """``300 s``, ``0.5 s``: a duration as a user reads it."""
    return f"{value:.0f} s" if value >= 10 else f"{value:.2g} s"


class TaskManagerLostError(Exception):
    """A TaskManager (process) running tasks of the job disconnected or stopped answering."""


@dataclass
class JobResult:
    """Final status of a job."""

    job_id: str
    job_name: str
    status: JobStatus
    net_runtime_ms: int
    failure: BaseException | None = None
    accumulators: dict[str, Any] = field(default_factory=dict)
    exception_history: list[ExceptionHistoryEntry] = field(default_factory=list)  # oldest first


class SchedulingJobMaster(RpcEndpoint):
    """A JobMaster's scheduling: runs one job's tasks (``JobMaster`` adds its RPC gateway)."""

    def __init__(
        self,
        job_graph: JobGraph,
        resource_manager: ResourceManagerGateway,
        user_artifacts: tuple[str, ...] = (),
        slot_request_timeout_s: float = opts.SLOT_REQUEST_TIMEOUT.default / 1000,
    ) -> None:
        """``slot_request_timeout_s``: the cluster's ``slot.request.timeout`` (a job's own, set
        by its client, wins)."""
        super().__init__(f"jobmaster-{job_graph.job_id[:8]}")
        self.job_graph = job_graph
        own_timeout_ms = job_graph.job_config.slot_request_timeout_ms
        self._slot_request_timeout_s = (
            slot_request_timeout_s if own_timeout_ms is None else own_timeout_ms / 1000
        )
        self.user_artifacts = user_artifacts
        self._rm = resource_manager
        self.result: Future[JobResult] = Future()
        self.status = JobStatus.CREATED  # owner: main thread
        # main thread: when the job entered each status (epoch ms), as Flink's "timestamps"
        self.status_timestamps: dict[JobStatus, int] = {JobStatus.CREATED: int(time.time() * 1000)}
        self.execution_graph: ExecutionGraph | None = None  # owner: main thread
        self._executions: dict[str, Execution] = {}  # attempt id -> execution, main thread
        self._slots: dict[SharedSlot, SlotOffer] = {}  # main thread
        self._serialized: dict[str, bytes] = {}  # job vertex id -> pickled vertex, main thread
        self._failure: BaseException | None = None  # main thread
        self._regions: list[SchedulingPipelinedRegion] = []  # main thread
        self._partitions: dict[ResultPartitionID, IntermediateResultPartition] = {}  # main thread
        self._started_at = 0.0
        self.checkpoint_coordinator: CheckpointCoordinator | None = None  # main thread
        self.source_coordinators: dict[int, SourceCoordinator] = {}  # node id -> it, main thread
        self._restart_backoff = create_restart_backoff(job_graph.job_config.restart_strategy)
        self._restart_pending = False  # main thread: a restart is scheduled
        self._restored: dict[Any, Any] = {}  # (job vertex id, subtask) -> operator snapshots
        self._initial_checkpoint: CompletedCheckpoint | None = None  # started from it
        self.num_restarts = 0
        self._stopping = False  # stopped with a savepoint: the job ends FINISHED
        self._needed: list[SharedSlot] = []  # the job's shared slots (asked for again on restarts)
        self._pending_regions: list[SchedulingPipelinedRegion] = []  # main thread: to restart
        self._region_cancelled: set[str] = set()  # attempts cancelled for a region restart
        self._region_restart_scheduled = False
        self._failovers = 0  # main thread: restarts decided (the n-th is restart n)
        self._backoff_ms = 0  # main thread: the wait before the restart decided last
        # main thread: failures that restarted or failed the job, newest last (Flink's
        # web.exception-history-size: 16)
        self.exception_history: deque[ExceptionHistoryEntry] = deque(maxlen=EXCEPTION_HISTORY_SIZE)
        self._failover_listeners: list[Callable[[ExceptionHistoryEntry], None]] = []  # main thread
        self._notice_listeners: list[Callable[[str], None]] = []  # main thread
        self._plan: dict[str, Any] | None = None  # the JobGraph's plan, for the REST API

    def start_scheduling(self) -> None:
        """Build the ExecutionGraph and deploy all tasks (any thread)."""
        self.run_async(self._start_scheduling)

    def _start_scheduling(self) -> None:
        try:
            self._started_at = time.monotonic()
            log.info(
                "Using restart back off time strategy %s for %s.", self._restart_backoff, self._job_label
            )
            self._load_initial_state()
            self.execution_graph = build_execution_graph(self.job_graph)
            self._set_status(JobStatus.RUNNING)
            needed = self._needed = required_slots(self.job_graph)
            requested = self._request_slots(len(needed))
            # Slots may come later (TaskManagers still registering): wait without blocking
            # this thread, so the job can be cancelled meanwhile.
            requested.add_done_callback(lambda f: self.run_async(self._slots_allocated, needed, f))
        except BaseException as err:
            self.fail_job(err)

    def _request_slots(self, count: int) -> Future[list[SlotOffer]]:
        """Ask for ``count`` slots within the job's slot request timeout; if they are not
        there after ``SLOT_WAIT_NOTICE_FRACTION`` of it, tell the notice listeners once."""
        timeout_s = self._slot_request_timeout_s
        requested = self._rm.request_slots(self.job_graph.job_id, count, timeout_s)
        self.schedule_run_async(
            SLOT_WAIT_NOTICE_FRACTION * timeout_s, self._notice_slot_wait, requested, count, time.monotonic()
        )
        return requested

    def _notice_slot_wait(self, requested: Future[list[SlotOffer]], count: int, since: float) -> None:
        if requested.done() or self.result.done():
            return
        self._rm.slot_report().add_done_callback(
            lambda report: self.run_async(self._tell_slot_wait, requested, count, since, report.result())
        )

    def _tell_slot_wait(
        self, requested: Future[list[SlotOffer]], count: int, since: float, report: tuple[int, int, int]
    ) -> None:
        if requested.done() or self.result.done():
            return
        task_managers, slots, free = report
        text = (
            f"Job '{self.job_graph.job_name}' is still waiting for {count} task slots after "
            f"{_seconds(time.monotonic() - since)}: {task_managers} TaskManager(s) registered {slots} "
            f"slots, {free} free; it fails if they are not there within "
            f"{_seconds(self._slot_request_timeout_s)} ({opts.SLOT_REQUEST_TIMEOUT.key})"
        )
        log.info("job %s: %s", self._job_label, text)  # the client says it to its user
        for listener in self._notice_listeners:
            listener(text)

    def add_notice_listener(self, listener: Callable[[str], None]) -> None:
        """``listener(text)`` on the main thread for what the job's client should tell its user
        (the job waits for slots) (any thread)."""
        self.run_async(self._notice_listeners.append, listener)

    def _load_initial_state(self) -> None:
        """A job started from a retained checkpoint (``execution.state-recovery.path``)."""
        path = self.job_graph.job_config.restore_path
        if path:
            checkpoint = load_completed_checkpoint(path)
            self._restored = state_to_restore(
                self.job_graph, checkpoint, path, self.job_graph.job_config.ignore_unclaimed_state
            )
            self._initial_checkpoint = checkpoint
            log.info("job %s: starting from checkpoint %s", self.job_graph.job_name, path)

    def _slots_allocated(self, needed: list[SharedSlot], requested: Future[list[SlotOffer]]) -> None:
        if self.result.done() or self.status is not JobStatus.RUNNING:
            self._rm.release_slots(self.job_graph.job_id)  # cancelled while it waited
            return
        try:
            self._slots = dict(zip(needed, requested.result()))
            self._schedule()
        except BaseException as err:
            self.fail_job(err)

    def _schedule(self) -> None:
        """Create every subtask's execution in its shared slot; deploy the regions ready now."""
        assert self.execution_graph is not None
        self._serialized = {
            ejv.job_vertex.id: dumps_user_code(ejv.job_vertex)
            for ejv in self.execution_graph.job_vertices.values()
        }
        self._create_executions()
        coordinators = create_source_coordinators(
            self.job_graph, self._send_operator_event, self.schedule_run_async, self.handle_global_failure
        )
        self.source_coordinators = {
            node_id: c for node_id, c in coordinators.items() if c.start(self._initial_checkpoint)
        }
        self.checkpoint_coordinator = create_checkpoint_coordinator(self)
        if self.checkpoint_coordinator is not None:
            if self._initial_checkpoint is not None:
                self.checkpoint_coordinator.restored_from(self._initial_checkpoint)
            self.checkpoint_coordinator.start_scheduler()
        self._schedule_ready_regions()

    def _create_executions(self) -> None:
        """A new attempt of every subtask, each in its shared slot (first run and restarts)."""
        assert self.execution_graph is not None
        assignment = slot_sharing_assignment(self.job_graph)
        self._executions = {}
        self._partitions = {}
        for ev in self.execution_graph.all_execution_vertices():
            execution = ev.new_execution()
            offer = self._slots[assignment[(ev.job_vertex.job_vertex.id, ev.subtask_index)]]
            execution.assigned_resource = offer.resource_id
            self._executions[execution.attempt_id] = execution
            for partition in ev.produced:
                self._partitions[partition_id(ev, partition.partition_id)] = partition
        self._regions = pipelined_regions(self.execution_graph, self._is_blocking)

    @property
    def _job_label(self) -> str:
        return f"'{self.job_graph.job_name}' ({self.job_graph.job_id})"

    def _set_status(self, status: JobStatus) -> None:
        """Change the job's status, logged as Flink's JobMaster logs it (main thread)."""
        if status is not self.status:
            log.info("Job %s switched from state %s to %s.", self._job_label, self.status.name, status.name)
            self.status = status
            self.status_timestamps[status] = int(time.time() * 1000)

    @property
    def executions(self) -> dict[str, Execution]:
        """The current executions by attempt id (main thread)."""
        return self._executions

    def _send_operator_event(self, vertex_id: Any, node_id: int, subtask: int, event: Any) -> bool:
        """Deliver a coordinator's event to the running attempt of ``subtask`` (main thread);
        False when it is not running (the coordinator takes back what it assigned when the
        subtask restarts)."""
        if self.execution_graph is None:
            return False
        execution = self.execution_graph.job_vertices[vertex_id].task_vertices[subtask].current_execution
        if execution is None or execution.state is not ExecutionState.RUNNING:
            return False
        offer = self.slot_of(execution)
        if offer is None:
            return False
        sent = offer.task_executor.send_operator_event_to_task(execution.attempt_id, node_id, event)
        if isinstance(sent, Future):
            sent.add_done_callback(lambda f: f.exception())  # a lost TaskManager fails the task
        return True

    def fail_job(self, error: BaseException | None) -> None:
        """Fail the job with ``error``, a failure of the whole job (main thread): it goes into
        the exception history, every task is cancelled."""
        if self._failure is None:
            self.exception_history.append(
                history_entry(error, int(time.time() * 1000), None, None, None, None)
            )
        self._fail(error)

    def handle_global_failure(self, error: BaseException) -> None:
        """A failure of no single task (a source's enumerator): fails the job here; the
        FailoverJobMaster restarts it under the restart strategy (main thread)."""
        self.fail_job(error)

    def _fail(self, error: BaseException | None) -> None:
        if self._failure is None:
            self._failure = error
            self._set_status(JobStatus.FAILING)
            self._cancel_all()
        self._maybe_complete()

    def _is_blocking(self, data_set_id: IntermediateDataSetID) -> bool:
        return self.job_graph.data_sets[data_set_id].result_type is ResultPartitionType.BLOCKING

    def _schedule_ready_regions(self) -> None:
        for region in self._regions:
            if not region.scheduled and all(p.consumable for p in region.consumed_blocking):
                region.scheduled = True
                self._deploy_region(region)

    def _deploy_region(self, region: SchedulingPipelinedRegion) -> None:
        for ev in region.vertices:
            assert ev.current_execution is not None
            ev.current_execution.transition(ExecutionState.SCHEDULED)
        for ev in region.vertices:
            execution = ev.current_execution
            assert execution is not None
            offer = self.slot_of(execution)
            assert offer is not None
            execution.transition(ExecutionState.DEPLOYING)
            tdd = deployment_descriptor(
                self.job_graph,
                self.user_artifacts,
                ev,
                execution,
                offer,
                self.slot_of,
                self._restored.get((ev.job_vertex.job_vertex.id, ev.subtask_index)),
            )
            self._submit(offer, tdd, self._serialized[ev.job_vertex.job_vertex.id])

    def notify_partition_consumable(self, partition_id: ResultPartitionID) -> None:
        """A TaskManager reports a produced partition readable (any thread)."""
        self.run_async(self._partition_consumable, partition_id)

    def _partition_consumable(self, partition_id: ResultPartitionID) -> None:
        partition = self._partitions.get(partition_id)
        if partition is None or partition.consumable:
            return
        partition.consumable = True
        if self.status is JobStatus.RUNNING and self._is_blocking(partition.result.id):
            self._schedule_ready_regions()

    def _submit(self, offer: SlotOffer, tdd: TaskDeploymentDescriptor, serialized_vertex: bytes) -> None:
        acknowledged = offer.task_executor.submit_task(tdd, serialized_vertex)
        if isinstance(acknowledged, Future):
            acknowledged.add_done_callback(self._rpc_failure_handler(tdd.execution_attempt_id, offer))

    def _rpc_failure_handler(self, attempt: str, offer: SlotOffer) -> Any:
        """A done-callback failing ``attempt`` when the RPC to its TaskManager failed."""

        def on_done(future: Future[Any]) -> None:
            error = future.exception()
            if error is None:
                return
            if isinstance(error, ConnectionError):
                lost = TaskManagerLostError(
                    f"TaskManager {offer.resource_id} is no longer reachable: {error}"
                )
                lost.__cause__ = error
                error = lost
            # a state update made up here: the task manager cannot send one
            self.update_task_execution_state(TaskExecutionState(attempt, ExecutionState.FAILED, error))

        return on_done

    def update_task_execution_state(self, update: TaskExecutionState) -> None:
        """A task changed state (any thread)."""
        self.run_async(self._update_task_execution_state, update)

    def _update_task_execution_state(self, update: TaskExecutionState) -> None:
        execution = self._executions.get(update.execution_attempt_id)
        if execution is None or execution.state.is_terminal or execution.state is update.state:
            return
        target = update.state
        if execution.state is ExecutionState.CANCELING:
            if target is ExecutionState.FINISHED:
                # it finished before the cancel call arrived: no CANCELED will follow (Flink's
                # Execution.markFinished completes the cancellation)
                target = ExecutionState.CANCELED
            elif target not in (ExecutionState.CANCELED, ExecutionState.FAILED):
                return  # a late report of an earlier state
        try:
            execution.transition(target)
        except IllegalStateTransitionError:
            log.warning(
                "ignoring %s of %s: %s -> %s is not a legal transition",
                target.value,
                execution.vertex.task_name_with_subtask,
                execution.state.value,
                target.value,
            )
            return
        if update.metrics is not None:
            execution.final_metrics = update.metrics
        if target is ExecutionState.FAILED:
            execution.failure = update.error
            self._task_failed(update.error, execution)
        elif target is ExecutionState.FINISHED and self.checkpoint_coordinator is not None:
            self.checkpoint_coordinator.task_finished(execution.attempt_id)
            trigger_tasks_left_without_barrier(self)
        self._maybe_complete()

    def task_manager_lost(self, resource_id: ResourceID, reason: str) -> None:
        """A TaskManager running tasks of this job is gone (any thread)."""
        self.run_async(self._task_manager_lost, resource_id, reason)

    def _task_manager_lost(self, resource_id: ResourceID, reason: str) -> None:
        lost = [
            e
            for e in self._executions.values()
            if e.assigned_resource == resource_id and not e.state.is_terminal
        ]
        for execution in lost:
            error = TaskManagerLostError(
                f"TaskManager {resource_id} running {execution.vertex.task_name_with_subtask} "
                f"is no longer reachable: {reason}"
            )
            execution.transition(ExecutionState.FAILED)
            execution.failure = error
        if lost:
            self._task_failed(lost[0].failure, lost[0], whole_job=True)  # a restart asks for slots again
        self._maybe_complete()

    def _cancel_all(self) -> None:
        self._pending_regions = []  # a region restart waiting gives way to the job's end or restart
        for execution in self._executions.values():
            self._cancel_execution(execution)

    def _cancel_execution(self, execution: Execution) -> None:
        if execution.state.is_terminal or execution.state is ExecutionState.CANCELING:
            return
        if execution.state in (ExecutionState.CREATED, ExecutionState.SCHEDULED):
            execution.transition(ExecutionState.CANCELED)
            return
        execution.transition(ExecutionState.CANCELING)
        offer = self.slot_of(execution)
        if offer is not None:
            cancelled = offer.task_executor.cancel_task(execution.attempt_id)
            if isinstance(cancelled, Future):
                cancelled.add_done_callback(self._rpc_failure_handler(execution.attempt_id, offer))

    def slot_of(self, execution: Execution) -> SlotOffer | None:
        """The slot an execution runs in (main thread)."""
        for offer in self._slots.values():
            if offer.resource_id == execution.assigned_resource:
                return offer
        return None

    def _maybe_complete(self) -> None:
        if self.result.done():
            return
        if self.status is JobStatus.RESTARTING:
            self._maybe_restart()
            return
        if self._pending_regions:
            self._maybe_restart_regions()
            return
        if any(not e.state.is_terminal for e in self._executions.values()):
            return
        if not self._executions and self._failure is None and self.status is JobStatus.RUNNING:
            return  # still waiting for its slots: nothing ran, so nothing has finished
        if self._failure is not None:
            status = JobStatus.FAILED
        elif self.status is JobStatus.CANCELLING:
            status = JobStatus.FINISHED if self._stopping else JobStatus.CANCELED
        else:
            status = JobStatus.FINISHED
        self._set_status(status)
        if self.checkpoint_coordinator is not None:
            self.checkpoint_coordinator.shutdown(status.name)
        for source in self.source_coordinators.values():
            source.close()
        self._release_partitions()
        self._rm.release_slots(self.job_graph.job_id)
        runtime_ms = int((time.monotonic() - self._started_at) * 1000)
        self.result.set_result(
            JobResult(
                self.job_graph.job_id,
                self.job_graph.job_name,
                status,
                runtime_ms,
                self._failure,
                # checkpoint metrics where they mean something (user accumulators otherwise)
                self._checkpoint_statistics() if self.checkpoint_coordinator or self.num_restarts else {},
                list(self.exception_history),
            )
        )

    def _release_partitions(self) -> None:
        """Tell the TaskManagers to drop the job's blocking partitions (spill files)."""
        if not any(self._is_blocking(ds) for ds in self.job_graph.data_sets):
            return
        for offer in {o.resource_id: o for o in self._slots.values()}.values():
            try:
                released = offer.task_executor.release_partitions(self.job_graph.job_id)
            except Exception as err:  # the TaskManager is gone: its files went with it
                log.debug("could not release partitions on %s: %s", offer.resource_id, err)
                continue
            if isinstance(released, Future):
                released.add_done_callback(lambda f: f.exception())  # a lost TM took its files along

    def _checkpoint_statistics(self) -> dict[str, Any]:
        stats = self.checkpoint_coordinator.statistics() if self.checkpoint_coordinator is not None else {}
        return {**stats, "numRestarts": self.num_restarts}

    # -- failover: FailoverJobMaster (job_master_failover.py) ----------------------------------

    def _task_failed(self, error: BaseException | None, failed: Execution, whole_job: bool = False) -> None:
        raise NotImplementedError

    def _maybe_restart(self) -> None:
        raise NotImplementedError

    def _maybe_restart_regions(self) -> None:
        raise NotImplementedError
