"""The ``kafka`` and ``upsert-kafka`` table connectors, with Flink's options (read in
flink-connector-kafka's ``KafkaConnectorOptions`` and ``KafkaDynamicTableFactory``).

``kafka``: ``topic`` (``a;b``) or ``topic-pattern``, ``properties.bootstrap.servers``
(required), ``properties.group.id``, ``properties.*`` (client settings), ``scan.startup.mode``
(``earliest-offset``, ``latest-offset``, ``group-offsets`` (the default; where the group has no
offset, ``properties.auto.offset.reset`` decides, failing without it), ``timestamp``
(``scan.startup.timestamp-millis``), ``specific-offsets`` (``scan.startup.specific-offsets`` =
``partition:0,offset:42;partition:1,offset:300``)), ``scan.bounded.mode`` (``unbounded``, or the
same modes ending the read), ``scan.topic-partition-discovery.interval``, ``sink.partitioner``
(``default``: Kafka's, by key; ``fixed``: subtask i writes partition i mod n; ``round-robin``),
``sink.delivery-guarantee`` (``at-least-once``, ``exactly-once``, ``none``),
``sink.transactional-id-prefix``, ``sink.parallelism``; ``format`` / ``value.format``,
``key.format`` with ``key.fields`` (``a;b``) and ``key.fields-prefix``,
``value.fields-include`` (``ALL`` or ``EXCEPT_KEY``).

Metadata columns: ``topic``, ``partition``, ``headers`` (MAP<STRING, BYTES>), ``leader-epoch``,
``offset``, ``timestamp`` (TIMESTAMP_LTZ(3)), ``timestamp-type`` are read; ``topic``,
``headers`` and ``timestamp`` are written when not VIRTUAL. A watermark declared on the table
is generated in the source per partition (Flink's watermark push-down).

``upsert-kafka``: a table with a PRIMARY KEY over a compacted topic: ``key.format`` and
``value.format`` are required and the key is the primary key. Read, a record is an upsert of
its key and a null value (a tombstone) a delete; the changelog is normalized (ChangelogNormalize)
into +I/-U/+U/-D, so a key's repeated value changes nothing. Written, +I/+U become the key's
value and -D a tombstone (-U is dropped: the +U that follows replaces the value).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from millstream.common.connector import DeliveryGuarantee
from millstream.common.typeinfo import Types
from millstream.connectors.kafka.client import KafkaConnectorError
from millstream.connectors.kafka.offsets import (
    KafkaOffsetResetStrategy,
    KafkaOffsetsInitializer,
    KafkaTopicPartition,
)
from millstream.connectors.kafka.sink import KafkaSink
from millstream.connectors.kafka.source import KafkaSource
from millstream.table.common.factories import (
    DELETE,
    INSERT,
    UPDATE_AFTER,
    UPDATE_BEFORE,
    DynamicTableFactory,
    MetadataColumn,
    TableContext,
    TableSink,
    find_format_factory,
)
from millstream.table.common.options import parse_duration_ms
from millstream.table.common.table_source import TableSource
from millstream.table.common.timestamps import from_epoch_millis, to_epoch_millis
from millstream.table.common.types import DataType

__all__ = ["KAFKA", "UPSERT_KAFKA"]

_KAFKA_OPTIONS = frozenset(
    {
        "topic",
        "topic-pattern",
        "format",
        "value.format",
        "key.format",
        "key.fields",
        "key.fields-prefix",
        "value.fields-include",
        "scan.startup.mode",
        "scan.startup.specific-offsets",
        "scan.startup.timestamp-millis",
        "scan.bounded.mode",
        "scan.bounded.specific-offsets",
        "scan.bounded.timestamp-millis",
        "scan.topic-partition-discovery.interval",
        "scan.parallelism",
        "sink.partitioner",
        "sink.delivery-guarantee",
        "sink.transactional-id-prefix",
        "sink.parallelism",
    }
)
_READABLE = {
    "topic": "STRING NOT NULL",
    "partition": "INT NOT NULL",
    "headers": "MAP<STRING, BYTES> NOT NULL",
    "leader-epoch": "INT NULL",
    "offset": "BIGINT NOT NULL",
    "timestamp": "TIMESTAMP_LTZ(3) NOT NULL",
    "timestamp-type": "STRING NOT NULL",
}
_WRITABLE = {"topic": "STRING", "headers": "MAP<STRING, BYTES>", "timestamp": "TIMESTAMP_LTZ(3)"}
_TIMESTAMP_TYPES = {0: "NoTimestampType", 1: "CreateTime", 2: "LogAppendTime"}
_GUARANTEES = {
    "at-least-once": DeliveryGuarantee.AT_LEAST_ONCE,
    "exactly-once": DeliveryGuarantee.EXACTLY_ONCE,
    "none": DeliveryGuarantee.NONE,
}


def _list(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(";") if v.strip()]


@dataclass
class _Layout:
    """Where a table's physical columns come from: the key's fields, the value's fields."""

    names: list[str]
    types: list[DataType]
    key_indexes: list[int]
    value_indexes: list[int]
    key_prefix: str

    @staticmethod
    def of(context: TableContext, upsert: bool) -> _Layout:
        options = context.options
        names = [n for n, _ in context.physical]
        types = [t for _, t in context.physical]
        key_fields = context.primary_key if upsert else _list(options.get("key.fields"))
        for name in key_fields:
            if name not in names:
                raise ValueError(
                    f"table '{context.name}': key field '{name}' is not a physical column of {names}"
                )
        if key_fields and "key.format" not in options:
            raise ValueError(f"table '{context.name}': 'key.fields' needs a 'key.format'")
        if "key.format" in options and not key_fields:
            raise ValueError(
                f"table '{context.name}': a 'key.format' needs the key's columns "
                + ("(a PRIMARY KEY)" if upsert else "('key.fields')")
            )
        prefix = options.get("key.fields-prefix", "")
        include = options.get("value.fields-include", "ALL").upper()
        if include not in ("ALL", "EXCEPT_KEY"):
            raise ValueError(f"'value.fields-include' must be ALL or EXCEPT_KEY, got {include!r}")
        if prefix and include != "EXCEPT_KEY":
            raise ValueError(
                f"table '{context.name}': 'key.fields-prefix' needs 'value.fields-include' = 'EXCEPT_KEY'"
            )
        for name in key_fields:
            if not name.startswith(prefix):
                raise ValueError(f"key field '{name}' does not start with the key.fields-prefix '{prefix}'")
        keys = [names.index(n) for n in key_fields]
        values = [i for i in range(len(names)) if include == "ALL" or i not in keys]
        return _Layout(names, types, keys, values, prefix)

    def key_names(self) -> list[str]:
        return [self.names[i][len(self.key_prefix) :] for i in self.key_indexes]

    def value_names(self) -> list[str]:
        return [self.names[i] for i in self.value_indexes]


