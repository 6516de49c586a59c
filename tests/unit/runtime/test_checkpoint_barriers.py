"""Barrier alignment at a task's input gates, with test channels: EXACTLY_ONCE blocks the
channels that delivered the barrier until all did (their data waits), AT_LEAST_ONCE does
not; newer barriers subsume older alignments; cancellation markers abort; finished channels
no longer count (Flink's SingleCheckpointBarrierHandler / CheckpointBarrierTracker)."""

from __future__ import annotations

from collections import deque
from typing import Any

from millstream.runtime.ids import ResultPartitionID
from millstream.runtime.io.network.buffer import Buffer, DataType
from millstream.runtime.io.network.consumer.input_channel import InputChannel
from millstream.runtime.io.network.consumer.input_gate import SingleInputGate
from millstream.runtime.io.network.events import (
    CancelCheckpointMarker,
    CheckpointBarrier,
    deserialize_event,
    serialize_event,
)
from millstream.runtime.taskmanager.checkpoint_barrier_handler import AlignedBarrierHandler, BarrierTracker


class TestChannel(InputChannel):
    """A channel fed by hand: data buffers carry a label, events are real events."""

    __test__ = False

    def __init__(self, gate: SingleInputGate, index: int) -> None:
        super().__init__(gate, index, ResultPartitionID(f"p{index}"), 0)
        self.queue: deque[Buffer] = deque()

    def push_data(self, label: str) -> None:
        self.queue.append(Buffer(label.encode(), len(label), None, DataType.DATA))
        self.notify_data_available()

    def push_event(self, event: object) -> None:
        self.queue.append(serialize_event(event))
        self.notify_data_available()

    def get_next_buffer(self) -> tuple[Buffer | None, bool]:
        if not self.queue:
            return None, False
        return self.queue.popleft(), bool(self.queue)

    def request_subpartition(self) -> None:
        pass

    def release(self) -> None:
        pass


class Task:
    """Reads the gates as the input processor does, handing events to the barrier handler."""

    def __init__(self, channels: int, exactly_once: bool, gates: int = 1) -> None:
        self.gates = [SingleInputGate(i, 0, lambda: None) for i in range(gates)]
        self.channels: list[TestChannel] = []
        for gate in self.gates:
            for index in range(channels):
                channel = TestChannel(gate, index)
                gate.add_channel(channel)
                self.channels.append(channel)
        self.processed: list[str] = []
        self.snapshots: list[tuple[int, list[str]]] = []  # (checkpoint, records processed before it)
        self.aborted: list[int] = []
        handler_class = AlignedBarrierHandler if exactly_once else BarrierTracker
        self.handler = handler_class(
            self.gates,
            lambda barrier: self.snapshots.append((barrier.checkpoint_id, list(self.processed))),
            self.aborted.append,
        )

    def run(self) -> None:
        """Process everything that can be processed now."""
        progress = True
        while progress:
            progress = False
            for gate in self.gates:
                polled = gate.poll_next()
                if polled is None:
                    continue
                progress = True
                channel, buffer = polled
                if buffer.data_type is DataType.DATA:
                    self.processed.append(bytes(buffer.segment[: buffer.size]).decode())
                    continue
                event: Any = deserialize_event(buffer)
                if isinstance(event, CheckpointBarrier):
                    self.handler.process_barrier(gate, channel.channel_index, event)
                elif isinstance(event, CancelCheckpointMarker):
                    self.handler.process_cancel(gate, channel.channel_index, event)

    def finish_channel(self, index: int) -> None:
        channel = self.channels[index]
        channel.finished = True
        channel.gate.finished_channels += 1
        self.handler.process_end_of_partition()


def barrier(checkpoint_id: int) -> CheckpointBarrier:
    return CheckpointBarrier(checkpoint_id, 1000 * checkpoint_id)


