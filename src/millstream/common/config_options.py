"""Typed configuration options: one declaration per key, with its default and doc.

Keys follow Flink's names where Flink has the option (``parallelism.default``,
``execution.buffer-timeout``, ``pipeline.max-parallelism`` ...).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = [
    "AUTO_WATERMARK_INTERVAL",
    "BATCH_SHUFFLE_MODE",
    "BUFFER_TIMEOUT",
    "BUNDLE_SIZE",
    "BUNDLE_TIME",
    "CHAINING_ENABLED",
    "CHECKPOINTING_DIR",
    "CHECKPOINTS_DIR_DEPRECATED",
    "CPU_AFFINITY",
    "DEFAULT_PARALLELISM",
    "EXECUTION_TARGET",
    "GC_THRESHOLD",
    "HEARTBEAT_INTERVAL",
    "HEARTBEAT_TIMEOUT",
    "IO_TMP_DIRS",
    "LOCAL_EXCHANGE",
    "MAX_PARALLELISM",
    "MEMORY_SEGMENT_SIZE",
    "MINICLUSTER_MODE",
    "MINICLUSTER_TASK_MANAGERS",
    "NETWORK_BUFFERS_PER_CHANNEL",
    "NETWORK_FLOATING_BUFFERS_PER_GATE",
    "NETWORK_NUM_BUFFERS",
    "OPTIONS",
    "PYTHON_FILES",
    "RUNTIME_MODE",
    "SECRET_FILE",
    "SLOT_REQUEST_TIMEOUT",
    "SORTED_INPUTS_MEMORY_RECORDS",
    "SPARK_MASTER",
    "TASK_CANCELLATION_INTERVAL",
    "TASK_SLOTS",
    "USER_KEY_PREFIXES",
    "ConfigOption",
    "ConfigOptions",
    "ConfigurationError",
    "validate_entry",
]

T = TypeVar("T")


class ConfigurationError(ValueError):
    """A configuration key that does not exist, or a value its option cannot take."""


_DURATION_UNITS: dict[str, float] = {
    **dict.fromkeys(("ns", "nano", "nanos", "nanosecond", "nanoseconds"), 1e-6),
    **dict.fromkeys(("us", "µs", "micro", "micros", "microsecond", "microseconds"), 1e-3),
    **dict.fromkeys(("ms", "milli", "millis", "millisecond", "milliseconds"), 1),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1000),
    **dict.fromkeys(("m", "min", "minute", "minutes"), 60_000),
    **dict.fromkeys(("h", "hour", "hours"), 3_600_000),
    **dict.fromkeys(("d", "day", "days"), 86_400_000),
}
_MEMORY_UNITS: dict[str, float] = {
    **dict.fromkeys(("b", "bytes"), 1),
    **dict.fromkeys(("k", "kb", "kibibytes"), 1 << 10),
    **dict.fromkeys(("m", "mb", "mebibytes"), 1 << 20),
    **dict.fromkeys(("g", "gb", "gibibytes"), 1 << 30),
    **dict.fromkeys(("t", "tb", "tebibytes"), 1 << 40),
}
_AMOUNT = re.compile(r"\s*(-?\d+)\s*([a-zA-Zµ]*)\s*")
_EXPECTED = {
    "ms": "a duration (milliseconds, or with a unit: 500 ms, 10 s, 5 min)",
    "bytes": "a memory size (bytes, or with a unit: 32 kb, 64 mb)",
}


@dataclass(frozen=True, slots=True)
class ConfigOption(Generic[T]):
    """A configuration key with a typed default value.

    ``unit`` makes an integer option a duration in milliseconds (``"ms"``: Flink's
    ``50 s``, ``5 min`` syntax) or a memory size in bytes (``"bytes"``: ``32 kb``);
    ``minimum`` and ``choices`` bound the values, checked as Flink checks its options.
    """

    key: str
    default: T
    kind: type
    description: str = ""
    unit: str = ""
    minimum: int | None = None
    choices: tuple[str, ...] = ()
    fallback_keys: tuple[str, ...] = ()  # other names of the option (read when the key is unset)

    def parse(self, raw: Any) -> T:
        """Convert a raw (often string) value to this option's type.

        Raises:
            ConfigurationError: one line naming the key, the value and what it must be.
        """
        if raw is None:
            return None  # type: ignore[return-value]
        if self.kind is bool:
            return self._parse_bool(raw)  # type: ignore[return-value]
        if self.kind is int:
            value = self._parse_int(raw)
            if self.minimum is not None and value < self.minimum:
                raise ConfigurationError(f"{self.key}={raw!r}: must be at least {self.minimum}")
            return value  # type: ignore[return-value]
        if self.kind is float:
            try:
                return float(raw)  # type: ignore[return-value]
            except (TypeError, ValueError):
                raise ConfigurationError(f"{self.key}={raw!r}: expected a number") from None
        if self.choices and str(raw).strip().upper() not in {c.upper() for c in self.choices}:
            raise ConfigurationError(f"{self.key}={raw!r}: expected one of {', '.join(self.choices)}")
        return self.kind(raw)

    def _parse_bool(self, raw: Any) -> bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text not in ("true", "false"):
            raise ConfigurationError(f"{self.key}={raw!r}: expected true or false")
        return text == "true"

    def _parse_int(self, raw: Any) -> int:
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        units = {"ms": _DURATION_UNITS, "bytes": _MEMORY_UNITS}.get(self.unit, {})
        match = _AMOUNT.fullmatch(str(raw))
        if match is not None and (not match.group(2) or match.group(2).lower() in units):
            factor = units.get(match.group(2).lower(), 1) if match.group(2) else 1
            return int(int(match.group(1)) * factor)
        raise ConfigurationError(f"{self.key}={raw!r}: expected {_EXPECTED.get(self.unit, 'an integer')}")


class ConfigOptions:
    """Builder in PyFlink's style: ``ConfigOptions.key("k").int_type().default_value(1)``."""

    def __init__(self, key: str) -> None:
        self._key = key
        self._kind: type = str

    @staticmethod
    def key(key: str) -> ConfigOptions:
        """Start declaring the option ``key``."""
        return ConfigOptions(key)

    def string_type(self) -> ConfigOptions:
        """The option holds a string."""
        self._kind = str
        return self

    def int_type(self) -> ConfigOptions:
        """The option holds an integer."""
        self._kind = int
        return self

    def boolean_type(self) -> ConfigOptions:
        """The option holds a boolean."""
        self._kind = bool
        return self

    def float_type(self) -> ConfigOptions:
        """The option holds a float."""
        self._kind = float
        return self

    def default_value(self, value: Any) -> ConfigOption[Any]:
        """Finish the declaration with a default value."""
        return ConfigOption(self._key, value, self._kind)

    def no_default_value(self) -> ConfigOption[Any]:
        """Finish the declaration without a default."""
        return ConfigOption(self._key, None, self._kind)