def _formats(context: TableContext) -> tuple[tuple[str, str] | None, tuple[str, str]]:
    """(key format, option prefix) or None, (value format, option prefix)."""
    options = context.options
    value = options.get("value.format") or options.get("format")
    if value is None:
        raise ValueError(f"table '{context.name}' needs a 'format' (or 'value.format') option")
    value_prefix = "value." if "value.format" in options else ""
    key = options.get("key.format")
    return ((key, "key.") if key else None), (value, value_prefix)


# -- reading ------------------------------------------------------------------------------------------


def _metadata_reader(column: MetadataColumn) -> Callable[[Any], Any]:
    key = column.key
    if key == "topic":
        return lambda m: m.topic()
    if key == "partition":
        return lambda m: m.partition()
    if key == "offset":
        return lambda m: m.offset()
    if key == "leader-epoch":
        return lambda m: m.leader_epoch()
    if key == "headers":
        return lambda m: dict(m.headers() or ())
    if key == "timestamp-type":
        return lambda m: _TIMESTAMP_TYPES.get(m.timestamp()[0], "NoTimestampType")
    # timestamp: an instant (a TIMESTAMP column holds it in the session zone, as Flink's cast)
    return lambda m: from_epoch_millis(m.timestamp()[1], "TIMESTAMP_LTZ")


