"""The ``postgres-cdc`` table connector, with Flink CDC's options (read in Flink CDC's
``PostgreSQLTableFactory``, ``PostgresSourceOptions`` and ``PostgreSQLReadableMetadata``).

Required: ``hostname``, ``username``, ``password``, ``database-name``, ``schema-name`` and
``table-name`` (regular expressions; the source reads every table whose ``schema.table``
matches ``<schema-name>.<table-name>``, as Flink CDC's table list), ``slot.name``. Optional:
``port`` (5432), ``decoding.plugin.name`` (``pgoutput``, the only one decoded),
``changelog-mode`` (``all``: +I/-U/+U/-D, the old rows from REPLICA IDENTITY FULL; ``upsert``:
+I/+U/-D by the PRIMARY KEY, normalized by the planner, for tables whose replica identity is
not FULL), ``scan.startup.mode`` (``initial``: a snapshot, then the changes; ``latest-offset``),
``scan.snapshot.fetch.size`` (1024), ``scan.incremental.snapshot.enabled`` (either value: the
snapshot is always checkpointed as it goes, in one reader), ``connect.timeout`` (30 s),
``debezium.*`` (``config``: the Debezium properties that mean something here).

Metadata columns (read only): ``database_name``, ``schema_name``, ``table_name`` (STRING NOT
NULL), ``op_ts`` (TIMESTAMP_LTZ(3) NOT NULL: the commit time, 0 for snapshot rows) and
``row_kind`` (STRING NOT NULL: ``+I``, ``-U``, ``+U``, ``-D``).
"""

from __future__ import annotations

import datetime
import decimal
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from millstream.connectors.postgres_cdc.config import PostgresCdcError, PostgresSourceConfig, StartupOptions
from millstream.connectors.postgres_cdc.records import ChangeEvent, TableSchema
from millstream.connectors.postgres_cdc.source import PostgresSource, check_plugin
from millstream.table.common.factories import (
    DELETE,
    INSERT,
    UPDATE_AFTER,
    UPDATE_BEFORE,
    DynamicTableFactory,
    TableContext,
)
from millstream.table.common.options import parse_duration_ms
from millstream.table.common.table_source import TableSource
from millstream.table.common.timestamps import from_epoch_millis
from millstream.table.common.types import DataType

__all__ = ["POSTGRES_CDC", "PostgresCdcTableSource"]

_READABLE = {
    "database_name": "STRING NOT NULL",
    "schema_name": "STRING NOT NULL",
    "table_name": "STRING NOT NULL",
    "op_ts": "TIMESTAMP_LTZ(3) NOT NULL",
    "row_kind": "STRING NOT NULL",
}
_REPLICA_IDENTITY = (
    'The "before" field of UPDATE/DELETE message is null, please check the Postgres table has been '
    "set REPLICA IDENTITY to FULL level. You can update the setting by running the command in "
    "Postgres 'ALTER TABLE {table} REPLICA IDENTITY FULL' (or read the table with "
    "'changelog-mode' = 'upsert')"
)
_UTC = datetime.UTC


