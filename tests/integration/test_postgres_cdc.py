"""The postgres-cdc source against a real PostgreSQL 15 (the ``postgres`` fixture): the
snapshot and then the change stream as a changelog whose replay is the table's final state,
with nothing lost or doubled at the hand-over while rows change during the snapshot (a new
slot's exported snapshot, and an existing slot's position with a temporary slot's
snapshot), ``latest-offset``, a SQL aggregation over the CDC table, and the one-line errors.

Each job's changelog is replayed as a multiset: +I/+U add a row, -U/-D take one away. The
replay equals the database's rows, each exactly once, only when no change was lost or
doubled (a doubled insert counts twice, a lost delete leaves a row, a doubled retraction
goes below zero).
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.testing.postgres_server import PostgresServer

pytestmark = pytest.mark.timeout(300)

_slots = itertools.count()


def cdc_options(pg: PostgresServer, table: str, slot: str, **extra: str) -> str:
    options = {
        "connector": "postgres-cdc",
        "hostname": pg.host,
        "port": str(pg.port),
        "username": pg.user,
        "password": pg.password,
        "database-name": pg.database,
        "schema-name": "public",
        "table-name": table,
        "slot.name": slot,
        "decoding.plugin.name": "pgoutput",
        # keyword names: '_' stands for '.', '__' for '-' (changelog__mode: changelog-mode)
        **{k.replace("__", "-").replace("_", "."): v for k, v in extra.items()},
    }
    return ", ".join(f"'{k}' = '{v}'" for k, v in options.items())


def new_slot(prefix: str) -> str:
    return f"{prefix}_{next(_slots)}_{random.randrange(1 << 20)}"


def create_accounts(pg: PostgresServer, name: str, rows: int, identity: str = "FULL") -> None:
    pg.execute(
        f"DROP TABLE IF EXISTS {name}",
        f"CREATE TABLE {name} (id INT PRIMARY KEY, owner TEXT NOT NULL, balance INT NOT NULL)",
        f"ALTER TABLE {name} REPLICA IDENTITY {identity}",
        f"INSERT INTO {name} SELECT i, 'owner' || (i % 7), i * 10 FROM generate_series(1, {rows}) AS i",
    )


def table_env(pg: PostgresServer, name: str, slot: str, columns: str = "", **extra: str) -> TableEnvironment:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("parallelism.default", "1")
    t_env.execute_sql(
        f"CREATE TABLE {name} (id INT, owner STRING, balance INT{columns}, PRIMARY KEY (id) NOT ENFORCED) "
        f"WITH ({cdc_options(pg, name, slot, **extra)})"
    )
    return t_env


def replay(state: Counter[tuple[Any, ...]], kind: Any, row: tuple[Any, ...]) -> None:
    if str(kind) in ("+I", "+U", "INSERT", "UPDATE_AFTER"):
        state[row] += 1
    else:
        state[row] -= 1


def database_rows(pg: PostgresServer, name: str) -> Counter[tuple[Any, ...]]:
    return Counter(pg.query(f"SELECT id, owner, balance FROM {name}"))


def follow(
    rows: Iterator[Any],
    until: Callable[[Counter[tuple[Any, ...]], int], bool],
    state: Counter[tuple[Any, ...]] | None = None,
) -> Counter[tuple[Any, ...]]:
    """Replay the result's changes into ``state`` until ``until(state, count)`` holds
    (``count``: the changes replayed by this call)."""
    state = Counter() if state is None else state
    for count, row in enumerate(rows, 1):
        replay(state, row.get_row_kind(), tuple(row))
        if until(state, count):
            return state
    raise AssertionError("the result ended")


def settled(state: Counter[tuple[Any, ...]]) -> Counter[tuple[Any, ...]]:
    return Counter({row: n for row, n in state.items() if n != 0})


class Writer:
    """Changes rows of a table in its own transactions on a thread: updates (some of the
    key), deletes and inserts, until stopped or ``count`` transactions are done."""

    def __init__(self, pg: PostgresServer, name: str, rows: int, count: int, seed: int) -> None:
        self.pg, self.name, self.rows, self.count = pg, name, rows, count
        self.random = random.Random(seed)
        self.stop = threading.Event()
        self.done = 0
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="cdc-test-writer", daemon=True)

    def __enter__(self) -> Writer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._thread.join(60)

    def wait(self, timeout: float = 120) -> None:
        """Until the writer has stopped (its last transaction committed)."""
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the writer did not finish"
        if self.error is not None:
            raise self.error

    def _run(self) -> None:
        try:
            with self.pg.connect() as conn:
                next_id = self.rows + 1
                while not self.stop.is_set() and self.done < self.count:
                    next_id = self._step(conn, next_id)
                    self.done += 1
                    time.sleep(0.002)  # spread the writes over the job's start and snapshot
        except BaseException as err:
            self.error = err

    def _step(self, conn: Any, next_id: int) -> int:
        r, name = self.random, self.name
        key = r.randrange(1, next_id)
        choice = r.random()
        with conn.transaction():
            if choice < 0.5:
                conn.execute(f"UPDATE {name} SET balance = balance + 1 WHERE id = %s", (key,))
            elif choice < 0.6:
                conn.execute(f"UPDATE {name} SET id = %s WHERE id = %s", (next_id, key))
                return next_id + 1
            elif choice < 0.75:
                conn.execute(f"DELETE FROM {name} WHERE id = %s", (key,))
            else:
                conn.execute(f"INSERT INTO {name} VALUES (%s, 'new', %s)", (next_id, key))
                conn.execute(f"UPDATE {name} SET owner = 'touched' WHERE id = %s", (key,))
                return next_id + 1
        return next_id


@contextmanager
def collected(t_env: TableEnvironment, query: str) -> Iterator[Iterator[Any]]:
    with t_env.execute_sql(query).collect() as rows:
        yield rows


def slot_active(pg: PostgresServer, slot: str) -> bool:
    found = pg.query(f"SELECT active FROM pg_replication_slots WHERE slot_name = '{slot}'")
    return bool(found and found[0][0])


def confirmed_flush(pg: PostgresServer, slot: str) -> str:
    return str(
        pg.query(f"SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '{slot}'")[0][0]
    )


def test_the_snapshot_then_the_stream_replay_to_the_tables_final_state(postgres: PostgresServer) -> None:
    create_accounts(postgres, "accounts", 50)
    slot = new_slot("stream")
    t_env = table_env(postgres, "accounts", slot, debezium_status_update_interval_ms="100")
    with collected(t_env, "SELECT * FROM accounts") as rows:
        snapshot = follow(rows, lambda state, count: count == 50)
        assert snapshot == database_rows(postgres, "accounts")  # every row once, as +I
        created_at = confirmed_flush(postgres, slot)
        postgres.execute(
            "UPDATE accounts SET balance = balance + 5 WHERE id <= 10",
            "DELETE FROM accounts WHERE id BETWEEN 11 AND 15",
            "INSERT INTO accounts VALUES (100, 'late', 1), (101, 'late', 2)",
            "UPDATE accounts SET id = 102 WHERE id = 20",  # a key change: -U of 20, +U of 102
            "UPDATE accounts SET owner = 'x' WHERE id = 100",
        )
        (written,) = postgres.query("SELECT pg_current_wal_lsn()::text")[0]
        final = database_rows(postgres, "accounts")
        state = follow(rows, lambda state, count: settled(state) == final, snapshot)
        assert all(n == 1 for n in settled(state).values())
        # the source told the server it received every change (a status update every 100 ms),
        # but no checkpoint completed (checkpointing is off): the slot still keeps every change
        reported = f"SELECT r.write_lsn >= '{written}', r.flush_lsn::text FROM pg_stat_replication r "
        reported += f"JOIN pg_replication_slots s ON s.active_pid = r.pid WHERE s.slot_name = '{slot}'"
        deadline = time.monotonic() + 60
        while postgres.query(reported)[:1] != [(True, created_at)]:
            assert time.monotonic() < deadline, postgres.query(reported)
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline
        assert confirmed_flush(postgres, slot) == created_at


def test_the_slot_hears_a_position_once_a_checkpoint_holding_it_completed(postgres: PostgresServer) -> None:
    create_accounts(postgres, "confirmed", 5)
    slot = new_slot("confirmed")
    t_env = table_env(postgres, "confirmed", slot)
    t_env.get_config().set("execution.checkpointing.interval", "100 ms")
    with collected(t_env, "SELECT * FROM confirmed") as rows:
        state = follow(rows, lambda state, count: count == 5)
        created_at = confirmed_flush(postgres, slot)
        postgres.execute("INSERT INTO confirmed VALUES (6, 'six', 6)")
        (commit,) = postgres.query("SELECT pg_current_wal_lsn()::text")[0]
        follow(rows, lambda state, count: count == 1, state)
        deadline = time.monotonic() + 60
        while postgres.query(
            f"SELECT confirmed_flush_lsn >= '{commit}' FROM pg_replication_slots WHERE slot_name = '{slot}'"
        ) != [(True,)]:
            assert time.monotonic() < deadline, (
                f"the slot stayed at {confirmed_flush(postgres, slot)} (created at {created_at})"
            )
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline


@pytest.mark.parametrize("existing_slot", [False, True], ids=["new slot", "existing slot"])
def test_rows_changing_during_the_snapshot_are_neither_lost_nor_doubled(
    postgres: PostgresServer, existing_slot: bool
) -> None:
    """A 4000-row table read 20 rows a fetch while a writer changes rows in transactions of
    their own from before the job starts until well after its snapshot ends. With an
    existing slot (a job started again without its state; here older than the publication
    the job creates) the snapshot comes from a temporary slot and the slot is advanced to
    that snapshot's point."""
    name = "busy_existing" if existing_slot else "busy_new"
    create_accounts(postgres, name, 4000)
    slot = new_slot("busy")
    if existing_slot:
        postgres.execute(f"SELECT pg_create_logical_replication_slot('{slot}', 'pgoutput')")
        postgres.execute(f"UPDATE {name} SET balance = -1 WHERE id <= 100")  # before the job: in the snapshot
    extra = {"scan_snapshot_fetch_size": "20"}
    if existing_slot:  # a publication of its own, created by the job after the slot
        extra |= {
            "debezium_publication_name": f"pub_{slot}",
            "debezium_publication_autocreate_mode": "filtered",
        }
    t_env = table_env(postgres, name, slot, **extra)
    seen: list[int] = []  # the writer's transactions at the first and at the last snapshot row

    def snapshot_read(state: Counter[tuple[Any, ...]], count: int) -> bool:
        if count in (1, 4000):
            seen.append(writer.done)
        return count == 4000

    writer = Writer(postgres, name, 4000, 1_000_000, seed=7 if existing_slot else 8)
    with writer, collected(t_env, f"SELECT * FROM {name}") as rows:
        state = follow(rows, snapshot_read)
        follow(rows, lambda s, count: writer.done >= seen[-1] + 100, state)
        writer.stop.set()
        writer.wait()
        final = database_rows(postgres, name)
        follow(rows, lambda s, count: settled(s) == final or min(s.values()) < 0, state)
    # the writer was at work before the slot's snapshot, while it was read, and after it
    assert 0 < seen[0] < seen[1], seen
    assert settled(state) == final
    assert all(n == 1 for n in settled(state).values())


