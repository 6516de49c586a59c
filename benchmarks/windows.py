"""Keyed tumbling event-time window sum against a plain-Python dict floor.

The events are those of ../shared/bench/events.py (1,000,000 events, 100 keys, timestamps
1 ms apart with up to 3 s of out-of-orderness):

* floor: ``for k, v, ts in events: sums[(k, window_start(ts))] += v`` over the same
  generator, in this process;
* millstream: DataGeneratorSource(event) -> assign_timestamps_and_watermarks(bounded
  out-of-orderness 3 s) -> key_by(key) -> TumblingEventTimeWindows(10 s) -> reduce(sum)
  -> collect, on the embedded runtime (TaskManager processes).

Every (key, window) sum is checked against the floor. Prints events/second at each
parallelism, the ratio to the floor measured in the same attempt (median over
attempts; floor and pipeline runs alternate because the machine's speed drifts), and
the peak resident memory of the TaskManager processes and of the client.

    python benchmarks/windows.py [--events N] [--parallelism P ...] [--repeat R]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import sys
import time
from typing import Any

from millstream.common import Configuration, Duration, Time, WatermarkStrategy
from millstream.datastream import StreamExecutionEnvironment
from millstream.datastream.connectors.datagen import DataGeneratorSource
from millstream.datastream.window import TumblingEventTimeWindows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVENTS_PY = os.path.join(ROOT, "..", "shared", "bench", "events.py")


def load_events() -> Any:
    """The shared event generator (or an identical copy when ../shared is absent)."""
    if os.path.exists(EVENTS_PY):
        spec = importlib.util.spec_from_file_location("bench_events", EVENTS_PY)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import bench_events

    return bench_events


def dict_floor(events: Any, n: int) -> tuple[float, dict[tuple[str, int], int]]:
    """Seconds and result of the plain-dict computation."""
    size = events.WINDOW_MS
    started = time.perf_counter()
    sums: dict[tuple[str, int], int] = {}
    get = sums.get
    for k, v, ts in events.gen(0, n):
        w = (k, ts - ts % size)
        sums[w] = get(w, 0) + v
    return time.perf_counter() - started, sums


def _key(event: Any) -> Any:
    return event[0]


def _timestamp(event: Any, record_timestamp: int) -> int:
    return event[2]  # type: ignore[no-any-return]


def _add(a: Any, b: Any) -> Any:
    return (a[0], a[1] + b[1], a[2])


def _window_start(value: Any) -> Any:
    return value


def run_millstream(
    events: Any,
    n: int,
    parallelism: int,
    checkpoint_ms: int = 0,
    timings: dict[str, float] | None = None,
    unaligned: bool = False,
    backend: str = "hashmap",
) -> tuple[float, dict[tuple[str, int], int]]:
    """Seconds and window sums of one run (``checkpoint_ms`` > 0: with checkpoints that often;
    ``timings["last_result"]``: seconds until the last window sum arrived; ``backend``:
    state.backend.type)."""
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string("state.backend.type", backend)
    )
    env.set_parallelism(parallelism)
    if checkpoint_ms:
        env.enable_checkpointing(checkpoint_ms)
        if unaligned:
            env.get_checkpoint_config().enable_unaligned_checkpoints()
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(events.MAX_LAG_MS)
    ).with_timestamp_assigner(_timestamp)
    source = DataGeneratorSource(events.event, n)
    sums = (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "events")
        .assign_timestamps_and_watermarks(strategy)
        .key_by(_key)
        .window(TumblingEventTimeWindows.of(Time.milliseconds(events.WINDOW_MS)))
        .reduce(_add)
    )
    size = events.WINDOW_MS
    started = time.perf_counter()
    result: dict[tuple[str, int], int] = {}
    last = started
    clock = time.perf_counter if timings is not None else None
    with sums.execute_and_collect("windows benchmark") as results:
        for k, total, ts in results:
            result[(k, ts - ts % size)] = total
            if clock is not None:
                last = clock()
    if timings is not None:
        timings["last_result"] = last - started
    return time.perf_counter() - started, result


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def _rss_mib(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=None, help="default: all events of events.py")
    parser.add_argument("--parallelism", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3, help="floor/pipeline pairs per parallelism")
    args = parser.parse_args(argv)
    events = load_events()
    n = args.events or events.N_EVENTS
    _, expected = dict_floor(events, n)
    print(f"input: {n:,} events, {events.N_KEYS} keys, {len(expected):,} (key, window) sums")
    ok = True
    runs: dict[int, list[tuple[float, float]]] = {p: [] for p in args.parallelism}
    for _ in range(args.repeat):
        for p in args.parallelism:
            floor_s, _ = dict_floor(events, n)
            seconds, result = run_millstream(events, n, p)
            if result != expected:
                missing = len(set(expected) - set(result))
                wrong = sum(1 for w in expected if w in result and result[w] != expected[w])
                print(f"  MISMATCH at parallelism {p}: {missing} windows missing, {wrong} wrong sums")
                ok = False
            runs[p].append((floor_s, seconds))
    first = args.parallelism[0]
    for p in args.parallelism:
        best = min(s for _, s in runs[p])
        floor_best = min(f for f, _ in runs[p])
        ratios = sorted(f / s for f, s in runs[p])
        print(
            f"millstream window sum p={p}  {n / best:>10,.0f} events/s (best {best:.2f} s)  "
            f"floor {n / floor_best:>10,.0f} events/s (best {floor_best:.2f} s)\n"
            f"    ratio to floor: median {_median(ratios):.3f} of {[round(r, 3) for r in ratios]}"
            + ("  (target >= 0.3 at p=1)" if p == 1 else "")
        )
        if p != first:
            speedups = sorted(a[1] / b[1] for a, b in zip(runs[first], runs[p], strict=True))
            print(
                f"    speed-up over p={first}: median {_median(speedups):.2f}x of "
                f"{[round(x, 2) for x in speedups]}"
            )
    print(
        f"peak memory: TaskManager processes {_rss_mib(resource.RUSAGE_CHILDREN):.0f} MiB (largest), "
        f"client {_rss_mib(resource.RUSAGE_SELF):.0f} MiB"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
