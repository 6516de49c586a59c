"""Restarts are visible (issue 30, point 2): every failover prints one WARNING line on the
client's stderr (restart number, failing operator and subtask, the exception's type and
message, the wait before the restart), the JobManager's log records the state change with
the whole cause, and the JobClient gives the restart count and the exception history.

Before, a checkpointed job whose user function raised on every record restarted for 100 s
with an empty stderr, even at MILLSTREAM_LOG_LEVEL=INFO."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from millstream.common import Configuration, JobExecutionException, Types, WatermarkStrategy
from millstream.datastream import MapFunction, StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


class FailsThrice(MapFunction):
    """Raises on record 7 in the first three attempts (counted in a file: restarts
    deserialize a fresh function)."""

    def __init__(self, counter: str) -> None:
        self.counter = counter

    def map(self, value: int) -> int:
        if value == 7:
            path = Path(self.counter)
            failures = int(path.read_text()) if path.exists() else 0
            if failures < 3:
                path.write_text(str(failures + 1))
                raise ValueError(f"cannot handle {value}")
        return value


def _job(tmp_path: Path, checkpointing: bool, failover: str = "region") -> StreamExecutionEnvironment:
    conf = Configuration()
    conf.set_string("restart-strategy.exponential-delay.initial-backoff", "50 ms")
    conf.set_string("jobmanager.execution.failover-strategy", failover)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    if checkpointing:
        env.enable_checkpointing(200)
    source = DataGeneratorSource(lambda i: i, 40, 200.0, Types.LONG())
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
        .map(FailsThrice(str(tmp_path / "failures")), Types.LONG())
        .name("checker")
        .add_sink(lambda value: None)
    )
    return env


def test_each_restart_is_one_warning_line_on_stderr_and_in_the_job_clients_history(tmp_path, capsys, caplog):
    env = _job(tmp_path, checkpointing=True)
    with caplog.at_level(logging.INFO, logger="millstream.runtime.jobmanager"):
        client = env.execute_async("fails thrice")
        client.get_job_execution_result(timeout=120)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("WARNING millstream:")]
    assert len(lines) == 3, lines
    for number, line in enumerate(lines, 1):
        assert re.fullmatch(
            rf"WARNING millstream: Job 'fails thrice': operator 'checker' in .*checker.* \([12]/2\) failed: "
            rf"ValueError: cannot handle 7; restart {number} in \d+\.\d s",
            line,
        ), line
    # the client keeps the count and the history after the end, as while the job ran
    assert client.get_restart_count() == 3
    history = client.get_exception_history()
    assert [entry.restart for entry in history] == [1, 2, 3]
    assert all(
        entry.exception_name == "ValueError" and entry.message == "cannot handle 7" for entry in history
    )
    assert all(entry.operator_name == "checker" and entry.task_manager_id for entry in history)
    assert all("in map" in entry.stacktrace and "raise ValueError" in entry.stacktrace for entry in history)
    assert all(entry.backoff_ms is not None and entry.backoff_ms >= 50 for entry in history)
    # the JobManager's log: Flink's state changes, the restarts with their whole cause
    # (each failure restarts its pipelined region; the job stays RUNNING, as in Flink)
    assert caplog.text.count("tasks will be restarted to recover the failed task") == 3
    assert "switched from state RUNNING to FINISHED" in caplog.text
    assert caplog.text.count("Traceback") >= 3


def test_a_full_restart_is_a_state_change_of_the_job(tmp_path, capsys, caplog):
    """``jobmanager.execution.failover-strategy: full`` restarts the whole job: RESTARTING."""
    env = _job(tmp_path, checkpointing=True, failover="full")
    with caplog.at_level(logging.INFO, logger="millstream.runtime.jobmanager"):
        env.execute("fails thrice, fully")
    assert caplog.text.count("switched from state RUNNING to RESTARTING") == 3
    assert caplog.text.count("switched from state RESTARTING to RUNNING") == 3
    assert len(re.findall(r"restart \d in", capsys.readouterr().err)) == 3


def test_without_checkpoints_the_first_failure_fails_the_job_and_is_its_history(tmp_path, capsys):
    """Flink 2's default restart strategy without checkpoints is none: no restart line, the
    job fails with the cause, and the history holds that one failure."""
    env = _job(tmp_path, checkpointing=False)
    client = env.execute_async("fails once")
    with pytest.raises(JobExecutionException, match="operator 'checker'"):
        client.get_job_execution_result(timeout=120)
    assert "WARNING millstream" not in capsys.readouterr().err
    assert client.get_restart_count() == 0
    (entry,) = client.get_exception_history()
    assert entry.restart is None and entry.summary == "ValueError: cannot handle 7"
