"""Flink's parse forms of functions, checked against PyFlink 2.3.0 (batch mode, UTC)."""

from __future__ import annotations

import datetime
import re

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
