"""Buffer: a fixed-size memory segment with the number of valid bytes and a recycler.

Data buffers come from a LocalBufferPool and go back to it through ``recycle`` when the
consumer has read them; event buffers (end of partition ...) are unpooled. A consumer
in the same process may receive OBJECTS buffers instead: the segment is held for the
pool's accounting (so backpressure is unchanged) and ``payload`` carries the element
batch itself, sparing a pickle round trip (as timely dataflow's intra-process channels).
"""

from __future__ import annotations

from enum import Enum
from typing import Protocol

__all__ = ["Buffer", "BufferRecycler", "DataType"]


class DataType(Enum):
    """What a buffer holds."""

    DATA = 0
    EVENT = 1
    OBJECTS = 2  # a batch of object references, for a consumer in the same process


class BufferRecycler(Protocol):
    """Takes a segment back."""

    def recycle(self, segment: bytearray) -> None:
        """Return ``segment`` to its pool."""
        ...


class Buffer:
    """``size`` valid bytes of ``segment``; ``recycle()`` exactly once when consumed."""

    __slots__ = ("data_type", "payload", "recycler", "segment", "size")

    def __init__(
        self,
        segment: bytearray | bytes,
        size: int,
        recycler: BufferRecycler | None,
        data_type: DataType = DataType.DATA,
        payload: object = None,
    ) -> None:
        self.segment = segment
        self.size = size
        self.recycler = recycler
        self.data_type = data_type
        self.payload = payload

    @property
    def is_buffer(self) -> bool:
        """True for data (serialized or objects), False for an event."""
        return self.data_type is not DataType.EVENT

    def recycle(self) -> None:
        """Give the memory back (no-op for unpooled buffers)."""
        recycler = self.recycler
        if recycler is not None:
            self.recycler = None
            recycler.recycle(self.segment)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"Buffer({self.data_type.name}, size={self.size})"
