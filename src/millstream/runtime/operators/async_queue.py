"""The stream element queues of the async wait operator (Flink's ``StreamElementQueue``).

A queue holds the elements an ``AsyncWaitOperator`` took in and has not emitted yet: records
whose call is in flight or whose results wait for their turn, and markers (watermarks and
watermark statuses). It holds at most ``capacity`` of them (markers count, as in Flink); the
operator waits for room before it adds one, which is the operator's back-pressure.

``OrderedStreamElementQueue``: elements leave in the order they came, each once it and
every element before it completed.

``UnorderedStreamElementQueue``: records leave as they complete, but never across a
marker. The queue is a list of segments (Flink's): records go into the last segment; a
marker gets a segment of its own, followed by a new segment for the records after it.
Only the first segment emits; it is dropped once empty, so a watermark leaves after every
record before it and before any record after it.

Both are owned by the task thread (the event loop only hands results back through the
operator); ``elements()`` lists what a checkpoint keeps, in an order that puts each
marker back between the records it separated.
"""

from __future__ import annotations

from collections import deque
from typing import Any

__all__ = [
    "RECORD",
    "STATUS",
    "WATERMARK",
    "OrderedStreamElementQueue",
    "QueueEntry",
    "StreamElementQueue",
    "UnorderedStreamElementQueue",
]


RECORD, WATERMARK, STATUS = "record", "watermark", "status"


class QueueEntry:
    """A record (``value`` with ``timestamp``, None: none, taken in at ``position``) whose
    ``results`` are set once it completed, or a marker: a watermark (``value`` its timestamp)
    or a watermark status (``value`` the status), complete from the start."""

    __slots__ = ("done", "kind", "position", "results", "segment", "timestamp", "value")

    def __init__(self, kind: str, value: Any, timestamp: int | None = None, position: int = -1) -> None:
        self.kind = kind
        self.value = value
        self.timestamp = timestamp
        self.position = position
        self.done = kind != RECORD
        self.results: list[Any] = []
        self.segment: _Segment | None = None

    def element(self) -> tuple[Any, ...]:
        """What a checkpoint keeps of it: ``("record", value, timestamp)``, ``("watermark",
        timestamp)`` or ``("status", status)``."""
        if self.kind == RECORD:
            return (RECORD, self.value, self.timestamp)
        return (self.kind, self.value)

    def __repr__(self) -> str:
        return f"QueueEntry({self.kind} {self.value!r}, done={self.done})"


class StreamElementQueue:
    """What both queues do; ``size`` counts the elements not emitted yet."""

    def __init__(self, capacity: int) -> None:
        if capacity <= 0:
            raise ValueError("The number of concurrent async operation should be greater than 0.")
        self.capacity = capacity
        self.size = 0

    def has_room(self) -> bool:
        """Whether one more element fits."""
        return self.size < self.capacity

    def is_empty(self) -> bool:
        """Whether every element taken in was emitted."""
        return self.size == 0

    def put_record(self, value: Any, timestamp: int | None, position: int) -> QueueEntry:
        """Add a record (there must be room); its entry, to complete when its call does."""
        entry = QueueEntry(RECORD, value, timestamp, position)
        self._add(entry)
        self.size += 1
        return entry

    def put_marker(self, kind: str, value: Any) -> None:
        """Add a watermark (``value`` its timestamp) or a watermark status (there must be room)."""
        self._add_marker(QueueEntry(kind, value))
        self.size += 1

    def complete(self, entry: QueueEntry, results: list[Any]) -> None:
        """The call of ``entry`` finished with ``results``."""
        entry.results = results
        entry.done = True

    def pop_completed(self) -> list[QueueEntry]:
        """The entries that may leave now, in the order they leave; they are removed."""
        raise NotImplementedError

    def elements(self) -> list[tuple[Any, ...]]:
        """Every element not emitted yet, as a checkpoint keeps it (see ``QueueEntry.element``)."""
        raise NotImplementedError

    def _add(self, entry: QueueEntry) -> None:
        raise NotImplementedError

    def _add_marker(self, entry: QueueEntry) -> None:
        raise NotImplementedError


class OrderedStreamElementQueue(StreamElementQueue):
    """Elements leave in input order."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self._entries: deque[QueueEntry] = deque()

    def _add(self, entry: QueueEntry) -> None:
        self._entries.append(entry)

    _add_marker = _add

    def pop_completed(self) -> list[QueueEntry]:
        """The completed entries at the head, up to the first one still in flight."""
        entries = self._entries
        out: list[QueueEntry] = []
        while entries and entries[0].done:
            out.append(entries.popleft())
        self.size -= len(out)
        return out

    def elements(self) -> list[tuple[Any, ...]]:
        """In input order."""
        return [entry.element() for entry in self._entries]


class _Segment:
    """Records between two markers (or one marker): in flight, and completed in the order they
    completed."""

    __slots__ = ("completed", "incomplete")

    def __init__(self) -> None:
        self.incomplete: dict[QueueEntry, None] = {}  # an ordered set
        self.completed: list[QueueEntry] = []

    def is_empty(self) -> bool:
        return not self.incomplete and not self.completed


class UnorderedStreamElementQueue(StreamElementQueue):
    """Records leave as they complete; markers are barriers between segments."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self._segments: deque[_Segment] = deque()

    def _add(self, entry: QueueEntry) -> None:
        if not self._segments:
            self._segments.append(_Segment())
        segment = self._segments[-1]
        entry.segment = segment
        segment.incomplete[entry] = None

    def _add_marker(self, entry: QueueEntry) -> None:
        segments = self._segments
        if segments and segments[-1].is_empty():
            segment = segments[-1]  # drained (or opened by the marker just before): reuse it
        else:
            segment = _Segment()
            segments.append(segment)
        segment.completed.append(entry)
        segments.append(_Segment())  # the records after the marker

    def complete(self, entry: QueueEntry, results: list[Any]) -> None:
        """Move the entry to its segment's completed records."""
        super().complete(entry, results)
        segment = entry.segment
        assert segment is not None
        if segment.incomplete.pop(entry, True) is None:
            segment.completed.append(entry)

    def pop_completed(self) -> list[QueueEntry]:
        """The first segment's completed entries, then the next segment's once it is drained."""
        segments = self._segments
        out: list[QueueEntry] = []
        while segments:
            first = segments[0]
            out.extend(first.completed)
            first.completed.clear()
            if first.incomplete or len(segments) == 1:
                break
            segments.popleft()
        self.size -= len(out)
        return out

    def elements(self) -> list[tuple[Any, ...]]:
        """Segment by segment: each one's completed, then its in-flight records."""
        return [
            entry.element()
            for segment in self._segments
            for entry in (*segment.completed, *segment.incomplete)
        ]
