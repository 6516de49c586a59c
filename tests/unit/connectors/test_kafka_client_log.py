"""librdkafka's log lines and error events go through Python ``logging``, each distinct line
once per interval (issue 46, point 18).

Before, an unreachable bootstrap address printed librdkafka's own ``%3|...|FAIL|...`` line on
stderr for every connection attempt (573 lines before the job's error, 30 s in). Now every
client gets a ``KafkaClientLog`` as confluent-kafka's ``logger`` and ``error_cb``. No client
is created here: the callbacks are called as confluent-kafka calls them.
"""

from __future__ import annotations

import logging

import pytest
from confluent_kafka import KafkaError, KafkaException

from millstream.connectors.kafka import client
from millstream.connectors.kafka.client import KafkaClientLog, _RepeatLimiter, kafka_error_text

# the arguments confluent-kafka passes to ``logger.log`` for one failed connection attempt
FAIL_LINE = (
    "[thrd:127.0.0.1:1/bootstrap]: 127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: "
    "Connection refused (after {ms}ms in state CONNECT)"
)
REFUSED = "127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: Connection refused"


class ManualClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> ManualClock:
    """A fresh limiter for the module's clients, on a clock the test advances."""
    manual = ManualClock()
    monkeypatch.setattr(client, "_repeats", _RepeatLimiter(client.librdkafka_log, 60.0, manual))
    return manual


def _lines(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == client.librdkafka_log.name]


def test_a_repeated_line_is_logged_once_per_interval_with_the_repeats_counted(
    clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="millstream")
    reader = KafkaClientLog("KafkaSource words (1/2)")
    for attempt in range(500):  # every attempt of 30 s at 50 ms: one line
        clock.now += 0.05
        reader.log(
            logging.ERROR, "%s [%s] %s", "FAIL", "words-0#consumer-1", FAIL_LINE.format(ms=attempt % 3)
        )
    assert _lines(caplog) == [(logging.ERROR, f"KafkaSource words (1/2): librdkafka FAIL {REFUSED}")]
    clock.now += 60.0
    reader.log(logging.ERROR, "%s [%s] %s", "FAIL", "words-0#consumer-1", FAIL_LINE.format(ms=0))
    assert _lines(caplog)[1] == (
        logging.ERROR,
        f"KafkaSource words (1/2): librdkafka FAIL {REFUSED} (and 499 more like it in the last 60 s)",
    )


def test_the_error_event_of_a_logged_line_is_the_same_line(
    clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    """librdkafka reports a refused connection twice: a FAIL log line and an error event."""
    caplog.set_level(logging.DEBUG, logger="millstream")
    sink = KafkaClientLog("KafkaSink out (1/1)")
    sink.log(logging.ERROR, "%s [%s] %s", "FAIL", "producer-1", FAIL_LINE.format(ms=0))
    sink.error(
        KafkaError(
            KafkaError._TRANSPORT, REFUSED + " (after 0ms in state CONNECT, 1 identical error(s) suppressed)"
        )
    )
    assert len(_lines(caplog)) == 1
    assert sink.latest_error == REFUSED
    sink.error(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
    assert _lines(caplog)[-1] == (logging.WARNING, "KafkaSink out (1/1): 1/1 brokers are down")
    assert sink.latest_error == REFUSED  # the summary does not replace what the broker said


def test_a_client_whose_caller_reports_its_failures_logs_below_warning(
    clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    """The enumerator's discovery fails with a message of its own: librdkafka's lines are INFO."""
    caplog.set_level(logging.DEBUG, logger="millstream")
    enumerator = KafkaClientLog("KafkaSource words (enumerator)", logging.INFO)
    enumerator.log(logging.ERROR, "%s [%s] %s", "FAIL", "enumerator#consumer-1", FAIL_LINE.format(ms=0))
    enumerator.error(KafkaError(KafkaError._FATAL, "fenced", fatal=True))
    assert [level for level, _ in _lines(caplog)] == [logging.INFO, logging.INFO]
    assert enumerator.latest_error == "fenced"


def test_the_limiter_forgets_the_oldest_lines_beyond_its_bound(clock: ManualClock) -> None:
    limiter = _RepeatLimiter(logging.getLogger("test"), 60.0, clock)
    for n in range(client._REPEATS_KEPT + 10):
        limiter.log(logging.INFO, f"line {n}", f"line {n}")
    assert len(limiter._seen) == client._REPEATS_KEPT
    assert "line 0" not in limiter._seen and f"line {client._REPEATS_KEPT + 9}" in limiter._seen


def test_a_kafka_exception_reads_as_its_error_text() -> None:
    error = KafkaException(
        KafkaError(KafkaError._TRANSPORT, "Failed to get metadata: Local: Broker transport failure")
    )
    assert kafka_error_text(error) == "Failed to get metadata: Local: Broker transport failure"
    assert kafka_error_text(RuntimeError("plain")) == "plain"