class _TableDeserializer:
    """A Kafka message -> the table's ``(kind, row)`` changes: physical columns from the key
    and value formats, then the metadata columns."""

    produces_many = True

    def __init__(self, context: TableContext, upsert: bool) -> None:
        self.context, self.upsert = context, upsert

    def get_produced_type(self) -> Any:
        return Types.PICKLED_BYTE_ARRAY()

    def __getstate__(self) -> dict[str, Any]:
        return {"context": self.context, "upsert": self.upsert}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["context"], state["upsert"])  # type: ignore[misc]

    def _build(self) -> Callable[[Any], list[tuple[str, tuple[Any, ...]]]]:
        layout = _Layout.of(self.context, self.upsert)
        key_format, (value_id, value_prefix) = _formats(self.context)
        options = self.context.options
        value_factory = find_format_factory(value_id)
        decode_value = value_factory.decoder(
            layout.value_names(), [layout.types[i] for i in layout.value_indexes], options, value_prefix
        )
        decode_key = None
        if key_format is not None:
            decode_key = find_format_factory(key_format[0]).decoder(
                layout.key_names(), [layout.types[i] for i in layout.key_indexes], options, key_format[1]
            )
        metadata = [_metadata_reader(c) for c in self.context.metadata]
        width = len(layout.names)
        key_slots, value_slots = layout.key_indexes, layout.value_indexes
        name = self.context.name
        mode = "upsert" if self.upsert else "changelog" if value_factory.changelog else value_id

        def deserialize(message: Any) -> list[tuple[str, tuple[Any, ...]]]:
            key_row = None
            if decode_key is not None:
                raw_key = message.key()
                key_row = decode_key(raw_key) if raw_key is not None else None
            changes = _value_changes(message.value(), key_row, decode_value, mode, name)
            if not changes:
                return changes
            extra = tuple([read(message) for read in metadata])
            return [(kind, assemble(value_row, key_row) + extra) for kind, value_row in changes]

        def assemble(value_row: tuple[Any, ...] | None, key_row: tuple[Any, ...] | None) -> tuple[Any, ...]:
            values: list[Any] = [None] * width
            if value_row is not None:
                for slot, v in zip(value_slots, value_row, strict=True):
                    values[slot] = v
            if key_row is not None:
                for slot, v in zip(key_slots, key_row, strict=True):
                    values[slot] = v
            return tuple(values)

        return deserialize

    def deserialize_message(self, message: Any) -> list[tuple[str, tuple[Any, ...]]]:
        build = self.__dict__.get("_deserialize")
        if build is None:
            build = self.__dict__["_deserialize"] = self._build()
        return build(message)


def _value_changes(
    raw: bytes | None, key_row: Any, decode_value: Callable[[Any], Any], mode: str, name: str
) -> list[tuple[str, Any]]:
    """The changes of a message's value (None: the key's delete in upsert mode). ``mode``:
    ``upsert``, ``changelog`` (a changelog format) or the insert-only format's identifier."""
    if raw is None and mode == "upsert":
        if key_row is None:
            raise KafkaConnectorError(f"table '{name}': a tombstone without a key")
        return [(DELETE, None)]
    if raw is None and mode != "raw":
        return []  # a tombstone in an append-only table: skipped (raw reads it as NULL)
    if mode == "changelog":
        changes: list[tuple[str, Any]] = decode_value(raw)
        return changes
    row = decode_value(raw)
    if row is None:
        return []  # ignore-parse-errors
    return [(UPDATE_AFTER if mode == "upsert" else INSERT, row)]


def _partition_offsets(context: TableContext, text: str, topics: list[str]) -> dict[KafkaTopicPartition, int]:
    """``partition:0,offset:42;partition:1,offset:300`` (one topic), as Flink parses it."""
    if len(topics) != 1:
        raise ValueError(f"table '{context.name}': specific offsets need exactly one 'topic'")
    out = {}
    for part in _list(text):
        match = re.fullmatch(r"\s*partition\s*:\s*(\d+)\s*,\s*offset\s*:\s*(\d+)\s*", part)
        if match is None:
            raise ValueError(
                f"Invalid properties '{text}' should follow the format "
                "'partition:0,offset:42;partition:1,offset:300', but is '{part}'."
            )
        out[KafkaTopicPartition(topics[0], int(match.group(1)))] = int(match.group(2))
    return out


