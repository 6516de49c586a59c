"""PostgreSQL's ``pgoutput`` logical replication messages (protocol version 1) and the
streaming replication frames around them, decoded from bytes.

Per-record path: one frozen message per WAL change, fields read with ``struct`` at offsets.

A logical replication stream (``START_REPLICATION SLOT s LOGICAL lsn (proto_version '1',
publication_names 'p')``) is a CopyBoth exchange whose server frames are ``XLogData``
(``w``: the WAL position and one pgoutput message) and ``PrimaryKeepalive`` (``k``: the
server's WAL end, and whether it wants an answer); the client answers with standby status
updates (``r``: written, flushed and applied positions: the flushed one is what the slot
may forget). The pgoutput messages, as PostgreSQL's "Logical Replication Message Formats"
documents them:

- ``B`` Begin (the transaction's commit LSN, commit time, xid) ... ``C`` Commit (commit LSN,
  end LSN: the position after the transaction, commit time): every change comes between.
- ``R`` Relation: a table's OID, schema, name, replica identity and columns (name, type OID,
  type modifier, part of the replica identity key); sent before the first change of the
  table in a session and again when it changes.
- ``I`` Insert (the new row), ``U`` Update (the old row's key ``K`` or whole old row ``O``
  when known, then the new row), ``D`` Delete (the old row's key or whole row), ``T``
  Truncate (tables), ``Y`` Type, ``O`` Origin, ``M`` logical decoding message.

A row (TupleData) holds each column as NULL, as text (``t``) or as ``UNCHANGED`` (``u``: a
TOASTed value the update did not change, not sent).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Final

__all__ = [
    "PG_EPOCH_MICROS",
    "UNCHANGED",
    "Begin",
    "Column",
    "Commit",
    "Delete",
    "Insert",
    "LogicalMessage",
    "Origin",
    "PgOutputError",
    "PgOutputMessage",
    "PrimaryKeepalive",
    "Relation",
    "ReplicationFrame",
    "Truncate",
    "TupleData",
    "TypeMessage",
    "Update",
    "XLogData",
    "decode_frame",
    "decode_message",
    "format_lsn",
    "parse_lsn",
    "standby_status_update",
]

# PostgreSQL's timestamps count microseconds from 2000-01-01 00:00 UTC
PG_EPOCH_MICROS: Final = 946_684_800_000_000


class _Unchanged:
    """A TOASTed column an UPDATE did not change (pgoutput sends no value for it)."""

    _instance: _Unchanged | None = None

    def __new__(cls) -> _Unchanged:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNCHANGED"

    def __reduce__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Final = _Unchanged()

# a row's columns: None (NULL), the value's text as bytes, or UNCHANGED
TupleData = tuple[bytes | _Unchanged | None, ...]


class PgOutputError(ValueError):
    """Bytes that are not a pgoutput message or replication frame of protocol version 1."""


@dataclass(frozen=True, slots=True)
class Column:
    """A column of a Relation message."""

    name: str
    type_oid: int
    type_modifier: int
    key: bool  # part of the replica identity (the primary key under REPLICA IDENTITY DEFAULT)


@dataclass(frozen=True, slots=True)
class Relation:
    """``R``: what the changes of relation ``oid`` hold. ``replica_identity``: ``d`` (default:
    the primary key), ``n`` (nothing), ``f`` (full: every column), ``i`` (an index)."""

    oid: int
    namespace: str
    name: str
    replica_identity: str
    columns: tuple[Column, ...]


@dataclass(frozen=True, slots=True)
class Begin:
    """``B``: a transaction starts; ``final_lsn`` is its commit record's LSN."""

    final_lsn: int
    commit_time_us: int  # microseconds since the Unix epoch
    xid: int


@dataclass(frozen=True, slots=True)
class Commit:
    """``C``: the transaction ends; ``end_lsn`` is the position just after it."""

    commit_lsn: int
    end_lsn: int
    commit_time_us: int


@dataclass(frozen=True, slots=True)
class Insert:
    """``I``: a new row of ``relation``."""

    relation: int
    new: TupleData


@dataclass(frozen=True, slots=True)
class Update:
    """``U``: a row of ``relation`` changed. ``old_kind``: ``O`` (the whole old row, under
    REPLICA IDENTITY FULL), ``K`` (the old key, when the key changed) or None (not sent)."""

    relation: int
    old_kind: str | None
    old: TupleData | None
    new: TupleData