def test_exactly_once_blocks_a_channel_after_its_barrier_until_all_channels_delivered_it():
    task = Task(channels=2, exactly_once=True)
    a, b = task.channels
    a.push_data("a1")
    a.push_event(barrier(1))
    a.push_data("a2")  # after the barrier: must wait for the snapshot
    b.push_data("b1")
    task.run()
    assert task.processed == ["a1", "b1"]
    assert task.snapshots == []
    b.push_data("b2")
    b.push_event(barrier(1))
    task.run()
    # the snapshot holds exactly what came before the barriers on every channel
    assert task.snapshots == [(1, ["a1", "b1", "b2"])]
    assert task.processed == ["a1", "b1", "b2", "a2"]


def test_at_least_once_never_blocks_and_snapshots_when_the_last_barrier_arrives():
    task = Task(channels=2, exactly_once=False)
    a, b = task.channels
    a.push_event(barrier(1))
    a.push_data("a2")
    b.push_data("b1")
    task.run()
    assert sorted(task.processed) == ["a2", "b1"]  # a2 was not held back
    assert task.snapshots == []
    b.push_event(barrier(1))
    task.run()
    assert task.snapshots[0][0] == 1 and "a2" in task.snapshots[0][1]


def test_across_several_gates_every_channel_counts():
    task = Task(channels=1, exactly_once=True, gates=2)
    first, second = task.channels
    first.push_event(barrier(3))
    first.push_data("late")
    task.run()
    assert task.snapshots == [] and task.processed == []
    second.push_event(barrier(3))
    task.run()
    assert task.snapshots == [(3, [])] and task.processed == ["late"]


def test_a_newer_barrier_aborts_the_alignment_of_an_older_checkpoint():
    task = Task(channels=2, exactly_once=True)
    a, b = task.channels
    a.push_event(barrier(1))
    a.push_data("a-after-1")
    task.run()
    b.push_event(barrier(2))  # checkpoint 1 never got its barrier on b (aborted upstream)
    task.run()
    assert task.aborted == [1]
    assert "a-after-1" in task.processed  # released when 1 was aborted
    a.push_event(barrier(2))
    task.run()
    assert [cid for cid, _ in task.snapshots] == [2]
    b.push_event(barrier(1))  # a stale barrier is ignored
    task.run()
    assert [cid for cid, _ in task.snapshots] == [2] and task.aborted == [1]


def test_a_stale_barrier_during_a_newer_alignment_neither_counts_nor_blocks():
    task = Task(channels=3, exactly_once=True)
    a, b, c = task.channels
    a.push_event(barrier(2))  # checkpoint 1 was abandoned upstream of a
    b.push_event(barrier(1))  # ... but b still delivers its barrier 1
    b.push_data("b-after-1")
    task.run()
    assert task.snapshots == [] and task.processed == ["b-after-1"]  # b is not blocked by 1
    c.push_event(barrier(2))
    task.run()
    assert task.snapshots == []  # b's barrier 1 did not count for 2
    b.push_event(barrier(2))
    task.run()
    assert [cid for cid, _ in task.snapshots] == [2]


def test_a_cancellation_marker_aborts_the_alignment_and_releases_the_channels():
    task = Task(channels=2, exactly_once=True)
    a, b = task.channels
    a.push_event(barrier(5))
    a.push_data("held")
    task.run()
    assert task.processed == []
    b.push_event(CancelCheckpointMarker(5))
    task.run()
    assert task.aborted == [5] and task.processed == ["held"] and task.snapshots == []


def test_a_finished_channel_no_longer_counts():
    task = Task(channels=3, exactly_once=True)
    a, b, _ = task.channels
    a.push_event(barrier(1))
    b.push_event(barrier(1))
    task.run()
    assert task.snapshots == []
    task.finish_channel(2)
    assert [cid for cid, _ in task.snapshots] == [1]


def test_at_least_once_tracks_overlapping_checkpoints_and_drops_older_incomplete_ones():
    task = Task(channels=2, exactly_once=False)
    a, b = task.channels
    a.push_event(barrier(1))
    a.push_event(barrier(2))
    b.push_event(barrier(2))  # b never sends 1 (aborted upstream)
    task.run()
    assert [cid for cid, _ in task.snapshots] == [2] and task.aborted == [1]
