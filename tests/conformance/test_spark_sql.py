"""Bounded SQL jobs on Spark SQL (``execution.target: spark``, batch mode): the table plan is
translated into Spark DataFrame operations, and every query of the DuckDB differential suite
gives DuckDB's result there too (so both runtimes agree); queries outside the translation
(user-defined aggregates here) run through the DataStream translation on Spark, with the same
result."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from millstream.table import DataTypes, EnvironmentSettings, TableEnvironment
from tests.differential.test_sql_vs_duckdb import QUERIES, _duckdb, _generate, _normalize

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("spark-sql")
    _generate(root)
    return root


def _environment(data: Path) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("execution.target", "spark")
    t_env.execute_sql(
        f"""CREATE TABLE orders (id BIGINT, customer INT, amount DOUBLE, ts TIMESTAMP(3), status STRING,
            WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
            WITH ('connector' = 'filesystem', 'path' = '{data / "orders.csv"}', 'format' = 'csv')"""
    )
    t_env.execute_sql(
        f"""CREATE TABLE customers (id INT, name STRING, region STRING)
            WITH ('connector' = 'filesystem', 'path' = '{data / "customers.csv"}', 'format' = 'csv')"""
    )
    return t_env


def _rows(t_env: TableEnvironment, sql: str) -> list[tuple[Any, ...]]:
    with t_env.execute_sql(sql).collect() as rows:
        return [tuple(_normalize(v) for v in r) for r in rows]


@pytest.mark.parametrize(("name", "sql", "duck_sql"), QUERIES, ids=[q[0] for q in QUERIES])
def test_sql_on_spark_equals_duckdb(
    spark: Any, data: Path, name: str, sql: str, duck_sql: str | None
) -> None:
    t_env = _environment(data)
    assert Counter(_rows(t_env, sql)) == _duckdb(data, duck_sql or sql), name
    expected = "datastream" if name in _DATASTREAM_ON_SPARK else "spark"
    assert t_env.last_runtime == expected, f"{name} ran through the {t_env.last_runtime} translation"


# Their rows are repeated by millstream's own operator (a ReplicateRows table function, as
# Flink's rewrite of INTERSECT ALL / EXCEPT ALL), so they run through the DataStream
# translation on Spark
_DATASTREAM_ON_SPARK = {"intersect_all", "except_all"}


def test_order_by_on_spark_keeps_the_order(spark: Any, data: Path) -> None:
    t_env = _environment(data)
    sql = "SELECT id, customer, amount FROM orders WHERE status = 'paid' ORDER BY amount DESC, id LIMIT 7"
    expected = [tuple(_normalize(v) for v in r) for r in _duckdb_ordered(data, sql)]
    assert _rows(t_env, sql) == expected and t_env.last_runtime == "spark"


def _duckdb_ordered(data: Path, sql: str) -> list[tuple[Any, ...]]:
    import duckdb

    con = duckdb.connect()
    con.execute(
        f"CREATE TABLE orders AS SELECT * FROM read_csv('{data / 'orders.csv'}', header = false, "
        "columns = {'id': 'BIGINT', 'customer': 'INTEGER', 'amount': 'DOUBLE', 'ts': 'TIMESTAMP', "
        "'status': 'VARCHAR'})"
    )
    return con.execute(sql).fetchall()


def test_plans_outside_the_translation_run_through_the_datastream_path(spark: Any, data: Path) -> None:
    from millstream.table.expressions import col
    from millstream.table.udf import AggregateFunction, udaf

    class Total(AggregateFunction):
        def create_accumulator(self) -> list[float]:
            return [0.0]

        def accumulate(self, acc: list[float], v: float) -> None:
            acc[0] += v

        def get_value(self, acc: list[float]) -> float:
            return round(acc[0], 6)

    t_env = _environment(data)
    total = udaf(Total(), result_type=DataTypes.DOUBLE())
    table = t_env.from_path("orders").group_by(col("status")).select(col("status"), total(col("amount")))
    with table.execute().collect() as rows:
        ours = Counter(tuple(_normalize(v) for v in r) for r in rows)
    assert t_env.last_runtime == "datastream"
    assert ours == _duckdb(data, "SELECT status, round(SUM(amount), 6) FROM orders GROUP BY status")


def test_statistical_aggregates_on_spark_equal_duckdb(spark: Any, data: Path) -> None:
    """STDDEV_POP / VAR_SAMP have no Spark SQL translation of Flink's typing: the plan runs
    through the DataStream translation on Spark, and equals DuckDB's."""
    t_env = _environment(data)
    sql = "SELECT status, STDDEV_POP(amount), VAR_SAMP(amount), COUNT(*) FROM orders GROUP BY status"
    ours = Counter(
        (s, round(a, 6), None if b is None else round(b, 6), c) for s, a, b, c in _rows(t_env, sql)
    )
    assert t_env.last_runtime == "datastream"
    duck = (
        "SELECT status, round(STDDEV_POP(amount), 6), round(VAR_SAMP(amount), 6), COUNT(*) "
        "FROM orders GROUP BY status"
    )
    assert ours == _duckdb(data, duck)


def test_built_in_functions_on_spark_give_flinks_edge_values(spark: Any, tmp_path: Path) -> None:
    """Each function's Spark kernel gives Flink's value where Spark's own function differs:
    GREATEST / LEAST of a NULL are NULL (Spark's skip it), LN / LOG10 of 0 and below are
    -Infinity and NaN (Spark's give NULL), TRIM removes spaces only. The expected rows are
    PyFlink 2.3.0's output for the same query (``tests/unit/table/test_function_definitions.py``)."""
    import json
    import math

    data = tmp_path / "edges.json"  # NaN is "NaN" after _normalize
    rows = [
        {"n": 1, "x": 0.0, "a": 1, "b": None, "s": "\t a\t ", "c": None},
        {"n": 2, "x": -1.0, "a": 2, "b": 3, "s": " b ", "c": "x"},
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("execution.target", "spark")
    t_env.execute_sql(
        "CREATE TABLE edges (n INT, x DOUBLE, a INT, b INT, s STRING, c STRING) "
        f"WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json')"
    )
    sql = (
        "SELECT n, LN(x), LOG10(x), SQRT(x), GREATEST(a, b), LEAST(a, b), TRIM(s), LTRIM(s), RTRIM(s), "
        "CONCAT(s, c), UPPER(s), CHAR_LENGTH(s) FROM edges"
    )
    result = sorted(_rows(t_env, sql))
    assert t_env.last_runtime == "spark"
    first, second = result
    assert first[1:4] == (-math.inf, -math.inf, 0.0) and second[1:4] == ("NaN", "NaN", "NaN")
    assert first[4:] == (None, None, "\t a\t", "\t a\t ", "\t a\t", None, "\t A\t ", 5)
    assert second[4:] == (3, 2, "b", "b ", " b", " b x", " B ", 3)
