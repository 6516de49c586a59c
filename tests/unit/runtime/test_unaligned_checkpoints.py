"""Unaligned checkpoints with test channels and the real input processor: the first barrier
starts the snapshot at once and blocks nothing; what the other channels deliver until their
barrier is processed and recorded as in-flight input; a record cut by the barrier keeps its
first bytes; restored, the recorded input comes first and the record continues. On the
producer side the barrier overtakes the queued data (not events), which is kept.
"""

from __future__ import annotations

import pickle
from typing import Any

from millstream.runtime.io.network.buffer import Buffer, DataType
from millstream.runtime.io.network.consumer.input_gate import SingleInputGate
from millstream.runtime.io.network.events import CheckpointBarrier, EndOfPartitionEvent, serialize_event
from millstream.runtime.io.network.partition.subpartition import PipelinedSubpartition
from millstream.runtime.io.network.serialization import HEADER_SIZE
from millstream.runtime.operators.elements import Watermark, WatermarkStatus
from millstream.runtime.operators.sources import InputStatus
from millstream.runtime.taskmanager.checkpoint_barrier_handler import UnalignedBarrierHandler
from millstream.runtime.taskmanager.input_processor import InputHandler, StreamTaskNetworkInput

from .test_checkpoint_barriers import TestChannel


def record(*values: str) -> bytes:
    payload = pickle.dumps((list(values), None))
    return len(payload).to_bytes(HEADER_SIZE, "little") + payload


def data(raw: bytes) -> Buffer:
    return Buffer(bytearray(raw), len(raw), None, DataType.DATA)


class Task:
    """A task's network input over test channels, with an unaligned barrier handler."""

    def __init__(self, channels: int = 2) -> None:
        self.gate = SingleInputGate(0, 0, lambda: None)
        self.channels = [TestChannel(self.gate, i) for i in range(channels)]
        for channel in self.channels:
            self.gate.add_channel(channel)
        self.processed: list[str] = []
        self.snapshots: list[tuple[int, list[str]]] = []
        self.recorded: list[tuple[int, Any]] = []
        self.aborted: list[int] = []
        handler = InputHandler(
            lambda values, ts: self.processed.extend(values),
            lambda mark: None,
            lambda status: None,
        )
        self.input = StreamTaskNetworkInput([self.gate], [handler])
        self.input.barrier_handler = UnalignedBarrierHandler(
            [self.gate],
            self._snapshot,
            lambda b, state: self.recorded.append((b.checkpoint_id, state)),
            self.aborted.append,
        )

    def _snapshot(self, barrier: CheckpointBarrier) -> bool:
        self.snapshots.append((barrier.checkpoint_id, list(self.processed)))
        return True

    def push(self, channel: int, buffer: Buffer) -> None:
        self.channels[channel].queue.append(buffer)
        self.channels[channel].notify_data_available()

    def run(self) -> None:
        while self.input.process_next() is InputStatus.MORE_AVAILABLE:
            pass


def barrier(checkpoint_id: int) -> Buffer:
    return serialize_event(CheckpointBarrier(checkpoint_id, 0, unaligned=True))


def elements(state: Any, channel: int) -> list[Any]:
    recorded, _partial = state[(0, channel)]
    return [pickle.loads(e) for e in recorded]


def test_the_first_barrier_snapshots_at_once_and_the_other_channels_are_recorded_until_theirs():
    task = Task()
    task.push(0, data(record("a1")))
    task.push(0, barrier(1))
    task.run()
    assert task.snapshots == [(1, ["a1"])]  # no waiting for b's barrier
    task.push(0, data(record("a2")))  # after a's barrier: processed at once, not recorded
    task.push(1, data(record("b1")))
    task.run()
    assert sorted(task.processed) == ["a1", "a2", "b1"]  # nothing blocked
    assert task.recorded == []
    task.push(1, data(record("b2")))
    task.push(1, barrier(1))
    task.push(1, data(record("b3")))
    task.run()
    ((checkpoint, state),) = task.recorded
    assert checkpoint == 1
    # b's records between the snapshot and its barrier are the in-flight input
    assert elements(state, 1) == [(["b1"], None), (["b2"], None)]
    assert elements(state, 0) == []
    assert task.processed[-1] == "b3" and task.channels[1].recording is None


def test_a_channel_that_ends_while_recorded_completes_with_what_it_sent():
    task = Task()
    task.push(0, barrier(2))
    task.push(1, data(record("b1")))
    task.push(1, serialize_event(EndOfPartitionEvent()))
    task.run()
    ((checkpoint, state),) = task.recorded
    assert checkpoint == 2 and elements(state, 1) == [(["b1"], None)]


def test_a_record_cut_by_the_barrier_keeps_its_first_bytes_and_continues_after_a_restore():
    first, second = record("a1"), record("a2-spans")
    cut = len(second) // 2
    task = Task(channels=1)
    task.push(0, data(first + second[:cut]))  # a2's head came before the barrier ...
    task.push(0, barrier(3))
    task.run()
    ((_, state),) = task.recorded
    assert task.processed == ["a1"]
    recorded, partial = state[(0, 0)]
    assert recorded == [] and partial is not None  # ... and is kept with the checkpoint
    # restored: recorded input first, then the producer's kept output (a2's tail) completes a2
    restored = Task(channels=1)
    restored.input.restore_channel_state(state)
    restored.push(0, data(second[cut:]))
    restored.run()
    assert restored.processed == ["a2-spans"]


def test_recorded_input_is_replayed_before_anything_new_after_a_restore():
    task = Task()
    task.push(0, barrier(4))
    task.push(1, data(record("b1", "b2")))
    task.push(1, barrier(4))
    task.run()
    ((_, state),) = task.recorded
    restored = Task()
    restored.input.restore_channel_state(state)
    restored.push(0, data(record("new")))
    restored.run()
    assert restored.processed == ["b1", "b2", "new"]


def test_watermarks_in_flight_are_recorded_too():
    task = Task()
    task.push(0, barrier(5))
    mark = pickle.dumps(Watermark(7))
    task.push(1, data(len(mark).to_bytes(HEADER_SIZE, "little") + mark))
    status = pickle.dumps(WatermarkStatus.IDLE)
    task.push(1, data(len(status).to_bytes(HEADER_SIZE, "little") + status))
    task.push(1, barrier(5))
    task.run()
    ((_, state),) = task.recorded
    assert elements(state, 1) == [Watermark(7), WatermarkStatus.IDLE]


def test_a_priority_barrier_overtakes_the_queued_data_but_not_the_events():
    sub = PipelinedSubpartition(0)
    for label in ("d1", "d2"):
        sub.add(data(label.encode()))
    sub.add(serialize_event(EndOfPartitionEvent()))  # stands for any event already queued
    for label in ("d3", "d4"):
        sub.add(data(label.encode()))
    overtaken = sub.add_priority_event(barrier(6))
    assert [bytes(b.segment[: b.size]) for b in overtaken] == [b"d3", b"d4"]
    order = []
    while (polled := sub.poll()[0]) is not None:
        order.append(bytes(polled.segment[: polled.size]) if polled.is_buffer else type(polled).__name__)
    assert order[:2] == [b"d1", b"d2"] and order[4:] == [b"d3", b"d4"]  # barrier after the event
    assert sub.backlog() == 0
