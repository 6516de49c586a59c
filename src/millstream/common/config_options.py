"""Typed configuration options: one declaration per key, with its default and doc.

Keys follow Flink's names where Flink has the option (``parallelism.default``,
``execution.buffer-timeout``, ``pipeline.max-parallelism`` ...).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from millstream.common import checkpointing_options, metrics_options, rest_options, state_backend_options
from millstream.common.config_option import ConfigOption, ConfigOptions, ConfigurationError

__all__ = [
    "AUTO_WATERMARK_INTERVAL",
    "BATCH_COMBINE_MAX_KEYS",
    "BATCH_SHUFFLE_MODE",
    "BUFFER_TIMEOUT",
    "BUNDLE_SIZE",
    "BUNDLE_TIME",
    "CHAINING_ENABLED",
    "CHECKPOINTING_DIR",
    "CHECKPOINTS_DIR_DEPRECATED",
    "CLIENT_PRINT_JOB_ID",
    "CLUSTER_REGISTRATION_ERROR_DELAY",
    "CLUSTER_REGISTRATION_INITIAL_TIMEOUT",
    "CLUSTER_REGISTRATION_MAX_TIMEOUT",
    "CPU_AFFINITY",
    "DEFAULT_PARALLELISM",
    "EXECUTION_ATTACHED",
    "EXECUTION_TARGET",
    "GC_THRESHOLD",
    "HEARTBEAT_INTERVAL",
    "HEARTBEAT_TIMEOUT",
    "IO_TMP_DIRS",
    "LOCAL_EXCHANGE",
    "LOCAL_EXCHANGE_QUEUED_BATCHES",
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
    "START_WORKER_MAX_FAILURE_RATE",
    "START_WORKER_RETRY_INTERVAL",
    "TASK_CANCELLATION_INTERVAL",
    "TASK_MANAGER_REGISTRATION_TIMEOUT",
    "TASK_SLOTS",
    "USER_KEY_PREFIXES",
    "ConfigOption",
    "ConfigOptions",
    "ConfigurationError",
    "validate_entry",
]

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
BATCH_COMBINE_MAX_KEYS: ConfigOption[int] = ConfigOption(
    "execution.batch.combine.max-keys",
    10_000,
    int,
    "BATCH mode: a keyed reduce (reduce, sum, min, max, min_by, max_by) is pre-aggregated in "
    "each producing subtask before the shuffle (a combiner, as Flink's DataSet combiners and "
    "its SQL local-global aggregation); the combiner holds at most this many keys before it "
    "sends them on. 0 turns combining off. The reduce function must be associative, as a "
    "BATCH reduce already folds a key's values in an order the shuffle decides.",
    minimum=0,
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
EXECUTION_ATTACHED: ConfigOption[bool] = ConfigOption(
    "execution.attached",
    True,
    bool,
    "Whether execute() waits for the job (false: on a cluster, it submits the job and returns "
    "at once, as 'millstream run --detached').",
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
LOCAL_EXCHANGE_QUEUED_BATCHES: ConfigOption[int] = ConfigOption(
    "taskmanager.network.local-exchange.max-queued-batches",
    2,
    int,
    "Element batches (of up to 1024 references) a consumer in the same TaskManager may have "
    "queued before its producer waits (backpressure). Both tasks share one interpreter and "
    "CPU cache: a producer running further ahead makes the consumer read records the cache "
    "has already evicted. 0: bounded only by the partition's buffer pool.",
    minimum=0,
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
# A standalone TaskManager's registration with its JobManager, as Flink's TaskExecutor registers
# with its ResourceManager (TaskManagerOptions.REGISTRATION_TIMEOUT, ClusterOptions'
# cluster.registration.*): at start and again whenever it loses the JobManager.
TASK_MANAGER_REGISTRATION_TIMEOUT: ConfigOption[int] = ConfigOption(
    "taskmanager.registration.timeout",
    300000,
    int,
    "How long a standalone TaskManager keeps trying to register with its JobManager, at start and "
    "after losing it (JobManager killed or restarted, or this TaskManager paused past "
    "heartbeat.timeout), before it exits.",
    unit="ms",
    minimum=1,
)
CLUSTER_REGISTRATION_INITIAL_TIMEOUT: ConfigOption[int] = ConfigOption(
    "cluster.registration.initial-timeout",
    100,
    int,
    "How long a TaskManager's first registration attempt waits for the JobManager's answer; each "
    "attempt that times out waits twice as long, up to cluster.registration.max-timeout.",
    unit="ms",
    minimum=1,
)
CLUSTER_REGISTRATION_MAX_TIMEOUT: ConfigOption[int] = ConfigOption(
    "cluster.registration.max-timeout",
    30000,
    int,
    "The longest a TaskManager's registration attempt waits for the JobManager's answer.",
    unit="ms",
    minimum=1,
)
CLUSTER_REGISTRATION_ERROR_DELAY: ConfigOption[int] = ConfigOption(
    "cluster.registration.error-delay",
    10000,
    int,
    "Pause before a TaskManager tries to register again after an attempt failed with an error "
    "(no JobManager listening at its address, say).",
    unit="ms",
    minimum=0,
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
# Flink's active resource managers (ResourceManagerOptions.START_WORKER_MAX_FAILURE_RATE and
# START_WORKER_RETRY_INTERVAL: 10 per minute, 3 s); here they pace the embedded cluster's
# replacements of TaskManager processes that exit before they registered.
START_WORKER_MAX_FAILURE_RATE: ConfigOption[float] = ConfigOption(
    "resourcemanager.start-worker.max-failure-rate",
    10.0,
    float,
    "TaskManager processes exiting before they registered, per minute, after which the embedded "
    "runtime waits resourcemanager.start-worker.retry-interval before it starts the next one.",
)
START_WORKER_RETRY_INTERVAL: ConfigOption[int] = ConfigOption(
    "resourcemanager.start-worker.retry-interval",
    3000,
    int,
    "Wait before starting a TaskManager process once resourcemanager.start-worker.max-failure-rate "
    "is reached.",
    unit="ms",
    minimum=0,
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

CLIENT_PRINT_JOB_ID: ConfigOption[bool] = ConfigOption(
    "$internal.client.print-job-id",
    False,
    bool,
    "Set by `millstream run`: the client prints 'Job has been submitted with JobID <id>' as Flink's "
    "command line does.",
)

# Keys under these prefixes are not validated: ``user.`` for a program's own settings,
# ``spark.`` for options handed to the SparkSession as they are.
USER_KEY_PREFIXES = ("user.", "spark.")

OPTIONS: Mapping[str, ConfigOption[Any]] = {
    key: option
    for option in [
        *globals().values(),
        *vars(checkpointing_options).values(),
        *vars(state_backend_options).values(),
        *vars(rest_options).values(),
        *vars(metrics_options).values(),
    ]
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
