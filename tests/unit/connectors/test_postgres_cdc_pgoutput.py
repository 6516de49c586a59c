"""The pgoutput decoder on messages PostgreSQL 15.18 (Debian 15.18-0+deb12u1) sent to a
``START_REPLICATION ... (proto_version '1')`` stream, captured byte for byte, for:

    CREATE TABLE t (id INT PRIMARY KEY, v TEXT, big TEXT);    -- REPLICA IDENTITY DEFAULT
    CREATE TABLE f (id INT PRIMARY KEY, v TEXT);  ALTER TABLE f REPLICA IDENTITY FULL;
    INSERT INTO t VALUES (1, 'a', NULL); UPDATE t SET id = 2 WHERE id = 1; DELETE FROM t WHERE id = 2;
    INSERT INTO f VALUES (1, 'x'); UPDATE f SET v = 'y' WHERE id = 1; DELETE FROM f WHERE id = 1;
    UPDATE t SET v = 'c' WHERE id = 5;    -- big: a TOASTed value the update left unchanged
    TRUNCATE t;
"""

from __future__ import annotations

import pytest

from millstream.connectors.postgres_cdc.pgoutput import (
    PG_EPOCH_MICROS,
    UNCHANGED,
    Begin,
    Column,
    Commit,
    Delete,
    Insert,
    LogicalMessage,
    PgOutputError,
    PrimaryKeepalive,
    Relation,
    Truncate,
    Update,
    XLogData,
    decode_frame,
    decode_message,
    format_lsn,
    parse_lsn,
    standby_status_update,
)


def _hex(text: str) -> bytes:
    return bytes.fromhex(text)


RELATION_T = _hex(
    "52000040017075626c69630074006400030169640000000017ffffffff00760000000019ffffffff"
    "006269670000000019ffffffff"
)
RELATION_F = _hex("52000040087075626c69630066006600020169640000000017ffffffff01760000000019ffffffff")


def test_relation_messages_give_the_tables_columns_types_and_replica_identity() -> None:
    assert decode_message(RELATION_T) == Relation(
        0x4001,
        "public",
        "t",
        "d",
        (Column("id", 23, -1, True), Column("v", 25, -1, False), Column("big", 25, -1, False)),
    )
    full = decode_message(RELATION_F)
    assert isinstance(full, Relation) and full.replica_identity == "f"
    assert [c.key for c in full.columns] == [True, True]  # FULL: every column identifies the row


def test_begin_and_commit_carry_the_commit_lsn_the_end_lsn_and_the_commit_time() -> None:
    begin = decode_message(_hex("4200000000019297280003046aac1ddf60000002da"))
    commit = decode_message(_hex("4300000000000192972800000000019297580003046aac1ddf60"))
    assert begin == Begin(0x1929728, 0x3046AAC1DDF60 + PG_EPOCH_MICROS, 0x2DA)
    assert commit == Commit(0x1929728, 0x1929758, 0x3046AAC1DDF60 + PG_EPOCH_MICROS)
    assert format_lsn(commit.end_lsn) == "0/1929758"
    # 2026, as the capture's clock said: microseconds since the Unix epoch
    assert 1_700_000_000_000_000 < begin.commit_time_us < 1_900_000_000_000_000


def test_row_changes_under_replica_identity_default_carry_the_old_key_only() -> None:
    assert decode_message(_hex("49000040014e00037400000001317400000001616e")) == Insert(
        0x4001, (b"1", b"a", None)
    )
    # the key changed: the old key ('K', other columns NULL), then the new row
    assert decode_message(_hex("55000040014b00037400000001316e6e4e00037400000001327400000001616e")) == Update(
        0x4001, "K", (b"1", None, None), (b"2", b"a", None)
    )
    assert decode_message(_hex("44000040014b00037400000001326e6e")) == Delete(0x4001, "K", (b"2", None, None))


def test_row_changes_under_replica_identity_full_carry_the_whole_old_row() -> None:
    assert decode_message(
        _hex("55000040084f00027400000001317400000001784e0002740000000131740000000179")
    ) == Update(0x4008, "O", (b"1", b"x"), (b"1", b"y"))
    assert decode_message(_hex("44000040084f0002740000000131740000000179")) == Delete(
        0x4008, "O", (b"1", b"y")
    )


def test_an_unchanged_toasted_value_is_not_sent() -> None:
    update = decode_message(_hex("55000040014e000374000000013574000000016375"))
    assert update == Update(0x4001, None, None, (b"5", b"c", UNCHANGED))


def test_truncate_names_its_relations() -> None:
    assert decode_message(_hex("54000000010000004001")) == Truncate((0x4001,), False, False)


def test_a_logical_decoding_message() -> None:
    payload = b"M\x01" + (0x10).to_bytes(8, "big") + b"pre\x00" + (3).to_bytes(4, "big") + b"abc"
    assert decode_message(payload) == LogicalMessage(True, 0x10, "pre", b"abc")


def test_malformed_messages_fail_naming_the_kind() -> None:
    with pytest.raises(PgOutputError, match="unknown pgoutput message kind 'Z'"):
        decode_message(b"Z\x00")
    with pytest.raises(PgOutputError, match="truncated or malformed pgoutput 'I'"):
        decode_message(_hex("49000040014e0003740000"))
    with pytest.raises(PgOutputError, match="only text values of protocol version 1"):
        decode_message(_hex("49000040014e0001620000000101"))
    with pytest.raises(PgOutputError, match="empty"):
        decode_message(b"")


def test_frames_keepalives_and_status_updates() -> None:
    keepalive = decode_frame(_hex("6b00000000019296480003046aac1e626000"))
    assert keepalive == PrimaryKeepalive(0x1929648, 0x3046AAC1E6260 + PG_EPOCH_MICROS, False)
    data = b"w" + (5).to_bytes(8, "big") + (9).to_bytes(8, "big") + (0).to_bytes(8, "big") + b"B..."
    assert decode_frame(data) == XLogData(5, 9, PG_EPOCH_MICROS, b"B...")
    with pytest.raises(PgOutputError, match="unknown replication frame"):
        decode_frame(b"x")
    status = standby_status_update(0x20, 0x10, 0x10, PG_EPOCH_MICROS + 7, True)
    fields = ["0000000000000020", "0000000000000010", "0000000000000010", "0000000000000007"]
    assert status == b"r" + bytes.fromhex("".join(fields)) + b"\x01"


def test_lsns_read_and_print_as_postgresql_does() -> None:
    assert parse_lsn("16/B374D848") == (0x16 << 32) | 0xB374D848
    assert format_lsn(parse_lsn("16/B374D848")) == "16/B374D848"
    assert format_lsn(0) == "0/0"
    with pytest.raises(ValueError, match="not an LSN"):
        parse_lsn("123")
