"""Orders written into a database, then revenue per country computed from it in SQL.

A DataStream job writes the day's orders into the database's ``orders`` table with PyFlink's
``JdbcSink`` (batches of 50 rows, one transaction each). A SQL job then reads them back with a
partitioned JDBC scan (the order ids cut into ranges, read by the subtasks in parallel),
enriches each order with its customer's country by a lookup join against the ``customers``
table (rows cached per customer), and upserts the revenue per country into ``revenue`` (its
primary key: the country). It prints the revenue table as the database holds it.

SQLite is the database here (a file, by default in a temporary directory); with
``pip install 'millstream[postgres]'`` the same tables on PostgreSQL need only another URL
(``jdbc:postgresql://host:5432/db`` and a user and password in the table options).

    python examples/jdbc_orders.py [--orders N] [--parallelism N] [--database FILE]
"""

import argparse
import os
import sqlite3
import tempfile

from millstream.common import Row, Types
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcExecutionOptions, JdbcSink
from millstream.table import EnvironmentSettings, TableEnvironment

CUSTOMERS = [(1, "Ana", "PT"), (2, "Bo", "SE"), (3, "Chen", "CN"), (4, "Dana", "SE"), (5, "Eli", "PT")]


def order(i):
    """Order ``i``: (id, customer id, amount in cents, as a DECIMAL of two digits)."""
    return Row(i, i % len(CUSTOMERS) + 1, (i * 37) % 1000 + 100)


def create_tables(path):
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, country TEXT)")
        db.executemany("INSERT INTO customers VALUES (?, ?, ?)", CUSTOMERS)
        db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, cents INTEGER)")
        db.execute("CREATE TABLE revenue (country TEXT PRIMARY KEY, total DECIMAL(12, 2), orders BIGINT)")


def write_orders(url, count, parallelism):
    """The DataStream job: the orders into the database with JdbcSink."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    type_info = Types.ROW([Types.INT(), Types.INT(), Types.INT()])
    orders = env.from_collection([order(i) for i in range(1, count + 1)], type_info=type_info)
    orders.add_sink(
        JdbcSink.sink(
            "INSERT INTO orders (id, customer_id, cents) VALUES (?, ?, ?)",
            type_info,
            JdbcConnectionOptions.JdbcConnectionOptionsBuilder().with_url(url).build(),
            JdbcExecutionOptions.builder().with_batch_size(50).with_max_retries(3).build(),
        )
    )
    env.execute("orders into the database")


def revenue_per_country(url, count, parallelism):
    """The SQL job: scan, lookup join, aggregation, upsert; then the table read back."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", str(parallelism))
    t_env.execute_sql(f"""
        CREATE TABLE orders (id INT, customer_id INT, cents INT) WITH (
          'connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'orders',
          'scan.partition.column' = 'id', 'scan.partition.num' = '4',
          'scan.partition.lower-bound' = '1', 'scan.partition.upper-bound' = '{count}')
    """)
    t_env.execute_sql(f"""
        CREATE TABLE customers (id INT, name STRING, country STRING) WITH (
          'connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'customers',
          'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '1000')
    """)
    t_env.execute_sql(f"""
        CREATE TABLE revenue (country STRING, total DECIMAL(12, 2), orders BIGINT,
                              PRIMARY KEY (country) NOT ENFORCED) WITH (
          'connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'revenue')
    """)
    t_env.execute_sql("""
        INSERT INTO revenue
        SELECT c.country, CAST(SUM(o.cents) AS DECIMAL(12, 2)) / 100, COUNT(*)
        FROM (SELECT *, PROCTIME() AS proc_time FROM orders) AS o
        JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.customer_id = c.id
        GROUP BY c.country
    """).wait()
    with t_env.execute_sql("SELECT country, total, orders FROM revenue ORDER BY country").collect() as rows:
        for country, total, orders in rows:
            print(f"{country}: {total} from {orders} orders")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--orders", type=int, default=500)
    parser.add_argument("--parallelism", type=int, default=2)
    parser.add_argument("--database", help="the SQLite file (default: in a temporary directory)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.abspath(args.database or os.path.join(scratch, "shop.db"))
        create_tables(path)
        url = f"jdbc:sqlite:{path}"
        write_orders(url, args.orders, args.parallelism)
        revenue_per_country(url, args.orders, args.parallelism)


if __name__ == "__main__":
    main()
