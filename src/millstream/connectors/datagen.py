"""DataGeneratorSource: ``generator_function(index)`` for index 0..count-1, optionally rate limited.

Mirrors Flink's ``DataGeneratorSource(generatorFunction, count, rateLimiterStrategy, type)``:
indexes are split into contiguous ranges across subtasks; ``records_per_second`` is the
total rate, shared equally by the subtasks. ``count=None`` makes the source unbounded.
"""

from __future__ import annotations

import time
from typing import Any

from millstream.common.connector import ReaderContext
from millstream.connectors.base import check_reader_state_version

__all__ = ["DataGeneratorSource", "GeneratorReader"]


class DataGeneratorSource:
    """A parallel generator source."""

    def __init__(
        self,
        generator_function: Any,
        count: int | None,
        records_per_second: float | None = None,
        type_info: Any = None,
    ) -> None:
        if count is not None and count < 0:
            raise ValueError("count must be >= 0")
        if records_per_second is not None and records_per_second <= 0:
            raise ValueError("records_per_second must be positive")
        self.generator_function = getattr(generator_function, "map", generator_function)
        self.count = count
        self.records_per_second = records_per_second
        self.type_info = type_info

    def is_bounded(self) -> bool:
        """Bounded when a count is given."""
        return self.count is not None

    def create_reader(self, context: ReaderContext) -> GeneratorReader:
        """The subtask's range of indexes."""
        if self.count is None:
            lo, hi = context.subtask_index, None
            step = context.parallelism
        else:
            lo = self.count * context.subtask_index // context.parallelism
            hi = self.count * (context.subtask_index + 1) // context.parallelism
            step = 1
        rate = None
        if self.records_per_second is not None:
            rate = self.records_per_second / context.parallelism
        return GeneratorReader(self.generator_function, lo, hi, step, rate)


class GeneratorReader:
    """Calls the generator function for its indexes, at most ``rate`` per second."""

    def __init__(self, fn: Any, lo: int, hi: int | None, step: int, rate: float | None) -> None:
        self._fn = fn
        self._next = lo
        self._hi = hi
        self._step = step
        self._rate = rate
        self._started = time.monotonic()
        self._emitted = 0
        self.available_at = 0.0

    def poll(self, max_records: int) -> list[Any] | None:
        """The next indexes' values; [] while the rate limit says wait."""
        if self._hi is not None and self._next >= self._hi:
            return None
        n = max_records
        if self._rate is not None:
            now = time.monotonic()
            allowed = int((now - self._started) * self._rate) + 1 - self._emitted
            if allowed <= 0:
                self.available_at = self._started + (self._emitted / self._rate)
                return []
            n = min(n, allowed)
        if self._hi is not None:
            n = min(n, (self._hi - self._next + self._step - 1) // self._step)
        fn = self._fn
        start = self._next
        batch = [fn(i) for i in range(start, start + n * self._step, self._step)]
        self._next = start + n * self._step
        self._emitted += n
        return batch

    def snapshot_state(self) -> dict[str, int]:
        """The next index and how many values were returned."""
        return {"version": 1, "next": self._next, "emitted": self._emitted}

    def restore_state(self, state: dict[str, int]) -> None:
        """Continue at the next index; the rate limit counts from the restored values."""
        check_reader_state_version(state)
        self._next = int(state["next"])
        self._emitted = int(state["emitted"])
        if self._rate is not None:
            self._started = time.monotonic() - self._emitted / self._rate

    def close(self) -> None:
        """Nothing to release."""
