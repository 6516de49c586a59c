"""How rows travel between subtasks where no key partitions them: an updating changelog made by one
subtask goes on partitioned by row, so a row's +I and its later -D take one channel, in order."""

from __future__ import annotations

import zlib
from typing import Any

__all__ = ["by_row"]


def by_row(row: tuple[Any, ...], parallelism: int) -> int:
    """The channel of ``row`` among ``parallelism`` (a hash of its values)."""
    return zlib.crc32(repr(row).encode()) % parallelism
