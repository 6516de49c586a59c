"""JobExecutionResult, JobID and JobStatus, as in ``pyflink.common``."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = [
    "DetachedJobExecutionResult",
    "JobExecutionException",
    "JobExecutionResult",
    "JobID",
    "JobStatus",
]


class JobStatus(Enum):
    """The status of a job, as Flink's ``JobStatus``."""

    INITIALIZING = "INITIALIZING"
    CREATED = "CREATED"
    RUNNING = "RUNNING"
    FAILING = "FAILING"
    FAILED = "FAILED"
    CANCELLING = "CANCELLING"
    CANCELED = "CANCELED"
    FINISHED = "FINISHED"
    RESTARTING = "RESTARTING"
    SUSPENDED = "SUSPENDED"
    RECONCILING = "RECONCILING"

    def is_globally_terminal_state(self) -> bool:
        """FINISHED, CANCELED or FAILED."""
        return self in (JobStatus.FINISHED, JobStatus.CANCELED, JobStatus.FAILED)


@dataclass(frozen=True, slots=True)
class JobID:
    """A job's identifier (32 hex digits, as Flink prints it)."""

    hex: str

    def to_hex_string(self) -> str:
        """The id as hex."""
        return self.hex

    def __str__(self) -> str:
        return self.hex


@dataclass(frozen=True)
class JobExecutionResult:
    """What ``env.execute()`` returns: job id, net runtime and accumulators."""

    job_id: JobID
    net_runtime_ms: int
    accumulators: dict[str, Any] = field(default_factory=dict)
    job_name: str = ""

    def get_job_id(self) -> JobID:
        """The id of the executed job."""
        return self.job_id

    def get_net_runtime(self) -> int:
        """Milliseconds the job ran, excluding set-up."""
        return self.net_runtime_ms

    def get_accumulator_result(self, accumulator_name: str) -> Any:
        """The final value of one accumulator, or None."""
        return self.accumulators.get(accumulator_name)

    def get_all_accumulator_results(self) -> dict[str, Any]:
        """All accumulators by name."""
        return dict(self.accumulators)

    def is_job_execution_result(self) -> bool:
        """Always True (PyFlink has detached results too)."""
        return True

    def get_job_execution_result(self) -> JobExecutionResult:
        """This result."""
        return self

    def __str__(self) -> str:
        return (
            f"JobExecutionResult(job_id={self.job_id}, net_runtime={self.net_runtime_ms} ms, "
            f"accumulators={self.accumulators})"
        )


class DetachedJobExecutionResult(JobExecutionResult):
    """What ``execute()`` returns in detached mode (``millstream run --detached``): the job's
    id only; its runtime and accumulators are not known to the client, as in Flink."""

    def __init__(self, job_id: JobID, job_name: str = "") -> None:
        super().__init__(job_id, -1, {}, job_name)

    def _detached(self) -> Any:
        raise RuntimeError(
            "Job was submitted in detached mode. Results of job execution, such as accumulators, "
            "runtime, etc. are not available."
        )

    def get_net_runtime(self) -> int:
        """Not available in detached mode."""
        return int(self._detached())

    def get_accumulator_result(self, accumulator_name: str) -> Any:
        """Not available in detached mode."""
        return self._detached()

    def get_all_accumulator_results(self) -> dict[str, Any]:
        """Not available in detached mode."""
        return dict(self._detached())

    def is_job_execution_result(self) -> bool:
        """False: the job was only submitted."""
        return False

    def __str__(self) -> str:
        return f"DetachedJobExecutionResult(job_id={self.job_id})"


class JobExecutionException(Exception):
    """The job failed; ``__cause__`` is the task failure (naming operator and subtask)."""

    def __init__(self, job_id: str, message: str) -> None:
        super().__init__(message)
        self.job_id = job_id
