"""SQL that millstream cannot run yet fails at once, naming what, instead of running as
something else (issue 33: a temporal join ran silently as a regular join)."""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.sql import SqlError


def test_a_temporal_join_is_refused_not_run_as_a_regular_join() -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(
        "CREATE TABLE orders (id INT, cur STRING, ts TIMESTAMP(3)) "
        "WITH ('connector' = 'datagen', 'number-of-rows' = '3')"
    )
    t_env.execute_sql(
        "CREATE TABLE rates (cur STRING, rate INT, ts TIMESTAMP(3)) "
        "WITH ('connector' = 'datagen', 'number-of-rows' = '3')"
    )
    with pytest.raises(SqlError, match=r"FOR SYSTEM_TIME AS OF on table 'rates' \(a temporal join\)"):
        t_env.sql_query(
            "SELECT o.id, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur"
        )
    # the same join without the clause is a regular join, and runs as one
    plan = t_env.sql_query("SELECT o.id, r.rate FROM orders AS o JOIN rates AS r ON o.cur = r.cur").explain()
    assert "Join" in plan
