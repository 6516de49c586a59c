"""The ``jdbc`` table on ``--target spark`` (issue 49, JDBC): a batch SELECT reads it through
millstream's PySpark Python data source (``millstream.spark.jdbc``: one input partition per
split of a partitioned scan, the projection and filters in the query) and an INSERT writes it
through the same data source (an upsert by the primary key, an INSERT per row without one), on
SQLite and PostgreSQL; both give what the embedded runtime gives. Spark's own JDBC source is
not used: it needs the Java drivers' jars."""

from __future__ import annotations

import decimal
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

D = decimal.Decimal


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str, Any]]:
    """(JDBC URL, credential options, a function running SQL on the database)."""
    if request.param == "sqlite":
        path = tmp_path / "spark.db"

        def run(*statements: str) -> list[tuple[Any, ...]]:
            with sqlite3.connect(path) as connection:
                rows: list[tuple[Any, ...]] = []
                for statement in statements:
                    rows = connection.execute(statement).fetchall()
                return rows

        yield f"jdbc:sqlite:{path}", "", run
        return
    server = request.getfixturevalue("postgres")

    def run_pg(*statements: str) -> list[tuple[Any, ...]]:
        with server.connect() as connection:
            rows: list[tuple[Any, ...]] = []
            for statement in statements:
                cursor = connection.execute(statement)
                rows = cursor.fetchall() if cursor.description else []
            return rows

    run_pg("DROP TABLE IF EXISTS orders", "DROP TABLE IF EXISTS totals")
    yield server.jdbc_url, f", 'username' = '{server.user}', 'password' = '{server.password}'", run_pg


def _environment(url: str, credentials: str, target: str | None) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", "2")
    if target:
        t_env.get_config().set("execution.target", target)
    t_env.execute_sql(
        "CREATE TABLE orders (id INT, customer STRING, amount DECIMAL(10, 2)) WITH ("
        f"'connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'orders'{credentials}, "
        "'scan.partition.column' = 'id', 'scan.partition.num' = '3', "
        "'scan.partition.lower-bound' = '1', 'scan.partition.upper-bound' = '30')"
    )
    t_env.execute_sql(
        "CREATE TABLE totals (customer STRING, total DECIMAL(10, 2), orders BIGINT, "
        "PRIMARY KEY (customer) NOT ENFORCED) WITH ("
        f"'connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'totals'{credentials})"
    )
    return t_env


def test_a_jdbc_table_is_read_and_written_through_spark_s_python_data_source(
    spark: Any, database: tuple[str, str, Any]
) -> None:
    url, credentials, run = database
    run(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer VARCHAR(10), amount DECIMAL(10, 2))",
        *[f"INSERT INTO orders VALUES ({i}, 'c{i % 4}', {i}.25)" for i in range(1, 31)],
    )
    run("CREATE TABLE totals (customer VARCHAR(10) PRIMARY KEY, total DECIMAL(10, 2), orders BIGINT)")
    run("INSERT INTO totals VALUES ('c1', 0, 0)")  # an upsert replaces it
    query = "SELECT customer, id, amount FROM orders WHERE amount > 10"
    on_spark = _environment(url, credentials, "spark")
    with on_spark.execute_sql(query).collect() as rows:
        read = sorted(tuple(r) for r in rows)
    assert on_spark.last_runtime == "spark"
    embedded = _environment(url, credentials, None)
    with embedded.execute_sql(query).collect() as rows:
        assert sorted(tuple(r) for r in rows) == read
    assert read == sorted((f"c{i % 4}", i, D(f"{i}.25")) for i in range(10, 31))

    on_spark.execute_sql(
        "INSERT INTO totals SELECT customer, SUM(amount), COUNT(*) FROM orders GROUP BY customer"
    ).wait()
    assert on_spark.last_runtime == "spark"
    expected: dict[str, tuple[D, int]] = {}
    for i in range(1, 31):
        total, count = expected.get(f"c{i % 4}", (D(0), 0))
        expected[f"c{i % 4}"] = (total + D(f"{i}.25"), count + 1)
    written = sorted((c, D(str(t)).quantize(D("0.01")), n) for c, t, n in run("SELECT * FROM totals"))
    assert written == sorted((c, t, n) for c, (t, n) in expected.items())