def _initializer(context: TableContext, prefix: str, mode: str, topics: list[str]) -> KafkaOffsetsInitializer:
    options = context.options
    if mode == "earliest-offset":
        return KafkaOffsetsInitializer.earliest()
    if mode == "latest-offset":
        return KafkaOffsetsInitializer.latest()
    if mode == "group-offsets":
        reset = options.get("properties.auto.offset.reset", "none").upper()
        if reset not in KafkaOffsetResetStrategy.__members__:
            raise ValueError(
                f"'properties.auto.offset.reset' must be earliest, latest or none, got {reset!r}"
            )
        return KafkaOffsetsInitializer.committed_offsets(KafkaOffsetResetStrategy[reset])
    if mode == "timestamp":
        millis = options.get(f"{prefix}.timestamp-millis")
        if millis is None:
            raise ValueError(f"'{prefix}.mode' = 'timestamp' needs '{prefix}.timestamp-millis'")
        return KafkaOffsetsInitializer.timestamp(int(millis))
    if mode == "specific-offsets":
        text = options.get(f"{prefix}.specific-offsets")
        if text is None:
            raise ValueError(f"'{prefix}.mode' = 'specific-offsets' needs '{prefix}.specific-offsets'")
        return KafkaOffsetsInitializer.offsets(_partition_offsets(context, text, topics))
    raise ValueError(f"unknown '{prefix}.mode' {mode!r} in table '{context.name}'")


@dataclass(frozen=True)
class KafkaTableSource(TableSource):
    """A Kafka table's source: physical columns, then metadata columns; it generates the
    table's watermarks per partition when the planner pushes them into it."""

    context: Any = None
    upsert: bool = False
    supports_watermark_push_down: ClassVar[bool] = True

    def produce(self, env: Any, watermarks: Any) -> Any:
        context: TableContext = self.context
        options = context.options
        topics = _list(options.get("topic"))
        builder = KafkaSource.builder()
        builder.set_properties(
            {k[len("properties.") :]: v for k, v in options.items() if k.startswith("properties.")}
        )
        if topics:
            builder.set_topics(*topics)
        elif options.get("topic-pattern"):
            builder.set_topic_pattern(options["topic-pattern"])
        else:
            raise ValueError(f"table '{context.name}' needs 'topic' or 'topic-pattern'")
        # upsert-kafka always reads from the earliest offset ("to keep data integrity", as
        # Flink's UpsertKafkaDynamicTableFactory says); kafka from the group's by default
        mode = "earliest-offset" if self.upsert else options.get("scan.startup.mode", "group-offsets")
        builder.set_starting_offsets(_initializer(context, "scan.startup", mode, topics))
        bounded = options.get("scan.bounded.mode", "unbounded")
        if bounded != "unbounded":
            builder.set_bounded(_initializer(context, "scan.bounded", bounded, topics))
        interval = options.get("scan.topic-partition-discovery.interval")
        if interval is not None:
            builder.set_property("partition.discovery.interval.ms", str(parse_duration_ms(interval)))
        builder.set_value_only_deserializer(_TableDeserializer(context, self.upsert))
        stream = env.from_source(builder.build(), watermarks, f"KafkaSource-{context.name}")
        if options.get("scan.parallelism"):
            stream.set_parallelism(int(options["scan.parallelism"]))
        return stream


# -- writing ------------------------------------------------------------------------------------------


