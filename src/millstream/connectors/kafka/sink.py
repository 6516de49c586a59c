"""KafkaSink: records to Kafka topics with a delivery guarantee (Flink's ``KafkaSink``).

- ``NONE``: records are handed to the producer; nothing waits for them.
- ``AT_LEAST_ONCE``: every checkpoint waits until the broker acknowledged every record
  written before its barrier (a restart may write some again).
- ``EXACTLY_ONCE``: one Kafka transaction per subtask and checkpoint, with the
  transactional id ``<prefix>-<subtask>-<checkpoint id>`` (Flink's ``TransactionalIdFactory``).
  At a barrier the transaction is flushed (pre-committed) and its id, producer id and epoch
  go into the checkpoint; the next checkpoint's transaction starts. When the checkpoint
  completes, the transaction commits. A writer restored from a checkpoint commits the
  transactions that checkpoint prepared (``transactions.commit_prepared``: committing twice is
  harmless) and aborts the ones the failed attempt opened after it, fencing zombies
  (``transactions.abort_lingering``). Consumers see the records with
  ``isolation.level=read_committed`` once their checkpoint completed.

``transaction.timeout.ms`` (librdkafka's default 60 s) must exceed the checkpoint interval
plus the time a recovery takes, or the broker aborts a prepared transaction first: a
timeout below the checkpoint interval is refused when the job starts.
"""

from __future__ import annotations

import logging
from typing import Any

from confluent_kafka import Producer

from millstream.common.connector import DeliveryGuarantee
from millstream.connectors.kafka.client import KafkaConnectorError, client_config, create_client
from millstream.connectors.kafka.transactions import (
    abort_lingering,
    commit_prepared,
    producer_identity,
    transactional_producer,
)

__all__ = [
    "KafkaRecordSerializationSchema",
    "KafkaRecordSerializationSchemaBuilder",
    "KafkaSink",
    "KafkaSinkBuilder",
]

log = logging.getLogger(__name__)

FLUSH_TIMEOUT_S = 120.0
DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000  # librdkafka's transaction.timeout.ms


def _serializer(schema: Any) -> Any:
    """element -> bytes from a serialization schema (SimpleStringSchema: its text)."""
    if schema is None:
        return None
    serialize = getattr(schema, "serialize", None)
    if serialize is not None:
        return serialize
    charset = getattr(schema, "charset", "UTF-8")
    return lambda element: None if element is None else str(element).encode(charset)


class KafkaRecordSerializationSchema:
    """Turns an element into a Kafka record: topic, key and value (PyFlink's)."""

    def __init__(self, topic: str | None, topic_selector: Any, key_schema: Any, value_schema: Any) -> None:
        self.topic = topic
        self.topic_selector = topic_selector
        self.key_schema = key_schema
        self.value_schema = value_schema

    @staticmethod
    def builder() -> KafkaRecordSerializationSchemaBuilder:
        """A builder."""
        return KafkaRecordSerializationSchemaBuilder()

    def serializers(self) -> tuple[Any, Any, Any]:
        """(element -> topic, element -> key bytes or None, element -> value bytes)."""
        topic = self.topic
        selector = self.topic_selector
        select = getattr(selector, "apply", selector) if selector is not None else (lambda _: topic)
        return select, _serializer(self.key_schema), _serializer(self.value_schema)


class KafkaRecordSerializationSchemaBuilder:
    """Builds a ``KafkaRecordSerializationSchema``."""

    def __init__(self) -> None:
        self._topic: str | None = None
        self._selector: Any = None
        self._key: Any = None
        self._value: Any = None

    def set_topic(self, topic: str) -> KafkaRecordSerializationSchemaBuilder:
        """Every record goes to this topic."""
        self._topic = topic
        return self

    def set_topic_selector(self, topic_selector: Any) -> KafkaRecordSerializationSchemaBuilder:
        """Each record's topic from ``topic_selector(element)`` (a callable or a TopicSelector)."""
        self._selector = topic_selector
        return self

    def set_key_serialization_schema(
        self, key_serialization_schema: Any
    ) -> KafkaRecordSerializationSchemaBuilder:
        """The record keys from the elements (default: no key)."""
        self._key = key_serialization_schema
        return self

    def set_value_serialization_schema(
        self, value_serialization_schema: Any
    ) -> KafkaRecordSerializationSchemaBuilder:
        """The record values from the elements."""
        self._value = value_serialization_schema
        return self

    def build(self) -> KafkaRecordSerializationSchema:
        """The schema."""
        if (self._topic is None) == (self._selector is None):
            raise ValueError("KafkaRecordSerializationSchema: set either a topic or a topic selector")
        if self._value is None:
            raise ValueError("KafkaRecordSerializationSchema: a value serialization schema is required")
        return KafkaRecordSerializationSchema(self._topic, self._selector, self._key, self._value)


