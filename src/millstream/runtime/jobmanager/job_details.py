"""What the REST API shows of one job, read off its JobMaster in one go (its main thread).

A :class:`JobDetails` is plain data: the job's status and when it entered each, its JobGraph
plan, every subtask's current attempt (state, timestamps, TaskManager), the checkpoint
statistics and settings, and the exception history. The JobMaster builds one per request
(``JobMaster.details``) and the Dispatcher keeps the last one of every finished job, as
Flink's ``ExecutionGraphInfoStore`` keeps archived jobs for its web UI. The REST layer
(``millstream.web``) turns it into Flink's JSON. Coordinating code.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from millstream.runtime.checkpoint.stats import CheckpointRecord

if TYPE_CHECKING:
    from millstream.runtime.jobmanager.job_master import JobMaster

__all__ = ["JobDetails", "SubtaskDetails", "VertexDetails", "job_details"]


@dataclass(frozen=True)
class SubtaskDetails:
    """The current attempt of one subtask."""

    subtask: int
    attempt: int
    attempt_id: str
    status: str
    timestamps: dict[str, int]  # state name -> epoch ms
    task_manager_id: str | None
    final_metrics: dict[str, Any] | None = None  # the metrics it reported as it ended


@dataclass(frozen=True)
class VertexDetails:
    """One JobVertex (a chain of operators) and its subtasks."""

    id: str
    name: str
    parallelism: int
    max_parallelism: int
    operators: tuple[str, ...]
    subtasks: tuple[SubtaskDetails, ...]


@dataclass(frozen=True)
class JobDetails:
    """A job as its JobMaster sees it now."""

    job_id: str
    name: str
    status: str
    job_type: str  # STREAMING or BATCH
    timestamps: dict[str, int]  # status name -> epoch ms
    max_parallelism: int
    plan: dict[str, Any]
    vertices: tuple[VertexDetails, ...]
    num_restarts: int
    exception_history: tuple[Any, ...]  # ExceptionHistoryEntry, oldest first
    checkpoint_config: dict[str, Any]
    checkpoints: dict[str, Any] = field(default_factory=dict)
    stoppable: bool = True
    source_bytes: dict[str, int] = field(default_factory=dict)  # vertex id -> its files' bytes

    @property
    def start_time(self) -> int:
        """When the job was created (epoch ms)."""
        return min(self.timestamps.values())

    @property
    def end_time(self) -> int:
        """When it reached FINISHED, CANCELED or FAILED; -1 while it runs."""
        for status in ("FINISHED", "CANCELED", "FAILED"):
            if status == self.status and status in self.timestamps:
                return self.timestamps[status]
        return -1


def _record(record: CheckpointRecord | None) -> dict[str, Any] | None:
    if record is None:
        return None
    values = dataclasses.asdict(record)
    values.pop("acknowledged_by")
    values["end_to_end_duration"] = record.end_to_end_duration
    return values


def _checkpoint_statistics(master: JobMaster) -> dict[str, Any]:
    coordinator = master.checkpoint_coordinator
    if coordinator is None:
        return {}
    stats = coordinator.stats
    return {
        "counts": {
            "restored": stats.num_restored,
            "total": stats.num_triggered,
            "in_progress": stats.num_in_progress,
            "completed": stats.num_completed,
            "failed": stats.num_failed,
        },
        "summary": stats.summary(),
        "latest": {
            "completed": _record(stats.latest_completed),
            "savepoint": _record(stats.latest_savepoint),
            "failed": _record(stats.latest_failed),
            "restored": dict(stats.latest_restored) if stats.latest_restored else None,
        },
        "history": [_record(r) for r in reversed(stats.history)],  # newest first, as Flink's
    }


def _checkpoint_config(master: JobMaster) -> dict[str, Any]:
    config = master.job_graph.job_config
    settings = config.checkpointing
    return {
        "enabled": settings.enabled,
        "mode": "exactly_once" if settings.exactly_once else "at_least_once",
        "interval": settings.interval_ms,
        "timeout": settings.timeout_ms,
        "min_pause": settings.min_pause_ms,
        "max_concurrent": settings.max_concurrent,
        "tolerable_failed_checkpoints": settings.tolerable_failures,
        "unaligned_checkpoints": settings.unaligned,
        "aligned_checkpoint_timeout": settings.aligned_timeout_ms,
        "externalization": {
            "enabled": settings.retention != "DELETE_ON_CANCELLATION" or bool(config.checkpointing_dir),
            "delete_on_cancellation": settings.retention == "DELETE_ON_CANCELLATION",
        },
        "retention": settings.retention,
        "retained": settings.retained,
        "state_backend": config.state_backend.type,
        "checkpoint_storage": "FileSystemCheckpointStorage" if config.checkpointing_dir else "JobManager",
        "checkpoints_directory": config.checkpointing_dir or "",
    }


def job_details(master: JobMaster) -> JobDetails:
    """The details of ``master``'s job (call on its main thread)."""
    graph = master.job_graph
    current: dict[Any, dict[int, Any]] = {}
    if master.execution_graph is not None:
        for ejv in master.execution_graph.job_vertices.values():
            current[ejv.job_vertex.id] = {ev.subtask_index: ev.current_execution for ev in ejv.task_vertices}
    source_bytes: dict[str, int] = {}
    for vertex in graph.vertices:
        for op in vertex.operators:
            coordinator = master.source_coordinators.get(op.node_id)
            total = coordinator.total_bytes() if coordinator is not None else None
            if total is not None:
                source_bytes[str(vertex.id)] = source_bytes.get(str(vertex.id), 0) + total
    vertices = []
    for vertex in graph.vertices:
        subtasks = []
        for index in range(vertex.parallelism):
            execution = current.get(vertex.id, {}).get(index)
            if execution is None:
                subtasks.append(SubtaskDetails(index, 0, "", "CREATED", {}, None))
                continue
            subtasks.append(
                SubtaskDetails(
                    index,
                    execution.attempt_number,
                    str(execution.attempt_id),
                    execution.state.name,
                    {state.name: ts for state, ts in execution.timestamps.items()},
                    None if execution.assigned_resource is None else str(execution.assigned_resource),
                    execution.final_metrics,
                )
            )
        vertices.append(
            VertexDetails(
                str(vertex.id),
                vertex.name,
                vertex.parallelism,
                vertex.max_parallelism,
                tuple(op.name for op in vertex.operators),
                tuple(subtasks),
            )
        )
    return JobDetails(
        job_id=graph.job_id,
        name=graph.job_name,
        status=master.status.name,
        job_type="BATCH" if graph.job_config.batch else "STREAMING",
        timestamps={status.name: ts for status, ts in master.status_timestamps.items()},
        max_parallelism=max((v.max_parallelism for v in graph.vertices), default=-1),
        plan=master.plan(),
        vertices=tuple(vertices),
        num_restarts=master.num_restarts,
        exception_history=tuple(master.exception_history),
        checkpoint_config=_checkpoint_config(master),
        checkpoints=_checkpoint_statistics(master),
        stoppable=not graph.job_config.batch,
        source_bytes=source_bytes,
    )
