"""Restart strategies: ``RestartStrategies`` as ``pyflink.common`` names them, and the typed
settings the JobMaster reads.

A restart strategy is configuration (``restart-strategy.type`` and its sub-keys, as in
Flink 2); ``RestartStrategies.fixed_delay_restart(3, 1000)`` and friends build the same
keys for PyFlink 1.x programs that call ``env.set_restart_strategy(...)``. (PyFlink 2.3
still ships ``RestartStrategies``, but calling it fails there: its Java class is gone.)
Unset, the strategy is Flink's default: exponential-delay when checkpointing is on, none
when it is off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from millstream.common import checkpointing_options as ck
from millstream.common.config_option import ConfigurationError
from millstream.common.configuration import Configuration

__all__ = ["RestartStrategies", "RestartStrategyConfiguration", "RestartStrategySettings"]


class RestartStrategyConfiguration:
    """A restart strategy as configuration keys (``apply_to(configuration)``)."""

    def __init__(self, entries: dict[str, Any], description: str) -> None:
        self._entries = entries
        self._description = description

    def apply_to(self, configuration: Configuration) -> None:
        """Write this strategy's keys into ``configuration``."""
        for key, value in self._entries.items():
            configuration.set_string(key, str(value))

    def get_description(self) -> str:
        """What the strategy does."""
        return self._description

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._description})"


