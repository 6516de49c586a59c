"""Length-prefixed records in fixed-size buffers; a record may span several buffers.

::

    buffer 1                      buffer 2               buffer 3
    | len | payload ... | len | pay|load ................|load | len | payload |

A "record" on the wire is one serialized element batch (or watermark, or other stream
element): the RecordWriter pickles up to a few hundred elements at a time, so the
per-element cost of framing is negligible. The deserializer hands out zero-copy views
for records inside one buffer and assembles spanning records into a bytearray.

Per-record path: no allocation per element; one view per serialized batch.
"""

from __future__ import annotations

__all__ = ["HEADER_SIZE", "RecordDeserializer"]

HEADER_SIZE = 4


class RecordDeserializer:
    """Reassembles length-prefixed records from a channel's sequence of buffers."""

    __slots__ = ("_header", "_missing", "_partial")

    def __init__(self) -> None:
        self._partial: bytearray | None = None  # owner: consuming task thread
        self._missing = 0  # payload bytes still to come for _partial
        self._header = bytearray()  # bytes of a header split across buffers

    @property
    def has_partial_record(self) -> bool:
        """True while a record spans into the next buffer."""
        return self._partial is not None or bool(self._header)

    def snapshot(self) -> tuple[bytes, int, bytes] | None:
        """The bytes of a record begun but not complete (its rest is still to come), for an
        unaligned checkpoint; None when the last buffer ended on a record boundary."""
        if not self.has_partial_record:
            return None
        partial = bytes(self._partial) if self._partial is not None else b""
        return (partial, self._missing, bytes(self._header))

    def restore(self, state: tuple[bytes, int, bytes] | None) -> None:
        """Continue a record begun before a checkpoint (``snapshot``)."""
        if state is None:
            return
        partial, missing, header = state
        self._partial = bytearray(partial) if missing else None
        self._missing = missing
        self._header = bytearray(header)

    def records(self, data: memoryview) -> list[memoryview | bytearray]:
        """The complete records ending in ``data`` (views are valid until the buffer is recycled)."""
        out: list[memoryview | bytearray] = []
        size = len(data)
        pos = 0
        if self._partial is not None:
            take = min(self._missing, size)
            self._partial += data[:take]
            self._missing -= take
            pos = take
            if self._missing:
                return out
            out.append(self._partial)
            self._partial = None
        if self._header:
            take = HEADER_SIZE - len(self._header)
            self._header += data[pos : pos + take]
            pos += take
            if len(self._header) < HEADER_SIZE:
                return out
            length = int.from_bytes(self._header, "little")
            self._header = bytearray()
            pos = self._start_record(data, pos, length, out)
        while pos < size:
            if size - pos < HEADER_SIZE:
                self._header = bytearray(data[pos:size])
                break
            length = int.from_bytes(data[pos : pos + HEADER_SIZE], "little")
            pos = self._start_record(data, pos + HEADER_SIZE, length, out)
        return out

    def _start_record(self, data: memoryview, pos: int, length: int, out: list) -> int:
        end = pos + length
        if end <= len(data):
            out.append(data[pos:end])
            return end
        self._partial = bytearray(data[pos:])
        self._missing = end - len(data)
        return len(data)
