"""The change stream's decoder: replication frames in, ``ChangeEvent``s out, and the
position a restarted stream must start from to go on exactly after the last change out.

Per-record path (task thread). The position is kept as PostgreSQL's slots count:

- ``restart_lsn``: the end of the last transaction whose changes are all out (a Commit's
  end LSN), or a keepalive's WAL end while no transaction is open (every commit before it
  was sent). ``START_REPLICATION`` at this LSN sends exactly the transactions committed at or
  after it, so after a restore nothing before it comes again and nothing after it is lost.
- ``txn``: inside a transaction, its commit LSN and how many of its changes were processed:
  the restarted stream sends that transaction first and whole, and its first ``count``
  changes are skipped (decoding is deterministic).

A change of a table read by a snapshot is applied only when the snapshot did not see it
(``segments.SnapshotSegments``). TRUNCATE cannot be a row change (the rows it removes are
not in the message): it is skipped with a warning, as Flink CDC skips Debezium's truncate
events. An UPDATE's TOASTed column that did not change (not sent) is taken from the old row
when REPLICA IDENTITY FULL sent it; otherwise the change fails naming the column. An UPDATE
that changes the primary key becomes a delete of the old key and a create of the new one,
as Debezium's PostgreSQL connector emits it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from millstream.connectors.postgres_cdc.config import PostgresCdcError
from millstream.connectors.postgres_cdc.pgoutput import (
    UNCHANGED,
    Begin,
    Commit,
    Delete,
    Insert,
    PrimaryKeepalive,
    Relation,
    ReplicationFrame,
    Truncate,
    TupleData,
    Update,
    XLogData,
    decode_message,
    format_lsn,
)
from millstream.connectors.postgres_cdc.records import ChangeEvent, TableSchema
from millstream.connectors.postgres_cdc.segments import SnapshotSegments

__all__ = ["ChangeDecoder", "LoaderFactory"]

log = logging.getLogger(__name__)

# a column type's OID -> the function turning its text (bytes) into the Python value
LoaderFactory = Callable[[int], Callable[[bytes], Any]]
Row = tuple[Any, ...]


class _RelationState:
    """A relation as its last Relation message described it, with its value loaders."""

    __slots__ = ("captured", "loads", "table")

    def __init__(self, table: TableSchema, captured: bool, loads: list[Callable[[bytes], Any]]) -> None:
        self.table = table
        self.captured = captured
        self.loads = loads


class ChangeDecoder:
    """Decodes the frames of one source's stream (task thread)."""

    def __init__(
        self,
        database: str,
        captures: Callable[[str, str], bool],
        known: dict[str, TableSchema],
        loaders: LoaderFactory,
        restart_lsn: int,
        segments: SnapshotSegments | None = None,
        skip: tuple[int, int] | None = None,
    ) -> None:
        self._database = database
        self._captures = captures
        self._known = known  # schema.table -> its schema when the source started (primary keys)
        self._loaders = loaders
        self.restart_lsn = restart_lsn
        self.segments = segments if segments is not None and not segments.passed(restart_lsn) else None
        self._skip = skip  # (commit LSN, changes) of a transaction half out at the checkpoint
        self._skipping = 0
        self._relations: dict[int, _RelationState] = {}
        self._txn: Begin | None = None
        self._txn_changes = 0

    # -- position ------------------------------------------------------------------------------

    def position(self) -> dict[str, Any]:
        """Where a restarted stream goes on (plain data for a checkpoint)."""
        txn = None if self._txn is None else (self._txn.final_lsn, self._txn_changes)
        segments = None if self.segments is None else self.segments.to_state()
        return {"restart_lsn": self.restart_lsn, "txn": txn, "segments": segments}

    # -- frames --------------------------------------------------------------------------------

    def feed(self, frames: list[ReplicationFrame], out: list[ChangeEvent]) -> None:
        """Decode ``frames`` in order, appending their change events to ``out``."""
        for frame in frames:
            if isinstance(frame, XLogData):
                self._message(frame.payload, out)
            elif isinstance(frame, PrimaryKeepalive):
                self._keepalive(frame.wal_end)

    def _keepalive(self, wal_end: int) -> None:
        if self._txn is None and wal_end > self.restart_lsn:
            self.restart_lsn = wal_end
            if self.segments is not None and self.segments.passed(wal_end):
                self.segments = None

    def _message(self, payload: bytes, out: list[ChangeEvent]) -> None:
        message = decode_message(payload)
        match message:
            case Insert() | Update() | Delete() | Truncate():
                if self._txn is None:
                    raise PostgresCdcError(f"postgres-cdc: a change outside a transaction: {message!r}")
                self._txn_changes += 1
                if self._txn_changes <= self._skipping:
                    return  # out before the checkpoint this stream was restored from
                if isinstance(message, Truncate):
                    self._truncate(message)
                else:
                    self._change(message, self._txn, out)
            case Begin():
                self._begin(message)
            case Commit():
                self._txn = None
                self._skipping = 0
                self.restart_lsn = max(self.restart_lsn, message.end_lsn)
            case Relation():
                self._relation(message)
            case _:
                pass  # Origin, Type, logical decoding messages: nothing to emit

    def _begin(self, begin: Begin) -> None:
        if self._txn is not None:
            raise PostgresCdcError(
                f"postgres-cdc: transaction {begin.xid} began inside transaction {self._txn.xid}"
            )
        self._txn = begin
        self._txn_changes = 0
        skip, self._skip = self._skip, None
        self._skipping = skip[1] if skip is not None and skip[0] == begin.final_lsn else 0
        if self.segments is not None and self.segments.passed(begin.final_lsn):
            self.segments = None

    def _relation(self, relation: Relation) -> None:
        qualified = f"{relation.namespace}.{relation.name}"
        known = self._known.get(qualified)
        columns = tuple(c.name for c in relation.columns)
        key = known.key if known is not None else tuple(c.name for c in relation.columns if c.key)
        table = TableSchema(
            self._database,
            relation.namespace,
            relation.name,
            columns,
            tuple(c.type_oid for c in relation.columns),
            tuple(c.type_modifier for c in relation.columns),
            tuple(k for k in key if k in columns),
            relation.replica_identity,
            oid=relation.oid,
        )
        captured = self._captures(relation.namespace, relation.name)
        loads = [self._loaders(c.type_oid) for c in relation.columns] if captured else []
        self._relations[relation.oid] = _RelationState(table, captured, loads)

    def _truncate(self, truncate: Truncate) -> None:
        for oid in truncate.relations:
            state = self._relations.get(oid)
            if state is not None and state.captured:
                log.warning(
                    "postgres-cdc: TRUNCATE of %s at %s skipped: a changelog has no truncate (as Flink CDC)",
                    state.table.qualified,
                    format_lsn(self._txn.final_lsn if self._txn else 0),
                )

    # -- row changes ---------------------------------------------------------------------------

    def _change(self, message: Insert | Update | Delete, txn: Begin, out: list[ChangeEvent]) -> None:
        state = self._relations.get(message.relation)
        if state is None:
            raise PostgresCdcError(
                f"postgres-cdc: a change of relation {message.relation} before its Relation message"
            )
        if not state.captured:
            return
        table = state.table
        if isinstance(message, Insert):
            after = self._row(state, message.new, None)
            if self._applies(table, after, txn.final_lsn):
                out.append(self._event(txn, "c", table, None, after, True))
        elif isinstance(message, Delete):
            before = self._row(state, message.old, None)
            if self._applies(table, before, txn.final_lsn):
                out.append(self._event(txn, "d", table, before, None, message.old_kind == "O"))
        else:
            self._update(state, message, txn, out)

    def _update(self, state: _RelationState, update: Update, txn: Begin, out: list[ChangeEvent]) -> None:
        table, lsn = state.table, txn.final_lsn
        before = None if update.old is None else self._row(state, update.old, None)
        complete = update.old_kind == "O"
        after = self._row(state, update.new, before if complete else None)
        if before is None or table.key_of(before) == table.key_of(after):
            if self._applies(table, after, lsn):
                out.append(self._event(txn, "u", table, before, after, complete))
            return
        # the primary key changed: a delete of the old key and a create of the new one, as
        # Debezium's events (each side judged by its own key's snapshot)
        if self._applies(table, before, lsn):
            out.append(self._event(txn, "d", table, before, None, complete))
        if self._applies(table, after, lsn):
            out.append(self._event(txn, "c", table, None, after, True))

    @staticmethod
    def _event(
        txn: Begin, op: str, table: TableSchema, before: Row | None, after: Row | None, complete: bool
    ) -> ChangeEvent:
        return ChangeEvent(
            op, table, before, after, complete, txn.commit_time_us // 1000, txn.final_lsn, txn.xid
        )

    def _applies(self, table: TableSchema, row: Row, commit_lsn: int) -> bool:
        segments = self.segments
        return segments is None or segments.applies(table.qualified, table.key_of(row), commit_lsn)

    def _row(self, state: _RelationState, data: TupleData, old: Row | None) -> Row:
        loads = state.loads
        if len(data) != len(loads):
            raise PostgresCdcError(
                f"postgres-cdc: a row of {state.table.qualified} has {len(data)} columns, "
                f"its relation {len(loads)}"
            )
        values: list[Any] = []
        for i, raw in enumerate(data):
            if raw is None:
                values.append(None)
            elif raw is UNCHANGED:
                if old is None:
                    raise PostgresCdcError(
                        f"postgres-cdc: an UPDATE of {state.table.qualified} did not send its unchanged "
                        f"TOASTed column {state.table.columns[i]!r}; set REPLICA IDENTITY FULL on the table "
                        "so that the old row carries it"
                    )
                values.append(old[i])
            else:
                assert isinstance(raw, bytes)
                values.append(loads[i](raw))
        return tuple(values)
