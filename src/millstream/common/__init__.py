"""``pyflink.common`` names: configuration, types, rows, time, watermark strategies, results."""

from millstream.common.config_options import ConfigOption, ConfigOptions
from millstream.common.configuration import Configuration
from millstream.common.execution_config import ExecutionConfig
from millstream.common.job_execution_result import (
    JobExecutionException,
    JobExecutionResult,
    JobID,
    JobStatus,
)
from millstream.common.serialization import Encoder, SimpleStringSchema
from millstream.common.time import Duration, Instant, Time
from millstream.common.typeinfo import TypeInformation, Types
from millstream.common.types import Row, RowKind
from millstream.common.watermark_strategy import WatermarkStrategy

__all__ = [
    "ConfigOption",
    "ConfigOptions",
    "Configuration",
    "Duration",
    "Encoder",
    "ExecutionConfig",
    "Instant",
    "JobExecutionException",
    "JobExecutionResult",
    "JobID",
    "JobStatus",
    "Row",
    "RowKind",
    "SimpleStringSchema",
    "Time",
    "TypeInformation",
    "Types",
    "WatermarkStrategy",
]