def test_latest_offset_reads_only_the_changes_after_the_start(postgres: PostgresServer) -> None:
    create_accounts(postgres, "latest", 20)
    slot = new_slot("latest")
    t_env = table_env(postgres, "latest", slot, scan_startup_mode="latest-offset")
    result = t_env.execute_sql("SELECT * FROM latest")
    with result.collect() as rows:
        deadline = time.monotonic() + 120
        while not slot_active(postgres, slot):
            assert time.monotonic() < deadline, "the source did not start streaming"
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline
        postgres.execute(
            "INSERT INTO latest VALUES (21, 'new', 1), (22, 'new', 2)",
            "UPDATE latest SET balance = 3 WHERE id = 22",
            "DELETE FROM latest WHERE id = 21",
        )
        first = next(rows)
        assert (str(first.get_row_kind()), tuple(first)) == ("+I", (21, "new", 1))
        state = follow(rows, lambda state, count: count == 4)
        replay(state, "+I", (21, "new", 1))
    assert settled(state) == Counter({(22, "new", 3): 1})


def test_a_sql_aggregation_over_the_cdc_table_follows_the_database(postgres: PostgresServer) -> None:
    create_accounts(postgres, "ledger", 200)
    slot = new_slot("agg")
    t_env = table_env(postgres, "ledger", slot)
    query = "SELECT owner, SUM(balance) AS total, COUNT(*) AS n FROM ledger GROUP BY owner"

    def expected() -> Counter[tuple[Any, ...]]:
        return Counter(
            postgres.query("SELECT owner, SUM(balance)::int, COUNT(*)::int FROM ledger GROUP BY owner")
        )

    initial = expected()
    with collected(t_env, query) as rows:
        state = follow(rows, lambda s, count: settled(s) == initial)
        postgres.execute(
            "UPDATE ledger SET balance = balance * 2 WHERE id % 3 = 0",
            "UPDATE ledger SET owner = 'owner0' WHERE id % 5 = 0",
            "DELETE FROM ledger WHERE id > 190",
        )
        final = expected()
        follow(rows, lambda s, count: settled(s) == final, state)
    assert settled(state) == final and len(final) == 7


