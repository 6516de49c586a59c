# ruff: noqa: E501 - the queries read best on one line
"""Differential tests of millstream's SQL against DuckDB.

Generated orders and customers are written as CSV files; millstream reads them through the
filesystem connector (orders with an event-time attribute and watermark) and DuckDB reads the
same files. Every query runs on millstream in batch mode and in streaming mode: the batch
result, and the final table folded from the streaming changelog (a retraction of a row never
added fails the fold), must both equal DuckDB's result. Where the two SQL dialects spell a query
differently (window TVFs), each engine gets its own spelling of the same question.
"""

from __future__ import annotations

import datetime
import math
import random
from collections import Counter
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.testing.tables import fold_changelog

duckdb = pytest.importorskip("duckdb")

pytestmark = pytest.mark.timeout(600)

STATUSES = ["new", "paid", "shipped", "cancelled"]
REGIONS = ["north", "south", "east"]


def _generate(root: Path, seed: int = 20261124) -> None:
    rng = random.Random(seed)
    start = datetime.datetime(2024, 1, 1)
    with open(root / "orders.csv", "w") as f:
        for i in range(600):
            ts = start + datetime.timedelta(seconds=i * 7 + rng.randint(0, 30))
            amount = round(rng.uniform(1, 100), 2)
            status = rng.choice(STATUSES)
            f.write(f"{i},{rng.randint(1, 25)},{amount},{ts:%Y-%m-%d %H:%M:%S},{status}\n")
    with open(root / "customers.csv", "w") as f:
        for c in range(1, 31):  # customers 26..30 have no orders
            f.write(f"{c},customer {c},{REGIONS[c % 3]}\n")


