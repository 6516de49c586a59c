"""Checkpoint barriers at a task's inputs: when the task may take its snapshot.

A task with several input channels takes checkpoint ``n`` once barrier ``n`` arrived on
every channel that has not finished. Two ways to get there:

* ``AlignedBarrierHandler`` (EXACTLY_ONCE, Flink's SingleCheckpointBarrierHandler, aligned):
  a channel that delivered barrier ``n`` is blocked: its data belongs after the snapshot,
  so it waits while the other channels catch up. When the last barrier arrives every
  channel resumes and the task snapshots with exactly the records before the barriers.
* ``UnalignedBarrierHandler`` (EXACTLY_ONCE with unaligned checkpoints, Flink's unaligned
  SingleCheckpointBarrierHandler): the first barrier starts the checkpoint at once: the
  task snapshots and sends the barrier ahead of its queued output (which goes into the
  checkpoint); nothing blocks; what the other channels deliver until their barrier is
  processed and also recorded for the checkpoint (in-flight input). When the last barrier
  is in, the recorded input completes the task's part.
* ``BarrierTracker`` (AT_LEAST_ONCE, Flink's CheckpointBarrierTracker): nothing blocks; the
  task snapshots when the last barrier arrives, with some records after the barrier
  already processed (on recovery they are processed again: at least once).

A barrier of a newer checkpoint arriving while an older one aligns aborts the older one
(it can never complete); a ``CancelCheckpointMarker`` aborts the checkpoint it names;
barriers of checkpoints already completed or aborted are ignored. A channel that finishes
(EndOfPartition) no longer counts. All on the task thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from millstream.runtime.io.network.consumer.input_channel import InputChannel
from millstream.runtime.io.network.consumer.input_gate import SingleInputGate
from millstream.runtime.io.network.events import CancelCheckpointMarker, CheckpointBarrier

__all__ = ["AlignedBarrierHandler", "BarrierTracker", "CheckpointBarrierHandler", "UnalignedBarrierHandler"]

Channel = tuple[int, int]  # (gate index, channel index)


class CheckpointBarrierHandler:
    """Counts barriers per checkpoint over all channels of a task's gates."""

    def __init__(
        self,
        gates: list[SingleInputGate],
        on_barriers_complete: Callable[[CheckpointBarrier], None],
        on_aborted: Callable[[int], None],
    ) -> None:
        self._gates = gates
        self._on_complete = on_barriers_complete
        self._on_aborted = on_aborted
        self.latest_done = -1  # the newest checkpoint completed or aborted here

    def _open_channels(self) -> set[Channel]:
        return {
            (gate.gate_index, channel.channel_index)
            for gate in self._gates
            for channel in gate.channels
            if not channel.finished
        }

    def process_barrier(self, gate: SingleInputGate, channel_index: int, barrier: CheckpointBarrier) -> None:
        """Barrier ``barrier.checkpoint_id`` arrived on one channel."""
        raise NotImplementedError

    def process_cancel(
        self, gate: SingleInputGate, channel_index: int, marker: CancelCheckpointMarker
    ) -> None:
        """Checkpoint ``marker.checkpoint_id`` was abandoned upstream."""
        raise NotImplementedError

    def process_end_of_partition(self) -> None:
        """A channel finished: checkpoints waiting only for it complete now."""
        raise NotImplementedError


class _SingleCheckpointHandler(CheckpointBarrierHandler):
    """One checkpoint at a time (Flink's SingleCheckpointBarrierHandler): a newer barrier
    subsumes the one under way, older ones are stale, a cancellation marker aborts."""

    def __init__(
        self,
        gates: list[SingleInputGate],
        on_barriers_complete: Callable[[CheckpointBarrier], None],
        on_aborted: Callable[[int], None],
    ) -> None:
        super().__init__(gates, on_barriers_complete, on_aborted)
        self._barrier: CheckpointBarrier | None = None  # the checkpoint under way

    def _accept(self, barrier: CheckpointBarrier) -> bool:
        """Whether ``barrier`` counts: not completed or aborted here, not older than the one
        under way (which a newer one subsumes: it could never complete)."""
        checkpoint_id = barrier.checkpoint_id
        if checkpoint_id <= self.latest_done:
            return False
        if self._barrier is not None and checkpoint_id < self._barrier.checkpoint_id:
            return False  # an older checkpoint, abandoned: a newer one is under way
        if self._barrier is not None and checkpoint_id > self._barrier.checkpoint_id:
            self._abort(self._barrier.checkpoint_id)
        return True

    def process_cancel(
        self, gate: SingleInputGate, channel_index: int, marker: CancelCheckpointMarker
    ) -> None:
        checkpoint_id = marker.checkpoint_id
        if checkpoint_id <= self.latest_done:
            return
        if self._barrier is not None and self._barrier.checkpoint_id > checkpoint_id:
            return  # a newer checkpoint is under way
        self._abort(checkpoint_id)

    def _done(self, checkpoint_id: int) -> None:
        self._reset()
        self.latest_done = max(self.latest_done, checkpoint_id)

    def _abort(self, checkpoint_id: int) -> None:
        self._done(checkpoint_id)
        self._on_aborted(checkpoint_id)

    def _reset(self) -> None:
        self._barrier = None


