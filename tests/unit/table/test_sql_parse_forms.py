"""Flink's parse forms of functions, checked against PyFlink 2.3.0 (batch mode, UTC)."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment


def _row(sql: str) -> tuple[object, ...]:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("table.local-time-zone", "UTC")
    (row,) = list(t_env.execute_sql(sql).collect())
    return tuple(row)


def test_position_from_a_start() -> None:
    """PyFlink 2.3.0 prints ``<Row(4, 2, 0)>`` for POSITION('b' IN 'abcb' FROM 3),
    POSITION('b' IN 'abcb'), POSITION('b' IN 'abcb' FROM 5); the FROM form did not parse."""
    sql = "SELECT POSITION('b' IN 'abcb' FROM 3), POSITION('b' IN 'abcb'), POSITION('b' IN 'abcb' FROM 5)"
    assert _row(sql) == (4, 2, 0)


def test_ceiling_to_a_unit() -> None:
    """PyFlink 2.3.0 prints ``<Row(datetime.datetime(2024, 1, 1, 13, 0), datetime.datetime(2024,
    1, 1, 13, 0))>`` for CEILING(... TO HOUR), CEIL(... TO HOUR); CEILING ... TO did not parse."""
    sql = (
        "SELECT CEILING(TIMESTAMP '2024-01-01 12:34:56' TO HOUR), "
        "CEIL(TIMESTAMP '2024-01-01 12:34:56' TO HOUR)"
    )
    assert _row(sql) == (datetime.datetime(2024, 1, 1, 13, 0), datetime.datetime(2024, 1, 1, 13, 0))


def test_abs_of_an_interval_is_refused() -> None:
    """PyFlink 2.3.0 refuses SELECT ABS(INTERVAL '1' DAY) with ``CodeGenException: Unsupported
    call: ABS(INTERVAL SECOND(3) NOT NULL)``; millstream returned the interval."""
    with pytest.raises(ValueError, match=re.escape("Unsupported call: ABS(INTERVAL SECOND(3) NOT NULL)")):
        _row("SELECT ABS(INTERVAL '1' DAY)")
    assert _row("SELECT ABS(-2)") == (2,)


def test_a_datetime_difference_as_an_interval() -> None:
    """PyFlink 2.3.0 prints ``+0 12:00:00.000`` (INTERVAL SECOND(3)) for both (TIMESTAMP
    '2024-01-02 00:00:00' - TIMESTAMP '2024-01-01 12:00:00') HOUR and ... DAY (the whole
    difference), ``+60 00:00:00.000`` for (DATE '2024-03-01' - DATE '2024-01-01') DAY, ``+0-02``
    (INTERVAL MONTH) for ... MONTH and ``+0 23:30:00.000`` for (TIMESTAMP '2024-01-02 00:00:00'
    - TIMESTAMP '2024-01-01 00:30:00') MINUTE cast to STRING; the form did not parse."""
    differences = (
        "(TIMESTAMP '2024-01-02 00:00:00' - TIMESTAMP '2024-01-01 12:00:00') HOUR",
        "(TIMESTAMP '2024-01-02 00:00:00' - TIMESTAMP '2024-01-01 12:00:00') DAY",
        "(DATE '2024-03-01' - DATE '2024-01-01') DAY",
        "(DATE '2024-03-01' - DATE '2024-01-01') MONTH",
        "(TIMESTAMP '2024-01-02 00:00:00' - TIMESTAMP '2024-01-01 00:30:00') MINUTE",
    )
    sql = "SELECT " + ", ".join(f"CAST({d} AS STRING)" for d in differences)
    assert _row(sql) == ("+0 12:00:00.000", "+0 12:00:00.000", "+60 00:00:00.000", "+0-02", "+0 23:30:00.000")


def test_a_datetime_difference_over_a_columnar_scan(tmp_path: Path) -> None:
    """The same over a filesystem table's columns (the scan runs on Arrow)."""
    (tmp_path / "data.json").write_text('{"a": "2024-01-02 00:00:00", "b": "2024-01-01 12:00:00"}\n')
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")
    t_env.execute_sql(
        f"CREATE TABLE f (a TIMESTAMP(3), b TIMESTAMP(3)) WITH ('connector' = 'filesystem', "
        f"'path' = '{tmp_path}', 'format' = 'json')"
    )
    rows = list(t_env.execute_sql("SELECT CAST((a - b) HOUR AS STRING), a FROM f").collect())
    assert [r[0] for r in rows] == ["+0 12:00:00.000"]
