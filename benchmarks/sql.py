"""SQL on millstream against DuckDB and against the same job written with the DataStream API.

Generated orders (id, customer, amount, ts, status) and customers (id, name, region) are
written as Parquet files; every engine reads the same files, in the same run:

* ``filter_project``: ``SELECT COUNT(*), SUM(a) FROM (SELECT id, amount * 1.1 AS a,
  UPPER(status) AS s FROM orders WHERE amount > 50 AND status <> 'cancelled')``;
* ``tumble``: per status and 10-minute tumbling window, COUNT(*) and SUM(amount);
* ``join``: orders joined with customers, SUM(amount) per region.

millstream runs each query in batch mode (TaskManager processes, parallelism ``-p``) as SQL
and as the equivalent DataStream program; DuckDB runs it in-process. Results are checked
equal (sums to 1e-6), and the script prints rows/second of input for each engine and the
ratios millstream SQL / DuckDB and millstream SQL / millstream DataStream.

    python benchmarks/sql.py [--rows N] [--parallelism P] [--repeat R]
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

STATUSES = ["new", "paid", "shipped", "cancelled"]
REGIONS = ["north", "south", "east", "west"]
CUSTOMERS = 1000
START = datetime.datetime(2024, 1, 1)


def generate(root: str, rows: int) -> None:
    """orders.parquet and customers.parquet under ``root``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(7)
    ids = list(range(rows))
    customers = [rng.randint(1, CUSTOMERS) for _ in ids]
    amounts = [round(rng.uniform(1, 100), 2) for _ in ids]
    ts = [START + datetime.timedelta(milliseconds=i * 100) for i in ids]
    status = [rng.choice(STATUSES) for _ in ids]
    orders = pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "customer": pa.array(customers, pa.int32()),
            "amount": pa.array(amounts, pa.float64()),
            "ts": pa.array(ts, pa.timestamp("ms")),
            "status": pa.array(status, pa.string()),
        }
    )
    pq.write_table(orders, os.path.join(root, "orders.parquet"), row_group_size=65536)
    people = pa.table(
        {
            "id": pa.array(range(1, CUSTOMERS + 1), pa.int32()),
            "name": pa.array([f"c{i}" for i in range(1, CUSTOMERS + 1)]),
            "region": pa.array([REGIONS[i % 4] for i in range(1, CUSTOMERS + 1)]),
        }
    )
    pq.write_table(people, os.path.join(root, "customers.parquet"))


SQL = {
    "filter_project": (
        "SELECT COUNT(*) AS n, SUM(a) AS total FROM (SELECT id, amount * 1.1 AS a, UPPER(status) AS s "
        "FROM orders WHERE amount > 50 AND status <> 'cancelled')"
    ),
    "tumble": (
        "SELECT window_start, status, COUNT(*) AS n, SUM(amount) AS total FROM TABLE(TUMBLE(TABLE orders, "
        "DESCRIPTOR(ts), INTERVAL '10' MINUTE)) GROUP BY window_start, window_end, status"
    ),
    "join": (
        "SELECT c.region, SUM(o.amount) AS total, COUNT(*) AS n FROM orders o JOIN customers c "
        "ON o.customer = c.id GROUP BY c.region"
    ),
}

DUCKDB_SQL = dict(
    SQL,
    tumble=(
        "SELECT time_bucket(INTERVAL '10 minutes', ts) AS window_start, status, COUNT(*) AS n, "
        "SUM(amount) AS total FROM orders GROUP BY ALL"
    ),
)


def normalized(rows: Any) -> list[tuple[Any, ...]]:
    out = []
    for row in rows:
        out.append(tuple(round(v, 6) if isinstance(v, float) else v for v in row))
    return sorted(out, key=repr)


def run_duckdb(root: str, query: str) -> list[tuple[Any, ...]]:
    import duckdb

    con = duckdb.connect()
    con.execute(f"CREATE VIEW orders AS SELECT * FROM read_parquet('{root}/orders.parquet')")
    con.execute(f"CREATE VIEW customers AS SELECT * FROM read_parquet('{root}/customers.parquet')")
    return normalized(con.execute(DUCKDB_SQL[query]).fetchall())


def run_sql(root: str, query: str, parallelism: int) -> list[tuple[Any, ...]]:
    from millstream.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("parallelism.default", str(parallelism))
    t_env.execute_sql(
        f"""CREATE TABLE orders (id BIGINT, customer INT, amount DOUBLE, ts TIMESTAMP(3), status STRING,
            WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '{root}/orders.parquet',
            'format' = 'parquet')"""
    )
    t_env.execute_sql(
        f"""CREATE TABLE customers (id INT, name STRING, region STRING) WITH ('connector' = 'filesystem',
            'path' = '{root}/customers.parquet', 'format' = 'parquet')"""
    )
    with t_env.execute_sql(SQL[query]).collect() as rows:
        return normalized(tuple(r) for r in rows)


