"""Window definitions of event-time and processing-time tables: TUMBLE, HOP, CUMULATE and
SESSION as sizes in ms, the slices a window is cut into (Flink's slicing windows), and the
window columns a windowed result carries."""

from __future__ import annotations

import math
from dataclasses import dataclass

from millstream.table.common.types import DataType

__all__ = ["WindowSpec", "window_output_columns", "window_time_type"]


@dataclass(frozen=True)
class WindowSpec:
    """A window definition: TUMBLE(size), HOP(slide, size), CUMULATE(step, size) or SESSION(gap);
    sizes in ms."""

    kind: str
    size: int
    slide: int = 0  # HOP: the slide; CUMULATE: the step
    offset: int = 0

    def __post_init__(self) -> None:
        if self.size <= 0 or (self.kind in ("HOP", "CUMULATE") and self.slide <= 0):
            raise ValueError(
                f"{self.kind} window needs positive sizes, got size={self.size} slide={self.slide}"
            )
        if self.kind == "CUMULATE" and self.size % self.slide:
            raise ValueError("CUMULATE's max size must be a multiple of its step")

    @property
    def slice_size(self) -> int:
        """The length of the slices windows are made of."""
        if self.kind == "HOP":
            return math.gcd(self.size, self.slide)
        if self.kind == "CUMULATE":
            return self.slide
        return self.size

    def slice_end(self, ts: int) -> int:
        """The end of the slice holding time ``ts``."""
        size = self.slice_size
        start = ts - (ts - self.offset) % size
        return start + size

    def window_ends(self, slice_end: int) -> list[int]:
        """The ends of the windows the slice ending at ``slice_end`` belongs to, ascending."""
        if self.kind == "TUMBLE":
            return [slice_end]
        if self.kind == "HOP":  # windows start at multiples of the slide (plus the offset)
            slice_start = slice_end - self.slice_size
            lowest = slice_end - self.size
            first_start = lowest + (self.offset - lowest) % self.slide
            return [s + self.size for s in range(first_start, slice_start + 1, self.slide)]
        window_start = (slice_end - 1) - ((slice_end - 1 - self.offset) % self.size)
        return list(range(slice_end, window_start + self.size + 1, self.slide))

    def window_start(self, window_end: int) -> int:
        """The start of the window ending at ``window_end``."""
        if self.kind == "CUMULATE":
            return (window_end - 1) - ((window_end - 1 - self.offset) % self.size)
        return window_end - self.size

    def windows_of(self, ts: int) -> list[tuple[int, int]]:
        """The (start, end) windows a row at ``ts`` is assigned to (the windowing TVF)."""
        if self.kind == "TUMBLE":
            start = ts - (ts - self.offset) % self.size
            return [(start, start + self.size)]
        if self.kind == "HOP":
            last_start = ts - (ts - self.offset) % self.slide
            starts = range(last_start, ts - self.size, -self.slide)
            return [(s, s + self.size) for s in reversed(list(starts))]
        start = ts - (ts - self.offset) % self.size
        first_end = self.slice_end(ts)
        return [(start, end) for end in range(first_end, start + self.size + 1, self.slide)]


def window_time_type(rowtime_type: DataType) -> DataType:
    """The type of window_start / window_end / window_time: the rowtime's kind, precision 3."""
    root = "TIMESTAMP_LTZ" if rowtime_type.root == "TIMESTAMP_LTZ" else "TIMESTAMP"
    return DataType(root, False, 3)


def window_output_columns(rowtime_type: DataType) -> tuple[list[str], list[DataType]]:
    """window_start, window_end, window_time and their types."""
    t = window_time_type(rowtime_type)
    return ["window_start", "window_end", "window_time"], [t, t, t]
