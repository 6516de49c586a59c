"""Data-plane messages between TaskManagers, modelled on Flink's ``NettyMessage``.

::

    consumer TM (client)                                  producer TM (server)
    PartitionRequest(receiver, partition, sub, credit) -->
                                    <-- BufferResponse(receiver, seq, backlog, type, bytes)
    AddCredit(receiver, n)          -->      (one per batch of freed buffers)
                                    <-- ErrorResponse(receiver | None, message)
    CancelPartitionRequest(receiver) -->     (consumer gone)
    TaskEventRequest(partition, receiver, event) -->
    CloseRequest()                  -->      (client closing the connection)

Every message travels in one frame of ``millstream.runtime.rpc.wire`` (after the
handshake); bodies are fixed binary layouts (big-endian), and only a TaskEventRequest's
event is pickled. A receiver id is the 16-byte form of the consumer's InputChannelID,
so one connection multiplexes every logical channel between two TaskManagers.

Per-record path: ``encode_buffer_response`` / ``decode`` run once per network buffer.
"""

from __future__ import annotations

import functools
import struct
import uuid
from dataclasses import dataclass
from enum import IntEnum

from millstream.runtime.ids import InputChannelID, ResultPartitionID
from millstream.runtime.io.network.buffer import DataType
from millstream.runtime.rpc.wire import ProtocolError, frame_header

__all__ = [
    "AddCredit",
    "BufferResponse",
    "CancelPartitionRequest",
    "CloseRequest",
    "ErrorResponse",
    "Message",
    "MessageType",
    "PartitionRequest",
    "TaskEventRequest",
    "decode",
    "encode",
    "encode_buffer_response",
]


class MessageType(IntEnum):
    """Frame types of the data plane (the handshake uses types below 16)."""

    PARTITION_REQUEST = 32
    BUFFER_RESPONSE = 33
    ADD_CREDIT = 34
    ERROR_RESPONSE = 35
    CANCEL_PARTITION_REQUEST = 36
    CLOSE_REQUEST = 37
    TASK_EVENT_REQUEST = 38


_ID = 16
_BUFFER_HEADER = struct.Struct(">16sIIB")  # receiver, sequence number, backlog, data type
_REQUEST = struct.Struct(">16sII")  # receiver, subpartition, initial credit
_CREDIT = struct.Struct(">16sI")
_NO_RECEIVER = bytes(_ID)


@dataclass(frozen=True, slots=True)
class PartitionRequest:
    """Consumer asks for one subpartition, announcing its exclusive buffers as credit."""

    receiver_id: InputChannelID
    partition_id: ResultPartitionID
    subpartition_index: int
    initial_credit: int


@dataclass(frozen=True, slots=True)
class BufferResponse:
    """One buffer (data or event) for a receiver; ``backlog`` = buffers still queued behind it."""

    receiver_id: InputChannelID
    sequence_number: int
    backlog: int
    data_type: DataType
    payload: bytes


@dataclass(frozen=True, slots=True)
class AddCredit:
    """The receiver has ``credit`` more buffers for this channel."""

    receiver_id: InputChannelID
    credit: int


@dataclass(frozen=True, slots=True)
class ErrorResponse:
    """A failure on the producer side: for one channel, or the whole connection (None)."""

    receiver_id: InputChannelID | None
    message: str


@dataclass(frozen=True, slots=True)
class CancelPartitionRequest:
    """The consumer no longer reads this channel."""

    receiver_id: InputChannelID


@dataclass(frozen=True, slots=True)
class CloseRequest:
    """The client closes the connection."""


@dataclass(frozen=True, slots=True)
class TaskEventRequest:
    """An event from a consumer to the producer of ``partition_id`` (pickled payload)."""

    partition_id: ResultPartitionID
    receiver_id: InputChannelID
    event: bytes


Message = (
    PartitionRequest
    | BufferResponse
    | AddCredit
    | ErrorResponse
    | CancelPartitionRequest
    | CloseRequest
    | TaskEventRequest
)


@functools.lru_cache(maxsize=4096)
def _id_bytes(channel: InputChannelID) -> bytes:
    return uuid.UUID(hex=channel).bytes


def _id_str(raw: bytes) -> InputChannelID:
    return _id_of(bytes(raw))


@functools.lru_cache(maxsize=4096)
def _id_of(raw: bytes) -> InputChannelID:
    """A channel's id from its 16 bytes (one per channel: cached, not parsed per buffer)."""
    return InputChannelID(uuid.UUID(bytes=raw).hex)


