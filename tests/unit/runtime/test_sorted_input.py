"""BATCH sorted keyed input: order, spilling to disk, one key at a time, the final watermark."""

from __future__ import annotations

import os

import pytest

from millstream.runtime.location import TaskLocation, UserFunctionError
from millstream.runtime.operators.elements import MAX_TIMESTAMP
from millstream.runtime.taskmanager.input_processor import InputHandler
from millstream.runtime.taskmanager.sorted_input import SortedKeyedInput


class Recorder:
    """Stands in for a keyed head operator: records batches, key ends and watermarks."""

    name = "Recorder"

    def __init__(self) -> None:
        self.events: list[tuple] = []
        self.context = type("Ctx", (), {"location": TaskLocation("job", "Recorder", 0, 1)})()

    def handler(self, index: int) -> InputHandler:
        def batch(values, timestamps):  # type: ignore[no-untyped-def]
            self.events.append(("batch", index, list(values), timestamps))

        def watermark(wm):  # type: ignore[no-untyped-def]
            self.events.append(("watermark", index, wm.timestamp))

        return InputHandler(batch, watermark, lambda status: None)

    def end_of_key(self) -> None:
        self.events.append(("end_of_key",))


def records(events: list[tuple]) -> list[tuple]:
    batches = [e for e in events if e[0] == "batch"]
    return [(i, v, ts) for _, i, vs, tss in batches for v, ts in zip(vs, tss, strict=True)]


def test_records_replay_grouped_by_key_and_ordered_by_timestamp(tmp_path):
    op = Recorder()
    sorter = SortedKeyedInput(
        op, [op.handler(0)], [lambda v: v[0]], memory_records=4, spill_directory=str(tmp_path)
    )
    (collect,) = [h.process_batch for h in sorter.handlers()]
    data = [("b", 5), ("a", 9), ("b", 1), ("c", 3), ("a", 2), ("b", 3), ("a", 2), ("c", 1), ("b", 0)]
    for start in range(0, len(data), 2):
        chunk = data[start : start + 2]
        collect(chunk, [ts for _, ts in chunk])
    assert sorter.spilled_runs == 2
    assert len(os.listdir(tmp_path)) == 2
    sorter.replay()
    assert os.listdir(tmp_path) == []  # runs are deleted after the replay
    replayed = records(op.events)
    by_key: dict[str, list[int]] = {}
    for _, (key, ts), _ in replayed:
        by_key.setdefault(key, []).append(ts)
    assert by_key == {"a": [2, 2, 9], "b": [0, 1, 3, 5], "c": [1, 3]}
    keys_in_order = [key for _, (key, _), _ in replayed]
    assert keys_in_order == sorted(keys_in_order, key=keys_in_order.index)  # each key contiguous
    assert op.events.count(("end_of_key",)) == 3
    assert op.events[-1] == ("watermark", 0, MAX_TIMESTAMP)
    # equal timestamps keep their arrival order
    a_twos = [i for i, (_, (key, ts), _) in enumerate(replayed) if key == "a" and ts == 2]
    assert len(a_twos) == 2


def test_two_inputs_interleave_by_timestamp_and_an_unsorted_input_passes_through():
    op = Recorder()
    sorter = SortedKeyedInput(op, [op.handler(0), op.handler(1)], [lambda v: v, lambda v: v])
    first, second = (h.process_batch for h in sorter.handlers())
    first(["k", "k"], [10, 30])
    second(["k"], [20])
    sorter.replay()
    assert records(op.events) == [(0, "k", 10), (1, "k", 20), (0, "k", 30)]

    op = Recorder()
    sorter = SortedKeyedInput(op, [op.handler(0), op.handler(1)], [lambda v: v, None])
    keyed, broadcast = sorter.handlers()
    keyed.process_batch(["x"], None)
    broadcast.process_batch(["rule"], None)
    assert op.events == [("batch", 1, ["rule"], None)]  # at once, unsorted
    sorter.replay()
    assert op.events[1:] == [("batch", 0, ["x"], None), ("end_of_key",), ("watermark", 0, MAX_TIMESTAMP)]


def test_a_failing_key_selector_names_the_operator_and_record():
    op = Recorder()
    sorter = SortedKeyedInput(op, [op.handler(0)], [lambda v: v["id"]])
    (collect,) = [h.process_batch for h in sorter.handlers()]
    with pytest.raises(UserFunctionError) as info:
        collect([{"id": 1}, {}], None)
    assert "Recorder" in str(info.value)
    assert info.value.record_index == 1
