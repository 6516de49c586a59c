"""CheckpointConfig, CheckpointingMode and ExternalizedCheckpointRetention, as PyFlink's.

As in Flink 2, the CheckpointConfig is a view of the environment's Configuration: its
setters write ``execution.checkpointing.*`` keys and its getters read them, so
``env.get_checkpoint_config()``, ``-D execution.checkpointing.interval=10s`` and the
conf file are the same settings. Setters check their values as Flink does (an interval
or timeout under 10 ms, a negative pause, fewer than one concurrent checkpoint: a
``ValueError`` with Flink's wording).
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from millstream.common import checkpointing_options as ck
from millstream.common.configuration import Configuration
from millstream.common.time import Duration

__all__ = ["CheckpointConfig", "CheckpointingMode", "ExternalizedCheckpointRetention"]


class CheckpointingMode(Enum):
    """EXACTLY_ONCE: barriers are aligned; AT_LEAST_ONCE: they are not (records may be
    processed twice after a recovery, never lost)."""

    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1


class ExternalizedCheckpointRetention(Enum):
    """What happens to completed checkpoints when the job ends."""

    DELETE_ON_CANCELLATION = 0
    RETAIN_ON_CANCELLATION = 1
    NO_EXTERNALIZED_CHECKPOINTS = 2


def _at_least(value: int, minimum: int, message: str) -> int:
    if not isinstance(value, int) or value < minimum:
        raise ValueError(message)
    return value


class CheckpointConfig:
    """The checkpointing settings of one environment (``env.get_checkpoint_config()``)."""

    def __init__(self, configuration: Configuration) -> None:
        self._configuration = configuration

    # -- enabling ----------------------------------------------------------------------------

    def is_checkpointing_enabled(self) -> bool:
        """Whether checkpoints are taken (an interval is set)."""
        return self.get_checkpoint_interval() > 0

    def get_checkpoint_interval(self) -> int:
        """Milliseconds between checkpoints; -1 when checkpointing is off."""
        return self._configuration.get(ck.CHECKPOINTING_INTERVAL)

    def set_checkpoint_interval(self, checkpoint_interval: int) -> CheckpointConfig:
        """Take a checkpoint every ``checkpoint_interval`` milliseconds (at least 10)."""
        _at_least(checkpoint_interval, 10, "Checkpoint interval must be larger than or equal to 10 ms")
        self._configuration.set(ck.CHECKPOINTING_INTERVAL, checkpoint_interval)
        return self

    def get_checkpointing_mode(self) -> CheckpointingMode:
        """EXACTLY_ONCE or AT_LEAST_ONCE (AT_LEAST_ONCE while checkpointing is off, as Flink reports)."""
        if not self.is_checkpointing_enabled():
            return CheckpointingMode.AT_LEAST_ONCE
        return CheckpointingMode[self._configuration.get(ck.CHECKPOINTING_MODE).upper()]

    def set_checkpointing_mode(self, checkpointing_mode: CheckpointingMode) -> CheckpointConfig:
        """EXACTLY_ONCE (the default) or AT_LEAST_ONCE."""
        if not isinstance(checkpointing_mode, CheckpointingMode):
            raise TypeError("set_checkpointing_mode expects a CheckpointingMode")
        self._configuration.set(ck.CHECKPOINTING_MODE, checkpointing_mode.name)
        return self

    # -- limits ------------------------------------------------------------------------------

    def get_checkpoint_timeout(self) -> int:
        """Milliseconds after which a checkpoint in progress is aborted."""
        return self._configuration.get(ck.CHECKPOINTING_TIMEOUT)

    def set_checkpoint_timeout(self, checkpoint_timeout: int) -> CheckpointConfig:
        """Abort a checkpoint not complete after ``checkpoint_timeout`` ms (at least 10)."""
        _at_least(checkpoint_timeout, 10, "Checkpoint timeout must be larger than or equal to 10 ms")
        self._configuration.set(ck.CHECKPOINTING_TIMEOUT, checkpoint_timeout)
        return self

    def get_min_pause_between_checkpoints(self) -> int:
        """Least milliseconds between the end of a checkpoint and the start of the next."""
        return self._configuration.get(ck.CHECKPOINTING_MIN_PAUSE)

    def set_min_pause_between_checkpoints(self, min_pause_between_checkpoints: int) -> CheckpointConfig:
        """Wait at least this long (ms) after a checkpoint before triggering the next."""
        _at_least(min_pause_between_checkpoints, 0, "Pause value must be zero or positive")
        self._configuration.set(ck.CHECKPOINTING_MIN_PAUSE, min_pause_between_checkpoints)
        return self

    def get_max_concurrent_checkpoints(self) -> int:
        """Most checkpoints in progress at once."""
        return self._configuration.get(ck.CHECKPOINTING_MAX_CONCURRENT)

    def set_max_concurrent_checkpoints(self, max_concurrent_checkpoints: int) -> CheckpointConfig:
        """Allow this many checkpoints in progress at once (at least one)."""
        _at_least(
            max_concurrent_checkpoints, 1, "The maximum number of concurrent attempts must be at least one."
        )
        self._configuration.set(ck.CHECKPOINTING_MAX_CONCURRENT, max_concurrent_checkpoints)
        return self

    def get_tolerable_checkpoint_failure_number(self) -> int:
        """Consecutive checkpoint failures tolerated before the job fails."""
        return self._configuration.get(ck.CHECKPOINTING_TOLERABLE_FAILURES)

    def set_tolerable_checkpoint_failure_number(
        self, tolerable_checkpoint_failure_number: int
    ) -> CheckpointConfig:
        """Tolerate this many consecutive checkpoint failures (0: fail the job on the first)."""
        _at_least(
            tolerable_checkpoint_failure_number,
            0,
            "The tolerable failure checkpoint number must be non-negative.",
        )
        self._configuration.set(ck.CHECKPOINTING_TOLERABLE_FAILURES, tolerable_checkpoint_failure_number)
        return self

    def is_fail_on_checkpointing_errors(self) -> bool:
        """Whether a checkpoint failure fails the job (no failure tolerated)."""
        return self.get_tolerable_checkpoint_failure_number() == 0

    def set_fail_on_checkpointing_errors(self, fail_on_checkpointing_errors: bool) -> CheckpointConfig:
        """True: no checkpoint failure tolerated; False: any number (Flink's deprecated switch)."""
        self._configuration.set(
            ck.CHECKPOINTING_TOLERABLE_FAILURES, 0 if fail_on_checkpointing_errors else 2**31 - 1
        )
        return self

    # -- unaligned checkpoints ---------------------------------------------------------------

    def is_unaligned_checkpoints_enabled(self) -> bool:
        """Whether barriers overtake buffered data (stored with the checkpoint)."""
        return self._configuration.get(ck.CHECKPOINTING_UNALIGNED)

    def enable_unaligned_checkpoints(self, enabled: bool = True) -> CheckpointConfig:
        """Let barriers overtake buffered data: checkpoints complete under backpressure."""
        self._configuration.set(ck.CHECKPOINTING_UNALIGNED, bool(enabled))
        return self

    def disable_unaligned_checkpoints(self) -> CheckpointConfig:
        """Aligned checkpoints (the default)."""
        return self.enable_unaligned_checkpoints(False)

    def is_force_unaligned_checkpoints(self) -> bool:
        """Unaligned checkpoints are always forced where enabled (millstream has no exceptions)."""
        return self.is_unaligned_checkpoints_enabled()

    def set_force_unaligned_checkpoints(self, force_unaligned_checkpoints: bool = True) -> CheckpointConfig:
        """Accepted for PyFlink programs; unaligned checkpoints apply to every exchange."""
        return self

    def get_aligned_checkpoint_timeout(self) -> Duration:
        """With unaligned checkpoints: how long a checkpoint starts aligned."""
        return Duration.of_millis(self._configuration.get(ck.CHECKPOINTING_ALIGNED_TIMEOUT))

    def set_aligned_checkpoint_timeout(self, alignment_timeout: Duration) -> CheckpointConfig:
        """Start aligned, switch to unaligned after ``alignment_timeout`` (0: unaligned at once)."""
        millis = (
            alignment_timeout.to_milliseconds()
            if isinstance(alignment_timeout, Duration)
            else alignment_timeout
        )
        _at_least(millis, 0, "Aligned checkpoint timeout must not be negative.")
        self._configuration.set(ck.CHECKPOINTING_ALIGNED_TIMEOUT, millis)
        return self

    get_alignment_timeout = get_aligned_checkpoint_timeout
    set_alignment_timeout = set_aligned_checkpoint_timeout

    # -- retention ---------------------------------------------------------------------------

    def get_externalized_checkpoint_retention(self) -> ExternalizedCheckpointRetention:
        """What happens to completed checkpoints when the job ends."""
        return ExternalizedCheckpointRetention[self._configuration.get(ck.CHECKPOINTING_RETENTION).upper()]

    def set_externalized_checkpoint_retention(
        self, retention_mode: ExternalizedCheckpointRetention
    ) -> CheckpointConfig:
        """Keep completed checkpoints on storage when the job is cancelled (or fails)."""
        if not isinstance(retention_mode, ExternalizedCheckpointRetention):
            raise TypeError(
                "set_externalized_checkpoint_retention expects an ExternalizedCheckpointRetention"
            )
        self._configuration.set(ck.CHECKPOINTING_RETENTION, retention_mode.name)
        return self

    def is_externalized_checkpoints_enabled(self) -> bool:
        """Whether completed checkpoints outlive the job."""
        retention = self.get_externalized_checkpoint_retention()
        return retention is not ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS

    def __repr__(self) -> str:
        settings: dict[str, Any] = {
            "interval": self.get_checkpoint_interval(),
            "mode": self.get_checkpointing_mode().name,
            "timeout": self.get_checkpoint_timeout(),
        }
        return f"CheckpointConfig({settings})"
