"""PipelinedSubpartition: the queue of finished buffers for one consumer subtask.

The producer's task thread adds buffers; the consumer reads them through a
``SubpartitionView``. The view's listener is told when the queue turns non-empty, so
the consumer never polls an empty queue. ``backlog`` (queued data buffers) is what a
remote consumer uses to ask for floating buffers.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Protocol

from millstream.runtime.io.network.buffer import Buffer

__all__ = ["AvailabilityListener", "PipelinedSubpartition", "SubpartitionView"]


class AvailabilityListener(Protocol):
    """Told when a subpartition view has data again."""

    def notify_data_available(self) -> None:
        """Called from the producer's thread; must not block."""
        ...


class PipelinedSubpartition:
    """Buffers for one consumer, consumable while being produced."""

    def __init__(self, index: int, on_released: Callable[[int], None] | None = None) -> None:
        self.index = index
        self._on_released = on_released
        self._lock = threading.Lock()
        self._buffers: deque[Buffer] = deque()  # under _lock
        self._data_buffers = 0  # data buffers in _buffers (backlog), under _lock
        self._listener: AvailabilityListener | None = None  # under _lock
        self._released = False  # under _lock
        self._room = threading.Condition(self._lock)  # a producer waiting in wait_for_room
        self._room_below = 0  # under _lock: wake the waiting producer below this backlog (0: none waits)
        self.buffers_added = 0  # owner: producer thread (metrics)
        self.bytes_added = 0  # owner: producer thread (metrics)

    def add(self, buffer: Buffer) -> None:
        """Append a finished buffer (data or event)."""
        with self._lock:
            if self._released:
                buffer.recycle()
                return
            was_empty = not self._buffers
            self._buffers.append(buffer)
            if buffer.is_buffer:
                self._data_buffers += 1
            listener = self._listener if was_empty else None
        self.buffers_added += 1
        self.bytes_added += buffer.size
        if listener is not None:
            listener.notify_data_available()

    def wait_for_room(self, limit: int, slice_s: float, should_abort: Callable[[], bool]) -> None:
        """Block the producer while ``limit`` or more data buffers are queued (the bound of a
        same-process consumer), in slices of ``slice_s`` seconds; ``InterruptedError`` when
        ``should_abort()`` turns true (the task is being cancelled)."""
        with self._lock:
            try:
                while self._data_buffers >= limit and not self._released:
                    self._room_below = limit
                    self._room.wait(slice_s)
                    if should_abort():
                        raise InterruptedError("waiting for the consumer aborted: task is cancelling")
            finally:
                self._room_below = 0

    def _took_locked(self) -> None:
        """A data buffer left the queue: wake a producer waiting for room."""
        self._data_buffers -= 1
        if self._data_buffers < self._room_below:
            self._room.notify()

    def add_priority_event(self, event: Buffer) -> list[Buffer]:
        """Put ``event`` (an unaligned checkpoint barrier) before the queued data buffers, right
        after the last queued event (events keep their order); the data buffers it overtook are
        returned (still queued: they follow the event) so the checkpoint can keep them."""
        with self._lock:
            if self._released:
                return []
            buffers = self._buffers
            position = len(buffers)
            while position and buffers[position - 1].is_buffer:
                position -= 1
            overtaken = list(buffers)[position:]
            buffers.insert(position, event)
            listener = self._listener
        if listener is not None:
            listener.notify_data_available()  # an event needs no credit: it can go at once
        return overtaken

    def create_view(self, listener: AvailabilityListener) -> SubpartitionView:
        """The consumer's view; ``listener`` hears when the queue turns non-empty.

        The caller checks for data already queued once it has stored the view.
        """
        with self._lock:
            if self._listener is not None:
                raise RuntimeError(f"subpartition {self.index} is already being consumed")
            self._listener = listener
        return SubpartitionView(self)

    def poll(self) -> tuple[Buffer | None, bool]:
        """The next buffer (or None) and whether more are queued behind it."""
        with self._lock:
            if not self._buffers:
                return None, False
            buffer = self._buffers.popleft()
            if buffer.is_buffer:
                self._took_locked()
            return buffer, bool(self._buffers)

    def backlog(self) -> int:
        """Data buffers waiting to be consumed."""
        with self._lock:
            return self._data_buffers

    def is_available(self, credit: int) -> bool:
        """Whether a sender holding ``credit`` can send now (events need no credit)."""
        with self._lock:
            return bool(self._buffers) and (credit > 0 or not self._buffers[0].is_buffer)

    def poll_with_backlog(self) -> tuple[Buffer | None, int]:
        """The next buffer (or None) and the data buffers still queued behind it."""
        with self._lock:
            if not self._buffers:
                return None, self._data_buffers
            buffer = self._buffers.popleft()
            if buffer.is_buffer:
                self._took_locked()
            return buffer, self._data_buffers

    def release(self) -> None:
        """Drop and recycle every queued buffer (consumer done, or failure)."""
        with self._lock:
            if self._released:
                return
            self._released = True
            buffers = list(self._buffers)
            self._buffers.clear()
            self._data_buffers = 0
            self._room.notify_all()
        for buffer in buffers:
            buffer.recycle()
        if self._on_released is not None:
            self._on_released(self.index)


class SubpartitionView:
    """What an input channel reads from."""

    __slots__ = ("_subpartition",)

    def __init__(self, subpartition: PipelinedSubpartition) -> None:
        self._subpartition = subpartition

    def get_next_buffer(self) -> tuple[Buffer | None, bool]:
        """The next buffer (or None) and whether more are queued."""
        return self._subpartition.poll()

    def backlog(self) -> int:
        """Data buffers queued."""
        return self._subpartition.backlog()

    def is_available(self, credit: int) -> bool:
        """Whether a sender holding ``credit`` can send the next buffer."""
        return self._subpartition.is_available(credit)

    def get_next_buffer_with_backlog(self) -> tuple[Buffer | None, int]:
        """The next buffer (or None) and the backlog behind it."""
        return self._subpartition.poll_with_backlog()

    def release(self) -> None:
        """The consumer is done (or cancelled)."""
        self._subpartition.release()
