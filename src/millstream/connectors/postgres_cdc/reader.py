"""PostgresSourceReader: the one consumer of a slot: the snapshot, then the change stream.

Coordinating code (task thread), around the per-record decoder. A slot has one consumer,
so subtask 0 reads and any other subtask ends at once. On its first poll the reader checks
the server (``wal_level``, the tables, the publication, the slot) and starts:

- ``initial``, no checkpoint: the slot is created now, exporting a snapshot at its
  consistent point ``L``; the tables are read from that snapshot, then the stream starts
  at ``L``: nothing is lost or doubled across the hand-over. A slot that already exists
  (a job started again without its state) has a position of its own: a temporary slot
  exports the snapshot at ``L2``, and the slot is advanced to ``L2`` (the snapshot holds
  every change before it).
- ``latest-offset``, no checkpoint: no snapshot; the slot (created if missing) is advanced to
  the server's current WAL position and the stream starts there.
- restored mid-snapshot: the rest of the snapshot is read from a temporary slot's new
  snapshot, the segments say which changes the stream skips.
- restored mid-stream: the stream starts at the checkpoint's position.

The checkpointed state is the snapshot's progress or the stream's position. The position
of a checkpoint is confirmed to the slot only when the checkpoint completes: the slot then
keeps every change a restore from the latest completed checkpoint reads again.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

from millstream.connectors.postgres_cdc.config import PostgresCdcError, StartupMode
from millstream.connectors.postgres_cdc.database import (
    advance_slot,
    check_logical_decoding,
    check_slot,
    connect,
    create_slot,
    current_wal_lsn,
    discover_tables,
    ensure_publication,
    slot_info,
    text_loaders,
)
from millstream.connectors.postgres_cdc.decoder import ChangeDecoder
from millstream.connectors.postgres_cdc.pgoutput import format_lsn
from millstream.connectors.postgres_cdc.records import ChangeEvent, TableSchema
from millstream.connectors.postgres_cdc.segments import SnapshotSegments
from millstream.connectors.postgres_cdc.snapshot import SnapshotProgress, SnapshotReader
from millstream.connectors.postgres_cdc.stream import ReplicationStream

__all__ = ["PostgresSourceReader"]

log = logging.getLogger(__name__)

IDLE_POLL_S = 0.05  # without a wake-up callback, how often an idle reader looks again
SLOT_RELEASE_S = 10.0  # how long an active slot is waited for (a restart's previous attempt)


class _Collector:
    """Flink's ``Collector``: what a deserializer emits goes to the reader's batch."""

    __slots__ = ("collect", "records")

    def __init__(self) -> None:
        self.records: list[Any] = []
        self.collect = self.records.append

    def close(self) -> None:
        """Nothing to release."""


class PostgresSourceReader:
    """Reads the source's slot (task thread; the stream's fetcher has a thread of its own)."""

    def __init__(self, source: Any, context: Any) -> None:
        self._source = source
        self._config = source.config
        self._context = context
        self._name = (
            f"{context.operator_name or 'PostgresSource'} ({context.subtask_index + 1}/{context.parallelism})"
        )
        self._restored: dict[str, Any] | None = None
        self._opened = False
        self._snapshot: SnapshotReader | None = None
        self._stream: ReplicationStream | None = None
        self._decoder: ChangeDecoder | None = None
        self._tables: dict[str, TableSchema] = {}
        self._confirms: dict[int, int] = {}  # checkpoint id -> the stream position it holds
        self._deserializer = source.deserializer
        self.available_at = 0.0

    # -- start ---------------------------------------------------------------------------------

    def restore_state(self, state: Any) -> None:
        """Go on from a checkpoint's state (before the first poll)."""
        if not isinstance(state, dict) or state.get("version") != 1:
            raise ValueError(f"PostgresSource: reader state {state!r} is not a version 1 state")
        self._restored = state.get("split")

    def _open(self) -> None:
        config = self._config
        conn = connect(config)
        try:
            check_logical_decoding(conn, config)
            tables = discover_tables(conn, config)
            self._tables = {t.qualified: t for t in tables}
            ensure_publication(conn, config, tables)
            info = self._free_slot(conn)
            restored = self._restored
            if restored is not None and restored["phase"] == "stream":
                self._resume_stream(restored, info)
            elif restored is not None:
                self._resume_snapshot(conn, SnapshotProgress.of_state(restored))
                conn = None  # the snapshot reader owns it
            elif config.startup.startup_mode is StartupMode.LATEST_OFFSET:
                self._start_latest(conn, info is not None)
            else:
                self._start_initial(conn, info)
                conn = None
        finally:
            if conn is not None:
                conn.close()

    def _free_slot(self, conn: Any) -> Any:
        """The slot's state once no other consumer holds it: a restarted job's previous
        attempt may still be letting go of it (its walsender ending), so an active slot is
        waited for up to ``SLOT_RELEASE_S`` before the source fails naming it."""
        config = self._config
        deadline = time.monotonic() + SLOT_RELEASE_S
        info = slot_info(conn, config.slot_name)
        while info is not None and info.active_pid is not None and time.monotonic() < deadline:
            time.sleep(0.1)  # the server ends the other walsender on its own: nothing to wake us
            info = slot_info(conn, config.slot_name)
        check_slot(info, config)
        return info

    def _start_initial(self, conn: Any, info: Any) -> None:
        config = self._config
        rep = connect(config, replication=True)
        try:
            if info is None:  # the slot's own snapshot: the stream starts where it ends
                lsn, snapshot = create_slot(rep, config.slot_name, temporary=False, export=True)
            else:
                lsn, snapshot = create_slot(
                    rep, _temporary_slot(config.slot_name), temporary=True, export=True
                )
            assert snapshot is not None
            segments = SnapshotSegments.whole(list(self._tables), lsn)
            progress = SnapshotProgress(list(self._tables), None, segments, lsn)
            self._snapshot = SnapshotReader(conn, self._tables, progress, snapshot, config.fetch_size)
            if info is not None:  # the imported snapshot holds every change before lsn
                advance_slot(rep, config.slot_name, lsn)
        finally:
            rep.close()  # the importing transaction holds the snapshot from now on
        log.info(
            "postgres-cdc %s: snapshot of %s at %s, then the stream of slot %s from there",
            self._name,
            ", ".join(self._tables),
            format_lsn(lsn),
            config.slot_name,
        )

    def _resume_snapshot(self, conn: Any, progress: SnapshotProgress) -> None:
        config = self._config
        rep = connect(config, replication=True)
        try:
            lsn, snapshot = create_slot(rep, _temporary_slot(config.slot_name), temporary=True, export=True)
            assert snapshot is not None
            current = progress.remaining[0] if progress.remaining else None
            progress.segments = progress.segments.resumed(
                current, progress.after_key, progress.remaining, lsn
            )
            self._snapshot = SnapshotReader(conn, self._tables, progress, snapshot, config.fetch_size)
        finally:
            rep.close()
        log.info("postgres-cdc %s: the snapshot goes on at %s", self._name, format_lsn(lsn))

    def _start_latest(self, conn: Any, exists: bool) -> None:
        config = self._config
        rep = connect(config, replication=True)
        try:
            if not exists:
                create_slot(rep, config.slot_name, temporary=False, export=False)
            # the changes committed before now are not read: the slot forgets them
            start = advance_slot(rep, config.slot_name, current_wal_lsn(conn))
        finally:
            rep.close()
        self._start_stream(start, None, None)

    def _resume_stream(self, state: dict[str, Any], info: Any) -> None:
        config = self._config
        lsn = int(state["restart_lsn"])
        if info is None:
            raise PostgresCdcError(
                f"postgres-cdc: replication slot {config.slot_name!r} no longer exists: the changes after "
                f"the checkpoint ({format_lsn(lsn)}) are gone; start the job without its state"
            )
        if info.confirmed_flush > lsn:
            raise PostgresCdcError(
                f"postgres-cdc: replication slot {config.slot_name!r} confirmed "
                f"{format_lsn(info.confirmed_flush)}, past the restored position {format_lsn(lsn)} (an "
                "older checkpoint or savepoint): the changes between are gone"
            )
        segments = None if state.get("segments") is None else SnapshotSegments(state["segments"])
        txn = state.get("txn")
        self._start_stream(lsn, segments, None if txn is None else (int(txn[0]), int(txn[1])))

    def _start_stream(
        self, lsn: int, segments: SnapshotSegments | None, skip: tuple[int, int] | None
    ) -> None:
        config = self._config
        self._decoder = ChangeDecoder(
            config.database, config.captures, self._tables, text_loaders(), lsn, segments, skip
        )
        self._stream = ReplicationStream(config, lsn, self._context.signal_available, self._name)

    # -- reading -------------------------------------------------------------------------------

    def poll(self, max_records: int) -> list[Any] | None:
        """The next records (deserialized change events); [] while none is there; None on a
        subtask that does not read (a slot has one consumer: subtask 0)."""
        if self._context.subtask_index != 0:
            if not self._opened:
                self._opened = True
                log.info("postgres-cdc %s: slot %s is read by subtask 1", self._name, self._config.slot_name)
            return None
        if not self._opened:
            self._opened = True
            self._open()
        events: list[ChangeEvent] = []
        snapshot = self._snapshot
        if snapshot is not None:
            read = snapshot.read(max_records)
            if read is not None:
                return self._records(read)
            self._snapshot = None
            progress = snapshot.progress
            self._start_stream(progress.stream_start, progress.segments, None)
        stream, decoder = self._stream, self._decoder
        assert stream is not None and decoder is not None
        frames = stream.take()
        if frames is None:
            if stream.error is not None:
                raise stream.error
            wake = self._context.signal_available is not None
            self.available_at = float("inf") if wake else time.monotonic() + IDLE_POLL_S
            return []
        decoder.feed(frames, events)
        self.available_at = 0.0
        return self._records(events)

    def _records(self, events: list[ChangeEvent]) -> list[Any]:
        out = _Collector()
        deserialize = self._deserializer.deserialize
        for event in events:
            deserialize(event, out)
        return out.records

    # -- checkpoints ---------------------------------------------------------------------------

    def snapshot_state(self, checkpoint_id: int) -> dict[str, Any]:
        """The snapshot's progress or the stream's position, after the last record polled."""
        split: dict[str, Any] | None
        if self._context.subtask_index != 0:
            split = None
        elif self._snapshot is not None:
            split = self._snapshot.progress.to_state()
        elif self._decoder is not None:
            split = {"phase": "stream", **self._decoder.position()}
            self._confirms[checkpoint_id] = self._decoder.restart_lsn
            while len(self._confirms) > 16:  # notifications may be lost; keep the newest
                del self._confirms[min(self._confirms)]
        else:
            split = self._restored  # not opened yet: what it was restored from
        return {"version": 1, "split": split}

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """The checkpoint's stream position is for good: the slot may forget what precedes it."""
        lsn = self._confirms.pop(checkpoint_id, None)
        for older in [c for c in self._confirms if c < checkpoint_id]:
            del self._confirms[older]
        if lsn is not None and self._stream is not None:
            self._stream.confirm(lsn)

    def close(self) -> None:
        """Stop the stream, end the snapshot's transaction."""
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()
        snapshot, self._snapshot = self._snapshot, None
        if snapshot is not None:
            snapshot.close()


def _temporary_slot(slot: str) -> str:
    return f"{slot[:40]}_snapshot_{uuid.uuid4().hex[:12]}"
