"""The ``jdbc`` table connector (Flink's ``JdbcDynamicTableFactory``): a database table read by
a bounded scan, written by an appending or upserting sink, and joined as a lookup table, over
Python DB-API drivers (``millstream.connectors.jdbc``).

::

    CREATE TABLE orders (id BIGINT, total DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED) WITH (
      'connector' = 'jdbc', 'url' = 'jdbc:postgresql://localhost:5432/shop',
      'table-name' = 'orders', 'username' = '...', 'password' = '...')

Scan: ``SELECT <the columns read> FROM <table-name> [WHERE ...]``; projections and simple
filters are pushed into it (``jdbc_filters``); ``scan.partition.column`` / ``.num`` /
``.lower-bound`` / ``.upper-bound`` cut it into ``BETWEEN`` ranges read in parallel
(``connectors.jdbc.splits``), ``scan.fetch-size`` and ``scan.auto-commit`` tune the reads.

Sink: without a PRIMARY KEY, an INSERT per row (insert-only input: an updating query is
refused); with one, the dialect's upsert for +I/+U and a DELETE by key for -D, the last change
of each key per batch (-U is dropped: its +U follows); batches flushed every
``sink.buffer-flush.max-rows`` rows (100), every ``sink.buffer-flush.interval`` (1 s) and on
each checkpoint, retried ``sink.max-retries`` times (3); ``sink.parallelism``.

Lookup: ``SELECT ... WHERE key = ?`` per input row, with ``lookup.cache`` = PARTIAL
(``lookup.partial-cache.max-rows``, ``.expire-after-write``, ``.expire-after-access``,
``.cache-missing-key``; the deprecated ``lookup.cache.max-rows`` + ``lookup.cache.ttl``) and
``lookup.max-retries``.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from typing import Any

from millstream.connectors.jdbc.converters import external_row_converter
from millstream.connectors.jdbc.dialects import JdbcDialect
from millstream.connectors.jdbc.lookup import JdbcRowDataLookupFunction
from millstream.connectors.jdbc.output_format import (
    BufferReducedStatementExecutor,
    JdbcOutputFormat,
    SimpleBatchStatementExecutor,
    StatementExecutor,
)
from millstream.connectors.jdbc.source import JdbcSource, JdbcSplit
from millstream.connectors.jdbc.splits import numeric_between_ranges
from millstream.datastream.connectors.jdbc import JdbcSink
from millstream.table.common.factories import DynamicTableFactory, TableContext, TableSink
from millstream.table.common.lookup_source import LookupContext, LookupFunctionProvider, LookupTableSource
from millstream.table.common.printing import row_to_string
from millstream.table.common.row_kind import DELETE, UPDATE_BEFORE
from millstream.table.common.table_source import TableSource
from millstream.table.common.types import DataType
from millstream.table.connectors.jdbc_filters import Predicate, to_predicate
from millstream.table.connectors.jdbc_options import (
    FILTER_HANDLING_POLICY,
    JDBC_OPTIONS,
    LOOKUP_CACHE,
    LOOKUP_MAX_RETRIES,
    REQUIRED_OPTIONS,
    SCAN_AUTO_COMMIT,
    SCAN_FETCH_SIZE,
    SINK_PARALLELISM,
    JdbcTableOptions,
    lookup_cache,
)

__all__ = ["JDBC", "JdbcDynamicTableFactory", "JdbcTableSink", "JdbcTableSource"]

_LOG = logging.getLogger(__name__)

# Flink's JdbcDynamicTableSink.validatePrimaryKey
NO_PRIMARY_KEY = "please declare primary key for sink table when query contains update/delete record."


@dataclass(frozen=True)
class JdbcTableSource(TableSource, LookupTableSource):
    """A ``jdbc`` table's rows: a bounded scan, or rows looked up by key.

    Supports projection push-down (``apply_projection``: only those columns are selected;
    ``table_columns`` keeps the table's) and filter push-down (``apply_filters``: the conjuncts
    that translate to SQL go into the WHERE clause, ``filters`` holds them for explain)."""

    options: dict[str, str] = field(default_factory=dict)
    table: str = ""  # the table's name in the catalog (names the source)
    table_columns: tuple[tuple[str, DataType], ...] | None = None
    filters: tuple[Any, ...] = ()
    predicates: tuple[Predicate, ...] = ()

    def _options(self) -> JdbcTableOptions:
        return JdbcTableOptions(dict(self.options))

    def apply_projection(self, names: list[str]) -> JdbcTableSource:
        """This table's columns ``names`` only, in that order."""
        columns = self.table_columns or tuple(zip(self.names, self.types, strict=True))
        types = dict(columns)
        return dataclasses.replace(
            self, names=list(names), types=[types[n] for n in names], table_columns=columns
        )

    def apply_filters(self, filters: list[Any]) -> JdbcTableSource:
        """This table with the conjuncts of ``filters`` that SQL can say in its query."""
        options = self._options()
        if str(options.get(FILTER_HANDLING_POLICY)).upper() == "NEVER":
            return self
        dialect = options.connection().dialect()
        columns = [n for n, _ in self.table_columns] if self.table_columns else list(self.names)
        accepted, predicates = [], []
        for conjunct in filters:
            predicate = to_predicate(conjunct, columns, dialect)
            if predicate is not None:
                accepted.append(conjunct)
                predicates.append(predicate)
        return dataclasses.replace(self, filters=tuple(accepted), predicates=tuple(predicates))

    def produce(self, env: Any, watermarks: Any) -> Any:
        """The scan's stream of (+I, row)."""
        source = self.scan_source()
        return env.from_source(source, watermarks, f"JdbcSource-{self.table}")

    def scan_source(self) -> JdbcSource:
        """The bounded source of the scan's query (its splits, a partitioned scan's ranges)."""
        options = self._options()
        connection = options.connection()
        dialect = connection.dialect()
        query = dialect.get_select_from_statement(options.table_name, list(self.names), [])
        if not self.names:  # no column read (SELECT 1 FROM t): a row per row of the table
            query = f"SELECT 1 FROM {dialect.quote_table(options.table_name)}"
        conditions = [sql for sql, _ in self.predicates]
        filter_parameters = tuple(p for _, parameters in self.predicates for p in parameters)
        splits = [JdbcSplit(0, filter_parameters)]
        partition = options.partition()
        if partition is not None:
            column, lower, upper, num = partition
            conditions.insert(
                0,
                f"{dialect.quote_identifier(column)} BETWEEN {dialect.placeholder} AND {dialect.placeholder}",
            )
            ranges = numeric_between_ranges(lower, upper, num)
            splits = [JdbcSplit(i, (low, high, *filter_parameters)) for i, (low, high) in enumerate(ranges)]
        if conditions:
            query += " WHERE " + " AND ".join(f"({c})" for c in conditions)
        return JdbcSource(
            connection,
            query,
            tuple(self.types),
            tuple(splits),
            table=options.table_name,
            fetch_size=options.get(SCAN_FETCH_SIZE),
            auto_commit=options.get(SCAN_AUTO_COMMIT),
        )

    def get_lookup_runtime_provider(self, context: LookupContext) -> LookupFunctionProvider:
        """The function fetching the rows of a key (with the table's partial cache)."""
        options = self._options()
        names = list(self.names)
        keys = [names[i] for i in context.key_indexes()]
        if str(options.get(LOOKUP_CACHE)).upper() == "FULL":
            _LOG.warning("table %s: 'lookup.cache' = 'FULL' is not a cache of the jdbc connector (Flink's "
                         "ignores it too): every lookup queries the database", self.table)  # fmt: skip
        function = JdbcRowDataLookupFunction(
            options.connection(),
            options.table_name,
            names,
            list(self.types),
            keys,
            options.get(LOOKUP_MAX_RETRIES),
            lookup_cache(options),
        )
        return LookupFunctionProvider.of(function)


