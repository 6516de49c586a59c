"""CheckpointCoordinator with a manual clock: periodic triggers, acknowledgements, timeouts,
declines, concurrency and pause limits, retained checkpoints and the tolerable-failure count
(Flink's CheckpointCoordinator and CheckpointFailureManager rules)."""

from __future__ import annotations

import heapq
import itertools
import os
from collections.abc import Callable
from typing import Any

import pytest

from millstream.graph.checkpointing import CheckpointingSettings
from millstream.runtime.checkpoint.coordinator import (
    CheckpointCoordinator,
    CheckpointException,
    CheckpointFailureReason,
)
from millstream.runtime.checkpoint.storage import (
    FileStateHandle,
    FileSystemCheckpointStorage,
    InMemoryCheckpointStorage,
    load_completed_checkpoint,
    write_state_file,
)

TASKS = ("source-0", "map-0", "sink-0")


class Harness:
    """A coordinator, a manual clock, and a record of what it asked of the tasks."""

    def __init__(self, storage: Any = None, tasks: tuple[str, ...] | None = TASKS, **settings: Any) -> None:
        self.now = 0
        self._timers: list[tuple[int, int, Callable[[], None]]] = []
        self._sequence = itertools.count()
        self.tasks = tasks
        self.triggered: list[int] = []
        self.completed: list[int] = []
        self.aborted: list[int] = []
        self.failures: list[Exception] = []
        self.coordinator = CheckpointCoordinator(
            "job",
            CheckpointingSettings(**{"interval_ms": 1000, **settings}),
            storage or InMemoryCheckpointStorage(),
            tasks=lambda: self.tasks,
            trigger=lambda cid, ts, savepoint, drain: self.triggered.append(cid),
            notify_complete=self.completed.append,
            notify_aborted=self.aborted.append,
            on_failure=self.failures.append,
            now=lambda: self.now,
            schedule=self._schedule,
        )

    def _schedule(self, delay_ms: int, callback: Callable[[], None]) -> None:
        heapq.heappush(self._timers, (self.now + delay_ms, next(self._sequence), callback))

    def advance(self, ms: int) -> None:
        """Move the clock, running every callback due on the way, in time order."""
        end = self.now + ms
        while self._timers and self._timers[0][0] <= end:
            due, _, callback = heapq.heappop(self._timers)
            self.now = max(self.now, due)
            callback()
        self.now = end

    def ack_all(self, checkpoint_id: int) -> None:
        for task in TASKS:
            self.coordinator.receive_acknowledge(
                task, checkpoint_id, {"task": task, "checkpoint": checkpoint_id}
            )


def test_the_scheduler_triggers_every_interval_and_a_checkpoint_completes_when_all_tasks_acknowledge():
    h = Harness()
    h.coordinator.start_scheduler()
    h.advance(999)
    assert h.triggered == []
    h.advance(1)
    assert h.triggered == [1]
    h.coordinator.receive_acknowledge("source-0", 1)
    h.coordinator.receive_acknowledge("map-0", 1)
    assert h.completed == [] and 1 in h.coordinator.pending
    h.advance(5)
    h.coordinator.receive_acknowledge("sink-0", 1)
    assert h.completed == [1]
    assert h.coordinator.latest_completed().checkpoint_id == 1
    assert h.coordinator.last_duration_ms == 5
    h.advance(1000)
    assert h.triggered == [1, 2]


def test_acknowledgements_that_are_late_duplicated_or_unknown_are_ignored():
    h = Harness()
    pending = h.coordinator.trigger_checkpoint()
    assert h.coordinator.receive_acknowledge("source-0", pending.checkpoint_id)
    assert not h.coordinator.receive_acknowledge("source-0", pending.checkpoint_id)  # duplicate
    assert not h.coordinator.receive_acknowledge("someone-else", pending.checkpoint_id)
    assert not h.coordinator.receive_acknowledge("map-0", 99)
    h.ack_all(pending.checkpoint_id)
    assert h.completed == [1]
    assert not h.coordinator.receive_acknowledge("sink-0", 1)  # after completion


