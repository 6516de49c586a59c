"""``pyflink.common`` names: configuration, types, rows, time, watermark strategies, results."""

from typing import TYPE_CHECKING

from millstream._lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "millstream.common.config_option": ("ConfigOption", "ConfigOptions"),
        "millstream.common.configuration": ("Configuration",),
        "millstream.common.execution_config": ("ExecutionConfig",),
        "millstream.common.job_execution_result": (
            "JobExecutionException",
            "JobExecutionResult",
            "JobID",
            "JobStatus",
        ),
        "millstream.common.restart_strategy": ("RestartStrategies", "RestartStrategyConfiguration"),
        "millstream.common.serialization": ("ByteArraySchema", "Encoder", "SimpleStringSchema"),
        "millstream.common.time": ("Duration", "Instant", "Time"),
        "millstream.common.typeinfo": ("TypeInformation", "Types"),
        "millstream.common.types": ("Row", "RowKind"),
        "millstream.common.watermark_strategy": ("WatermarkStrategy",),
    },
)

if TYPE_CHECKING:  # the names as type checkers and editors see them (``X as X``: a re-export)
    from millstream.common.config_option import ConfigOption as ConfigOption
    from millstream.common.config_option import ConfigOptions as ConfigOptions
    from millstream.common.configuration import Configuration as Configuration
    from millstream.common.execution_config import ExecutionConfig as ExecutionConfig
    from millstream.common.job_execution_result import (
        JobExecutionException as JobExecutionException,
    )
    from millstream.common.job_execution_result import (
        JobExecutionResult as JobExecutionResult,
    )
    from millstream.common.job_execution_result import (
        JobID as JobID,
    )
    from millstream.common.job_execution_result import (
        JobStatus as JobStatus,
    )
    from millstream.common.restart_strategy import RestartStrategies as RestartStrategies
    from millstream.common.restart_strategy import (
        RestartStrategyConfiguration as RestartStrategyConfiguration,
    )
    from millstream.common.serialization import ByteArraySchema as ByteArraySchema
    from millstream.common.serialization import Encoder as Encoder
    from millstream.common.serialization import SimpleStringSchema as SimpleStringSchema
    from millstream.common.time import Duration as Duration
    from millstream.common.time import Instant as Instant
    from millstream.common.time import Time as Time
    from millstream.common.typeinfo import TypeInformation as TypeInformation
    from millstream.common.typeinfo import Types as Types
    from millstream.common.types import Row as Row
    from millstream.common.types import RowKind as RowKind
    from millstream.common.watermark_strategy import WatermarkStrategy as WatermarkStrategy
