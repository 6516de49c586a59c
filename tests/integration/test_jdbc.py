"""The JDBC connector on real databases (issue 49, JDBC): SQLite (a file) and PostgreSQL (the
project's own server, ``postgres`` fixture). Each test runs on both, through the same JDBC URL
forms a Flink program uses:

- the DataStream ``JdbcSink`` (PyFlink's builders) writes every record: in batches, on
  checkpoints (a source that waits until its records are in the database, which only a
  checkpoint's flush can put there), and again after PostgreSQL dropped the sink's connection
  (``pg_terminate_backend``);
- SQL scans, partitioned (``scan.partition.*``) at parallelism 2 with projections and filters
  pushed into the query; appending and upserting sinks (an aggregation's -U/+U and -D: the
  table ends as the aggregation's final state); a lookup join whose partial cache serves a
  changed row until it expires;
- errors: a bad URL, a missing table, a wrong password are one line each.

Flink's messages that matter are cited from flink-connector-jdbc's source (PyFlink 2.3's wheel
has no JDBC connector jar, and none can be fetched here).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from millstream.common.error_report import render
from millstream.common.typeinfo import Types
from millstream.common.types import Row
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.jdbc import JdbcConnectionOptions, JdbcExecutionOptions, JdbcSink
from millstream.datastream.functions import MapFunction, SourceFunction
from millstream.table import EnvironmentSettings, TableEnvironment

pytestmark = pytest.mark.timeout(300)


@dataclass
class Database:
    """A database of one test: its JDBC URL and credentials, and plain SQL on it."""

    kind: str
    url: str
    user: str | None = None
    password: str | None = None
    dsn: str = ""

    def connect(self) -> Any:
        if self.kind == "sqlite":
            return sqlite3.connect(self.url.removeprefix("jdbc:sqlite:"), timeout=30)
        import psycopg

        return psycopg.connect(self.dsn, autocommit=True)

    def execute(self, *statements: str) -> None:
        connection = self.connect()
        try:
            for statement in statements:
                connection.execute(statement)
            connection.commit()
        finally:
            connection.close()

    def query(self, statement: str) -> list[tuple[Any, ...]]:
        connection = self.connect()
        try:
            return [tuple(r) for r in connection.execute(statement).fetchall()]
        finally:
            connection.close()

    def credentials(self) -> str:
        """The table options of the user and password (none for SQLite)."""
        if self.user is None:
            return ""
        return f", 'username' = '{self.user}', 'password' = '{self.password}'"


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        yield Database("sqlite", f"jdbc:sqlite:{tmp_path / 'test.db'}")
        return
    server = request.getfixturevalue("postgres")
    database = Database("postgres", server.jdbc_url, server.user, server.password, server.dsn)
    yield database
    rows = database.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    database.execute(*[f"DROP TABLE {name}" for (name,) in rows])


def _options(db: Database) -> JdbcConnectionOptions:
    builder = JdbcConnectionOptions.JdbcConnectionOptionsBuilder().with_url(db.url)
    builder.with_driver_name("org.sqlite.JDBC" if db.kind == "sqlite" else "org.postgresql.Driver")
    if db.user is not None:
        builder.with_user_name(db.user).with_password(db.password or "")
    return builder.build()


def _table_env(parallelism: int = 1, batch: bool = False) -> TableEnvironment:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("parallelism.default", str(parallelism))
    return t_env


# -- DataStream JdbcSink ---------------------------------------------------------------------------


BOOKS = Types.ROW_NAMED(["id", "title", "price"], [Types.INT(), Types.STRING(), Types.BIG_DEC()])


def test_jdbc_sink_writes_every_record_in_batches(db: Database) -> None:
    import decimal

    db.execute("CREATE TABLE books (id INTEGER PRIMARY KEY, title VARCHAR(20), price DECIMAL(10, 2))")
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    records = [Row(i, f"book {i}", decimal.Decimal(i) / 4) for i in range(1, 101)]
    stream = env.from_collection(records, type_info=BOOKS)
    stream.add_sink(
        JdbcSink.sink(
            "INSERT INTO books (id, title, price) VALUES (?, ?, ?)",
            BOOKS,
            _options(db),
            JdbcExecutionOptions.builder()
            .with_batch_size(7)
            .with_batch_interval_ms(200)
            .with_max_retries(0)
            .build(),
        )
    )
    env.execute("jdbc sink")
    rows = db.query("SELECT id, title, price FROM books ORDER BY id")
    assert [(r[0], r[1], decimal.Decimal(str(r[2]))) for r in rows] == [tuple(r) for r in records]


class _WaitForTheDatabase(SourceFunction):
    """Emits ``count`` records, then waits until the database holds them all: with a batch
    larger than that, only a checkpoint's flush, or the batch interval's, writes them."""

    def __init__(self, db: Database, count: int) -> None:
        self.db, self.count = db, count

    def run(self, ctx: Any) -> None:
        for i in range(self.count):
            ctx.collect(Row(i, f"book {i}", None))
        deadline = time.monotonic() + 120
        while self.db.query("SELECT COUNT(*) FROM books")[0][0] < self.count:
            if time.monotonic() > deadline:
                raise AssertionError("nothing wrote the records within 120 s")
            time.sleep(0.05)

    def cancel(self) -> None:
        pass


@pytest.mark.parametrize("flush", ["checkpoint", "interval"])
def test_jdbc_sink_writes_its_batch_on_every_checkpoint_and_interval(db: Database, flush: str) -> None:
    db.execute("CREATE TABLE books (id INTEGER PRIMARY KEY, title VARCHAR(20), price DECIMAL(10, 2))")
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    if flush == "checkpoint":
        env.enable_checkpointing(200)
    stream = env.add_source(_WaitForTheDatabase(db, 25), type_info=BOOKS)
    interval = 100 if flush == "interval" else 0
    execution = (
        JdbcExecutionOptions.builder().with_batch_size(10_000).with_batch_interval_ms(interval).build()
    )
    stream.add_sink(
        JdbcSink.sink("INSERT INTO books (id, title, price) VALUES (?, ?, ?)", BOOKS, _options(db), execution)
    )
    env.execute(f"{flush} flush")
    assert db.query("SELECT COUNT(*) FROM books") == [(25,)]


class _FailOnce(MapFunction):
    """Fails the job once, at record ``at`` (a marker file remembers it across attempts)."""

    def __init__(self, marker: str, at: int) -> None:
        self.marker, self.at = marker, at

    def map(self, value: Any) -> Any:
        if value[0] == self.at and not os.path.exists(self.marker):
            Path(self.marker).touch()
            raise RuntimeError("a failure on purpose")
        return value


def test_jdbc_sink_upserts_the_same_table_after_a_restart(db: Database, tmp_path: Path) -> None:
    from millstream.common import Configuration

    db.execute("CREATE TABLE books (id INTEGER PRIMARY KEY, title VARCHAR(20), price DECIMAL(10, 2))")
    conf = Configuration()
    conf.set_string("restart-strategy.type", "fixed-delay")
    conf.set_string("restart-strategy.fixed-delay.attempts", "2")
    conf.set_string("restart-strategy.fixed-delay.delay", "100 ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    records = [Row(i, f"book {i}", None) for i in range(1, 101)]
    stream = env.from_collection(records, type_info=BOOKS).map(_FailOnce(str(tmp_path / "failed"), 60), BOOKS)
    upsert = (
        "INSERT INTO books (id, title, price) VALUES (?, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET title = EXCLUDED.title, price = EXCLUDED.price"
    )
    execution = JdbcExecutionOptions.builder().with_batch_size(7).build()
    stream.add_sink(JdbcSink.sink(upsert, BOOKS, _options(db), execution))
    env.execute("restarted")
    assert (tmp_path / "failed").exists()  # it did fail once, and wrote the first batches twice
    assert db.query("SELECT id, title FROM books ORDER BY id") == [(r[0], r[1]) for r in records]


class _DropTheSinkConnection(MapFunction):
    """Passes records on; at record ``at`` it terminates the sink's PostgreSQL connection (the
    sink's earlier batches are written by then: batches of 5, chained after this map)."""

    def __init__(self, dsn: str, at: int) -> None:
        self.dsn, self.at = dsn, at

    def map(self, value: Any) -> Any:
        if value[0] == self.at:
            import psycopg

            with psycopg.connect(self.dsn, autocommit=True) as connection:
                terminated = connection.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'jdbc-sink-test'"
                ).fetchall()
            assert terminated == [(True,)], terminated
        return value


