"""Key groups: key -> key group -> operator subtask, as Flink's KeyGroupRangeAssignment.

Pure functions. A key's hash is the ``hashCode`` Flink computes for it under PyFlink
(``flink_key_hash``: the key wrapped in a one-field Row, hashed
by its declared Java type, or by its pickled bytes when undeclared), spread with Flink's
``MathUtils.murmurHash``; key group ``g`` belongs to subtask ``g * parallelism //
max_parallelism``. So a key lands in the subtask it lands in under PyFlink, which decides
``print``'s ``N>`` prefix, ``get_index_of_this_subtask()`` and part-file names.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mmh3

from millstream.common.java_values import int32
from millstream.common.typeinfo import PickledBytesTypeInfo, TypeInformation

__all__ = [
    "KeyGroupRange",
    "assign_key_to_parallel_operator",
    "assign_to_key_group",
    "compute_key_group_range",
    "flink_key_hash",
    "flink_murmur_hash",
    "key_group_function",
    "operator_index_for_key_group",
]

_PICKLED = PickledBytesTypeInfo()


def flink_key_hash(key: Any, key_type: TypeInformation | None) -> int:
    """The ``hashCode`` Flink computes for a key of PyFlink's ``key_by``.

    PyFlink's Java side keys by ``KeyByKeySelector``, which wraps the key in a one-field
    ``Row``: its hash is ``31 + deep(key)``. An undeclared key (``key_type=None``) reaches
    Java as its pickled bytes (``Types.PICKLED_BYTE_ARRAY()``). A key type with a
    ``key_hash(key)`` method gives the hash itself (the Table runtime's keys hash as Flink's
    ``BinaryRowData``).
    """
    direct = getattr(key_type, "key_hash", None)
    if direct is not None:  # a key type hashing keys itself (the Table runtime's binary rows)
        code: int = direct(key)
        return code
    kind = key_type if key_type is not None else _PICKLED
    return int32(31 + kind.deep_hash_code(key))


_MASK = 0xFFFFFFFF
_INT = struct.Struct("<I")


def flink_murmur_hash(code: int) -> int:
    """Flink's ``MathUtils.murmurHash(int)``: one murmur3 round and the finaliser (Murmur3's
    x86 32-bit hash of the int's 4 little-endian bytes, seed 0), made >= 0."""
    h = int(mmh3.hash(_INT.pack(code & _MASK), 0))
    if h >= 0:
        return h
    return 0 if h == -0x80000000 else -h  # Java's -code of a negative int


def assign_to_key_group(key: Any, max_parallelism: int, key_type: Any = None) -> int:
    """The key group of ``key`` (``key_type``: its declared type, None when undeclared)."""
    return flink_murmur_hash(flink_key_hash(key, key_type)) % max_parallelism


def key_group_function(max_parallelism: int, key_type: Any = None) -> Callable[[Any], int]:
    """``assign_to_key_group`` for one key type (its callers keep their own per-key caches)."""

    def key_group(key: Any) -> int:
        return flink_murmur_hash(flink_key_hash(key, key_type)) % max_parallelism

    return key_group


def operator_index_for_key_group(max_parallelism: int, parallelism: int, key_group: int) -> int:
    """The subtask owning ``key_group``."""
    return key_group * parallelism // max_parallelism


def assign_key_to_parallel_operator(
    key: Any, max_parallelism: int, parallelism: int, key_type: Any = None
) -> int:
    """The subtask owning ``key``."""
    return operator_index_for_key_group(
        max_parallelism, parallelism, assign_to_key_group(key, max_parallelism, key_type)
    )


@dataclass(frozen=True, slots=True)
class KeyGroupRange:
    """Key groups ``start..end`` inclusive."""

    start: int
    end: int

    def __contains__(self, key_group: object) -> bool:
        return isinstance(key_group, int) and self.start <= key_group <= self.end

    def __len__(self) -> int:
        return max(0, self.end - self.start + 1)


def compute_key_group_range(max_parallelism: int, parallelism: int, index: int) -> KeyGroupRange:
    """The key groups subtask ``index`` owns (Flink's formula)."""
    start = (index * max_parallelism + parallelism - 1) // parallelism
    end = ((index + 1) * max_parallelism - 1) // parallelism
    return KeyGroupRange(start, end)
