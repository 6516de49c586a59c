"""The JobMaster's side of checkpoints: one CheckpointCoordinator per STREAMING job with
checkpointing on, wired to the job's executions.

The coordinator asks for a checkpoint only while every task of the job that has not
finished runs; it triggers the source tasks (they inject the barrier) and tasks whose
producers all finished (no barrier can reach them), every running task acknowledges with
its operators' snapshots (finished ones are represented by their final state), and
completion and aborts are told to every running task. Storage is
``execution.checkpointing.dir`` (``<dir>/<job id>/chk-<n>``) or, unset, the JobManager's
memory. All on the JobMaster's main thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from millstream.graph.job_graph import JobVertexID
from millstream.runtime.checkpoint.coordinator import CheckpointCoordinator
from millstream.runtime.checkpoint.restore import operator_state_id
from millstream.runtime.checkpoint.storage import (
    CheckpointStorage,
    FileSystemCheckpointStorage,
    InMemoryCheckpointStorage,
)
from millstream.runtime.execution_state import ExecutionState

if TYPE_CHECKING:
    from millstream.runtime.jobmanager.job_master_scheduling import SchedulingJobMaster

__all__ = ["create_checkpoint_coordinator", "trigger_tasks_left_without_barrier"]


def create_checkpoint_coordinator(master: SchedulingJobMaster) -> CheckpointCoordinator | None:
    """The coordinator of ``master``'s job, or None for a BATCH job (it recovers by running
    again). A STREAMING job without periodic checkpoints has one too, which only takes the
    savepoints asked for, as Flink's (its scheduler never starts)."""
    job_config = master.job_graph.job_config
    settings = job_config.checkpointing
    if job_config.batch:
        return None
    storage: CheckpointStorage = (
        FileSystemCheckpointStorage(job_config.checkpointing_dir)
        if job_config.checkpointing_dir
        else InMemoryCheckpointStorage()
    )
    coordinator = CheckpointCoordinator(
        master.job_graph.job_id,
        settings,
        storage,
        tasks=lambda: _running_tasks(master),
        trigger=lambda checkpoint_id, timestamp, savepoint, drain: _trigger_sources(
            master, checkpoint_id, timestamp, savepoint=savepoint, drain=drain
        ),
        notify_complete=lambda checkpoint_id: _checkpoint_complete(master, checkpoint_id),
        notify_aborted=lambda checkpoint_id: _tell_running(
            master, "notify_checkpoint_aborted", checkpoint_id
        ),
        on_failure=master.fail_job,
        now=lambda: int(time.time() * 1000),
        schedule=lambda delay_ms, callback: master.schedule_run_async(delay_ms / 1000.0, callback),
    )
    coordinator.snapshot_coordinators = lambda checkpoint_id: {
        source.state_id: source.snapshot(checkpoint_id) for source in master.source_coordinators.values()
    }
    operators = [op for vertex in master.job_graph.vertices for op in vertex.operators]
    coordinator.operator_ids = {op.node_id: operator_state_id(op) for op in operators}
    coordinator.max_parallelisms = {op.node_id: op.max_parallelism for op in operators}
    return coordinator


def _checkpoint_complete(master: SchedulingJobMaster, checkpoint_id: int) -> None:
    """Tell the tasks; the source coordinators forget the assignments that the checkpoint a
    restart would restore now holds (a savepoint is never restored by a restart)."""
    assert master.checkpoint_coordinator is not None
    latest = master.checkpoint_coordinator.latest_completed()
    if latest is not None:
        for source in master.source_coordinators.values():
            source.checkpoint_complete(latest.checkpoint_id)
    _tell_running(master, "notify_checkpoint_complete", checkpoint_id)


def _running_tasks(master: SchedulingJobMaster) -> list[str] | None:
    """The attempt ids of the tasks that did not finish, while all of them run; None otherwise
    (no checkpoint then)."""
    unfinished = [e for e in master.executions.values() if e.state is not ExecutionState.FINISHED]
    if not unfinished or any(e.state is not ExecutionState.RUNNING for e in unfinished):
        return None
    return [e.attempt_id for e in unfinished]


def trigger_tasks_left_without_barrier(master: SchedulingJobMaster) -> None:
    """A task finished: its consumers may now wait for barriers of pending checkpoints that
    will never come (it ended its partitions instead of forwarding them); trigger those that
    have not acknowledged (a task ignores a checkpoint it took already)."""
    coordinator = master.checkpoint_coordinator
    if coordinator is None:
        return
    for pending in list(coordinator.pending.values()):
        _trigger_sources(
            master,
            pending.checkpoint_id,
            pending.timestamp,
            pending.not_yet_acknowledged,
            savepoint=pending.savepoint_dir,
            drain=pending.drain,
        )


def _trigger_sources(
    master: SchedulingJobMaster,
    checkpoint_id: int,
    timestamp: int,
    only: set[str] | None = None,
    savepoint: str | None = None,
    drain: bool = False,
) -> None:
    """Trigger the tasks no barrier reaches: running sources, and running tasks whose
    producers all finished (Flink's DefaultCheckpointPlanCalculator); ``only``: among these;
    ``savepoint``: the savepoint's directory (the tasks write their state files there);
    ``drain``: sources end their input before they take it."""
    finished_vertices = _finished_job_vertices(master)
    data_sets = master.job_graph.data_sets
    for execution in master.executions.values():
        if execution.state is not ExecutionState.RUNNING:
            continue
        if only is not None and execution.attempt_id not in only:
            continue
        inputs = execution.vertex.job_vertex.job_vertex.inputs
        if any(data_sets[edge.source_id].producer_id not in finished_vertices for edge in inputs):
            continue  # the barrier reaches it through its inputs
        offer = master.slot_of(execution)
        if offer is not None:
            _ignore_failure(
                offer.task_executor.trigger_checkpoint(
                    execution.attempt_id, checkpoint_id, timestamp, savepoint, drain
                )
            )


def _finished_job_vertices(master: SchedulingJobMaster) -> set[JobVertexID]:
    """The job vertices all of whose subtasks finished."""
    unfinished = {
        e.vertex.job_vertex.job_vertex.id
        for e in master.executions.values()
        if e.state is not ExecutionState.FINISHED
    }
    return {e.vertex.job_vertex.job_vertex.id for e in master.executions.values()} - unfinished


def _tell_running(master: SchedulingJobMaster, method: str, checkpoint_id: int) -> None:
    for execution in master.executions.values():
        if execution.state is not ExecutionState.RUNNING:
            continue
        offer = master.slot_of(execution)
        if offer is not None:
            call: Callable[..., Any] = getattr(offer.task_executor, method)
            _ignore_failure(call(execution.attempt_id, checkpoint_id))


def _ignore_failure(result: Any) -> None:
    """A lost TaskManager fails its tasks through the heartbeat; the call's own error is moot."""
    if isinstance(result, Future):
        result.add_done_callback(lambda f: f.exception())