def test_jdbc_sink_writes_again_after_the_database_dropped_its_connection(postgres: Any) -> None:
    db = Database(
        "postgres", f"{postgres.jdbc_url}?ApplicationName=jdbc-sink-test", postgres.user, postgres.password
    )
    postgres.execute(
        "DROP TABLE IF EXISTS books", "CREATE TABLE books (id INT PRIMARY KEY, title TEXT, price NUMERIC)"
    )
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    records = [Row(i, f"book {i}", None) for i in range(1, 31)]
    stream = env.from_collection(records, type_info=BOOKS).map(
        _DropTheSinkConnection(postgres.dsn, 13), BOOKS
    )
    execution = JdbcExecutionOptions.builder().with_batch_size(5).with_max_retries(2).build()
    stream.add_sink(
        JdbcSink.sink("INSERT INTO books (id, title, price) VALUES (?, ?, ?)", BOOKS, _options(db), execution)
    )
    env.execute("dropped connection")
    assert postgres.query("SELECT id FROM books ORDER BY id") == [(i,) for i in range(1, 31)]
    postgres.execute("DROP TABLE books")


# -- SQL --------------------------------------------------------------------------------------------


def _orders(db: Database, count: int = 40) -> list[tuple[int, str, float, bool]]:
    rows = [(i, f"c{i % 3}", round(i * 1.25, 2), i % 2 == 0) for i in range(1, count + 1)]
    db.execute(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer VARCHAR(10), amount DECIMAL(10, 2), "
        "paid BOOLEAN)",
        *[
            f"INSERT INTO orders VALUES ({i}, '{c}', {a}, {'TRUE' if p else 'FALSE'})"
            if db.kind == "postgres"
            else f"INSERT INTO orders VALUES ({i}, '{c}', {a}, {int(p)})"
            for i, c, a, p in rows
        ],
    )
    return rows