def test_upsert_mode_reads_a_table_of_the_default_replica_identity(postgres: PostgresServer) -> None:
    """REPLICA IDENTITY DEFAULT sends no old row for an update and only the key for a
    delete: 'changelog-mode' = 'upsert' reads the table (the planner normalizes the upserts
    by the primary key), and a SQL aggregation over it follows the database."""
    create_accounts(postgres, "keyed", 30, identity="DEFAULT")
    t_env = table_env(postgres, "keyed", new_slot("upsert"), changelog__mode="upsert")
    query = "SELECT owner, SUM(balance) AS total FROM keyed GROUP BY owner"

    def expected() -> Counter[tuple[Any, ...]]:
        return Counter(postgres.query("SELECT owner, SUM(balance)::int FROM keyed GROUP BY owner"))

    initial = expected()
    with collected(t_env, query) as rows:
        state = follow(rows, lambda s, count: settled(s) == initial)
        postgres.execute(
            "UPDATE keyed SET balance = 0 WHERE id <= 10",
            "UPDATE keyed SET owner = 'owner1' WHERE id BETWEEN 11 AND 15",
            "DELETE FROM keyed WHERE id > 25",
            "UPDATE keyed SET id = 99, owner = 'moved' WHERE id = 20",  # a key change
        )
        final = expected()
        follow(rows, lambda s, count: settled(s) == final, state)
    assert settled(state) == final


