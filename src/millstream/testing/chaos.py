"""Chaos trials: a checkpointed keyed job, failed at a random moment, must commit exactly
what a failure-free run commits.

The job (parallelism 2, two TaskManager processes, exactly-once checkpoints every
``interval_ms``): a rate-limited generator of numbers with event times, keyed by residue,
tumbling one-second event-time windows counting and summing each key, a keyed process
function keeping every key's running total in ValueState, and a FileSink. A trial starts
it and either SIGKILLs one TaskManager process (``kill``) or lets a user function raise
once (``raise``) at a random moment; the restart strategy (``fixed-delay``) restarts the
job from the latest completed checkpoint on the remaining or replaced TaskManagers.

What a trial checks: the committed output (the lines of every visible file, sorted: how
lines fall into part files depends on when checkpoints roll them) is byte-identical to
the failure-free run's, and no TaskManager process outlives the job.

``scripts/chaos.py`` runs the full 20 trials; the test suite runs a few.
"""

from __future__ import annotations

import os
import random
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from millstream.common import Configuration, Encoder, Time, Types, WatermarkStrategy
from millstream.common.serialization import SimpleStringSchema
from millstream.common.watermark_strategy import TimestampAssigner
from millstream.datastream import KeyedProcessFunction, MapFunction, StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.connectors.file_system import FileSource, StreamFormat
from millstream.datastream.connectors.kafka import KafkaOffsetsInitializer, KafkaSource
from millstream.datastream.functions import AggregateFunction, ProcessWindowFunction
from millstream.datastream.state import ValueStateDescriptor
from millstream.datastream.window import TumblingEventTimeWindows
from millstream.testing.kafka_broker import create_topic, produce_records

__all__ = [
    "ChaosJob",
    "TrialResult",
    "committed_output",
    "leftover_task_managers",
    "run_trial",
]

KEYS = 13
MS_PER_RECORD = 10  # event time: record i happens at i * 10 ms, so a window holds 100 records


