"""JobConfig: the settings a job carries to its tasks, typed, with their defaults in one place.

Built by the environment when it plans the job (``StreamExecutionEnvironment``), shipped
inside the JobGraph, and read by the tasks (the task manager's ``Task``, the Spark
runner's vertex programs). Defaults are those of the matching ConfigOptions, so a
JobConfig built without a configuration behaves like a job with nothing configured.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from millstream.common import config_options as opts
from millstream.common.checkpointing_options import (
    SAVEPOINT_DIR,
    STATE_RECOVERY_IGNORE_UNCLAIMED,
    STATE_RECOVERY_PATH,
)
from millstream.common.configuration import Configuration
from millstream.common.execution_mode import RuntimeExecutionMode
from millstream.common.restart_strategy import RestartStrategySettings
from millstream.graph.checkpointing import CheckpointingSettings
from millstream.graph.state_backend import StateBackendSettings

__all__ = ["JobConfig"]


@dataclass(frozen=True, slots=True, kw_only=True)
class JobConfig:
    """What every task of a job needs to know beyond its operators.

    ``runtime_mode`` is resolved: STREAMING or BATCH, never AUTOMATIC.
    """

    runtime_mode: RuntimeExecutionMode = RuntimeExecutionMode.STREAMING
    auto_watermark_interval: int = opts.AUTO_WATERMARK_INTERVAL.default  # ms; 0: no periodic watermarks
    global_job_parameters: dict[str, str] = field(default_factory=dict)
    python_files: tuple[str, ...] = ()  # shipped to the task managers (``add_python_file``)
    sorted_inputs_memory_records: int = opts.SORTED_INPUTS_MEMORY_RECORDS.default
    checkpointing_dir: str | None = None
    restore_path: str | None = None  # start from this retained checkpoint or savepoint
    savepoint_dir: str | None = None  # where savepoints go when their command names no directory
    ignore_unclaimed_state: bool = False
    bundle_size: int = opts.BUNDLE_SIZE.default
    bundle_time: int = opts.BUNDLE_TIME.default  # ms
    slot_request_timeout_ms: int | None = None  # set by the job's client; None: the cluster's
    checkpointing: CheckpointingSettings = field(default_factory=CheckpointingSettings)
    restart_strategy: RestartStrategySettings = field(default_factory=RestartStrategySettings)
    state_backend: StateBackendSettings = field(default_factory=StateBackendSettings)

    def __post_init__(self) -> None:
        if self.runtime_mode is RuntimeExecutionMode.AUTOMATIC:
            raise ValueError("a job's runtime mode is resolved before it runs: STREAMING or BATCH")

    @property
    def batch(self) -> bool:
        """Whether the job runs with BATCH semantics (sorted keyed inputs, blocking exchanges)."""
        return self.runtime_mode is RuntimeExecutionMode.BATCH

    @property
    def takes_checkpoints(self) -> bool:
        """Checkpointing is on and the job is STREAMING (BATCH jobs recover by re-running)."""
        return self.checkpointing.enabled and not self.batch

    @classmethod
    def from_configuration(
        cls,
        configuration: Configuration,
        runtime_mode: RuntimeExecutionMode,
        auto_watermark_interval: int,
        global_job_parameters: dict[str, str],
        python_files: tuple[str, ...],
    ) -> JobConfig:
        """The settings of a job planned with ``configuration`` (the environment's own
        settings passed explicitly, as the environment's setters override the configuration)."""
        checkpointing = CheckpointingSettings.from_configuration(configuration)
        checkpoint_dir = configuration.get(opts.CHECKPOINTING_DIR) or configuration.get(
            opts.CHECKPOINTS_DIR_DEPRECATED
        )
        return cls(
            runtime_mode=runtime_mode,
            auto_watermark_interval=auto_watermark_interval,
            global_job_parameters=dict(global_job_parameters),
            python_files=python_files,
            sorted_inputs_memory_records=configuration.get(opts.SORTED_INPUTS_MEMORY_RECORDS),
            checkpointing_dir=checkpoint_dir or None,
            restore_path=configuration.get(STATE_RECOVERY_PATH) or None,
            savepoint_dir=configuration.get(SAVEPOINT_DIR) or None,
            ignore_unclaimed_state=configuration.get(STATE_RECOVERY_IGNORE_UNCLAIMED),
            bundle_size=configuration.get(opts.BUNDLE_SIZE),
            bundle_time=configuration.get(opts.BUNDLE_TIME),
            slot_request_timeout_ms=(
                configuration.get(opts.SLOT_REQUEST_TIMEOUT)
                if configuration.contains_key(opts.SLOT_REQUEST_TIMEOUT.key)
                else None
            ),
            checkpointing=checkpointing,
            restart_strategy=RestartStrategySettings.from_configuration(configuration, checkpointing.enabled),
            state_backend=StateBackendSettings.from_configuration(configuration),
        )
