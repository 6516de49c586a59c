"""FileSource splits are handed out on request by an enumerator on the JobMaster (FLIP-27):
a faster reader reads more, and a failed reader's splits are handed out again.

Each test reads numbered lines and checks that every line arrives exactly once; the
failure tests restart one pipelined region (region failover), so only the coordinator's
record of what it assigned to the failed subtask brings those splits back.
"""

from __future__ import annotations

import collections
import time
from pathlib import Path
from typing import Any

import pytest

from millstream.common import Configuration, Encoder, JobExecutionException, Types, WatermarkStrategy
from millstream.datastream import MapFunction, RuntimeExecutionMode, StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.file_system import FileSource, StreamFormat

from .test_checkpoints import FileTransactions, committed_lines
from .test_savepoints import wait_for_checkpoints

pytestmark = pytest.mark.timeout(120)

LINES = 20_000


def numbered_files(directory: Path, files: int = 4) -> Path:
    """``LINES`` lines (their numbers) in ``files`` files."""
    directory.mkdir()
    per_file = LINES // files
    for index in range(files):
        start = index * per_file
        (directory / f"part-{index}.txt").write_text(
            "".join(f"{i}\n" for i in range(start, start + per_file))
        )
    return directory


def line_source(directory: Path, split_size: int = 4096) -> FileSource:
    return (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(directory))
        .set_split_size(split_size)
        .build()
    )


