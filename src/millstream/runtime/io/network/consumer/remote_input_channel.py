"""RemoteInputChannel: one subpartition of a producer in another TaskManager, under credit.

::

    producer TM                       |  this TM (consumer)
    subpartition --BufferResponse(seq, backlog)-->  client --on_buffer--> RemoteInputChannel
        (sent only against credit)    |                 received queue --> gate --> task
              <--AddCredit(n)---------|-- freed buffers (exclusive: always; floating: if
                                      |   still needed for the backlog) become credit

Credit (Flink's ``RemoteInputChannel`` + ``BufferManager``): the channel owns
``exclusive`` segments from the NetworkBufferPool and announces them as initial credit
in its partition request. Each BufferResponse carries the sender's backlog; the channel
then wants ``backlog + exclusive`` buffers and takes floating segments from the gate's
LocalBufferPool (or waits for one as a buffer listener); every buffer it gains or gets
back from the task is one more credit, announced to the sender in batches. A data buffer
always lands in a buffer the channel held (the sender never exceeds credit); events
need no credit. Received buffers are recycled by the task thread after deserialization.

Threads: ``on_buffer`` / ``on_error`` run on the TaskManager's network loop; the task
thread polls and recycles; a recycling thread may hand a floating segment to
``notify_buffer_available``. Shared fields are under ``_lock``.
Per-record path: called once per network buffer.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol

from millstream.runtime.ids import InputChannelID, ResultPartitionID, new_id
from millstream.runtime.io.network.buffer import Buffer, DataType
from millstream.runtime.io.network.buffer_pool import LocalBufferPool, NetworkBufferPool
from millstream.runtime.io.network.consumer.input_channel import InputChannel

if TYPE_CHECKING:
    from millstream.runtime.io.network.consumer.input_gate import SingleInputGate

__all__ = ["PartitionRequestClientProtocol", "RemoteInputChannel", "RemoteTransportError"]


class RemoteTransportError(ConnectionError):
    """The connection to the producer's TaskManager failed, or the producer reported an error."""


class PartitionRequestClientProtocol(Protocol):
    """What a remote channel needs from its connection (see transport.client)."""

    def request_subpartition(self, channel: RemoteInputChannel) -> None:
        """Register the channel and send its PartitionRequest (any thread)."""
        ...

    def notify_credit_available(self, channel: RemoteInputChannel) -> None:
        """Send the channel's unannounced credit (any thread)."""
        ...

    def cancel(self, channel: RemoteInputChannel) -> None:
        """The channel stops consuming (any thread)."""
        ...


class _Recycler:
    __slots__ = ("channel", "floating")

    def __init__(self, channel: RemoteInputChannel, floating: bool) -> None:
        self.channel = channel
        self.floating = floating

    def recycle(self, segment: bytearray) -> None:
        self.channel._recycle(segment, self.floating)