def test_all_mode_without_the_old_rows_fails_at_the_first_update_as_flink_cdc(
    postgres: PostgresServer,
) -> None:
    create_accounts(postgres, "unkeyed", 3, identity="DEFAULT")
    t_env = table_env(postgres, "unkeyed", new_slot("nofull"))
    with pytest.raises(Exception) as failure, collected(t_env, "SELECT * FROM unkeyed") as rows:
        follow(rows, lambda state, count: count == 3)
        postgres.execute("UPDATE unkeyed SET balance = 1 WHERE id = 1")
        next(rows)
    text = str(failure.value)
    assert "ALTER TABLE public.unkeyed REPLICA IDENTITY FULL" in text, text
    assert "'changelog-mode' = 'upsert'" in text


def job_failure(t_env: TableEnvironment, query: str) -> str:
    """The message of the failure that ended the job, as the client reports it."""
    with pytest.raises(Exception) as failure, collected(t_env, query) as rows:
        next(rows)
    causes = []
    error: BaseException | None = failure.value
    while error is not None:
        causes.append(str(error))
        error = error.__cause__ or error.__context__
    return "\n".join(causes)


def one_line_error(text: str, expected: str) -> None:
    lines = [line for line in text.splitlines() if expected in line]
    assert lines, text
    assert "postgres-cdc:" in lines[0], text