class _TableRecordSerializer:
    """``(kind, row)`` -> (topic, key, value, partition, timestamp, headers), as Flink's
    ``DynamicKafkaRecordSerializationSchema``."""

    topic = None
    topic_selector = None
    key_schema = None
    value_schema = None

    def __init__(self, context: TableContext, upsert: bool) -> None:
        self.context, self.upsert = context, upsert

    def serializers(self) -> tuple[Any, Any, Any]:
        raise AssertionError("the table serializer writes whole records (record_writer)")

    def record_writer(self, subtask: int, partitions_of: Callable[[str], int]) -> Callable[[Any], Any]:
        context, upsert = self.context, self.upsert
        options = context.options
        layout = _Layout.of(context, upsert)
        key_format, (value_id, value_prefix) = _formats(context)
        encode_value = find_format_factory(value_id).encoder(
            layout.value_names(), [layout.types[i] for i in layout.value_indexes], options, value_prefix
        )
        encode_key = None
        if key_format is not None:
            encode_key = find_format_factory(key_format[0]).encoder(
                layout.key_names(), [layout.types[i] for i in layout.key_indexes], options, key_format[1]
            )
        # the written columns: physical, then persisted metadata, in declaration order
        columns = [n for n, _ in context.schema.persisted_columns()]
        physical = [columns.index(n) for n in layout.names]
        written = {c.key: (columns.index(c.name), c.data_type) for c in context.metadata if not c.virtual}
        topics = _list(options.get("topic"))
        topic_slot = written.get("topic", (None, None))[0]
        if len(topics) != 1 and topic_slot is None:
            raise ValueError(
                f"table '{context.name}': writing needs one 'topic' or a 'topic' metadata column"
            )
        fixed_topic = topics[0] if len(topics) == 1 else None
        timestamp = written.get("timestamp")
        headers_slot = written.get("headers", (None, None))[0]
        key_slots, value_slots = layout.key_indexes, layout.value_indexes
        partitioner = options.get("sink.partitioner", "default")
        if partitioner not in ("default", "fixed", "round-robin"):
            raise ValueError(
                f"'sink.partitioner' must be default, fixed or round-robin, got {partitioner!r} "
                "(custom partitioner classes are Java)"
            )
        counter = itertools.count()

        def to_record(change: tuple[str, tuple[Any, ...]]) -> Any:
            kind, row = change
            if upsert and kind == UPDATE_BEFORE:
                return None  # the +U that follows replaces the key's value
            values = tuple([row[i] for i in physical])
            key = None
            if encode_key is not None:
                key = encode_key((INSERT, tuple([values[i] for i in key_slots])))
            if upsert and kind == DELETE:
                value = None  # a tombstone
            else:
                value_kind = INSERT if upsert else kind
                value = encode_value((value_kind, tuple([values[i] for i in value_slots])))
            topic = fixed_topic if fixed_topic is not None else row[topic_slot or 0]
            partition = None
            if partitioner == "fixed":
                partition = subtask % partitions_of(topic)
            elif partitioner == "round-robin":
                partition = next(counter) % partitions_of(topic)
            stamp = None
            if timestamp is not None and row[timestamp[0]] is not None:
                stamp = to_epoch_millis(row[timestamp[0]], timestamp[1].root)
            headers = None
            if headers_slot is not None and row[headers_slot]:
                headers = list(row[headers_slot].items())
            return topic, key, value, partition, stamp, headers

        return to_record


class _KafkaTableSink(TableSink):
    def __init__(self, context: TableContext, upsert: bool, changelog: str) -> None:
        self.context, self.upsert, self.changelog = context, upsert, changelog

    def consume(self, stream: Any, names: list[str], types: list[DataType]) -> Any:
        options = self.context.options
        builder = KafkaSink.builder()
        for key, value in options.items():
            if key.startswith("properties."):
                builder.set_property(key[len("properties.") :], value)
        guarantee = options.get("sink.delivery-guarantee", "at-least-once").lower()
        if guarantee not in _GUARANTEES:
            raise ValueError(
                f"'sink.delivery-guarantee' must be one of {', '.join(_GUARANTEES)}, got {guarantee!r}"
            )
        builder.set_delivery_guarantee(_GUARANTEES[guarantee])
        if options.get("sink.transactional-id-prefix"):
            builder.set_transactional_id_prefix(options["sink.transactional-id-prefix"])
        builder.set_record_serializer(_TableRecordSerializer(self.context, self.upsert))  # type: ignore[arg-type]
        sink = stream.sink_to(builder.build())
        sink.name(f"KafkaSink-{self.context.name}")
        if options.get("sink.parallelism"):
            sink.set_parallelism(int(options["sink.parallelism"]))
        return sink


