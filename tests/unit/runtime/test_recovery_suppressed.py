"""A job whose restart strategy is exhausted fails saying so, as Flink's ExecutionFailureHandler
does: ``JobException("Recovery is suppressed by " + strategy)`` caused by the last failure,
each strategy printed as Flink's ``toString`` prints it (issue 46, point 20).

PyFlink 2.3.0, a map raising on every record with each strategy, ends with (client, cause chain):

* ``Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2,
  backoffTimeMS=100)``
* ``Recovery is suppressed by FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy(
  failuresIntervalMS=60000,backoffTimeMS=100,maxFailuresPerInterval=2)`` (sic: the name twice,
  one closing parenthesis)
* ``Recovery is suppressed by ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=10,
  maxBackoffMS=50, backoffMultiplier=1.5, resetBackoffThresholdMS=3600000, jitterFactor=0.0,
  attemptsBeforeResetBackoff=2, currentRestartAttempt=3, nextRestartTimestamp=1795928860496)``
* ``Recovery is suppressed by NoRestartBackoffTimeStrategy``
"""

from __future__ import annotations

from millstream.common.restart_strategy import RestartStrategySettings
from millstream.runtime.jobmanager.exception_history import history_entry
from millstream.runtime.jobmanager.restart_backoff import (
    JobException,
    RestartBackoff,
    create_restart_backoff,
    recovery_suppressed,
)
from millstream.runtime.location import TaskLocation, UserFunctionError

FIXED_DELAY = RestartStrategySettings(strategy="fixed-delay", attempts=2, delay_ms=100)
FAILURE_RATE = RestartStrategySettings(
    strategy="failure-rate", max_failures_per_interval=2, failure_rate_interval_ms=60_000, delay_ms=100
)
EXPONENTIAL = RestartStrategySettings(
    strategy="exponential-delay",
    initial_backoff_ms=10,
    max_backoff_ms=50,
    backoff_multiplier=1.5,
    jitter_factor=0.0,
    attempts_before_reset=2,
)


def _exhaust(settings: RestartStrategySettings) -> tuple[RestartBackoff, int]:
    """Fail as the oracle's job did (a failure after each restart) until no restart is left."""
    backoff = create_restart_backoff(settings)
    now = 1_000_000
    while True:
        backoff.notify_failure(now)
        if not backoff.can_restart():
            return backoff, now
        now += backoff.backoff_ms() + 5


def _user_failure() -> UserFunctionError:
    try:
        try:
            raise ValueError("boom 1")
        except ValueError as user:
            raise UserFunctionError("Map", TaskLocation("job", "Map", 0, 1), 1, 1) from user
    except UserFunctionError as failure:
        return failure


def test_each_strategy_prints_as_flinks_to_string() -> None:
    assert str(_exhaust(FIXED_DELAY)[0]) == (
        "FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2, backoffTimeMS=100)"
    )
    assert str(_exhaust(FAILURE_RATE)[0]) == (
        "FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy("
        "failuresIntervalMS=60000,backoffTimeMS=100,maxFailuresPerInterval=2)"
    )
    backoff, last_failure = _exhaust(EXPONENTIAL)
    # the third failure was the third attempt: it would have restarted 10 * 1.5 ** 2 ms later
    assert str(backoff) == (
        "ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS=10, maxBackoffMS=50, "
        "backoffMultiplier=1.5, resetBackoffThresholdMS=3600000, jitterFactor=0.0, "
        f"attemptsBeforeResetBackoff=2, currentRestartAttempt=3, nextRestartTimestamp={last_failure + 22})"
    )
    assert str(create_restart_backoff(RestartStrategySettings(strategy="none"))) == (
        "NoRestartBackoffTimeStrategy"
    )


def test_an_exhausted_strategy_fails_the_job_with_a_job_exception_caused_by_the_failure() -> None:
    failure = _user_failure()
    backoff, _ = _exhaust(FIXED_DELAY)
    error = recovery_suppressed(backoff, failure)
    assert isinstance(error, JobException) and error.__cause__ is failure
    assert str(error) == (
        "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2, "
        "backoffTimeMS=100)"
    )


def test_a_job_without_restarts_fails_with_its_failure_itself() -> None:
    """Flink says "Recovery is suppressed by NoRestartBackoffTimeStrategy" for every failed job
    without checkpoints; millstream keeps such a job's error as it was (nothing was exhausted)."""
    failure = _user_failure()
    assert recovery_suppressed(create_restart_backoff(RestartStrategySettings()), failure) is failure


def test_the_history_entry_of_the_last_failure_is_the_job_exception_with_the_task_and_operator() -> None:
    error = recovery_suppressed(_exhaust(FIXED_DELAY)[0], _user_failure())
    assert error is not None
    entry = history_entry(error, 5, "Map (1/1)", "tm-1", None, None)
    assert entry.exception_name == "millstream.runtime.jobmanager.restart_backoff.JobException"
    assert entry.message.startswith("Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(")
    assert (entry.task_name, entry.operator_name, entry.restart) == ("Map (1/1)", "Map", None)
    assert "ValueError: boom 1" in entry.stacktrace and "Recovery is suppressed by" in entry.stacktrace
