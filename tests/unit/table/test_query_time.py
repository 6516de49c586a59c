"""The time functions Flink evaluates once per query in BATCH mode (``functions/query_time.py``).

PyFlink 2.3.0, a batch query over 3,000,000 rows of a datagen table, prints 1 for each of
``COUNT(DISTINCT CURRENT_TIMESTAMP)``, ``NOW()``, ``LOCALTIMESTAMP``, ``CURRENT_TIME``,
``LOCALTIME`` and ``CURRENT_DATE``, 3529 for ``COUNT(DISTINCT CURRENT_ROW_TIMESTAMP())`` and
300 for ``COUNT(DISTINCT UNIX_TIMESTAMP())``; ``MIN(CURRENT_TIMESTAMP)`` and
``MIN(LOCALTIMESTAMP)`` are the same instant (the query's start, UTC). In STREAMING mode each
record reads the clock (Flink's ``CurrentTimePointCallGen``).

The clock here moves a millisecond at every reading, so a function read per row gives every
row a value of its own. Before, every one of these functions was read per row in BATCH mode.
"""

from __future__ import annotations

import datetime
import itertools
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col, current_timestamp
from millstream.table.functions import builtin_scalars, query_time

ROWS = 2000
QUERY_LEVEL = "CURRENT_TIMESTAMP, NOW(), LOCALTIMESTAMP, CURRENT_TIME, LOCALTIME, CURRENT_DATE"


@pytest.fixture(autouse=True)
def ticking_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wall clock a millisecond later at every reading (in the functions' modules)."""
    ticks = itertools.count()
    start = datetime.datetime(2026, 11, 29, 12, 0, 0)

    class Ticking(datetime.datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return start + datetime.timedelta(milliseconds=next(ticks))

    clock = types.SimpleNamespace(**{**vars(datetime), "datetime": Ticking})
    monkeypatch.setattr(query_time, "datetime", clock)
    monkeypatch.setattr(builtin_scalars, "datetime", clock)


def _t_env(batch: bool, tmp_path: Path) -> TableEnvironment:
    import pyarrow as pa
    import pyarrow.parquet as pq

    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    config = t_env.get_config()
    config.set("parallelism.default", "2")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    pq.write_table(pa.table({"x": pa.array(range(ROWS), pa.int64())}), str(tmp_path / "t.parquet"))
    t_env.execute_sql(
        f"CREATE TABLE f (x BIGINT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', "
        "'format' = 'parquet')"
    )
    return t_env


def _distinct(t_env: TableEnvironment, sql: str) -> list[int]:
    """How many distinct values each column of ``sql``'s rows holds."""
    with t_env.execute_sql(sql).collect() as results:
        rows = [tuple(r) for r in results]
    return [len({r[i] for r in rows}) for i in range(len(rows[0]))]


def _values(rows: int) -> str:
    return "(VALUES " + ", ".join(f"({i})" for i in range(rows)) + ") AS v(x)"


@pytest.fixture
def batch(tmp_path: Path) -> Iterator[TableEnvironment]:
    yield _t_env(True, tmp_path)


def test_a_batch_query_over_a_file_reads_its_start_once(batch: TableEnvironment) -> None:
    sql = f"SELECT x, {QUERY_LEVEL}, CURRENT_ROW_TIMESTAMP() FROM f WHERE x % 2 = 0"
    assert "TableSourceScan" in batch.explain_sql(sql)
    assert _distinct(batch, sql) == [ROWS // 2, 1, 1, 1, 1, 1, 1, ROWS // 2]


def test_a_batch_query_over_values_reads_its_start_once(batch: TableEnvironment) -> None:
    assert _distinct(batch, f"SELECT x, {QUERY_LEVEL} FROM {_values(ROWS)}") == [ROWS, 1, 1, 1, 1, 1, 1]


def test_the_functions_of_a_query_read_one_instant(batch: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints the same MIN(CURRENT_TIMESTAMP) and MIN(LOCALTIMESTAMP)
    sql = "SELECT CURRENT_TIMESTAMP, NOW(), LOCALTIMESTAMP, CURRENT_TIME, CURRENT_DATE FROM f"
    with batch.execute_sql(sql).collect() as results:
        stamp, now, local, time, date = next(iter(results))
    assert stamp == now == local
    assert (time, date) == (stamp.time(), stamp.date())


def test_aggregate_arguments_and_group_keys_read_the_start(batch: TableEnvironment) -> None:
    # (the aggregate computes its arguments with closures compiled when the query was planned)
    sql = "SELECT COUNT(DISTINCT CURRENT_TIMESTAMP), COUNT(DISTINCT CURRENT_ROW_TIMESTAMP()) FROM f"
    with batch.execute_sql(sql).collect() as results:
        assert [tuple(r) for r in results] == [(1, ROWS)]
    grouped = f"SELECT CURRENT_DATE, LOCALTIME, COUNT(*) FROM {_values(100)} GROUP BY CURRENT_DATE, LOCALTIME"
    with batch.execute_sql(grouped).collect() as results:
        assert [r[2] for r in results] == [100]


def test_each_execution_is_a_query_of_its_own(batch: TableEnvironment) -> None:
    table = batch.from_path("f").select(col("x"), current_timestamp().alias("now"))
    first, second = ({r[1] for r in table.execute().collect()} for _ in range(2))
    assert len(first) == len(second) == 1
    assert first != second


def test_a_streaming_query_reads_the_clock_per_record(tmp_path: Path) -> None:
    streaming = _t_env(False, tmp_path)
    sql = f"SELECT x, {QUERY_LEVEL}, CURRENT_ROW_TIMESTAMP() FROM {_values(300)}"
    counts = _distinct(streaming, sql)
    assert counts[0] == 300 and counts[-1] == 300
    assert all(c == 300 for c in counts[1:6])  # CURRENT_DATE (the last but one) stays one day