class KafkaTableFactory(DynamicTableFactory):
    """``'connector' = 'kafka'``."""

    identifier = "kafka"
    options = _KAFKA_OPTIONS
    option_prefixes = ("properties.",)
    required_options = frozenset({"properties.bootstrap.servers"})
    readable_metadata = _READABLE
    writable_metadata = _WRITABLE
    upsert = False

    def validate(self, context: TableContext, formats: list[tuple[str, str]]) -> None:
        super().validate(context, formats)
        _formats(context)
        _Layout.of(context, self.upsert)
        options = context.options
        if ("topic" in options) == ("topic-pattern" in options) and "topic" not in {
            c.key for c in context.metadata if not c.virtual
        }:
            raise ValueError(
                f"table '{context.name}' ({self.identifier}): set exactly one of 'topic' and 'topic-pattern'"
            )

    def create_source(self, context: TableContext) -> TableSource:
        names = [n for n, _ in context.physical] + [c.name for c in context.metadata]
        types = [t for _, t in context.physical] + [c.data_type for c in context.metadata]
        _, (value_id, _) = _formats(context)
        changelog = "all" if find_format_factory(value_id).changelog else "insert-only"
        if self.upsert:  # the planner normalizes it by the key (Flink's ChangelogNormalize)
            keys = [names.index(n) for n in context.primary_key]
            return KafkaTableSource(names, types, "upsert", keys, context=context, upsert=True)
        return KafkaTableSource(names, types, changelog, context=context)

    def create_sink(self, context: TableContext) -> TableSink:
        _, (value_id, _) = _formats(context)
        if self.upsert:
            return _KafkaTableSink(context, True, "all")
        changelog = "all" if find_format_factory(value_id).changelog else "insert-only"
        return _KafkaTableSink(context, False, changelog)


class UpsertKafkaTableFactory(KafkaTableFactory):
    """``'connector' = 'upsert-kafka'``."""

    identifier = "upsert-kafka"
    options = frozenset(
        {
            "topic",
            "topic-pattern",
            "key.format",
            "value.format",
            "key.fields-prefix",
            "value.fields-include",
            "scan.bounded.mode",
            "scan.bounded.specific-offsets",
            "scan.bounded.timestamp-millis",
            "scan.topic-partition-discovery.interval",
            "scan.parallelism",
            "sink.parallelism",
            "sink.buffer-flush.max-rows",
            "sink.buffer-flush.interval",
            "sink.delivery-guarantee",
            "sink.transactional-id-prefix",
        }
    )
    required_options = frozenset({"properties.bootstrap.servers", "key.format", "value.format"})
    upsert = True

    def validate(self, context: TableContext, formats: list[tuple[str, str]]) -> None:
        if not context.primary_key:
            raise ValueError(
                f"table '{context.name}': 'upsert-kafka' tables require to define a PRIMARY KEY constraint. "
                "The PRIMARY KEY specifies which columns should be read from or write to the Kafka "
                "message key. The PRIMARY KEY also defines records in the 'upsert-kafka' table should "
                "update or delete on which keys."
            )
        for key in ("sink.buffer-flush.max-rows", "sink.buffer-flush.interval"):
            if context.options.get(key, "0") not in ("0", "0s", "0 ms", "0ms"):
                raise ValueError(
                    f"table '{context.name}': '{key}' (buffering upserts by key) is not supported yet; "
                    "each change is written as it comes (leave it unset or 0)"
                )
        for key in ("key.format", "value.format"):
            if key in context.options and find_format_factory(context.options[key]).changelog:
                raise ValueError(
                    f"'upsert-kafka' connector doesn't support '{context.options[key]}' as {key} format, "
                    "because it is not in insert-only mode"
                )
        super().validate(context, formats)


KAFKA = KafkaTableFactory()
UPSERT_KAFKA = UpsertKafkaTableFactory()
