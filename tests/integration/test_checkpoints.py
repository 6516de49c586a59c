"""Checkpoints on the embedded runtime: the coordinator triggers the sources, barriers flow
through the real network stack, every task snapshots and acknowledges, and completed
checkpoints land in ``execution.checkpointing.dir`` (kept on cancellation when asked).

The check is consistency, the point of aligned barriers: in a checkpoint, the counts held
by the keyed reduce add up to exactly the records the sources had emitted before their
barrier (EXACTLY_ONCE), and to at least that many with AT_LEAST_ONCE (records after the
barrier may already be counted).
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from typing import Any

import pytest

from millstream.common import Configuration, Encoder, JobStatus, Types, WatermarkStrategy
from millstream.datastream import (
    CheckpointingMode,
    ExternalizedCheckpointRetention,
    KeyedProcessFunction,
    MapFunction,
    StreamExecutionEnvironment,
)
from millstream.datastream.connectors import FileSink, NumberSequenceSource
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.functions import TwoPhaseCommitSinkFunction
from millstream.datastream.state import ListStateDescriptor
from millstream.runtime.checkpoint.storage import FileStateHandle, load_completed_checkpoint

pytestmark = pytest.mark.timeout(120)


class SlowFirstSubtask(MapFunction):
    """Subtask 0 is slower: its barrier leaves later than subtask 1's, while subtask 1's records
    keep coming, which is when alignment matters."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.slow = runtime_context.get_index_of_this_subtask() == 0

    def map(self, value):  # type: ignore[no-untyped-def]
        if self.slow:
            time.sleep(0.0005)
        return (value % 7, 1)


