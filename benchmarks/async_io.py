"""Async I/O: many slow calls in flight at once, against the same calls one after the other.

A job of ``--elements`` numbers (default 10,000) whose ``AsyncFunction.async_invoke`` awaits
``asyncio.sleep(--sleep-ms / 1000)`` (default 50 ms, a remote call's latency) before it
returns its element, with ``--capacity`` calls in flight (default 100), on one TaskManager
process, in unordered and ordered mode; every result is checked. Reported per mode: the whole
job's time (start-up included), its ratio to the floor (``elements / capacity * sleep``: the
calls' time when exactly ``capacity`` run at every moment), and its speed-up over the serial
time: the same function awaited one element at a time, measured in the same run on
``--serial-sample`` elements and extrapolated to all of them (awaiting 10,000 of them would
take 500 s).

    python benchmarks/async_io.py [--elements N] [--sleep-ms MS] [--capacity C]
                                  [--serial-sample S] [--repeat R]

Exit status 1 if a result is missing or wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import Any

from millstream.common import Time, Types
from millstream.datastream import AsyncDataStream, AsyncFunction, StreamExecutionEnvironment


class RemoteCall(AsyncFunction):
    """Stands for a call to an external service: ``sleep_ms`` of waiting, then the answer."""

    def __init__(self, sleep_ms: float) -> None:
        self.sleep_s = sleep_ms / 1000

    async def async_invoke(self, value: Any) -> list[Any]:
        await asyncio.sleep(self.sleep_s)
        return [value]


def run_job(elements: int, sleep_ms: float, capacity: int, ordered: bool) -> tuple[float, bool]:
    """(seconds of the whole job, whether every element came back once, in order if ordered)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    ds = env.from_collection(list(range(elements)), type_info=Types.LONG())
    wait = AsyncDataStream.ordered_wait if ordered else AsyncDataStream.unordered_wait
    out = wait(ds, RemoteCall(sleep_ms), Time.seconds(60), capacity, Types.LONG())
    started = time.perf_counter()
    with out.execute_and_collect("async I/O benchmark") as results:
        got = list(results)
    seconds = time.perf_counter() - started
    correct = got == list(range(elements)) if ordered else sorted(got) == list(range(elements))
    return seconds, correct


def serial_seconds(sample: int, sleep_ms: float) -> float:
    """The same function awaited one element at a time over ``sample`` elements."""
    function = RemoteCall(sleep_ms)

    async def one_after_the_other() -> None:
        for value in range(sample):
            await function.async_invoke(value)

    started = time.perf_counter()
    asyncio.run(one_after_the_other())
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--elements", type=int, default=10_000, help="elements of the job")
    parser.add_argument("--sleep-ms", type=float, default=50.0, help="what each call awaits")
    parser.add_argument("--capacity", type=int, default=100, help="calls in flight at most")
    parser.add_argument("--serial-sample", type=int, default=40, help="elements timed one at a time")
    parser.add_argument("--repeat", type=int, default=1, help="runs per mode (the best is reported)")
    args = parser.parse_args(argv)

    n, capacity, sleep_ms = args.elements, args.capacity, args.sleep_ms
    sample = min(args.serial_sample, n)
    per_call = serial_seconds(sample, sleep_ms) / sample
    serial = per_call * n
    floor = n / capacity * sleep_ms / 1000
    print(f"== async I/O: {n} elements, each call awaits {sleep_ms:g} ms, capacity {capacity}")
    print(
        f"serial (awaited one at a time): {serial:.1f} s for {n} elements, measured on {sample} "
        f"elements ({per_call * 1000:.1f} ms each) and extrapolated"
    )
    print(f"floor ({capacity} calls in flight at every moment): {floor:.2f} s")
    ok = True
    for ordered in (False, True):
        mode = "ordered" if ordered else "unordered"
        runs = [run_job(n, sleep_ms, capacity, ordered) for _ in range(args.repeat)]
        if not all(correct for _, correct in runs):
            print(f"  MISMATCH: {mode} results are not every element once{' in order' if ordered else ''}")
            ok = False
        best = min(seconds for seconds, _ in runs)
        print(
            f"millstream {mode}_wait: {best:.2f} s (whole job, best of {args.repeat}), "
            f"{n / best:,.0f} elements/s, ratio to floor {best / floor:.2f}, "
            f"speed-up over serial {serial / best:,.0f}x"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
