"""Java's ``hashCode`` of Flink's internal values, and the order a ``java.util.HashMap`` holds
its keys in: what decides the order of a value Flink builds in a ``HashMap`` (COLLECT's
multiset is its accumulator's ``MapView``: PyFlink 2.3.0 prints COLLECT over 'b', 'a', 'c',
'a' as ``{a=2, c=1, b=1}``). With ``external``, the hashes of the Java classes a value
becomes outside the runtime (``String``, ``Integer``, ``BigDecimal``, ``LocalDate``,
``LocalDateTime``, ``Instant`` ...): a MAP given to a sink as a ``java.util.Map`` (the print
connector's ``{zz=4, Aa=5, a=2}``) is a ``HashMap`` of those.

The hashes are those of the classes Flink's runtime holds values in: ``Integer``, ``Long``,
``Double`` ... for numbers, ``BinaryStringData`` (Murmur3 of the UTF-8 bytes, seed 42, as
``MurmurHashUtils.hashBytes``), ``DecimalData`` (its ``BigDecimal``'s), ``TimestampData``.
"""

from __future__ import annotations

import datetime
import decimal
import struct
from collections.abc import Callable, Iterable
from typing import Any

from millstream.table.common.timestamps import nano_of_second, to_epoch_nanos
from millstream.table.common.types import DataType

__all__ = ["hash_map_order", "java_hash"]

_MASK = 0xFFFFFFFF
_EPOCH_DAY = datetime.date(1970, 1, 1)


def _int32(value: int) -> int:
    value &= _MASK
    return value - (1 << 32) if value & 0x80000000 else value


def _long_hash(value: int) -> int:
    """``Long.hashCode``: the low word XOR the high word."""
    value &= (1 << 64) - 1
    return _int32(value ^ (value >> 32))


def _rotate_left(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (32 - bits))) & _MASK


def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & _MASK
    return (_rotate_left(k1, 15) * 0x1B873593) & _MASK


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    return (_rotate_left(h1, 13) * 5 + 0xE6546B64) & _MASK


def murmur_hash_bytes(data: bytes, seed: int = 42) -> int:
    """Flink's ``MurmurHashUtils.hashBytes``: Murmur3 over little-endian 4-byte words, then the
    tail one signed byte at a time."""
    aligned = len(data) - len(data) % 4
    h1 = seed
    for (word,) in struct.iter_unpack("<I", data[:aligned]):
        h1 = _mix_h1(h1, _mix_k1(word))
    for byte in data[aligned:]:
        h1 = _mix_h1(h1, _mix_k1((byte - 256 if byte > 127 else byte) & _MASK))
    h1 ^= len(data)
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & _MASK
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & _MASK
    h1 ^= h1 >> 16
    return _int32(h1)


def _decimal_hash(value: decimal.Decimal, scale: int) -> int:
    """``BigDecimal.hashCode`` of ``value`` held with ``scale`` (DecimalData's)."""
    unscaled = int(value.scaleb(scale).to_integral_value())
    magnitude = abs(unscaled)
    if magnitude < (1 << 63):  # compact: its hash from the long
        temp = _int32((_int32(magnitude >> 32) * 31 + (magnitude & _MASK)) & _MASK)
        return _int32(31 * (-temp if unscaled < 0 else temp) + scale)
    h = 0  # BigInteger.hashCode over the magnitude's big-endian int words
    words = []
    while magnitude:
        words.append(magnitude & _MASK)
        magnitude >>= 32
    for word in reversed(words):
        h = _int32(31 * h + word)
    h = _int32(h * (-1 if unscaled < 0 else 1))
    return _int32(31 * h + scale)


def _timestamp_hash(value: datetime.datetime) -> int:
    """``TimestampData.hashCode``: of the epoch milliseconds and the nanoseconds within them."""
    millis = to_epoch_nanos(value) // 1_000_000
    nanos = nano_of_second(value) % 1_000_000
    ret = _int32(millis) ^ _int32(millis >> 32)
    return _int32(31 * ret + nanos)


def _float_bits(value: float, fmt: str, size: str) -> int:
    if value != value:  # Float.floatToIntBits / doubleToLongBits: the canonical NaN
        return 0x7FC00000 if fmt == "f" else 0x7FF8000000000000
    return int(struct.unpack(size, struct.pack(fmt, value))[0])