class _Timestamp(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return int(value[1]) * MS_PER_RECORD


class _LineTimestamp(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return int(value) * MS_PER_RECORD


class _ToKeyed(MapFunction):
    """(key, number); raises once at ``raise_at`` when asked to (a marker file outlives the restart)."""

    def __init__(self, marker: str | None, raise_at: int | None) -> None:
        self.marker = marker
        self.raise_at = raise_at

    def map(self, value: Any) -> Any:
        value = int(value)  # a line of the file variant
        if value == self.raise_at and self.marker is not None and not os.path.exists(self.marker):
            Path(self.marker).touch()
            raise RuntimeError(f"chaos: user function raised at record {value}")
        return (value % KEYS, value)


class _Paced(MapFunction):
    """Passes lines on at about ``per_second`` over all subtasks, as the generator emits (a
    file is read faster: the job must run as long as the reference to be failed mid-way)."""

    def __init__(self, per_second: float) -> None:
        self.per_second = per_second
        self.count = 0

    def open(self, runtime_context: Any) -> None:
        self.pause = 50 * runtime_context.get_number_of_parallel_subtasks() / self.per_second

    def map(self, value: Any) -> Any:
        self.count += 1
        if self.count % 50 == 0:
            time.sleep(self.pause)
        return value


class _RunningTotal(KeyedProcessFunction):
    """Per key, the running total over its windows (ValueState), one line per window."""

    def open(self, runtime_context: Any) -> None:
        self.total = runtime_context.get_state(ValueStateDescriptor("total", Types.LONG()))

    def process_element(self, value: Any, ctx: Any) -> Any:
        key, window_start, count, total = value
        running = (self.total.value() or 0) + total
        self.total.update(running)
        yield f"{key},{window_start},{count},{total},{running}"


@dataclass(frozen=True)
class ChaosJob:
    """The job's size and settings."""

    records: int = 24_000
    records_per_second: float = 6_000.0
    interval_ms: int = 200
    unaligned: bool = False  # unaligned checkpoints (in-flight data in the checkpoints)
    state_backend: str = "hashmap"  # state.backend.type: hashmap or rocksdb
    incremental: bool = False  # state.backend.incremental (RocksDB's incremental checkpoints)
    # "files": the same numbers read by a FileSource (a line each, small splits that the
    # JobMaster's enumerator hands out on request), paced at ``records_per_second``;
    # "kafka": read from ``kafka_topic`` (4 partitions, written by ``write_kafka_input``) at
    # ``kafka_servers`` by a bounded KafkaSource, paced the same way
    source: str = "generator"
    kafka_servers: str = ""
    kafka_topic: str = "chaos-numbers"

    def build(
        self, env: StreamExecutionEnvironment, out_dir: str, marker: str | None, raise_at: int | None
    ) -> None:
        """The pipeline, from the generator (or the files) to the FileSink under ``out_dir``."""
        strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_Timestamp())
        sink = FileSink.for_row_format(out_dir, Encoder.simple_string_encoder()).build()
        if self.source == "kafka":
            # watermarks per partition, in the source (partitions are read out of step)
            by_partition = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
                _LineTimestamp()
            )
            numbers = env.from_source(self._kafka_source(), by_partition, "kafka").map(
                _Paced(self.records_per_second)
            )
        elif self.source == "files":
            numbers = env.from_source(
                self._file_source(os.path.join(os.path.dirname(out_dir), "input")),
                WatermarkStrategy.no_watermarks(),
                "lines",
            ).map(_Paced(self.records_per_second))
        else:
            generator = DataGeneratorSource(lambda i: i, self.records, self.records_per_second, Types.LONG())
            numbers = env.from_source(generator, WatermarkStrategy.no_watermarks(), "numbers")
        keyed = numbers.map(_ToKeyed(marker, raise_at), Types.TUPLE([Types.INT(), Types.LONG()]))
        if self.source != "kafka":
            keyed = keyed.assign_timestamps_and_watermarks(strategy)
        (
            keyed.key_by(lambda pair: pair[0], Types.INT())
            .window(TumblingEventTimeWindows.of(Time.seconds(1)))
            .aggregate(_CountAndSum(), _WithWindow())
            .key_by(lambda row: row[0], Types.INT())
            .process(_RunningTotal(), Types.STRING())
            .sink_to(sink)
        )

    def _kafka_source(self) -> Any:
        return (
            KafkaSource.builder()
            .set_bootstrap_servers(self.kafka_servers)
            .set_topics(self.kafka_topic)
            .set_group_id("chaos")
            .set_starting_offsets(KafkaOffsetsInitializer.earliest())
            .set_bounded(KafkaOffsetsInitializer.latest())
            .set_value_only_deserializer(SimpleStringSchema())
            .build()
        )

    def write_kafka_input(self) -> None:
        """The numbers, spread over 4 partitions of ``kafka_topic`` (created here)."""
        create_topic(self.kafka_servers, self.kafka_topic, 4)
        produce_records(
            self.kafka_servers,
            self.kafka_topic,
            ((i % 4, None, str(i).encode(), None) for i in range(self.records)),
        )

    def _file_source(self, directory: str) -> FileSource:
        """The numbers as lines of three files, cut into splits of about 200 lines."""
        os.makedirs(directory, exist_ok=True)
        per_file = -(-self.records // 3)
        for index, start in enumerate(range(0, self.records, per_file)):
            end = min(start + per_file, self.records)
            Path(directory, f"numbers-{index}.txt").write_text("".join(f"{i}\n" for i in range(start, end)))
        return (
            FileSource.for_record_stream_format(StreamFormat.text_line_format(), directory)
            .set_split_size(1024)
            .build()
        )

    def environment(self, checkpoint_dir: str, restart: str = "fixed-delay") -> StreamExecutionEnvironment:
        """Two TaskManager processes of one slot each, checkpoints, the restart strategy."""
        conf = Configuration()
        conf.set_string("minicluster.mode", "processes")
        conf.set_string("minicluster.number-of-taskmanagers", "2")
        conf.set_string("taskmanager.numberOfTaskSlots", "1")
        conf.set_string("execution.checkpointing.dir", checkpoint_dir)
        conf.set_string("restart-strategy.type", restart)
        conf.set_string("restart-strategy.fixed-delay.attempts", "5")
        conf.set_string("restart-strategy.fixed-delay.delay", "100 ms")
        conf.set_string("state.backend.type", self.state_backend)
        conf.set_string("state.backend.incremental", str(self.incremental).lower())
        env = StreamExecutionEnvironment.get_execution_environment(conf)
        env.set_parallelism(2)
        env.enable_checkpointing(self.interval_ms)
        if self.unaligned:
            env.get_checkpoint_config().enable_unaligned_checkpoints()
        return env


class _CountAndSum(AggregateFunction):
    """AggregateFunction: (count, sum) of a key's numbers in a window."""

    def create_accumulator(self) -> tuple[int, int]:
        return (0, 0)

    def add(self, value: Any, accumulator: tuple[int, int]) -> tuple[int, int]:
        return (accumulator[0] + 1, accumulator[1] + value[1])

    def get_result(self, accumulator: tuple[int, int]) -> tuple[int, int]:
        return accumulator

    def merge(self, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        return (a[0] + b[0], a[1] + b[1])


class _WithWindow(ProcessWindowFunction):
    """ProcessWindowFunction: (key, window start, count, sum)."""

    def process(self, key: Any, context: Any, elements: Any) -> Any:
        for count, total in elements:
            yield (key, context.window().start, count, total)


@dataclass
class TrialResult:
    """What one trial did and saw."""

    failure: str  # "kill", "raise" or "none"
    failed_after_s: float | None  # when the failure was injected (None: the job ended first)
    restarts: int
    duration_s: float
    output: bytes
    leftover: list[int]
    # files left in the jobs' shared state directories (incremental checkpoints: every one
    # is deleted once no retained checkpoint references it)
    leftover_shared: list[str] = field(default_factory=list)


def committed_output(out_dir: str) -> bytes:
    """Every line of every committed (visible) file under ``out_dir``, sorted, as bytes."""
    lines: list[str] = []
    for root, _dirs, files in os.walk(out_dir):
        for name in files:
            if not name.startswith("."):
                lines.extend(Path(root, name).read_text(encoding="utf-8").splitlines())
    return ("\n".join(sorted(lines)) + "\n").encode() if lines else b""


def leftover_task_managers() -> list[int]:
    """Pids of TaskManager processes that are children of this process (Linux /proc)."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue  # gone meanwhile
        # the state and parent pid follow the command name in parentheses
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == me and state != "Z" and b"taskmanager" in cmdline.lower():
            found.append(int(entry))
    return found


def run_trial(
    job: ChaosJob,
    work_dir: str,
    failure: str,
    fail_after_s: float | None = None,
    raise_at: int | None = None,
    restart: str = "fixed-delay",
    rng: random.Random | None = None,
    after_running: bool = False,
) -> TrialResult:
    """Run the job once under ``work_dir`` with ``failure`` ("none", "kill" or "raise").

    ``kill``: SIGKILL one of the two TaskManager processes (chosen by ``rng``) ``fail_after_s``
    seconds after submission (the processes were just spawned then), or after every task of
    the job runs (``after_running``). ``raise``: the user function raises once at record
    ``raise_at``.
    """
    out_dir = os.path.join(work_dir, "out")
    marker = os.path.join(work_dir, "raised") if failure == "raise" else None
    env = job.environment(os.path.join(work_dir, "checkpoints"), restart)
    job.build(env, out_dir, marker, raise_at if failure == "raise" else None)
    started = time.monotonic()
    client = env.execute_async(f"chaos trial ({failure})")
    failed_after: float | None = None
    try:
        if failure == "kill":
            assert fail_after_s is not None
            if after_running:
                _wait_until_running(client)
            failed_after = _kill_one_task_manager(client, fail_after_s, rng or random.Random())
        result = client.get_job_execution_result(300)
    finally:
        duration = time.monotonic() - started
    if failure == "raise" and marker is not None and os.path.exists(marker):
        failed_after = duration  # it raised (when exactly is the record's business)
    restarts = int(result.get_all_accumulator_results().get("numRestarts", 0))
    checkpoints = os.path.join(work_dir, "checkpoints")
    shared = [
        os.path.join(root, name)
        for root, _dirs, files in os.walk(checkpoints)
        if os.path.basename(root) == "shared"
        for name in files
    ]
    return TrialResult(
        failure,
        failed_after,
        restarts,
        duration,
        committed_output(out_dir),
        leftover_task_managers(),
        shared,
    )


def _wait_until_running(client: Any, timeout_s: float = 120.0) -> None:
    """Until every task of the job runs (its TaskManagers registered, its tasks deployed)."""
    master = client.cluster.job_master(str(client.get_job_id()))
    deadline = time.monotonic() + timeout_s
    while True:
        states = master.execution_states()
        if states and all(state.value == "RUNNING" for state in states.values()):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"the job's tasks did not all run within {timeout_s:.0f} s: {states}")
        time.sleep(0.01)


def _kill_one_task_manager(client: Any, after_s: float, rng: random.Random) -> float | None:
    """SIGKILL one TaskManager process ``after_s`` from now, unless the job ended first."""
    time.sleep(after_s)  # the random moment of the failure (what the trial is about)
    if client.get_job_status().is_globally_terminal_state():
        return None  # from its start-up (TaskManagers still registering) to its end, a job can lose one
    processes = client.cluster.task_manager_processes.processes
    victim = rng.choice(processes)
    if victim.poll() is not None:
        return None
    os.kill(victim.pid, signal.SIGKILL)
    return after_s
