"""Typed configuration options: one declaration per key, with its default and doc.

Keys follow Flink's names where Flink has the option (``parallelism.default``,
``execution.buffer-timeout``, ``pipeline.max-parallelism`` ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = [
    "AUTO_WATERMARK_INTERVAL",
    "BATCH_SHUFFLE_MODE",
    "BUFFER_TIMEOUT",
    "CHAINING_ENABLED",
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
    "RUNTIME_MODE",
    "SORTED_INPUTS_MEMORY_RECORDS",
    "SLOT_REQUEST_TIMEOUT",
    "TASK_SLOTS",
    "ConfigOption",
    "ConfigOptions",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ConfigOption(Generic[T]):
    """A configuration key with a typed default value."""

    key: str
    default: T
    kind: type
    description: str = ""

    def parse(self, raw: Any) -> T:
        """Convert a raw (often string) value to this option's type."""
        if raw is None or (isinstance(raw, self.kind) and not isinstance(raw, bool | str)):
            return raw  # type: ignore[no-any-return]
        if self.kind is bool:
            if isinstance(raw, bool):
                return raw  # type: ignore[return-value]
            text = str(raw).strip().lower()
            if text not in ("true", "false"):
                raise ValueError(f"option {self.key}: expected true/false, got {raw!r}")
            return text == "true"  # type: ignore[return-value]
        if self.kind is int:
            return int(str(raw).strip().removesuffix("ms").strip())  # type: ignore[return-value]
        return self.kind(raw)  # type: ignore[no-any-return]


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
    "parallelism.default", 1, int, "Parallelism of operators that set none."
)
MAX_PARALLELISM: ConfigOption[int] = ConfigOption(
    "pipeline.max-parallelism", -1, int, "Number of key groups; -1 derives it (default 128)."
)
CHAINING_ENABLED: ConfigOption[bool] = ConfigOption(
    "pipeline.operator-chaining.enabled", True, bool, "Chain operators into tasks."
)
BUFFER_TIMEOUT: ConfigOption[int] = ConfigOption(
    "execution.buffer-timeout",
    100,
    int,
    "Max ms a record waits in a partly filled buffer; 0 flushes every record, -1 only full buffers.",
)
RUNTIME_MODE: ConfigOption[str] = ConfigOption(
    "execution.runtime-mode", "STREAMING", str, "STREAMING, BATCH or AUTOMATIC."
)
AUTO_WATERMARK_INTERVAL: ConfigOption[int] = ConfigOption(
    "pipeline.auto-watermark-interval",
    200,
    int,
    "Interval in ms at which sources and assign_timestamps_and_watermarks ask their "
    "WatermarkGenerator for a periodic watermark; 0 disables periodic watermarks.",
)
BATCH_SHUFFLE_MODE: ConfigOption[str] = ConfigOption(
    "execution.batch-shuffle-mode",
    "ALL_EXCHANGES_BLOCKING",
    str,
    "Data exchanges of a job in BATCH runtime mode: ALL_EXCHANGES_BLOCKING (results are written "
    "to spill files and consumers start when their producers finished) or ALL_EXCHANGES_PIPELINED.",
)
SORTED_INPUTS_MEMORY_RECORDS: ConfigOption[int] = ConfigOption(
    "execution.sorted-inputs.memory-records",
    500_000,
    int,
    "BATCH mode: records a keyed operator's input sorter holds in memory before it spills a "
    "sorted run to a temporary file (bounds the memory of sorting by key).",
)
EXECUTION_TARGET: ConfigOption[str] = ConfigOption(
    "execution.target", "embedded", str, "Which runner executes the job."
)
MEMORY_SEGMENT_SIZE: ConfigOption[int] = ConfigOption(
    "taskmanager.memory.segment-size", 32 * 1024, int, "Size of one network buffer in bytes."
)
NETWORK_NUM_BUFFERS: ConfigOption[int] = ConfigOption(
    "taskmanager.network.numberOfBuffers",
    2048,
    int,
    "Network buffers per TaskManager (NetworkBufferPool size).",
)
NETWORK_BUFFERS_PER_CHANNEL: ConfigOption[int] = ConfigOption(
    "taskmanager.network.memory.buffers-per-channel",
    2,
    int,
    "Exclusive buffers per input channel / buffers per outgoing subpartition.",
)
NETWORK_FLOATING_BUFFERS_PER_GATE: ConfigOption[int] = ConfigOption(
    "taskmanager.network.memory.floating-buffers-per-gate",
    8,
    int,
    "Floating buffers per input gate and per result partition.",
)
LOCAL_EXCHANGE: ConfigOption[str] = ConfigOption(
    "taskmanager.network.local-exchange",
    "objects",
    str,
    "How records reach a consumer in the same TaskManager: 'objects' (batches of references "
    "in pooled buffers) or 'serialized' (pickled into byte buffers, as across processes).",
)
GC_THRESHOLD: ConfigOption[int] = ConfigOption(
    "taskmanager.python.gc-threshold",
    50_000,
    int,
    "Generation-0 threshold of Python's cyclic GC while tasks run (0 keeps the interpreter's). "
    "Record processing allocates many short-lived objects; collecting every 700 allocations "
    "costs ~10% of throughput.",
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
    "heartbeat.interval", 10000, int, "Milliseconds between heartbeats of the JobManager and TaskManagers."
)
HEARTBEAT_TIMEOUT: ConfigOption[int] = ConfigOption(
    "heartbeat.timeout",
    50000,
    int,
    "Milliseconds without a heartbeat after which a TaskManager (or the JobManager) counts as lost. "
    "A closed connection is noticed at once.",
)
MINICLUSTER_MODE: ConfigOption[str] = ConfigOption(
    "minicluster.mode",
    "processes",
    str,
    "How the embedded runtime runs TaskManagers: 'processes' (child processes on 127.0.0.1 that use "
    "every core, the same protocol as a cluster) or 'threads' (all in the client process).",
)
MINICLUSTER_TASK_MANAGERS: ConfigOption[int] = ConfigOption(
    "minicluster.number-of-taskmanagers",
    0,
    int,
    "TaskManager processes of the embedded runtime (0: as many as the job's slots need).",
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
)
TASK_SLOTS: ConfigOption[int] = ConfigOption(
    "taskmanager.numberOfTaskSlots", 1, int, "Slots per TaskManager."
)