DEFAULT_PARALLELISM: ConfigOption[int] = ConfigOption(
    "parallelism.default",
    1,
    int,
    "Parallelism of operators that set none.",
    minimum=1,
)
MAX_PARALLELISM: ConfigOption[int] = ConfigOption(
    "pipeline.max-parallelism",
    -1,
    int,
    "Number of key groups; -1 derives it (default 128).",
    minimum=-1,
)
CHAINING_ENABLED: ConfigOption[bool] = ConfigOption(
    "pipeline.operator-chaining.enabled", True, bool, "Chain operators into tasks."
)
BUFFER_TIMEOUT: ConfigOption[int] = ConfigOption(
    "execution.buffer-timeout",
    100,
    int,
    "Max ms a record waits in a partly filled buffer; 0 flushes every record, -1 only full buffers.",
    unit="ms",
    minimum=-1,
)
RUNTIME_MODE: ConfigOption[str] = ConfigOption(
    "execution.runtime-mode",
    "STREAMING",
    str,
    "STREAMING, BATCH or AUTOMATIC.",
    choices=("STREAMING", "BATCH", "AUTOMATIC"),
)
AUTO_WATERMARK_INTERVAL: ConfigOption[int] = ConfigOption(
    "pipeline.auto-watermark-interval",
    200,
    int,
    "Interval in ms at which sources and assign_timestamps_and_watermarks ask their "
    "WatermarkGenerator for a periodic watermark; 0 disables periodic watermarks.",
    unit="ms",
    minimum=0,
)
BATCH_SHUFFLE_MODE: ConfigOption[str] = ConfigOption(
    "execution.batch-shuffle-mode",
    "ALL_EXCHANGES_BLOCKING",
    str,
    "Data exchanges of a job in BATCH runtime mode: ALL_EXCHANGES_BLOCKING (results are written "
    "to spill files and consumers start when their producers finished) or ALL_EXCHANGES_PIPELINED.",
    choices=("ALL_EXCHANGES_BLOCKING", "ALL_EXCHANGES_PIPELINED"),
)
SORTED_INPUTS_MEMORY_RECORDS: ConfigOption[int] = ConfigOption(
    "execution.sorted-inputs.memory-records",
    500_000,
    int,
    "BATCH mode: records a keyed operator's input sorter holds in memory before it spills a "
    "sorted run to a temporary file (bounds the memory of sorting by key).",
    minimum=1,
)
EXECUTION_TARGET: ConfigOption[str] = ConfigOption(
    "execution.target", "embedded", str, "Which runner executes the job."
)
MEMORY_SEGMENT_SIZE: ConfigOption[int] = ConfigOption(
    "taskmanager.memory.segment-size",
    32 * 1024,
    int,
    "Size of one network buffer in bytes.",
    unit="bytes",
    minimum=64,
)
NETWORK_NUM_BUFFERS: ConfigOption[int] = ConfigOption(
    "taskmanager.network.numberOfBuffers",
    2048,
    int,
    "Network buffers per TaskManager (NetworkBufferPool size).",
    minimum=1,
)
NETWORK_BUFFERS_PER_CHANNEL: ConfigOption[int] = ConfigOption(
    "taskmanager.network.memory.buffers-per-channel",
    2,
    int,
    "Exclusive buffers per input channel / buffers per outgoing subpartition.",
    minimum=1,
)
NETWORK_FLOATING_BUFFERS_PER_GATE: ConfigOption[int] = ConfigOption(
    "taskmanager.network.memory.floating-buffers-per-gate",
    8,
    int,
    "Floating buffers per input gate and per result partition.",
    minimum=0,
)
LOCAL_EXCHANGE: ConfigOption[str] = ConfigOption(
    "taskmanager.network.local-exchange",
    "objects",
    str,
    "How records reach a consumer in the same TaskManager: 'objects' (batches of references "
    "in pooled buffers) or 'serialized' (pickled into byte buffers, as across processes).",
    choices=("objects", "serialized"),
)
GC_THRESHOLD: ConfigOption[int] = ConfigOption(
    "taskmanager.python.gc-threshold",
    50_000,
    int,
    "Generation-0 threshold of Python's cyclic GC while tasks run (0 keeps the interpreter's). "
    "Record processing allocates many short-lived objects; collecting every 700 allocations "
    "costs ~10% of throughput.",
    minimum=0,
)
CPU_AFFINITY: ConfigOption[str] = ConfigOption(
    "taskmanager.cpu-affinity",
    "auto",
    str,
    "CPUs a TaskManager's task threads run on: 'auto' (one CPU, where the TaskManager starts: "
    "under the GIL one core is all a process's Python code uses, and records stay in its cache), "
    "'none' (the OS decides; for user code that releases the GIL), or a list like '2,3'.",
)
HEARTBEAT_INTERVAL: ConfigOption[int] = ConfigOption(
    "heartbeat.interval",
    10000,
    int,
    "Milliseconds between heartbeats of the JobManager and TaskManagers.",
    unit="ms",
    minimum=1,
)
HEARTBEAT_TIMEOUT: ConfigOption[int] = ConfigOption(
    "heartbeat.timeout",
    50000,
    int,
    "Milliseconds without a heartbeat after which a TaskManager (or the JobManager) counts as lost. "
    "A closed connection is noticed at once.",
    unit="ms",
    minimum=1,
)
MINICLUSTER_MODE: ConfigOption[str] = ConfigOption(
    "minicluster.mode",
    "processes",
    str,
    "How the embedded runtime runs TaskManagers: 'processes' (child processes on 127.0.0.1 that use "
    "every core, the same protocol as a cluster) or 'threads' (all in the client process).",
    choices=("processes", "threads"),
)
MINICLUSTER_TASK_MANAGERS: ConfigOption[int] = ConfigOption(
    "minicluster.number-of-taskmanagers",
    0,
    int,
    "TaskManager processes of the embedded runtime (0: one per core, at most one per slot the job needs).",
    minimum=0,
    fallback_keys=("taskmanager.numberOfTaskManagers",),
)
IO_TMP_DIRS: ConfigOption[str] = ConfigOption(
    "io.tmp.dirs",
    "",
    str,
    "Directories (separated by the OS path separator) for a TaskManager's spill files of blocking "
    "results; empty: the system's temporary directory.",
)
SLOT_REQUEST_TIMEOUT: ConfigOption[int] = ConfigOption(
    "slot.request.timeout",
    300000,
    int,
    "Milliseconds a job waits for enough free TaskManager slots before it fails with "
    "NoResourceAvailableError (Flink's default: 5 minutes).",
    unit="ms",
    minimum=1,
)
TASK_SLOTS: ConfigOption[int] = ConfigOption(
    "taskmanager.numberOfTaskSlots",
    1,
    int,
    "Slots per TaskManager (the embedded runtime: as many as the job needs over its TaskManagers, "
    "unless set).",
    minimum=1,
)
TASK_CANCELLATION_INTERVAL: ConfigOption[int] = ConfigOption(
    "task.cancellation.interval",
    1000,
    int,
    "Milliseconds after which, and then between which, a cancelled task that has not stopped is "
    "interrupted (Flink's TaskInterrupter). Python has no thread interrupt: the task thread gets an "
    "asynchronous exception, which stops user code running Python (a loop, a computation) at once "
    "and a blocking call when it returns. Flink's default is 30000.",
    unit="ms",
    minimum=1,
)
SECRET_FILE: ConfigOption[str] = ConfigOption(
    "security.secret-file",
    "",
    str,
    "File holding the cluster's shared secret, for clients of a standalone cluster (~ is expanded).",
)
CHECKPOINTING_DIR: ConfigOption[str] = ConfigOption(
    "execution.checkpointing.dir",
    "",
    str,
    "Directory for checkpoints (the Spark runner's checkpoint location).",
)
CHECKPOINTS_DIR_DEPRECATED: ConfigOption[str] = ConfigOption(
    "state.checkpoints.dir", "", str, "Flink's older name of execution.checkpointing.dir."
)
PYTHON_FILES: ConfigOption[str] = ConfigOption(
    "python.files", "", str, "Comma-separated Python files or directories shipped with the job."
)
BUNDLE_SIZE: ConfigOption[int] = ConfigOption(
    "python.fn-execution.bundle.size",
    1000,
    int,
    "Most records a task hands to its operators as one bundle before their outputs go "
    "downstream (PyFlink's option and default); 1 hands records over one at a time.",
    minimum=1,
)
BUNDLE_TIME: ConfigOption[int] = ConfigOption(
    "python.fn-execution.bundle.time",
    1000,
    int,
    "Longest a bundle holds back outputs before they go downstream (with "
    "execution.buffer-timeout, whichever is smaller); bundles shrink to fit it.",
    unit="ms",
    minimum=1,
)
SPARK_MASTER: ConfigOption[str] = ConfigOption(
    "spark.master", "local[*]", str, "The Spark master of the Spark runner (any spark.* key reaches Spark)."
)

# Keys under these prefixes are not validated: ``user.`` for a program's own settings,
# ``spark.`` for options handed to the SparkSession as they are.
USER_KEY_PREFIXES = ("user.", "spark.")

OPTIONS: Mapping[str, ConfigOption[Any]] = {
    key: option
    for option in list(globals().values())
    if isinstance(option, ConfigOption)
    for key in (option.key, *option.fallback_keys)
}


def validate_entry(key: str, value: Any) -> None:
    """Check one setting given on the command line or in a conf file.

    Raises:
        ConfigurationError: the key is unknown (naming the nearest known key) or the value
            malformed (naming the key, the value and the expected type).
    """
    if key.startswith(USER_KEY_PREFIXES):
        return
    option = OPTIONS.get(key)
    if option is None:
        nearest = difflib.get_close_matches(key, OPTIONS, n=1, cutoff=0.6)
        hint = f"; did you mean '{nearest[0]}'?" if nearest else ""
        raise ConfigurationError(
            f"unknown configuration key '{key}'{hint} (settings of your own: prefix them with 'user.')"
        )
    option.parse(value)
