"""SIGN, TRUNCATE, ROUND and LOG2 give Flink's values, over literals (the generated row code),
over a row path column and over a Parquet column the planner runs on Arrow.

Every expectation is what PyFlink 2.3.0 printed for the same expression (batch mode): over a
CSV table's DOUBLE columns d = NaN and h = -0.5, ``SIGN(d)`` is NaN, ``TRUNCATE(h)`` 0.0 and
``ROUND(h)`` -1.0; ``LOG2(CAST(1e308 AS DOUBLE))`` is 1023.1538532253077 (``Math.log(x) /
Math.log(2)``, Flink's ``SqlFunctionUtils.log2``); SIGN of a DECIMAL(1, 1) 0.5 fails with
"Cannot convert 1.0 to DECIMAL(1, 1) due to overflow", TRUNCATE of NaN with "Character N is
neither a decimal digit number, decimal point, nor "e" notation exponential mark.". Before,
SIGN(NaN) was 0.0, TRUNCATE(-0.5e0) -0.0, LOG2(1e308) 1023.1538532253076 (Python's exact
``log2``), SIGN of the DECIMAL(1, 1) 1.0 (which the type cannot hold) and TRUNCATE(NaN) NaN.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import format_value

VALUES = [
    ("SIGN(CAST('NaN' AS DOUBLE))", "NaN"),
    ("SIGN(CAST(-2.5 AS DOUBLE))", "-1.0"),
    ("SIGN(CAST(-2.5 AS DECIMAL(3, 1)))", "-1.0"),
    ("TRUNCATE(CAST(-0.5 AS DOUBLE))", "0.0"),
    ("TRUNCATE(CAST(-1.55 AS DOUBLE), 1)", "-1.5"),
    ("ROUND(CAST(-0.4 AS DOUBLE))", "0.0"),
    ("ROUND(CAST(-0.5 AS DOUBLE))", "-1.0"),
    ("LOG2(CAST(1e308 AS DOUBLE))", "1023.1538532253077"),
    ("LOG2(CAST(8 AS DOUBLE))", "3.0"),
    ("LOG2(CAST(0 AS DOUBLE))", "-Infinity"),
    ("LOG2(CAST(-1 AS DOUBLE))", "NaN"),
]

ERRORS = [
    ("SIGN(CAST(0.5 AS DECIMAL(1, 1)))", "Cannot convert 1.0 to DECIMAL(1, 1) due to overflow"),
    ("TRUNCATE(CAST('NaN' AS DOUBLE))", "Character N is neither a decimal digit number"),
    ("TRUNCATE(CAST('-Infinity' AS DOUBLE))", "Character I is neither a decimal digit number"),
]


@pytest.fixture(scope="module")
def t_env(tmp_path_factory: pytest.TempPathFactory) -> TableEnvironment:
    path: Path = tmp_path_factory.mktemp("doubles")
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    doubles = [float("nan"), -0.5, 1e308, 8.0, 0.0, -1.0]
    pq.write_table(pa.table({"d": pa.array(doubles, pa.float64())}), str(path / "d.parquet"))
    t_env.execute_sql(
        "CREATE TABLE d (d DOUBLE) WITH ("
        f"'connector' = 'filesystem', 'path' = '{path}', 'format' = 'parquet')"
    )
    return t_env


def _cells(t_env: TableEnvironment, sql: str) -> list[str]:
    table = t_env.sql_query(sql)
    (data_type,) = table.get_resolved_schema().get_column_data_types()
    with table.execute().collect() as rows:
        return [format_value(data_type, row[0]) for row in rows]


@pytest.mark.parametrize(("expression", "printed"), VALUES)
def test_a_literal_gives_flinks_value(t_env: TableEnvironment, expression: str, printed: str) -> None:
    assert _cells(t_env, f"SELECT {expression}") == [printed]


@pytest.mark.parametrize(("expression", "message"), ERRORS)
def test_flinks_errors(t_env: TableEnvironment, expression: str, message: str) -> None:
    with pytest.raises(Exception, match=re.escape(message)):
        _cells(t_env, f"SELECT {expression}")


def test_a_column_gives_the_same_on_rows_and_on_arrow(t_env: TableEnvironment) -> None:
    sql = "SELECT LOG2(d) FROM d"
    assert "columnar=[arrow]" in t_env.explain_sql(sql).split("== Optimized Execution Plan ==")[-1]
    assert _cells(t_env, sql) == ["NaN", "NaN", "1023.1538532253077", "3.0", "-Infinity", "NaN"]
    assert _cells(t_env, "SELECT SIGN(d) FROM d") == ["NaN", "-1.0", "1.0", "1.0", "0.0", "-1.0"]
    assert _cells(t_env, "SELECT ROUND(d) FROM d WHERE d = -0.5") == ["-1.0"]
    assert _cells(t_env, "SELECT TRUNCATE(d) FROM d WHERE d = -0.5") == ["0.0"]


def test_pi_takes_no_parentheses(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0: PI is 3.141592653589793 (DOUBLE NOT NULL); before, "Cannot resolve field [PI]"
    assert _cells(t_env, "SELECT PI") == ["3.141592653589793"]
    assert _cells(t_env, "SELECT pi FROM (VALUES (1)) AS t(pi)") == ["1"]  # a column of that name