@dataclass(frozen=True, slots=True)
class Delete:
    """``D``: a row of ``relation`` was deleted; ``old`` is its key (``K``) or whole row (``O``)."""

    relation: int
    old_kind: str
    old: TupleData


@dataclass(frozen=True, slots=True)
class Truncate:
    """``T``: the relations were truncated."""

    relations: tuple[int, ...]
    cascade: bool
    restart_identity: bool


@dataclass(frozen=True, slots=True)
class Origin:
    """``O``: the transaction came from another replication origin."""

    lsn: int
    name: str


@dataclass(frozen=True, slots=True)
class TypeMessage:
    """``Y``: a data type's name (for a type that is not built in)."""

    oid: int
    namespace: str
    name: str


@dataclass(frozen=True, slots=True)
class LogicalMessage:
    """``M``: a message written with ``pg_logical_emit_message``."""

    transactional: bool
    lsn: int
    prefix: str
    content: bytes


PgOutputMessage = (
    Begin | Commit | Relation | Insert | Update | Delete | Truncate | Origin | TypeMessage | LogicalMessage
)


@dataclass(frozen=True, slots=True)
class XLogData:
    """``w``: one pgoutput message at WAL position ``data_start``."""

    data_start: int
    wal_end: int
    send_time_us: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class PrimaryKeepalive:
    """``k``: the server's position (every change before it was sent); answer at once when
    ``reply_requested``."""

    wal_end: int
    send_time_us: int
    reply_requested: bool


ReplicationFrame = XLogData | PrimaryKeepalive

_Q = struct.Struct("!Q")
_I = struct.Struct("!I")
_H = struct.Struct("!H")
_QQQ = struct.Struct("!QQQ")
_QQB = struct.Struct("!QQB")
_BEGIN = struct.Struct("!QqI")
_COMMIT = struct.Struct("!BQQq")
_COLUMN_TYPE = struct.Struct("!Ii")
_STATUS = struct.Struct("!cQQQqB")


def _micros_since_epoch(pg_micros: int) -> int:
    return pg_micros + PG_EPOCH_MICROS


def _string(data: bytes, offset: int) -> tuple[str, int]:
    end = data.index(b"\x00", offset)
    return data[offset:end].decode("utf-8"), end + 1


def _tuple(data: bytes, offset: int) -> tuple[TupleData, int]:
    (count,) = _H.unpack_from(data, offset)
    offset += 2
    values: list[bytes | _Unchanged | None] = []
    append = values.append
    for _ in range(count):
        kind = data[offset]
        offset += 1
        if kind == 0x74:  # 't': text
            (length,) = _I.unpack_from(data, offset)
            offset += 4
            append(data[offset : offset + length])
            offset += length
        elif kind == 0x6E:  # 'n': NULL
            append(None)
        elif kind == 0x75:  # 'u': an unchanged TOASTed value
            append(UNCHANGED)
        else:
            raise PgOutputError(
                f"column {len(values)} of a row has kind {chr(kind)!r}: only text values of "
                "protocol version 1 are decoded"
            )
    return tuple(values), offset


def _relation(data: bytes) -> Relation:
    (oid,) = _I.unpack_from(data, 1)
    namespace, offset = _string(data, 5)
    name, offset = _string(data, offset)
    identity = chr(data[offset])
    (count,) = _H.unpack_from(data, offset + 1)
    offset += 3
    columns = []
    for _ in range(count):
        flags = data[offset]
        column, offset = _string(data, offset + 1)
        type_oid, modifier = _COLUMN_TYPE.unpack_from(data, offset)
        offset += 8
        columns.append(Column(column, type_oid, modifier, bool(flags & 1)))
    return Relation(oid, namespace or "pg_catalog", name, identity, tuple(columns))


def _update(data: bytes) -> Update:
    (relation,) = _I.unpack_from(data, 1)
    kind = chr(data[5])
    old: TupleData | None = None
    old_kind: str | None = None
    offset = 6
    if kind in ("K", "O"):
        old_kind = kind
        old, offset = _tuple(data, offset)
        kind = chr(data[offset])
        offset += 1
    if kind != "N":
        raise PgOutputError(f"an Update message has {kind!r} where the new row ('N') belongs")
    new, _ = _tuple(data, offset)
    return Update(relation, old_kind, old, new)


