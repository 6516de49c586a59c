"""The postgres-cdc source's conversations with the server that are not the change stream:
connecting (a normal and a replication connection, with psycopg 3), the checks made before
reading (``wal_level``, the captured tables, their keys and replica identity, the slot),
the publication, replication slots and the snapshots they export.

Coordinating code: each call is one or a few statements, and a failure is one line naming
the server, the table or the slot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.connectors.postgres_cdc.config import PostgresCdcError, PostgresSourceConfig
from millstream.connectors.postgres_cdc.pgoutput import format_lsn, parse_lsn
from millstream.connectors.postgres_cdc.records import TableSchema

try:
    import psycopg
    from psycopg import pq
    from psycopg.adapt import AdaptersMap, Transformer
    from psycopg.types.string import TextLoader
except ModuleNotFoundError as err:  # the [postgres] extra
    raise ModuleNotFoundError(
        "the postgres-cdc connector needs psycopg 3: pip install 'millstream[postgres]'"
    ) from err

__all__ = [
    "SlotInfo",
    "advance_slot",
    "check_logical_decoding",
    "check_slot",
    "connect",
    "create_slot",
    "current_wal_lsn",
    "discover_tables",
    "ensure_publication",
    "one_line",
    "quote",
    "replication_command",
    "slot_info",
    "sql_name",
    "text_loaders",
]


@dataclass(frozen=True)
class SlotInfo:
    """A replication slot as ``pg_replication_slots`` shows it."""

    plugin: str | None
    database: str | None
    active_pid: int | None
    confirmed_flush: int


def quote(identifier: str) -> str:
    """A quoted SQL identifier."""
    return '"' + identifier.replace('"', '""') + '"'


def sql_name(table: TableSchema) -> str:
    """The quoted ``"schema"."table"`` of statements."""
    return f"{quote(table.schema)}.{quote(table.name)}"


def one_line(err: BaseException) -> str:
    """An error's message on one line (the server's ERROR/FATAL prefix and CONTEXT dropped)."""
    text = str(err).split("\nCONTEXT:")[0]
    return " ".join(text.replace("ERROR:  ", "").replace("FATAL:  ", "").split())


def connect(config: PostgresSourceConfig, replication: bool = False) -> Any:
    """A connection in autocommit mode (``replication``: a logical replication connection);
    json and jsonb values are read as their text, as Debezium hands them on."""
    kwargs = config.connection_kwargs()
    if replication:
        kwargs["replication"] = "database"
    try:
        conn = psycopg.connect(autocommit=True, **kwargs)
    except psycopg.OperationalError as err:
        raise PostgresCdcError(
            f"postgres-cdc: cannot connect to {config.address} as {config.username!r}: {one_line(err)}"
        ) from err
    for name in ("json", "jsonb"):
        conn.adapters.register_loader(name, TextLoader)
    return conn


def replication_command(conn: Any, command: str) -> list[tuple[bytes | None, ...]]:
    """Run a replication command (simple query protocol) on a replication connection; its rows."""
    result = conn.pgconn.exec_(command.encode())
    if result.status not in (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK):
        message = result.error_message.decode("utf-8", "replace")
        raise PostgresCdcError(one_line(RuntimeError(message)) or f"{command} failed")
    return [tuple(result.get_value(r, c) for c in range(result.nfields)) for r in range(result.ntuples)]


def check_logical_decoding(conn: Any, config: PostgresSourceConfig) -> None:
    """``wal_level`` must be ``logical``."""
    (level,) = conn.execute("SHOW wal_level").fetchone()
    if level != "logical":
        raise PostgresCdcError(
            f"postgres-cdc: wal_level is '{level}' on {config.address}; logical decoding needs "
            "wal_level = logical (set it in postgresql.conf and restart the server)"
        )


_TABLES = """
SELECT c.oid, n.nspname, c.relname, c.relreplident
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast_temp%'
ORDER BY n.nspname, c.relname
"""
_COLUMNS = """
SELECT a.attname, a.atttypid, a.atttypmod FROM pg_attribute a
WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
ORDER BY a.attnum
"""
_KEY = """
SELECT a.attname, a.attcollation <> 0 FROM pg_index i
JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position) ON true
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
WHERE i.indrelid = %s AND i.indisprimary ORDER BY k.position
"""


def discover_tables(conn: Any, config: PostgresSourceConfig) -> list[TableSchema]:
    """The tables the source captures, each with a primary key (the snapshot reads in its
    order, and a restored snapshot goes on after the last key read)."""
    found = []
    for oid, schema, name, identity in conn.execute(_TABLES).fetchall():
        if config.captures(schema, name):
            found.append(_table(conn, config, int(oid), schema, name, str(identity)))
    if not found:
        raise PostgresCdcError(
            f"postgres-cdc: no table of database {config.database!r} on {config.hostname}:{config.port} "
            f"matches {config.describe_tables()}"
        )
    return found


def _table(
    conn: Any, config: PostgresSourceConfig, oid: int, schema: str, name: str, identity: str
) -> TableSchema:
    columns = conn.execute(_COLUMNS, (oid,)).fetchall()
    key = conn.execute(_KEY, (oid,)).fetchall()
    if not key:
        raise PostgresCdcError(
            f"postgres-cdc: table {schema}.{name} has no primary key; the source reads a table's "
            "snapshot in primary key order (add one, or leave the table out of table-name)"
        )
    return TableSchema(
        config.database,
        schema,
        name,
        tuple(c[0] for c in columns),
        tuple(int(c[1]) for c in columns),
        tuple(int(c[2]) for c in columns),
        tuple(k[0] for k in key),
        identity,
        tuple(bool(k[1]) for k in key),
        oid,
    )


def ensure_publication(conn: Any, config: PostgresSourceConfig, tables: list[TableSchema]) -> None:
    """The publication exists and publishes every captured table, created or extended as
    ``publication.autocreate.mode`` says (Debezium's rule)."""
    name, mode = config.publication, config.autocreate_mode
    row = conn.execute("SELECT puballtables FROM pg_publication WHERE pubname = %s", (name,)).fetchone()
    listed = ", ".join(sql_name(t) for t in tables)
    if row is None:
        if mode == "disabled":
            raise PostgresCdcError(
                f"postgres-cdc: publication {name!r} does not exist and "
                "'debezium.publication.autocreate.mode' is 'disabled'"
            )
        target = "ALL TABLES" if mode == "all_tables" else f"TABLE {listed}"
        conn.execute(f"CREATE PUBLICATION {quote(name)} FOR {target}")
        return
    if row[0]:
        return
    published = {
        (schema, table)
        for schema, table in conn.execute(
            "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s", (name,)
        ).fetchall()
    }
    missing = [t for t in tables if (t.schema, t.name) not in published]
    if not missing:
        return
    if mode != "filtered":
        raise PostgresCdcError(
            f"postgres-cdc: publication {name!r} does not publish {', '.join(t.qualified for t in missing)} "
            f"(add them, or set 'debezium.publication.autocreate.mode' = 'filtered')"
        )
    conn.execute(f"ALTER PUBLICATION {quote(name)} ADD TABLE {', '.join(sql_name(t) for t in missing)}")


def slot_info(conn: Any, slot: str) -> SlotInfo | None:
    """The slot, or None when it does not exist."""
    row = conn.execute(
        "SELECT plugin, database, active_pid, confirmed_flush_lsn::text FROM pg_replication_slots "
        "WHERE slot_name = %s",
        (slot,),
    ).fetchone()
    if row is None:
        return None
    plugin, database, pid, confirmed = row
    return SlotInfo(plugin, database, pid, parse_lsn(confirmed) if confirmed else 0)


def check_slot(info: SlotInfo | None, config: PostgresSourceConfig) -> None:
    """An existing slot must be a pgoutput slot of the database, and free."""
    if info is None:
        return
    slot = config.slot_name
    if info.plugin != "pgoutput" or info.database != config.database:
        raise PostgresCdcError(
            f"postgres-cdc: replication slot {slot!r} decodes database {info.database!r} with "
            f"{info.plugin!r}; the source needs a pgoutput slot of {config.database!r} "
            "(choose another slot.name)"
        )
    if info.active_pid is not None:
        raise PostgresCdcError(
            f"postgres-cdc: replication slot {slot!r} is in use by another consumer (PID {info.active_pid}); "
            "a slot has one consumer: give each source its own slot.name"
        )


def create_slot(rep: Any, slot: str, temporary: bool, export: bool) -> tuple[int, str | None]:
    """Create a pgoutput slot on the replication connection ``rep``: its consistent point and,
    with ``export``, the name of a snapshot that sees exactly the transactions committed
    before that point (valid until ``rep`` runs another command)."""
    kind = "TEMPORARY LOGICAL" if temporary else "LOGICAL"
    snapshot = "export" if export else "nothing"
    try:
        rows = replication_command(
            rep, f"CREATE_REPLICATION_SLOT {quote(slot)} {kind} pgoutput (SNAPSHOT '{snapshot}')"
        )
    except PostgresCdcError as err:
        raise PostgresCdcError(f"postgres-cdc: creating replication slot {slot!r} failed: {err}") from err
    _name, point, snapshot_name, _plugin = rows[0]
    assert point is not None
    return parse_lsn(point.decode()), snapshot_name.decode() if snapshot_name else None


def advance_slot(rep: Any, slot: str, lsn: int) -> int:
    """Move an inactive slot's confirmed position forward to ``lsn`` (never back); where it is
    now. The slot forgets every change committed before it."""
    rows = replication_command(
        rep, f"SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = '{slot}'"
    )
    current = parse_lsn(rows[0][0].decode()) if rows and rows[0][0] else 0
    if lsn <= current:
        return current
    try:
        rows = replication_command(
            rep, f"SELECT end_lsn::text FROM pg_replication_slot_advance('{slot}', '{format_lsn(lsn)}')"
        )
    except PostgresCdcError as err:
        raise PostgresCdcError(f"postgres-cdc: advancing replication slot {slot!r} failed: {err}") from err
    return max(lsn, parse_lsn(rows[0][0].decode())) if rows and rows[0][0] else lsn


def current_wal_lsn(conn: Any) -> int:
    """The server's current WAL write position."""
    (text,) = conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
    return parse_lsn(text)


class _LoadContext:
    """psycopg's adaptation context of the stream's values: the adapters, no connection
    (values with a zone carry their offset in their text)."""

    def __init__(self, adapters: Any) -> None:
        self.adapters = adapters
        self.connection = None


def text_loaders() -> Callable[[int], Callable[[bytes], Any]]:
    """A type OID -> the function loading its text as psycopg loads the snapshot's values
    (json and jsonb as their text)."""
    adapters = AdaptersMap(psycopg.adapters)
    for name in ("json", "jsonb"):
        adapters.register_loader(name, TextLoader)
    transformer = Transformer(_LoadContext(adapters))

    def loader(oid: int) -> Callable[[bytes], Any]:
        load: Callable[[bytes], Any] = transformer.get_loader(oid, pq.Format.TEXT).load
        return load

    return loader
