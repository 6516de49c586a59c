"""Producer side of a TaskManager connection: serves subpartitions against credit.

::

    consumer TM --PartitionRequest(receiver, partition, sub, credit)--> ServerConnection
                                       partition_manager.request_subpartition -> view
    producer task adds a buffer -> view listener (reader) -> loop: reader queued as available
    ServerConnection._write_available: for each available reader (round-robin, one buffer
        per turn): BufferResponse(receiver, seq, backlog) -> socket; credit -= 1 for data
    <--AddCredit(receiver, n)-- credit += n -> reader available again

Flink's ``PartitionRequestServerHandler`` + ``PartitionRequestQueue`` +
``CreditBasedSequenceNumberingViewReader``: nothing is written for a receiver without
credit, so a stalled consumer stops only its own channel and the shared connection
keeps carrying the others. Writing also stops while the socket's send buffer is above
its high-water mark (Netty's channel writability) and resumes when it drains.

Threads: everything runs on the TaskManager's network loop except
``notify_data_available``, called by producer task threads.
Per-record path: ``_write_available`` runs once per buffer.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
from collections import deque
from typing import Any, Protocol

from millstream.runtime.ids import InputChannelID, ResultPartitionID
from millstream.runtime.io.network.buffer import DataType
from millstream.runtime.io.network.events import EndOfPartitionEvent
from millstream.runtime.io.network.partition.partition_manager import ResultPartitionManager
from millstream.runtime.io.network.partition.subpartition import SubpartitionView
from millstream.runtime.io.network.transport import messages as m
from millstream.runtime.rpc import wire

__all__ = ["NetworkSequenceViewReader", "ServerConnection", "TaskEventPublisher"]

log = logging.getLogger(__name__)

READ_CHUNK = 1 << 16
HIGH_WATER = 1 << 20  # bytes queued in the socket's send buffer before writing pauses
LOW_WATER = 1 << 18


class TaskEventPublisher(Protocol):
    """Delivers task events to the producer of a partition."""

    def publish(self, partition_id: ResultPartitionID, event: object) -> bool:
        """True if a producer of ``partition_id`` took the event."""
        ...


class NetworkSequenceViewReader:
    """Server-side state of one remote consumer channel."""

    __slots__ = (
        "connection",
        "credit",
        "partition_id",
        "queued",
        "receiver_id",
        "released",
        "sequence_number",
        "view",
    )

    def __init__(
        self,
        connection: ServerConnection,
        receiver_id: InputChannelID,
        partition_id: ResultPartitionID,
        credit: int,
    ) -> None:
        self.connection = connection
        self.receiver_id = receiver_id
        self.partition_id = partition_id
        self.credit = credit  # owner: network loop
        self.sequence_number = 0  # owner: network loop
        self.view: SubpartitionView | None = None  # owner: network loop
        self.queued = False  # owner: network loop (in the available queue)
        self.released = False  # owner: network loop

    def notify_data_available(self) -> None:
        """The producer queued a buffer (producer task thread)."""
        self.connection.loop.call_soon_threadsafe(self.connection._on_reader_available, self)

    def is_available(self) -> bool:
        """Something can be sent now: data against credit, or an event."""
        view = self.view
        return view is not None and not self.released and view.is_available(self.credit)


class ServerConnection:
    """One authenticated connection from a consumer TaskManager."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        partition_manager: ResultPartitionManager,
        events: TaskEventPublisher | None,
        peer: str,
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self._reader = reader
        self._writer = writer
        self._partitions = partition_manager
        self._events = events
        self.peer = peer
        self._readers: dict[InputChannelID, NetworkSequenceViewReader] = {}  # owner: network loop
        self._available: deque[NetworkSequenceViewReader] = deque()  # owner: network loop
        self._draining = False  # owner: network loop: waiting for the send buffer to drain
        self._closed = False  # owner: network loop
        self.buffers_sent = 0  # owner: network loop
        self.bytes_sent = 0  # owner: network loop

    async def serve(self) -> None:
        """Handle requests until the consumer disconnects."""
        try:
            await wire.read_frames(self._reader, lambda t, body: self._handle(m.decode(t, body)), READ_CHUNK)
        except wire.ProtocolError as err:
            log.warning("closing data connection from %s: %s", self.peer, err)
            self._send(m.ErrorResponse(None, f"protocol error: {err}"))
        except (ConnectionError, OSError) as err:
            log.debug("data connection from %s lost: %s", self.peer, err)
        finally:
            self.close()

    def _handle(self, message: m.Message) -> None:
        match message:
            case m.PartitionRequest(
                receiver_id=rid, partition_id=pid, subpartition_index=index, initial_credit=c
            ):
                self._request(rid, pid, index, c)
            case m.AddCredit(receiver_id=rid, credit=credit):
                reader = self._readers.get(rid)
                if reader is not None:
                    reader.credit += credit
                    self._enqueue_if_available(reader)
                    self._write_available()
            case m.CancelPartitionRequest(receiver_id=rid):
                reader = self._readers.pop(rid, None)
                if reader is not None:
                    self._release(reader)
            case m.CloseRequest():
                self.close()
            case m.TaskEventRequest(partition_id=pid, receiver_id=rid, event=payload):
                delivered = self._events is not None and self._events.publish(pid, pickle.loads(payload))
                if not delivered:
                    self._send(m.ErrorResponse(rid, f"no producer of partition {pid} takes task events"))
            case _:
                raise wire.ProtocolError(f"unexpected message from a consumer: {type(message).__name__}")

    def _request(self, rid: InputChannelID, pid: ResultPartitionID, index: int, credit: int) -> None:
        if rid in self._readers:
            raise wire.ProtocolError(f"duplicate partition request for receiver {rid}")
        reader = NetworkSequenceViewReader(self, rid, pid, credit)
        self._readers[rid] = reader

        def on_view(view: SubpartitionView) -> None:  # now, or when the producer registers
            self.loop.call_soon_threadsafe(self._set_view, reader, view)

        try:
            self._partitions.request_subpartition(pid, index, reader, on_view)
        except Exception as err:
            self._readers.pop(rid, None)
            self._send(m.ErrorResponse(rid, f"partition request for {pid}[{index}] failed: {err}"))

    def _set_view(self, reader: NetworkSequenceViewReader, view: SubpartitionView) -> None:
        if reader.released or self._closed:
            view.release()
            return
        reader.view = view
        self._on_reader_available(reader)

    def _on_reader_available(self, reader: NetworkSequenceViewReader) -> None:
        self._enqueue_if_available(reader)
        self._write_available()

    def _enqueue_if_available(self, reader: NetworkSequenceViewReader) -> None:
        if not reader.queued and reader.is_available():
            reader.queued = True
            self._available.append(reader)

    def _write_available(self) -> None:
        """Send one buffer per available reader in turn while the socket accepts data."""
        transport = self._writer.transport
        available = self._available
        while available and not self._draining and not self._closed:
            if transport.get_write_buffer_size() > HIGH_WATER:
                self._draining = True
                self.loop.create_task(self._drain())
                return
            reader = available.popleft()
            reader.queued = False
            view = reader.view
            if view is None or reader.released or not view.is_available(reader.credit):
                continue
            buffer, backlog = view.get_next_buffer_with_backlog()
            if buffer is None:
                continue
            try:
                is_data = buffer.is_buffer
                if is_data:
                    reader.credit -= 1
                payload = memoryview(buffer.segment)[: buffer.size]
                transport.write(
                    m.encode_buffer_response(
                        reader.receiver_id, reader.sequence_number, backlog, buffer.data_type, buffer.size
                    )
                )
                transport.write(payload)
                payload.release()
                reader.sequence_number += 1
                self.buffers_sent += 1
                self.bytes_sent += buffer.size
                end = buffer.data_type is DataType.EVENT and _is_end_of_partition(buffer)
            finally:
                buffer.recycle()
            if end:
                # The consumer has everything: the subpartition is consumed (Flink releases here).
                self._readers.pop(reader.receiver_id, None)
                self._release(reader)
                continue
            self._enqueue_if_available(reader)

    async def _drain(self) -> None:
        try:
            await self._writer.drain()
        except (ConnectionError, OSError):
            self.close()
            return
        self._draining = False
        self._write_available()

    def _release(self, reader: NetworkSequenceViewReader) -> None:
        if reader.released:
            return
        reader.released = True
        if reader.view is not None:
            reader.view.release()
        else:  # the request still waits for its producer to register the partition
            self._partitions.cancel_request(reader.partition_id, reader)

    def _send(self, message: m.Message) -> None:
        if not self._closed and not self._writer.is_closing():
            self._writer.write(m.encode(message))

    def close(self) -> None:
        """Release every channel of this connection and close it."""
        if self._closed:
            return
        self._closed = True
        readers = list(self._readers.values())
        self._readers.clear()
        self._available.clear()
        for reader in readers:
            self._release(reader)
        self._writer.close()


def _is_end_of_partition(buffer: Any) -> bool:
    try:
        return isinstance(pickle.loads(memoryview(buffer.segment)[: buffer.size]), EndOfPartitionEvent)
    except Exception:
        return False
