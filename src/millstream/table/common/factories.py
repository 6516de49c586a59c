"""Table connectors and formats found by identifier, as Flink's ``FactoryUtil`` discovers
``DynamicTableFactory`` and format factories: ``'connector' = 'kafka'`` names a
:class:`DynamicTableFactory`, ``'format' = 'json'`` (or ``'key.format'`` / ``'value.format'``)
a :class:`FormatFactory`.

The built-in factories are imported when first named (a program that never reads Kafka never
imports the Kafka client); more are added with :func:`register_table_factory` /
:func:`register_format_factory` or by a package's ``millstream.table_factories`` /
``millstream.format_factories`` entry points (an object with ``identifier``), so a new
connector touches no module of the planner.

A factory that declares its options (``options``: keys, ``option_prefixes``: families such as
``properties.``) has them checked as Flink's ``FactoryUtil.validateFactoryOptions``: a
required option missing or an unknown key fails the table with the key named.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from millstream.table.common.types import DataType

if TYPE_CHECKING:
    from millstream.table.common.schema import Schema
    from millstream.table.common.table_source import TableSource

__all__ = [
    "Decoder",
    "DynamicTableFactory",
    "Encoder",
    "FormatFactory",
    "MetadataColumn",
    "TableContext",
    "TableSink",
    "find_format_factory",
    "find_table_factory",
    "register_format_factory",
    "register_table_factory",
]

INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = "+I", "-U", "+U", "-D"

# identifier -> "module:attribute" of the built-in factories, imported on first use
_BUILTIN_TABLE_FACTORIES = {
    "blackhole": "millstream.table.connectors.builtin:BLACKHOLE",
    "datagen": "millstream.table.connectors.builtin:DATAGEN",
    "print": "millstream.table.connectors.builtin:PRINT",
    "filesystem": "millstream.table.connectors.filesystem:FILESYSTEM",
    "jdbc": "millstream.table.connectors.jdbc:JDBC",
    "kafka": "millstream.connectors.kafka.table:KAFKA",
    "upsert-kafka": "millstream.connectors.kafka.table:UPSERT_KAFKA",
    "postgres-cdc": "millstream.connectors.postgres_cdc.table:POSTGRES_CDC",
}
_BUILTIN_FORMAT_FACTORIES = {
    "json": "millstream.connectors.formats.row_formats:JSON",
    "csv": "millstream.connectors.formats.row_formats:CSV",
    "raw": "millstream.connectors.formats.row_formats:RAW",
    "avro": "millstream.connectors.formats.avro:AVRO",
    "parquet": "millstream.connectors.formats.parquet:PARQUET",
    "debezium-json": "millstream.connectors.formats.changelog_json:DEBEZIUM_JSON",
    "canal-json": "millstream.connectors.formats.changelog_json:CANAL_JSON",
}
_table_factories: dict[str, Any] = {}
_format_factories: dict[str, Any] = {}


@dataclass(frozen=True)
class MetadataColumn:
    """``name TYPE METADATA [FROM 'key'] [VIRTUAL]``: a value the connector or format reads
    (or writes, unless virtual) beside the record's fields."""

    name: str
    data_type: DataType
    key: str  # the metadata key (the column's name when FROM is left out)
    virtual: bool = False
    declared_key: bool = False  # FROM 'key' was written (Flink prints it then, even if the name)


@dataclass(frozen=True)
class TableContext:
    """What a factory is given: the table's name, schema and options."""

    name: str
    schema: Schema
    options: dict[str, str]
    partition_keys: list[str] = field(default_factory=list)

    @property
    def physical(self) -> list[tuple[str, DataType]]:
        """The physical columns (those a format reads and writes)."""
        return list(self.schema.columns)

    @property
    def metadata(self) -> list[MetadataColumn]:
        """The metadata columns, in declaration order."""
        return list(self.schema.metadata_columns)

    @property
    def primary_key(self) -> list[str]:
        """The primary key's columns (none: an empty list)."""
        return list(self.schema.primary_key_columns)

    def option(self, key: str, default: str | None = None) -> str | None:
        """An option's value."""
        return self.options.get(key, default)

    def flag(self, key: str, default: bool = False) -> bool:
        """A boolean option (``'true'`` / ``'false'``, any case)."""
        value = self.options.get(key)
        if value is None:
            return default
        if value.lower() not in ("true", "false"):
            raise ValueError(f"table '{self.name}': option '{key}' must be 'true' or 'false', got {value!r}")
        return value.lower() == "true"


class TableSink:
    """What a sink factory creates: ``consume`` turns the query's stream of ``(kind, row)``
    changes into the job's sink. ``changelog``: the changes it accepts (``insert-only``,
    ``upsert``: +I/+U/-D by key, ``all``)."""

    changelog: str = "insert-only"
    takes_batches: bool = False  # consume_batches is implemented

    def consume(self, stream: Any, names: list[str], types: list[DataType]) -> Any:
        """Add the sink to ``stream``; the DataStreamSink."""
        raise NotImplementedError

    def consume_batches(self, stream: Any, names: list[str], types: list[DataType]) -> Any:
        """Add the sink to a stream of ``ChangeBatch`` elements (inserted rows as Arrow record
        batches, ``runtime/change_batch.py``); the planner calls it, instead of ``consume``, when the
        query is a columnar scan and ``takes_batches`` is true."""
        raise NotImplementedError


