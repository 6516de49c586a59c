"""ResultPartition: a task's output for one IntermediateResult, one subpartition per consumer.

::

    RecordWriter --emit_record(sub, payload)--> ResultPartition
                                                  |-- current segment per subpartition
                                                  |   (full -> Buffer -> subpartition)
                                                  |-- subpartition 0 --> consumer 0
                                                  '-- subpartition n --> consumer n

Records are written into the subpartition's current segment; a record continues into
a fresh segment when it does not fit. ``flush`` hands a partly filled segment to the
consumer (buffer timeout).

PIPELINED partitions queue buffers in memory (``PipelinedSubpartition``), are
consumable at the first buffer and released once every consumer has read its
subpartition. BLOCKING partitions (``spill_dir`` given) write each subpartition to a
file (``BoundedBlockingSubpartition``), are consumable when the producer finishes and
live until released (end of the job). ``on_consumable`` fires once at that moment: the
JobMaster is told, and schedules the consumers of a blocking result.

Per-record path: called once per serialized element batch, not per element.
"""

from __future__ import annotations

import os
import pickle
import re
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import cloudpickle

from millstream.runtime.ids import ResultPartitionID
from millstream.runtime.io.network.buffer import Buffer, DataType
from millstream.runtime.io.network.buffer_pool import LocalBufferPool
from millstream.runtime.io.network.events import EndOfPartitionEvent, serialize_event
from millstream.runtime.io.network.partition.bounded_blocking_subpartition import (
    BoundedBlockingSubpartition,
)
from millstream.runtime.io.network.partition.subpartition import (
    AvailabilityListener,
    PipelinedSubpartition,
)
from millstream.runtime.io.network.serialization import HEADER_SIZE

__all__ = ["ResultPartition"]


def _persisted(buffer: Buffer) -> tuple[str, Any]:
    """A queued data buffer as plain data for a checkpoint."""
    if buffer.data_type is DataType.OBJECTS:
        return ("objects", (cloudpickle.dumps(buffer.payload, protocol=pickle.HIGHEST_PROTOCOL), buffer.size))
    return ("bytes", bytes(memoryview(buffer.segment)[: buffer.size]))


REQUEST_SLICE_S = 0.1
_T = TypeVar("_T")

ViewCallback = Callable[[Any], None]  # gets a SubpartitionView or a blocking reader


def _file_stem(partition_id: ResultPartitionID) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", str(partition_id))


