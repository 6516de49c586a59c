"""Flink's REST JSON documents from what millstream's JobMaster reports.

Every function here is pure: it takes a :class:`JobDetails` (and the running tasks'
metrics by execution attempt, where the document shows metrics) and returns the dict
Flink's REST handler of the same path returns (``JobDetailsInfo``,
``CheckpointingStatistics``, ``JobExceptionsInfoWithHistory``,
``JobVertexBackPressureInfo``, ``TaskManagersInfo`` ...), with the same keys. A finished
task's metrics are the ones it reported as it ended (Flink's IOMetrics). Coding here
follows the shapes of flink-runtime's ``rest.messages`` and the web dashboard's
interfaces.
"""

from __future__ import annotations

import math
import re
from typing import Any

from millstream import __version__
from millstream.runtime.jobmanager.job_details import JobDetails, SubtaskDetails, VertexDetails
from millstream.runtime.taskmanager.task_metrics import (
    OPERATOR_METRIC_NAMES,
    OPERATOR_NAME_MAX_LENGTH,
    TASK_METRIC_NAMES,
)

__all__ = [
    "backpressure",
    "checkpoint_config",
    "checkpoints",
    "exceptions",
    "job_detail",
    "job_overview",
    "metric_operator_name",
    "overview",
    "plan",
    "subtask_metrics",
    "task_manager",
    "vertex_detail",
    "vertex_metric_values",
    "watermarks",
]

MIN_WATERMARK = -(2**63)  # Long.MIN_VALUE: no watermark yet
_TASK_STATES = (
    "CREATED",
    "SCHEDULED",
    "DEPLOYING",
    "RUNNING",
    "FINISHED",
    "CANCELING",
    "CANCELED",
    "FAILED",
    "RECONCILING",
    "INITIALIZING",
)
# the subtask metrics the REST API names (``/metrics`` of a vertex), Flink's names
SUBTASK_METRICS = TASK_METRIC_NAMES
_QUERY_SERVICE_UNSAFE = re.compile(r"[ .:,]")


def subtask_metrics(subtask: SubtaskDetails, live: dict[str, Any]) -> dict[str, Any] | None:
    """The metrics of ``subtask``'s current attempt: sampled now if it runs, else the ones it
    reported as it ended; None when there are none."""
    sample = live.get(subtask.attempt_id)
    return sample if sample is not None else subtask.final_metrics


def _counts(subtasks: tuple[SubtaskDetails, ...]) -> dict[str, int]:
    counts = dict.fromkeys(_TASK_STATES, 0)
    for subtask in subtasks:
        counts[subtask.status] = counts.get(subtask.status, 0) + 1
    return counts


def _vertex_status(subtasks: tuple[SubtaskDetails, ...]) -> str:
    """Flink's aggregate: the 'most advanced' state any subtask is in, by priority."""
    states = {s.status for s in subtasks}
    for state in ("FAILED", "CANCELING", "CANCELED", "RUNNING", "INITIALIZING", "DEPLOYING", "SCHEDULED"):
        if state in states:
            return state
    if states == {"FINISHED"}:
        return "FINISHED"
    return "CREATED" if "CREATED" in states or not states else next(iter(states))


def _vertex_times(subtasks: tuple[SubtaskDetails, ...], now: int) -> tuple[int, int, int]:
    starts = [s.timestamps.get("DEPLOYING", -1) for s in subtasks]
    starts = [t for t in starts if t >= 0]
    start = min(starts) if starts else -1
    ends = [max(s.timestamps.get(k, -1) for k in ("FINISHED", "CANCELED", "FAILED")) for s in subtasks]
    end = max(ends) if ends and all(e >= 0 for e in ends) else -1
    duration = ((end if end >= 0 else now) - start) if start >= 0 else -1
    return start, end, duration


def _double(value: float) -> float | str:
    """A Java double as Flink's REST API writes it: NaN as the string ``"NaN"`` (Jackson's
    default), which keeps the document JSON."""
    return "NaN" if math.isnan(value) else value