class KafkaSink:
    """Writes to Kafka (``KafkaSink.builder()``, as PyFlink's)."""

    def __init__(
        self,
        properties: dict[str, str],
        serializer: KafkaRecordSerializationSchema,
        guarantee: DeliveryGuarantee,
        transactional_id_prefix: str | None,
    ) -> None:
        self.properties = dict(properties)
        self.serializer = serializer
        self.guarantee = guarantee
        self.transactional_id_prefix = transactional_id_prefix

    @staticmethod
    def builder() -> KafkaSinkBuilder:
        """A builder."""
        return KafkaSinkBuilder()

    def producer_config(self) -> dict[str, Any]:
        """The producer's settings: the user's; exactly-once producers are idempotent."""
        config = client_config(self.properties)
        # the Java client's partitioner (murmur2 of the key), so keyed records land where Java
        # producers put them; librdkafka's own default hashes with CRC32
        config.setdefault("partitioner", "murmur2_random")
        return config

    def transaction_timeout_ms(self) -> int:
        return int(self.properties.get("transaction.timeout.ms", DEFAULT_TRANSACTION_TIMEOUT_MS))

    def check_checkpoint_interval(self, interval_ms: int) -> None:
        """Refuse a transaction timeout the checkpoints cannot beat (EXACTLY_ONCE)."""
        if (
            self.guarantee is DeliveryGuarantee.EXACTLY_ONCE
            and 0 < self.transaction_timeout_ms() <= interval_ms
        ):
            raise KafkaConnectorError(
                f"KafkaSink: transaction.timeout.ms ({self.transaction_timeout_ms()} ms) must be longer "
                f"than the checkpoint interval ({interval_ms} ms): the broker would abort every "
                "transaction before its checkpoint commits it"
            )

    def create_writer(self, context: Any, renderer: Any) -> KafkaWriter:
        """A writer for one subtask."""
        return KafkaWriter(self, context)

    def rescale_writer_states(self, states: list[Any], parallelism: int) -> list[Any]:
        """Every prepared transaction to commit goes to subtask 0; each new subtask aborts
        the lingering transactions of the old subtasks it stands for."""
        old = len(states)
        committables = [c for state in states if state for c in state.get("committables", ())]
        checkpoint = max((state.get("checkpoint_id", 0) for state in states if state), default=0)
        return [
            {
                "version": 1,
                "checkpoint_id": checkpoint,
                "parallelism": max(old, parallelism),
                "committables": committables if index == 0 else [],
            }
            for index in range(parallelism)
        ]


