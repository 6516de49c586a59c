"""The options of checkpointing and restarts: Flink's keys, defaults and bounds.

``CheckpointConfig`` (``env.get_checkpoint_config()``) and ``enable_checkpointing`` write
these keys into the environment's Configuration, so the API, ``-D`` and the conf file are
one thing. Defaults are Flink 2's (checked on PyFlink 2.3: checkpointing off, timeout
10 min, no pause, one checkpoint at a time, no tolerated failure, aligned, not retained).
"""

from __future__ import annotations

from millstream.common.config_option import ConfigOption

__all__ = [
    "CHECKPOINTING_ALIGNED_TIMEOUT",
    "CHECKPOINTING_INTERVAL",
    "CHECKPOINTING_MAX_CONCURRENT",
    "CHECKPOINTING_MIN_PAUSE",
    "CHECKPOINTING_MODE",
    "CHECKPOINTING_RETAINED",
    "CHECKPOINTING_RETENTION",
    "CHECKPOINTING_TIMEOUT",
    "CHECKPOINTING_TOLERABLE_FAILURES",
    "CHECKPOINTING_UNALIGNED",
    "FAILOVER_STRATEGY",
    "RESTART_EXPONENTIAL_ATTEMPTS",
    "RESTART_EXPONENTIAL_INITIAL_BACKOFF",
    "RESTART_EXPONENTIAL_JITTER",
    "RESTART_EXPONENTIAL_MAX_BACKOFF",
    "RESTART_EXPONENTIAL_MULTIPLIER",
    "RESTART_EXPONENTIAL_RESET_THRESHOLD",
    "RESTART_FAILURE_RATE_DELAY",
    "RESTART_FAILURE_RATE_INTERVAL",
    "RESTART_FAILURE_RATE_MAX_FAILURES",
    "RESTART_FIXED_DELAY_ATTEMPTS",
    "RESTART_FIXED_DELAY_DELAY",
    "RESTART_STRATEGY",
    "RESTART_STRATEGY_NAMES",
    "SAVEPOINT_DIR",
    "STATE_RECOVERY_IGNORE_UNCLAIMED",
    "STATE_RECOVERY_PATH",
]

CHECKPOINTING_INTERVAL: ConfigOption[int] = ConfigOption(
    "execution.checkpointing.interval",
    -1,
    int,
    "Interval between checkpoints; unset (-1): checkpointing is off.",
    unit="ms",
    minimum=10,
)
CHECKPOINTING_MODE: ConfigOption[str] = ConfigOption(
    "execution.checkpointing.mode",
    "EXACTLY_ONCE",
    str,
    "EXACTLY_ONCE (barriers aligned: no record counted twice after recovery) or AT_LEAST_ONCE.",
    choices=("EXACTLY_ONCE", "AT_LEAST_ONCE"),
)
CHECKPOINTING_TIMEOUT: ConfigOption[int] = ConfigOption(
    "execution.checkpointing.timeout",
    600_000,
    int,
    "A checkpoint not complete after this long is aborted.",
    unit="ms",
    minimum=10,
)
CHECKPOINTING_MIN_PAUSE: ConfigOption[int] = ConfigOption(
    "execution.checkpointing.min-pause",
    0,
    int,
    "Least time between the end of one checkpoint and the start of the next.",
    unit="ms",
    minimum=0,
)
CHECKPOINTING_MAX_CONCURRENT: ConfigOption[int] = ConfigOption(
    "execution.checkpointing.max-concurrent-checkpoints",
    1,
    int,
    "Most checkpoints in progress at a time.",
    minimum=1,
)
CHECKPOINTING_TOLERABLE_FAILURES: ConfigOption[int] = ConfigOption(
    "execution.checkpointing.tolerable-failed-checkpoints",
    0,
    int,
    "Consecutive failed checkpoints tolerated before the job fails (0: none).",
    minimum=0,
)
CHECKPOINTING_UNALIGNED: ConfigOption[bool] = ConfigOption(
    "execution.checkpointing.unaligned.enabled",
    False,
    bool,
    "Unaligned checkpoints: barriers overtake buffered data, which is stored with the checkpoint.",
    fallback_keys=("execution.checkpointing.unaligned",),
)
CHECKPOINTING_ALIGNED_TIMEOUT: ConfigOption[int] = ConfigOption(
    "execution.checkpointing.aligned-checkpoint-timeout",
    0,
    int,
    "With unaligned checkpoints: start aligned, switch to unaligned after this long (0: at once).",
    unit="ms",
    minimum=0,
)
STATE_RECOVERY_PATH: ConfigOption[str] = ConfigOption(
    "execution.state-recovery.path",
    "",
    str,
    "Start the job from this retained checkpoint (a chk-<n> directory, its _metadata file, "
    "or a job's checkpoint directory: its latest checkpoint); ``millstream run -s PATH``.",
    fallback_keys=("execution.savepoint.path",),
)
STATE_RECOVERY_IGNORE_UNCLAIMED: ConfigOption[bool] = ConfigOption(
    "execution.state-recovery.ignore-unclaimed-state",
    False,
    bool,
    "Start even if state in the checkpoint belongs to no task of the job (it is dropped); "
    "``millstream run -n``.",
    fallback_keys=("execution.savepoint.ignore-unclaimed-state",),
)
SAVEPOINT_DIR: ConfigOption[str] = ConfigOption(
    "execution.checkpointing.savepoint-dir",
    "",
    str,
    "Where savepoints go when their command names no directory (millstream savepoint JOB_ID).",
    fallback_keys=("state.savepoints.dir",),
)
CHECKPOINTING_RETENTION: ConfigOption[str] = ConfigOption(
    "execution.checkpointing.externalized-checkpoint-retention",
    "NO_EXTERNALIZED_CHECKPOINTS",
    str,
    "Whether the last checkpoints stay on storage when the job is cancelled "
    "(RETAIN_ON_CANCELLATION) or ends (DELETE_ON_CANCELLATION keeps them only on failure).",
    choices=("DELETE_ON_CANCELLATION", "RETAIN_ON_CANCELLATION", "NO_EXTERNALIZED_CHECKPOINTS"),
)
CHECKPOINTING_RETAINED: ConfigOption[int] = ConfigOption(
    "execution.checkpointing.num-retained",
    1,
    int,
    "Completed checkpoints kept on storage.",
    minimum=1,
    fallback_keys=("state.checkpoints.num-retained",),
)