def environment(mode: RuntimeExecutionMode, checkpoints: bool = False) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("minicluster.mode", "threads")
    conf.set_string("jobmanager.execution.failover-strategy", "region")
    conf.set_string("restart-strategy.type", "fixed-delay")
    conf.set_string("restart-strategy.fixed-delay.delay", "10 ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_runtime_mode(mode)
    env.set_parallelism(2)
    if checkpoints:
        env.enable_checkpointing(50)
    return env


class SlowOnSubtaskZero(MapFunction):
    """(subtask, line); subtask 0 takes 1 ms per 10 lines, subtask 1 runs free."""

    def open(self, runtime_context: Any) -> None:
        self.subtask = runtime_context.get_index_of_this_subtask()
        self.count = 0

    def map(self, value: Any) -> Any:
        self.count += 1
        if self.subtask == 0 and self.count % 10 == 0:
            time.sleep(0.001)  # the slow reader's load, not a wait for anything
        return (self.subtask, value)


def test_a_faster_reader_reads_more_splits(tmp_path: Path) -> None:
    """Subtask 0 is slowed down: with splits on request subtask 1 reads most of the input
    (with equal static shares each would read half, and the job would wait on subtask 0)."""
    env = environment(RuntimeExecutionMode.STREAMING)
    directory = numbered_files(tmp_path / "lines")
    rows = list(
        env.from_source(line_source(directory), WatermarkStrategy.no_watermarks(), "lines")
        .map(SlowOnSubtaskZero())
        .execute_and_collect()
    )
    assert sorted(int(line) for _, line in rows) == list(range(LINES))  # each line once
    per_subtask = collections.Counter(subtask for subtask, _ in rows)
    assert per_subtask[1] > 2 * per_subtask[0], per_subtask


class FailOnce(MapFunction):
    """Passes lines on; raises once (a marker file outlives the restart) at line ``fail_at``."""

    def __init__(self, marker: str, fail_at: int) -> None:
        self.marker = marker
        self.fail_at = fail_at

    def map(self, value: Any) -> Any:
        if int(value) == self.fail_at and not Path(self.marker).exists():
            Path(self.marker).touch()
            raise RuntimeError("boom (once)")
        return int(value)


def test_in_batch_a_restarted_reader_gets_its_splits_again(tmp_path: Path) -> None:
    """BATCH: source -> map is one region per subtask (the keyed exchange is blocking); the
    failed subtask restarts alone, from nothing: every split it had been given is handed out
    again, and the other subtask's results are not read twice."""
    env = environment(RuntimeExecutionMode.BATCH)
    directory = numbered_files(tmp_path / "lines")
    marker = tmp_path / "failed"
    out = tmp_path / "out"
    (
        env.from_source(line_source(directory), WatermarkStrategy.no_watermarks(), "lines")
        .map(FailOnce(str(marker), fail_at=LINES * 3 // 4), Types.LONG())
        .key_by(lambda v: v % 5, Types.LONG())
        .reduce(lambda a, b: a + b)
        .map(str, Types.STRING())
        .sink_to(FileSink.for_row_format(str(out), Encoder.simple_string_encoder()).build())
    )
    result = env.execute("batch, one reader fails")
    assert marker.exists() and result.get_all_accumulator_results()["numRestarts"] == 1
    expected = {str(sum(i for i in range(LINES) if i % 5 == k)): 1 for k in range(5)}
    assert committed_lines(out) == expected


def test_in_streaming_a_restarted_reader_gets_the_splits_given_after_its_checkpoint(tmp_path: Path) -> None:
    """STREAMING with checkpoints: source -> map -> transactional sink is one region per
    subtask; the failed subtask restores its reader's splits from the checkpoint and gets
    back those assigned after it: every line committed exactly once."""
    env = environment(RuntimeExecutionMode.STREAMING, checkpoints=True)
    directory = numbered_files(tmp_path / "lines")
    marker = tmp_path / "failed"
    (
        env.from_source(line_source(directory, split_size=2048), WatermarkStrategy.no_watermarks(), "lines")
        .map(SlowOnSubtaskZero())
        .map(lambda pair: pair[1])
        .map(FailOnce(str(marker), fail_at=LINES // 2))
        .add_sink(FileTransactions(str(tmp_path / "out")))
    )
    result = env.execute("streaming, one reader fails")
    assert marker.exists() and result.get_all_accumulator_results()["numRestarts"] == 1
    assert committed_lines(tmp_path / "out") == {str(i): 1 for i in range(LINES)}


def test_a_monitored_directory_read_by_a_restarted_reader_commits_every_line_once(tmp_path: Path) -> None:
    """A monitored directory: the enumerator discovers the files (two at the start, two while
    the job runs) and hands their splits out; a reader fails once and restarts alone from
    the latest checkpoint; every line of every file is committed exactly once."""
    env = environment(RuntimeExecutionMode.STREAMING, checkpoints=True)
    watched = tmp_path / "watched"
    watched.mkdir()

    def publish(index: int) -> None:
        hidden = watched / f".part-{index}.txt"
        hidden.write_text("".join(f"{i}\n" for i in range(index * 5000, (index + 1) * 5000)))
        hidden.rename(watched / f"part-{index}.txt")

    publish(0)
    publish(1)
    source = (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(watched))
        .monitor_continuously(50)
        .set_split_size(4096)
        .build()
    )
    marker = tmp_path / "failed"
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "watched")
        .map(SlowOnSubtaskZero())
        .map(lambda pair: pair[1])
        .map(FailOnce(str(marker), fail_at=7000))
        .add_sink(FileTransactions(str(tmp_path / "out")))
    )
    client = env.execute_async("monitored, one reader fails")
    expected = {str(i): 1 for i in range(20_000)}
    published = 2
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            committed = committed_lines(tmp_path / "out")
            if published < 4 and len(committed) >= published * 5000 // 2:
                publish(published)
                published += 1
            if published == 4 and committed == expected:
                break
            time.sleep(0.05)  # polling the committed files, not waiting in place of a signal
    finally:
        client.cancel()
        with pytest.raises(JobExecutionException, match="cancelled"):
            client.get_job_execution_result(timeout=30)
    assert marker.exists()
    assert committed_lines(tmp_path / "out") == expected


@pytest.mark.parametrize("second_parallelism", [1, 3])
def test_a_file_job_stopped_with_a_savepoint_resumes_at_another_parallelism_exactly_once(
    tmp_path: Path, second_parallelism: int
) -> None:
    """The savepoint holds the enumerator's unassigned splits and each reader's splits with
    its position; resumed at another parallelism, the readers' splits are dealt to the new
    subtasks and the enumerator hands out the rest: every line committed exactly once."""
    directory = numbered_files(tmp_path / "lines")
    out = tmp_path / "out"

    def run(parallelism: int, restore: str | None = None) -> Any:
        conf = Configuration().set_string("minicluster.mode", "threads")
        if restore is not None:
            conf.set_string("execution.state-recovery.path", restore)
        env = StreamExecutionEnvironment.get_execution_environment(conf)
        env.set_parallelism(parallelism)
        env.enable_checkpointing(50)
        (
            env.from_source(
                line_source(directory, split_size=2048), WatermarkStrategy.no_watermarks(), "lines"
            )
            .uid("lines")
            .map(Paced())
            .add_sink(FileTransactions(str(out)))
            .uid("sink")
        )
        return env

    client = run(2).execute_async("stopped")
    wait_for_checkpoints(client, 1)
    savepoint = client.stop_with_savepoint(savepoint_directory=str(tmp_path / "savepoints")).result(60)
    client.get_job_execution_result(60)
    before = committed_lines(out)
    assert 0 < sum(before.values()) < LINES  # stopped part-way
    run(second_parallelism, restore=str(savepoint)).execute("resumed")
    assert committed_lines(out) == {str(i): 1 for i in range(LINES)}


class Paced(MapFunction):
    """Lines as they are, at about 20,000 per second per subtask (the job runs long enough to
    be stopped part-way)."""

    def __init__(self) -> None:
        self.count = 0

    def map(self, value: Any) -> Any:
        self.count += 1
        if self.count % 100 == 0:
            time.sleep(0.005)
        return value
