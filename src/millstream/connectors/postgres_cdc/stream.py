"""The replication stream of one slot, read on a fetcher thread (Flink's SplitFetcher).

    PostgreSQL walsender ==CopyBoth==> fetcher thread --frames (2 batches)--> task thread
                         <==status r== (flushed = the confirmed LSN)  <-- confirm(lsn)

The fetcher owns the replication connection (psycopg 3's libpq connection in non-blocking
mode: psycopg has no replication API, but libpq's CopyBoth calls are exposed as
``pgconn.get_copy_data`` / ``put_copy_data``). It starts ``START_REPLICATION SLOT ... LOGICAL
<lsn> (proto_version '1', publication_names '<pub>')``, hands the decoded frames to the task
thread in batches (a queue of two: a full queue stops reading, so the walsender's send
buffer fills and backpressure reaches the server), answers keepalives that ask for a reply,
and sends a standby status update every ``status_interval_s`` while it runs, full queue or
not (the walsender drops a client silent for ``wal_sender_timeout``). The flushed position
in those updates is only ever what the task thread confirmed after a checkpoint completed,
so the slot never forgets a change that a restore from the latest checkpoint needs.

Why the streaming protocol and not ``pg_logical_slot_peek_binary_changes`` polling: a peek
decodes the slot from its confirmed position every time, so between two checkpoints every
poll decodes again everything since the last one; the stream decodes each change once.
"""

from __future__ import annotations

import logging
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from millstream.connectors.postgres_cdc.config import PostgresCdcError, PostgresSourceConfig
from millstream.connectors.postgres_cdc.database import connect, one_line, quote
from millstream.connectors.postgres_cdc.pgoutput import (
    PrimaryKeepalive,
    ReplicationFrame,
    XLogData,
    decode_frame,
    format_lsn,
    standby_status_update,
)

try:
    from psycopg import pq
except ModuleNotFoundError as err:  # the [postgres] extra
    raise ModuleNotFoundError(
        "the postgres-cdc connector needs psycopg 3: pip install 'millstream[postgres]'"
    ) from err

__all__ = ["ReplicationStream"]

log = logging.getLogger(__name__)

QUEUE_BATCHES = 2
BATCH_FRAMES = 512
WAIT_S = 0.5