def _text(value: str) -> bytes:
    data = value.encode()
    return struct.pack(">I", len(data)) + data


def _read_text(body: bytes, pos: int) -> tuple[str, int]:
    (length,) = struct.unpack_from(">I", body, pos)
    end = pos + 4 + length
    if end > len(body):
        raise ProtocolError("truncated string field")
    return body[pos + 4 : end].decode(), end


def encode_buffer_response(
    receiver_id: InputChannelID, sequence_number: int, backlog: int, data_type: DataType, payload_size: int
) -> bytes:
    """Frame header + message header of a BufferResponse; the payload bytes follow separately."""
    head = _BUFFER_HEADER.pack(_id_bytes(receiver_id), sequence_number, backlog, data_type.value)
    return frame_header(MessageType.BUFFER_RESPONSE, len(head) + payload_size) + head


def encode(message: Message) -> bytes:
    """One complete frame for ``message``."""
    match message:
        case BufferResponse(receiver_id=r, sequence_number=s, backlog=b, data_type=t, payload=p):
            return encode_buffer_response(r, s, b, t, len(p)) + p
        case PartitionRequest(receiver_id=r, partition_id=pid, subpartition_index=i, initial_credit=c):
            body = _REQUEST.pack(_id_bytes(r), i, c) + _text(pid)
            return frame_header(MessageType.PARTITION_REQUEST, len(body)) + body
        case AddCredit(receiver_id=r, credit=c):
            body = _CREDIT.pack(_id_bytes(r), c)
            return frame_header(MessageType.ADD_CREDIT, len(body)) + body
        case ErrorResponse(receiver_id=r, message=text):
            body = (_id_bytes(r) if r is not None else _NO_RECEIVER) + _text(text)
            return frame_header(MessageType.ERROR_RESPONSE, len(body)) + body
        case CancelPartitionRequest(receiver_id=r):
            return frame_header(MessageType.CANCEL_PARTITION_REQUEST, _ID) + _id_bytes(r)
        case CloseRequest():
            return frame_header(MessageType.CLOSE_REQUEST, 0)
        case TaskEventRequest(partition_id=pid, receiver_id=r, event=e):
            body = _id_bytes(r) + _text(pid) + e
            return frame_header(MessageType.TASK_EVENT_REQUEST, len(body)) + body
    raise TypeError(f"not a data-plane message: {message!r}")


def decode(msg_type: int, body: bytes) -> Message:
    """The message in one frame; raises ProtocolError on anything malformed."""
    try:
        return _decode(msg_type, body)
    except (struct.error, ValueError, UnicodeDecodeError) as err:
        raise ProtocolError(f"malformed message of type {msg_type}: {err}") from err


def _decode(msg_type: int, body: bytes) -> Message:
    match msg_type:
        case MessageType.BUFFER_RESPONSE:
            raw, seq, backlog, kind = _BUFFER_HEADER.unpack_from(body, 0)
            return BufferResponse(_id_str(raw), seq, backlog, DataType(kind), body[_BUFFER_HEADER.size :])
        case MessageType.PARTITION_REQUEST:
            raw, index, credit = _REQUEST.unpack_from(body, 0)
            pid, _ = _read_text(body, _REQUEST.size)
            return PartitionRequest(_id_str(raw), ResultPartitionID(pid), index, credit)
        case MessageType.ADD_CREDIT:
            raw, credit = _CREDIT.unpack_from(body, 0)
            return AddCredit(_id_str(raw), credit)
        case MessageType.ERROR_RESPONSE:
            raw = body[:_ID]
            text, _ = _read_text(body, _ID)
            return ErrorResponse(None if raw == _NO_RECEIVER else _id_str(raw), text)
        case MessageType.CANCEL_PARTITION_REQUEST:
            if len(body) != _ID:
                raise ProtocolError("malformed CancelPartitionRequest")
            return CancelPartitionRequest(_id_str(body))
        case MessageType.CLOSE_REQUEST:
            return CloseRequest()
        case MessageType.TASK_EVENT_REQUEST:
            raw = body[:_ID]
            pid, end = _read_text(body, _ID)
            return TaskEventRequest(ResultPartitionID(pid), _id_str(raw), body[end:])
    raise ProtocolError(f"unknown data-plane message type {msg_type}")
