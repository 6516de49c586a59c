"""Restart strategies decide after each failure (Flink's RestartBackoffTimeStrategy rules)."""

from __future__ import annotations

import random

from millstream.common.restart_strategy import RestartStrategySettings
from millstream.runtime.jobmanager.restart_backoff import create_restart_backoff


def test_none_never_restarts():
    backoff = create_restart_backoff(RestartStrategySettings(strategy="none"))
    backoff.notify_failure(0)
    assert not backoff.can_restart()


def test_fixed_delay_restarts_up_to_the_attempts_with_the_delay():
    backoff = create_restart_backoff(
        RestartStrategySettings(strategy="fixed-delay", attempts=2, delay_ms=300)
    )
    for now in (0, 1000):
        backoff.notify_failure(now)
        assert backoff.can_restart() and backoff.backoff_ms() == 300
    backoff.notify_failure(2000)
    assert not backoff.can_restart()


def test_failure_rate_counts_failures_within_the_interval():
    settings = RestartStrategySettings(
        strategy="failure-rate", max_failures_per_interval=2, failure_rate_interval_ms=1000, delay_ms=50
    )
    backoff = create_restart_backoff(settings)
    backoff.notify_failure(0)
    backoff.notify_failure(500)
    assert backoff.can_restart() and backoff.backoff_ms() == 50
    backoff.notify_failure(900)  # three within one second
    assert not backoff.can_restart()
    backoff = create_restart_backoff(settings)
    for now in (0, 600, 1200, 1800, 2400):  # never more than two in any second
        backoff.notify_failure(now)
        assert backoff.can_restart()


def test_exponential_delay_grows_caps_and_resets():
    settings = RestartStrategySettings(
        strategy="exponential-delay",
        initial_backoff_ms=100,
        max_backoff_ms=1000,
        backoff_multiplier=2.0,
        reset_backoff_threshold_ms=10_000,
        jitter_factor=0.0,
    )
    backoff = create_restart_backoff(settings)
    waits = []
    for now in (0, 100, 200, 300, 400, 500):
        backoff.notify_failure(now)
        assert backoff.can_restart()
        waits.append(backoff.backoff_ms())
    assert waits == [100, 200, 400, 800, 1000, 1000]
    backoff.notify_failure(20_000)  # quiet for longer than the threshold: start over
    assert backoff.backoff_ms() == 100


def test_exponential_jitter_stays_within_its_factor():
    settings = RestartStrategySettings(
        strategy="exponential-delay", initial_backoff_ms=1000, max_backoff_ms=60_000, jitter_factor=0.1
    )
    backoff = create_restart_backoff(settings, random.Random(7))
    backoff.notify_failure(0)
    waits = {backoff.backoff_ms() for _ in range(50)}
    assert all(900 <= w <= 1100 for w in waits) and len(waits) > 1
