"""A query's result enforces its NOT NULL columns as Flink's collect sink does (a sink's
``SinkNotNullEnforcer``, ``table.exec.sink.not-null-enforcer``): a function giving NULL where
its type says NOT NULL fails the job, or the row is dropped with DROP.

PyFlink 2.3.0, over a CSV table ``(s STRING NOT NULL, i INT NOT NULL)`` holding ``abc,
2147483647``: ``SELECT REGEXP_REPLACE(s, '(', 'x')``, ``SELECT LPAD(s, -1, 'x')`` and ``SELECT
CAST(i AS DECIMAL(5, 2))`` each fail with "Column 'EXPR$0' is NOT NULL, however, a null value is
being written into it. You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP'
to suppress this exception and drop such records silently." (the corpus' literal cases too).
Before, millstream printed ``<NULL>`` in the NOT NULL column.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

MESSAGE = "Column 'EXPR$0' is NOT NULL, however, a null value is being written into it."


def _t_env(tmp_path: Path, drop: bool = False) -> TableEnvironment:
    (tmp_path / "a.csv").write_text("abc,2147483647\nxbz,1\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    if drop:
        t_env.get_config().set("table.exec.sink.not-null-enforcer", "DROP")
    t_env.execute_sql(
        "CREATE TABLE f (s STRING NOT NULL, i INT NOT NULL) WITH ("
        f"'connector' = 'filesystem', 'path' = '{tmp_path}', 'format' = 'csv')"
    )
    return t_env


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT REGEXP_REPLACE(s, '(', 'x') FROM f",
        "SELECT LPAD(s, -1, 'x') FROM f",
        "SELECT CAST(i AS DECIMAL(5, 2)) FROM f",
        "SELECT REGEXP_REPLACE('abc', '(', 'x')",
        "SELECT CAST(1 AS DECIMAL(1, 1))",
    ],
)
def test_a_null_in_a_not_null_column_fails_the_job(tmp_path: Path, sql: str) -> None:
    t_env = _t_env(tmp_path)
    assert not t_env.sql_query(sql).get_resolved_schema().get_column_data_types()[0].is_nullable()
    with pytest.raises(Exception, match=re.escape(MESSAGE)), t_env.execute_sql(sql).collect() as rows:
        list(rows)


def test_drop_drops_the_row(tmp_path: Path) -> None:
    t_env = _t_env(tmp_path, drop=True)
    with t_env.execute_sql("SELECT CAST(i AS DECIMAL(5, 2)), s FROM f").collect() as rows:
        assert [tuple(r) for r in rows] == [(1, "xbz")]


def test_nullable_columns_keep_their_nulls(tmp_path: Path) -> None:
    t_env = _t_env(tmp_path)
    with t_env.execute_sql("SELECT TRY_CAST(s AS INT), i FROM f").collect() as rows:
        assert [tuple(r) for r in rows] == [(None, 2147483647), (None, 1)]
