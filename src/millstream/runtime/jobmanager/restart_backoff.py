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
answer for it. Driven on the JobMaster's main thread.
"""

from __future__ import annotations

import random
from collections import deque

from millstream.common.restart_strategy import RestartStrategySettings

__all__ = ["RestartBackoff", "create_restart_backoff"]


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


class _NoRestart(RestartBackoff):
    def notify_failure(self, now_ms: int) -> None:
        pass

    def can_restart(self) -> bool:
        return False

    def backoff_ms(self) -> int:
        return 0


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