def _orders_table(t_env: TableEnvironment, db: Database, extra: str = "") -> None:
    t_env.execute_sql(
        "CREATE TABLE orders (id INT, customer STRING, amount DECIMAL(10, 2), paid BOOLEAN) WITH ("
        f"'connector' = 'jdbc', 'url' = '{db.url}', 'table-name' = 'orders'{db.credentials()}{extra})"
    )


def test_a_partitioned_scan_reads_every_row_once_at_parallelism_2(db: Database) -> None:
    import decimal

    rows = _orders(db)
    t_env = _table_env(parallelism=2, batch=True)
    _orders_table(
        t_env,
        db,
        ", 'scan.partition.column' = 'id', 'scan.partition.num' = '3', "
        "'scan.partition.lower-bound' = '1', 'scan.partition.upper-bound' = '40', 'scan.fetch-size' = '7'",
    )
    found = sorted(
        tuple(r) for r in t_env.execute_sql("SELECT id, customer, amount, paid FROM orders").collect()
    )
    assert found == [
        (i, c, decimal.Decimal(str(a)).quantize(decimal.Decimal("0.01")), p) for i, c, a, p in rows
    ]
    query = "SELECT customer, id FROM orders WHERE amount > 20 AND customer = 'c1'"
    plan = t_env.explain_sql(query)
    assert "project=[id, customer, amount]" in plan and "filter=[and(>(amount, 20), =(customer" in plan
    filtered = sorted(tuple(r) for r in t_env.execute_sql(query).collect())
    assert filtered == sorted((c, i) for i, c, a, _ in rows if a > 20 and c == "c1")
    # no column read: a row per row (SELECT 1 FROM orders)
    assert [tuple(r) for r in t_env.execute_sql("SELECT COUNT(1) FROM (SELECT 1 FROM orders)").collect()] == [
        (40,)
    ]


def test_the_append_sink_inserts_rows_and_refuses_an_updating_query(db: Database) -> None:
    rows = _orders(db, 10)
    db.execute("CREATE TABLE copy (id INTEGER, customer VARCHAR(10))")
    t_env = _table_env(parallelism=2)
    _orders_table(t_env, db)
    t_env.execute_sql(
        "CREATE TABLE copy (id INT, customer STRING) WITH ("
        f"'connector' = 'jdbc', 'url' = '{db.url}', 'table-name' = 'copy'{db.credentials()}, "
        "'sink.buffer-flush.max-rows' = '3', 'sink.parallelism' = '1')"
    )
    t_env.execute_sql("INSERT INTO copy SELECT id, customer FROM orders").wait()
    assert db.query("SELECT id, customer FROM copy ORDER BY id") == [(i, c) for i, c, _, _ in rows]
    # flink-connector-jdbc JdbcDynamicTableSink.validatePrimaryKey's message
    with pytest.raises(ValueError, match=r"^please declare primary key for sink table when query contains"):
        t_env.execute_sql(
            "INSERT INTO copy SELECT CAST(COUNT(*) AS INT), customer FROM orders GROUP BY customer"
        )


