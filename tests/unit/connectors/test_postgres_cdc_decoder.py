"""The change stream's decoder: pgoutput frames -> change events, the position a restarted
stream starts from (a transaction half out at a checkpoint is skipped up to where it was),
and the snapshot segments that keep a change the snapshot saw from being applied twice."""

from __future__ import annotations

import logging
import struct
from typing import Any

import pytest

from millstream.connectors.postgres_cdc.config import PostgresCdcError
from millstream.connectors.postgres_cdc.decoder import ChangeDecoder
from millstream.connectors.postgres_cdc.pgoutput import PG_EPOCH_MICROS, PrimaryKeepalive, XLogData
from millstream.connectors.postgres_cdc.records import ChangeEvent, TableSchema
from millstream.connectors.postgres_cdc.segments import SnapshotSegments

INT4, TEXT = 23, 25
ORDERS = 0x4001
OTHER = 0x4002


def _tuple(values: list[Any]) -> bytes:
    out = struct.pack("!H", len(values))
    for value in values:
        if value is None:
            out += b"n"
        elif value == "<unchanged>":
            out += b"u"
        else:
            text = str(value).encode()
            out += b"t" + struct.pack("!I", len(text)) + text
    return out


def relation(oid: int, name: str, identity: str = "d") -> bytes:
    columns = [(1, "id", INT4), (0, "customer", TEXT), (0, "amount", INT4)]
    body = struct.pack("!I", oid) + b"public\x00" + name.encode() + b"\x00" + identity.encode()
    body += struct.pack("!H", len(columns))
    for flags, column, oid_type in columns:
        body += bytes([flags]) + column.encode() + b"\x00" + struct.pack("!Ii", oid_type, -1)
    return b"R" + body


def begin(final_lsn: int, xid: int, commit_ms: int = 1_700_000_000_000) -> bytes:
    return b"B" + struct.pack("!QqI", final_lsn, commit_ms * 1000 - PG_EPOCH_MICROS, xid)


def commit(commit_lsn: int, end_lsn: int) -> bytes:
    return b"C" + struct.pack("!BQQq", 0, commit_lsn, end_lsn, 0)


def insert(oid: int, *values: Any) -> bytes:
    return b"I" + struct.pack("!I", oid) + b"N" + _tuple(list(values))


def update(oid: int, new: list[Any], old: list[Any] | None = None, kind: str = "O") -> bytes:
    head = b"U" + struct.pack("!I", oid)
    if old is not None:
        head += kind.encode() + _tuple(old)
    return head + b"N" + _tuple(new)


def delete(oid: int, old: list[Any], kind: str = "O") -> bytes:
    return b"D" + struct.pack("!I", oid) + kind.encode() + _tuple(old)


def frames(*payloads: bytes) -> list[Any]:
    return [XLogData(0, 0, 0, p) for p in payloads]


def loaders(oid: int) -> Any:
    return (lambda b: int(b)) if oid == INT4 else (lambda b: b.decode())


KNOWN = {
    "public.orders": TableSchema(
        "shop", "public", "orders", ("id", "customer", "amount"), (INT4, TEXT, INT4), key=("id",)
    )
}


def decoder(restart: int = 0, segments: SnapshotSegments | None = None, skip: Any = None) -> ChangeDecoder:
    return ChangeDecoder("shop", lambda s, t: t == "orders", KNOWN, loaders, restart, segments, skip)


def summary(events: list[ChangeEvent]) -> list[tuple[str, Any, Any]]:
    return [(e.op, e.before, e.after) for e in events]


def test_changes_become_events_and_the_position_moves_with_each_commit() -> None:
    d = decoder(restart=0x10)
    out: list[ChangeEvent] = []
    d.feed(
        frames(
            relation(ORDERS, "orders", "f"),
            begin(0x100, 7),
            insert(ORDERS, 1, "alice", 10),
            update(ORDERS, [1, "alice", 15], [1, "alice", 10]),
        ),
        out,
    )
    assert d.position() == {"restart_lsn": 0x10, "txn": (0x100, 2), "segments": None}
    d.feed(frames(delete(ORDERS, [1, "alice", 15]), commit(0x100, 0x130)), out)
    assert summary(out) == [
        ("c", None, (1, "alice", 10)),
        ("u", (1, "alice", 10), (1, "alice", 15)),
        ("d", (1, "alice", 15), None),
    ]
    first = out[0]
    assert (first.ts_ms, first.lsn, first.txid, first.table.qualified) == (
        1_700_000_000_000,
        0x100,
        7,
        "public.orders",
    )
    assert d.position() == {"restart_lsn": 0x130, "txn": None, "segments": None}


def test_a_keepalive_moves_the_position_only_between_transactions() -> None:
    d = decoder(restart=0x10)
    out: list[ChangeEvent] = []
    d.feed([PrimaryKeepalive(0x50, 0, False)], out)
    assert d.restart_lsn == 0x50
    d.feed(frames(relation(ORDERS, "orders"), begin(0x200, 8), insert(ORDERS, 2, "bob", 1)), out)
    d.feed([PrimaryKeepalive(0x300, 0, True)], out)
    assert d.restart_lsn == 0x50  # the open transaction's commit comes later
    d.feed([PrimaryKeepalive(0x20, 0, False)], out)
    assert d.restart_lsn == 0x50


