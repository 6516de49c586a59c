"""The ``jdbc`` table connector's options, as Flink's ``JdbcConnectorOptions`` and
``LookupOptions`` declare them (keys, types, defaults), and the checks of
``JdbcDynamicTableFactory.validateConfigOptions`` and ``DefaultLookupCache.fromConfig`` with
their messages (one line each: Flink's "Either all or none of the following options" lists
the options on one line here). Coordinating code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from millstream.common.config_option import ConfigOption
from millstream.connectors.jdbc.connection import JdbcOptions
from millstream.connectors.jdbc.errors import JdbcConnectorError
from millstream.connectors.jdbc.lookup import LookupCache
from millstream.connectors.jdbc.options import JdbcExecutionOptions
from millstream.table.common.factories import TableContext

__all__ = ["JDBC_OPTIONS", "REQUIRED_OPTIONS", "JdbcTableOptions", "lookup_cache"]

URL: ConfigOption[str] = ConfigOption("url", "", str, "The JDBC database URL.")
TABLE_NAME: ConfigOption[str] = ConfigOption("table-name", "", str, "The JDBC table name.")
USERNAME: ConfigOption[str] = ConfigOption("username", "", str, "The JDBC user name.")
PASSWORD: ConfigOption[str] = ConfigOption("password", "", str, "The JDBC password.")
DRIVER: ConfigOption[str] = ConfigOption(
    "driver", "", str, "The JDBC driver's class name (from the URL if unset)."
)
MAX_RETRY_TIMEOUT: ConfigOption[int] = ConfigOption(
    "connection.max-retry-timeout", 60_000, int, "Maximum timeout between retries.", unit="ms"
)
SCAN_PARTITION_COLUMN: ConfigOption[str] = ConfigOption(
    "scan.partition.column", "", str, "The column name used for partitioning the input."
)
SCAN_PARTITION_NUM: ConfigOption[int] = ConfigOption(
    "scan.partition.num", 0, int, "The number of partitions."
)
SCAN_PARTITION_LOWER_BOUND: ConfigOption[int] = ConfigOption(
    "scan.partition.lower-bound", 0, int, "The smallest value of the first partition."
)
SCAN_PARTITION_UPPER_BOUND: ConfigOption[int] = ConfigOption(
    "scan.partition.upper-bound", 0, int, "The largest value of the last partition."
)
SCAN_FETCH_SIZE: ConfigOption[int] = ConfigOption(
    "scan.fetch-size", 0, int, "Rows fetched from the database per round-trip when reading (0: the driver's)."
)
SCAN_AUTO_COMMIT: ConfigOption[bool] = ConfigOption(
    "scan.auto-commit", True, bool, "Sets whether the driver is in auto-commit mode."
)
LOOKUP_CACHE: ConfigOption[str] = ConfigOption(
    "lookup.cache",
    "NONE",
    str,
    "The caching strategy of the lookup table.",
    choices=("NONE", "PARTIAL", "FULL"),
)
LOOKUP_MAX_RETRIES: ConfigOption[int] = ConfigOption(
    "lookup.max-retries", 3, int, "The max retry times if lookup database failed."
)
PARTIAL_CACHE_MAX_ROWS: ConfigOption[int] = ConfigOption(
    "lookup.partial-cache.max-rows", 0, int, "The maximum number of rows to store in the cache."
)
PARTIAL_CACHE_EXPIRE_AFTER_WRITE: ConfigOption[int] = ConfigOption(
    "lookup.partial-cache.expire-after-write", 0, int, "Duration to expire an entry after writing.", unit="ms"
)
PARTIAL_CACHE_EXPIRE_AFTER_ACCESS: ConfigOption[int] = ConfigOption(
    "lookup.partial-cache.expire-after-access", 0, int, "Duration to expire an entry after access.", unit="ms"
)
PARTIAL_CACHE_CACHE_MISSING_KEY: ConfigOption[bool] = ConfigOption(
    "lookup.partial-cache.cache-missing-key", True, bool, "Whether to store an empty value into the cache."
)
LOOKUP_CACHE_MAX_ROWS: ConfigOption[int] = ConfigOption(
    "lookup.cache.max-rows", -1, int, "Deprecated: use lookup.partial-cache.max-rows."
)
LOOKUP_CACHE_TTL: ConfigOption[int] = ConfigOption(
    "lookup.cache.ttl", 10_000, int, "Deprecated: use lookup.partial-cache.expire-after-write.", unit="ms"
)
LOOKUP_CACHE_MISSING_KEY: ConfigOption[bool] = ConfigOption(
    "lookup.cache.caching-missing-key", True, bool, "Deprecated: use lookup.partial-cache.cache-missing-key."
)
SINK_BUFFER_FLUSH_MAX_ROWS: ConfigOption[int] = ConfigOption(
    "sink.buffer-flush.max-rows", 100, int, "The flush max size (append, upsert and delete records)."
)
SINK_BUFFER_FLUSH_INTERVAL: ConfigOption[int] = ConfigOption(
    "sink.buffer-flush.interval", 1_000, int, "The flush interval.", unit="ms"
)
SINK_MAX_RETRIES: ConfigOption[int] = ConfigOption(
    "sink.max-retries", 3, int, "The max retry times if writing records to database failed."
)
SINK_PARALLELISM: ConfigOption[int] = ConfigOption("sink.parallelism", 0, int, "The sink's parallelism.")
FILTER_HANDLING_POLICY: ConfigOption[str] = ConfigOption(
    "filter.handling.policy",
    "ALWAYS",
    str,
    "Whether filters are pushed into the scan.",
    choices=("ALWAYS", "NEVER"),
)

_DECLARED = (
    URL,
    TABLE_NAME,
    USERNAME,
    PASSWORD,
    DRIVER,
    MAX_RETRY_TIMEOUT,
    SCAN_PARTITION_COLUMN,
    SCAN_PARTITION_NUM,
    SCAN_PARTITION_LOWER_BOUND,
    SCAN_PARTITION_UPPER_BOUND,
    SCAN_FETCH_SIZE,
    SCAN_AUTO_COMMIT,
    LOOKUP_CACHE,
    LOOKUP_MAX_RETRIES,
    PARTIAL_CACHE_MAX_ROWS,
    PARTIAL_CACHE_EXPIRE_AFTER_WRITE,
    PARTIAL_CACHE_EXPIRE_AFTER_ACCESS,
    PARTIAL_CACHE_CACHE_MISSING_KEY,
    LOOKUP_CACHE_MAX_ROWS,
    LOOKUP_CACHE_TTL,
    LOOKUP_CACHE_MISSING_KEY,
    SINK_BUFFER_FLUSH_MAX_ROWS,
    SINK_BUFFER_FLUSH_INTERVAL,
    SINK_MAX_RETRIES,
    SINK_PARALLELISM,
    FILTER_HANDLING_POLICY,
)
JDBC_OPTIONS = frozenset(o.key for o in _DECLARED) | {"connector"}
REQUIRED_OPTIONS = frozenset({URL.key, TABLE_NAME.key})
_PARTITION_OPTIONS = (
    SCAN_PARTITION_COLUMN,
    SCAN_PARTITION_NUM,
    SCAN_PARTITION_LOWER_BOUND,
    SCAN_PARTITION_UPPER_BOUND,
)


@dataclass(frozen=True)
class JdbcTableOptions:
    """A ``jdbc`` table's options, parsed and checked."""

    raw: dict[str, str]

    def get(self, option: ConfigOption[Any]) -> Any:
        """The option's value (its default when unset).

        Raises:
            ConfigurationError: a malformed value (one line naming the key).
        """
        return option.parse(self.raw[option.key]) if option.key in self.raw else option.default

    def has(self, option: ConfigOption[Any]) -> bool:
        """Whether the table sets the option."""
        return option.key in self.raw

    @property
    def table_name(self) -> str:
        """The table in the database."""
        return str(self.get(TABLE_NAME))

    def connection(self) -> JdbcOptions:
        """Where and as whom to connect."""
        return JdbcOptions(
            self.get(URL),
            self.raw.get(DRIVER.key),
            self.raw.get(USERNAME.key),
            self.raw.get(PASSWORD.key),
            max(1, int(self.get(MAX_RETRY_TIMEOUT)) // 1000),
        )

    def execution(self) -> JdbcExecutionOptions:
        """The sink's batching: ``sink.buffer-flush.*`` and ``sink.max-retries``."""
        return JdbcExecutionOptions(
            self.get(SINK_BUFFER_FLUSH_INTERVAL),
            self.get(SINK_BUFFER_FLUSH_MAX_ROWS),
            self.get(SINK_MAX_RETRIES),
        )

    def partition(self) -> tuple[str, int, int, int] | None:
        """(column, lower bound, upper bound, partitions) of a partitioned scan, or None."""
        if not self.has(SCAN_PARTITION_COLUMN):
            return None
        return (
            self.get(SCAN_PARTITION_COLUMN),
            self.get(SCAN_PARTITION_LOWER_BOUND),
            self.get(SCAN_PARTITION_UPPER_BOUND),
            self.get(SCAN_PARTITION_NUM),
        )

    def validate(self) -> None:
        """Flink's ``validateConfigOptions`` (and the parse of every option's value).

        Raises:
            ValueError: Flink's message naming the option.
        """
        for option in _DECLARED:
            self.get(option)
        try:
            self.connection().dialect()  # the URL (and driver) must be one millstream reaches
        except JdbcConnectorError as err:
            raise ValueError(str(err)) from None
        _all_or_none(self, (USERNAME, PASSWORD))
        _all_or_none(self, _PARTITION_OPTIONS)
        if self.has(SCAN_PARTITION_LOWER_BOUND) and self.has(SCAN_PARTITION_UPPER_BOUND):
            lower, upper = self.get(SCAN_PARTITION_LOWER_BOUND), self.get(SCAN_PARTITION_UPPER_BOUND)
            if lower > upper:
                raise ValueError(
                    f"'{SCAN_PARTITION_LOWER_BOUND.key}'='{lower}' must not be larger than "
                    f"'{SCAN_PARTITION_UPPER_BOUND.key}'='{upper}'."
                )
        _all_or_none(self, (LOOKUP_CACHE_MAX_ROWS, LOOKUP_CACHE_TTL))
        for option in (LOOKUP_MAX_RETRIES, SINK_MAX_RETRIES):
            if self.get(option) < 0:
                raise ValueError(
                    f"The value of '{option.key}' option shouldn't be negative, but is {self.get(option)}."
                )
        if self.get(MAX_RETRY_TIMEOUT) < 1000 or self.get(MAX_RETRY_TIMEOUT) % 1000:
            raise ValueError(
                f"The value of '{MAX_RETRY_TIMEOUT.key}' option must be in second granularity and shouldn't "
                f"be smaller than 1 second, but is {self.raw[MAX_RETRY_TIMEOUT.key]}."
            )
        if self.has(SCAN_PARTITION_NUM) and self.get(SCAN_PARTITION_NUM) <= 0:
            raise ValueError("Batch number must be positive")
        lookup_cache(self)


def _all_or_none(options: JdbcTableOptions, group: tuple[ConfigOption[Any], ...]) -> None:
    present = sum(options.has(o) for o in group)
    if present not in (0, len(group)):
        raise ValueError(
            "Either all or none of the following options should be provided: "
            + ", ".join(o.key for o in group)
        )


def lookup_cache(options: JdbcTableOptions) -> LookupCache | None:
    """The lookup cache the options ask for (Flink's ``JdbcDynamicTableFactory.getLookupCache``):
    the deprecated ``lookup.cache.max-rows`` + ``lookup.cache.ttl``, or ``lookup.cache`` =
    PARTIAL with ``lookup.partial-cache.*``; None: every lookup queries.

    Raises:
        ValueError: PARTIAL without any eviction (``DefaultLookupCache.fromConfig``'s message).
    """
    cache = None
    if options.get(LOOKUP_CACHE_MAX_ROWS) > 0 and options.get(LOOKUP_CACHE_TTL) > 0:
        cache = LookupCache(
            expire_after_write_s=options.get(LOOKUP_CACHE_TTL) / 1000,
            maximum_size=options.get(LOOKUP_CACHE_MAX_ROWS),
            cache_missing_key=options.get(LOOKUP_CACHE_MISSING_KEY),
        )
    if str(options.get(LOOKUP_CACHE)).upper() == "PARTIAL":
        evictions = (
            PARTIAL_CACHE_EXPIRE_AFTER_ACCESS,
            PARTIAL_CACHE_EXPIRE_AFTER_WRITE,
            PARTIAL_CACHE_MAX_ROWS,
        )
        if not any(options.has(o) for o in evictions):
            raise ValueError(
                f"Missing '{PARTIAL_CACHE_EXPIRE_AFTER_ACCESS.key}', "
                f"'{PARTIAL_CACHE_EXPIRE_AFTER_WRITE.key}' or '{PARTIAL_CACHE_MAX_ROWS.key}' in the "
                "configuration. The cache will not have evictions under this configuration and could lead "
                "to potential memory issues as the cache size may grow indefinitely."
            )

        def seconds(option: ConfigOption[int]) -> float | None:
            return options.get(option) / 1000 if options.has(option) else None

        cache = LookupCache(
            expire_after_access_s=seconds(PARTIAL_CACHE_EXPIRE_AFTER_ACCESS),
            expire_after_write_s=seconds(PARTIAL_CACHE_EXPIRE_AFTER_WRITE),
            maximum_size=options.get(PARTIAL_CACHE_MAX_ROWS) if options.has(PARTIAL_CACHE_MAX_ROWS) else None,
            cache_missing_key=options.get(PARTIAL_CACHE_CACHE_MISSING_KEY),
        )
    return cache


def table_options(context: TableContext) -> JdbcTableOptions:
    """The options of a ``jdbc`` table."""
    return JdbcTableOptions(dict(context.options))
