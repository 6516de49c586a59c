"""Restart strategies at run time (Flink's RestartBackoffTimeStrategy): after each failure,
may the job restart, and after how long?

* none: never.
* fixed-delay: up to ``attempts`` restarts, ``delay`` apart.
* failure-rate: restart unless ``max_failures_per_interval`` failures fall within one
  ``failure_rate_interval`` (a sliding window of failure times); ``delay`` before each.
* exponential-delay: always restart; the wait starts at ``initial_backoff`` and grows by
  ``backoff_multiplier`` up to ``max_backoff``, with ``jitter_factor`` of random spread; it
  starts over after ``reset_backoff_threshold`` without a failure.

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
    def __init__(self, settings: RestartStrategySettings, rng: random.Random) -> None:
        self._settings = settings
        self._rng = rng
        self._current = 0.0
        self._last_failure: int | None = None

    def notify_failure(self, now_ms: int) -> None:
        s = self._settings
        if self._last_failure is not None and now_ms - self._last_failure >= s.reset_backoff_threshold_ms:
            self._current = 0.0
        self._last_failure = now_ms
        if self._current == 0.0:
            self._current = float(s.initial_backoff_ms)
        else:
            self._current = min(self._current * s.backoff_multiplier, float(s.max_backoff_ms))

    def can_restart(self) -> bool:
        return True

    def backoff_ms(self) -> int:
        jitter = self._current * self._settings.jitter_factor
        spread = self._rng.uniform(-jitter, jitter) if jitter else 0.0
        return max(0, min(int(self._current + spread), self._settings.max_backoff_ms))


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
