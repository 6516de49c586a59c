"""Bytes for state kept outside the Python heap (the RocksDB backend): keys and values.

Keys (the record key, a namespace, a map state's user key) are written by ``encode_key``:
a deterministic, self-delimiting, type-tagged encoding, so that equal keys give equal
bytes (pickle does not promise that: its memo depends on object identity) and a key
followed by more bytes can be told apart (the RocksDB key is key group, key, namespace and
for map state the user key, one after the other). ``None``, ``bool``, ``int``, ``float``,
``str``, ``bytes`` and tuples of them are encoded directly (what ``Types.STRING()``,
``Types.LONG()``, ``Types.TUPLE([...])`` declare); anything else is pickled without a memo.

Values go through ``value_codec(type_info)``: the same direct encoding when the state's
declared type is one of those, pickle otherwise.
"""

from __future__ import annotations

import io
import pickle
import struct
from collections.abc import Callable
from typing import Any

__all__ = ["decode_key", "encode_key", "loads_value", "value_codec"]

_INT = struct.Struct(">q")
_FLOAT = struct.Struct(">d")
_LEN = struct.Struct(">I")
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


def _pickle_no_memo(obj: Any) -> bytes:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True  # no memo: the bytes depend on the value, not on object identity
    pickler.dump(obj)
    return buffer.getvalue()


def _encode(obj: Any, out: list[bytes]) -> None:
    kind = type(obj)
    if kind is str:
        data = obj.encode("utf-8", "surrogatepass")
        out.append(b"s" + _LEN.pack(len(data)) + data)
    elif kind is int:
        if _INT_MIN <= obj <= _INT_MAX:
            out.append(b"i" + _INT.pack(obj))
        else:
            data = str(obj).encode()
            out.append(b"I" + _LEN.pack(len(data)) + data)
    elif obj is None:
        out.append(b"N")
    elif kind is bool:
        out.append(b"T" if obj else b"F")
    elif kind is float:
        out.append(b"f" + _FLOAT.pack(obj))
    elif kind is bytes:
        out.append(b"b" + _LEN.pack(len(obj)) + obj)
    elif kind is tuple:
        out.append(b"t" + _LEN.pack(len(obj)))
        for item in obj:
            _encode(item, out)
    else:
        data = _pickle_no_memo(obj)
        out.append(b"p" + _LEN.pack(len(data)) + data)


def encode_key(obj: Any) -> bytes:
    """The bytes of a key (deterministic and self-delimiting)."""
    kind = type(obj)
    if kind is str:
        data = obj.encode("utf-8", "surrogatepass")
        return b"s" + _LEN.pack(len(data)) + data
    if kind is int and _INT_MIN <= obj <= _INT_MAX:
        return b"i" + _INT.pack(obj)
    out: list[bytes] = []
    _encode(obj, out)
    return b"".join(out)


def _decode(data: bytes, pos: int) -> tuple[Any, int]:
    tag = data[pos]
    pos += 1
    if tag == 0x73:  # s
        (n,) = _LEN.unpack_from(data, pos)
        pos += 4
        return data[pos : pos + n].decode("utf-8", "surrogatepass"), pos + n
    if tag == 0x69:  # i
        return _INT.unpack_from(data, pos)[0], pos + 8
    if tag == 0x4E:  # N
        return None, pos
    if tag == 0x54:  # T
        return True, pos
    if tag == 0x46:  # F
        return False, pos
    if tag == 0x66:  # f
        return _FLOAT.unpack_from(data, pos)[0], pos + 8
    if tag == 0x74:  # t
        (n,) = _LEN.unpack_from(data, pos)
        pos += 4
        items = []
        for _ in range(n):
            item, pos = _decode(data, pos)
            items.append(item)
        return tuple(items), pos
    (n,) = _LEN.unpack_from(data, pos)
    pos += 4
    chunk = data[pos : pos + n]
    if tag == 0x62:  # b
        return bytes(chunk), pos + n
    if tag == 0x49:  # I
        return int(chunk), pos + n
    if tag == 0x70:  # p
        return pickle.loads(chunk), pos + n
    raise ValueError(f"state key bytes with an unknown tag {tag:#x} at {pos - 5}")


def decode_key(data: bytes, pos: int = 0) -> tuple[Any, int]:
    """The key encoded at ``data[pos:]`` and the position after it."""
    return _decode(data, pos)


_DIRECT_TYPES = {"STRING", "LONG", "INT", "SHORT", "BYTE", "BOOLEAN", "DOUBLE", "FLOAT", "BIG_INT"}


def _is_direct(type_info: Any) -> bool:
    if type_info is None:
        return False
    name = type(type_info).__name__
    if name == "BasicTypeInfo":
        return str(getattr(type_info, "name", getattr(type_info, "_name", ""))).upper() in _DIRECT_TYPES
    if name == "TupleTypeInfo":
        return all(_is_direct(t) for t in type_info.get_field_types())
    return False


def loads_value(data: bytes) -> Any:
    """A value written by either codec (pickle's bytes start with its protocol marker 0x80,
    which is no tag of the direct encoding): values restored before their state declared its
    type, and the state's own writes, read alike."""
    if data[:1] == b"\x80":
        return pickle.loads(data)
    return _decode(data, 0)[0]


def _dumps_pickle(obj: Any) -> bytes:
    return pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)


def value_codec(type_info: Any) -> tuple[Callable[[Any], bytes], Callable[[bytes], Any]]:
    """(dumps, loads) for the values of a state whose declared type is ``type_info``."""
    return (encode_key if _is_direct(type_info) else _dumps_pickle), loads_value
