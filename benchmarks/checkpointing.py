"""What checkpoints cost and how fast a job recovers.

1. Throughput with checkpoints every second (aligned and unaligned) vs off, in the same
   run, in turn: the word count (FileSource -> flat_map -> key_by -> sum -> FileSink) and the window benchmark
   (tumbling event-time window sums) at parallelism 2 on two TaskManager processes.
   Target: at most 10% slower with checkpoints. The whole job's time includes the wait for
   the final checkpoint at the end of the input (FLIP-147: up to one interval, a large
   share of a short job), so for the window sums the time until the last result is
   reported too. Also the checkpoints' count, duration and size.
2. Checkpoint duration under backpressure: a fast source feeding a slow map through a
   rebalance, so the channels are full of queued buffers that an aligned barrier waits
   behind, and an unaligned one overtakes (the overtaken data goes into the checkpoint);
   the same job without backpressure for contrast.
3. Recovery time: a rate-limited job with checkpoints every second; one TaskManager process
   is SIGKILLed; measured from the kill until the restarted tasks process records again
   (the first record of the new attempt in every subtask), at default settings.
   Target: within 5 s.

    python benchmarks/checkpointing.py [--lines N] [--events N] [--repeat R] [--seconds S]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import windows  # noqa: E402
import word_count  # noqa: E402

from millstream.common import Configuration, JobStatus, Types, WatermarkStrategy  # noqa: E402
from millstream.datastream import MapFunction, StreamExecutionEnvironment  # noqa: E402
from millstream.datastream.connectors.datagen import DataGeneratorSource  # noqa: E402

INTERVAL_MS = 1000


VARIANTS = (("off", 0, False), ("aligned", INTERVAL_MS, False), ("unaligned", INTERVAL_MS, True))


def throughput(args: argparse.Namespace, work: str) -> bool:
    """Word count and window sums: checkpoints off, aligned and unaligned every second, in turn."""
    path = os.path.join(work, "words.txt")
    word_count.make_input(path, args.lines)
    events = windows.load_events()
    n_events = args.events or events.N_EVENTS
    _, expected_windows = windows.dict_floor(events, n_events)
    ok = True
    for name, unit, n in (("word count", "lines", args.lines), ("window sums", "events", n_events)):
        whole: dict[str, list[float]] = {variant: [] for variant, _, _ in VARIANTS}
        data: dict[str, list[float]] = {variant: [] for variant, _, _ in VARIANTS}  # until the last result
        stats: dict[str, Any] = {}
        for _ in range(args.repeat):
            for variant, interval, unaligned in VARIANTS:
                if name == "word count":
                    out = os.path.join(work, "out")
                    shutil.rmtree(out, ignore_errors=True)
                    seconds = word_count.run_millstream(
                        path, out, 2, word_count.lean_pipeline, interval, stats, unaligned
                    )
                else:
                    timings: dict[str, float] = {}
                    seconds, result = windows.run_millstream(
                        events, n_events, 2, interval, timings, unaligned
                    )
                    data[variant].append(timings["last_result"])
                    if result != expected_windows:
                        print(f"  MISMATCH: window sums differ (checkpoints {variant})")
                        ok = False
                whole[variant].append(seconds)
        rates = ", ".join(f"{variant} {n / min(whole[variant]):,.0f}" for variant, _, _ in VARIANTS)
        print(f"{name}, p=2, {unit}/s with checkpoints {rates} (whole job, best run)")
        for variant in ("aligned", "unaligned"):
            print(
                f"    slower, {variant}, whole job: {_slowdown(whole['off'], whole[variant])}"
                "  (target <= +10%)"
            )
            if data["off"]:
                print(
                    f"    slower, {variant}, until the last result: {_slowdown(data['off'], data[variant])}"
                )
        if stats:
            print(
                f"    checkpoints (last run of the word count): {stats.get('numberOfCompletedCheckpoints')} "
                f"completed, {stats.get('numberOfFailedCheckpoints')} failed, last "
                f"{stats.get('lastCheckpointDuration')} ms, {stats.get('lastCheckpointSize')} bytes"
            )
    return ok


def _cancel(client: Any) -> None:
    """Cancel a job and wait until it is gone."""
    client.cancel()
    try:
        client.get_job_execution_result(60)
    except Exception:
        pass  # cancelled, as asked


def _slowdown(off: list[float], on: list[float]) -> str:
    """Median of the per-pair slow-downs, with every pair's."""
    ratios = sorted(a / b for a, b in zip(off, on, strict=True))
    return f"median {1 / statistics.median(ratios) - 1:+.1%} of {[f'{1 / r - 1:+.1%}' for r in ratios]}"


class _Slow(MapFunction):
    def __init__(self, seconds_per_record: float) -> None:
        self.pause = seconds_per_record

    def map(self, value: Any) -> Any:
        if self.pause:
            time.sleep(self.pause)
        return value


