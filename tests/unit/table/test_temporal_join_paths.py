# ruff: noqa: E501 - PyFlink's printed tables are pasted as they ran
"""The versioned (or lookup) table of ``JOIN t FOR SYSTEM_TIME AS OF ...`` is the one its whole
name names: ``db.t`` and ``catalog.db.t`` resolve their database and catalog, a one-part name
the current ones (after ``USE`` / ``USE CATALOG``), so two tables of one name in different
databases are two. Before, the join looked the table up by its last name part in the current
database: ``db2.rates`` joined ``default_database.rates``.

The rows below are what PyFlink 2.3.0 printed in streaming mode at parallelism 1 for the same
statements over the same files: three ``rates`` tables (a CSV log with a primary key and a
watermark) in ``default_catalog.default_database``, ``default_catalog.db2`` and
``cat2.db`` (a ``generic_in_memory`` catalog), with rates 1xx, 2xx and 3xx. PyFlink's
filesystem connector is no lookup table, so the lookup join's case is millstream's own: its
LookupJoin line names the table as Flink's plans name one (``catalog.database.table``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

ORDERS = "o1,EUR,2,2024-01-01 10:00:01\no2,USD,1,2024-01-01 10:00:02\no3,EUR,3,2024-01-01 10:00:06\n"


def _rates(base: int) -> str:
    return f"EUR,{base + 14},2024-01-01 10:00:00\nUSD,{base},2024-01-01 10:00:00\nEUR,{base + 16},2024-01-01 10:00:05\n"


def _rates_table(name: str, path: Path) -> str:
    return f"""CREATE TABLE {name} (currency STRING, rate INT, update_time TIMESTAMP(3),
        WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND, PRIMARY KEY (currency) NOT ENFORCED)
        WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"""


@pytest.fixture
def t_env(tmp_path: Path) -> TableEnvironment:
    (tmp_path / "orders.csv").write_text(ORDERS)
    for base in (100, 200, 300):
        (tmp_path / f"r{base}.csv").write_text(_rates(base))
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    for statement in [
        f"""CREATE TABLE orders (order_id STRING, currency STRING, amount INT, order_time TIMESTAMP(3),
            WATERMARK FOR order_time AS order_time - INTERVAL '15' SECOND)
            WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/orders.csv', 'format' = 'csv')""",
        _rates_table("rates", tmp_path / "r100.csv"),
        "CREATE DATABASE db2",
        _rates_table("db2.rates", tmp_path / "r200.csv"),
        "CREATE CATALOG cat2 WITH ('type' = 'generic_in_memory')",
        "CREATE DATABASE cat2.db",
        _rates_table("cat2.db.rates", tmp_path / "r300.csv"),
    ]:
        t_env.execute_sql(statement)
    return t_env


_JOIN = "SELECT o.order_id, r.rate FROM {orders} AS o JOIN {rates} FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency"


def _rows(base: int) -> list[tuple[str, int]]:
    # PyFlink 2.3.0 prints (for base 200):
    # | +I |                             o1 |         214 |
    # | +I |                             o3 |         216 |
    # | +I |                             o2 |         200 |
    return [("o1", base + 14), ("o3", base + 16), ("o2", base)]


def _joined(t_env: TableEnvironment, orders: str, rates: str) -> list[tuple[str, int]]:
    with t_env.execute_sql(_JOIN.format(orders=orders, rates=rates)).collect() as rows:
        return [(row[0], row[1]) for row in rows]


@pytest.mark.parametrize(
    ("rates", "base"),
    [
        ("rates", 100),
        ("db2.rates", 200),
        ("`db2`.`rates`", 200),
        ("cat2.db.rates", 300),
        ("default_catalog.default_database.rates", 100),
    ],
)
def test_the_versioned_table_is_the_one_its_whole_name_names(
    t_env: TableEnvironment, rates: str, base: int
) -> None:
    assert _joined(t_env, "orders", rates) == _rows(base)


def test_a_one_part_name_is_in_the_current_database_and_catalog(t_env: TableEnvironment) -> None:
    t_env.execute_sql("USE db2")
    assert _joined(t_env, "default_database.orders", "rates") == _rows(200)
    assert _joined(t_env, "default_database.orders", "default_database.rates") == _rows(100)
    t_env.execute_sql("USE CATALOG cat2")
    assert _joined(t_env, "default_catalog.default_database.orders", "db.rates") == _rows(300)


def test_a_lookup_join_reads_the_table_its_whole_name_names(t_env: TableEnvironment, tmp_path: Path) -> None:
    (tmp_path / "side1.csv").write_text("EUR,euro\nUSD,dollar\n")
    (tmp_path / "side2.csv").write_text("EUR,EURO\nUSD,DOLLAR\n")
    t_env.execute_sql(
        "CREATE TABLE names (currency STRING, name STRING) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/side1.csv', 'format' = 'csv')"
    )
    t_env.execute_sql(
        "CREATE TABLE db2.names (currency STRING, name STRING) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/side2.csv', 'format' = 'csv')"
    )
    t_env.execute_sql("CREATE TEMPORARY VIEW timed AS SELECT *, PROCTIME() AS pt FROM orders")
    query = "SELECT o.order_id, n.name FROM timed AS o JOIN {names} FOR SYSTEM_TIME AS OF o.pt AS n ON o.currency = n.currency"
    for names, expected in [("names", ["euro", "dollar", "euro"]), ("db2.names", ["EURO", "DOLLAR", "EURO"])]:
        with t_env.execute_sql(query.format(names=names)).collect() as rows:
            assert [row[1] for row in rows] == expected
    plan = t_env.explain_sql(query.format(names="db2.names"))
    assert "LookupJoin(table=[default_catalog.db2.names], joinType=[InnerJoin]" in plan


def test_a_qualified_name_is_never_a_with_querys(t_env: TableEnvironment) -> None:
    # PyFlink 2.3.0 reads db2.rates, not the WITH query: +I EUR 214, +I USD 200, +I EUR 216
    query = "WITH rates AS (SELECT 'X' AS currency, 0 AS rate) SELECT currency, rate FROM db2.rates"
    with t_env.execute_sql(query).collect() as rows:
        assert sorted((row[0], row[1]) for row in rows) == [("EUR", 214), ("EUR", 216), ("USD", 200)]
