"""ExecutionConfig, as ``pyflink.common.ExecutionConfig``: per-job settings."""

from __future__ import annotations

from typing import Any

__all__ = ["ExecutionConfig"]


class ExecutionConfig:
    """Settings of one job: parallelism, max parallelism, watermark interval, job parameters."""

    def __init__(self) -> None:
        self._parallelism = -1
        self._max_parallelism = -1
        self._auto_watermark_interval = 200
        self._object_reuse = False
        self._global_job_parameters: dict[str, str] = {}
        self._latency_tracking_interval = -1
        self._closure_cleaner = True

    def set_parallelism(self, parallelism: int) -> ExecutionConfig:
        """Default parallelism of the job's operators."""
        self._parallelism = parallelism
        return self

    def get_parallelism(self) -> int:
        """The default parallelism (-1: not set)."""
        return self._parallelism

    def set_max_parallelism(self, max_parallelism: int) -> ExecutionConfig:
        """Default max parallelism (number of key groups)."""
        self._max_parallelism = max_parallelism
        return self

    def get_max_parallelism(self) -> int:
        """The default max parallelism (-1: derived)."""
        return self._max_parallelism

    def set_auto_watermark_interval(self, interval: int) -> ExecutionConfig:
        """Interval in ms between periodic watermarks."""
        self._auto_watermark_interval = interval
        return self

    def get_auto_watermark_interval(self) -> int:
        """Interval in ms between periodic watermarks."""
        return self._auto_watermark_interval

    def enable_object_reuse(self) -> ExecutionConfig:
        """Allow operators to reuse objects (no effect: values are not copied when chained)."""
        self._object_reuse = True
        return self

    def disable_object_reuse(self) -> ExecutionConfig:
        """Disable object reuse."""
        self._object_reuse = False
        return self

    def is_object_reuse_enabled(self) -> bool:
        """Whether object reuse is on."""
        return self._object_reuse

    def set_global_job_parameters(self, global_job_parameters_dict: dict[str, str]) -> ExecutionConfig:
        """Parameters every function can read with ``RuntimeContext.get_job_parameter``."""
        self._global_job_parameters = dict(global_job_parameters_dict)
        return self

    def get_global_job_parameters(self) -> dict[str, str]:
        """The global job parameters."""
        return dict(self._global_job_parameters)

    def set_latency_tracking_interval(self, interval: int) -> ExecutionConfig:
        """Interval of latency markers (ms)."""
        self._latency_tracking_interval = interval
        return self

    def get_latency_tracking_interval(self) -> int:
        """Interval of latency markers (ms)."""
        return self._latency_tracking_interval

    def enable_closure_cleaner(self) -> ExecutionConfig:
        """Accepted for compatibility."""
        self._closure_cleaner = True
        return self

    def disable_closure_cleaner(self) -> ExecutionConfig:
        """Accepted for compatibility."""
        self._closure_cleaner = False
        return self

    def is_closure_cleaner_enabled(self) -> bool:
        """Accepted for compatibility."""
        return self._closure_cleaner

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain data (shipped with the job)."""
        return {
            "parallelism": self._parallelism,
            "max_parallelism": self._max_parallelism,
            "auto_watermark_interval": self._auto_watermark_interval,
            "global_job_parameters": dict(self._global_job_parameters),
        }