QUERIES: list[tuple[str, str, str | None]] = [
    # (name, millstream SQL, DuckDB SQL or None for the same text)
    (
        "filter_project",
        "SELECT id, amount * 2 AS a, UPPER(status) AS s FROM orders WHERE amount > 50 AND status <> 'cancelled'",
        None,
    ),
    (
        "case_coalesce",
        "SELECT id, CASE WHEN amount > 50 THEN 'big' ELSE 'small' END AS size, COALESCE(NULLIF(status, 'new'), 'fresh') AS st FROM orders",
        None,
    ),
    (
        "group_by",
        "SELECT customer, COUNT(*) AS c, SUM(amount) AS s, MIN(amount) AS lo, MAX(amount) AS hi, AVG(amount) AS av FROM orders GROUP BY customer",
        None,
    ),
    (
        "having",
        "SELECT customer, status, COUNT(*) AS c FROM orders GROUP BY customer, status HAVING COUNT(*) > 6",
        None,
    ),
    ("distinct", "SELECT DISTINCT status, customer FROM orders WHERE customer < 5", None),
    (
        "union_all_widened",  # orders.id BIGINT with customers.id INT: BIGINT
        "SELECT id, status FROM orders WHERE amount > 90 UNION ALL SELECT id, region FROM customers WHERE id < 10",
        None,
    ),
    (
        "union",
        "SELECT customer FROM orders WHERE status = 'paid' UNION SELECT id FROM customers WHERE region = 'north'",
        None,
    ),
    (
        "intersect",
        "SELECT customer FROM orders WHERE amount > 50 INTERSECT SELECT id FROM customers WHERE region <> 'south'",
        None,
    ),
    ("except", "SELECT id FROM customers EXCEPT SELECT customer FROM orders WHERE status = 'paid'", None),
    (
        "intersect_all",
        "SELECT customer, status FROM orders WHERE amount > 60 "
        "INTERSECT ALL SELECT customer, status FROM orders WHERE customer < 12",
        None,
    ),
    (
        "except_all",
        "SELECT customer FROM orders WHERE amount > 50 EXCEPT ALL SELECT customer FROM orders WHERE status = 'paid'",
        None,
    ),
    (
        "aggregate_over_union",
        "SELECT k, COUNT(*) AS c FROM (SELECT customer AS k FROM orders WHERE amount < 10 "
        "UNION ALL SELECT id FROM customers) AS u GROUP BY k",
        None,
    ),
    ("global_agg", "SELECT COUNT(*) AS c, SUM(amount) AS s, MAX(id) AS m FROM orders", None),
    (
        "nested_agg",
        "SELECT c, COUNT(*) AS n FROM (SELECT customer, COUNT(*) AS c FROM orders GROUP BY customer) GROUP BY c",
        None,
    ),
    (
        "inner_join",
        "SELECT c.region, SUM(o.amount) AS s, COUNT(*) AS n FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region",
        None,
    ),
    (
        "left_join",
        "SELECT c.name, o.id FROM customers c LEFT JOIN orders o ON c.id = o.customer AND o.amount > 98",
        None,
    ),
    (
        "full_join",
        "SELECT c.id, o.id AS oid FROM customers c FULL OUTER JOIN orders o ON c.id = o.customer AND o.amount < 3",
        None,
    ),
    (
        "in_subquery",
        "SELECT id, amount FROM orders WHERE customer IN (SELECT id FROM customers WHERE region = 'north') AND amount > 90",
        None,
    ),
    (
        "not_exists",
        "SELECT c.id, c.name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer = c.id)",
        None,
    ),
    (
        "exists",
        "SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer = c.id AND o.amount > 99)",
        None,
    ),
    # EXISTS with conjuncts over the outer query's columns, alone or with the subquery's
    (
        "exists_with_an_outer_conjunct",
        "SELECT c.id FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer = c.id AND c.region = 'north' AND o.amount > 50)",
        None,
    ),
    (
        "not_exists_with_outer_and_mixed_conjuncts",
        "SELECT c.id, c.name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer = c.id AND c.region = 'north' AND o.amount > c.id * 3)",
        None,
    ),
    (
        "implicit_join",
        "SELECT o.id, c.name FROM orders o, customers c WHERE o.customer = c.id AND o.amount > 95",
        None,
    ),
    # the planner's rewrites (optimizer.py): WHERE conjuncts of one input pushed below a join
    # only where that keeps the result (never into the side an outer join pads), the inputs
    # narrowed to the columns read, a computed equi-key
    # an ON conjunct of one input applied to it before the join only where a row failing it
    # could not be in the result: not the preserved side of an outer join, nor an anti join's left
    (
        "on_conjuncts_of_a_left_join",
        "SELECT c.id, c.name, o.id AS oid FROM customers c LEFT JOIN orders o ON c.id = o.customer AND c.region = 'north' AND o.amount > 50",
        None,
    ),
    (
        "on_conjuncts_of_an_inner_join",
        "SELECT c.id, o.id AS oid FROM customers c JOIN orders o ON c.id = o.customer AND c.region = 'south' AND o.amount < 30",
        None,
    ),
    (
        "on_conjuncts_of_an_anti_join",
        "SELECT c.id FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer = c.id AND o.amount > 50) AND c.region = 'north'",
        None,
    ),
    (
        "where_over_left_join",
        "SELECT c.name, o.id, o.amount FROM customers c LEFT JOIN orders o ON c.id = o.customer WHERE c.region = 'north' AND (o.amount IS NULL OR o.amount > 98)",
        None,
    ),
    (
        "where_over_right_join",
        "SELECT c.name, o.id FROM customers c RIGHT JOIN orders o ON c.id = o.customer AND c.id < 20 WHERE o.amount > 90 AND c.name IS NULL",
        None,
    ),
    (
        "where_over_full_join",
        "SELECT c.id, o.id AS oid FROM customers c FULL JOIN orders o ON c.id = o.customer AND o.amount < 10 WHERE c.region = 'south'",
        None,
    ),
    (
        "where_over_inner_join",
        "SELECT c.name, o.amount * 2 AS a FROM orders o JOIN customers c ON o.customer = c.id WHERE o.status = 'paid' AND c.region <> 'west' AND o.amount + c.id > 60",
        None,
    ),
    (
        "computed_join_key",
        "SELECT o.id, c.name FROM orders o JOIN customers c ON MOD(o.id, 30) + 1 = c.id WHERE o.amount > 80",
        None,
    ),
    (
        "tumble",
        "SELECT window_start, window_end, status, COUNT(*) AS c, SUM(amount) AS s FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' MINUTE)) GROUP BY window_start, window_end, status",
        "SELECT time_bucket(INTERVAL '10 minutes', ts) AS window_start, time_bucket(INTERVAL '10 minutes', ts) + INTERVAL '10 minutes' AS window_end, status, COUNT(*) AS c, SUM(amount) AS s FROM orders GROUP BY ALL",
    ),
    (
        "hop",
        "SELECT window_end, COUNT(*) AS c FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '15' MINUTE)) GROUP BY window_start, window_end",
        "SELECT w + INTERVAL '15 minutes' AS window_end, COUNT(*) AS c FROM orders, (SELECT UNNEST(range(TIMESTAMP '2023-12-31 23:30:00', TIMESTAMP '2024-01-01 02:00:00', INTERVAL '5 minutes')) AS w) AS starts WHERE ts >= w AND ts < w + INTERVAL '15 minutes' GROUP BY w",
    ),
]


