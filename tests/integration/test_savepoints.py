"""Savepoints: stop a job with a savepoint, resume it from the savepoint at another
parallelism and on another state backend; the committed output of both runs together is
exactly the output of one uninterrupted run (issue 16's acceptance).

The job: generated events (index i, event time 10 i ms) keyed by i % 7, into tumbling 1 s
event-time windows (a count per key and window) and into a keyed process function keeping
a running count in ValueState; both write through an exactly-once FileSink. It runs at
parallelism 2 until a checkpoint completed, is stopped with a savepoint, and is started
again from the savepoint at parallelism 1 or 3, on the heap or on RocksDB: keyed state
moves by key group, the windows' contents and timers with it, the generator's unread
splits to the new readers, the sink's pending files to the new writers.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from millstream.common import Configuration, Encoder, JobStatus, Time, Types, WatermarkStrategy
from millstream.datastream import KeyedProcessFunction, SourceFunction, StreamExecutionEnvironment
from millstream.datastream.connectors import FileSink
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.state import ValueStateDescriptor
from millstream.datastream.window import TumblingEventTimeWindows

from .test_checkpoints import committed_lines

pytestmark = pytest.mark.timeout(240)

EVENTS = 6000
KEYS = 7
# A job stopped, cancelled or savepointed while it runs reads its input slowly, so it is still
# running after its first checkpoints however loaded the machine is (at 300 events/s the input
# lasts 20 s); the job resumed afterwards reads the rest at full speed. Event times come from
# the index, so the rate changes no output.
SLOW, FAST = 300.0, 1_000_000.0


class RunningCount(KeyedProcessFunction):
    def open(self, runtime_context):  # type: ignore[no-untyped-def]
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))

    def process_element(self, value, ctx):  # type: ignore[no-untyped-def]
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        yield f"c,{value[0]},{n}"


def build(env: StreamExecutionEnvironment, out: str, rate: float = FAST, checkpoints: bool = True) -> None:
    if checkpoints:
        env.enable_checkpointing(100)
    source = DataGeneratorSource(
        lambda i: (i % KEYS, i), EVENTS, rate, Types.TUPLE([Types.INT(), Types.LONG()])
    )
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda v, ts: v[1] * 10)
    events = env.from_source(source, strategy, "events").uid("events")
    keyed = events.key_by(lambda v: v[0], Types.INT())
    counted = (
        keyed.map(lambda v: (v[0], v[1], 1))
        .key_by(lambda v: v[0], Types.INT())
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .reduce(lambda a, b: (a[0], min(a[1], b[1]), a[2] + b[2]))
        .uid("window-counts")
        .map(lambda v: f"w,{v[0]},{v[1] * 10 // 1000 * 1000},{v[2]}", Types.STRING())
    )
    running = keyed.process(RunningCount(), Types.STRING()).uid("running")
    sink = FileSink.for_row_format(out, Encoder.simple_string_encoder()).build()
    counted.union(running).sink_to(sink).uid("files")


def expected() -> Counter[str]:
    lines: Counter[str] = Counter()
    seen: Counter[int] = Counter()
    windows: Counter[tuple[int, int]] = Counter()
    for i in range(EVENTS):
        key = i % KEYS
        seen[key] += 1
        lines[f"c,{key},{seen[key]}"] += 1
        windows[(key, i * 10 // 1000 * 1000)] += 1
    for (key, start), count in windows.items():
        lines[f"w,{key},{start},{count}"] += 1
    return lines


def env_for(parallelism: int, backend: str, restore: str | None = None) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("state.backend.type", backend)
    if restore is not None:
        conf.set_string("execution.state-recovery.path", restore)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    return env


def wait_for_checkpoints(client: Any, count: int) -> None:
    """Until ``count`` checkpoints of the running job completed."""
    deadline = time.monotonic() + 60
    while client.get_checkpoint_statistics().get("numberOfCompletedCheckpoints", 0) < count:
        assert client.get_job_status() in (JobStatus.CREATED, JobStatus.RUNNING), "the job ended first"
        assert time.monotonic() < deadline, f"{count} checkpoints did not complete"
        time.sleep(0.05)  # polling an observable condition, bounded by the deadline


def wait_for_state_in_checkpoints(client: Any, out: Path, more: int) -> None:
    """Until a checkpoint committed output (so checkpoints hold state), then ``more`` after it."""
    deadline = time.monotonic() + 60
    while not committed_lines(out):
        assert client.get_job_status() in (JobStatus.CREATED, JobStatus.RUNNING), "the job ended first"
        assert time.monotonic() < deadline, "no checkpoint committed output"
        time.sleep(0.05)  # polling an observable condition, bounded by the deadline
    completed = client.get_checkpoint_statistics().get("numberOfCompletedCheckpoints", 0)
    wait_for_checkpoints(client, completed + more)


def savepoint_once_running(client: Any, directory: Path) -> str:
    """A savepoint asked for until the job's tasks all run: before, it must fail as Flink's
    does, with "Not all required tasks are currently running." and nothing else."""
    deadline = time.monotonic() + 120
    while True:
        try:
            return str(client.trigger_savepoint(str(directory)).result(120))
        except Exception as error:  # the reason is what the tests check
            assert "Not all required tasks are currently running" in str(error), error
            assert time.monotonic() < deadline, "the tasks never ran"
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline


def stop_with_savepoint_after_a_checkpoint(client: Any, directory: Path) -> str:
    wait_for_checkpoints(client, 1)
    path = client.stop_with_savepoint(savepoint_directory=str(directory)).result(60)
    client.get_job_execution_result(60)  # stopped: FINISHED, not cancelled
    return str(path)


@pytest.mark.parametrize(
    ("first_backend", "second_parallelism", "second_backend"),
    [
        ("hashmap", 1, "hashmap"),
        ("hashmap", 3, "rocksdb"),
        ("rocksdb", 1, "hashmap"),
        ("rocksdb", 3, "rocksdb"),
    ],
)
def test_a_job_stopped_with_a_savepoint_resumes_at_another_parallelism_and_backend_exactly_once(
    tmp_path: Path, first_backend: str, second_parallelism: int, second_backend: str
) -> None:
    out = tmp_path / "out"
    env = env_for(2, first_backend)
    build(env, str(out), SLOW)
    client = env.execute_async("stopped")
    path = stop_with_savepoint_after_a_checkpoint(client, tmp_path / "savepoints")
    assert os.path.isfile(os.path.join(path, "_metadata"))
    before = committed_lines(out)
    assert 0 < sum(before.values()) < sum(expected().values())  # stopped part-way

    env = env_for(second_parallelism, second_backend, restore=path)
    build(env, str(out))
    env.execute("resumed")
    assert committed_lines(out) == expected()
    assert os.path.isdir(path)  # the savepoint belongs to the user: still there


def test_a_savepoint_of_a_running_job_leaves_it_running_and_can_be_restored(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = env_for(2, "hashmap")
    build(env, str(out), 2 * SLOW)  # runs to its end in this test: 10 s
    client = env.execute_async("running")
    wait_for_checkpoints(client, 1)
    path = client.trigger_savepoint(str(tmp_path / "savepoints")).result(60)
    assert client.get_job_status() is JobStatus.RUNNING
    client.get_job_execution_result(120)  # runs to its end
    assert committed_lines(out) == expected()
    # the savepoint restores into a fresh output: the part after it, exactly once
    resumed = tmp_path / "resumed"
    env = env_for(3, "rocksdb", restore=str(path))
    build(env, str(resumed))
    env.execute("from the savepoint")
    after = committed_lines(resumed)
    assert after and sum(after.values()) < sum(expected().values())
    assert not (after - expected())  # nothing that a full run would not write


@pytest.mark.parametrize(("second_parallelism", "second_backend"), [(3, "rocksdb"), (1, "hashmap")])
def test_a_retained_incremental_checkpoint_resumes_at_another_parallelism_and_backend(
    tmp_path: Path, second_parallelism: int, second_backend: str
) -> None:
    """RocksDB with incremental checkpoints, cancelled after a few checkpoints (so the
    retained one references files uploaded by earlier ones): started again from it at
    parallelism 3 on RocksDB (key-group ranges copied out of the handles) or at 1 on the
    heap (the handles read into the canonical form)."""
    out, checkpoints = tmp_path / "out", tmp_path / "checkpoints"
    conf = (
        Configuration()
        .set_string("state.backend.type", "rocksdb")
        .set_string("state.backend.incremental", "true")
        .set_string("execution.checkpointing.dir", str(checkpoints))
        .set_string("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION")
    )
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    build(env, str(out), SLOW)
    client = env.execute_async("cancelled")
    wait_for_state_in_checkpoints(client, out, 3)
    client.cancel()
    with pytest.raises(Exception, match="cancelled"):
        client.get_job_execution_result(60)
    job_dir = next(checkpoints.iterdir())
    retained = [p for p in job_dir.iterdir() if p.name.startswith("chk-")]
    assert len(retained) == 1 and any((job_dir / "shared").iterdir())
    before = committed_lines(out)
    assert 0 < sum(before.values()) < sum(expected().values())  # cancelled part-way

    env = env_for(second_parallelism, second_backend, restore=str(job_dir))
    build(env, str(out))
    env.execute("resumed")
    assert committed_lines(out) == expected()
    assert any((job_dir / "shared").iterdir())  # the first job's checkpoint: never deleted by the second


def test_stop_with_drain_fires_every_window_before_the_savepoint_and_ends_the_job(tmp_path: Path) -> None:
    """stop --drain: the sources end their input, the final watermark fires every window
    (each event the running count saw is in some fired window), the savepoint is the tasks'
    final checkpoint and the job ends FINISHED by itself; resumed from the savepoint the job
    continues with the unread events, the running counts where they were."""
    out = tmp_path / "out"
    env = env_for(2, "rocksdb")
    build(env, str(out), SLOW)
    client = env.execute_async("drained")
    wait_for_checkpoints(client, 1)
    path = client.stop_with_savepoint(True, str(tmp_path / "savepoints")).result(60)
    client.get_job_execution_result(60)  # ends by itself (raises if it failed)
    assert client.get_job_status() is JobStatus.FINISHED
    first = committed_lines(out)
    counted = sum(n for line, n in first.items() if line.startswith("c,"))
    windowed = sum(int(line.split(",")[3]) * n for line, n in first.items() if line.startswith("w,"))
    assert 0 < counted < EVENTS
    assert windowed == counted  # every window fired: nothing waits in a window

    env = env_for(3, "hashmap", restore=path)
    build(env, str(out))
    env.execute("after the drained savepoint")
    both = committed_lines(out)
    assert +Counter({k: v for k, v in both.items() if k.startswith("c,")}) == +Counter(
        {k: v for k, v in expected().items() if k.startswith("c,")}
    )  # every running count once, continued from the savepoint
    assert sum(int(line.split(",")[3]) * n for line, n in both.items() if line.startswith("w,")) == EVENTS


class Ticks(SourceFunction):
    """A legacy source that emits until it is cancelled."""

    def __init__(self) -> None:
        self.running = True

    def run(self, ctx):  # type: ignore[no-untyped-def]
        i = 0
        while self.running:
            with ctx.get_checkpoint_lock():
                for _ in range(50):
                    ctx.collect((i % KEYS, i))
                    i += 1
            time.sleep(0.005)  # a source's own pace (about 10,000 events/s), not synchronisation

    def cancel(self) -> None:
        self.running = False


def test_stop_with_drain_ends_a_legacy_source_function_too(tmp_path: Path) -> None:
    """A SourceFunction is cancelled (its run() returns), then ends as a bounded one: the
    final watermark fires every window before the savepoint."""
    out = tmp_path / "out"
    env = env_for(2, "hashmap")
    env.enable_checkpointing(100)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda v, ts: v[1] * 10)
    events = env.add_source(Ticks(), "ticks", Types.TUPLE([Types.INT(), Types.LONG()]))
    keyed = events.assign_timestamps_and_watermarks(strategy).key_by(lambda v: v[0], Types.INT())
    windows = (
        keyed.map(lambda v: (v[0], 1))
        .key_by(lambda v: v[0], Types.INT())
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .map(lambda v: f"w,{v[0]},{v[1]}", Types.STRING())
    )
    running = keyed.process(RunningCount(), Types.STRING())
    windows.union(running).sink_to(FileSink.for_row_format(str(out), Encoder.simple_string_encoder()).build())
    client = env.execute_async("legacy drained")
    wait_for_checkpoints(client, 2)
    client.stop_with_savepoint(True, str(tmp_path / "savepoints")).result(60)
    client.get_job_execution_result(60)
    lines = committed_lines(out)
    counted = sum(n for line, n in lines.items() if line.startswith("c,"))
    assert counted > 0
    assert sum(int(line.split(",")[2]) * n for line, n in lines.items() if line.startswith("w,")) == counted


def test_a_savepoint_needs_a_directory(tmp_path: Path) -> None:
    env = env_for(1, "hashmap")
    build(env, str(tmp_path / "out"))
    client = env.execute_async("no directory")
    try:
        with pytest.raises(Exception, match="no savepoint directory"):
            client.trigger_savepoint().result(60)
    finally:
        client.cancel()
        with pytest.raises(Exception, match="cancelled"):
            client.get_job_execution_result(60)


def test_a_savepoint_asked_for_as_the_job_starts_waits_for_its_tasks_as_flinks_does(tmp_path: Path) -> None:
    """Asked for the moment a checkpointed job is submitted, a savepoint fails as Flink's does
    until every task runs ("Not all required tasks are currently running."), then succeeds.
    Before, a job not yet scheduled was said to take no checkpoints at all."""
    env = env_for(1, "hashmap")
    build(env, str(tmp_path / "out"), SLOW)  # 20 s: cancelled once the savepoint is taken
    client = env.execute_async("early savepoint")
    try:
        path = savepoint_once_running(client, tmp_path / "savepoints")
        assert os.path.exists(os.path.join(path, "_metadata"))
    finally:
        client.cancel()
        with pytest.raises(Exception, match="cancelled"):
            client.get_job_execution_result(60)


def test_a_job_without_periodic_checkpoints_takes_savepoints_as_flinks_does(tmp_path: Path) -> None:
    """Flink takes savepoints of a STREAMING job whether or not checkpointing is enabled (its
    checkpoint coordinator exists, its periodic scheduler does not start). Before, millstream
    refused: "takes no checkpoints". The savepoint taken while the job runs, and the one it
    stops with, each restore: the resumed job writes the part after it, exactly once."""
    out = tmp_path / "out"
    env = env_for(2, "hashmap")
    build(env, str(out), SLOW, checkpoints=False)
    client = env.execute_async("no periodic checkpoints")
    running = savepoint_once_running(client, tmp_path / "savepoints")
    assert client.get_job_status() is JobStatus.RUNNING
    # the savepoint is the one completed checkpoint (they count among them, as in Flink): none periodic
    assert client.get_checkpoint_statistics().get("numberOfCompletedCheckpoints", 0) == 1
    stopped = client.stop_with_savepoint(savepoint_directory=str(tmp_path / "savepoints")).result(120)
    client.get_job_execution_result(120)
    for path in (running, stopped):
        resumed = tmp_path / f"resumed-{Path(path).name}"
        env = env_for(3, "rocksdb", restore=str(path))
        build(env, str(resumed))
        env.execute("from the savepoint")
        after = committed_lines(resumed)
        assert after and not (after - expected())  # only lines a full run writes
