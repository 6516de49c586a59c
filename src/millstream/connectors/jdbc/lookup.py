"""A JDBC table as a lookup table (Flink's ``JdbcRowDataLookupFunction``), with Flink's partial
cache (``DefaultLookupCache``, which Flink's planner wraps around the function as
``CachingLookupFunction``; here the function holds it).

::

    lookup(("EUR",)) ──► cache: a fresh entry? ──yes──► its rows
                              │ no (absent, or expired: written / last read longer ago than
                              ▼      expire-after-write / expire-after-access)
                         SELECT a, b, c FROM rates WHERE currency = ?   (retried, re-connected)
                              │
                              ▼
                         rows ──► cache (an empty result too, with cache-missing-key) ──► rows

The cache holds at most ``lookup.partial-cache.max-rows`` keys, the least recently read one
evicted first. A row changed in the database reaches the join once its key's entry expires
(or at once without a cache). Lookups run with auto-commit on, so each one sees what is
committed when it runs. Per-record path: one dictionary read per lookup (a hit), one query per
miss.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from typing import Any

from millstream.connectors.jdbc.connection import JdbcConnectionProvider, JdbcOptions, set_autocommit
from millstream.connectors.jdbc.converters import external_row_converter, internal_row_converter
from millstream.connectors.jdbc.errors import JdbcConnectorError, driver_message
from millstream.table.common.lookup_source import LookupFunction
from millstream.table.common.types import DataType

__all__ = ["JdbcRowDataLookupFunction", "LookupCache"]

_LOG = logging.getLogger(__name__)

Row = tuple[Any, ...]


class LookupCache:
    """Flink's ``DefaultLookupCache``: key -> the rows found, with expiry and a size bound.

    Args:
        expire_after_access_s: an entry not read for this long is gone (None: never).
        expire_after_write_s: an entry older than this is gone (None: never).
        maximum_size: the most keys held (None: no bound).
        cache_missing_key: whether a key without rows is cached too.
        clock: seconds of a monotonic clock (a test moves it by hand).

    Raises:
        ValueError: no expiry and no size (Flink's message: the cache would grow forever).
    """

    def __init__(
        self,
        expire_after_access_s: float | None = None,
        expire_after_write_s: float | None = None,
        maximum_size: int | None = None,
        cache_missing_key: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if expire_after_access_s is None and expire_after_write_s is None and maximum_size is None:
            raise ValueError(
                "Expiration duration and maximum size are not set for the cache. The cache will not "
                "have any eviction and could lead to potential memory issues as the cache size may "
                "grow infinitely."
            )
        self.expire_after_access_s, self.expire_after_write_s = expire_after_access_s, expire_after_write_s
        self.maximum_size, self.cache_missing_key, self._clock = maximum_size, cache_missing_key, clock
        self._entries: OrderedDict[Row, tuple[Collection[Row], float, float]] = OrderedDict()
        self.hits = 0  # owner: task thread (read by tests)
        self.misses = 0

    def get_if_present(self, key: Row) -> Collection[Row] | None:
        """The rows cached for ``key`` (None: not cached, or expired)."""
        entry = self._entries.get(key)
        if entry is not None:
            rows, written, read = entry
            now = self._clock()
            write_ttl, access_ttl = self.expire_after_write_s, self.expire_after_access_s
            expired = (write_ttl is not None and now - written >= write_ttl) or (
                access_ttl is not None and now - read >= access_ttl
            )
            if not expired:
                self._entries[key] = (rows, written, now)
                self._entries.move_to_end(key)
                self.hits += 1
                return rows
            del self._entries[key]
        self.misses += 1
        return None

    def put(self, key: Row, rows: Collection[Row]) -> None:
        """Cache ``rows`` for ``key`` (an empty result only with ``cache_missing_key``)."""
        if not rows and not self.cache_missing_key:
            return
        now = self._clock()
        self._entries[key] = (rows, now, now)
        self._entries.move_to_end(key)
        bound = self.maximum_size
        while bound is not None and len(self._entries) > bound:
            self._entries.popitem(last=False)

    def size(self) -> int:
        """The keys cached."""
        return len(self._entries)

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_entries": OrderedDict(), "hits": 0, "misses": 0}


class JdbcRowDataLookupFunction(LookupFunction):
    """The rows of a JDBC table whose key columns hold a key row's values.

    Args:
        options: the connection's.
        table: the table's name in the database (``table-name``).
        names: the columns returned (every column of the source, in its order).
        types: their Flink types.
        key_names: the columns a key row's values are compared with, in its order.
        max_retries: ``lookup.max-retries`` (3).
        cache: the partial cache (None: every lookup queries).
    """

    def __init__(
        self,
        options: JdbcOptions,
        table: str,
        names: list[str],
        types: list[DataType],
        key_names: list[str],
        max_retries: int = 3,
        cache: LookupCache | None = None,
    ) -> None:
        dialect = options.dialect()
        self.options, self.table, self.max_retries, self.cache = options, table, max_retries, cache
        self.query = dialect.get_select_from_statement(table, list(names), list(key_names))
        key_types = [types[names.index(k)] for k in key_names]
        self._database = dialect.database
        self._key_parameters = external_row_converter(dialect, key_types)
        self._convert = internal_row_converter(dialect, list(types))
        self._provider = JdbcConnectionProvider(options)

    def open(self, context: Any) -> None:
        """Connect (auto-commit: each lookup sees what is committed when it runs)."""
        self._connect()
        if self.cache is not None:
            self.cache.clear()

    def _connect(self) -> None:
        connection = self._provider.get_or_establish_connection()
        set_autocommit(connection, self._database, True)

    def lookup(self, key_row: Row) -> Collection[Row]:
        """The table's rows with ``key_row``'s key (cached, with a cache)."""
        cache = self.cache
        if cache is not None:
            rows = cache.get_if_present(key_row)
            if rows is not None:
                return rows
        found = self._query(key_row)
        if cache is not None:
            cache.put(key_row, found)
        return found

    def _query(self, key_row: Row) -> list[Row]:
        parameters = self._key_parameters(key_row)
        for retry in range(self.max_retries + 1):
            try:
                cursor = self._provider.get_or_establish_connection().cursor()
                try:
                    cursor.execute(self.query, parameters)
                    convert = self._convert
                    return [convert(row) for row in cursor.fetchall()]
                finally:
                    cursor.close()
            except JdbcConnectorError:
                raise
            except Exception as err:
                _LOG.warning("JDBC lookup in %s failed, retry %d: %s", self.table, retry, driver_message(err))
                if retry >= self.max_retries:
                    raise JdbcConnectorError(
                        f"Execution of JDBC statement failed ({self.query}) looking up {key_row!r}: "
                        f"{driver_message(err)}"
                    ) from err
                if not self._provider.is_connection_valid():
                    self._provider.close_connection()
                    self._connect()
                time.sleep(retry)  # Flink waits 1 s x the retry before the next attempt
        return []

    def close(self) -> None:
        """Disconnect."""
        self._provider.close_connection()
