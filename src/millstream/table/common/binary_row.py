"""The hash Flink's SQL runtime gives a key: ``BinaryRowData.hashCode()``.

A keyed exchange of the Table runtime (GROUP BY, a join's keys, a window aggregate's keys)
projects each row to its key as a ``BinaryRowData`` (``BinaryRowDataKeySelector``) and sends
it to the key group of ``MathUtils.murmurHash(key.hashCode())``. So the subtask a group lands
on, and the ``N>`` prefix the print connector writes, follow from the key's binary layout:

- a header of null bits: ``((arity + 63 + 8) // 64) * 8`` bytes, the first byte the row kind
  (0 for a key), then one bit per field (field ``i`` at bit ``i + 8``);
- one 8-byte little-endian slot per field: the value itself (BOOLEAN and TINYINT one byte,
  SMALLINT two, INT, DATE and TIME four, BIGINT eight, FLOAT and DOUBLE their IEEE bits,
  DECIMAL of precision <= 18 its unscaled long, TIMESTAMP of precision <= 3 its epoch
  milliseconds); a string or byte string of at most 7 bytes inline (its bytes, and
  ``0x80 | length`` in the slot's last byte); a longer one, a DECIMAL of precision > 18 or a
  TIMESTAMP of precision > 3 in the variable part after the slots (8-byte aligned, zero
  padded), the slot holding ``offset << 32 | length`` (nanos of the millisecond for a
  timestamp);
- the hash: Murmur3 over the row's 4-byte words with seed 42, finalised with its length
  (``MurmurHashUtil.hashBytesByWords``).

Checked against ``BinaryRowWriter`` and ``BinaryRowData.hashCode()`` of Flink 2.3's
``flink-table-runtime`` (``tests/unit/table/test_binary_row.py`` lists the values). Nested
ROW, ARRAY and MAP keys are not laid out here: such a key hashes by its Python value instead
(the same subtask for equal keys, not the subtask Flink would pick).
"""

from __future__ import annotations

import datetime
import decimal
import struct
from collections.abc import Callable, Sequence
from typing import Any

import mmh3

from millstream.table.common.timestamps import to_epoch_millis
from millstream.table.common.types import DataType

__all__ = ["BinaryRowKeyType", "binary_row_hash"]

_EPOCH_DAY = datetime.date(1970, 1, 1)


def _hash_words(data: bytes) -> int:
    """``MurmurHashUtil.hashBytesByWords(data, seed 42)`` as a Java int: for data of whole
    4-byte words it is Murmur3's x86 32-bit hash (little-endian words, the length mixed in)."""
    return int(mmh3.hash(data, 42))


def _long(value: int) -> bytes:
    return struct.pack("<q", value)


def _inline(size: int, fmt: str) -> Callable[[Any], bytes]:
    def slot(value: Any) -> bytes:
        return struct.pack(fmt, value) + bytes(8 - size)

    return slot


def _date(value: datetime.date) -> bytes:
    return struct.pack("<i", (value - _EPOCH_DAY).days) + bytes(4)


def _time(value: datetime.time) -> bytes:
    millis = ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    return struct.pack("<i", millis) + bytes(4)


