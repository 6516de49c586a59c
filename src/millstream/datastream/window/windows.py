"""Windows: ``TimeWindow`` ([start, end), ending at ``max_timestamp() = end - 1``), ``CountWindow``,
``GlobalWindow``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any, TypeVar

from millstream.common.time import MAX_TIMESTAMP

__all__ = ["CountWindow", "GlobalWindow", "TimeWindow", "Window"]

T = TypeVar("T")
W = TypeVar("W")
W2 = TypeVar("W2")


def _ms(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    return int(value.to_milliseconds())


# -- windows ------------------------------------------------------------------------------


class Window(ABC):
    """A finite bucket of elements; all its elements have arrived once time passes max_timestamp."""

    @abstractmethod
    def max_timestamp(self) -> int:
        """The largest timestamp that still belongs to this window."""


class TimeWindow(Window):
    """The interval ``[start, end)`` (epoch ms)."""

    __slots__ = ("_hash", "end", "start")

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end
        self._hash = hash((start, end))  # windows are dict keys on the per-record path

    def max_timestamp(self) -> int:
        """``end - 1``."""
        return self.end - 1

    def intersects(self, other: TimeWindow) -> bool:
        """True if the windows overlap or touch."""
        return self.start <= other.end and self.end >= other.start

    def cover(self, other: TimeWindow) -> TimeWindow:
        """The smallest window containing both."""
        return TimeWindow(min(self.start, other.start), max(self.end, other.end))

    @staticmethod
    def get_window_start_with_offset(timestamp: int, offset: int, window_size: int) -> int:
        """Start of the window of size ``window_size`` (aligned to ``offset``) holding ``timestamp``."""
        return timestamp - (timestamp - offset + window_size) % window_size

    @staticmethod
    def merge_windows(windows: Iterable[TimeWindow], callback: Any) -> None:
        """Merge overlapping (or touching) windows: ``callback.merge(to_be_merged, result)``."""
        merged: list[tuple[TimeWindow, set[TimeWindow]]] = []
        current: TimeWindow | None = None
        members: set[TimeWindow] = set()
        for candidate in sorted(windows, key=lambda w: (w.start, w.end)):
            if current is None:
                current, members = candidate, {candidate}
            elif current.intersects(candidate):
                current = current.cover(candidate)
                members.add(candidate)
            else:
                merged.append((current, members))
                current, members = candidate, {candidate}
        if current is not None:
            merged.append((current, members))
        for result, to_merge in merged:
            if len(to_merge) > 1:
                _merge(callback, to_merge, result)

    def __eq__(self, other: object) -> bool:
        return type(other) is TimeWindow and other.start == self.start and other.end == self.end

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: TimeWindow) -> bool:
        return (self.start, self.end) < (other.start, other.end)

    def __reduce__(self) -> tuple[Any, tuple[int, int]]:
        return (TimeWindow, (self.start, self.end))

    def __repr__(self) -> str:
        return f"TimeWindow(start={self.start}, end={self.end})"


def _merge(callback: Any, to_merge: Any, result: Any) -> None:
    if hasattr(callback, "merge"):
        callback.merge(to_merge, result)
    else:
        callback(to_merge, result)


class CountWindow(Window):
    """A count window, identified by its id."""

    __slots__ = ("id",)

    def __init__(self, id: int) -> None:
        self.id = id

    def max_timestamp(self) -> int:
        """Count windows never end in time."""
        return MAX_TIMESTAMP

    def __eq__(self, other: object) -> bool:
        return type(other) is CountWindow and other.id == self.id

    def __hash__(self) -> int:
        return hash(("count", self.id))

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (CountWindow, (self.id,))

    def __repr__(self) -> str:
        return f"CountWindow(id={self.id})"


class GlobalWindow(Window):
    """The single window of ``GlobalWindows``."""

    __slots__ = ()

    @staticmethod
    def get() -> GlobalWindow:
        """The global window."""
        return _GLOBAL_WINDOW

    def max_timestamp(self) -> int:
        """Never ends."""
        return MAX_TIMESTAMP

    def __eq__(self, other: object) -> bool:
        return type(other) is GlobalWindow

    def __hash__(self) -> int:
        return 0

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return (GlobalWindow.get, ())

    def __repr__(self) -> str:
        return "GlobalWindow"


_GLOBAL_WINDOW = GlobalWindow()