class JdbcTableSink(TableSink):
    """Writes the query's changes: appended (no primary key) or upserted by the key."""

    def __init__(self, context: TableContext) -> None:
        self.context = context
        self.options = JdbcTableOptions(dict(context.options))
        self.key = list(context.primary_key)
        self.changelog = "all" if self.key else "insert-only"
        self.updates_refused = NO_PRIMARY_KEY  # the planner's message for an updating query

    def output_format(self) -> JdbcOutputFormat:
        """The batching writer of the table's rows (unopened)."""
        options = self.options
        columns = [n for n, _ in self.context.physical]
        column_types = [t for _, t in self.context.physical]
        connection = options.connection()
        factory = _TableStatements(connection.dialect(), options.table_name, columns, column_types, self.key)

        def describe(change: tuple[str, tuple[Any, ...]]) -> str:  # +I[1, a], as Flink prints rows
            return row_to_string(change[0], change[1], column_types)

        return JdbcOutputFormat(connection, options.execution(), factory, describe)

    def consume(self, stream: Any, names: list[str], types: list[DataType]) -> Any:
        options = self.options
        sink = stream.add_sink(_TableJdbcSink(self.output_format()))
        sink.name(f"JdbcSink-{self.context.name}")
        if options.has(SINK_PARALLELISM):
            sink.set_parallelism(options.get(SINK_PARALLELISM))
        return sink


