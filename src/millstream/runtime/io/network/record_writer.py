"""RecordWriter: routes element batches to channels, serializes them into the partition.

::

    operator --emit(values, ts)--> RecordWriter --ChannelSelector--> pending[channel]
        pending[channel] reaches the batch threshold --pickle--> ResultPartition.emit_record

Elements wait in a per-channel list until a serialized batch would be about
``TARGET_BATCH_BYTES`` (the threshold adapts to the observed element size), then go to
the partition as one length-prefixed record. For a consumer in the same process the
batch goes as an object buffer instead (``LOCAL_BATCH`` elements, no pickling).
``flush_all`` (buffer timeout, end of input, events) serializes what is pending and
hands partly filled buffers to the consumers.

Two threads write: the task thread, and the TaskManager's output flusher (``try_flush``)
when the task has not flushed for a while (it is in a slow user function, say). ``_lock``
keeps them apart; the flusher only tries it, never waits for it or for a buffer.

Per-record path: elements are appended to lists; pickling and buffer writes happen per
batch (one uncontended lock per batch). Measured by benchmarks/word_count.py.
"""

from __future__ import annotations

import io
import pickle
import threading
import time
from typing import Any

import cloudpickle

from millstream.runtime.io.network.partition.result_partition import ResultPartition
from millstream.runtime.io.network.serialization import HEADER_SIZE
from millstream.runtime.partitioning import ChannelSelector

__all__ = ["RecordWriter", "dumps_batch", "flush_all"]

TARGET_BATCH_BYTES = 16 * 1024
MIN_BATCH = 8
MAX_BATCH = 4096
INITIAL_BATCH = 256
LOCAL_BATCH = 1024


def dumps_batch(obj: Any) -> bytes:
    """Pickle a record batch.

    Fast mode skips the memo table (half the cost for batches of small records); objects
    that need the memo (cycles) or plain pickle cannot handle (lambdas ...) fall back.
    """
    out = io.BytesIO()
    pickler = pickle.Pickler(out, 5)
    pickler.fast = True
    try:
        pickler.dump(obj)
        return out.getvalue()
    except (ValueError, RecursionError, KeyError):
        # KeyError: fast mode has no memo, yet CPython's frozenset pickling looks into it.
        return pickle.dumps(obj, protocol=5)
    except (pickle.PicklingError, AttributeError, TypeError):
        data: bytes = cloudpickle.dumps(obj, protocol=5)
        return data