class _Writer:
    """A ``BinaryRowWriter`` of one row: fixed slots and the variable part."""

    def __init__(self, arity: int) -> None:
        self.null_bytes = ((arity + 63 + 8) // 64) * 8
        self.header = bytearray(self.null_bytes)
        self.slots = [bytes(8)] * arity
        self.variable = bytearray()

    def set_null(self, index: int) -> None:
        bit = index + 8
        self.header[bit >> 3] |= 1 << (bit & 7)

    def var_part(self, data: bytes, low: int) -> bytes:
        """``data`` appended to the variable part (8-byte aligned); the slot ``offset << 32 | low``."""
        offset = self.null_bytes + 8 * len(self.slots) + len(self.variable)
        self.variable += data + bytes(-len(data) % 8)
        return _long((offset << 32) | low)

    def row(self) -> bytes:
        return bytes(self.header) + b"".join(self.slots) + bytes(self.variable)


_Write = Callable[[_Writer, Any], bytes]  # a field's slot for a value (None: a NULL field)


def _fixed(slot: Callable[[Any], bytes]) -> _Write:
    return lambda writer, value: bytes(8) if value is None else slot(value)


def _field_writer(data_type: DataType) -> _Write | None:  # noqa: C901
    root = data_type.root
    if root in _FIXED:
        return _fixed(_FIXED[root])
    if root in ("STRING", "VARCHAR", "CHAR", "BYTES", "BINARY", "VARBINARY"):
        text = root in ("STRING", "VARCHAR", "CHAR")

        def string(writer: _Writer, value: Any) -> bytes:
            if value is None:
                return bytes(8)
            data = value.encode("utf-8") if text else bytes(value)
            if len(data) <= 7:
                return data + bytes(7 - len(data)) + bytes([0x80 | len(data)])
            return writer.var_part(data, len(data))

        return string
    if root == "DECIMAL":
        precision, scale = (list(data_type.params) + [10, 0])[:2]

        def unscaled(value: Any) -> int:
            return int(decimal.Decimal(value).scaleb(scale).to_integral_value(rounding=decimal.ROUND_HALF_UP))

        if precision <= 18:
            return _fixed(lambda value: _long(unscaled(value)))

        def big(writer: _Writer, value: Any) -> bytes:
            # 16 bytes reserved (a NULL too); the unscaled value's BigInteger.toByteArray in them
            if value is None:
                return writer.var_part(bytes(16), 0)
            number = unscaled(value)
            bits = number.bit_length() if number >= 0 else (~number).bit_length()  # Java's bitLength
            data = number.to_bytes(bits // 8 + 1, "big", signed=True)
            return writer.var_part(data + bytes(16 - len(data)), len(data))

        return big
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        precision = data_type.params[0] if data_type.params else 6
        if precision <= 3:
            return _fixed(lambda value: _long(to_epoch_millis(value, root)))

        def precise(writer: _Writer, value: Any) -> bytes:
            # epoch millis in the variable part, the nanos of the millisecond in the slot
            if value is None:
                return writer.var_part(bytes(8), 0)
            nanos_of_milli = (value.microsecond % 1000) * 1000
            return writer.var_part(_long(to_epoch_millis(value, root)), nanos_of_milli)

        return precise
    return None


_FIXED: dict[str, Callable[[Any], bytes]] = {
    "BOOLEAN": _inline(1, "<?"),
    "TINYINT": _inline(1, "<b"),
    "SMALLINT": _inline(2, "<h"),
    "INT": _inline(4, "<i"),
    "INTERVAL_YEAR_MONTH": _inline(4, "<i"),
    "BIGINT": _inline(8, "<q"),
    "INTERVAL_DAY_TIME": _inline(8, "<q"),
    "FLOAT": _inline(4, "<f"),
    "DOUBLE": _inline(8, "<d"),
    "DATE": _date,
    "TIME": _time,
}


_PACKED_SLOTS = {  # a number's 8-byte slot as a struct format (its bytes, zeros after)
    "BOOLEAN": "?7x",
    "TINYINT": "b7x",
    "SMALLINT": "h6x",
    "INT": "i4x",
    "INTERVAL_YEAR_MONTH": "i4x",
    "BIGINT": "q",
    "INTERVAL_DAY_TIME": "q",
    "FLOAT": "f4x",
    "DOUBLE": "d",
}


def _packed_layout(types: Sequence[DataType]) -> struct.Struct | None:
    """The whole binary row of a key of these types as one ``struct`` (header of zeros, then
    each slot), when every type is a number laid out in its slot; else None."""
    if not all(t.root in _PACKED_SLOTS for t in types):
        return None
    header = ((len(types) + 63 + 8) // 64) * 8
    return struct.Struct("<" + f"{header}x" + "".join(_PACKED_SLOTS[t.root] for t in types))


def _row_hash(writers: Sequence[_Write], values: Sequence[Any]) -> int:
    writer = _Writer(len(values))
    for index, (write, value) in enumerate(zip(writers, values, strict=True)):
        if value is None:
            writer.set_null(index)
        writer.slots[index] = write(writer, value)
    return _hash_words(writer.row())


def binary_row_hash(values: Sequence[Any], types: Sequence[DataType]) -> int:
    """``BinaryRowData.hashCode()`` of a key row holding ``values`` of ``types`` (a Java int).

    Raises:
        TypeError: a type has no layout here (ROW, ARRAY, MAP, ...).
    """
    key_type = BinaryRowKeyType.of(types)
    if key_type is None:
        raise TypeError(f"no binary row layout for {[str(t) for t in types]}")
    return key_type.key_hash(tuple(values))


class BinaryRowKeyType:
    """The key type of a Table runtime exchange: keys are tuples of ``types`` hashed as Flink
    hashes their ``BinaryRowData`` (the runtime's ``flink_key_hash`` calls ``key_hash``).
    ``fields``: the positions Flink's key row holds, when the state key has more (a GROUP BY
    on an input's window_start and window_end partitions by the other keys only)."""

    def __init__(self, types: Sequence[DataType], fields: Sequence[int] | None = None) -> None:
        self.types = list(types)
        self.fields = None if fields is None else list(fields)
        self._writers: list[_Write] | None = None
        self._packed: struct.Struct | None = None

    def reuse_digest(self) -> tuple[Any, ...]:
        """What makes two key types hash alike (sub-plan reuse compares plan nodes by it)."""
        return ("BinaryRowKeyType", tuple(repr(t) for t in self.types), self.fields)

    @staticmethod
    def of(types: Sequence[DataType], fields: Sequence[int] | None = None) -> BinaryRowKeyType | None:
        """The key type of keys of ``types`` whose positions ``fields`` (all when None) make
        Flink's key row; None when one of those has no layout here."""
        chosen = list(types) if fields is None else [types[i] for i in fields]
        if any(_field_writer(t) is None for t in chosen):
            return None
        return BinaryRowKeyType(types, fields)

    def key_hash(self, key: tuple[Any, ...]) -> int:
        """The Java ``hashCode`` of the key's binary row."""
        writers = self._writers
        if writers is None:
            chosen = self.types if self.fields is None else [self.types[i] for i in self.fields]
            writers = self._writers = [w for w in map(_field_writer, chosen) if w is not None]
            self._packed = _packed_layout(chosen)
        if self.fields is not None:
            key = tuple([key[i] for i in self.fields])
        packed = self._packed
        if packed is not None and None not in key:  # numbers without NULLs: the row in one pack
            return int(mmh3.hash(packed.pack(*key), 42))
        return _row_hash(writers, key)

    def __getstate__(self) -> dict[str, Any]:
        return {"types": self.types, "fields": self.fields, "_writers": None, "_packed": None}
