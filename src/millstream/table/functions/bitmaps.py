"""Flink's BITMAP type and its functions (``BITMAP_BUILD``, ``BITMAP_AND`` ...): a set of 32-bit
unsigned integers, a RoaringBitmap in Flink. An INT goes in as its unsigned value (-1 is
4294967295), a set prints ``{0,4294967295}`` in unsigned order, ``BITMAP_TO_ARRAY`` gives the
INTs back, and ``BITMAP_TO_BYTES`` / ``BITMAP_FROM_BYTES`` write and read RoaringBitmap's
portable format (PyFlink 2.3.0 writes BITMAP_BUILD(ARRAY[1]) as
x'3a3000000100000000000000100000000100').
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

from millstream.table.common.types import DataType, DataTypes
from millstream.table.functions.aggregates import Accumulator
from millstream.table.functions.definition import FunctionDefinition

__all__ = ["BITMAP", "BITMAPS", "BITMAP_AGGREGATES", "Bitmap", "BitmapAggregate"]

_MASK = 0xFFFFFFFF
_NO_RUNS = 12346  # RoaringBitmap's SERIAL_COOKIE_NO_RUNCONTAINER
_RUNS = 12347  # SERIAL_COOKIE
_ARRAY_LIMIT = 4096  # a container of more values is a bitmap of 2^16 bits


class Bitmap:
    """An immutable set of 32-bit unsigned integers (a BITMAP value)."""

    __slots__ = ("values",)

    def __init__(self, values: Iterable[int] = ()) -> None:
        self.values = frozenset(v & _MASK for v in values)

    def sorted(self) -> list[int]:
        return sorted(self.values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Bitmap) and self.values == other.values

    def __hash__(self) -> int:
        return hash(self.values)

    def __str__(self) -> str:  # BITMAP_TO_STRING's and print()'s text
        return "{" + ",".join(map(str, self.sorted())) + "}"

    def __repr__(self) -> str:
        return f"Bitmap({self})"


def BITMAP(nullable: bool = True) -> DataType:
    """The BITMAP type."""
    return DataType("BITMAP", nullable)


def to_bytes(bitmap: Bitmap) -> bytes:
    """RoaringBitmap's portable serialization (without run containers, as Flink writes a
    bitmap it built): the cookie and container count, each container's key and cardinality,
    their offsets, then each container (sorted 16-bit values, or a 2^16-bit bitmap)."""
    containers: dict[int, list[int]] = {}
    for value in bitmap.sorted():
        containers.setdefault(value >> 16, []).append(value & 0xFFFF)
    header = struct.pack("<II", _NO_RUNS, len(containers))
    descriptions = b"".join(struct.pack("<HH", key, len(low) - 1) for key, low in containers.items())
    bodies = [_container_bytes(low) for low in containers.values()]
    offset = len(header) + len(descriptions) + 4 * len(bodies)
    offsets = b""
    for body in bodies:
        offsets += struct.pack("<I", offset)
        offset += len(body)
    return header + descriptions + offsets + b"".join(bodies)


def _container_bytes(low: list[int]) -> bytes:
    if len(low) <= _ARRAY_LIMIT:
        return struct.pack(f"<{len(low)}H", *low)
    words = [0] * 1024
    for value in low:
        words[value >> 6] |= 1 << (value & 63)
    return struct.pack("<1024Q", *words)


def from_bytes(data: bytes) -> Bitmap:
    """A bitmap read from RoaringBitmap's portable serialization (run containers too).

    Raises:
        ValueError: the bytes end early (Java's BufferUnderflowException) or hold no bitmap.
    """
    reader = _Reader(data)
    cookie = reader.unpack("<I")
    has_runs = cookie & 0xFFFF == _RUNS
    if has_runs:
        count = (cookie >> 16) + 1
        run_flags = reader.take((count + 7) // 8)
    elif cookie == _NO_RUNS:
        count = reader.unpack("<I")
        run_flags = bytes((count + 7) // 8)
    else:
        raise ValueError(f"not a RoaringBitmap: cookie {cookie}")
    keys = [reader.unpack("<HH") for _ in range(count)]
    if not has_runs or count >= 4:  # the offsets, which a reader may skip
        reader.take(4 * count)
    values: list[int] = []
    for i, (key, cardinality_less_one) in enumerate(keys):
        high = key << 16
        if run_flags[i // 8] >> (i % 8) & 1:
            for _ in range(reader.unpack("<H")):
                start, length = reader.unpack("<HH")
                values.extend(high | v for v in range(start, start + length + 1))
        elif cardinality_less_one + 1 <= _ARRAY_LIMIT:
            values.extend(
                high | v
                for v in struct.unpack(
                    f"<{cardinality_less_one + 1}H", reader.take(2 * (cardinality_less_one + 1))
                )
            )
        else:
            for w, word in enumerate(struct.unpack("<1024Q", reader.take(8192))):
                values.extend(high | (w << 6 | b) for b in range(64) if word >> b & 1)
    return Bitmap(values)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.position = data, 0

    def take(self, size: int) -> bytes:
        if self.position + size > len(self.data):
            raise ValueError("BufferUnderflowException: the bytes end before the bitmap")
        chunk = self.data[self.position : self.position + size]
        self.position += size
        return chunk

    def unpack(self, fmt: str) -> Any:
        values = struct.unpack(fmt, self.take(struct.calcsize(fmt)))
        return values[0] if len(values) == 1 else values


class BitmapAggregate(Accumulator):
    """BITMAP_OR_AGG / BITMAP_AND_AGG / BITMAP_XOR_AGG of bitmaps (NULLs left out; NULL over
    none), and their ``*_CARDINALITY_AGG``: the number of values of that bitmap."""

    def __init__(self, function: str) -> None:
        self.operation = function.split("_")[1]  # OR, AND or XOR
        self.cardinality = "CARDINALITY" in function

    def create(self) -> Any:
        return None

    def add(self, acc: Any, value: Any) -> Any:
        if value is None:
            return acc
        if acc is None:
            return value.values
        if self.operation == "OR":
            return acc | value.values
        return acc & value.values if self.operation == "AND" else acc ^ value.values

    def retract(self, acc: Any, value: Any) -> Any:
        raise ValueError(f"BITMAP_{self.operation}_AGG runs over an insert-only input")

    def merge(self, acc: Any, other: Any) -> Any:
        return acc if other is None else self.add(acc, Bitmap(other))

    def result(self, acc: Any) -> Any:
        if acc is None:
            return None
        return len(acc) if self.cardinality else Bitmap(acc)


# the aggregate functions over bitmaps, with their result types (nullable: NULL over no row)
BITMAP_AGGREGATES: dict[str, DataType] = {}
for _operation in ("OR", "AND", "XOR"):
    BITMAP_AGGREGATES[f"BITMAP_{_operation}_AGG"] = BITMAP()
    BITMAP_AGGREGATES[f"BITMAP_{_operation}_CARDINALITY_AGG"] = DataTypes.BIGINT()


def _signed(value: int) -> int:
    return value - (1 << 32) if value & 0x80000000 else value


def _bitmap_type(args: list[DataType]) -> DataType:
    return BITMAP(any(a.is_nullable() for a in args))


BITMAPS: list[FunctionDefinition] = [
    # NULL elements are left out: BITMAP_BUILD(ARRAY[CAST(NULL AS INT)]) is {}
    FunctionDefinition(
        "BITMAP_BUILD", lambda values: Bitmap(v for v in values if v is not None), _bitmap_type
    ),
    FunctionDefinition("BITMAP_TO_STRING", str, lambda args: DataTypes.STRING(args[0].is_nullable())),
    FunctionDefinition(
        "BITMAP_CARDINALITY", lambda b: len(b.values), lambda args: DataTypes.BIGINT(args[0].is_nullable())
    ),
    FunctionDefinition(
        "BITMAP_TO_ARRAY",
        lambda b: [_signed(v) for v in b.sorted()],
        lambda args: DataTypes.ARRAY(DataTypes.INT(), args[0].is_nullable()),
    ),
    FunctionDefinition("BITMAP_AND", lambda a, b: Bitmap(a.values & b.values), _bitmap_type),
    FunctionDefinition("BITMAP_OR", lambda a, b: Bitmap(a.values | b.values), _bitmap_type),
    FunctionDefinition("BITMAP_XOR", lambda a, b: Bitmap(a.values ^ b.values), _bitmap_type),
    FunctionDefinition("BITMAP_ANDNOT", lambda a, b: Bitmap(a.values - b.values), _bitmap_type),
    FunctionDefinition("BITMAP_TO_BYTES", to_bytes, lambda args: DataTypes.BYTES(args[0].is_nullable())),
    FunctionDefinition("BITMAP_FROM_BYTES", lambda data: from_bytes(bytes(data)), _bitmap_type),
]
