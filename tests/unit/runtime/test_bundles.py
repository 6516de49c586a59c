"""Bundles: batches cut by python.fn-execution.bundle.size / .time, sized by measured cost.

A fake clock advances by a per-record cost while the wrapped ``process_batch`` runs, so
the sizes the splitter learns are exact.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from millstream.runtime.taskmanager.bundles import Bundles


class FakeTime:
    """A clock that moves only when records are processed (``cost`` seconds each)."""

    def __init__(self, cost: float) -> None:
        self.now = 0.0
        self.cost = cost

    def __call__(self) -> float:
        return self.now


class Recorder:
    """The wrapped chain entry: records every bundle and every flush between bundles."""

    def __init__(self, clock: FakeTime) -> None:
        self.clock = clock
        self.calls: list[tuple[list[Any], list[int] | None]] = []
        self.events: list[str] = []

    def process(self, values: list[Any], timestamps: list[int] | None) -> None:
        self.calls.append((values, timestamps))
        self.events.append(f"bundle {len(values)}")
        self.clock.now += self.clock.cost * len(values)

    def flush(self) -> None:
        self.events.append("flush")


def splitter(cost: float, size: int = 1000, time_ms: int = 1000, buffer_timeout: int = 100):  # type: ignore[no-untyped-def]
    clock = FakeTime(cost)
    recorder = Recorder(clock)
    bundles = Bundles(size, time_ms, buffer_timeout, recorder.flush, clock=clock)
    return bundles.wrap(recorder.process), recorder


def test_bundle_size_one_hands_over_every_record_alone() -> None:
    split, rec = splitter(cost=1e-6, size=1)
    split(["a", "b", "c"], [1, 2, 3])
    assert rec.calls == [(["a"], [1]), (["b"], [2]), (["c"], [3])]


def test_cheap_records_grow_to_whole_batches_of_at_most_bundle_size() -> None:
    split, rec = splitter(cost=1e-7, size=1000)
    for _ in range(20):
        split(list(range(600)), None)
    # the first batch ramps up 1, 2, 4, ...; later batches go through whole, as the same list
    assert [len(v) for v, _ in rec.calls[:4]] == [1, 2, 4, 8]
    batch = list(range(600))
    split(batch, None)
    assert rec.calls[-1][0] is batch
    split(list(range(2500)), None)
    assert [len(v) for v, _ in rec.calls[-3:]] == [1000, 1000, 500]


def test_slow_records_get_bundles_of_half_the_budget_and_a_flush_after_each() -> None:
    # 10 ms per record, budget min(1000, 100) ms: a bundle takes 12.5 to 50 ms (doubling
    # stops once a bundle takes a quarter of the budget)
    split, rec = splitter(cost=0.010, size=1000)
    for _ in range(5):
        split(list(range(100)), None)
    sizes = [len(v) for v, _ in rec.calls]
    assert sum(sizes) == 500
    assert all(2 <= n <= 5 for n in sizes[-10:]), sizes
    # between the bundles of a batch the outputs are flushed; the last bundle is the task's
    assert rec.events[-3:] == [f"bundle {sizes[-2]}", "flush", f"bundle {sizes[-1]}"]


def test_a_record_slower_than_the_budget_shrinks_bundles_to_one() -> None:
    split, rec = splitter(cost=0.3, size=1000, buffer_timeout=-1)  # budget: bundle.time 1 s
    split(list(range(6)), list(range(6)))
    assert [len(v) for v, _ in rec.calls] == [1, 1, 1, 1, 1, 1]
    assert rec.events.count("flush") == 5


def test_budget_is_the_bundle_time_when_it_is_below_the_buffer_timeout() -> None:
    split, rec = splitter(cost=0.001, size=1000, time_ms=20, buffer_timeout=100)
    for _ in range(10):
        split(list(range(200)), None)
    assert max(len(v) for v, _ in rec.calls[-5:]) <= 10  # 10 ms = half of 20 ms


def test_a_fast_bundle_flushes_only_when_the_buffer_timeout_passed() -> None:
    split, rec = splitter(cost=1e-5, size=100, buffer_timeout=100)
    split(list(range(2000)), None)  # ramp, then bundles of 100 records taking 1 ms each
    rec.events.clear()
    split(list(range(2000)), None)  # 20 ms in all: the timeout does not pass
    assert "flush" not in rec.events


@given(
    batches=st.lists(st.integers(0, 300), min_size=1, max_size=12),
    cost=st.sampled_from([0.0, 1e-7, 1e-4, 0.02, 0.5]),
    size=st.integers(1, 64),
)
def test_bundles_are_the_batch_in_order_and_never_larger_than_bundle_size(
    batches: list[int], cost: float, size: int
) -> None:
    split, rec = splitter(cost=cost, size=size)
    expected_values: list[int] = []
    expected_ts: list[int] = []
    for n in batches:
        values = list(range(len(expected_values), len(expected_values) + n))
        split(values, [v * 10 for v in values])
        expected_values += values
        expected_ts += [v * 10 for v in values]
    assert [v for values, _ in rec.calls for v in values] == expected_values
    assert [t for _, ts in rec.calls for t in (ts or [])] == expected_ts
    assert all(1 <= len(values) <= size for values, _ in rec.calls if values) or not expected_values


def test_a_vectorized_chain_starts_at_whole_bundles_and_still_shrinks_when_slow() -> None:
    clock = FakeTime(1e-7)
    rec = Recorder(clock)
    split = Bundles(1000, 1000, 100, rec.flush, clock=clock, vectorized=True).wrap(rec.process)
    split(list(range(2500)), None)
    assert [len(values) for values, _ in rec.calls] == [1000, 1000, 500]
    clock.cost = 1e-3  # a slow vectorized function: 1000 records take 1 s, the budget is 50 ms
    split(list(range(1100)), None)
    sizes = [len(values) for values, _ in rec.calls[3:]]
    assert sizes[0] == 1000 and sum(sizes[1:]) == 100 and max(sizes[1:]) <= 50
