"""A partition's log as the broker stores it, transaction markers included, for tests that
check the transaction protocol itself (the test broker hands aborted records to
``read_committed`` consumers, so what a transactional sink committed is read here instead).

``read_log`` fetches the partition's record batches (Kafka's Fetch request, version 4,
``read_uncommitted``) and decodes the v2 record batch format: each batch's producer id and
epoch, whether it is transactional, and its records; a control batch holds a COMMIT or ABORT
marker ending its producer's open transaction. ``committed_values`` applies the markers:
the values of transactions that ended in COMMIT, plus non-transactional records, in order.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from millstream.connectors.kafka.transactions import _Connection, _string

__all__ = ["Batch", "committed_values", "read_log"]

FETCH = 1
_TRANSACTIONAL, _CONTROL = 0x10, 0x20
ABORT, COMMIT = 0, 1


@dataclass
class Batch:
    """One record batch: its first offset, producer, flags and record values (a control
    batch: ``marker`` is ABORT or COMMIT)."""

    base_offset: int
    last_offset: int
    producer_id: int
    producer_epoch: int
    transactional: bool
    marker: int | None = None
    values: list[bytes | None] = field(default_factory=list)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return (result >> 1) ^ -(result & 1), pos  # zigzag
        shift += 7


def _records(data: bytes, pos: int, count: int) -> tuple[list[tuple[bytes | None, bytes | None]], int]:
    out = []
    for _ in range(count):
        length, pos = _varint(data, pos)
        end = pos + length
        pos += 1  # attributes
        _, pos = _varint(data, pos)  # timestamp delta
        _, pos = _varint(data, pos)  # offset delta
        key_length, pos = _varint(data, pos)
        key = None if key_length < 0 else data[pos : pos + key_length]
        pos += max(key_length, 0)
        value_length, pos = _varint(data, pos)
        value = None if value_length < 0 else data[pos : pos + value_length]
        out.append((key, value))
        pos = end
    return out, pos


def _batches(data: bytes) -> list[Batch]:
    out = []
    pos = 0
    while pos + 61 <= len(data):
        base_offset, length = struct.unpack(">qi", data[pos : pos + 12])
        end = pos + 12 + length
        if end > len(data):
            break  # a partial batch at the end of the response
        attributes, last_delta = struct.unpack(">hi", data[pos + 21 : pos + 27])
        producer_id, epoch = struct.unpack(">qh", data[pos + 43 : pos + 53])
        (count,) = struct.unpack(">i", data[pos + 57 : pos + 61])
        records, _ = _records(data, pos + 61, count)
        batch = Batch(
            base_offset, base_offset + last_delta, producer_id, epoch, bool(attributes & _TRANSACTIONAL)
        )
        if attributes & _CONTROL:
            key = records[0][0] or b"\0\0\0\0"
            batch.marker = struct.unpack(">hh", key[:4])[1]
        else:
            batch.values = [value for _, value in records]
        out.append(batch)
        pos = end
    return out


def read_log(bootstrap_servers: str, topic: str, partition: int) -> list[Batch]:
    """Every record batch of the partition, control batches included."""
    host, port = bootstrap_servers.split(",")[0].rsplit(":", 1)
    connection = _Connection(host, int(port))
    try:
        batches: list[Batch] = []
        offset = 0
        while True:
            body = (
                struct.pack(">iiiib", -1, 100, 1, 8 << 20, 0)  # replica, wait, min, max bytes, uncommitted
                + struct.pack(">i", 1)
                + _string(topic)
                + struct.pack(">iiqi", 1, partition, offset, 8 << 20)
            )
            data = connection.request(FETCH, 4, body)
            pos = 4 + 4  # throttle time, topic count
            (name_length,) = struct.unpack(">h", data[pos : pos + 2])
            pos += 2 + name_length + 4 + 4  # the topic, partition count, partition
            (error,) = struct.unpack(">h", data[pos : pos + 2])
            if error:
                raise RuntimeError(f"fetching {topic}-{partition} failed with error {error}")
            pos += 10 + 8  # last stable offset
            (aborted,) = struct.unpack(">i", data[pos : pos + 4])
            pos += 4 + max(aborted, 0) * 16
            (size,) = struct.unpack(">i", data[pos : pos + 4])
            fetched = _batches(data[pos + 4 : pos + 4 + size])
            if not fetched:
                return batches
            batches.extend(fetched)
            offset = fetched[-1].last_offset + 1
    finally:
        connection.close()


def committed_values(batches: list[Batch]) -> tuple[list[bytes | None], list[bytes | None]]:
    """(values of committed transactions and non-transactional batches, values of aborted or
    never-ended transactions), each in log order; a transaction's values count once its
    producer's marker says COMMIT."""
    open_by_producer: dict[int, list[bytes | None]] = {}
    committed: list[bytes | None] = []
    aborted: list[bytes | None] = []
    for batch in batches:
        if batch.marker is not None:
            values = open_by_producer.pop(batch.producer_id, [])
            (committed if batch.marker == COMMIT else aborted).extend(values)
        elif batch.transactional:
            open_by_producer.setdefault(batch.producer_id, []).extend(batch.values)
        else:
            committed.extend(batch.values)
    for values in open_by_producer.values():
        aborted.extend(values)
    return committed, aborted