def _normalize(value: object) -> object:
    if isinstance(value, float):
        return round(value, 6) if not math.isnan(value) else "NaN"
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None)
    if hasattr(value, "as_integer_ratio") and not isinstance(value, int):
        return round(float(value), 6)  # Decimal
    return value


def _rows(rows: object) -> Counter[tuple[object, ...]]:
    return Counter(tuple(_normalize(v) for v in row) for row in rows)  # type: ignore[attr-defined]


def _millstream(root: Path, batch: bool, sql: str) -> Counter[tuple[object, ...]]:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", "2")
    t_env.execute_sql(
        f"""CREATE TABLE orders (id BIGINT, customer INT, amount DOUBLE, ts TIMESTAMP(3), status STRING,
            WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
            WITH ('connector' = 'filesystem', 'path' = '{root / "orders.csv"}', 'format' = 'csv')"""
    )
    t_env.execute_sql(
        f"""CREATE TABLE customers (id INT, name STRING, region STRING)
            WITH ('connector' = 'filesystem', 'path' = '{root / "customers.csv"}', 'format' = 'csv')"""
    )
    with t_env.execute_sql(sql).collect() as changes:
        return fold_changelog((str(r.get_row_kind()), tuple(_normalize(v) for v in r)) for r in changes)


def _duckdb(root: Path, sql: str) -> Counter[tuple[object, ...]]:
    con = duckdb.connect()
    con.execute(
        f"CREATE TABLE orders AS SELECT * FROM read_csv('{root / 'orders.csv'}', header = false, "
        "columns = {'id': 'BIGINT', 'customer': 'INTEGER', 'amount': 'DOUBLE', 'ts': 'TIMESTAMP', 'status': 'VARCHAR'})"
    )
    con.execute(
        f"CREATE TABLE customers AS SELECT * FROM read_csv('{root / 'customers.csv'}', header = false, "
        "columns = {'id': 'INTEGER', 'name': 'VARCHAR', 'region': 'VARCHAR'})"
    )
    return _rows(con.execute(sql).fetchall())


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("differential")
    _generate(root)
    return root


@pytest.mark.parametrize(("name", "sql", "duck_sql"), QUERIES, ids=[q[0] for q in QUERIES])
def test_batch_and_streaming_results_equal_duckdb(
    data: Path, name: str, sql: str, duck_sql: str | None
) -> None:
    expected = _duckdb(data, duck_sql or sql)
    assert expected, f"{name}: the oracle returned no rows; the query tests nothing"
    assert _millstream(data, True, sql) == expected, f"{name} (batch)"
    assert _millstream(data, False, sql) == expected, f"{name} (streaming, folded changelog)"


def test_batch_order_by_and_limit_equal_duckdb(data: Path) -> None:
    sql = "SELECT id, customer, amount FROM orders WHERE status = 'paid' ORDER BY amount DESC, id LIMIT 7"
    con_rows = list(_duckdb(data, sql).elements())
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(
        f"""CREATE TABLE orders (id BIGINT, customer INT, amount DOUBLE, ts TIMESTAMP(3), status STRING)
            WITH ('connector' = 'filesystem', 'path' = '{data / "orders.csv"}', 'format' = 'csv')"""
    )
    with t_env.execute_sql(sql).collect() as rows:
        ours = [tuple(_normalize(v) for v in r) for r in rows]
    duck = duckdb.connect()
    duck.execute(
        f"CREATE TABLE orders AS SELECT * FROM read_csv('{data / 'orders.csv'}', header = false, "
        "columns = {'id': 'BIGINT', 'customer': 'INTEGER', 'amount': 'DOUBLE', 'ts': 'TIMESTAMP', 'status': 'VARCHAR'})"
    )
    assert ours == [tuple(_normalize(v) for v in r) for r in duck.execute(sql).fetchall()]
    assert len(ours) == 7 and Counter(ours) == Counter(con_rows)
