"""Consumer side of a TaskManager connection: requests subpartitions, routes buffers, sends credit.

::

    RemoteInputChannel.request_subpartition --> PartitionRequestClient (one per producer TM)
        --PartitionRequest(receiver, partition, sub, initial credit)-->
        <--BufferResponse(receiver, seq, backlog)-- routed by receiver id -> channel.on_buffer
        channel has new credit -> notify_credit_available -> AddCredit(receiver, n) (batched)
        <--ErrorResponse(receiver | None)--  channel.on_error (None: every channel)
        connection lost -> every channel fails with RemoteTransportError

Flink's ``CreditBasedPartitionRequestClientHandler`` + ``NettyPartitionRequestClient``.
All channels to one producer TaskManager share this client's single TCP connection.

Threads: the connection and the channel map live on the network loop; ``request`` /
``notify_credit_available`` / ``cancel`` are called from task threads and hop onto it.
Per-record path: ``_on_frame`` runs once per buffer.
"""

from __future__ import annotations

import asyncio
import logging

from millstream.runtime.ids import InputChannelID
from millstream.runtime.io.network.consumer.remote_input_channel import (
    RemoteInputChannel,
    RemoteTransportError,
)
from millstream.runtime.io.network.transport import messages as m
from millstream.runtime.rpc import wire

__all__ = ["PartitionRequestClient"]

log = logging.getLogger(__name__)

READ_CHUNK = 1 << 18