def test_a_wrong_password_fails_the_job_in_one_line(postgres: PostgresServer) -> None:
    create_accounts(postgres, "guarded", 1)
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    options = cdc_options(postgres, "guarded", new_slot("pw")).replace(
        f"'password' = '{postgres.password}'", "'password' = 'wrong'"
    )
    t_env.execute_sql(f"CREATE TABLE guarded (id INT, owner STRING, balance INT) WITH ({options})")
    text = job_failure(t_env, "SELECT * FROM guarded")
    one_line_error(text, f'password authentication failed for user "{postgres.user}"')
    assert f"cannot connect to {postgres.host}:{postgres.port}/{postgres.database}" in text


def test_a_missing_table_fails_the_job_naming_the_patterns(postgres: PostgresServer) -> None:
    t_env = table_env(postgres, "nowhere", new_slot("missing"))
    text = job_failure(t_env, "SELECT * FROM nowhere")
    one_line_error(text, "matches schema-name 'public' and table-name 'public.nowhere'")


def test_a_slot_in_use_fails_the_job_naming_it(postgres: PostgresServer) -> None:
    create_accounts(postgres, "contended", 1)
    slot = new_slot("busy")
    postgres.execute(f"SELECT pg_create_logical_replication_slot('{slot}', 'pgoutput')")
    # another consumer streams the slot
    consumer = postgres.connect(autocommit=True, replication="database")
    try:
        options = "proto_version '1', publication_names 'dbz_publication'"
        consumer.pgconn.send_query(f"START_REPLICATION SLOT {slot} LOGICAL 0/0 ({options})".encode())
        deadline = time.monotonic() + 60
        while not slot_active(postgres, slot):
            assert time.monotonic() < deadline, "the other consumer did not start"
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline
        text = job_failure(table_env(postgres, "contended", slot), "SELECT * FROM contended")
        one_line_error(text, f"replication slot '{slot}' is in use by another consumer (PID")
    finally:
        consumer.close()


def test_a_slot_its_previous_consumer_lets_go_of_while_the_source_starts_is_read(
    postgres: PostgresServer,
) -> None:
    """A restarted job's previous attempt may still hold the slot for a moment: the source
    waits for it (up to 10 s) rather than failing at once."""
    create_accounts(postgres, "handed_over", 2)
    slot = new_slot("handover")
    postgres.execute(f"SELECT pg_create_logical_replication_slot('{slot}', 'pgoutput')")
    consumer = postgres.connect(autocommit=True, replication="database")
    options = "proto_version '1', publication_names 'dbz_publication'"
    consumer.pgconn.send_query(f"START_REPLICATION SLOT {slot} LOGICAL 0/0 ({options})".encode())
    deadline = time.monotonic() + 60
    while not slot_active(postgres, slot):
        assert time.monotonic() < deadline, "the other consumer did not start"
        time.sleep(0.05)  # polling an observable condition, bounded by the deadline
    release = threading.Timer(3.0, consumer.close)  # while the source waits for the slot
    release.start()
    try:
        with collected(table_env(postgres, "handed_over", slot), "SELECT * FROM handed_over") as rows:
            assert follow(rows, lambda state, count: count == 2) == database_rows(postgres, "handed_over")
    finally:
        release.join()


def test_a_server_without_logical_wal_fails_the_job_naming_wal_level() -> None:
    with PostgresServer(settings={"wal_level": "replica"}) as replica:
        create_accounts(replica, "plain", 1)
        text = job_failure(table_env(replica, "plain", new_slot("wal")), "SELECT * FROM plain")
    one_line_error(text, "wal_level is 'replica'")
    assert "logical decoding needs wal_level = logical" in text
