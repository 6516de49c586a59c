"""Input channels: the consumer side of one subpartition.

A ``LocalInputChannel`` reads a subpartition of a producer in the same TaskManager
directly from its queue (no copy): the buffer is recycled into the producer's pool once
the consumer has deserialized it. A ``RemoteInputChannel`` (in remote_input_channel.py)
receives a subpartition of another TaskManager over the network against credit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from millstream.runtime.ids import ResultPartitionID
from millstream.runtime.io.network.buffer import Buffer
from millstream.runtime.io.network.partition.partition_manager import ResultPartitionManager
from millstream.runtime.io.network.partition.subpartition import SubpartitionView
from millstream.runtime.io.network.serialization import RecordDeserializer

if TYPE_CHECKING:
    from millstream.runtime.io.network.consumer.input_gate import SingleInputGate

__all__ = ["InputChannel", "LocalInputChannel"]


class InputChannel:
    """One subpartition consumed by a gate; ``channel_index`` is its index in the gate."""

    def __init__(
        self,
        gate: SingleInputGate,
        channel_index: int,
        partition_id: ResultPartitionID,
        subpartition_index: int,
    ) -> None:
        self.gate = gate
        self.channel_index = channel_index
        self.partition_id = partition_id
        self.subpartition_index = subpartition_index
        self.deserializer = RecordDeserializer()  # owner: consuming task thread
        self.finished = False  # owner: consuming task thread (EndOfPartition seen)
        # unaligned checkpoint under way and this channel's barrier not yet in: the elements
        # it delivers, pickled (owner: consuming task thread)
        self.recording: list[bytes] | None = None
        self.buffers_in = 0  # owner: consuming task thread
        self.bytes_in = 0  # owner: consuming task thread

    def request_subpartition(self) -> None:
        """Ask the producer's side for the subpartition (receiver-initiated)."""
        raise NotImplementedError

    def get_next_buffer(self) -> tuple[Buffer | None, bool]:
        """The next buffer (or None) and whether more are available."""
        raise NotImplementedError

    def release(self) -> None:
        """Stop consuming."""
        raise NotImplementedError

    def notify_data_available(self) -> None:
        """The producer queued data for this channel."""
        self.gate.notify_channel_non_empty(self)


class LocalInputChannel(InputChannel):
    """Reads a subpartition produced in the same TaskManager."""

    def __init__(
        self,
        gate: SingleInputGate,
        channel_index: int,
        partition_id: ResultPartitionID,
        subpartition_index: int,
        partition_manager: ResultPartitionManager,
    ) -> None:
        super().__init__(gate, channel_index, partition_id, subpartition_index)
        self._partition_manager = partition_manager
        self._view: SubpartitionView | None = None  # set once, from any thread

    def request_subpartition(self) -> None:
        """Request the view; data already queued is announced once the view is stored."""
        self._partition_manager.request_subpartition(
            self.partition_id, self.subpartition_index, self, self._set_view
        )

    def _set_view(self, view: SubpartitionView) -> None:
        self._view = view
        self.gate.notify_channel_non_empty(self)

    def get_next_buffer(self) -> tuple[Buffer | None, bool]:
        """The producer's next buffer."""
        view = self._view
        if view is None:
            return None, False
        return view.get_next_buffer()

    def backlog(self) -> int:
        """Buffers waiting in the producer's subpartition."""
        view = self._view
        return view.backlog() if view is not None else 0

    def release(self) -> None:
        """Release the producer's subpartition (consumed or cancelled)."""
        view = self._view
        if view is not None:
            view.release()
        else:
            self._partition_manager.cancel_request(self.partition_id, self)