class PartitionRequestClient:
    """The connection from this TaskManager to one producer TaskManager."""

    def __init__(self, loop: asyncio.AbstractEventLoop, address: tuple[str, int]) -> None:
        self.loop = loop
        self.address = address
        self._writer: asyncio.StreamWriter | None = None  # owner: network loop
        self._channels: dict[InputChannelID, RemoteInputChannel] = {}  # owner: network loop
        self._credit_pending: set[InputChannelID] = set()  # owner: network loop
        self._error: BaseException | None = None  # owner: network loop
        self.buffers_received = 0  # owner: network loop
        self.bytes_received = 0  # owner: network loop

    async def connect(self, secret: str, timeout: float) -> None:
        """Open and authenticate the connection, then start reading (network loop)."""
        host, port = self.address
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        except OSError as err:
            raise self._lost("Connecting to", err) from err
        try:
            await asyncio.wait_for(wire.client_handshake(reader, writer, secret), timeout)
        except (asyncio.IncompleteReadError, ConnectionError) as err:  # gone during the handshake
            writer.close()
            raise self._lost("The connection to", err) from err
        except wire.AuthenticationError as err:
            writer.close()
            if isinstance(err.__cause__, asyncio.IncompleteReadError | ConnectionError):
                raise wire.AuthenticationError(
                    f"Remote TaskManager {_fmt(self.address)} closed the connection during the handshake: "
                    "the remote TaskManager was lost, or it does not hold the same shared secret"
                ) from err
            raise
        except BaseException:
            writer.close()
            raise
        self._writer = writer
        self.loop.create_task(self._read(reader))

    def _lost(self, what: str, err: BaseException) -> RemoteTransportError:
        return RemoteTransportError(
            f"{what} remote TaskManager {_fmt(self.address)} failed ({type(err).__name__}: {err}). "
            "This might indicate that the remote TaskManager was lost."
        )

    @property
    def is_closed(self) -> bool:
        """Whether the connection failed or was closed."""
        return self._error is not None

    # -- called by channels (any thread) ---------------------------------------------------

    def request_subpartition(self, channel: RemoteInputChannel) -> None:
        """Register ``channel`` and send its PartitionRequest."""
        self.loop.call_soon_threadsafe(self._request, channel)

    def notify_credit_available(self, channel: RemoteInputChannel) -> None:
        """Send the channel's new credit (coalesced per loop turn)."""
        self.loop.call_soon_threadsafe(self._announce, channel)

    def cancel(self, channel: RemoteInputChannel) -> None:
        """The channel is done or cancelled."""
        self.loop.call_soon_threadsafe(self._cancel, channel)

    # -- network loop ---------------------------------------------------------------------

    def _request(self, channel: RemoteInputChannel) -> None:
        if self._error is not None:
            channel.on_error(self._error)
            return
        self._channels[channel.id] = channel
        self._send(
            m.PartitionRequest(
                channel.id, channel.partition_id, channel.subpartition_index, channel.initial_credit
            )
        )

    def _announce(self, channel: RemoteInputChannel) -> None:
        if channel.id not in self._channels or channel.id in self._credit_pending:
            return
        self._credit_pending.add(channel.id)
        self.loop.call_soon(self._flush_credit, channel)

    def _flush_credit(self, channel: RemoteInputChannel) -> None:
        self._credit_pending.discard(channel.id)
        if channel.id not in self._channels:
            return
        credit = channel.take_unannounced_credit()
        if credit > 0:
            self._send(m.AddCredit(channel.id, credit))

    def _cancel(self, channel: RemoteInputChannel) -> None:
        if self._channels.pop(channel.id, None) is not None and not channel.finished:
            self._send(m.CancelPartitionRequest(channel.id))

    def _send(self, message: m.Message) -> None:
        writer = self._writer
        if writer is not None and not writer.is_closing():
            writer.write(m.encode(message))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        error: BaseException
        try:
            await wire.read_frames(reader, self._on_frame, READ_CHUNK)
            error = RemoteTransportError(
                f"Connection unexpectedly closed by remote TaskManager {_fmt(self.address)}. "
                "This might indicate that the remote TaskManager was lost."
            )
        except wire.ProtocolError as err:
            error = RemoteTransportError(f"protocol error from TaskManager {_fmt(self.address)}: {err}")
        except (ConnectionError, OSError) as err:
            error = RemoteTransportError(
                f"Lost connection to remote TaskManager {_fmt(self.address)} ({err}). "
                "This might indicate that the remote TaskManager was lost."
            )
        except asyncio.CancelledError:
            error = RemoteTransportError(f"connection to TaskManager {_fmt(self.address)} closed")
        self._fail(error)

    def _on_frame(self, msg_type: int, body: bytes) -> None:
        message = m.decode(msg_type, body)
        match message:
            case m.BufferResponse(
                receiver_id=rid, sequence_number=seq, backlog=backlog, data_type=t, payload=p
            ):
                self.buffers_received += 1
                self.bytes_received += len(p)
                channel = self._channels.get(rid)
                if channel is None:
                    return  # released meanwhile: its cancel request is on the way
                channel.on_buffer(seq, backlog, t, p)
            case m.ErrorResponse(receiver_id=None, message=text):
                self._fail(RemoteTransportError(f"TaskManager {_fmt(self.address)} reported: {text}"))
            case m.ErrorResponse(receiver_id=rid, message=text):
                channel = self._channels.get(rid)  # type: ignore[arg-type]
                if channel is not None:
                    channel.on_error(
                        RemoteTransportError(f"TaskManager {_fmt(self.address)} reported: {text}")
                    )
            case _:
                raise wire.ProtocolError(f"unexpected message from a producer: {type(message).__name__}")

    def _fail(self, error: BaseException) -> None:
        if self._error is None:
            self._error = error
        channels = list(self._channels.values())
        self._channels.clear()
        for channel in channels:
            if not channel.finished:
                channel.on_error(error)
        if self._writer is not None:
            self._writer.close()

    def close(self) -> None:
        """Send CloseRequest and close (network loop)."""
        if self._error is None:
            self._send(m.CloseRequest())
            self._fail(RemoteTransportError(f"connection to TaskManager {_fmt(self.address)} closed"))


def _fmt(address: tuple[str, int]) -> str:
    return f"{address[0]}:{address[1]}"