def _debezium(path: Path, changes: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]]) -> None:
    path.write_text("".join(json.dumps({"before": b, "after": a, "op": op}) + "\n" for op, b, a in changes))


def test_the_upsert_sink_ends_as_the_aggregation_s_final_state(db: Database, tmp_path: Path) -> None:
    db.execute("CREATE TABLE totals (customer VARCHAR(10) PRIMARY KEY, total BIGINT, orders BIGINT)")
    db.execute("INSERT INTO totals VALUES ('gone', 1, 1)")  # a key the changelog deletes
    changes: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = []
    expected: dict[str, list[int]] = {}
    for i in range(1, 61):
        customer = f"c{i % 4}"
        changes.append(("c", None, {"id": i, "customer": customer, "amount": i}))
    for i in range(1, 61, 4):  # customer c1's orders are all deleted again
        changes.append(("d", {"id": i, "customer": "c1", "amount": i}, None))
    changes.append(("c", None, {"id": 100, "customer": "gone", "amount": 5}))
    changes.append(("d", {"id": 100, "customer": "gone", "amount": 5}, None))
    for i in range(1, 61):
        if i % 4 != 1:
            total = expected.setdefault(f"c{i % 4}", [0, 0])
            total[0] += i
            total[1] += 1
    _debezium(tmp_path / "orders.json", changes)
    t_env = _table_env(parallelism=2)
    t_env.execute_sql(
        "CREATE TABLE changes (id INT, customer STRING, amount BIGINT) WITH ("
        f"'connector' = 'filesystem', 'path' = '{tmp_path / 'orders.json'}', 'format' = 'debezium-json')"
    )
    t_env.execute_sql(
        "CREATE TABLE totals (customer STRING, total BIGINT, orders BIGINT, "
        "PRIMARY KEY (customer) NOT ENFORCED) "
        f"WITH ('connector' = 'jdbc', 'url' = '{db.url}', 'table-name' = 'totals'{db.credentials()}, "
        "'sink.buffer-flush.max-rows' = '5', 'sink.buffer-flush.interval' = '100 ms')"
    )
    t_env.execute_sql(
        "INSERT INTO totals SELECT customer, SUM(amount), COUNT(*) FROM changes GROUP BY customer"
    ).wait()
    assert sorted(db.query("SELECT customer, total, orders FROM totals")) == sorted(
        (c, t, n) for c, (t, n) in expected.items()
    )


def _publish(path: Path, text: str) -> None:
    hidden = path.with_name(f".{path.name}")
    hidden.write_text(text)
    os.replace(hidden, path)


@pytest.mark.parametrize("cache", ["none", "partial"])
def test_a_lookup_join_sees_a_changed_row_once_its_cache_entry_expires(
    db: Database, tmp_path: Path, cache: str
) -> None:
    db.execute("CREATE TABLE rates (currency VARCHAR(3) PRIMARY KEY, rate DECIMAL(10, 4))")
    db.execute("INSERT INTO rates VALUES ('EUR', 1.1000)", "INSERT INTO rates VALUES ('GBP', 1.3000)")
    orders = tmp_path / "orders"
    orders.mkdir()
    ttl_s = 3.0
    caching = (
        f", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100', "
        f"'lookup.partial-cache.expire-after-write' = '{int(ttl_s)} s'"
        if cache == "partial"
        else ""
    )
    t_env = _table_env()
    t_env.execute_sql(
        "CREATE TABLE orders (id BIGINT, currency STRING, pt AS PROCTIME()) WITH ("
        f"'connector' = 'filesystem', 'path' = '{orders}', 'format' = 'csv', "
        "'source.monitor-interval' = '50 ms')"
    )
    t_env.execute_sql(
        "CREATE TABLE rates (currency STRING, rate DECIMAL(10, 4), "
        "PRIMARY KEY (currency) NOT ENFORCED) WITH ("
        f"'connector' = 'jdbc', 'url' = '{db.url}', 'table-name' = 'rates'{db.credentials()}{caching})"
    )
    query = (
        "SELECT o.id, o.currency, r.rate FROM orders AS o "
        "LEFT JOIN rates FOR SYSTEM_TIME AS OF o.pt AS r ON o.currency = r.currency"
    )
    first_published = time.monotonic()
    _publish(orders / "0.csv", "0,EUR\n1,USD\n")
    seen: list[tuple[int, str, Any, float]] = []
    deadline = time.monotonic() + 120
    with t_env.execute_sql(query).collect() as results:
        for row in results:
            seen.append((row[0], row[1], row[2], time.monotonic()))
            if row[0] == 1:
                assert row[2] is None  # no USD rate: a LEFT join's NULLs
            if len(seen) < 2:
                continue
            if len(seen) == 2:  # both looked up (EUR is cached now): change the rate
                db.execute("UPDATE rates SET rate = 1.2000 WHERE currency = 'EUR'")
            elif str(row[2]) == "1.2000" or time.monotonic() > deadline:
                break
            _publish(orders / f"{len(seen)}.csv", f"{len(seen)},EUR\n")  # the next order
    rates = [str(rate) for order, _, rate, _ in seen if order != 1]
    assert rates[-1] == "1.2000", f"no lookup saw the new rate within 120 s: {seen}"
    assert rates[0] == "1.1000"
    if cache == "none":  # every lookup queries: the first order after the change sees it
        assert rates[1] == "1.2000", rates
    else:  # a lookup before the entry could expire is served the old rate by the cache
        early = [rate for order, _, rate, at in seen[2:] if at < first_published + ttl_s]
        assert all(str(rate) == "1.1000" for rate in early), seen


