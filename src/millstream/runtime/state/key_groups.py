"""Key groups: key -> key group -> operator subtask, as Flink's KeyGroupRangeAssignment.

Pure functions. The hash must be the same in every process and run (key groups are the
unit of state redistribution on rescale), so ``str`` and ``bytes`` keys are hashed with
CRC-32 rather than Python's per-process salted ``hash``.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

__all__ = [
    "KeyGroupRange",
    "assign_key_to_parallel_operator",
    "assign_to_key_group",
    "compute_key_group_range",
    "murmur_mix",
    "operator_index_for_key_group",
    "stable_hash",
]

_MASK = 0xFFFFFFFF


def murmur_mix(h: int) -> int:
    """Murmur3's 32-bit finaliser (Flink spreads ``hashCode`` with a murmur hash too)."""
    h &= _MASK
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    h ^= h >> 16
    return h


def stable_hash(key: Any) -> int:
    """A hash of ``key`` that is identical across processes and runs."""
    kind = type(key)
    if kind is str:
        return zlib.crc32(key.encode("utf-8", "surrogatepass"))
    if kind is int:
        return murmur_mix(key ^ (key >> 32))
    if kind is bytes or kind is bytearray:
        return zlib.crc32(key)
    if kind is tuple or kind is list:
        h = 0x345678
        for item in key:
            h = (h * 1000003) ^ stable_hash(item)
            h &= _MASK
        return murmur_mix(h ^ len(key))
    if kind is bool or key is None:
        return 1231 if key else 1237
    if kind is float:
        return murmur_mix(hash(key))
    values = getattr(key, "_values", None)
    if values is not None:
        return stable_hash(tuple(values))
    if type(key).__hash__ is object.__hash__:
        raise TypeError(
            f"key of type {type(key).__name__} has no deterministic hash; "
            "use a str, int, tuple, or a class that defines __hash__"
        )
    return murmur_mix(hash(key))


def assign_to_key_group(key: Any, max_parallelism: int) -> int:
    """The key group of ``key``."""
    return murmur_mix(stable_hash(key)) % max_parallelism


def operator_index_for_key_group(max_parallelism: int, parallelism: int, key_group: int) -> int:
    """The subtask owning ``key_group``."""
    return key_group * parallelism // max_parallelism


def assign_key_to_parallel_operator(key: Any, max_parallelism: int, parallelism: int) -> int:
    """The subtask owning ``key``."""
    return operator_index_for_key_group(
        max_parallelism, parallelism, assign_to_key_group(key, max_parallelism)
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