class AlignedBarrierHandler(_SingleCheckpointHandler):
    """EXACTLY_ONCE: block channels that delivered the barrier until all did."""

    def __init__(
        self,
        gates: list[SingleInputGate],
        on_barriers_complete: Callable[[CheckpointBarrier], None],
        on_aborted: Callable[[int], None],
    ) -> None:
        super().__init__(gates, on_barriers_complete, on_aborted)
        self._arrived: set[Channel] = set()

    @property
    def aligning(self) -> int | None:
        """The checkpoint being aligned, if any."""
        return self._barrier.checkpoint_id if self._barrier is not None else None

    def process_barrier(self, gate: SingleInputGate, channel_index: int, barrier: CheckpointBarrier) -> None:
        if not self._accept(barrier):
            return
        if self._barrier is None:
            self._barrier = barrier
        self._arrived.add((gate.gate_index, channel_index))
        gate.block_channel(channel_index)
        self._maybe_complete()

    def process_end_of_partition(self) -> None:
        self._maybe_complete()

    def _maybe_complete(self) -> None:
        barrier = self._barrier
        if barrier is None or not self._open_channels() <= self._arrived:
            return
        self._done(barrier.checkpoint_id)
        self._on_complete(barrier)

    def _reset(self) -> None:
        super()._reset()
        self._arrived = set()
        for gate in self._gates:
            gate.resume_consumption()


class UnalignedBarrierHandler(_SingleCheckpointHandler):
    """EXACTLY_ONCE, unaligned: snapshot at the first barrier, record the other channels'
    elements until their barriers arrive."""

    def __init__(
        self,
        gates: list[SingleInputGate],
        on_first_barrier: Callable[[CheckpointBarrier], bool],
        on_channels_recorded: Callable[[CheckpointBarrier, dict[Channel, tuple[list[bytes], Any]]], None],
        on_aborted: Callable[[int], None],
    ) -> None:
        """``on_first_barrier``: snapshot and forward (False: the task declined);
        ``on_channels_recorded``: every barrier is in, here is the in-flight input."""
        super().__init__(gates, lambda barrier: None, on_aborted)
        self._on_first = on_first_barrier
        self._on_recorded = on_channels_recorded
        self._state: dict[Channel, tuple[list[bytes], Any]] = {}

    def process_barrier(self, gate: SingleInputGate, channel_index: int, barrier: CheckpointBarrier) -> None:
        if not self._accept(barrier):
            return
        channel = gate.channels[channel_index]
        if self._barrier is None:
            for other_gate in self._gates:
                for other in other_gate.channels:
                    if not other.finished and other is not channel:
                        other.recording = []
            if not self._on_first(barrier):
                self._done(barrier.checkpoint_id)  # declined: the task told the coordinator
                return
            self._barrier = barrier
        self._channel_recorded(gate, channel)
        self._maybe_complete()

    def _channel_recorded(self, gate: SingleInputGate, channel: InputChannel) -> None:
        recorded = channel.recording or []
        channel.recording = None
        self._state[(gate.gate_index, channel.channel_index)] = (recorded, channel.deserializer.snapshot())

    def process_end_of_partition(self) -> None:
        if self._barrier is None:
            return
        for gate in self._gates:
            for channel in gate.channels:
                if channel.finished and channel.recording is not None:
                    self._channel_recorded(gate, channel)  # all it sent came before its end
        self._maybe_complete()

    def _maybe_complete(self) -> None:
        barrier = self._barrier
        if barrier is None or not self._open_channels() <= set(self._state):
            return
        state = self._state
        self._done(barrier.checkpoint_id)
        self._on_recorded(barrier, state)

    def _reset(self) -> None:
        super()._reset()
        self._state = {}
        for gate in self._gates:
            for channel in gate.channels:
                channel.recording = None


class BarrierTracker(CheckpointBarrierHandler):
    """AT_LEAST_ONCE: count barriers per checkpoint, never block."""

    def __init__(
        self,
        gates: list[SingleInputGate],
        on_barriers_complete: Callable[[CheckpointBarrier], None],
        on_aborted: Callable[[int], None],
    ) -> None:
        super().__init__(gates, on_barriers_complete, on_aborted)
        self._pending: dict[int, tuple[CheckpointBarrier, set[Channel]]] = {}

    def process_barrier(self, gate: SingleInputGate, channel_index: int, barrier: CheckpointBarrier) -> None:
        checkpoint_id = barrier.checkpoint_id
        if checkpoint_id <= self.latest_done:
            return
        _, arrived = self._pending.setdefault(checkpoint_id, (barrier, set()))
        arrived.add((gate.gate_index, channel_index))
        self._maybe_complete()

    def process_cancel(
        self, gate: SingleInputGate, channel_index: int, marker: CancelCheckpointMarker
    ) -> None:
        checkpoint_id = marker.checkpoint_id
        if checkpoint_id <= self.latest_done:
            return
        self._pending.pop(checkpoint_id, None)
        self._on_aborted(checkpoint_id)

    def process_end_of_partition(self) -> None:
        self._maybe_complete()

    def _maybe_complete(self) -> None:
        open_channels = self._open_channels()
        for checkpoint_id in sorted(self._pending):
            barrier, arrived = self._pending[checkpoint_id]
            if open_channels <= arrived:
                # older ones still counting can no longer complete: channels are FIFO
                for older in [c for c in self._pending if c < checkpoint_id]:
                    del self._pending[older]
                    self._on_aborted(older)
                del self._pending[checkpoint_id]
                self.latest_done = checkpoint_id
                self._on_complete(barrier)
