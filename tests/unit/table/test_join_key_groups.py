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


def _harness(
    join_type: str, appended: tuple[bool, bool] = (False, False)
) -> tuple[OperatorHarness, JoinFunction]:
    # left (k, t), right (k, t, v): joined when the right row's t is not before the left's
    function = JoinFunction(join_type, 2, 3, lambda row: row[3] >= row[1])
    function.appended = appended  # an input that inserts only keeps its rows in a list
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([(LEFT, "+I", (0, 0))]).key_by(lambda e: (e[2][0],)).process(function)
    return OperatorHarness.of(stream), function


def _changes(seed: int, inserts_only: bool = False) -> list[tuple[int, str, tuple[Any, ...]]]:
    rng = random.Random(seed)
    out: list[tuple[int, str, tuple[Any, ...]]] = []
    held: list[tuple[int, str, tuple[Any, ...]]] = []
    for _ in range(300):
        side = rng.choice((LEFT, RIGHT))
        if held and not inserts_only and rng.random() < 0.15:  # a row taken out again
            s, _, row = held.pop(rng.randrange(len(held)))
            out.append((s, "-D", row))
            continue
        k, t = rng.randrange(6), rng.randrange(5)
        row = (k, t) if side == LEFT else (k, t, rng.randrange(3))  # duplicates on purpose
        out.append((side, "+I", row))
        held.append((side, "+I", row))
    return out


@pytest.mark.parametrize(
    ("join_type", "appended"),
    [
        ("INNER", (False, False)),
        ("LEFT", (False, False)),
        ("RIGHT", (False, False)),
        ("FULL", (False, False)),
        ("INNER", (True, True)),  # both inputs insert only
        ("INNER", (True, False)),
    ],
)
@pytest.mark.parametrize("batch", [1, 7, 50])
def test_batches_give_what_one_element_after_the_other_gives(
    join_type: str, appended: tuple[bool, bool], batch: int
) -> None:
    changes = _changes(seed=batch, inserts_only=appended[0])
    reference, _ = _harness(join_type)  # map state, one element after the other
    for change in changes:
        reference.process_element(change)
    want = reference.values()
    one, _ = _harness(join_type, appended)
    for change in changes:
        one.process_element(change)
    # a list keeps duplicates where they came, a map counts them: the same changes, in the
    # order each layout holds the rows (Flink's order of a key's held rows is its state's too)
    assert Counter(one.values()) == Counter(want)
    grouped, _ = _harness(join_type, appended)
    for start in range(0, len(changes), batch):
        grouped.process_elements([(c, 0) for c in changes[start : start + batch]])
    # the same changes; within a batch each key's in order (keys may interleave differently)
    got = grouped.values()
    assert Counter(got) == Counter(want)
    if appended == (False, False):
        for key in range(6):
            assert [v for v in got if v[1][0] == key] == [v for v in want if v[1][0] == key]
    assert any(len(v[1]) == 5 and None not in v[1] for v in want)  # the cases join something
    for harness in (reference, one, grouped):
        harness.close()


class _CountingState:
    def __init__(self, state: Any) -> None:
        self.state, self.reads = state, 0

    def items(self) -> Any:
        self.reads += 1
        return self.state.items()

    def get(self, *key: Any) -> Any:
        self.reads += not key  # a list state's get() reads every row
        return self.state.get(*key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.state, name)


@pytest.mark.parametrize("appended", [(False, False), (True, True)])
def test_inserted_rows_of_one_side_read_the_other_side_once_per_key_and_batch(
    appended: tuple[bool, bool],
) -> None:
    h, function = _harness("INNER", appended)
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