class KafkaWriter:
    """One subtask's producer(s) (task thread)."""

    def __init__(self, sink: KafkaSink, context: Any) -> None:
        self._sink = sink
        self._context = context
        self._name = (
            f"{context.operator_name or 'KafkaSink'} ({context.subtask_index + 1}/{context.parallelism})"
        )
        # failed deliveries only are reported (no Python call per record delivered)
        self._config = {
            **sink.producer_config(),
            "on_delivery": self._report,
            "delivery.report.only.error": True,
        }
        # a serializer may build whole records (partition, timestamp, headers: tables' metadata)
        records = getattr(sink.serializer, "record_writer", None)
        self._records = records(context.subtask_index, self._partitions_of) if records else None
        if self._records is None:
            self._select, self._key, self._value = sink.serializer.serializers()
        self._partition_counts: dict[str, int] = {}
        self._errors: list[str] = []
        self._exactly_once = sink.guarantee is DeliveryGuarantee.EXACTLY_ONCE
        self._producer: Any = None
        self._stats: Any = None
        self._transaction_id = ""
        self._offset = 1  # the checkpoint the current transaction belongs to
        self._prepared: dict[
            int, tuple[Any, tuple[str, int, int]]
        ] = {}  # checkpoint -> producer, committable
        self._recovered = False

    # -- producers -----------------------------------------------------------------------------

    def _report(self, err: Any, message: Any) -> None:
        if err is not None:
            where = f"{message.topic()}-{message.partition()}" if message is not None else "?"
            self._errors.append(f"delivering to partition {where} failed: {err.str()}")

    def _open(self) -> Any:
        if self._producer is not None:
            return self._producer
        if not self._exactly_once:
            self._producer = create_client(Producer, self._config, f"KafkaSink {self._name}")
            return self._producer
        if not self._recovered:
            self._recover({"checkpoint_id": 0, "parallelism": self._context.parallelism, "committables": []})
        self._transaction_id = (
            f"{self._sink.transactional_id_prefix}-{self._context.subtask_index}-{self._offset}"
        )
        self._producer, self._stats = transactional_producer(
            self._config, self._transaction_id, f"KafkaSink {self._name}"
        )
        self._producer.begin_transaction()
        return self._producer

    def _recover(self, state: dict[str, Any]) -> None:
        """Commit what the restored checkpoint prepared; abort what came after it."""
        self._recovered = True
        servers = self._config.get("bootstrap.servers", "")
        for transactional_id, producer_id, epoch in state.get("committables", ()):
            commit_prepared(servers, transactional_id, producer_id, epoch)
            log.info(
                "KafkaSink %s: committed transaction %s of the restored checkpoint",
                self._name,
                transactional_id,
            )
        checkpoint = int(state.get("checkpoint_id", 0))
        self._offset = checkpoint + 1
        parallelism = self._context.parallelism
        owned = list(
            range(
                self._context.subtask_index, max(parallelism, int(state.get("parallelism", 1))), parallelism
            )
        )
        aborted = abort_lingering(
            self._config,
            self._sink.transactional_id_prefix or "",
            owned,
            self._offset,
            f"KafkaSink {self._name}",
        )
        if aborted:
            log.info(
                "KafkaSink %s: aborted %d lingering transaction id(s) after checkpoint %d",
                self._name,
                aborted,
                checkpoint,
            )

    # -- writing -------------------------------------------------------------------------------

    def _partitions_of(self, topic: str) -> int:
        count = self._partition_counts.get(topic)
        if count is None:
            metadata = self._open().list_topics(topic, timeout=FLUSH_TIMEOUT_S).topics.get(topic)
            if metadata is None or metadata.error is not None or not metadata.partitions:
                raise KafkaConnectorError(f"KafkaSink {self._name}: topic {topic} has no partitions")
            count = self._partition_counts[topic] = len(metadata.partitions)
        return count

    def _write_records(self, producer: Any, values: list[Any]) -> None:
        assert self._records is not None
        to_record = self._records
        for element in values:
            record = to_record(element)
            if record is None:
                continue
            topic, key, value, partition, timestamp, headers = record
            extra: dict[str, Any] = {}
            if partition is not None:
                extra["partition"] = partition
            if timestamp is not None:
                extra["timestamp"] = timestamp
            if headers:
                extra["headers"] = headers
            while True:
                try:
                    producer.produce(topic, value, key, **extra)
                    break
                except BufferError:
                    producer.poll(0.05)

    def write_batch(self, values: list[Any]) -> None:
        """Hand the records to the producer."""
        producer = self._open()
        if self._records is not None:
            self._write_records(producer, values)
            producer.poll(0)
            self._raise_errors()
            return
        select, key, value = self._select, self._key, self._value
        produce = producer.produce
        for element in values:
            topic = select(element)
            record_key = key(element) if key is not None else None
            record_value = value(element)
            while True:
                try:
                    produce(topic, record_value, record_key)
                    break
                except BufferError:  # the producer's queue is full: wait for deliveries
                    producer.poll(0.05)
        producer.poll(0)
        self._raise_errors()

    def _raise_errors(self) -> None:
        if self._errors:
            raise KafkaConnectorError(f"KafkaSink {self._name}: {self._errors[0]}")

    def _flush(self, producer: Any) -> None:
        remaining = producer.flush(FLUSH_TIMEOUT_S)
        self._raise_errors()
        if remaining:
            raise KafkaConnectorError(
                f"KafkaSink {self._name}: {remaining} record(s) not acknowledged "
                f"within {FLUSH_TIMEOUT_S:.0f} s"
            )

    # -- checkpoints ---------------------------------------------------------------------------

    def snapshot_state(self, checkpoint_id: int) -> dict[str, Any] | None:
        """Flush (AT_LEAST_ONCE) or pre-commit this checkpoint's transaction (EXACTLY_ONCE)."""
        if not self._exactly_once:
            if self._producer is not None and self._sink.guarantee is DeliveryGuarantee.AT_LEAST_ONCE:
                self._flush(self._producer)
            return None
        producer = self._open()
        self._flush(producer)
        producer_id, epoch = producer_identity(producer, self._stats)
        self._prepared[checkpoint_id] = (producer, (self._transaction_id, producer_id, epoch))
        self._producer = None
        self._offset = checkpoint_id + 1
        self._open()  # the next checkpoint's transaction (ids stay contiguous for the abort probe)
        return {
            "version": 1,
            "checkpoint_id": checkpoint_id,
            "parallelism": self._context.parallelism,
            "committables": [committable for _, committable in self._prepared.values()],
        }

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Commit the transactions of checkpoints up to ``checkpoint_id``."""
        for done in sorted(c for c in self._prepared if c <= checkpoint_id):
            producer, (transactional_id, _, _) = self._prepared.pop(done)
            try:
                producer.commit_transaction(FLUSH_TIMEOUT_S)
            except Exception as err:
                raise KafkaConnectorError(
                    f"KafkaSink {self._name}: committing transaction {transactional_id} failed: {err}"
                ) from err

    def restore_state(self, state: Any) -> None:
        """Commit the restored checkpoint's transactions; abort the failed attempt's."""
        if self._exactly_once and state:
            self._recover(state)

    def finish(self) -> None:
        """End of input without a final checkpoint: make everything written visible."""
        producer = self._producer
        if producer is None:
            return
        if self._exactly_once:
            self._flush(producer)
            producer.commit_transaction(FLUSH_TIMEOUT_S)
            self._producer = None
        else:
            self._flush(producer)

    def close(self) -> None:
        """Release the producers. An open transaction that was not prepared is aborted;
        prepared ones stay open for the recovery to commit."""
        producer, self._producer = self._producer, None
        if producer is not None and self._exactly_once:
            try:
                producer.abort_transaction(5.0)
            except Exception:
                log.debug("KafkaSink %s: aborting the open transaction failed", self._name, exc_info=True)
        elif producer is not None:
            producer.flush(5.0)
        self._prepared.clear()


class KafkaSinkBuilder:
    """Builds a ``KafkaSink`` (PyFlink's ``KafkaSinkBuilder``)."""

    def __init__(self) -> None:
        self._properties: dict[str, str] = {}
        self._serializer: KafkaRecordSerializationSchema | None = None
        self._guarantee = DeliveryGuarantee.NONE
        self._prefix: str | None = None

    def set_bootstrap_servers(self, bootstrap_servers: str) -> KafkaSinkBuilder:
        """The brokers to connect to."""
        return self.set_property("bootstrap.servers", bootstrap_servers)

    def set_delivery_guarantee(self, delivery_guarantee: DeliveryGuarantee) -> KafkaSinkBuilder:
        """NONE (default, as Flink's), AT_LEAST_ONCE or EXACTLY_ONCE."""
        self._guarantee = delivery_guarantee
        return self

    def set_transactional_id_prefix(self, transactional_id_prefix: str) -> KafkaSinkBuilder:
        """The prefix of the transactional ids (EXACTLY_ONCE; unique per job writing a cluster)."""
        self._prefix = transactional_id_prefix
        return self

    def set_record_serializer(self, record_serializer: KafkaRecordSerializationSchema) -> KafkaSinkBuilder:
        """How elements become records."""
        self._serializer = record_serializer
        return self

    def set_property(self, key: str, value: str) -> KafkaSinkBuilder:
        """A Kafka producer setting."""
        self._properties[key] = str(value)
        return self

    def build(self) -> KafkaSink:
        """The sink; fails on a missing setting as Flink's builder does."""
        if "bootstrap.servers" not in self._properties:
            raise ValueError("KafkaSink: property bootstrap.servers is required (set_bootstrap_servers)")
        if self._serializer is None:
            raise ValueError("KafkaSink: a record serializer is required (set_record_serializer)")
        if self._guarantee is DeliveryGuarantee.EXACTLY_ONCE and not self._prefix:
            raise ValueError("KafkaSink: EXACTLY_ONCE delivery requires a transactional id prefix")
        return KafkaSink(self._properties, self._serializer, self._guarantee, self._prefix)