def test_a_checkpoint_that_times_out_is_aborted_and_fails_the_job_without_tolerance():
    h = Harness(timeout_ms=500)
    h.coordinator.trigger_checkpoint()
    h.coordinator.receive_acknowledge("source-0", 1)
    h.advance(499)
    assert h.aborted == []
    h.advance(1)
    assert h.aborted == [1] and not h.coordinator.pending
    assert len(h.failures) == 1
    assert isinstance(h.failures[0], CheckpointException)
    assert "Exceeded checkpoint tolerable failure threshold (0)" in str(h.failures[0])
    assert h.failures[0].reason is CheckpointFailureReason.CHECKPOINT_EXPIRED


def test_a_task_closing_or_not_ready_declines_without_counting_as_a_failure():
    """Flink's CheckpointFailureManager ignores CHECKPOINT_DECLINED_TASK_CLOSING / _NOT_READY:
    a task that ends while its state is written (its final checkpoint already complete) must
    not fail a job that tolerates no failed checkpoint."""
    h = Harness(tolerable_failures=0)
    for checkpoint_id, failure in (
        (1, CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_CLOSING),
        (2, CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_NOT_READY),
    ):
        h.coordinator.trigger_checkpoint()
        h.coordinator.receive_decline("map-0", checkpoint_id, "closing", failure)
    assert h.aborted == [1, 2] and h.failures == []
    h.coordinator.trigger_checkpoint()
    h.coordinator.receive_decline("map-0", 3, "an operator cannot snapshot")
    assert len(h.failures) == 1 and h.failures[0].reason is CheckpointFailureReason.CHECKPOINT_DECLINED


def test_failures_up_to_the_tolerable_number_are_survived_and_a_completion_resets_the_count():
    h = Harness(tolerable_failures=2)
    for checkpoint_id in (1, 2):
        h.coordinator.trigger_checkpoint()
        h.coordinator.receive_decline("map-0", checkpoint_id, "not ready")
    assert h.aborted == [1, 2] and h.failures == []
    h.coordinator.trigger_checkpoint()
    h.ack_all(3)  # resets the count
    for checkpoint_id in (4, 5):
        h.coordinator.trigger_checkpoint()
        h.coordinator.receive_decline("map-0", checkpoint_id, "not ready")
    assert h.failures == []
    h.coordinator.trigger_checkpoint()
    h.coordinator.receive_decline("map-0", 6, "not ready")
    assert len(h.failures) == 1 and h.failures[0].reason is CheckpointFailureReason.CHECKPOINT_DECLINED


def test_an_abort_for_a_task_failure_does_not_count_as_a_checkpoint_failure():
    h = Harness()
    h.coordinator.trigger_checkpoint()
    h.coordinator.abort_pending()
    assert h.aborted == [1] and h.failures == []


def test_at_most_max_concurrent_checkpoints_and_a_skipped_trigger_runs_when_one_ends():
    h = Harness(max_concurrent=1)
    h.coordinator.start_scheduler()
    h.advance(1000)
    assert h.triggered == [1]
    h.advance(2500)  # two intervals pass while checkpoint 1 is pending
    assert h.triggered == [1]
    with pytest.raises(CheckpointException, match="maximum number of queued checkpoint requests"):
        h.coordinator.trigger_checkpoint()
    h.ack_all(1)
    h.advance(0)
    assert h.triggered == [1, 2]  # the deferred trigger went at once


def test_the_minimum_pause_counts_from_the_last_completion():
    h = Harness(min_pause_ms=800)
    h.coordinator.start_scheduler()
    h.advance(1000)
    h.advance(600)
    h.ack_all(1)  # completes at 1600
    h.advance(400)  # 2000: the interval is due but the pause lasts until 2400
    assert h.triggered == [1]
    with pytest.raises(CheckpointException, match="minimum time between checkpoints"):
        h.coordinator.trigger_checkpoint()
    h.advance(399)
    assert h.triggered == [1]
    h.advance(1)
    assert h.triggered == [1, 2]