def checkpoint_durations(seconds: float, slow: bool, unaligned: bool) -> list[int]:
    """Durations (ms) of the checkpoints completed while a job runs for ``seconds``."""
    conf = Configuration().set_string("minicluster.number-of-taskmanagers", "2")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(200)
    if unaligned:
        env.get_checkpoint_config().enable_unaligned_checkpoints()
    source = DataGeneratorSource(lambda i: i, None, None if slow else 20_000.0, Types.LONG())
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
        .rebalance()
        .map(_Slow(0.0002 if slow else 0.0))
        .add_sink(lambda value: None)
    )
    client = env.execute_async("checkpoints under backpressure")
    durations: dict[int, int] = {}
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            stats = client.get_checkpoint_statistics()
            checkpoint = stats.get("lastCompletedCheckpointId", -1)
            if checkpoint > 0:
                durations[checkpoint] = stats["lastCheckpointDuration"]
            time.sleep(0.05)  # sampling the statistics while the job runs
    finally:
        _cancel(client)
    return list(durations.values())


def backpressure(args: argparse.Namespace) -> None:
    for slow, unaligned in ((False, False), (True, False), (True, True)):
        durations = checkpoint_durations(args.seconds, slow, unaligned)
        label = f"{'unaligned' if unaligned else 'aligned'} checkpoint duration " + (
            "with backpressure   " if slow else "without backpressure"
        )
        if durations:
            print(
                f"{label}: median {statistics.median(durations):.0f} ms, "
                f"max {max(durations)} ms over {len(durations)} checkpoints in {args.seconds:.0f} s"
            )
        else:
            print(f"{label}: no checkpoint completed in {args.seconds:.0f} s")


class _FirstRecord(MapFunction):
    """Writes when each attempt of each subtask processed its first record."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def open(self, runtime_context: Any) -> None:
        attempt = runtime_context.get_attempt_number()
        self.name = f"attempt-{attempt}-subtask-{runtime_context.get_index_of_this_subtask()}"
        self.marked = False

    def map(self, value: Any) -> Any:
        if not self.marked:
            self.marked = True
            # written under a hidden name, then renamed: the reader never sees it half-written
            hidden = Path(self.directory, f".{self.name}")
            hidden.write_text(repr(time.time()))
            hidden.rename(Path(self.directory, self.name))
        return value


def recovery(args: argparse.Namespace, work: str) -> bool:
    """Seconds from a TaskManager kill until every restarted subtask processes records."""
    marks = os.path.join(work, "marks")
    os.makedirs(marks)
    conf = Configuration().set_string("minicluster.number-of-taskmanagers", "2")
    conf.set_string("taskmanager.numberOfTaskSlots", "1")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(INTERVAL_MS)
    source = DataGeneratorSource(lambda i: i, None, 5_000.0, Types.LONG())
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "numbers")
        .map(_FirstRecord(marks))
        .key_by(lambda v: v % 10)
        .reduce(lambda a, b: a + b)
        .add_sink(lambda value: None)
    )
    client = env.execute_async("recovery time")
    try:
        deadline = time.monotonic() + 60
        while client.get_checkpoint_statistics().get("numberOfCompletedCheckpoints", 0) < 1:
            assert time.monotonic() < deadline, "no checkpoint completed"
            time.sleep(0.05)  # polling an observable condition, bounded by the deadline
        victim = client.cluster.task_manager_processes.processes[1]
        killed_at = time.time()
        os.kill(victim.pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while len([m for m in os.listdir(marks) if not m.startswith(("attempt-0-", "."))]) < 2:
            assert client.get_job_status() in (JobStatus.RUNNING, JobStatus.RESTARTING), (
                client.get_job_status()
            )
            assert time.monotonic() < deadline, "the job did not resume within 60 s"
            time.sleep(0.02)  # polling an observable condition, bounded by the deadline
        resumed = [
            float(Path(marks, m).read_text())
            for m in os.listdir(marks)
            if not m.startswith(("attempt-0-", "."))
        ]
        restarts = client.get_checkpoint_statistics().get("numRestarts")
    finally:
        _cancel(client)
    first, last = min(resumed) - killed_at, max(resumed) - killed_at
    print(
        f"recovery after a TaskManager kill: first record after {first:.2f} s, every subtask after "
        f"{last:.2f} s ({restarts} restart)  (target <= 5 s)"
    )
    return last <= 5.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=1_000_000, help="word count input lines")
    parser.add_argument("--events", type=int, default=None, help="window benchmark events (default: all)")
    parser.add_argument("--repeat", type=int, default=3, help="off/on pairs per pipeline")
    parser.add_argument("--seconds", type=float, default=8.0, help="run time of each backpressure job")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="millstream-checkpointing-") as work:
        ok = throughput(args, work)
        backpressure(args)
        recovery(args, work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
