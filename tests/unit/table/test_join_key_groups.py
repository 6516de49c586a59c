"""The regular join takes each arriving batch a key at a time: its output is what one element
after the other gives, and rows inserted into one side of an inner join read the other side's
state once per key and batch."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from millstream.datastream import StreamExecutionEnvironment
from millstream.table.runtime.join import LEFT, RIGHT, JoinFunction
from millstream.testing.operator_harness import OperatorHarness


def _harness(join_type: str) -> tuple[OperatorHarness, JoinFunction]:
    # left (k, t), right (k, t, v): joined when the right row's t is not before the left's
    function = JoinFunction(join_type, 2, 3, lambda row: row[3] >= row[1])
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([(LEFT, "+I", (0, 0))]).key_by(lambda e: (e[2][0],)).process(function)
    return OperatorHarness.of(stream), function


def _changes(seed: int) -> list[tuple[int, str, tuple[Any, ...]]]:
    rng = random.Random(seed)
    out: list[tuple[int, str, tuple[Any, ...]]] = []
    held: list[tuple[int, str, tuple[Any, ...]]] = []
    for _ in range(300):
        side = rng.choice((LEFT, RIGHT))
        if held and rng.random() < 0.15:  # a row taken out again
            s, _, row = held.pop(rng.randrange(len(held)))
            out.append((s, "-D", row))
            continue
        k, t = rng.randrange(6), rng.randrange(5)
        row = (k, t) if side == LEFT else (k, t, rng.randrange(3))  # duplicates on purpose
        out.append((side, "+I", row))
        held.append((side, "+I", row))
    return out


@pytest.mark.parametrize("join_type", ["INNER", "LEFT", "RIGHT", "FULL"])
@pytest.mark.parametrize("batch", [1, 7, 50])
def test_batches_give_what_one_element_after_the_other_gives(join_type: str, batch: int) -> None:
    changes = _changes(seed=batch)
    one, _ = _harness(join_type)
    for change in changes:
        one.process_element(change)
    grouped, _ = _harness(join_type)
    for start in range(0, len(changes), batch):
        grouped.process_elements([(c, 0) for c in changes[start : start + batch]])
    # the same changes; within a batch each key's in order (keys may interleave differently)
    got, want = grouped.values(), one.values()
    assert Counter(got) == Counter(want)
    for key in range(6):
        assert [v for v in got if v[1][0] == key] == [v for v in want if v[1][0] == key]
    assert any(v[1][1] is not None and len(v[1]) == 5 and v[1][4] is not None for v in want)  # joins
    one.close()
    grouped.close()


class _CountingState:
    def __init__(self, state: Any) -> None:
        self.state, self.reads = state, 0

    def items(self) -> Any:
        self.reads += 1
        return self.state.items()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.state, name)


def test_inserted_rows_of_one_side_read_the_other_side_once_per_key_and_batch() -> None:
    h, function = _harness("INNER")
    h.process_element((LEFT, "+I", (1, 0)))
    h.process_element((LEFT, "+I", (2, 0)))
    h.values()
    right = _CountingState(function.sides[LEFT])
    function.sides = (right, function.sides[RIGHT])
    bids = [(RIGHT, "+I", (1 + i % 2, i, i)) for i in range(40)]
    h.process_elements([(b, 0) for b in bids])
    assert right.reads == 2  # keys 1 and 2, once each
    assert len(h.values()) == 40
    h.close()