class _TableJdbcSink(JdbcSink):
    """The table sink's function: its records are (kind, row) changes; -U is dropped (the +U
    after it writes the key's row), as Flink's planner gives an upsert sink none."""

    def invoke(self, value: Any, context: Any) -> None:
        if value[0] != UPDATE_BEFORE:
            self._output_format.write_record(value)


class _TableStatements:
    """Makes the table sink's executor on the subtask: an INSERT per row, or the upsert and the
    delete by key of the last change of each key."""

    def __init__(
        self, dialect: JdbcDialect, table: str, columns: list[str], types: list[DataType], key: list[str]
    ) -> None:
        self.dialect, self.table, self.columns, self.types, self.key = dialect, table, columns, types, key

    def __call__(self) -> StatementExecutor:
        dialect, table, columns = self.dialect, self.table, self.columns
        row_parameters = external_row_converter(dialect, self.types)
        if not self.key:
            insert = dialect.get_insert_into_statement(table, columns)
            return SimpleBatchStatementExecutor(insert, lambda change: row_parameters(change[1]))
        indexes = [columns.index(k) for k in self.key]
        key_converter = external_row_converter(dialect, [self.types[i] for i in indexes])

        def key_values(change: tuple[str, tuple[Any, ...]]) -> tuple[Any, ...]:
            row = change[1]
            return tuple([row[i] for i in indexes])

        return BufferReducedStatementExecutor(
            dialect.get_upsert_statement(table, columns, self.key),
            dialect.get_delete_statement(table, self.key),
            key_of=key_values,
            is_upsert=lambda change: change[0] not in (DELETE, UPDATE_BEFORE),
            row_parameters=lambda change: row_parameters(change[1]),
            key_parameters=lambda change: key_converter(key_values(change)),
        )


class JdbcDynamicTableFactory(DynamicTableFactory):
    """``'connector' = 'jdbc'``."""

    identifier = "jdbc"
    options = JDBC_OPTIONS
    required_options = REQUIRED_OPTIONS

    def validate(self, context: TableContext, formats: list[tuple[str, str]]) -> None:
        """Flink's option checks, then the dialect's check of the columns' types."""
        super().validate(context, formats)
        options = JdbcTableOptions(dict(context.options))
        options.validate()
        names = [n for n, _ in context.physical]
        types = [t for _, t in context.physical]
        options.connection().dialect().validate(names, types)

    def create_source(self, context: TableContext) -> TableSource:
        names = [n for n, _ in context.physical]
        types = [t for _, t in context.physical]
        return JdbcTableSource(names, types, options=dict(context.options), table=context.name)

    def create_sink(self, context: TableContext) -> TableSink:
        return JdbcTableSink(context)


JDBC = JdbcDynamicTableFactory()
