"""State backends: memory and speed of RocksDB next to the heap, full vs incremental checkpoints.

1. Value state of many keys (default 10,000,000): DataGeneratorSource(i) -> key_by(i) ->
   KeyedProcessFunction reading and updating a ValueState[LONG] -> discarding sink, at
   parallelism 1 on a TaskManager process, on RocksDB and on the heap. Reports the
   throughput and the TaskManager process's peak RSS (sampled), and checks RocksDB's
   against ``--rss-bound-mib``: RocksDB's memory is its block cache and write buffers
   (``state.backend.rocksdb.memory.fixed-per-slot``, 128 MiB), not the number of keys.
2. The window benchmark of ``windows.py`` (tumbling event-time window sums) on the heap and
   on RocksDB, alternating, every sum checked against the plain-dict floor: events/s and
   the RocksDB/heap ratio measured in the same run.
3. Checkpoints on RocksDB, full vs incremental: a job whose state is large (``--ckpt-keys``
   keys of 100-byte strings) and whose later updates touch few keys (a hot 1%), checkpoints
   every second: per checkpoint its duration, the bytes it wrote (Flink's checkpointed
   size: incremental = the state file and the new SST files only) and the full size.

    python benchmarks/state.py [--keys N] [--rss-bound-mib M] [--events N] [--repeat R]
                               [--ckpt-keys N] [--ckpt-events N] [--parts 1 2 3]

Exit status 1 if a result is wrong or RocksDB's peak RSS exceeds the bound.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from typing import Any

import psutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import windows  # noqa: E402

from millstream.common import Configuration, Types, WatermarkStrategy  # noqa: E402
from millstream.datastream import (  # noqa: E402
    KeyedProcessFunction,
    SinkFunction,
    StreamExecutionEnvironment,
)
from millstream.datastream.connectors.datagen import DataGeneratorSource  # noqa: E402
from millstream.datastream.state import ValueStateDescriptor  # noqa: E402

MIB = 1 << 20


class _Count(KeyedProcessFunction):
    """Reads and updates one ValueState per key (a count)."""

    def open(self, runtime_context: Any) -> None:
        self.state = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))

    def process_element(self, value: Any, ctx: Any) -> None:
        state = self.state
        state.update((state.value() or 0) + 1)


class _Payload(KeyedProcessFunction):
    """Keeps a 100-byte string per key, rewritten on every event of the key."""

    def open(self, runtime_context: Any) -> None:
        self.state = runtime_context.get_state(ValueStateDescriptor("payload", Types.STRING()))

    def process_element(self, value: Any, ctx: Any) -> None:
        self.state.update(f"{value:>020}" * 5)


class _Discard(SinkFunction):
    def invoke(self, value: Any, context: Any) -> None:
        pass


class _PeakRss:
    """Samples the RSS of this process's children (the TaskManager processes) until stopped."""

    def __init__(self, interval_s: float = 0.2) -> None:
        self.peak = 0
        self._interval = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> _PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(self._interval):
            for child in me.children(recursive=True):
                try:
                    self.peak = max(self.peak, child.memory_info().rss)
                except psutil.Error:
                    continue  # ended meanwhile


def _key(value: Any) -> Any:
    return value


def _identity(i: int) -> int:
    return i


def value_state(keys: int, backend: str) -> tuple[float, int]:
    """Seconds and the peak TaskManager RSS (bytes) of one run over ``keys`` keys."""
    conf = Configuration().set_string("state.backend.type", backend)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    source = DataGeneratorSource(_identity, keys, None, Types.LONG())
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "keys")
        .key_by(_key, Types.LONG())
        .process(_Count(), Types.LONG())
        .add_sink(_Discard())
    )
    with _PeakRss() as rss:
        started = time.perf_counter()
        env.execute(f"{keys:,} keys of value state on {backend}")
        seconds = time.perf_counter() - started
    return seconds, rss.peak


def part_value_state(args: argparse.Namespace) -> bool:
    print(f"1. value state of {args.keys:,} keys (parallelism 1, one TaskManager process)")
    ok = True
    for backend in ("rocksdb", "hashmap"):
        seconds, peak = value_state(args.keys, backend)
        within = ""
        if backend == "rocksdb":
            held = peak <= args.rss_bound_mib * MIB
            ok &= held
            within = f"  (bound {args.rss_bound_mib} MiB: {'held' if held else 'EXCEEDED'})"
        print(
            f"   {backend:<8} {args.keys / seconds:>10,.0f} keys/s ({seconds:.1f} s)  "
            f"TaskManager peak RSS {peak / MIB:,.0f} MiB{within}"
        )
    return ok