def test_a_stream_restored_mid_transaction_skips_the_changes_already_out() -> None:
    d = decoder(restart=0x10, skip=(0x100, 2))
    out: list[ChangeEvent] = []
    d.feed(
        frames(
            relation(ORDERS, "orders"),
            begin(0x100, 7),
            insert(ORDERS, 1, "a", 1),
            insert(ORDERS, 2, "b", 2),
            insert(ORDERS, 3, "c", 3),
            commit(0x100, 0x130),
            begin(0x140, 8),
            insert(ORDERS, 4, "d", 4),
            commit(0x140, 0x150),
        ),
        out,
    )
    assert [e.after[0] for e in out if e.after] == [3, 4]


def test_changes_of_tables_not_captured_are_counted_but_not_emitted() -> None:
    d = decoder(skip=(0x100, 1))
    out: list[ChangeEvent] = []
    d.feed(
        frames(
            relation(ORDERS, "orders"),
            relation(OTHER, "audit"),
            begin(0x100, 7),
            insert(OTHER, 9, "x", 9),
            insert(ORDERS, 1, "a", 1),
            commit(0x100, 0x130),
        ),
        out,
    )
    assert summary(out) == [("c", None, (1, "a", 1))]


def test_replica_identity_default_sends_no_old_row_and_the_old_key_on_key_changes() -> None:
    d = decoder()
    out: list[ChangeEvent] = []
    d.feed(
        frames(
            relation(ORDERS, "orders", "d"),
            begin(0x100, 7),
            update(ORDERS, [1, "a", 5]),
            update(ORDERS, [2, "a", 5], [1, None, None], kind="K"),
            delete(ORDERS, [2, None, None], kind="K"),
            commit(0x100, 0x130),
        ),
        out,
    )
    # the key change: a delete of the old key (the key only) and a create, as Debezium's
    assert summary(out) == [
        ("u", None, (1, "a", 5)),
        ("d", (1, None, None), None),
        ("c", None, (2, "a", 5)),
        ("d", (2, None, None), None),
    ]
    assert [e.before_complete for e in out] == [False, False, True, False]


def test_an_unchanged_toasted_column_comes_from_the_full_old_row_or_fails_naming_it() -> None:
    d = decoder()
    out: list[ChangeEvent] = []
    d.feed(
        frames(
            relation(ORDERS, "orders", "f"),
            begin(0x100, 7),
            update(ORDERS, [1, "<unchanged>", 6], [1, "long text", 5]),
        ),
        out,
    )
    assert out[0].after == (1, "long text", 6)
    with pytest.raises(
        PostgresCdcError, match=r"did not send its unchanged TOASTed column 'customer'.*REPLICA IDENTITY FULL"
    ):
        d.feed(frames(update(ORDERS, [1, "<unchanged>", 7])), out)


def test_a_truncate_is_skipped_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    d = decoder()
    out: list[ChangeEvent] = []
    truncate = b"T" + struct.pack("!IBI", 1, 0, ORDERS)
    with caplog.at_level(logging.WARNING):
        d.feed(frames(relation(ORDERS, "orders"), begin(0x100, 7), truncate, commit(0x100, 0x130)), out)
    assert out == [] and "TRUNCATE of public.orders" in caplog.text
    assert d.restart_lsn == 0x130


def test_segments_apply_only_the_changes_a_snapshot_did_not_see() -> None:
    # keys <= 5 read by a snapshot at 0x100, keys above by one at 0x200; the stream from 0x100
    segments = SnapshotSegments({"public.orders": [(None, 0x100), ((5,), 0x200)]})
    d = decoder(restart=0x100, segments=segments)
    out: list[ChangeEvent] = []
    d.feed(
        frames(
            relation(ORDERS, "orders", "f"),
            begin(0x150, 7),
            insert(ORDERS, 3, "a", 1),  # after the first snapshot: applied
            insert(ORDERS, 7, "b", 1),  # in the second snapshot: skipped
            update(ORDERS, [8, "c", 1], [2, "c", 1]),  # 2 -> 8: the delete of 2 only
            update(ORDERS, [4, "d", 1], [9, "d", 1]),  # 9 -> 4: the insert of 4 only
            update(ORDERS, [9, "e", 2], [9, "e", 1]),  # seen by the second snapshot: skipped
            commit(0x150, 0x160),
        ),
        out,
    )
    assert summary(out) == [
        ("c", None, (3, "a", 1)),
        ("d", (2, "c", 1), None),
        ("c", None, (4, "d", 1)),
    ]
    assert d.position()["segments"] == segments.to_state()
    d.feed(frames(begin(0x250, 8), insert(ORDERS, 10, "f", 1), commit(0x250, 0x260)), out)
    assert out[-1].after == (10, "f", 1)
    assert d.segments is None and d.position()["segments"] is None  # passed: no filter any more


def test_segments_of_a_resumed_snapshot() -> None:
    first = SnapshotSegments.whole(["public.a", "public.b", "public.c"], 0x100)
    # a read up to key 42 of b at 0x100; the rest of b and all of c from a snapshot at 0x300
    resumed = first.resumed("public.b", (42,), ["public.b", "public.c"], 0x300)
    assert resumed.point("public.a", (1,)) == 0x100
    assert resumed.point("public.b", (42,)) == 0x100
    assert resumed.point("public.b", (43,)) == 0x300
    assert resumed.point("public.c", (1,)) == 0x300
    assert resumed.point("public.unknown", (1,)) == 0
    assert resumed.max_lsn == 0x300 and resumed.passed(0x300) and not resumed.passed(0x2FF)
    # resumed at the start of a table: the table's earlier segment is gone
    again = resumed.resumed("public.c", None, ["public.c"], 0x400)
    assert again.to_state()["public.c"] == [(None, 0x400)]
    assert SnapshotSegments(again.to_state()) == again
