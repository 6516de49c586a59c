"""Region failover (Flink's default ``jobmanager.execution.failover-strategy: region``): a
failed task restarts its pipelined region and the regions consuming from it, not the rest.

Each task notes the attempts it ran as (in a marker file per attempt and subtask), so the
tests see which parts of the job ran again.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from millstream.common import Configuration, Encoder, Types, WatermarkStrategy
from millstream.datastream import MapFunction, RuntimeExecutionMode, StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource

from .test_checkpoints import FileTransactions, committed_lines

pytestmark = pytest.mark.timeout(120)


class Attempts(MapFunction):
    """Passes values on; notes ``<name>-attempt-<n>-subtask-<i>``; raises once at ``fail_at``."""

    def __init__(self, directory: str, name: str, fail_at: int | None = None) -> None:
        self.directory = directory
        self.name = name
        self.fail_at = fail_at

    def open(self, runtime_context: Any) -> None:
        attempt = runtime_context.get_attempt_number()
        subtask = runtime_context.get_index_of_this_subtask()
        Path(self.directory, f"{self.name}-attempt-{attempt}-subtask-{subtask}").touch()

    def map(self, value: Any) -> Any:
        marker = Path(self.directory, f"{self.name}-failed")
        if value == self.fail_at and not marker.exists():
            marker.touch()
            raise RuntimeError("boom (once)")
        return value


def attempts(directory: Path, name: str) -> set[int]:
    return {int(p.name.split("-")[2]) for p in directory.glob(f"{name}-attempt-*")}


def env_with(strategy: str, mode: RuntimeExecutionMode, tmp_path: Path) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("minicluster.mode", "threads")
    conf.set_string("jobmanager.execution.failover-strategy", strategy)
    conf.set_string("restart-strategy.type", "fixed-delay")
    conf.set_string("restart-strategy.fixed-delay.delay", "10 ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(mode)
    env.set_parallelism(2)
    if mode is RuntimeExecutionMode.STREAMING:
        env.enable_checkpointing(50)
    return env


@pytest.mark.parametrize("strategy", ["region", "full"])
def test_a_failure_in_one_pipeline_restarts_only_that_pipeline(tmp_path, strategy):  # type: ignore[no-untyped-def]
    marks = tmp_path / "marks"
    marks.mkdir()
    env = env_with(strategy, RuntimeExecutionMode.STREAMING, tmp_path)
    for name, fail_at in (("steady", None), ("failing", 150)):
        source = DataGeneratorSource(lambda i: i, 300, 300.0, Types.LONG())
        (
            env.from_source(source, WatermarkStrategy.no_watermarks(), name)
            .map(Attempts(str(marks), name, fail_at))
            .add_sink(FileTransactions(str(tmp_path / name)))
        )
    result = env.execute("two pipelines, one fails")
    assert result.get_all_accumulator_results()["numRestarts"] == 1
    assert attempts(marks, "failing") == {0, 1}
    # region failover leaves the other pipeline (another region) running; full restarts it
    assert attempts(marks, "steady") == ({0} if strategy == "region" else {0, 1})
    for name in ("steady", "failing"):  # exactly once either way (checkpoints, 2PC sink)
        assert committed_lines(tmp_path / name) == {str(i): 1 for i in range(300)}


def test_in_batch_a_failure_after_a_blocking_exchange_does_not_run_the_producers_again(tmp_path):  # type: ignore[no-untyped-def]
    marks = tmp_path / "marks"
    marks.mkdir()
    env = env_with("region", RuntimeExecutionMode.BATCH, tmp_path)
    source = DataGeneratorSource(lambda i: i, 3000, None, Types.LONG())
    out = tmp_path / "out"
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
        .map(Attempts(str(marks), "produce"), Types.LONG())
        .key_by(lambda v: v % 7, Types.LONG())  # a blocking exchange in BATCH
        .reduce(lambda a, b: a + b)
        .map(Attempts(str(marks), "consume", fail_at=sum(i for i in range(3000) if i % 7 == 3)))
        .map(str, Types.STRING())
        .sink_to(FileSink.for_row_format(str(out), Encoder.simple_string_encoder()).build())
    )
    env.execute("batch with a failure after the exchange")
    assert committed_lines(out) == {str(sum(i for i in range(3000) if i % 7 == k)): 1 for k in range(7)}
    assert attempts(marks, "consume") == {0, 1}  # the consuming region ran again ...
    assert attempts(marks, "produce") == {0}  # ... reading the producers' finished results
    assert os.path.exists(marks / "consume-failed")
