"""An unreachable Kafka broker, as a user sees it (issue 46, point 18).

Before, a job whose bootstrap address answered nothing printed librdkafka's own
``%3|<time>|FAIL|<client>| [thrd:...]: ... Connection refused`` line for every connection
attempt (573 lines in 30 s) and then the error, its Kafka part twice. Now librdkafka's lines
go through ``logging``, each distinct one once per minute, and the job fails with one line
naming the operator, the bootstrap servers and the error; with a restart strategy the
enumerator's failure restarts the job as a task failure does (Flink: a global failure,
"Global failure triggered by OperatorCoordinator for 'Source: ...'", under the restart
strategy). Runs against a closed port of 127.0.0.1 and a Tansu broker that goes away.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from confluent_kafka import Consumer

from millstream.connectors.kafka import client
from millstream.connectors.kafka.client import _RepeatLimiter, create_client
from millstream.testing.kafka_broker import KafkaBroker, produce_records

pytestmark = pytest.mark.timeout(300)

MILLSTREAM = os.path.join(os.path.dirname(sys.executable), "millstream")

JOB = textwrap.dedent(
    """
    import sys
    from millstream.common import Configuration, WatermarkStrategy
    from millstream.common.serialization import SimpleStringSchema
    from millstream.datastream import StreamExecutionEnvironment
    from millstream.datastream.connectors.kafka import KafkaOffsetsInitializer, KafkaSource

    servers, restarts = sys.argv[1], int(sys.argv[2])
    conf = Configuration()
    if restarts:
        conf.set_string("restart-strategy.type", "fixed-delay")
        conf.set_string("restart-strategy.fixed-delay.attempts", str(restarts))
        conf.set_string("restart-strategy.fixed-delay.delay", "100 ms")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    if restarts:
        env.enable_checkpointing(500)
    source = (
        KafkaSource.builder()
        .set_bootstrap_servers(servers)
        .set_topics("words")
        .set_starting_offsets(KafkaOffsetsInitializer.earliest())
        .set_value_only_deserializer(SimpleStringSchema())
        .set_property("default.api.timeout.ms", "3000")
        .set_property("reconnect.backoff.max.ms", "100")
        .build()
    )
    env.from_source(source, WatermarkStrategy.no_watermarks(), "words").map(lambda w: "read " + w).print()
    env.execute("words")
    """
)


def _closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on (connections to it are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(job: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_LOG_LEVEL", "MILLSTREAM_VERBOSE")}
    return subprocess.run(
        [MILLSTREAM, "run", "--no-progress", str(job), *args],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )


@pytest.fixture
def job(tmp_path: Path) -> Path:
    path = tmp_path / "job.py"
    path.write_text(JOB)
    return path


def test_librdkafka_lines_go_through_logging_once_per_interval(
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    limiter = _RepeatLimiter(client.librdkafka_log, client.REPEAT_INTERVAL_S)
    monkeypatch.setattr(client, "_repeats", limiter)
    caplog.set_level(logging.DEBUG, logger="millstream")
    port = _closed_port()
    settings = {
        "bootstrap.servers": f"127.0.0.1:{port}",
        "group.id": "g",
        "reconnect.backoff.ms": 10,
        "reconnect.backoff.max.ms": 50,
    }
    consumer = create_client(Consumer, settings, "KafkaSource words (1/1)")
    deadline = time.monotonic() + 60
    try:
        while sum(repeats for _, repeats in limiter._seen.values()) < 10:  # librdkafka tried again and again
            assert time.monotonic() < deadline, "librdkafka reported no repeated connection failure"
            try:
                consumer.list_topics("words", timeout=0.2)  # connection attempts
            except Exception:
                pass
            consumer.poll(0.05)  # librdkafka hands its log lines and errors over when polled
    finally:
        consumer.close()
    refused = [r.getMessage() for r in caplog.records if "Connection refused" in r.getMessage()]
    assert refused == [
        f"KafkaSource words (1/1): librdkafka FAIL 127.0.0.1:{port}/bootstrap: Connect to "
        f"ipv4#127.0.0.1:{port} failed: Connection refused"
    ]
    assert "|FAIL|" not in capfd.readouterr().err  # none of librdkafka's own lines on stderr


def test_an_unreachable_broker_fails_the_job_with_one_line(job: Path) -> None:
    port = _closed_port()
    result = _run(job, f"127.0.0.1:{port}", "0")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "millstream: Job execution failed: KafkaSource Source: words (enumerator): cannot list the "
        f"partitions of topic words at 127.0.0.1:{port} (bootstrap.servers): Failed to get metadata: "
        f"Local: Broker transport failure (127.0.0.1:{port}/bootstrap: Connect to ipv4#127.0.0.1:{port} "
        "failed: Connection refused)"
    ]


def test_with_a_restart_strategy_the_job_restarts_as_for_a_task_failure(job: Path) -> None:
    port = _closed_port()
    result = _run(job, f"127.0.0.1:{port}", "1")
    assert result.returncode == 1
    failure = (
        f"KafkaSource Source: words (enumerator): cannot list the partitions of topic words at "
        f"127.0.0.1:{port} (bootstrap.servers): Failed to get metadata: Local: Broker transport failure "
        f"(127.0.0.1:{port}/bootstrap: Connect to ipv4#127.0.0.1:{port} failed: Connection refused)"
    )
    # a task cancelled while librdkafka blocks may be interrupted on a loaded machine: its
    # TaskManager logs so; the client's own lines are what this test reads
    client_lines = [
        line for line in result.stderr.strip().splitlines() if "did not stop after cancellation" not in line
    ]
    assert client_lines == [
        f"WARNING millstream: Job 'words': the job failed: KafkaConnectorError: {failure}; "
        "restart 1 in 0.1 s",
        "millstream: Job execution failed: Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy("
        f"maxNumberRestartAttempts=1, backoffTimeMS=100): {failure}",
    ]


def _read_lines(stream: object, into: list[str]) -> threading.Thread:
    def read() -> None:
        for line in stream:  # type: ignore[attr-defined]
            into.append(line.rstrip("\n"))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _wait_for(condition: Callable[[], bool], what: str, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {seconds} s"
        time.sleep(0.1)  # polling the job's output, bounded by the deadline


def test_a_reader_whose_broker_goes_away_logs_it_once_not_per_attempt(job: Path) -> None:
    """The readers' consumers retry for ever (as the Java client does): each distinct line of
    librdkafka's once per minute, through logging, is what the user sees of it."""
    broker = KafkaBroker().start()
    try:
        broker.create_topic("words", 1)
        produce_records(broker.bootstrap_servers, "words", [(0, None, b"hello", 0)])
        env = {k: v for k, v in os.environ.items() if k not in ("MILLSTREAM_LOG_LEVEL", "MILLSTREAM_VERBOSE")}
        process = subprocess.Popen(
            [MILLSTREAM, "run", "--no-progress", str(job), broker.bootstrap_servers, "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        out: list[str] = []
        err: list[str] = []
        readers = [_read_lines(process.stdout, out), _read_lines(process.stderr, err)]
        try:
            _wait_for(lambda: "read hello" in out, "record read")
            broker.stop()
            _wait_for(lambda: any("Connection refused" in line for line in err), "librdkafka line")
        finally:
            process.send_signal(signal.SIGINT)  # the job is cancelled
            process.wait(timeout=120)
            for reader in readers:
                reader.join(timeout=30)
    finally:
        broker.stop()
    assert not [line for line in err if "|FAIL|" in line]  # none of librdkafka's own lines
    # each through the TaskManager's logging, naming the reader (its time stamp left out)
    logged = [line.split(" ", 2)[2] for line in err if "millstream.connectors.kafka.librdkafka" in line]
    refused = [line for line in logged if "Connection refused" in line]
    assert refused and all("KafkaSource Source: words (1/1): librdkafka FAIL" in line for line in refused), (
        err
    )
    assert len(logged) == len(set(logged)), err  # no line twice (once per minute)
    assert err[-1] == "millstream: interrupted; the job was cancelled", err