def _io_metrics(known: list[dict[str, Any]], complete: bool) -> dict[str, Any]:
    """Flink's ``IOMetricsInfo`` of the samples ``known``: sums over them, as Flink's
    MutableIOMetrics adds its subtasks' (a NaN busy time makes the sum NaN)."""

    def total(key: str) -> int:
        return int(sum(sample.get(key, 0) for sample in known))

    return {
        "read-bytes": total("numBytesIn"),
        "read-bytes-complete": complete,
        "write-bytes": total("numBytesOut"),
        "write-bytes-complete": complete,
        "read-records": total("numRecordsIn"),
        "read-records-complete": complete,
        "write-records": total("numRecordsOut"),
        "write-records-complete": complete,
        "accumulated-backpressured-time": total("accumulateBackPressuredTimeMs"),
        "accumulated-idle-time": total("accumulateIdleTimeMs"),
        "accumulated-busy-time": _double(
            float(sum(sample.get("accumulateBusyTimeMs", 0.0) for sample in known))
        ),
    }


def _vertex_io(vertex: VertexDetails, live: dict[str, Any], has_inputs: bool) -> dict[str, Any]:
    samples = [subtask_metrics(s, live) for s in vertex.subtasks]
    known = [sample for sample in samples if sample is not None]
    busy = [s["busyTimeMsPerSecond"] for s in known if not math.isnan(s.get("busyTimeMsPerSecond", math.nan))]
    return {
        # a source task receives nothing from the network: Flink shows 0 records received
        **_io_metrics(known, all(sample is not None for sample in samples)),
        # millstream's own, for the dashboard's graph (Flink computes these in the browser)
        "backpressured-ratio": round(
            max((s.get("backPressuredTimeMsPerSecond", 0) for s in known), default=0) / 1000, 3
        ),
        "low-watermark": min(
            (s.get("currentInputWatermark", MIN_WATERMARK) for s in known), default=MIN_WATERMARK
        ),
        "read-records-per-second": round(sum(s.get("numRecordsInPerSecond", 0) for s in known), 1),
        "write-records-per-second": round(sum(s.get("numRecordsOutPerSecond", 0) for s in known), 1),
        # the subtasks whose busy time is measured (not a legacy source's)
        "busy-ratio": round(sum(busy) / 1000 / len(busy), 3) if busy else 0.0,
        "source-bytes-read": int(sum(s.get("sourceBytesRead", 0) for s in known)),
        # what a source vertex read from its source (its source operator's numRecordsIn), not in
        # Flink's "read-records" (records received over the network)
        "source-records": 0 if has_inputs else int(sum(_head_records_in(s) for s in known)),
    }


def _head_records_in(sample: dict[str, Any]) -> int:
    operators = sample.get("operators") or [{}]
    return int(operators[0].get("numRecordsIn", 0))


def _inputs_of(details: JobDetails) -> dict[str, list[dict[str, Any]]]:
    return {v["id"]: v["inputs"] for v in details.plan.get("vertices", [])}


def plan(details: JobDetails) -> dict[str, Any]:
    """``/jobs/:jobid/plan``'s ``plan``: nodes with their inputs (ship strategy, exchange)."""
    inputs = _inputs_of(details)
    nodes = []
    for vertex in details.vertices:
        node: dict[str, Any] = {
            "id": vertex.id,
            "parallelism": vertex.parallelism,
            "maxParallelism": vertex.max_parallelism,
            "operator": "",
            "operator_strategy": "",
            "description": " -> ".join(vertex.operators) or vertex.name,
            "optimizer_properties": {},
        }
        edges = inputs.get(vertex.id, [])
        if edges:
            node["inputs"] = [
                {
                    "num": index,
                    "id": edge["producer"],
                    "ship_strategy": edge["ship_strategy"],
                    "exchange": "blocking" if details.job_type == "BATCH" else "pipelined_bounded",
                }
                for index, edge in enumerate(edges)
            ]
        nodes.append(node)
    return {"jid": details.job_id, "name": details.name, "type": details.job_type, "nodes": nodes}


def _duration(details: JobDetails, now: int) -> int:
    end = details.end_time
    return (end if end >= 0 else now) - details.start_time


def job_overview(details: JobDetails, now: int) -> dict[str, Any]:
    """One entry of ``/jobs/overview``."""
    subtasks = tuple(s for v in details.vertices for s in v.subtasks)
    counts = {state.lower(): n for state, n in _counts(subtasks).items()}
    return {
        "jid": details.job_id,
        "name": details.name,
        "state": details.status,
        "job-type": details.job_type,
        "start-time": details.start_time,
        "end-time": details.end_time,
        "duration": _duration(details, now),
        "last-modification": max(details.timestamps.values()),
        "tasks": {"total": len(subtasks), **counts},
    }


