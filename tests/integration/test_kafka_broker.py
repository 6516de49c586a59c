"""The test broker itself: it does not outlive the process that started it, and where Tansu
0.6 differs from Apache Kafka (what the README and the Kafka tests rely on). If a Tansu
release fixes a difference, its test here fails and the workaround can go."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from millstream.testing.kafka_broker import KafkaBroker, read_partition

pytestmark = pytest.mark.timeout(120)


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_the_broker_dies_with_the_process_that_started_it():
    """A test run killed by a signal runs no teardown: the broker's watchdog kills it."""
    program = (
        "import sys, time\n"
        "from millstream.testing.kafka_broker import KafkaBroker\n"
        "broker = KafkaBroker().start()\n"
        "print(broker.port, flush=True)\n"
        "time.sleep(600)\n"
    )
    starter = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    try:
        port = int(starter.stdout.readline())  # type: ignore[union-attr]
        assert _port_open(port)
    finally:
        os.kill(starter.pid, signal.SIGKILL)
        starter.wait(30)
    deadline = time.monotonic() + 30
    while _port_open(port):
        assert time.monotonic() < deadline, "the broker outlived the process that started it"
        time.sleep(0.1)  # polling an observable condition, bounded by the deadline


def test_a_broker_whose_free_port_was_taken_meanwhile_starts_on_another():
    """The free port is found by binding and releasing it; another process may take it before
    the broker binds it (a full test run hit this: "Address in use", seven Kafka tests
    errored). The broker then starts on another free port; a port asked for stays an error."""
    broker = KafkaBroker()
    taken = broker.port
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", taken))
        squatter.listen()
        with broker:
            assert broker.port != taken and broker.bootstrap_servers == f"127.0.0.1:{broker.port}"
            broker.create_topic("t")
        with pytest.raises(RuntimeError, match=f"port {taken} was taken"), KafkaBroker(port=taken):
            pass


def test_where_tansu_differs_from_apache_kafka(broker: KafkaBroker):
    from confluent_kafka import Producer
    from confluent_kafka.admin import NewPartitions

    servers = broker.bootstrap_servers
    broker.create_topic("quirks", 1)
    producer = Producer({"bootstrap.servers": servers, "transactional.id": "quirks", "log_level": 0})
    producer.init_transactions(30)
    producer.begin_transaction()
    for i in range(3):
        producer.produce("quirks", f"aborted-{i}".encode(), partition=0)
    producer.flush(30)
    producer.abort_transaction(30)
    # Apache Kafka hides an aborted transaction's records from read_committed consumers
    committed = [m.value() for m in read_partition(servers, "quirks", 0, isolation="read_committed")]
    assert committed == [b"aborted-0", b"aborted-1", b"aborted-2"]

    # the high watermark after one batch of 3 records is its base offset + 1 (Apache Kafka: 3)
    from confluent_kafka import Consumer, TopicPartition

    broker.create_topic("batched", 1)
    plain = Producer({"bootstrap.servers": servers, "linger.ms": 200, "log_level": 0})
    for i in range(3):
        plain.produce("batched", f"r{i}".encode(), partition=0)
    plain.flush(30)
    consumer = Consumer({"bootstrap.servers": servers, "group.id": "quirks", "log_level": 0})
    try:
        _, high = consumer.get_watermark_offsets(TopicPartition("batched", 0), timeout=10)
        # a timestamp after every record: Apache Kafka answers -1 (none), Tansu offset 0
        (found,) = consumer.offsets_for_times([TopicPartition("batched", 0, 10**13)], timeout=10)
    finally:
        consumer.close()
    assert high == 1
    assert found.offset == 0
    assert len(read_partition(servers, "batched", 0)) == 3  # the records are all there

    # CreatePartitions is refused: a topic keeps its partition count
    futures = broker.admin().create_partitions([NewPartitions("quirks", 2)])
    with pytest.raises(Exception):
        futures["quirks"].result(10)