def test_no_checkpoint_while_not_all_tasks_run():
    h = Harness(tasks=None)
    with pytest.raises(CheckpointException, match="Not all required tasks are currently running"):
        h.coordinator.trigger_checkpoint()
    h.coordinator.start_scheduler()
    h.advance(1000)
    assert h.triggered == [] and h.failures == []  # the scheduler just tries again later
    h.tasks = TASKS
    h.advance(1000)
    assert h.triggered == [1]


def test_a_completed_checkpoint_subsumes_older_pending_ones():
    h = Harness(max_concurrent=3)
    for _ in range(3):
        h.coordinator.trigger_checkpoint()
    h.ack_all(2)
    assert h.completed == [2] and h.aborted == [1]
    assert list(h.coordinator.pending) == [3]


def test_file_storage_keeps_the_retained_checkpoints_with_atomic_versioned_metadata(tmp_path):
    storage = FileSystemCheckpointStorage(f"file://{tmp_path}")
    h = Harness(storage=storage, retained=2)
    for checkpoint_id in (1, 2, 3):
        h.coordinator.trigger_checkpoint()
        h.ack_all(checkpoint_id)
    job_dir = tmp_path / "job"
    assert sorted(os.listdir(job_dir)) == ["chk-2", "chk-3"]
    assert os.listdir(job_dir / "chk-3") == ["_metadata"]
    restored = load_completed_checkpoint(str(job_dir / "chk-3"))
    assert restored.checkpoint_id == 3
    assert restored.task_states["map-0"] == {"task": "map-0", "checkpoint": 3}
    h.coordinator.trigger_checkpoint()
    h.coordinator.receive_decline("sink-0", 4, "boom")
    assert not (job_dir / "chk-4").exists()  # an aborted checkpoint leaves nothing behind
    with pytest.raises(FileNotFoundError, match="no completed checkpoint"):
        load_completed_checkpoint(str(job_dir / "chk-4"))


def test_shutdown_aborts_pending_checkpoints_and_stops_triggering():
    h = Harness()
    h.coordinator.start_scheduler()
    h.advance(1000)
    h.coordinator.shutdown()
    assert h.aborted == [1] and h.failures == []
    h.advance(5000)
    assert h.triggered == [1]
    with pytest.raises(CheckpointException, match="shutdown"):
        h.coordinator.trigger_checkpoint()


def test_a_finished_task_is_represented_by_its_final_state_in_later_and_pending_checkpoints():
    """FLIP-147: a task that ended after its final checkpoint is not asked again; its state from
    the last completed checkpoint it took part in stands in for it."""
    h = Harness()
    c = h.coordinator
    c.trigger_checkpoint()
    h.ack_all(1)  # the source's final checkpoint: it ended its data before this barrier
    c.trigger_checkpoint()  # 2 still expects the source, which ends before its barrier
    c.receive_acknowledge("map-0", 2, "map@2")
    c.receive_acknowledge("sink-0", 2, "sink@2")
    assert 2 in c.pending
    c.task_finished("source-0")
    assert h.completed == [1, 2]
    assert c.latest_completed().task_states["source-0"] == {"task": "source-0", "checkpoint": 1}
    h.tasks = ("map-0", "sink-0")  # the running ones
    pending = c.trigger_checkpoint()
    assert pending.not_yet_acknowledged == {"map-0", "sink-0"}
    c.receive_acknowledge("map-0", 3, "map@3")
    c.receive_acknowledge("sink-0", 3, "sink@3")
    assert c.latest_completed().task_states == {
        "source-0": {"task": "source-0", "checkpoint": 1},
        "map-0": "map@3",
        "sink-0": "sink@3",
    }
    c.tasks_restarted()  # redeployed: the attempt that finished is gone
    h.tasks = TASKS
    assert c.trigger_checkpoint().task_states == {}