def job_detail(details: JobDetails, live: dict[str, Any], now: int) -> dict[str, Any]:
    """``/jobs/:jobid``."""
    inputs = _inputs_of(details)
    vertices = []
    for vertex in details.vertices:
        start, end, duration = _vertex_times(vertex.subtasks, now)
        vertices.append(
            {
                "id": vertex.id,
                "name": vertex.name,
                "maxParallelism": vertex.max_parallelism,
                "parallelism": vertex.parallelism,
                "status": _vertex_status(vertex.subtasks),
                "start-time": start,
                "end-time": end,
                "duration": duration,
                "tasks": _counts(vertex.subtasks),
                "metrics": _vertex_io(vertex, live, bool(inputs.get(vertex.id))),
            }
        )
    return {
        "jid": details.job_id,
        "name": details.name,
        "isStoppable": details.stoppable,
        "state": details.status,
        "job-type": details.job_type,
        "start-time": details.start_time,
        "end-time": details.end_time,
        "duration": _duration(details, now),
        "maxParallelism": details.max_parallelism,
        "now": now,
        "timestamps": dict(details.timestamps),
        "vertices": vertices,
        "status-counts": _counts(tuple(s for v in details.vertices for s in v.subtasks)),
        "plan": plan(details),
    }


def exceptions(details: JobDetails) -> dict[str, Any]:
    """``/jobs/:jobid/exceptions``: the exception history, newest first."""
    entries = []
    for entry in reversed(details.exception_history):
        entries.append(
            {
                "exceptionName": entry.exception_name,
                "stacktrace": entry.stacktrace,
                "timestamp": entry.timestamp_ms,
                "taskName": entry.task_name,
                "endpoint": entry.task_manager_id,
                "taskManagerId": entry.task_manager_id,
                "failureLabels": {},
                "concurrentExceptions": [],
                # millstream's own: the one-line cause, the operator, the restart it caused
                "message": entry.message,
                "operatorName": entry.operator_name,
                "restart": entry.restart,
                "backoffMs": entry.backoff_ms,
            }
        )
    return {"exceptionHistory": {"entries": entries, "truncated": False}}


def _checkpoint_entry(record: dict[str, Any] | None) -> dict[str, Any] | None:
    if record is None:
        return None
    entry = {
        "className": ".CompletedCheckpointStatistics"
        if record["status"] == "COMPLETED"
        else ".FailedCheckpointStatistics"
        if record["status"] == "FAILED"
        else ".PendingCheckpointStatistics",
        "id": record["checkpoint_id"],
        "status": record["status"],
        "is_savepoint": record["savepoint"],
        "checkpoint_type": "SAVEPOINT" if record["savepoint"] else "CHECKPOINT",
        "trigger_timestamp": record["trigger_timestamp"],
        "latest_ack_timestamp": record["latest_ack_timestamp"],
        "checkpointed_size": record["checkpointed_size"],
        "state_size": record["state_size"],
        "end_to_end_duration": record["end_to_end_duration"],
        "alignment_buffered": 0,
        "processed_data": 0,
        "persisted_data": 0,
        "num_subtasks": record["num_subtasks"],
        "num_acknowledged_subtasks": record["num_acknowledged"],
        "tasks": {},
    }
    if record["status"] == "COMPLETED":
        entry["external_path"] = record["external_path"]
        entry["discarded"] = record["discarded"]
    if record["status"] == "FAILED":
        entry["failure_timestamp"] = record["end_timestamp"]
        entry["failure_message"] = record["failure_message"]
    return entry


def checkpoints(details: JobDetails) -> dict[str, Any]:
    """``/jobs/:jobid/checkpoints``: counts, summary, latest and history."""
    stats = details.checkpoints
    if not stats:
        zero = dict.fromkeys(("min", "max", "avg", "p50", "p90", "p95", "p99", "p999"), 0)
        return {
            "counts": {"restored": 0, "total": 0, "in_progress": 0, "completed": 0, "failed": 0},
            "summary": {"checkpointed_size": zero, "state_size": zero, "end_to_end_duration": zero},
            "latest": {"completed": None, "savepoint": None, "failed": None, "restored": None},
            "history": [],
        }
    latest = stats["latest"]
    return {
        "counts": dict(stats["counts"]),
        "summary": dict(stats["summary"]),
        "latest": {
            "completed": _checkpoint_entry(latest["completed"]),
            "savepoint": _checkpoint_entry(latest["savepoint"]),
            "failed": _checkpoint_entry(latest["failed"]),
            "restored": latest["restored"],
        },
        "history": [_checkpoint_entry(record) for record in stats["history"]],
    }