def _truncate(data: bytes) -> Truncate:
    (count,) = _I.unpack_from(data, 1)
    options = data[5]
    oids = struct.unpack_from(f"!{count}I", data, 6)
    return Truncate(tuple(oids), bool(options & 1), bool(options & 2))


def _logical_message(data: bytes) -> LogicalMessage:
    flags = data[1]
    (lsn,) = _Q.unpack_from(data, 2)
    prefix, offset = _string(data, 10)
    (length,) = _I.unpack_from(data, offset)
    return LogicalMessage(bool(flags & 1), lsn, prefix, data[offset + 4 : offset + 4 + length])


def decode_message(data: bytes) -> PgOutputMessage:  # noqa: C901 - one branch per message kind
    """The pgoutput message in ``data`` (an XLogData payload)."""
    if not data:
        raise PgOutputError("an empty pgoutput message")
    try:
        kind = data[0]
        if kind == 0x49:  # 'I'
            (relation,) = _I.unpack_from(data, 1)
            if data[5] != 0x4E:
                raise PgOutputError("an Insert message without its new row ('N')")
            return Insert(relation, _tuple(data, 6)[0])
        if kind == 0x55:  # 'U'
            return _update(data)
        if kind == 0x44:  # 'D'
            (relation,) = _I.unpack_from(data, 1)
            return Delete(relation, chr(data[5]), _tuple(data, 6)[0])
        if kind == 0x42:  # 'B'
            final_lsn, commit_time, xid = _BEGIN.unpack_from(data, 1)
            return Begin(final_lsn, _micros_since_epoch(commit_time), xid)
        if kind == 0x43:  # 'C'
            _flags, commit_lsn, end_lsn, commit_time = _COMMIT.unpack_from(data, 1)
            return Commit(commit_lsn, end_lsn, _micros_since_epoch(commit_time))
        if kind == 0x52:  # 'R'
            return _relation(data)
        if kind == 0x54:  # 'T'
            return _truncate(data)
        if kind == 0x4F:  # 'O'
            (lsn,) = _Q.unpack_from(data, 1)
            return Origin(lsn, _string(data, 9)[0])
        if kind == 0x59:  # 'Y'
            (oid,) = _I.unpack_from(data, 1)
            namespace, offset = _string(data, 5)
            return TypeMessage(oid, namespace, _string(data, offset)[0])
        if kind == 0x4D:  # 'M'
            return _logical_message(data)
    except (struct.error, IndexError, ValueError) as err:
        if isinstance(err, PgOutputError):
            raise
        raise PgOutputError(f"a truncated or malformed pgoutput {chr(data[0])!r} message: {err}") from err
    raise PgOutputError(f"unknown pgoutput message kind {chr(data[0])!r} (protocol version 1)")


def decode_frame(data: bytes) -> ReplicationFrame:
    """The replication frame of one CopyData message from the server."""
    kind = data[:1]
    try:
        if kind == b"w":
            start, end, sent = _QQQ.unpack_from(data, 1)
            return XLogData(start, end, _micros_since_epoch(sent), data[25:])
        if kind == b"k":
            end, sent, reply = _QQB.unpack_from(data, 1)
            return PrimaryKeepalive(end, _micros_since_epoch(sent), bool(reply))
    except struct.error as err:
        raise PgOutputError(f"a truncated replication frame {kind!r}: {err}") from err
    raise PgOutputError(f"unknown replication frame kind {kind!r}")


def standby_status_update(
    written: int, flushed: int, applied: int, now_us: int, reply_requested: bool = False
) -> bytes:
    """The client's ``r`` frame: positions received, durably processed (the slot may forget
    what comes before it) and applied; ``now_us`` is microseconds since the Unix epoch."""
    return _STATUS.pack(b"r", written, flushed, applied, now_us - PG_EPOCH_MICROS, int(reply_requested))


def parse_lsn(text: str) -> int:
    """``'16/B374D848'`` -> the LSN as a 64-bit number."""
    high, sep, low = text.partition("/")
    if not sep:
        raise ValueError(f"{text!r} is not an LSN (X/Y in hexadecimal)")
    return (int(high, 16) << 32) | int(low, 16)


def format_lsn(lsn: int) -> str:
    """An LSN as PostgreSQL prints it (``16/B374D848``)."""
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"
