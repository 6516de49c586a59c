"""The filesystem connector as a lookup table (Flink's ``FileSystemLookupFunction``, which
Flink's Hive connector uses): a lookup join against a filesystem table reads the whole table
into a cache in each subtask, indexed by the join's key columns, and reads it again once
``lookup.join.cache.ttl`` (60 min by default) has passed since it was read, at the first
lookup after that. Edits to the files therefore reach the join at most a TTL late; between
reloads every lookup is a dictionary read.

A changelog format (``debezium-json`` ...) is folded into the rows it leaves: an insert or
update-after adds its row, an update-before or delete takes one equal row out.

Coordinating code, except ``lookup``: one clock read and one dictionary read per input row.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection
from typing import Any

from millstream.table.common.lookup_source import LookupFunction
from millstream.table.common.row_kind import DELETE, UPDATE_BEFORE

__all__ = ["DEFAULT_CACHE_TTL", "LOOKUP_CACHE_TTL", "FileSystemLookupFunction"]

LOOKUP_CACHE_TTL = "lookup.join.cache.ttl"
DEFAULT_CACHE_TTL = "60 min"

_LOG = logging.getLogger(__name__)

Change = tuple[str, tuple[Any, ...]]


class FileSystemLookupFunction(LookupFunction):
    """The rows of a filesystem table by key, from a cache of the whole table.

    Args:
        load: reads the whole table: its changes, every column of the source in its order.
        key_indexes: the columns a key row's values are compared with, in its order.
        ttl_ms: how long a read of the table serves lookups (``lookup.join.cache.ttl``).
        table: the table's path, for the log and errors.
        clock: seconds of a monotonic clock (a test moves it by hand).
    """

    def __init__(
        self,
        load: Callable[[], list[Change]],
        key_indexes: list[int],
        ttl_ms: int,
        table: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._load, self._keys, self._ttl_s, self._table = load, list(key_indexes), ttl_ms / 1000.0, table
        self._clock = clock
        self._cache: dict[tuple[Any, ...], list[tuple[Any, ...]]] | None = None  # owner: task thread
        self._next_load = 0.0  # the clock's time after which the next lookup reads the table again
        self.loads = 0  # how many times the table was read (a test reads it)

    def open(self, context: Any) -> None:
        self._cache, self._next_load = None, 0.0

    def lookup(self, key_row: tuple[Any, ...]) -> Collection[tuple[Any, ...]]:
        now = self._clock()
        cache = self._cache
        if cache is None or now >= self._next_load:
            cache = self._reload(now)
        return cache.get(key_row, ())

    def _reload(self, now: float) -> dict[tuple[Any, ...], list[tuple[Any, ...]]]:
        """Read the whole table into the cache, by key."""
        rows = _folded(self._load())
        keys = self._keys
        cache: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
        for row in rows:
            cache.setdefault(tuple([row[i] for i in keys]), []).append(row)
        self._cache, self._next_load = cache, now + self._ttl_s
        self.loads += 1
        _LOG.info(
            "lookup join cache of %s: %d rows read, next read in %.0f s", self._table, len(rows), self._ttl_s
        )
        return cache

    def close(self) -> None:
        self._cache = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_cache": None}  # shipped without a cache: each subtask reads its own


def _folded(changes: list[Change]) -> list[tuple[Any, ...]]:
    """The rows a changelog leaves (an insert-only one: all of its rows)."""
    if all(kind not in (UPDATE_BEFORE, DELETE) for kind, _ in changes):
        return [row for _, row in changes]
    try:
        counts: dict[tuple[Any, ...], int] = {}
        for kind, row in changes:
            counts[row] = counts.get(row, 0) + (-1 if kind in (UPDATE_BEFORE, DELETE) else 1)
        return [row for row, n in counts.items() for _ in range(n)]
    except TypeError:  # a row of unhashable values (an ARRAY): compared one by one
        rows: list[tuple[Any, ...]] = []
        for kind, row in changes:
            if kind not in (UPDATE_BEFORE, DELETE):
                rows.append(row)
            elif row in rows:
                rows.remove(row)
        return rows
