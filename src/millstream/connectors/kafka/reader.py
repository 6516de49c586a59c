"""KafkaSourceReader: one subtask's partitions, fetched on a thread, emitted on the task's.

As Flink's ``KafkaSourceReader`` over a ``SplitFetcher``: a fetcher thread owns the
consumer (librdkafka, assigned partitions, no group rebalancing), applies split changes
and offset commits between fetches, and hands batches of messages to the task through a
queue of two batches (a full queue blocks the fetcher: backpressure reaches the broker as
fewer fetches). The task thread turns messages into records (the deserializer runs
there), keeps each split's next offset, ends bounded splits at their stopping offset, and
wakes when the fetcher hands a batch over.

A split's state is the offset of the next record to emit, so a checkpoint holds exactly
the records emitted before its barrier. When a checkpoint completes, the offsets it holds
are committed to the consumer group (monitoring only; recovery uses the checkpoint).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Any

from confluent_kafka import Consumer, KafkaError, TopicPartition

from millstream.connectors.kafka.client import KafkaClientLog, KafkaConnectorError, create_client, split_owner
from millstream.connectors.kafka.discovery import discover_splits
from millstream.connectors.kafka.offsets import NO_STOPPING_OFFSET, KafkaPartitionSplit

__all__ = ["KafkaSourceReader"]

log = logging.getLogger(__name__)

FETCH_TIMEOUT_S = 0.1  # a fetch waits at most this long, then split changes are applied
QUEUE_BATCHES = 2  # Flink's element queue holds 2 batches by default
_TP = tuple[str, int]


class _Split:
    __slots__ = ("next_offset", "partition", "stopping_offset", "topic")

    def __init__(self, split: KafkaPartitionSplit) -> None:
        self.topic = split.topic
        self.partition = split.partition
        self.next_offset = split.starting_offset
        self.stopping_offset = split.stopping_offset

    def finished_at(self, position: int) -> bool:
        return self.stopping_offset != NO_STOPPING_OFFSET and position >= self.stopping_offset

    def split(self) -> KafkaPartitionSplit:
        return KafkaPartitionSplit(self.topic, self.partition, self.next_offset, self.stopping_offset)


class _Fetcher:
    """The thread that owns the consumer."""

    def __init__(self, config: dict[str, Any], wake: Any, name: str) -> None:
        self._config = config
        self._wake = wake or (lambda: None)
        self._name = name
        self._cond = threading.Condition()
        self._commands: deque[tuple[str, Any]] = deque()  # under _cond
        self._batches: deque[tuple[list[Any], dict[_TP, int]]] = deque()  # under _cond
        self._closed = False  # under _cond
        self.error: BaseException | None = None
        self._assigned: dict[_TP, bool] = {}  # fetcher thread: partition -> bounded
        self._thread = threading.Thread(target=self._run, name=f"KafkaFetcher-{name}", daemon=True)
        self._thread.start()

    # -- task thread ---------------------------------------------------------------------------

    def command(self, kind: str, arg: Any) -> None:
        with self._cond:
            self._commands.append((kind, arg))
            self._cond.notify_all()

    def take(self) -> tuple[list[Any], dict[_TP, int]] | None:
        with self._cond:
            if not self._batches:
                return None
            batch = self._batches.popleft()
            self._cond.notify_all()
            return batch

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=30)

    # -- fetcher thread ------------------------------------------------------------------------

    def _run(self) -> None:
        consumer = None
        try:
            consumer = create_client(Consumer, self._config, f"KafkaSource {self._name}")
            while True:
                with self._cond:
                    while not self._closed and (
                        len(self._batches) >= QUEUE_BATCHES or (not self._assigned and not self._commands)
                    ):
                        self._cond.wait(1.0)
                    if self._closed:
                        return
                    commands = list(self._commands)
                    self._commands.clear()
                for kind, arg in commands:
                    self._apply(consumer, kind, arg)
                if self._assigned:
                    self._fetch(consumer)
        except BaseException as err:  # handed to the task thread, which fails the task
            self.error = err
            self._wake()
        finally:
            if consumer is not None:
                try:
                    consumer.close()
                except Exception:
                    log.debug("closing the Kafka consumer of %s failed", self._name, exc_info=True)

    def _apply(self, consumer: Any, kind: str, arg: Any) -> None:
        if kind == "assign":
            splits: list[KafkaPartitionSplit] = arg
            consumer.incremental_assign(
                [TopicPartition(s.topic, s.partition, s.starting_offset) for s in splits]
            )
            for s in splits:
                self._assigned[(s.topic, s.partition)] = s.bounded
        elif kind == "unassign":
            tps: list[_TP] = arg
            consumer.incremental_unassign([TopicPartition(t, p) for t, p in tps])
            for tp in tps:
                self._assigned.pop(tp, None)
        elif kind == "commit":
            offsets: dict[_TP, int] = arg
            try:
                consumer.commit(
                    offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()], asynchronous=True
                )
            except Exception as err:  # monitoring only, as Flink's (it logs and goes on)
                log.warning("KafkaSource %s: committing offsets to the group failed: %s", self._name, err)

    def _fetch(self, consumer: Any) -> None:
        messages = consumer.consume(1000, FETCH_TIMEOUT_S)
        positions: dict[_TP, int] = {}
        bounded = [TopicPartition(t, p) for (t, p), b in self._assigned.items() if b]
        if bounded:  # past control records (transaction markers), a bounded split may end
            for tp in consumer.position(bounded):
                if tp.offset >= 0:
                    positions[(tp.topic, tp.partition)] = tp.offset
        if not messages and not positions:
            return
        with self._cond:
            self._batches.append((messages, positions))
        self._wake()


class KafkaSourceReader:
    """Reads the partitions its enumerator assigns (task thread, but for the fetcher)."""

    def __init__(self, source: Any, context: Any) -> None:
        self._source = source
        self._context = context
        self._name = (
            f"{context.operator_name or 'KafkaSource'} ({context.subtask_index + 1}/{context.parallelism})"
        )
        self._splits: dict[_TP, _Split] = {}
        self._deserialize = source.record_deserializer()
        # a deserializer may turn one message into several records (a changelog format's update)
        self._many = bool(getattr(source.deserializer, "produces_many", False))
        self._fetcher: _Fetcher | None = None
        self._registered = False
        self._no_more = False
        self._commits: dict[int, dict[_TP, int]] = {}  # checkpoint id -> offsets to commit
        self._added: list[str] = []  # split ids assigned since the last poll (for watermarks)
        self.available_at = 0.0

    def _fetcher_now(self) -> _Fetcher:
        if self._fetcher is None:
            config = self._source.consumer_config(self._context.subtask_index)
            self._fetcher = _Fetcher(config, self._context.signal_available, self._name)
        return self._fetcher

    # -- splits --------------------------------------------------------------------------------

    def add_splits(self, splits: list[Any]) -> None:
        """Partitions to read from their offsets."""
        fresh = []
        for split in splits:
            if not isinstance(split, KafkaPartitionSplit):
                split = KafkaPartitionSplit(*split)
            state = _Split(split)
            if state.finished_at(state.next_offset):
                continue  # nothing to read (a bounded split already at its end)
            self._splits[(split.topic, split.partition)] = state
            self._added.append(str(split))
            fresh.append(split)
        if fresh:
            log.info(
                "KafkaSource %s: reading %s",
                self._name,
                ", ".join(f"{s} from {s.starting_offset}" for s in fresh),
            )
            self._fetcher_now().command("assign", fresh)
        self.available_at = 0.0

    def assign_owned_partitions(self) -> None:
        """Without an enumerator: discover the partitions, keep this subtask's (Flink's owner
        rule) and expect no more (a bounded source)."""
        client_log = KafkaClientLog(f"KafkaSource {self._name}")
        consumer = create_client(Consumer, self._source.consumer_config(None), client_log.what, client_log)
        try:
            splits = discover_splits(self._source, consumer, set(), client_log)
        finally:
            consumer.close()
        index, parallelism = self._context.subtask_index, self._context.parallelism
        self.add_splits([s for s in splits if split_owner(s.topic, s.partition, parallelism) == index])
        self.notify_no_more_splits()

    def notify_no_more_splits(self) -> None:
        """No partition will come any more: the reader ends when its bounded splits end."""
        self._no_more = True
        self.available_at = 0.0

    # -- reading -------------------------------------------------------------------------------

    def poll(self, max_records: int) -> list[Any] | None:
        """Records without their timestamps."""
        polled = self.poll_timestamped(max_records)
        return None if polled is None else polled[0]

    def poll_timestamped(self, max_records: int) -> tuple[list[Any], list[int]] | None:
        """The records of the next fetched batch with their Kafka timestamps; ([], []) while
        none is there; None once no split is left and none will come."""
        polled = self.poll_splits(max_records)
        if polled is None:
            return None
        groups, _finished = polled
        if len(groups) == 1:
            return groups[0][1], groups[0][2]
        return [v for g in groups for v in g[1]], [t for g in groups for t in g[2]]

    def poll_splits(
        self, max_records: int
    ) -> tuple[list[tuple[str, list[Any], list[int]]], list[str]] | None:
        """The next fetched batch as (split id, records, timestamps) per partition, and the
        splits it finished (for watermarks per split); None at the end."""
        if not self._registered and self._context.send_split_request is not None:
            self._registered = True
            self._context.send_split_request()  # Flink's reader registration: splits follow
        added: list[tuple[str, list[Any], list[int]]] = [(split, [], []) for split in self._added]
        self._added.clear()
        fetcher = self._fetcher
        taken = fetcher.take() if fetcher is not None else None
        if taken is None:
            if fetcher is not None and fetcher.error is not None:
                raise KafkaConnectorError(f"KafkaSource {self._name}: {fetcher.error}") from fetcher.error
            if self._no_more and not self._splits and not added:
                return None
            self.available_at = float("inf") if self._context.signal_available else 0.0
            return added, []
        groups, finished = self._records(*taken)
        if finished:
            log.info("KafkaSource %s: finished %s", self._name, ", ".join(f"{t}-{p}" for t, p in finished))
            self._fetcher_now().command("unassign", finished)
        return (
            added + [(f"{t}-{p}", values, timestamps) for (t, p), (values, timestamps) in groups.items()],
            [f"{t}-{p}" for t, p in finished],
        )

    def _records(  # noqa: C901 - the per-message loop stays in one frame (the hot path)
        self, messages: list[Any], positions: dict[_TP, int]
    ) -> tuple[dict[_TP, tuple[list[Any], list[int]]], list[_TP]]:
        """The records of fetched messages with their timestamps, per partition in order, and
        the splits they finished."""
        groups: dict[_TP, tuple[list[Any], list[int]]] = {}
        finished: list[_TP] = []
        splits = self._splits
        deserialize, many = self._deserialize, self._many
        # per message: a few C calls and appends (the bound checks inline, the partition's
        # state and output lists looked up once per run of its messages)
        last_key: Any = None
        state: Any = None
        values: list[Any] = []
        stamps: list[int] = []
        stop = NO_STOPPING_OFFSET
        for message in messages:
            error = message.error()
            if error is not None:
                self._fail_on(message, error)
                continue
            key = (message.topic(), message.partition())
            if key != last_key:
                last_key, state = key, splits.get(key)
                if state is not None:
                    group = groups.get(key)
                    if group is None:
                        group = groups[key] = ([], [])
                    values, stamps = group
                    stop = state.stopping_offset
            offset = message.offset()
            if state is None or offset < state.next_offset:
                continue  # a partition finished or unassigned since the fetch; a record seen
            bounded = stop != NO_STOPPING_OFFSET
            if not (bounded and offset >= stop):
                try:
                    value = deserialize(message)
                except Exception as err:
                    raise KafkaConnectorError(
                        f"KafkaSource {self._name}: the record at offset {offset} of partition "
                        f"{key[0]}-{key[1]} cannot be deserialized: {type(err).__name__}: {err}"
                    ) from err
                state.next_offset = offset + 1
                if value is not None:  # a deserializer's None skips the record, as in Flink
                    if many:
                        values.extend(value)
                        stamps.extend([message.timestamp()[1]] * len(value))
                    else:
                        values.append(value)
                        stamps.append(message.timestamp()[1])
            if bounded and (state.next_offset >= stop or offset >= stop):
                finished.append(key)
                del splits[key]
                last_key = state = None
        groups = {k: g for k, g in groups.items() if g[0]}
        for key, position in positions.items():
            state = splits.get(key)
            if state is not None and state.finished_at(position):
                finished.append(key)
                del splits[key]
        return groups, finished

    def _fail_on(self, message: Any, error: Any) -> None:
        if error.code() == KafkaError._PARTITION_EOF:
            return
        where = f"partition {message.topic()}-{message.partition()}" if message.topic() else "the broker"
        if error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART:
            raise KafkaConnectorError(f"KafkaSource {self._name}: {where} does not exist ({error.str()})")
        if error.fatal() or not error.retriable():
            raise KafkaConnectorError(f"KafkaSource {self._name}: reading {where} failed: {error.str()}")
        log.warning("KafkaSource %s: reading %s: %s (retrying)", self._name, where, error.str())

    # -- checkpoints ---------------------------------------------------------------------------

    def snapshot_state(self, checkpoint_id: int) -> dict[str, Any]:
        """Each held partition with the offset of its next record."""
        splits = [state.split() for state in self._splits.values()]
        if self._source.commits_offsets:
            self._commits[checkpoint_id] = {(s.topic, s.partition): s.starting_offset for s in splits}
            while len(self._commits) > 16:  # notifications may be lost; keep the newest
                del self._commits[min(self._commits)]
        return {
            "version": 1,
            "splits": [(s.topic, s.partition, s.starting_offset, s.stopping_offset) for s in splits],
        }

    def restore_state(self, state: dict[str, Any]) -> None:
        """Continue the partitions held at the checkpoint."""
        if not isinstance(state, dict) or state.get("version") != 1:
            raise ValueError(f"KafkaSource: reader state {state!r} is not a version 1 state")
        self.add_splits([KafkaPartitionSplit(*entry) for entry in state["splits"]])

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Commit the offsets of ``checkpoint_id`` to the consumer group (Flink does it for
        monitoring: lag, ``committed_offsets()`` starts)."""
        offsets = self._commits.pop(checkpoint_id, None)
        for older in [c for c in self._commits if c < checkpoint_id]:
            del self._commits[older]
        if offsets:
            self._fetcher_now().command("commit", offsets)

    def close(self) -> None:
        """Stop the fetcher and close the consumer."""
        fetcher, self._fetcher = self._fetcher, None
        if fetcher is not None:
            fetcher.close()