def config_of(context: TableContext) -> PostgresSourceConfig:
    """The source's settings from the table's options."""
    options = context.options
    check_plugin(options.get("decoding.plugin.name", "pgoutput"))
    schema, table = options["schema-name"], options["table-name"]
    timeout = options.get("connect.timeout")
    return PostgresSourceConfig(
        options["hostname"],
        _integer(options, "port", "5432"),
        options["database-name"],
        options["username"],
        options["password"],
        (schema,),
        (f"{schema}.{table}",),
        options["slot.name"],
        StartupOptions.of(options.get("scan.startup.mode", "initial")),
        {k[len("debezium.") :]: v for k, v in options.items() if k.startswith("debezium.")}
        | (
            {"snapshot.fetch.size": options["scan.snapshot.fetch.size"]}
            if "scan.snapshot.fetch.size" in options
            else {}
        ),
        30 if timeout is None else max(1, parse_duration_ms(timeout) // 1000),
    )


def _integer(options: dict[str, str], key: str, default: str) -> int:
    value = options.get(key, default)
    if not value.strip().isdigit():
        raise ValueError(f"option '{key}' must be a positive integer, got {value!r}")
    return int(value)


def _converter(data_type: DataType) -> Callable[[Any], Any]:
    """A psycopg value -> the value of a column of ``data_type``."""
    root = data_type.root
    if root in ("STRING", "CHAR", "VARCHAR"):
        return lambda v: v if type(v) is str else json.dumps(v) if isinstance(v, (dict, list)) else str(v)
    if root in ("INT", "BIGINT", "SMALLINT", "TINYINT"):
        return int
    if root in ("FLOAT", "DOUBLE"):
        return float
    if root == "DECIMAL":
        return lambda v: v if type(v) is decimal.Decimal else decimal.Decimal(str(v))
    if root == "BOOLEAN":
        return bool
    if root in ("BYTES", "BINARY", "VARBINARY"):
        return bytes
    if root == "DATE":
        return lambda v: v.date() if isinstance(v, datetime.datetime) else v
    if root == "TIME":
        return lambda v: v.replace(tzinfo=None) if isinstance(v, datetime.time) else v
    if root == "TIMESTAMP":
        return lambda v: v.astimezone(_UTC).replace(tzinfo=None) if v.tzinfo is not None else v
    if root == "TIMESTAMP_LTZ":  # an instant, held as the session zone's wall-clock time
        return lambda v: v.astimezone().replace(tzinfo=None) if v.tzinfo is not None else v
    return lambda v: v


@dataclass(frozen=True)
class _Layout:
    """Where a captured table's columns go in the table's rows."""

    table: TableSchema
    positions: tuple[int, ...]


class _TableDeserializer:
    """Change events -> the table's ``(kind, row)`` changes: the physical columns by name,
    then the metadata columns."""

    def __init__(self, context: TableContext, upsert: bool) -> None:
        self.context, self.upsert = context, upsert
        self._layouts: dict[int, _Layout] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"context": self.context, "upsert": self.upsert}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["context"], state["upsert"])  # type: ignore[misc]

    def get_produced_type(self) -> Any:
        return None  # pickled (kind, row) pairs

    def _layout(self, table: TableSchema) -> _Layout:
        layout = self._layouts.get(id(table))
        if layout is not None and layout.table is table:
            return layout
        index = {name: i for i, name in enumerate(table.columns)}
        missing = [n for n, _ in self.context.physical if n not in index]
        if missing:
            raise PostgresCdcError(
                f"postgres-cdc: column(s) {', '.join(missing)} of table '{self.context.name}' are not "
                f"columns of {table.qualified} ({', '.join(table.columns)})"
            )
        if len(self._layouts) > 256:
            self._layouts.clear()
        layout = self._layouts[id(table)] = _Layout(table, tuple(index[n] for n, _ in self.context.physical))
        return layout

    def _converters(self) -> list[Callable[[Any], Any]]:
        converters = self.__dict__.get("_converted")
        if converters is None:
            converters = self.__dict__["_converted"] = [_converter(t) for _, t in self.context.physical]
        return converters

    def _row(self, event: ChangeEvent, values: tuple[Any, ...], kind: str) -> tuple[Any, ...]:
        layout = self._layout(event.table)
        row = [
            None if values[p] is None else c(values[p])
            for p, c in zip(layout.positions, self._converters(), strict=True)
        ]
        for column in self.context.metadata:
            row.append(_metadata(column.key, event, kind))
        return tuple(row)

    def deserialize(self, event: ChangeEvent, out: Any) -> None:
        """Emit the event's changes."""
        op = event.op
        if op in ("r", "c"):
            assert event.after is not None
            out.collect((INSERT, self._row(event, event.after, INSERT)))
        elif op == "u":
            assert event.after is not None
            if not self.upsert:
                if event.before is None or not event.before_complete:
                    raise PostgresCdcError(_REPLICA_IDENTITY.format(table=event.table.qualified))
                out.collect((UPDATE_BEFORE, self._row(event, event.before, UPDATE_BEFORE)))
            out.collect((UPDATE_AFTER, self._row(event, event.after, UPDATE_AFTER)))
        elif op == "d":
            assert event.before is not None
            if not self.upsert and not event.before_complete:
                raise PostgresCdcError(_REPLICA_IDENTITY.format(table=event.table.qualified))
            out.collect((DELETE, self._row(event, event.before, DELETE)))


def _metadata(key: str, event: ChangeEvent, kind: str) -> Any:
    if key == "database_name":
        return event.table.database
    if key == "schema_name":
        return event.table.schema
    if key == "table_name":
        return event.table.name
    if key == "op_ts":
        return from_epoch_millis(event.ts_ms, "TIMESTAMP_LTZ")
    return kind  # row_kind


@dataclass(frozen=True)
class PostgresCdcTableSource(TableSource):
    """A postgres-cdc table's source: one reader (a slot has one consumer)."""

    context: Any = None
    upsert: bool = False

    def produce(self, env: Any, watermarks: Any) -> Any:
        context: TableContext = self.context
        source = PostgresSource(config_of(context), _TableDeserializer(context, self.upsert))
        stream = env.from_source(source, watermarks, f"PostgresSource-{context.name}")
        return stream.set_parallelism(1)


class PostgresCdcTableFactory(DynamicTableFactory):
    """``'connector' = 'postgres-cdc'``."""

    identifier = "postgres-cdc"
    options = frozenset(
        {
            "hostname",
            "port",
            "username",
            "password",
            "database-name",
            "schema-name",
            "table-name",
            "slot.name",
            "decoding.plugin.name",
            "changelog-mode",
            "scan.startup.mode",
            "scan.snapshot.fetch.size",
            "scan.incremental.snapshot.enabled",
            "connect.timeout",
        }
    )
    option_prefixes = ("debezium.",)
    required_options = frozenset(
        {"hostname", "username", "password", "database-name", "schema-name", "table-name", "slot.name"}
    )
    readable_metadata = _READABLE

    def validate(self, context: TableContext, formats: list[tuple[str, str]]) -> None:
        super().validate(context, formats)
        mode = context.options.get("changelog-mode", "all").lower()
        if mode not in ("all", "upsert"):
            raise ValueError(
                f"table '{context.name}': 'changelog-mode' must be 'all' or 'upsert', got {mode!r}"
            )
        if mode == "upsert" and not context.primary_key:
            raise ValueError(
                f"table '{context.name}': Primary key must be present when upsert mode is selected."
            )
        context.flag("scan.incremental.snapshot.enabled")
        config_of(context)

    def create_source(self, context: TableContext) -> TableSource:
        names = [n for n, _ in context.physical] + [c.name for c in context.metadata]
        types = [t for _, t in context.physical] + [c.data_type for c in context.metadata]
        if context.options.get("changelog-mode", "all").lower() == "upsert":
            keys = [names.index(n) for n in context.primary_key]
            return PostgresCdcTableSource(names, types, "upsert", keys, context=context, upsert=True)
        return PostgresCdcTableSource(names, types, "all", context=context)


POSTGRES_CDC = PostgresCdcTableFactory()