def part_windows(args: argparse.Namespace) -> bool:
    events = windows.load_events()
    n = args.events or events.N_EVENTS
    _, expected = windows.dict_floor(events, n)
    print(f"2. window sums ({n:,} events, {len(expected):,} windows), parallelism 1, heap vs RocksDB")
    ok = True
    times: dict[str, list[float]] = {"hashmap": [], "rocksdb": []}
    for _ in range(args.repeat):
        for backend in times:
            seconds, result = windows.run_millstream(events, n, 1, backend=backend)
            if result != expected:
                print(f"   MISMATCH on {backend}")
                ok = False
            times[backend].append(seconds)
    for backend, runs in times.items():
        print(f"   {backend:<8} {n / min(runs):>10,.0f} events/s (best {min(runs):.2f} s of {len(runs)})")
    ratios = sorted(h / r for h, r in zip(times["hashmap"], times["rocksdb"], strict=True))
    listed = [round(r, 2) for r in ratios]
    print(f"   RocksDB / heap throughput: median {statistics.median(ratios):.2f} of {listed}")
    return ok


def _hot(keys: int) -> Any:
    hot = max(1, keys // 100)

    def event(i: int) -> int:
        return i if i < keys else (i * 7919) % hot  # every key once, then a hot 1% of them

    return event


def checkpoints(
    keys: int, events: int, incremental: bool, work: str
) -> tuple[float, list[tuple[int, int, int, int]]]:
    """The job's seconds and ``(id, duration ms, checkpointed bytes, full bytes)`` of every
    completed checkpoint."""
    conf = (
        Configuration()
        .set_string("state.backend.type", "rocksdb")
        .set_string("state.backend.incremental", str(incremental).lower())
        .set_string("execution.checkpointing.dir", os.path.join(work, f"incremental-{incremental}"))
    )
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.enable_checkpointing(1000)
    source = DataGeneratorSource(_hot(keys), events, None, Types.LONG())
    (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "updates")
        .key_by(_key, Types.LONG())
        .process(_Payload(), Types.LONG())
        .add_sink(_Discard())
    )
    started = time.perf_counter()
    client = env.execute_async(f"checkpoints, incremental={incremental}")
    seen: dict[int, tuple[int, int, int, int]] = {}
    while True:
        stats = client.get_checkpoint_statistics()
        latest = stats.get("lastCompletedCheckpointId", -1)
        if latest > 0 and latest not in seen:
            seen[latest] = (
                latest,
                stats["lastCheckpointDuration"],
                stats["lastCheckpointSize"],
                stats["lastCheckpointFullSize"],
            )
        if client.get_job_status().is_globally_terminal_state():
            break
        time.sleep(0.05)  # polling the statistics (a checkpoint completes about every second)
    client.get_job_execution_result(60)
    return time.perf_counter() - started, [seen[i] for i in sorted(seen)]


def part_checkpoints(args: argparse.Namespace) -> bool:
    print(
        f"3. RocksDB checkpoints every second, full vs incremental: {args.ckpt_keys:,} keys of 100-byte "
        f"strings, then {args.ckpt_events - args.ckpt_keys:,} updates of a hot 1% of them"
    )
    figures: dict[bool, list[tuple[int, int, int, int]]] = {}
    with tempfile.TemporaryDirectory(prefix="millstream-state-bench-") as work:
        for incremental in (False, True):
            seconds, runs = checkpoints(args.ckpt_keys, args.ckpt_events, incremental, work)
            figures[incremental] = runs
            name = "incremental" if incremental else "full"
            if not runs:
                print(f"   {name}: no checkpoint completed (a longer job: --ckpt-events)")
                return False
            durations, written = [r[1] for r in runs], [r[2] / MIB for r in runs]
            print(
                f"   {name:<11} job {seconds:.1f} s, {len(runs)} checkpoints: "
                f"duration median {statistics.median(durations):,.0f} ms"
                f" (max {max(durations):,} ms); written median {statistics.median(written):,.1f} MiB,"
                f" total {sum(written):,.1f} MiB; full size of the last {runs[-1][3] / MIB:,.1f} MiB"
            )
            print(
                "      per checkpoint (ms, MiB written): "
                + ", ".join(f"{r[1]}/{r[2] / MIB:.1f}" for r in runs[:20])
                + (" ..." if len(runs) > 20 else "")
            )
    full, inc = figures[False], figures[True]
    ratio = statistics.median(r[2] for r in full) / max(1, statistics.median(r[2] for r in inc))
    speed = statistics.median(r[1] for r in full) / max(1, statistics.median(r[1] for r in inc))
    print(
        f"   full / incremental: {ratio:.1f}x the bytes written per checkpoint, "
        f"{speed:.1f}x the duration (medians)"
    )
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keys", type=int, default=10_000_000, help="keys of the value-state run")
    parser.add_argument("--rss-bound-mib", type=int, default=512, help="RocksDB TaskManager peak RSS bound")
    parser.add_argument("--events", type=int, default=None, help="window benchmark events (default: all)")
    parser.add_argument("--repeat", type=int, default=3, help="heap/RocksDB window run pairs")
    parser.add_argument("--ckpt-keys", type=int, default=500_000, help="keys of the checkpoint job")
    parser.add_argument("--ckpt-events", type=int, default=2_000_000, help="events of the checkpoint job")
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3], choices=[1, 2, 3])
    args = parser.parse_args(argv)
    ok = True
    if 1 in args.parts:
        ok &= part_value_state(args)
    if 2 in args.parts:
        ok &= part_windows(args)
    if 3 in args.parts:
        ok &= part_checkpoints(args)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