def run_datastream(root: str, query: str, parallelism: int) -> list[tuple[Any, ...]]:
    """The same question as a DataStream program on millstream (batch mode)."""
    from millstream.common import Duration, Time, WatermarkStrategy
    from millstream.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
    from millstream.datastream.connectors.file_system import FileSource
    from millstream.datastream.formats.parquet import ParquetColumnarRowInputFormat
    from millstream.datastream.functions import KeyedCoProcessFunction
    from millstream.datastream.state import ValueStateDescriptor
    from millstream.datastream.window import TumblingEventTimeWindows
    from millstream.table import DataTypes

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.set_parallelism(parallelism)
    order_type = DataTypes.ROW(
        [
            DataTypes.FIELD("id", DataTypes.BIGINT()),
            DataTypes.FIELD("customer", DataTypes.INT()),
            DataTypes.FIELD("amount", DataTypes.DOUBLE()),
            DataTypes.FIELD("ts", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("status", DataTypes.STRING()),
        ]
    )

    def parquet(path: str, row_type: Any) -> Any:
        source = FileSource.for_bulk_file_format(
            ParquetColumnarRowInputFormat(row_type=row_type), os.path.join(root, path)
        ).build()
        return env.from_source(source, WatermarkStrategy.no_watermarks(), path)

    orders = parquet("orders.parquet", order_type).map(tuple)
    if query == "filter_project":
        result = (
            orders.filter(lambda r: r[2] > 50 and r[4] != "cancelled")
            .map(lambda r: (1, r[2] * 1.1, r[4].upper()))
            .key_by(lambda r: 0)
            .reduce(lambda a, b: (a[0] + b[0], a[1] + b[1], a[2]))
            .map(lambda r: (r[0], r[1]))
        )
    elif query == "tumble":
        epoch = datetime.datetime(1970, 1, 1)

        class Stamp:
            def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
                return (value[3] - epoch) // datetime.timedelta(milliseconds=1)

        strategy = WatermarkStrategy.for_bounded_out_of_orderness(
            Duration.of_millis(0)
        ).with_timestamp_assigner(Stamp())
        result = (
            orders.assign_timestamps_and_watermarks(strategy)
            .map(
                lambda r: (
                    r[4],
                    1,
                    r[2],
                    r[3]
                    - datetime.timedelta(
                        minutes=r[3].minute % 10, seconds=r[3].second, microseconds=r[3].microsecond
                    ),
                )
            )
            .key_by(lambda r: r[0])
            .window(TumblingEventTimeWindows.of(Time.minutes(10)))
            .reduce(lambda a, b: (a[0], a[1] + b[1], a[2] + b[2], a[3]))
            .map(lambda r: (r[3], r[0], r[1], r[2]))
        )
    else:
        customer_type = DataTypes.ROW(
            [
                DataTypes.FIELD("id", DataTypes.INT()),
                DataTypes.FIELD("name", DataTypes.STRING()),
                DataTypes.FIELD("region", DataTypes.STRING()),
            ]
        )
        customers = parquet("customers.parquet", customer_type).map(tuple)

        class Join(KeyedCoProcessFunction):
            def open(self, ctx: Any) -> None:
                self.region = ctx.get_state(ValueStateDescriptor("region"))
                self.waiting = ctx.get_state(ValueStateDescriptor("waiting"))

            def process_element1(self, order: Any, ctx: Any) -> Any:
                region = self.region.value()
                if region is None:
                    self.waiting.update((self.waiting.value() or []) + [order[2]])
                    return None
                return [(region, order[2], 1)]

            def process_element2(self, customer: Any, ctx: Any) -> Any:
                self.region.update(customer[2])
                waiting = self.waiting.value() or []
                self.waiting.clear()
                return [(customer[2], amount, 1) for amount in waiting]

        result = (
            orders.connect(customers)
            .key_by(lambda o: o[1], lambda c: c[0])
            .process(Join())
            .key_by(lambda r: r[0])
            .reduce(lambda a, b: (a[0], a[1] + b[1], a[2] + b[2]))
        )
    with result.execute_and_collect() as rows:
        return normalized(rows)


def timed(fn: Callable[[], list[tuple[Any, ...]]]) -> tuple[float, list[tuple[Any, ...]]]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--parallelism", "-p", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--query", choices=sorted(SQL), action="append")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="millstream-sql-bench-") as root:
        generate(root, args.rows)
        print(f"{args.rows:,} orders, {CUSTOMERS} customers, parallelism {args.parallelism}", flush=True)
        for query in args.query or list(SQL):
            times: dict[str, list[float]] = {"duckdb": [], "sql": [], "datastream": []}
            for _ in range(args.repeat):
                for engine, fn in (
                    ("duckdb", lambda q=query: run_duckdb(root, q)),
                    ("sql", lambda q=query: run_sql(root, q, args.parallelism)),
                    ("datastream", lambda q=query: run_datastream(root, q, args.parallelism)),
                ):
                    seconds, result = timed(fn)
                    times[engine].append(seconds)
                    if engine == "duckdb":
                        expected = result
                    elif result != expected:
                        sys.exit(f"{query}: {engine} differs from DuckDB: {result[:3]} vs {expected[:3]}")
            median = {engine: statistics.median(ts) for engine, ts in times.items()}
            rate = {engine: args.rows / seconds for engine, seconds in median.items()}
            sql, duck, ds = rate["sql"], rate["duckdb"], rate["datastream"]
            print(
                f"{query:15s} duckdb {duck:>12,.0f} rows/s | millstream SQL {sql:>9,.0f} rows/s "
                f"({median['sql']:.2f} s) | DataStream {ds:>9,.0f} rows/s | "
                f"SQL/DuckDB {sql / duck:.4f} | SQL/DataStream {sql / ds:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
