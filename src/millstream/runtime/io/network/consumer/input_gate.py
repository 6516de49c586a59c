"""Input gates: the consumer side of one IntermediateResult.

::

    producer subtasks            consumer subtask (this task)
    RP(0).subpartition[k] --> InputChannel 0 --\\
    RP(1).subpartition[k] --> InputChannel 1 ----> SingleInputGate --> input processor
    RP(2).subpartition[k] --> InputChannel 2 --/        (one per consumed JobEdge)

A task consumes subpartition ``k`` (its own index, for all-to-all edges) of every
partition of the result. Channels announce data; the gate keeps a queue of channels
with data, so the consumer visits only channels that have something, in round-robin.
When the queue turns non-empty the gate wakes the task (its mailbox).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

from millstream.runtime.io.network.buffer import Buffer
from millstream.runtime.io.network.consumer.input_channel import InputChannel

__all__ = ["SingleInputGate"]


class SingleInputGate:
    """The channels of one consumed result; ``input_index`` is the operator input it feeds."""

    def __init__(self, gate_index: int, input_index: int, on_available: Callable[[], None]) -> None:
        self.gate_index = gate_index
        self.input_index = input_index
        self.channels: list[InputChannel] = []  # fixed after setup
        self._on_available = on_available
        self._lock = threading.Lock()
        self._queue: deque[InputChannel] = deque()  # under _lock
        self._queued: set[int] = set()  # channel indexes in _queue, under _lock
        self.finished_channels = 0  # owner: consuming task thread
        self._blocked: set[int] = set()  # owner: consuming task thread (aligning a checkpoint)
        self._parked: list[InputChannel] = []  # owner: consuming task thread: blocked, with data
        self.buffer_pool: Any = None  # LocalBufferPool of floating buffers (remote channels only)

    def add_channel(self, channel: InputChannel) -> None:
        """Add a channel during setup."""
        self.channels.append(channel)

    def request_partitions(self) -> None:
        """Every channel requests its subpartition."""
        for channel in self.channels:
            channel.request_subpartition()

    def notify_channel_non_empty(self, channel: InputChannel) -> None:
        """Queue ``channel`` (from any thread); wakes the task if the gate was idle."""
        with self._lock:
            if channel.channel_index in self._queued:
                return
            was_empty = not self._queue
            self._queue.append(channel)
            self._queued.add(channel.channel_index)
        if was_empty:
            self._on_available()

    def poll_next(self) -> tuple[InputChannel, Buffer] | None:
        """The next buffer from a channel with data, or None if there is none now."""
        while True:
            with self._lock:
                if not self._queue:
                    return None
                channel = self._queue.popleft()
                self._queued.discard(channel.channel_index)
            if channel.channel_index in self._blocked:
                self._parked.append(channel)  # its data waits until the alignment ends
                continue
            buffer, more = channel.get_next_buffer()
            if more:
                self.notify_channel_non_empty(channel)
            if buffer is not None:
                channel.buffers_in += 1
                channel.bytes_in += buffer.size
                return channel, buffer

    def block_channel(self, channel_index: int) -> None:
        """Deliver nothing more from this channel until ``resume_consumption`` (task thread):
        it delivered a checkpoint barrier and the others have not yet (aligned checkpoints)."""
        self._blocked.add(channel_index)

    def resume_consumption(self) -> None:
        """Unblock every channel (task thread); those that got data meanwhile are queued again."""
        self._blocked.clear()
        parked, self._parked = self._parked, []
        for channel in parked:
            self.notify_channel_non_empty(channel)

    @property
    def is_finished(self) -> bool:
        """Every channel has delivered EndOfPartition."""
        return self.finished_channels == len(self.channels)

    def release(self) -> None:
        """Release every channel, then the floating buffers."""
        for channel in self.channels:
            channel.release()
        if self.buffer_pool is not None:
            self.buffer_pool.lazy_destroy()
            self.buffer_pool = None