def test_a_savepoint_waits_for_the_pending_checkpoint_and_is_kept_apart_from_the_checkpoints(tmp_path):
    storage = FileSystemCheckpointStorage(str(tmp_path / "checkpoints"))
    h = Harness(storage=storage, retained=1, tolerable_failures=0)
    h.coordinator.trigger_checkpoint()
    result = h.coordinator.trigger_savepoint(str(tmp_path / "savepoints"))
    assert h.triggered == [1]  # one barrier at a time: the savepoint is queued
    h.ack_all(1)
    assert h.triggered == [1, 2] and not result.done()
    h.ack_all(2)
    path = result.result(0)
    assert h.completed == [1, 2]  # tasks commit what the savepoint covers
    assert os.path.basename(path).startswith("savepoint-job-") and os.listdir(path) == ["_metadata"]
    savepoint = load_completed_checkpoint(path)
    assert savepoint.is_savepoint and savepoint.checkpoint_id == 2
    assert h.coordinator.latest_completed().checkpoint_id == 1  # failover keeps the checkpoint
    h.coordinator.trigger_checkpoint()
    h.ack_all(3)
    assert os.path.isdir(path)  # a newer checkpoint does not subsume a savepoint
    failed = h.coordinator.trigger_savepoint(str(tmp_path / "savepoints"))
    h.coordinator.receive_decline("map-0", 4, "no")
    with pytest.raises(CheckpointException, match="declined"):
        failed.result(0)
    assert os.listdir(tmp_path / "savepoints") == [os.path.basename(path)]  # nothing left behind
    assert h.failures == []  # a failed savepoint does not fail the job
    h.coordinator.shutdown("CANCELED")
    assert os.path.isdir(path) and os.listdir(tmp_path / "checkpoints" / "job") == []


def test_shared_state_files_live_while_a_retained_or_pending_checkpoint_references_them(tmp_path):
    """Incremental checkpoints: the coordinator counts the checkpoints referencing each shared
    file (pending ones included) and deletes a file when the last one is discarded."""
    shared = tmp_path / "job" / "shared"
    shared.mkdir(parents=True)

    def file(name: str) -> str:
        (shared / name).write_bytes(b"sst")
        return str(shared / name)

    def state(files: list[str], uploaded: list[str]) -> tuple[str, FileStateHandle]:
        # (task key, handle): what the JobMaster hands the coordinator
        handle = FileStateHandle(
            "state", 1, frozenset(files), frozenset(uploaded), 3 * len(files), 3 * len(uploaded)
        )
        return ("map", handle)

    storage = FileSystemCheckpointStorage(str(tmp_path))
    h = Harness(storage, tasks=("map-0", "map-1"), retained=1, max_concurrent=2, tolerable_failures=5)
    c = h.coordinator
    a, b = file("a"), file("b")
    c.trigger_checkpoint()
    c.receive_acknowledge("map-0", 1, state([a, b], [a, b]))
    c.receive_acknowledge("map-1", 1, None)
    assert h.completed == [1]
    c.trigger_checkpoint()  # 2 reuses b and adds x
    c.trigger_checkpoint()  # 3 adds y, then is declined
    x, y = file("x"), file("y")
    c.receive_acknowledge("map-0", 3, state([b, y], [y]))
    c.receive_decline("map-1", 3, "a failure")
    assert h.aborted == [3]
    assert not os.path.exists(y) and os.path.exists(b)
    c.receive_acknowledge("map-0", 2, state([b, x], [x]))
    c.receive_acknowledge("map-1", 2, None)
    assert h.completed == [1, 2]
    assert not os.path.exists(a) and os.path.exists(b) and os.path.exists(x)  # 1 was discarded
    stats = c.statistics()  # checkpointed size: what 2 wrote; full size: with the reused b
    assert stats["lastCheckpointFullSize"] - stats["lastCheckpointSize"] == 3
    late = file("late")
    c.receive_acknowledge("map-0", 3, state([b, late], [late]))  # after the abort: dropped
    assert not os.path.exists(late) and os.path.exists(b)
    c.trigger_checkpoint()  # 4 reuses a, which no checkpoint holds any more: declined
    c.receive_acknowledge("map-0", 4, state([a, b], []))
    assert h.aborted == [3, 4] and 4 not in c.pending
    assert os.path.exists(b) and os.path.exists(x)
    orphan = file("orphan")  # uploaded for a checkpoint whose acknowledgement never came (TM killed)
    c.shutdown("CANCELED")
    assert not os.path.exists(b) and not os.path.exists(x) and not os.path.exists(orphan)
    assert not shared.exists()


