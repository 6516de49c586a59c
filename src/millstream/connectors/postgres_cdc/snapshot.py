"""The initial snapshot: every captured table read in primary key order inside one
REPEATABLE READ transaction that imported a replication slot's exported snapshot, so the
rows are exactly the database at the slot's consistent point (``segments``).

Coordinating code with a per-row loop: each ``read`` fetches at most ``fetch_size`` rows
of the current table from a server-side cursor (``DECLARE ... CURSOR``), so a checkpoint
can come between any two fetches. Its state is the tables still to read and the last key
read of the current one: a source restored from it reads the rest (keys above that one,
then the other tables) from a new snapshot, and the segments say which changes of the
stream the two snapshots did not see.
"""

from __future__ import annotations

import logging
from typing import Any

from millstream.connectors.postgres_cdc.config import PostgresCdcError
from millstream.connectors.postgres_cdc.database import one_line, quote, sql_name
from millstream.connectors.postgres_cdc.records import ChangeEvent, TableSchema
from millstream.connectors.postgres_cdc.segments import SnapshotSegments

__all__ = ["SnapshotProgress", "SnapshotReader"]

log = logging.getLogger(__name__)

_CURSOR = "millstream_cdc_snapshot"


class SnapshotProgress:
    """How far the snapshot is (task thread): the tables still to read (the first is being
    read, after ``after_key``), the segments, and where the stream will start."""

    def __init__(
        self,
        remaining: list[str],
        after_key: tuple[Any, ...] | None,
        segments: SnapshotSegments,
        stream_start: int,
    ) -> None:
        self.remaining = remaining
        self.after_key = after_key
        self.segments = segments
        self.stream_start = stream_start

    def to_state(self) -> dict[str, Any]:
        """Plain data for a checkpoint."""
        return {
            "phase": "snapshot",
            "remaining": list(self.remaining),
            "after_key": self.after_key,
            "segments": self.segments.to_state(),
            "stream_start": self.stream_start,
        }

    @staticmethod
    def of_state(state: dict[str, Any]) -> SnapshotProgress:
        """The progress a checkpoint holds."""
        after = state["after_key"]
        return SnapshotProgress(
            list(state["remaining"]),
            None if after is None else tuple(after),
            SnapshotSegments(state["segments"]),
            int(state["stream_start"]),
        )


class SnapshotReader:
    """Reads the remaining tables on ``conn`` (a connection in autocommit mode, owned from
    now on) inside a transaction on the exported snapshot ``snapshot_name``."""

    def __init__(
        self,
        conn: Any,
        tables: dict[str, TableSchema],
        progress: SnapshotProgress,
        snapshot_name: str,
        fetch_size: int,
    ) -> None:
        self._conn = conn
        self._tables = tables
        self.progress = progress
        self._fetch_size = fetch_size
        self._cursor: Any = None  # the current table's server-side cursor
        self._table: TableSchema | None = None
        try:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            conn.execute(f"SET TRANSACTION SNAPSHOT '{snapshot_name}'")
        except Exception as err:
            raise PostgresCdcError(
                f"postgres-cdc: importing snapshot {snapshot_name} failed: {one_line(err)}"
            ) from err

    def read(self, max_rows: int) -> list[ChangeEvent] | None:
        """The next rows as snapshot reads (``op`` ``r``); None when every table is read."""
        progress = self.progress
        while progress.remaining:
            if self._cursor is None:
                self._open(progress.remaining[0], progress.after_key)
            table = self._table
            assert table is not None
            rows = self._cursor.fetchmany(max(1, min(max_rows, self._fetch_size)))
            if rows:
                progress.after_key = table.key_of(rows[-1])
                return [ChangeEvent("r", table, None, tuple(row)) for row in rows]
            self._cursor.close()
            self._cursor = self._table = None
            log.info("postgres-cdc: snapshot of %s read", progress.remaining[0])
            progress.remaining.pop(0)
            progress.after_key = None
        self.close(commit=True)
        return None

    def _open(self, name: str, after_key: tuple[Any, ...] | None) -> None:
        table = self._tables.get(name)
        if table is None:
            raise PostgresCdcError(
                f"postgres-cdc: table {name} of the snapshot in progress no longer exists or is no "
                "longer captured"
            )
        self._table = table
        keys = [
            quote(k) + (' COLLATE "C"' if c else "")
            for k, c in zip(table.key, table.key_collatable, strict=True)
        ]
        query = f"SELECT {', '.join(quote(c) for c in table.columns)} FROM {sql_name(table)}"
        params: tuple[Any, ...] = ()
        if after_key is not None:
            query += f" WHERE ({', '.join(keys)}) > ({', '.join(['%s'] * len(keys))})"
            params = after_key
        query += f" ORDER BY {', '.join(keys)}"
        cursor = self._conn.cursor(name=_CURSOR)
        try:
            cursor.execute(query, params or None)
        except Exception as err:
            raise PostgresCdcError(
                f"postgres-cdc: reading the snapshot of {name} failed: {one_line(err)}"
            ) from err
        self._cursor = cursor
        where = "" if after_key is None else f" after key {after_key!r}"
        log.info("postgres-cdc: reading the snapshot of %s%s", name, where)

    def close(self, commit: bool = False) -> None:
        """End the transaction and close the connection."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            if self._cursor is not None:
                self._cursor.close()
            if commit:
                conn.execute("COMMIT")
        finally:
            self._cursor = self._table = None
            conn.close()