_HASHES: dict[str, Callable[[Any, DataType], int]] = {
    "BOOLEAN": lambda v, t: 1231 if v else 1237,
    "TINYINT": lambda v, t: _int32(v),
    "SMALLINT": lambda v, t: _int32(v),
    "INT": lambda v, t: _int32(v),
    "BIGINT": lambda v, t: _long_hash(v),
    "FLOAT": lambda v, t: _int32(_float_bits(v, "f", "<I")),
    "DOUBLE": lambda v, t: _long_hash(_float_bits(v, "d", "<Q")),
    "CHAR": lambda v, t: murmur_hash_bytes(v.encode("utf-8")),
    "VARCHAR": lambda v, t: murmur_hash_bytes(v.encode("utf-8")),
    "STRING": lambda v, t: murmur_hash_bytes(v.encode("utf-8")),
    "DECIMAL": lambda v, t: _decimal_hash(v, int(t.params[1]) if len(t.params) > 1 else 0),
    "DATE": lambda v, t: _int32((v - _EPOCH_DAY).days),
    "TIME": lambda v, t: _int32(((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000),
    "TIMESTAMP": lambda v, t: _timestamp_hash(v),
    "TIMESTAMP_LTZ": lambda v, t: _timestamp_hash(v),
}


def _string_hash(value: str) -> int:
    """``String.hashCode``: over the UTF-16 code units."""
    h = 0
    data = value.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & _MASK
    return _int32(h)


def _local_date_hash(value: datetime.date) -> int:
    """``LocalDate.hashCode``."""
    year = value.year
    return _int32((year & 0xFFFFF800) ^ ((year << 11) + (value.month << 6) + value.day))


def _nano_of_day(value: Any) -> int:
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000_000 + nano_of_second(value)


def _instant_hash(value: datetime.datetime) -> int:
    """``Instant.hashCode`` of a TIMESTAMP_LTZ value (the local wall clock, or with a zone)."""
    aware = value.astimezone(datetime.UTC) if value.tzinfo is None else value
    nanos = to_epoch_nanos(aware)
    seconds = nanos // 1_000_000_000
    return _int32(_long_hash(seconds) + 51 * (nanos % 1_000_000_000))


# the hashCode of the Java class a value of each type is outside the runtime (Row's fields)
_EXTERNAL_HASHES: dict[str, Callable[[Any, DataType], int]] = {
    **{root: hash_of for root, hash_of in _HASHES.items() if root in ("BOOLEAN", "FLOAT", "DOUBLE")},
    "TINYINT": lambda v, t: _int32(v),
    "SMALLINT": lambda v, t: _int32(v),
    "INT": lambda v, t: _int32(v),
    "BIGINT": lambda v, t: _long_hash(v),
    "CHAR": lambda v, t: _string_hash(v),
    "VARCHAR": lambda v, t: _string_hash(v),
    "STRING": lambda v, t: _string_hash(v),
    "DECIMAL": _HASHES["DECIMAL"],
    "DATE": lambda v, t: _local_date_hash(v),
    "TIME": lambda v, t: _long_hash(_nano_of_day(v)),
    "TIMESTAMP": lambda v, t: _local_date_hash(v) ^ _long_hash(_nano_of_day(v)),
    "TIMESTAMP_LTZ": lambda v, t: _instant_hash(v),
}


def java_hash(value: Any, data_type: DataType, external: bool = False) -> int | None:
    """The ``hashCode`` of ``value`` as Flink's runtime holds a value of ``data_type`` (with
    ``external``: as the Java class it is outside the runtime); None for a type whose hash
    this module does not know (binary strings, ARRAY, MAP, ROW)."""
    hash_of = (_EXTERNAL_HASHES if external else _HASHES).get(data_type.root)
    return None if hash_of is None else hash_of(value, data_type)


def hash_map_order(keys: Iterable[Any], data_type: DataType, external: bool = False) -> list[Any]:
    """``keys`` (distinct, in insertion order) in the order a ``java.util.HashMap`` of the
    default capacity iterates them after they were put in: by bucket (the spread hash masked by
    the table size, which doubles past 3/4 full), insertion order within a bucket. Keys of a
    type without a known hash keep their insertion order. ``external``: keys of the Java
    classes values are outside the runtime (``java_hash``)."""
    keys = list(keys)
    if (_EXTERNAL_HASHES if external else _HASHES).get(data_type.root) is None:
        return keys
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: Any) -> int:
        h = (java_hash(key, data_type, external) or 0) & _MASK
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(keys, key=bucket)  # stable: insertion order within a bucket
