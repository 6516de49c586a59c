"""The JDBC sinks' batching writer (issue 49, JDBC) as Flink's ``JdbcOutputFormat``: a batch is
written when it holds ``batch size`` records, when the batch interval has passed (a flush
thread of the writer), when asked (a checkpoint) and at close; a failed batch is written again
up to the retries; when they are spent the error is one line naming the record the database
refuses. Runs on SQLite files (no server)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from millstream.common.typeinfo import Types
from millstream.connectors.jdbc.connection import JdbcOptions
from millstream.connectors.jdbc.errors import JdbcWriteError
from millstream.connectors.jdbc.options import JdbcConnectionOptions, JdbcExecutionOptions
from millstream.connectors.jdbc.output_format import JdbcOutputFormat, SimpleBatchStatementExecutor
from millstream.datastream.connectors.jdbc import JdbcSink


def _database(tmp_path: Path) -> str:
    path = tmp_path / "out.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    return str(path)


def _rows(path: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT id, name FROM t ORDER BY id").fetchall()


def _format(path: str, execution: JdbcExecutionOptions, fail: list[int] | None = None) -> JdbcOutputFormat:
    sql = "INSERT INTO t (id, name) VALUES (?, ?)"

    def factory() -> SimpleBatchStatementExecutor:
        executor = SimpleBatchStatementExecutor(sql, tuple)
        if fail:  # fail the first executions, then succeed
            run = executor.execute_batch

            def flaky(connection: Any) -> None:
                if fail and fail.pop():
                    raise sqlite3.OperationalError("disk I/O error (a transient failure)")
                run(connection)

            executor.execute_batch = flaky  # type: ignore[method-assign]
        return executor

    return JdbcOutputFormat(JdbcOptions(f"jdbc:sqlite:{path}"), execution, factory)


def test_a_batch_is_written_when_full_and_the_rest_on_flush(tmp_path: Path) -> None:
    path = _database(tmp_path)
    writer = _format(path, JdbcExecutionOptions.builder().with_batch_size(3).build())
    writer.open("JdbcSink")
    for i in range(5):
        writer.write_record((i, f"n{i}"))
    assert _rows(path) == [(0, "n0"), (1, "n1"), (2, "n2")]
    writer.flush()  # a checkpoint
    assert len(_rows(path)) == 5
    writer.write_record((5, "n5"))
    writer.close()  # the end of input
    assert len(_rows(path)) == 6


def test_the_batch_interval_writes_a_batch_that_is_not_full(tmp_path: Path) -> None:
    path = _database(tmp_path)
    writer = _format(
        path, JdbcExecutionOptions.builder().with_batch_size(1000).with_batch_interval_ms(50).build()
    )
    writer.open("JdbcSink")
    try:
        writer.write_record((1, "a"))
        deadline = time.monotonic() + 30
        while not _rows(path) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _rows(path) == [(1, "a")]
    finally:
        writer.close()


def test_a_failed_batch_is_written_again(tmp_path: Path) -> None:
    path = _database(tmp_path)
    failures = [1]
    writer = _format(
        path, JdbcExecutionOptions.builder().with_batch_size(2).with_max_retries(2).build(), failures
    )
    writer.open("JdbcSink")
    writer.write_record((1, "a"))
    writer.write_record((2, "b"))  # fails once, then is written
    assert failures == []
    writer.close()
    assert _rows(path) == [(1, "a"), (2, "b")]


def test_spent_retries_fail_in_one_line_naming_the_refused_record(tmp_path: Path) -> None:
    path = _database(tmp_path)
    writer = _format(path, JdbcExecutionOptions.builder().with_batch_size(3).with_max_retries(1).build())
    writer.open("Sink: books")
    writer.write_record((1, "a"))
    writer.write_record((2, None))  # NOT NULL
    with pytest.raises(JdbcWriteError) as error:
        writer.write_record((3, "c"))
    writer.close()  # nothing more is written, nothing raised again
    message = str(error.value)
    assert message == (
        "Writing records to JDBC failed on the record (2, None) (INSERT INTO t (id, name) VALUES (?, ?)): "
        "IntegrityError: NOT NULL constraint failed: t.name"
    )
    assert error.value.describe_failure("Sink: books (1/2)#0").endswith(
        "(operator 'Sink: books' in subtask Sink: books (1/2)#0)"
    )
    assert _rows(path) == []  # the batch is one transaction


def test_jdbc_sink_builds_as_pyflink_s(tmp_path: Path) -> None:
    options = (
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder()
        .with_url(f"jdbc:sqlite:{tmp_path}/x.db")
        .with_driver_name("org.sqlite.JDBC")
        .with_user_name("u")
        .with_password("p")
        .build()
    )
    assert (
        options.get_db_url(),
        options.get_driver_name(),
        options.get_user_name(),
        options.get_password(),
    ) == (
        f"jdbc:sqlite:{tmp_path}/x.db",
        "org.sqlite.JDBC",
        "u",
        "p",
    )
    execution = (
        JdbcExecutionOptions.builder()
        .with_batch_size(10)
        .with_batch_interval_ms(200)
        .with_max_retries(5)
        .build()
    )
    assert (execution.get_batch_size(), execution.get_batch_interval_ms(), execution.get_max_retries()) == (
        10,
        200,
        5,
    )
    defaults = JdbcExecutionOptions.defaults()  # Flink's JdbcExecutionOptions defaults
    assert (defaults.get_batch_size(), defaults.get_batch_interval_ms(), defaults.get_max_retries()) == (
        5000,
        0,
        3,
    )
    sink = JdbcSink.sink("INSERT INTO t VALUES (?, ?)", Types.ROW([Types.INT(), Types.STRING()]), options)
    assert isinstance(sink, JdbcSink)
    with pytest.raises(ValueError, match=r"^Unsupported type: Instant$"):
        JdbcSink.sink("INSERT INTO t VALUES (?)", Types.ROW([Types.INSTANT()]), options)
    with pytest.raises(ValueError, match="jdbc url is empty"):
        JdbcConnectionOptions.JdbcConnectionOptionsBuilder().build()


def test_the_module_takes_pyflink_s_parameters() -> None:
    """``pyflink/datastream/connectors/jdbc.py`` of PyFlink 2.3.0: the same names and order."""
    import inspect

    def names(function: Any) -> list[str]:
        return [p for p in inspect.signature(function).parameters if p != "self"]

    assert names(JdbcSink.sink) == ["sql", "type_info", "jdbc_connection_options", "jdbc_execution_options"]
    builder = JdbcConnectionOptions.JdbcConnectionOptionsBuilder
    assert [
        names(getattr(builder, m))
        for m in ("with_url", "with_driver_name", "with_user_name", "with_password")
    ] == [
        ["url"],
        ["driver_name"],
        ["user_name"],
        ["password"],
    ]
    execution = JdbcExecutionOptions.Builder
    assert [
        names(getattr(execution, m))
        for m in ("with_batch_size", "with_batch_interval_ms", "with_max_retries")
    ] == [
        ["size"],
        ["interval_ms"],
        ["max_retries"],
    ]
