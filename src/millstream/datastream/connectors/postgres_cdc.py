"""Flink CDC's PostgreSQL source names (``org.apache.flink.cdc.connectors.postgres``) in
snake_case: ``PostgreSQLSource.builder()`` / ``PostgresSourceBuilder.PostgresIncrementalSource
.builder()``, ``StartupOptions``, ``JsonDebeziumDeserializationSchema``."""

from millstream.connectors.postgres_cdc.config import StartupOptions
from millstream.connectors.postgres_cdc.debezium import (
    DebeziumDeserializationSchema,
    JsonDebeziumDeserializationSchema,
)
from millstream.connectors.postgres_cdc.records import ChangeEvent, TableSchema
from millstream.connectors.postgres_cdc.source import (
    PostgresIncrementalSource,
    PostgreSQLSource,
    PostgresSource,
    PostgresSourceBuilder,
)

__all__ = [
    "ChangeEvent",
    "DebeziumDeserializationSchema",
    "JsonDebeziumDeserializationSchema",
    "PostgreSQLSource",
    "PostgresIncrementalSource",
    "PostgresSource",
    "PostgresSourceBuilder",
    "StartupOptions",
    "TableSchema",
]
