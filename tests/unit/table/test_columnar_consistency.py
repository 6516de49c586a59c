"""A columnar scan's Calc (Arrow) gives the values the row path gives for the same expression
(the conformance corpus run over a parquet table found these two apart). Every expectation is
what PyFlink 2.3.0 printed for the same expression.

Before, the Arrow path failed the job where the row path computed: ``v + 1e0`` and
``CAST(v AS DOUBLE)`` of the BIGINT 9223372036854775807 (Arrow's implicit cast to double
refuses an integer past 2^53: "Integer value 9223372036854775807 not in range"), and the sum
of two DECIMAL(38, 10) (Arrow's result would have 39 digits: "Decimal precision out of range").
"""

from __future__ import annotations

import decimal
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value


@pytest.fixture
def t_env(tmp_path: Path) -> TableEnvironment:
    import pyarrow as pa
    import pyarrow.parquet as pq

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    config = t_env.get_config()
    config.set("parallelism.default", "1")
    config.set("minicluster.mode", "threads")  # a unit test starts no processes
    columns = [
        pa.array([9223372036854775807], pa.int64()),
        pa.array([decimal.Decimal("12.3")], pa.decimal128(38, 10)),
        pa.array([decimal.Decimal("4.56")], pa.decimal128(38, 10)),
    ]
    pq.write_table(pa.table(columns, names=["i", "a", "b"]), str(tmp_path / "t.parquet"))
    t_env.execute_sql(
        "CREATE TABLE t (i BIGINT, a DECIMAL(38, 10), b DECIMAL(38, 10)) WITH ("
        f"'connector' = 'filesystem', 'path' = '{tmp_path / 't.parquet'}', 'format' = 'parquet')"
    )
    return t_env


def _cells(t_env: TableEnvironment, sql: str) -> list[str]:
    table = t_env.sql_query(sql)
    types = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        (row,) = list(rows)
    return [format_value(t, v) for t, v in zip(types, row, strict=True)]


def test_a_bigint_with_a_double_rounds_as_java_on_arrow(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints 9.223372036854776E18 for v0 + 1e0 and CAST(v0 AS DOUBLE) of
    # 9223372036854775807, and FALSE for v0 < 1e0
    sql = "SELECT i + 1e0, CAST(i AS DOUBLE), i < 1e0 FROM t"
    assert "columnar=[arrow]" in t_env.explain_sql(sql).split("== Optimized Execution Plan ==")[-1]
    assert _cells(t_env, sql) == ["9.223372036854776E18", "9.223372036854776E18", "FALSE"]


def test_decimal_arithmetic_past_arrows_precision_runs_on_rows(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 prints 16.860000000 (DECIMAL(38, 9)), 7.740000000 and 56.088000 (DECIMAL(38, 6))
    assert _cells(t_env, "SELECT a + b, a - b, a * b FROM t") == ["16.860000000", "7.740000000", "56.088000"]