class DynamicTableFactory:
    """A connector: ``identifier`` is its ``'connector'`` value. ``options`` / ``option_prefixes``
    (None: not checked) and ``required_options`` declare what it understands;
    ``readable_metadata`` / ``writable_metadata`` the metadata keys and their types."""

    identifier: ClassVar[str] = ""
    options: ClassVar[frozenset[str] | None] = None
    option_prefixes: ClassVar[tuple[str, ...]] = ()
    required_options: ClassVar[frozenset[str]] = frozenset()
    readable_metadata: ClassVar[dict[str, str]] = {}
    writable_metadata: ClassVar[dict[str, str]] = {}

    def create_source(self, context: TableContext) -> TableSource:
        """The source reading the table (``table_source.TableSource``): its columns are the
        physical ones, then the metadata columns, named as declared."""
        raise ValueError(f"table '{context.name}' ({self.identifier}) can only be written to")

    def create_sink(self, context: TableContext) -> TableSink:
        """The sink writing the table (its columns: the physical and persisted metadata ones)."""
        raise ValueError(f"table '{context.name}' ({self.identifier}) can only be read")

    def validate(self, context: TableContext, formats: list[tuple[str, str]]) -> None:
        """Check the options (as Flink's ``validateFactoryOptions`` + unconsumed keys) and the
        metadata columns. ``formats``: the (option key, format identifier) pairs in use, whose
        ``<prefix><format>.*`` options belong to the format."""
        name, options = context.name, context.options
        missing = sorted(k for k in self.required_options if k not in options)
        if missing:
            raise ValueError(
                f"table '{name}' ({self.identifier}) is missing the required option(s) {', '.join(missing)}"
            )
        if self.options is not None:
            format_prefixes = tuple(f"{key[: -len('format')]}{identifier}." for key, identifier in formats)
            unknown = sorted(
                k
                for k in options
                if k not in self.options and not k.startswith(self.option_prefixes + format_prefixes)
            )
            if unknown:
                raise ValueError(
                    f"Unsupported options found for '{self.identifier}' in table '{name}': "
                    f"{', '.join(unknown)} (supported: {', '.join(sorted(self.options))}, "
                    f"{', '.join(p + '*' for p in self.option_prefixes + format_prefixes)})"
                )
        for column in context.metadata:
            # a virtual column is only read; a persisted one is read, written, or both
            known = (
                self.readable_metadata
                if column.virtual
                else {**self.readable_metadata, **self.writable_metadata}
            )
            if column.key not in known:
                raise ValueError(
                    f"Invalid metadata key '{column.key}' in column '{column.name}' of table '{name}' "
                    f"({self.identifier}): supported keys are {', '.join(sorted(known)) or 'none'}"
                )


Decoder = Callable[[bytes], Any]
Encoder = Callable[[tuple[str, tuple[Any, ...]]], bytes | None]


class FormatFactory:
    """A format: ``identifier`` is its ``'format'`` value. ``changelog``: whether it carries
    updates and deletes (``debezium-json``: a decoder returns a list of ``(kind, row)``
    changes) or inserts only (a decoder returns one row, or None to skip the record)."""

    identifier: ClassVar[str] = ""
    changelog: ClassVar[bool] = False

    def decoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Decoder:
        """bytes -> a row (insert-only formats) or a list of ``(kind, row)`` changes.
        ``options``: the table's; this format's are the keys ``<prefix><identifier>.*``."""
        raise ValueError(f"the '{self.identifier}' format cannot be read")

    def encoder(
        self, names: list[str], types: list[DataType], options: dict[str, str], prefix: str
    ) -> Encoder:
        """``(kind, row)`` -> bytes (None: nothing to write)."""
        raise ValueError(f"the '{self.identifier}' format cannot be written")


def format_option(options: dict[str, str], prefix: str, identifier: str, key: str, default: str) -> str:
    """The value of a format's option ``key`` (``'<prefix><identifier>.<key>'``)."""
    return options.get(f"{prefix}{identifier}.{key}", default)


def register_table_factory(factory: Any) -> None:
    """Make ``factory`` the connector named ``factory.identifier``."""
    _table_factories[factory.identifier] = factory


def register_format_factory(factory: Any) -> None:
    """Make ``factory`` the format named ``factory.identifier``."""
    _format_factories[factory.identifier] = factory


def _find(identifier: str, found: dict[str, Any], builtin: dict[str, str], group: str, kind: str) -> Any:
    factory = found.get(identifier)
    if factory is not None:
        return factory
    target = builtin.get(identifier)
    if target is not None:
        module, attribute = target.split(":")
        factory = found[identifier] = getattr(importlib.import_module(module), attribute)
        return factory
    # importlib.metadata (~17 ms of start-up): imported only for a factory not built in
    from importlib.metadata import entry_points

    for entry in entry_points(group=group):
        if entry.name == identifier:
            factory = found[identifier] = entry.load()
            return factory
    available = sorted(set(builtin) | set(found) | {e.name for e in entry_points(group=group)})
    raise ValueError(
        f"Could not find any factory for identifier '{identifier}' that implements {kind} "
        f"(available: {', '.join(available)})"
    )


def find_table_factory(identifier: str) -> DynamicTableFactory:
    """The connector named ``identifier``."""
    factory: DynamicTableFactory = _find(
        identifier,
        _table_factories,
        _BUILTIN_TABLE_FACTORIES,
        "millstream.table_factories",
        "DynamicTableFactory",
    )
    return factory


def find_format_factory(identifier: str) -> FormatFactory:
    """The format named ``identifier``."""
    factory: FormatFactory = _find(
        identifier, _format_factories, _BUILTIN_FORMAT_FACTORIES, "millstream.format_factories", "Format"
    )
    return factory
