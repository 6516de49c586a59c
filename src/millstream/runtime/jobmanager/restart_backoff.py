"""Restart strategies at run time (Flink's RestartBackoffTimeStrategy): after each failure,
may the job restart, and after how long?

* none: never.
* fixed-delay: up to ``attempts`` restarts, ``delay`` apart.
* failure-rate: restart unless ``max_failures_per_interval`` failures fall within one
  ``failure_rate_interval`` (a sliding window of failure times); ``delay`` before each.
* exponential-delay: restart (up to ``attempts_before_reset`` times, unbounded by
  default); the wait starts at ``initial_backoff`` and grows by ``backoff_multiplier`` up
  to ``max_backoff``, with ``jitter_factor`` of random spread; it starts over after
  ``reset_backoff_threshold`` without a failure.

``notify_failure(now_ms)`` records a failure; then ``can_restart()`` and ``backoff_ms()``
answer for it. Driven on the JobMaster's main thread. A strategy prints as Flink's
``toString`` does (``FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=3,
backoffTimeMS=1000)``): the job's last error names the strategy that suppressed its
recovery (``recovery_suppressed``), as Flink's ExecutionFailureHandler does.
"""

from __future__ import annotations

import random
from collections import deque

from millstream.common.restart_strategy import RestartStrategySettings

__all__ = ["JobException", "RestartBackoff", "create_restart_backoff", "recovery_suppressed"]

_NO_RESTART_YET_MS = -(2**31)  # Flink's nextRestartTimestamp before the first failure


class JobException(Exception):
    """The job cannot recover from its failure (the cause): its restart strategy allows no
    more restarts (Flink's ``JobException``)."""


class RestartBackoff:
    """A restart strategy's state for one job."""

    def notify_failure(self, now_ms: int) -> None:
        """A failure happened at ``now_ms``."""
        raise NotImplementedError

    def can_restart(self) -> bool:
        """Whether the job may restart after the failures so far."""
        raise NotImplementedError

    def backoff_ms(self) -> int:
        """How long to wait before the restart."""
        raise NotImplementedError


def recovery_suppressed(backoff: RestartBackoff, cause: BaseException | None) -> BaseException | None:
    """The error a job fails with when ``backoff`` allows no more restarts after ``cause``:
    ``JobException("Recovery is suppressed by <strategy>")`` caused by it, once a strategy
    that restarts is exhausted; ``cause`` itself for a job that never restarts."""
    if isinstance(backoff, _NoRestart):
        return cause
    error = JobException(f"Recovery is suppressed by {backoff}")
    error.__cause__ = cause
    return error


class _NoRestart(RestartBackoff):
    def notify_failure(self, now_ms: int) -> None:
        pass

    def can_restart(self) -> bool:
        return False

    def backoff_ms(self) -> int:
        return 0

    def __str__(self) -> str:
        return "NoRestartBackoffTimeStrategy"


class _FixedDelay(RestartBackoff):
    def __init__(self, attempts: int, delay_ms: int) -> None:
        self._attempts = attempts
        self._delay = delay_ms
        self._failures = 0

    def notify_failure(self, now_ms: int) -> None:
        self._failures += 1

    def can_restart(self) -> bool:
        return self._failures <= self._attempts

    def backoff_ms(self) -> int:
        return self._delay

    def __str__(self) -> str:
        return (
            f"FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts={self._attempts}, "
            f"backoffTimeMS={self._delay})"
        )


class _FailureRate(RestartBackoff):
    def __init__(self, max_failures: int, interval_ms: int, delay_ms: int) -> None:
        self._max = max_failures
        self._interval = interval_ms
        self._delay = delay_ms
        self._times: deque[int] = deque()

    def notify_failure(self, now_ms: int) -> None:
        self._times.append(now_ms)
        while self._times and self._times[0] <= now_ms - self._interval:
            self._times.popleft()

    def can_restart(self) -> bool:
        return len(self._times) <= self._max

    def backoff_ms(self) -> int:
        return self._delay

    def __str__(self) -> str:
        # Flink 2.3 prints the class name twice and one closing parenthesis: kept, so that
        # what users search their logs for is the same text
        return (
            "FailureRateRestartBackoffTimeStrategy(FailureRateRestartBackoffTimeStrategy("
            f"failuresIntervalMS={self._interval},backoffTimeMS={self._delay},"
            f"maxFailuresPerInterval={self._max})"
        )


class _ExponentialDelay(RestartBackoff):
    """Flink 2.3's ExponentialDelayRestartBackoffTimeStrategy: the n-th restart waits
    ``initial * multiplier ** n`` (capped at ``max_backoff``, at least ``initial_backoff``)
    plus or minus ``jitter_factor`` of it; failures before the scheduled restart join that
    attempt (a lost TaskManager fails many tasks at once: one restart, one step of growth);
    ``reset_backoff_threshold`` after the last scheduled restart without a failure, the wait
    and the attempt count start over; more than ``attempts_before_reset`` attempts fail the job."""

    def __init__(self, settings: RestartStrategySettings, rng: random.Random) -> None:
        self._settings = settings
        self._rng = rng
        self._attempt = 0  # restarts since the backoff was last reset
        self._next_restart_ms: int | None = None  # when the latest attempt restarts
        self._backoff = 0  # the wait of the latest attempt

    def notify_failure(self, now_ms: int) -> None:
        s = self._settings
        if self._next_restart_ms is not None and now_ms <= self._next_restart_ms:
            self._backoff = self._next_restart_ms - now_ms  # joins the attempt being scheduled
            return
        if (
            self._next_restart_ms is not None
            and now_ms - self._next_restart_ms >= s.reset_backoff_threshold_ms
        ):
            self._attempt = 0
        current = int(s.initial_backoff_ms * s.backoff_multiplier**self._attempt)
        jitter = int(current * s.jitter_factor)
        spread = self._rng.randint(-jitter, jitter) if jitter else 0
        self._backoff = max(s.initial_backoff_ms, min(current + spread, s.max_backoff_ms))
        self._next_restart_ms = now_ms + self._backoff
        self._attempt += 1

    def can_restart(self) -> bool:
        return self._attempt <= self._settings.attempts_before_reset

    def backoff_ms(self) -> int:
        return self._backoff

    def __str__(self) -> str:
        s = self._settings
        next_restart = _NO_RESTART_YET_MS if self._next_restart_ms is None else self._next_restart_ms
        return (
            f"ExponentialDelayRestartBackoffTimeStrategy(initialBackoffMS={s.initial_backoff_ms}, "
            f"maxBackoffMS={s.max_backoff_ms}, backoffMultiplier={float(s.backoff_multiplier)}, "
            f"resetBackoffThresholdMS={s.reset_backoff_threshold_ms}, "
            f"jitterFactor={float(s.jitter_factor)}, attemptsBeforeResetBackoff={s.attempts_before_reset}, "
            f"currentRestartAttempt={self._attempt}, nextRestartTimestamp={next_restart})"
        )


def create_restart_backoff(
    settings: RestartStrategySettings, rng: random.Random | None = None
) -> RestartBackoff:
    """The run-time state of the configured restart strategy."""
    match settings.strategy:
        case "none":
            return _NoRestart()
        case "fixed-delay":
            return _FixedDelay(settings.attempts, settings.delay_ms)
        case "failure-rate":
            return _FailureRate(
                settings.max_failures_per_interval, settings.failure_rate_interval_ms, settings.delay_ms
            )
        case "exponential-delay":
            return _ExponentialDelay(settings, rng or random.Random())
        case other:
            raise ValueError(f"unknown restart strategy {other!r}")