class ReplicationStream:
    """Streams a slot from ``start_lsn`` on its own thread; ``take`` hands the frames over."""

    def __init__(
        self, config: PostgresSourceConfig, start_lsn: int, wake: Callable[[], None] | None, name: str
    ) -> None:
        self._config = config
        self._start_lsn = start_lsn
        self._wake = wake or (lambda: None)
        self._name = name
        self._cond = threading.Condition()
        self._batches: deque[list[ReplicationFrame]] = deque()  # under _cond
        self._confirmed = start_lsn  # under _cond: the flushed position the slot hears
        self._confirm_pending = False  # under _cond
        self._closed = False  # under _cond
        self.error: BaseException | None = None  # set by the fetcher before it wakes the task
        self._received = start_lsn  # fetcher thread
        self._thread = threading.Thread(target=self._run, name=f"PostgresCdcFetcher-{name}", daemon=True)
        self._thread.start()

    # -- task thread ---------------------------------------------------------------------------

    def take(self) -> list[ReplicationFrame] | None:
        """The next batch of frames, or None when none is there."""
        with self._cond:
            if not self._batches:
                return None
            batch = self._batches.popleft()
            self._cond.notify_all()
            return batch

    def confirm(self, lsn: int) -> None:
        """Tell the slot that everything before ``lsn`` is processed for good (a completed
        checkpoint holds it); the position only moves forward."""
        with self._cond:
            if lsn > self._confirmed:
                self._confirmed = lsn
                self._confirm_pending = True
                self._cond.notify_all()

    def close(self) -> None:
        """Stop the thread and close the connection."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=30)

    # -- fetcher thread ------------------------------------------------------------------------

    def _run(self) -> None:
        conn = None
        try:
            conn = connect(self._config, replication=True)
            pgconn = conn.pgconn
            self._start(pgconn)
            self._loop(pgconn)
        except BaseException as err:  # handed to the task thread, which fails the task
            self.error = err
            self._wake()
        finally:
            if conn is not None:
                try:
                    conn.close()
                except Exception:
                    log.debug("closing the replication connection of %s failed", self._name, exc_info=True)

    def _start(self, pgconn: Any) -> None:
        config = self._config
        command = (
            f"START_REPLICATION SLOT {quote(config.slot_name)} LOGICAL {format_lsn(self._start_lsn)} "
            f"(proto_version '1', publication_names '{config.publication.replace(chr(39), chr(39) * 2)}')"
        )
        pgconn.send_query(command.encode())
        result = pgconn.get_result()
        if result is None or result.status != pq.ExecStatus.COPY_BOTH:
            message = "" if result is None else result.error_message.decode("utf-8", "replace")
            raise PostgresCdcError(
                f"postgres-cdc: streaming replication slot {config.slot_name!r} from "
                f"{format_lsn(self._start_lsn)} failed: {one_line(RuntimeError(message))}"
            )
        pgconn.nonblocking = 1
        log.info(
            "postgres-cdc %s: streaming slot %s from %s",
            self._name,
            config.slot_name,
            format_lsn(self._start_lsn),
        )

    def _loop(self, pgconn: Any) -> None:
        interval = self._config.status_interval_s
        next_status = time.monotonic() + interval
        while True:
            with self._cond:
                if self._closed:
                    return
                if len(self._batches) >= QUEUE_BATCHES and not self._confirm_pending:
                    self._cond.wait(min(WAIT_S, max(0.0, next_status - time.monotonic())))
                full = len(self._batches) >= QUEUE_BATCHES
                confirm = self._confirm_pending
                self._confirm_pending = False
            reply = False
            if not full:
                reply = self._read(pgconn, min(WAIT_S, max(0.0, next_status - time.monotonic())))
            if reply or confirm or time.monotonic() >= next_status:
                self._send_status(pgconn, reply)
                next_status = time.monotonic() + interval

    def _read(self, pgconn: Any, timeout: float) -> bool:
        """Read what the server sent (waiting up to ``timeout`` for it) and queue its frames;
        True when a keepalive asked for an answer now."""
        frames, reply = self._drain(pgconn)
        if not frames:  # libpq holds no whole message: wait for the socket
            readable, _, _ = select.select([pgconn.socket], [], [], timeout)
            if not readable:
                return False
            pgconn.consume_input()
            frames, reply = self._drain(pgconn)
        if frames:
            with self._cond:
                last = self._batches[-1] if self._batches else None
                if last is not None and len(last) + len(frames) <= BATCH_FRAMES:
                    last.extend(frames)  # not taken yet: one batch rather than many small ones
                else:
                    self._batches.append(frames)
            self._wake()
        return reply

    def _drain(self, pgconn: Any) -> tuple[list[ReplicationFrame], bool]:
        """The whole messages libpq has read, up to a batch."""
        frames: list[ReplicationFrame] = []
        reply = False
        while len(frames) < BATCH_FRAMES:
            size, data = pgconn.get_copy_data(1)
            if size == 0:
                break
            if size < 0:
                self._ended(pgconn)
            frame = decode_frame(bytes(data))
            if isinstance(frame, XLogData):
                self._received = max(self._received, frame.data_start)
            elif isinstance(frame, PrimaryKeepalive):
                self._received = max(self._received, frame.wal_end)
                reply = reply or frame.reply_requested
            frames.append(frame)
        return frames, reply

    def _ended(self, pgconn: Any) -> None:
        result = pgconn.get_result()
        message = "" if result is None else result.error_message.decode("utf-8", "replace")
        message = message or pgconn.error_message.decode("utf-8", "replace") or "the server ended the stream"
        raise PostgresCdcError(
            f"postgres-cdc: the replication stream of slot {self._config.slot_name!r} ended: "
            f"{one_line(RuntimeError(message))}"
        )

    def _send_status(self, pgconn: Any, reply: bool) -> None:
        with self._cond:
            flushed = self._confirmed
        written = max(self._received, flushed)
        message = standby_status_update(written, flushed, flushed, time.time_ns() // 1000)
        while (queued := pgconn.put_copy_data(message)) == 0:  # libpq's buffer is full
            select.select([], [pgconn.socket], [], WAIT_S)
            pgconn.flush()
        if queued < 0:
            error = one_line(RuntimeError(pgconn.error_message.decode("utf-8", "replace")))
            raise PostgresCdcError(f"postgres-cdc: sending the slot's position failed: {error}")
        while pgconn.flush() == 1:  # the socket's buffer is full: wait until it drains
            select.select([], [pgconn.socket], [], WAIT_S)
        if reply:
            log.debug("postgres-cdc %s: answered a keepalive at %s", self._name, format_lsn(written))
