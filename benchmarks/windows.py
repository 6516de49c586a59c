"""Keyed event-time window sums (tumbling, and session windows as Nexmark q11) against
plain-Python floors.

The events are those of ../shared/bench/events.py (1,000,000 events, 100 keys, timestamps
1 ms apart with up to 3 s of out-of-orderness):

* floor: ``for k, v, ts in events: sums[(k, window_start(ts))] += v`` over the same
  generator, in this process;
* millstream: DataGeneratorSource(event) -> assign_timestamps_and_watermarks(bounded
  out-of-orderness 3 s) -> key_by(key) -> TumblingEventTimeWindows(10 s) -> reduce(sum)
  -> collect, on the embedded runtime (TaskManager processes).

Session case (``--case session``; Nexmark q11's shape: each key's activity cut into
sessions by a gap, here 200 ms, so out-of-order events keep many short sessions open per
key and merge them): the same source and watermarks -> key_by(key) ->
EventTimeSessionWindows(200 ms) -> reduce(sum, earliest timestamp); the floor is a plain
loop that collects each key's events, sorts them by time and cuts sessions at the gap.

Every (key, window) sum is checked against the floor. Prints events/second at each
parallelism, the ratio to the floor measured in the same attempt (median over
attempts; floor and pipeline runs alternate because the machine's speed drifts), and
the peak resident memory of the TaskManager processes and of the client.

    python benchmarks/windows.py [--events N] [--parallelism P ...] [--repeat R]
        [--case tumbling session]
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
from millstream.datastream.window import EventTimeSessionWindows, TumblingEventTimeWindows

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


SESSION_GAP_MS = 200


def session_floor(events: Any, n: int) -> tuple[float, dict[tuple[str, int], int]]:
    """Seconds and result of the plain loop: each key's (timestamp, value) pairs sorted by
    time, a new session where the next event is ``SESSION_GAP_MS`` or more after the last;
    the result is keyed by (key, the session's first timestamp)."""
    gap = SESSION_GAP_MS
    started = time.perf_counter()
    per_key: dict[str, list[tuple[int, int]]] = {}
    for k, v, ts in events.gen(0, n):
        bucket = per_key.get(k)
        if bucket is None:
            per_key[k] = bucket = []
        bucket.append((ts, v))
    sums: dict[tuple[str, int], int] = {}
    for k, bucket in per_key.items():
        bucket.sort()
        start, last, total = bucket[0][0], bucket[0][0], 0
        for ts, v in bucket:
            if ts - last > gap:  # touching sessions merge (Flink: TimeWindow.intersects)
                sums[(k, start)] = total
                start, total = ts, 0
            total += v
            last = ts
        sums[(k, start)] = total
    return time.perf_counter() - started, sums


def _earliest(a: Any, b: Any) -> Any:
    return (a[0], a[1] + b[1], min(a[2], b[2]))


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
    session: bool = False,
) -> tuple[float, dict[tuple[str, int], int]]:
    """Seconds and window sums of one run (``checkpoint_ms`` > 0: with checkpoints that often;
    ``timings["last_result"]``: seconds until the last window sum arrived; ``backend``:
    state.backend.type; ``session``: session windows, keyed by their first timestamp)."""
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
    keyed = (
        env.from_source(source, WatermarkStrategy.no_watermarks(), "events")
        .assign_timestamps_and_watermarks(strategy)
        .key_by(_key)
    )
    if session:
        sums = keyed.window(EventTimeSessionWindows.with_gap(Time.milliseconds(SESSION_GAP_MS))).reduce(
            _earliest
        )
    else:
        sums = keyed.window(TumblingEventTimeWindows.of(Time.milliseconds(events.WINDOW_MS))).reduce(_add)
    size = 1 if session else events.WINDOW_MS
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


def _measure(events: Any, n: int, args: argparse.Namespace, case: str) -> bool:
    session = case == "session"
    floor = session_floor if session else dict_floor
    _, expected = floor(events, n)
    what = f"sessions (gap {SESSION_GAP_MS} ms)" if session else "(key, window) sums"
    print(f"\n== {case}: {n:,} events, {events.N_KEYS} keys, {len(expected):,} {what}")
    ok = True
    runs: dict[int, list[tuple[float, float]]] = {p: [] for p in args.parallelism}
    for _ in range(args.repeat):
        for p in args.parallelism:
            floor_s, _ = floor(events, n)
            seconds, result = run_millstream(events, n, p, session=session)
            if result != expected:
                missing = len(set(expected) - set(result))
                wrong = sum(1 for w in expected if w in result and result[w] != expected[w])
                print(f"  MISMATCH at parallelism {p}: {missing} windows missing, {wrong} wrong sums")
                ok = False
            runs[p].append((floor_s, seconds))
    first = args.parallelism[0]
    target = "(target within 3x of the loop: >= 0.33)" if session else "(target >= 0.3 at p=1)"
    for p in args.parallelism:
        best = min(s for _, s in runs[p])
        floor_best = min(f for f, _ in runs[p])
        ratios = sorted(f / s for f, s in runs[p])
        print(
            f"millstream {case} window sum p={p}  {n / best:>10,.0f} events/s (best {best:.2f} s)  "
            f"floor {n / floor_best:>10,.0f} events/s (best {floor_best:.2f} s)\n"
            f"    ratio to floor: median {_median(ratios):.3f} of {[round(r, 3) for r in ratios]}"
            + (f"  {target}" if p == 1 else "")
        )
        if p != first:
            speedups = sorted(a[1] / b[1] for a, b in zip(runs[first], runs[p], strict=True))
            print(
                f"    speed-up over p={first}: median {_median(speedups):.2f}x of "
                f"{[round(x, 2) for x in speedups]}"
            )
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=None, help="default: all events of events.py")
    parser.add_argument("--parallelism", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3, help="floor/pipeline pairs per parallelism")
    parser.add_argument("--case", nargs="+", choices=["tumbling", "session"], default=["tumbling", "session"])
    args = parser.parse_args(argv)
    events = load_events()
    n = args.events or events.N_EVENTS
    ok = True
    for case in args.case:
        ok &= _measure(events, n, args, case)
    print(
        f"peak memory: TaskManager processes {_rss_mib(resource.RUSAGE_CHILDREN):.0f} MiB (largest), "
        f"client {_rss_mib(resource.RUSAGE_SELF):.0f} MiB"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