# restart strategies (Flink's ``restart-strategy.*``); the default depends on checkpointing:
# exponential-delay when it is on, none when it is off (Flink 2's rule)
RESTART_STRATEGY_NAMES = {
    "none": "none",
    "off": "none",
    "disable": "none",
    "fixed-delay": "fixed-delay",
    "fixeddelay": "fixed-delay",
    "failure-rate": "failure-rate",
    "failurerate": "failure-rate",
    "exponential-delay": "exponential-delay",
    "exponentialdelay": "exponential-delay",
}
FAILOVER_STRATEGY: ConfigOption[str] = ConfigOption(
    "jobmanager.execution.failover-strategy",
    "region",
    str,
    "What a failed task restarts: its pipelined region and the regions consuming from it "
    "(region), or every task of the job (full). A lost TaskManager restarts the whole job.",
    choices=("region", "full"),
)
RESTART_STRATEGY: ConfigOption[str] = ConfigOption(
    "restart-strategy.type",
    "",
    str,
    "none, fixed-delay, failure-rate or exponential-delay; unset: exponential-delay with "
    "checkpointing, none without.",
    choices=tuple(RESTART_STRATEGY_NAMES),
    fallback_keys=("restart-strategy",),
)
RESTART_FIXED_DELAY_ATTEMPTS: ConfigOption[int] = ConfigOption(
    "restart-strategy.fixed-delay.attempts", 1, int, "Restarts before the job fails.", minimum=0
)
RESTART_FIXED_DELAY_DELAY: ConfigOption[int] = ConfigOption(
    "restart-strategy.fixed-delay.delay", 1000, int, "Wait before each restart.", unit="ms", minimum=0
)
RESTART_FAILURE_RATE_MAX_FAILURES: ConfigOption[int] = ConfigOption(
    "restart-strategy.failure-rate.max-failures-per-interval",
    1,
    int,
    "Failures within one interval before the job fails.",
    minimum=1,
)
RESTART_FAILURE_RATE_INTERVAL: ConfigOption[int] = ConfigOption(
    "restart-strategy.failure-rate.failure-rate-interval",
    60_000,
    int,
    "The interval over which failures are counted.",
    unit="ms",
    minimum=1,
)
RESTART_FAILURE_RATE_DELAY: ConfigOption[int] = ConfigOption(
    "restart-strategy.failure-rate.delay", 1000, int, "Wait before each restart.", unit="ms", minimum=0
)
# The exponential-delay defaults are Flink 2.3's (RestartStrategyOptions): initial-backoff
# 1 s, max-backoff 1 min, backoff-multiplier 1.5, reset-backoff-threshold 1 h, jitter-factor
# 0.1, attempts-before-reset-backoff Integer.MAX_VALUE (restart without end).
RESTART_EXPONENTIAL_INITIAL_BACKOFF: ConfigOption[int] = ConfigOption(
    "restart-strategy.exponential-delay.initial-backoff",
    1000,
    int,
    "Wait before the first restart.",
    unit="ms",
    minimum=1,
)
RESTART_EXPONENTIAL_MAX_BACKOFF: ConfigOption[int] = ConfigOption(
    "restart-strategy.exponential-delay.max-backoff",
    60_000,
    int,
    "Longest wait between restarts.",
    unit="ms",
    minimum=1,
)
RESTART_EXPONENTIAL_MULTIPLIER: ConfigOption[float] = ConfigOption(
    "restart-strategy.exponential-delay.backoff-multiplier",
    1.5,
    float,
    "Each wait is the previous one times this (at least 1).",
)
RESTART_EXPONENTIAL_RESET_THRESHOLD: ConfigOption[int] = ConfigOption(
    "restart-strategy.exponential-delay.reset-backoff-threshold",
    3_600_000,
    int,
    "After this long without a failure the wait starts over at the initial backoff.",
    unit="ms",
    minimum=1,
)
RESTART_EXPONENTIAL_JITTER: ConfigOption[float] = ConfigOption(
    "restart-strategy.exponential-delay.jitter-factor",
    0.1,
    float,
    "Random share (0..1) added to or taken from each wait, so restarts do not line up.",
)
RESTART_EXPONENTIAL_ATTEMPTS: ConfigOption[int] = ConfigOption(
    "restart-strategy.exponential-delay.attempts-before-reset-backoff",
    2**31 - 1,
    int,
    "Restarts before the job fails, counted again from 0 when the backoff resets (default: no end).",
    minimum=1,
)
