"""DataGeneratorSource: ``generator_function(index)`` for index 0..count-1, optionally rate limited.

Mirrors Flink's ``DataGeneratorSource(generatorFunction, count, rateLimiterStrategy, type)``:
indexes are split into contiguous ranges across subtasks; ``records_per_second`` is the
total rate, shared equally by the subtasks. ``count=None`` makes the source unbounded.
``InterleavedDataGeneratorSource`` deals the indexes round-robin instead, as the legacy source
behind the ``datagen`` table connector does.
"""

from __future__ import annotations

import time
from typing import Any

from millstream.common.connector import ReaderContext
from millstream.connectors.base import check_reader_state_version

__all__ = ["DataGeneratorSource", "GeneratorReader", "InterleavedDataGeneratorSource"]


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

    def get_produced_type(self) -> Any:
        """The generated elements' type, when given (Flink's ResultTypeQueryable)."""
        return self.type_info

    def create_reader(self, context: ReaderContext) -> GeneratorReader:
        """The subtask's range of indexes (its split)."""
        split: tuple[int, int | None, int]
        if self.count is None:
            split = (context.subtask_index, None, context.parallelism)
        else:
            lo = self.count * context.subtask_index // context.parallelism
            hi = self.count * (context.subtask_index + 1) // context.parallelism
            split = (lo, hi, 1)
        rate = None
        if self.records_per_second is not None:
            rate = self.records_per_second / context.parallelism
        return GeneratorReader(self.generator_function, [split], rate)

    def rescale_reader_states(self, states: list[Any], parallelism: int) -> list[Any]:
        """The unread splits of the old subtasks dealt round-robin to ``parallelism`` readers
        (a reader with no split idles, as a Flink reader with none does); the rate stays the
        total rate, shared by the new subtasks."""
        splits: list[tuple[int, int | None, int]] = []
        for index, state in enumerate(states):
            if state is None:
                raise ValueError(f"DataGeneratorSource: the reader state of subtask {index} is missing")
            check_reader_state_version(state)
            if "splits" not in state:
                raise ValueError(
                    "DataGeneratorSource: a reader state of an older millstream (without splits) "
                    "cannot be restored at another parallelism"
                )
            splits.extend(tuple(split) for split in state["splits"])
        return [
            {"version": 1, "splits": splits[index::parallelism], "emitted": 0} for index in range(parallelism)
        ]


class InterleavedDataGeneratorSource(DataGeneratorSource):
    """The source of the ``datagen`` table connector: subtask ``k`` of ``p`` generates the
    indexes ``k, k + p, k + 2p ...`` below ``count``, as Flink's legacy ``DataGeneratorSource``
    with a ``SequenceGenerator`` deals the values of a sequence (and each subtask's share of
    ``number-of-rows`` is ``count // p``, one more for the first ``count % p``). A GROUP BY
    over the rows then sees each subtask's values in the order Flink's would."""

    def create_reader(self, context: ReaderContext) -> GeneratorReader:
        """The subtask's indexes: every ``parallelism``-th from its own index."""
        rate = None
        if self.records_per_second is not None:
            rate = self.records_per_second / context.parallelism
        split = (context.subtask_index, self.count, context.parallelism)
        return GeneratorReader(self.generator_function, [split], rate)


class _IndexSplit:
    """Indexes ``next, next + step, ...`` before ``end`` (None: unbounded)."""

    __slots__ = ("end", "next", "step")

    def __init__(self, next_index: int, end: int | None, step: int) -> None:
        self.next = int(next_index)
        self.end = None if end is None else int(end)
        self.step = int(step)

    def done(self) -> bool:
        return self.end is not None and self.next >= self.end

    def state(self) -> tuple[int, int | None, int]:
        return (self.next, self.end, self.step)


class GeneratorReader:
    """Calls the generator function for the indexes of its splits, at most ``rate`` per second.

    A split is ``(next index, end or None, step)``; bounded splits are read one after the
    other, unbounded ones (``end`` None) in turns, a batch each.
    """

    def __init__(self, fn: Any, splits: list[tuple[int, int | None, int]], rate: float | None) -> None:
        self._fn = fn
        self._splits = [_IndexSplit(*split) for split in splits]
        self._rate = rate
        self._started = time.monotonic()
        self._emitted = 0
        self.available_at = 0.0

    def poll(self, max_records: int) -> list[Any] | None:
        """The next indexes' values; [] while the rate limit says wait."""
        splits = self._splits
        while splits and splits[0].done():
            splits.pop(0)
        if not splits:
            return None
        n = max_records
        if self._rate is not None:
            now = time.monotonic()
            allowed = int((now - self._started) * self._rate) + 1 - self._emitted
            if allowed <= 0:
                self.available_at = self._started + (self._emitted / self._rate)
                return []
            n = min(n, allowed)
        split = splits[0]
        start, step = split.next, split.step
        if split.end is not None:
            n = min(n, (split.end - start + step - 1) // step)
        elif len(splits) > 1:
            splits.append(splits.pop(0))  # unbounded splits take turns
        fn = self._fn
        batch = [fn(i) for i in range(start, start + n * step, step)]
        split.next = start + n * step
        self._emitted += n
        return batch

    def snapshot_state(self) -> dict[str, Any]:
        """The splits' next indexes and how many values were returned."""
        return {"version": 1, "splits": [split.state() for split in self._splits], "emitted": self._emitted}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Continue at the next indexes; the rate limit counts from the restored values."""
        check_reader_state_version(state)
        if "splits" in state:
            self._splits = [_IndexSplit(*split) for split in state["splits"]]
        elif self._splits:  # a state of before splits: the next index of the one split
            self._splits[0].next = int(state["next"])
        self._emitted = int(state["emitted"])
        if self._rate is not None:
            self._started = time.monotonic() - self._emitted / self._rate

    def close(self) -> None:
        """Nothing to release."""
