"""JobMaster: runs one job (Flink's JobMaster). This class is its RPC gateway: checkpoint
acknowledgements and declines from the tasks, operator events for the source coordinators,
savepoints, cancellation, and what the REST API and the client read (metrics, plan, details,
exception history). Scheduling is ``job_master_scheduling.py``, failover
``job_master_failover.py``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from millstream.common.job_execution_result import JobStatus
from millstream.graph.plan_printer import job_graph_plan
from millstream.runtime.checkpoint.coordinator import CheckpointFailureReason
from millstream.runtime.execution_state import ExecutionState
from millstream.runtime.jobmanager.exception_history import (
    ExceptionHistoryEntry,
)
from millstream.runtime.jobmanager.job_details import JobDetails, job_details
from millstream.runtime.jobmanager.job_master_failover import FailoverJobMaster
from millstream.runtime.jobmanager.job_master_scheduling import JobResult, TaskManagerLostError
from millstream.runtime.jobmanager.savepoints import trigger_savepoint

__all__ = ["JobMaster", "JobResult", "TaskManagerLostError", "TaskMetricsReport"]

log = logging.getLogger(__name__)

T = TypeVar("T")

# A TaskManager that has not sent its tasks' metrics by then (it hangs, or is overloaded) is
# left out of the answer, and named in it (the progress view waits 5 s for the answer; the
# REST API gives its own time).
TASK_METRICS_TIMEOUT_S = 4.0


@dataclass(frozen=True, slots=True)
class TaskMetricsReport:
    """The metrics of a job's running tasks by execution attempt, and the TaskManagers whose
    tasks are missing from them (they did not answer in time, or could not be reached)."""

    metrics: dict[str, Any]
    unanswered: tuple[str, ...]


def _complete(future: Future[T], value: T) -> None:
    """Set ``future``'s result unless its caller cancelled it (stopped waiting)."""
    if future.set_running_or_notify_cancel():
        future.set_result(value)


def _fail(future: Future[Any], error: BaseException) -> None:
    """Fail ``future`` unless its caller cancelled it (stopped waiting)."""
    if future.set_running_or_notify_cancel():
        future.set_exception(error)


_DECLINE_KINDS = {
    "task-not-ready": CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_NOT_READY,
    "task-closing": CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_CLOSING,
}