def start_job(directory: Any, mode: str, checkpointing: CheckpointingMode) -> Any:
    conf = (
        Configuration()
        .set_string("minicluster.mode", mode)
        .set_string("execution.checkpointing.dir", str(directory))
    )
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(100, checkpointing)
    env.get_checkpoint_config().set_externalized_checkpoint_retention(
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION
    )
    env.set_buffer_timeout(0)  # records cross at once, so they are in flight when barriers are
    source = DataGeneratorSource(lambda i: i, None, 20_000.0, Types.LONG())
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
        .map(SlowFirstSubtask())
        .key_by(lambda pair: pair[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .add_sink(lambda value: None)
    )
    return env.execute_async("checkpointed counts")


def completed_checkpoints(job_dir: str) -> list[str]:
    if not os.path.isdir(job_dir):
        return []
    return sorted(
        (d for d in os.listdir(job_dir) if os.path.isfile(os.path.join(job_dir, d, "_metadata"))),
        key=lambda d: int(d.split("-")[1]),
    )


def wait_for_checkpoints(client: Any, job_dir: str, count: int, deadline_s: float = 60.0) -> list[str]:
    """Until checkpoint ``count`` completed (older ones are discarded as newer complete)."""
    started = time.monotonic()
    while True:
        done = completed_checkpoints(job_dir)
        if done and int(done[-1].split("-")[1]) >= count:
            return done
        assert client.get_job_status() in (JobStatus.CREATED, JobStatus.RUNNING), client.get_job_status()
        assert time.monotonic() - started < deadline_s, f"only {done} completed"
        time.sleep(0.05)  # polling an observable condition (files appearing), bounded by the deadline


def cancel_and_wait(client: Any) -> None:
    """Cancel the job and wait until it and its cluster are gone."""
    client.cancel()
    with pytest.raises(Exception, match="cancelled"):
        client.get_job_execution_result(60)


def counts_and_emitted(checkpoint: Any) -> tuple[int, int]:
    """(sum of the reduce's counts, records the sources emitted before the barrier)."""
    counted = emitted = 0
    for _task, snapshots in checkpoint.task_snapshots():
        for snapshot in snapshots.values():
            if isinstance(snapshot.extra, dict) and "emitted" in snapshot.extra:
                emitted += snapshot.extra["emitted"]
            for _key, value in snapshot.keyed:
                counted += value[1]
    return counted, emitted


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_aligned_checkpoints_are_consistent_snapshots_of_the_whole_job(tmp_path, mode):  # type: ignore[no-untyped-def]
    client = start_job(tmp_path, mode, CheckpointingMode.EXACTLY_ONCE)
    job_dir = os.path.join(tmp_path, str(client.get_job_id()))
    try:
        done = wait_for_checkpoints(client, job_dir, 3)
        stats = client.get_checkpoint_statistics()
        assert stats["numberOfCompletedCheckpoints"] >= 3 and stats["lastCheckpointSize"] > 0
        assert stats["lastCheckpointDuration"] >= 0 and stats["numRestarts"] == 0
    finally:
        cancel_and_wait(client)
    checkpoint = load_completed_checkpoint(os.path.join(job_dir, done[-1]))
    assert len(checkpoint.task_states) == 4  # 2 source-map tasks, 2 reduce-sink tasks
    # each task wrote its state file into the checkpoint's directory; the metadata points there
    handles = [handle for _task, handle in checkpoint.task_states.values()]
    assert all(isinstance(h, FileStateHandle) for h in handles)
    assert sorted(os.path.dirname(h.path) for h in handles) == [os.path.join(job_dir, done[-1])] * 4
    counted, emitted = counts_and_emitted(checkpoint)
    assert emitted > 0
    assert counted == emitted  # exactly the records before the barriers, nothing after
    with pytest.raises(Exception):
        client.get_job_execution_result(30)
    # retained on cancellation: at most execution.checkpointing.num-retained (1) stays
    assert len(completed_checkpoints(job_dir)) == 1


def test_at_least_once_checkpoints_count_every_record_before_the_barrier(tmp_path):  # type: ignore[no-untyped-def]
    client = start_job(tmp_path, "threads", CheckpointingMode.AT_LEAST_ONCE)
    job_dir = os.path.join(tmp_path, str(client.get_job_id()))
    try:
        done = wait_for_checkpoints(client, job_dir, 2)
    finally:
        cancel_and_wait(client)
    counted, emitted = counts_and_emitted(load_completed_checkpoint(os.path.join(job_dir, done[-1])))
    assert counted >= emitted > 0


class FailOnce(MapFunction):
    """Raises once (a marker file outlives the restart), at the first record from ``at`` on
    that comes after a checkpoint completed: on a loaded machine the first checkpoint may
    complete late, and a failure before it restarts from nothing."""

    def __init__(self, marker: str, at: int) -> None:
        self.marker = marker
        self.at = at
        self.checkpointed = False

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        self.checkpointed = True

    def map(self, value):  # type: ignore[no-untyped-def]
        time.sleep(0.0003)  # slow enough for checkpoints to complete before the input ends
        if value >= self.at and self.checkpointed and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            raise RuntimeError("boom (once)")
        return (value % 5, 1)


def restarting_env(
    mode: str, restart: str = "fixed-delay", interval_ms: int = 50
) -> StreamExecutionEnvironment:
    """Parallelism 2, checkpoints every ``interval_ms``, restarts 10 ms after a failure."""
    conf = Configuration().set_string("minicluster.mode", mode)
    conf.set_string("restart-strategy.type", restart)
    conf.set_string("restart-strategy.fixed-delay.delay", "10 ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(interval_ms)
    return env


def committed_lines(directory: Any) -> Counter[str]:
    """The lines of every committed (not hidden) file under ``directory``."""
    files = [p for p in directory.rglob("*") if p.is_file() and not p.name.startswith(".")]
    return Counter(line for p in files for line in p.read_text().splitlines())


def counting_job(tmp_path: Any, mode: str, restart: str, fail_at: int) -> Any:
    env = restarting_env(mode, restart)
    source = NumberSequenceSource(0, 5999)
    return (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
        .map(FailOnce(str(tmp_path / "failed-once"), fail_at))
        .key_by(lambda pair: pair[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
    )


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_a_failed_task_restarts_the_job_from_the_latest_checkpoint_and_counts_every_record_once(
    tmp_path, mode
):  # type: ignore[no-untyped-def]
    stream = counting_job(tmp_path, mode, "fixed-delay", fail_at=2500)
    with stream.execute_and_collect() as results:
        updates = list(results)
    assert (tmp_path / "failed-once").exists()  # it did fail
    final: dict[int, int] = {}
    restarted_at: dict[int, int] = {}  # key -> its first count after the restart
    for key, count in updates:
        if count <= final.get(key, 0) and key not in restarted_at:
            restarted_at[key] = count  # the replay after the restart
        final[key] = max(final.get(key, 0), count)
    # the restart resumed from a checkpoint: counts continue from the checkpointed state (a
    # restart from scratch would begin again at 1). No replay may show at all: the collected
    # results after the checkpoint the job restarts from are discarded, and a failure right
    # after a checkpoint leaves nothing to replay.
    assert all(count > 1 for count in restarted_at.values()), restarted_at
    # the rolling counts replayed after the restart start from the checkpointed state, so
    # each key's last count is its true count: no record lost, none counted twice
    assert final == {k: 1200 for k in range(5)}


def test_without_a_restart_strategy_the_failure_ends_the_job_with_its_cause(tmp_path):  # type: ignore[no-untyped-def]
    stream = counting_job(tmp_path, "threads", "none", fail_at=100)
    with (
        pytest.raises(Exception, match="user function raised") as failure,
        stream.execute_and_collect() as results,
    ):
        list(results)
    assert "boom (once)" in "".join(str(e) for e in _chain(failure.value))


def _chain(error: BaseException | None) -> list[BaseException]:
    out = []
    while error is not None:
        out.append(error)
        error = error.__cause__ or error.__context__
    return out


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_the_file_sink_commits_with_checkpoints_so_a_restart_writes_every_record_exactly_once(tmp_path, mode):  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    env = restarting_env(mode)
    sink = FileSink.for_row_format(str(out), Encoder.simple_string_encoder()).build()
    (
        env.from_source(NumberSequenceSource(0, 5999), WatermarkStrategy.no_watermarks(), "numbers")
        .map(FailOnce(str(tmp_path / "failed-once"), 2500), Types.TUPLE([Types.INT(), Types.INT()]))
        .map(lambda pair: pair[0], Types.INT())
        .rebalance()
        .sink_to(sink)
    )
    # the mapped values are (value % 5): count the lines of each residue
    result = env.execute("file sink across a restart")
    assert (tmp_path / "failed-once").exists()
    stats = result.get_all_accumulator_results()  # the final checkpoint and restart metrics
    assert stats["numRestarts"] == 1 and stats["numberOfCompletedCheckpoints"] >= 1
    assert committed_lines(out) == {str(k): 1200 for k in range(5)}
    # what the failed attempt wrote after its last checkpoint stays hidden, never committed
    assert all(p.name.startswith(".") for p in out.rglob("*inprogress*"))


class FileTransactions(TwoPhaseCommitSinkFunction):
    """A transactional sink: each transaction is a hidden file, committed by renaming it."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def begin_transaction(self):  # type: ignore[no-untyped-def]
        os.makedirs(self.directory, exist_ok=True)
        return os.path.join(self.directory, f".txn-{os.getpid()}-{time.monotonic_ns()}")

    def invoke(self, transaction, value, context):  # type: ignore[no-untyped-def]
        with open(transaction, "a") as f:
            f.write(f"{value}\n")

    def pre_commit(self, transaction):  # type: ignore[no-untyped-def]
        if not os.path.exists(transaction):
            open(transaction, "w").close()

    def commit(self, transaction):  # type: ignore[no-untyped-def]
        committed = transaction.replace(".txn-", "txn-")
        if os.path.exists(transaction):
            os.replace(transaction, committed)

    def abort(self, transaction):  # type: ignore[no-untyped-def]
        if os.path.exists(transaction):
            os.remove(transaction)


def test_a_two_phase_commit_sink_function_outputs_every_record_exactly_once_across_a_restart(tmp_path):  # type: ignore[no-untyped-def]
    out = tmp_path / "txns"
    env = restarting_env("threads")
    (
        env.from_source(NumberSequenceSource(0, 5999), WatermarkStrategy.no_watermarks(), "numbers")
        .map(FailOnce(str(tmp_path / "failed-once"), 2500))
        .map(lambda pair: pair[0])
        .rebalance()
        .add_sink(FileTransactions(str(out)))
    )
    env.execute("transactional sink across a restart")
    assert (tmp_path / "failed-once").exists()
    assert committed_lines(out) == {str(k): 1200 for k in range(5)}
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # aborted ones are gone


class Slow(MapFunction):
    def map(self, value):  # type: ignore[no-untyped-def]
        time.sleep(0.0005)
        return value % 5


def test_a_killed_task_manager_is_replaced_and_the_job_recovers_exactly_once(tmp_path):  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    env = restarting_env("processes", interval_ms=100)
    sink = FileSink.for_row_format(str(out), Encoder.simple_string_encoder()).build()
    (
        env.from_source(NumberSequenceSource(0, 5999), WatermarkStrategy.no_watermarks(), "numbers")
        .map(Slow(), Types.INT())
        .rebalance()
        .sink_to(sink)
    )
    client = env.execute_async("killed task manager")
    processes = client.cluster.task_manager_processes
    deadline = time.monotonic() + 60
    while client.get_checkpoint_statistics().get("numberOfCompletedCheckpoints", 0) < 2:
        assert time.monotonic() < deadline, "no checkpoint completed"
        time.sleep(0.02)  # polling an observable condition, bounded by the deadline
    victim = processes.processes[1]
    os.kill(victim.pid, signal.SIGKILL)
    result = client.get_job_execution_result(90)
    assert victim.poll() is not None  # the killed one is gone; a replacement ran the rest
    assert result.get_all_accumulator_results()["numRestarts"] == 1
    assert committed_lines(out) == {str(k): 1200 for k in range(5)}


class CountWithListState(KeyedProcessFunction):
    """Keeps every value of its key in ListState; emits (key, how many so far)."""

    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.seen = runtime_context.get_list_state(ListStateDescriptor("seen", Types.INT()))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        self.seen.add(value[1])
        yield (value[0], len(list(self.seen.get())))


def test_a_checkpoint_kept_in_memory_is_a_copy_the_running_task_does_not_change(tmp_path):  # type: ignore[no-untyped-def]
    """No checkpoint directory, tasks in threads: the snapshot is serialized when it is taken,
    so the list the task keeps appending to after the barrier is not what a restart restores."""
    env = restarting_env("threads")
    stream = (
        env.from_source(NumberSequenceSource(0, 5999), WatermarkStrategy.no_watermarks(), "numbers")
        .map(FailOnce(str(tmp_path / "failed-once"), 2500))
        .key_by(lambda pair: pair[0])
        .process(CountWithListState())
    )
    final: dict[int, int] = {}
    with stream.execute_and_collect() as results:
        for key, count in results:
            final[key] = count
    assert (tmp_path / "failed-once").exists()
    assert final == {k: 1200 for k in range(5)}
