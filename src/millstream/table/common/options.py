"""Options of the Table API and SQL planner and runtime, declared with their types, defaults
and descriptions (as Flink's ``OptimizerConfigOptions`` / ``ExecutionConfigOptions`` /
``PythonOptions``), read through ``option_value`` so that a malformed value fails in one
line naming the key.

``TableConfig.set(key, value)`` stores strings; the planner reads them when it plans and
translates a query (``PlanningContext.config``, ``planner/planning.py``).
"""

from __future__ import annotations

from typing import Any, TypeVar

from millstream.common.config_option import ConfigOption, parse_duration_ms
from millstream.common.config_options import BUNDLE_SIZE, BUNDLE_TIME
from millstream.common.time import Time
from millstream.datastream.state import StateTtlConfig

__all__ = [
    "AGG_PHASE_STRATEGY",
    "ARROW_BATCH_SIZE",
    "ASYNC_SCALAR_MAX_ATTEMPTS",
    "ASYNC_SCALAR_MAX_CONCURRENT_OPERATIONS",
    "ASYNC_SCALAR_RETRY_DELAY",
    "ASYNC_SCALAR_RETRY_STRATEGY",
    "ASYNC_SCALAR_TIMEOUT",
    "COLUMNAR_ENABLED",
    "MINI_BATCH_ALLOW_LATENCY",
    "MINI_BATCH_ENABLED",
    "MINI_BATCH_SIZE",
    "REUSE_SOURCE",
    "REUSE_SUB_PLAN",
    "SINK_NOT_NULL_ENFORCER",
    "STATE_TTL",
    "mini_batch_latency_ms",
    "mini_batch_size",
    "option_value",
    "parse_duration_ms",
    "python_bundle",
    "state_ttl_ms",
    "with_ttl",
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
MINI_BATCH_ENABLED: ConfigOption[bool] = ConfigOption(
    "table.exec.mini-batch.enabled",
    False,
    bool,
    "Buffer a group aggregation's input and update each key once per mini-batch instead of "
    "once per row; table.exec.mini-batch.allow-latency and table.exec.mini-batch.size must "
    "then be set.",
)
MINI_BATCH_ALLOW_LATENCY: ConfigOption[int] = ConfigOption(
    "table.exec.mini-batch.allow-latency",
    0,
    int,
    "The longest a mini-batch holds its first row before it is processed (also before "
    "watermarks and checkpoints).",
    unit="ms",
    minimum=0,
)
MINI_BATCH_SIZE: ConfigOption[int] = ConfigOption(
    "table.exec.mini-batch.size",
    0,
    int,
    "The most rows a mini-batch holds before it is processed.",
    minimum=0,
)
SINK_NOT_NULL_ENFORCER: ConfigOption[str] = ConfigOption(
    "table.exec.sink.not-null-enforcer",
    "ERROR",
    str,
    "What a NULL written into a sink's NOT NULL column does: ERROR fails the job naming the "
    "column, DROP drops the row silently.",
    choices=("ERROR", "DROP"),
)
STATE_TTL: ConfigOption[int] = ConfigOption(
    "table.exec.state.ttl",
    0,
    int,
    "How long a SQL operator keeps a key's state after its last update (Flink's idle state "
    "retention); 0: forever.",
    unit="ms",
    minimum=0,
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


def option_value(config: Any, option: ConfigOption[T]) -> T:
    """``option``'s value in ``config`` (a TableConfig or a mapping of keys to values; None:
    nothing set) or its default when unset.

    Raises:
        ConfigurationError: the value is malformed (one line naming the key and the value).
    """
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


# -- options read from the TableConfig ------------------------------------------------------------------


def mini_batch_size(config: Any) -> int:
    """``table.exec.mini-batch.size`` when ``table.exec.mini-batch.enabled`` (else 0). As in
    Flink both ``allow-latency`` and ``size`` must then be set: a mini-batch ends when it holds
    ``size`` records or ``allow-latency`` after its first, and before watermarks and
    checkpoints."""
    if not option_value(config, MINI_BATCH_ENABLED):
        return 0
    if option_value(config, MINI_BATCH_ALLOW_LATENCY) <= 0:
        raise ValueError(
            "table.exec.mini-batch.allow-latency must be a positive duration when "
            "table.exec.mini-batch.enabled is true (e.g. '5 s')"
        )
    count = option_value(config, MINI_BATCH_SIZE)
    if count <= 0:
        raise ValueError(
            "table.exec.mini-batch.size must be a positive number of records when "
            f"table.exec.mini-batch.enabled is true (got {count})"
        )
    return count


def python_bundle(config: Any) -> tuple[int, int]:
    """``python.fn-execution.bundle.size`` and ``.time`` (ms) of the job (PyFlink 2.3's
    defaults: 1000 records, 1000 ms)."""
    return option_value(config, BUNDLE_SIZE), option_value(config, BUNDLE_TIME)  # the DataStream options


def mini_batch_latency_ms(config: Any) -> int:
    """``table.exec.mini-batch.allow-latency`` in ms (checked by ``mini_batch_size``)."""
    return option_value(config, MINI_BATCH_ALLOW_LATENCY)


def state_ttl_ms(config: Any) -> int:
    """``table.exec.state.ttl`` in ``config`` (a TableConfig, None: unset; 0: state kept forever)."""
    return option_value(config, STATE_TTL)


def with_ttl(descriptor: Any, ttl_ms: int) -> Any:
    """``descriptor`` expiring entries ``ttl_ms`` after their last write (Flink's idle state
    retention for SQL operators), when ``ttl_ms`` is set."""
    if ttl_ms > 0:
        descriptor.enable_time_to_live(StateTtlConfig.new_builder(Time.milliseconds(ttl_ms)).build())
    return descriptor
