"""CheckpointCoordinator: triggers checkpoints, collects acknowledgements, completes or aborts.

Flink's coordinator, on the JobMaster's main thread (every method is called there; no
locks):

1. ``start_scheduler`` triggers a checkpoint every ``interval``. A trigger is skipped while
   ``max_concurrent`` checkpoints are pending (it is tried again when one ends) and waits
   until ``min_pause`` has passed since the last one completed.
2. ``trigger_checkpoint`` checks that every task is running, takes the next id, creates a
   ``PendingCheckpoint`` expecting an acknowledgement from every task, schedules its
   timeout, and asks the source tasks to inject the barrier (``trigger``).
3. ``receive_acknowledge`` records a task's snapshot; once all tasks acknowledged, the
   checkpoint completes: its metadata is written to storage, it joins the retained
   checkpoints (older ones beyond ``retained`` are discarded), and every task is notified
   (``notify_complete``: two-phase-commit sinks commit then).
4. Tasks finish one by one when their input ends (FLIP-147): a finished task is not asked
   again; its state from the last checkpoint it took part in (after the end of its data,
   so final) stands in for it in every later checkpoint (``task_finished``).
5. A decline, the timeout or ``abort_pending`` (a task failed) aborts a checkpoint; every
   task is told (``notify_aborted``). Consecutive failures beyond ``tolerable_failures``
   fail the job (``on_failure``), as Flink's CheckpointFailureManager; a completed
   checkpoint resets the count. Aborts caused by a job failure do not count.

Time comes from ``now`` (milliseconds) and ``schedule(delay_ms, callback)``, so tests drive
the coordinator with a manual clock.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from millstream.graph.checkpointing import CheckpointingSettings
from millstream.runtime.checkpoint.shared_state import SharedStateRegistry
from millstream.runtime.checkpoint.stats import CheckpointStatsTracker
from millstream.runtime.checkpoint.storage import (
    CheckpointStorage,
    CompletedCheckpoint,
    create_savepoint_directory,
    inline_task_state,
    state_size,
    write_savepoint_metadata,
)

__all__ = [
    "CheckpointCoordinator",
    "CheckpointException",
    "CheckpointFailureReason",
    "PendingCheckpoint",
]

log = logging.getLogger(__name__)


class CheckpointFailureReason(Enum):
    """Why a checkpoint did not complete (Flink's names); ``counts``: towards the tolerable failures."""

    CHECKPOINT_EXPIRED = ("Checkpoint expired before completing.", True)
    CHECKPOINT_DECLINED = ("Task declined the checkpoint.", True)
    CHECKPOINT_ASYNC_EXCEPTION = ("Asynchronous task checkpoint failed.", True)
    IO_EXCEPTION = ("An Exception occurred while triggering the checkpoint.", True)
    NOT_ALL_REQUIRED_TASKS_RUNNING = ("Not all required tasks are currently running.", False)
    TOO_MANY_CHECKPOINT_REQUESTS = ("The maximum number of queued checkpoint requests exceeded", False)
    MINIMUM_TIME_BETWEEN_CHECKPOINTS = ("The minimum time between checkpoints is still pending.", False)
    JOB_FAILOVER_REGION = ("Checkpoint was aborted due to a task failure.", False)
    CHECKPOINT_DECLINED_TASK_NOT_READY = ("Checkpoint was declined (tasks not ready)", False)
    CHECKPOINT_DECLINED_TASK_CLOSING = ("Checkpoint was declined (task is closing)", False)
    CHECKPOINT_COORDINATOR_SHUTDOWN = ("CheckpointCoordinator shutdown.", False)
    CHECKPOINT_COORDINATOR_SUSPEND = ("Checkpoint Coordinator is suspending.", False)

    @property
    def message(self) -> str:
        """Flink's message."""
        return str(self.value[0])

    @property
    def counts(self) -> bool:
        """Whether it counts towards ``tolerable-failed-checkpoints``."""
        return bool(self.value[1])


class CheckpointException(Exception):
    """A checkpoint that failed, or too many failed in a row."""

    def __init__(self, reason: CheckpointFailureReason, detail: str = "") -> None:
        super().__init__(reason.message + (f" {detail}" if detail else ""))
        self.reason = reason


@dataclass
class PendingCheckpoint:
    """A triggered checkpoint waiting for its acknowledgements."""

    checkpoint_id: int
    timestamp: int
    not_yet_acknowledged: set[str]
    task_states: dict[str, Any] = field(default_factory=dict)  # attempt id -> its snapshot
    savepoint_dir: str | None = None  # a savepoint: its directory
    savepoint_result: Future[str] | None = None  # a savepoint: its path when it completes
    drain: bool = False  # a savepoint of stop --drain: the sources end their input first
    coordinator_states: dict[str, Any] = field(default_factory=dict)  # operator state id -> it

    @property
    def fully_acknowledged(self) -> bool:
        """Every task acknowledged."""
        return not self.not_yet_acknowledged


class CheckpointCoordinator:
    """One job's checkpoints (see the module docstring)."""

    def __init__(
        self,
        job_id: str,
        settings: CheckpointingSettings,
        storage: CheckpointStorage,
        *,
        tasks: Callable[[], Iterable[str] | None],
        trigger: Callable[[int, int, str | None, bool], None],
        notify_complete: Callable[[int], None],
        notify_aborted: Callable[[int], None],
        on_failure: Callable[[Exception], None],
        now: Callable[[], int],
        schedule: Callable[[int, Callable[[], None]], None],
    ) -> None:
        """``tasks()``: the attempt ids that must acknowledge, or None while not all are running;
        ``trigger(checkpoint_id, timestamp, savepoint directory or None, drain)``: inject the
        barrier at the sources (drain: after ending their input)."""
        self.job_id = job_id
        self.settings = settings
        self.storage = storage
        self._tasks = tasks
        self._trigger = trigger
        self._notify_complete = notify_complete
        self._notify_aborted = notify_aborted
        self._on_failure = on_failure
        self._now = now
        self._schedule = schedule
        self.pending: dict[int, PendingCheckpoint] = {}
        self.completed: list[CompletedCheckpoint] = []  # oldest first, at most ``retained``
        self._next_id = 1
        self._last_completion_ms: int | None = None
        self._consecutive_failures = 0
        self._periodic = False
        self._generation = 0  # a stopped scheduler's callbacks see an older generation
        self._deferred = False  # a periodic trigger waits for a pending checkpoint to end
        # (directory, result, drain): wait for pending checkpoints
        self._queued_savepoints: list[tuple[str, Future[str], bool]] = []
        self._shut_down = False
        self._finished_states: dict[str, Any] = {}  # finished attempt id -> its final state
        self.operator_ids: dict[int, str] = {}  # node id -> operator state id, kept in the metadata
        self.max_parallelisms: dict[int, int] = {}  # node id -> its max parallelism (key groups)
        # checkpoint id -> {operator state id: state} of the operator coordinators (source
        # enumerators), taken just before the tasks are triggered
        self.snapshot_coordinators: Callable[[int], dict[str, Any]] = lambda checkpoint_id: {}
        self._restored_checkpoint: CompletedCheckpoint | None = None
        self.shared_state = SharedStateRegistry()  # files of incremental checkpoints
        self.num_completed = 0
        self.num_failed = 0
        self.last_duration_ms: int | None = None
        self.last_size_bytes: int | None = None  # written for it (incremental: the new files)
        self.last_full_size_bytes: int | None = None  # everything it references
        self.stats = CheckpointStatsTracker()  # counts, latest and history (the REST API's)

    # -- scheduling --------------------------------------------------------------------------

    def start_scheduler(self) -> None:
        """Trigger periodically from now on (the first after one interval, as Flink's)."""
        if self._shut_down or not self.settings.enabled:
            return
        self._periodic = True
        self._generation += 1
        self._schedule_periodic(self.settings.interval_ms)

    def stop_scheduler(self) -> None:
        """No more periodic triggers (pending checkpoints continue)."""
        self._periodic = False
        self._generation += 1

    def _schedule_periodic(self, delay_ms: int) -> None:
        generation = self._generation
        self._schedule(max(0, delay_ms), lambda: self._on_periodic(generation))

    def _on_periodic(self, generation: int) -> None:
        if generation != self._generation or not self._periodic:
            return
        try:
            self.trigger_checkpoint()
        except CheckpointException as err:
            if err.reason is CheckpointFailureReason.TOO_MANY_CHECKPOINT_REQUESTS:
                self._deferred = True  # tried again when a pending checkpoint ends
                return
            if err.reason is CheckpointFailureReason.MINIMUM_TIME_BETWEEN_CHECKPOINTS:
                assert self._last_completion_ms is not None
                self._schedule_periodic(self._last_completion_ms + self.settings.min_pause_ms - self._now())
                return
            log.info("checkpoint of job %s not triggered: %s", self.job_id, err)
        self._schedule_periodic(self.settings.interval_ms)

    # -- triggering ----------------------------------------------------------------------------

    def trigger_checkpoint(self) -> PendingCheckpoint:
        """Start a checkpoint now; raises ``CheckpointException`` when it cannot start."""
        if self._shut_down:
            raise CheckpointException(CheckpointFailureReason.CHECKPOINT_COORDINATOR_SHUTDOWN)
        if len(self.pending) >= self.settings.max_concurrent:
            raise CheckpointException(CheckpointFailureReason.TOO_MANY_CHECKPOINT_REQUESTS)
        now = self._now()
        if (
            self._last_completion_ms is not None
            and now - self._last_completion_ms < self.settings.min_pause_ms
        ):
            raise CheckpointException(CheckpointFailureReason.MINIMUM_TIME_BETWEEN_CHECKPOINTS)
        tasks = self._tasks()
        if tasks is None:
            raise CheckpointException(CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING)
        checkpoint_id = self._next_id
        self._next_id += 1
        pending = PendingCheckpoint(checkpoint_id, now, set(tasks), dict(self._finished_states))
        self.pending[checkpoint_id] = pending
        self.stats.triggered(checkpoint_id, now, len(pending.not_yet_acknowledged), savepoint=False)
        self._schedule(self.settings.timeout_ms, lambda: self._expire(checkpoint_id))
        try:
            self.storage.initialize_location(self.job_id, checkpoint_id)
            pending.coordinator_states = self.snapshot_coordinators(checkpoint_id)
            self._trigger(checkpoint_id, now, None, False)
        except Exception as err:
            self._abort(pending, CheckpointFailureReason.IO_EXCEPTION, str(err))
            raise CheckpointException(CheckpointFailureReason.IO_EXCEPTION, str(err)) from err
        return pending

    def trigger_savepoint(self, directory: str, drain: bool = False) -> Future[str]:
        """Take a savepoint into a new directory under ``directory``; the future completes with
        its path (or the reason it failed). It waits for pending checkpoints to end (one
        barrier at a time), takes no notice of the minimum pause, is not retained among the
        checkpoints (a failure restores the latest checkpoint) and is never deleted by the job;
        its failure does not count towards the tolerated checkpoint failures. ``drain``: the
        source tasks end their input before they take it (stop --drain)."""
        result: Future[str] = Future()
        if self._shut_down:
            result.set_exception(CheckpointException(CheckpointFailureReason.CHECKPOINT_COORDINATOR_SHUTDOWN))
        elif self.pending:
            self._queued_savepoints.append((directory, result, drain))
        else:
            self._start_savepoint(directory, result, drain)
        return result

    def _start_savepoint(self, directory: str, result: Future[str], drain: bool) -> None:
        tasks = self._tasks()
        if tasks is None:
            result.set_exception(CheckpointException(CheckpointFailureReason.NOT_ALL_REQUIRED_TASKS_RUNNING))
            return
        try:
            path = create_savepoint_directory(directory, self.job_id)
        except OSError as err:
            result.set_exception(CheckpointException(CheckpointFailureReason.IO_EXCEPTION, str(err)))
            return
        now = self._now()
        checkpoint_id = self._next_id
        self._next_id += 1
        pending = PendingCheckpoint(
            checkpoint_id, now, set(tasks), dict(self._finished_states), path, result, drain
        )
        self.pending[checkpoint_id] = pending
        self.stats.triggered(checkpoint_id, now, len(pending.not_yet_acknowledged), savepoint=True)
        self._schedule(self.settings.timeout_ms, lambda: self._expire(checkpoint_id))
        try:
            pending.coordinator_states = self.snapshot_coordinators(checkpoint_id)
            self._trigger(checkpoint_id, now, path, drain)
        except Exception as err:
            self._abort(pending, CheckpointFailureReason.IO_EXCEPTION, str(err))

    def _expire(self, checkpoint_id: int) -> None:
        pending = self.pending.get(checkpoint_id)
        if pending is not None:
            self._abort(pending, CheckpointFailureReason.CHECKPOINT_EXPIRED)

    # -- task messages ---------------------------------------------------------------------

    def receive_acknowledge(self, attempt_id: str, checkpoint_id: int, task_state: Any = None) -> bool:
        """A task finished its part of ``checkpoint_id``; True if the checkpoint is still pending."""
        pending = self.pending.get(checkpoint_id)
        if pending is None or attempt_id not in pending.not_yet_acknowledged:
            # late (aborted or completed already), or unknown: ignored as Flink does
            self.shared_state.discard_unregistered(task_state)
            return False
        problem = self.shared_state.register(task_state)
        if problem is not None:
            self.shared_state.discard_unregistered(task_state)
            self._abort(pending, CheckpointFailureReason.CHECKPOINT_DECLINED, f"{attempt_id}: {problem}")
            return False
        pending.not_yet_acknowledged.discard(attempt_id)
        pending.task_states[attempt_id] = task_state
        self.stats.acknowledged(checkpoint_id, attempt_id, self._now())
        if pending.fully_acknowledged:
            self._complete(pending)
        return True

    def task_finished(self, attempt_id: str) -> None:
        """A task ended after its final checkpoint: its state then is its part of every later
        checkpoint, including those pending that it did not acknowledge before it ended (it
        processed nothing since, and ended its outputs instead of forwarding their barriers)."""
        state = next(
            (c.task_states[attempt_id] for c in reversed(self.completed) if attempt_id in c.task_states),
            None,
        )
        if state is None:
            return  # took part in no checkpoint (a job whose tasks all end before the first one)
        state = inline_task_state(state)  # its state file goes when its checkpoint is discarded
        self._finished_states[attempt_id] = state
        for pending in list(self.pending.values()):
            if attempt_id in pending.not_yet_acknowledged:
                self.receive_acknowledge(attempt_id, pending.checkpoint_id, state)

    def restored_from(self, checkpoint: CompletedCheckpoint) -> None:
        """The job started from ``checkpoint`` (retained by an earlier run): ids continue after
        it, and it is what a failure before the first new checkpoint restores. It stays the
        earlier run's: never discarded here (Flink's NO_CLAIM mode)."""
        self._next_id = max(self._next_id, checkpoint.checkpoint_id + 1)
        self._restored_checkpoint = checkpoint
        self.stats.restored(
            checkpoint.checkpoint_id, self._now(), checkpoint.external_pointer or "", checkpoint.is_savepoint
        )

    def tasks_restarted(self, attempt_ids: Iterable[str] | None = None) -> None:
        """Tasks were redeployed (``attempt_ids``: these attempts' tasks; None: all): the
        finished ones among them run again."""
        if attempt_ids is None:
            self._finished_states.clear()
        for attempt_id in attempt_ids or ():
            self._finished_states.pop(attempt_id, None)

    def receive_decline(
        self,
        attempt_id: str,
        checkpoint_id: int,
        reason: str,
        failure: CheckpointFailureReason = CheckpointFailureReason.CHECKPOINT_DECLINED,
    ) -> None:
        """A task could not take its part of ``checkpoint_id``: the checkpoint is aborted.
        ``failure``: a task not running yet, or closing, does not count towards the tolerated
        failures (as Flink's CheckpointFailureManager ignores those reasons)."""
        pending = self.pending.get(checkpoint_id)
        if pending is not None:
            self._abort(pending, failure, f"{attempt_id}: {reason}")

    def abort_pending(
        self, reason: CheckpointFailureReason = CheckpointFailureReason.JOB_FAILOVER_REGION
    ) -> None:
        """Abort every pending checkpoint (a task failed, the job ends)."""
        for pending in list(self.pending.values()):
            self._abort(pending, reason)

    def shutdown(self, job_status: str = "") -> None:
        """Stop triggering and abort what is pending; then keep or delete the completed
        checkpoints as the retention says (``job_status``: how the job ended)."""
        self.stop_scheduler()
        self.abort_pending(CheckpointFailureReason.CHECKPOINT_COORDINATOR_SHUTDOWN)
        self._shut_down = True
        for _directory, result, _drain in self._queued_savepoints:
            result.set_exception(CheckpointException(CheckpointFailureReason.CHECKPOINT_COORDINATOR_SHUTDOWN))
        self._queued_savepoints.clear()
        retention = self.settings.retention
        keep = retention == "RETAIN_ON_CANCELLATION" or (
            retention == "DELETE_ON_CANCELLATION" and job_status == "FAILED"
        )
        if job_status and not keep:
            for checkpoint in self.completed:
                self._discard(checkpoint)
            self.storage.discard_shared(self.job_id)

    def _discard(self, checkpoint: CompletedCheckpoint) -> None:
        """A completed checkpoint is no longer retained: its files, and the shared files only
        it referenced, go."""
        self.shared_state.release(checkpoint.task_states.values())
        self.storage.discard(checkpoint)
        self.stats.discarded(checkpoint.checkpoint_id)

    # -- completion and abort ------------------------------------------------------------------

    def _complete(self, pending: PendingCheckpoint) -> None:
        del self.pending[pending.checkpoint_id]
        now = self._now()
        completed = CompletedCheckpoint(
            self.job_id,
            pending.checkpoint_id,
            pending.timestamp,
            now,
            dict(pending.task_states),
            operator_ids=dict(self.operator_ids),
            max_parallelisms=dict(self.max_parallelisms),
            coordinator_states=pending.coordinator_states,
        )
        if pending.savepoint_dir is not None:
            self._complete_savepoint(pending, completed)
            return
        try:
            self.storage.write_metadata(completed)
        except Exception as err:
            self.shared_state.release(pending.task_states.values())
            self.stats.failed(
                pending.checkpoint_id, now, f"{CheckpointFailureReason.IO_EXCEPTION.message} {err}"
            )
            self._count_failure(CheckpointException(CheckpointFailureReason.IO_EXCEPTION, str(err)))
            self._notify_aborted(pending.checkpoint_id)
            self._after_end()
            return
        self.completed.append(completed)
        while len(self.completed) > self.settings.retained:
            self._discard(self.completed.pop(0))
        self._last_completion_ms = now
        self._consecutive_failures = 0
        self.num_completed += 1
        self._record_statistics(completed, now - pending.timestamp)
        # earlier checkpoints still pending are subsumed by this one (Flink aborts them)
        for older in [
            p
            for p in self.pending.values()
            if p.checkpoint_id < pending.checkpoint_id and p.savepoint_dir is None
        ]:
            del self.pending[older.checkpoint_id]
            self.stats.failed(older.checkpoint_id, now, "Checkpoint subsumed by a newer one")
            self.shared_state.release(older.task_states.values())
            self.storage.discard_location(self.job_id, older.checkpoint_id)
            self._notify_aborted(older.checkpoint_id)
        self._notify_complete(pending.checkpoint_id)
        self._after_end()

    def _complete_savepoint(self, pending: PendingCheckpoint, completed: CompletedCheckpoint) -> None:
        assert pending.savepoint_dir is not None and pending.savepoint_result is not None
        self.shared_state.release(pending.task_states.values())  # a savepoint is self-contained
        try:
            write_savepoint_metadata(pending.savepoint_dir, completed)
        except Exception as err:
            shutil.rmtree(pending.savepoint_dir, ignore_errors=True)
            pending.savepoint_result.set_exception(
                CheckpointException(CheckpointFailureReason.IO_EXCEPTION, str(err))
            )
            self.stats.failed(pending.checkpoint_id, self._now(), str(err))
            self._notify_aborted(pending.checkpoint_id)
            self._after_end()
            return
        self.num_completed += 1
        self._record_statistics(completed, completed.completion_timestamp - pending.timestamp)
        self._notify_complete(pending.checkpoint_id)
        pending.savepoint_result.set_result(pending.savepoint_dir)
        self._after_end()

    def _record_statistics(self, completed: CompletedCheckpoint, duration_ms: int) -> None:
        states = completed.task_states.values()
        self.last_duration_ms = duration_ms
        self.last_size_bytes = sum(state_size(state) for state in states)
        self.last_full_size_bytes = sum(state_size(state, full=True) for state in states)
        self.stats.completed(
            completed.checkpoint_id,
            completed.completion_timestamp,
            self.last_size_bytes,
            self.last_full_size_bytes,
            completed.external_pointer or "",
        )

    def _abort(self, pending: PendingCheckpoint, reason: CheckpointFailureReason, detail: str = "") -> None:
        if self.pending.pop(pending.checkpoint_id, None) is None:
            return
        self.shared_state.release(pending.task_states.values())
        self.stats.failed(pending.checkpoint_id, self._now(), f"{reason.message} {detail}".strip())
        if pending.savepoint_dir is not None:
            shutil.rmtree(pending.savepoint_dir, ignore_errors=True)
            assert pending.savepoint_result is not None
            pending.savepoint_result.set_exception(CheckpointException(reason, detail))
            self.num_failed += 1
            self._notify_aborted(pending.checkpoint_id)
            self._after_end()
            return
        self.storage.discard_location(self.job_id, pending.checkpoint_id)
        self.num_failed += 1
        log.info(
            "checkpoint %d of job %s aborted: %s %s",
            pending.checkpoint_id,
            self.job_id,
            reason.message,
            detail,
        )
        self._notify_aborted(pending.checkpoint_id)
        if reason.counts:
            self._count_failure(CheckpointException(reason, detail))
        self._after_end()

    def _count_failure(self, err: CheckpointException) -> None:
        self._consecutive_failures += 1
        if self._consecutive_failures > self.settings.tolerable_failures:
            self.stop_scheduler()
            failure = CheckpointException(
                err.reason,
                f"Exceeded checkpoint tolerable failure threshold ({self.settings.tolerable_failures}).",
            )
            failure.__cause__ = err
            self._on_failure(failure)

    def _after_end(self) -> None:
        """A checkpoint ended: a queued savepoint goes now; a deferred periodic trigger may go
        now (or after the min pause)."""
        if self._queued_savepoints and not self.pending:
            directory, result, drain = self._queued_savepoints.pop(0)
            self._start_savepoint(directory, result, drain)
            return
        if self._deferred and self._periodic and len(self.pending) < self.settings.max_concurrent:
            self._deferred = False
            delay = 0
            if self._last_completion_ms is not None:
                delay = self._last_completion_ms + self.settings.min_pause_ms - self._now()
            self._schedule_periodic(delay)

    def statistics(self) -> dict[str, Any]:
        """Flink's checkpoint metrics (names as its job metrics)."""
        latest = self.completed[-1] if self.completed else None
        return {
            "numberOfCompletedCheckpoints": self.num_completed,
            "numberOfFailedCheckpoints": self.num_failed,
            "numberOfInProgressCheckpoints": len(self.pending),
            "lastCheckpointDuration": self.last_duration_ms if self.last_duration_ms is not None else -1,
            "lastCheckpointSize": self.last_size_bytes if self.last_size_bytes is not None else -1,
            "lastCheckpointFullSize": (
                self.last_full_size_bytes if self.last_full_size_bytes is not None else -1
            ),
            "lastCompletedCheckpointId": latest.checkpoint_id if latest is not None else -1,
            "lastCheckpointExternalPath": (latest.external_pointer or "") if latest is not None else "",
        }

    def latest_completed(self) -> CompletedCheckpoint | None:
        """The newest completed checkpoint (what a restart restores), or the one the job
        started from."""
        return self.completed[-1] if self.completed else self._restored_checkpoint