def test_a_state_disposed_while_it_is_written_declines_as_task_closing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from millstream.runtime.state.rocksdb_snapshots import SnapshotAbortedError
    from millstream.runtime.state.snapshot import DeferredSnapshot
    from millstream.runtime.taskmanager.task_executor import _CheckpointResponder

    class Disposed(DeferredSnapshot):
        def materialize(self):  # type: ignore[no-untyped-def]
            raise SnapshotAbortedError("state of 'KeyedProcess (1/2)' was disposed while it was snapshotted")

    class JobMaster:
        def __init__(self) -> None:
            self.declined: list[tuple] = []  # type: ignore[type-arg]

        def decline_checkpoint(self, attempt_id, checkpoint_id, reason, kind=""):  # type: ignore[no-untyped-def]
            self.declined.append((attempt_id, checkpoint_id, kind))

        def acknowledge_checkpoint(self, *args):  # type: ignore[no-untyped-def]
            raise AssertionError("acknowledged a state that could not be read")

    master = JobMaster()
    responder = _CheckpointResponder(master, "attempt", "job", str(tmp_path), lambda: None)  # type: ignore[arg-type]
    responder._write_and_acknowledge(
        7, str(tmp_path / "chk-7"), b"main", [Disposed()], [], frozenset(), (0, 0)
    )
    assert master.declined == [("attempt", 7, "task-closing")]


def test_an_aborted_checkpoint_leaves_no_directory_when_a_task_writes_into_it_while_it_is_deleted(
    tmp_path, monkeypatch
):
    """An abort racing a task's state write (seen when a job was cancelled mid-checkpoint): a
    file created in ``chk-<n>`` after the delete listed the directory made its final rmdir fail,
    and ``chk-<n>`` survived holding it. Renamed out of the way first, the late write finds no
    directory (``write_state_file`` then gives up) and nothing named ``chk-`` remains."""
    storage = FileSystemCheckpointStorage(str(tmp_path))
    location = storage.initialize_location("job", 5)
    assert location is not None
    write_state_file(location, "task-early", b"state")
    late: list[object] = []
    real_rmdir = os.rmdir

    def rmdir_after_a_late_write(path, *args, **kwargs):
        late.append(write_state_file(location, "task-late", b"state"))  # the task's write, late
        return real_rmdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "rmdir", rmdir_after_a_late_write)
    storage.discard_location("job", 5)
    monkeypatch.undo()
    assert late == [None]  # the task saw the checkpoint was gone
    assert sorted(os.listdir(tmp_path / "job")) == []


def test_a_discarded_checkpoint_stops_looking_completed_before_its_directory_moves(tmp_path, monkeypatch):
    """Its ``_metadata`` goes first: a reader of the job's directory never sees a completed
    checkpoint under the temporary name it is deleted from."""
    storage = FileSystemCheckpointStorage(str(tmp_path))
    location = storage.initialize_location("job", 2)
    assert location is not None
    (tmp_path / "job" / "chk-2" / "_metadata").write_bytes(b"metadata")
    seen: list[bool] = []
    real_rename = os.rename

    def rename(source, target, *args, **kwargs):
        seen.append(os.path.exists(os.path.join(source, "_metadata")))
        return real_rename(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    storage.discard_location("job", 2)
    monkeypatch.undo()
    assert seen == [False]
    assert os.listdir(tmp_path / "job") == []
