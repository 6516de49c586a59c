"""BoundedBlockingSubpartition: a subpartition written to a spill file, read once finished.

::

    producer task --add(buffer)--> [u8 type | u32 size | bytes] ... --> spill file
                                   (buffer recycled at once: no backpressure, no memory held)
    finish() --> file closed --> waiting and later requests get a reader:
    BoundedBlockingSubpartitionReader --> one buffer at a time from its own file handle

Flink's ``BoundedBlockingSubpartition`` (FILE mode): the partition of a BLOCKING result
is consumable only when its producer has finished; then any number of consumers
(restarts included) may read it, each with its own reader, and the file lives until the
JobMaster releases the partition (end of the job), not until it is read.

Threads: ``add``/``finish`` on the producer's task thread; a reader on its consumer's
thread (a local input channel's task thread, or the network loop for a remote one).
"""

from __future__ import annotations

import os
import struct
import threading
from collections.abc import Callable

from millstream.runtime.io.network.buffer import Buffer, DataType
from millstream.runtime.io.network.partition.subpartition import AvailabilityListener

__all__ = ["BoundedBlockingSubpartition", "BoundedBlockingSubpartitionReader"]

_HEADER = struct.Struct("<BI")
_TYPES = {DataType.DATA: 0, DataType.EVENT: 1}
_TYPE_OF = {0: DataType.DATA, 1: DataType.EVENT}
WRITE_BUFFER = 1 << 16
SPARE_SEGMENTS = 2  # segments a reader keeps for reuse once its consumer recycles them

ViewCallback = Callable[["BoundedBlockingSubpartitionReader"], None]


class BoundedBlockingSubpartition:
    """One consumer's data of a BLOCKING partition, in ``path``."""

    def __init__(self, index: int, path: str) -> None:
        self.index = index
        self.path = path
        self._lock = threading.Lock()
        self._file = open(path, "wb", buffering=WRITE_BUFFER)  # noqa: SIM115  (closed in finish/release)
        self._data_buffers = 0  # owner: producer thread until finished, then read-only
        self._finished = False  # under _lock
        self._released = False  # under _lock
        self._waiting: list[tuple[AvailabilityListener, ViewCallback]] = []  # under _lock
        self._readers: list[BoundedBlockingSubpartitionReader] = []  # under _lock
        self.buffers_added = 0  # owner: producer thread (metrics)
        self.bytes_added = 0  # owner: producer thread (metrics)

    def add(self, buffer: Buffer) -> None:
        """Append a finished buffer to the file and recycle it (producer thread)."""
        try:
            kind = _TYPES.get(buffer.data_type)
            if kind is None:
                raise ValueError("a blocking subpartition takes serialized buffers only, not object batches")
            if self._released:
                return
            self._file.write(_HEADER.pack(kind, buffer.size))
            self._file.write(memoryview(buffer.segment)[: buffer.size])
            if kind == 0:
                self._data_buffers += 1
            self.buffers_added += 1
            self.bytes_added += buffer.size
        finally:
            buffer.recycle()

    def finish(self) -> None:
        """Close the file; serve requests that waited for the data (producer thread)."""
        with self._lock:
            if self._released or self._finished:
                return
            self._file.close()
            self._finished = True
            waiting, self._waiting = self._waiting, []
        for _, callback in waiting:
            self._serve(callback)

    def request_view(self, listener: AvailabilityListener, callback: ViewCallback) -> None:
        """``callback(reader)`` now if finished, else when the producer finishes.

        All data is there when the reader is handed over, so ``listener`` (kept only to
        cancel a waiting request) is never notified: the caller polls the new reader.
        """
        with self._lock:
            if self._released:
                raise RuntimeError(f"blocking subpartition {self.index} has been released")
            if not self._finished:
                self._waiting.append((listener, callback))
                return
        self._serve(callback)

    def cancel_request(self, listener: AvailabilityListener) -> None:
        """Forget a waiting request of a consumer that is going away."""
        with self._lock:
            self._waiting = [w for w in self._waiting if w[0] is not listener]

    def _serve(self, callback: ViewCallback) -> None:
        reader = BoundedBlockingSubpartitionReader(self.path, self._data_buffers)
        with self._lock:
            if self._released:
                reader.release()
                return
            self._readers.append(reader)
        callback(reader)

    def release(self) -> None:
        """Delete the file (end of job, failure or cancellation); open readers fail."""
        with self._lock:
            if self._released:
                return
            self._released = True
            finished = self._finished
            readers, self._readers = self._readers, []
            self._waiting = []
        if not finished:
            self._file.close()
        for reader in readers:
            reader.release()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


class BoundedBlockingSubpartitionReader:
    """A consumer's sequential view of a finished spill file (one reading thread).

    One buffer is read ahead, so availability and the next buffer's kind are known
    without touching the file; segments come back through ``recycle`` for reuse.
    """

    def __init__(self, path: str, data_buffers: int) -> None:
        self._file = open(path, "rb", buffering=0)  # noqa: SIM115  (closed in release)
        self._remaining_data = data_buffers  # data buffers not yet handed out
        self._spare: list[bytearray] = []  # segments back from the consumer
        self._lock = threading.Lock()  # guards _spare (recycled from the consumer's thread)
        self._released = False
        self._next: Buffer | None = self._read()

    def _read(self) -> Buffer | None:
        header = self._file.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return None
        kind, size = _HEADER.unpack(header)
        segment = self._segment(size)
        view = memoryview(segment)[:size]
        got = self._file.readinto(view)
        view.release()
        if got != size:
            raise OSError(f"spill file truncated: wanted {size} bytes, got {got}")
        return Buffer(segment, size, self, _TYPE_OF[kind])

    def _segment(self, size: int) -> bytearray:
        with self._lock:
            while self._spare:
                segment = self._spare.pop()
                if len(segment) >= size:
                    return segment
        return bytearray(size)

    def recycle(self, segment: bytearray) -> None:
        """A consumer is done with a buffer this reader handed out (any thread)."""
        with self._lock:
            if len(self._spare) < SPARE_SEGMENTS:
                self._spare.append(segment)

    def get_next_buffer(self) -> tuple[Buffer | None, bool]:
        """The next buffer (or None) and whether more follow."""
        buffer = self._next
        if buffer is None or self._released:
            return None, False
        if buffer.is_buffer:
            self._remaining_data -= 1
        self._next = self._read()
        return buffer, self._next is not None

    def get_next_buffer_with_backlog(self) -> tuple[Buffer | None, int]:
        """The next buffer (or None) and the data buffers still to come."""
        buffer, _ = self.get_next_buffer()
        return buffer, self._remaining_data

    def backlog(self) -> int:
        """Data buffers not yet read."""
        return self._remaining_data

    def is_available(self, credit: int) -> bool:
        """Whether a sender holding ``credit`` can send the next buffer (events need none)."""
        buffer = self._next
        return buffer is not None and not self._released and (credit > 0 or not buffer.is_buffer)

    def release(self) -> None:
        """Stop reading (consumed, cancelled, or the partition was released)."""
        if not self._released:
            self._released = True
            self._next = None
            self._file.close()