_TYPED_FLINK = (
    "id INT, flag BOOLEAN, tiny TINYINT, small SMALLINT, big BIGINT, f FLOAT, d DOUBLE, "
    "amount DECIMAL(10, 2), s STRING, c CHAR(3), day DATE, t TIME(0), ts TIMESTAMP(3), b BYTES"
)
_TYPED_VALUES = (
    "1, TRUE, CAST(7 AS TINYINT), CAST(300 AS SMALLINT), 9000000000, CAST(1.1 AS FLOAT), 2.25, 12.345, "
    "'text', 'abc', DATE '2024-02-29', TIME '12:34:56', TIMESTAMP '2024-02-29 12:34:56.789', "
    "CAST('hi' AS BYTES)"
)


def test_flink_types_round_trip_through_the_database_s_columns(db: Database) -> None:
    """Written by the sink into the database's own column types (PostgreSQL's numeric, real,
    timestamp(3), timestamptz, bytea, int[]; SQLite's affinities), then read by a scan."""
    import datetime
    import decimal

    if db.kind == "postgres":
        db.execute(
            "CREATE TABLE typed (id INT PRIMARY KEY, flag BOOLEAN, tiny SMALLINT, small SMALLINT, "
            "big BIGINT, f REAL, d DOUBLE PRECISION, amount NUMERIC(10, 2), s VARCHAR(20), c CHAR(3), "
            "day DATE, t TIME, "
            "ts TIMESTAMP(3), b BYTEA, tz TIMESTAMPTZ, arr INT[])"
        )
        flink, values = (
            f"{_TYPED_FLINK}, tz TIMESTAMP_LTZ(3), arr ARRAY<INT>",
            (f"{_TYPED_VALUES}, TO_TIMESTAMP_LTZ(1709210096789, 3), ARRAY[1, 2]"),
        )
    else:
        db.execute(
            "CREATE TABLE typed (id INTEGER PRIMARY KEY, flag BOOLEAN, tiny INTEGER, small INTEGER, "
            "big INTEGER, f REAL, d REAL, amount DECIMAL(10, 2), s TEXT, c TEXT, day DATE, t TIME, "
            "ts TIMESTAMP, b BLOB)"
        )
        flink, values = _TYPED_FLINK, _TYPED_VALUES
    t_env = _table_env(batch=True)
    t_env.execute_sql(
        f"CREATE TABLE typed ({flink}) WITH ("
        f"'connector' = 'jdbc', 'url' = '{db.url}', 'table-name' = 'typed'{db.credentials()})"
    )
    t_env.execute_sql(f"INSERT INTO typed VALUES ({values})").wait()
    stored = db.query("SELECT * FROM typed")[0]
    common = (
        1,
        True,
        7,
        300,
        9000000000,
        pytest.approx(1.1),
        2.25,
        decimal.Decimal("12.35"),
        "text",
        "abc",
        datetime.date(2024, 2, 29),
        datetime.time(12, 34, 56),
        datetime.datetime(2024, 2, 29, 12, 34, 56, 789000),
        b"hi",
    )
    if db.kind == "postgres":
        instant = datetime.datetime(2024, 2, 29, 12, 34, 56, 789000, tzinfo=datetime.UTC)
        assert stored == (*common, instant, [1, 2])
        assert db.query("SELECT pg_typeof(amount)::text, pg_typeof(tz)::text FROM typed") == [
            ("numeric", "timestamp with time zone")
        ]
    else:  # SQLite: booleans 0/1, the decimal by its NUMERIC affinity, dates and times as text
        assert stored == (
            *common[:1],
            1,
            *common[2:7],
            12.35,
            "text",
            "abc",
            "2024-02-29",
            "12:34:56",
            "2024-02-29 12:34:56.789000",
            b"hi",
        )
    with t_env.execute_sql("SELECT * FROM typed").collect() as rows:
        (read,) = [tuple(r) for r in rows]
    assert read[:14] == (*common[:5], read[5], *common[6:14]) and abs(read[5] - 1.1) < 1e-6
    if db.kind == "postgres":
        local = instant.astimezone().replace(tzinfo=None)  # TIMESTAMP_LTZ: the session zone's wall clock
        assert read[14:] == (local, [1, 2])


