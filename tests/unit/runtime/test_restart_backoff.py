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
    now = 0
    for _ in range(6):  # each failure after the previous restart
        backoff.notify_failure(now)
        assert backoff.can_restart()
        waits.append(backoff.backoff_ms())
        now += backoff.backoff_ms() + 1
    assert waits == [100, 200, 400, 800, 1000, 1000]
    backoff.notify_failure(now + 20_000)  # quiet for longer than the threshold: start over
    assert backoff.backoff_ms() == 100


def test_exponential_delay_merges_failures_before_the_scheduled_restart():
    """Flink 2.3's ExponentialDelayRestartBackoffTimeStrategy.notifyFailure: a failure at or
    before the scheduled restart joins that attempt (tasks of one lost TaskManager fail
    together: one step of growth, and the restart still happens when it was due)."""
    settings = RestartStrategySettings(
        strategy="exponential-delay", initial_backoff_ms=100, backoff_multiplier=2.0, jitter_factor=0.0
    )
    backoff = create_restart_backoff(settings)
    backoff.notify_failure(0)
    backoff.notify_failure(40)
    assert backoff.backoff_ms() == 60  # the restart stays due at 100
    backoff.notify_failure(101)
    assert backoff.backoff_ms() == 200  # the second attempt, not the third


def test_exponential_delay_fails_past_its_attempts_and_counts_again_after_a_reset():
    settings = RestartStrategySettings(
        strategy="exponential-delay",
        initial_backoff_ms=10,
        backoff_multiplier=1.0,
        jitter_factor=0.0,
        attempts_before_reset=2,
        reset_backoff_threshold_ms=1000,
    )
    backoff = create_restart_backoff(settings)
    for now in (0, 100):
        backoff.notify_failure(now)
        assert backoff.can_restart()
    backoff.notify_failure(200)
    assert not backoff.can_restart()
    backoff = create_restart_backoff(settings)
    for now in (0, 100, 5000, 5100):  # a quiet spell longer than the threshold in between
        backoff.notify_failure(now)
        assert backoff.can_restart()


def test_the_default_strategy_is_flinks():
    """Unset: exponential-delay with Flink 2.3's defaults when checkpointing, none without."""
    from millstream.common import Configuration

    with_checkpoints = RestartStrategySettings.from_configuration(Configuration(), checkpointing=True)
    assert with_checkpoints.strategy == "exponential-delay"
    assert (
        with_checkpoints.initial_backoff_ms,
        with_checkpoints.max_backoff_ms,
        with_checkpoints.backoff_multiplier,
        with_checkpoints.reset_backoff_threshold_ms,
        with_checkpoints.jitter_factor,
        with_checkpoints.attempts_before_reset,
    ) == (1000, 60_000, 1.5, 3_600_000, 0.1, 2**31 - 1)
    assert RestartStrategySettings.from_configuration(Configuration(), checkpointing=False).strategy == "none"


def test_exponential_jitter_stays_within_its_factor():
    settings = RestartStrategySettings(
        strategy="exponential-delay", initial_backoff_ms=1000, max_backoff_ms=60_000, jitter_factor=0.1
    )
    rng = random.Random(7)
    waits = set()
    for _ in range(50):
        backoff = create_restart_backoff(settings, rng)
        backoff.notify_failure(0)
        backoff.notify_failure(2000)  # the second restart: 1500 ms +- 10%
        waits.add(backoff.backoff_ms())
    assert all(1350 <= w <= 1650 for w in waits) and len(waits) > 1
