"""Checkpointing and restart settings: PyFlink's API, Flink's keys, one set of values.

The defaults, the effect of ``enable_checkpointing`` and the error wording were observed on
real PyFlink 2.3 (/work/exp/ckpt_defaults.py): checkpointing off with interval -1 and mode
reported AT_LEAST_ONCE, timeout 600000 ms, min pause 0, one concurrent checkpoint, no
tolerated failure, aligned, NO_EXTERNALIZED_CHECKPOINTS; ``enable_checkpointing(1000)``
gives EXACTLY_ONCE; ``execution.checkpointing.interval: 2 s`` gives 2000.
"""

from __future__ import annotations

import pytest

from millstream.common import Configuration, Duration, RestartStrategies
from millstream.common.config_option import ConfigurationError
from millstream.common.config_options import validate_entry
from millstream.datastream import (
    CheckpointingMode,
    ExternalizedCheckpointRetention,
    StreamExecutionEnvironment,
)


def env_with(settings: dict[str, str] | None = None) -> StreamExecutionEnvironment:
    conf = Configuration()
    for key, value in (settings or {}).items():
        conf.set_string(key, value)
    return StreamExecutionEnvironment.get_execution_environment(conf)


def job_config(env: StreamExecutionEnvironment):  # type: ignore[no-untyped-def]
    env.from_collection([1]).print()
    return env.get_stream_graph().job_config


def test_defaults_are_pyflink_2_3s():
    env = env_with()
    config = env.get_checkpoint_config()
    assert not config.is_checkpointing_enabled()
    assert env.get_checkpoint_interval() == -1
    assert config.get_checkpointing_mode() is CheckpointingMode.AT_LEAST_ONCE
    assert config.get_checkpoint_timeout() == 600_000
    assert config.get_min_pause_between_checkpoints() == 0
    assert config.get_max_concurrent_checkpoints() == 1
    assert config.get_tolerable_checkpoint_failure_number() == 0
    assert not config.is_unaligned_checkpoints_enabled()
    assert (
        config.get_externalized_checkpoint_retention()
        is ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS
    )
    assert not config.is_externalized_checkpoints_enabled()
    settings = job_config(env)
    assert not settings.checkpointing.enabled
    assert settings.restart_strategy.strategy == "none"  # Flink 2: no checkpointing, no restart


def test_enable_checkpointing_sets_interval_and_mode():
    env = env_with()
    env.enable_checkpointing(1000)
    assert env.get_checkpoint_config().is_checkpointing_enabled()
    assert env.get_checkpoint_interval() == 1000
    assert env.get_checkpointing_mode() is CheckpointingMode.EXACTLY_ONCE
    env.enable_checkpointing(500, CheckpointingMode.AT_LEAST_ONCE)
    assert (env.get_checkpoint_interval(), env.get_checkpointing_mode()) == (
        500,
        CheckpointingMode.AT_LEAST_ONCE,
    )
    settings = job_config(env)
    assert settings.checkpointing.enabled and settings.checkpointing.interval_ms == 500
    assert not settings.checkpointing.exactly_once
    assert settings.restart_strategy.strategy == "exponential-delay"  # Flink 2's default with checkpoints


def test_configuration_keys_and_the_api_are_the_same_settings():
    env = env_with(
        {
            "execution.checkpointing.interval": "2 s",
            "execution.checkpointing.mode": "AT_LEAST_ONCE",
            "execution.checkpointing.timeout": "1 min",
            "execution.checkpointing.unaligned.enabled": "true",
        }
    )
    config = env.get_checkpoint_config()
    assert config.get_checkpoint_interval() == 2000
    assert config.get_checkpointing_mode() is CheckpointingMode.AT_LEAST_ONCE
    assert config.get_checkpoint_timeout() == 60_000
    assert config.is_unaligned_checkpoints_enabled()
    config.set_min_pause_between_checkpoints(250).set_max_concurrent_checkpoints(2)
    config.set_tolerable_checkpoint_failure_number(3).set_aligned_checkpoint_timeout(Duration.of_seconds(1))
    config.set_externalized_checkpoint_retention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION)
    checkpointing = job_config(env).checkpointing
    assert (checkpointing.min_pause_ms, checkpointing.max_concurrent, checkpointing.tolerable_failures) == (
        250,
        2,
        3,
    )
    assert checkpointing.aligned_timeout_ms == 1000 and checkpointing.unaligned
    assert checkpointing.retention == "RETAIN_ON_CANCELLATION"
    assert checkpointing.timeout_ms == 60_000


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda env: env.enable_checkpointing(5),
            "Checkpoint interval must be larger than or equal to 10 ms",
        ),
        (
            lambda env: env.get_checkpoint_config().set_checkpoint_timeout(0),
            "Checkpoint timeout must be larger than or equal to 10 ms",
        ),
        (
            lambda env: env.get_checkpoint_config().set_max_concurrent_checkpoints(0),
            "The maximum number of concurrent attempts must be at least one.",
        ),
        (
            lambda env: env.get_checkpoint_config().set_min_pause_between_checkpoints(-1),
            "Pause value must be zero or positive",
        ),
    ],
)
def test_bad_values_fail_with_flinks_wording(call, message):  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call(env_with())


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("execution.checkpointing.interval", "5", "must be at least 10 ms"),
        ("execution.checkpointing.mode", "SOMETIMES", "expected one of EXACTLY_ONCE, AT_LEAST_ONCE"),
        ("restart-strategy.type", "sometimes", "expected one of none"),
        ("restart-strategy.fixed-delay.delay", "soon", "expected a duration"),
    ],
)
def test_bad_keys_from_the_command_line_are_rejected_naming_the_key(key, value, message):  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigurationError, match=message):
        validate_entry(key, value)


def test_restart_strategies_become_configuration():
    env = env_with()
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(3, 1500))
    restart = job_config(env).restart_strategy
    assert (restart.strategy, restart.attempts, restart.delay_ms) == ("fixed-delay", 3, 1500)

    env = env_with()
    env.set_restart_strategy(RestartStrategies.failure_rate_restart(2, 60_000, 500))
    restart = job_config(env).restart_strategy
    assert restart.strategy == "failure-rate"
    assert (restart.max_failures_per_interval, restart.failure_rate_interval_ms, restart.delay_ms) == (
        2,
        60_000,
        500,
    )

    env = env_with()
    env.enable_checkpointing(1000)
    env.set_restart_strategy(RestartStrategies.no_restart())
    assert job_config(env).restart_strategy.strategy == "none"


def test_restart_keys_of_flink():
    env = env_with(
        {
            "restart-strategy.type": "exponential-delay",
            "restart-strategy.exponential-delay.initial-backoff": "2 s",
            "restart-strategy.exponential-delay.backoff-multiplier": "2.0",
        }
    )
    restart = job_config(env).restart_strategy
    assert (restart.strategy, restart.initial_backoff_ms, restart.backoff_multiplier) == (
        "exponential-delay",
        2000,
        2.0,
    )
    env = env_with({"restart-strategy": "fixeddelay"})  # Flink's older key and spelling
    assert job_config(env).restart_strategy.strategy == "fixed-delay"
    env = env_with(
        {
            "restart-strategy.type": "exponential-delay",
            "restart-strategy.exponential-delay.jitter-factor": "2",
        }
    )
    with pytest.raises(ConfigurationError, match=r"jitter-factor=2\.0: must be within 0 and 1"):
        job_config(env)
