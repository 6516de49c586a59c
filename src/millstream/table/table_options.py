"""Options of the Table API and SQL planner and runtime, declared with their types, defaults
and descriptions (as Flink's ``OptimizerConfigOptions`` / ``ExecutionConfigOptions`` /
``PythonOptions``), read through ``option_value`` so that a malformed value fails in one
line naming the key.

``TableConfig.set(key, value)`` stores strings; the planner reads them when it translates a
query (``env._table_config``).
"""

from __future__ import annotations

from typing import Any, TypeVar

from millstream.common.config_option import ConfigOption

__all__ = [
    "AGG_PHASE_STRATEGY",
    "ARROW_BATCH_SIZE",
    "ASYNC_SCALAR_MAX_ATTEMPTS",
    "ASYNC_SCALAR_MAX_CONCURRENT_OPERATIONS",
    "ASYNC_SCALAR_RETRY_DELAY",
    "ASYNC_SCALAR_RETRY_STRATEGY",
    "ASYNC_SCALAR_TIMEOUT",
    "COLUMNAR_ENABLED",
    "REUSE_SOURCE",
    "REUSE_SUB_PLAN",
    "option_value",
]

T = TypeVar("T")

AGG_PHASE_STRATEGY: ConfigOption[str] = ConfigOption(
    "table.optimizer.agg-phase-strategy",
    "AUTO",
    str,
    "Aggregation in one phase (ONE_PHASE), or a local pre-aggregation per batch before the "
    "exchange and a global one after it (TWO_PHASE); AUTO: two phases when every aggregate "
    "function can merge its accumulators.",
    choices=("AUTO", "ONE_PHASE", "TWO_PHASE"),
)
COLUMNAR_ENABLED: ConfigOption[bool] = ConfigOption(
    "table.exec.columnar.enabled",
    True,
    bool,
    "Scan JSON and Parquet filesystem tables with Arrow and run the projections, filters and "
    "watermark assigner above the scan on Arrow batches; false keeps every row a Python tuple.",
)
REUSE_SUB_PLAN: ConfigOption[bool] = ConfigOption(
    "table.optimizer.reuse-sub-plan-enabled",
    True,
    bool,
    "Compute identical parts of a job's plans once and hand their rows to every consumer "
    "(a view or subquery used twice, the same aggregation in two branches).",
)
REUSE_SOURCE: ConfigOption[bool] = ConfigOption(
    "table.optimizer.reuse-source-enabled",
    True,
    bool,
    "Read a table once when a job scans it identically twice; only with "
    "table.optimizer.reuse-sub-plan-enabled.",
)
ARROW_BATCH_SIZE: ConfigOption[int] = ConfigOption(
    "python.fn-execution.arrow.batch.size",
    1000,
    int,
    "The most rows a pandas UDF receives in one call.",
    minimum=1,
)
ASYNC_SCALAR_MAX_CONCURRENT_OPERATIONS: ConfigOption[int] = ConfigOption(
    "table.exec.async-scalar.max-concurrent-operations",
    10,
    int,
    "The most calls of an async scalar function in flight at once in one subtask.",
    minimum=1,
    fallback_keys=("table.exec.async-scalar.buffer-capacity",),
)
ASYNC_SCALAR_TIMEOUT: ConfigOption[int] = ConfigOption(
    "table.exec.async-scalar.timeout",
    180_000,
    int,
    "How long one call of an async scalar function may take, its retries included; then the task fails.",
    unit="ms",
    minimum=1,
)
ASYNC_SCALAR_RETRY_STRATEGY: ConfigOption[str] = ConfigOption(
    "table.exec.async-scalar.retry-strategy",
    "FIXED_DELAY",
    str,
    "What a call of an async scalar function that raised does: FIXED_DELAY tries again after "
    "the retry delay, NO_RETRY fails the task.",
    choices=("NO_RETRY", "FIXED_DELAY"),
)
ASYNC_SCALAR_RETRY_DELAY: ConfigOption[int] = ConfigOption(
    "table.exec.async-scalar.retry-delay",
    100,
    int,
    "The wait before an async scalar function's call is tried again.",
    unit="ms",
    minimum=0,
)
ASYNC_SCALAR_MAX_ATTEMPTS: ConfigOption[int] = ConfigOption(
    "table.exec.async-scalar.max-attempts",
    3,
    int,
    "The most retries of an async scalar function's call before the task fails.",
    minimum=0,
)


def option_value(env: Any, option: ConfigOption[T]) -> T:
    """``option``'s value in ``env``'s table configuration (``env`` a TableConfig, or a planning
    environment carrying one) or its default when unset.

    Raises:
        ConfigurationError: the value is malformed (one line naming the key and the value).
    """
    config = env if hasattr(env, "get_configuration") else getattr(env, "_table_config", None)
    raw = None
    if config is not None:
        for key in (option.key, *option.fallback_keys):
            raw = config.get(key, None)
            if raw is not None:
                break
    if raw is None:
        return option.default
    value = option.parse(raw)
    if option.choices and isinstance(value, str):
        return value.strip().upper()  # type: ignore[return-value]
    return value
