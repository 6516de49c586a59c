"""KafkaSource: a FLIP-27 source over topic partitions (Flink's ``KafkaSource``).

The enumerator runs on the JobMaster (its Kafka calls on the source coordinator's worker
thread). It discovers the subscribed partitions (a topic list, a topic pattern or a fixed
partition set), resolves where each starts (and, bounded, stops), and assigns every
partition to one reader, the partition's owner (``client.split_owner``, Flink's rule), so
no consumer-group rebalancing is involved. A reader registers with its first split request
and gets its pending partitions then; partitions discovered later (every
``partition.discovery.interval.ms``, 5 minutes by default as Flink's; bounded sources
discover once) go to their owners as they appear. The enumerator's checkpointed state is
the set of partitions it has assigned; the readers' states hold each partition's next
offset. Restored at another parallelism, the readers' partitions are dealt to their new
owners.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from confluent_kafka import Consumer

from millstream.common.typeinfo import Types
from millstream.connectors.kafka.client import (
    KafkaClientLog,
    KafkaConnectorError,
    client_config,
    create_client,
    split_owner,
)
from millstream.connectors.kafka.discovery import discover_splits
from millstream.connectors.kafka.offsets import (
    METADATA_TIMEOUT_S,
    KafkaOffsetsInitializer,
    KafkaPartitionSplit,
    KafkaTopicPartition,
)
from millstream.connectors.kafka.reader import KafkaSourceReader

__all__ = ["KafkaSource", "KafkaSourceBuilder", "KafkaSourceEnumerator"]

FETCH_QUEUE_BACKOFF_MS = 10  # librdkafka's default is 1000

log = logging.getLogger(__name__)

DEFAULT_DISCOVERY_INTERVAL_MS = 5 * 60 * 1000  # Flink's partition.discovery.interval.ms


class KafkaSource:
    """Reads Kafka topics (``KafkaSource.builder()``, as PyFlink's)."""

    def __init__(
        self,
        properties: dict[str, str],
        topics: tuple[str, ...],
        pattern: str | None,
        partitions: tuple[KafkaTopicPartition, ...],
        starting: KafkaOffsetsInitializer,
        stopping: KafkaOffsetsInitializer | None,
        deserializer: Any,
        bounded: bool | None = None,
    ) -> None:
        self.properties = dict(properties)
        self.topics = topics
        self.pattern = pattern
        self.partitions = partitions
        self.starting = starting
        self.stopping = stopping
        self.deserializer = deserializer
        self.bounded = stopping is not None if bounded is None else bounded
        self.discovery_interval_ms = (
            -1
            if self.bounded
            else int(properties.get("partition.discovery.interval.ms", DEFAULT_DISCOVERY_INTERVAL_MS))
        )
        self.commits_offsets = "group.id" in properties and _true(
            properties.get("commit.offsets.on.checkpoint", "true")
        )
        # how long the enumerator waits for metadata and offsets (the Java client's setting)
        self.api_timeout_s = int(properties.get("default.api.timeout.ms", METADATA_TIMEOUT_S * 1000)) / 1000.0
        self.client_id_prefix = (
            properties.get("client.id.prefix")
            or properties.get("group.id")
            or (f"KafkaSource-{uuid.uuid4().hex[:12]}")
        )

    @staticmethod
    def builder() -> KafkaSourceBuilder:
        """A builder."""
        return KafkaSourceBuilder()

    def is_bounded(self) -> bool:
        """Bounded when stopping offsets are set with ``set_bounded``."""
        return self.bounded

    def get_produced_type(self) -> Any:
        """The deserializer's type (SimpleStringSchema: STRING)."""
        produced = getattr(self.deserializer, "get_produced_type", None)
        if produced is not None:
            return produced()
        type_info = getattr(self.deserializer, "type_info", None)
        if type_info is not None:
            return type_info

        return Types.STRING() if hasattr(self.deserializer, "charset") else None

    def describe(self) -> str:
        """What is read, for messages."""
        if self.pattern is not None:
            return f"topics matching {self.pattern!r}"
        if self.partitions:
            return "partitions " + ", ".join(map(str, self.partitions))
        return "topic" + ("s " if len(self.topics) > 1 else " ") + ", ".join(self.topics)

    # -- clients -------------------------------------------------------------------------------

    def consumer_config(self, subtask: int | None) -> dict[str, Any]:
        """A consumer's settings: the user's, with Flink's overrides (no auto commit, Java's
        ``read_uncommitted`` default, the starting offsets' reset strategy)."""
        overrides: dict[str, Any] = {
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "group.id": self.properties.get("group.id") or self.client_id_prefix,
            "client.id": f"{self.client_id_prefix}-{'enumerator' if subtask is None else subtask}",
            "auto.offset.reset": "latest" if self.starting.kind in ("latest", "timestamp") else "earliest",
        }
        if self.starting.kind == "committed":
            overrides["auto.offset.reset"] = self.starting.reset.name.lower()
        config = client_config(self.properties, **overrides)
        config.setdefault("isolation.level", "read_uncommitted")  # the Java client's default
        # librdkafka waits fetch.queue.backoff.ms (1 s) before fetching again once its queue
        # holds queued.min.messages; a reader drains that queue in well under a second and
        # then starves. The Java client fetches again as soon as its buffer is consumed.
        config.setdefault("fetch.queue.backoff.ms", FETCH_QUEUE_BACKOFF_MS)
        return config

    def record_deserializer(self) -> Any:
        """message -> record, from the value-only deserializer."""
        schema = self.deserializer
        whole_message = getattr(schema, "deserialize_message", None)
        if whole_message is not None:  # a record deserializer: the whole message (tables' metadata)
            return whole_message
        deserialize = getattr(schema, "deserialize", None)
        if deserialize is None:  # SimpleStringSchema
            charset = getattr(schema, "charset", "UTF-8")

            def decode(message: Any) -> Any:
                value = message.value()
                return None if value is None else value.decode(charset)

            return decode
        return lambda message: None if message.value() is None else deserialize(message.value())

    # -- FLIP-27 -------------------------------------------------------------------------------

    def create_reader(self, context: Any) -> KafkaSourceReader:
        """A reader for one subtask: its partitions come from the enumerator, or, where no
        enumerator runs (the Spark runner's batch jobs), a bounded source's reader finds the
        partitions it owns itself (Flink's owner rule) and ends when they are read."""
        reader = KafkaSourceReader(self, context)
        if context.send_split_request is None:
            if not self.bounded:
                raise KafkaConnectorError(
                    "an unbounded KafkaSource needs a split enumerator (millstream's runtime) or "
                    "the Spark runner's streaming Kafka source"
                )
            reader.assign_owned_partitions()
        return reader

    def create_enumerator(self, context: Any) -> KafkaSourceEnumerator:
        """Discovers the partitions from scratch."""
        return KafkaSourceEnumerator(context, self, set())

    def restore_enumerator(self, context: Any, state: Any) -> KafkaSourceEnumerator:
        """Knows the partitions it had assigned at the checkpoint."""
        assigned = {KafkaTopicPartition(t, p) for t, p in state.get("assigned", ())}
        return KafkaSourceEnumerator(context, self, assigned)

    def rescale_reader_states(self, states: list[Any], parallelism: int) -> list[Any]:
        """Every old reader's partitions, each to its owner among ``parallelism`` readers."""
        out: list[dict[str, Any]] = [{"version": 1, "splits": []} for _ in range(parallelism)]
        for index, state in enumerate(states):
            if not isinstance(state, dict) or state.get("version") != 1:
                raise ValueError(f"KafkaSource: the reader state of subtask {index} is missing or unknown")
            for entry in state["splits"]:
                out[split_owner(entry[0], entry[1], parallelism)]["splits"].append(tuple(entry))
        return out


class KafkaSourceEnumerator:
    """Discovers partitions and assigns each to its owner (JobMaster thread; Kafka calls on
    the coordinator's worker thread)."""

    def __init__(self, context: Any, source: KafkaSource, assigned: set[KafkaTopicPartition]) -> None:
        self._context = context
        self._source = source
        self._assigned = assigned  # handed to a reader (in its state once checkpointed)
        self._pending: dict[int, list[KafkaPartitionSplit]] = {}  # owner -> not handed out yet
        self._registered: set[int] = set()
        self._discovered_once = False
        self._consumer: Any = None  # worker thread
        operator = getattr(context, "operator_name", "") or "KafkaSource"
        # librdkafka's lines below WARNING: a discovery that fails says why itself
        self._client_log = KafkaClientLog(f"KafkaSource {operator} (enumerator)", logging.INFO)
        period = source.discovery_interval_ms
        context.call_async(self._discover, self._on_discovered, 0, period if period > 0 else 0)

    # -- worker thread -------------------------------------------------------------------------

    def _discover(self) -> list[KafkaPartitionSplit]:
        if self._consumer is None:
            self._consumer = create_client(
                Consumer, self._source.consumer_config(None), self._client_log.what, self._client_log
            )
        self._consumer.poll(0)  # what librdkafka reported since the last discovery goes to the log
        self._client_log.latest_error = None
        known = self._assigned | {
            KafkaTopicPartition(s.topic, s.partition) for q in self._pending.values() for s in q
        }
        return discover_splits(self._source, self._consumer, known, self._client_log)

    def close(self) -> None:
        """Close the enumerator's consumer (worker thread)."""
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            consumer.close()

    # -- JobMaster thread ----------------------------------------------------------------------

    def _on_discovered(self, splits: list[KafkaPartitionSplit] | None, error: BaseException | None) -> None:
        if error is not None:
            self._context.fail_job(
                error if isinstance(error, KafkaConnectorError) else KafkaConnectorError(str(error))
            )
            return
        readers = self._context.current_parallelism
        for split in splits or []:
            owner = split_owner(split.topic, split.partition, readers)
            self._pending.setdefault(owner, []).append(split)
        if splits:
            log.info("KafkaSource: discovered %s", ", ".join(map(str, splits)))
        self._discovered_once = True
        for reader in sorted(self._registered):
            self._assign_pending(reader)

    def _assign_pending(self, reader: int) -> None:
        for split in self._pending.pop(reader, []):
            self._assigned.add(KafkaTopicPartition(split.topic, split.partition))
            self._context.assign_split(split, reader)
        if self._discovered_once and self._source.discovery_interval_ms <= 0 and reader in self._registered:
            # no discovery after the first: nothing new will come (Flink signals it so that
            # bounded readers end once their partitions are read)
            self._context.signal_no_more_splits(reader)

    def handle_split_request(self, subtask: int) -> None:
        """A reader registers (its first request): its pending partitions go to it."""
        self._registered.add(subtask)
        self._assign_pending(subtask)

    def add_splits_back(self, splits: list[Any], subtask: int) -> None:
        """A reader failed before checkpointing these: they wait for its restart."""
        self._registered.discard(subtask)
        for split in splits:
            self._assigned.discard(KafkaTopicPartition(split.topic, split.partition))
            self._pending.setdefault(subtask, []).append(split)

    def snapshot_state(self, checkpoint_id: int) -> dict[str, Any]:
        """The partitions assigned so far (pending ones are found again after a restore)."""
        return {"version": 1, "assigned": sorted((p.topic, p.partition) for p in self._assigned)}


class KafkaSourceBuilder:
    """Builds a ``KafkaSource`` (PyFlink's ``KafkaSourceBuilder``)."""

    def __init__(self) -> None:
        self._properties: dict[str, str] = {}
        self._topics: tuple[str, ...] = ()
        self._pattern: str | None = None
        self._partitions: tuple[KafkaTopicPartition, ...] = ()
        self._starting = KafkaOffsetsInitializer.earliest()
        self._stopping: KafkaOffsetsInitializer | None = None
        self._deserializer: Any = None
        self._bounded = False

    def set_bootstrap_servers(self, bootstrap_servers: str) -> KafkaSourceBuilder:
        """The brokers to connect to (``host:port,...``)."""
        return self.set_property("bootstrap.servers", bootstrap_servers)

    def set_group_id(self, group_id: str) -> KafkaSourceBuilder:
        """The consumer group offsets are committed to (monitoring, ``committed_offsets``)."""
        return self.set_property("group.id", group_id)

    def set_topics(self, *topics: str) -> KafkaSourceBuilder:
        """Read these topics."""
        self._check_no_subscription()
        self._topics = tuple(topics)
        return self

    def set_topic_pattern(self, topic_pattern: str) -> KafkaSourceBuilder:
        """Read every topic whose whole name matches this regular expression."""
        self._check_no_subscription()
        self._pattern = topic_pattern
        return self

    def set_partitions(self, partitions: Any) -> KafkaSourceBuilder:
        """Read these ``KafkaTopicPartition``s."""
        self._check_no_subscription()
        self._partitions = tuple(sorted(partitions))
        return self

    def _check_no_subscription(self) -> None:
        if self._topics or self._pattern is not None or self._partitions:
            raise ValueError("KafkaSource: topics, a topic pattern or partitions may be set only once")

    def set_starting_offsets(
        self, starting_offsets_initializer: KafkaOffsetsInitializer
    ) -> KafkaSourceBuilder:
        """Where reading starts (default: earliest)."""
        self._starting = starting_offsets_initializer
        return self

    def set_unbounded(self, stopping_offsets_initializer: KafkaOffsetsInitializer) -> KafkaSourceBuilder:
        """Stop each partition at these offsets, the source staying unbounded (a STREAMING job
        whose readers end when their partitions are read; discovery goes on)."""
        self._stopping = stopping_offsets_initializer
        self._bounded = False
        return self

    def set_bounded(self, stopping_offsets_initializer: KafkaOffsetsInitializer) -> KafkaSourceBuilder:
        """Stop each partition at these offsets (the source is bounded; no partition discovery)."""
        self._stopping = stopping_offsets_initializer
        self._bounded = True
        return self

    def set_value_only_deserializer(self, deserialization_schema: Any) -> KafkaSourceBuilder:
        """Records from the message values (``SimpleStringSchema()``, a JSON/CSV/Avro row schema)."""
        self._deserializer = deserialization_schema
        return self

    def set_client_id_prefix(self, prefix: str) -> KafkaSourceBuilder:
        """The prefix of the consumers' client ids."""
        return self.set_property("client.id.prefix", prefix)

    def set_property(self, key: str, value: str) -> KafkaSourceBuilder:
        """A Kafka client or source setting (``partition.discovery.interval.ms`` ...)."""
        self._properties[key] = str(value)
        return self

    def set_properties(self, props: dict[str, str]) -> KafkaSourceBuilder:
        """Several settings."""
        for key, value in dict(props).items():
            self.set_property(key, value)
        return self

    def build(self) -> KafkaSource:
        """The source; fails on a missing setting as Flink's builder does."""
        if "bootstrap.servers" not in self._properties:
            raise ValueError("KafkaSource: property bootstrap.servers is required (set_bootstrap_servers)")
        if not (self._topics or self._pattern is not None or self._partitions):
            raise ValueError("KafkaSource: no topics, topic pattern or partitions set (set_topics ...)")
        if self._deserializer is None:
            raise ValueError("KafkaSource: a deserializer is required (set_value_only_deserializer)")
        if self._starting.kind == "committed" and "group.id" not in self._properties:
            raise ValueError("KafkaSource: committed_offsets() needs a group id (set_group_id)")
        if (
            _true(self._properties.get("commit.offsets.on.checkpoint", "false"))
            and "group.id" not in self._properties
        ):
            raise ValueError("KafkaSource: property group.id is required when offset commit is enabled")
        return KafkaSource(
            self._properties,
            self._topics,
            self._pattern,
            self._partitions,
            self._starting,
            self._stopping,
            self._deserializer,
            self._bounded,
        )


def _true(value: Any) -> bool:
    return str(value).strip().lower() == "true"
