"""``TableResult.print()``: ``table.display.max-column-width`` sets the width of the columns
whose type has none of its own, as PyFlink's; and a value print() cannot write stops the job
and fails in one line. Before, print() cut every such column at 30 whatever the option, and a
cell it could not format raised ``[<class 'decimal.ConversionSyntax'>]`` while the job (and the
embedded cluster under it) ran on."""

from __future__ import annotations

import threading
import time

import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from millstream.table.udf import udf

_ROW = (
    "SELECT 'a very long string that is longer than thirty characters for sure' AS s, 12345 AS i, "
    "CAST(1.5 AS DECIMAL(20, 3)) AS d, TIMESTAMP '2024-01-01 00:00:00.123' AS ts, 'x' AS c"
)


def _t_env(batch: bool = True, width: str | None = None) -> TableEnvironment:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    if width is not None:
        config.set("table.display.max-column-width", width)
    return t_env


def test_the_option_sets_the_width_of_columns_without_one_of_their_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # PyFlink 2.3.0 prints, with table.display.max-column-width 100 (the INT, DECIMAL and
    # TIMESTAMP columns keep their widths):
    wide = (
        "+"
        + "-" * 102
        + "+-------------+------------------------+-------------------------+"
        + "-" * 102
        + "+\n"
        "|"
        + " " * 100
        + "s |           i |                      d |                      ts |"
        + " " * 100
        + "c |\n"
        "+"
        + "-" * 102
        + "+-------------+------------------------+-------------------------+"
        + "-" * 102
        + "+\n"
        "|" + " " * 36 + "a very long string that is longer than thirty characters for sure |       12345 |"
        "                  1.500 | 2024-01-01 00:00:00.123 |" + " " * 100 + "x |\n"
        "+"
        + "-" * 102
        + "+-------------+------------------------+-------------------------+"
        + "-" * 102
        + "+\n"
        "1 row in set\n"
    )
    _t_env(width="100").execute_sql(_ROW).print()
    assert capsys.readouterr().out == wide
    # with 10: the long string is cut to 10 columns
    _t_env(width="10").execute_sql(_ROW).print()
    assert capsys.readouterr().out == (
        "+------------+-------------+------------------------+-------------------------+------------+\n"
        "|          s |           i |                      d |                      ts |          c |\n"
        "+------------+-------------+------------------------+-------------------------+------------+\n"
        "| a very ... |       12345 |                  1.500 | 2024-01-01 00:00:00.123 |          x |\n"
        "+------------+-------------+------------------------+-------------------------+------------+\n"
        "1 row in set\n"
    )
    # streaming, 40
    _t_env(batch=False, width="40").execute_sql(
        "SELECT 'a very long string that is longer than thirty characters for sure' AS s, 1 AS i"
    ).print()
    assert capsys.readouterr().out == (
        "+----+------------------------------------------+-------------+\n"
        "| op |                                        s |           i |\n"
        "+----+------------------------------------------+-------------+\n"
        "| +I | a very long string that is longer tha... |           1 |\n"
        "+----+------------------------------------------+-------------+\n"
        "1 row in set\n"
    )


def test_a_value_print_cannot_write_stops_the_job_and_fails_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A function declared DECIMAL returning text: print() names the column and the row, in
    one line, and the unbounded job it reads from is released (no task runs on)."""
    t_env = _t_env(batch=False)
    t_env.create_temporary_function(
        "bad", udf(lambda x: "not a number", result_type=DataTypes.DECIMAL(10, 2))
    )
    t_env.execute_sql("CREATE TABLE g (x INT) WITH ('connector' = 'datagen', 'rows-per-second' = '5')")
    with pytest.raises(ValueError) as raised:
        t_env.execute_sql("SELECT bad(x) AS d FROM g").print()
    message = str(raised.value)
    assert message.startswith(
        "cannot print column 'd' of row 1: 'not a number' is not a DECIMAL(10, 2) value"
    )
    assert "\n" not in message
    deadline = time.monotonic() + 30
    while any("datagen" in t.name for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any("datagen" in t.name for t in threading.enumerate())
