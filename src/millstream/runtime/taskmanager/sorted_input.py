"""BATCH execution: a keyed operator reads its input sorted by key, one key at a time.

As Flink's ``SortingDataInput`` / ``MultiInputSortingDataInput`` with the
``BatchExecutionKeyedStateBackend`` and ``BatchExecutionInternalTimeService``: while
the task reads its input, records of the keyed inputs are only collected (watermarks
and statuses of those inputs are dropped: BATCH needs none). At the end of input the
records are replayed grouped by key (keys ordered by their serialized bytes, records of
a key by timestamp, then arrival; records of both inputs of a two-input operator
interleave by timestamp). When the key changes the operator's ``end_of_key`` fires
every timer of the finished key and drops its state, so only one key's state is held
at a time. Finally the maximum watermark goes to each sorted input.

Memory is bounded: the collector keeps at most ``memory_records`` records, then sorts
them and spills the run to a temporary file; the replay merges the sorted runs
(``heapq.merge``) while reading them back in chunks.

Inputs that are not keyed (the broadcast side of a broadcast connection) pass through
unsorted as they arrive; the task reads them before the keyed input (see
``StreamTaskNetworkInput.prioritize``).
"""

from __future__ import annotations

import heapq
import os
import pickle
import tempfile
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from millstream.runtime.location import UserFunctionError
from millstream.runtime.operators.elements import MAX_WATERMARK, MIN_TIMESTAMP, Watermark, WatermarkStatus
from millstream.runtime.taskmanager.input_processor import InputHandler

__all__ = ["DEFAULT_MEMORY_RECORDS", "SortedKeyedInput"]

DEFAULT_MEMORY_RECORDS = 500_000
_CHUNK = 4096
_DUMPS = pickle.dumps
_PROTOCOL = pickle.HIGHEST_PROTOCOL

# (serialized key, timestamp for ordering, arrival sequence, input index, key, timestamp, value)
Record = tuple[bytes, int, int, int, Any, Any, Any]


def _ignore_watermark(watermark: Watermark) -> None:
    return None


def _ignore_status(status: WatermarkStatus) -> None:
    return None


class _Run:
    """A sorted run spilled to a temporary file, read back chunk by chunk."""

    def __init__(self, directory: str | None, records: list[Record]) -> None:
        fd, self.path = tempfile.mkstemp(prefix="millstream-sort-", suffix=".run", dir=directory)
        with os.fdopen(fd, "wb") as f:
            for start in range(0, len(records), _CHUNK):
                pickle.dump(records[start : start + _CHUNK], f, protocol=_PROTOCOL)

    def __iter__(self) -> Iterator[Record]:
        with open(self.path, "rb") as f:
            yield from _chunks(f)

    def delete(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def _chunks(f: BinaryIO) -> Iterator[Record]:
    while True:
        try:
            chunk = pickle.load(f)
        except EOFError:
            return
        yield from chunk


class SortedKeyedInput:
    """Collects the keyed inputs of a task's head operator and replays them sorted by key."""

    def __init__(
        self,
        operator: Any,
        handlers: list[InputHandler],
        key_selectors: list[Any],
        memory_records: int = DEFAULT_MEMORY_RECORDS,
        spill_directory: str | None = None,
    ) -> None:
        self._operator = operator
        self._targets = handlers
        self._key_selectors = key_selectors  # per input: a key selector, or None (not sorted)
        self._memory_records = max(1, memory_records)
        self._spill_directory = spill_directory
        self._buffer: list[Record] = []  # owner: task thread
        self._runs: list[_Run] = []
        self._seq = 0
        self.records_sorted = 0
        self.spilled_runs = 0

    def handlers(self) -> list[InputHandler]:
        """What the network input calls: collectors for keyed inputs, the operator for the rest."""
        out = []
        for index, (handler, selector) in enumerate(zip(self._targets, self._key_selectors, strict=True)):
            if selector is None:
                out.append(handler)
            else:
                out.append(InputHandler(self._collector(index, selector), _ignore_watermark, _ignore_status))
        return out

    def _collector(self, input_index: int, key_selector: Any) -> Callable[[list[Any], Any], None]:
        dumps = _DUMPS
        protocol = _PROTOCOL

        def collect(values: list[Any], timestamps: list[int] | None) -> None:
            buffer = self._buffer
            seq = self._seq
            index = 0
            try:
                for index, v in enumerate(values):
                    key = key_selector(v)
                    ts = None if timestamps is None else timestamps[index]
                    order = MIN_TIMESTAMP if ts is None else ts
                    buffer.append((dumps(key, protocol), order, seq + index, input_index, key, ts, v))
            except Exception as err:
                raise UserFunctionError(
                    self._operator.name,
                    self._operator.context.location,
                    self.records_sorted + index,
                    values[index],
                    message="key selector raised",
                ) from err
            self._seq = seq + len(values)
            self.records_sorted += len(values)
            if len(buffer) >= self._memory_records:
                self._spill()

        return collect

    def _spill(self) -> None:
        self._buffer.sort()
        self._runs.append(_Run(self._spill_directory, self._buffer))
        self._buffer = []
        self.spilled_runs += 1

    def _sorted(self) -> Iterator[Record]:
        self._buffer.sort()
        if not self._runs:
            return iter(self._buffer)
        return heapq.merge(*self._runs, self._buffer)

    def replay(self, cancelled: Callable[[], bool] = lambda: False) -> None:
        """End of input: every key's records in order, ``end_of_key`` after each key."""
        operator = self._operator
        targets = [h.process_batch for h in self._targets]
        try:
            current: bytes | None = None
            values: list[Any] = []
            timestamps: list[Any] = []
            batch_input = -1
            for key_bytes, _, _, input_index, _, ts, value in self._sorted():
                if key_bytes != current or input_index != batch_input or len(values) >= _CHUNK:
                    if values:
                        targets[batch_input](values, _batch_timestamps(timestamps))
                        values, timestamps = [], []
                    if key_bytes != current:
                        if current is not None:
                            operator.end_of_key()
                            if cancelled():
                                return
                        current = key_bytes
                    batch_input = input_index
                values.append(value)
                timestamps.append(ts)
            if values:
                targets[batch_input](values, _batch_timestamps(timestamps))
            if current is not None:
                operator.end_of_key()
        finally:
            self._buffer = []
            for run in self._runs:
                run.delete()
            self._runs = []
        for handler, selector in zip(self._targets, self._key_selectors, strict=True):
            if selector is not None:
                handler.process_watermark(MAX_WATERMARK)

    def release(self) -> None:
        """Delete spilled runs (failure or cancellation)."""
        for run in self._runs:
            run.delete()
        self._runs = []
        self._buffer = []


def _batch_timestamps(timestamps: list[Any]) -> list[int] | None:
    if all(t is None for t in timestamps):
        return None
    return [MIN_TIMESTAMP if t is None else t for t in timestamps]
