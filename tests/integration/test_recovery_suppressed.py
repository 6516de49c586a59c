"""A job failing after its restart strategy is exhausted says so, on the client (the one line
its user reads) and in the REST exception history, as Flink does (issue 46, point 20).

PyFlink 2.3.0 runs the same job (a map raising on every record) with each strategy and ends
with ``Caused by: org.apache.flink.runtime.JobException: Recovery is suppressed by
FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2, backoffTimeMS=100)`` (the
others: see tests/unit/runtime/test_recovery_suppressed.py). Before, millstream's last error
was the task's failure alone."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from typing import Any

import pytest

from millstream.common import Configuration, JobExecutionException, Types
from millstream.common.error_report import render
from millstream.datastream import StreamExecutionEnvironment

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

DEADLINE_S = 120.0

STRATEGIES = {
    "fixed-delay": (
        {"restart-strategy.fixed-delay.attempts": "2", "restart-strategy.fixed-delay.delay": "100 ms"},
        re.escape("FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2, backoffTimeMS=100)"),
    ),
    "failure-rate": (
        {
            "restart-strategy.failure-rate.max-failures-per-interval": "2",
            "restart-strategy.failure-rate.failure-rate-interval": "1 min",
            "restart-strategy.failure-rate.delay": "100 ms",
        },
        re.escape(
            "FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy("
            "failuresIntervalMS=60000,backoffTimeMS=100,maxFailuresPerInterval=2)"
        ),
    ),
    "exponential-delay": (
        {
            "restart-strategy.exponential-delay.attempts-before-reset-backoff": "2",
            "restart-strategy.exponential-delay.initial-backoff": "10 ms",
            "restart-strategy.exponential-delay.max-backoff": "50 ms",
            "restart-strategy.exponential-delay.jitter-factor": "0",
        },
        re.escape(
            "ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=10, maxBackoffMS=50, "
            "backoffMultiplier=1.5, resetBackoffThresholdMS=3600000, jitterFactor=0.0, "
            "attemptsBeforeResetBackoff=2, currentRestartAttempt=3, nextRestartTimestamp="
        )
        + r"\d{13}\)",
    ),
}


def _boom(value: int) -> int:
    raise ValueError(f"boom {value}")


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_the_last_error_says_the_restart_strategy_suppressed_recovery(strategy: str) -> None:
    keys, printed = STRATEGIES[strategy]
    conf = Configuration()
    conf.set_string("restart-strategy.type", strategy)
    for key, value in {**keys, "rest.enabled": "true", "rest.port": "0"}.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.from_collection([1, 2, 3], type_info=Types.INT()).map(_boom, output_type=Types.INT()).name("boom")
    client = env.execute_async(f"suppressed {strategy}")
    try:
        deadline = time.monotonic() + DEADLINE_S
        while not client.result_done():
            assert time.monotonic() < deadline, "the job did not end"
            time.sleep(0.1)  # polling an observable condition, bounded by the deadline
        rest = client.cluster.services.plugins["rest"]
        url = f"{rest.url}/jobs/{client.get_job_id().hex}/exceptions"
        with urllib.request.urlopen(url, timeout=30) as response:
            entries: list[dict[str, Any]] = json.load(response)["exceptionHistory"]["entries"]
        with pytest.raises(JobExecutionException) as raised:
            client.get_job_execution_result(timeout=60)
    finally:
        client.close()
    # the REST history, newest first: the JobException, then the two restarts' failures
    last, *restarts = entries
    assert last["exceptionName"].endswith(".JobException"), last
    assert re.fullmatch(f"Recovery is suppressed by {printed}", last["message"]), last["message"]
    assert "ValueError: boom 1" in last["stacktrace"] and last["operatorName"] == "boom"
    assert [(e["exceptionName"], e["restart"]) for e in restarts] == [("ValueError", 2), ("ValueError", 1)]
    # the client: the exception's message and the one line its user reads
    assert re.search(f"Job execution failed: Recovery is suppressed by {printed}", str(raised.value))
    line = render(raised.value, verbose=False).splitlines()[0]
    assert re.fullmatch(
        f"millstream: Job 'suppressed {strategy}' failed: Recovery is suppressed by {printed}: "
        r"user function raised: operator 'boom' in subtask .*",
        line,
    ), line
