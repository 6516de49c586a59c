"""CheckpointingSettings: a job's checkpointing, resolved from its configuration and shipped in
its JobConfig (what the CheckpointCoordinator and the tasks read)."""

from __future__ import annotations

from dataclasses import dataclass

from millstream.common import checkpointing_options as ck
from millstream.common.configuration import Configuration

__all__ = ["CheckpointingSettings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckpointingSettings:
    """Checkpointing of one job; ``interval_ms`` -1: off."""

    interval_ms: int = -1
    exactly_once: bool = True
    timeout_ms: int = ck.CHECKPOINTING_TIMEOUT.default
    min_pause_ms: int = ck.CHECKPOINTING_MIN_PAUSE.default
    max_concurrent: int = ck.CHECKPOINTING_MAX_CONCURRENT.default
    tolerable_failures: int = ck.CHECKPOINTING_TOLERABLE_FAILURES.default
    unaligned: bool = ck.CHECKPOINTING_UNALIGNED.default
    aligned_timeout_ms: int = ck.CHECKPOINTING_ALIGNED_TIMEOUT.default
    retention: str = ck.CHECKPOINTING_RETENTION.default
    retained: int = ck.CHECKPOINTING_RETAINED.default

    @property
    def enabled(self) -> bool:
        """Whether checkpoints are taken."""
        return self.interval_ms > 0

    @classmethod
    def from_configuration(cls, configuration: Configuration) -> CheckpointingSettings:
        """The ``execution.checkpointing.*`` settings of ``configuration``."""
        return cls(
            interval_ms=configuration.get(ck.CHECKPOINTING_INTERVAL),
            exactly_once=configuration.get(ck.CHECKPOINTING_MODE).upper() == "EXACTLY_ONCE",
            timeout_ms=configuration.get(ck.CHECKPOINTING_TIMEOUT),
            min_pause_ms=configuration.get(ck.CHECKPOINTING_MIN_PAUSE),
            max_concurrent=configuration.get(ck.CHECKPOINTING_MAX_CONCURRENT),
            tolerable_failures=configuration.get(ck.CHECKPOINTING_TOLERABLE_FAILURES),
            unaligned=configuration.get(ck.CHECKPOINTING_UNALIGNED),
            aligned_timeout_ms=configuration.get(ck.CHECKPOINTING_ALIGNED_TIMEOUT),
            retention=configuration.get(ck.CHECKPOINTING_RETENTION).upper(),
            retained=configuration.get(ck.CHECKPOINTING_RETAINED),
        )
