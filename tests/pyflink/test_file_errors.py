"""File errors are reported before the job starts, and a failed job commits no part file
(issue 13, point 12).

A missing input path used to fail inside a source subtask, after the TaskManagers had
started, and a part file rolled by the rolling policy was committed (renamed to its final
name) at once, so a job failing afterwards left files that looked like finished output.
As Flink's FileSink, rolled part files now stay pending (hidden) until the end of input.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest

from millstream.common import Encoder, WatermarkStrategy
from millstream.common.job_execution_result import JobExecutionException
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.file_system import FileSink, FileSource, RollingPolicy, StreamFormat

pytestmark = pytest.mark.timeout(180)


def _copy_job(source: str, target: str) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    lines = env.from_source(
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), source).build(),
        WatermarkStrategy.no_watermarks(),
        "lines",
    )
    lines.sink_to(FileSink.for_row_format(target, Encoder.simple_string_encoder()).build())
    return env


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def test_a_missing_input_path_fails_before_any_task_manager_starts(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "input.txt"
    env = _copy_job(str(missing), str(tmp_path / "out"))
    before = _children()
    with pytest.raises(FileNotFoundError) as failure:
        env.execute()
    assert str(failure.value) == f"FileSource: cannot read input path {missing}: No such file or directory"
    assert _children() == before
    assert not (tmp_path / "out").exists()


def test_an_output_directory_that_cannot_be_created_fails_before_any_task_manager_starts(
    tmp_path: Path,
) -> None:
    (tmp_path / "in.txt").write_text("a\nb\n")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = _copy_job(str(tmp_path / "in.txt"), str(blocker / "out"))
    before = _children()
    with pytest.raises(NotADirectoryError) as failure:
        env.execute()
    assert (
        str(failure.value)
        == f"FileSink: cannot create the output directory {blocker / 'out'}: Not a directory"
    )
    assert _children() == before


def test_the_spark_runner_reports_a_missing_input_path_the_same_way(tmp_path: Path) -> None:
    job = tmp_path / "job.py"
    job.write_text(
        textwrap.dedent(
            f"""
            from millstream.common import Encoder, WatermarkStrategy
            from millstream.datastream import StreamExecutionEnvironment
            from millstream.datastream.connectors.file_system import FileSink, FileSource, StreamFormat
            env = StreamExecutionEnvironment.get_execution_environment()
            source = FileSource.for_record_stream_format(
                StreamFormat.text_line_format(), {str(tmp_path / "missing")!r}).build()
            sink = FileSink.for_row_format({str(tmp_path / "out")!r}, Encoder.simple_string_encoder()).build()
            env.from_source(source, WatermarkStrategy.no_watermarks(), "in").sink_to(sink)
            env.execute()
            """
        )
    )
    millstream = os.path.join(os.path.dirname(sys.executable), "millstream")
    result = subprocess.run(
        [millstream, "run", "--target", "spark", "--spark-master", "local[1]", str(job)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    missing = tmp_path / "missing"
    # one line (issue 30, point 4); nothing more to show, so no hint to --verbose (issue 46)
    assert last == f"millstream: FileSource: cannot read input path {missing}: No such file or directory"
    assert "SparkContext" not in result.stderr  # Spark was never started


def _fail_after(limit: int):  # type: ignore[no-untyped-def]
    def check(line: str) -> str:
        if int(line) >= limit:
            raise ValueError(f"bad record {line}")
        return line

    return check


def test_a_failed_job_leaves_no_part_file_that_looks_committed(tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("".join(f"{i}\n" for i in range(5_000)))
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.set_buffer_timeout(0)  # every record reaches the sink at once
    lines = env.from_source(
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(source)).build(),
        WatermarkStrategy.no_watermarks(),
        "lines",
    )
    sink = (
        FileSink.for_row_format(str(tmp_path / "out"), Encoder.simple_string_encoder())
        .with_rolling_policy(RollingPolicy.default_rolling_policy(part_size=16))  # roll every few lines
        .build()
    )
    lines.map(_fail_after(4_000)).sink_to(sink)
    with pytest.raises(JobExecutionException, match="on record '4000'"):
        env.execute()
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert written, "the sink wrote (and rolled) part files before the failure"
    assert all(p.name.startswith(".") and ".inprogress." in p.name for p in written), written


def test_a_file_that_is_not_parquet_fails_in_one_line_without_library_frames(tmp_path: Path) -> None:
    """pyarrow's frames are not the user's: a corrupt Parquet file read by a SQL table is one
    line naming the source and pyarrow's reason, not a "traceback of the user function"."""
    bad = tmp_path / "bad.parquet"
    bad.write_text("not a parquet file at all")
    job = tmp_path / "job.py"
    job.write_text(
        textwrap.dedent(
            f"""
            from millstream.table import EnvironmentSettings, TableEnvironment
            t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
            t_env.execute_sql(
                "CREATE TABLE s (a INT) WITH ('connector' = 'filesystem', "
                "'path' = '{bad}', 'format' = 'parquet')"
            )
            t_env.execute_sql("SELECT * FROM s").print()
            """
        )
    )
    result = subprocess.run([sys.executable, str(job)], capture_output=True, text=True, timeout=150)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(
        "millstream: Job 'collect' failed: source reader failed: operator 'Source: filesystem"
    )
    assert lines[0].endswith(
        "Parquet magic bytes not found in footer. Either the file is corrupted or this is not a parquet file."
    )
