"""NumberSequenceSource: the numbers ``start..end`` (inclusive), split across subtasks."""

from __future__ import annotations

from typing import Any

from millstream.common.connector import ReaderContext
from millstream.connectors.base import check_reader_state_version

__all__ = ["NumberSequenceReader", "NumberSequenceSource"]


class NumberSequenceSource:
    """A bounded, parallel source of consecutive integers, as Flink's ``NumberSequenceSource``.

    Subtask i of p reads the i-th of p contiguous ranges of the sequence (its split). A
    reader's checkpointed state is what is left of its splits; restored at another
    parallelism, the splits are dealt round-robin to the new subtasks.
    """

    def __init__(self, start: int, end: int) -> None:
        if end < start:
            raise ValueError("end must be >= start")
        self.start = start
        self.end = end

    def is_bounded(self) -> bool:
        """Always bounded."""
        return True

    def create_reader(self, context: ReaderContext) -> NumberSequenceReader:
        """The subtask's contiguous range."""
        total = self.end - self.start + 1
        lo = self.start + total * context.subtask_index // context.parallelism
        hi = self.start + total * (context.subtask_index + 1) // context.parallelism
        return NumberSequenceReader([(lo, hi)])

    def rescale_reader_states(self, states: list[Any], parallelism: int) -> list[Any]:
        """The unread ranges of the old subtasks dealt round-robin to ``parallelism`` readers."""
        ranges: list[tuple[int, int]] = []
        for index, state in enumerate(states):
            if state is None:
                raise ValueError(f"NumberSequenceSource: the reader state of subtask {index} is missing")
            check_reader_state_version(state)
            ranges.extend(tuple(r) for r in state["ranges"])
        return [{"version": 1, "ranges": ranges[index::parallelism]} for index in range(parallelism)]


class NumberSequenceReader:
    """Reads its ranges ``[lo, hi)`` in order."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self._ranges = [(lo, hi) for lo, hi in ranges if lo < hi]
        self.available_at = 0.0

    def poll(self, max_records: int) -> list[Any] | None:
        """The next numbers of the current range."""
        ranges = self._ranges
        if not ranges:
            return None
        lo, hi = ranges[0]
        stop = min(hi, lo + max_records)
        if stop == hi:
            ranges.pop(0)
        else:
            ranges[0] = (stop, hi)
        return list(range(lo, stop))

    def snapshot_state(self) -> dict[str, Any]:
        """The ranges still to read."""
        return {"version": 1, "ranges": list(self._ranges)}

    def restore_state(self, state: dict[str, Any]) -> None:
        """Read the checkpointed ranges."""
        check_reader_state_version(state)
        if "returned" in state:  # a state of before ranges: how many numbers were returned
            skip = int(state["returned"])
            lo, hi = self._ranges[0] if self._ranges else (0, 0)
            self._ranges = [(min(lo + skip, hi), hi)] if lo + skip < hi else []
            return
        self._ranges = [(int(lo), int(hi)) for lo, hi in state["ranges"] if lo < hi]

    def close(self) -> None:
        """Nothing to release."""
