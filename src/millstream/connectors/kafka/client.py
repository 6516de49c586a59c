"""Kafka client settings: Flink's (Java client) property names to librdkafka's, and errors.

Users pass the Java client's properties (``set_property``, ``properties.*`` table options,
the legacy consumer's ``properties``); librdkafka (confluent-kafka) shares most names.
Settings that only the Java client or Flink has are dropped here: Flink's own source
options are read before (``partition.discovery.interval.ms`` ...), and the (de)serializer
classes are the job's schemas. A name librdkafka does not know fails when the client is
created, naming the property.

librdkafka's own log lines and error events (an unreachable broker: a ``FAIL`` line per
connection attempt, several a second) go through Python's ``logging`` instead of raw
``%3|...|FAIL|...`` lines on stderr: each client gets a ``KafkaClientLog`` as
confluent-kafka's ``logger`` and ``error_cb``, which logs to the
``millstream.connectors.kafka.librdkafka`` logger, naming the operator, and lets each
distinct line through once per ``REPEAT_INTERVAL_S`` (the repeats counted in the next
one). librdkafka hands them over when the client is polled. Coordinating code.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = [
    "KafkaClientLog",
    "KafkaConnectorError",
    "client_config",
    "create_client",
    "java_string_hash",
    "kafka_error_text",
]

log = logging.getLogger(__name__)
librdkafka_log = logging.getLogger("millstream.connectors.kafka.librdkafka")

_ALL_BROKERS_DOWN = -187  # librdkafka's RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN (KafkaError._ALL_BROKERS_DOWN)
REPEAT_INTERVAL_S = 60.0  # a line repeated within this is counted, not logged again
_REPEATS_KEPT = 256  # distinct lines remembered (bounded: the oldest are forgotten)
# librdkafka's thread prefix and the timing of a connection attempt, which vary per line
_THREAD_PREFIX = re.compile(r"^\[thrd:[^\]]*\]: ")
_ATTEMPT_TIMING = re.compile(r" \(after \d+ms in state \w+(, \d+ identical error\(s\) suppressed)?\)")

# The Java client's and Flink's settings that librdkafka has no use for.
JAVA_ONLY = frozenset(
    {
        "key.deserializer",
        "value.deserializer",
        "key.serializer",
        "value.serializer",
        "max.poll.records",
        "partition.discovery.interval.ms",
        "flink.partition-discovery.interval-millis",
        "commit.offsets.on.checkpoint",
        "client.id.prefix",
        "register.consumer.metrics",
        "register.producer.metrics",
        "poll.timeout.ms",
        "default.api.timeout.ms",
        "scan.topic-integrity-check.enabled",
        "transaction.naming.strategy",
        "transaction.abort.strategy",
    }
)


class KafkaConnectorError(RuntimeError):
    """A Kafka source or sink cannot go on (broker, topic, partition or record named)."""


def client_config(properties: dict[str, str], **overrides: Any) -> dict[str, Any]:
    """librdkafka settings from Java-client ``properties`` plus ``overrides``."""
    config: dict[str, Any] = {"log_level": 3}  # librdkafka's own errors only; ours are logged
    for key, value in properties.items():
        if key in JAVA_ONLY:
            continue
        config[key] = value
    config.update(overrides)
    return config


def kafka_error_text(err: BaseException) -> str:
    """What a confluent-kafka exception says (its KafkaError's text, without the
    ``KafkaError{code=...,val=...,str="..."}`` wrapping)."""
    error = err.args[0] if err.args else None
    text = getattr(error, "str", None)
    return str(text()) if callable(text) else str(err)


def _plain(text: str) -> str:
    """A librdkafka line without its thread prefix and attempt timing."""
    return _ATTEMPT_TIMING.sub("", _THREAD_PREFIX.sub("", text.strip()))


class _RepeatLimiter:
    """Logs each distinct line at most once per ``interval_s``; the repeats in between are
    counted and reported with the next one let through. Shared by all clients of a process
    (a broker that is down is the same line for every reader, and for its log line and its
    error event); any thread."""

    def __init__(
        self, logger: logging.Logger, interval_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._logger = logger
        self._interval_s = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[float, int]] = {}  # under _lock: key -> (last logged, repeats)

    def log(self, level: int, key: str, text: str) -> None:
        """Log ``text`` unless a line with the same ``key`` was logged within the interval."""
        now = self._clock()
        with self._lock:
            last, repeats = self._seen.get(key, (None, 0))
            if last is not None and now - last < self._interval_s:
                self._seen[key] = (last, repeats + 1)
                return
            self._seen.pop(key, None)  # re-inserted last: the dict is ordered oldest first
            self._seen[key] = (now, 0)
            while len(self._seen) > _REPEATS_KEPT:
                del self._seen[next(iter(self._seen))]
        if repeats:
            text = f"{text} (and {repeats} more like it in the last {self._interval_s:.0f} s)"
        self._logger.log(level, "%s", text)


_repeats = _RepeatLimiter(librdkafka_log, REPEAT_INTERVAL_S)


class KafkaClientLog:
    """One client's librdkafka log lines and error events, into Python ``logging``:
    confluent-kafka's ``logger`` (``log``) and ``error_cb`` (``error``), called on the thread
    that polls the client. Lines name the client's operator (``what``) and are rate-limited
    (``_RepeatLimiter``); none is logged above ``max_level`` (a caller that states its
    failures itself keeps librdkafka's lines below WARNING). ``latest_error`` is the last
    error librdkafka reported, for the caller's own message."""

    def __init__(self, what: str, max_level: int = logging.CRITICAL) -> None:
        self.what = what
        self.max_level = max_level
        self.latest_error: str | None = None  # the polling thread

    def log(self, level: int, msg: str, *args: Any) -> None:
        """confluent-kafka's ``logger.log(level, "%s [%s] %s", facility, client, line)``."""
        text = _plain(str(args[-1]) if len(args) == 3 else msg % args)
        if level >= logging.ERROR:
            self.latest_error = text
        facility = f"{args[0]} " if len(args) == 3 else ""
        _repeats.log(min(level, self.max_level), text, f"{self.what}: librdkafka {facility}{text}")

    def error(self, error: Any) -> None:
        """confluent-kafka's ``error_cb(KafkaError)``: a broker is down, a fatal error ..."""
        text = _plain(error.str())
        if error.code() != _ALL_BROKERS_DOWN:  # a summary of the brokers' own errors
            self.latest_error = text
        level = logging.ERROR if error.fatal() else logging.WARNING
        _repeats.log(min(level, self.max_level), text, f"{self.what}: {text}")


def create_client(
    kind: Any, config: dict[str, Any], what: str, client_log: KafkaClientLog | None = None
) -> Any:
    """``kind(config)`` (a confluent-kafka Consumer or Producer) with a readable error, its
    librdkafka log and errors going to ``client_log`` (a new one naming ``what`` if None)."""
    client_log = client_log or KafkaClientLog(what)
    try:
        return kind({**config, "logger": client_log, "error_cb": client_log.error})
    except Exception as err:  # KafkaException: an unknown or invalid property
        raise KafkaConnectorError(f"{what}: invalid Kafka client settings: {err}") from err


def java_string_hash(text: str) -> int:
    """Java's ``String.hashCode`` (a signed 32-bit int) over UTF-16 code units."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def split_owner(topic: str, partition: int, readers: int) -> int:
    """The reader that owns a partition (Flink's ``KafkaSourceEnumerator.getSplitOwner``): a
    topic's partitions go round-robin from a start reader chosen by the topic's hash, so
    partitions of several topics spread evenly and a partition keeps its reader."""
    start = ((java_string_hash(topic) * 31) & 0x7FFFFFFF) % readers
    return (start + partition) % readers