class RestartStrategies:
    """Factories of restart strategies (PyFlink's names)."""

    class NoRestartStrategyConfiguration(RestartStrategyConfiguration):
        """Never restart."""

        def __init__(self) -> None:
            super().__init__({ck.RESTART_STRATEGY.key: "none"}, "Restart deactivated.")

    class FixedDelayRestartStrategyConfiguration(RestartStrategyConfiguration):
        """Restart up to ``restart_attempts`` times, waiting ``delay_between_attempts`` ms each time."""

        def __init__(self, restart_attempts: int, delay_between_attempts: int) -> None:
            self._attempts = restart_attempts
            self._delay = delay_between_attempts
            super().__init__(
                {
                    ck.RESTART_STRATEGY.key: "fixed-delay",
                    ck.RESTART_FIXED_DELAY_ATTEMPTS.key: restart_attempts,
                    ck.RESTART_FIXED_DELAY_DELAY.key: f"{delay_between_attempts} ms",
                },
                f"Restart with fixed delay ({delay_between_attempts} ms). "
                f"#{restart_attempts} restart attempts.",
            )

        def get_restart_attempts(self) -> int:
            """Restarts before the job fails."""
            return self._attempts

        def get_delay_between_attempts(self) -> int:
            """Milliseconds before each restart."""
            return self._delay

    class FailureRateRestartStrategyConfiguration(RestartStrategyConfiguration):
        """Restart unless ``max_failure_rate`` failures happen within ``failure_interval`` ms."""

        def __init__(
            self, max_failure_rate: int, failure_interval: int, delay_between_attempts_interval: int
        ) -> None:
            self._rate = max_failure_rate
            self._interval = failure_interval
            self._delay = delay_between_attempts_interval
            super().__init__(
                {
                    ck.RESTART_STRATEGY.key: "failure-rate",
                    ck.RESTART_FAILURE_RATE_MAX_FAILURES.key: max_failure_rate,
                    ck.RESTART_FAILURE_RATE_INTERVAL.key: f"{failure_interval} ms",
                    ck.RESTART_FAILURE_RATE_DELAY.key: f"{delay_between_attempts_interval} ms",
                },
                f"Failure rate restart with maximum of {max_failure_rate} failures within interval "
                f"{failure_interval} ms and fixed delay {delay_between_attempts_interval} ms.",
            )

        def get_max_failure_rate(self) -> int:
            """Failures per interval before the job fails."""
            return self._rate

        def get_failure_interval(self) -> int:
            """The interval (ms) failures are counted over."""
            return self._interval

        def get_delay_between_attempts_interval(self) -> int:
            """Milliseconds before each restart."""
            return self._delay

    class FallbackRestartStrategyConfiguration(RestartStrategyConfiguration):
        """Use the cluster's configured strategy."""

        def __init__(self) -> None:
            super().__init__({}, "Cluster level default restart strategy")

    @staticmethod
    def no_restart() -> RestartStrategies.NoRestartStrategyConfiguration:
        """Never restart: a failure fails the job."""
        return RestartStrategies.NoRestartStrategyConfiguration()

    @staticmethod
    def fall_back_restart() -> RestartStrategies.FallbackRestartStrategyConfiguration:
        """The configured (or default) strategy."""
        return RestartStrategies.FallbackRestartStrategyConfiguration()

    @staticmethod
    def fixed_delay_restart(
        restart_attempts: int, delay_between_attempts: int
    ) -> RestartStrategies.FixedDelayRestartStrategyConfiguration:
        """Restart up to ``restart_attempts`` times, ``delay_between_attempts`` ms apart."""
        return RestartStrategies.FixedDelayRestartStrategyConfiguration(
            restart_attempts, delay_between_attempts
        )

    @staticmethod
    def failure_rate_restart(
        failure_rate: int, failure_interval: int, delay_interval: int
    ) -> RestartStrategies.FailureRateRestartStrategyConfiguration:
        """Restart unless ``failure_rate`` failures happen within ``failure_interval`` ms."""
        return RestartStrategies.FailureRateRestartStrategyConfiguration(
            failure_rate, failure_interval, delay_interval
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class RestartStrategySettings:
    """The resolved restart strategy of a job (what the JobMaster's failover consults)."""

    strategy: str = "none"  # none | fixed-delay | failure-rate | exponential-delay
    attempts: int = 1  # fixed-delay
    delay_ms: int = 1000  # fixed-delay, failure-rate
    max_failures_per_interval: int = 1  # failure-rate
    failure_rate_interval_ms: int = 60_000  # failure-rate
    initial_backoff_ms: int = 1000  # exponential-delay
    max_backoff_ms: int = 60_000
    backoff_multiplier: float = 1.5
    reset_backoff_threshold_ms: int = 3_600_000
    jitter_factor: float = 0.1
    attempts_before_reset: int = 2**31 - 1  # exponential-delay
    failover_strategy: str = "region"  # region | full: what a failed task restarts

    @classmethod
    def from_configuration(cls, configuration: Configuration, checkpointing: bool) -> RestartStrategySettings:
        """The configured strategy; unset, exponential-delay with checkpointing and none without."""
        name = configuration.get(ck.RESTART_STRATEGY).strip().lower()
        if not name:
            name = "exponential-delay" if checkpointing else "none"
        strategy = ck.RESTART_STRATEGY_NAMES[name]
        multiplier = configuration.get(ck.RESTART_EXPONENTIAL_MULTIPLIER)
        jitter = configuration.get(ck.RESTART_EXPONENTIAL_JITTER)
        if multiplier < 1:
            raise ConfigurationError(
                f"{ck.RESTART_EXPONENTIAL_MULTIPLIER.key}={multiplier}: must be at least 1"
            )
        if not 0 <= jitter <= 1:
            raise ConfigurationError(f"{ck.RESTART_EXPONENTIAL_JITTER.key}={jitter}: must be within 0 and 1")
        delay = ck.RESTART_FAILURE_RATE_DELAY if strategy == "failure-rate" else ck.RESTART_FIXED_DELAY_DELAY
        return cls(
            strategy=strategy,
            attempts=configuration.get(ck.RESTART_FIXED_DELAY_ATTEMPTS),
            delay_ms=configuration.get(delay),
            max_failures_per_interval=configuration.get(ck.RESTART_FAILURE_RATE_MAX_FAILURES),
            failure_rate_interval_ms=configuration.get(ck.RESTART_FAILURE_RATE_INTERVAL),
            initial_backoff_ms=configuration.get(ck.RESTART_EXPONENTIAL_INITIAL_BACKOFF),
            max_backoff_ms=configuration.get(ck.RESTART_EXPONENTIAL_MAX_BACKOFF),
            backoff_multiplier=multiplier,
            reset_backoff_threshold_ms=configuration.get(ck.RESTART_EXPONENTIAL_RESET_THRESHOLD),
            jitter_factor=jitter,
            attempts_before_reset=configuration.get(ck.RESTART_EXPONENTIAL_ATTEMPTS),
            failover_strategy=configuration.get(ck.FAILOVER_STRATEGY).strip().lower(),
        )