def checkpoint_config(details: JobDetails) -> dict[str, Any]:
    """``/jobs/:jobid/checkpoints/config``."""
    return dict(details.checkpoint_config)


def _vertex(details: JobDetails, vertex_id: str) -> VertexDetails | None:
    return next((v for v in details.vertices if v.id == vertex_id), None)


def vertex_detail(
    details: JobDetails, vertex_id: str, live: dict[str, Any], now: int
) -> dict[str, Any] | None:
    """``/jobs/:jobid/vertices/:vertexid``: its subtasks."""
    vertex = _vertex(details, vertex_id)
    if vertex is None:
        return None
    subtasks = []
    for subtask in vertex.subtasks:
        start = subtask.timestamps.get("DEPLOYING", -1)
        ends = [subtask.timestamps[k] for k in ("FINISHED", "CANCELED", "FAILED") if k in subtask.timestamps]
        end = max(ends) if ends else -1
        sample = subtask_metrics(subtask, live)
        metrics = sample or {}
        subtasks.append(
            {
                "subtask": subtask.subtask,
                "status": subtask.status,
                "attempt": subtask.attempt,
                "endpoint": subtask.task_manager_id,
                "start-time": start,
                "end-time": end,
                "duration": ((end if end >= 0 else now) - start) if start >= 0 else -1,
                "metrics": {
                    **_io_metrics([sample] if sample is not None else [], sample is not None),
                    # millstream's own
                    "backpressured-time-ms-per-second": metrics.get("backPressuredTimeMsPerSecond", 0),
                    "current-input-watermark": metrics.get("currentInputWatermark", MIN_WATERMARK),
                },
                "taskmanager-id": subtask.task_manager_id,
                "status-duration": {state: ts for state, ts in subtask.timestamps.items()},
            }
        )
    return {
        "id": vertex.id,
        "name": vertex.name,
        "parallelism": vertex.parallelism,
        "maxParallelism": vertex.max_parallelism,
        "now": now,
        "subtasks": subtasks,
    }


def _level(ratio: float) -> str:
    """Flink's back-pressure levels: up to 10% ok, up to 50% low, above high."""
    if ratio <= 0.10:
        return "ok"
    return "low" if ratio <= 0.5 else "high"


def _ratio(metrics: dict[str, Any], name: str) -> float | str:
    """A milliseconds-per-second metric as a ratio, as Flink's handler reads it (0 if absent)."""
    return _double(float(metrics.get(name, 0)) / 1000)


def backpressure(
    details: JobDetails, vertex_id: str, live: dict[str, Any], now: int
) -> dict[str, Any] | None:
    """``.../backpressure`` (Flink's JobVertexBackPressureHandler): per subtask the share of
    each second spent back-pressured (``ratio``, its level), idle and busy, from the task's
    ``backPressuredTimeMsPerSecond``, ``idleTimeMsPerSecond`` and ``busyTimeMsPerSecond``."""
    vertex = _vertex(details, vertex_id)
    if vertex is None:
        return None
    subtasks: list[dict[str, Any]] = []
    worst = 0.0
    for subtask in vertex.subtasks:
        metrics = live.get(subtask.attempt_id) or {}
        ratio = min(1.0, float(metrics.get("backPressuredTimeMsPerSecond", 0)) / 1000)
        worst = max(worst, ratio)
        # Flink 2.3 writes the level under both keys, and no attempt number (only speculative
        # attempts carry one)
        subtasks.append(
            {
                "subtask": subtask.subtask,
                "backpressureLevel": _level(ratio),
                "ratio": ratio,
                "idleRatio": _ratio(metrics, "idleTimeMsPerSecond"),
                "busyRatio": _ratio(metrics, "busyTimeMsPerSecond"),
                "backpressure-level": _level(ratio),
            }
        )
    running = any(subtask.attempt_id in live for subtask in vertex.subtasks)
    return {
        "status": "ok" if running else "deprecated",
        "backpressureLevel": _level(worst),
        "end-timestamp": now,
        "subtasks": subtasks,
        "backpressure-level": _level(worst),
    }