# -- errors -----------------------------------------------------------------------------------------


def _failure_line(error: BaseException) -> str:
    line = render(error, verbose=False)
    assert "\n" not in line, line
    return line


def test_a_bad_url_is_one_line() -> None:
    from millstream.connectors.jdbc.errors import JdbcConnectorError

    options = JdbcConnectionOptions.JdbcConnectionOptionsBuilder().with_url("jdbc:h2:mem:test").build()
    with pytest.raises(JdbcConnectorError, match=r"^Unsupported JDBC URL 'jdbc:h2:mem:test': ") as error:
        JdbcSink.sink("INSERT INTO t VALUES (?)", Types.ROW([Types.INT()]), options)
    assert "\n" not in str(error.value)


def test_a_missing_table_fails_the_job_in_one_line(db: Database) -> None:
    t_env = _table_env()
    t_env.execute_sql(
        "CREATE TABLE nowhere (id INT) WITH ("
        f"'connector' = 'jdbc', 'url' = '{db.url}', 'table-name' = 'nowhere'{db.credentials()})"
    )
    with pytest.raises(Exception) as error:
        t_env.execute_sql("INSERT INTO nowhere VALUES (1), (2)").wait()
    line = _failure_line(error.value)
    assert "Writing records to JDBC failed" in line and "nowhere" in line
    assert ("no such table: nowhere" if db.kind == "sqlite" else 'relation "nowhere" does not exist') in line
    with pytest.raises(Exception) as error:
        list(t_env.execute_sql("SELECT * FROM nowhere").collect())
    line = _failure_line(error.value)
    assert "Reading the JDBC table 'nowhere'" in line


def test_a_refused_record_fails_the_jdbc_sink_in_one_line_naming_it(db: Database) -> None:
    db.execute(
        "CREATE TABLE books (id INTEGER PRIMARY KEY, title VARCHAR(20) NOT NULL, price DECIMAL(10, 2))"
    )
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    records = [Row(1, "a", None), Row(2, None, None), Row(3, "c", None)]
    stream = env.from_collection(records, type_info=BOOKS)
    execution = JdbcExecutionOptions.builder().with_max_retries(1).build()
    sink = JdbcSink.sink(
        "INSERT INTO books (id, title, price) VALUES (?, ?, ?)", BOOKS, _options(db), execution
    )
    stream.add_sink(sink).name("books")
    with pytest.raises(Exception) as error:
        env.execute("refused")
    line = _failure_line(error.value)
    assert "Writing records to JDBC failed on the record Row(id=2, title=None, price=None)" in line
    assert "(operator 'books' in subtask " in line
    assert ("NOT NULL constraint failed: books.title" if db.kind == "sqlite" else "NotNullViolation") in line
    assert db.query("SELECT COUNT(*) FROM books") == [(0,)]


def test_a_wrong_password_fails_the_job_in_one_line(postgres: Any) -> None:
    t_env = _table_env()
    t_env.execute_sql(
        "CREATE TABLE t (id INT) WITH ("
        f"'connector' = 'jdbc', 'url' = '{postgres.jdbc_url}', 'table-name' = 't', "
        f"'username' = '{postgres.user}', 'password' = 'wrong')"
    )
    with pytest.raises(Exception) as error:
        t_env.execute_sql("INSERT INTO t VALUES (1)").wait()
    line = _failure_line(error.value)
    assert f"Cannot connect to '{postgres.jdbc_url}' as user '{postgres.user}'" in line
    assert (
        "password authentication failed" in line and "wrong" not in line.split("password authentication")[0]
    )