class RemoteInputChannel(InputChannel):
    """Receives one remote subpartition; its buffers are credit."""

    def __init__(
        self,
        gate: SingleInputGate,
        channel_index: int,
        partition_id: ResultPartitionID,
        subpartition_index: int,
        client: Any,
        producer_address: tuple[str, int],
        network_pool: NetworkBufferPool,
        floating_pool: LocalBufferPool,
        exclusive: int,
    ) -> None:
        super().__init__(gate, channel_index, partition_id, subpartition_index)
        self.id = InputChannelID(new_id())
        self.producer_address = producer_address
        self.initial_credit = exclusive
        self._client_factory = client  # () -> PartitionRequestClientProtocol, resolved on request
        self._client: PartitionRequestClientProtocol | None = None
        self._network_pool = network_pool
        self._floating_pool = floating_pool
        self._exclusive_recycler = _Recycler(self, False)
        self._floating_recycler = _Recycler(self, True)
        self._lock = threading.Lock()
        self._received: deque[Buffer] = deque()  # under _lock
        self._exclusive_owned: list[bytearray] = []  # under _lock: all exclusive segments
        self._free_exclusive: list[bytearray] = []  # under _lock
        self._free_floating: list[bytearray] = []  # under _lock
        self._required = exclusive  # under _lock: backlog + initial credit (Flink's numRequiredBuffers)
        self._unannounced_credit = 0  # under _lock
        self._waiting_for_floating = False  # under _lock: registered as buffer listener
        self._error: BaseException | None = None  # under _lock
        self._released = False  # under _lock
        self.expected_sequence_number = 0  # owner: network loop
        self.last_backlog = 0  # owner: network loop (metric)
        self.credit_announced = 0  # owner: network loop (metric: total credit sent)

    # -- setup ------------------------------------------------------------------------------

    def request_subpartition(self) -> None:
        """Take the exclusive buffers and send the partition request (task thread)."""
        segments = self._network_pool.request_exclusive_segments(self.initial_credit)
        with self._lock:
            if self._released:
                released = True
            else:
                released = False
                self._exclusive_owned = list(segments)
                self._free_exclusive = list(segments)
        if released:
            self._network_pool.recycle_exclusive_segments(segments)
            return
        self._client = self._client_factory()
        self._client.request_subpartition(self)

    # -- network loop -----------------------------------------------------------------------

    def on_buffer(self, sequence_number: int, backlog: int, data_type: DataType, payload: bytes) -> None:
        """A BufferResponse for this channel arrived (network loop)."""
        if sequence_number != self.expected_sequence_number:
            self.on_error(
                RemoteTransportError(
                    f"buffer {sequence_number} arrived where {self.expected_sequence_number} was expected "
                    f"from {self._describe_producer()}"
                )
            )
            return
        self.expected_sequence_number += 1
        self.last_backlog = backlog
        with self._lock:
            if self._released:
                return
            buffer: Buffer | None
            if data_type is DataType.EVENT:
                buffer = Buffer(payload, len(payload), None, DataType.EVENT)
            else:
                buffer = self._fill_locked(payload, data_type)
                if buffer is None:
                    self._error = RemoteTransportError(
                        f"{self._describe_producer()} sent a buffer without credit (protocol violation)"
                    )
            was_empty = not self._received
            if buffer is not None:
                self._received.append(buffer)
            announce = self._on_backlog_locked(backlog) if backlog > 0 else self._unannounced_credit > 0
        if was_empty:
            self.notify_data_available()
        if announce and self._client is not None:
            self._client.notify_credit_available(self)

    def _fill_locked(self, payload: bytes, data_type: DataType) -> Buffer | None:
        # Floating first, as Flink's BufferManager: exclusive buffers stay for the steady state.
        if self._free_floating:
            segment, recycler = self._free_floating.pop(), self._floating_recycler
        elif self._free_exclusive:
            segment, recycler = self._free_exclusive.pop(), self._exclusive_recycler
        else:
            return None
        size = len(payload)
        segment[:size] = payload
        return Buffer(segment, size, recycler, data_type)

    def _on_backlog_locked(self, backlog: int) -> bool:
        """Want ``backlog + initial credit`` buffers; take floating ones while the pool has them."""
        self._required = backlog + self.initial_credit
        while self._available_locked() < self._required and not self._waiting_for_floating:
            segment = self._floating_pool.request_segment()
            if segment is None:
                self._waiting_for_floating = self._floating_pool.add_buffer_listener(self)
                if not self._waiting_for_floating:
                    continue  # one turned up meanwhile
                break
            self._free_floating.append(segment)
            self._unannounced_credit += 1
        return self._unannounced_credit > 0

    def _available_locked(self) -> int:
        return len(self._free_exclusive) + len(self._free_floating)

    def notify_buffer_available(self, segment: bytearray) -> bool:
        """The gate's pool hands over a floating segment (the recycling thread)."""
        with self._lock:
            self._waiting_for_floating = False
            if self._released or self._available_locked() >= self._required:
                return False
            self._free_floating.append(segment)
            self._unannounced_credit += 1
            if self._available_locked() < self._required:
                self._waiting_for_floating = self._floating_pool.add_buffer_listener(self)
        if self._client is not None:
            self._client.notify_credit_available(self)
        return True

    def take_unannounced_credit(self) -> int:
        """Credit to send in one AddCredit (network loop)."""
        with self._lock:
            credit, self._unannounced_credit = self._unannounced_credit, 0
        self.credit_announced += credit
        return credit

    def on_error(self, error: BaseException) -> None:
        """The connection or the producer failed (network loop); the task sees it on its next poll."""
        with self._lock:
            if self._error is None and not self._released:
                self._error = error
        self.notify_data_available()

    def _describe_producer(self) -> str:
        host, port = self.producer_address
        return f"producer TaskManager at {host}:{port} (partition {self.partition_id})"

    # -- task thread ------------------------------------------------------------------------

    def get_next_buffer(self) -> tuple[Buffer | None, bool]:
        """The next received buffer (task thread); raises the channel's error when it has one."""
        with self._lock:
            if self._received:
                buffer = self._received.popleft()
                return buffer, bool(self._received)
            error = self._error
        if error is not None:
            raise error
        return None, False

    def _recycle(self, segment: bytearray, floating: bool) -> None:
        """A buffer of this channel was consumed (task thread, or release).

        A floating buffer goes back to the gate's pool when the backlog no longer needs it.
        An exclusive buffer always stays; if that leaves more buffers than the backlog needs,
        one floating buffer goes back instead (Flink's ``addExclusiveBuffer``): the free
        buffers, and so the credit, stay the same.
        """
        announce = False
        with self._lock:
            if self._released:
                give_back = "exclusive" if not floating else "floating"
            elif floating and self._available_locked() >= self._required:
                give_back = "floating"
            elif not floating and self._free_floating and self._available_locked() >= self._required:
                self._free_exclusive.append(segment)
                segment = self._free_floating.pop()
                give_back = "floating"
            else:
                give_back = ""
                (self._free_floating if floating else self._free_exclusive).append(segment)
                self._unannounced_credit += 1
                announce = self._unannounced_credit == 1
        if give_back == "floating":
            self._floating_pool.recycle(segment)
        elif give_back == "exclusive":
            self._network_pool.recycle_exclusive_segments([segment])
        elif announce and self._client is not None:
            self._client.notify_credit_available(self)

    def backlog(self) -> int:
        """The sender's backlog at its last buffer."""
        return self.last_backlog

    def unannounced_credit(self) -> int:
        """Credit not yet sent (metric)."""
        with self._lock:
            return self._unannounced_credit

    def release(self) -> None:
        """Stop consuming; give every buffer back (task thread)."""
        with self._lock:
            if self._released:
                return
            self._released = True
            received = list(self._received)
            self._received.clear()
            exclusive = self._free_exclusive
            floating = self._free_floating
            self._free_exclusive, self._free_floating = [], []
            # Exclusive segments still inside received/consumed buffers come back through _recycle.
            waiting = self._waiting_for_floating
        if waiting:
            self._floating_pool.remove_buffer_listener(self)
        for buffer in received:
            buffer.recycle()
        for segment in floating:
            self._floating_pool.recycle(segment)
        if exclusive:
            self._network_pool.recycle_exclusive_segments(exclusive)
        if self._client is not None:
            self._client.cancel(self)
