"""Committing a prepared Kafka transaction after a failure, and aborting lingering ones.

Flink's Kafka sink commits, on recovery, the transactions that a completed checkpoint
prepared but whose commit the failure interrupted: its committer resumes the transaction
with the producer id and epoch kept in the checkpoint and sends the commit
(``KafkaCommitter``, ``FlinkKafkaInternalProducer.resumeTransaction``). librdkafka cannot
resume a transaction, so the commit is sent here as Kafka's own ``EndTxn`` request to the
transaction coordinator (found with ``FindCoordinator``), in the versions without tagged
fields that every broker since Kafka 2.0 serves. A commit of a transaction already
committed succeeds again, so a recovery may always commit.

Lingering transactions (opened after the checkpoint a job restores from, by the attempt
that failed) are aborted as Flink's probing abort strategy does: initializing a producer
with a transactional id fences its previous owner and aborts its open transaction; ids
``<prefix>-<subtask>-<n>`` are probed from the restored checkpoint on, and the first id whose
producer epoch is 0 (never used) ends the probe.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from typing import Any

from confluent_kafka import Producer

from millstream.connectors.kafka.client import KafkaConnectorError, create_client

__all__ = ["abort_lingering", "commit_prepared", "producer_identity"]

API_VERSIONS, FIND_COORDINATOR, END_TXN = 18, 10, 26
COORDINATOR_TRANSACTION = 1
REQUEST_TIMEOUT_S = 30.0
# errors after which a commit is retried: COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR,
# COORDINATOR_NOT_AVAILABLE, CONCURRENT_TRANSACTIONS
RETRIABLE = {14, 15, 16, 51}
ERRORS = {
    47: "INVALID_PRODUCER_EPOCH (the transaction's producer was fenced: a newer producer with its id)",
    48: "INVALID_TXN_STATE (the transaction was aborted, e.g. its timeout expired)",
    49: "INVALID_PRODUCER_ID_MAPPING (the broker does not know the transaction)",
    53: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
    90: "PRODUCER_FENCED",
}


class _Connection:
    """One broker connection speaking Kafka's request/response framing."""

    def __init__(self, host: str, port: int) -> None:
        self._sock = socket.create_connection((host, port), timeout=REQUEST_TIMEOUT_S)
        self._correlation = 0

    def request(self, api_key: int, version: int, body: bytes) -> bytes:
        self._correlation += 1
        client = b"millstream"
        header = struct.pack(">hhih", api_key, version, self._correlation, len(client)) + client
        payload = header + body
        self._sock.sendall(struct.pack(">i", len(payload)) + payload)
        size = struct.unpack(">i", self._read(4))[0]
        response = self._read(size)
        if struct.unpack(">i", response[:4])[0] != self._correlation:
            raise KafkaConnectorError("Kafka broker answered out of order")
        return response[4:]

    def _read(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = self._sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("the Kafka broker closed the connection")
            out += chunk
        return bytes(out)

    def versions(self) -> dict[int, tuple[int, int]]:
        data = self.request(API_VERSIONS, 0, b"")
        error, count = struct.unpack(">hi", data[:6])
        if error:
            raise KafkaConnectorError(f"ApiVersions failed with error {error}")
        out = {}
        for i in range(count):
            key, low, high = struct.unpack(">hhh", data[6 + 6 * i : 12 + 6 * i])
            out[key] = (low, high)
        return out

    def close(self) -> None:
        self._sock.close()


def _string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack(">h", len(raw)) + raw


def _pick(versions: dict[int, tuple[int, int]], api: int, wanted: tuple[int, ...], name: str) -> int:
    low, high = versions.get(api, (0, -1))
    for version in wanted:
        if low <= version <= high:
            return version
    raise KafkaConnectorError(f"the Kafka broker serves {name} versions {low}-{high}, none of {wanted}")


def _find_coordinator(bootstrap_servers: str, transactional_id: str) -> tuple[str, int]:
    last: BaseException | None = None
    for server in bootstrap_servers.split(","):
        host, _, port = server.strip().rpartition(":")
        try:
            conn = _Connection(host.strip("[]"), int(port))
        except OSError as err:
            last = err
            continue
        try:
            version = _pick(conn.versions(), FIND_COORDINATOR, (2, 1), "FindCoordinator")
            body = _string(transactional_id) + struct.pack(">b", COORDINATOR_TRANSACTION)
            data = conn.request(FIND_COORDINATOR, version, body)
            _throttle, error = struct.unpack(">ih", data[:6])
            pos = 6
            (msg_len,) = struct.unpack(">h", data[pos : pos + 2])
            pos += 2 + max(msg_len, 0)
            pos += 4  # the coordinator's node id
            (host_len,) = struct.unpack(">h", data[pos : pos + 2])
            coordinator_host = data[pos + 2 : pos + 2 + host_len].decode()
            pos += 2 + host_len
            (coordinator_port,) = struct.unpack(">i", data[pos : pos + 4])
            if error in RETRIABLE:
                raise _Retriable(f"FindCoordinator error {error}")
            if error:
                raise KafkaConnectorError(f"finding the transaction coordinator failed with error {error}")
            return coordinator_host, coordinator_port
        finally:
            conn.close()
    raise KafkaConnectorError(f"no Kafka broker of {bootstrap_servers} is reachable: {last}")


class _Retriable(Exception):
    pass


def commit_prepared(bootstrap_servers: str, transactional_id: str, producer_id: int, epoch: int) -> None:
    """Commit the open transaction of ``transactional_id`` held by (producer id, epoch)."""
    deadline = time.monotonic() + REQUEST_TIMEOUT_S
    while True:
        try:
            host, port = _find_coordinator(bootstrap_servers, transactional_id)
            conn = _Connection(host, port)
            try:
                version = _pick(conn.versions(), END_TXN, (2, 1, 0), "EndTxn")
                body = _string(transactional_id) + struct.pack(">qhb", producer_id, epoch, 1)
                _throttle, error = struct.unpack(">ih", conn.request(END_TXN, version, body)[:6])
            finally:
                conn.close()
            if error in RETRIABLE:
                raise _Retriable(f"EndTxn error {error}")
            if error:
                reason = ERRORS.get(error, f"error {error}")
                raise KafkaConnectorError(
                    f"committing Kafka transaction {transactional_id!r} failed: {reason}; "
                    "its records are lost (was the recovery slower than transaction.timeout.ms?)"
                )
            return
        except (_Retriable, OSError) as err:
            if time.monotonic() > deadline:
                raise KafkaConnectorError(
                    f"committing Kafka transaction {transactional_id!r} failed: {err}"
                ) from err
            time.sleep(0.2)


class _Stats:
    """The producer id and epoch librdkafka reports in its statistics (``eos``)."""

    def __init__(self) -> None:
        self.identity: tuple[int, int] | None = None
        self._lock = threading.Lock()

    def __call__(self, text: str) -> None:
        eos = json.loads(text).get("eos") or {}
        pid, epoch = eos.get("producer_id", -1), eos.get("producer_epoch", -1)
        if pid >= 0 and epoch >= 0:
            with self._lock:
                self.identity = (int(pid), int(epoch))


def producer_identity(producer: Any, stats: _Stats, timeout_s: float = REQUEST_TIMEOUT_S) -> tuple[int, int]:
    """(producer id, epoch) of an initialized transactional producer."""
    deadline = time.monotonic() + timeout_s
    while stats.identity is None:
        if time.monotonic() > deadline:
            raise KafkaConnectorError("the Kafka producer reported no producer id")
        producer.poll(0.02)
    return stats.identity


def transactional_producer(config: dict[str, Any], transactional_id: str, what: str) -> tuple[Any, _Stats]:
    """An initialized transactional producer (its previous owner fenced, open transaction
    aborted) and the statistics that carry its id and epoch."""
    stats = _Stats()
    producer = create_client(
        Producer,
        {**config, "transactional.id": transactional_id, "statistics.interval.ms": 100, "stats_cb": stats},
        what,
    )
    try:
        producer.init_transactions(REQUEST_TIMEOUT_S)
    except Exception as err:
        raise KafkaConnectorError(
            f"{what}: initializing transactions of {transactional_id!r} failed: {err}"
        ) from err
    return producer, stats


def abort_lingering(
    config: dict[str, Any], prefix: str, subtasks: list[int], first_offset: int, what: str
) -> int:
    """Abort the transactions of ``<prefix>-<subtask>-<n>`` for n = first_offset, ... (each
    subtask until an id never used); the number of ids that had been used."""
    used = 0
    for subtask in subtasks:
        offset = first_offset
        while True:
            producer, stats = transactional_producer(config, f"{prefix}-{subtask}-{offset}", what)
            try:
                _pid, epoch = producer_identity(producer, stats)
            finally:
                producer.flush(0)
            if epoch == 0:
                break
            used += 1
            offset += 1
    return used