class RecordWriter:
    """Writes one operator output into one ResultPartition.

    ``local[c]`` marks channels whose consumer runs in this process: their batches travel
    as object buffers; the others are pickled into byte buffers.
    """

    def __init__(
        self, partition: ResultPartition, selector: ChannelSelector, local: list[bool] | None = None
    ) -> None:
        n = partition.num_subpartitions
        self.partition = partition
        self.selector = selector
        self._local = list(local) if local is not None else [False] * n
        self._values: list[list[Any]] = [[] for _ in range(n)]  # owner: task thread
        self._timestamps: list[list[int] | None] = [None] * n  # owner: task thread
        self._threshold = [
            LOCAL_BATCH if is_local else INITIAL_BATCH for is_local in self._local
        ]  # owner: task thread
        # The fields above and below and the partition's writing side: under _lock, taken by
        # the task thread in every public method and tried by the output flusher.
        self._lock = threading.Lock()
        self._dirty = False  # anything written since the last flush
        self._flushed_at = time.monotonic()  # when the last flush began
        self.records_out = 0  # elements

    def emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        """Route and buffer a batch of elements (timestamps parallel to values, or None)."""
        with self._lock:
            self._emit(values, timestamps)

    def _emit(self, values: list[Any], timestamps: list[int] | None) -> None:
        self.records_out += len(values)
        pending_values = self._values
        pending_timestamps = self._timestamps
        thresholds = self._threshold
        for channel, vals, ts in self.selector.route(values, timestamps):
            pending = pending_values[channel]
            if not pending:
                if len(vals) >= thresholds[channel] and self._local[channel]:
                    # A full batch for a local consumer goes as it is: no copy.
                    self._emit_chunks(channel, vals, ts)
                    continue
            elif (ts is None) != (pending_timestamps[channel] is None):
                self._serialize(channel)
                pending = pending_values[channel]
            if ts is not None:
                if pending_timestamps[channel] is None:
                    pending_timestamps[channel] = []
                pending_timestamps[channel].extend(ts)  # type: ignore[union-attr]
            pending.extend(vals)
            if len(pending) >= thresholds[channel]:
                self._serialize(channel)
        self._dirty = True

    def _serialize(self, channel: int) -> None:
        values = self._values[channel]
        if not values:
            return
        timestamps = self._timestamps[channel]
        self._values[channel] = []
        self._timestamps[channel] = None
        self._emit_chunks(channel, values, timestamps)

    def _emit_chunks(self, channel: int, values: list[Any], timestamps: list[int] | None) -> None:
        threshold = self._threshold[channel]
        partition = self.partition
        if self._local[channel]:
            if len(values) <= LOCAL_BATCH:
                partition.emit_objects(channel, (values, timestamps), len(values))
                return
            for start in range(0, len(values), LOCAL_BATCH):
                ts_chunk = timestamps[start : start + LOCAL_BATCH] if timestamps is not None else None
                chunk = values[start : start + LOCAL_BATCH]
                partition.emit_objects(channel, (chunk, ts_chunk), len(chunk))
            return
        emit_record = partition.emit_record
        for start in range(0, len(values), threshold):
            chunk = values[start : start + threshold]
            ts_chunk = timestamps[start : start + threshold] if timestamps is not None else None
            payload = dumps_batch((chunk, ts_chunk))
            emit_record(channel, payload)
        per_element = max(1, len(payload) // len(chunk))
        self._threshold[channel] = max(MIN_BATCH, min(MAX_BATCH, TARGET_BATCH_BYTES // per_element))

    def emit_element(self, element: Any) -> None:
        """Send a watermark or watermark status to every channel, after pending records."""
        with self._lock:
            self._emit_element(element)

    def _emit_element(self, element: Any) -> None:
        payload = None
        for channel in range(self.partition.num_subpartitions):
            self._serialize(channel)
            if self._local[channel]:
                self.partition.emit_objects(channel, element, 0)
            else:
                payload = payload or dumps_batch(element)
                self.partition.emit_record(channel, payload)
        self._dirty = True

    def flush_all(self) -> None:
        """Serialize pending elements and hand partly filled buffers to consumers."""
        if not self._dirty:
            return
        with self._lock:
            self._flushed_at = time.monotonic()
            for channel in range(len(self._values)):
                self._serialize(channel)
            self.partition.flush_all()
            self._dirty = False

    def try_flush(self, now: float, age: float) -> bool:
        """The output flusher's flush (its thread): if something was written and nobody
        flushed for ``age`` seconds, hand it to the consumers, unless the task thread is
        writing right now or a channel has no buffer free (that consumer is backpressured:
        its elements wait for the task thread). True if it flushed."""
        if not self._dirty or now - self._flushed_at < age:
            return False
        if not self._lock.acquire(blocking=False):
            return False
        try:
            self._flushed_at = now
            pending = False
            for channel in range(len(self._values)):
                pending = not self._serialize_now(channel) or pending
            self.partition.flush_all()
            self._dirty = pending
            return True
        finally:
            self._lock.release()

    def _serialize_now(self, channel: int) -> bool:
        """Hand a channel's pending elements (fewer than a batch) to the partition if it takes
        them without waiting; False if they stay pending."""
        values = self._values[channel]
        if not values:
            return True
        batch = (values, self._timestamps[channel])
        if self._local[channel]:
            written = self.partition.try_emit_objects(channel, batch, len(values))
        else:
            written = self.partition.try_emit_record(channel, dumps_batch(batch))
        if written:
            self._values[channel] = []
            self._timestamps[channel] = None
        return written

    def broadcast_priority_event(self, event: object) -> list[list[tuple[str, Any]]]:
        """Serialize what is pending, then send ``event`` ahead of the queued data of every
        channel (an unaligned barrier); the overtaken data, per channel (see
        ``ResultPartition.broadcast_priority_event``)."""
        with self._lock:
            for channel in range(len(self._values)):
                self._serialize(channel)
            return self.partition.broadcast_priority_event(event)

    def restore_in_flight(self, outputs: list[list[tuple[str, Any]]]) -> None:
        """Queue the in-flight output an unaligned checkpoint kept, per channel, before anything
        new; element batches kept for a same-process consumer that is now remote are framed
        as serialized records."""
        with self._lock:
            self._restore_in_flight(outputs)

    def _restore_in_flight(self, outputs: list[list[tuple[str, Any]]]) -> None:
        for channel, items in enumerate(outputs):
            for kind, data in items:
                if kind == "objects" and not self._local[channel]:
                    record = dumps_batch(pickle.loads(data[0]))
                    kind, data = "bytes", len(record).to_bytes(HEADER_SIZE, "little") + record
                self.partition.restore_in_flight(channel, kind, data)

    def broadcast_event(self, event: object) -> None:
        """Flush, then send ``event`` to every channel."""
        with self._lock:
            for channel in range(len(self._values)):
                self._serialize(channel)
            self.partition.broadcast_event(event)

    def finish(self) -> None:
        """Flush everything and end the partition."""
        with self._lock:
            for channel in range(len(self._values)):
                self._serialize(channel)
            self.partition.finish()
            self._dirty = False


def flush_all(writers: list[RecordWriter]) -> None:
    """Hand every writer's pending output to its consumers."""
    for writer in writers:
        writer.flush_all()