class JobMaster(FailoverJobMaster):
    """Runs one job."""

    def add_failover_listener(self, listener: Callable[[ExceptionHistoryEntry], None]) -> None:
        """``listener(entry)`` on the main thread whenever the job restarts (any thread)."""
        self.run_async(self._failover_listeners.append, listener)

    def exceptions(self) -> Future[tuple[int, list[ExceptionHistoryEntry]]]:
        """(restarts so far, the exception history, oldest first) (any thread)."""
        return self.call_async(lambda: (self.num_restarts, list(self.exception_history)))

    def acknowledge_checkpoint(self, attempt_id: str, checkpoint_id: int, snapshots: Any) -> None:
        """A task snapshotted for a checkpoint (any thread)."""
        self.run_async(self._acknowledge_checkpoint, attempt_id, checkpoint_id, snapshots)

    def _acknowledge_checkpoint(self, attempt_id: str, checkpoint_id: int, snapshots: Any) -> None:
        execution = self._executions.get(attempt_id)
        if self.checkpoint_coordinator is None or execution is None:
            return  # no checkpoints, or an attempt from before a restart
        task = (execution.vertex.job_vertex.job_vertex.id, execution.vertex.subtask_index)
        self.checkpoint_coordinator.receive_acknowledge(attempt_id, checkpoint_id, (task, snapshots))

    def decline_checkpoint(self, attempt_id: str, checkpoint_id: int, reason: str, kind: str = "") -> None:
        """A task cannot take part in a checkpoint (any thread); ``kind``: "task-not-ready" or
        "task-closing" when that is why (such declines do not count as failed checkpoints)."""
        self.run_async(self._decline_checkpoint, attempt_id, checkpoint_id, reason, kind)

    def _decline_checkpoint(self, attempt_id: str, checkpoint_id: int, reason: str, kind: str) -> None:
        if self.checkpoint_coordinator is not None:
            failure = _DECLINE_KINDS.get(kind, CheckpointFailureReason.CHECKPOINT_DECLINED)
            self.checkpoint_coordinator.receive_decline(attempt_id, checkpoint_id, reason, failure)

    def checkpoint_statistics(self) -> Future[dict[str, Any]]:
        """Checkpoint and restart metrics of the job (any thread), with Flink's names."""
        return self.call_async(self._checkpoint_statistics)

    def send_operator_event_to_coordinator(self, attempt_id: str, node_id: int, event: Any) -> None:
        """An operator of a task sends an event to its coordinator (any thread)."""
        self.run_async(self._operator_event, attempt_id, node_id, event)

    def _operator_event(self, attempt_id: str, node_id: int, event: Any) -> None:
        execution = self._executions.get(attempt_id)
        coordinator = self.source_coordinators.get(node_id)
        if execution is None or coordinator is None or execution.state.is_terminal:
            return  # an attempt from before a restart, or one that ended
        if execution.vertex.current_execution is not execution:
            return
        coordinator.handle_event(execution.vertex.subtask_index, event)

    def trigger_savepoint(
        self, directory: str | None = None, stop: bool = False, drain: bool = False
    ) -> Future[str]:
        """Take a savepoint (``savepoints.py``); ``stop``: then stop the job; ``drain``: the
        sources end their input first (any thread)."""
        result: Future[str] = Future()
        self.run_async(trigger_savepoint, self, directory, stop, result, drain)
        return result

    def stop_after_savepoint(self) -> None:
        """The stop-with-savepoint's savepoint completed: stop the tasks (main thread)."""
        self._stopping = True
        self._cancel()

    def cancel(self) -> None:
        """Cancel the job (any thread)."""
        self.run_async(self._cancel)

    def _cancel(self) -> None:
        if self.status in (JobStatus.RUNNING, JobStatus.CREATED, JobStatus.RESTARTING):
            self._set_status(JobStatus.CANCELLING)
            coordinator = self.checkpoint_coordinator
            if coordinator is not None:
                # as Flink's: no new checkpoints, and those pending end without counting as
                # failures (a task's snapshot failing because it is being cancelled must not
                # turn the cancellation into a failure)
                coordinator.stop_scheduler()
                coordinator.abort_pending(CheckpointFailureReason.CHECKPOINT_COORDINATOR_SUSPEND)
            self._cancel_all()
            self._maybe_complete()

    def request_task_metrics(self) -> Future[dict[str, Any]]:
        """Metrics of every running task of the job, by subtask name (any thread).

        Each TaskManager samples its tasks (records and bytes in/out, pool usage,
        back-pressured time per second, credit and backlog per input channel).
        """
        result: Future[dict[str, Any]] = Future()

        def by_name(report: Future[TaskMetricsReport]) -> None:
            error = report.exception()
            if error is not None:
                _fail(result, error)
                return
            merged = {sample["task"]: sample for sample in report.result().metrics.values()}
            _complete(result, dict(sorted(merged.items())))

        self.request_task_metrics_report().add_done_callback(by_name)
        return result

    def request_attempt_metrics(self) -> Future[dict[str, Any]]:
        """Metrics of every running task of the job, by execution attempt id (any thread); a
        TaskManager that does not answer within ``TASK_METRICS_TIMEOUT_S`` leaves its tasks out."""
        result: Future[dict[str, Any]] = Future()

        def metrics(report: Future[TaskMetricsReport]) -> None:
            error = report.exception()
            if error is not None:
                _fail(result, error)
            else:
                _complete(result, report.result().metrics)

        self.request_task_metrics_report().add_done_callback(metrics)
        return result

    def request_task_metrics_report(
        self, timeout_s: float = TASK_METRICS_TIMEOUT_S
    ) -> Future[TaskMetricsReport]:
        """The metrics of the job's running tasks by execution attempt, once every TaskManager
        running them answered or ``timeout_s`` passed; the report names the TaskManagers that
        did not answer (any thread). A caller may cancel the future when it stops waiting."""
        result: Future[TaskMetricsReport] = Future()
        self.run_async(self._gather_task_metrics, result, timeout_s)
        return result

    def _gather_task_metrics(self, result: Future[TaskMetricsReport], timeout_s: float) -> None:
        executors = {str(offer.resource_id): offer.task_executor for offer in self._slots.values()}
        pending = set(executors)  # not answered yet
        missing = set(executors)  # no metrics from them (yet)
        merged: dict[str, Any] = {}
        finished = [False]

        def finish() -> None:  # main thread: all answered, or the time is up
            if not finished[0]:
                finished[0] = True
                if missing:
                    log.debug("job %s: no task metrics from %s", self._job_label, ", ".join(sorted(missing)))
                _complete(result, TaskMetricsReport(merged, tuple(sorted(missing))))

        def answered(resource_id: str, future: Future[dict[str, Any]]) -> None:  # main thread
            if finished[0]:
                return  # too late: the report went out without it
            pending.discard(resource_id)
            if not future.cancelled() and future.exception() is None:  # else: unreachable
                merged.update(future.result())
                missing.discard(resource_id)
            if not pending:
                finish()

        def on_done(resource_id: str, future: Future[dict[str, Any]]) -> None:  # any thread
            self.run_async(answered, resource_id, future)

        if not executors:
            finish()
            return
        for resource_id, gateway in executors.items():
            gateway.task_metrics(self.job_graph.job_id).add_done_callback(partial(on_done, resource_id))
        self.schedule_run_async(timeout_s, finish)

    def plan(self) -> dict[str, Any]:
        """The JobGraph as a plan (vertices, operators, inputs), built once (any thread)."""
        if self._plan is None:
            self._plan = job_graph_plan(self.job_graph)
        return self._plan

    def uptime_ms(self) -> int:
        """Milliseconds since the job started running (any thread; Flink's ``uptime``)."""
        return int((time.monotonic() - self._started_at) * 1000) if self._started_at else 0

    def details(self) -> Future[JobDetails]:
        """The job's status, graph, subtasks, checkpoints and failures now (any thread): what
        the REST API serves."""
        return self.call_async(lambda: job_details(self))

    def execution_states(self) -> dict[str, ExecutionState]:
        """State of every subtask by name (any thread)."""

        def collect() -> dict[str, ExecutionState]:
            return {e.vertex.task_name_with_subtask: e.state for e in self._executions.values()}

        return self.call_async(collect).result()