class ResultPartition:
    """One produced partition of a task."""

    def __init__(
        self,
        partition_id: ResultPartitionID,
        num_subpartitions: int,
        buffer_pool: LocalBufferPool,
        should_abort: Callable[[], bool],
        on_consumable: Callable[[ResultPartitionID], None] | None = None,
        spill_dir: str | None = None,
        max_queued_batches: int = 0,
    ) -> None:
        self.partition_id = partition_id
        self.is_blocking = spill_dir is not None
        self.subpartitions: list[Any]
        if spill_dir is not None:
            stem = os.path.join(spill_dir, _file_stem(partition_id))
            self.subpartitions = [
                BoundedBlockingSubpartition(i, f"{stem}.{i}.spill") for i in range(num_subpartitions)
            ]
        else:
            self.subpartitions = [
                PipelinedSubpartition(i, self._on_subpartition_released) for i in range(num_subpartitions)
            ]
        self._released_lock = threading.Lock()
        self._unreleased = num_subpartitions  # under _released_lock
        self.on_released: Callable[[ResultPartitionID], None] | None = None
        self.buffer_pool = buffer_pool
        # element batches a same-process consumer may have queued (0: only the pool bounds them)
        self._max_queued_batches = max_queued_batches
        self._should_abort = should_abort
        self._on_consumable = on_consumable
        # The writing side below is owned by the task thread, or by the output flusher while
        # it holds the partition's RecordWriter lock (the task thread is then in user code).
        self._reserved: list[bytearray] = []  # taken ahead by a write that must not wait
        self._segments: list[bytearray | None] = [None] * num_subpartitions  # owner: task thread
        self._positions = [0] * num_subpartitions  # owner: task thread
        self._consumable = False  # owner: task thread
        self._finished = False  # owner: task thread
        self.backpressured_s = 0.0  # owner: task thread (time blocked for buffers)
        self.blocked_since = 0.0  # owner: task thread (perf_counter when the current wait began)
        self.records_out = 0  # owner: task thread (serialized batches)

    @property
    def num_subpartitions(self) -> int:
        """Number of consumers."""
        return len(self.subpartitions)

    def emit_record(self, subpartition: int, payload: bytes) -> None:
        """Write one length-prefixed record into ``subpartition``'s buffers."""
        self.records_out += 1
        self._write(subpartition, len(payload).to_bytes(HEADER_SIZE, "little"))
        self._write(subpartition, payload)

    def _write(self, sub: int, data: bytes) -> None:
        view = memoryview(data)
        remaining = len(view)
        while remaining:
            segment = self._segments[sub]
            if segment is None:
                segment = self._request_segment()
                self._segments[sub] = segment
                self._positions[sub] = 0
            pos = self._positions[sub]
            take = min(len(segment) - pos, remaining)
            start = len(view) - remaining
            segment[pos : pos + take] = view[start : start + take]
            pos += take
            remaining -= take
            self._positions[sub] = pos
            if pos == len(segment):
                self._finish_buffer(sub)

    def emit_objects(self, subpartition: int, payload: object, count: int) -> None:
        """Hand ``payload`` (an element batch or stream element) to a same-process consumer."""
        self.records_out += 1
        limit = self._max_queued_batches
        if limit and count and self.subpartitions[subpartition].backlog() >= limit:
            # backpressure from a same-process consumer that has ``limit`` batches queued
            wait_for_room = self.subpartitions[subpartition].wait_for_room
            self._blocked(lambda: wait_for_room(limit, REQUEST_SLICE_S, self._should_abort))
        segment = self._request_segment()
        self._add(subpartition, Buffer(segment, count, self.buffer_pool, DataType.OBJECTS, payload))

    def try_emit_record(self, subpartition: int, payload: bytes) -> bool:
        """``emit_record`` if every buffer it needs is free now, else nothing and False (the
        output flusher never waits: a producer waiting for buffers is backpressured)."""
        needed = HEADER_SIZE + len(payload)
        segment = self._segments[subpartition]
        room = len(segment) - self._positions[subpartition] if segment is not None else 0
        missing = -(-(needed - room) // self.buffer_pool.segment_size) if needed > room else 0
        if not self._reserve(missing):
            return False
        self.emit_record(subpartition, payload)
        return True

    def try_emit_objects(self, subpartition: int, payload: object, count: int) -> bool:
        """``emit_objects`` if its consumer has room and a buffer is free now, else False."""
        limit = self._max_queued_batches
        if limit and count and self.subpartitions[subpartition].backlog() >= limit:
            return False
        if not self._reserve(1):
            return False
        self.emit_objects(subpartition, payload, count)
        return True

    def _reserve(self, count: int) -> bool:
        """Take ``count`` segments now for the next write, or none and False."""
        while len(self._reserved) < count:
            segment = self.buffer_pool.request_segment()
            if segment is None:
                for taken in self._reserved:
                    self.buffer_pool.recycle(taken)
                self._reserved = []
                return False
            self._reserved.append(segment)
        return True

    def _request_segment(self) -> bytearray:
        if self._reserved:
            return self._reserved.pop()
        segment = self.buffer_pool.request_segment()
        if segment is not None:
            return segment
        return self._blocked(
            lambda: self.buffer_pool.request_segment_blocking(REQUEST_SLICE_S, self._should_abort)
        )

    def _blocked(self, wait: Callable[[], _T]) -> _T:
        """``wait()``, counted as backpressured time (``blocked_since`` while it lasts)."""
        started = time.perf_counter()
        self.blocked_since = started
        try:
            return wait()
        finally:
            self.blocked_since = 0.0
            self.backpressured_s += time.perf_counter() - started

    def backpressured_time(self) -> float:
        """Seconds spent waiting for buffers so far, including a wait in progress (any thread)."""
        since = self.blocked_since
        ongoing = time.perf_counter() - since if since else 0.0
        return self.backpressured_s + ongoing

    def _finish_buffer(self, sub: int) -> None:
        segment = self._segments[sub]
        size = self._positions[sub]
        self._segments[sub] = None
        self._positions[sub] = 0
        if segment is None:
            return
        if size == 0:
            self.buffer_pool.recycle(segment)
            return
        self._add(sub, Buffer(segment, size, self.buffer_pool))

    def _add(self, sub: int, buffer: Buffer) -> None:
        self.subpartitions[sub].add(buffer)
        if not self._consumable and not self.is_blocking:
            self._notify_consumable()

    def _notify_consumable(self) -> None:
        if self._consumable:
            return
        self._consumable = True
        if self._on_consumable is not None:
            self._on_consumable(self.partition_id)

    def flush(self, subpartition: int) -> None:
        """Make a partly filled buffer of ``subpartition`` available to its consumer."""
        if self._positions[subpartition]:
            self._finish_buffer(subpartition)

    def flush_all(self) -> None:
        """Flush every subpartition."""
        for sub in range(len(self.subpartitions)):
            if self._positions[sub]:
                self._finish_buffer(sub)

    def broadcast_event(self, event: object) -> None:
        """Flush, then append ``event`` to every subpartition (events stay in order with data)."""
        for sub in range(len(self.subpartitions)):
            self.flush(sub)
            self._add(sub, serialize_event(event))

    def broadcast_priority_event(self, event: object) -> list[list[tuple[str, Any]]]:
        """Flush, then put ``event`` ahead of the queued data of every subpartition (unaligned
        checkpoints); per subpartition, the overtaken data in order, as
        ``("bytes", data)`` (serialized records, possibly ending or starting mid-record) or
        ``("objects", (pickled payload, count))`` for a same-process consumer."""
        overtaken: list[list[tuple[str, Any]]] = []
        for sub in range(len(self.subpartitions)):
            self.flush(sub)
            buffers = self.subpartitions[sub].add_priority_event(serialize_event(event))
            overtaken.append([_persisted(buffer) for buffer in buffers])
        return overtaken

    def restore_in_flight(self, subpartition: int, kind: str, data: Any) -> None:
        """Queue one buffer a checkpoint kept as in flight (``broadcast_priority_event``),
        before anything this attempt writes: the consumer gets it as it would have."""
        if kind == "bytes":
            self._add(subpartition, Buffer(bytearray(data), len(data), None))
        else:
            payload, count = data
            self._add(subpartition, Buffer(bytearray(), count, None, DataType.OBJECTS, pickle.loads(payload)))

    def finish(self) -> None:
        """End of data: flush and send EndOfPartition to every consumer."""
        if not self._finished:
            self._finished = True
            self.broadcast_event(EndOfPartitionEvent())
            if self.is_blocking:
                for subpartition in self.subpartitions:
                    subpartition.finish()
                self.buffer_pool.lazy_destroy()  # every buffer is in the files now
                self._notify_consumable()

    def request_view(self, index: int, listener: AvailabilityListener, callback: ViewCallback) -> None:
        """``callback(view)`` for subpartition ``index``: at once, or when a blocking one finishes."""
        subpartition = self.subpartitions[index]
        if self.is_blocking:
            subpartition.request_view(listener, callback)
        else:
            callback(subpartition.create_view(listener))

    def cancel_request(self, listener: AvailabilityListener) -> None:
        """Forget requests of ``listener`` waiting for a blocking partition to finish."""
        if self.is_blocking:
            for subpartition in self.subpartitions:
                subpartition.cancel_request(listener)

    def _on_subpartition_released(self, index: int) -> None:
        with self._released_lock:
            self._unreleased -= 1
            done = self._unreleased == 0
        if done:
            # Every consumer is done: a pipelined partition is released once consumed.
            self.buffer_pool.lazy_destroy()
            if self.on_released is not None:
                self.on_released(self.partition_id)

    def release(self) -> None:
        """Drop unconsumed data and free the pool (failure, cancellation, or end of job)."""
        reserved, self._reserved = self._reserved, []
        for spare in reserved:
            self.buffer_pool.recycle(spare)
        for sub, segment in enumerate(self._segments):
            if segment is not None:
                self._segments[sub] = None
                self.buffer_pool.recycle(segment)
        for subpartition in self.subpartitions:
            subpartition.release()
        if self.is_blocking:
            self.buffer_pool.lazy_destroy()
