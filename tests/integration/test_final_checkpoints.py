"""Checkpoints after tasks finished (Flink's FLIP-147) on the embedded runtime.

A STREAMING job with checkpoints on bounded input: a task whose input ended finishes its
operators, sends EndOfData and waits for a checkpoint taken after that (its final
checkpoint) before it ends; two-phase-commit sinks commit their last output when that
checkpoint completes, not at the end of input. Checkpoints go on while some tasks have
finished, with the finished tasks' final state standing in for them, so a failure after a
part of the job finished restores that part as finished instead of replaying it.
"""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from millstream.common import Configuration, Types, WatermarkStrategy
from millstream.datastream import ExternalizedCheckpointRetention, MapFunction, StreamExecutionEnvironment
from millstream.datastream.connectors import NumberSequenceSource
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.runtime.checkpoint.storage import load_completed_checkpoint

from .test_checkpoints import FileTransactions, committed_lines, completed_checkpoints

pytestmark = pytest.mark.timeout(120)


class LoggedTransactions(FileTransactions):
    """FileTransactions that log, in order, the checkpoints they hear of and their commits."""

    def __init__(self, directory: str, log: str) -> None:
        super().__init__(directory)
        self.log = log

    def _write(self, line: str) -> None:
        with open(self.log, "a") as f:
            f.write(line + "\n")

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        self._write(f"complete {checkpoint_id}")

    def commit(self, transaction):  # type: ignore[no-untyped-def]
        if os.path.exists(transaction) and os.path.getsize(transaction):
            self._write("commit")
        super().commit(transaction)


def env_with_checkpoints(directory: Any, mode: str = "threads", interval_ms: int = 100) -> Any:
    conf = Configuration().set_string("minicluster.mode", mode)
    conf.set_string("execution.checkpointing.dir", str(directory))
    conf.set_string("restart-strategy.type", "fixed-delay")
    conf.set_string("restart-strategy.fixed-delay.delay", "10 ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.enable_checkpointing(interval_ms)
    env.get_checkpoint_config().set_externalized_checkpoint_retention(
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION
    )
    return env


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_a_bounded_job_commits_its_last_output_when_its_final_checkpoint_completes(tmp_path, mode):  # type: ignore[no-untyped-def]
    log = tmp_path / "log"
    env = env_with_checkpoints(tmp_path / "chk", mode)
    env.set_parallelism(1)
    # ten records end long before the first checkpoint (100 ms) is due
    env.from_collection(list(range(10))).add_sink(LoggedTransactions(str(tmp_path / "out"), str(log)))
    result = env.execute("bounded with a final checkpoint")
    stats = result.get_all_accumulator_results()
    assert stats["numberOfCompletedCheckpoints"] >= 1  # the job waited for one
    assert committed_lines(tmp_path / "out") == {str(i): 1 for i in range(10)}
    # the output was committed by a completed checkpoint, not at the end of input
    lines = log.read_text().splitlines()
    assert lines.count("commit") == 1
    assert lines.index("commit") > 0 and lines[lines.index("commit") - 1].startswith("complete ")


class FailOnceAt(MapFunction):
    """Raises once, at one value (a marker file outlives the restart)."""

    def __init__(self, marker: str, at: int) -> None:
        self.marker = marker
        self.at = at

    def map(self, value):  # type: ignore[no-untyped-def]
        if value == self.at and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            raise RuntimeError("boom (once)")
        return value


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_checkpoints_go_on_after_a_part_of_the_job_finished_and_a_restart_keeps_it_finished(tmp_path, mode):  # type: ignore[no-untyped-def]
    out_short, out_long = tmp_path / "short", tmp_path / "long"
    env = env_with_checkpoints(tmp_path / "chk", mode, interval_ms=50)
    env.set_parallelism(1)
    # a short pipeline that ends at once, and a long one (about 1.5 s) that fails once late
    env.from_source(NumberSequenceSource(0, 9), WatermarkStrategy.no_watermarks(), "short").add_sink(
        FileTransactions(str(out_short))
    )
    long_source = DataGeneratorSource(lambda i: i, 300, 200.0, Types.LONG())
    (
        env.from_source(long_source, WatermarkStrategy.no_watermarks(), "long")
        .map(FailOnceAt(str(tmp_path / "failed-once"), 250))
        .add_sink(FileTransactions(str(out_long)))
    )
    result = env.execute("two pipelines")
    assert (tmp_path / "failed-once").exists()
    stats = result.get_all_accumulator_results()
    assert stats["numRestarts"] == 1
    # the short pipeline finished long before the failure: it was restored as finished (its
    # final state in the checkpoints), not run again, so its output is there exactly once
    assert committed_lines(out_short) == {str(i): 1 for i in range(10)}
    assert committed_lines(out_long) == {str(i): 1 for i in range(300)}
    # the last checkpoint holds every task, the finished ones included
    job_dir = tmp_path / "chk" / os.listdir(tmp_path / "chk")[0]
    last = load_completed_checkpoint(str(job_dir / completed_checkpoints(str(job_dir))[-1]))
    assert len(last.task_states) == 2  # one chained task per pipeline


def test_a_checkpointed_source_function_resumes_from_its_operator_state(tmp_path):  # type: ignore[no-untyped-def]
    from millstream.datastream.functions import CheckpointedFunction, SourceFunction
    from millstream.datastream.state import ListStateDescriptor

    class Counter(SourceFunction, CheckpointedFunction):  # type: ignore[misc]
        """Emits 0..599 with its offset in operator state, under the checkpoint lock."""

        def __init__(self) -> None:
            self.offset = 0
            self.running = True

        def initialize_state(self, context):  # type: ignore[no-untyped-def]
            self.state = context.get_operator_state_store().get_list_state(
                ListStateDescriptor("offset", Types.LONG())
            )
            for offset in self.state.get():
                self.offset = offset

        def snapshot_state(self, context):  # type: ignore[no-untyped-def]
            self.state.update([self.offset])

        def run(self, ctx):  # type: ignore[no-untyped-def]
            while self.running and self.offset < 600:
                with ctx.get_checkpoint_lock():
                    ctx.collect(self.offset)
                    self.offset += 1
                time.sleep(0.002)

        def cancel(self) -> None:
            self.running = False

    env = env_with_checkpoints(tmp_path / "chk", interval_ms=50)
    env.set_parallelism(1)
    (
        env.add_source(Counter(), "counter", Types.LONG())
        .map(FailOnceAt(str(tmp_path / "failed-once"), 400))
        .add_sink(FileTransactions(str(tmp_path / "out")))
    )
    result = env.execute("checkpointed source function")
    assert (tmp_path / "failed-once").exists()
    assert result.get_all_accumulator_results()["numRestarts"] == 1
    # resumed from its checkpointed offset: with exactly-once commits, every value once
    assert committed_lines(tmp_path / "out") == {str(i): 1 for i in range(600)}
