"""NumberSequenceSource: the numbers ``start..end`` (inclusive), split across subtasks."""

from __future__ import annotations

from millstream.common.connector import ReaderContext
from millstream.connectors.base import IteratorReader

__all__ = ["NumberSequenceSource"]


class NumberSequenceSource:
    """A bounded, parallel source of consecutive integers, as Flink's ``NumberSequenceSource``.

    Subtask i of p reads the i-th of p contiguous ranges of the sequence.
    """

    def __init__(self, start: int, end: int) -> None:
        if end < start:
            raise ValueError("end must be >= start")
        self.start = start
        self.end = end

    def is_bounded(self) -> bool:
        """Always bounded."""
        return True

    def create_reader(self, context: ReaderContext) -> IteratorReader:
        """The subtask's contiguous range."""
        total = self.end - self.start + 1
        lo = self.start + total * context.subtask_index // context.parallelism
        hi = self.start + total * (context.subtask_index + 1) // context.parallelism
        return IteratorReader(iter(range(lo, hi)))
