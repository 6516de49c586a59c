"""Checkpoint statistics of one job: counts, the latest of each kind and a bounded history.

As Flink's ``CheckpointStatsTracker`` (what ``/jobs/:jobid/checkpoints`` serves): every
checkpoint and savepoint is recorded when it is triggered, as its subtasks acknowledge,
and when it completes or fails; the history keeps the newest ``history_size`` of them
(Flink's ``web.checkpoints.history``, 10). Owned by the JobMaster's main thread, as the
CheckpointCoordinator that feeds it. Coordinating code.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CheckpointRecord", "CheckpointStatsTracker"]

HISTORY_SIZE = 10  # Flink's web.checkpoints.history default


@dataclass
class CheckpointRecord:
    """One checkpoint or savepoint as the statistics see it."""

    checkpoint_id: int
    savepoint: bool
    trigger_timestamp: int  # epoch ms
    num_subtasks: int
    status: str = "IN_PROGRESS"  # COMPLETED, FAILED
    num_acknowledged: int = 0
    latest_ack_timestamp: int = -1
    checkpointed_size: int = 0  # written for it (incremental: the new files)
    state_size: int = 0  # everything it references
    end_timestamp: int = -1
    external_path: str = ""
    failure_message: str = ""
    discarded: bool = False
    acknowledged_by: dict[str, int] = field(default_factory=dict)  # attempt id -> ack time

    @property
    def end_to_end_duration(self) -> int:
        """From the trigger to completion (or to the latest acknowledgement while pending)."""
        end = self.end_timestamp if self.end_timestamp >= 0 else self.latest_ack_timestamp
        return max(0, end - self.trigger_timestamp) if end >= 0 else 0


class CheckpointStatsTracker:
    """Counts, latest checkpoints and history (main thread of the JobMaster)."""

    def __init__(self, history_size: int = HISTORY_SIZE) -> None:
        self.history: deque[CheckpointRecord] = deque(maxlen=history_size)  # newest last
        self._by_id: dict[int, CheckpointRecord] = {}  # in progress
        self.num_triggered = 0
        self.num_completed = 0
        self.num_failed = 0
        self.num_restored = 0
        self.latest_completed: CheckpointRecord | None = None
        self.latest_savepoint: CheckpointRecord | None = None
        self.latest_failed: CheckpointRecord | None = None
        self.latest_restored: dict[str, Any] | None = None
        self._completed_sizes: deque[tuple[int, int, int]] = deque(maxlen=1000)  # size, full, duration

    def triggered(self, checkpoint_id: int, timestamp: int, num_subtasks: int, savepoint: bool) -> None:
        """A checkpoint started."""
        record = CheckpointRecord(checkpoint_id, savepoint, timestamp, num_subtasks)
        self._by_id[checkpoint_id] = record
        self.history.append(record)
        self.num_triggered += 1

    def acknowledged(self, checkpoint_id: int, attempt_id: str, timestamp: int) -> None:
        """A subtask acknowledged it."""
        record = self._by_id.get(checkpoint_id)
        if record is not None and attempt_id not in record.acknowledged_by:
            record.acknowledged_by[attempt_id] = timestamp
            record.num_acknowledged += 1
            record.latest_ack_timestamp = max(record.latest_ack_timestamp, timestamp)

    def completed(
        self, checkpoint_id: int, timestamp: int, size: int, full_size: int, external_path: str
    ) -> None:
        """It completed."""
        record = self._by_id.pop(checkpoint_id, None)
        if record is None:
            return
        record.status = "COMPLETED"
        record.num_acknowledged = record.num_subtasks
        record.end_timestamp = timestamp
        record.latest_ack_timestamp = max(record.latest_ack_timestamp, timestamp)
        record.checkpointed_size, record.state_size = size, full_size
        record.external_path = external_path
        self.num_completed += 1
        self._completed_sizes.append((size, full_size, record.end_to_end_duration))
        if record.savepoint:
            self.latest_savepoint = record
        else:
            self.latest_completed = record

    def failed(self, checkpoint_id: int, timestamp: int, message: str) -> None:
        """It failed (expired, declined, aborted)."""
        record = self._by_id.pop(checkpoint_id, None)
        if record is None:
            return
        record.status = "FAILED"
        record.end_timestamp = timestamp
        record.failure_message = message
        self.num_failed += 1
        self.latest_failed = record

    def restored(self, checkpoint_id: int, timestamp: int, external_path: str, savepoint: bool) -> None:
        """The job (re)started from this checkpoint."""
        self.num_restored += 1
        self.latest_restored = {
            "id": checkpoint_id,
            "restore_timestamp": timestamp,
            "is_savepoint": savepoint,
            "external_path": external_path,
        }

    def discarded(self, checkpoint_id: int) -> None:
        """A completed checkpoint is no longer retained."""
        for record in self.history:
            if record.checkpoint_id == checkpoint_id:
                record.discarded = True

    @property
    def num_in_progress(self) -> int:
        """Checkpoints triggered and not yet ended."""
        return len(self._by_id)

    def summary(self) -> dict[str, dict[str, float]]:
        """min / max / avg / p50 / p90 / p95 / p99 / p999 of the completed checkpoints' sizes
        and durations (Flink's ``summary``)."""
        columns = list(zip(*self._completed_sizes, strict=True)) if self._completed_sizes else [(), (), ()]
        names = ("checkpointed_size", "state_size", "end_to_end_duration")
        return {name: _statistics(list(values)) for name, values in zip(names, columns, strict=True)}


def _statistics(values: list[int]) -> dict[str, float]:
    if not values:
        keys = ("min", "max", "avg", "p50", "p90", "p95", "p99", "p999")
        return dict.fromkeys(keys, 0)
    ordered = sorted(values)

    def quantile(q: float) -> float:
        return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])

    return {
        "min": ordered[0],
        "max": ordered[-1],
        "avg": round(sum(ordered) / len(ordered), 1),
        "p50": quantile(0.5),
        "p90": quantile(0.9),
        "p95": quantile(0.95),
        "p99": quantile(0.99),
        "p999": quantile(0.999),
    }
