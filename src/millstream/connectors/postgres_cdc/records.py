"""What the postgres-cdc source hands its deserializer: one ``ChangeEvent`` per row read by
the snapshot or changed in the stream, as a Debezium change event describes it (``op`` =
``r`` read by the snapshot, ``c`` created, ``u`` updated, ``d`` deleted; the row
``before`` and ``after``; where and when it happened). Rows hold the columns' Python values
(psycopg's, for the column's PostgreSQL type) in the table's column order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ChangeEvent", "TableSchema"]


@dataclass(frozen=True)
class TableSchema:
    """A captured table: its columns in attribute order (as pgoutput sends them), their type
    OIDs and modifiers, its primary key, replica identity (``d``, ``f``, ``i``, ``n``) and
    which key columns sort as text (read with ``COLLATE "C"``)."""

    database: str
    schema: str
    name: str
    columns: tuple[str, ...]
    type_oids: tuple[int, ...]
    type_modifiers: tuple[int, ...] = ()
    key: tuple[str, ...] = ()
    replica_identity: str = "d"
    key_collatable: tuple[bool, ...] = ()
    oid: int = 0
    key_positions: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = {name: i for i, name in enumerate(self.columns)}
        object.__setattr__(self, "key_positions", tuple(index[k] for k in self.key if k in index))

    @property
    def qualified(self) -> str:
        """``schema.table``."""
        return f"{self.schema}.{self.name}"

    def key_of(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        """The primary key values of ``row``."""
        return tuple([row[i] for i in self.key_positions])


@dataclass(frozen=True, slots=True)
class ChangeEvent:
    """One change of a row of ``table``.

    Attributes:
        op: ``r`` (read by the snapshot), ``c`` (insert), ``u`` (update), ``d`` (delete).
        table: the table's schema.
        before: the row before an update or delete, or None (not known: REPLICA IDENTITY
            DEFAULT sends no old row for an update that keeps the key).
        after: the row after an insert, update or snapshot read.
        before_complete: ``before`` holds every column (REPLICA IDENTITY FULL); else only the
            key's columns are known and the others are None.
        ts_ms: the transaction's commit time (0 for a snapshot read, as Flink CDC's op_ts).
        lsn: the transaction's commit LSN (None for a snapshot read).
        txid: the transaction's id (None for a snapshot read).
    """

    op: str
    table: TableSchema
    before: tuple[Any, ...] | None
    after: tuple[Any, ...] | None
    before_complete: bool = True
    ts_ms: int = 0
    lsn: int | None = None
    txid: int | None = None

    @property
    def snapshot(self) -> bool:
        """Read by the snapshot (not a change of the stream)."""
        return self.op == "r"