def watermarks(details: JobDetails, vertex_id: str, live: dict[str, Any]) -> list[dict[str, str]] | None:
    """``.../watermarks``: ``<subtask>.currentInputWatermark`` of each subtask."""
    vertex = _vertex(details, vertex_id)
    if vertex is None:
        return None
    out = []
    for subtask in vertex.subtasks:
        metrics = subtask_metrics(subtask, live)
        if metrics is not None:
            value = metrics.get("currentInputWatermark", MIN_WATERMARK)
            out.append({"id": f"{subtask.subtask}.currentInputWatermark", "value": str(value)})
    return out


def vertex_metric_values(
    details: JobDetails, vertex_id: str, live: dict[str, Any], names: list[str] | None
) -> list[dict[str, str]] | None:
    """``.../metrics``: without ``names`` the available metric ids; with them their values."""
    vertex = _vertex(details, vertex_id)
    if vertex is None:
        return None
    values: dict[str, str] = {}
    for subtask in vertex.subtasks:
        metrics = subtask_metrics(subtask, live) or {}
        for name in SUBTASK_METRICS:
            if name in metrics:
                values[f"{subtask.subtask}.{name}"] = _metric_value(metrics[name])
        for operator in metrics.get("operators", ()):
            prefix = f"{subtask.subtask}.{metric_operator_name(operator['name'])}"
            for name in OPERATOR_METRIC_NAMES:
                if name in operator:
                    values[f"{prefix}.{name}"] = _metric_value(operator[name])
    if names is None:
        return [{"id": metric_id} for metric_id in values]
    return [{"id": name, "value": values[name]} for name in names if name in values]


def metric_operator_name(name: str) -> str:
    """An operator's name in metric ids, as Flink's metric query service writes it: at most
    80 characters (Flink's operator metric group truncates longer ones), with ``' '``,
    ``'.'``, ``':'`` and ``','`` as ``'_'`` (``Source: gen`` is ``Source__gen``)."""
    return _QUERY_SERVICE_UNSAFE.sub("_", name[:OPERATOR_NAME_MAX_LENGTH])


def _metric_value(value: Any) -> str:
    """A metric value as Flink's metric store keeps it (Java's ``String.valueOf``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return str(value)


def overview(task_managers: int, slots_total: int, slots_free: int, statuses: list[str]) -> dict[str, Any]:
    """``/overview``: the cluster at a glance."""
    return {
        "taskmanagers": task_managers,
        "slots-total": slots_total,
        "slots-available": slots_free,
        "jobs-running": sum(1 for s in statuses if s not in ("FINISHED", "CANCELED", "FAILED")),
        "jobs-finished": statuses.count("FINISHED"),
        "jobs-cancelled": statuses.count("CANCELED"),
        "jobs-failed": statuses.count("FAILED"),
        "flink-version": f"millstream {__version__}",
        "flink-commit": "",
    }


def task_manager(resource_id: str, info: dict[str, Any], slots: dict[str, Any], now: int) -> dict[str, Any]:
    """One entry of ``/taskmanagers`` (``/taskmanagers/:id`` adds ``metrics`` and slots)."""
    report = info.get("report") or {}
    data = info.get("data_address") or ("", -1)
    total = slots.get("total", 0)
    free = slots.get("free", 0)
    heartbeat = report.get("timestamp")
    return {
        "id": resource_id,
        "path": f"{info.get('host', '')}:{info.get('pid', '')}",
        "dataPort": int(data[1]) if data and len(data) > 1 and data[1] is not None else -1,
        "jmxPort": -1,
        "timeSinceLastHeartbeat": heartbeat if heartbeat is not None else -1,
        "slotsNumber": total,
        "freeSlots": free,
        "totalResource": {"cpuCores": report.get("cpuCores", 0), "taskHeapMemory": 0},
        "freeResource": {"cpuCores": 0, "taskHeapMemory": 0},
        "hardware": {
            "cpuCores": report.get("cpuCores", 0),
            "physicalMemory": report.get("physicalMemory", 0),
            "freeMemory": report.get("freeMemory", 0),
            "managedMemory": 0,
        },
        "memoryConfiguration": {},
        "blocked": False,
        # millstream's own: the process
        "pid": info.get("pid"),
        "host": info.get("host"),
        "runningTasks": report.get("running_tasks", 0),
        "prometheus": (info.get("plugins") or {}).get("prometheus"),
        "metrics": {
            "rss": report.get("rss", 0),
            "cpuLoad": report.get("cpuLoad", 0.0),
            "cpuTime": report.get("cpuTime", 0.0),
            "threads": report.get("threads", 0),
        },
        "allocatedSlots": list(slots.get("allocated", [])),
    }
